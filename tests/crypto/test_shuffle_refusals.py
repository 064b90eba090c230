"""The shuffle's bounds at their edges and the words of every refusal of ``crypto/shuffle.py``.

Each test builds what it needs itself (no fixture, nothing at import): the mutation check
(docs/mutation.md) runs these tests against every changed check of the module. Why the
words: a proof of the wrong shape also fails later (a strict ``zip``, an equation), so only
the words tell which check refused it, and a peer's log is what tells a bug from a cheat."""

from __future__ import annotations

import dataclasses

import pytest

from tarot_p2p.crypto.elgamal import Ciphertext, card_point, encrypt
from tarot_p2p.crypto.errors import GroupError, ProofError
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import ORDER, base_mul
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shuffle import (
    MAX_CARDS,
    MIN_CARDS,
    TABLES_BYTES,
    ShuffleProof,
    commitment_generator,
    export_tables,
    import_tables,
    precompute_tables,
    proof_size,
    prove_shuffle,
    shuffle_and_prove,
    verify_shuffle,
)

Y = base_mul(0x5EC2E75)
CTX = ProofContext(table_id=b"shuffle-refusals", hand=4, phase="shuffle", seat=2)
SIZES = r"^a shuffle has 2 to 78 cards$"


def deck(n: int) -> list[Ciphertext]:
    rng = DeterministicRandom(b"refusal deck")
    return [encrypt(Y, card_point(c % 78), rng.scalar()) for c in range(n)]


def shuffled(n: int) -> tuple[list[Ciphertext], list[Ciphertext], ShuffleProof]:
    deck_in = deck(n)
    deck_out, proof = shuffle_and_prove(Y, deck_in, CTX, DeterministicRandom(b"refusal"))
    return deck_in, deck_out, proof


@pytest.mark.parametrize("n", [MIN_CARDS, MAX_CARDS])
def test_a_chosen_permutation_at_either_end_of_the_sizes_is_proved(n: int) -> None:
    deck_in = deck(n)
    permutation = list(range(n))[::-1]
    deck_out, proof = prove_shuffle(Y, deck_in, permutation, CTX, DeterministicRandom(b"ends"))
    verify_shuffle(Y, deck_in, deck_out, proof, CTX)


@pytest.mark.parametrize("n", [MIN_CARDS - 1, MAX_CARDS + 1])
def test_a_deck_past_the_sizes_is_neither_shuffled_nor_proved(n: int) -> None:
    deck_in = deck(n)
    with pytest.raises(ValueError, match=SIZES):
        shuffle_and_prove(Y, deck_in, CTX, DeterministicRandom(b"sizes"))
    with pytest.raises(ValueError, match=SIZES):
        prove_shuffle(Y, deck_in, list(range(n)), CTX, DeterministicRandom(b"sizes"))


@pytest.mark.parametrize("permutation", [[0, 0, 1], [1, 2, 3], [0, 1]])
def test_a_permutation_that_is_not_one_is_refused_in_words(permutation: list[int]) -> None:
    with pytest.raises(ValueError, match=r"^not a permutation of the deck's positions$"):
        prove_shuffle(Y, deck(3), permutation, CTX, DeterministicRandom(b"permutation"))


@pytest.mark.parametrize("n", [MIN_CARDS - 1, MAX_CARDS + 1])
def test_a_proof_for_a_deck_past_the_sizes_is_refused_in_words(n: int) -> None:
    _, _, proof = shuffled(3)
    with pytest.raises(ProofError, match=SIZES):
        verify_shuffle(Y, deck(n), deck(n), proof, CTX)
    with pytest.raises(GroupError, match=SIZES):
        ShuffleProof.from_bytes(proof.to_bytes(), n)


def test_a_proof_of_another_length_in_bytes_is_refused_in_words() -> None:
    _, _, proof = shuffled(4)
    data = proof.to_bytes()
    for wrong in (data[:-1], data + bytes(1)):
        with pytest.raises(GroupError, match=f"^a 4-card shuffle proof is {proof_size(4)} bytes$"):
            ShuffleProof.from_bytes(wrong, 4)


def test_each_length_that_disagrees_is_refused_alone_in_words() -> None:
    deck_in, deck_out, proof = shuffled(4)
    extra = proof.commitments[0]
    wrong = [
        (deck_out[:3], proof),
        (deck_out, dataclasses.replace(proof, commitments=(*proof.commitments, extra))),
        (deck_out, dataclasses.replace(proof, s_permuted=proof.s_permuted[:3])),
        (deck_out, dataclasses.replace(proof, s_partial=proof.s_partial[:1])),
        (deck_out, dataclasses.replace(proof, s_partial=(*proof.s_partial, 5))),
    ]
    for out, bad in wrong:
        with pytest.raises(ProofError, match=r"^shuffle lengths disagree$"):
            verify_shuffle(Y, deck_in, out, bad, CTX)


def test_a_proof_whose_commitments_are_the_generators_hits_the_identity_in_words() -> None:
    """``c_j = H_j`` for every ``j`` makes their sum minus the generators' the identity,
    which has no encoding: refused, not an error of the group's."""
    deck_in, deck_out, proof = shuffled(4)
    generators = tuple(commitment_generator(j) for j in range(4))
    bad = dataclasses.replace(proof, commitments=generators)
    with pytest.raises(ProofError, match=r"^shuffle proof equation hit the identity: "):
        verify_shuffle(Y, deck_in, deck_out, bad, CTX)


def test_a_tampered_proof_is_refused_in_words_even_after_the_honest_one_verified() -> None:
    """The memory of valid proofs holds the proof's own bytes: a changed scalar under the
    same statement is checked in full, and refused."""
    deck_in, deck_out, proof = shuffled(4)
    verify_shuffle(Y, deck_in, deck_out, proof, CTX)
    bad = dataclasses.replace(proof, s_remask=(proof.s_remask + 1) % ORDER)
    with pytest.raises(ProofError, match=r"^shuffle proof does not verify$"):
        verify_shuffle(Y, deck_in, deck_out, bad, CTX)


@pytest.mark.parametrize("j", [-1, MAX_CARDS])
def test_a_generator_past_the_deck_is_refused_in_words(j: int) -> None:
    with pytest.raises(ValueError, match=r"^generator index out of range$"):
        commitment_generator(j)


def test_tables_are_built_for_the_78_generators_and_no_more() -> None:
    with pytest.raises(ValueError, match=r"^generator index out of range$"):
        precompute_tables(MAX_CARDS + 1)


def test_a_tables_cache_of_the_wrong_size_is_refused_in_words() -> None:
    for size in (0, TABLES_BYTES - 1):
        with pytest.raises(ValueError, match=r"^the tables cache has the wrong size$"):
            import_tables(bytes(size))


def test_exporting_the_tables_calls_back_before_each_table() -> None:
    """A worker thread's caller may stop the export there (``between``)."""
    calls: list[None] = []
    data = export_tables(between=lambda: calls.append(None))
    assert len(calls) == MAX_CARDS + 1 and len(data) == TABLES_BYTES
