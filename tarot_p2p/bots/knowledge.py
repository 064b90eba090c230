"""What a seat can infer from its observation: who played what, which cards are still out,
and which cards each other seat cannot hold.

Why one module: the ``club`` heuristics count trumps and voids with these facts and the
``strong`` search samples hidden hands consistent with them; both must read the same
observation the same way, and only the observation (never the engine's hidden cards).

Inferences (each from a rule of the play that the engine enforces, so a real deal always
satisfies them):

* a seat that did not follow the suit led (the Excuse aside) has none of that suit;
* a seat that then played neither a trump nor the Excuse has no trump either;
* a seat that played a trump under the highest trump of the trick (when a trump was led,
  or when it had to trump) holds no trump above that one;
* a misère d'atout shows no trump, a misère de tête no face card and no oudler;
* a poignée holding the Excuse shows every trump of its hand;
* a taker who put trumps in the écart had no other card he could discard.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tarot_p2p.rules.actions import MisereKind
from tarot_p2p.rules.cards import (
    EXCUSE,
    EXCUSE_MASK,
    KING_MASK,
    OUDLER_MASK,
    SUIT_MASK,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
    CardSet,
)
from tarot_p2p.rules.state import ABOVE, FACE_MASK, Observation

PLAIN_MASK = SUIT_MASK[0] | SUIT_MASK[1] | SUIT_MASK[2] | SUIT_MASK[3]
"""The 56 suit cards."""
DISCARDABLE = PLAIN_MASK & ~KING_MASK
"""Cards a taker may put in the écart before he has to discard trumps."""


def trick_winner(trick: Sequence[int]) -> int:
    """Index in ``trick`` of the card winning so far (-1 if there is only the Excuse)."""
    best = -1
    for i, c in enumerate(trick):
        if c == EXCUSE:
            continue
        if best < 0:
            best = i
            continue
        b = trick[best]
        if SUIT_OF[c] == TRUMP_SUIT:
            if SUIT_OF[b] != TRUMP_SUIT or c > b:
                best = i
        elif SUIT_OF[c] == SUIT_OF[b] and c > b:
            best = i
    return best


def active_order(obs: Observation) -> tuple[int, ...]:
    """Seats holding cards, in playing order from the dealer's right."""
    seats = len(obs.hand_sizes)
    order = tuple((obs.dealer + 1 + i) % seats for i in range(seats))
    return order if obs.players == seats else order[:-1]


def trick_seats(obs: Observation, leader: int) -> tuple[int, ...]:
    """Who plays each card of a trick led by ``leader``."""
    order = active_order(obs)
    i = order.index(leader)
    return tuple(order[(i + k) % len(order)] for k in range(len(order)))


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The facts above, per seat."""

    played_by: tuple[CardSet, ...]
    """Cards each seat has played (finished tricks and the current one)."""
    forbidden: tuple[CardSet, ...]
    """Cards each seat cannot hold now."""
    shown: tuple[CardSet, ...]
    """Cards each seat showed (poignées) and has not played yet: they are in its hand."""
    out: CardSet
    """Cards neither in this seat's hand, nor played, nor shown to it anywhere: the cards
    whose place it does not know."""


def infer(obs: Observation) -> Knowledge:
    """Read ``obs`` for the facts listed in the module docstring."""
    seats = len(obs.hand_sizes)
    played_by = [0] * seats
    forbidden = [0] * seats
    tricks = [(t.cards, trick_seats(obs, t.leader)) for t in obs.tricks]
    if obs.trick:
        tricks.append((obs.trick, obs.trick_seats))
    for cards, who in tricks:
        lead = -1
        high = -1
        for c, s in zip(cards, who, strict=False):
            played_by[s] |= 1 << c
            if c == EXCUSE:
                continue
            suit = SUIT_OF[c]
            if lead < 0:
                lead = suit
            elif suit != lead:
                if lead != TRUMP_SUIT:
                    forbidden[s] |= SUIT_MASK[lead]
                if suit != TRUMP_SUIT:
                    forbidden[s] |= TRUMP_MASK
            if suit == TRUMP_SUIT:
                if high >= 0 and c < high:
                    forbidden[s] |= ABOVE[high]
                high = max(high, c)
    for s, kind in obs.miseres:
        forbidden[s] |= TRUMP_MASK if kind is MisereKind.TRUMP else FACE_MASK | OUDLER_MASK
    shown = [0] * seats
    for s, poignee in obs.poignees:
        shown[s] |= poignee & ~played_by[s]
        if poignee & EXCUSE_MASK:
            forbidden[s] |= TRUMP_MASK & ~poignee
    taker = obs.taker
    if taker is not None and obs.ecart & TRUMP_MASK:
        forbidden[taker] |= DISCARDABLE
    played = obs.played
    seen = obs.hand | played | obs.ecart | (obs.chien or 0)
    for s in range(seats):
        seen |= shown[s]
    return Knowledge(
        played_by=tuple(played_by),
        forbidden=tuple(f & ~shown[s] for s, f in enumerate(forbidden)),
        shown=tuple(shown),
        out=((1 << 78) - 1) & ~seen,
    )
