"""The stored game vector is reproduced byte for byte and replays to its recorded result."""

from __future__ import annotations

import hashlib
import json

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.protocol.peer import replay_file
from tests.protocol.table_vectors import NAME, VECTOR_DIR, build, render

STORED = (VECTOR_DIR / f"{NAME}.tp2p").read_bytes()
META = json.loads((VECTOR_DIR / f"{NAME}.json").read_text(encoding="utf-8"))


def test_vector_is_reproduced_exactly() -> None:
    data, meta = build()
    assert data == STORED
    assert render(meta) == (VECTOR_DIR / f"{NAME}.json").read_text(encoding="utf-8")


def test_vector_replays_to_its_result() -> None:
    replay = replay_file(STORED)
    assert replay.error is None and replay.torn_tail == 0
    assert replay.accepted == len(META["messages"])
    assert replay.observer.transcript.head.hex() == META["final_digest"]
    assert list(replay.observer.seating or ()) == META["seating"]
    sheet = replay.observer.sheet
    assert sheet is not None and sheet.to_dict() == META["sheet"]


def test_binding_independently() -> None:
    def frame(x: bytes) -> bytes:
        return len(x).to_bytes(4, "big") + x

    keys = [
        Ed25519PrivateKey.from_private_bytes(bytes.fromhex(s)).public_key().public_bytes_raw()
        for s in META["identity_seeds"]
    ]
    parts = [META["config"].encode("ascii"), *keys, *(n.encode() for n in META["names"])]
    h = hashlib.sha256(b"tarot-p2p/binding/v1\x00" + b"".join(frame(p) for p in parts))
    assert h.hexdigest() == META["binding"]
    assert STORED[42:74].hex() == META["binding"]
