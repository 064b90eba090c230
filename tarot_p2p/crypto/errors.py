"""The errors of the crypto layer, apart so every module (and every caller) can name them.

Why two kinds: a :class:`GroupError` says bytes did not parse into an acceptable point or
scalar (or a computation hit the identity); a :class:`ProofError` says a well-formed
message failed its proof. Both mean "the sender broke the protocol", so both derive from
:class:`CryptoError` (a :class:`ValueError`) for callers that only need to blame a peer.
"""

from __future__ import annotations


class CryptoError(ValueError):
    """Received cryptographic data that must be rejected."""


class GroupError(CryptoError):
    """An encoding, point or scalar that is not acceptable, or an identity result."""


class ProofError(CryptoError):
    """A zero-knowledge proof, share or shuffle that does not verify."""
