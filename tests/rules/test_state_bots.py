"""The bot policy and ``tarot-p2p play``: whole games of bots on the engine."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from tarot_p2p.bots import choose_action, hand_strength
from tarot_p2p.cli.main import main
from tarot_p2p.rules.actions import Bid, Play
from tarot_p2p.rules.cards import EXCUSE
from tarot_p2p.rules.config import FivePlayerMode, TableConfig
from tarot_p2p.rules.state import new_hand

from .engine_helpers import cards


@pytest.mark.parametrize(
    "config",
    [
        TableConfig(players=3),
        TableConfig(),
        TableConfig(players=5),
        TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND),
    ],
)
def test_bots_play_legal_hands_and_keep_the_excuse_off_the_last_trick(config: TableConfig) -> None:
    rng = random.Random(7)
    for i in range(20):
        deck = list(range(78))
        rng.shuffle(deck)
        state = new_hand(config, i % config.seats, deck)
        while not state.is_terminal():
            legal = state.legal_actions()
            action = choose_action(state.observation(state.current_player()), legal, rng)
            assert action in legal
            state.apply_action(action)
        assert sum(state.returns()) == 0
        if state.tricks:
            last = state.tricks[-1]
            assert EXCUSE not in last.cards or last.cards[0] == EXCUSE


def test_strong_hands_bid_and_weak_hands_pass() -> None:
    strong = cards("T21 EX T1 T20 T19 T18 T17 T16 T15 T14 T13 KS KH KD KC QS QH T12")
    weak = cards("1S 2S 3S 4S 5S 6S 7S 8S 1H 2H 3H 4H 5H 6H 7H 1D 2D T2")
    assert hand_strength(strong, 4) > hand_strength(weak, 4)
    deck = list(range(78))
    state = new_hand(TableConfig(), 3, deck)
    obs = state.observation(0)
    rng = random.Random(0)
    legal = state.legal_actions()
    strong_obs = dataclasses.replace(obs, hand=strong)
    weak_obs = dataclasses.replace(obs, hand=weak)
    assert choose_action(strong_obs, legal, rng) != Bid(0)
    assert choose_action(weak_obs, legal, rng) == Bid(0)
    assert not isinstance(choose_action(weak_obs, legal, rng), Play)


def test_play_command_prints_the_sheet(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("Deal ") == 4 and "Total" in out and "Game over" in out


def test_play_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--players", "5", "--five", "dead-hand", "--deals", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["hands"]) == 3 and len(data["sheet"]["lines"]) == 3
    for hand, line in zip(data["hands"], data["sheet"]["lines"], strict=True):
        assert line["scores"] == hand["scores"] and line["scores"][hand["dealer"]] == 0
    assert sum(data["sheet"]["totals"]) == 0


def test_play_command_rejects_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--players", "4", "--five", "dead-hand"]) == 2
    assert "--five is for five players" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        main(["play", "--deals", "0"])
    assert stopped.value.code == 2
    assert "give a number of at least 1" in capsys.readouterr().err


def test_play_command_seats_the_chosen_level(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["play", "--level", "strong", "--think", "0.01", "--deals", "2", "--seed", "5"]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["hands"]) == 2 and sum(data["sheet"]["totals"]) == 0


def test_play_command_refuses_a_bad_level_or_thinking_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["play", "--level", "grandmaster"])
    assert "invalid choice" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["play", "--think", "0"])
    assert "thinking time must be between 0 and 3600 seconds" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["play", "--think", "soon"])
    assert "'soon' is not a number of seconds" in capsys.readouterr().err
