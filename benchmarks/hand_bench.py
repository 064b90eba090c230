"""Time and bytes of complete hands between in-memory peers, through the whole protocol stack.

Run: ``python3 benchmarks/hand_bench.py`` (``--json`` for machine output, ``--players``,
``--hands``). Every peer (and one observer) runs in this process; each peer's own work —
building, signing and checking its messages, checking everybody else's — is timed
separately, because on a real table the peers work in parallel on their own machines: the
per-peer figure is the one to compare with the 1 s goal (the network adds its latency).
Hand 0 (set-up and dealer draw) is reported apart; in it the process also builds its
fixed-base tables once, which a long-running peer pays once. Bytes are the envelopes' wire
bytes; framing and link encryption add a few bytes a message. Timings on a shared machine
are noisy: compare runs, not single numbers.

The key escrow (``protocol/crypto.md`` §10) is measured apart, as what a hand would cost
without it: its bytes are the ESCROW round's envelopes and the escrow key ``e`` in each KEY
message; its time is every peer's time in the escrow's own work (drawing the escrow key,
making its escrow, parsing and checking the others', unsealing the pieces sealed to it),
timed by wrapping those functions where the protocol calls them. ``escrow_extra_*_pct``
is that cost over the rest of the hand: the issue that brought the escrow (16) set at most
10 %. A silent seat's release and rebuild are not in it (they happen only when a seat
goes silent).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto import escrow, verified
from tarot_p2p.crypto.randomness import SecretsRandom
from tarot_p2p.protocol import codec
from tarot_p2p.protocol import peer as peer_module
from tarot_p2p.protocol import table as table_module
from tarot_p2p.protocol.envelope import open_envelope
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.table import Phase
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.deal import chien_size


def choose(peer: Peer, rng: random.Random) -> bytes:
    """A plain bot: the first speaker takes a garde, then random legal cards."""
    if peer.hand.phase is Phase.ECART:
        cards = [x.card for x in peer.legal_actions() if isinstance(x, a.Discard)]
        chosen = 0
        for c in cards[: chien_size(peer.config)]:
            chosen |= 1 << c
        return peer.discard(chosen)
    legal = peer.legal_actions()
    if legal == [a.PETIT_SEC]:
        return peer.act(a.PETIT_SEC)
    if isinstance(legal[0], a.Bid):
        engine = peer.private_state()
        assert engine is not None
        first = not any(isinstance(x, a.Bid) and x.contract for x in engine.history())
        return peer.act(a.BIDS[2] if first and a.BIDS[2] in legal else a.PASS)
    if isinstance(legal[0], a.Go):
        return peer.act(a.Go(False))
    return peer.act(rng.choice([x for x in legal if isinstance(x, a.Play | a.CallCard)]))


class EscrowClock:
    """Seconds spent in the escrow's own work since the start (see the module docstring)."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def timed(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t

        return wrapper


@contextmanager
def escrow_timed() -> Iterator[EscrowClock]:
    """The escrow's functions wrapped, where the peer and the table machine call them."""
    clock = EscrowClock()
    places: list[tuple[object, str]] = [
        (peer_module, "make_escrow_key"),
        (peer_module, "make_escrow"),
        (peer_module, "open_piece"),
        (table_module, "check_escrow"),
    ]
    saved = [(place, name, getattr(place, name)) for place, name in places]
    parse = escrow.Escrow.from_bytes
    try:
        for place, name, fn in saved:
            setattr(place, name, clock.timed(fn))
        escrow.Escrow.from_bytes = classmethod(  # type: ignore[method-assign,assignment]
            lambda cls, data, seats: clock.timed(parse)(data, seats)
        )
        yield clock
    finally:
        for place, name, fn in saved:
            setattr(place, name, fn)
        escrow.Escrow.from_bytes = parse  # type: ignore[method-assign]


def escrow_key_bytes(body: Mapping[str, object]) -> int:
    """The bytes the escrow key ``e`` adds to a KEY message's body."""
    without = {k: v for k, v in body.items() if k != "e"}
    return len(codec.encode(body)) - len(codec.encode(without))


