"""Playing a sampled world to its end, fast: the ``strong`` level's rollouts.

Why a separate policy from ``club``: a rollout runs thousands of times per decision, on a
world where every card is known, so it reads the engine's position directly (the legal
mask, the hands) instead of building an observation per move, and keeps only the club
rules that matter most for the score: feed a trick the side surely wins, win the others
as cheaply as possible, keep the petit and the Excuse out of harm's way. Its moves are
only ever applied to sampled worlds, never to the real hand.
"""

from __future__ import annotations

from tarot_p2p.bots.knowledge import trick_winner
from tarot_p2p.rules.actions import PLAY
from tarot_p2p.rules.cards import (
    EXCUSE,
    EXCUSE_MASK,
    HALF_POINTS,
    KING_MASK,
    PETIT,
    SUIT_MASK,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
    CardSet,
)
from tarot_p2p.rules.state import ABOVE, Phase, State

_PLAIN = SUIT_MASK[0] | SUIT_MASK[1] | SUIT_MASK[2] | SUIT_MASK[3]
_POINTS = tuple(sum(1 << c for c in range(78) if HALF_POINTS[c] >= level) for level in range(10))
"""Per level, the cards worth at least that many half-points."""
_HIGH = TRUMP_MASK & ~((1 << 72) - 1) | KING_MASK
"""Cards a partner's trick is safe enough with to feed it: trumps 17..21 and the kings."""


def _lowest(mask: CardSet) -> int:
    return (mask & -mask).bit_length() - 1


def _highest(mask: CardSet) -> int:
    return mask.bit_length() - 1


def playout(state: State, trick: list[int], seats: list[int]) -> None:
    """Play ``state`` (fully known, in the play phase) to its end; ``trick`` and ``seats``
    are the current trick's cards and who played them (both are consumed)."""
    taker = state.taker
    partner = state.partner()
    attack = 0
    if taker is not None:
        attack = 1 << taker | (1 << partner if partner is not None else 0)
    players = state.game.players
    legal_mask = state.legal_play_mask
    apply = state.apply_action
    done = Phase.DONE
    while state.phase is not done:
        seat = state.current
        mask = legal_mask()
        if mask & (mask - 1):
            card = _choose(state, seat, mask, trick, seats, attack, players)
        else:
            card = mask.bit_length() - 1
        apply(PLAY[card])
        if len(trick) + 1 == players:
            trick.clear()
            seats.clear()
        else:
            trick.append(card)
            seats.append(seat)


def _choose(
    state: State,
    seat: int,
    mask: CardSet,
    trick: list[int],
    seats: list[int],
    attack: int,
    players: int,
) -> int:
    hand = state.hands[seat]
    if mask & EXCUSE_MASK and hand.bit_count() <= 2:
        return EXCUSE
    mask &= ~EXCUSE_MASK
    if mask & (mask - 1) == 0:
        return _lowest(mask)
    plain = mask & _PLAIN
    if not trick:
        low = plain & ~_POINTS[2]
        if low:
            return _lowest(low)
        if plain:
            return _highest(plain & KING_MASK) if plain & KING_MASK else _lowest(plain)
        trumps = mask & ~(1 << PETIT)
        return _lowest(trumps) if trumps else _lowest(mask)
    best = trick_winner(trick)
    mine = attack >> seat & 1 if attack else 0
    last = len(trick) + 1 == players
    if best >= 0:
        winner = seats[best]
        win_card = trick[best]
        friend = (attack >> winner & 1) == mine if attack else winner == seat
        if friend and (last or (1 << win_card) & _HIGH):
            if mask & (1 << PETIT):
                return PETIT
            if plain:
                return _highest_points(plain)
            return _lowest(mask)
        if SUIT_OF[win_card] == TRUMP_SUIT:
            beat = mask & ABOVE[win_card]
        else:
            suit = SUIT_OF[win_card]
            beat = (mask & SUIT_MASK[suit] & ~((2 << win_card) - 1)) | (mask & TRUMP_MASK)
            if mask & SUIT_MASK[suit]:
                beat &= SUIT_MASK[suit]
        if beat:
            safe = beat & ~(1 << PETIT) if not last else beat
            if safe:
                if safe & _PLAIN and not last:
                    return _highest(safe & _PLAIN)
                return _lowest(safe)
    rest = mask & ~(1 << PETIT | 1 << 76)
    if not rest:
        rest = mask
    cheap = rest & _PLAIN & ~_POINTS[2]
    if cheap:
        return _lowest(cheap)
    if rest & _PLAIN:
        return _lowest_points(rest & _PLAIN)
    return _lowest(rest)


def _highest_points(mask: CardSet) -> int:
    for level in (9, 7, 5, 3):
        top = mask & _POINTS[level]
        if top:
            return _lowest(top)
    return _highest(mask)


def _lowest_points(mask: CardSet) -> int:
    for level in (2, 4, 6, 8):
        low = mask & ~_POINTS[level]
        if low:
            return _lowest(low)
    return _lowest(mask)
