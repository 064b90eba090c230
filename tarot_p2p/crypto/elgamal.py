"""ElGamal ciphertexts of card points under the peers' joint key.

A card ``m`` is the point ``M = card_point(m)``; a ciphertext is ``(a, b) = (r·G, M + r·Y)``
for the joint public key ``Y``. Re-masking adds a fresh encryption of nothing:
``(a + s·G, b + s·Y)``. Decryption needs every peer's share ``x_i·a``.
"""

from __future__ import annotations

from typing import NamedTuple

from tarot_p2p.crypto.group import (
    POINT_BYTES,
    GroupError,
    Point,
    Scalar,
    add,
    base_mul,
    hash_to_point,
    mul,
    point_from_bytes,
    point_to_bytes,
)


class Ciphertext(NamedTuple):
    a: Point
    b: Point

    def to_bytes(self) -> bytes:
        """66 bytes: ``a`` then ``b``, each compressed."""
        return point_to_bytes(self.a) + point_to_bytes(self.b)

    @classmethod
    def from_bytes(cls, data: bytes) -> Ciphertext:
        if len(data) != 2 * POINT_BYTES:
            raise GroupError("a ciphertext is 66 bytes")
        return cls(point_from_bytes(data[:POINT_BYTES]), point_from_bytes(data[POINT_BYTES:]))


CARD_DST = b"tarot-p2p/card/v1"


def card_point(card: int) -> Point:
    """The encoding of card ``0..77``: ``hash_to_point(CARD_DST, card as 1 byte)``."""
    return _CARD_POINTS[card]


_CARD_POINTS = tuple(hash_to_point(CARD_DST, bytes([c])) for c in range(78))


def encrypt(y: Point, m: Point, r: Scalar) -> Ciphertext:
    return Ciphertext(base_mul(r), add(m, mul(y, r)))


def remask(y: Point, c: Ciphertext, s: Scalar) -> Ciphertext:
    return Ciphertext(add(c.a, base_mul(s)), add(c.b, mul(y, s)))
