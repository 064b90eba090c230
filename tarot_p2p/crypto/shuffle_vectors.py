"""Test vectors for the verifiable shuffle, computed from fixed seeds.

Why in the library: ``protocol/vectors/shuffle_*.json`` must be exactly what this code
computes; the tests recompute them and compare byte for byte, and
``protocol/vectors/generate_crypto.py`` rewrites them. Every random value comes from
:class:`DeterministicRandom` with the seed written in the file, drawn in the order
protocol/shuffle.md gives, so another implementation can reproduce the proof exactly
(and must, at the very least, accept it).
"""

from __future__ import annotations

from typing import Any

from tarot_p2p.crypto.deck import initial_deck
from tarot_p2p.crypto.elgamal import Ciphertext, card_point, encrypt
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import Point, base_mul, point_to_bytes, scalar_to_bytes
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shuffle import (
    commitment_generator,
    shuffle_and_prove,
    shuffle_challenges,
)
from tarot_p2p.crypto.vectors import context_json

Json = dict[str, Any]

TABLE_ID = b"tarot-p2p-vector"
KEY_SEED = b"shuffle vector key"
SMALL_CARDS = (0, 21, 56, 77)


def shuffle_vectors() -> dict[str, Json]:
    """File name (under ``protocol/vectors/``) to its JSON content."""
    y = base_mul(DeterministicRandom(KEY_SEED).scalar())
    input_rng = DeterministicRandom(b"shuffle vector input")
    small = [encrypt(y, card_point(c), input_rng.scalar()) for c in SMALL_CARDS]
    return {
        "shuffle_generators.json": {
            "description": "H_j = hash_to_point(dst, j as 2 bytes big-endian), j = 0..77",
            "dst": "tarot-p2p/shuffle/generator/v1",
            "generators": [point_to_bytes(commitment_generator(j)).hex() for j in range(78)],
        },
        "shuffle_4.json": _vector(
            y,
            small,
            seed=b"shuffle vector 4",
            description=(
                "4 cards (0, 21, 56, 77) encrypted under Y with r drawn by "
                "DeterministicRandom('shuffle vector input').scalar() in that order"
            ),
        ),
        "shuffle_78.json": _vector(
            y,
            initial_deck(y),
            seed=b"shuffle vector 78",
            description="the initial deck (G, M_c + Y) shuffled by the first seat",
        ),
    }


def _vector(y: Point, deck: list[Ciphertext], *, seed: bytes, description: str) -> Json:
    ctx = ProofContext(table_id=TABLE_ID, hand=3, phase="shuffle", seat=len(deck) % 4)
    out, proof = shuffle_and_prove(y, deck, ctx, DeterministicRandom(seed))
    u = shuffle_challenges(y, deck, out, proof.commitments, ctx)
    return {
        "description": description,
        "key_seed": KEY_SEED.hex(),
        "y": point_to_bytes(y).hex(),
        "seed": seed.hex(),
        "context": context_json(ctx),
        "n": len(deck),
        "deck_in": [c.to_bytes().hex() for c in deck],
        "permutation": DeterministicRandom(seed).permutation(len(deck)),
        "deck_out": [c.to_bytes().hex() for c in out],
        "u": [scalar_to_bytes(k).hex() for k in u],
        "proof": proof.to_bytes().hex(),
    }
