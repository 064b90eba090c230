from __future__ import annotations

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.protocol.codec import encode
from tarot_p2p.protocol.envelope import (
    SignedEnvelope,
    open_envelope,
    seal,
    signature_input,
)
from tarot_p2p.protocol.errors import (
    LocalProtocolError,
    RemoteProtocolError,
    SeatViolation,
    UnattributedMessage,
)

TABLE = bytes(range(32))
OTHER_TABLE = bytes(32)
KEYS = [Ed25519PrivateKey.from_private_bytes(bytes([i + 1]) * 32) for i in range(4)]
ROSTER = {seat: key.public_key() for seat, key in enumerate(KEYS)}
PREV = b"\x11" * 32


def make(seat: int = 1, body: dict[str, object] | None = None, **kw: object) -> SignedEnvelope:
    fields: dict[str, object] = {
        "table_id": TABLE,
        "hand": 2,
        "seq": 7,
        "seat": seat,
        "prev": PREV,
        "kind": "bid",
    }
    fields.update(kw)
    return seal(KEYS[seat], body=body if body is not None else {"x": 1}, **fields)  # type: ignore[arg-type]


def signed_wire(fields: dict[str, object], key: Ed25519PrivateKey) -> bytes:
    payload = encode(fields)
    return encode([payload, key.sign(signature_input(payload))])


def base_fields(seat: int = 1) -> dict[str, object]:
    return {
        "v": PROTOCOL_VERSION,
        "t": TABLE,
        "h": 2,
        "q": 7,
        "s": seat,
        "d": PREV,
        "k": "bid",
        "b": {},
    }


def test_round_trip_keeps_exact_bytes() -> None:
    env = make(body={"card": 21, "proof": b"\x00" * 40})
    again = open_envelope(env.wire, table_id=TABLE, roster=ROSTER)
    assert again == env
    assert (again.hand, again.seq, again.seat, again.kind) == (2, 7, 1, "bid")
    assert again.body == {"card": 21, "proof": b"\x00" * 40}
    assert again.slot == (2, 7)
    assert msgpack.unpackb(env.wire) == [env.payload, env.signature]


def test_non_canonical_encoding_is_verified_as_received() -> None:
    env = make()
    # Same payload and signature, outer array written with bin32 headers: still valid,
    # because nothing is re-encoded; the payload bytes are what was signed.
    wire = (
        b"\x92\xc6"
        + len(env.payload).to_bytes(4, "big")
        + env.payload
        + b"\xc6"
        + (64).to_bytes(4, "big")
        + env.signature
    )
    assert open_envelope(wire, table_id=TABLE, roster=ROSTER).payload == env.payload


def test_bad_signature_blames_nobody() -> None:
    env = make()
    wire = encode([env.payload, env.signature[:-1] + bytes([env.signature[-1] ^ 1])])
    with pytest.raises(UnattributedMessage, match="bad signature"):
        open_envelope(wire, table_id=TABLE, roster=ROSTER)


def test_message_claiming_another_seat_is_refused() -> None:
    wire = signed_wire(base_fields(seat=2), KEYS[1])  # seat 1 signs, claims seat 2
    with pytest.raises(UnattributedMessage, match="bad signature"):
        open_envelope(wire, table_id=TABLE, roster=ROSTER)


def test_seat_outside_roster() -> None:
    env = make(seat=3)
    with pytest.raises(UnattributedMessage, match="not in roster"):
        open_envelope(env.wire, table_id=TABLE, roster={0: ROSTER[0]})


@pytest.mark.parametrize("cut", [0, 1, 5, 40, -1])
def test_truncated(cut: int) -> None:
    wire = make().wire
    with pytest.raises(UnattributedMessage):
        open_envelope(wire[:cut], table_id=TABLE, roster=ROSTER)


def test_replay_under_another_table_id() -> None:
    env = seal(KEYS[0], table_id=OTHER_TABLE, hand=2, seq=7, seat=0, prev=PREV, kind="bid", body={})
    with pytest.raises(UnattributedMessage, match="another table"):
        open_envelope(env.wire, table_id=TABLE, roster=ROSTER)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"v": 1}, "version"),
        ({"x": 1}, "unknown keys"),
        ({"d": b"\x00" * 31}, "length"),
        ({"k": "Bad Kind"}, "kind"),
        ({"b": []}, "map"),
        ({"h": -1}, "integer|not in"),
    ],
)
def test_signed_defects_are_attributed(change: dict[str, object], why: str) -> None:
    wire = signed_wire({**base_fields(1), **change}, KEYS[1])
    with pytest.raises(SeatViolation, match=why) as info:
        open_envelope(wire, table_id=TABLE, roster=ROSTER)
    assert info.value.seat == 1
    assert info.value.evidence == (wire,)


@pytest.mark.parametrize(
    "wire",
    [
        encode([b"x"]),
        encode({"a": 1}),
        encode([b"x", b"y" * 64, b"z"]),
        encode(["text", b"y" * 64]),
        encode([b"x", b"short"]),
        encode([encode([1, 2]), b"y" * 64]),
        encode([b"\xc1", b"y" * 64]),
    ],
)
def test_malformed_structure(wire: bytes) -> None:
    with pytest.raises(UnattributedMessage):
        open_envelope(wire, table_id=TABLE, roster=ROSTER)


def test_local_misuse() -> None:
    with pytest.raises(LocalProtocolError, match="kind"):
        make(kind="No")
    with pytest.raises(LocalProtocolError, match="encode"):
        make(body={"x": 1.5})
    with pytest.raises(LocalProtocolError, match="refused"):
        make(prev=b"short")
    with pytest.raises(LocalProtocolError, match="refused"):
        seal(KEYS[0], table_id=TABLE, hand=0, seq=0, seat=99, prev=PREV, kind="bid", body={})


@given(st.integers(min_value=0), st.integers(min_value=0, max_value=255))
@settings(max_examples=300)
def test_any_corruption_is_refused_or_harmless(index: int, byte: int) -> None:
    env = make(body={"cards": list(range(10))})
    wire = bytearray(env.wire)
    wire[index % len(wire)] = byte
    try:
        got = open_envelope(bytes(wire), table_id=TABLE, roster=ROSTER)
    except RemoteProtocolError:
        return
    assert (got.payload, got.signature) == (env.payload, env.signature)


def test_non_canonical_payload_is_accepted_and_kept_byte_for_byte() -> None:
    # Keys unsorted and the hand number written as uint32: not our fixed form, but valid
    # msgpack of a valid payload. The signature covers these bytes, so they must be kept.
    fields = base_fields(1)
    payload = b"\x88" + b"".join(
        msgpack.packb(key) + (b"\xce\x00\x00\x00\x02" if key == "h" else msgpack.packb(value))
        for key, value in reversed(list(fields.items()))
    )
    assert payload != encode(fields) and msgpack.unpackb(payload) == fields
    wire = encode([payload, KEYS[1].sign(signature_input(payload))])
    env = open_envelope(wire, table_id=TABLE, roster=ROSTER)
    assert env.payload == payload and env.hand == 2
