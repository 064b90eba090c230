from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.crypto import group
from tarot_p2p.crypto.elgamal import Ciphertext, card_point, encrypt
from tarot_p2p.crypto.errors import CryptoError, GroupError
from tarot_p2p.crypto.group import (
    FIELD_P,
    ORDER,
    G,
    base_mul,
    mul,
    mul_add_base,
    mul_secret,
    point_from_bytes,
    point_to_bytes,
    points_equal,
    scalar_from_bytes,
    scalar_to_bytes,
    sum_points,
)

scalars = st.integers(min_value=1, max_value=ORDER - 1)


def _off_curve_x() -> bytes:
    x = 1
    while True:
        data = b"\x02" + x.to_bytes(32, "big")
        try:
            point_from_bytes(data)
        except GroupError:
            return data
        x += 1


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x00",  # the SEC1 identity
        b"\x04" + bytes(64),  # uncompressed form is not accepted
        b"\x05" + bytes(32),
        b"\x02" + bytes(31),
        b"\x02" + FIELD_P.to_bytes(32, "big"),
        b"\x03" + (2**256 - 1).to_bytes(32, "big"),
        _off_curve_x(),
    ],
)
def test_bad_points_rejected(data: bytes) -> None:
    with pytest.raises(GroupError):
        point_from_bytes(data)


@pytest.mark.parametrize("data", [_off_curve_x(), b"\x02" + FIELD_P.to_bytes(32, "big")])
def test_bad_points_stay_rejected_when_parsed_again(data: bytes) -> None:
    """Only points that parsed are remembered (the house bots parse what the host did)."""
    for _ in range(2):
        with pytest.raises(GroupError):
            point_from_bytes(data)
    assert data not in group._PARSED


def test_a_remembered_point_is_the_point_of_its_bytes() -> None:
    data = point_to_bytes(base_mul(424242))
    first = point_from_bytes(bytearray(data))  # any bytes-like input, one key
    assert point_from_bytes(data) is first
    assert point_to_bytes(first) == data and points_equal(first, base_mul(424242))
    group._PARSED.clear()
    again = point_from_bytes(data)
    assert again is not first and points_equal(again, first)


def test_the_remembered_points_are_bounded() -> None:
    group._PARSED.clear()
    for k in range(1, group.PARSED_KEPT + 2):
        point_from_bytes(point_to_bytes(base_mul(k)))
    assert 0 < len(group._PARSED) <= group.PARSED_KEPT


def test_uncompressed_encoding_of_valid_point_rejected() -> None:
    with pytest.raises(GroupError):
        point_from_bytes(base_mul(5).format(compressed=False))


@pytest.mark.parametrize("data", [bytes(31), bytes(33), ORDER.to_bytes(32, "big"), b"\xff" * 32])
def test_bad_scalars_rejected(data: bytes) -> None:
    with pytest.raises(GroupError):
        scalar_from_bytes(data)


def test_zero_scalar_rejected_where_nonzero_needed() -> None:
    assert scalar_from_bytes(bytes(32)) == 0
    with pytest.raises(GroupError):
        scalar_from_bytes(bytes(32), nonzero=True)
    with pytest.raises(GroupError):
        scalar_to_bytes(ORDER)


def test_identity_results_raise() -> None:
    p = base_mul(12345)
    with pytest.raises(GroupError):
        sum_points([p, mul(p, ORDER - 1)])
    with pytest.raises(GroupError):
        mul(p, ORDER)
    with pytest.raises(GroupError):
        mul_secret(p, 0)


def test_group_error_is_a_crypto_error() -> None:
    assert issubclass(GroupError, CryptoError)
    assert issubclass(GroupError, ValueError)


@settings(max_examples=30)
@given(scalars, scalars, st.integers(min_value=0, max_value=ORDER - 1))
def test_mul_variants_agree(k: int, j: int, t: int) -> None:
    p = base_mul(j)
    assert points_equal(mul_secret(p, k), mul(p, k))
    if (k * j + t) % ORDER == 0:  # k·p + t·G is the identity, which no point encodes
        with pytest.raises(GroupError):
            mul_add_base(p, k, t)
        return
    expected = mul(p, k) if t == 0 else sum_points([mul(p, k), base_mul(t)])
    assert points_equal(mul_add_base(p, k, t), expected)
    assert points_equal(point_from_bytes(point_to_bytes(p)), p)


def test_card_points_distinct_and_not_trivial() -> None:
    encodings = {point_to_bytes(card_point(c)) for c in range(78)}
    assert len(encodings) == 78
    assert point_to_bytes(G) not in encodings


def test_ciphertext_round_trip_and_length() -> None:
    ct = encrypt(base_mul(99), card_point(3), 42)
    assert Ciphertext.from_bytes(ct.to_bytes()) == ct
    with pytest.raises(GroupError):
        Ciphertext.from_bytes(ct.to_bytes()[:-1])


def test_mul_add_base_on_point_with_x_above_order() -> None:
    """The recovery-id path for ``x >= ORDER`` (probability 2^-128 for random points)."""
    x = ORDER
    while True:
        try:
            p = point_from_bytes(b"\x02" + x.to_bytes(32, "big"))
            break
        except GroupError:
            x += 1
    for k, t in ((1, 0), (7, 11), (ORDER - 1, ORDER - 2)):
        assert points_equal(
            mul_add_base(p, k, t), sum_points([mul(p, k), base_mul(t)]) if t else mul(p, k)
        )
    with pytest.raises(GroupError):
        mul_add_base(p, 0, 5)


def test_mul_secret_without_callback_gives_the_same_point(monkeypatch: pytest.MonkeyPatch) -> None:
    import tarot_p2p.crypto.group as group

    assert group.CONSTANT_TIME_SECRET_MUL
    p, k = base_mul(77), 123456789
    expected = mul_secret(p, k)
    monkeypatch.setattr(group, "_XY", None)
    assert points_equal(group.mul_secret(p, k), expected)
