"""A player's identity key as bytes, and its short fingerprint.

The fingerprint names a key in join codes, LAN announcements and game records; it lives
below every user of it so that the player's files and the links compute it the same way.
"""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

FINGERPRINT_LEN = 16
FINGERPRINT_TAG = b"tarot-p2p/fingerprint/v1\x00"


def identity_bytes(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def fingerprint(key: Ed25519PublicKey) -> bytes:
    """First 16 bytes of ``SHA-256(FINGERPRINT_TAG || raw public key)``."""
    return hashlib.sha256(FINGERPRINT_TAG + identity_bytes(key)).digest()[:FINGERPRINT_LEN]
