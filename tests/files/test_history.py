"""The game history: recorded through real games (every seat a full peer on an in-process
hub, as ``host --bots`` plays: each house bot records into its own profile's history),
rebuilt from the table folders, and never in a game's way (damaged, locked, missing
database)."""

from __future__ import annotations

import logging
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
import trio

from tarot_p2p.cli.house_bots import bot_profile, host_with_house_bots
from tarot_p2p.files.game_record import DealDetail, Game, Result, read_table
from tarot_p2p.files.history import (
    SCHEMA_VERSION,
    HistoryError,
    HistoryWriter,
    load_games,
    open_history,
    rebuild,
    store_game,
)
from tarot_p2p.files.profile import HISTORY_FILE, Profile
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.rules.sheet import LineKind
from tarot_p2p.seat.runner import Outcome, Timeouts
from tests.net.test_game import Scripted

TIMEOUTS = Timeouts(message=60, decision=60)
NAMES = ["Ana", "Bruno", "Chloé", "Denis", "Élise"]


async def play(root: Path, players: int, deals: int, contract: Contract) -> list[Outcome]:
    """A whole game: the host (a scripted bot, its files in ``root``) and house bots, each
    with its profile under ``root`` (:func:`bot_profile`) and its history there. The first
    to speak in each deal takes ``contract``. The host's outcome comes first."""
    config = TableConfig(players=players, game_end=GameEnd.DEALS, game_length=deals)
    with trio.fail_after(240):
        _, host, bots = await host_with_house_bots(
            Scripted(contract, 0),
            NAMES[0],
            config,
            NAMES[1:players],
            lambda i: Scripted(contract, i + 1),
            root,
            TIMEOUTS,
        )
    return [host, *bots]


def player(root: Path) -> Profile:
    """The profile of the first house bot (Bruno): the player whose history is tested."""
    return bot_profile(root, 0)


def stored(path: Path) -> list[Game]:
    with closing(open_history(path, pytest.fail)) as conn:
        return load_games(conn)


def without_times(game: Game) -> Game:
    """A game as the files say it (the times depend on when it was saved)."""
    return Game(
        game.table_id,
        game.folder,
        game.config,
        game.players,
        game.first_dealer,
        game.deals,
        game.result,
        game.named,
        game.transcript,
        game.transcript_sha256,
        game.messages,
        game.stops,
    )


async def test_every_seat_records_the_game_and_a_rebuild_finds_the_same(tmp_path: Path) -> None:
    outcomes = await play(tmp_path, 5, 2, Contract.GARDE)
    assert all(o.finished for o in outcomes)
    games = [stored(bot_profile(tmp_path, i).history) for i in range(4)]
    assert all(len(g) == 1 for g in games)
    mine = games[0][0]
    assert mine.result is Result.FINISHED and mine.ended is not None
    assert [p.name for p in mine.players if p.me] == ["Bruno"]
    assert sorted(p.name for p in mine.players) == sorted(NAMES)
    assert {g[0].players[g[0].me].name for g in games} == set(NAMES[1:])  # each one "me"
    assert len({g[0].my_key for g in games}) == 4
    assert len({g[0].transcript_sha256 for g in games}) == 1
    # The lines are the agreed sheet's, and every scored deal carries its contract.
    sheet = outcomes[0].peer.sheet if outcomes[0].peer is not None else None
    assert sheet is not None
    assert [d.scores for d in mine.deals] == [line.scores for line in sheet.lines]
    assert mine.sheet().totals == sheet.totals
    for deal in mine.deals:
        if deal.kind is LineKind.HAND:
            assert deal.detail.contract == "garde" and deal.detail.taker is not None
            assert deal.detail.made == (" made by " in deal.note)
            assert deal.note.startswith(mine.players[deal.detail.taker].name)
    # What the runner saw live is what the offline audit recomputes from the transcript.
    rebuilt_path = tmp_path / "rebuilt.db"
    done = rebuild(rebuilt_path, player(tmp_path).tables, lambda _: None, pytest.fail)
    assert done.recorded == [mine.folder] and not done.skipped
    assert [without_times(g) for g in stored(rebuilt_path)] == [without_times(mine)]


