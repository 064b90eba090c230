"""The two-player variant: piles in front of each player, only their top cards face up."""

from __future__ import annotations

import random

import pytest

from tarot_p2p.rules.actions import Bid, Go, Play
from tarot_p2p.rules.audit import audit_hand, record_of
from tarot_p2p.rules.cards import card_name, parse_card
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import deal_cards
from tarot_p2p.rules.state import IllegalAction, IncompleteInformation, State, from_hands

from .engine_helpers import cards

TWO = TableConfig(players=2)


def two_player_table() -> tuple[State, list[int], int, list[list[list[int]]]]:
    """Seat 1 deals. Seat 0: hearts and low clubs in hand, no spade but the 2 of spades on
    top of its pile 0 (3S 1S 2S from the bottom up); its trumps are all in seat 1's piles."""
    hand0 = cards("1H 2H 3H 4H 5H 6H 7H 8H 9H 10H JH CH QH KH 1C 2C 3C 4C")
    piles0 = [["3S", "1S", "2S"], ["5D", "6D", "7D"], ["8D", "9D", "10D"], ["JD", "CD", "QD"],
              ["KD", "5C", "6C"], ["7C", "8C", "9C"]]  # fmt: skip
    hand1 = cards("4S 5S 6S 7S 8S 9S 10S JS CS QS KS 1D 2D 3D 4D 10C JC CC")
    piles1 = [[f"T{3 * i + d + 1}" for d in range(3)] for i in range(6)]
    chien = cards("QC KC T19 T20 T21 EX")
    piles = [[[parse_card(n) for n in p] for p in ps] for ps in (piles0, piles1)]
    return from_hands(TWO, 1, [hand0, hand1], chien, piles), [hand0, hand1], chien, piles


def start_play(state: State) -> None:
    """Seat 0 (the dealer's right) takes a garde sans and leads; seat 1 then plays."""
    state.apply_action(Bid(3))
    state.apply_action(Bid(0))
    state.apply_action(Go(False))


def test_top_cards_are_playable_and_the_next_one_shows() -> None:
    state, _, _, _ = two_player_table()
    start_play(state)
    obs = state.observation(1)
    assert obs.tops[0] >> parse_card("2S") & 1 and obs.pile_sizes[0][0] == 3
    legal = {card_name(a.card) for a in state.legal_actions() if isinstance(a, Play)}
    assert "2S" in legal and "1S" not in legal  # only the top of a pile may be played
    state.apply_action(Play(parse_card("2S")))
    assert state.observation(1).tops[0] >> parse_card("1S") & 1  # turned up, public
    assert state.observation(1).pile_sizes[0][0] == 2


def test_follow_suit_counts_the_pile_tops() -> None:
    state, _, _, _ = two_player_table()
    start_play(state)
    state.apply_action(Play(parse_card("1C")))
    state.apply_action(Play(parse_card("10C")))  # seat 1 wins and leads
    state.apply_action(Play(parse_card("4S")))
    # Seat 0 has no spade in hand but one on top of a pile: it must follow with it.
    assert {card_name(a.card) for a in state.legal_actions() if isinstance(a, Play)} == {"2S"}
    with pytest.raises(IllegalAction, match="follow-suit"):
        state.apply_action(Play(parse_card("KH")))
    state.apply_action(Play(parse_card("2S")))


def test_peer_waits_for_the_turned_up_card() -> None:
    state, hands, _, piles = two_player_table()
    hidden = [[[None, None, p[-1]] for p in ps] for ps in piles]
    peer = from_hands(TWO, 1, [hands[0], None], None, hidden)
    script = ["2S", "4S", "5S"]  # seat 0 leads 2S, loses to 4S; seat 1 leads 5S
    for s in (state, peer):
        start_play(s)
        for name in script:
            s.apply_action(Play(parse_card(name)))
    assert peer.pending_piles(0) == [0] and state.pending_piles(0) == []
    with pytest.raises(IncompleteInformation):
        peer.legal_actions()
    with pytest.raises(IllegalAction):
        peer.reveal_pile(0, 0, parse_card("KH"))  # in the viewer's own hand
    peer.reveal_pile(0, 0, parse_card("1S"))
    assert Play(parse_card("1S")) in peer.legal_actions()
    assert peer.legal_actions() == state.legal_actions()


def test_random_two_player_hands_are_scored_once_and_audited() -> None:
    rng = random.Random(5)
    for _ in range(20):
        deck = list(range(78))
        rng.shuffle(deck)
        deal = deal_cards(TWO, 0, deck)
        state = from_hands(TWO, 0, list(deal.hands), deal.chien, deal.piles)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        scores = state.returns()
        assert len(scores) == 2 and sum(scores) == 0
        if state.void is None:
            assert len(state.tricks) == 36
            assert sum(state.half_points()) == 182
        report = audit_hand(record_of(state, deal.hands, deal.chien, deal.piles))
        assert report.offences == () and report.returns == scores
