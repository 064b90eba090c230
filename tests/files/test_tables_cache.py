"""The shuffle tables' cache: read back when sound, rebuilt when damaged, never trusted."""

from __future__ import annotations

from pathlib import Path

import pytest

from tarot_p2p.crypto.errors import GroupError
from tarot_p2p.crypto.group import G
from tarot_p2p.crypto.multiexp import FixedBase
from tarot_p2p.crypto.shuffle import TABLES_BYTES, export_tables, import_tables
from tarot_p2p.files.tables_cache import MAGIC, cache_file, load_tables


def test_tables_come_back_from_the_cache_and_a_damaged_cache_is_rebuilt(tmp_path: Path) -> None:
    assert load_tables(tmp_path) is False  # built, then saved
    path = cache_file(tmp_path)
    assert path.stat().st_size == len(MAGIC) + 32 + TABLES_BYTES
    assert load_tables(tmp_path) is True  # read back
    data = bytearray(path.read_bytes())
    data[len(MAGIC) + 32 + 1000] ^= 1  # a bit flipped in G's table
    path.write_bytes(bytes(data))
    assert load_tables(tmp_path) is False  # refused, rebuilt
    assert path.read_bytes()[len(MAGIC) + 32 :] == export_tables()


def test_a_table_with_a_wrong_entry_is_refused() -> None:
    good = FixedBase(G).to_bytes()
    assert FixedBase.from_bytes(G, good, [(0, 1), (31, 255), (7, 42)]).to_bytes() == good
    bad = bytearray(good)
    entry = (256 * 7 + 42) * FixedBase.ENTRY_BYTES
    bad[entry : entry + 64] = good[entry + 64 : entry + 128]  # the next entry's point
    with pytest.raises(GroupError):
        FixedBase.from_bytes(G, bytes(bad), [(7, 42)])
    with pytest.raises(GroupError):
        FixedBase.from_bytes(G, good[:-1], [])


def test_a_cache_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(ValueError, match="wrong size"):
        import_tables(b"\x00" * 100)
