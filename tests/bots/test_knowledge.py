"""What a seat infers from its observation, and the worlds sampled from it."""

from __future__ import annotations

import random

import pytest

from tarot_p2p.bots.knowledge import infer
from tarot_p2p.bots.sampling import sample_world
from tarot_p2p.rules.cards import SUIT_MASK, TRUMP_MASK
from tarot_p2p.rules.config import TableConfig

from .helpers import CONFIGS, play_positions, positions


def test_a_seat_that_does_not_follow_is_void_and_one_that_discards_has_no_trump() -> None:
    found = 0
    for state in play_positions(TableConfig(), 6):
        for seat in range(4):
            know = infer(state.observation(seat))
            for other in range(4):
                if other == seat:
                    continue
                # Never wrong: a forbidden card is never really in that hand.
                assert not know.forbidden[other] & state.hands[other]
                found += bool(know.forbidden[other] & SUIT_MASK[0])
                found += bool(know.forbidden[other] & TRUMP_MASK)
    assert found  # some voids were shown in six deals


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.players}-{c.five_player_mode}")
def test_sampled_worlds_look_the_same_from_the_seat_and_differ_behind_it(
    config: TableConfig,
) -> None:
    rng = random.Random(1)
    differ = checked = 0
    for i, state in enumerate(play_positions(config, 8)):
        if i % 5:
            continue
        checked += 1
        seat = state.current_player()
        obs = state.observation(seat)
        world = sample_world(config, obs, rng)
        assert world is not None
        assert world.observation(seat) == obs
        assert world.legal_actions() == state.legal_actions()
        others = [s for s in range(config.seats) if s != seat]
        differ += any(world.hands[s] != state.hands[s] for s in others)
    assert checked and differ


def test_a_world_keeps_the_shown_chien_with_the_taker() -> None:
    config = TableConfig()
    rng = random.Random(2)
    for state in play_positions(config, 8, seed=3):
        obs = state.observation(state.current_player())
        if obs.chien is None or obs.taker is None or obs.taker == obs.seat:
            continue
        world = sample_world(config, obs, rng)
        assert world is not None
        kept = obs.chien & ~obs.played
        assert not kept & ~(world.hands[obs.taker] | world.ecart)
        return
    pytest.fail("no position with a shown chien and a defender to move")


def test_no_world_outside_the_play_phase() -> None:
    config = TableConfig()
    state = next(positions(config, 1))
    assert sample_world(config, state.observation(state.current_player()), random.Random(0)) is None
