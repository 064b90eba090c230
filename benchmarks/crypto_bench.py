"""Timings of the crypto layer: key shares, decryption shares, a whole 4-peer deal, and the
key escrow at 3, 4 and 5 seats.

Run: ``python3 benchmarks/crypto_bench.py`` (``--json`` for machine output, ``--quick`` for
fewer repetitions). Figures are the best of several runs, single-threaded, so they show the
cost on one core; on a shared machine they are noisy — compare runs, not single numbers.
``--escrow`` prints only the escrow's figures, set against the cost of a whole hand played
today through the protocol stack (``hand_bench.py``, one hand per table size).

The deal is simulated in one process, all four peers' work one after the other: the key
shares (each peer verifies the three others), four proven shuffles (each verified by the
three other peers), every card opened to its owner (each peer publishes one batch of
shares for the 54 cards of the others, verified by the three other peers), and the chien
opened to all (one batch of 6 per peer, verified by the three others); then each peer
recovers its 18 cards and the chien.

The escrow (``protocol/crypto.md`` §10), per hand and per peer: making its own escrow,
checking the sum of each other seat's and opening the piece each other seat sealed to it;
its bytes are those of the messages proposed to carry it (the escrow key ``e`` in ``key``,
one ``escrow`` message per seat), sealed as real envelopes. Releasing an absent seat's key
(per absence, not per hand): checking its ``N − 1`` pieces and adding them up.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib.util
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto import verified
from tarot_p2p.crypto.deck import initial_deck
from tarot_p2p.crypto.elgamal import Ciphertext, remask
from tarot_p2p.crypto.escrow import (
    check_escrow,
    check_release,
    escrow_context,
    make_escrow,
    make_escrow_key,
    open_piece,
    rebuild_key,
)
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import Point, base_mul, mul, mul_add_base, mul_secret
from tarot_p2p.crypto.keys import (
    KEY_SHARE_BYTES,
    joint_key,
    key_context,
    make_key_share,
    verify_key,
)
from tarot_p2p.crypto.multiexp import linear_combination
from tarot_p2p.crypto.randomness import SecretsRandom
from tarot_p2p.crypto.shares import (
    decryption_share,
    prove_shares,
    recover_card,
    verify_shares,
)
from tarot_p2p.crypto.sigma import PROOF_BYTES
from tarot_p2p.protocol.envelope import seal

TABLE = b"benchmark table"
SEATS = 4
CHIEN = -1
# The FFT 4-player pattern with dealer 3 (tarot_p2p/rules/deal.py); crypto does not import
# rules, so the bench carries its own copy: packets of 3 from seat 0, chien after packets
# 3, 6, 10, 13, 17, 20.
CHIEN_AFTER = (3, 6, 10, 13, 17, 20)


def deal_owners() -> list[int]:
    owners: list[int] = []
    for packet in range(1, 25):
        owners += [(packet - 1) % SEATS] * 3
        owners += [CHIEN] * CHIEN_AFTER.count(packet)
    return owners


def best_of(fn: Callable[[], object], repeat: int, number: int) -> float:
    """Seconds per call, best of ``repeat`` runs of ``number`` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def bench_primitives(repeat: int, number: int) -> dict[str, float]:
    rng = SecretsRandom()
    figures: dict[str, float] = {}

    def us(fn: Callable[[], object], n: int = number) -> float:
        return best_of(fn, repeat, n) * 1e6

    x = rng.scalar()
    p = base_mul(rng.scalar())
    figures["coincurve_base_mul_us"] = us(lambda: base_mul(x))
    figures["coincurve_var_mul_us"] = us(lambda: mul(p, x))
    figures["const_time_mul_us"] = us(lambda: mul_secret(p, x))
    figures["mul_add_base_us"] = us(lambda: mul_add_base(p, x, x))
    figures["two_mul_sum_us"] = us(lambda: linear_combination([(p, x), (p, x + 1)]))

    ctx = key_context(TABLE, 1, 0)
    _, share = make_key_share(ctx, rng)
    figures["key_share_make_us"] = us(lambda: make_key_share(ctx, rng))
    figures["key_share_verify_us"] = us(lambda: verify_key(share, ctx))

    xs = [rng.scalar() for _ in range(SEATS)]
    y = base_mul(sum(xs))
    deck = [remask(y, ct, rng.scalar()) for ct in initial_deck(y)]
    sctx = ProofContext(TABLE, 1, "shares", 1)
    y1 = base_mul(xs[1])
    one = deck[:1]
    d1, pr1 = prove_shares(xs[1], one, sctx, rng)
    figures["share_make_us"] = us(lambda: prove_shares(xs[1], one, sctx, rng))
    figures["share_verify_us"] = us(lambda: verify_shares(y1, one, d1, pr1, sctx))
    # The group operations a share needs, without hashing, encoding or Python glue:
    # make = x·G, x·a, k·G, k·a; verify = z·G − c·Y_i, then z·a − c·D.
    floor_make = 2 * figures["coincurve_base_mul_us"] + 2 * figures["const_time_mul_us"]
    floor_verify = figures["mul_add_base_us"] + figures["two_mul_sum_us"]
    figures["share_make_overhead_us"] = figures["share_make_us"] - floor_make
    figures["share_verify_overhead_us"] = figures["share_verify_us"] - floor_verify
    for m in (6, 18, 54, 78):
        batch = deck[:m]
        dm, prm = prove_shares(xs[1], batch, sctx, rng)
        n = max(1, number // m)
        make = us(functools.partial(prove_shares, xs[1], batch, sctx, rng), n)
        check = us(functools.partial(verify_shares, y1, batch, dm, prm, sctx), n)
        figures[f"batch{m}_make_per_share_us"] = make / m
        figures[f"batch{m}_verify_per_share_us"] = check / m
    shares = [decryption_share(xi, deck[0]) for xi in xs]
    figures["recover_card_us"] = us(lambda: recover_card(deck[0], shares))
    return figures


def simulate_deal() -> dict[str, float]:
    """One 4-peer deal; seconds per phase, all peers' work added up."""
    from tarot_p2p.crypto.shuffle import shuffle_and_prove, verify_shuffle

    rng = SecretsRandom()
    hand = 1
    t: dict[str, float] = {}
    start = time.perf_counter()
    pairs = [make_key_share(key_context(TABLE, hand, s), rng) for s in range(SEATS)]
    secrets = [x for x, _ in pairs]
    key_shares = [k for _, k in pairs]
    keys = [joint_key(TABLE, hand, key_shares) for _ in range(SEATS)]  # every peer checks all
    y = keys[0]
    t["deal_keys_s"] = time.perf_counter() - start

    start = time.perf_counter()
    deck: list[Ciphertext] = initial_deck(y)
    for s in range(SEATS):
        ctx = ProofContext(TABLE, hand, "shuffle", s)
        out, shuffle_proof = shuffle_and_prove(y, deck, ctx, rng)
        for _verifier in range(SEATS - 1):
            verify_shuffle(y, deck, out, shuffle_proof, ctx)
        deck = out
    t["deal_shuffles_s"] = time.perf_counter() - start

    owners = deal_owners()
    start = time.perf_counter()
    published: dict[tuple[int, int], Point] = {}
    for s in range(SEATS):
        slots = [p for p, o in enumerate(owners) if o not in (s, CHIEN)]
        ctx = ProofContext(TABLE, hand, "shares", s)
        cts = [deck[p] for p in slots]
        ds, proof = prove_shares(secrets[s], cts, ctx, rng)
        for _verifier in range(SEATS - 1):
            verify_shares(key_shares[s].y, cts, ds, proof, ctx)
        published.update({(s, p): d for p, d in zip(slots, ds, strict=True)})
    for p, o in enumerate(owners):
        if o != CHIEN:
            own = decryption_share(secrets[o], deck[p])
            others = [published[(s, p)] for s in range(SEATS) if s != o]
            recover_card(deck[p], [*others, own])
    t["deal_open_to_owners_s"] = time.perf_counter() - start

    start = time.perf_counter()
    chien = [p for p, o in enumerate(owners) if o == CHIEN]
    chien_shares = []
    for s in range(SEATS):
        ctx = ProofContext(TABLE, hand, "shares", s)
        cts = [deck[p] for p in chien]
        ds, proof = prove_shares(secrets[s], cts, ctx, rng)
        for _verifier in range(SEATS - 1):
            verify_shares(key_shares[s].y, cts, ds, proof, ctx)
        chien_shares.append(ds)
    for _peer in range(SEATS):
        for i, p in enumerate(chien):
            recover_card(deck[p], [ds[i] for ds in chien_shares])
    t["deal_open_chien_s"] = time.perf_counter() - start
    t["deal_total_s"] = sum(t.values())
    return t


def bench_escrow(seats: int, repeat: int, number: int) -> dict[str, float]:
    """One hand's escrow at ``seats`` seats: microseconds per peer, bytes for the table."""
    rng = SecretsRandom()
    xs = [rng.scalar() for _ in range(seats)]
    ys = [base_mul(x) for x in xs]
    pairs = [make_escrow_key(rng) for _ in range(seats)]
    big_es = [big_e for _, big_e in pairs]
    ctxs = [escrow_context(TABLE, 1, i) for i in range(seats)]
    escrows = [make_escrow(xs[i], ctxs[i], big_es, rng) for i in range(seats)]
    pieces = [open_piece(pairs[j][0], j, escrows[0], ctxs[0]) for j in range(1, seats)]

    def us(fn: Callable[[], object]) -> float:
        return best_of(fn, repeat, number) * 1e6

    make = us(lambda: make_escrow(xs[0], ctxs[0], big_es, rng))
    check = us(lambda: check_escrow(escrows[0], ys[0], seats))
    unseal = us(lambda: open_piece(pairs[1][0], 1, escrows[0], ctxs[0]))
    release = us(lambda: rebuild_key(escrows[0], 0, pieces))
    per_hand = escrow_wire_bytes(seats, escrows[0].to_bytes())
    return {
        f"escrow{seats}_make_us": make,
        f"escrow{seats}_check_sum_us": check,
        f"escrow{seats}_open_piece_us": unseal,
        f"escrow{seats}_per_peer_hand_us": make + (seats - 1) * (check + unseal),
        f"escrow{seats}_release_per_absence_us": release,
        f"escrow{seats}_check_one_release_us": us(
            lambda: check_release(pieces[0], 1, escrows[0], 0)
        ),
        f"escrow{seats}_bytes_per_hand": per_hand,
        f"escrow{seats}_release_bytes_per_absence": (seats - 1)
        * _envelope_bytes("release", {"piece": bytes(32)}),
    }


def escrow_wire_bytes(seats: int, escrow: bytes) -> int:
    """Envelope bytes the escrow adds to a hand: ``e`` in each ``key``, one ``escrow`` each."""
    key = {"y": bytes(33), "pok": bytes(64)}
    grown = _envelope_bytes("key", key | {"e": bytes(33)}) - _envelope_bytes("key", key)
    return seats * (grown + _envelope_bytes("escrow", {"pieces": escrow}))


_IDENTITY = Ed25519PrivateKey.generate()


def _envelope_bytes(kind: str, body: dict[str, Any]) -> int:
    """Wire bytes of one signed envelope of ``kind`` in hand 1 (fixed-size fields)."""
    envelope = seal(
        _IDENTITY,
        table_id=hashlib.sha256(TABLE).digest(),
        hand=1,
        seq=5,
        seat=2,
        prev=bytes(32),
        kind=kind,
        body=body,
    )
    return len(envelope.wire)


def escrow_vs_hand(figures: dict[str, float]) -> dict[str, float]:
    """The escrow's cost next to a hand played today (``hand_bench.run``, one hand)."""
    path = Path(__file__).with_name("hand_bench.py")
    spec = importlib.util.spec_from_file_location("hand_bench", path)
    assert spec is not None and spec.loader is not None
    hand_bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hand_bench)
    out: dict[str, float] = {}
    for seats in (3, 4, 5):
        hand = hand_bench.run(seats, 1)
        per_peer_s = sum(hand["hand_s_per_peer"][0]) / seats
        out[f"hand{seats}_s_per_peer"] = per_peer_s
        out[f"hand{seats}_bytes"] = hand["hand_bytes"][0]
        escrow_s = figures[f"escrow{seats}_per_peer_hand_us"] / 1e6
        out[f"escrow{seats}_time_vs_hand_pct"] = 100 * escrow_s / per_peer_s
        escrow_b = figures[f"escrow{seats}_bytes_per_hand"]
        out[f"escrow{seats}_bytes_vs_hand_pct"] = 100 * escrow_b / hand["hand_bytes"][0]
    return out


