from __future__ import annotations

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.net.joincode import CHECKSUM_TAG, JoinCode, JoinCodeError
from tarot_p2p.protocol.identity import fingerprint

CODE = JoinCode("192.168.1.20", 4790, bytes(range(32)), b"\x07" * 16, b"\x09" * 16)


def test_round_trip_and_form() -> None:
    text = CODE.encode()
    assert text.startswith("tp2p1-") and text == text.lower() and "=" not in text
    assert JoinCode.decode(text) == CODE
    assert JoinCode.decode(f"  {text}\n") == CODE


def test_the_relay_flag_round_trips() -> None:
    relayed = JoinCode(CODE.host, CODE.port, CODE.table_id, CODE.hub_fingerprint, CODE.secret, True)
    assert JoinCode.decode(relayed.encode()).relay and not JoinCode.decode(CODE.encode()).relay


def encoded(body: bytes) -> str:
    """``body`` with its checksum, as a code's text (a hand-made code of any version)."""
    raw = body + hashlib.sha256(CHECKSUM_TAG + body).digest()[:4]
    return "tp2p1-" + base64.b32encode(raw).decode().rstrip("=").lower()


def test_a_version_1_code_is_still_read_as_a_hub_code() -> None:
    fields = CODE.table_id + CODE.hub_fingerprint + CODE.secret + (4790).to_bytes(2, "big")
    text = encoded(bytes([1]) + fields + bytes([12]) + b"192.168.1.20")
    assert JoinCode.decode(text) == CODE


@pytest.mark.parametrize("head", [bytes([2, 2]), bytes([2, 0x81]), bytes([3, 0])])
def test_unknown_flags_and_versions_are_refused(head: bytes) -> None:
    fields = CODE.table_id + CODE.hub_fingerprint + CODE.secret + (4790).to_bytes(2, "big")
    with pytest.raises(JoinCodeError, match=r"flags|version"):
        JoinCode.decode(encoded(head + fields + bytes([1]) + b"h"))


def test_typo_is_caught_by_the_checksum() -> None:
    text = CODE.encode()
    typo = text[:20] + ("a" if text[20] != "a" else "b") + text[21:]
    with pytest.raises(JoinCodeError, match="checksum"):
        JoinCode.decode(typo)


@pytest.mark.parametrize("text", ["", "tp2p1-", "tp2p2-abc", "tp2p1-!!!!", "tp2p1-aaaa"])
def test_garbage(text: str) -> None:
    with pytest.raises(JoinCodeError):
        JoinCode.decode(text)


@pytest.mark.parametrize(
    "fields",
    [
        ("h", 0, bytes(32), bytes(16), bytes(16)),
        ("h", 1, bytes(31), bytes(16), bytes(16)),
        ("h", 1, bytes(32), bytes(15), bytes(16)),
        ("h", 1, bytes(32), bytes(16), bytes(17)),
        ("", 1, bytes(32), bytes(16), bytes(16)),
        ("é", 1, bytes(32), bytes(16), bytes(16)),
    ],
)
def test_invalid_fields(fields: tuple[str, int, bytes, bytes, bytes]) -> None:
    with pytest.raises(JoinCodeError):
        JoinCode(*fields)


def test_fingerprint_depends_on_the_key() -> None:
    a = Ed25519PrivateKey.from_private_bytes(b"\x01" * 32).public_key()
    b = Ed25519PrivateKey.from_private_bytes(b"\x02" * 32).public_key()
    assert len(fingerprint(a)) == 16 and fingerprint(a) != fingerprint(b)
