"""Fiat–Shamir challenges bound to a context, so a proof cannot be replayed elsewhere.

Every non-interactive proof in tarot_p2p derives its challenge here, from a label naming
the proof, the :class:`ProofContext` (protocol version, table, hand, phase, sender seat)
and the full statement, each part length-prefixed so no two different inputs hash alike.

Normative: ``challenge(label, ctx, parts)`` is SHA-512 over
``frame(b"tarot-p2p/fs/v1") || frame(label) || frame(ctx.encode()) || frame(p1) || ...``
where ``frame(x)`` is ``len(x)`` as 4 bytes big-endian followed by ``x``; the 64-byte digest
read big-endian is reduced modulo the group order (bias below 2^-250).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from tarot_p2p.crypto.group import ORDER, Scalar

PROTOCOL_VERSION = 5


def frame(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


@dataclass(frozen=True, slots=True)
class ProofContext:
    """Where a proof belongs: it verifies under this context and no other."""

    table_id: bytes
    hand: int
    phase: str
    seat: int
    version: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        if not 0 <= self.version < 1 << 16 or not 0 <= self.hand < 1 << 32:
            raise ValueError("context version is a u16 and hand a u32")
        if not 0 <= self.seat < 256 or not self.phase.isascii():
            raise ValueError("context seat is a u8 and phase ASCII")

    def encode(self) -> bytes:
        """``version`` u16 || frame(table_id) || ``hand`` u32 || frame(phase) || ``seat`` u8."""
        return (
            self.version.to_bytes(2, "big")
            + frame(self.table_id)
            + self.hand.to_bytes(4, "big")
            + frame(self.phase.encode("ascii"))
            + self.seat.to_bytes(1, "big")
        )


def challenge(label: bytes, ctx: ProofContext, *parts: bytes) -> Scalar:
    h = hashlib.sha512()
    h.update(frame(b"tarot-p2p/fs/v1"))
    h.update(frame(label))
    h.update(frame(ctx.encode()))
    for p in parts:
        h.update(frame(p))
    return int.from_bytes(h.digest(), "big") % ORDER
