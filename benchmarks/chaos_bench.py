"""What an unreliable relay and crashing players cost a table: time, repairs, and blame.

``--hands`` deals are played by bots through a hub that, for every delivery to every
member, drops it with probability ``--drop``, delays it by up to ``--delay-max`` seconds
with probability ``--delay`` (often past the seats' limits) and swaps it behind the next
one with probability ``--reorder``; and one seat (a different one each time) is crashed
every ``--kill-every`` hands, at a random moment of the hand, then taken back from its
files as a restarted program would (``resume_seat``). Nothing else is special: the same
runner, sync requests and transcript files as the programs.

The run is on trio's mock clock (autojump): the protocol's waits — nudges, absence limits,
backoff — cost virtual seconds, reported as *table time*, while the processor time of the
whole run is reported apart. A fault-free run of the same length gives the baseline for
*time lost per fault*.

Reported: hands completed, sync requests sent, records sent again, restarts, early
messages kept, table time and time lost per repair, any stopped hand, and **false blames**
(a violation named against a seat: must be 0, every seat here being honest).

Usage: ``python benchmarks/chaos_bench.py [--players 4] [--hands 6] [--drop 0.05]
[--delay 0.03] [--reorder 0.05] [--kill-every 2] [--seed 1] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shuffle import precompute_tables
from tarot_p2p.files.seat_files import SeatFiles
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.link import MessageLink
from tarot_p2p.protocol.identity import fingerprint
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.seat.runner import Outcome, TableRunner, Timeouts
from tarot_p2p.seat.session import host_table, join_table, resume_seat

TABLE_ID = bytes(range(32))
SECRET = bytes(16)
TIMEOUTS = Timeouts(message=30, decision=60, reconnect=60, linger=60)


@dataclass
class Faults:
    drop: float
    delay: float
    delay_max: float
    reorder: float
    rng: random.Random
    injected: int = 0
    """Deliveries dropped, delayed or reordered so far."""


class FaultyLink:
    """A hub member's link as an unreliable relay serves it (faults on delivery)."""

    def __init__(self, inner: MessageLink, faults: Faults) -> None:
        self.inner = inner
        self.faults = faults
        self.held: list[tuple[float, int, bytes]] = []
        self.order = 0
        self.offered = 0

    async def send(self, message: bytes) -> None:
        await self.inner.send(message)

    async def receive(self) -> bytes:
        f = self.faults
        while True:
            self.held.sort()
            if self.held and self.held[0][0] <= trio.current_time():
                return self.held.pop(0)[2]
            message: bytes | None = None
            with trio.move_on_at(self.held[0][0] if self.held else float("inf")):
                message = await self.inner.receive()
            if message is None:
                continue
            self.offered += 1
            roll = f.rng.random()
            if self.offered > 1 and roll < f.drop + f.delay + f.reorder:
                f.injected += 1
            if self.offered > 1 and roll < f.drop:
                continue
            delay = 0.0
            if self.offered > 1 and roll < f.drop + f.delay:
                delay = f.rng.uniform(1.0, f.delay_max)
            elif self.offered > 1 and roll < f.drop + f.delay + f.reorder:
                delay = f.rng.uniform(0.01, 0.3)
            self.order += 1
            self.held.append((trio.current_time() + delay, self.order, message))

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class Report:
    hands: int = 0
    sync_requests: int = 0
    resent: int = 0
    early: int = 0
    restarts: int = 0
    false_blames: int = 0
    injected: int = 0
    table_seconds: float = 0.0
    cpu_seconds: float = 0.0
    aborts: list[str] = field(default_factory=list)


