"""The 78 cards of the French Tarot deck as small integers, and card sets as bitmasks.

Why integers: every peer must agree on every card byte for byte, and the engine must be
fast enough to referee thousands of random hands a second. A card is an ``int`` in
``0..77``; a set of cards (a hand, a trick pile) is an ``int`` bitmask with bit ``c`` set
for card ``c``. Both are hashable, immutable and cost no allocation to test or update.

Numbering (normative: the mental-poker card encodings and the wire use it):

* suit cards: ``suit * 14 + (rank - 1)`` for suit 0 spades, 1 hearts, 2 diamonds,
  3 clubs and rank 1..10, 11 jack (valet), 12 knight (cavalier), 13 queen (dame),
  14 king (roi) — cards 0..55;
* trumps 1..21: ``55 + n`` — cards 56..76;
* the Excuse: 77.

Points are counted in half-points so that no float ever decides a result: a king or an
oudler is 9 (4.5 points), a queen 7, a knight 5, a jack 3, any other card 1; the deck
totals 182 (91 points).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

Card = int
CardSet = int

SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS: Final = 2
CLUBS: Final = 3
SUITS: Final = (SPADES, HEARTS, DIAMONDS, CLUBS)
TRUMP_SUIT: Final = 4
"""Pseudo-suit of the 21 trumps (the Excuse has no suit)."""

JACK: Final = 11
KNIGHT: Final = 12
QUEEN: Final = 13
KING: Final = 14

DECK_SIZE: Final = 78
PETIT: Final[Card] = 56
TWENTY_ONE: Final[Card] = 76
EXCUSE: Final[Card] = 77
OUDLERS: Final[tuple[Card, ...]] = (PETIT, TWENTY_ONE, EXCUSE)

TOTAL_HALF_POINTS: Final = 182


def suit_card(suit: int, rank: int) -> Card:
    """The card of ``rank`` (1..14) in ``suit`` (0..3)."""
    if suit not in SUITS or not 1 <= rank <= 14:
        raise ValueError(f"no suit card with suit={suit} rank={rank}")
    return suit * 14 + rank - 1


def trump(n: int) -> Card:
    """Trump number ``n`` (1..21)."""
    if not 1 <= n <= 21:
        raise ValueError(f"no trump {n}")
    return 55 + n


def _suit_of(c: Card) -> int:
    if c < 56:
        return c // 14
    return TRUMP_SUIT if c < 77 else -1


def _half_points(c: Card) -> int:
    if c >= 56:
        return 9 if c in OUDLERS else 1
    rank = c % 14 + 1
    return {KING: 9, QUEEN: 7, KNIGHT: 5, JACK: 3}.get(rank, 1)


SUIT_OF: Final[tuple[int, ...]] = tuple(_suit_of(c) for c in range(DECK_SIZE))
"""Suit of each card: 0..3, ``TRUMP_SUIT`` for trumps, -1 for the Excuse."""

RANK_OF: Final[tuple[int, ...]] = tuple(
    c % 14 + 1 if c < 56 else (c - 55 if c < 77 else 0) for c in range(DECK_SIZE)
)
"""Rank 1..14 of a suit card, number 1..21 of a trump, 0 for the Excuse."""

HALF_POINTS: Final[tuple[int, ...]] = tuple(_half_points(c) for c in range(DECK_SIZE))

FULL_DECK: Final[CardSet] = (1 << DECK_SIZE) - 1
SUIT_MASK: Final[tuple[CardSet, ...]] = tuple(((1 << 14) - 1) << (14 * s) for s in SUITS)
TRUMP_MASK: Final[CardSet] = ((1 << 21) - 1) << 56
EXCUSE_MASK: Final[CardSet] = 1 << EXCUSE
OUDLER_MASK: Final[CardSet] = (1 << PETIT) | (1 << TWENTY_ONE) | (1 << EXCUSE)
KING_MASK: Final[CardSet] = sum(1 << suit_card(s, KING) for s in SUITS)

BIT: Final[tuple[CardSet, ...]] = tuple(1 << c for c in range(DECK_SIZE))
"""The bit of each card: ``sum(map(BIT.__getitem__, cards))`` is the mask of distinct
cards, computed without a Python-level loop (deals and tricks, on the hot path)."""

assert sum(HALF_POINTS) == TOTAL_HALF_POINTS


def mask_of(cards: Iterable[Card]) -> CardSet:
    """The bitmask holding ``cards``; raises on a repeated or out-of-range card."""
    m = 0
    for c in cards:
        if not 0 <= c < DECK_SIZE:
            raise ValueError(f"no card {c}")
        bit = 1 << c
        if m & bit:
            raise ValueError(f"card {card_name(c)} given twice")
        m |= bit
    return m


def cards_of(mask: CardSet) -> Iterator[Card]:
    """The cards of a bitmask, lowest number first (a deterministic order)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: CardSet) -> int:
    return mask.bit_count()


def _rank_mask(rank: int) -> CardSet:
    return sum(1 << suit_card(s, rank) for s in SUITS)


_NINES: Final = KING_MASK | OUDLER_MASK
_QUEENS: Final = _rank_mask(QUEEN)
_KNIGHTS: Final = _rank_mask(KNIGHT)
_JACKS: Final = _rank_mask(JACK)


def half_points_of(mask: CardSet) -> int:
    """The half-points of the cards of ``mask``: 1 a card, plus 8 a king or oudler, 6 a
    queen, 4 a knight, 2 a jack, counted with a few ``bit_count`` calls in one expression
    instead of a loop over the cards or the tiers (a hand is counted at the end of every
    playout)."""
    return (
        mask.bit_count()
        + 8 * (mask & _NINES).bit_count()
        + 6 * (mask & _QUEENS).bit_count()
        + 4 * (mask & _KNIGHTS).bit_count()
        + 2 * (mask & _JACKS).bit_count()
    )


_SUIT_LETTERS: Final = "SHDC"
_RANK_NAMES: Final = {1: "1", JACK: "J", KNIGHT: "C", QUEEN: "Q", KING: "K"}


def card_name(c: Card) -> str:
    """Short, stable name: ``KS`` king of spades, ``10H``, ``T21`` trump 21, ``EX`` the Excuse."""
    if c == EXCUSE:
        return "EX"
    if c >= 56:
        return f"T{c - 55}"
    rank = c % 14 + 1
    return f"{_RANK_NAMES.get(rank, str(rank))}{_SUIT_LETTERS[c // 14]}"


_BY_NAME: Final = {card_name(c): c for c in range(DECK_SIZE)}


def parse_card(name: str) -> Card:
    """Inverse of :func:`card_name` (case-insensitive)."""
    try:
        return _BY_NAME[name.strip().upper()]
    except KeyError:
        raise ValueError(f"unknown card name {name!r}") from None
