"""A foreign fixed-base tables cache is spot-checked before the shuffle uses it.

The cache file's digest only catches damage; a file written whole by someone else (or by
another build of the library) carries a good digest of bad tables. ``import_tables`` must
then refuse it and keep the tables it had: a wrong table entry would make every proof
computed with it wrong (an honest peer's shuffle refused) or, worse, verified against
the wrong bases. Each foreign cache below differs from the real one in a way one part of
the spot check catches: the first and last entry of each table, or the entries at
positions drawn from the data's hash.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tarot_p2p.crypto.errors import GroupError
from tarot_p2p.crypto.group import G, mul
from tarot_p2p.crypto.multiexp import FixedBase, linear_combination
from tarot_p2p.crypto.shuffle import MAX_CARDS, TABLES_BYTES, export_tables, import_tables

SIZE = FixedBase.SIZE
ENTRY = FixedBase.ENTRY_BYTES


@pytest.fixture(scope="module")
def tables() -> bytes:
    """The real tables: G's, then ``H_0..H_77``'s (built once, about two seconds)."""
    data = export_tables()
    assert len(data) == TABLES_BYTES == (MAX_CARDS + 1) * SIZE
    return data


@pytest.fixture(autouse=True)
def real_tables_after(tables: bytes) -> Iterator[None]:
    """Put the real tables back after each test: one that fails must not leave foreign
    tables behind for the next (or for the shuffle tests of the same run)."""
    yield
    import_tables(tables)


def table(data: bytes, index: int) -> bytes:
    """Table ``index`` of a cache (0: G's, ``j + 1``: ``H_j``'s)."""
    return data[index * SIZE : (index + 1) * SIZE]


def replaced(data: bytes, index: int, new: bytes) -> bytes:
    return data[: index * SIZE] + new + data[(index + 1) * SIZE :]


def entry_at(window: int, digit: int) -> slice:
    start = (256 * window + digit) * ENTRY
    return slice(start, start + ENTRY)


def test_the_real_tables_are_taken_back(tables: bytes) -> None:
    import_tables(tables)
    assert export_tables() == tables


def test_tables_in_the_wrong_order_are_refused(tables: bytes) -> None:
    """Two whole, sound tables swapped: each is the table of another base."""
    foreign = replaced(replaced(tables, 1, table(tables, 2)), 2, table(tables, 1))
    with pytest.raises(GroupError):
        import_tables(foreign)
    assert export_tables() == tables  # nothing of the foreign cache was kept


@pytest.mark.parametrize("where", [(0, 1), (31, 255)])
def test_a_table_wrong_only_in_a_fixed_checked_entry_is_refused(
    tables: bytes, where: tuple[int, int]
) -> None:
    """The last generator's table, one entry taken from the next position over."""
    last = bytearray(table(tables, MAX_CARDS))
    wrong = entry_at(*where)
    other = entry_at(where[0], where[1] - 1 if where[1] > 1 else 2)
    last[wrong] = last[other]
    with pytest.raises(GroupError, match=re.escape(f"entry {where} is wrong")):
        import_tables(replaced(tables, MAX_CARDS, bytes(last)))
    assert export_tables() == tables


def test_a_table_right_only_where_the_fixed_checks_look_is_refused(tables: bytes) -> None:
    """G's table made of H_0's but for the two entries always checked: only the entries at
    the positions drawn from the data's hash can tell."""
    body = bytearray(table(tables, 1))
    for where in ((0, 1), (31, 255)):
        body[entry_at(*where)] = table(tables, 0)[entry_at(*where)]
    with pytest.raises(GroupError):
        import_tables(replaced(tables, 0, bytes(body)))
    assert export_tables() == tables


def test_a_table_read_from_a_buffer_its_owner_may_change_is_a_copy() -> None:
    """A table is used where immutable bytes lie, not where a bytearray lies: its owner
    could change it after the checks."""
    k = 0x1234_5678_9ABC_DEF0_1122_3344
    data = FixedBase(G).to_bytes()
    owned = bytearray(data)
    kept = FixedBase.from_bytes(G, data, [(0, 1), (31, 255)])
    copied = FixedBase.from_bytes(G, owned, [(0, 1), (31, 255)])
    owned[:] = FixedBase(mul(G, 2)).to_bytes()  # changed after the checks: 2G's table
    want = mul(G, k)
    assert linear_combination([], [(kept, k)]) == want
    assert linear_combination([], [(copied, k)]) == want
