"""Shared fixtures: a 4-seat table's key shares from a fixed seed."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

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
