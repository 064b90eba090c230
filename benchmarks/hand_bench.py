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
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from collections import Counter

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto import verified
from tarot_p2p.crypto.randomness import SecretsRandom
from tarot_p2p.protocol.envelope import open_envelope
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.table import Phase
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.deal import chien_size


def choose(peer: Peer, rng: random.Random) -> bytes:
    """A plain bot: the first speaker takes a garde, then random legal cards."""
    if peer.hand.phase is Phase.ECART:
        legal = [x.card for x in peer.legal_actions() if isinstance(x, a.Discard)]
        chosen = 0
        for c in legal[: chien_size(peer.config)]:
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
    rng = random.Random(1)
    wall = time.perf_counter()
    while (sender := peers[0].expected_sender()) is not None:
        peer = next(p for p in peers if p.seat == sender)
        t = time.perf_counter()
        wire = peer.next_message() or choose(peer, rng)
        hand = open_envelope(wire, table_id=table_id, roster=None)
        spent[hand.hand][peers.index(peer)] += time.perf_counter() - t
        wire_bytes[hand.hand] += len(wire)
        messages[hand.hand] += 1
        if hand.hand == 1:
            kinds[hand.kind] += len(wire)
        for i, other in enumerate([*peers, observer]):
            if other is not peer:
                t = time.perf_counter()
                other.receive(wire)
                spent[hand.hand][i] += time.perf_counter() - t
    wall = time.perf_counter() - wall
    per_hand = [wire_bytes[h] for h in range(1, hands + 1)]
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
