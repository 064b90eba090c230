"""The deal: how an ordering of the 78 cards becomes hands and a chien.

Why the deal is an input: the engine has no randomness. In a networked game the deck order
comes out of the mental-poker shuffle, and every peer maps deck positions to destinations
with the same fixed pattern, so the pattern below is normative (the protocol uses it).

The pattern (FFT style): the dealer gives packets of three cards to each active player in
turn, starting with the player after him (seat ``dealer + 1``; play goes from seat ``i`` to
seat ``i + 1``), and puts single cards into the chien between packets — never the first
nor the last card of the deck. With ``P`` packets in all and a chien of ``C`` cards, chien
card ``i`` (``0 <= i < C``) is put right after packet number ``((i + 1) * P) // (C + 1)``
(packets counted from 1). That gives, by deck position:

* 3 players: 24 packets, chien after packets 3, 6, 10, 13, 17, 20 (24 cards each, chien 6);
* 4 players: 24 packets, same chien slots (18 cards each, chien 6);
* 5 players (called king): 25 packets, chien after packets 6, 12, 18 (15 each, chien 3);
* 5 players with a dead hand: the dealer gets nothing; the four others are dealt the
  4-player pattern, starting with seat ``dealer + 1``;
* 2 players (variant, seed 002): 24 packets, same chien slots. Each player gets 18 cards in
  hand and 18 in six piles of three in front of him, only the top card of each pile face
  up. The packets alternate between the two players, starting with seat ``dealer + 1``;
  each player's own packets go, in order: hand, pile 0, hand, pile 1, ..., hand, pile 5.
  A pile packet is laid as dealt: its first card at the bottom, its third on top.
  :func:`pile_positions` says where each pile card lies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import Final

from tarot_p2p.rules.cards import DECK_SIZE, FULL_DECK, CardSet, card_name, count
from tarot_p2p.rules.config import FivePlayerMode, TableConfig

CHIEN: Final = -1
"""Destination of a deck position that goes to the chien."""

PACKET: Final = 3


def active_seats(config: TableConfig, dealer: int) -> tuple[int, ...]:
    """Seats holding cards this hand, in playing order from the dealer's right.

    At five with a dead hand the dealer sits out; otherwise every seat plays.
    """
    check_seat(config, dealer)
    n = config.seats
    order = tuple((dealer + 1 + i) % n for i in range(n))
    if config.active_players < n:
        return order[:-1]
    return order


def chien_size(config: TableConfig) -> int:
    """Cards in the chien: 3 at five players in called-king mode, 6 otherwise."""
    return 3 if config.active_players == 5 else 6


PILES: Final = 6
"""Piles in front of each player in the two-player variant (three cards each)."""


def hand_size(config: TableConfig) -> int:
    """Cards dealt to each active player's hand (18 at two players, the piles apart)."""
    if config.players == 2:
        return 18
    return (DECK_SIZE - chien_size(config)) // config.active_players


def check_seat(config: TableConfig, seat: int) -> None:
    if not isinstance(seat, int) or not 0 <= seat < config.seats:
        raise ValueError(f"no seat {seat!r} at a {config.seats}-seat table")


