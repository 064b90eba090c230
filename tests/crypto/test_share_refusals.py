"""Why a batch of decryption shares is refused (each refusal says which check failed).

Beside the proof equation itself, ``verify_shares`` accepts only the canonical form of a
proof: ``0 < c < ORDER`` and ``0 <= z < ORDER``. The arithmetic works modulo ``ORDER``, so
without that check ``(c, z + ORDER)`` would verify like ``(c, z)``: a second encoding of
the same proof, which a peer must not accept from a caller that builds proofs itself (the
wire form cannot hold it: 32-byte scalars are parsed below ``ORDER``).
"""

from __future__ import annotations

import pytest

from tarot_p2p.crypto.deck import initial_deck
from tarot_p2p.crypto.elgamal import Ciphertext, remask
from tarot_p2p.crypto.errors import CryptoError, ProofError
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import ORDER, Point, base_mul
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shares import prove_shares, recover_card, verify_shares
from tarot_p2p.crypto.sigma import CompactProof
from tests.crypto.conftest import HAND, TABLE, Keys

CTX = ProofContext(table_id=TABLE, hand=HAND, phase="deal-open", seat=1)


def a_batch(keys: Keys) -> tuple[list[Ciphertext], list[Point], CompactProof]:
    rng = DeterministicRandom(b"share refusals")
    cts = [remask(keys.joint, ct, rng.scalar()) for ct in initial_deck(keys.joint)[:3]]
    shares, proof = prove_shares(keys.secrets[1], cts, CTX, rng)
    return cts, shares, proof


def test_an_honest_batch_verifies_and_its_non_canonical_twin_does_not(keys: Keys) -> None:
    cts, shares, (c, z) = a_batch(keys)
    verify_shares(keys.shares[1].y, cts, shares, CompactProof(c, z), CTX)
    with pytest.raises(ProofError, match=r"^share proof scalars out of range$"):
        verify_shares(keys.shares[1].y, cts, shares, CompactProof(c, z + ORDER), CTX)


def test_a_proof_whose_check_meets_the_identity_is_refused(keys: Keys) -> None:
    """``z·G − c·Y`` is the identity when ``z = c·x``: refused as such, not as a crash."""
    cts, shares, _ = a_batch(keys)
    proof = CompactProof(1, keys.secrets[1])
    with pytest.raises(ProofError, match=r"^share proof meets the identity$"):
        verify_shares(keys.shares[1].y, cts, shares, proof, CTX)


def test_each_refusal_says_what_failed(keys: Keys) -> None:
    cts, shares, proof = a_batch(keys)
    y = keys.shares[1].y
    with pytest.raises(ProofError, match=r"^one share per ciphertext, at least one$"):
        verify_shares(y, cts, shares[:-1], proof, CTX)
    with pytest.raises(ProofError, match=r"^decryption shares of seat 1 do not verify$"):
        verify_shares(y, cts, [*shares[:-1], base_mul(7)], proof, CTX)
    with pytest.raises(ValueError, match=r"^no ciphertexts to share$"):
        prove_shares(keys.secrets[1], [], CTX, DeterministicRandom(b""))


def test_shares_that_open_no_card_are_refused(keys: Keys) -> None:
    cts, shares, _ = a_batch(keys)
    others = [s for s in range(4) if s != 1]
    wrong = [*shares[:1], *(base_mul(keys.secrets[s]) for s in others)]  # x·G, not x·a
    with pytest.raises(CryptoError, match=r"^the shares do not open this ciphertext to a card$"):
        recover_card(cts[0], wrong)
    with pytest.raises(CryptoError, match=r"^the shares do not open this ciphertext to a card$"):
        recover_card(cts[0], [cts[0].b])  # b − D is the identity
