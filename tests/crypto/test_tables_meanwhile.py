"""Shuffles made before the fixed-base tables are there are the same shuffles.

A program that reads or builds the tables in the background (``host``, ``join``) turns
off their building on use (:func:`build_tables_on_use`): a shuffle needed meanwhile
multiplies the generators one by one (:class:`VariableBase`). Its proof must be the very
proof the tables give (same points, same bytes) and verify on either side, or a seat
whose tables came late would be blamed for an honest shuffle.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.crypto import shuffle as shuffle_module
from tarot_p2p.crypto.deck import initial_deck
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import ORDER, base_mul, hash_to_point, point_to_bytes
from tarot_p2p.crypto.multiexp import FixedBase, VariableBase, linear_combination
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shuffle import (
    build_tables_on_use,
    commitment_generator,
    export_tables,
    import_tables,
    shuffle_and_prove,
    verify_shuffle,
)

POINT = hash_to_point(b"tarot-p2p/test/meanwhile", b"\x00")
CTX = ProofContext(table_id=b"t" * 32, hand=1, phase="shuffle", seat=2)


@pytest.fixture(scope="module")
def tables() -> bytes:
    return export_tables()


@pytest.fixture
def no_tables(tables: bytes) -> Iterator[None]:
    """No generator table and none built on use, as in a program whose tables are still
    coming; everything as before afterwards."""
    kept = dict(shuffle_module._TABLES)
    shuffle_module._TABLES.clear()
    build_tables_on_use(False)
    try:
        yield
    finally:
        build_tables_on_use(True)
        shuffle_module._TABLES.update(kept)
        import_tables(tables)


@settings(max_examples=30, deadline=None)
@given(st.integers(-5, ORDER + 5))
def test_variable_base_terms_equal_the_fixed_base_ones(k: int) -> None:
    fixed, variable = FixedBase(POINT), VariableBase(POINT)
    g = base_mul(7)
    if k % ORDER == 0:  # no term: only the plain point is left
        assert point_to_bytes(linear_combination([], [(variable, k)], [g])) == point_to_bytes(g)
        return
    assert point_to_bytes(linear_combination([], [(variable, k)], [g])) == point_to_bytes(
        linear_combination([], [(fixed, k)], [g])
    )


def seeded(seed: int) -> DeterministicRandom:
    return DeterministicRandom(seed.to_bytes(32, "big"))


def test_a_shuffle_without_tables_is_the_shuffle_with_them(no_tables: None, tables: bytes) -> None:
    y = base_mul(12345)
    deck = initial_deck(y)
    before = [point_to_bytes(commitment_generator(j)) for j in range(78)]
    out, proof = shuffle_and_prove(y, deck, CTX, seeded(1))
    assert not shuffle_module._TABLES.keys() - {-1}  # only G's table was built
    verify_shuffle(y, deck, out, proof, CTX)
    import_tables(tables)
    assert [point_to_bytes(commitment_generator(j)) for j in range(78)] == before
    again, again_proof = shuffle_and_prove(y, deck, CTX, seeded(1))
    assert again == out and again_proof.to_bytes() == proof.to_bytes()
    verify_shuffle(y, deck, out, proof, CTX)  # and a proof made without verifies with them


def test_a_wrong_proof_is_refused_without_tables(no_tables: None) -> None:
    y = base_mul(99)
    deck = initial_deck(y)
    out, proof = shuffle_and_prove(y, deck, CTX, seeded(2))
    other = ProofContext(table_id=b"t" * 32, hand=1, phase="shuffle", seat=3)
    with pytest.raises(shuffle_module.ProofError):
        verify_shuffle(y, deck, out, proof, other)