@cache
def _layout(
    players: int, dead_hand: bool, dealer: int
) -> tuple[tuple[int, ...], tuple[tuple[int, int] | None, ...]]:
    mode = FivePlayerMode.DEAD_HAND if dead_hand else FivePlayerMode.CALLED_KING
    config = TableConfig(players=players, five_player_mode=mode)
    seats = active_seats(config, dealer)
    chien = chien_size(config)
    packets = (DECK_SIZE - chien) // PACKET
    after = [((i + 1) * packets) // (chien + 1) for i in range(chien)]
    out: list[int] = []
    piles: list[tuple[int, int] | None] = []
    for p in range(packets):
        seat = seats[p % len(seats)]
        own = p // len(seats)  # this packet's number among the seat's own packets
        out.extend([seat] * PACKET)
        if players == 2 and own % 2 == 1:
            piles.extend((own // 2, depth) for depth in range(PACKET))
        else:
            piles.extend([None] * PACKET)
        out.extend([CHIEN] * after.count(p + 1))
        piles.extend([None] * after.count(p + 1))
    assert len(out) == DECK_SIZE and out[0] != CHIEN and out[-1] != CHIEN
    return tuple(out), tuple(piles)


def deal_pattern(config: TableConfig, dealer: int) -> tuple[int, ...]:
    """For each deck position 0..77, its destination: a seat, or :data:`CHIEN`.

    Normative: the network protocol maps the shuffled deck to hands with this function.
    At two players a seat's cards include its piles (see :func:`pile_positions`).
    """
    check_seat(config, dealer)
    dead = config.players == 5 and config.active_players == 4
    return _layout(config.players, dead, dealer)[0]


def pile_positions(config: TableConfig, dealer: int) -> tuple[tuple[int, int] | None, ...]:
    """For each deck position, ``(pile, depth)`` when it goes to one of its seat's piles
    (two players only; depth 0 bottom, 2 top), else ``None``. Normative, like
    :func:`deal_pattern`."""
    check_seat(config, dealer)
    dead = config.players == 5 and config.active_players == 4
    return _layout(config.players, dead, dealer)[1]


Piles = tuple[tuple[tuple[int, ...], ...], ...]
"""Per seat, its piles, each from the bottom card up (two players; empty otherwise)."""


@dataclass(frozen=True, slots=True)
class Deal:
    """Hands (one card set per seat; empty for a seat sitting out), the chien and, at two
    players, the piles."""

    hands: tuple[CardSet, ...]
    chien: CardSet
    piles: Piles = ()


@cache
def _gathers(
    players: int, dead_hand: bool, dealer: int
) -> tuple[tuple[itemgetter[Sequence[int]] | None, ...], itemgetter[Sequence[int]]]:
    """Per seat, a getter of the deck positions dealt to its hand (``None`` for a seat
    dealt nothing), and one of the chien's positions: the layout read once per dealer, so
    that a deal is a few C-level gathers instead of a loop over the 78 positions (the deal
    is part of every hand the strong bot plays out)."""
    pattern, piles = _layout(players, dead_hand, dealer)
    hand = [
        [i for i, (d, pos) in enumerate(zip(pattern, piles, strict=True)) if d == s and pos is None]
        for s in range(players)
    ]
    chien = [i for i, d in enumerate(pattern) if d == CHIEN]
    return tuple(itemgetter(*h) if h else None for h in hand), itemgetter(*chien)


_CARDS: Final = frozenset(range(DECK_SIZE))
_INTS: Final = [int] * DECK_SIZE

_BIT_OF: Final = {c: 1 << c for c in range(DECK_SIZE)}
"""The bit of each card, as a dict (rather than a tuple or list) so that a number that is no
card, a negative one included, is refused."""

_BAD_DECK: Final = "deck order must hold each of the 78 cards exactly once"


def deal_cards(config: TableConfig, dealer: int, deck_order: Sequence[int]) -> Deal:
    """Map ``deck_order`` (the 78 cards, top of the deck first) to hands and chien."""
    return Deal(*dealt(config, dealer, deck_order))


def dealt(
    config: TableConfig, dealer: int, deck_order: Sequence[int]
) -> tuple[tuple[CardSet, ...], CardSet, Piles]:
    """The fields of :func:`deal_cards`'s :class:`Deal`, for :func:`~.state.new_hand`,
    which needs no ``Deal`` (a frozen dataclass's construction cost a twentieth of a hand's
    set-up, which starts every playout of the strong bot).

    Checked without a set of the cards (the deal starts every playout of the strong bot):
    every entry an ``int`` (no bool), each a card (the look-up of its bit), and the 78 bits
    adding up to the full deck, which they do only when no card comes twice (a repeated
    card carries into another bit and leaves one bit fewer than cards)."""
    if len(deck_order) != DECK_SIZE or list(map(type, deck_order)) != _INTS:
        raise ValueError(_BAD_DECK)
    check_seat(config, dealer)
    dead = config.players == 5 and config.active_players == 4
    gathers, chien_of = _gathers(config.players, dead, dealer)
    try:
        bits = itemgetter(*deck_order)(_BIT_OF)  # each position's card as its bit, in C
    except KeyError:
        raise ValueError(_BAD_DECK) from None
    hands = tuple(0 if g is None else sum(g(bits)) for g in gathers)
    chien = sum(chien_of(bits))
    if config.players != 2:
        if sum(hands) + chien != FULL_DECK:
            raise ValueError(_BAD_DECK)
        return hands, chien, ()
    if frozenset(deck_order) != _CARDS:
        raise ValueError(_BAD_DECK)
    piles = [[[0] * PACKET for _ in range(PILES)] for _ in range(config.seats)]
    for card, dest, pos in zip(deck_order, *_layout(2, False, dealer), strict=True):
        if pos is not None:
            piles[dest][pos[0]][pos[1]] = card
    return hands, chien, tuple(tuple(tuple(p) for p in ps) for ps in piles)


def check_deal(
    config: TableConfig,
    dealer: int,
    hands: tuple[CardSet, ...],
    chien: CardSet,
    piles: Piles = (),
) -> Deal:
    """Validate hands, chien and piles given directly (sizes, no card twice, all 78)."""
    seats = active_seats(config, dealer)
    if len(hands) != config.seats:
        raise ValueError(f"expected {config.seats} hands, got {len(hands)}")
    size = hand_size(config)
    seen = chien
    if count(chien) != chien_size(config):
        raise ValueError(f"the chien must hold {chien_size(config)} cards")
    for seat, hand in enumerate(hands):
        want = size if seat in seats else 0
        if count(hand) != want:
            raise ValueError(f"seat {seat} must hold {want} cards, not {count(hand)}")
        if seen & hand:
            dup = (seen & hand).bit_length() - 1
            raise ValueError(f"card {card_name(dup)} dealt twice")
        seen |= hand
    if config.players == 2:
        if len(piles) != 2 or any(
            len(ps) != PILES or any(len(p) != PACKET for p in ps) for ps in piles
        ):
            raise ValueError(f"two players: each has {PILES} piles of {PACKET} cards")
        for ps in piles:
            for p in ps:
                for c in p:
                    if type(c) is not int or not 0 <= c < DECK_SIZE or seen >> c & 1:
                        raise ValueError(f"bad or repeated pile card {c!r}")
                    seen |= 1 << c
    elif piles:
        raise ValueError("piles exist only in the two-player variant")
    if seen != FULL_DECK:
        raise ValueError("hands, chien and piles must hold the 78 cards")
    return Deal(tuple(hands), chien, piles)
