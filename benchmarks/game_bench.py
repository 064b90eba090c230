"""Wall time and bytes on the wire of complete networked hands (4 peers, loopback TCP).

Every peer connects to a hub over loopback TCP with the Noise handshake, exactly as the
programs do, and a bot plays each seat. By default each peer runs in its own process, as
on separate machines (but all on this machine's cores, shared with other work: timings
are noisy); ``--one-process`` runs them as trio tasks of this process instead, where a
hand's wall time is the sum of every peer's work. Each process builds its fixed-base
tables before it connects, so that one-off cost (about 2 s) is not in the figures.

Figures, per hand (hands 1..N; the set-up and seat draw, once per table, apart):

* wall time from the end of the previous hand until the last peer holds the hand's last
  signed score line;
* cards after previous: from that end of the previous hand until the last peer sees its
  own cards of this hand (the wait between two deals);
* envelope bytes: the signed messages of the hand, each counted once (what one copy of
  the transcript grows by, and what all the peers together upload);
* TCP bytes into the hub (every peer's uplink: envelopes plus Noise framing and tags) and
  out of it (each message relayed to the n - 1 other peers).

Goals (issue 4): at most 1 s and 150 KB per hand; the 150 KB are compared with what one
hand puts on the wire once (the TCP uplink total), the relay's fan-out being n - 1 times
that by construction of a hub.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from delay_proxy import DelayProxy

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.crypto.shuffle import precompute_tables
from tarot_p2p.files.seat_files import SeatFiles
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.net.link import connect
from tarot_p2p.protocol.peer import Peer, PeerEvent
from tarot_p2p.rules.actions import BIDS, PASS, Bid
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.seat.runner import Decision, TableRunner
from tarot_p2p.seat.session import HostedHub, host_table, join_table

MOVES = frozenset({"action", "petit_sec", "ecart", "poignee", "play"})
"""The kinds of message that are a player's move (``table.md`` §2): each waits for the
move before it by the rules of the game, whatever the protocol does."""

PRISE = BIDS[1]


class Clocked:
    """A bot that notes when its score sheet grows, and never lets a hand end with
    everyone passing (a void deal is a quarter of the work of a played one)."""

    def __init__(self, seed: int) -> None:
        self.bot = BotPolicy(seed)
        self.marks: dict[int, float] = {}
        self.dealt: dict[int, float] = {}
        """Hand number -> when this seat's cards of that hand were opened to it."""

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        choice = await self.bot.decide(peer, refused)
        state = peer.private_state()
        if choice == PASS and state is not None and PRISE in peer.legal_actions():
            bids = [b for b in state.history() if isinstance(b, Bid)]
            if len(bids) == peer.config.active_players - 1:
                return PRISE  # the last to speak takes: every hand measured is played
        return choice

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        sheet = peer.sheet
        if sheet is not None:
            self.marks.setdefault(len(sheet.lines), time.time())
        if peer.dealt is not None:
            self.dealt.setdefault(peer.hand.hand, time.time())


Marks = tuple[dict[int, float], list[tuple[int, int, bool, bool]], dict[int, float]]


async def play_seat(
    i: int, code: JoinCode, key: Ed25519PrivateKey, config: TableConfig, data_dir: Path
) -> Marks:
    """One seat: its sheet's growth times, its transcript's (hand, bytes) per message and
    when each hand's cards were opened to it."""
    link = await connect(code, key)
    if i == 0:
        peer = await host_table(link, key, "P0", config, code.table_id, code.secret)
    else:
        peer, _ = await join_table(link, key, f"P{i}", code.table_id, code.secret)
    files = SeatFiles.for_table(data_dir, code.table_id, key.public_key().public_bytes_raw())
    policy = Clocked(i)
    outcome = await TableRunner(peer, link, policy, files, offload=False).run()
    await link.aclose()
    if not outcome.finished:
        raise RuntimeError(f"seat {i}: {outcome.abort}")
    transcript = peer.transcript
    sizes = [
        (e.hand, len(e.wire), e.prev == transcript.digest_after(i), e.kind in MOVES)
        for i, e in enumerate(transcript)
    ]
    return policy.marks, sizes, policy.dealt


def seat_process(i: int, code: str, config: bytes, data_dir: str, out: Any) -> None:
    """A seat in its own process (its tables built before it connects)."""
    precompute_tables()
    key = Ed25519PrivateKey.generate()
    rules = TableConfig.from_canonical_bytes(config)
    out.put((i, trio.run(play_seat, i, JoinCode.decode(code), key, rules, Path(data_dir))))


