"""Bots on the rules engine alone: tables of one level, and level against level with
duplicate deals.

Tables (``--levels``): every seat at the same level, per table size. Figures: the share
of deals that everybody passes (the deal is redealt: issue 18 asked for at most 15%), the
share of contracts made, the contracts bid, each share with its 95% interval.

Matches (``--pairs``): why duplicate deals: the cards decide most of a Tarot score. Each
deal is replayed with the levels seated in every arrangement of a fixed pattern (A B A B
... and its complement, rotated round the table), so each level holds every hand of the
deal equally often and the luck of the cards cancels out of the comparison. Figures, per
level and per table size:

* mean score per deal and seat, with its 95% confidence interval (the deal is the sample
  unit: one number per deal, the mean over the seats that level held in that deal);
* the margin of each pairing (A's mean minus B's, per deal) with its 95% interval;
* contracts taken and made, and deals passed by everybody;
* decision time, median and 99th percentile, over decisions with a real choice (more than
  one legal action).

Besides the package's levels a match may seat ``oldclub``: ``club`` bidding as it did
before issue 18 (a frozen copy of that bidding, below; the play is today's ``club``), so
that ``--pairs oldclub-club`` measures what the new bidding wins or loses; and
``oldeasy``, ``easy`` bidding as it did before it took lighter after passes
(``--pairs oldeasy-easy``).

``--calibrate`` instead plays, on each deal, every seat's hand as a forced prise and a
forced garde sans (the others pass, every seat ``club``), fits the count of
:mod:`tarot_p2p.bots.bidding` to the prise scores by least squares, and replays the
bidding on those deals with the package's thresholds and with each threshold moved a
step either way: all-pass share, contracts made, and the duplicate margin against
``oldclub``, so one sees that the chosen thresholds are a local best.

Usage: ``python3 benchmarks/bot_tournament.py --players 3 4 5 --deals 500 --think 0.02``
(add ``--pairs oldclub-club club-strong`` for matches, ``--json`` for machines)
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tarot_p2p.bots import Bot, Level, bidding, easy
from tarot_p2p.rules.actions import BIDS, Action, Bid
from tarot_p2p.rules.cards import (
    EXCUSE,
    OUDLER_MASK,
    PETIT,
    RANK_OF,
    SUIT_MASK,
    TRUMP_MASK,
    TWENTY_ONE,
    CardSet,
    cards_of,
    half_points_of,
)
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import active_seats
from tarot_p2p.rules.scoring import Contract, explain_hand, score_hand
from tarot_p2p.rules.state import IllegalAction, Observation, Phase, State, Void, new_hand

OLD_CLUB = "oldclub"
OLD_EASY = "oldeasy"
CONTRACT_NAMES = ("prise", "garde", "garde_sans", "garde_contre")
NAMES = (*(lv.value for lv in Level), OLD_CLUB, OLD_EASY)
"""What a seat may be: a level of the package, ``club`` with the bidding before issue 18,
or ``easy`` with the bidding before it took lighter after passes."""

# --------------------------------------------------------------- the bidding before

_OLD_THRESHOLDS = {3: (45, 48, 57, 65), 4: (50, 56, 66, 74), 5: (42, 46, 58, 66)}


def old_evaluate(hand: CardSet, players: int) -> int:
    """``club``'s count before issue 18, frozen here to measure the new one against."""
    trumps = (hand & TRUMP_MASK).bit_count()
    score = 10 * (hand >> TWENTY_ONE & 1) + 8 * (hand >> EXCUSE & 1)
    if hand >> PETIT & 1:
        score += (0, 0, 0, 0, 2, 5, 7, 9, 10)[min(trumps, 8)]
    score += 2 * trumps + (2 * (trumps - 4) if trumps >= 5 else 0)
    score += sum(1 for c in cards_of(hand & TRUMP_MASK) if RANK_OF[c] >= 16)
    for suit in range(4):
        cards = hand & SUIT_MASK[suit]
        n = cards.bit_count()
        king = bool(cards >> (suit * 14 + 13) & 1)
        queen = bool(cards >> (suit * 14 + 12) & 1)
        knight = bool(cards >> (suit * 14 + 11) & 1)
        jack = bool(cards >> (suit * 14 + 10) & 1)
        score += 6 * king + (5 if king and queen else 3 * queen) + 2 * knight + jack
        if n == 0:
            score += 6 if trumps >= 4 else 3
        elif n == 1:
            score += 3 if trumps >= 4 else 1
        if n >= 5:
            score += n - 4 + (2 if king else 0)
    size = hand.bit_count()
    return score * 18 // size if size and size != 18 else score


