from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.crypto.deck import initial_deck
from tarot_p2p.crypto.elgamal import Ciphertext, card_point, encrypt, remask
from tarot_p2p.crypto.errors import CryptoError, ProofError
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import ORDER, G, Point, base_mul, point_to_bytes
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shares import (
    decryption_share,
    prove_shares,
    recover_card,
    share_weights,
    verify_shares,
)
from tarot_p2p.crypto.sigma import CompactProof
from tests.crypto.conftest import HAND, TABLE, Keys

Batch = tuple[list[Ciphertext], list[Point], CompactProof]
CTX = ProofContext(table_id=TABLE, hand=HAND, phase="deal-open", seat=1)


@pytest.fixture(scope="module")
def deck(keys: Keys) -> list[Ciphertext]:
    rng = DeterministicRandom(b"deck")
    return [remask(keys.joint, ct, rng.scalar()) for ct in initial_deck(keys.joint)]


def test_honest_batches_verify(keys: Keys, deck: list[Ciphertext]) -> None:
    rng = DeterministicRandom(b"honest")
    for cts in (deck[:1], deck[10:12], deck[20:38]):
        shares, proof = prove_shares(keys.secrets[1], cts, CTX, rng)
        verify_shares(keys.shares[1].y, cts, shares, proof, CTX)
        assert shares == [decryption_share(keys.secrets[1], ct) for ct in cts]


def test_open_to_owner_and_to_all(keys: Keys, deck: list[Ciphertext]) -> None:
    rng = DeterministicRandom(b"open")
    owner, ct = 2, deck[40]
    published = {}
    for seat in range(4):
        if seat == owner:
            continue
        ctx = dataclasses.replace(CTX, seat=seat)
        shares, proof = prove_shares(keys.secrets[seat], [ct], ctx, rng)
        verify_shares(keys.shares[seat].y, [ct], shares, proof, ctx)
        published[seat] = shares[0]
    with pytest.raises(CryptoError):  # the others' shares alone open nothing
        recover_card(ct, list(published.values()))
    own = decryption_share(keys.secrets[owner], ct)
    assert recover_card(ct, [*published.values(), own]) == 40
    # opening to all: the owner publishes his share with a proof too
    ctx = dataclasses.replace(CTX, seat=owner)
    shares, proof = prove_shares(keys.secrets[owner], [ct], ctx, rng)
    verify_shares(keys.shares[owner].y, [ct], shares, proof, ctx)
    assert recover_card(ct, [*published.values(), shares[0]]) == 40


def test_initial_deck_is_card_c_at_position_c(keys: Keys) -> None:
    for c, ct in enumerate(initial_deck(keys.joint)):
        assert ct.a == G
        assert recover_card(ct, [decryption_share(x, ct) for x in keys.secrets]) == c


def test_recover_rejects_non_card() -> None:
    ct = encrypt(base_mul(5), base_mul(77), 3)  # 77·G is no card point
    with pytest.raises(CryptoError):
        recover_card(ct, [decryption_share(5, ct)])
    ct = encrypt(base_mul(5), card_point(0), 3)
    with pytest.raises(CryptoError):  # b − D is the identity
        recover_card(ct, [ct.b])


@pytest.fixture(scope="module")
def batch(keys: Keys, deck: list[Ciphertext]) -> Batch:
    cts = deck[:6]
    shares, proof = prove_shares(keys.secrets[1], cts, CTX, DeterministicRandom(b"batch"))
    return cts, shares, proof


@settings(max_examples=12, deadline=None)
@given(st.integers(min_value=0, max_value=5), st.integers(min_value=1, max_value=ORDER - 1))
def test_wrong_share_anywhere_in_batch_fails(keys: Keys, batch: Batch, j: int, delta: int) -> None:
    cts, shares, proof = batch
    bad = list(shares)
    bad[j] = base_mul(delta)
    with pytest.raises(ProofError):
        verify_shares(keys.shares[1].y, cts, bad, proof, CTX)


