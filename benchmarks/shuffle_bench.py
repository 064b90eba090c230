"""Benchmark of the verifiable shuffle: shuffle+prove and verify, 78 cards and a 24-card subset.

Run from the repository root: ``python3 benchmarks/shuffle_bench.py [--runs N] [--json]``.
Prints the minimum and median over the runs (the machine may be shared: the minimum is the
better estimate of the cost, the median of what a player sees), the one-off cost of the
precomputed tables, and the byte sizes of a shuffled deck and of its proof.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import time
from collections.abc import Callable
from typing import TypeVar

from tarot_p2p.crypto import verified
from tarot_p2p.crypto.deck import initial_deck
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import base_mul
from tarot_p2p.crypto.randomness import SecretsRandom
from tarot_p2p.crypto.shuffle import (
    precompute_tables,
    proof_size,
    shuffle_and_prove,
    verify_shuffle,
)

GOAL_MS = 20.0


T = TypeVar("T")


def _timed(action: Callable[[], T]) -> tuple[float, T]:
    """Milliseconds taken by ``action()``, and its result."""
    start = time.perf_counter()
    result = action()
    return (time.perf_counter() - start) * 1000, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args()
    # Each proof is verified in full: a proof made in this process is otherwise taken
    # from memory (tarot_p2p.crypto.verified), as the seats of one program do.
    verified.set_size(0)

    rng = SecretsRandom()
    y = base_mul(rng.scalar())
    ctx = ProofContext(table_id=b"bench", hand=1, phase="shuffle", seat=0)
    deck = initial_deck(y)

    tables, _ = _timed(precompute_tables)  # G and H_0..H_77, once per process
    # The first shuffle's input has G as every first component: merged into one product.
    prove_first, verify_first = [], []
    for _ in range(args.runs):
        ms, (first, first_proof) = _timed(functools.partial(shuffle_and_prove, y, deck, ctx, rng))
        prove_first.append(ms)
        ms, _ = _timed(functools.partial(verify_shuffle, y, deck, first, first_proof, ctx))
        verify_first.append(ms)

    figures: dict[str, object] = {
        "runs": args.runs,
        "precompute_tables_ms": round(tables, 1),
        "shuffle_prove_78_of_initial_deck_ms": _stats(prove_first),
        "verify_78_of_initial_deck_ms": _stats(verify_first),
    }
    for label, n in (("78", 78), ("24", 24)):
        prove, verify = [], []
        current = first[:n]
        for _ in range(args.runs):
            ms, (out, proof) = _timed(functools.partial(shuffle_and_prove, y, current, ctx, rng))
            prove.append(ms)
            ms, _ = _timed(functools.partial(verify_shuffle, y, current, out, proof, ctx))
            verify.append(ms)
            current = out  # the next run shuffles this output, as the next peer would
        figures[f"shuffle_prove_{label}_ms"] = _stats(prove)
        figures[f"verify_{label}_ms"] = _stats(verify)
    figures["deck_bytes_78"] = 78 * 66
    figures["proof_bytes_78"] = proof_size(78)
    figures["proof_bytes_24"] = proof_size(24)

    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
        return
    print(f"runs per figure: {args.runs} (minimum / median, ms; goal <= {GOAL_MS:.0f} ms)")
    print(f"table precomputation (once per process): {tables:8.1f} ms")
    keys = (
        "shuffle_prove_78",
        "verify_78",
        "shuffle_prove_78_of_initial_deck",
        "verify_78_of_initial_deck",
    )
    for key in (*keys, "shuffle_prove_24", "verify_24"):
        s = figures[f"{key}_ms"]
        assert isinstance(s, dict)
        print(f"{key:<33} min {s['min']:7.2f}   median {s['median']:7.2f}")
    print(f"78-card shuffled deck: {78 * 66} bytes; its proof: {proof_size(78)} bytes")
    print(f"24-card subset proof: {proof_size(24)} bytes")


def _stats(samples: list[float]) -> dict[str, float]:
    return {"min": round(min(samples), 3), "median": round(statistics.median(samples), 3)}


if __name__ == "__main__":
    main()
