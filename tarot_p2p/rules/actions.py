"""The moves of a hand, as small frozen values with a stable encoding.

Why a fixed encoding: the network protocol carries actions between peers and a signed hand
record lists them, so each action maps to a short tuple of small integers and back, the
same on every peer. The first integer is the kind; the rest are the arguments:

====================  ==========================================================
``(0,)``              :class:`PetitSec` — announce the petit sec (deal void)
``(1, c)``            :class:`Bid` — ``c`` 0 for a pass, else the contract 1..4
``(2, card)``         :class:`CallCard` — the card the taker calls at five
``(3, card)``         :class:`Discard` — one card of the écart; ``card`` 78 = hidden
``(4, a)``            :class:`Go` — the taker starts play, ``a`` 1 if he announces a chelem,
                      2 a petit chelem (variant), 0 neither
``(5, c1, c2, ...)``  :class:`Poignee` — the trumps shown, increasing card numbers
``(6, k)``            :class:`Misere` — ``k`` 1 misère d'atout, 2 misère de tête
``(7, card)``         :class:`Play` — a card played to the trick
====================  ==========================================================

The écart is made of one :class:`Discard` per card so that legal moves can be listed and
checked one card at a time; a peer that does not see the taker's cards applies the public
form of each discard (:func:`public_action`): the card itself when it is a trump (discarded
trumps are shown), :data:`HIDDEN` otherwise.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from tarot_p2p.rules.cards import (
    DECK_SIZE,
    OUDLER_MASK,
    TRUMP_MASK,
    Card,
    CardSet,
    card_name,
    cards_of,
)

HIDDEN: Final = DECK_SIZE
"""Card number standing for a discarded card the observer does not see."""


class MisereKind(enum.IntEnum):
    TRUMP = 1
    """Misère d'atout: no trump and no Excuse (for announcements the Excuse counts as a
    trump, seed 000)."""
    HEAD = 2
    """Misère de tête: no face card (jack, knight, queen, king) and no oudler."""


@dataclass(frozen=True, slots=True)
class PetitSec:
    def encode(self) -> tuple[int, ...]:
        return (0,)

    def __str__(self) -> str:
        return "petit sec"


@dataclass(frozen=True, slots=True)
class Bid:
    contract: int
    """0 pass, else a ``scoring.Contract`` value 1..4 (kept an int so this module stays low)."""

    def encode(self) -> tuple[int, ...]:
        return (1, self.contract)

    def __str__(self) -> str:
        return ("pass", "prise", "garde", "garde sans", "garde contre")[self.contract]


@dataclass(frozen=True, slots=True)
class CallCard:
    card: Card

    def encode(self) -> tuple[int, ...]:
        return (2, self.card)

    def __str__(self) -> str:
        return f"call {card_name(self.card)}"


@dataclass(frozen=True, slots=True)
class Discard:
    card: Card
    """The card put in the écart, or :data:`HIDDEN` when the observer does not see it."""

    def encode(self) -> tuple[int, ...]:
        return (3, self.card)

    def __str__(self) -> str:
        return "discard ?" if self.card == HIDDEN else f"discard {card_name(self.card)}"


@dataclass(frozen=True, slots=True)
class Go:
    chelem: bool
    """True when the taker announces a chelem (he then leads the first trick)."""
    petit_chelem: bool = False
    """True when he announces a petit chelem instead (variant; the lead does not change)."""

    def encode(self) -> tuple[int, ...]:
        return (4, 2 if self.petit_chelem else int(self.chelem))

    def __str__(self) -> str:
        if self.petit_chelem:
            return "go, petit chelem announced"
        return "go, chelem announced" if self.chelem else "go"


@dataclass(frozen=True, slots=True)
class Poignee:
    cards: CardSet
    """The trumps shown (the Excuse may be among them); their number gives the level."""

    def encode(self) -> tuple[int, ...]:
        return (5, *cards_of(self.cards))

    def __str__(self) -> str:
        return "poignée " + " ".join(card_name(c) for c in cards_of(self.cards))


@dataclass(frozen=True, slots=True)
class Misere:
    kind: MisereKind

    def encode(self) -> tuple[int, ...]:
        return (6, int(self.kind))

    def __str__(self) -> str:
        return "misère d'atout" if self.kind is MisereKind.TRUMP else "misère de tête"


@dataclass(frozen=True, slots=True)
class Play:
    card: Card

    def encode(self) -> tuple[int, ...]:
        return (7, self.card)

    def __str__(self) -> str:
        return f"play {card_name(self.card)}"


Action = PetitSec | Bid | CallCard | Discard | Go | Poignee | Misere | Play

_SHOWN_DISCARDS: Final = TRUMP_MASK & ~OUDLER_MASK

PLAY: Final[tuple[Play, ...]] = tuple(Play(c) for c in range(DECK_SIZE))
"""Interned :class:`Play` actions, so listing legal cards allocates nothing new."""
DISCARD: Final[tuple[Discard, ...]] = tuple(Discard(c) for c in range(DECK_SIZE + 1))
BIDS: Final[tuple[Bid, ...]] = tuple(Bid(c) for c in range(5))
PASS: Final = BIDS[0]
PETIT_SEC: Final = PetitSec()


def decode(data: tuple[int, ...] | list[int]) -> Action:
    """Inverse of ``encode``; raises ``ValueError`` on anything malformed."""
    if not data or not all(type(x) is int for x in data):
        raise ValueError(f"an action is a non-empty tuple of ints, not {data!r}")
    kind, args = data[0], tuple(data[1:])
    if kind == 5:
        if not args or list(args) != sorted(set(args)) or not all(0 <= c < DECK_SIZE for c in args):
            raise ValueError("a poignée lists distinct cards in increasing order")
        mask = 0
        for c in args:
            mask |= 1 << c
        return Poignee(mask)
    if kind == 0 and not args:
        return PETIT_SEC
    if len(args) != 1:
        raise ValueError(f"malformed action {tuple(data)!r}")
    (x,) = args
    if kind == 1 and 0 <= x <= 4:
        return BIDS[x]
    if kind == 2 and 0 <= x < DECK_SIZE:
        return CallCard(x)
    if kind == 3 and 0 <= x <= HIDDEN:
        return DISCARD[x]
    if kind == 4 and x in (0, 1, 2):
        return Go(x == 1, x == 2)
    if kind == 6 and x in (1, 2):
        return Misere(MisereKind(x))
    if kind == 7 and 0 <= x < DECK_SIZE:
        return PLAY[x]
    raise ValueError(f"malformed action {tuple(data)!r}")


def public_action(action: Action) -> Action:
    """What the other peers are told of ``action``: a discard is shown when it is a trump
    (the petit and the 21 may never be discarded: an attempt stays hidden, for the audit)."""
    if isinstance(action, Discard) and not (_SHOWN_DISCARDS >> action.card) & 1:
        return DISCARD[HIDDEN]
    return action
