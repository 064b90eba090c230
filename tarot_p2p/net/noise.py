"""Noise_XX_25519_ChaChaPoly_SHA256, per the Noise Protocol Framework, revision 34.

Why XX: neither side needs to know the other's static key in advance (the joining peer
knows only the hub's *identity* fingerprint from the join code), both sides end up
authenticated, and every session key depends on fresh ephemeral keys (forward secrecy).

This module is the framework itself, sans-IO: :class:`CipherState`,
:class:`SymmetricState`, :class:`HandshakeState` exactly as the specification names them,
for the one pattern we use::

    XX:
      -> e
      <- e, ee, s, es
      -> s, se

It is checked against the published cacophony vector for this protocol name
(``tests/net/noise_vector_cacophony.json``). What the payloads carry, and how they bind our
Ed25519 identities, is :mod:`tarot_p2p.net.handshake`'s business.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

PROTOCOL_NAME = b"Noise_XX_25519_ChaChaPoly_SHA256"
DHLEN = 32
HASHLEN = 32
TAGLEN = 16
MAX_MESSAGE = 65535
MAX_NONCE = 2**64 - 1
"""Reserved by the specification: a CipherState whose nonce reaches it refuses to work."""

XX_PATTERN: tuple[tuple[str, ...], ...] = (("e",), ("e", "ee", "s", "es"), ("s", "se"))


class NoiseError(Exception):
    """The handshake or a transport message failed (bad tag, bad key, misuse, exhaustion)."""


def public_bytes(key: X25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def _dh(private: X25519PrivateKey, public: bytes) -> bytes:
    try:
        return private.exchange(X25519PublicKey.from_public_bytes(public))
    except ValueError as exc:  # low-order point: all-zero shared secret
        raise NoiseError(f"invalid DH public key: {exc}") from exc


def _hash(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _hmac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


def hkdf(chaining_key: bytes, ikm: bytes, outputs: int) -> tuple[bytes, ...]:
    """The specification's HKDF (HMAC-SHA256 extract then 2 or 3 expand blocks)."""
    temp_key = _hmac(chaining_key, ikm)
    out1 = _hmac(temp_key, b"\x01")
    out2 = _hmac(temp_key, out1 + b"\x02")
    if outputs == 2:
        return out1, out2
    return out1, out2, _hmac(temp_key, out2 + b"\x03")


class CipherState:
    def __init__(self, key: bytes | None = None) -> None:
        self._key = key
        self._aead = ChaCha20Poly1305(key) if key is not None else None
        self.nonce = 0

    def has_key(self) -> bool:
        return self._aead is not None

    def _nonce_bytes(self) -> bytes:
        if self.nonce >= MAX_NONCE:
            raise NoiseError("nonce space exhausted: open a new session")
        return b"\x00\x00\x00\x00" + self.nonce.to_bytes(8, "little")

    def encrypt_with_ad(self, ad: bytes, plaintext: bytes) -> bytes:
        if self._aead is None:
            return plaintext
        out = self._aead.encrypt(self._nonce_bytes(), plaintext, ad)
        self.nonce += 1
        return out

    def decrypt_with_ad(self, ad: bytes, ciphertext: bytes) -> bytes:
        if self._aead is None:
            return ciphertext
        try:
            out = self._aead.decrypt(self._nonce_bytes(), ciphertext, ad)
        except InvalidTag:
            raise NoiseError("authentication tag mismatch") from None
        self.nonce += 1
        return out


class SymmetricState:
    def __init__(self, protocol_name: bytes) -> None:
        if len(protocol_name) <= HASHLEN:
            self.h = protocol_name.ljust(HASHLEN, b"\x00")
        else:
            self.h = _hash(protocol_name)
        self.ck = self.h
        self.cipher = CipherState()

    def mix_key(self, ikm: bytes) -> None:
        self.ck, temp_k = hkdf(self.ck, ikm, 2)
        self.cipher = CipherState(temp_k[:32])

    def mix_hash(self, data: bytes) -> None:
        self.h = _hash(self.h + data)

    def encrypt_and_hash(self, plaintext: bytes) -> bytes:
        ciphertext = self.cipher.encrypt_with_ad(self.h, plaintext)
        self.mix_hash(ciphertext)
        return ciphertext

    def decrypt_and_hash(self, ciphertext: bytes) -> bytes:
        plaintext = self.cipher.decrypt_with_ad(self.h, ciphertext)
        self.mix_hash(ciphertext)
        return plaintext

    def split(self) -> tuple[CipherState, CipherState]:
        k1, k2 = hkdf(self.ck, b"", 2)
        return CipherState(k1[:32]), CipherState(k2[:32])