async def test_a_damaged_history_is_moved_aside_and_the_game_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    profile = player(tmp_path)
    profile.root.mkdir(parents=True)
    garbage = b"this is not a database, whatever it was" * 100
    profile.history.write_bytes(garbage)
    with caplog.at_level(logging.WARNING):
        outcomes = await play(tmp_path, 3, 1, Contract.PRISE)
    assert all(o.finished for o in outcomes)
    aside = list(profile.root.glob(f"{HISTORY_FILE}.damaged-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == garbage
    told = [r.getMessage() for r in caplog.records if "damaged" in r.getMessage()]
    assert len(told) == 1 and "tarot-p2p history --rebuild" in told[0]
    (game,) = stored(profile.history)  # the fresh database holds the game
    assert game.result is Result.FINISHED
    # Lost earlier games come back from the folders.
    profile.history.unlink()
    rebuild(profile.history, profile.tables, lambda _: None, pytest.fail)
    assert [without_times(g) for g in stored(profile.history)] == [without_times(game)]


async def test_a_locked_history_warns_once_and_the_game_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    profile = player(tmp_path)
    profile.root.mkdir(parents=True)
    stored(profile.history)  # create it
    holder = sqlite3.connect(profile.history, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another program holds it for the whole game
    try:
        with caplog.at_level(logging.WARNING):
            outcomes = await play(tmp_path, 3, 2, Contract.PRISE)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert all(o.finished for o in outcomes)
    warnings = [r.getMessage() for r in caplog.records if r.name == "tarot_p2p.files.history"]
    assert warnings == [
        "could not write your game history (database is locked); the game goes on"
    ]  # once, though every deal and the end tried; the other bot's history is written
    assert stored(profile.history) == []
    assert len(stored(bot_profile(tmp_path, 1).history)) == 1


def test_saves_that_fail_only_warn_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    writer = HistoryWriter(tmp_path / "gone" / HISTORY_FILE)
    with caplog.at_level(logging.WARNING):
        writer.save(tmp_path / "no-table")
        writer.save(tmp_path / "no-table")
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].getMessage().startswith("could not write your game history (")


def test_a_history_from_a_newer_version_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / HISTORY_FILE
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION + 1,))
        conn.commit()
    with pytest.raises(HistoryError, match="newer tarot-p2p"):
        open_history(path, pytest.fail)
    assert path.exists() and not list(tmp_path.glob("*.damaged-*"))


def test_an_empty_database_is_brought_to_the_current_schema(tmp_path: Path) -> None:
    path = tmp_path / HISTORY_FILE
    sqlite3.connect(path).close()  # version 0: no table at all
    with closing(open_history(path, pytest.fail)) as conn:
        (version,) = conn.execute("SELECT version FROM schema_version").fetchone()
        (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
    assert version == SCHEMA_VERSION and mode == "wal"


async def test_saving_again_never_duplicates_nor_forgets(tmp_path: Path) -> None:
    """A resumed seat saves the same table again without the details of the hands it
    replayed: the rows stay as they were."""
    profile = player(tmp_path)
    await play(tmp_path, 3, 2, Contract.GARDE)
    (game,) = stored(profile.history)
    folder = profile.tables / game.folder
    assert any(d.detail.contract for d in game.deals)
    again = read_table(folder, {})  # what a seat taken back knows: no detail
    assert all(d.detail == DealDetail() for d in again.deals)
    with closing(open_history(profile.history, pytest.fail)) as conn:
        store_game(conn, again, started=2e9, ended=2e9)
        store_game(conn, again, started=2e9, ended=2e9)
    (after,) = stored(profile.history)
    assert after.deals == game.deals
    assert after.started == game.started  # the earlier start is kept


def test_a_rebuild_leaves_out_folders_it_cannot_read_and_says_why(tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    (tables / "aaaa-1111").mkdir(parents=True)
    (tables / "aaaa-1111" / "transcript.tp2p").write_bytes(b"not a transcript")
    (tables / "bbbb-2222").mkdir()  # a table joined, never started: nothing to say
    seen: list[str] = []
    done = rebuild(tmp_path / HISTORY_FILE, tables, seen.append, pytest.fail)
    assert done.recorded == [] and seen == ["reading table aaaa-1111 (1 of 2)"]
    ((folder, why),) = done.skipped
    assert folder == "aaaa-1111" and why.startswith("the table's files are damaged")
    assert stored(tmp_path / HISTORY_FILE) == []
