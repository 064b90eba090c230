"""Shared fixtures: a 4-seat table's key shares from a fixed seed; every test checks
every proof in full (no memory of verified proofs)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tarot_p2p.crypto import verified
from tarot_p2p.crypto.group import Point, Scalar
from tarot_p2p.crypto.keys import KeyShare, joint_key, key_context, make_key_share
from tarot_p2p.crypto.randomness import DeterministicRandom

TABLE = b"table-under-test"
HAND = 7


@dataclass(frozen=True)
class Keys:
    secrets: list[Scalar]
    shares: list[KeyShare]
    joint: Point


def make_keys(seed: bytes, seats: int = 4) -> Keys:
    rng = DeterministicRandom(seed)
    pairs = [make_key_share(key_context(TABLE, HAND, s), rng) for s in range(seats)]
    shares = [share for _, share in pairs]
    return Keys([x for x, _ in pairs], shares, joint_key(TABLE, HAND, shares))


@pytest.fixture(scope="session")
def keys() -> Keys:
    return make_keys(b"conftest keys")


@pytest.fixture(autouse=True)
def no_memory() -> Iterator[None]:
    """Each test checks in full every proof it verifies, its own included. Why: a proof
    found valid before in the process, or made by the process's own prover, is accepted
    from memory (:mod:`tarot_p2p.crypto.verified`), so a test proving then verifying would
    not run the verifier's equations at all; and in a mutation run every mutant's process
    is forked from the one that ran the tests first (docs/mutation.md): an honest proof
    remembered there would pass a mutant that breaks those equations. The memory's own
    tests turn it on (``test_verified.py``)."""
    verified.set_size(0)
    yield
    verified.set_size(verified.DEFAULT_SIZE)
