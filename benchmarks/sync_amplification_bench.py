"""What a member asking for records again and again costs the honest peers (issue 17).

A sync request costs its sender about 200 bytes and the hub's budget (``wire.md`` §7.4),
but each other peer may answer it with up to 512 KiB of records, which the hub relays to
every member. One member of a three-seat table of bots here sends, besides its honest
messages, a signed sync request claiming one record with a wrong digest every
``--every`` seconds (each one is a split view to the others: they answer with the
transcript's first records). Each honest peer's answer budget per requesting member
(``wire.md`` §7.2, :class:`~tarot_p2p.protocol.sync.AnswerBudget`: every record once,
then 128 KiB and 8 KiB/s of repeats) bounds that; ``--no-budget`` style runs replace it
with an unlimited one, for this benchmark only, to show what it saves.

Every game runs on the real clock, in one process: the seats, the hub and the asking
member on in-process links, bots choosing at once. Reported for each case: the bytes of
records the two honest peers sent again, the bytes the hub delivered to all members, the
requests the asking member sent, and the game's wall time (a quiet game gives the
baseline). Times depend on the machine and its load; the bytes do not much.

Usage: ``python benchmarks/sync_amplification_bench.py [--deals 2] [--every 0.5 0.05]
[--json]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shuffle import precompute_tables
from tarot_p2p.files.seat_files import SeatFiles
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.link import MessageLink
from tarot_p2p.protocol.codec import encode
from tarot_p2p.protocol.identity import fingerprint
from tarot_p2p.protocol.sync import SYNC_DOMAIN, AnswerBudget
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.seat.runner import Outcome, TableRunner, Timeouts
from tarot_p2p.seat.session import host_table, join_table

TABLE_ID = bytes(range(32))
SECRET = bytes(16)
PLAYERS = 3
ASKER = 1
"""The member that asks again and again (it plays its seat honestly otherwise)."""
TIMEOUTS = Timeouts(message=60, decision=120, linger=10)
UNLIMITED = 1 << 62
"""An answer budget that never runs out: the peer as it was before the budget."""


class AskingAgain:
    """A member's link that also sends, every ``every`` seconds, a sync request signed by
    its key claiming one record with a wrong digest."""

    def __init__(self, inner: MessageLink, key: Ed25519PrivateKey, every: float) -> None:
        self.inner = inner
        self.key = key
        self.every = every
        self.sent = 0
        self._next = 0.0

    def _request(self) -> bytes:
        payload = encode({"d": bytes(32), "k": "sync", "m": ASKER, "n": 1, "t": TABLE_ID})
        return encode([payload, self.key.sign(SYNC_DOMAIN + payload)])

    async def send(self, message: bytes) -> None:
        await self.inner.send(message)

    async def receive(self) -> bytes:
        while True:
            now = trio.current_time()
            if now >= self._next:
                self._next = now + self.every
                self.sent += 1
                await self.inner.send(self._request())
            with trio.move_on_at(self._next):
                return await self.inner.receive()

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class Case:
    every: float | None
    """Seconds between two requests of the asking member (``None``: a quiet game)."""
    budget: bool
    finished: bool = False
    resent_bytes: int = 0
    """Records sent again by the two honest peers, in bytes."""
    delivered_bytes: int = 0
    """Bytes the hub delivered to the three members."""
    transcript_bytes: int = 0
    requests: int = 0
    wall_seconds: float = 0.0


async def play(case: Case, deals: int, data: Path) -> None:
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([i + 1]) * 32) for i in range(PLAYERS)]
    config = TableConfig(players=PLAYERS, game_end=GameEnd.DEALS, game_length=deals)
    hub = Hub(keys[0], TABLE_ID, SECRET)
    outcomes: dict[int, Outcome] = {}
    asking: list[AskingAgain] = []

    async def seat(i: int) -> None:
        link: MessageLink = hub.local_link()
        if i == ASKER and case.every is not None:
            asking.append(AskingAgain(link, keys[i], case.every))
            link = asking[0]
        rng = DeterministicRandom(b"amplification %d" % i)
        if i == 0:
            peer = await host_table(link, keys[0], "P0", config, TABLE_ID, SECRET, rng=rng)
        else:
            fp = fingerprint(keys[0].public_key())
            peer, _ = await join_table(
                link, keys[i], f"P{i}", TABLE_ID, SECRET, hub_fingerprint=fp, rng=rng
            )
        files = SeatFiles.for_table(data, TABLE_ID, keys[i].public_key().public_bytes_raw())
        runner = TableRunner(peer, link, BotPolicy(i), files, timeouts=TIMEOUTS, offload=False)
        if not case.budget:
            runner._budget = AnswerBudget(UNLIMITED, UNLIMITED)  # this benchmark only
        outcomes[i] = await runner.run()
        await link.aclose()

    started = time.monotonic()
    async with trio.open_nursery() as nursery:
        for i in range(PLAYERS):
            nursery.start_soon(seat, i)
            while hub.stats.relayed < i:  # seats in a fixed order (i - 1 joined)
                await trio.sleep(0.001)
    case.wall_seconds = time.monotonic() - started
    case.finished = len(outcomes) == PLAYERS and all(o.finished for o in outcomes.values())
    case.resent_bytes = sum(o.stats.resent_bytes for i, o in outcomes.items() if i != ASKER)
    case.delivered_bytes = sum(o.stats.received_bytes for o in outcomes.values())
    case.transcript_bytes = len(outcomes[0].files.transcript.read_bytes())
    case.requests = asking[0].sent if asking else 0


def run(case: Case, deals: int) -> Case:
    with tempfile.TemporaryDirectory() as tmp:
        trio.run(play, case, deals, Path(tmp))
    return case


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--every", type=float, nargs="+", default=[0.5, 0.05])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    precompute_tables()
    cases = [run(Case(None, True), args.deals)]
    for every in args.every:
        for budget in (False, True):
            cases.append(run(Case(every, budget), args.deals))
    result: dict[str, Any] = {"players": PLAYERS, "deals": args.deals}
    result["cases"] = [asdict(c) | {"wall_seconds": round(c.wall_seconds, 1)} for c in cases]
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{PLAYERS} players, {args.deals} deals; member {ASKER} asks with a wrong digest")
    print(f"{'asks every':>11} {'budget':>7} {'resent kB':>10} {'hub sent kB':>12} "
          f"{'requests':>9} {'game s':>7} {'finished':>9}")  # fmt: skip
    for c in cases:
        asks = "quiet" if c.every is None else f"{c.every:g} s"
        kept = "-" if c.every is None else ("on" if c.budget else "off")
        print(
            f"{asks:>11} {kept:>7} {c.resent_bytes / 1000:>10.1f} "
            f"{c.delivered_bytes / 1000:>12.1f} {c.requests:>9} {c.wall_seconds:>7.1f} "
            f"{'yes' if c.finished else 'NO':>9}"
        )
    print(f"transcript: {cases[0].transcript_bytes / 1000:.1f} kB")


if __name__ == "__main__":
    main()
