"""Who may make a table at a relay: the proof in a ``create`` hello, made by the host and
checked by the relay (``wire.md`` §5.0).

Why: a relay on the internet is reached by anyone, and every table it makes holds room
(memory, a place among its tables) for twenty minutes. Its operator may keep that room for
the hosts it knows: those who give its password, or those whose identity keys are on its
list. The host always proves both things the same way, so one hello serves every relay:

    signed    = "tarot-p2p/relay-create/v2" || 0x00 || u64 time || nonce (16) || host key (32)
                || table id (32) || link key (16)
    signature = Ed25519-Sign(host identity key, signed)
    proof     = HMAC-SHA256(SHA-256("tarot-p2p/relay-password/v1" || 0x00 || password), signed)

with ``time`` the host's clock in Unix seconds and an empty password when the host has
none. The host draws the table id and the join secret; the relay is given only the link
key made from it (:func:`~.joincode.link_key`), and the signature binds both to the host.
(Not the relay's identity key: the host learns it only from the answer.) The password never
travels. A relay accepts a hello whose ``time`` is within
:data:`CLOCK_SKEW` of its own clock and whose nonce it has not accepted before (it keeps
them that long), so a recorded hello cannot be replayed. Like any challenge over a
password, a recorded proof lets its holder test passwords offline: a relay's password
should be several words, not one.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import time
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.net.hello import CreateHello
from tarot_p2p.net.limits import Refusal
from tarot_p2p.protocol.identity import FINGERPRINT_LEN, fingerprint, identity_bytes

SIGNED_TAG = b"tarot-p2p/relay-create/v2\x00"
PASSWORD_TAG = b"tarot-p2p/relay-password/v1\x00"
NONCE_LEN = 16
CLOCK_SKEW = 600
"""Seconds a create hello's time may differ from the relay's clock."""


def _signed(when: int, nonce: bytes, host: bytes, table_id: bytes, key: bytes) -> bytes:
    return SIGNED_TAG + when.to_bytes(8, "big") + nonce + host + table_id + key


def _password_key(password: str) -> bytes:
    return hashlib.sha256(PASSWORD_TAG + password.encode()).digest()


def create_hello(
    identity: Ed25519PrivateKey,
    table_id: bytes,
    key: bytes,
    password: str = "",
    *,
    when: int | None = None,
    nonce: bytes | None = None,
) -> CreateHello:
    """The hello by which the host of ``identity`` asks a relay to hold its table
    ``table_id`` whose link key is ``key`` (``when`` and ``nonce``, now and fresh unless
    given, are given only by the test vectors)."""
    when = int(time.time()) if when is None else when
    nonce = os.urandom(NONCE_LEN) if nonce is None else nonce
    host = identity_bytes(identity.public_key())
    signed = _signed(when, nonce, host, table_id, key)
    proof = hmac.new(_password_key(password), signed, hashlib.sha256).digest()
    return CreateHello(when, nonce, host, table_id, key, identity.sign(signed), proof)


class AllowedHostsError(ValueError):
    """The file of allowed host keys cannot be used (the message says what to fix)."""


def read_allowed_hosts(path: Path) -> frozenset[bytes]:
    """Key fingerprints, one a line (32 hex digits, as ``key ...`` lines show them); blank
    lines and ``#`` comments are skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise AllowedHostsError(f"cannot read {path} ({exc})") from None
    found = set()
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip().lower()
        if not text:
            continue
        try:
            key = bytes.fromhex(text)
        except ValueError:
            key = b""
        if len(key) != FINGERPRINT_LEN:
            raise AllowedHostsError(
                f"{path}, line {number}: {text!r} is not a key fingerprint (32 hex digits, "
                "as the host's program prints them)"
            )
        found.add(key)
    if not found:
        raise AllowedHostsError(f"{path} lists no host key: no host could make a table")
    return frozenset(found)


class RelayAccess:
    """A relay's rule for ``create`` hellos: anyone, or only hosts with its ``password``,
    or only the hosts whose key fingerprints are in ``hosts`` (or both)."""

    def __init__(self, password: str | None = None, hosts: frozenset[bytes] | None = None) -> None:
        self._key = _password_key(password) if password else None
        self.hosts = hosts
        self._accepted: dict[bytes, float] = {}

    @property
    def open(self) -> bool:
        """Whether any host may make tables here."""
        return self._key is None and self.hosts is None

    def check(self, hello: CreateHello, now: float | None = None) -> None:
        """Raise :class:`~.limits.Refusal` unless ``hello`` may make a table now. At a relay
        that restricts its tables, a hello that may is remembered (for twice the allowed
        clock difference), so that it cannot be used twice; only hosts who may make tables
        can add to that memory."""
        now = time.time() if now is None else now
        if abs(hello.time - now) > CLOCK_SKEW:
            raise Refusal("clock", f"create hello {hello.time - now:+.0f} s off")
        signed = _signed(hello.time, hello.nonce, hello.host, hello.table_id, hello.link_key)
        # The cheap checks first (a hash each), the signature last: a flood of hellos
        # without the password costs the relay no signature check.
        if self._key is not None:
            expected = hmac.new(self._key, signed, hashlib.sha256).digest()
            if not hmac.compare_digest(expected, hello.proof):
                raise Refusal("password", "create hello: wrong password")
        try:
            key = Ed25519PublicKey.from_public_bytes(hello.host)
            if self.hosts is not None and fingerprint(key) not in self.hosts:
                raise Refusal("not-allowed", "create hello: host key not listed")
            key.verify(hello.signature, signed)
        except (InvalidSignature, ValueError):
            raise Refusal("bad-hello", "create hello: bad signature") from None
        if self.open:
            return  # anyone may make a table: a replayed hello is just another one
        for nonce in [n for n, at in self._accepted.items() if now - at > 2 * CLOCK_SKEW]:
            del self._accepted[nonce]
        if hello.nonce in self._accepted:
            raise Refusal("bad-hello", "create hello: replayed")
        self._accepted[hello.nonce] = now
