"""Test vectors for the key escrow (``protocol/crypto.md`` §10), computed from fixed seeds.

Why in the library: ``protocol/vectors/escrow_4.json`` must be exactly what this code
computes; the tests recompute it and compare byte for byte, rebuild every value from the
spec's text alone, and ``protocol/vectors/generate_crypto.py`` rewrites it. The four seats'
key shares are those of ``crypto_key_shares.json``; every other random value comes from
:class:`DeterministicRandom` with the seed written in the file, drawn in the spec's order.
"""

from __future__ import annotations

from typing import Any

from tarot_p2p.crypto.escrow import (
    ESCROW_PHASE,
    PAD_LABEL,
    Escrow,
    SealedPiece,
    check_escrow,
    complaint_verdict,
    escrow_context,
    make_escrow,
    make_escrow_key,
    open_piece,
    rebuild_key,
)
from tarot_p2p.crypto.fiat_shamir import challenge
from tarot_p2p.crypto.group import ORDER, Point, Scalar, base_mul, mul, point_to_bytes
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.vectors import (
    HAND,
    SEATS,
    TABLE_ID,
    KeyVectors,
    context_json,
    hex_point,
    hex_scalar,
    key_vectors,
)

Json = dict[str, Any]

BAD_OWNER, BAD_HOLDER = 1, 2
"""The cheating escrow: seat 1 seals seat 2's piece plus one."""
ABSENT = 2
"""The seat whose key is released and rebuilt."""


def escrow_vectors() -> dict[str, Json]:
    """File name (under ``protocol/vectors/``) to its JSON content."""
    keys = key_vectors()
    escrow_keys = [make_escrow_key(DeterministicRandom(_key_seed(s))) for s in range(SEATS)]
    public = [big_e for _, big_e in escrow_keys]
    escrows = [
        make_escrow(
            keys.secrets[owner],
            escrow_context(TABLE_ID, HAND, owner),
            public,
            DeterministicRandom(_escrow_seed(owner)),
        )
        for owner in range(SEATS)
    ]
    for owner, escrow in enumerate(escrows):
        check_escrow(escrow, keys.shares[owner].y, SEATS)
    return {
        "escrow_4.json": {
            "description": (
                "key escrow at four seats (crypto.md §10): each seat's escrow key e is the "
                "first scalar() of DeterministicRandom(seed); each escrow draws, from its "
                "own seed, the pieces of every holder but the last (ascending), then r; x "
                "and y are the seats' key shares of crypto_key_shares.json"
            ),
            "label": PAD_LABEL.decode("ascii"),
            "phase": ESCROW_PHASE,
            "table_id": TABLE_ID.hex(),
            "hand": HAND,
            "seats": SEATS,
            "escrow_keys": [
                {"seat": s, "seed": _key_seed(s).hex(), "e": hex_scalar(e), "E": hex_point(big_e)}
                for s, (e, big_e) in enumerate(escrow_keys)
            ],
            "escrows": [
                _escrow_case(keys, owner, escrow, escrow_keys)
                for owner, escrow in enumerate(escrows)
            ],
            "complaints": _complaints(escrows, escrow_keys),
            "release": _release(escrows[ABSENT], escrow_keys),
        }
    }


def _key_seed(seat: int) -> bytes:
    return f"escrow key seat {seat}".encode("ascii")


def _escrow_seed(owner: int) -> bytes:
    return f"escrow seat {owner}".encode("ascii")


def _holders(owner: int) -> list[int]:
    return [j for j in range(SEATS) if j != owner]


