"""Join codes: one copy-pasteable string that says where the table is and lets you sit.

A join code carries the hub's address, the table id, a fingerprint of the hub's Ed25519
identity (so the joining peer knows it reached the right hub, not a man in the middle),
the join secret (the hub admits only links that prove its derived *link key*, and the host
seats only joiners that prove the secret itself, ``lobby.md`` §1) and whether the
hub is a standalone relay (then it does not name the host, and the joiner must learn the
host's key another way: the short code's rendezvous, or ``--host-key``).

Normative form (``protocol/wire.md`` §6)::

    "tp2p1-" + lowercase RFC 4648 base32 without padding of
        u8 version (=2) || u8 flags || table_id (32) || hub fingerprint (16)
        || join secret (16) || u16 port || u8 host length || host (ASCII) || checksum (4)

with ``checksum = SHA-256(CHECKSUM_TAG || everything before it)[:4]``, which turns a typo
into a clear error instead of a failed handshake. Version 1 (no flags byte, flags 0) is
still read, so the tickets saved before version 2 keep working.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from dataclasses import dataclass

from tarot_p2p.protocol.identity import FINGERPRINT_LEN

PREFIX = "tp2p1-"
VERSION = 2
FLAG_RELAY = 0x01
"""Flags bit 0: the hub is a standalone relay, its identity is not the host's."""
SECRET_LEN = 16
TABLE_ID_LEN = 32
CHECKSUM_TAG = b"tarot-p2p/joincode/v1\x00"
LINK_KEY_TAG = b"tarot-p2p/link-key/v1\x00"
LINK_KEY_LEN = 16


def link_key(secret: bytes) -> bytes:
    """The key a hub checks in the handshake's join proof (``wire.md`` §5.2): made from the
    join secret by a one-way function, so a relay given it (in the ``create`` hello) can
    admit links to its table but cannot make the seat proofs of the lobby, which need the
    secret itself (``lobby.md`` §1)."""
    return hmac.new(secret, LINK_KEY_TAG, hashlib.sha256).digest()[:LINK_KEY_LEN]


class JoinCodeError(ValueError):
    """A string that is not a valid join code."""


@dataclass(frozen=True, slots=True)
class JoinCode:
    host: str
    port: int
    table_id: bytes
    hub_fingerprint: bytes
    secret: bytes
    relay: bool = False

    def __post_init__(self) -> None:
        if len(self.table_id) != TABLE_ID_LEN:
            raise JoinCodeError("table id must be 32 bytes")
        if len(self.hub_fingerprint) != FINGERPRINT_LEN:
            raise JoinCodeError("hub fingerprint must be 16 bytes")
        if len(self.secret) != SECRET_LEN:
            raise JoinCodeError("join secret must be 16 bytes")
        if not 0 < self.port < 65536:
            raise JoinCodeError(f"bad port {self.port}")
        if not self.host.isascii() or not 0 < len(self.host) < 256 or " " in self.host:
            raise JoinCodeError(f"bad host {self.host!r}")

    def encode(self) -> str:
        host = self.host.encode("ascii")
        body = (
            bytes([VERSION, FLAG_RELAY if self.relay else 0])
            + self.table_id
            + self.hub_fingerprint
            + self.secret
            + self.port.to_bytes(2, "big")
            + bytes([len(host)])
            + host
        )
        body += hashlib.sha256(CHECKSUM_TAG + body).digest()[:4]
        return PREFIX + base64.b32encode(body).decode("ascii").rstrip("=").lower()

    @classmethod
    def decode(cls, text: str) -> JoinCode:
        text = text.strip()
        if not text.startswith(PREFIX):
            raise JoinCodeError(f"a join code starts with {PREFIX!r}")
        b32 = text[len(PREFIX) :].upper()
        try:
            raw = base64.b32decode(b32 + "=" * (-len(b32) % 8))
        except (binascii.Error, ValueError) as exc:
            raise JoinCodeError(f"not base32: {exc}") from exc
        fixed = 1 + TABLE_ID_LEN + FINGERPRINT_LEN + SECRET_LEN + 2 + 1
        if len(raw) < fixed + 1 + 4:
            raise JoinCodeError("join code too short")
        body, checksum = raw[:-4], raw[-4:]
        if hashlib.sha256(CHECKSUM_TAG + body).digest()[:4] != checksum:
            raise JoinCodeError("join code checksum mismatch (typo?)")
        if body[0] == 1:
            flags, at = 0, 1
        elif body[0] == VERSION:
            flags, at = body[1], 2
        else:
            raise JoinCodeError(f"unsupported join code version {body[0]}")
        if flags & ~FLAG_RELAY:
            raise JoinCodeError(f"join code with unknown flags {flags:#04x}")
        table_id = body[at : at + TABLE_ID_LEN]
        at += TABLE_ID_LEN
        hub = body[at : at + FINGERPRINT_LEN]
        at += FINGERPRINT_LEN
        secret = body[at : at + SECRET_LEN]
        at += SECRET_LEN
        port = int.from_bytes(body[at : at + 2], "big")
        host_len = body[at + 2]
        host = body[at + 3 :]
        if len(host) != host_len:
            raise JoinCodeError("join code host length mismatch")
        try:
            host_text = host.decode("ascii")
        except UnicodeDecodeError as exc:
            raise JoinCodeError("join code host is not ASCII") from exc
        return cls(host_text, port, table_id, hub, secret, bool(flags & FLAG_RELAY))
