"""The short code's exchange: SPAKE2 turns ``7-guitar-orbit`` into the long code and the
host's key, and nobody in between learns either (``protocol/rendezvous.md``).

Theory of operation. Host and joiner share a weak password, the short code's text. Over
the hub's rendezvous channel (which only forwards, :mod:`tarot_p2p.net.channels`) they run SPAKE2
(warner's python-spake2: Ed25519 group, the joiner is side A, the host side B), which
gives both the same key ``K`` when the passwords match and unrelated keys otherwise; an
eavesdropper, the hub included, learns nothing it could test offline. Then::

    1  J -> H  {"k": "pake", "m": SPAKE2 message A}
    2  H -> J  {"k": "pake", "m": SPAKE2 message B}
    3  J -> H  {"k": "confirm", "x": HMAC-SHA256(K, JOINER_TAG || A || B)}
    4  H -> J  {"k": "table", "x": ChaCha20-Poly1305(HMAC-SHA256(K, HOST_TAG || A || B),
                                                     nonce 0, {"c": long code, "h": host key})}
       or      {"k": "refused"} when the confirmation was wrong

The host checks the confirmation in constant time; a wrong one is a wrong guess of the
password, which the caller counts (:mod:`.offer` closes the channel after ten). The joiner
accepts only a table message that decrypts under its key, so a hub that tampers with any
message, or plays SPAKE2 itself, makes the exchange fail: it can never hand over another
long code or another host key. The joiner then requires the set-up's roster key 0 to be
that host key, so the relay that carried the exchange and serves the table cannot seat
itself as the host.

Both classes are sans-IO: bytes in, bytes out, randomness from ``entropy`` (fixed in the
test vectors).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from tarot_p2p.meet.words import ShortCode
from tarot_p2p.net.joincode import JoinCode, JoinCodeError
from tarot_p2p.protocol.codec import Bytes, DecodeError, Limits, Schema, Text, decode, encode
from tarot_p2p.protocol.identity import fingerprint

if TYPE_CHECKING:
    from spake2 import SPAKE2_A, SPAKE2_B

JOINER_ID = b"tarot-p2p/joiner"
HOST_ID = b"tarot-p2p/host"
JOINER_TAG = b"tarot-p2p/rendezvous/v1/joiner\x00"
HOST_TAG = b"tarot-p2p/rendezvous/v1/host\x00"
NONCE = bytes(12)
"""Each key seals exactly one message, so the nonce is fixed."""
SPAKE2_MESSAGE = 33
"""A side byte and a 32-byte Ed25519 group element."""
_LIMITS = Limits(max_buffer_size=1024, max_str_len=300, max_bin_len=512, max_map_len=2)

Entropy = Callable[[int], bytes]


class RendezvousError(ValueError):
    """The other side (or the hub between) broke the exchange: it cannot succeed."""


class WrongCode(RendezvousError):
    """The passwords differ: the host refused the joiner's confirmation."""


@dataclass(frozen=True, slots=True)
class Invitation:
    """What the joiner learns: where and how to sit, and who the host is."""

    code: JoinCode
    host_key: bytes

    def __post_init__(self) -> None:
        if len(self.host_key) != 32:
            raise RendezvousError("a host key is 32 bytes")
        if not self.code.relay and not hmac.compare_digest(
            fingerprint(Ed25519PublicKey.from_public_bytes(self.host_key)),
            self.code.hub_fingerprint,
        ):
            raise RendezvousError("the host's own hub must have the host's key")

    def to_bytes(self) -> bytes:
        return encode({"c": self.code.encode(), "h": self.host_key})

    @classmethod
    def from_bytes(cls, data: bytes) -> Invitation:
        try:
            fields = _INVITATION.load(decode(data, _LIMITS), "invitation")
            return cls(JoinCode.decode(fields.code), fields.host_key)
        except (DecodeError, JoinCodeError, ValueError) as exc:
            raise RendezvousError(f"bad invitation: {exc}") from exc


@dataclass(frozen=True, slots=True)
class _Fields:
    code: str
    host_key: bytes


@dataclass(frozen=True, slots=True)
class _Pake:
    message: bytes


@dataclass(frozen=True, slots=True)
class _Sealed:
    data: bytes


@dataclass(frozen=True, slots=True)
class _Refused:
    pass


_INVITATION = Schema(_Fields, {"code": ("c", Text(300)), "host_key": ("h", Bytes(32))})
_SCHEMAS: dict[str, Schema[object]] = {
    "pake": Schema(_Pake, {"message": ("m", Bytes(SPAKE2_MESSAGE))}),
    "confirm": Schema(_Sealed, {"data": ("x", Bytes(32))}),
    "table": Schema(_Sealed, {"data": ("x", Bytes(16, 512))}),
    "refused": Schema(_Refused, {}),
}