def old_contract(hand: CardSet, players: int) -> int:
    """The contract ``club`` wanted before issue 18 (the same wherever the seat spoke)."""
    value = old_evaluate(hand, players)
    return sum(1 for t in _OLD_THRESHOLDS.get(players, _OLD_THRESHOLDS[4]) if value >= t)


class OldClubBot(Bot):
    """``club`` with the bidding before issue 18."""

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        if len(legal) > 1 and any(isinstance(a, Bid) for a in legal):
            want = old_contract(obs.hand, obs.players)
            bids = [a for a in legal if isinstance(a, Bid) and a.contract <= want]
            return max(bids, key=lambda a: a.contract) if bids else BIDS[0]
        return super().choose(obs, legal)


_OLD_EASY_THRESHOLDS = (44, 58, 72, 82)


class OldEasyBot(Bot):
    """``easy`` bidding as it did before (December 2026): the same count and the same
    thresholds wherever the seat speaks; frozen here to measure the change."""

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        if len(legal) > 1 and any(isinstance(a, Bid) for a in legal):
            strength = easy.hand_strength(obs.hand, obs.players)
            bids = [
                a
                for a in legal
                if isinstance(a, Bid)
                and a.contract
                and strength >= _OLD_EASY_THRESHOLDS[a.contract - 1]
            ]
            return max(bids, key=lambda a: a.contract) if bids else BIDS[0]
        return super().choose(obs, legal)


def make_bot(config: TableConfig, name: str, seed: str, think: float) -> Bot:
    if name == OLD_CLUB:
        return OldClubBot(config, Level.CLUB, seed=seed)
    if name == OLD_EASY:
        return OldEasyBot(config, Level.EASY, seed=seed)
    return Bot(config, Level(name), seed=seed, think=think)


# --------------------------------------------------------------- playing


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


def share(hits: int, n: int) -> dict[str, Any]:
    """``hits`` of ``n`` as a share with its 95% Wilson interval."""
    if not n:
        return {"of": 0, "share": None, "low": None, "high": None}
    p, z = hits / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return {
        "count": hits,
        "of": n,
        "share": round(p, 3),
        "low": round(max(0.0, centre - half), 3),
        "high": round(min(1.0, centre + half), 3),
    }


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def _deck(rng: random.Random) -> list[int]:
    deck = list(range(78))
    rng.shuffle(deck)
    return deck


def table(
    players: int, level: str, deals: int, think: float, seed: int, deadline: float | None
) -> dict[str, Any]:
    """``deals`` deals with every seat at ``level``."""
    config = TableConfig(players=players)
    rng = random.Random(f"table/{seed}/{players}")
    bots = [make_bot(config, level, f"{seed}/{s}", think) for s in range(players)]
    times: list[list[float]] = [[] for _ in range(players)]
    played = all_pass = petit_sec = taken = made = 0
    contracts = [0] * 5
    for d in range(deals):
        if deadline is not None and time.monotonic() > deadline:
            break
        state = play(config, d % players, _deck(rng), bots, times)
        played += 1
        all_pass += state.void is Void.ALL_PASS
        petit_sec += state.void is Void.PETIT_SEC
        outcome = state.outcome()
        if outcome is not None:
            taken += 1
            made += explain_hand(config, outcome).made
            contracts[outcome.contract] += 1
    flat = [t for ts in times for t in ts]
    return {
        "players": players,
        "level": level,
        "deals": played,
        "all_pass": share(all_pass, played),
        "petit_sec": petit_sec,
        "made": share(made, taken),
        "contracts": dict(zip(CONTRACT_NAMES, contracts[1:], strict=True)),
        "decision_median_ms": round(1000 * statistics.median(flat), 2) if flat else None,
        "decision_p99_ms": round(1000 * percentile(flat, 0.99), 2),
    }


