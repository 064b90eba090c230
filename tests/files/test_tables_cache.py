"""The shuffle tables' cache: read back when sound, rebuilt when damaged, never trusted."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest
import trio
import trio.testing

from tarot_p2p.cli.join import warm_up_meanwhile, warming_up
from tarot_p2p.crypto import shuffle as shuffle_module
from tarot_p2p.crypto.errors import GroupError
from tarot_p2p.crypto.group import G
from tarot_p2p.crypto.multiexp import FixedBase
from tarot_p2p.crypto.shuffle import (
    MAX_CARDS,
    TABLES_BYTES,
    build_tables_on_use,
    export_tables,
    import_tables,
)
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


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A user cache folder of our own, and the shuffle's tables as before afterwards."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    kept = dict(shuffle_module._TABLES)
    yield tmp_path
    build_tables_on_use(True)
    shuffle_module._TABLES.clear()
    shuffle_module._TABLES.update(kept)


async def test_the_game_does_not_wait_for_the_tables_and_gets_them(cache_home: Path) -> None:
    """A machine's first run: the tables are built by a program of their own while this
    one goes on (its shuffles without tables meanwhile), then read; the next run reads
    them from the cache."""
    assert not cache_file().exists()
    shuffle_module._TABLES.clear()
    with trio.fail_after(300):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(warm_up_meanwhile)
            await trio.testing.wait_all_tasks_blocked()
            assert not shuffle_module._BUILD_ON_USE  # from the start: nobody waits
            assert len(shuffle_module._TABLES) < MAX_CARDS + 1
    assert cache_file().exists()
    assert len(shuffle_module._TABLES) == MAX_CARDS + 1
    shuffle_module._TABLES.clear()
    await warm_up_meanwhile()  # read back, no program started
    assert len(shuffle_module._TABLES) == MAX_CARDS + 1


async def test_a_game_over_first_stops_the_tables_program(cache_home: Path) -> None:
    async def short_game() -> int:
        await trio.sleep(0.2)
        return 7

    with trio.fail_after(60):
        assert await warming_up(short_game) == 7
    assert shuffle_module._BUILD_ON_USE  # the default again once the game is over
    assert not cache_file().exists()  # the build was stopped, nothing half written
    assert not list(cache_file().parent.glob("*.tmp"))


def test_the_cache_is_named_after_the_installed_library(tmp_path: Path) -> None:
    """Tables in the internal form of another build of libsecp256k1 are never read: the
    file's name carries the installed coincurve's version (its own version string, which
    must be the one its package declares)."""
    assert cache_file(tmp_path).name.endswith(f"-coincurve-{version('coincurve')}.bin")
