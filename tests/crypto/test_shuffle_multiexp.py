"""The shuffle's fast sums of products equal the plain group arithmetic."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.crypto.errors import GroupError
from tarot_p2p.crypto.group import (
    ORDER,
    G,
    base_mul,
    hash_to_point,
    mul,
    neg,
    point_to_bytes,
    sum_points,
)
from tarot_p2p.crypto.multiexp import FixedBase, encode_points, linear_combination

POINTS = [hash_to_point(b"tarot-p2p/test/multiexp", bytes([i])) for i in range(6)]
scalars = st.integers(0, ORDER - 1)


@pytest.fixture(scope="module")
def table() -> FixedBase:
    return FixedBase(POINTS[0])


@pytest.fixture(scope="module")
def g_table() -> FixedBase:
    return FixedBase(G)


@pytest.mark.parametrize("k", [1, 2, 255, 256, 257, 1 << 248, ORDER - 1, ORDER + 5, -3])
def test_fixed_base_edge_scalars(table: FixedBase, k: int) -> None:
    expected = mul(POINTS[0], k)
    assert point_to_bytes(linear_combination([], [(table, k)])) == point_to_bytes(expected)


def test_zero_scalars_contribute_nothing(table: FixedBase) -> None:
    got = linear_combination([(POINTS[1], 0), (POINTS[2], 5)], [(table, 0)], [POINTS[3]])
    assert point_to_bytes(got) == point_to_bytes(sum_points([mul(POINTS[2], 5), POINTS[3]]))


@settings(max_examples=25, deadline=None)
@given(st.lists(scalars, min_size=6, max_size=6), st.lists(scalars, min_size=2, max_size=2))
def test_linear_combination_matches_plain_arithmetic(
    table: FixedBase, g_table: FixedBase, variable: list[int], fixed: list[int]
) -> None:
    got = linear_combination(
        list(zip(POINTS, variable, strict=True)),
        [(table, fixed[0]), (g_table, fixed[1])],
        [POINTS[5]],
    )
    terms = [mul(p, k) for p, k in zip(POINTS, variable, strict=True) if k]
    terms += [mul(POINTS[0], k) for k in fixed[:1] if k] + [base_mul(k) for k in fixed[1:] if k]
    assert point_to_bytes(got) == point_to_bytes(sum_points([*terms, POINTS[5]]))


def test_identity_result_raises(table: FixedBase) -> None:
    with pytest.raises(GroupError):
        linear_combination([(POINTS[0], 1)], [(table, ORDER - 1)])
    with pytest.raises(GroupError):
        linear_combination([(POINTS[0], 0)])
    with pytest.raises(GroupError):
        linear_combination([], [], [G, neg(G)])


def test_negate_and_encode() -> None:
    assert point_to_bytes(neg(POINTS[2])) == point_to_bytes(mul(POINTS[2], ORDER - 1))
    assert encode_points(POINTS) == b"".join(point_to_bytes(p) for p in POINTS)
    assert encode_points([]) == b""


def test_equal_bases_are_merged() -> None:
    twice = [(POINTS[1], 3), (POINTS[2], 1), (POINTS[1], 4)]
    assert point_to_bytes(linear_combination(twice)) == point_to_bytes(
        sum_points([mul(POINTS[1], 7), POINTS[2]])
    )
    cancelling = [(POINTS[1], 1), (POINTS[2], 2), (POINTS[1], ORDER - 1)]
    assert point_to_bytes(linear_combination(cancelling)) == point_to_bytes(mul(POINTS[2], 2))
