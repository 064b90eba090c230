"""``tarot-p2p demo``: a whole networked game on this machine, then its audit.

It starts a hub (in this process) and one bot per seat, each in its own process
(``tarot-p2p host --bot --relay`` for the host, ``tarot-p2p bot --relay`` for the others),
all over loopback TCP, exactly as players on different machines would. When they are done
it checks that every peer saved the same transcript and the same score sheet, prints the
sheet and where each transcript is, and audits the transcripts.

``--seed`` fixes the bots' choices, not the cards: the deal comes from every peer's secret
shuffle (operating-system randomness). A seeded deal would let anyone who knows the seed
see every hand, which is what the protocol exists to prevent; so two runs with the same
seed play different deals.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli.main import build_parser
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.joincode import SECRET_LEN, TABLE_ID_LEN
from tarot_p2p.net.session import HostedHub
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.sheet import LineKind, ScoreSheet

NAMES = ("North", "East", "South", "West", "Centre")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "demo",
        help="a networked game of bots, one process each, then its audit",
        description=__doc__,
    )
    p.add_argument("--players", type=int, choices=(3, 4, 5), default=4)
    p.add_argument(
        "--deals", type=int, help="number of deals (default: one round, each player deals once)"
    )
    p.add_argument("--seed", default="0", help="seed of the bots' choices (not of the deal)")
    p.add_argument("--data-dir", type=Path, help="where the peers save (default: a new temp dir)")
    p.add_argument(
        "--timeout", type=float, default=60.0, help="each peer's wait for another (seconds)"
    )
    p.add_argument(
        "--time-limit", type=float, default=600.0, help="stop everything after this (seconds)"
    )
    p.set_defaults(func=run)


@dataclass
class PeerRun:
    name: str
    command: list[str]
    data_dir: Path
    returncode: int | None = None
    output: str = ""


def _commands(args: argparse.Namespace, code: str, base: Path) -> list[PeerRun]:
    python = [sys.executable, "-m", "tarot_p2p"]
    runs = []
    for i, name in enumerate(NAMES[: args.players]):
        data = base / name
        common = [
            "--name", name, "--profile", str(data), "--seed", f"{args.seed}/{i}",
            "--timeout", str(args.timeout), "--decision-timeout", str(args.timeout),
        ]  # fmt: skip
        if i == 0:
            role = ["host", "--relay", code, "--bot", "--players", str(args.players)]
            if args.deals is not None:
                role += ["--deals", str(args.deals)]
        else:
            role = ["bot", code, "--relay"]
        runs.append(PeerRun(name, [*python, *role, *common], data))
    return runs


async def _play(args: argparse.Namespace, base: Path) -> tuple[list[PeerRun], HostedHub, bool]:
    hub = Hub(
        Ed25519PrivateKey.generate(),
        secrets.token_bytes(TABLE_ID_LEN),
        secrets.token_bytes(SECRET_LEN),
    )
    hosted = HostedHub(hub)
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])  # the directory holding tarot_p2p
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    finished = False
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(hosted.serve, "127.0.0.1", 0)
        code = hub.join_code("127.0.0.1", listeners[0].socket.getsockname()[1]).encode()
        print(f"hub on 127.0.0.1, join code {code}", flush=True)
        runs = _commands(args, code, base)

        async def one(run: PeerRun) -> None:
            result = await trio.run_process(
                run.command,
                capture_stdout=True,
                stderr=subprocess.STDOUT,
                check=False,
                env=env,
            )
            run.returncode = result.returncode
            run.output = result.stdout.decode(errors="replace")

        with trio.move_on_after(args.time_limit):
            async with trio.open_nursery() as peers:
                for run in runs:
                    peers.start_soon(one, run)
            finished = True
        nursery.cancel_scope.cancel()
    return runs, hosted, finished


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
    return sheet.render()


def run(args: argparse.Namespace) -> int:
    if (args.deals is not None and args.deals < 1) or args.timeout <= 0 or args.time_limit <= 0:
        print("error: --deals, --timeout and --time-limit must be positive", file=sys.stderr)
        return 2
    length = "one round" if args.deals is None else f"{args.deals} deal(s)"
    base = args.data_dir or Path(tempfile.mkdtemp(prefix="tarot-p2p-demo-"))
    base.mkdir(parents=True, exist_ok=True)
    print(
        f"demo: {args.players} bots, {length}, seed {args.seed!r} (bot choices "
        f"only: the deal stays secret); data in {base}",
        flush=True,
    )
    start = time.monotonic()
    runs, hosted, finished = trio.run(_play, args, base)
    elapsed = time.monotonic() - start
    ok = finished
    if not finished:
        print(f"time limit of {args.time_limit:g} s reached", file=sys.stderr)
    for peer in runs:
        if peer.returncode != 0:
            ok = False
            print(f"--- {peer.name} exited with {peer.returncode}:\n{peer.output}", file=sys.stderr)
    paths: dict[str, Path] = {}
    transcripts: dict[str, bytes] = {}
    sheets: dict[str, Any] = {}
    for peer in runs:
        found = sorted(peer.data_dir.glob("tables/*/transcript.tp2p"))
        sheet_path = found[0].with_name("sheet.json") if len(found) == 1 else None
        if sheet_path is None or not sheet_path.exists():
            print(f"{peer.name}: no transcript and score sheet saved", file=sys.stderr)
            ok = False
            continue
        paths[peer.name] = found[0]
        transcripts[peer.name] = found[0].read_bytes()
        document = json.loads(sheet_path.read_text())
        sheets[peer.name] = (document["sheet"], document["head"], document["finished"])
    same_transcripts = len(set(transcripts.values())) == 1 and len(transcripts) == len(runs)
    same_sheets = len({json.dumps(s, sort_keys=True) for s in sheets.values()}) == 1
    ok = ok and same_transcripts and same_sheets
    print(
        f"\ngame over in {elapsed:.1f} s; {hosted.bytes_in} bytes sent to the hub, "
        f"{hosted.bytes_out} relayed"
    )
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
            f"\nAll {len(runs)} peers hold byte-identical transcripts and identical score sheets."
        )
    else:
        print("\nThe peers do NOT agree (transcripts or score sheets differ).", file=sys.stderr)
    print("demo " + ("succeeded" if ok else "FAILED"))
    return 0 if ok else 1
