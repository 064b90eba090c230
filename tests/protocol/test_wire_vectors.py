"""The wire vectors are recomputed byte for byte, and checked without our own code."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.protocol.codec import SchemaError
from tarot_p2p.protocol.messages import load_body
from tests.protocol.wire_vectors import VECTOR_DIR, build, render


def test_vectors_are_reproduced_exactly() -> None:
    """Every vector file, recomputed inside the test (not when the module is imported): it
    compares the code as it is when the test runs, which a mutation run changes after the
    import (docs/mutation.md)."""
    built = build()
    assert sorted(built) == sorted(p.name for p in VECTOR_DIR.glob("wire_*.json"))
    stale = [n for n in sorted(built) if (VECTOR_DIR / n).read_text("utf-8") != render(built[n])]
    assert stale == []


def load(name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((VECTOR_DIR / name).read_text(encoding="utf-8"))
    return data


def test_envelopes_independently() -> None:
    for case in load("wire_envelope.json")["cases"]:  # type: ignore[attr-defined]
        key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(case["identity_seed"]))
        payload = bytes.fromhex(case["payload"])
        signed = bytes.fromhex(case["signature_input"])
        assert signed == b"tarot-p2p/envelope/v1\x00" + payload
        key.public_key().verify(bytes.fromhex(case["signature"]), signed)
        assert msgpack.unpackb(bytes.fromhex(case["wire"])) == [
            payload,
            bytes.fromhex(case["signature"]),
        ]
        fields = msgpack.unpackb(payload)
        assert list(fields) == sorted(fields)  # the fixed form sorts keys
        assert fields["t"].hex() == case["table_id"] and fields["s"] == case["seat"]
        assert (fields["h"], fields["q"], fields["k"]) == (case["hand"], case["seq"], case["kind"])
        assert from_data(case["body"]) == fields["b"]
        assert bytes.fromhex(case["body_msgpack"]) in payload


def from_data(data: object) -> object:
    """The vectors' JSON form of a value, read back (``{"bin": hex}`` is a byte string)."""
    if isinstance(data, dict):
        if list(data) == ["bin"]:
            return bytes.fromhex(data["bin"])
        return {k: from_data(v) for k, v in data.items()}
    if isinstance(data, list):
        return [from_data(v) for v in data]
    return data


def test_score_body_range_is_both_ends_included() -> None:
    """table.md §2: scores in [-2^31, 2^31], ends included; one past either end is refused."""
    case = load("wire_envelope.json")["cases"][-1]  # type: ignore[index]
    assert case["kind"] == "score"
    assert case["body_msgpack"] == "81a673636f72657393ce80000000d28000000000"
    load_body("score", from_data(case["body"]))  # type: ignore[arg-type]
    for bad in (1 << 31) + 1, -(1 << 31) - 1:
        with pytest.raises(SchemaError):
            load_body("score", {"scores": [bad, 0, 0]})


def test_transcript_independently() -> None:
    vector = load("wire_transcript.json")
    table_id, binding = bytes.fromhex(vector["table_id"]), bytes.fromhex(vector["binding"])  # type: ignore[arg-type]
    head = hashlib.sha256(b"tarot-p2p/transcript/v1/genesis\x00" + table_id + binding).digest()
    assert head.hex() == vector["genesis"]
    file = b"TP2PTRN\x00\x00\x01" + table_id + binding
    opening = b""
    for record in vector["records"]:  # type: ignore[attr-defined]
        wire = bytes.fromhex(record["wire"])
        payload, _ = msgpack.unpackb(wire)
        if (record["hand"], record["seq"]) == (0, 1):  # after the previous hand's first
            opening = hashlib.sha256(b"tarot-p2p/transcript/v1/opening\x00" + head).digest()
        # wire.md §4.2: hand 1's records stand for an opening, on the opening chain.
        built_on = opening if record["hand"] == 1 else head
        assert msgpack.unpackb(payload)["d"] == built_on
        assert record["d"] == built_on.hex()
        if record["hand"] == 1:
            opening = link(opening, payload)
        head = link(head, payload)
        assert head.hex() == record["digest_after"]
        file += len(wire).to_bytes(4, "big") + wire
    assert file.hex() == vector["file"]
    assert len(vector["records"]) == 5  # type: ignore[arg-type]


