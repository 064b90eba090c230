"""Seconds per deal of four bot seats playing through a hub at 0 ms and at 25 ms each way.

Why: a hand is a chain of signed messages, and every message that must wait for the one
before it pays the path to the relay and back. On one machine that costs nothing; 25 ms
between each program and its relay costs 50 ms per wait. This runs the same table as
``game_bench.py`` (one process per seat, a bot in each, the hub in this process, each
seat's fixed-base tables built before it connects) once on plain loopback and once with
every seat behind a :class:`~delay_proxy.DelayProxy`, and prints per deal:

* seconds: from the previous hand's agreed score line (the last peer holding it) to
  this hand's;
* cards after previous: from the previous hand's score line held by every peer to the
  last peer seeing its cards of this hand (the wait between two deals; for hand 1, from
  the seat draw);
* the difference between the delayed and the plain run;
* the messages of a deal that wait for the one before them (``waits``: those built on the
  transcript's head; not the later messages of a parallel round, ``table.md`` §1.4, nor
  the opening, keys, escrows and shuffles, made during the deal before, §1.6), and the
  delay those waits add where no computing overlaps it (each crosses proxy, hub and proxy
  after the one before). The cards and bids wait by nature: a player sees the card before
  him. At four players this bench counts about 83 such waits a deal (72 cards, the bids,
  the écart, the rounds' first messages): 4.15 s at 25 ms each way, so the goal of 1 s is
  out of reach of any ordering of these messages. It also counts, apart, the waits that
  are a player's move (``move_waits``) and what is left, the protocol's own waits (the
  first message of the deal's, the chien's, the écart's and the score's rounds): those
  are what the protocol adds to the game's own turns.

Goals (issue 20): cards at most 0.3 s after the previous score on loopback; at 25 ms each
way at most 1 s more per deal than on loopback.

Usage: ``python benchmarks/latency_bench.py [--players 4] [--deals 4] [--delay-ms 25]
[--json]``. Wall-clock on a shared machine: noisy, run it more than once.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import trio
from game_bench import run_table

from tarot_p2p.crypto.shuffle import precompute_tables


def one_run(players: int, deals: int, delay: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        result = trio.run(run_table, players, deals, Path(tmp), True, delay)
    hands = result["hands"]
    return {
        "delay_ms_each_way": delay * 1000,
        "seconds_per_deal": statistics.fmean(h["seconds"] for h in hands),
        "cards_after_previous_s": statistics.fmean(h["cards_after_previous_s"] for h in hands),
        "messages_per_deal": statistics.fmean(h["messages"] for h in hands),
        "waits_per_deal": statistics.fmean(h["waits"] for h in hands),
        "move_waits_per_deal": statistics.fmean(h["move_waits"] for h in hands),
        "set_up_and_draw_s": result["setup_and_draw"]["seconds"],
        "hands": [
            {
                k: h[k]
                for k in (
                    "hand",
                    "seconds",
                    "cards_after_previous_s",
                    "messages",
                    "waits",
                    "move_waits",
                )
            }
            for h in hands
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, choices=(3, 4, 5), default=4)
    parser.add_argument("--deals", type=int, default=4, help="hands per run (default 4)")
    parser.add_argument("--delay-ms", type=float, default=25.0, help="one-way delay")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    if args.deals < 1 or not 0 < args.delay_ms < 10_000:
        parser.error("--deals is at least 1 and --delay-ms between 0 and 10000")
    precompute_tables()
    runs = [one_run(args.players, args.deals, d) for d in (0.0, args.delay_ms / 1000)]
    plain, delayed = runs
    out = {
        "players": args.players,
        "deals": args.deals,
        "runs": runs,
        "extra_seconds_per_deal": delayed["seconds_per_deal"] - plain["seconds_per_deal"],
        # Each message built on the one just before crosses proxy, hub, proxy after it: what
        # the delay adds to those waits where no computing overlaps it.
        "waits_delay_s_per_deal": delayed["waits_per_deal"] * 2 * args.delay_ms / 1000,
        # Of those, the ones that are not a player's move: the protocol's own waits.
        "protocol_waits_delay_s_per_deal": (
            (delayed["waits_per_deal"] - delayed["move_waits_per_deal"]) * 2 * args.delay_ms / 1000
        ),
        "goals": {"extra_seconds_per_deal": 1.0, "cards_after_previous_s": 0.3},
    }
    if args.json:
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    for run in runs:
        print(
            f"{run['delay_ms_each_way']:g} ms each way: {run['seconds_per_deal']:.2f} s per "
            f"deal ({run['messages_per_deal']:.0f} messages), cards "
            f"{run['cards_after_previous_s']:.2f} s after the previous score line"
        )
    print(
        f"extra per deal: {out['extra_seconds_per_deal']:.2f} s (goal <= 1 s); "
        f"{delayed['waits_per_deal']:.0f} messages a deal wait for the one before: "
        f"{out['waits_delay_s_per_deal']:.2f} s of delay where no computing overlaps it"
    )
    print(
        f"of those waits, {delayed['move_waits_per_deal']:.0f} are players' moves (cards, bids, "
        f"écart: each waits for the one before by the rules) and "
        f"{delayed['waits_per_deal'] - delayed['move_waits_per_deal']:.0f} the protocol's own: "
        f"{out['protocol_waits_delay_s_per_deal']:.2f} s of delay"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
