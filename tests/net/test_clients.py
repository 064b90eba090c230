"""The example programs of ``clients/`` play real games (they are templates: they must work)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.cli.terminal import TerminalPolicy
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.seat.runner import Policy

from .test_game import assert_agreement, play_over_tcp

CLIENTS = Path(__file__).resolve().parents[2] / "clients"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, CLIENTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_first_legal_bot_plays_a_whole_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = load("first_legal_bot")

    def policy(i: int, peers: list[Peer]) -> Policy:
        return client.FirstLegal() if i == 1 else BotPolicy(i)  # type: ignore[no-any-return]

    config = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=2)
    game = await play_over_tcp(config, policy, tmp_path, seed="client")
    assert_agreement(game)
    assert capsys.readouterr().out.count("for me") == 2


def test_first_legal_bot_refuses_a_bad_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert load("first_legal_bot").main(["not-a-code"]) == 2
    assert "error" in capsys.readouterr().err


def answer(prompt: str) -> str:
    """The first choice of every question; the écart's first six cards, confirmed."""
    if prompt.startswith("écart"):
        return "1 2 3 4 5 6"
    return "y" if prompt.startswith("put aside") else "1"


async def test_terminal_player_is_shown_the_hand_the_choices_and_every_trick(
    tmp_path: Path,
) -> None:
    """The human seat's prompts, answered "1" each time: the game goes through, and the
    player saw the hand, the numbered legal choices and who took each trick."""
    lines: list[str] = []

    def take(prompt: str) -> str:
        """As :func:`answer`, but a prise when it is offered: the deal is then played out."""
        offered = (re.match(r"\s*(\d+)\. prise$", line, re.I) for line in lines[-8:])
        prise = next((m for m in offered if m), None)
        return prise[1] if prise and prompt.startswith("choice") else answer(prompt)

    human = TerminalPolicy(ask=take, say=lines.append)

    def policy(i: int, peers: list[Peer]) -> Policy:
        return human if i == 2 else BotPolicy(i)

    game = await play_over_tcp(
        TableConfig(players=3, game_end=GameEnd.DEALS, game_length=1), policy, tmp_path
    )
    assert_agreement(game)
    text = "\n".join(lines)
    assert "Your cards:" in text and "   1. " in text
    # The deal is played out (the human takes if nobody has): 24 tricks at three players,
    # each told with who played which card and who took it.
    told = [
        line
        for line in lines
        if re.match(r"Trick \d+: (P\d \S+, ){2}P\d \S+ — P\d takes it$", line)
    ]
    assert len(told) == 24 and told[-1].startswith("Trick 24: ")
    headers = [line.strip() for line in lines if line.strip().startswith("— Deal 1 · ")]
    assert re.search(r"· P\d: (Prise|Garde|Garde sans|Garde contre)", headers[-1])
