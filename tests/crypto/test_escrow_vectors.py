"""protocol/vectors/escrow_4.json is what the code computes, and what protocol/crypto.md §10
says, value by value, rebuilt here with nothing but hashlib and secp256k1 arithmetic
written from the spec (the points of tests/protocol/test_crypto_source_vectors.py, with a
multiplication in Jacobian coordinates so that the ~60 products take a fraction of a
second), not the library's."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

from tarot_p2p.crypto.escrow import Escrow, check_escrow, complaint_verdict, escrow_context
from tarot_p2p.crypto.escrow_vectors import escrow_vectors
from tarot_p2p.crypto.group import point_from_bytes, scalar_from_bytes
from tests.protocol.test_crypto_source_vectors import G, N, P, Pt, add, enc, parse
from tests.protocol.test_crypto_source_vectors import mul as affine_mul

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
COMPUTED = escrow_vectors()


def _render(content: object) -> bytes:
    spec = importlib.util.spec_from_file_location("generate_crypto", VECTORS / "generate_crypto.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text: str = module.render(content)
    return text.encode("utf-8")


def _load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def test_file_matches_recomputation_byte_for_byte() -> None:
    assert (VECTORS / "escrow_4.json").read_bytes() == _render(COMPUTED["escrow_4.json"])


def test_no_stale_vector_files() -> None:
    assert {p.name for p in VECTORS.glob("escrow_*.json")} == set(COMPUTED)


# ------------------------------------------------------------------ the spec, written out


def mul(p: Pt, k: int) -> Pt:
    """``k·p``: double-and-add in Jacobian coordinates (``a = 0``), one inversion at the end."""
    assert p is not None
    x2, y2 = p
    acc: tuple[int, int, int] | None = None
    for bit in bin(k % N)[2:]:
        if acc is not None:
            acc = _double(acc)
        if bit == "1":
            acc = (x2, y2, 1) if acc is None else _add_affine(acc, x2, y2)
    if acc is None or acc[2] == 0:
        return None
    x, y, z = acc
    zi = pow(z, -1, P)
    return x * zi * zi % P, y * zi * zi * zi % P


def _double(q: tuple[int, int, int]) -> tuple[int, int, int]:
    x, y, z = q
    a, b = x * x % P, y * y % P
    c = b * b % P
    d = 2 * ((x + b) ** 2 - a - c) % P
    e = 3 * a % P
    x3 = (e * e - 2 * d) % P
    return x3, (e * (d - x3) - 8 * c) % P, 2 * y * z % P


def _add_affine(q: tuple[int, int, int], x2: int, y2: int) -> tuple[int, int, int]:
    x1, y1, z1 = q
    zz = z1 * z1 % P
    h = (x2 * zz - x1) % P
    r = (y2 * z1 * zz - y1) % P
    if h == 0:
        return _double(q) if r == 0 else (1, 1, 0)
    hh = h * h % P
    hhh = h * hh % P
    v = x1 * hh % P
    x3 = (r * r - hhh - 2 * v) % P
    return x3, (r * (v - x3) - y1 * hhh) % P, z1 * h % P


def test_jacobian_multiplication_agrees_with_the_affine_one() -> None:
    for k in (1, 2, 3, 0xC0FFEE, N - 1):
        assert mul(G, k) == affine_mul(G, k)
    assert mul(G, N) is None


class Drbg:
    """crypto.md §3: SHA-256 in counter mode, randbelow by rejection, scalar()."""

    def __init__(self, seed: bytes) -> None:
        self.prefix = b"tarot-p2p/drbg/v1" + len(seed).to_bytes(4, "big") + seed
        self.counter = 0
        self.buffer = b""

    def take(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self.buffer += hashlib.sha256(self.prefix + self.counter.to_bytes(8, "big")).digest()
            self.counter += 1
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def scalar(self) -> int:
        m = N - 1
        k = (m - 1).bit_length()
        while True:
            v = int.from_bytes(self.take((k + 7) // 8), "big") & ((1 << k) - 1)
            if v < m:
                return 1 + v


def frame(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def context(table_id: bytes, hand: int, owner: int) -> bytes:
    """§4: u16(5) || frame(table_id) || u32(hand) || frame("escrow") || u8(owner)."""
    return (
        (5).to_bytes(2, "big")
        + frame(table_id)
        + hand.to_bytes(4, "big")
        + frame(b"escrow")
        + bytes([owner])
    )


def pad(ctx: bytes, holder: int, big_e: Pt, big_r: Pt, shared: Pt) -> int:
    """§10.2, the challenge written out."""
    parts = [bytes([holder]), *(bytes.fromhex(enc(p)) for p in (big_e, big_r, shared))]
    h = hashlib.sha512(frame(b"tarot-p2p/fs/v1") + frame(b"tarot-p2p/escrow-pad/v1") + frame(ctx))
    for part in parts:
        h.update(frame(part))
    return int.from_bytes(h.digest(), "big") % N


def unseal(ctx: bytes, holder: int, e: int, big_e: Pt, big_r: Pt, sealed: int) -> int:
    """§10.4: ``(c − pad) mod n`` with ``K = e·R``."""
    return (sealed - pad(ctx, holder, big_e, big_r, mul(big_r, e))) % N


def verdict(ctx: bytes, owner: int, holder: int, e: int, big_e: Pt, escrow: str) -> int:
    """§10.5, step by step (four seats)."""
    if e % N == 0 or mul(G, e) != big_e:
        return holder
    k = [j for j in range(4) if j != owner].index(holder)
    big_r = parse(escrow[:66])
    at = 66 + 130 * k
    a = unseal(ctx, holder, e, big_e, big_r, int(escrow[at + 66 : at + 130], 16))
    return holder if a != 0 and enc(mul(G, a)) == escrow[at : at + 66] else owner


def test_every_value_follows_from_the_spec() -> None:
    v = _load("escrow_4.json")
    keys = _load("crypto_key_shares.json")
    table_id, hand, seats = bytes.fromhex(v["table_id"]), v["hand"], v["seats"]
    assert (v["table_id"], hand, seats) == (keys["table_id"], keys["hand"], len(keys["seats"]))
    assert (v["label"], v["phase"]) == ("tarot-p2p/escrow-pad/v1", "escrow")

    es, big_es = [], []
    for s, entry in enumerate(v["escrow_keys"]):
        seed = f"escrow key seat {s}".encode("ascii")
        assert (entry["seat"], entry["seed"]) == (s, seed.hex())
        e = Drbg(seed).scalar()
        es.append(e)
        big_es.append(mul(G, e))
        assert (entry["e"], entry["E"]) == (f"{e:064x}", enc(big_es[s]))

    for owner, case in enumerate(v["escrows"]):
        seed = f"escrow seat {owner}".encode("ascii")
        ctx = context(table_id, hand, owner)
        x = int(keys["seats"][owner]["x"], 16)
        assert (case["owner"], case["seed"], case["context"]["encoding"]) == (
            owner,
            seed.hex(),
            ctx.hex(),
        )
        assert (case["x"], case["y"]) == (f"{x:064x}", keys["seats"][owner]["y"])
        rng = Drbg(seed)
        pieces = [rng.scalar() for _ in range(seats - 2)]
        pieces.append((x - sum(pieces)) % N)
        r = rng.scalar()
        big_r = mul(G, r)
        assert (case["r"], case["R"]) == (f"{r:064x}", enc(big_r))
        escrow = enc(big_r)
        commitments: Pt = None
        holders = [j for j in range(seats) if j != owner]
        for j, a, entry in zip(holders, pieces, case["holders"], strict=True):
            shared = mul(big_es[j], r)
            p = pad(ctx, j, big_es[j], big_r, shared)
            c = (a + p) % N
            expected = {
                "holder": j,
                "piece_a": f"{a:064x}",
                "commitment_A": enc(mul(G, a)),
                "shared_K": enc(shared),
                "pad": f"{p:064x}",
                "sealed_c": f"{c:064x}",
            }
            assert entry == expected
            assert mul(big_r, es[j]) == shared  # the holder finds the same K
            assert unseal(ctx, j, es[j], big_es[j], big_r, c) == a
            escrow += enc(mul(G, a)) + f"{c:064x}"
            commitments = add(commitments, mul(G, a))
        assert case["escrow"] == escrow
        assert commitments is not None and enc(commitments) == case["y"]  # §10.3

    bad_owner, bad_holder = 1, 2
    good = v["escrows"][bad_owner]["escrow"]
    at = 66 + 130 * [j for j in range(seats) if j != bad_owner].index(bad_holder) + 66
    bad = good[:at] + f"{(int(good[at : at + 64], 16) + 1) % N:064x}" + good[at + 64 :]
    sources = [(bad_owner, bad, 2, 2), (0, v["escrows"][0]["escrow"], 3, 3), (1, bad, 2, 3)]
    for complaint, (owner, escrow, holder, revealed) in zip(v["complaints"], sources, strict=True):
        ctx = context(table_id, hand, owner)
        assert (complaint["owner"], complaint["holder"]) == (owner, holder)
        assert (complaint["escrow"], complaint["revealed_e"]) == (escrow, f"{es[revealed]:064x}")
        expected = verdict(ctx, owner, holder, es[revealed], big_es[holder], escrow)
        assert complaint["verdict"] == expected
        if revealed == holder:
            k = [j for j in range(seats) if j != owner].index(holder)
            sealed = int(escrow[66 + 130 * k + 66 : 66 + 130 * k + 130], 16)
            a = unseal(ctx, holder, es[holder], big_es[holder], parse(escrow[:66]), sealed)
            assert complaint["unsealed_a"] == f"{a:064x}"
        else:
            assert complaint["unsealed_a"] is None
    assert [c["verdict"] for c in v["complaints"]] == [1, 3, 2]

    release = v["release"]
    absent = release["owner"]
    released = {e["holder"]: int(e["piece_a"], 16) for e in release["pieces"]}
    assert sorted(released) == [j for j in range(seats) if j != absent]
    for entry in v["escrows"][absent]["holders"]:
        assert released[entry["holder"]] == int(entry["piece_a"], 16)
        assert enc(mul(G, released[entry["holder"]])) == entry["commitment_A"]  # §10.6
    x = sum(released.values()) % N
    assert release["x"] == f"{x:064x}" == keys["seats"][absent]["x"]
    assert release["y"] == enc(mul(G, x)) == keys["seats"][absent]["y"]


def test_vector_checks_with_the_library_from_bytes() -> None:
    v = _load("escrow_4.json")
    table_id = bytes.fromhex(v["table_id"])
    for case in v["escrows"]:
        escrow = Escrow.from_bytes(bytes.fromhex(case["escrow"]), v["seats"])
        check_escrow(escrow, point_from_bytes(bytes.fromhex(case["y"])), v["seats"])
    for complaint in v["complaints"]:
        escrow = Escrow.from_bytes(bytes.fromhex(complaint["escrow"]), v["seats"])
        e = scalar_from_bytes(bytes.fromhex(complaint["revealed_e"]), nonzero=True)
        big_e = point_from_bytes(bytes.fromhex(v["escrow_keys"][complaint["holder"]]["E"]))
        ctx = escrow_context(table_id, v["hand"], complaint["owner"])
        assert complaint_verdict(e, complaint["holder"], escrow, ctx, big_e) == complaint["verdict"]
