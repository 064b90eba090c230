"""Generator of the table-protocol vector: a complete three-seat game, as a transcript file.

Run ``python -m tests.protocol.table_vectors`` to rewrite ``protocol/vectors/table_game_3.*``
after a deliberate change of the protocol. The game is fully reproducible: fixed identity
keys, each seat's randomness from ``DeterministicRandom(b"tarot-p2p vector seat <i>")``,
deterministic Ed25519 signatures and bot choices. ``test_table_vectors.py`` regenerates it
byte for byte and replays the stored file through an observer.

For implementers: ``table_game_3.tp2p`` is a transcript file (``wire.md`` §4.4) of the
set-up, the seat draw and one garde at three seats; ``table_game_3.json`` gives its table id,
binding, the drawn seating (the member at each seat), final digest, the message kinds in
order and the agreed score sheet (by seat). A compatible
peer accepts every record and reaches the same digest and scores.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.protocol.envelope import open_envelope
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.transcript import file_header
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.scoring import Contract
from tests.protocol.harness import Bot

VECTOR_DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
NAME = "table_game_3"


def build() -> tuple[bytes, dict[str, Any]]:
    config = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=1)
    seeds = [hashlib.sha256(b"tarot-p2p vector identity %d" % i).digest() for i in range(3)]
    keys = [Ed25519PrivateKey.from_private_bytes(s) for s in seeds]
    roster = [k.public_key() for k in keys]
    names = ["Ana", "Ben", "Cleo"]
    table_id = hashlib.sha256(b"tarot-p2p vector table").digest()
    peers = [
        Peer(
            config,
            table_id,
            roster,
            names,
            seat=i,
            identity=keys[i],
            rng=DeterministicRandom(b"tarot-p2p vector seat %d" % i),
        )
        for i in range(3)
    ]
    bot = Bot(contract=Contract.GARDE, seed=2026)
    wires: list[bytes] = []
    while (sender := peers[0].expected_sender()) is not None:
        peer = next(p for p in peers if p.seat == sender)
        wire = peer.next_message() or bot.choose(peer)
        wires.append(wire)
        for other in peers:
            if other is not peer:
                other.receive(wire)
    data = file_header(table_id, peers[0].binding) + b"".join(
        len(w).to_bytes(4, "big") + w for w in wires
    )
    sheet = peers[0].sheet
    assert sheet is not None
    meta = {
        "description": __doc__.split("\n\n")[2].replace("\n", " ").strip(),
        "identity_seeds": [s.hex() for s in seeds],
        "names": names,
        "config": config.canonical_bytes().decode("ascii"),
        "table_id": table_id.hex(),
        "binding": peers[0].binding.hex(),
        "seating": list(peers[0].seating or ()),
        "final_digest": peers[0].transcript.head.hex(),
        "messages": [
            f"{e.hand}.{e.seq} {'member' if e.hand == 0 else 'seat'} {e.seat} {e.kind}"
            for e in (open_envelope(w, table_id=table_id, roster=None) for w in wires)
        ],
        "sheet": sheet.to_dict(),
    }
    return data, meta


def render(meta: dict[str, Any]) -> str:
    return json.dumps(meta, indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    data, meta = build()
    (VECTOR_DIR / f"{NAME}.tp2p").write_bytes(data)
    (VECTOR_DIR / f"{NAME}.json").write_text(render(meta), encoding="utf-8")
    sys.stdout.write(f"wrote {NAME}.tp2p ({len(data)} bytes) and {NAME}.json\n")


if __name__ == "__main__":
    main()
