"""The search level: its candidates, its bids, its budget."""

from __future__ import annotations

import dataclasses

from tarot_p2p.bots import Bot, Level
from tarot_p2p.bots.strong import distinct_plays
from tarot_p2p.rules.actions import Bid, Play
from tarot_p2p.rules.cards import card_name, mask_of, parse_card
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.state import new_hand

from .helpers import cards, play_positions


def _names(cards: list[int]) -> list[str]:
    return [card_name(c) for c in cards]


def test_equivalent_cards_are_tried_once() -> None:
    hand = [
        parse_card(n) for n in ["T1", "T2", "T3", "T5", "T6", "T21", "2S", "3S", "5S", "QS", "KS"]
    ]
    # The 4 of spades is gone: 2S, 3S and 5S win and lose the same tricks; so do T2-T3
    # and T5-T6 (T4 still out separates them); the petit and the honours stand alone.
    kept = distinct_plays(hand, mask_of([parse_card("4S")]))
    assert _names(kept) == ["2S", "QS", "KS", "T1", "T2", "T5", "T21"]
    kept = distinct_plays(hand, mask_of([parse_card("4S"), parse_card("T4")]))
    assert _names(kept) == ["2S", "QS", "KS", "T1", "T2", "T21"]


def test_bids_come_from_simulated_hands() -> None:
    config = TableConfig()
    state = new_hand(config, 3, list(range(78)))
    obs = state.observation(0)
    legal = state.legal_actions()
    monster = cards("T21 EX T1 T20 T19 T18 T17 T16 T15 T14 T13 T12 KS KH KD KC QS QH")
    hopeless = cards("1S 2S 3S 4S 5S 6S 7S 8S 1H 2H 3H 4H 5H 6H 7H 1D 2D T2")
    bot = Bot(config, Level.STRONG, seed=0, think=None, rollouts=40)
    high = bot.choose(dataclasses.replace(obs, hand=monster), legal)
    assert isinstance(high, Bid) and high.contract >= 2
    assert bot.choose(dataclasses.replace(obs, hand=hopeless), legal) == Bid(0)


def test_the_same_seed_and_cap_give_the_same_card() -> None:
    config = TableConfig(players=5)
    checked = 0
    for i, state in enumerate(play_positions(config, 3, seed=4)):
        if i % 9:
            continue
        seat = state.current_player()
        obs, legal = state.observation(seat), state.legal_actions()
        one = Bot(config, Level.STRONG, seed="x", think=None, rollouts=10).choose(obs, legal)
        two = Bot(config, Level.STRONG, seed="x", think=None, rollouts=10).choose(obs, legal)
        assert one == two and one in legal
        checked += isinstance(one, Play)
    assert checked
