"""The club player's rules, each on a position made for it."""

from __future__ import annotations

import dataclasses

from tarot_p2p.bots import club
from tarot_p2p.rules.cards import (
    KING_MASK,
    SUIT_MASK,
    TRUMP_MASK,
    mask_of,
    parse_card,
)
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.state import Observation, Phase

from .helpers import cards, play_positions


def _trick_position(hand: str, taker: int, leader: int, trick: str) -> Observation:
    """Seat 0 to play, holding ``hand``, to a trick led by ``leader`` (four players)."""
    base = next(s.observation(s.current_player()) for s in play_positions(TableConfig(), 4))
    played = [parse_card(n) for n in trick.split()]
    return dataclasses.replace(
        base,
        seat=0,
        phase=Phase.PLAY,
        dealer=3,
        current_player=0,
        hand=cards(hand),
        hand_sizes=(len(hand.split()),) * 4,
        taker=taker,
        partner=None,
        chien=None,
        ecart=0,
        poignees=(),
        miseres=(),
        tricks=(),
        trick_leader=leader,
        trick=tuple(played),
        trick_seats=tuple((leader + i) % 4 for i in range(len(played))),
        played=mask_of(played),
    )


def test_the_petit_goes_home_on_a_trick_the_side_surely_wins() -> None:
    # Seat 0 defends and plays last; a fellow defender wins the hearts trick.
    obs = _trick_position("T1 T8 2S", taker=1, leader=1, trick="2H 5H 7H")
    assert club.play_card(obs, [parse_card("T1"), parse_card("T8")]) == 56


def test_the_petit_is_not_risked_before_the_taker_plays() -> None:
    # Seat 0 trumps second; the taker (seat 1) and a defender still play after it.
    obs = _trick_position("T1 T8 2S", taker=1, leader=3, trick="2H")
    t8 = parse_card("T8")
    assert club.play_card(obs, [parse_card("T1"), t8]) == t8


def test_a_trick_the_partner_surely_wins_is_fed_with_points() -> None:
    # The fellow defender's 21 wins; seat 0, last, void in hearts and trumps, throws its queen.
    obs = _trick_position("QD 3C 4C", taker=1, leader=1, trick="2H T21 7H")
    legal = [parse_card(n) for n in ("QD", "3C", "4C")]
    assert club.play_card(obs, legal) == parse_card("QD")


def test_an_opponents_trick_gets_the_least() -> None:
    obs = _trick_position("QD 3C 4C", taker=3, leader=1, trick="2H 5H T21")
    legal = [parse_card(n) for n in ("QD", "3C", "4C")]
    assert club.play_card(obs, legal) == parse_card("3C")


def test_the_taker_leads_his_master_trump_while_the_defence_has_trumps() -> None:
    # Seat 0 takes and leads with fewer trumps than the defence: the 21 before the king of
    # hearts, since each round of trumps costs the defence a trump it could cut a king with.
    hand = "T21 T9 T4 2S 3S KH 5H 6H"
    obs = _trick_position(hand, taker=0, leader=0, trick="")
    legal = [parse_card(n) for n in hand.split()]
    assert club.play_card(obs, legal) == parse_card("T21")
    without = [c for c in legal if c != parse_card("T21")]
    obs = dataclasses.replace(obs, hand=cards("T9 T4 2S 3S KH 5H 6H"))
    assert club.play_card(obs, without) == parse_card("KH")  # T9 is no master: the king


def test_the_ecart_makes_voids_and_keeps_kings_and_trumps() -> None:
    hand = cards("2S 5S 1H 3H 4H 9H KH 3D 7D 9D QD KD 2C 6C 8C 10C CC T3 T7 T10 T12 T15 T19 T21")
    allowed = hand & ~KING_MASK & ~TRUMP_MASK
    plan = club.ecart_plan(hand, allowed, 6)
    assert len(set(plan)) == 6 and all(allowed >> c & 1 for c in plan)
    assert not hand & SUIT_MASK[0] & ~mask_of(plan)  # spades voided
    assert parse_card("QD") in plan or parse_card("CC") in plan  # points banked


def test_after_the_voids_the_ecart_shortens_the_shortest_suits() -> None:
    # No suit can be voided (each holds a king); six cards go from the two shortest suits,
    # hearts and diamonds, not the richest cards of the long clubs.
    hand = cards("KS 2S 3S 4S 5S 6S KH 2H 3H KD 4D 5D KC QC CC JC 2C 3C T2 T5 T9 T12 T15 T21")
    allowed = hand & ~KING_MASK & ~TRUMP_MASK
    plan = club.ecart_plan(hand, allowed, 4)
    assert sorted(plan) == sorted(parse_card(n) for n in ("2H", "3H", "4D", "5D"))


def test_the_ecart_discards_trumps_only_when_it_must() -> None:
    hand = cards(
        "KS KH KD KC 2S T2 T3 T4 T5 T6 T7 T8 T9 T10 T11 T12 T13 T14 T15 T16 T17 T18 T21 EX"
    )
    allowed = cards("2S") | (hand & TRUMP_MASK & ~cards("T21"))
    plan = club.ecart_plan(hand, allowed, 6)
    assert plan[0] == parse_card("2S") and len(plan) == 6
    assert all(TRUMP_MASK >> c & 1 for c in plan[1:])


def test_no_face_card_goes_under_a_foes_trump_when_a_low_card_may() -> None:
    # The taker (seat 3) trumps the hearts; seat 0, void, may throw QD, 3D or a club.
    obs = _trick_position("QD 3D 4C", taker=3, leader=2, trick="2H T5")
    legal = [parse_card(n) for n in ("QD", "3D", "4C")]
    assert club.thrown_away(obs, legal) == [parse_card("QD")]
    assert club.play_card(obs, legal) != parse_card("QD")
    # Without a low diamond the queen is no gift compared with another card of its suit.
    assert club.thrown_away(obs, [parse_card("QD"), parse_card("4C")]) == []
    # A fellow defender's trump wins: points may go to it.
    obs = _trick_position("QD 3D 4C", taker=1, leader=2, trick="2H T5")
    assert club.thrown_away(obs, legal) == []


def test_the_taker_calls_a_king_he_does_not_hold_in_his_long_suit() -> None:
    hand = cards("KS QH JH 10H 9H 8H 2D T1 T5 T9 T12 T14 T16 T17 T19")
    kings = [parse_card(n) for n in ("KS", "KH", "KD", "KC")]
    assert club.call_card(hand, kings) == parse_card("KH")
