"""The stand-in's rules (``protocol/table.md`` §3.2), position by position, and whole hands."""

from __future__ import annotations

import random

import pytest

from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import EXCUSE, parse_card
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.stand_in import play_card, stand_in_action
from tarot_p2p.rules.state import Observation, Phase, State, new_hand


def seen(
    hand: str, trick: str = "", seats: tuple[int, ...] = (), taker: int = 0, seat: int = 2
) -> Observation:
    """A four-player position in play: ``seat`` holds ``hand``; ``trick`` is on the table."""
    cards = [parse_card(c) for c in trick.split()]
    mask = sum(1 << parse_card(c) for c in hand.split())
    return Observation(
        seat=seat, players=4, phase=Phase.PLAY, dealer=0, current_player=seat, hand=mask,
        hand_sizes=(10, 10, 10, 10), bids=(), taker=taker, contract=None, called_card=None,
        partner=None, partner_known=True, chien=None, ecart=0, chelem_announced=False,
        petit_chelem_announced=False, poignees=(), miseres=(), tricks=(), trick_leader=None,
        trick=tuple(cards), trick_seats=seats, played=0, void=None,
    )  # fmt: skip


def names(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def test_leads_the_cheapest_card() -> None:
    assert play_card(seen("KS 2H T5"), names("KS 2H T5")) == parse_card("2H")


def test_takes_the_trick_from_the_other_side_with_the_lowest_card_that_does() -> None:
    # The taker (seat 0) leads the 10 of hearts: the defender wins with the jack, not the king.
    legal = names("2H JH KH")
    assert play_card(seen("2H JH KH", "10H", (0,)), legal) == parse_card("JH")


def test_gives_the_cheapest_card_when_it_cannot_win() -> None:
    legal = names("2H 5H")
    assert play_card(seen("2H 5H", "KH", (0,)), legal) == parse_card("2H")


def test_loads_a_trick_its_side_holds_when_it_plays_last() -> None:
    # Seat 2 defends; seat 1 (a defender) holds the trick and seat 2 plays last.
    legal = names("2H QH")
    trick = seen("2H QH T3", "10H KH 5H", (3, 1, 0), taker=0, seat=2)
    assert play_card(trick, legal) == parse_card("QH")
    early = seen("2H QH T3", "KH", (1,), taker=0, seat=2)
    assert play_card(early, legal) == parse_card("2H")


def test_plays_the_excuse_before_the_last_trick() -> None:
    legal = [EXCUSE, parse_card("2H")]
    assert play_card(seen("EX 2H", "5H", (0,)), legal) == EXCUSE
    assert play_card(seen("EX 2H 3H", "5H", (0,)), legal) == parse_card("2H")


@pytest.mark.parametrize("players", [3, 4, 5])
def test_it_plays_whole_hands_at_every_seat_legally(players: int) -> None:
    config = TableConfig(players=players)
    for seed in range(6):
        rng = random.Random(seed)
        deck = list(range(78))
        rng.shuffle(deck)
        state: State = new_hand(config, seed % players, deck)
        first = True
        while not state.is_terminal():
            legal = state.legal_actions()
            move = a.BIDS[2] if first and isinstance(legal[0], a.Bid) else stand_in_action(state)
            first = False
            assert move in legal or isinstance(move, a.Discard)
            state.apply_action(move)
        assert state.outcome() is not None
