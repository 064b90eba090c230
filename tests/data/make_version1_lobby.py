"""Writes ``version1_lobby.json``: a join request and a set-up as a protocol-version-1
program sends them (tests/meet/test_versions.py feeds them to today's programs).

Run ONCE, on main at commit 2a1956e (the last version-1 code), before protocol version 2
changed the lobby's bytes; it is kept to show how the frozen file was made, not to be run
again: today's code would write version-2 bytes. Fixed keys, table id and randomness, so
anyone can read what the file holds.

    PYTHONPATH=$PWD python tests/data/make_version1_lobby.py
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.meet.lobby import join_request, leave_request
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.rules.config import GameEnd, TableConfig

OUT = Path(__file__).with_name("version1_lobby.json")
TABLE = hashlib.sha256(b"version 1 lobby").digest()
SEEDS = [bytes([0x51 + i]) * 32 for i in range(3)]
NAMES = ["Host", "Bob", "Carol"]


def main() -> None:
    assert PROTOCOL_VERSION == 1, "run on the version-1 code only (main at 2a1956e)"
    keys = [Ed25519PrivateKey.from_private_bytes(seed) for seed in SEEDS]
    config = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=1)
    host = Peer(
        config,
        TABLE,
        [k.public_key() for k in keys],
        NAMES,
        seat=0,
        identity=keys[0],
        rng=DeterministicRandom(b"version 1 host"),
    )
    setup = host.next_message()
    assert setup is not None
    document = {
        "about": "made by tests/data/make_version1_lobby.py with protocol version 1",
        "protocol_version": PROTOCOL_VERSION,
        "table_id": TABLE.hex(),
        "seeds": [s.hex() for s in SEEDS],
        "names": NAMES,
        "join_request": join_request(keys[1], NAMES[1], TABLE).hex(),
        "leave_request": leave_request(keys[1], NAMES[1], TABLE).hex(),
        "setup": setup.hex(),
    }
    OUT.write_text(json.dumps(document, indent=2) + "\n")


if __name__ == "__main__":
    main()
