"""The link handshake: Noise XX whose payloads bind Ed25519 identities and the link key.

Theory of operation. Noise XX authenticates X25519 *static* keys; our peers are known by
their Ed25519 *identity* keys (those that sign envelopes). Each side therefore signs, with
its identity key, the Noise handshake hash at the moment its payload is encrypted together
with its static key, and sends its identity key and that signature as the payload. The
handshake hash covers the prologue (which names the table) and both ephemeral keys, so the
signature cannot be replayed into another session or another table. A role byte keeps a
responder's signature from being reflected as an initiator's.

Messages (payloads are msgpack maps, ``protocol/wire.md`` §Handshake)::

    -> e                      payload: empty
    <- e, ee, s, es           payload: {"i": hub identity, "g": signature}
    -> s, se                  payload: {"i": peer identity, "g": signature, "j": join proof}

* signature = Ed25519(identity, IDENTITY_TAG || role || h || static public key), role
  ``b"R"`` for the responder (hub), ``b"I"`` for the initiator (joining peer);
* join proof = HMAC-SHA256(link key, JOIN_TAG || h), ``h`` the same hash as signed, and
  the link key made from the join secret (:func:`~.joincode.link_key`).

The joining peer accepts the hub only if the hub identity matches the fingerprint of the
join code; the hub admits the peer only with a correct join proof (and, optionally, an
identity from an allow-list). Why a link key and not the secret: a standalone relay must
check the proof, and what it holds must not seat anyone; the host seats only joiners
proving the secret itself (``lobby.md`` §1). Every hub, the host's own included, checks
the same key. Both classes are sans-IO: bytes in, bytes out.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from tarot_p2p.net.joincode import JoinCode, link_key
from tarot_p2p.net.noise import CipherState, HandshakeState, NoiseError, public_bytes
from tarot_p2p.protocol.codec import Bytes, DecodeError, Limits, Schema, decode, encode
from tarot_p2p.protocol.identity import fingerprint, identity_bytes

PROLOGUE_TAG = b"tarot-p2p/noise/v1\x00"
IDENTITY_TAG = b"tarot-p2p/noise-identity/v1\x00"
JOIN_TAG = b"tarot-p2p/join/v2\x00"
_PAYLOAD_LIMITS = Limits(max_buffer_size=512, max_str_len=8, max_bin_len=64, max_map_len=3)


class HandshakeRejected(NoiseError):
    """The other side is not who it must be, or does not hold the table's link key."""


@dataclass(frozen=True, slots=True)
class _HubProof:
    identity: bytes
    signature: bytes


@dataclass(frozen=True, slots=True)
class _PeerProof:
    identity: bytes
    signature: bytes
    join_proof: bytes


_HUB_PAYLOAD = Schema(_HubProof, {"identity": ("i", Bytes(32)), "signature": ("g", Bytes(64))})
_PEER_PAYLOAD = Schema(
    _PeerProof,
    {
        "identity": ("i", Bytes(32)),
        "signature": ("g", Bytes(64)),
        "join_proof": ("j", Bytes(32)),
    },
)


@dataclass(frozen=True, slots=True)
class Session:
    """A completed handshake: transport ciphers and who is on the other end."""

    send: CipherState
    receive: CipherState
    handshake_hash: bytes
    remote_identity: Ed25519PublicKey


def prologue(table_id: bytes) -> bytes:
    return PROLOGUE_TAG + table_id


def join_proof(key: bytes, h: bytes) -> bytes:
    """The proof of message 3 under the table's link key ``key``."""
    return hmac.new(key, JOIN_TAG + h, hashlib.sha256).digest()


def _signature_input(role: bytes, h: bytes, static_pub: bytes) -> bytes:
    return IDENTITY_TAG + role + h + static_pub


def _verify_identity(raw: bytes, signature: bytes, role: bytes, h: bytes, static: bytes) -> None:
    try:
        key = Ed25519PublicKey.from_public_bytes(raw)
        key.verify(signature, _signature_input(role, h, static))
    except (InvalidSignature, ValueError):
        raise HandshakeRejected("identity signature does not verify") from None


def _decode_payload(data: bytes) -> object:
    try:
        return decode(data, _PAYLOAD_LIMITS)
    except DecodeError as exc:
        raise HandshakeRejected(f"bad handshake payload: {exc}") from exc