async def play(
    players: int, hands: int, faults: Faults | None, kill_every: int, data: Path
) -> Report:
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([i + 1]) * 32) for i in range(players)]
    config = TableConfig(players=players, game_end=GameEnd.DEALS, game_length=hands)
    hub = Hub(keys[0], TABLE_ID, SECRET)
    report = Report()
    rng = random.Random(7)
    outcomes: dict[int, Outcome] = {}
    start = trio.current_time()

    def link() -> MessageLink:
        inner = hub.local_link()
        return inner if faults is None else FaultyLink(inner, faults)

    async def seat(i: int, crash_at: float | None) -> None:
        """Seat ``i`` until the game ends; crashed at ``crash_at`` and taken back once."""
        files = SeatFiles.for_table(data, TABLE_ID, keys[i].public_key().public_bytes_raw())
        rand = DeterministicRandom(b"chaos %d" % i)
        first = True
        while True:
            current = link()
            peer: Peer | None = resume_seat(files, keys[i], rng=rand) if not first else None
            if peer is None and i == 0:
                peer = await host_table(current, keys[0], "P0", config, TABLE_ID, SECRET, rng=rand)
            elif peer is None:
                fp = fingerprint(keys[0].public_key())
                peer, _ = await join_table(
                    current, keys[i], f"P{i}", TABLE_ID, SECRET, hub_fingerprint=fp, rng=rand
                )
            runner = TableRunner(
                peer, current, BotPolicy(i), files, timeouts=TIMEOUTS, offload=False
            )
            with trio.CancelScope() as scope:
                if crash_at is not None:
                    scope.deadline = crash_at
                outcomes[i] = await runner.run()
            await current.aclose()
            first = False
            if not scope.cancelled_caught:
                report.sync_requests += runner.stats.sync_requests
                report.resent += runner.stats.resent
                report.early += runner.stats.early
                return
            report.restarts += 1
            report.sync_requests += runner.stats.sync_requests
            report.resent += runner.stats.resent
            crash_at = None  # once

    async with trio.open_nursery() as nursery:
        per_hand = 20.0  # a hand's table time here, roughly, to place the crashes
        for i in range(players):
            crash = None
            if kill_every and faults is not None:
                kills = [h for h in range(kill_every, hands + 1, kill_every)]
                mine = [h for k, h in enumerate(kills) if k % players == i]
                if mine:
                    crash = start + per_hand * (mine[0] - 1 + rng.random())
            nursery.start_soon(seat, i, crash)
            await trio.sleep(0.01)
    report.table_seconds = trio.current_time() - start
    for i, outcome in sorted(outcomes.items()):
        if outcome.abort is not None:
            report.aborts.append(f"seat {i}: {outcome.abort.kind} {outcome.abort.reason}")
            if outcome.abort.attributed:
                report.false_blames += 1
    sheets = {o.files.sheet.read_text() for o in outcomes.values()}
    finished = all(o.finished for o in outcomes.values()) and len(outcomes) == players
    if finished:
        peer_sheet = json.loads(next(iter(sheets)))["sheet"]
        report.hands = len(peer_sheet["lines"]) if peer_sheet else 0
    return report


def run(args: argparse.Namespace, faulty: bool) -> Report:
    faults = (
        Faults(args.drop, args.delay, args.delay_max, args.reorder, random.Random(args.seed))
        if faulty
        else None
    )
    with tempfile.TemporaryDirectory() as tmp:
        clock = trio.testing.MockClock(autojump_threshold=0)
        cpu = time.process_time()
        report = trio.run(
            play, args.players, args.hands, faults, args.kill_every, Path(tmp), clock=clock
        )
        report.cpu_seconds = time.process_time() - cpu
    report.injected = faults.injected if faults is not None else 0
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4, choices=(3, 4, 5))
    parser.add_argument("--hands", type=int, default=6)
    parser.add_argument("--drop", type=float, default=0.05)
    parser.add_argument("--delay", type=float, default=0.03)
    parser.add_argument("--delay-max", type=float, default=90.0)
    parser.add_argument("--reorder", type=float, default=0.05)
    parser.add_argument("--kill-every", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    precompute_tables()
    base = run(args, faulty=False)
    chaos = run(args, faulty=True)
    faults = max(1, chaos.restarts + chaos.injected)
    result: dict[str, Any] = {
        "players": args.players,
        "hands_asked": args.hands,
        "fault_rates": {"drop": args.drop, "delay": args.delay, "reorder": args.reorder},
        "kill_every": args.kill_every,
        "baseline": {"hands": base.hands, "table_seconds": round(base.table_seconds, 1)},
        "hands_completed": chaos.hands,
        "sync_requests": chaos.sync_requests,
        "records_resent": chaos.resent,
        "early_messages_kept": chaos.early,
        "restarts": chaos.restarts,
        "deliveries_faulted": chaos.injected,
        "table_seconds": round(chaos.table_seconds, 1),
        "seconds_lost_per_fault": round((chaos.table_seconds - base.table_seconds) / faults, 2),
        "cpu_seconds": round(chaos.cpu_seconds, 1),
        "false_blames": chaos.false_blames,
        "stopped_hands": chaos.aborts,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{args.players} players, {args.hands} deals asked; faults {result['fault_rates']}, ")
    print(f"a seat crashed and taken back every {args.kill_every} hands")
    print(f"  baseline (no fault): {base.hands} hands in {base.table_seconds:.1f} s of table time")
    print(f"  hands completed:     {chaos.hands}")
    print(f"  sync requests:       {chaos.sync_requests} (records sent again: {chaos.resent})")
    print(f"  early messages kept: {chaos.early}")
    print(f"  deliveries faulted:  {chaos.injected} (dropped, delayed or reordered)")
    print(f"  restarts:            {chaos.restarts}")
    print(
        f"  table time:          {chaos.table_seconds:.1f} s "
        f"({result['seconds_lost_per_fault']} s lost per fault or restart)"
    )
    print(f"  processor time:      {chaos.cpu_seconds:.1f} s")
    print(f"  false blames:        {chaos.false_blames} (must be 0)")
    for line in chaos.aborts:
        print(f"  stopped: {line}")


if __name__ == "__main__":
    main()
