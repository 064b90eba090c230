"""Level against level on the rules engine alone, with duplicate deals.

Why duplicate deals: the cards decide most of a Tarot score. Each deal is replayed with the
levels seated in every arrangement of a fixed pattern (A B A B ... and its complement,
rotated round the table), so each level holds every hand of the deal equally often and
the luck of the cards cancels out of the comparison.

Figures, per level and per table size:

* mean score per deal and seat, with its 95% confidence interval (the deal is the sample
  unit: one number per deal, the mean over the seats that level held in that deal);
* the margin of each pairing (A's mean minus B's, per deal) with its 95% interval;
* contracts taken and made;
* decision time, median and 99th percentile, over decisions with a real choice (more than
  one legal action).

Goals at four players (issue 11): ``club`` beats ``easy`` and ``strong`` beats ``club``,
each margin's interval excluding 0; ``strong`` makes at least 75% of the contracts it
takes; its median decision at most 1 s at the default budget.

``--calibrate`` instead plays hands with one seat forced to each contract (the others
pass, every seat ``club``) and prints, per band of :func:`tarot_p2p.bots.club.evaluate`,
the taker's mean score per contract: where each contract starts paying more than the one
below it is the threshold ``club`` bids with.

Usage: ``python3 benchmarks/bot_tournament.py --players 4 --deals 200 --think 0.02 --json``
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tarot_p2p.bots import Bot, Level, club
from tarot_p2p.rules.actions import BIDS
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.scoring import explain_hand
from tarot_p2p.rules.state import Phase, State, new_hand

PAIRS = ((Level.EASY, Level.CLUB), (Level.CLUB, Level.STRONG), (Level.EASY, Level.STRONG))


@dataclass
class LevelStats:
    per_deal: list[float] = field(default_factory=list)
    taken: int = 0
    made: int = 0
    times: list[float] = field(default_factory=list)


def seatings(players: int, a: Level, b: Level) -> list[tuple[Level, ...]]:
    """The distinct rotations of A B A B ... and of its complement: each level holds each
    hand of the deal equally often. (Adding A A B B ... at four players cost 1.6 times the
    games for the same width of interval, so it is not played.)"""
    pattern = [a if i % 2 == 0 else b for i in range(players)]
    out: list[tuple[Level, ...]] = []
    for p in (pattern, [b if x == a else a for x in pattern]):
        for r in range(players):
            seating = tuple(p[r:] + p[:r])
            if seating not in out:
                out.append(seating)
    return out


def play(
    config: TableConfig,
    dealer: int,
    deck: Sequence[int],
    bots: Sequence[Bot],
    times: Sequence[list[float]],
) -> State:
    state = new_hand(config, dealer, deck)
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        start = time.perf_counter()
        action = bots[seat].choose(state.observation(seat), legal)
        if len(legal) > 1:
            times[seat].append(time.perf_counter() - start)
        state.apply_action(action)
    return state


def ci95(values: Sequence[float]) -> tuple[float, float]:
    """Mean and half-width of its 95% interval (normal approximation)."""
    n = len(values)
    mean = statistics.fmean(values) if values else 0.0
    if n < 2:
        return mean, math.inf
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(n)


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def match(
    players: int, a: Level, b: Level, deals: int, think: float, seed: int, deadline: float | None
) -> dict[str, Any]:
    config = TableConfig(players=players)
    rng = random.Random(f"{seed}/{players}/{a}/{b}")
    stats = {a: LevelStats(), b: LevelStats()}
    margins: list[float] = []
    played = 0
    for d in range(deals):
        if deadline is not None and time.monotonic() > deadline:
            break
        deck = list(range(78))
        rng.shuffle(deck)
        dealer = d % players
        sums: dict[Level, list[int]] = {a: [], b: []}
        for seating in seatings(players, a, b):
            bots = [
                Bot(config, lv, seed=f"{seed}/{s}", think=think) for s, lv in enumerate(seating)
            ]
            times: list[list[float]] = [[] for _ in seating]
            state = play(config, dealer, deck, bots, times)
            scores = state.returns()
            for s, lv in enumerate(seating):
                sums[lv].append(scores[s])
                stats[lv].times += times[s]
            outcome = state.outcome()
            if outcome is not None:
                lv = seating[outcome.taker]
                stats[lv].taken += 1
                stats[lv].made += explain_hand(config, outcome).made
        means = {lv: statistics.fmean(v) for lv, v in sums.items()}
        for lv in (a, b):
            stats[lv].per_deal.append(means[lv])
        margins.append(means[b] - means[a])
        played += 1
    out: dict[str, Any] = {"players": players, "levels": [a.value, b.value], "deals": played}
    for lv in (a, b):
        st = stats[lv]
        mean, half = ci95(st.per_deal)
        out[lv.value] = {
            "mean_score": round(mean, 2),
            "ci95": round(half, 2),
            "taken": st.taken,
            "made": st.made,
            "made_share": round(st.made / st.taken, 3) if st.taken else None,
            "decisions": len(st.times),
            "decision_median_ms": round(1000 * statistics.median(st.times), 2)
            if st.times
            else None,
            "decision_p99_ms": round(1000 * percentile(st.times, 0.99), 2),
        }
    mean, half = ci95(margins)
    out["margin"] = {
        "of": f"{b.value} - {a.value}",
        "mean": round(mean, 2),
        "ci95": round(half, 2),
        "excludes_0": mean - half > 0 or mean + half < 0,
    }
    return out


def calibrate(players: int, deals: int, seed: int) -> dict[str, Any]:
    """Mean score of a taker forced to each contract, by evaluation band of his hand."""
    config = TableConfig(players=players)
    rng = random.Random(f"calibrate/{seed}/{players}")
    bands: dict[int, list[list[int]]] = defaultdict(lambda: [[] for _ in range(5)])
    bots = [Bot(config, Level.CLUB, seed=s) for s in range(players)]
    for d in range(deals):
        deck = list(range(78))
        rng.shuffle(deck)
        dealer = d % players
        base = new_hand(config, dealer, deck)
        seat = base.current_player()  # the first to speak takes
        band = club.evaluate(base.hands[seat], players) // 5 * 5
        for contract in range(1, 5):
            state = base.clone()
            try:
                state.apply_action(BIDS[contract])
                while state.phase is Phase.BIDDING:
                    state.apply_action(BIDS[0])
            except ValueError:
                break  # a petit sec: nobody bids
            while not state.is_terminal():
                s = state.current_player()
                state.apply_action(bots[s].choose(state.observation(s), state.legal_actions()))
            bands[band][contract].append(state.returns()[seat])
    table = {}
    for band in sorted(bands):
        rows = bands[band]
        table[band] = {
            "hands": len(rows[1]),
            "mean_by_contract": [round(statistics.fmean(r), 1) if r else None for r in rows[1:]],
        }
    return {"players": players, "deals": deals, "bands": table}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, nargs="+", default=[3, 4, 5], choices=(3, 4, 5))
    p.add_argument("--deals", type=int, default=100, help="duplicate deals per pairing")
    p.add_argument("--think", type=float, default=0.02, help="strong level's seconds per decision")
    p.add_argument(
        "--pairs",
        nargs="+",
        default=[f"{a}-{b}" for a, b in PAIRS[:2]],
        help="pairings to play, e.g. easy-club club-strong",
    )
    p.add_argument("--minutes", type=float, default=None, help="stop each match after this")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--calibrate", action="store_true", help="print the bidding calibration")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.deals < 1 or args.think <= 0:
        print("--deals and --think must be positive", file=sys.stderr)
        return 2
    results: list[dict[str, Any]] = []
    if args.calibrate:
        for n in args.players:
            results.append(calibrate(n, args.deals, args.seed))
            if not args.json:
                print(json.dumps(results[-1], indent=1), flush=True)
    else:
        pairs = []
        for text in args.pairs:
            try:
                a, b = (Level(x) for x in text.split("-"))
            except ValueError:
                print(f"bad pairing {text!r}: write it like club-strong", file=sys.stderr)
                return 2
            pairs.append((a, b))
        for n, (a, b) in itertools.product(args.players, pairs):
            deadline = None if args.minutes is None else time.monotonic() + 60 * args.minutes
            r = match(n, a, b, args.deals, args.think, args.seed, deadline)
            results.append(r)
            if not args.json:
                print(_render(r), flush=True)
    if args.json:
        print(json.dumps({"think": args.think, "results": results}, indent=1))
    return 0


def _render(r: dict[str, Any]) -> str:
    a, b = r["levels"]
    lines = [f"{r['players']} players, {a} vs {b}, {r['deals']} duplicate deals"]
    for lv in (a, b):
        x = r[lv]
        share = f"{100 * x['made_share']:.0f}%" if x["made_share"] is not None else "-"
        lines.append(
            f"  {lv:7s} mean {x['mean_score']:+8.2f} ± {x['ci95']:.2f} per deal; took "
            f"{x['taken']}, made {x['made']} ({share}); decision median "
            f"{x['decision_median_ms']} ms, p99 {x['decision_p99_ms']} ms"
        )
    m = r["margin"]
    lines.append(f"  margin {m['of']}: {m['mean']:+.2f} ± {m['ci95']:.2f}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
