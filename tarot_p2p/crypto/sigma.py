"""The compact form ``(c, z)`` shared by the Schnorr and Chaum–Pedersen proofs.

Why one type: both proofs are sigma protocols made non-interactive by Fiat–Shamir; the
verifier recomputes the commitments from ``(c, z)`` and checks that they hash back to
``c``. Sending ``(c, z)`` instead of the commitments costs 64 bytes a proof, whatever the
statement.
"""

from __future__ import annotations

from typing import NamedTuple

from tarot_p2p.crypto.group import (
    SCALAR_BYTES,
    GroupError,
    Scalar,
    scalar_from_bytes,
    scalar_to_bytes,
)

PROOF_BYTES = 2 * SCALAR_BYTES


class CompactProof(NamedTuple):
    c: Scalar
    z: Scalar

    def to_bytes(self) -> bytes:
        """64 bytes: ``c`` then ``z``, each a 32-byte big-endian scalar."""
        return scalar_to_bytes(self.c) + scalar_to_bytes(self.z)

    @classmethod
    def from_bytes(cls, data: bytes) -> CompactProof:
        """Parse and range-check; ``c`` must be non-zero (a zero challenge proves nothing)."""
        if len(data) != PROOF_BYTES:
            raise GroupError("a proof is 64 bytes")
        return cls(
            scalar_from_bytes(data[:SCALAR_BYTES], nonzero=True),
            scalar_from_bytes(data[SCALAR_BYTES:]),
        )
