"""``tarot-p2p demo``: a whole networked game on this machine, then its audit.

It seats one bot per seat in this program, the way ``tarot-p2p host --bot --bots N``
does: every bot is a full peer (its own keys, shuffles, proofs, transcript and score
sheet) and they talk only through a hub, exactly as players on different machines would.
When they are done it checks that every peer saved the same transcript and the same
score sheet, prints the sheet and where each transcript is, and audits the transcripts.

``--seed`` fixes the bots' choices, not the cards: the deal comes from every peer's secret
shuffle (operating-system randomness). A seeded deal would let anyone who knows the seed
see every hand, which is what the protocol exists to prevent; so two runs with the same
seed play different deals.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from tarot_p2p.cli.bot import BotPolicy, add_bot_options
from tarot_p2p.cli.house_bots import host_with_house_bots
from tarot_p2p.cli.join import warm_up_crypto
from tarot_p2p.cli.main import build_parser
from tarot_p2p.cli.rule_options import add_length_options, game_length
from tarot_p2p.protocol.names import for_terminal
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.sheet import LineKind, ScoreSheet
from tarot_p2p.seat.runner import Outcome, Timeouts

NAMES = ("North", "East", "South", "West", "Centre")


DESCRIPTION = (
    "Play a whole game on this computer between bots, each a full player with its own keys "
    "talking only through a hub, then check that they all saved the same transcript and "
    "score sheet, and audit the transcripts. --seed fixes the bots' choices, not the cards: "
    "the deal comes from every player's secret shuffle."
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "demo",
        help="a networked game of bots (each a full peer) through a hub, then its audit",
        description=DESCRIPTION,
    )
    p.add_argument("--players", type=int, choices=(3, 4, 5), default=4, help="how many bots play")
    add_length_options(p)
    p.add_argument("--seed", default="0", help="seed of the bots' choices (not of the deal)")
    add_bot_options(p)
    p.add_argument("--data-dir", type=Path, help="where the peers save (default: a new temp dir)")
    p.add_argument(
        "--timeout", type=float, default=60, help="each player's wait for another (seconds)"
    )
    p.add_argument(
        "--time-limit", type=float, default=600, help="stop everything after this (seconds)"
    )
    p.set_defaults(func=run)


async def _play(args: argparse.Namespace, base: Path) -> tuple[list[Outcome], bool]:
    """Every seat a house bot (the first one hosts); the outcomes, and whether the game
    ended within the time limit."""
    end, length = game_length(args)
    config = TableConfig(players=args.players, game_end=end, game_length=length)
    timeouts = Timeouts(message=args.timeout, decision=args.timeout)
    with trio.move_on_after(args.time_limit):
        await warm_up_crypto()
        _, host, bots = await host_with_house_bots(
            BotPolicy(f"{args.seed}/0", args.level, args.think),
            NAMES[0],
            config,
            list(NAMES[1 : args.players]),
            lambda i: BotPolicy(f"{args.seed}/{i + 1}", args.level, args.think),
            base,
            timeouts,
        )
        return [host, *bots], True
    return [], False


def _audit(paths: list[Path]) -> bool:
    """Audit the transcripts with ``tarot-p2p audit`` (which also checks that the files
    agree), through its registered parser: the demo shows the command a user would run."""
    files = [str(p) for p in paths]
    print("$ tarot-p2p audit --quiet " + " ".join(files), flush=True)
    audit = build_parser().parse_args(["audit", "--quiet", *files])
    code: int = audit.func(audit)
    return code == 0


def render_sheet(document: dict[str, Any]) -> str:
    """The score sheet of a ``sheet.json`` written by the runner, as text."""
    config = TableConfig.from_canonical_bytes(document["config"].encode("ascii"))
    data = document["sheet"]
    sheet = ScoreSheet(config, data["players"], data["first_dealer"])
    for line in data["lines"]:
        if line["kind"] == LineKind.HAND.value:
            sheet.add_hand(line["scores"], line["note"])
        else:
            sheet.add_void(LineKind(line["kind"]), line["note"])
    return sheet.render(for_terminal)


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0 or args.time_limit <= 0:
        print("error: --timeout and --time-limit must be positive", file=sys.stderr)
        return 2
    end, count = game_length(args)
    unit = end.value.removesuffix("s") if count == 1 else end.value  # "1 round", "2 rounds"
    length = f"until a total exceeds {count}" if end is GameEnd.POINTS else f"{count} {unit}"
    base = args.data_dir or Path(tempfile.mkdtemp(prefix="tarot-p2p-demo-"))
    base.mkdir(parents=True, exist_ok=True)
    print(
        f"demo: {args.players} bots, {length}, seed {args.seed!r} (bot choices "
        f"only: the deal stays secret); data in {base}",
        flush=True,
    )
    start = time.monotonic()
    outcomes, finished = trio.run(_play, args, base)
    elapsed = time.monotonic() - start
    ok = finished
    if not finished:
        print(f"time limit of {args.time_limit:g} s reached", file=sys.stderr)
    paths: dict[str, Path] = {}
    transcripts: dict[str, bytes] = {}
    sheets: dict[str, Any] = {}
    for outcome in outcomes:
        if outcome.abort is not None:
            ok = False
            print(f"a hand was aborted: {outcome.abort.reason}", file=sys.stderr)
        files = outcome.files
        if not files.sheet.exists():
            print(f"no transcript and score sheet saved in {files.directory}", file=sys.stderr)
            ok = False
            continue
        document = json.loads(files.sheet.read_text())
        name = document["sheet"]["players"][document["seat"]] if document["sheet"] else "?"
        paths[name] = files.transcript
        transcripts[name] = files.transcript.read_bytes()
        sheets[name] = (document["sheet"], document["head"], document["finished"])
    same_transcripts = len(set(transcripts.values())) == 1 and len(transcripts) == args.players
    same_sheets = len({json.dumps(s, sort_keys=True) for s in sheets.values()}) == 1
    ok = ok and same_transcripts and same_sheets
    print(f"\ngame over in {elapsed:.1f} s")
    documents = [json.loads(p.with_name("sheet.json").read_text()) for p in paths.values()]
    if documents and documents[0].get("sheet"):
        print(f"\nAgreed score sheet:\n{render_sheet(documents[0])}\n")
    for name, path in paths.items():
        digest = hashlib.sha256(transcripts[name]).hexdigest()[:16]
        print(f"{name:7s} saved its transcript in {path} (sha256 {digest}...)")
    print(flush=True)
    ok = _audit(list(paths.values())) and ok
    if same_transcripts and same_sheets:
        print(
            f"\nAll {args.players} peers hold byte-identical transcripts and identical score "
            "sheets."
        )
    else:
        print("\nThe peers do NOT agree (transcripts or score sheets differ).", file=sys.stderr)
    print("demo " + ("succeeded" if ok else "FAILED"))
    return 0 if ok else 1
