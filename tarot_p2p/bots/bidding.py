"""Bidding as a club player bids: a count of the hand, then the seat's place in the bidding.

Theory of operation
-------------------
The count (:func:`evaluate`) is what a Tarot player adds up before he speaks: each oudler
(the 21, the Excuse, the petit — worth more the more trumps protect it), each trump and
the high ones, kings, queens (more beside their king), knights and jacks, voids and
singletons, long suits. Its weights depend on the table size (a hand holds 24 cards at
three, 18 at four, 15 at five, where a called partner adds his cards to the taker's), and
they were fitted by simulation so that the count reads as a score: the points the hand is
expected to win or lose (the taker's share) for a prise played out by the ``club`` level,
knowing nothing of the other hands yet (``benchmarks/bot_tournament.py --calibrate``
reruns the fit and prints these tables).

The bid (:func:`contract`) compares the count with thresholds:

* a garde, garde sans or garde contre needs the same count wherever the seat speaks;
* a prise, while nobody has bid, needs less the later the seat speaks: the first to speak
  keeps a chance that someone else takes (and loses) in his place; the last, after
  everyone passed, knows that the other hands are weak — the count, an average over all
  deals, undervalues his hand then — and that passing only gives a redeal, so he takes
  hands whose count is below zero.

The thresholds were chosen on simulated deals (the same tool) for the most points won in
a duplicate match against the bidding this level used before, among those that leave at
most about one deal in nine passed by everyone at three, four and five players.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tarot_p2p.rules.cards import (
    EXCUSE,
    PETIT,
    RANK_OF,
    SUIT_MASK,
    TRUMP_MASK,
    TWENTY_ONE,
    CardSet,
    cards_of,
)

FEATURES = (
    "twenty_one",
    "excuse",
    "petit",
    "petit_protection",
    "trumps",
    "high_trumps",
    "kings",
    "queens_with_king",
    "queens",
    "knights",
    "jacks",
    "voids",
    "singletons",
    "long_cards",
)
"""What the count adds up, in the order of :func:`features` and :attr:`Weights.points`."""


@dataclass(frozen=True, slots=True)
class Weights:
    """The count at one table size: ``base`` plus, for each of :data:`FEATURES`, its
    points times how many the hand holds."""

    base: int
    """Where every hand starts: a hand with nothing loses about this much."""
    points: tuple[int, ...]


def features(hand: CardSet) -> tuple[int, ...]:
    """How many of each of :data:`FEATURES` ``hand`` holds: the 21, the Excuse and the petit
    (1 or 0); the petit's protection (the other trumps, up to nine, when it is held); the
    trumps other than the 21 and the petit, and those from 16 to 20 among them; kings,
    queens beside their king, other queens, knights, jacks; void suits, singletons; and
    the cards past the fourth in each suit."""
    trumps = hand & TRUMP_MASK & ~(1 << TWENTY_ONE | 1 << PETIT)
    n_trumps = trumps.bit_count()
    petit = hand >> PETIT & 1
    high = sum(1 for c in cards_of(trumps) if RANK_OF[c] >= 16)
    kings = queens_with_king = queens = knights = jacks = voids = singletons = long_cards = 0
    for suit in range(4):
        cards = hand & SUIT_MASK[suit]
        first = suit * 14
        king = cards >> (first + 13) & 1
        queen = cards >> (first + 12) & 1
        kings += king
        queens_with_king += king & queen
        queens += queen & ~king & 1
        knights += cards >> (first + 11) & 1
        jacks += cards >> (first + 10) & 1
        n = cards.bit_count()
        voids += n == 0
        singletons += n == 1
        long_cards += max(n - 4, 0)
    return (
        hand >> TWENTY_ONE & 1,
        hand >> EXCUSE & 1,
        petit,
        petit * min(n_trumps, 9),
        n_trumps,
        high,
        kings,
        queens_with_king,
        queens,
        knights,
        jacks,
        voids,
        singletons,
        long_cards,
    )


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Counts needed for each contract at one table size."""

    prise: tuple[int, ...]
    """Per place in the bidding (first to speak first), while nobody has bid."""
    garde: int
    garde_sans: int
    garde_contre: int
    chelem: int
    """A count this high takes every trick often enough to announce the chelem: about that
    of a hand with the three oudlers, the trumps from 12 up and the four kings."""


WEIGHTS: dict[int, Weights] = {
    # 21, Excuse, petit, its protection, trumps, 16-20, K, Q beside K, Q, C, J, void,
    # singleton, long card
    3: Weights(-203, (71, 53, 52, 1, 11, 2, 19, 13, 11, 6, 3, 5, 3, 2)),
    4: Weights(-260, (99, 71, 35, 9, 17, 5, 26, 12, 10, 4, 2, 17, 8, 3)),
    5: Weights(-117, (63, 40, 28, 3, 12, 7, 18, 5, 5, 3, 1, 11, 8, -3)),
}
"""Least-squares fits of the taker's score for a prise on 3,500 simulated deals per table
size, played out by the ``club`` level; the scores (and so the counts) are the taker's
share: twice a defender's at three, three times at four, twice at five."""

THRESHOLDS: dict[int, Thresholds] = {
    3: Thresholds(prise=(0, -10, -20), garde=20, garde_sans=80, garde_contre=160, chelem=220),
    4: Thresholds(
        prise=(-35, -40, -45, -50), garde=20, garde_sans=155, garde_contre=400, chelem=330
    ),
    5: Thresholds(
        prise=(20, 10, 0, -10, -20), garde=20, garde_sans=70, garde_contre=100, chelem=270
    ),
}
"""Chosen as the module docstring says. At five the first to speak bids a garde or
nothing (a prise there needs as much as a garde); at four a garde contre never paid
in the simulated deals, so its threshold is out of reach."""


def evaluate(hand: CardSet, players: int) -> int:
    """The count of ``hand`` at a table of ``players`` active players: about the score, in
    points, that the hand's taker can expect from a prise (two players, and four with a
    dead hand at five seats, use the four's)."""
    w = WEIGHTS.get(players, WEIGHTS[4])
    return w.base + sum(p * f for p, f in zip(w.points, features(hand), strict=True))


def announces_chelem(hand: CardSet, players: int) -> bool:
    """Whether the taker holding ``hand`` (after the écart) announces the chelem."""
    return evaluate(hand, players) >= THRESHOLDS.get(players, THRESHOLDS[4]).chelem


def contract(hand: CardSet, players: int, bids: Sequence[tuple[int, int]]) -> int:
    """The highest contract (0 pass .. 4 garde contre) the seat holding ``hand`` wants,
    having heard ``bids`` ((seat, contract or 0), in speaking order) before its turn."""
    thresholds = THRESHOLDS.get(players, THRESHOLDS[4])
    return contract_for(evaluate(hand, players), thresholds, bids)


def contract_for(count: int, t: Thresholds, bids: Sequence[tuple[int, int]]) -> int:
    """:func:`contract` for a hand of this ``count`` under the thresholds ``t`` (the
    calibration tries others)."""
    if count >= t.garde_contre:
        return 4
    if count >= t.garde_sans:
        return 3
    if count >= t.garde:
        return 2
    place = min(len(bids), len(t.prise) - 1)
    if all(c == 0 for _, c in bids) and count >= t.prise[place]:
        return 1
    return 0
