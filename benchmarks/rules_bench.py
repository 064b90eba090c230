"""Random legal full hands per second on the rules engine (one core).

Run: ``python3 benchmarks/rules_bench.py`` (``--json`` for machine output, ``--hands N``,
``--players``). Each hand: a shuffled deck, random bids where each player passes with
probability ``--pass-rate`` (so some deals are void), otherwise a random legal action
among ``legal_actions()`` (random contracts, calls, écarts, announcements, chelem
announcements), random legal cards to the end, then ``returns()`` (the scoring included).
The time counts everything per hand: the shuffle, the deal, listing the legal moves,
applying them, the score, and the random choices themselves.

A second figure runs the after-the-fact audit on the same hands (a slower, deliberately
simple replay). Figures are the best of ``--repeat`` runs; on a shared machine they are
noisy.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from tarot_p2p.rules.actions import Bid
from tarot_p2p.rules.audit import audit_hand, record_of
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import deal_cards
from tarot_p2p.rules.state import State, new_hand


def play_hands(
    config: TableConfig, n: int, seed: int, pass_rate: float
) -> list[tuple[State, tuple[int, ...]]]:
    rng = random.Random(seed)
    deck = list(range(78))
    states = []
    for i in range(n):
        rng.shuffle(deck)
        state = new_hand(config, i % config.seats, deck)
        while not state.is_terminal():
            legal = state.legal_actions()
            if type(legal[0]) is Bid and rng.random() < pass_rate:
                state.apply_action(legal[0])
            else:
                state.apply_action(legal[rng.randrange(len(legal))])
        state.returns()
        states.append((state, tuple(deck)))
    return states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5))
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pass-rate", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    config = TableConfig(players=args.players)

    best = float("inf")
    states: list[tuple[State, tuple[int, ...]]] = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        states = play_hands(config, args.hands, args.seed, args.pass_rate)
        best = min(best, time.perf_counter() - t0)
    actions = sum(len(s.history()) for s, _ in states)
    void = sum(s.void is not None for s, _ in states)

    audit_n = max(1, args.hands // 10)
    records = []
    for s, deck in states[:audit_n]:
        deal = deal_cards(config, s.dealer, deck)
        records.append(record_of(s, deal.hands, deal.chien, deal.piles))
    t0 = time.perf_counter()
    for r in records:
        audit_hand(r)
    audit_time = time.perf_counter() - t0

    figures = {
        "players": args.players,
        "hands": args.hands,
        "hands_per_s": round(args.hands / best),
        "actions_per_s": round(actions / best),
        "void_fraction": round(void / args.hands, 3),
        "audited_hands_per_s": round(audit_n / audit_time),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{args.players} players, {args.hands} random legal hands, best of {args.repeat}:")
        print(f"  {figures['hands_per_s']:>8} hands/s   ({figures['actions_per_s']} actions/s)")
        print(f"  {figures['void_fraction']:>8.1%} of the deals void (all pass or petit sec)")
        print(f"  {figures['audited_hands_per_s']:>8} hands/s through the audit")


if __name__ == "__main__":
    main()
