"""The stand-in: the fixed player that finishes the hand of a seat that went silent.

Why a fixed player. When a seat stays silent, the others rebuild its hand key from the key
escrow (``protocol/crypto.md`` §10) and its cards are open to everyone; someone must still
make its moves. A bot chosen by one peer could be steered, so every peer computes the same
moves from the same public position, with no message and no randomness, and a replay of the
transcript (``tarot-p2p audit``) computes them again. The rules are few and exact so that a
stranger implements them identically (``protocol/table.md`` §3.2 is normative); they play
the hand plainly, as a cautious player would: never take a contract, never announce, win a
trick cheaply when the other side holds it, give points to a partner who keeps the trick.

The stand-in sees only what the silent seat would see (:meth:`State.observation`, which a
public engine that knows the seat's hand computes) and chooses among the engine's legal
actions, so it can never make an illegal move.
"""

from __future__ import annotations

from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import EXCUSE, HALF_POINTS, RANK_OF, SUIT_OF, TRUMP_SUIT
from tarot_p2p.rules.state import Observation, State


def stand_in_action(state: State) -> a.Action:
    """The stand-in's move for the current player of ``state``, whose hand ``state`` must
    know (rules in ``protocol/table.md`` §3.2)."""
    seat = state.current_player()
    legal = state.legal_actions()
    if not legal:
        raise ValueError(f"seat {seat} has no move to make now")
    first = legal[0]
    if isinstance(first, a.PetitSec):
        return first  # a petit sec is the only move offered: the deal is void
    if isinstance(first, a.Bid):
        return a.PASS
    if isinstance(first, a.CallCard):
        return min(legal, key=lambda x: x.card if isinstance(x, a.CallCard) else 0)
    if isinstance(first, a.Discard):
        discards = [x.card for x in legal if isinstance(x, a.Discard)]
        return a.DISCARD[min(discards, key=lambda c: (-HALF_POINTS[c], c))]
    if isinstance(first, a.Go):
        return a.Go(False)
    plays = [x.card for x in legal if isinstance(x, a.Play)]
    return a.PLAY[play_card(state.observation(seat), plays)]


def play_card(seen: Observation, legal: list[int]) -> int:
    """The card the stand-in plays, among ``legal`` (rules P1–P5 of ``table.md`` §3.2)."""
    if EXCUSE in legal and (len(legal) == 1 or seen.hand.bit_count() <= 2):
        return EXCUSE  # P1: the Excuse is never kept for the last trick
    others = [c for c in legal if c != EXCUSE]
    if all(c == EXCUSE for c in seen.trick):
        return min(others, key=_cheap)  # P2: lead (after a led Excuse too) the cheapest card
    best_seat, best = _winning(seen.trick, seen.trick_seats)
    if best_seat in _friends(seen):
        if len(seen.trick) == seen.players - 1:
            return min(others, key=lambda c: (-HALF_POINTS[c], c))  # P3: load a sure trick
        return min(others, key=_cheap)
    winners = [c for c in others if _beats(c, best, _led_suit(seen.trick))]
    if winners:
        return min(winners)  # P4: take the trick with the lowest card that does
    return min(others, key=_cheap)  # P5: give the cheapest card


def _cheap(card: int) -> tuple[int, int]:
    """The order of cheap cards: fewest points first, then the lowest card number."""
    return (HALF_POINTS[card], card)


def _friends(seen: Observation) -> frozenset[int]:
    """The seats the stand-in knows to be on its side (itself at least)."""
    me, taker = seen.seat, seen.taker
    if taker is None:
        return frozenset({me})
    partner = seen.partner if seen.partner_known else None
    attack = {taker} | ({partner} if partner is not None else set())
    if me in attack:
        return frozenset(attack)
    if seen.called_card is not None and not seen.partner_known:
        return frozenset({me})  # the partner is not known yet: nobody else is sure
    seats = len(seen.hand_sizes)
    dead = seen.dealer if seats > seen.players else None  # five seats, a dead hand
    return frozenset(s for s in range(seats) if s not in attack and s != dead)


def _led_suit(trick: tuple[int, ...]) -> int:
    """The suit to follow: the first card's, or the second's after a led Excuse."""
    return next((SUIT_OF[c] for c in trick if c != EXCUSE), -1)


def _winning(trick: tuple[int, ...], seats: tuple[int, ...]) -> tuple[int, int]:
    """The seat and card that hold the trick so far (a led Excuse holds it alone)."""
    suit = _led_suit(trick)
    best_seat, best = seats[0], trick[0]
    for seat, card in zip(seats, trick, strict=True):
        if best == EXCUSE or _beats(card, best, suit):
            best_seat, best = seat, card
    return best_seat, best


def _beats(card: int, best: int, suit: int) -> bool:
    """``card`` takes the trick from ``best`` when ``suit`` was led."""
    if card == EXCUSE:
        return False
    if best == EXCUSE:
        return True
    if SUIT_OF[card] == TRUMP_SUIT:
        return SUIT_OF[best] != TRUMP_SUIT or RANK_OF[card] > RANK_OF[best]
    return SUIT_OF[card] == suit == SUIT_OF[best] and RANK_OF[card] > RANK_OF[best]
