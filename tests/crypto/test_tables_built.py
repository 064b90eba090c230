"""The shuffle's fixed-base tables, built, found, stored and imported from nothing.

Why each test starts with the tables forgotten: they are kept for the process, so a
test that finds them there does not run the code that builds, finds or stores them. In
a mutation run every mutant's process inherits the tables of the first run
(``docs/mutation.md``), and a mutant of that code went unseen. The fixture empties the
module's memory of tables (and puts it back after), so each test here runs that code.
What is checked is what the memory is for: each table is the one of its own base (a
table of another point makes every proof with it wrong), built once and then used, and
a shuffle made while building on use is off uses no table it lacks, yet proves the same.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tarot_p2p.crypto import shuffle
from tarot_p2p.crypto.elgamal import Ciphertext, card_point, encrypt
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import G, base_mul
from tarot_p2p.crypto.multiexp import FixedBase
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shuffle import (
    MAX_CARDS,
    build_tables_on_use,
    commitment_generator,
    export_tables,
    import_tables,
    precompute_tables,
    shuffle_and_prove,
    verify_shuffle,
)

Y = base_mul(0x7AB1E5)
CTX = ProofContext(table_id=b"tables-built", hand=2, phase="shuffle", seat=1)


@pytest.fixture
def forgotten() -> Iterator[dict[int, FixedBase]]:
    """The module's memory of tables, empty, and building on use on (the default); the
    tables it held are put back after."""
    kept = dict(shuffle._TABLES)
    shuffle._TABLES.clear()
    build_tables_on_use(True)
    try:
        yield shuffle._TABLES
    finally:
        build_tables_on_use(True)
        shuffle._TABLES.clear()
        shuffle._TABLES.update(kept)


def base_of(index: int) -> bytes:
    """The table that index ``index`` of the memory must hold (``-1``: G's)."""
    return FixedBase(G if index < 0 else commitment_generator(index)).to_bytes()


def deck(n: int) -> list[Ciphertext]:
    rng = DeterministicRandom(b"tables deck")
    return [encrypt(Y, card_point(c), rng.scalar()) for c in range(n)]


@pytest.mark.parametrize("n", [0, 1, 3])
def test_precomputing_builds_gs_table_and_the_first_n_generators(
    forgotten: dict[int, FixedBase], n: int
) -> None:
    precompute_tables(n)
    assert sorted(forgotten) == [-1, *range(n)]
    for index, table in forgotten.items():
        assert table.to_bytes() == base_of(index), index


def test_a_table_is_built_once_and_then_used(forgotten: dict[int, FixedBase]) -> None:
    precompute_tables(2)
    first = dict(forgotten)
    precompute_tables(2)
    deck_in = deck(2)
    deck_out, proof = shuffle_and_prove(Y, deck_in, CTX, DeterministicRandom(b"once"))
    verify_shuffle(Y, deck_in, deck_out, proof, CTX)
    assert forgotten.keys() == first.keys()
    assert all(forgotten[k] is first[k] for k in first)
    build_tables_on_use(False)  # a table there is used even when none is built on use
    assert all(shuffle._generator_table(j) is first[j] for j in range(2))


def test_a_shuffle_builds_the_tables_it_uses(forgotten: dict[int, FixedBase]) -> None:
    deck_in = deck(3)
    deck_out, proof = shuffle_and_prove(Y, deck_in, CTX, DeterministicRandom(b"on use"))
    assert sorted(forgotten) == [-1, 0, 1, 2]
    for index, table in forgotten.items():
        assert table.to_bytes() == base_of(index), index
    verify_shuffle(Y, deck_in, deck_out, proof, CTX)


def test_a_shuffle_without_building_on_use_proves_the_same(
    forgotten: dict[int, FixedBase],
) -> None:
    deck_in = deck(3)
    build_tables_on_use(False)
    out, proof = shuffle_and_prove(Y, deck_in, CTX, DeterministicRandom(b"meanwhile"))
    assert sorted(forgotten) == [-1]  # G's table only: built on first use either way
    verify_shuffle(Y, deck_in, out, proof, CTX)
    assert sorted(forgotten) == [-1]
    build_tables_on_use(True)
    again, again_proof = shuffle_and_prove(Y, deck_in, CTX, DeterministicRandom(b"meanwhile"))
    assert again == out and again_proof.to_bytes() == proof.to_bytes()


def test_imported_tables_are_kept_each_at_its_index(forgotten: dict[int, FixedBase]) -> None:
    data = export_tables()
    size = FixedBase.SIZE
    forgotten.clear()
    import_tables(data)
    assert sorted(forgotten) == list(range(-1, MAX_CARDS))
    for index, table in forgotten.items():
        assert table.to_bytes() == data[(index + 1) * size : (index + 2) * size], index
    kept = dict(forgotten)
    assert export_tables() == data  # from memory: nothing built again
    assert all(forgotten[k] is kept[k] for k in kept)
