"""Positions for the bot tests: hands played by seeded bots up to a chosen point."""

from __future__ import annotations

import random
from collections.abc import Iterator

from tarot_p2p.bots import Bot, Level
from tarot_p2p.rules.cards import CardSet, mask_of, parse_card
from tarot_p2p.rules.config import FivePlayerMode, TableConfig
from tarot_p2p.rules.state import Phase, State, new_hand

CONFIGS = (
    TableConfig(players=3),
    TableConfig(),
    TableConfig(players=5),
    TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND),
)


def cards(names: str) -> CardSet:
    """The card set named by ``names`` (card names separated by spaces)."""
    return mask_of(parse_card(n) for n in names.split())


def positions(config: TableConfig, deals: int, seed: int = 0) -> Iterator[State]:
    """Every position of ``deals`` hands played by ``club`` bots (a fresh copy each); deals
    that everybody passes are skipped (they have a single position worth testing)."""
    rng = random.Random(seed)
    bots = [Bot(config, Level.CLUB, seed=s) for s in range(config.seats)]
    played = 0
    for d in range(20 * deals):
        if played == deals:
            return
        deck = list(range(78))
        rng.shuffle(deck)
        state = new_hand(config, d % config.seats, deck)
        seen = []
        while not state.is_terminal():
            seen.append(state.clone())
            seat = state.current_player()
            state.apply_action(bots[seat].choose(state.observation(seat), state.legal_actions()))
        if state.void is None:
            played += 1
            yield from seen


def play_positions(config: TableConfig, deals: int, seed: int = 0) -> Iterator[State]:
    """The positions of :func:`positions` in the play phase, with a real choice to make."""
    for state in positions(config, deals, seed):
        if state.phase is Phase.PLAY and len(state.legal_actions()) > 1:
            yield state
