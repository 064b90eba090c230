"""Test vectors for every crypto primitive and proof, computed from fixed seeds.

Why in the library: the checked-in JSON files under ``protocol/vectors/`` must be exactly
what this code computes, so the test suite recomputes them with this module and compares
byte for byte, and ``protocol/vectors/generate_crypto.py`` rewrites them from it. All
randomness comes from :class:`DeterministicRandom` with the seeds written in each file,
drawn in the order the spec gives, so another implementation can reproduce every value.

Hex is lower case; points are compressed SEC1, scalars 32-byte big-endian.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from tarot_p2p.crypto.deck import DECK_SIZE, initial_deck
from tarot_p2p.crypto.elgamal import CARD_DST, Ciphertext, card_point, remask
from tarot_p2p.crypto.fiat_shamir import ProofContext, challenge
from tarot_p2p.crypto.group import (
    Point,
    Scalar,
    base_mul,
    hash_to_point,
    mul,
    point_to_bytes,
    scalar_to_bytes,
    sum_points,
)
from tarot_p2p.crypto.keys import KEY_LABEL, KeyShare, joint_key, key_context, make_key_share
from tarot_p2p.crypto.randomness import DeterministicRandom, RandomSource
from tarot_p2p.crypto.shares import (
    SHARE_LABEL,
    decryption_share,
    prove_shares,
    recover_card,
    share_weights,
)

TABLE_ID = bytes.fromhex("7461726f742d7032702d766563746f72")  # b"tarot-p2p-vector"
HAND = 3
SEATS = 4

Json = dict[str, Any]


def crypto_vectors() -> dict[str, Json]:
    """File name (under ``protocol/vectors/``) to its JSON content."""
    keys = key_vectors()
    deck = _shuffled_stand_in(keys.joint)
    return {
        "crypto_randomness.json": _randomness(),
        "crypto_hash_to_point.json": _hash_to_point(),
        "crypto_fiat_shamir.json": _fiat_shamir(),
        "crypto_key_shares.json": keys.vector,
        "crypto_initial_deck.json": _initial_deck(keys.joint),
        "crypto_decryption_shares.json": _decryption_shares(keys, deck),
        "crypto_opening.json": _opening(keys, deck),
    }


def hex_point(p: Point) -> str:
    return point_to_bytes(p).hex()


def hex_scalar(k: Scalar) -> str:
    return scalar_to_bytes(k).hex()


def context_json(ctx: ProofContext) -> Json:
    """A proof context as every vector file writes it: its fields and their encoding."""
    return {
        "version": ctx.version,
        "table_id": ctx.table_id.hex(),
        "hand": ctx.hand,
        "phase": ctx.phase,
        "seat": ctx.seat,
        "encoding": ctx.encode().hex(),
    }


def _randomness() -> Json:
    seed = b"randomness vector"
    return {
        "description": "DeterministicRandom(seed): raw stream, then each draw from a fresh source",
        "seed": seed.hex(),
        "token_bytes_100": DeterministicRandom(seed).token_bytes(100).hex(),
        "randbelow_78_x10": _draws(seed, lambda r: r.randbelow(78), 10),
        "scalars_x3": [hex_scalar(k) for k in _draws(seed, lambda r: r.scalar(), 3)],
        "permutation_78": DeterministicRandom(seed).permutation(78),
    }


def _draws(seed: bytes, draw: Callable[[RandomSource], Any], n: int) -> list[Any]:
    rng = DeterministicRandom(seed)
    return [draw(rng) for _ in range(n)]


def _hash_to_point() -> Json:
    extra = [(b"tarot-p2p/test/v1", b""), (b"tarot-p2p/test/v1", b"abc")]
    return {
        "description": "hash_to_point(dst, message); card c is hash_to_point(card dst, bytes([c]))",
        "card_dst": CARD_DST.decode("ascii"),
        "cards": [hex_point(card_point(c)) for c in range(DECK_SIZE)],
        "examples": [
            {"dst": d.decode("ascii"), "message": m.hex(), "point": hex_point(hash_to_point(d, m))}
            for d, m in extra
        ],
    }


def _fiat_shamir() -> Json:
    ctx = ProofContext(table_id=TABLE_ID, hand=HAND, phase="shares", seat=2)
    parts = [b"", b"\x01\x02", point_to_bytes(base_mul(1))]
    return {
        "description": "challenge(label, ctx, *parts) reduced mod the group order",
        "label": "tarot-p2p/test/v1",
        "context": context_json(ctx),
        "parts": [p.hex() for p in parts],
        "challenge": hex_scalar(challenge(b"tarot-p2p/test/v1", ctx, *parts)),
    }


@dataclasses.dataclass(frozen=True)
class KeyVectors:
    """The four seats' key shares of ``crypto_key_shares.json``: the shares and openings
    use them, and so does the escrow (``escrow_vectors``)."""

    secrets: list[Scalar]
    shares: list[KeyShare]
    joint: Point
    vector: Json


def key_vectors() -> KeyVectors:
    secrets, shares, entries = [], [], []
    for seat in range(SEATS):
        seed = f"key share seat {seat}".encode("ascii")
        ctx = key_context(TABLE_ID, HAND, seat)
        x, share = make_key_share(ctx, DeterministicRandom(seed))
        nonce_rng = DeterministicRandom(seed)
        nonce_rng.scalar()
        nonce = nonce_rng.scalar()
        secrets.append(x)
        shares.append(share)
        entries.append(
            {
                "seat": seat,
                "seed": seed.hex(),
                "context": context_json(ctx),
                "x": hex_scalar(x),
                "nonce_k": hex_scalar(nonce),
                "commitment_R": hex_point(base_mul(nonce)),
                "y": hex_point(share.y),
                "proof": share.proof.to_bytes().hex(),
                "key_share": share.to_bytes().hex(),
            }
        )
    joint = joint_key(TABLE_ID, HAND, shares)
    vector = {
        "description": "per seat: x then k drawn from DeterministicRandom(seed); Y = sum of y",
        "label": KEY_LABEL.decode("ascii"),
        "table_id": TABLE_ID.hex(),
        "hand": HAND,
        "seats": entries,
        "joint_key": hex_point(joint),
    }
    return KeyVectors(secrets, shares, joint, vector)


def _initial_deck(y: Point) -> Json:
    return {
        "description": "position c holds (G, card_point(c) + Y), a || b compressed",
        "joint_key": hex_point(y),
        "deck": [ct.to_bytes().hex() for ct in initial_deck(y)],
    }


REMASK_SEED = b"remask vector"
DECK_SOURCE = (
    "ciphertexts[i] is position positions[i] of the stand-in deck: the initial deck of "
    "crypto_initial_deck.json (joint key Y of crypto_key_shares.json), position p re-masked "
    "as remask(Y, ct, s_p) = (a + s_p*G, b + s_p*Y), s_p the (p+1)-th scalar() of "
    "DeterministicRandom(remask_seed); remask_scalars gives s_p for the positions used"
)


def _remask_scalars() -> list[Scalar]:
    rng = DeterministicRandom(REMASK_SEED)
    return [rng.scalar() for _ in range(78)]


def _shuffled_stand_in(y: Point) -> list[Ciphertext]:
    """The initial deck re-masked (not permuted) with scalars from a fixed seed: ciphertexts
    that look like a shuffled deck's, for the share vectors."""
    return [remask(y, ct, s) for ct, s in zip(initial_deck(y), _remask_scalars(), strict=True)]