@dataclass
class LevelStats:
    per_deal: list[float] = field(default_factory=list)
    taken: int = 0
    made: int = 0
    times: list[float] = field(default_factory=list)


def seatings(players: int, a: str, b: str) -> list[tuple[str, ...]]:
    """The distinct rotations of A B A B ... and of its complement: each level holds each
    hand of the deal equally often. (Adding A A B B ... at four players cost 1.6 times the
    games for the same width of interval, so it is not played.)"""
    pattern = [a if i % 2 == 0 else b for i in range(players)]
    out: list[tuple[str, ...]] = []
    for p in (pattern, [b if x == a else a for x in pattern]):
        for r in range(players):
            seating = tuple(p[r:] + p[:r])
            if seating not in out:
                out.append(seating)
    return out


def match(
    players: int, a: str, b: str, deals: int, think: float, seed: int, deadline: float | None
) -> dict[str, Any]:
    config = TableConfig(players=players)
    rng = random.Random(f"{seed}/{players}/{a}/{b}")
    stats = {a: LevelStats(), b: LevelStats()}
    margins: list[float] = []
    played = all_pass = games = 0
    for d in range(deals):
        if deadline is not None and time.monotonic() > deadline:
            break
        deck = _deck(rng)
        sums: dict[str, list[int]] = {a: [], b: []}
        for seating in seatings(players, a, b):
            bots = [make_bot(config, lv, f"{seed}/{s}", think) for s, lv in enumerate(seating)]
            times: list[list[float]] = [[] for _ in seating]
            state = play(config, d % players, deck, bots, times)
            games += 1
            all_pass += state.void is Void.ALL_PASS
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
    out: dict[str, Any] = {"players": players, "levels": [a, b], "deals": played}
    out["all_pass"] = share(all_pass, games)
    for lv in (a, b):
        st = stats[lv]
        mean, half = ci95(st.per_deal)
        out[lv] = {
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
        "of": f"{b} - {a}",
        "mean": round(mean, 2),
        "ci95": round(half, 2),
        "excludes_0": mean - half > 0 or mean + half < 0,
    }
    return out


# --------------------------------------------------------------- calibration


@dataclass
class _Deal:
    order: tuple[int, ...]
    hands: list[CardSet]
    scores: dict[int, dict[int, tuple[bool, tuple[int, ...]]]]
    """Per seat, per contract: with that seat taking that contract, whether the contract
    was made and every seat's score."""


def _forced(config: TableConfig, base: State, place: int, contract: int, bots: list[Bot]) -> State:
    state = base.clone()
    for _ in range(place):
        state.apply_action(BIDS[0])
    state.apply_action(BIDS[contract])
    while state.phase is Phase.BIDDING:
        state.apply_action(BIDS[0])
    while not state.is_terminal():
        seat = state.current_player()
        state.apply_action(bots[seat].choose(state.observation(seat), state.legal_actions()))
    return state


def _forced_deals(players: int, deals: int, seed: int) -> list[_Deal]:
    """Each deal with each seat taking each contract, the hand played out by ``club``.
    ``club``'s play reads who took which contract, never who bid what, so these scores are
    what any bidding would have given on these deals."""
    config = TableConfig(players=players)
    rng = random.Random(f"calibrate/{seed}/{players}")
    bots = [Bot(config, Level.CLUB, seed=s) for s in range(players)]
    out = []
    for d in range(deals):
        base = new_hand(config, d % players, _deck(rng))
        order = active_seats(config, base.dealer)
        scores: dict[int, dict[int, tuple[bool, tuple[int, ...]]]] = {}
        try:
            for place, seat in enumerate(order):
                scores[seat] = {}
                for contract in (Contract.PRISE, Contract.GARDE_SANS):
                    state = _forced(config, base, place, contract, bots)
                    outcome = state.outcome()
                    assert outcome is not None
                    other = Contract(contract + 1)
                    chien = 0 if contract is Contract.PRISE else state.chien
                    twin = dataclasses.replace(
                        outcome,
                        contract=other,
                        attack_half_points=outcome.attack_half_points - half_points_of(chien),
                        attack_oudlers=outcome.attack_oudlers - (chien & OUDLER_MASK).bit_count(),
                    )
                    for o in (outcome, twin):
                        scores[seat][o.contract] = (
                            explain_hand(config, o).made,
                            score_hand(config, o),
                        )
        except IllegalAction:
            continue  # a petit sec: the deal is void whoever bids
        out.append(_Deal(order, list(base.hands), scores))
    return out