def percent(part: float, whole: float) -> float:
    """``part`` as a percentage of ``whole - part`` (what it adds to the rest)."""
    return round(100 * part / (whole - part), 1)


def run(players: int, hands: int) -> dict[str, object]:
    # Each peer is timed as if on its own machine: no proof is taken from another's checks.
    verified.set_size(0)
    config = TableConfig(players=players, game_end=GameEnd.DEALS, game_length=hands)
    keys = [Ed25519PrivateKey.generate() for _ in range(players)]
    roster = [k.public_key() for k in keys]
    table_id = hashlib.sha256(b"bench").digest()
    names = [f"P{i}" for i in range(players)]
    peers = [
        Peer(config, table_id, roster, names, seat=i, identity=k, rng=SecretsRandom())
        for i, k in enumerate(keys)
    ]
    observer = Peer(config, table_id, roster, names)
    spent: dict[int, list[float]] = {h: [0.0] * (players + 1) for h in range(hands + 1)}
    wire_bytes: Counter[int] = Counter()
    messages: Counter[int] = Counter()
    kinds: Counter[str] = Counter()
    escrow_spent: dict[int, list[float]] = {h: [0.0] * (players + 1) for h in range(hands + 1)}
    escrow_bytes: Counter[int] = Counter()
    rng = random.Random(1)
    wall = time.perf_counter()
    with escrow_timed() as clock:
        while (sender := peers[0].expected_sender()) is not None:
            peer = next(p for p in peers if p.seat == sender)
            t, e = time.perf_counter(), clock.seconds
            wire = peer.next_message() or choose(peer, rng)
            hand = open_envelope(wire, table_id=table_id, roster=None)
            spent[hand.hand][peers.index(peer)] += time.perf_counter() - t
            escrow_spent[hand.hand][peers.index(peer)] += clock.seconds - e
            wire_bytes[hand.hand] += len(wire)
            messages[hand.hand] += 1
            if hand.kind == "escrow":
                escrow_bytes[hand.hand] += len(wire)
            elif hand.kind == "key" and hand.hand > 0:
                escrow_bytes[hand.hand] += escrow_key_bytes(hand.body)
            if hand.hand == 1:
                kinds[hand.kind] += len(wire)
            for i, other in enumerate([*peers, observer]):
                if other is not peer:
                    t, e = time.perf_counter(), clock.seconds
                    other.receive(wire)
                    spent[hand.hand][i] += time.perf_counter() - t
                    escrow_spent[hand.hand][i] += clock.seconds - e
    wall = time.perf_counter() - wall
    per_hand = [wire_bytes[h] for h in range(1, hands + 1)]
    dealt = range(1, hands + 1)
    hand_s = sum(sum(spent[h][:players]) for h in dealt)
    escrow_s = sum(sum(escrow_spent[h][:players]) for h in dealt)
    return {
        "players": players,
        "hands": hands,
        "wall_s_all_peers_one_core": round(wall, 3),
        "draw_s_per_peer": [round(s, 3) for s in spent[0][:players]],
        "hand_s_per_peer": [[round(s, 3) for s in spent[h][:players]] for h in range(1, hands + 1)],
        "hand_s_observer": [round(spent[h][players], 3) for h in range(1, hands + 1)],
        "draw_bytes": wire_bytes[0],
        "draw_messages": messages[0],
        "hand_bytes": per_hand,
        "hand_messages": [messages[h] for h in range(1, hands + 1)],
        "hand1_bytes_by_type": dict(sorted(kinds.items())),
        "escrow_bytes_per_hand": [escrow_bytes[h] for h in dealt],
        "escrow_s_per_peer": [[round(s, 4) for s in escrow_spent[h][:players]] for h in dealt],
        "escrow_extra_bytes_pct": percent(sum(escrow_bytes.values()), sum(per_hand)),
        "escrow_extra_time_pct": percent(escrow_s, hand_s),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.players, args.hands)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:28} {value}")


if __name__ == "__main__":
    main()
