"""Where secret randomness comes from: ``secrets`` in play, a seeded stream in tests.

Why injectable: test vectors must be byte-reproducible, so every function that draws a
nonce, a masking factor or a permutation takes a :class:`RandomSource`. Real play uses
:class:`SecretsRandom` (the operating system's CSPRNG). :class:`DeterministicRandom` exists
for tests and vectors: its output is a function of its seed, so it is exactly as secret as
the seed — a public seed gives every secret away; in play the only acceptable seed is a
fresh 32-byte secret drawn from :class:`SecretsRandom` (SHA-256 in counter mode is then a
sound generator), used where a peer must replay its own draws.

Normative (so anyone can regenerate the vectors): every draw is built from
:meth:`RandomSource.token_bytes`. ``randbelow(n)`` for ``n >= 1`` takes ``k = bit_length(n - 1)``,
draws ``ceil(k / 8)`` bytes, reads them big-endian, keeps the low ``k`` bits and retries
while the result is ``>= n`` (``randbelow(1)`` draws nothing and gives 0). ``scalar()`` is
``1 + randbelow(ORDER - 1)``. ``permutation(n)`` starts from ``[0, 1, ..., n-1]`` and for
``i = n-1`` down to ``1`` swaps entries ``i`` and ``randbelow(i + 1)`` (Fisher–Yates).
``DeterministicRandom(seed)`` outputs the concatenation of
``SHA-256(b"tarot-p2p/drbg/v1" || len(seed) as 4 bytes big-endian || seed || counter as
8 bytes big-endian)`` for counter = 0, 1, ...; draws consume it in order.
"""

from __future__ import annotations

import hashlib
import secrets
from abc import ABC, abstractmethod

from tarot_p2p.crypto.group import ORDER, Scalar


class RandomSource(ABC):
    """A source of uniform random bytes, and the draws the protocols need built on it."""

    @abstractmethod
    def token_bytes(self, n: int) -> bytes:
        """``n`` uniformly random bytes."""

    def randbelow(self, n: int) -> int:
        """Uniform in ``[0, n)`` by rejection sampling (no modulo bias)."""
        if n < 1:
            raise ValueError("randbelow needs n >= 1")
        k = (n - 1).bit_length()
        if k == 0:
            return 0
        mask = (1 << k) - 1
        while True:
            v = int.from_bytes(self.token_bytes((k + 7) // 8), "big") & mask
            if v < n:
                return v

    def scalar(self) -> Scalar:
        """A uniform non-zero scalar: a secret key, a nonce or a masking factor."""
        return 1 + self.randbelow(ORDER - 1)

    def permutation(self, n: int) -> list[int]:
        """A uniform permutation of ``range(n)`` (Fisher–Yates)."""
        perm = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.randbelow(i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        return perm


class SecretsRandom(RandomSource):
    """The operating system's CSPRNG, through :mod:`secrets`: the only source for real play."""

    def token_bytes(self, n: int) -> bytes:
        return secrets.token_bytes(n)


class DeterministicRandom(RandomSource):
    """SHA-256 in counter mode from a seed: reproducible, and only as secret as the seed."""

    def __init__(self, seed: bytes) -> None:
        self._prefix = b"tarot-p2p/drbg/v1" + len(seed).to_bytes(4, "big") + seed
        self._counter = 0
        self._buffer = b""

    def token_bytes(self, n: int) -> bytes:
        while len(self._buffer) < n:
            block = hashlib.sha256(self._prefix + self._counter.to_bytes(8, "big")).digest()
            self._buffer += block
            self._counter += 1
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out