Bidder = Callable[[int, list[tuple[int, int]]], int]
"""The contract a seat wants, given the bids it heard."""


def _replay(deal: _Deal, want: Bidder) -> tuple[int | None, bool, tuple[int, ...]]:
    """The bidding of ``deal``: the taker (``None`` when all pass), whether the contract
    was made, and the scores."""
    heard: list[tuple[int, int]] = []
    top, taker = 0, None
    for seat in deal.order:
        wanted = want(seat, heard)
        said = wanted if wanted > top else 0
        heard.append((seat, said))
        if said:
            top, taker = said, seat
    if taker is None:
        return None, False, (0,) * len(deal.hands)
    made, scores = deal.scores[taker][top]
    return taker, made, scores


def _bidder(players: int, deal: _Deal, t: bidding.Thresholds, new_seats: Sequence[int]) -> Bidder:
    """``new_seats`` bid as ``club`` with the thresholds ``t``, the others as ``oldclub``."""

    def want(seat: int, heard: list[tuple[int, int]]) -> int:
        if seat in new_seats:
            return bidding.contract_for(bidding.evaluate(deal.hands[seat], players), t, heard)
        return old_contract(deal.hands[seat], players)

    return want


def _bidding_row(players: int, deals: Sequence[_Deal], t: bidding.Thresholds) -> dict[str, Any]:
    """All-pass share, contracts made and the duplicate margin against ``oldclub`` of
    ``club`` bidding with the thresholds ``t`` on ``deals``."""
    all_pass = taken = made = 0
    margins = []
    for deal in deals:
        taker, ok, _ = _replay(deal, _bidder(players, deal, t, deal.order))
        all_pass += taker is None
        taken += taker is not None
        made += ok
        sums: dict[str, list[int]] = {OLD_CLUB: [], "club": []}
        for seating in seatings(players, OLD_CLUB, "club"):
            new_seats = [s for s in deal.order if seating[s] == "club"]
            _, _, scores = _replay(deal, _bidder(players, deal, t, new_seats))
            for s in deal.order:
                sums[seating[s]].append(scores[s])
        margins.append(statistics.fmean(sums["club"]) - statistics.fmean(sums[OLD_CLUB]))
    mean, half = ci95(margins)
    return {
        "thresholds": dataclasses.asdict(t),
        "all_pass": share(all_pass, len(deals)),
        "made": share(made, taken),
        "margin_vs_oldclub": {"mean": round(mean, 2), "ci95": round(half, 2)},
    }


def _least_squares(rows: Sequence[Sequence[int]], target: Sequence[int]) -> list[float]:
    """The coefficients minimising the squared error of ``rows`` against ``target``
    (normal equations, Gauss-Jordan elimination with partial pivoting)."""
    m = len(rows[0])
    a = [[0.0] * (m + 1) for _ in range(m)]
    for row, y in zip(rows, target, strict=True):
        for i in range(m):
            if row[i]:
                a[i][m] += row[i] * y
                for j in range(m):
                    a[i][j] += row[i] * row[j]
    for c in range(m):
        a[c][c] += 1e-9  # a feature no hand showed stays at 0 instead of failing
        pivot = max(range(c, m), key=lambda r: abs(a[r][c]))
        a[c], a[pivot] = a[pivot], a[c]
        for r in range(m):
            if r != c and a[r][c]:
                f = a[r][c] / a[c][c]
                for k in range(c, m + 1):
                    a[r][k] -= f * a[c][k]
    return [a[i][m] / a[i][i] for i in range(m)]