def link(prev: bytes, payload: bytes) -> bytes:
    return hashlib.sha256(
        b"tarot-p2p/transcript/v1/link\x00" + prev + hashlib.sha256(payload).digest()
    ).digest()


def test_join_code_independently() -> None:
    vector = load("wire_joincode.json")
    fingerprint = hashlib.sha256(bytes.fromhex(vector["fingerprint_input"])).digest()[:16]  # type: ignore[arg-type]
    assert fingerprint.hex() == vector["hub_fingerprint"]
    for case in [*vector["cases"], vector["version_1"]]:  # type: ignore[misc]
        text = case["code"]
        raw = base64.b32decode(text.removeprefix("tp2p1-").upper() + "=" * (-len(text[6:]) % 8))
        body = raw[:-4]
        assert hashlib.sha256(b"tarot-p2p/joincode/v1\x00" + body).digest()[:4] == raw[-4:]
        version, at = body[0], 1
        flags = body[1] if version == 2 else 0
        at += version == 2
        assert body[at : at + 32].hex() == vector["table_id"]
        assert body[at + 32 : at + 48] == fingerprint
        assert body[at + 48 : at + 64].hex() == vector["join_secret"]
        assert int.from_bytes(body[at + 64 : at + 66], "big") == case["port"]
        assert body[at + 67 :] == case["host"].encode() and body[at + 66] == len(case["host"])
        assert flags == (1 if case.get("relay") else 0)
        code = JoinCode.decode(text)
        assert (code.host, code.port, code.relay) == (case["host"], case["port"], flags == 1)
        assert code.table_id.hex() == vector["table_id"]
        assert code.secret.hex() == vector["join_secret"]


def test_noise_vector_messages_have_the_documented_sizes() -> None:
    vector = load("wire_noise.json")
    secret = bytes.fromhex(vector["join_secret"])  # type: ignore[arg-type]
    link = hmac.new(secret, b"tarot-p2p/link-key/v1\x00", hashlib.sha256).digest()[:16]
    assert vector["link_key"] == link.hex()
    sizes = [len(bytes.fromhex(m)) for m in vector["messages"]]  # type: ignore[attr-defined]
    # payload {g, i} = map(1) + "g"(2) + bin64(66) + "i"(2) + bin32(34) = 105 bytes; "j" adds 36.
    # e | e, enc(s)+tag, enc(payload)+tag | enc(s)+tag, enc(payload)+tag
    assert sizes == [32, 32 + 48 + 105 + 16, 48 + 141 + 16]
    assert bytes.fromhex(vector["messages"][0]) == bytes.fromhex(vector["init_ephemeral_public"])  # type: ignore[index, arg-type]


def test_sync_requests_independently() -> None:
    vector = load("wire_sync.json")
    for case in vector["cases"]:  # type: ignore[attr-defined]
        key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(case["identity_seed"]))
        payload, signature = msgpack.unpackb(bytes.fromhex(case["wire"]))
        key.public_key().verify(signature, b"tarot-p2p/sync/v1\x00" + payload)
        fields = msgpack.unpackb(payload)
        assert list(fields) == sorted(fields) == ["d", "k", "m", "n", "t"]
        assert fields["k"] == "sync" and fields["t"].hex() == vector["table_id"]
        assert (fields["m"], fields["n"], fields["d"].hex()) == (
            case["member"],
            case["count"],
            case["head"],
        )
    answers = [case["answer"] for case in vector["cases"]]  # type: ignore[attr-defined]
    assert answers == [[3, 4], [], [1, 2, 3, 4]]


def _signed_map(wire_hex: str, seed_hex: str) -> dict[str, Any]:
    """The payload map of a signed sync-family wire, its signature checked with plain
    Ed25519 over the documented domain, and its bytes the fixed form of the map."""
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed_hex))
    payload, signature = msgpack.unpackb(bytes.fromhex(wire_hex))
    key.public_key().verify(signature, b"tarot-p2p/sync/v1\x00" + payload)
    fields: dict[str, Any] = msgpack.unpackb(payload)
    assert msgpack.packb(fields, use_bin_type=True) == payload and len(payload) <= 512
    return fields


