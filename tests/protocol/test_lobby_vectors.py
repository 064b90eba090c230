"""The lobby vector is recomputed byte for byte, and checked from lobby.md alone."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.meet.lobby import clean_name
from tests.protocol.lobby_vectors import VECTOR_DIR, build, render

STORED: dict[str, Any] = json.loads((VECTOR_DIR / "lobby_join.json").read_text(encoding="utf-8"))

# lobby.md §1: the white space of a name, code point by code point.
WHITE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)


def normalise(name: str) -> str:
    return " ".join(p for p in re.split(f"[{re.escape(WHITE)}]+", name) if p)


def test_vector_is_reproduced_exactly() -> None:
    assert render(build()) == (VECTOR_DIR / "lobby_join.json").read_text(encoding="utf-8")


def seat_proof(identity: bytes) -> bytes:
    """lobby.md §1: HMAC-SHA256(join secret, "tarot-p2p/seat/v1" || 0x00 || t || i)."""
    message = b"tarot-p2p/seat/v1\x00" + bytes.fromhex(STORED["table_id"]) + identity
    return hmac.new(bytes.fromhex(STORED["join_secret"]), message, hashlib.sha256).digest()


def test_the_link_key_and_the_refused_requests_independently() -> None:
    """wire.md §5.2: the link key; lobby.md §2: requests whose proof is not the secret's."""
    secret = bytes.fromhex(STORED["join_secret"])
    key = hmac.new(secret, b"tarot-p2p/link-key/v1\x00", hashlib.sha256).digest()[:16]
    assert STORED["link_key"] == key.hex()
    for case in STORED["refused"]:
        payload, signature = msgpack.unpackb(bytes.fromhex(case["wire"]))
        fields = msgpack.unpackb(payload)
        sybil = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(case["identity_seed"]))
        sybil.public_key().verify(signature, b"tarot-p2p/join-request/v2\x00" + payload)
        assert fields["p"] != seat_proof(fields["i"])


def test_requests_independently() -> None:
    taken = [normalise(" Ana ")]
    assert STORED["host_name"] == taken[0]
    for request in STORED["requests"]:
        key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(request["identity_seed"]))
        payload = bytes.fromhex(request["payload"])
        signed = b"tarot-p2p/join-request/v2\x00" + payload
        assert bytes.fromhex(request["signature_input"]) == signed
        key.public_key().verify(bytes.fromhex(request["signature"]), signed)
        assert (
            msgpack.packb([payload, bytes.fromhex(request["signature"])]).hex() == (request["wire"])
        )
        fields = msgpack.unpackb(payload)
        assert list(fields) == ["i", "k", "n", "p", "t", "v"] and fields["v"] == 5
        assert fields["i"].hex() == request["identity_public"] and fields["k"] == "join"
        assert fields["p"] == seat_proof(fields["i"]) and fields["p"].hex() == request["seat_proof"]
        assert fields["t"].hex() == STORED["table_id"] and fields["n"] == request["name"]
        name = normalise(fields["n"])
        assert name == normalise(request["typed"])
        suffix = 2
        seated = name
        while seated.casefold() in {t.casefold() for t in taken}:
            seated, suffix = f"{name[:58]} ({suffix})", suffix + 1
        assert request["seated_as"] == seated
        taken.append(seated)
    assert STORED["roster_names"] == taken


def test_leave_independently() -> None:
    """lobby.md §1.1 and §2: the leave request's bytes, and the seat it frees."""
    leave = STORED["leave"]
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(leave["identity_seed"]))
    payload = bytes.fromhex(leave["payload"])
    signed = b"tarot-p2p/join-request/v2\x00" + payload
    assert bytes.fromhex(leave["signature_input"]) == signed
    key.public_key().verify(bytes.fromhex(leave["signature"]), signed)
    assert msgpack.packb([payload, bytes.fromhex(leave["signature"])]).hex() == leave["wire"]
    fields = msgpack.unpackb(payload)
    assert list(fields) == ["i", "k", "n", "p", "t", "v"] and fields["k"] == "leave"
    assert fields["p"] == seat_proof(fields["i"])
    assert fields["t"].hex() == STORED["table_id"]
    gone = next(r for r in STORED["requests"] if r["identity_public"] == fields["i"].hex())
    assert fields["n"] == gone["name"]
    expected = [n for n in STORED["roster_names"] if n != gone["seated_as"]]
    assert STORED["roster_after_leave"] == expected and len(expected) == 4


def test_our_normalisation_is_the_specs() -> None:
    """The reference's white space (``str.split``, i.e. ``str.isspace``) is lobby.md's list."""
    assert {chr(c) for c in range(0x110000) if chr(c).isspace()} == set(WHITE)
    for c in WHITE:
        assert clean_name(f" a{c}{c}b{c}") == "a b"


# CaseFolding.txt (Unicode 14.0.0), the entries the folding vector needs: status C (simple)
# for the capitals, status F (full: one letter to several) for \u00df and \ufb01.
FULL_FOLDING = {**{chr(c): chr(c + 32) for c in range(0x41, 0x5B)}, "\u00df": "ss", "\ufb01": "fi"}


def fold(name: str) -> str:
    return "".join(FULL_FOLDING.get(c, c) for c in name)


def test_folding_independently() -> None:
    """lobby.md §2: a name is taken when its full case folding is a taken one's; Python's
    ``str.casefold`` is that folding (checked on these letters)."""
    folding = STORED["folding"]
    taken = [folding["host_name"]]
    for request in folding["requests"]:
        name, suffix = request["typed"], 2
        seated = name
        while fold(seated) in {fold(t) for t in taken}:
            seated, suffix = f"{name[:58]} ({suffix})", suffix + 1
        assert request["seated_as"] == seated and seated.casefold() == fold(seated).casefold()
        taken.append(seated)
    assert folding["roster_names"] == taken
    assert [r["seated_as"] != r["typed"] for r in folding["requests"]] == [True, False, True, True]
    assert all(fold(k) == k.casefold() for k in FULL_FOLDING)
