"""crypto_decryption_shares.json and crypto_opening.json say where their ciphertexts come
from and which secret keys made their shares: both are recomputed here from the other
vectors, with secp256k1 arithmetic written from crypto.md (not the library's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

P = 2**256 - 2**32 - 977
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
G = (
    0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798,
    0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8,
)
VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
Pt = tuple[int, int] | None


def add(p: Pt, q: Pt) -> Pt:
    if p is None:
        return q
    if q is None:
        return p
    if p[0] == q[0] and (p[1] + q[1]) % P == 0:
        return None
    if p == q:
        slope = 3 * p[0] * p[0] * pow(2 * p[1], -1, P)
    else:
        slope = (q[1] - p[1]) * pow(q[0] - p[0], -1, P)
    x = (slope * slope - p[0] - q[0]) % P
    return x, (slope * (p[0] - x) - p[1]) % P


def mul(p: Pt, k: int) -> Pt:
    out: Pt = None
    while k:
        if k & 1:
            out = add(out, p)
        p, k = add(p, p), k >> 1
    return out


def parse(data: str) -> Pt:
    raw = bytes.fromhex(data)
    x = int.from_bytes(raw[1:], "big")
    y = pow((x**3 + 7) % P, (P + 1) // 4, P)
    return x, y if y % 2 == raw[0] - 2 else P - y


def enc(p: Pt) -> str:
    assert p is not None
    return (bytes([2 + p[1] % 2]) + p[0].to_bytes(32, "big")).hex()


def load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def stand_in(y: Pt, position: int, scalar: str) -> str:
    """Position ``position`` of the initial deck, re-masked with ``scalar`` (crypto.md §6)."""
    ct = load("crypto_initial_deck.json")["deck"][position]
    a, b = parse(ct[:66]), parse(ct[66:])
    s = int(scalar, 16)
    return enc(add(a, mul(G, s))) + enc(add(b, mul(y, s)))


def test_decryption_share_cases_from_their_sources() -> None:
    keys = load("crypto_key_shares.json")
    y = parse(keys["joint_key"])
    vector = load("crypto_decryption_shares.json")
    for case in vector["cases"]:
        seat = keys["seats"][case["seat"]]
        assert (case["x"], case["y"]) == (seat["x"], seat["y"])
        assert enc(mul(G, int(case["x"], 16))) == case["y"]
        for position, scalar, ct, share in zip(
            case["positions"],
            case["remask_scalars"],
            case["ciphertexts"],
            case["shares"],
            strict=True,
        ):
            assert stand_in(y, position, scalar) == ct
            assert enc(mul(parse(ct[:66]), int(case["x"], 16))) == share


def test_opening_from_its_sources() -> None:
    keys = load("crypto_key_shares.json")
    y = parse(keys["joint_key"])
    opening = load("crypto_opening.json")
    ct = opening["ciphertext"]
    assert stand_in(y, opening["position"], opening["remask_scalar"]) == ct
    total: Pt = None
    for entry in opening["published"]:
        assert entry["x"] == keys["seats"][entry["seat"]]["x"]
        share = mul(parse(ct[:66]), int(entry["x"], 16))
        assert enc(share) == entry["share"]
        total = add(total, share)
    assert total is not None
    card = add(parse(ct[66:]), (total[0], P - total[1]))
    assert enc(card) == opening["card_point"]
    assert load("crypto_hash_to_point.json")["cards"][opening["card"]] == opening["card_point"]