def _message(kind: str, **fields: bytes) -> bytes:
    return encode({"k": kind, **fields})


def _read(data: bytes, *kinds: str) -> tuple[str, object]:
    try:
        value = decode(data, _LIMITS)
        if not isinstance(value, dict) or value.get("k") not in kinds:
            raise RendezvousError(f"expected a {' or '.join(kinds)} message")
        kind = value.pop("k")
        assert isinstance(kind, str)
        return kind, _SCHEMAS[kind].load(value, kind)
    except DecodeError as exc:
        raise RendezvousError(f"bad rendezvous message: {exc}") from exc


# _spake2: the SPAKE2 library is imported where an exchange starts, not with this module:
# it takes about 50 ms of processor time to import, which a host whose seats are all
# taken (``host --bots N``) or a joiner with a long code never needs.


def _finish(side: SPAKE2_A | SPAKE2_B, inbound: bytes) -> bytes:
    from spake2.ed25519_basic import NotOnCurve
    from spake2.spake2 import SPAKEError

    try:
        key: bytes = side.finish(inbound)
    except (SPAKEError, NotOnCurve, ValueError, AssertionError) as exc:
        raise RendezvousError(f"bad SPAKE2 message: {type(exc).__name__}") from None
    return key


def confirmation(key: bytes, message_a: bytes, message_b: bytes) -> bytes:
    return hmac.new(key, JOINER_TAG + message_a + message_b, hashlib.sha256).digest()


def sealing_key(key: bytes, message_a: bytes, message_b: bytes) -> bytes:
    return hmac.new(key, HOST_TAG + message_a + message_b, hashlib.sha256).digest()


class JoinerExchange:
    """The joiner's side: ``start``, ``read_reply``, ``read_table``, in that order."""

    def __init__(self, code: ShortCode, entropy: Entropy = os.urandom) -> None:
        from spake2 import SPAKE2_A  # (imported when used: see _spake2)

        self._spake = SPAKE2_A(code.password(), idA=JOINER_ID, idB=HOST_ID, entropy_f=entropy)
        self._a = b""
        self._seal = b""

    def start(self) -> bytes:
        self._a = self._spake.start()
        return _message("pake", m=self._a)

    def read_reply(self, data: bytes) -> bytes:
        """The host's SPAKE2 message in, the confirmation out."""
        _, pake = _read(data, "pake")
        assert isinstance(pake, _Pake)
        key = _finish(self._spake, pake.message)
        self._seal = sealing_key(key, self._a, pake.message)
        return _message("confirm", x=confirmation(key, self._a, pake.message))

    def read_table(self, data: bytes) -> Invitation:
        """The host's last message: the invitation, or :class:`WrongCode`."""
        kind, body = _read(data, "table", "refused")
        if kind == "refused":
            raise WrongCode("the host says the code is wrong")
        assert isinstance(body, _Sealed)
        try:
            plain = ChaCha20Poly1305(self._seal).decrypt(NONCE, body.data, b"")
        except InvalidTag:
            raise RendezvousError("the table message was not sealed with our key") from None
        return Invitation.from_bytes(plain)


class HostExchange:
    """The host's side for one joiner: ``answer``, then ``finish``."""

    def __init__(
        self, code: ShortCode, invitation: Invitation, entropy: Entropy = os.urandom
    ) -> None:
        from spake2 import SPAKE2_B  # (imported when used: see _spake2)

        self._spake = SPAKE2_B(code.password(), idA=JOINER_ID, idB=HOST_ID, entropy_f=entropy)
        self._invitation = invitation
        self._expected = b""
        self._seal = b""

    def answer(self, data: bytes) -> bytes:
        """The joiner's SPAKE2 message in, ours out."""
        _, pake = _read(data, "pake")
        assert isinstance(pake, _Pake)
        b = self._spake.start()
        key = _finish(self._spake, pake.message)
        self._expected = confirmation(key, pake.message, b)
        self._seal = sealing_key(key, pake.message, b)
        return _message("pake", m=b)

    def finish(self, data: bytes) -> tuple[bytes, bool]:
        """The joiner's confirmation in; the last message out, and whether the joiner had
        the right code (a ``False`` is a wrong guess, to be counted)."""
        _, body = _read(data, "confirm")
        assert isinstance(body, _Sealed)
        if not self._expected or not hmac.compare_digest(body.data, self._expected):
            return _message("refused"), False
        sealed = ChaCha20Poly1305(self._seal).encrypt(NONCE, self._invitation.to_bytes(), b"")
        return _message("table", x=sealed), True