PayloadSource = bytes | Callable[[bytes], bytes]
"""A payload, or a function of the handshake hash at the moment the payload is encrypted."""


class HandshakeState:
    """One side of an XX handshake. ``e`` may be fixed, for test vectors only."""

    def __init__(
        self,
        *,
        initiator: bool,
        prologue: bytes,
        static: X25519PrivateKey,
        ephemeral: X25519PrivateKey | None = None,
    ) -> None:
        self.initiator = initiator
        self.symmetric = SymmetricState(PROTOCOL_NAME)
        self.symmetric.mix_hash(prologue)
        self.s = static
        self.e = ephemeral
        self.rs: bytes | None = None
        self.re: bytes | None = None
        self._index = 0
        self.payload_hash = b""
        """Handshake hash just before the last payload was encrypted or decrypted."""
        self.result: tuple[CipherState, CipherState] | None = None
        """(send, receive) cipher states once the handshake is complete."""

    @property
    def handshake_hash(self) -> bytes:
        return self.symmetric.h

    def my_turn(self) -> bool:
        return self.result is None and (self._index % 2 == 0) == self.initiator

    def _dh_token(self, token: str) -> None:
        assert self.re is not None and self.e is not None
        if token == "ee":
            self.symmetric.mix_key(_dh(self.e, self.re))
            return
        # "es" and "se" name (initiator key, responder key); each side uses its own half.
        initiator_static = token == "se"
        if self.initiator == initiator_static:
            assert self.re is not None
            self.symmetric.mix_key(_dh(self.s, self.re))
        else:
            assert self.rs is not None
            self.symmetric.mix_key(_dh(self.e, self.rs))

    def write_message(self, payload: PayloadSource) -> bytes:
        if not self.my_turn():
            raise NoiseError("not our turn to write a handshake message")
        out = bytearray()
        for token in XX_PATTERN[self._index]:
            if token == "e":
                if self.e is None:
                    self.e = X25519PrivateKey.generate()
                e_pub = public_bytes(self.e)
                out += e_pub
                self.symmetric.mix_hash(e_pub)
            elif token == "s":
                out += self.symmetric.encrypt_and_hash(public_bytes(self.s))
            else:
                self._dh_token(token)
        self.payload_hash = self.symmetric.h
        body = payload(self.payload_hash) if callable(payload) else payload
        out += self.symmetric.encrypt_and_hash(body)
        if len(out) > MAX_MESSAGE:
            raise NoiseError("handshake message too long")
        self._advance()
        return bytes(out)

    def read_message(self, message: bytes) -> bytes:
        if self.result is not None or self.my_turn():
            raise NoiseError("not expecting a handshake message")
        if len(message) > MAX_MESSAGE:
            raise NoiseError("handshake message too long")
        rest = memoryview(message)
        for token in XX_PATTERN[self._index]:
            if token == "e":
                if len(rest) < DHLEN:
                    raise NoiseError("handshake message truncated")
                self.re = bytes(rest[:DHLEN])
                rest = rest[DHLEN:]
                self.symmetric.mix_hash(self.re)
            elif token == "s":
                size = DHLEN + (TAGLEN if self.symmetric.cipher.has_key() else 0)
                if len(rest) < size:
                    raise NoiseError("handshake message truncated")
                self.rs = self.symmetric.decrypt_and_hash(bytes(rest[:size]))
                rest = rest[size:]
            else:
                self._dh_token(token)
        self.payload_hash = self.symmetric.h
        payload = self.symmetric.decrypt_and_hash(bytes(rest))
        self._advance()
        return payload

    def _advance(self) -> None:
        self._index += 1
        if self._index == len(XX_PATTERN):
            c1, c2 = self.symmetric.split()
            self.result = (c1, c2) if self.initiator else (c2, c1)
