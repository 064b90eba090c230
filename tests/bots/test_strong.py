"""The search level: its candidates, its bids, its budget."""

from __future__ import annotations

import dataclasses
import random

from tarot_p2p.bots import Bot, Level, bidding, club
from tarot_p2p.bots.strong import distinct_plays
from tarot_p2p.rules.actions import BIDS, Bid, Discard, Go, Play
from tarot_p2p.rules.cards import FULL_DECK, HALF_POINTS, card_name, mask_of, parse_card
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.state import IllegalAction, Phase, State, from_hands, new_hand

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


def _taker_leads_a_low_trump() -> State:
    """Four players, the first trick: the taker (seat 1) leads the 7 of trumps and seat 2,
    without a trump, may throw the queen of hearts or a low heart."""
    config = TableConfig()
    hands = [
        cards("1S 2S 3S 4S 8H 9H 10H JH 5D 6D 7D 3C 4C 5C T8 T9 T10 T11"),
        cards("T21 T20 T15 T7 T6 T5 T4 T3 T2 EX KS QS CS KD QD CD KC QC"),
        cards("QH 2H 3H 6H 7H 5S 6S 7S 9S 8D 9D 10D JD 6C 7C 8C 9C 10C"),
        cards("KH 1H 4H 5H CH 8S 10S JS 1D 2D 3D 4D 1C 2C T16 T17 T18 T19"),
    ]
    chien = FULL_DECK & ~(hands[0] | hands[1] | hands[2] | hands[3])
    state = from_hands(config, 0, hands, chien)
    for contract in (1, 0, 0, 0):
        state.apply_action(BIDS[contract])
    for name in ("QS", "CS", "QD", "CD", "QC", "JC"):
        state.apply_action(Discard(parse_card(name)))
    state.apply_action(Go(False))
    state.apply_action(Play(parse_card("T7")))
    return state


def test_no_honour_goes_under_an_opponents_winning_trump() -> None:
    """With a low heart in hand and the taker's trump winning, the queen of hearts stays in
    hand whatever the few sampled deals say (a short budget: a few playouts per card)."""
    state = _taker_leads_a_low_trump()
    seat = state.current_player()
    obs, legal = state.observation(seat), state.legal_actions()
    assert seat == 2 and Play(parse_card("QH")) in legal and Play(parse_card("2H")) in legal
    for seed in range(10):
        bot = Bot(TableConfig(), Level.STRONG, seed=seed, think=None, rollouts=80)
        action = bot.choose(obs, legal)
        assert isinstance(action, Play) and HALF_POINTS[action.card] == 1, card_name(action.card)


def test_a_hand_club_takes_is_never_passed() -> None:
    """Marginal hands that club takes (the last to speak, after three passes, with a count
    below zero): the search may raise the bid, never drop it to a pass, whatever its
    sample says — so a table of strong bots redeals no more than one of club bots."""
    config = TableConfig()
    rng = random.Random(8)
    checked = 0
    while checked < 6:
        deck = list(range(78))
        rng.shuffle(deck)
        state = new_hand(config, 0, deck)
        try:
            for _ in range(3):
                state.apply_action(Bid(0))
        except IllegalAction:
            continue  # a petit sec
        seat = state.current_player()
        obs, legal = state.observation(seat), state.legal_actions()
        if club.choose(obs, legal) != Bid(1) or bidding.evaluate(obs.hand, 4) >= 0:
            continue
        bot = Bot(config, Level.STRONG, seed=checked, think=None, rollouts=60)
        assert bot.choose(obs, legal) != Bid(0)
        checked += 1


def test_a_short_search_bids_as_club() -> None:
    """With a handful of worlds (a short budget) a bid stays club's: whole hands vary too
    much for a few of them to show that another contract pays."""
    config = TableConfig()
    rng = random.Random(9)
    compared = 0
    while compared < 24:
        deck = list(range(78))
        rng.shuffle(deck)
        state = new_hand(config, compared % 4, deck)
        while state.phase is Phase.BIDDING and compared < 24:
            seat = state.current_player()
            obs, legal = state.observation(seat), state.legal_actions()
            if len(legal) < 2:
                break  # a petit sec
            bot = Bot(config, Level.STRONG, seed=compared, think=None, rollouts=14)
            assert bot.choose(obs, legal) == club.choose(obs, legal)
            compared += 1
            state.apply_action(club.choose(obs, legal))