def _session(state: HandshakeState, remote: bytes) -> Session:
    assert state.result is not None
    send, receive = state.result
    return Session(send, receive, state.handshake_hash, Ed25519PublicKey.from_public_bytes(remote))


class Initiator:
    """The joining peer's side. ``key``: the link key to prove, for a caller that holds it
    and not the join secret (a hub's operator, who may open links to its own tables,
    ``wire.md`` §8); by default the one made from the code's secret."""

    def __init__(
        self,
        identity: Ed25519PrivateKey,
        code: JoinCode,
        *,
        key: bytes | None = None,
        static: X25519PrivateKey | None = None,
        ephemeral: X25519PrivateKey | None = None,
    ) -> None:
        self._identity = identity
        self._code = code
        self._key = link_key(code.secret) if key is None else key
        self._state = HandshakeState(
            initiator=True,
            prologue=prologue(code.table_id),
            static=static or X25519PrivateKey.generate(),
            ephemeral=ephemeral,
        )
        self._hub: bytes | None = None

    def message1(self) -> bytes:
        return self._state.write_message(b"")

    def read_message2(self, message: bytes) -> None:
        payload = self._state.read_message(message)
        try:
            proof = _HUB_PAYLOAD.load(_decode_payload(payload))
        except DecodeError as exc:
            raise HandshakeRejected(f"bad hub payload: {exc}") from exc
        assert self._state.rs is not None
        _verify_identity(
            proof.identity, proof.signature, b"R", self._state.payload_hash, self._state.rs
        )
        hub = Ed25519PublicKey.from_public_bytes(proof.identity)
        if not hmac.compare_digest(fingerprint(hub), self._code.hub_fingerprint):
            raise HandshakeRejected("hub identity does not match the join code")
        self._hub = proof.identity

    def message3(self) -> tuple[bytes, Session]:
        if self._hub is None:
            raise NoiseError("message 2 not read yet")
        static = public_bytes(self._state.s)

        def payload(h: bytes) -> bytes:
            return encode(
                {
                    "i": identity_bytes(self._identity.public_key()),
                    "g": self._identity.sign(_signature_input(b"I", h, static)),
                    "j": join_proof(self._key, h),
                }
            )

        message = self._state.write_message(payload)
        return message, _session(self._state, self._hub)


class Responder:
    """The hub's side: ``key`` is the table's link key; ``admit`` may restrict which
    identities can join."""

    def __init__(
        self,
        identity: Ed25519PrivateKey,
        table_id: bytes,
        key: bytes,
        *,
        admit: Callable[[Ed25519PublicKey], bool] | None = None,
        static: X25519PrivateKey | None = None,
        ephemeral: X25519PrivateKey | None = None,
    ) -> None:
        self._identity = identity
        self._key = key
        self._admit = admit
        self._state = HandshakeState(
            initiator=False,
            prologue=prologue(table_id),
            static=static or X25519PrivateKey.generate(),
            ephemeral=ephemeral,
        )

    def read_message1(self, message: bytes) -> None:
        if self._state.read_message(message):
            raise HandshakeRejected("first handshake message must have an empty payload")

    def message2(self) -> bytes:
        static = public_bytes(self._state.s)

        def payload(h: bytes) -> bytes:
            return encode(
                {
                    "i": identity_bytes(self._identity.public_key()),
                    "g": self._identity.sign(_signature_input(b"R", h, static)),
                }
            )

        return self._state.write_message(payload)

    def read_message3(self, message: bytes) -> Session:
        payload = self._state.read_message(message)
        h = self._state.payload_hash
        try:
            proof = _PEER_PAYLOAD.load(_decode_payload(payload))
        except DecodeError as exc:
            raise HandshakeRejected(f"bad peer payload: {exc}") from exc
        if not hmac.compare_digest(proof.join_proof, join_proof(self._key, h)):
            raise HandshakeRejected("wrong join proof (not made with this table's link key)")
        assert self._state.rs is not None
        _verify_identity(proof.identity, proof.signature, b"I", h, self._state.rs)
        session = _session(self._state, proof.identity)
        if self._admit is not None and not self._admit(session.remote_identity):
            raise HandshakeRejected("identity not admitted to this table")
        return session
