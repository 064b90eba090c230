"""Decryption shares with a Chaum–Pedersen proof, and card recovery.

Opening a ciphertext ``(a, b)`` masked under ``Y = ΣY_i`` takes every peer's share
``D_i = x_i·a``: then ``b − ΣD_i`` is the card point, found among the 78 by lookup.
To open a card to its owner, every other peer publishes its share with a proof, and the
owner adds his own privately (:func:`decryption_share`); to open it to everyone, the owner
publishes his too.

What a proof proves: for the prover's key share ``Y_i`` and ciphertexts ``ct_1..ct_n``,
that the published ``D_1..D_n`` satisfy ``log_G Y_i = log_{a_j} D_j`` for every ``j`` —
each share is the true one, made with the same secret as the key share, for exactly these
ciphertexts, in exactly this context. A share for another ciphertext, or under another
context (table, hand, phase, seat), does not verify.

Batching (one proof for any number of shares from one prover): weights ``w_1 = 1`` and,
for ``j >= 2``, ``w_j = 1 + int(SHA-512(seed || j as u32)[:16])`` (128 bits) where ``seed``
hashes the whole statement; with ``A = Σw_j·a_j`` and ``D = Σw_j·D_j`` the prover gives one
DLEQ proof that ``log_G Y_i = log_A D``. Soundness: if some ``D_j ≠ x_i·a_j`` then
``D − x_i·A = Σw_j(D_j − x_i·a_j)``; if only ``j = 1`` is wrong this is non-zero, otherwise
fixing all weights but one wrong ``j >= 2`` leaves at most one of its 2^128 values that
cancels the sum. The weights are a hash of everything the prover sent, so in the random
oracle model a cheat passes with probability at most ``q·2^-128`` after ``q`` hash queries
(plus the DLEQ proof's own ``q/ORDER``). A failed batch blames its one prover.

Proof (compact form): the prover draws ``k``, sets ``T1 = k·G``, ``T2 = k·A``,
``c = challenge(SHARE_LABEL, ctx, Y_i, ct_1 || ... || ct_n, D_1 || ... || D_n, T1, T2)``,
``z = k + c·x_i``; the verifier recomputes ``T1 = z·G − c·Y_i``, ``T2 = z·A − c·D`` and
checks the challenge.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from tarot_p2p.crypto import verified
from tarot_p2p.crypto.elgamal import Ciphertext, card_point
from tarot_p2p.crypto.errors import CryptoError, GroupError, ProofError
from tarot_p2p.crypto.fiat_shamir import ProofContext, challenge, frame
from tarot_p2p.crypto.group import (
    ORDER,
    Point,
    Scalar,
    base_mul,
    mul_add_base,
    mul_secret,
    neg,
    point_to_bytes,
)
from tarot_p2p.crypto.multiexp import encode_points, linear_combination
from tarot_p2p.crypto.randomness import RandomSource
from tarot_p2p.crypto.sigma import CompactProof

SHARE_LABEL = b"tarot-p2p/dleq/v1"
WEIGHTS_DST = b"tarot-p2p/dleq-weights/v1"


def decryption_share(x: Scalar, ct: Ciphertext) -> Point:
    """``x·a``: a peer's share of ``ct``, kept private when the card is its own."""
    return mul_secret(ct.a, x)


def prove_shares(
    x: Scalar, cts: Sequence[Ciphertext], ctx: ProofContext, rng: RandomSource
) -> tuple[list[Point], CompactProof]:
    """The shares ``x·a_j`` of ``cts`` and one proof that all of them are correct."""
    if not cts:
        raise ValueError("no ciphertexts to share")
    shares = [decryption_share(x, ct) for ct in cts]
    y = base_mul(x)
    statement = _statement(y, cts, shares)
    a = _composite([ct.a for ct in cts], share_weights(ctx, statement, len(cts)))
    k = rng.scalar()
    c = challenge(
        SHARE_LABEL,
        ctx,
        *statement,
        point_to_bytes(base_mul(k)),
        point_to_bytes(mul_secret(a, k)),
    )
    proof = CompactProof(c, (k + c * x) % ORDER)
    # Valid as made (see verified.py): the seats of this program need not check it.
    verified.remember(verified.key(SHARE_LABEL, ctx, *statement, proof.to_bytes()))
    return shares, proof


