"""Deals the kit chooses, so that an audit game's outcome does not depend on luck.

Why the kit can: every seat but the implementation's is the kit's, and the escrow
(``crypto.md`` §10) gives the implementation's key share of each hand to all the other
seats together. Once the escrows of a hand are in, the kit rebuilds that key share from
its seats' pieces, so it holds every key share of the hand and can open any card of the
deck. The last shuffle of a hand is seat ``n − 1``'s: when that seat is the kit's, it opens
its input deck and shuffles it, with a permutation it chooses and a proof like any other,
into the deck whose deal gives each seat the hand the scenario wants. The shuffle is a
valid one (every check passes): what the escrow gives a coalition of all the other seats,
``docs/security.md`` says; the kit is such a coalition.

What the kit cannot choose: the seat draw (hand 0 has no escrow). When the draw seats the
implementation last, the kit plays the game again on a new table (``conformance.md`` §1).

A :data:`DealPlan` gets the kit's seats and the hand about to be dealt and returns the
cards of each seat and of the chien (``None``: let the deal be random).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tarot_p2p.crypto.escrow import escrow_context, open_piece
from tarot_p2p.crypto.group import ORDER
from tarot_p2p.crypto.shares import decryption_share, recover_card
from tarot_p2p.crypto.shuffle import prove_shuffle
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.table import HandMachine, Phase
from tarot_p2p.rules.cards import EXCUSE, SUITS, suit_card, trump
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import CHIEN, chien_size, deal_pattern, hand_size

from . import cheats
from .seats import KitSeats


@dataclass(frozen=True, slots=True)
class ChosenDeal:
    """Each seat's cards (by seat) and the chien's."""

    hands: tuple[tuple[int, ...], ...]
    chien: tuple[int, ...]


DealPlan = Callable[[KitSeats, HandMachine], ChosenDeal | None]


def chooser(seats: KitSeats, plan: DealPlan) -> Callable[[Peer], bytes | None]:
    """What :attr:`KitSeats.chooser` calls: the chosen shuffle when ``peer`` makes the
    hand's last shuffle and ``plan`` has a deal for it."""

    def shuffle(peer: Peer) -> bytes | None:
        if not chooses(peer):
            return None
        deal = plan(seats, peer.hand)
        return None if deal is None else chosen_shuffle(seats, peer, deal)

    return shuffle


def chooses(peer: Peer) -> bool:
    """Whether ``peer`` makes the last shuffle of a deal now (the one that fixes it)."""
    hand = peer.hand
    return (
        hand.hand >= 1
        and hand.phase is Phase.SHUFFLE
        and peer.seat == peer.config.seats - 1
        and peer.my_turn()
    )


def hand_secret(seats: KitSeats) -> int:
    """The hand's whole secret key: the kit seats' key shares and the implementation's,
    rebuilt from the kit's escrow pieces (``crypto.md`` §10.4, §10.6)."""
    hand = seats.ref.hand
    owner = seats.iut_seat()
    ctx = escrow_context(seats.ref.table_id, hand.hand, owner)
    total = 0
    for peer in seats.peers.values():
        assert peer.seat is not None
        total += cheats.key_secret(peer)
        total += open_piece(cheats.escrow_secret(peer), peer.seat, hand.escrows[owner], ctx)
    return total % ORDER


def chosen_shuffle(seats: KitSeats, peer: Peer, deal: ChosenDeal) -> bytes:
    """``peer``'s shuffle (the hand's last), proven, whose output deals ``deal``."""
    hand = peer.hand
    assert hand.joint_key is not None and peer.seat is not None
    x = hand_secret(seats)
    deck = hand.shuffle_input()
    where = {recover_card(ct, [decryption_share(x, ct)]): i for i, ct in enumerate(deck)}
    wanted = [list(cards) for cards in deal.hands]
    chien = list(deal.chien)
    order = []
    for place in deal_pattern(peer.config, hand.dealer):
        order.append(chien.pop(0) if place == CHIEN else wanted[place].pop(0))
    permutation = [where[card] for card in order]
    ctx = hand.context("shuffle", peer.seat)
    rng = peer._rng
    assert rng is not None
    out, proof = prove_shuffle(hand.joint_key, deck, permutation, ctx, rng)
    return peer._send(m.Shuffle(b"".join(ct.to_bytes() for ct in out), proof.to_bytes()))


# ---------------------------------------------------------------------- the plans


def bidding_order(config: TableConfig, dealer: int) -> list[int]:
    """Seats in the order they bid (the one after the dealer first)."""
    n = config.seats
    return [(dealer + 1 + i) % n for i in range(n)]


def kit_taker(seats: KitSeats, hand: HandMachine) -> int:
    """The seat that takes: the first kit seat to bid (the one the kit makes bid)."""
    iut = seats.iut_seat()
    return next(s for s in bidding_order(seats.config, hand.dealer) if s != iut)


