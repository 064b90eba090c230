"""``host --bots N``: bots seated inside the host's program, each a full peer."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tarot_p2p.cli.house_bots import bot_names
from tarot_p2p.cli.main import build_parser
from tarot_p2p.files.profile import HISTORY_FILE
from tests.seat.test_resume_processes import LIMIT, Program, start_relay, wait_for


def host(*argv: str) -> int:
    args = build_parser().parse_args(["host", *argv])
    code: int = args.func(args)
    return code


def test_a_game_with_house_bots_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = host("--bot", "--bots", "3", "--deals", "1", "--listen", "127.0.0.1",
                "--profile", str(tmp_path), "--name", "Alice")  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "bots playing in this program: Bruno, Chloé, Denis" in out
    transcripts = sorted(tmp_path.rglob("transcript.tp2p"))
    assert len(transcripts) == 4  # the host's and each bot's own
    assert len({t.read_bytes() for t in transcripts}) == 1
    # The player's history has the game; the house bots keep none (nobody reads them, and
    # the seat after the dealer would wait for its database before its first key).
    assert (tmp_path / HISTORY_FILE).exists()
    assert not list((tmp_path / "house-bots").rglob(HISTORY_FILE + "*"))


def test_the_host_is_named_by_login_like_a_joiner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.setenv(variable, "zoe")
    code = host("--bot", "--players", "3", "--bots", "2", "--deals", "1", "--listen",
                "127.0.0.1", "--profile", str(tmp_path))  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "  zoe (you)  key " in out and "Host" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "4"], "--bots is 0 to 3 at 4 players"),
        (["--bots", "-1"], "--bots is 0 to 3"),
    ],
)
def test_bad_bot_counts_are_refused(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert host("--bot", *argv) == 2
    assert message in capsys.readouterr().err


def test_house_bots_sit_through_the_relay(tmp_path: Path) -> None:
    """A real relay, ``host --bots 2 --relay ADDRESS`` and one ``bot CODE``, as separate
    programs: the house bots dial the relay as the host does, and the game finishes with
    one transcript everywhere."""
    deadline = time.monotonic() + LIMIT
    relay, address = start_relay(tmp_path, deadline)
    programs = [relay]
    try:
        host = Program(
            ["host", "--bot", "--bots", "2", "--deals", "1", "--relay", address,
             "--name", "Zoé", "--profile", str(tmp_path / "host")],
            tmp_path / "host.log",
        )  # fmt: skip
        programs.append(host)
        said = wait_for(
            "the short code",
            lambda: re.search(r"Read this code to your friends: (\S+)", host.output()),
            deadline,
        )
        assert isinstance(said, re.Match)
        bot = Program(
            ["bot", said[1], "--relay", address, "--name", "Pierre",
             "--profile", str(tmp_path / "bot")],
            tmp_path / "bot.log",
        )  # fmt: skip
        programs.append(bot)
        assert bot.wait(deadline) == 0, bot.output()
        assert host.wait(deadline) == 0, host.output()
    finally:
        for program in programs:
            if program.process is not None and program.process.poll() is None:
                program.kill()
    assert "bots playing in this program: Alice, Bruno" in host.output()
    assert "Pierre joined" in host.output()
    transcripts = sorted(tmp_path.glob("host/**/transcript.tp2p"))
    transcripts += sorted(tmp_path.glob("bot/**/transcript.tp2p"))
    assert len(transcripts) == 4  # the host's, each house bot's, the bot program's
    assert len({t.read_bytes() for t in transcripts}) == 1


def test_bot_names_avoid_the_players_name() -> None:
    assert bot_names(2, "alice") == ["Bruno", "Chloé"]
    with pytest.raises(ValueError, match="house bots"):
        bot_names(6, "Zoé")