def _escrow_case(
    keys: KeyVectors, owner: int, escrow: Escrow, escrow_keys: list[tuple[Scalar, Point]]
) -> Json:
    rng = DeterministicRandom(_escrow_seed(owner))
    drawn = [rng.scalar() for _ in range(SEATS - 2)]
    r = rng.scalar()
    values = [*drawn, (keys.secrets[owner] - sum(drawn)) % ORDER]
    holders = []
    for holder, value, piece in zip(_holders(owner), values, escrow.pieces, strict=True):
        big_e = escrow_keys[holder][1]
        shared = mul(big_e, r)
        pad = _pad(owner, holder, big_e, escrow.r, shared)
        holders.append(
            {
                "holder": holder,
                "piece_a": hex_scalar(value),
                "commitment_A": hex_point(piece.commitment),
                "shared_K": hex_point(shared),
                "pad": hex_scalar(pad),
                "sealed_c": hex_scalar(piece.sealed),
            }
        )
    return {
        "owner": owner,
        "seed": _escrow_seed(owner).hex(),
        "context": context_json(escrow_context(TABLE_ID, HAND, owner)),
        "x": hex_scalar(keys.secrets[owner]),
        "y": hex_point(keys.shares[owner].y),
        "r": hex_scalar(r),
        "R": hex_point(base_mul(r)),
        "holders": holders,
        "escrow": escrow.to_bytes().hex(),
    }


def _complaints(escrows: list[Escrow], escrow_keys: list[tuple[Scalar, Point]]) -> list[Json]:
    bad = _bad_escrow(escrows[BAD_OWNER])
    cases = [
        ("seat 1 sealed seat 2's piece plus one: a true complaint", BAD_OWNER, bad, 2, 2),
        ("seat 3 complains of seat 0's right escrow: a false complaint", 0, escrows[0], 3, 3),
        ("seat 2 complains of the bad escrow but reveals seat 3's key", BAD_OWNER, bad, 2, 3),
    ]
    out = []
    for description, owner, escrow, holder, revealed in cases:
        ctx = escrow_context(TABLE_ID, HAND, owner)
        e = escrow_keys[revealed][0]
        big_e = escrow_keys[holder][1]
        unsealed = None
        if revealed == holder:  # the key checks out: the piece is unsealed and compared
            piece = escrow.pieces[holder - (holder > owner)]
            pad = _pad(owner, holder, big_e, escrow.r, mul(escrow.r, e))
            unsealed = hex_scalar((piece.sealed - pad) % ORDER)
        out.append(
            {
                "description": description,
                "owner": owner,
                "holder": holder,
                "escrow": escrow.to_bytes().hex(),
                "revealed_e": hex_scalar(e),
                "unsealed_a": unsealed,
                "verdict": complaint_verdict(e, holder, escrow, ctx, big_e),
            }
        )
    return out


def _pad(owner: int, holder: int, big_e: Point, big_r: Point, shared: Point) -> Scalar:
    """``pad_ij``, written out from the spec for the file (the library's is private)."""
    parts = [bytes([holder]), *(point_to_bytes(p) for p in (big_e, big_r, shared))]
    return challenge(PAD_LABEL, escrow_context(TABLE_ID, HAND, owner), *parts)


def _bad_escrow(escrow: Escrow) -> Escrow:
    """Seat ``BAD_OWNER``'s escrow with seat ``BAD_HOLDER``'s sealed value plus one: its
    commitments still add up, but the piece sealed no longer matches its commitment."""
    index = BAD_HOLDER - (BAD_HOLDER > BAD_OWNER)
    pieces = list(escrow.pieces)
    piece = pieces[index]
    pieces[index] = SealedPiece(piece.commitment, (piece.sealed + 1) % ORDER)
    return Escrow(escrow.r, tuple(pieces))


def _release(escrow: Escrow, escrow_keys: list[tuple[Scalar, Point]]) -> Json:
    ctx = escrow_context(TABLE_ID, HAND, ABSENT)
    released = [open_piece(escrow_keys[j][0], j, escrow, ctx) for j in _holders(ABSENT)]
    x = rebuild_key(escrow, ABSENT, released)
    return {
        "description": "seat 2 is absent: every other seat releases its piece; x = sum mod n",
        "owner": ABSENT,
        "pieces": [
            {"holder": j, "piece_a": hex_scalar(a)}
            for j, a in zip(_holders(ABSENT), released, strict=True)
        ],
        "x": hex_scalar(x),
        "y": hex_point(base_mul(x)),
    }
