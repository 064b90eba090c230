"""``host --bots N``: bots seated inside the host's program, each a full peer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tarot_p2p.cli.house_bots import bot_names
from tarot_p2p.cli.main import build_parser


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


def test_house_bots_need_the_hub_in_the_program(capsys: pytest.CaptureFixture[str]) -> None:
    assert host("--bot", "--bots", "1", "--relay", "relay.example.org:7770") == 2
    assert "--bots needs the hub in this program" in capsys.readouterr().err


def test_bot_names_avoid_the_players_name() -> None:
    assert bot_names(2, "alice") == ["Bruno", "Chloé"]
    with pytest.raises(ValueError, match="house bots"):
        bot_names(6, "Zoé")
