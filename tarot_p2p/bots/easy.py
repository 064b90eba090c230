"""The ``easy`` level: the first bot, kept as the baseline the other levels are measured
against. It plays from an observation and the legal actions like a cautious beginner — bid
on a rough count of the hand, keep the oudlers safe, feed points to a winning partner, win
tricks cheaply — and sees only what its seat may see.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tarot_p2p.bots.knowledge import trick_winner
from tarot_p2p.rules.actions import Action, Bid, CallCard, Discard, Go, Misere, Play, Poignee
from tarot_p2p.rules.cards import (
    EXCUSE,
    HALF_POINTS,
    KING,
    PETIT,
    RANK_OF,
    SUIT_MASK,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
    TWENTY_ONE,
    CardSet,
)
from tarot_p2p.rules.state import Observation

_BID_THRESHOLDS = (44, 58, 72, 82)
"""Hand strength needed for prise, garde, garde sans, garde contre."""

_PRISE_STEP: dict[int, int] = {3: 3, 4: 1, 5: 1}
"""Per table size, how much less strength a prise needs for each player who passed before:
the later a beginner speaks after passes, the more he feels someone has to take. Without
it a table of ``easy`` bots redealt 46% of the deals at three players and 31% at four;
with it about 22% at three and at four, 1% at five, and it loses no points beyond the
interval against the ``easy`` of before in duplicate matches (a larger step at four made
more redeals go but lost points: ``benchmarks/bot_tournament.py --pairs oldeasy-easy``)."""


def hand_strength(hand: CardSet, players: int) -> int:
    """A rough count of a hand's value for bidding (club players' rule of thumb)."""
    trumps = (hand & TRUMP_MASK).bit_count()
    score = 0
    if hand >> TWENTY_ONE & 1:
        score += 10
    if hand >> EXCUSE & 1:
        score += 8
    if hand >> PETIT & 1:
        score += 2 * min(trumps, 8) - 2
    score += 2 * trumps + sum(2 for c in range(66, 76) if hand >> c & 1)
    for suit in range(4):
        cards = hand & SUIT_MASK[suit]
        n = cards.bit_count()
        if n == 0:
            score += 6
        elif n == 1:
            score += 3
        score += sum(
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 6)[RANK_OF[c] - 1]
            for c in range(suit * 14, suit * 14 + 14)
            if cards >> c & 1
        )
        if n >= 5:
            score += 2 * (n - 4)
    # Fewer players, bigger hands: scale to the four-player scale.
    return score * 18 // {2: 18, 3: 24, 4: 18, 5: 15}[players]


def choose_action(obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
    """The bot's move for ``obs`` among ``legal`` (ties broken with ``rng``)."""
    if len(legal) == 1:
        return legal[0]
    first = legal[0]
    if isinstance(first, Bid) or any(isinstance(a, Bid) for a in legal):
        return _bid(obs, legal)
    if isinstance(first, CallCard):
        return _call(obs, legal, rng)
    if isinstance(first, Discard):
        return _discard(obs, legal)
    if isinstance(first, Go):
        return Go(False)
    for a in legal:
        if isinstance(a, Poignee | Misere):
            return a
    return _play(obs, [a for a in legal if isinstance(a, Play)], rng)


def _bid(obs: Observation, legal: Sequence[Action]) -> Action:
    strength = hand_strength(obs.hand, obs.players)
    bids = [a for a in legal if isinstance(a, Bid)]
    best = bids[0]
    # A prise is legal only while everybody before has passed.
    prise = _BID_THRESHOLDS[0] - _PRISE_STEP.get(obs.players, 1) * len(obs.bids)
    for a in bids:
        need = prise if a.contract == 1 else _BID_THRESHOLDS[a.contract - 1]
        if a.contract and strength >= need:
            best = a
    return best


def _call(obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
    calls = [a for a in legal if isinstance(a, CallCard)]
    others = [a for a in calls if not obs.hand >> a.card & 1]
    pool = others or calls
    # Prefer the king of the suit where we hold the most cards (we can support him there).
    return max(
        pool, key=lambda a: ((obs.hand & SUIT_MASK[SUIT_OF[a.card]]).bit_count(), rng.random())
    )


def _discard(obs: Observation, legal: Sequence[Action]) -> Action:
    def key(a: Action) -> tuple[int, int, int]:
        assert isinstance(a, Discard)
        c = a.card
        if SUIT_OF[c] == TRUMP_SUIT:
            return (1, 0, c)
        length = (obs.hand & SUIT_MASK[SUIT_OF[c]]).bit_count()
        return (0, length, -HALF_POINTS[c])

    return min(legal, key=key)


def _play(obs: Observation, plays: list[Play], rng: random.Random) -> Action:
    cards = [p.card for p in plays]
    seat, taker = obs.seat, obs.taker
    tricks_left = obs.hand.bit_count()

    def friend(other: int) -> bool:
        if taker is None:
            return other == seat
        attack = {taker} | ({obs.partner} if obs.partner is not None else set())
        if seat in attack:
            return other in attack
        return other not in attack

    if EXCUSE in cards and 1 < tricks_left <= 2:
        return Play(EXCUSE)
    non_excuse = [c for c in cards if c != EXCUSE] or cards
    if not obs.trick:
        kings = [c for c in non_excuse if SUIT_OF[c] != TRUMP_SUIT and RANK_OF[c] == KING]
        if kings and (seat == taker):
            return Play(kings[0])
        plain = [c for c in non_excuse if SUIT_OF[c] != TRUMP_SUIT]
        if plain:
            return Play(min(plain, key=lambda c: (HALF_POINTS[c], rng.random())))
        safe = [c for c in non_excuse if c != PETIT] or non_excuse
        return Play(min(safe))
    trick = list(obs.trick)
    best_i = trick_winner(trick)
    winner_seat = obs.trick_seats[best_i] if best_i >= 0 else -1
    last_to_play = len(trick) + 1 == obs.players
    if winner_seat >= 0 and friend(winner_seat) and (last_to_play or _strong(trick[best_i])):
        # Feed points to the side winning the trick, keeping the petit out of danger.
        feed = [c for c in non_excuse if c != PETIT or last_to_play]
        return Play(max(feed or non_excuse, key=lambda c: (HALF_POINTS[c], -c)))
    winning = [c for c in non_excuse if trick_winner([*trick, c]) == len(trick)]
    if winning:
        safe = [c for c in winning if c != PETIT or last_to_play]
        if safe:
            return Play(min(safe, key=lambda c: (c != PETIT, HALF_POINTS[c] if c < 56 else 0, c)))
    losing = [c for c in non_excuse if c != PETIT and c != TWENTY_ONE] or non_excuse
    return Play(min(losing, key=lambda c: (HALF_POINTS[c], c)))


def _strong(card: int) -> bool:
    return card >= 70 or (card < 56 and RANK_OF[card] == KING)
