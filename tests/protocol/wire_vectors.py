"""Generator of the wire test vectors in ``protocol/vectors/wire_*.json``.

Run ``python -m tests.protocol.wire_vectors`` to rewrite them after a deliberate change of
the wire format; ``test_wire_vectors.py`` recomputes them on every run and also checks
them independently (with ``hashlib``/``hmac``/plain Ed25519), so a silent change in the
code cannot go unnoticed. All keys are fixed, and Ed25519 signatures are deterministic, so
every byte is reproducible.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from tarot_p2p.net.access import PASSWORD_TAG, SIGNED_TAG, create_hello
from tarot_p2p.net.handshake import Initiator, Responder, prologue
from tarot_p2p.net.hello import (
    Answer,
    Claimed,
    ClaimHello,
    Created,
    CreateHello,
    Hello,
    Ok,
    OpenHello,
    Refused,
    TableHello,
    encode_frame,
)
from tarot_p2p.net.joincode import CHECKSUM_TAG, JoinCode, link_key
from tarot_p2p.net.link import LAST
from tarot_p2p.net.noise import public_bytes
from tarot_p2p.protocol.codec import Value, decode, encode
from tarot_p2p.protocol.envelope import SignedEnvelope, seal, signature_input
from tarot_p2p.protocol.identity import FINGERPRINT_TAG, fingerprint, identity_bytes
from tarot_p2p.protocol.sync import (
    HERE_KIND,
    SYNC_DOMAIN,
    answer,
    read_sync_request,
    roll_call,
    sync_request,
)
from tarot_p2p.protocol.transcript import Transcript, file_header, file_record

VECTOR_DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
TABLE_ID = hashlib.sha256(b"tarot-p2p test table").digest()
BINDING = hashlib.sha256(b"tarot-p2p test configuration").digest()


def seed(label: str) -> bytes:
    return hashlib.sha256(b"tarot-p2p vector key " + label.encode()).digest()


def identity(label: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(seed(label))


def dh_key(label: str) -> X25519PrivateKey:
    return X25519PrivateKey.from_private_bytes(seed(label))


def as_data(value: Value) -> object:
    """A protocol value as JSON data: a byte string is ``{"bin": HEX}``, the rest as is."""
    if isinstance(value, bytes):
        return {"bin": value.hex()}
    if isinstance(value, list):
        return [as_data(v) for v in value]
    if isinstance(value, dict):
        return {k: as_data(v) for k, v in value.items()}
    return value


def envelope_case(env: SignedEnvelope, label: str) -> dict[str, object]:
    return {
        "identity_seed": seed(label).hex(),
        "identity_public": identity_bytes(identity(label).public_key()).hex(),
        "version": env.version,
        "table_id": env.table_id.hex(),
        "hand": env.hand,
        "seq": env.seq,
        "seat": env.seat,
        "prev": env.prev.hex(),
        "kind": env.kind,
        "body": as_data(env.body),
        "body_msgpack": encode(env.body).hex(),
        "payload": env.payload.hex(),
        "signature_input": signature_input(env.payload).hex(),
        "signature": env.signature.hex(),
        "wire": env.wire.hex(),
    }


def envelope_vectors() -> dict[str, object]:
    cases: list[tuple[str, int, tuple[int, int], str, dict[str, Value]]] = [
        ("seat 2", 2, (3, 17), "play", {"card": 21, "proof": bytes(range(32))}),
        (
            "seat 0",
            0,
            (0, 0),
            "table.open",
            {"name": "Chez Léa", "seats": [0, 1, 2, 3], "flag": True, "none": None, "neg": -300},
        ),
        # A real table.md message at both ends of its range: 2^31 is uint32 (ce), -2^31 int32 (d2).
        ("seat 1", 1, (1, 60), "score", {"scores": [1 << 31, -(1 << 31), 0]}),
    ]
    out = []
    for label, seat, (hand, seq), kind, body in cases:
        env = seal(
            identity(label),
            table_id=TABLE_ID,
            hand=hand,
            seq=seq,
            seat=seat,
            prev=hashlib.sha256(b"previous " + label.encode()).digest(),
            kind=kind,
            body=body,
        )
        out.append(envelope_case(env, label))
    return {
        "description": "Signed envelopes (protocol/wire.md, Envelopes). identity_seed is the "
        "Ed25519 private key (RFC 8032 seed); signature = Ed25519(signature_input), "
        "signature_input = 'tarot-p2p/envelope/v1' || 0x00 || payload; wire = msgpack "
        "[bin payload, bin signature]. body is the payload's b as data: JSON, with a byte "
        'string written {"bin": hex}; body_msgpack is its fixed-form encoding, as it sits in '
        "the payload. The last case is a table.md score body at both ends of its range "
        "[-2^31, 2^31].",
        "cases": out,
    }


CHAT = [
    (0, (0, 0), "hello"),
    (1, (0, 1), "hi"),
    (2, (0, 2), "bonjour"),
    (0, (1, 0), "go"),
    (1, (1, 1), "allez"),
]
"""The records of wire_transcript.json; those of hand 1 stand for a hand's opening
(``table.md`` §1.5), built on its opening chain."""


def chat_transcript(count: int = len(CHAT)) -> tuple[Transcript, list[SignedEnvelope]]:
    """The first ``count`` records of :data:`CHAT`, sealed and taken in."""
    transcript = Transcript(TABLE_ID, BINDING)
    envs = []
    for seat, (hand, seq), word in CHAT[:count]:
        transcript.opening = hand or None
        env = seal(
            identity(f"seat {seat}"),
            table_id=TABLE_ID,
            hand=hand,
            seq=seq,
            seat=seat,
            prev=transcript.expected_prev,
            kind="chat",
            body={"text": word},
        )
        transcript.append(env)
        envs.append(env)
    return transcript, envs


def taken(envs: list[SignedEnvelope]) -> Transcript:
    """A transcript holding ``envs``, records of :data:`CHAT`."""
    transcript = Transcript(TABLE_ID, BINDING)
    for env in envs:
        transcript.opening = env.hand or None
        transcript.append(env)
    return transcript


def transcript_vectors() -> dict[str, object]:
    transcript, envs = chat_transcript()
    records = []
    heads = [transcript.digest_after(i + 1) for i in range(len(envs))]
    for env, head in zip(envs, heads, strict=True):
        records.append(
            {
                "identity_seed": seed(f"seat {env.seat}").hex(),
                "seat": env.seat,
                "hand": env.hand,
                "seq": env.seq,
                "d": env.prev.hex(),
                "wire": env.wire.hex(),
                "payload_sha256": env.payload_digest.hex(),
                "digest_after": head.hex(),
            }
        )
    data = file_header(TABLE_ID, BINDING) + b"".join(file_record(e) for e in transcript)
    return {
        "description": "Transcript chain and file (protocol/wire.md, Transcript). digest_0 = "
        "SHA-256('tarot-p2p/transcript/v1/genesis' 0x00 || table_id || binding); digest_i = "
        "SHA-256('tarot-p2p/transcript/v1/link' 0x00 || digest_{i-1} || SHA-256(payload_i)). "
        "The hand-1 records stand for a hand's opening: their d is the opening chain's, "
        "open_0 = SHA-256('tarot-p2p/transcript/v1/opening' 0x00 || digest after record "
        "(0, 0)), open_j = SHA-256('tarot-p2p/transcript/v1/link' 0x00 || open_{j-1} || "
        "SHA-256(payload of (1, j - 1))); digest_after stays the transcript's chain.",
        "table_id": TABLE_ID.hex(),
        "binding": BINDING.hex(),
        "genesis": transcript.genesis.hex(),
        "records": records,
        "file": data.hex(),
    }


def sync_vectors() -> dict[str, object]:
    """Sync requests against the first four records of ``transcript_vectors``."""
    transcript, envs = chat_transcript(4)
    cases = []
    for label, member, count, head in (
        ("behind by two", 1, 2, transcript.digest_after(2)),
        ("up to date", 2, 4, transcript.digest_after(4)),
        ("split view: same length, another head", 1, 3, hashlib.sha256(b"other").digest()),
    ):
        key = identity(f"seat {member}")
        partial = taken(envs[:count])
        wire = sync_request(key, TABLE_ID, member, partial)
        if head != partial.head:  # the split-view case: re-sign with the other head
            payload = encode({"d": head, "k": "sync", "m": member, "n": count, "t": TABLE_ID})
            wire = encode([payload, key.sign(SYNC_DOMAIN + payload)])
        request = read_sync_request(wire, TABLE_ID, {member: key.public_key()})
        answered = answer(transcript, request)
        cases.append(
            {
                "label": label,
                "identity_seed": seed(f"seat {member}").hex(),
                "member": member,
                "count": count,
                "head": head.hex(),
                "wire": wire.hex(),
                "answer": [[e.wire for e in envs].index(w) + 1 for w in answered],
            }
        )
    return {
        "description": "Sync requests (protocol/wire.md §7.2) against the first four records of "
        "wire_transcript.json: payload = fixed-form map {d: head digest, k: 'sync', m: "
        "member, n: records held, t: table id}; signature = Ed25519 over 'tarot-p2p/sync/v1' "
        "0x00 || payload; wire = [payload, signature]. 'answer' lists the records (1-based) a"
        " peer holding all four sends back. 'roll_calls': a member taking its seat back from "
        "its files asks where everyone stands: payload = fixed-form map {d, k: 'roll', m, n, "
        "r: 16-byte nonce, t}, signed and sent like a sync request; 'answer' is what member 0"
        " (holding all four records) sends back as for a sync request, 'here' its answer to "
        "the roll call: the same six keys with k: 'here', its own n and d, r echoed.",
        "table_id": TABLE_ID.hex(),
        "binding": BINDING.hex(),
        "cases": cases,
        "roll_calls": roll_call_cases(transcript, envs),
        "refused": refused_roll_calls(transcript),
    }


def refused_roll_calls(transcript: Transcript) -> list[object]:
    """Signed by a member of the roster, yet not a request: a receiver ignores each."""
    key = identity("seat 1")
    fields = {"d": transcript.head, "m": 1, "n": len(transcript), "t": TABLE_ID}
    nonce = bytes(range(16))
    out: list[object] = []
    for label, payload in (
        ("a roll call without its nonce", {**fields, "k": "roll"}),
        ("a sync request carrying a nonce", {**fields, "k": "sync", "r": nonce}),
        ("a here whose nonce is 15 bytes", {**fields, "k": "here", "r": nonce[:15]}),
        ("an unknown kind", {**fields, "k": "call", "r": nonce}),
    ):
        data = encode(payload)
        wire = encode([data, key.sign(SYNC_DOMAIN + data)])
        try:
            read_sync_request(wire, TABLE_ID, {1: key.public_key()})
        except ValueError:
            out.append({"label": label, "identity_seed": seed("seat 1").hex(), "wire": wire.hex()})
            continue
        raise AssertionError(f"{label} was accepted")
    return out


def roll_call_cases(transcript: Transcript, envs: list[SignedEnvelope]) -> list[object]:
    """Roll calls of members holding two and all four records, each answered by member 0,
    which holds the whole ``transcript`` (``wire.md`` §7.2, ``table.md`` §7)."""
    answerer = identity("seat 0")
    roster = {i: identity(f"seat {i}").public_key() for i in range(3)}
    cases: list[object] = []
    for label, member, count in (("taken back two records behind", 1, 2), ("up to date", 2, 4)):
        key = identity(f"seat {member}")
        partial = taken(envs[:count])
        nonce = hashlib.sha256(f"tarot-p2p vector roll call {member}".encode()).digest()[:16]
        wire = roll_call(key, TABLE_ID, member, partial, nonce)
        request = read_sync_request(wire, TABLE_ID, roster)
        here = roll_call(answerer, TABLE_ID, 0, transcript, request.nonce, HERE_KIND)
        heard = read_sync_request(here, TABLE_ID, roster)
        assert (heard.kind, heard.nonce, heard.count) == (HERE_KIND, nonce, len(transcript))
        sent = [[e.wire for e in envs].index(w) + 1 for w in answer(transcript, request)]
        cases.append(
            {
                "label": label,
                "identity_seed": seed(f"seat {member}").hex(),
                "member": member,
                "count": count,
                "head": partial.head.hex(),
                "nonce": nonce.hex(),
                "payload": decode(wire)[0].hex(),  # type: ignore[index, union-attr]
                "wire": wire.hex(),
                "answer": sent,
                "here": {
                    "identity_seed": seed("seat 0").hex(),
                    "member": 0,
                    "count": len(transcript),
                    "head": transcript.head.hex(),
                    "wire": here.hex(),
                },
            }
        )
    return cases


def noise_vectors() -> dict[str, object]:
    hub, peer = identity("hub"), identity("peer")
    secret = hashlib.sha256(b"join secret").digest()[:16]
    code = JoinCode("127.0.0.1", 4790, TABLE_ID, fingerprint(hub.public_key()), secret)
    keys = {
        name: dh_key(name)
        for name in ("init_static", "init_ephemeral", "resp_static", "resp_ephemeral")
    }
    initiator = Initiator(peer, code, static=keys["init_static"], ephemeral=keys["init_ephemeral"])
    responder = Responder(
        hub,
        TABLE_ID,
        link_key(secret),
        static=keys["resp_static"],
        ephemeral=keys["resp_ephemeral"],
    )
    message1 = initiator.message1()
    responder.read_message1(message1)
    message2 = responder.message2()
    initiator.read_message2(message2)
    message3, peer_session = initiator.message3()
    hub_session = responder.read_message3(message3)
    to_hub = peer_session.send.encrypt_with_ad(b"", bytes([LAST]) + b"ping")
    to_peer = hub_session.send.encrypt_with_ad(b"", bytes([LAST]) + b"pong")
    return {
        "description": "Noise_XX_25519_ChaChaPoly_SHA256 link handshake with identity payloads "
        "(protocol/wire.md, Handshake). Private keys are raw X25519 / Ed25519 seeds. The "
        "transport messages are the first chunk each way (flag 0x00 = last, then the data). "
        "link_key = HMAC-SHA256(join_secret, 'tarot-p2p/link-key/v1' 0x00)[:16]; message 3's "
        "join proof j = HMAC-SHA256(link_key, 'tarot-p2p/join/v2' 0x00 || h).",
        "table_id": TABLE_ID.hex(),
        "prologue": prologue(TABLE_ID).hex(),
        "hub_identity_seed": seed("hub").hex(),
        "peer_identity_seed": seed("peer").hex(),
        "join_secret": secret.hex(),
        "link_key": link_key(secret).hex(),
        **{f"{name}_private": seed(name).hex() for name in keys},
        **{f"{name}_public": public_bytes(key).hex() for name, key in keys.items()},
        "messages": [message1.hex(), message2.hex(), message3.hex()],
        "handshake_hash": peer_session.handshake_hash.hex(),
        "transport_initiator_to_responder": {"plaintext": "0070696e67", "ciphertext": to_hub.hex()},
        "transport_responder_to_initiator": {
            "plaintext": "00706f6e67",
            "ciphertext": to_peer.hex(),
        },
    }


def joincode_vectors() -> dict[str, object]:
    hub = identity("hub")
    secret = hashlib.sha256(b"join secret").digest()[:16]
    hub_fp = fingerprint(hub.public_key())
    cases = []
    for label, host, port, relay in (
        ("the host's own hub", "tarot.example.org", 4790, False),
        ("a standalone relay (flags bit 0)", "203.0.113.7", 7770, True),
        ("a relay at an IPv6 address: written bare, no brackets", "2001:db8::7", 7770, True),
    ):
        code = JoinCode(host, port, TABLE_ID, hub_fp, secret, relay)
        cases.append(
            {
                "label": label,
                "host": code.host,
                "port": code.port,
                "relay": code.relay,
                "code": code.encode(),
            }
        )
    v1_body = (
        bytes([1]) + TABLE_ID + hub_fp + secret + (4790).to_bytes(2, "big")
        + bytes([17]) + b"tarot.example.org"
    )  # fmt: skip
    v1_raw = v1_body + hashlib.sha256(CHECKSUM_TAG + v1_body).digest()[:4]
    return {
        "description": "Join codes (protocol/wire.md §6), version 2, and a version-1 code that "
        "readers still accept (flags 0). fingerprint = SHA-256('tarot-p2p/fingerprint/v1' 0x00 "
        "|| Ed25519 public key)[:16].",
        "hub_identity_public": identity_bytes(hub.public_key()).hex(),
        "fingerprint_input": (FINGERPRINT_TAG + identity_bytes(hub.public_key())).hex(),
        "table_id": TABLE_ID.hex(),
        "hub_fingerprint": hub_fp.hex(),
        "join_secret": secret.hex(),
        "cases": cases,
        "version_1": {
            "host": "tarot.example.org",
            "port": 4790,
            "code": "tp2p1-" + base64.b32encode(v1_raw).decode().rstrip("=").lower(),
        },
    }


CREATE_TIME = 1_767_225_600
"""2026-01-01T00:00:00Z, the create hello's clock in the vectors."""
CREATE_PASSWORD = "three little words"


