"""The three levels: legal whole hands, decisions from the observation alone, seeds."""

from __future__ import annotations

import random

import pytest

from tarot_p2p.bots import Bot, Level
from tarot_p2p.bots.sampling import sample_world
from tarot_p2p.rules.cards import EXCUSE
from tarot_p2p.rules.config import AllPass, TableConfig
from tarot_p2p.rules.state import new_hand

from .helpers import CONFIGS, play_positions


def _bots(config: TableConfig, level: Level, seed: str = "") -> list[Bot]:
    # A rollout cap and no clock: the strong level is then fast and reproducible.
    return [
        Bot(config, level, seed=f"{seed}{s}", think=None, rollouts=6) for s in range(config.seats)
    ]


@pytest.mark.parametrize("level", list(Level))
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.players}-{c.five_player_mode}")
def test_every_level_plays_legal_hands(level: Level, config: TableConfig) -> None:
    rng = random.Random(7)
    bots = _bots(config, level)
    for i in range(2 if level is Level.STRONG else 12):
        deck = list(range(78))
        rng.shuffle(deck)
        state = new_hand(config, i % config.seats, deck)
        while not state.is_terminal():
            seat = state.current_player()
            legal = state.legal_actions()
            action = bots[seat].choose(state.observation(seat), legal)
            assert action in legal
            state.apply_action(action)
        assert sum(state.returns()) == 0
        if state.tricks:
            last = state.tricks[-1]
            assert EXCUSE not in last.cards or last.cards[0] == EXCUSE


def test_misere_deal_and_two_players_are_played_too() -> None:
    for config in (TableConfig(all_pass=AllPass.MISERE_DEAL, misere=True), TableConfig(players=2)):
        rng = random.Random(3)
        bots = _bots(config, Level.STRONG)
        deck = list(range(78))
        rng.shuffle(deck)
        state = new_hand(config, 0, deck)
        while not state.is_terminal():
            seat = state.current_player()
            legal = state.legal_actions()
            action = bots[seat].choose(state.observation(seat), legal)
            assert action in legal
            state.apply_action(action)


@pytest.mark.parametrize("level", list(Level))
def test_a_decision_depends_on_the_observation_only(level: Level) -> None:
    """Same observation, other hidden cards (a sampled world): same choice, whatever the
    bot decided before."""
    config = TableConfig()
    rng = random.Random(5)
    compared = 0
    for i, state in enumerate(play_positions(config, 6, seed=11)):
        if i % 7:
            continue
        seat = state.current_player()
        obs = state.observation(seat)
        other = sample_world(config, obs, rng)
        assert other is not None and other.observation(seat) == obs
        if all(other.hands[s] == state.hands[s] for s in range(4)):
            continue
        first = Bot(config, level, seed=1, think=None, rollouts=8)
        again = Bot(config, level, seed=1, think=None, rollouts=8)
        again.choose(obs, state.legal_actions())  # an earlier decision must not matter
        assert first.choose(obs, state.legal_actions()) == again.choose(
            other.observation(seat), other.legal_actions()
        )
        compared += 1
    assert compared >= 3


def test_bad_settings_are_refused_with_a_clear_message() -> None:
    config = TableConfig()
    with pytest.raises(ValueError, match="no bot level"):
        Bot(config, "grandmaster")
    with pytest.raises(ValueError, match="positive"):
        Bot(config, "strong", think=0)
    with pytest.raises(ValueError, match="rollout"):
        Bot(config, "strong", rollouts=0)
    with pytest.raises(ValueError, match="thinking time or a rollout cap"):
        Bot(config, "strong", think=None)
    with pytest.raises(ValueError, match="no legal action"):
        state = new_hand(config, 0, list(range(78)))
        Bot(config).choose(state.observation(1), [])