def test_roll_calls_and_their_answers_independently() -> None:
    """wire.md §7.2's roll call and *here*, rebuilt from the text: six keys in order, the
    sync domain, the nonce echoed, and the roll call answered like a sync request."""
    vector: Any = load("wire_sync.json")
    transcript: Any = load("wire_transcript.json")
    heads = [transcript["genesis"], *(r["digest_after"] for r in transcript["records"])]
    for case in vector["roll_calls"]:
        fields = _signed_map(case["wire"], case["identity_seed"])
        assert msgpack.unpackb(bytes.fromhex(case["wire"]))[0].hex() == case["payload"]
        assert list(fields) == ["d", "k", "m", "n", "r", "t"]
        assert fields["k"] == "roll" and fields["t"].hex() == vector["table_id"]
        assert fields["r"].hex() == case["nonce"] and len(fields["r"]) == 16
        assert (fields["m"], fields["n"], fields["d"].hex()) == (
            case["member"], case["count"], case["head"],
        )  # fmt: skip
        assert case["head"] == heads[case["count"]]
        # Answered as a sync request: the records after the caller's, none when up to date.
        assert case["answer"] == list(range(case["count"] + 1, 5))
        here = case["here"]
        said = _signed_map(here["wire"], here["identity_seed"])
        assert list(said) == ["d", "k", "m", "n", "r", "t"] and said["k"] == "here"
        assert said["r"] == fields["r"] and said["t"] == fields["t"]
        assert (said["m"], said["n"], said["d"].hex()) == (0, 4, heads[4])
    refused = {case["label"]: case for case in vector["refused"]}
    assert sorted(refused) == sorted(
        [
            "a roll call without its nonce",
            "a sync request carrying a nonce",
            "a here whose nonce is 15 bytes",
            "an unknown kind",
        ]
    )
    for case in refused.values():
        _signed_map(case["wire"], case["identity_seed"])  # validly signed all the same


def test_hello_frames_independently() -> None:
    kinds = []
    for case in load("wire_hello.json")["cases"]:  # type: ignore[attr-defined]
        frame = bytes.fromhex(case["frame"])
        data = msgpack.unpackb(frame)
        assert list(data) == sorted(data) and len(frame) <= 512
        assert msgpack.packb(data, use_bin_type=True) == frame
        for key, value in case["data"].items():
            assert data[key] == (bytes.fromhex(value["bin"]) if isinstance(value, dict) else value)
        kinds.append(data["k"])
    assert kinds == [
        "table",
        "create",
        "claim",
        "claim",
        "open",
        "ok",
        "created",
        "claimed",
        *["error"] * 7,
    ]


def test_create_proof_independently() -> None:
    """The create hello's signature and password proof, from wire.md §5.0's formulas."""
    vector = load("wire_hello.json")["create_proof"]  # type: ignore[index]
    host = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(vector["host_seed"]))
    key = host.public_key().public_bytes_raw()
    nonce = bytes.fromhex(vector["nonce"])
    table_id = bytes.fromhex(vector["table_id"])
    secret = bytes.fromhex(vector["join_secret"])
    link = hmac.new(secret, b"tarot-p2p/link-key/v1\x00", hashlib.sha256).digest()[:16]
    assert link.hex() == vector["link_key"]
    signed = b"tarot-p2p/relay-create/v2\x00" + vector["time"].to_bytes(8, "big") + nonce + key
    signed += table_id + link
    assert signed.hex() == vector["signed"]
    host.public_key().verify(bytes.fromhex(vector["signature"]), signed)
    password_key = hashlib.sha256(
        b"tarot-p2p/relay-password/v1\x00" + vector["password"].encode()
    ).digest()
    assert password_key.hex() == vector["password_key"]
    proof = hmac.new(password_key, signed, hashlib.sha256).hexdigest()
    assert proof == vector["proof"]
    (create,) = [
        c
        for c in load("wire_hello.json")["cases"]  # type: ignore[attr-defined]
        if c["label"] == "create hello"
    ]
    fields = msgpack.unpackb(bytes.fromhex(create["frame"]))
    assert fields == {
        "k": "create",
        "n": vector["time"],
        "r": nonce,
        "h": key,
        "t": table_id,
        "l": link,
        "g": bytes.fromhex(vector["signature"]),
        "w": bytes.fromhex(proof),
    }
