"""The stored table vectors are reproduced byte for byte and replay to their recorded result."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.protocol.errors import SeatViolation
from tarot_p2p.protocol.peer import replay_file
from tests.protocol.table_vectors import SCENARIOS, VECTOR_DIR, Scenario, build, render

NAMES = [s.name for s in SCENARIOS]


def stored(name: str) -> tuple[bytes, dict[str, Any]]:
    meta = json.loads((VECTOR_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return (VECTOR_DIR / f"{name}.tp2p").read_bytes(), meta


@pytest.mark.parametrize("scenario", SCENARIOS, ids=NAMES)
def test_vector_is_reproduced_exactly(scenario: Scenario) -> None:
    data, meta = build(scenario)
    assert (data, render(meta)) == (
        stored(scenario.name)[0],
        (VECTOR_DIR / f"{scenario.name}.json").read_text(encoding="utf-8"),
    )


@pytest.mark.parametrize("name", NAMES)
def test_vector_replays_to_its_result(name: str) -> None:
    data, meta = stored(name)
    replay = replay_file(data)
    assert replay.torn_tail == 0
    assert replay.observer.transcript.head.hex() == meta["final_digest"]
    assert list(replay.observer.seating or ()) == meta["seating"]
    if "stops_at" in meta:
        stop = meta["stops_at"]
        assert isinstance(replay.error, SeatViolation)
        assert replay.accepted + 1 == stop["record"] == len(meta["messages"])
        assert replay.error.seat == stop["blamed_seat"] and replay.error.reason == stop["reason"]
        records = list(file_records(data))
        evidence = [records[i - 1] for i in stop["evidence_records"]]
        assert list(replay.error.evidence) == evidence
        return
    assert replay.error is None and replay.accepted == len(meta["messages"])
    sheet = replay.observer.sheet
    if "sheet" in meta:
        assert sheet is not None and sheet.to_dict() == meta["sheet"]


def file_records(data: bytes) -> list[bytes]:
    """The records of a transcript file (wire.md §4.4), read without our code."""
    out, at = [], 74
    while at < len(data):
        length = int.from_bytes(data[at : at + 4], "big")
        out.append(data[at + 4 : at + 4 + length])
        at += 4 + length
    return out


def frame(x: bytes) -> bytes:
    return len(x).to_bytes(4, "big") + x


@pytest.mark.parametrize("name", NAMES)
def test_binding_independently(name: str) -> None:
    data, meta = stored(name)
    keys = [
        Ed25519PrivateKey.from_private_bytes(bytes.fromhex(s)).public_key().public_bytes_raw()
        for s in meta["identity_seeds"]
    ]
    parts = [meta["config"].encode("ascii"), *keys, *(n.encode() for n in meta["names"])]
    h = hashlib.sha256(b"tarot-p2p/binding/v1\x00" + b"".join(frame(p) for p in parts))
    assert h.hexdigest() == meta["binding"] == data[42:74].hex()


@pytest.mark.parametrize("name", NAMES)
def test_seating_follows_the_draw_independently(name: str) -> None:
    """table.md §4.1-4.2: the draw deck is the trumps 1 to n, member i draws slot i, one
    round of shares opens them all; the members sorted by card, lowest first, take seats
    0, 1, ..."""
    data, meta = stored(name)
    members = len(meta["names"])
    draws = meta["draws"]
    assert [m for m, _ in draws] == list(range(members))
    cards = {m: int(card.removeprefix("T")) for m, card in draws}
    assert sorted(cards.values()) == list(range(1, members + 1))
    assert sorted(range(members), key=cards.__getitem__) == meta["seating"]
    messages = meta["messages"]
    shares = [x for x in messages if x.startswith("0.") and x.endswith(" shares")]
    assert len(shares) == members  # one draw round, every member in it
    records = file_records(data)
    for i, message in enumerate(messages):
        if message.startswith("0.") and message.endswith(" shuffle"):
            payload, _ = msgpack.unpackb(records[i])
            assert len(msgpack.unpackb(payload)["b"]["deck"]) == 66 * members


ABANDONS = [s.name for s in SCENARIOS if s.abandon]


@pytest.mark.parametrize("name", ABANDONS)
def test_abandon_claims_independently(name: str) -> None:
    """Each forfeit claim signs, under its member's key (``m`` a member index), the slot and
    history of the abandon record (``s`` a seat), and the record carries the signatures of
    every seat but the silent one, the dead seat at five included, in seat order; the
    lowest of those seats sent it."""
    data, meta = stored(name)
    abandon = meta["abandon"]
    record = file_records(data)[abandon["record"] - 1]
    payload, _ = msgpack.unpackb(record)
    envelope = msgpack.unpackb(payload)
    assert envelope["k"] == "abandon" and envelope["b"]["seat"] == abandon["absent_seat"]
    keys = [
        Ed25519PrivateKey.from_private_bytes(bytes.fromhex(s)).public_key()
        for s in meta["identity_seeds"]
    ]
    signatures = {}
    for claim in abandon["claims"]:
        claim_payload, signature = msgpack.unpackb(bytes.fromhex(claim))
        fields = msgpack.unpackb(claim_payload)
        assert list(fields) == sorted(fields) == ["d", "h", "k", "m", "q", "s", "t"]
        assert (fields["k"], fields["h"], fields["q"], fields["s"]) == (
            "forfeit",
            envelope["h"],
            envelope["q"],
            abandon["absent_seat"],
        )
        assert fields["d"] == envelope["d"] and fields["t"].hex() == meta["table_id"]
        keys[fields["m"]].verify(signature, b"tarot-p2p/forfeit/v1\x00" + claim_payload)
        signatures[meta["seating"].index(fields["m"])] = signature
    present = sorted(signatures)
    assert present == [s for s in range(len(keys)) if s != abandon["absent_seat"]]
    assert envelope["b"]["claims"] == [signatures[s] for s in present]
    assert envelope["s"] == present[0]