def test_share_for_another_ciphertext_fails(
    keys: Keys, deck: list[Ciphertext], batch: Batch
) -> None:
    cts, shares, proof = batch
    other = [deck[50], *cts[1:]]
    with pytest.raises(ProofError):
        verify_shares(keys.shares[1].y, other, shares, proof, CTX)
    # even the true share of the other ciphertext, under the old proof
    real = [decryption_share(keys.secrets[1], deck[50]), *shares[1:]]
    with pytest.raises(ProofError):
        verify_shares(keys.shares[1].y, other, real, proof, CTX)


def test_reordered_batch_fails(keys: Keys, batch: Batch) -> None:
    cts, shares, proof = batch
    with pytest.raises(ProofError):
        verify_shares(keys.shares[1].y, cts[::-1], shares[::-1], proof, CTX)
    with pytest.raises(ProofError):
        verify_shares(keys.shares[1].y, cts[:-1], shares[:-1], proof, CTX)


@pytest.mark.parametrize(
    "change",
    [{"seat": 2}, {"hand": HAND + 1}, {"table_id": b"x"}, {"phase": "chien-open"}, {"version": 9}],
)
def test_replay_under_another_context_fails(
    keys: Keys, batch: Batch, change: dict[str, object]
) -> None:
    cts, shares, proof = batch
    ctx = dataclasses.replace(CTX, **change)  # type: ignore[arg-type]
    with pytest.raises(ProofError):
        verify_shares(keys.shares[1].y, cts, shares, proof, ctx)


def test_proof_under_another_key_fails(keys: Keys, batch: Batch) -> None:
    cts, shares, proof = batch
    with pytest.raises(ProofError):
        verify_shares(keys.shares[2].y, cts, shares, proof, CTX)


def test_shares_made_with_another_secret_fail(keys: Keys, deck: list[Ciphertext]) -> None:
    """Seat 1 computing its shares with seat 2's secret cannot prove them against Y_1."""
    shares, proof = prove_shares(keys.secrets[2], deck[:3], CTX, DeterministicRandom(b"s"))
    with pytest.raises(ProofError):
        verify_shares(keys.shares[1].y, deck[:3], shares, proof, CTX)


@pytest.mark.parametrize("field", ["c", "z"])
def test_tampered_proof_fails(keys: Keys, batch: Batch, field: str) -> None:
    cts, shares, proof = batch
    bad = proof._replace(**{field: (getattr(proof, field) + 1) % ORDER})
    with pytest.raises(ProofError):
        verify_shares(keys.shares[1].y, cts, shares, bad, CTX)


@pytest.mark.parametrize(
    "proof",
    [CompactProof(0, 1), CompactProof(ORDER, 1), CompactProof(1, ORDER), CompactProof(1, 0)],
)
def test_out_of_range_or_degenerate_proof_rejected(
    keys: Keys, batch: Batch, proof: CompactProof
) -> None:
    cts, shares, _ = batch
    with pytest.raises(ProofError):
        verify_shares(keys.shares[1].y, cts, shares, proof, CTX)


def test_count_mismatch_and_empty_rejected(keys: Keys, batch: Batch) -> None:
    cts, shares, proof = batch
    with pytest.raises(ProofError):
        verify_shares(keys.shares[1].y, cts, shares[:-1], proof, CTX)
    with pytest.raises(ProofError):
        verify_shares(keys.shares[1].y, [], [], proof, CTX)
    with pytest.raises(ValueError):
        prove_shares(keys.secrets[1], [], CTX, DeterministicRandom(b""))


def test_weights_are_128_bit_and_bound_to_statement(keys: Keys) -> None:
    statement = [point_to_bytes(keys.joint), b"cts", b"shares"]
    w = share_weights(CTX, statement, 5)
    assert w[0] == 1
    assert all(1 <= x <= 1 << 128 for x in w)
    assert len(set(w)) == 5
    assert share_weights(CTX, [*statement[:2], b"shares!"], 5) != w
    assert share_weights(dataclasses.replace(CTX, seat=0), statement, 5) != w
