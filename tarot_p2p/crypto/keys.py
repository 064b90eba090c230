"""Per-hand key shares with a Schnorr proof of knowledge, and the joint key.

Each peer ``i`` draws ``x_i`` and publishes ``Y_i = x_i·G`` with a proof that it knows
``x_i``, bound to the context (table, hand, phase ``"key"``, seat ``i``). The joint key
is ``Y = ΣY_i``; a card masked under ``Y`` opens only with every ``x_i``.

Why the proof: without it the last peer to speak could publish ``Y_r = x·G − ΣY_others``
(a rogue key) and alone know the log of ``Y`` — the whole deck would be open to him.
Knowing the log of his own ``Y_r`` is exactly what that attack cannot give him, and the
seat in the context stops him from replaying another peer's key and proof as his own.

Proof (Schnorr, compact form): the prover draws ``k``, sets ``R = k·G``,
``c = challenge(KEY_LABEL, ctx, Y_i, R)``, ``z = k + c·x_i``. The verifier recomputes
``R' = z·G − c·Y_i`` and accepts iff ``challenge(KEY_LABEL, ctx, Y_i, R') == c``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from tarot_p2p.crypto.errors import GroupError, ProofError
from tarot_p2p.crypto.fiat_shamir import ProofContext, challenge
from tarot_p2p.crypto.group import (
    ORDER,
    POINT_BYTES,
    Point,
    Scalar,
    base_mul,
    mul_add_base,
    point_from_bytes,
    point_to_bytes,
    sum_points,
)
from tarot_p2p.crypto.randomness import RandomSource
from tarot_p2p.crypto.sigma import PROOF_BYTES, CompactProof

KEY_LABEL = b"tarot-p2p/key-pok/v1"
KEY_PHASE = "key"
KEY_SHARE_BYTES = POINT_BYTES + PROOF_BYTES


class KeyShare(NamedTuple):
    """A peer's public key share for one hand and its proof of knowledge."""

    y: Point
    proof: CompactProof

    def to_bytes(self) -> bytes:
        """97 bytes: ``Y_i`` compressed, then the proof ``c || z``."""
        return point_to_bytes(self.y) + self.proof.to_bytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> KeyShare:
        if len(data) != KEY_SHARE_BYTES:
            raise GroupError("a key share is 97 bytes")
        y = point_from_bytes(data[:POINT_BYTES])
        return cls(y, CompactProof.from_bytes(data[POINT_BYTES:]))


def key_context(table_id: bytes, hand: int, seat: int) -> ProofContext:
    """The context a seat's key proof is bound to."""
    return ProofContext(table_id=table_id, hand=hand, phase=KEY_PHASE, seat=seat)


def make_key_share(ctx: ProofContext, rng: RandomSource) -> tuple[Scalar, KeyShare]:
    """A fresh secret ``x_i`` and the public share to send; keep ``x_i`` for this hand only."""
    x = rng.scalar()
    return x, KeyShare(base_mul(x), prove_key(x, ctx, rng))


def prove_key(x: Scalar, ctx: ProofContext, rng: RandomSource) -> CompactProof:
    """Prove knowledge of ``x`` with ``Y = x·G``, in context ``ctx``."""
    y = base_mul(x)
    k = rng.scalar()
    c = challenge(KEY_LABEL, ctx, point_to_bytes(y), point_to_bytes(base_mul(k)))
    return CompactProof(c, (k + c * x) % ORDER)


def verify_key(share: KeyShare, ctx: ProofContext) -> None:
    """Raise :class:`ProofError` unless the sender knows the log of ``share.y`` (in ``ctx``)."""
    c, z = share.proof
    if not 0 < c < ORDER or not 0 <= z < ORDER:
        raise ProofError("key proof scalars out of range")
    try:
        r = mul_add_base(share.y, ORDER - c, z)
    except GroupError:
        raise ProofError("key proof commitment is the identity") from None
    if challenge(KEY_LABEL, ctx, point_to_bytes(share.y), point_to_bytes(r)) != c:
        raise ProofError(f"key proof of seat {ctx.seat} does not verify")


def joint_key(table_id: bytes, hand: int, shares: Sequence[KeyShare]) -> Point:
    """``Y = ΣY_i`` after verifying every share's proof; ``shares[i]`` is seat ``i``'s."""
    if not shares:
        raise ValueError("no key shares")
    for seat, share in enumerate(shares):
        verify_key(share, key_context(table_id, hand, seat))
    try:
        return sum_points([s.y for s in shares])
    except GroupError:
        raise ProofError("the key shares sum to the identity") from None
