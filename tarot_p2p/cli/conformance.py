"""``tarot-p2p conformance --peer COMMAND``: play the conformance kit against another
implementation (``protocol/conformance.md``) and print a pass/fail table."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import trio

from tarot_p2p.conformance.kit import TABLE_HEADER, Options, Result, run_kit, table_row
from tarot_p2p.conformance.scenarios import Scenario, by_name

DESCRIPTION = (
    "Check that another program plays tarot-p2p as the protocol says. The kit hosts a "
    "table, seats the program among its own players, plays honest games at three, four "
    "and five, then has one of its players cheat in each way the protocol names, and "
    "checks that the program refuses the cheat and names the cheater. COMMAND is run once "
    "per game through the shell, with {code} replaced by the join code and {dir} by an "
    "empty folder; its last line of output must be its verdict (protocol/conformance.md "
    "says how)."
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "conformance",
        help="test another implementation of the protocol",
        description=DESCRIPTION,
    )
    p.add_argument("--peer", metavar="COMMAND", help="the program to test, with {code} and {dir}")
    p.add_argument("--only", nargs="+", metavar="NAME", help="play only these games (see --list)")
    p.add_argument("--list", action="store_true", help="list the games and what each expects")
    p.add_argument(
        "--players",
        type=int,
        choices=(3, 4, 5),
        help="play every cheat at this many players, and only the honest game of that size",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long one game may take before it fails",
    )
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument(
        "--listen",
        default="127.0.0.1",
        metavar="ADDRESS",
        help="the address the kit's table listens on and the join code names",
    )
    p.set_defaults(func=run)


def chosen(names: list[str] | None, players: int | None) -> list[Scenario]:
    """The games to play: those named (all by default); with ``players``, of the games
    made one per size (honest, audit) only those of that size."""
    games = by_name(names)
    if players is None:
        return games
    return [s for s in games if not s.sized or s.players == players]


def run(args: argparse.Namespace) -> int:
    try:
        games = chosen(args.only, args.players)
    except KeyError as exc:
        print(f"error: no game named {exc.args[0]}; --list shows them", file=sys.stderr)
        return 2
    if args.list:
        for s in games:
            print(f"{s.name:<18} {s.summary}; expected: {s.expects}")
        return 0
    if not args.peer or "{code}" not in args.peer:
        print(
            "error: give the program to test with --peer, its join code written {code}",
            file=sys.stderr,
        )
        return 2
    if args.timeout <= 0:
        print("error: --timeout is a positive number of seconds", file=sys.stderr)
        return 2
    options = Options(args.peer, args.listen, args.timeout, args.players)
    show = None if args.json else _show
    if show is not None:
        print(TABLE_HEADER, flush=True)
    results = trio.run(run_kit, games, options, show)
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2))
    else:
        passed = sum(r.passed for r in results)
        print(f"{passed} of {len(results)} games passed.")
    return 0 if all(r.passed for r in results) else 1


def _show(result: Result) -> None:
    print(table_row(result), flush=True)