def _ceiling(players: int, deals: Sequence[_Deal], all_pass: float) -> dict[str, Any]:
    """How many contracts any bidding could make on ``deals`` while leaving ``all_pass`` of
    them passed by everybody: the deals where some seat makes a prise (played by ``club``),
    the most a perfect bidder could make, and what the count makes when the seat holding the
    highest count takes the deals whose highest counts are the highest."""
    makeable = sum(any(d.scores[s][Contract.PRISE][0] for s in d.order) for d in deals)
    taken = len(deals) - round(all_pass * len(deals))
    ranked = []
    for d in deals:
        count, seat = max((bidding.evaluate(d.hands[s], players), s) for s in d.order)
        ranked.append((count, d.scores[seat][Contract.PRISE][0]))
    ranked.sort(reverse=True)
    best = ranked[:taken]
    return {
        "some_seat_makes_a_prise": share(makeable, len(deals)),
        "taken": taken,
        "perfect_bidder_made": round(min(makeable, taken) / taken, 3) if taken else None,
        "highest_count_made": share(sum(ok for _, ok in best), taken),
    }


def calibrate(players: int, deals: int, seed: int) -> dict[str, Any]:
    """The count refitted on forced contracts, and the thresholds replayed (see the module
    docstring)."""
    data = _forced_deals(players, deals, seed)
    rows, target = [], []
    for deal in data:
        for s in deal.order:
            rows.append([1, *bidding.features(deal.hands[s])])
            target.append(deal.scores[s][Contract.PRISE][1][s])
    fit = _least_squares(rows, target)
    mean = statistics.fmean(target)
    total = sum((y - mean) ** 2 for y in target)
    residual = sum(
        (y - sum(w * x for w, x in zip(fit, row, strict=True))) ** 2
        for row, y in zip(rows, target, strict=True)
    )
    package = bidding.THRESHOLDS[players]
    step = 10
    tried = [("package", package)]
    for name in ("prise", "garde", "garde_sans", "garde_contre"):
        for d in (-step, step):
            if name == "prise":
                t = dataclasses.replace(package, prise=tuple(x + d for x in package.prise))
            else:
                t = dataclasses.replace(package, **{name: getattr(package, name) + d})
            tried.append((f"{name} {d:+d}", t))
    by_thresholds = {name: _bidding_row(players, data, t) for name, t in tried}
    return {
        "players": players,
        "deals": len(data),
        "fit": {
            "base": round(fit[0]),
            "points": dict(zip(bidding.FEATURES, (round(w) for w in fit[1:]), strict=True)),
            "r2": round(1 - residual / total, 3),
        },
        "package": {
            "base": bidding.WEIGHTS[players].base,
            "points": dict(zip(bidding.FEATURES, bidding.WEIGHTS[players].points, strict=True)),
        },
        "thresholds": by_thresholds,
        "ceiling": _ceiling(players, data, by_thresholds["package"]["all_pass"]["share"] or 0.0),
    }


