"""Messages a modified client could send: the cheats the spec names, one builder each.

Why in the package: the conformance kit (``tarot-p2p conformance``) plays them against
another implementation over TCP, and the protocol tests play some of them in process; one
builder for both keeps the two honest about what they test.

An honest peer runs its own messages through the checks it applies to everybody's
(``protocol/table.md`` §1). A cheater does not: every builder here signs what the
cheating seat's :class:`~tarot_p2p.protocol.peer.Peer` would refuse, at the slot the table
is at, so that only the *other* peers' checks stand between the table and the cheat. Two
builders (:func:`cheat_play`, :func:`cheat_discard`) make cheats that pass every check made
while the cards are hidden and are found by the audit at the end of the hand: they go
through the cheater's peer, without its rules engine, so that it can play the hand out.

Each builder takes the cheater's peer as it stands before the message, its identity key,
and a random source for the proofs (a cheater's randomness is its own business).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto.elgamal import Ciphertext
from tarot_p2p.crypto.escrow import Escrow, SealedPiece, escrow_context, make_escrow
from tarot_p2p.crypto.group import (
    ORDER,
    Scalar,
    base_mul,
    point_to_bytes,
    scalar_from_bytes,
    scalar_to_bytes,
    sub,
    sum_points,
)
from tarot_p2p.crypto.keys import key_context, make_key_share, prove_key
from tarot_p2p.crypto.randomness import RandomSource
from tarot_p2p.crypto.shares import decryption_share, prove_shares, recover_card
from tarot_p2p.crypto.shuffle import shuffle_and_prove
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.codec import decode
from tarot_p2p.protocol.envelope import SignedEnvelope, seal
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.table import Phase
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import EXCUSE, TRUMP_MASK, CardSet, cards_of
from tarot_p2p.rules.state import game_of

SHARE = 33
"""Bytes of one decryption share (a compressed point)."""


def sign_next(
    peer: Peer,
    key: Ed25519PrivateKey,
    message: m.Message | tuple[str, Mapping[str, object]],
    *,
    seat: int | None = None,
) -> bytes:
    """``message`` signed by ``key`` for the slot ``peer``'s table is at, as sender ``seat``
    (``peer``'s own seat unless told), with none of the sender's checks."""
    hand = peer.hand.hand
    kind, body = message if isinstance(message, tuple) else (m.type_of(message), None)
    if body is None:
        assert not isinstance(message, tuple)
        body = m.dump_body(message)
    sender = peer.seat if seat is None else seat
    assert sender is not None
    return seal(
        key,
        table_id=peer.table_id,
        hand=hand,
        seq=sum(1 for e in peer.transcript if e.hand == hand),
        seat=sender,
        prev=peer.transcript.expected_prev,
        kind=kind,
        body=body,
    ).wire


def key_secret(peer: Peer) -> Scalar:
    """The seat's key share secret of the current hand (from its exported secrets)."""
    blob = decode(peer.export_secrets())
    assert isinstance(blob, dict) and isinstance(blob["x"], bytes)
    return scalar_from_bytes(blob["x"], nonzero=True)


def shares_for(
    peer: Peer, phase: str, slots: Sequence[int], rng: RandomSource
) -> tuple[bytes, bytes]:
    """The seat's decryption shares of ``slots`` and their proof, as a share list
    (``table.md`` §1.2)."""
    hand = peer.hand
    assert peer.seat is not None
    cts = [hand.deck[s] for s in slots]
    shares, proof = prove_shares(key_secret(peer), cts, hand.context(phase, peer.seat), rng)
    return b"".join(point_to_bytes(p) for p in shares), proof.to_bytes()


def _cts(deck: Sequence[Ciphertext]) -> bytes:
    return b"".join(ct.to_bytes() for ct in deck)


def _shuffled(peer: Peer, rng: RandomSource) -> tuple[list[Ciphertext], bytes]:
    hand = peer.hand
    assert hand.joint_key is not None and peer.seat is not None
    ctx = hand.context("shuffle", peer.seat)
    out, proof = shuffle_and_prove(hand.joint_key, hand.shuffle_input(), ctx, rng)
    return out, proof.to_bytes()


def bad_shuffle(peer: Peer, key: Ed25519PrivateKey, rng: RandomSource) -> bytes:
    """A proven shuffle whose first two output cards are then swapped: the deck is still
    a permutation of the input, but not the one the proof speaks for."""
    out, proof = _shuffled(peer, rng)
    out[0], out[1] = out[1], out[0]
    return sign_next(peer, key, m.Shuffle(_cts(out), proof))


def duplicated_card(peer: Peer, key: Ed25519PrivateKey, rng: RandomSource) -> bytes:
    """A shuffle whose output holds its first card twice (another card is gone)."""
    out, proof = _shuffled(peer, rng)
    out[1] = out[0]
    return sign_next(peer, key, m.Shuffle(_cts(out), proof))


def wrong_shares(peer: Peer, key: Ed25519PrivateKey, rng: RandomSource) -> bytes:
    """The round's decryption shares with the first two exchanged: each share is a real
    one, for another card than the one it stands for."""
    assert peer.seat is not None
    d, proof = shares_for(peer, peer.hand.phase.value, peer.hand.share_slots(peer.seat), rng)
    d = d[SHARE : 2 * SHARE] + d[:SHARE] + d[2 * SHARE :]
    return sign_next(peer, key, m.Shares(d, proof))


def round_shares(peer: Peer, key: Ed25519PrivateKey, rng: RandomSource) -> bytes:
    """The seat's own (correct) shares of the current round, whoever's turn it is."""
    assert peer.seat is not None
    slots = peer.hand.share_slots(peer.seat)
    return sign_next(peer, key, m.Shares(*shares_for(peer, peer.hand.phase.value, slots, rng)))


def key_share(
    peer: Peer, key: Ed25519PrivateKey, rng: RandomSource, *, seat: int | None = None
) -> bytes:
    """A fresh, well-proven key share for ``seat``'s place in the current KEYS round (the
    peer's own unless told), signed by ``key``: a second one for the same slot is an
    equivocation; one signed by another seat's key is a forged sender."""
    sender = peer.seat if seat is None else seat
    assert sender is not None
    _, share = make_key_share(key_context(peer.table_id, peer.hand.hand, sender), rng)
    escrow_key = point_to_bytes(base_mul(rng.scalar()))
    message = m.Key(point_to_bytes(share.y), share.proof.to_bytes(), escrow_key)
    return sign_next(peer, key, message, seat=seat)


def rogue_key(peer: Peer, key: Ed25519PrivateKey, rng: RandomSource) -> bytes:
    """The last key share chosen to cancel the others': ``Y = x·G − Σ Y_j``, so the joint
    key would be ``x·G`` and the cheater alone could open every card. It cannot prove it
    knows the logarithm of ``Y``; it sends the proof it can make, for ``x·G``."""
    assert peer.seat is not None
    x = rng.scalar()
    y = sub(base_mul(x), sum_points(peer.hand.key_shares))
    proof = prove_key(x, key_context(peer.table_id, peer.hand.hand, peer.seat), rng)
    return sign_next(peer, key, m.Key(point_to_bytes(y), proof.to_bytes(), point_to_bytes(y)))


def escrow_secret(peer: Peer) -> Scalar:
    """The seat's escrow key of the current hand (from its exported secrets)."""
    blob = decode(peer.export_secrets())
    assert isinstance(blob, dict) and isinstance(blob["e"], bytes)
    return scalar_from_bytes(blob["e"], nonzero=True)


def bad_escrow_sum(peer: Peer, key: Ed25519PrivateKey, rng: RandomSource) -> bytes:
    """An escrow of another secret than the key share: its commitments do not add up to
    ``Y_i``, which every peer sees (``crypto.md`` §10.3)."""
    assert peer.seat is not None
    hand = peer.hand
    ctx = escrow_context(peer.table_id, hand.hand, peer.seat)
    escrow = make_escrow(rng.scalar(), ctx, hand.escrow_keys, rng)
    return sign_next(peer, key, m.Escrow(escrow.to_bytes()))


def badly_sealed_piece(
    peer: Peer, key: Ed25519PrivateKey, rng: RandomSource, holder: int | None = None
) -> bytes:
    """An escrow whose commitments are right but whose piece for ``holder`` (the first
    holder unless told) is sealed wrong: only its holder can see it, and it complains
    (§10.5)."""
    assert peer.seat is not None
    hand = peer.hand
    ctx = escrow_context(peer.table_id, hand.hand, peer.seat)
    honest = make_escrow(key_secret(peer), ctx, hand.escrow_keys, rng)
    holders = [s for s in range(peer.config.seats) if s != peer.seat]
    at = 0 if holder is None else holders.index(holder)
    pieces = list(honest.pieces)
    pieces[at] = SealedPiece(pieces[at].commitment, (pieces[at].sealed + 1) % ORDER)
    return sign_next(peer, key, m.Escrow(Escrow(honest.r, tuple(pieces)).to_bytes()))


def false_complaint(peer: Peer, key: Ed25519PrivateKey) -> bytes:
    """A complaint of a piece that was sealed right: the verdict blames the complainer."""
    assert peer.seat is not None
    owner = next(s for s in sorted(peer.hand.escrows) if s != peer.seat)
    return sign_next(peer, key, m.Complaint(owner, scalar_to_bytes(escrow_secret(peer))))


def wrong_release(peer: Peer, key: Ed25519PrivateKey, rng: RandomSource) -> bytes:
    """Another value than the piece committed to the sender (§10.6)."""
    return sign_next(peer, key, m.Release(scalar_to_bytes(rng.scalar())))


def replayed(peer: Peer, key: Ed25519PrivateKey, old: SignedEnvelope) -> bytes:
    """An earlier message's body signed again for the current slot: its proofs are bound
    to the hand and phase they were made in (``crypto.md`` §4), so they do not verify."""
    return sign_next(peer, key, (old.kind, old.body))


def unheld_card(peer: Peer, key: Ed25519PrivateKey, rng: RandomSource, slot: int) -> bytes:
    """A card played from ``slot``, which is not the seat's (another seat's card, or the
    chien's), with the seat's own share of it."""
    d, proof = shares_for(peer, "play", [slot], rng)
    return sign_next(peer, key, m.Play(slot, d, proof))


def false_petit_sec(peer: Peer, key: Ed25519PrivateKey, rng: RandomSource) -> bytes:
    """A petit sec announced with a hand that is none: the shares open the whole hand."""
    assert peer.seat is not None
    d, proof = shares_for(peer, "petit_sec", peer.hand.holding[peer.seat], rng)
    return sign_next(peer, key, m.PetitSec(d, proof))


def held_cards(peer: Peer) -> dict[int, int]:
    """Slot -> card of the seat's unplayed cards."""
    hand = peer.hand
    assert peer.seat is not None
    x = key_secret(peer)
    out = {}
    for slot in hand.holding[peer.seat]:
        ct = hand.deck[slot]
        out[slot] = recover_card(ct, [*hand.shares[slot].values(), decryption_share(x, ct)])
    return out


def false_poignee(peer: Peer, key: Ed25519PrivateKey, rng: RandomSource) -> bytes | None:
    """A simple poignée's count of cards, suit cards among them (``None``: the hand has
    no suit card to show, so it could not lie this way)."""
    held = held_cards(peer)
    plain = [s for s, c in held.items() if not (TRUMP_MASK >> c) & 1 and c != EXCUSE]
    if not plain:
        return None
    size = game_of(peer.config).poignee_thresholds[0]
    slots = sorted([plain[0], *[s for s in held if s != plain[0]][: size - 1]])
    d, proof = shares_for(peer, "poignee", slots, rng)
    return sign_next(peer, key, m.Poignee(tuple(slots), d, proof))


def wrong_score(peer: Peer, key: Ed25519PrivateKey) -> bytes:
    """The hand's score line with ten points moved from the next seat to the sender."""
    scores = peer.hand.scores
    assert scores is not None and peer.seat is not None
    line = list(scores)
    line[peer.seat] += 10
    line[(peer.seat + 1) % len(line)] -= 10
    return sign_next(peer, key, m.Score(tuple(line)))


def cheat_play(peer: Peer, card: int) -> bytes:
    """Play ``card`` without the peer's own legality check (a modified client). The peer
    drops its rules engine: from then on it plays only through this function."""
    peer._private = None  # a cheater does not keep the rules engine honest
    slot = peer._slot_of(card)
    d, proof = peer._shares("play", [slot])
    return peer._send(m.Play(slot, d, proof))


def cheat_act(peer: Peer, action: a.Action) -> bytes:
    """An action in the clear (a bid, a call, the go) without the peer's own legality
    check; as with :func:`cheat_play`, the peer drops its rules engine."""
    peer._private = None
    return peer._send(m.Act(action.encode()))


def cheat_discard(peer: Peer, cards: CardSet) -> bytes:
    """The écart of ``cards`` without the taker's own legality check. Kings and unshown
    trumps pass while the écart is hidden; the audit finds them at the end of the hand.
    As with :func:`cheat_play`, the peer drops its rules engine."""
    if peer.hand.phase is not Phase.ECART or not peer.my_turn():
        raise ValueError("no écart to make now")
    peer._private = None
    return peer._ecart(sorted(cards_of(cards)))


def cheat_poignee(peer: Peer, cards: CardSet) -> bytes:
    """A poignée of ``cards`` without the peer's own check: one with the Excuse while the
    seat holds a trump it does not show passes every check made while its hand is hidden
    (``game.md`` §5, ``poignee-excuse``). As with :func:`cheat_play`, the peer drops its
    rules engine."""
    peer._private = None
    slots = sorted(peer._slot_of(c) for c in cards_of(cards))
    d, proof = peer._shares("poignee", slots)
    return peer._send(m.Poignee(tuple(slots), d, proof))
