"""Timings of the crypto layer: key shares, decryption shares, and a whole 4-peer deal.

Run: ``python3 benchmarks/crypto_bench.py`` (``--json`` for machine output, ``--quick`` for
fewer repetitions). Figures are the best of several runs, single-threaded, so they show the
cost on one core; on a shared machine they are noisy — compare runs, not single numbers.

The deal is simulated in one process, all four peers' work one after the other: the key
shares (each peer verifies the three others), four proven shuffles (each verified by the
three other peers), every card opened to its owner (each peer publishes one batch of
shares for the 54 cards of the others, verified by the three other peers), and the chien
opened to all (one batch of 6 per peer, verified by the three others); then each peer
recovers its 18 cards and the chien.
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from collections.abc import Callable

from tarot_p2p.crypto.deck import initial_deck
from tarot_p2p.crypto.elgamal import Ciphertext, remask
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    repeat, number = (3, 50) if args.quick else (7, 300)
    figures: dict[str, float] = bench_primitives(repeat, number)
    cold = simulate_deal()  # builds the one-off fixed-base tables (generators of the shuffle)
    figures["deal_first_total_s"] = cold["deal_total_s"]
    warm = [simulate_deal() for _ in range(1 if args.quick else 3)]
    for key in cold:
        figures[key] = min(d[key] for d in warm)
    sizes = {"key_share_bytes": KEY_SHARE_BYTES, "share_with_proof_bytes": 33 + PROOF_BYTES}
    if args.json:
        print(json.dumps(figures | sizes, indent=2))
        return 0
    for key, value in figures.items():
        shown = f"{value:8.1f} us" if key.endswith("_us") else f"{value * 1e3:8.1f} ms"
        print(f"{key:34s} {shown}")
    for key, size in sizes.items():
        print(f"{key:34s} {size:8d} B")
    print(f"{'batch_of_m_shares_bytes':34s} 33·m + {PROOF_BYTES}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