def _fill(
    config: TableConfig, dealer: int, fixed: dict[int, list[int]], chien: list[int]
) -> ChosenDeal:
    """Every seat's hand: those in ``fixed`` as given, the others share what is left, in
    card order, a seat after another."""
    size, n = hand_size(config), config.seats
    used = {c for cards in fixed.values() for c in cards} | set(chien)
    rest = [c for c in range(78) if c not in used]
    hands = []
    for seat in range(n):
        if seat in fixed:
            hands.append(tuple(fixed[seat]))
        else:
            hands.append(tuple(rest[:size]))
            rest = rest[size:]
    assert not rest and all(len(h) == size for h in hands) and len(chien) == chien_size(config)
    del dealer
    return ChosenDeal(tuple(hands), tuple(chien))


def _lowest_plain(count: int, skip: Sequence[int] = ()) -> list[int]:
    """The ``count`` lowest suit cards by rank (aces, then twos...), suit by suit."""
    cards = [suit_card(s, r) for r in range(1, 11) for s in range(4)]
    return [c for c in cards if c not in skip][:count]


def master_of_trumps(seats: KitSeats, hand: HandMachine) -> ChosenDeal:
    """The kit's taker holds the Excuse and the highest trumps (a hand of them, at three
    players every trump and the two lowest aces); the chien is the king of diamonds and
    low suit cards. Whatever the others play, the taker wins every trick he plays a trump
    in: he makes any contract, before the audit."""
    config = seats.config
    size = hand_size(config)
    taker_cards = [EXCUSE, *[trump(n) for n in range(21, 0, -1)]][:size]
    taker_cards += _lowest_plain(size - len(taker_cards))
    king = suit_card(2, 14)
    chien = [king, *_lowest_plain(chien_size(config) - 1, taker_cards)]
    return _fill(config, hand.dealer, {kit_taker(seats, hand): taker_cards}, chien)


def _plain_by_rank() -> list[int]:
    """Every suit card, the lowest ranks first (aces, then twos...), suit by suit."""
    return [suit_card(s, r) for r in range(1, 15) for s in SUITS]


def revoker(seats: KitSeats, hand: HandMachine) -> int:
    """The kit defender that revokes in :func:`trump_wall`'s deal: the first kit seat after
    the taker in the bidding order. It never leads the first trick (the first bidder does,
    and the taker is the first kit seat to bid), so it plays to a card already led there."""
    order = bidding_order(seats.config, hand.dealer)
    taker, iut = kit_taker(seats, hand), seats.iut_seat()
    return next(s for s in order[1:] if s not in (taker, iut))


def trump_wall(seats: KitSeats, hand: HandMachine) -> ChosenDeal:
    """A deal the defence wins whatever the implementation plays, and on which a kit
    defender can revoke at its first card.

    The kit's taker and the chien hold the lowest suit cards (no trump, no Excuse, no
    king). One kit defender, the *wall*, holds the highest trumps: every trick it plays in
    has a trump of it, above any other trump, so the taker never takes a trick and the
    attack scores its écart alone. The revoker (:func:`revoker`) holds the low trumps, the
    Excuse and suit cards of every suit, so that whatever the first trick's first card
    (a suit card, or the wall's trump), it has a card it may not play. At five the kings
    go to the last kit defender, who is then the called partner and takes nothing either.
    At three the revoker is the wall: every trump and a nine of three suits; the
    implementation holds the other suit cards and the Excuse, so it follows every suit in
    the first trick; after its revoke the wall plays its lowest cards, so the taker may
    take at most three tricks, far from any contract."""
    config = seats.config
    n, size, chien_cards = config.seats, hand_size(config), chien_size(config)
    plain = _plain_by_rank()
    taker_cards, chien = plain[:size], plain[size : size + chien_cards]
    rest = plain[size + chien_cards :]
    taker, cheater = kit_taker(seats, hand), revoker(seats, hand)
    fixed = {taker: taker_cards}
    if n == 3:
        fixed[cheater] = [*(trump(t) for t in range(1, 22)), *(suit_card(s, 9) for s in SUITS[:3])]
        return _fill(config, hand.dealer, fixed, chien)
    low = 21 - size  # the wall's trumps are the `size` highest
    fixed[cheater] = [*(trump(t) for t in range(1, low + 1)), EXCUSE]
    fixed[cheater] += rest[: size - len(fixed[cheater])]
    rest = rest[size - low - 1 :]
    iut = seats.iut_seat()
    others = [s for s in bidding_order(config, hand.dealer) if s not in (taker, cheater, iut)]
    fixed[others[0]] = [trump(t) for t in range(low + 1, 22)]
    if n == 5:
        kings = [suit_card(s, 14) for s in SUITS]
        plain_rest = [c for c in rest if c not in kings]
        fixed[others[1]] = [*kings, *plain_rest[: size - len(kings)]]
    return _fill(config, hand.dealer, fixed, chien)