# --------------------------------------------------------------- the command


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, nargs="+", default=[3, 4, 5], choices=(3, 4, 5))
    p.add_argument("--deals", type=int, default=100, help="deals per table and per pairing")
    p.add_argument("--think", type=float, default=0.02, help="strong level's seconds per decision")
    p.add_argument(
        "--levels",
        nargs="*",
        default=[lv.value for lv in Level],
        choices=NAMES,
        help="levels to seat at tables of one level (none: no tables)",
    )
    p.add_argument(
        "--pairs", nargs="*", default=[], help="pairings to play, e.g. oldclub-club club-strong"
    )
    p.add_argument(
        "--minutes", type=float, default=None, help="stop each table or match after this"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--calibrate", action="store_true", help="print the bidding calibration")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.deals < 1 or args.think <= 0:
        print("--deals and --think must be positive", file=sys.stderr)
        return 2
    pairs = []
    for text in args.pairs:
        a, _, b = text.partition("-")
        if a not in NAMES or b not in NAMES:
            print(f"bad pairing {text!r}: write it like club-strong", file=sys.stderr)
            return 2
        pairs.append((a, b))

    def deadline() -> float | None:
        return None if args.minutes is None else time.monotonic() + 60 * args.minutes

    out: dict[str, Any] = {"think": args.think, "seed": args.seed}
    if args.calibrate:
        out["calibration"] = []
        for n in args.players:
            out["calibration"].append(calibrate(n, args.deals, args.seed))
            if not args.json:
                print(_render_calibration(out["calibration"][-1]), flush=True)
    else:
        out["tables"], out["matches"] = [], []
        for lv, n in itertools.product(args.levels, args.players):
            out["tables"].append(table(n, lv, args.deals, args.think, args.seed, deadline()))
            if not args.json:
                print(_render_table(out["tables"][-1]), flush=True)
        for n, (a, b) in itertools.product(args.players, pairs):
            out["matches"].append(match(n, a, b, args.deals, args.think, args.seed, deadline()))
            if not args.json:
                print(_render_match(out["matches"][-1]), flush=True)
    if args.json:
        print(json.dumps(out, indent=1))
    return 0


def _pct(s: dict[str, Any]) -> str:
    if s["share"] is None:
        return "-"
    return f"{100 * s['share']:.0f}% [{100 * s['low']:.0f}-{100 * s['high']:.0f}]"


def _render_calibration(r: dict[str, Any]) -> str:
    fit, package = r["fit"], r["package"]
    lines = [
        f"{r['players']} players, {r['deals']} deals, every seat's hand played as each contract",
        f"  count fitted (R2 {fit['r2']}): base {fit['base']}, "
        + ", ".join(f"{k} {v}" for k, v in fit["points"].items()),
        f"  count in the package: base {package['base']}, "
        + ", ".join(f"{k} {v}" for k, v in package["points"].items()),
    ]
    c = r["ceiling"]
    lines.append(
        f"  ceiling: some seat makes a prise in {_pct(c['some_seat_makes_a_prise'])} of the "
        f"deals; taking {c['taken']} deals, a perfect bidder makes "
        f"{100 * (c['perfect_bidder_made'] or 0):.0f}%, the highest count "
        f"{_pct(c['highest_count_made'])}"
    )
    for name, row in r["thresholds"].items():
        m = row["margin_vs_oldclub"]
        lines.append(
            f"  {name:16s} all pass {_pct(row['all_pass'])}, made {_pct(row['made'])}, "
            f"margin vs oldclub {m['mean']:+.2f} ± {m['ci95']:.2f}"
        )
    return "\n".join(lines)


def _render_table(r: dict[str, Any]) -> str:
    c = r["contracts"]
    timing = ""
    if r["decision_median_ms"] is not None:
        timing = f"; decision median {r['decision_median_ms']} ms, p99 {r['decision_p99_ms']} ms"
    return (
        f"{r['players']} players, every seat {r['level']}, {r['deals']} deals: all pass "
        f"{_pct(r['all_pass'])}; contracts made {_pct(r['made'])} of {r['made']['of']} "
        f"(prise {c['prise']}, garde {c['garde']}, sans {c['garde_sans']}, "
        f"contre {c['garde_contre']}){timing}"
    )


def _render_match(r: dict[str, Any]) -> str:
    a, b = r["levels"]
    lines = [
        f"{r['players']} players, {a} vs {b}, {r['deals']} duplicate deals "
        f"(all pass {_pct(r['all_pass'])} of the games)"
    ]
    for lv in (a, b):
        x = r[lv]
        made = f"{100 * x['made_share']:.0f}%" if x["made_share"] is not None else "-"
        lines.append(
            f"  {lv:7s} mean {x['mean_score']:+8.2f} ± {x['ci95']:.2f} per deal; took "
            f"{x['taken']}, made {x['made']} ({made}); decision median "
            f"{x['decision_median_ms']} ms, p99 {x['decision_p99_ms']} ms"
        )
    m = r["margin"]
    lines.append(f"  margin {m['of']}: {m['mean']:+.2f} ± {m['ci95']:.2f}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
