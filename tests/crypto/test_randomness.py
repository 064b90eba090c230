from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tarot_p2p.crypto.group import ORDER
from tarot_p2p.crypto.randomness import DeterministicRandom, RandomSource, SecretsRandom


def test_same_seed_same_stream_and_chunking_does_not_matter() -> None:
    a, b = DeterministicRandom(b"seed"), DeterministicRandom(b"seed")
    assert a.token_bytes(100) == b.token_bytes(40) + b.token_bytes(0) + b.token_bytes(60)


def test_seeds_are_framed() -> None:
    assert DeterministicRandom(b"ab").token_bytes(32) != DeterministicRandom(b"a").token_bytes(32)
    assert DeterministicRandom(b"").token_bytes(32) != DeterministicRandom(b"\0").token_bytes(32)


@given(st.integers(min_value=1, max_value=1 << 300), st.binary(max_size=8))
def test_randbelow_in_range(n: int, seed: bytes) -> None:
    assert 0 <= DeterministicRandom(seed).randbelow(n) < n


def test_randbelow_rejects_empty_range() -> None:
    with pytest.raises(ValueError):
        DeterministicRandom(b"").randbelow(0)


def test_randbelow_one_draws_nothing() -> None:
    rng = DeterministicRandom(b"x")
    assert rng.randbelow(1) == 0
    assert rng.token_bytes(8) == DeterministicRandom(b"x").token_bytes(8)


def test_randbelow_covers_small_range_evenly() -> None:
    rng = DeterministicRandom(b"spread")
    counts = [0] * 6
    for _ in range(6000):
        counts[rng.randbelow(6)] += 1
    assert all(850 < c < 1150 for c in counts), counts


@pytest.mark.parametrize("rng", [DeterministicRandom(b"p"), SecretsRandom()])
def test_draws(rng: RandomSource) -> None:
    perm = rng.permutation(78)
    assert sorted(perm) == list(range(78))
    assert perm != list(range(78))
    s = rng.scalar()
    assert 0 < s < ORDER
    assert len(rng.token_bytes(33)) == 33
