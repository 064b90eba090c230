"""The group's refusals at their edges and for the right reason.

Written for surviving mutants of ``crypto/group.py`` (docs/mutation.md): the x-coordinate
check moved by one or reading the wrong bytes (the library would still refuse such a point,
but as 'not on the curve': the check in front of it is the one the spec names), the scalar
``0`` refused on the way out, the domain-separation tag's length at its ends, ``sub`` never
called, and refusals that no longer say what went wrong.
"""

from __future__ import annotations

import contextlib

import pytest

from tarot_p2p.crypto.errors import GroupError
from tarot_p2p.crypto.group import (
    FIELD_P,
    ORDER,
    G,
    add,
    base_mul,
    hash_to_point,
    mul,
    mul_add_base,
    mul_secret,
    neg,
    point_from_bytes,
    points_equal,
    scalar_from_bytes,
    scalar_to_bytes,
    sub,
    sum_points,
)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"\x02" + bytes(31), r"^a point is 33 bytes, compressed SEC1$"),
        (b"\x04" + bytes(32), r"^a point is 33 bytes, compressed SEC1$"),
        (b"\x02" + FIELD_P.to_bytes(32, "big"), r"^point x-coordinate out of range$"),
        (b"\x03" + (FIELD_P + 1).to_bytes(32, "big"), r"^point x-coordinate out of range$"),
        (b"\x02" + (5).to_bytes(32, "big"), r"^point is not on secp256k1$"),
    ],
)
def test_a_bad_point_is_refused_for_its_reason(data: bytes, says: str) -> None:
    if says.endswith("secp256k1$"):  # x = 5 is not on the curve: 5^3 + 7 is no square
        assert pow(5**3 + 7, (FIELD_P - 1) // 2, FIELD_P) != 1
    with pytest.raises(GroupError, match=says):
        point_from_bytes(data)


def test_a_bad_scalar_is_refused_for_its_reason() -> None:
    with pytest.raises(GroupError, match=r"^a scalar is 32 bytes$"):
        scalar_from_bytes(bytes(31))
    with pytest.raises(GroupError, match=r"^scalar out of range$"):
        scalar_from_bytes(ORDER.to_bytes(32, "big"))
    with pytest.raises(GroupError, match=r"^scalar out of range$"):
        scalar_to_bytes(ORDER)
    with pytest.raises(GroupError, match=r"^scalar out of range$"):
        scalar_to_bytes(-1)


def test_scalar_zero_is_written() -> None:
    # Zero is a scalar (``[0, ORDER)``); only callers that need non-zero refuse it.
    assert scalar_to_bytes(0) == bytes(32)
    assert scalar_to_bytes(ORDER - 1) == (ORDER - 1).to_bytes(32, "big")


def test_the_tag_is_1_to_255_bytes() -> None:
    assert hash_to_point(b"x", b"m") != hash_to_point(b"y" * 255, b"m")
    for tag in (b"", b"x" * 256):
        with pytest.raises(GroupError, match=r"^domain-separation tag must be 1\.\.255 bytes$"):
            hash_to_point(tag, b"m")


def test_subtraction() -> None:
    assert points_equal(sub(base_mul(5), base_mul(2)), base_mul(3))
    assert points_equal(sub(base_mul(2), base_mul(5)), neg(base_mul(3)))
    with pytest.raises(GroupError, match=r"^identity$"):
        sub(base_mul(4), base_mul(4))


def test_the_identity_is_refused_in_words() -> None:
    p = base_mul(12345)
    for make in (
        lambda: base_mul(ORDER),
        lambda: mul(p, 0),
        lambda: mul_secret(p, ORDER),
        lambda: mul_add_base(p, 0, 1),
        lambda: mul_add_base(G, 1, ORDER - 1),  # G - G: the recovery finds no point
        lambda: add(p, neg(p)),
        lambda: sum_points([p, p, neg(base_mul(2 * 12345))]),
    ):
        with pytest.raises(GroupError, match=r"^identity$"):
            make()
    with pytest.raises(GroupError, match=r"^empty sum$"):
        sum_points([])


def test_mul_add_base_on_points_with_x_at_and_above_order() -> None:
    # The first point with x >= ORDER has x = ORDER exactly (r = 0: the fallback branch);
    # the recovery-id path for x > ORDER needs the next one, with even and odd y.
    found = []
    x = ORDER
    while len(found) < 2:
        with contextlib.suppress(GroupError):
            found.append(point_from_bytes(b"\x02" + x.to_bytes(32, "big")))
        x += 1
    at_order, above = found
    assert point_from_bytes(b"\x02" + ORDER.to_bytes(32, "big")) == at_order
    for p in (at_order, above, neg(above)):
        for k, t in ((1, 0), (7, 11), (ORDER - 1, ORDER - 2)):
            expected = sum_points([mul(p, k), base_mul(t)]) if t else mul(p, k)
            assert points_equal(mul_add_base(p, k, t), expected)
