"""``tarot-p2p history``: what a player reads (names, never seat numbers), its JSON, its
errors; and a real hosted game, recorded and rebuilt, through real processes."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from tarot_p2p.cli.house_bots import bot_names
from tarot_p2p.cli.main import main
from tarot_p2p.files.game_record import Deal, DealDetail, Game, Player, Result, Stop
from tarot_p2p.files.history import open_history, store_game
from tarot_p2p.files.profile import HISTORY_FILE
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.sheet import LineKind

ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
NAMES = ("Ana", "Bruno", "Chloé", "Denis", "Élise")


def player(i: int, me: int) -> Player:
    return Player(NAMES[i], f"{i:032x}", i == me)


def five_player_game() -> Game:
    """Ana (me) takes a garde with Chloé as partner and makes it; then all pass."""
    config = TableConfig(players=5, game_end=GameEnd.DEALS, game_length=2)
    return Game(
        table_id="aa" * 32,
        folder="aaaaaaaaaaaaaaaa-00000000",
        config=config,
        players=tuple(player(i, 0) for i in range(5)),
        first_dealer=0,
        deals=(
            Deal(
                1,
                0,
                LineKind.HAND,
                (120, -60, 60, -60, -60),
                "Ana garde made by 5",
                DealDetail("garde", 0, 2, True),
            ),
            Deal(2, 1, LineKind.ALL_PASS, (0,) * 5, ""),
        ),
        result=Result.FINISHED,
        named=None,
        transcript="/p/tables/aaaaaaaaaaaaaaaa-00000000/transcript.tp2p",
        transcript_sha256="ab" * 32,
        messages=400,
    )


def stopped_game() -> Game:
    """Bruno went silent in the second deal; Ana (me) took a prise and failed it before."""
    config = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=3)
    stop = Stop(2, "absence", "Bruno", "Bruno sent nothing for 600 s when it was their turn",
                False, 90)  # fmt: skip
    return Game(
        table_id="bb" * 32,
        folder="bbbbbbbbbbbbbbbb-00000000",
        config=config,
        players=tuple(player(i, 0) for i in range(3)),
        first_dealer=0,
        deals=(
            Deal(
                1,
                0,
                LineKind.HAND,
                (-60, 30, 30),
                "Ana prise failed by 4",
                DealDetail("prise", 0, None, False),
            ),
        ),
        result=Result.ABORTED,
        named="Bruno",
        transcript="/p/tables/bbbbbbbbbbbbbbbb-00000000/transcript.tp2p",
        transcript_sha256="cd" * 32,
        messages=90,
        stops=(stop,),
    )


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    with closing(open_history(tmp_path / HISTORY_FILE, pytest.fail)) as conn:
        store_game(conn, five_player_game(), 1_700_000_000.0, 1_700_003_600.0)
        store_game(conn, stopped_game(), 1_700_100_000.0, 1_700_101_000.0)
    return tmp_path


def history(capsys: pytest.CaptureFixture[str], profile: Path, *argv: str) -> tuple[int, str, str]:
    code = main(["history", *argv, "--profile", str(profile)])
    out, err = capsys.readouterr()
    return code, out, err


def names_not_seats(text: str) -> None:
    assert "seat" not in text.lower() and "Traceback" not in text


def test_the_list_says_who_played_and_how_each_game_ended(
    profile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = history(capsys, profile)
    assert code == 0
    first, second = (line for line in out.splitlines() if re.match(r"\s*\d+\s", line))
    # The most recent first: the stopped game.
    assert "Ana (you), Bruno, Chloé" in first and "3 players, 3 deals" in first
    assert "-60" in first and "stopped, Bruno was silent" in first
    assert "5 players, called king, 2 deals" in second and "+120" in second
    assert "finished, won by Ana" in second
    assert "tarot-p2p resume" in out  # the stopped game can be taken up again
    names_not_seats(out)


def test_one_game_shows_its_sheet_with_names_and_the_partner(
    profile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = history(capsys, profile, "2")
    assert code == 0
    assert "Players: Ana (you), Bruno, Chloé, Denis, Élise" in out
    assert "Ana garde made by 5; partner Chloé" in out
    assert re.search(r"Total\s+\+120\s+-60\s+\+60\s+-60\s+-60", out)
    assert "Game over. Winner: Ana." in out
    assert "tarot-p2p audit /p/tables/aaaaaaaaaaaaaaaa-00000000/transcript.tp2p" in out
    names_not_seats(out)
    code, out, _ = history(capsys, profile, "bbbb")  # by the start of its table name
    assert code == 0 and "Stops:" in out
    assert "deal 2: Bruno sent nothing for 600 s" in out


def test_players_totals_count_contracts_taken_and_made(
    profile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = history(capsys, profile, "--players")
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    ana = rows["Ana"]
    assert ana.startswith("Ana (you)")
    # Two games, three deals, +120 - 60, two contracts taken, one made.
    assert re.search(r"\s2\s+3\s+\+60\s+\+20\.0\s+2\s+1\s+50%\s+prise 0/1, garde 1/1$", ana)
    assert re.search(r"\s2\s+3\s+-30\s+-10\.0\s+0\s+0\s+-$", rows["Bruno"])
    assert re.search(r"\s1\s+2\s+-60\s", rows["Denis"])
    names_not_seats(out)


def test_json_outputs(profile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = history(capsys, profile, "--json")
    assert code == 0
    games = json.loads(out)["games"]
    summary_keys = {"number", "table", "table_id", "started", "ended", "players", "rules",
                    "deals", "my_total", "result", "named"}  # fmt: skip
    assert [set(g) for g in games] == [summary_keys] * 2
    assert [g["result"] for g in games] == ["aborted", "finished"]
    assert games[0]["ended"] is not None and games[1]["my_total"] == 120
    assert {p["name"]: p["total"] for p in games[1]["players"]}["Chloé"] == 60

    code, out, _ = history(capsys, profile, "2", "--json")
    game = json.loads(out)
    assert set(game) == summary_keys | {"config", "lines", "stops", "transcript",
                                        "transcript_sha256"}  # fmt: skip
    line = game["lines"][0]
    assert line["taker"] == "Ana" and line["partner"] == "Chloé" and line["dealer"] == "Ana"
    assert line["contract"] == "garde" and line["made"] is True
    assert line["scores"] == {"Ana": 120, "Bruno": -60, "Chloé": 60, "Denis": -60, "Élise": -60}
    assert game["lines"][1]["kind"] == "all_pass" and game["lines"][1]["taker"] is None

    code, out, _ = history(capsys, profile, "--players", "--json")
    players = {p["name"]: p for p in json.loads(out)["players"]}
    assert players["Ana"]["me"] is True and players["Ana"]["success_rate"] == 0.5
    assert players["Ana"]["by_contract"] == {
        "prise": {"taken": 1, "made": 0},
        "garde": {"taken": 1, "made": 1},
    }
    assert players["Bruno"]["success_rate"] is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["3"], "there is no game 3: the list goes from 1 to 2"),
        (["0"], "there is no game 0"),
        (["cc"], "no game's table name starts with 'cc'; see the list with: tarot-p2p history"),
        (["1", "--players"], "ask for one game or for --players, not both"),
    ],
)
def test_a_game_that_is_not_there_is_a_plain_error(
    profile: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = history(capsys, profile, *argv)
    assert code == 2 and not out
    assert err.startswith("error: ") and message in err
    names_not_seats(err)


def test_an_empty_profile_says_what_to_do_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = history(capsys, tmp_path / "new")
    assert code == 0 and "tarot-p2p host" in out and "--rebuild" in out
    assert not (tmp_path / "new").exists()
    code, out, err = history(capsys, tmp_path / "new", "1")
    assert code == 2 and "your history holds no game yet" in err


def test_a_damaged_history_is_set_aside_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / HISTORY_FILE).write_bytes(b"\x00garbage" * 512)
    code, out, err = history(capsys, tmp_path)
    assert code == 0 and "no game yet" in out
    assert "your game history was damaged" in err and "tarot-p2p history --rebuild" in err
    assert len(list(tmp_path.glob(f"{HISTORY_FILE}.damaged-*"))) == 1


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tarot_p2p", *argv],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_hosted_game_is_in_the_history_and_comes_back_after_a_rebuild(tmp_path: Path) -> None:
    profile = str(tmp_path)
    hosted = run("host", "--bot", "--bots", "2", "--players", "3", "--deals", "2",
                 "--listen", "127.0.0.1", "--name", "Zoé", "--level", "easy",
                 "--profile", profile)  # fmt: skip
    assert hosted.returncode == 0, hosted.stdout + hosted.stderr
    listed = run("history", "--json", "--profile", profile)
    assert listed.returncode == 0, listed.stderr
    (game,) = json.loads(listed.stdout)["games"]
    assert game["result"] == "finished" and game["deals"] == 2
    names = sorted(["Zoé", *bot_names(2, "Zoé")])
    assert sorted(p["name"] for p in game["players"]) == names
    assert [p["name"] for p in game["players"] if p["me"]] == ["Zoé"]
    sheet = json.loads(next((tmp_path / "tables").glob("*/sheet.json")).read_text())
    assert game["my_total"] == sheet["sheet"]["totals"][sheet["seat"]]
    before = run("history", "1", "--json", "--profile", profile)
    (tmp_path / HISTORY_FILE).unlink()
    rebuilt = run("history", "--rebuild", "--profile", profile)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "Your history now holds the 1 game found" in rebuilt.stderr
    assert "Zoé (you)" in rebuilt.stdout and "finished" in rebuilt.stdout
    after = run("history", "1", "--json", "--profile", profile)
    keep = {"lines", "players", "result", "transcript_sha256", "rules", "my_total"}
    assert {k: v for k, v in json.loads(after.stdout).items() if k in keep} == {
        k: v for k, v in json.loads(before.stdout).items() if k in keep
    }


def test_a_game_the_database_holds_damaged_is_a_plain_error(
    profile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with closing(sqlite3.connect(profile / HISTORY_FILE)) as conn:
        conn.execute("UPDATE scores SET score = score + 1 WHERE number = 1 AND seat = 0")
        conn.commit()
    code, out, err = history(capsys, profile, "2")
    assert code == 2 and not out
    assert err.startswith("error: cannot read your game history (")
    assert "tarot-p2p history --rebuild" in err and "Traceback" not in err


def test_a_game_every_player_ended_level_says_nobody_won(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=1)
    level = Game(
        table_id="cc" * 32,
        folder="cccccccccccccccc-00000000",
        config=config,
        players=tuple(player(i, 0) for i in range(3)),
        first_dealer=0,
        deals=(Deal(1, 0, LineKind.ALL_PASS, (0,) * 3, ""),),
        result=Result.FINISHED,
        named=None,
        transcript="/p/tables/cccccccccccccccc-00000000/transcript.tp2p",
        transcript_sha256="ef" * 32,
        messages=40,
    )
    with closing(open_history(tmp_path / HISTORY_FILE, pytest.fail)) as conn:
        store_game(conn, level, 1_700_000_000.0, 1_700_000_600.0)
    code, out, _ = history(capsys, tmp_path)
    assert code == 0
    assert "finished level, nobody won" in out and "won by" not in out
