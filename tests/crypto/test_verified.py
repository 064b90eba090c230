"""The memory of valid proofs: a proof checked once is accepted again from memory, and
nothing but those very bytes under that very statement is."""

from __future__ import annotations

import dataclasses

import pytest

from tarot_p2p.crypto import verified
from tarot_p2p.crypto.elgamal import card_point, encrypt
from tarot_p2p.crypto.errors import ProofError
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import ORDER, base_mul
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shares import prove_shares, verify_shares
from tarot_p2p.crypto.shuffle import LABEL_X, _statement, shuffle_and_prove, verify_shuffle
from tarot_p2p.crypto.sigma import CompactProof

SECRET = 0x7E57
Y = base_mul(SECRET)
CTX = ProofContext(table_id=b"memo-tests", hand=3, phase="shuffle", seat=2)


def _deck(n: int) -> list:
    rng = DeterministicRandom(b"memo-deck")
    return [encrypt(Y, card_point(c), rng.scalar()) for c in range(n)]


def test_a_shuffle_proof_is_remembered_only_once_valid() -> None:
    deck = _deck(6)
    out, proof = shuffle_and_prove(Y, deck, CTX, DeterministicRandom(b"memo"))
    bad = dataclasses.replace(proof, s_rows=(proof.s_rows + 1) % ORDER)
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, bad, CTX)
    verify_shuffle(Y, deck, out, proof, CTX)
    verify_shuffle(Y, deck, out, proof, CTX)  # from memory
    # Everything the check reads is in the key: after the valid proof was remembered,
    # a change to any of them is checked in full, and refused.
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, bad, CTX)
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, proof, dataclasses.replace(CTX, seat=3))
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out[::-1], proof, CTX)
    with pytest.raises(ProofError):
        verify_shuffle(Y, out, out, proof, CTX)
    with pytest.raises(ProofError):
        verify_shuffle(base_mul(SECRET + 1), deck, out, proof, CTX)


def test_a_remembered_shuffle_skips_the_check_and_forgetting_restores_it() -> None:
    deck = _deck(4)
    out, proof = shuffle_and_prove(Y, deck, CTX, DeterministicRandom(b"memo-2"))
    verify_shuffle(Y, deck, out, proof, CTX)
    # A wrong proof planted under its own key (which no caller can do) passes: the
    # memory is what answered, not a second check.
    bad = dataclasses.replace(proof, s_opening=(proof.s_opening + 1) % ORDER)
    statement = _statement(Y, deck, out, bad.commitments)
    verified.remember(verified.key(LABEL_X, CTX, *statement, bad.to_bytes()))
    verify_shuffle(Y, deck, out, bad, CTX)
    verified.set_size(0)  # forgets, and remembers nothing from now on
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, bad, CTX)
    verify_shuffle(Y, deck, out, proof, CTX)
    assert not verified.known(
        verified.key(LABEL_X, CTX, *_statement(Y, deck, out, proof.commitments), proof.to_bytes())
    )


def test_share_proofs_are_remembered_under_their_whole_statement() -> None:
    x = 0x5A5A
    y_i = base_mul(x)
    cts = _deck(3)
    ctx = dataclasses.replace(CTX, phase="deal")
    shares, proof = prove_shares(x, cts, ctx, DeterministicRandom(b"memo-shares"))
    verify_shares(y_i, cts, shares, proof, ctx)
    verify_shares(y_i, cts, shares, proof, ctx)  # from memory
    with pytest.raises(ProofError):
        verify_shares(y_i, cts, shares, CompactProof(proof.c, (proof.z + 1) % ORDER), ctx)
    with pytest.raises(ProofError):
        verify_shares(y_i, cts, [shares[1], shares[0], shares[2]], proof, ctx)
    with pytest.raises(ProofError):
        verify_shares(y_i, cts, shares, proof, dataclasses.replace(ctx, hand=4))
    with pytest.raises(ProofError):
        verify_shares(base_mul(x + 1), cts, shares, proof, ctx)


def test_the_memory_is_bounded() -> None:
    verified.set_size(2)
    keys = [verified.key(b"label", CTX, bytes([i])) for i in range(3)]
    for k in keys:
        verified.remember(k)
    assert [verified.known(k) for k in keys] == [False, True, True]


def test_a_memory_of_one_keeps_the_last_success() -> None:
    verified.set_size(1)
    first, second = (verified.key(b"label", CTX, bytes([i])) for i in range(2))
    verified.remember(first)
    assert verified.known(first)
    verified.remember(second)
    assert [verified.known(first), verified.known(second)] == [False, True]