def _decryption_shares(keys: KeyVectors, deck: list[Ciphertext]) -> Json:
    cases = []
    for seat, positions in ((1, [5]), (2, [0, 17, 77])):
        seed = f"shares seat {seat}".encode("ascii")
        ctx = ProofContext(table_id=TABLE_ID, hand=HAND, phase="shares", seat=seat)
        cts = [deck[p] for p in positions]
        shares, proof = prove_shares(keys.secrets[seat], cts, ctx, DeterministicRandom(seed))
        statement = [
            point_to_bytes(keys.shares[seat].y),
            b"".join(ct.to_bytes() for ct in cts),
            b"".join(point_to_bytes(d) for d in shares),
        ]
        weights = share_weights(ctx, statement, len(cts))
        a = sum_points([mul(ct.a, w) for ct, w in zip(cts, weights, strict=True)])
        d = sum_points([mul(s, w) for s, w in zip(shares, weights, strict=True)])
        k = DeterministicRandom(seed).scalar()
        cases.append(
            {
                "seat": seat,
                "seed": seed.hex(),
                "context": context_json(ctx),
                "x": hex_scalar(keys.secrets[seat]),
                "y": hex_point(keys.shares[seat].y),
                "positions": positions,
                "remask_scalars": [hex_scalar(_remask_scalars()[p]) for p in positions],
                "ciphertexts": [ct.to_bytes().hex() for ct in cts],
                "shares": [hex_point(s) for s in shares],
                "weights": [w.to_bytes(17, "big").hex() for w in weights],
                "composite_A": hex_point(a),
                "composite_D": hex_point(d),
                "nonce_k": hex_scalar(k),
                "commitment_T1": hex_point(base_mul(k)),
                "commitment_T2": hex_point(mul(a, k)),
                "proof": proof.to_bytes().hex(),
            }
        )
    return {
        "description": "one batched DLEQ proof per case; k is the first draw of the seed; "
        "x and y are the seat's key share of crypto_key_shares.json",
        "ciphertext_source": DECK_SOURCE,
        "remask_seed": REMASK_SEED.hex(),
        "label": SHARE_LABEL.decode("ascii"),
        "weights_dst": "tarot-p2p/dleq-weights/v1",
        "weights_encoding": "each weight as 17 bytes big-endian (it can reach 2^128)",
        "cases": cases,
    }


def _opening(keys: KeyVectors, deck: list[Ciphertext]) -> Json:
    position, owner = 33, 0
    ct = deck[position]
    published = []
    for seat in range(SEATS):
        seed = f"opening seat {seat}".encode("ascii")
        ctx = ProofContext(table_id=TABLE_ID, hand=HAND, phase="play", seat=seat)
        shares, proof = prove_shares(keys.secrets[seat], [ct], ctx, DeterministicRandom(seed))
        published.append(
            {
                "seat": seat,
                "seed": seed.hex(),
                "x": hex_scalar(keys.secrets[seat]),
                "context": context_json(ctx),
            }
        )
        published[-1] |= {"share": hex_point(shares[0]), "proof": proof.to_bytes().hex()}
    all_shares = [decryption_share(x, ct) for x in keys.secrets]
    card = recover_card(ct, all_shares)
    return {
        "description": (
            "ciphertext opened by every seat's share; to its owner the others' shares and "
            "his own unpublished one suffice; card = lookup of b - sum(shares); x is each "
            "seat's key share of crypto_key_shares.json; k is the first draw of the seed"
        ),
        "ciphertext_source": DECK_SOURCE.replace("ciphertexts[i]", "ciphertext").replace(
            "positions[i]", "position"
        ),
        "remask_seed": REMASK_SEED.hex(),
        "position": position,
        "remask_scalar": hex_scalar(_remask_scalars()[position]),
        "ciphertext": ct.to_bytes().hex(),
        "owner": owner,
        "owner_private_share": hex_point(all_shares[owner]),
        "published": published,
        "card_point": hex_point(card_point(card)),
        "card": card,
    }
