"""The engine's behaviour pinned on seeded random hands (see ``fingerprint.py``).

Why: a rewrite of the hot path for speed must not change what the engine says anywhere.
When a change of behaviour is intended, the digest is updated with it, in the same commit,
and the commit says why.
"""

from __future__ import annotations

from .fingerprint import digest

DIGEST_10 = "4ffe0cf9ae34fa81923b09b20297d77bb4552e40409a94ce1d827b526cdbc3e3"
"""Ten hands per configuration (100 hands); 300 per configuration gave
94c014d8c76f3a8ee66c3f5141ec221af5abf7513feb2e4c82e05faf99579cbd."""


def test_the_engine_says_what_it_said() -> None:
    assert digest(10) == DIGEST_10
