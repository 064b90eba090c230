"""Fairness of the real mental-poker deal over many hands, and what it costs.

Honest peers (one :class:`~tarot_p2p.protocol.peer.Peer` per seat, each with the operating
system's randomness, all in this process and wired by a plain loop) run whole tables: the
set-up and seat draw, then deal after deal — key shares with their proofs, every seat's
proven shuffle, the decryption shares that open each seat's hand to it — each message
checked by every other peer, exactly as in a game. Once a deal is open, each peer's own
hand is read from that peer (the chien is the rest); then everybody passes, which ends the
deal void at once (no cards played: the deal is what is measured) and the next dealer
deals. Tables play one round by default, so the seat draw is measured too.

The deals and draws go through :func:`tarot_p2p.protocol.fairness.fairness`, the function
behind ``tarot-p2p audit --stats``, and the report is printed in the same words (``--json``:
the same JSON plus the timing). The time is the whole run's wall time, per deal including
each table's set-up and draw, and the processor time this process used (what the peers'
work costs, whatever else the machine runs meanwhile).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto.randomness import SecretsRandom
from tarot_p2p.crypto.shuffle import precompute_tables
from tarot_p2p.protocol.fairness import DealSample, DrawSample, fairness
from tarot_p2p.protocol.fairness_render import render, to_json
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.table import Phase
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import FULL_DECK
from tarot_p2p.rules.config import GameEnd, TableConfig


def run_table(players: int, deals: int) -> tuple[list[DealSample], DrawSample]:
    """One table of honest peers: its ``deals`` deals, as opened, and its seat draw."""
    config = TableConfig(players=players, game_end=GameEnd.DEALS, game_length=deals)
    keys = [Ed25519PrivateKey.generate() for _ in range(players)]
    roster = [k.public_key() for k in keys]
    names = [f"P{i}" for i in range(players)]
    table_id = secrets.token_bytes(32)
    peers = [
        Peer(config, table_id, roster, names, seat=i, identity=keys[i], rng=SecretsRandom())
        for i in range(players)
    ]
    samples: list[DealSample] = []
    while (sender := peers[0].expected_sender()) is not None:
        peer = next(p for p in peers if p.seat == sender)
        wire = peer.next_message()
        if wire is None:
            legal = peer.legal_actions()
            wire = peer.act(a.PASS if a.PASS in legal else legal[0])
        for other in peers:
            if other is not peer:
                other.receive(wire)
        hand = peers[0].hand
        if hand.phase is Phase.BIDDING and len(samples) < hand.hand:
            hands = [0] * players
            for p in peers:
                assert p.seat is not None
                hands[p.seat] = p.my_cards()
            chien = FULL_DECK & ~sum(hands)
            assert hand.dealer is not None
            samples.append(DealSample(config, hand.dealer, tuple(hands), chien))
    seating = peers[0].seating
    assert seating is not None and len(samples) == deals
    return samples, DrawSample(seating)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000, help="deals to make (default 1000)")
    parser.add_argument("--players", type=int, choices=(3, 4, 5), default=4)
    parser.add_argument(
        "--per-table", type=int, help="deals per table (default: one round, a deal per seat)"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    per_table = args.per_table or args.players
    if args.hands < 1 or per_table < 1:
        parser.error("--hands and --per-table must be at least 1")
    t0 = time.perf_counter()
    precompute_tables()
    tables_seconds = time.perf_counter() - t0
    deals: list[DealSample] = []
    draws: list[DrawSample] = []
    start, cpu = time.perf_counter(), time.process_time()
    while len(deals) < args.hands:
        made, draw = run_table(args.players, min(per_table, args.hands - len(deals)))
        deals.extend(made)
        draws.append(draw)
        if not args.json:
            print(f"\r{len(deals)}/{args.hands} deals", end="", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu
    if not args.json:
        print(file=sys.stderr)
    t1 = time.perf_counter()
    report = fairness(deals, draws)
    stats_seconds = time.perf_counter() - t1
    timing: dict[str, Any] = {
        "players": args.players,
        "deals": len(deals),
        "tables": len(draws),
        "seconds": seconds,
        "seconds_per_deal": seconds / len(deals),
        "cpu_seconds": cpu_seconds,
        "cpu_seconds_per_deal": cpu_seconds / len(deals),
        "statistics_seconds": stats_seconds,
        "precompute_seconds": tables_seconds,
    }
    if args.json:
        json.dump({"timing": timing, "statistics": to_json(report)}, sys.stdout, indent=1)
        print()
        return 0
    print(
        f"{len(deals)} deals at {args.players} players on {len(draws)} tables of honest "
        f"peers in one process: {seconds:.1f} s, {seconds / len(deals):.3f} s per deal, "
        f"processor time {cpu_seconds / len(deals):.3f} s per deal (set-up and seat draw "
        f"included; fixed-base tables {tables_seconds:.1f} s before); statistics "
        f"{stats_seconds:.2f} s"
    )
    print()
    print(render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
