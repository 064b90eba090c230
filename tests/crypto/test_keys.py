from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.crypto.errors import GroupError, ProofError
from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.crypto.group import ORDER, G, base_mul, neg, point_to_bytes, points_equal, sum_points
from tarot_p2p.crypto.keys import (
    KEY_SHARE_BYTES,
    KeyShare,
    joint_key,
    key_context,
    make_key_share,
    prove_key,
    verify_key,
)
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.sigma import CompactProof
from tests.crypto.conftest import HAND, TABLE, Keys


def test_honest_keys_verify_and_sum(keys: Keys) -> None:
    for seat, share in enumerate(keys.shares):
        verify_key(share, key_context(TABLE, HAND, seat))
        assert points_equal(share.y, base_mul(keys.secrets[seat]))
    assert points_equal(keys.joint, base_mul(sum(keys.secrets)))


def test_round_trip_and_size(keys: Keys) -> None:
    data = keys.shares[0].to_bytes()
    assert len(data) == KEY_SHARE_BYTES == 97
    assert KeyShare.from_bytes(data) == keys.shares[0]


@pytest.mark.parametrize(
    "change",
    [
        {"seat": 1},
        {"hand": HAND + 1},
        {"table_id": TABLE + b"!"},
        {"phase": "shuffle"},
        {"version": PROTOCOL_VERSION + 1},
    ],
)
def test_proof_replayed_under_another_context_fails(keys: Keys, change: dict[str, object]) -> None:
    ctx = dataclasses.replace(key_context(TABLE, HAND, 0), **change)  # type: ignore[arg-type]
    with pytest.raises(ProofError):
        verify_key(keys.shares[0], ctx)


def test_copied_key_share_rejected_in_joint_key(keys: Keys) -> None:
    """Seat 3 republishing seat 0's key and proof would cancel nothing but must still fail."""
    with pytest.raises(ProofError):
        joint_key(TABLE, HAND, [*keys.shares[:3], keys.shares[0]])


def test_rogue_key_fails(keys: Keys) -> None:
    """The last seat publishes x·G − ΣY_others: it knows log of Y, not of its own share."""
    x = 1234567
    rogue_y = sum_points([base_mul(x), *(neg(s.y) for s in keys.shares[:3])])
    ctx = key_context(TABLE, HAND, 3)
    rng = DeterministicRandom(b"rogue")
    attempts = [
        KeyShare(rogue_y, prove_key(x, ctx, rng)),  # a proof for x·G, not for rogue_y
        KeyShare(rogue_y, keys.shares[3].proof),  # someone else's proof
        KeyShare(rogue_y, CompactProof(rng.scalar(), rng.scalar())),  # a guess
    ]
    for share in attempts:
        with pytest.raises(ProofError):
            verify_key(share, ctx)
        with pytest.raises(ProofError):
            joint_key(TABLE, HAND, [*keys.shares[:3], share])


@pytest.mark.parametrize("field", ["c", "z"])
def test_tampered_proof_fails(keys: Keys, field: str) -> None:
    share = keys.shares[2]
    proof = share.proof._replace(**{field: (getattr(share.proof, field) + 1) % ORDER})
    with pytest.raises(ProofError):
        verify_key(KeyShare(share.y, proof), key_context(TABLE, HAND, 2))


def test_other_point_fails(keys: Keys) -> None:
    share = keys.shares[1]
    with pytest.raises(ProofError):
        verify_key(KeyShare(G, share.proof), key_context(TABLE, HAND, 1))


@pytest.mark.parametrize(
    "proof", [CompactProof(0, 5), CompactProof(ORDER, 5), CompactProof(5, ORDER)]
)
def test_out_of_range_proof_scalars_rejected(keys: Keys, proof: CompactProof) -> None:
    with pytest.raises(ProofError):
        verify_key(KeyShare(keys.shares[0].y, proof), key_context(TABLE, HAND, 0))


def test_malformed_bytes_rejected(keys: Keys) -> None:
    good = keys.shares[0].to_bytes()
    bad = [
        good[:-1],
        b"\x04" + good[1:],  # bad point prefix
        point_to_bytes(G)[:1] + b"\xff" * 32 + good[33:],  # x >= p
        good[:33] + bytes(32) + good[65:],  # c = 0
        good[:33] + ORDER.to_bytes(32, "big") + good[65:],  # c out of range
        good[:65] + b"\xff" * 32,  # z out of range
    ]
    for data in bad:
        with pytest.raises(GroupError):
            KeyShare.from_bytes(data)


def test_fresh_shares_differ() -> None:
    rng = DeterministicRandom(b"fresh")
    ctx = key_context(TABLE, HAND, 0)
    (x1, s1), (x2, s2) = make_key_share(ctx, rng), make_key_share(ctx, rng)
    assert x1 != x2
    assert s1.y != s2.y


def test_empty_joint_key_rejected() -> None:
    with pytest.raises(ValueError):
        joint_key(TABLE, HAND, [])


@settings(max_examples=25)
@given(
    st.integers(min_value=1, max_value=ORDER - 1),
    st.integers(min_value=0, max_value=255),
    st.integers(min_value=0, max_value=63),
)
def test_any_secret_proves_and_any_bit_flip_fails(x: int, seat: int, bit: int) -> None:
    ctx = key_context(TABLE, HAND, seat)
    share = KeyShare(base_mul(x), prove_key(x, ctx, DeterministicRandom(x.to_bytes(32, "big"))))
    verify_key(share, ctx)
    data = bytearray(share.to_bytes())
    data[33 + bit] ^= 1 << (bit % 8)  # one bit in c (bit < 32) or in z
    try:
        tampered = KeyShare.from_bytes(bytes(data))
    except GroupError:
        return  # the flip made a scalar out of range: rejected at parsing
    with pytest.raises(ProofError):
        verify_key(tampered, ctx)