def verify_shares(
    y_i: Point,
    cts: Sequence[Ciphertext],
    shares: Sequence[Point],
    proof: CompactProof,
    ctx: ProofContext,
) -> None:
    """Raise :class:`ProofError` unless each ``shares[j]`` is ``x_i·a_j`` for ``Y_i = x_i·G``
    (the same statement and proof found valid before in this process: from memory,
    :mod:`.verified`)."""
    if not cts or len(cts) != len(shares):
        raise ProofError("one share per ciphertext, at least one")
    c, z = proof
    if not 0 < c < ORDER or not 0 <= z < ORDER:
        raise ProofError("share proof scalars out of range")
    statement = _statement(y_i, cts, shares)
    memo = verified.key(SHARE_LABEL, ctx, *statement, proof.to_bytes())
    verified.once(memo, lambda: _check_shares(y_i, cts, shares, proof, ctx, statement))


def _check_shares(
    y_i: Point,
    cts: Sequence[Ciphertext],
    shares: Sequence[Point],
    proof: CompactProof,
    ctx: ProofContext,
    statement: list[bytes],
) -> None:
    """The equations of :func:`verify_shares`, computed (no memory)."""
    c, z = proof
    weights = share_weights(ctx, statement, len(cts))
    try:
        a = _composite([ct.a for ct in cts], weights)
        d = _composite(shares, weights)
        t1 = mul_add_base(y_i, ORDER - c, z)
        t2 = linear_combination([(a, z), (d, ORDER - c)])
    except GroupError:
        raise ProofError("share proof meets the identity") from None
    if challenge(SHARE_LABEL, ctx, *statement, point_to_bytes(t1), point_to_bytes(t2)) != c:
        raise ProofError(f"decryption shares of seat {ctx.seat} do not verify")


def share_weights(ctx: ProofContext, statement: Sequence[bytes], n: int) -> list[int]:
    """The batch weights: ``1``, then 128-bit values from a hash of the whole statement."""
    h = hashlib.sha512(frame(WEIGHTS_DST) + frame(ctx.encode()))
    for part in statement:
        h.update(frame(part))
    seed = h.digest()
    return [1] + [
        1 + int.from_bytes(hashlib.sha512(seed + j.to_bytes(4, "big")).digest()[:16], "big")
        for j in range(2, n + 1)
    ]


def recover_card(ct: Ciphertext, shares: Sequence[Point]) -> int:
    """The card ``0..77`` under ``ct``, given every peer's share (own one included)."""
    try:
        m = linear_combination([], [], [ct.b, *(neg(d) for d in shares)])
    except GroupError:
        raise CryptoError("the shares do not open this ciphertext to a card") from None
    card = _CARD_BY_POINT.get(point_to_bytes(m))
    if card is None:
        raise CryptoError("the shares do not open this ciphertext to a card")
    return card


_CARD_BY_POINT = {point_to_bytes(card_point(c)): c for c in range(78)}


def _statement(y: Point, cts: Sequence[Ciphertext], shares: Sequence[Point]) -> list[bytes]:
    return [
        point_to_bytes(y),
        encode_points([p for ct in cts for p in ct]),
        encode_points(shares),
    ]


def _composite(points: Sequence[Point], weights: Sequence[int]) -> Point:
    """``Σw_j·P_j`` with ``w_1 = 1`` (so a batch of one costs no multiplication)."""
    return linear_combination(list(zip(points[1:], weights[1:], strict=True)), [], [points[0]])
