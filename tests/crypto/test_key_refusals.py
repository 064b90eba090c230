"""The key proof's ranges at their edges and the words of every refusal of ``crypto/keys.py``.

Each test builds what it needs itself (no fixture, nothing at import): the mutation check
(docs/mutation.md) runs these tests against every changed check of the module. Why the
words: a scalar out of range also fails later, in the multiplication or the challenge, so
only the words tell which check refused it; and the seat a refusal names is the one a
peer's log blames."""

from __future__ import annotations

import pytest

from tarot_p2p.crypto.errors import GroupError, ProofError
from tarot_p2p.crypto.group import ORDER, base_mul
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
from tests.crypto.conftest import HAND, TABLE

X = 987654321
"""A secret key share; its public share is ``X·G``."""


def share_with(c: int, z: int) -> KeyShare:
    return KeyShare(base_mul(X), CompactProof(c, z))


@pytest.mark.parametrize(
    ("c", "z"),
    [(0, 5), (ORDER, 5), (ORDER + 1, 5), (-1, 5), (5, ORDER), (5, ORDER + 1), (5, -1)],
)
def test_proof_scalars_past_their_ranges_are_refused_as_such(c: int, z: int) -> None:
    """``c`` in ``[1, ORDER)``, ``z`` in ``[0, ORDER)``; either one out refuses alone."""
    with pytest.raises(ProofError, match=r"^key proof scalars out of range$"):
        verify_key(share_with(c, z), key_context(TABLE, HAND, 0))


@pytest.mark.parametrize(("c", "z"), [(1, 0), (ORDER - 1, ORDER - 1), (1, ORDER - 1), (5, 0)])
def test_proof_scalars_at_the_ends_of_their_ranges_are_read(c: int, z: int) -> None:
    """The ends of the ranges are proofs like any other: refused only for not verifying."""
    with pytest.raises(ProofError, match=r"^key proof of seat 2 does not verify$"):
        verify_key(share_with(c, z), key_context(TABLE, HAND, 2))


def test_a_proof_whose_commitment_is_the_identity_is_refused_in_words() -> None:
    """``z = c·x`` makes ``z·G − c·Y`` the identity, which has no encoding to hash."""
    c = 123
    with pytest.raises(ProofError, match=r"^key proof commitment is the identity$"):
        verify_key(share_with(c, c * X % ORDER), key_context(TABLE, HAND, 0))


def test_a_proof_that_does_not_verify_names_its_seat() -> None:
    ctx = key_context(TABLE, HAND, 3)
    proof = prove_key(X, ctx, DeterministicRandom(b"seat 3"))
    verify_key(KeyShare(base_mul(X), proof), ctx)
    with pytest.raises(ProofError, match=r"^key proof of seat 1 does not verify$"):
        verify_key(KeyShare(base_mul(X), proof), key_context(TABLE, HAND, 1))


def test_key_shares_summing_to_the_identity_are_refused_in_words() -> None:
    """Two seats each proving its own key, ``x`` and ``−x``: every proof verifies, but the
    joint key would be the identity, which masks nothing."""
    rng = DeterministicRandom(b"identity")
    shares = [
        KeyShare(base_mul(x), prove_key(x, key_context(TABLE, HAND, seat), rng))
        for seat, x in enumerate((X, ORDER - X))
    ]
    with pytest.raises(ProofError, match=r"^the key shares sum to the identity$"):
        joint_key(TABLE, HAND, shares)


def test_no_key_shares_is_refused_in_words() -> None:
    with pytest.raises(ValueError, match=r"^no key shares$"):
        joint_key(TABLE, HAND, [])


@pytest.mark.parametrize("change", [-1, 1])
def test_a_key_share_of_another_length_is_refused_in_words(change: int) -> None:
    _, share = make_key_share(key_context(TABLE, HAND, 0), DeterministicRandom(b"length"))
    data = share.to_bytes()
    data = data[:change] if change < 0 else data + bytes(change)
    assert len(data) == KEY_SHARE_BYTES + change
    with pytest.raises(GroupError, match=r"^a key share is 97 bytes$"):
        KeyShare.from_bytes(data)