def create_vector() -> tuple[CreateHello, dict[str, object]]:
    """The create hello of the host ``host`` for a relay whose password is
    ``CREATE_PASSWORD``, and every intermediate value of its proof (``wire.md`` §5.0)."""
    host = identity("host")
    nonce = hashlib.sha256(b"create nonce").digest()[:16]
    secret = hashlib.sha256(b"join secret").digest()[:16]
    key = link_key(secret)
    hello = create_hello(host, TABLE_ID, key, CREATE_PASSWORD, when=CREATE_TIME, nonce=nonce)
    signed = SIGNED_TAG + CREATE_TIME.to_bytes(8, "big") + nonce + hello.host + TABLE_ID + key
    return hello, {
        "host_seed": seed("host").hex(),
        "password": CREATE_PASSWORD,
        "time": CREATE_TIME,
        "nonce": nonce.hex(),
        "table_id": TABLE_ID.hex(),
        "join_secret": secret.hex(),
        "link_key": key.hex(),
        "signed": signed.hex(),
        "password_key": hashlib.sha256(PASSWORD_TAG + CREATE_PASSWORD.encode()).hexdigest(),
        "signature": hello.signature.hex(),
        "proof": hello.proof.hex(),
    }


def hello_vectors() -> dict[str, object]:
    relay = identity("relay")
    create, proof = create_vector()
    frames: list[tuple[str, Hello | Answer]] = [
        ("table hello", TableHello(TABLE_ID)),
        ("create hello", create),
        ("claim hello, any channel", ClaimHello(0)),
        ("claim hello, channel 7 if free", ClaimHello(7)),
        ("open hello", OpenHello(7)),
        ("ok", Ok()),
        (
            "created",
            Created(
                TABLE_ID,
                identity_bytes(relay.public_key()),
                "relay.example.org:7770",
            ),
        ),
        ("claimed", Claimed(7)),
        ("error", Refused("no-table")),
        ("error, too many from one address", Refused("too-many")),
        ("error, password", Refused("password")),
        ("error, host not allowed", Refused("not-allowed")),
        ("error, clock", Refused("clock")),
        ("error, too many wrong codes", Refused("tries")),
        ("error, claim without a table", Refused("no-host")),
    ]
    return {
        "description": "Hello frames and their answers (protocol/wire.md §5.0): each as data "
        "and as the frame's bytes (fixed-form msgpack, without the 4-byte length); the "
        "create hello's proof for the password of create_proof, step by step.",
        "create_proof": proof,
        "cases": [
            {
                "label": label,
                "data": as_data(msgpack_data(frame)),
                "frame": encode_frame(frame).hex(),
            }
            for label, frame in frames
        ],
    }


def msgpack_data(frame: Hello | Answer) -> Value:
    data: Value = decode(encode_frame(frame))
    return data


def build() -> dict[str, dict[str, object]]:
    return {
        "wire_envelope.json": envelope_vectors(),
        "wire_transcript.json": transcript_vectors(),
        "wire_noise.json": noise_vectors(),
        "wire_joincode.json": joincode_vectors(),
        "wire_hello.json": hello_vectors(),
        "wire_sync.json": sync_vectors(),
    }


def render(data: dict[str, object]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    VECTOR_DIR.mkdir(parents=True, exist_ok=True)
    for name, data in build().items():
        (VECTOR_DIR / name).write_text(render(data), encoding="utf-8")
        print(f"wrote {VECTOR_DIR / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