async def run_table(
    players: int, deals: int, data_dir: Path, processes: bool, delay: float = 0.0
) -> dict[str, Any]:
    """One table of ``players`` bots for ``deals`` hands; with ``delay`` > 0 every seat
    reaches the hub through a :class:`~delay_proxy.DelayProxy` adding that many seconds
    each way."""
    config = TableConfig(players=players, game_end=GameEnd.DEALS, game_length=deals)
    hub = Hub(Ed25519PrivateKey.generate(), secrets.token_bytes(32), secrets.token_bytes(16))
    hosted = HostedHub(hub)
    samples: list[tuple[float, int, int]] = []
    results: dict[int, Marks] = {}

    async def sample() -> None:
        while True:
            samples.append((time.time(), hosted.bytes_in, hosted.bytes_out))
            await trio.sleep(0.005)

    async def local(i: int, code: JoinCode) -> None:
        results[i] = await play_seat(i, code, Ed25519PrivateKey.generate(), config, data_dir)

    async def remote(code: JoinCode) -> None:
        context = multiprocessing.get_context("spawn")
        queue = context.Queue()
        procs = [
            context.Process(
                target=seat_process,
                args=(i, code.encode(), config.canonical_bytes(), str(data_dir), queue),
            )
            for i in range(players)
        ]
        for proc in procs:
            proc.start()
        for _ in procs:
            i, result = await trio.to_thread.run_sync(queue.get)
            results[i] = result
        for proc in procs:
            await trio.to_thread.run_sync(proc.join)

    start = time.time()
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(hosted.serve, "127.0.0.1", 0)
        port = listeners[0].socket.getsockname()[1]
        if delay > 0:
            proxy = DelayProxy("127.0.0.1", port, delay)
            port = (await nursery.start(proxy.serve))[0].socket.getsockname()[1]
        code = hub.join_code("127.0.0.1", port)
        nursery.start_soon(sample)
        if processes:
            await remote(code)
        else:
            async with trio.open_nursery() as table:
                for i in range(players):
                    table.start_soon(local, i, code)
        nursery.cancel_scope.cancel()
    samples.append((time.time(), hosted.bytes_in, hosted.bytes_out))
    total = time.time() - start
    sizes = results[0][1]
    envelope = [sum(n for h, n, _, _ in sizes if h == hand) for hand in range(deals + 1)]
    messages = [sum(1 for h, *_ in sizes if h == hand) for hand in range(deals + 1)]
    # Messages built on the one just before (the others: a parallel round's, made at once),
    # and those of them that are a player's move.
    waits = [sum(1 for h, _, w, _ in sizes if h == hand and w) for hand in range(deals + 1)]
    move_waits = [
        sum(1 for h, _, w, move in sizes if h == hand and w and move) for hand in range(deals + 1)
    ]
    # Sheet line k agreed: when the last peer learnt it (k = 0: the seats are drawn).
    ends = [max(r[0][k] for r in results.values()) for k in range(deals + 1)]
    # Hand k's cards shown: when the last peer saw its own.
    shown = [max(r[2][k] for r in results.values()) for k in range(1, deals + 1)]

    def counters(t: float) -> tuple[int, int]:
        last = [s for s in samples if s[0] <= t] or samples[:1]
        return last[-1][1], last[-1][2]

    hands = []
    for h in range(1, deals + 1):
        (in0, out0), (in1, out1) = counters(ends[h - 1]), counters(ends[h])
        hands.append(
            {
                "hand": h,
                "seconds": ends[h] - ends[h - 1],
                "cards_after_previous_s": shown[h - 1] - ends[h - 1],
                "messages": messages[h],
                "waits": waits[h],
                "move_waits": move_waits[h],
                "envelope_bytes": envelope[h],
                "tcp_bytes_to_hub": in1 - in0,
                "tcp_bytes_from_hub": out1 - out0,
            }
        )
    return {
        "players": players,
        "deals": deals,
        "processes": processes,
        "delay_ms_each_way": delay * 1000,
        "total_seconds": total,
        "setup_and_draw": {
            "seconds": ends[0] - start,
            "messages": messages[0],
            "envelope_bytes": envelope[0],
        },
        "hands": hands,
    }


def summary(result: dict[str, Any]) -> dict[str, Any]:
    hands = result["hands"]

    def stat(key: str) -> dict[str, float]:
        values = [h[key] for h in hands]
        return {"mean": statistics.fmean(values), "min": min(values), "max": max(values)}

    return {
        key: stat(key)
        for key in (
            "seconds",
            "cards_after_previous_s",
            "messages",
            "envelope_bytes",
            "tcp_bytes_to_hub",
            "tcp_bytes_from_hub",
        )
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, choices=(3, 4, 5), default=4)
    parser.add_argument("--deals", type=int, default=3, help="hands to play (default 3)")
    parser.add_argument(
        "--one-process",
        action="store_true",
        help="run every peer in this process (their work then adds up) instead of one "
        "process per peer",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    t = time.perf_counter()
    precompute_tables()
    tables = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        result = trio.run(run_table, args.players, args.deals, Path(tmp), not args.one_process)
    result["precompute_seconds"] = tables
    result["per_hand"] = summary(result)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 0
    where = "all in this process" if args.one_process else "one process each"
    print(f"{args.players} peers over loopback TCP, {where}; fixed-base tables {tables:.2f} s")
    setup = result["setup_and_draw"]
    print(
        f"set-up and seat draw: {setup['seconds']:.2f} s, {setup['messages']} messages, "
        f"{setup['envelope_bytes'] / 1000:.1f} KB of envelopes"
    )
    for h in result["hands"]:
        print(
            f"hand {h['hand']}: {h['seconds']:.2f} s, {h['messages']} messages, "
            f"envelopes {h['envelope_bytes'] / 1000:.1f} KB, TCP to hub "
            f"{h['tcp_bytes_to_hub'] / 1000:.1f} KB, "
            f"from hub {h['tcp_bytes_from_hub'] / 1000:.1f} KB"
        )
    mean = result["per_hand"]
    print(
        f"mean per hand: {mean['seconds']['mean']:.2f} s (goal <= 1 s), uplink "
        f"{mean['tcp_bytes_to_hub']['mean'] / 1000:.1f} KB (goal <= 150 KB), relayed "
        f"{mean['tcp_bytes_from_hub']['mean'] / 1000:.1f} KB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