def show(figures: dict[str, float]) -> None:
    for key, value in figures.items():
        if key.endswith("_us"):
            shown = f"{value:8.1f} us"
        elif key.endswith("_pct"):
            shown = f"{value:8.2f} %"
        elif "bytes" in key:
            shown = f"{value:8.0f} B"
        else:
            shown = f"{value * 1e3:8.1f} ms"
        print(f"{key:40s} {shown}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument(
        "--escrow", action="store_true", help="only the escrow, next to a whole hand's cost"
    )
    args = parser.parse_args()
    verified.set_size(0)  # the same proof is checked many times: each time in full
    repeat, number = (3, 50) if args.quick else (7, 300)
    escrow: dict[str, float] = {}
    for seats in (3, 4, 5):
        escrow |= bench_escrow(seats, repeat, number // 3)
    if args.escrow:
        figures = escrow | escrow_vs_hand(escrow)
        if args.json:
            print(json.dumps(figures, indent=2))
        else:
            show(figures)
        return 0
    figures = bench_primitives(repeat, number)
    cold = simulate_deal()  # builds the one-off fixed-base tables (generators of the shuffle)
    figures["deal_first_total_s"] = cold["deal_total_s"]
    warm = [simulate_deal() for _ in range(1 if args.quick else 3)]
    for key in cold:
        figures[key] = min(d[key] for d in warm)
    figures |= escrow
    sizes = {"key_share_bytes": KEY_SHARE_BYTES, "share_with_proof_bytes": 33 + PROOF_BYTES}
    if args.json:
        print(json.dumps(figures | sizes, indent=2))
        return 0
    show(figures | sizes)
    print(f"{'batch_of_m_shares_bytes':40s} 33·m + {PROOF_BYTES}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
