"""The verifiable shuffle: honest shuffles verify, every tampering is rejected."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.crypto.deck import initial_deck
from tarot_p2p.crypto.elgamal import Ciphertext, card_point, encrypt, remask
from tarot_p2p.crypto.errors import CryptoError, GroupError, ProofError
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import (
    FIELD_P,
    ORDER,
    Point,
    Scalar,
    base_mul,
    point_to_bytes,
    scalar_to_bytes,
    sub,
)
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shuffle import (
    MAX_CARDS,
    ShuffleProof,
    _prove,
    commitment_generator,
    precompute_tables,
    proof_size,
    prove_shuffle,
    shuffle_and_prove,
    verify_shuffle,
)

SECRET = 0x5EC12E7
Y = base_mul(SECRET)
CTX = ProofContext(table_id=b"shuffle-tests", hand=2, phase="shuffle", seat=1)


def _xa(a: Point) -> Point:
    """``x·a``, the whole decryption factor (tests hold the single secret key)."""
    return a.multiply(scalar_to_bytes(SECRET))


Shuffled = tuple[list[Ciphertext], list[Ciphertext], ShuffleProof]
CARD_OF = {point_to_bytes(card_point(c)): c for c in range(78)}


def cards(deck: list[Ciphertext]) -> list[int]:
    return [CARD_OF[point_to_bytes(sub(c.b, _xa(c.a)))] for c in deck]


def masked_deck(n: int, seed: bytes = b"deck") -> list[Ciphertext]:
    rng = DeterministicRandom(seed)
    return [encrypt(Y, card_point(c), rng.scalar()) for c in range(n)]


@pytest.fixture(scope="module")
def small() -> Shuffled:
    deck = masked_deck(5)
    out, proof = shuffle_and_prove(Y, deck, CTX, DeterministicRandom(b"small"))
    return deck, out, proof


@pytest.fixture(scope="module")
def full() -> Shuffled:
    deck = initial_deck(Y)
    out, proof = shuffle_and_prove(Y, deck, CTX, DeterministicRandom(b"full"))
    return deck, out, proof


@pytest.mark.parametrize("n", [2, 3, 24, 78])
def test_honest_shuffle_verifies_and_permutes_the_cards(n: int) -> None:
    deck = masked_deck(n)
    out, proof = shuffle_and_prove(Y, deck, CTX, DeterministicRandom(n.to_bytes(2, "big")))
    verify_shuffle(Y, deck, out, proof, CTX)
    assert sorted(cards(out)) == list(range(n))
    assert {c.to_bytes() for c in out}.isdisjoint(c.to_bytes() for c in deck)  # all re-masked
    data = proof.to_bytes()
    assert len(data) == proof_size(n) == 97 * n + 129
    assert ShuffleProof.from_bytes(data, n) == proof
    verify_shuffle(Y, deck, out, ShuffleProof.from_bytes(data, n), CTX)


def test_shuffles_chain_and_subset_reshuffle(full: Shuffled) -> None:
    """A second peer shuffles the first one's output; then a 24-card subset is re-shuffled."""
    _, first, _ = full
    second, proof = shuffle_and_prove(Y, first, CTX, DeterministicRandom(b"second"))
    verify_shuffle(Y, first, second, proof, CTX)
    subset = second[:18] + second[-6:]
    ecart, sub_proof = shuffle_and_prove(Y, subset, CTX, DeterministicRandom(b"subset"))
    verify_shuffle(Y, subset, ecart, sub_proof, CTX)
    assert sorted(cards(ecart)) == sorted(cards(subset))


def test_full_deck_permutation_is_not_the_identity(full: Shuffled) -> None:
    deck, out, proof = full
    verify_shuffle(Y, deck, out, proof, CTX)
    order = cards(out)
    assert sorted(order) == list(range(78)) and order != list(range(78))


def test_generators_are_distinct_and_not_g() -> None:
    precompute_tables(MAX_CARDS)
    encodings = {point_to_bytes(commitment_generator(j)) for j in range(MAX_CARDS)}
    assert len(encodings) == MAX_CARDS
    assert point_to_bytes(base_mul(1)) not in encodings
    with pytest.raises(ValueError):
        commitment_generator(MAX_CARDS)


def test_card_replaced_rejected(small: Shuffled) -> None:
    deck, out, proof = small
    forged = list(out)
    forged[2] = encrypt(Y, card_point(77), 12345)
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, forged, proof, CTX)


def test_card_duplicated_rejected(small: Shuffled) -> None:
    deck, out, proof = small
    forged = list(out)
    forged[3] = remask(Y, forged[1], 99)  # a fresh-looking copy of another card
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, forged, proof, CTX)


def test_ciphertexts_swapped_after_proving_rejected(small: Shuffled) -> None:
    deck, out, proof = small
    swapped = [out[1], out[0], *out[2:]]
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, swapped, proof, CTX)
    half_swapped = [Ciphertext(out[0].a, out[1].b), Ciphertext(out[1].a, out[0].b), *out[2:]]
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, half_swapped, proof, CTX)


def test_other_input_or_key_rejected(small: Shuffled) -> None:
    deck, out, proof = small
    with pytest.raises(ProofError):
        verify_shuffle(Y, masked_deck(5, b"other"), out, proof, CTX)
    with pytest.raises(ProofError):
        verify_shuffle(base_mul(SECRET + 1), deck, out, proof, CTX)


def test_wrong_lengths_rejected(small: Shuffled) -> None:
    deck, out, proof = small
    for d_in, d_out in [(deck, out[:-1]), (deck[:-1], out), (deck + out[:1], out + out[:1])]:
        with pytest.raises(ProofError):
            verify_shuffle(Y, d_in, d_out, proof, CTX)
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck[:1], out[:1], proof, CTX)
    with pytest.raises(GroupError):
        ShuffleProof.from_bytes(proof.to_bytes(), 4)
    with pytest.raises(GroupError):
        ShuffleProof.from_bytes(proof.to_bytes()[:-1], 5)
    with pytest.raises(GroupError):
        ShuffleProof.from_bytes(b"", 1)
    with pytest.raises(ValueError):
        shuffle_and_prove(Y, deck[:1], CTX, DeterministicRandom(b"one"))


@pytest.mark.parametrize(
    "change",
    [{"table_id": b"other-table"}, {"hand": 3}, {"phase": "chien"}, {"seat": 2}, {"version": 9}],
)
def test_proof_under_another_context_rejected(small: Shuffled, change: dict[str, object]) -> None:
    deck, out, proof = small
    ctx = dataclasses.replace(CTX, **change)  # type: ignore[arg-type]
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, proof, ctx)


SCALAR_FIELDS = ["challenge", "s_rows", "s_opening", "s_remask", "s_product"]


@pytest.mark.parametrize("field", SCALAR_FIELDS)
def test_tampered_scalar_rejected(small: Shuffled, field: str) -> None:
    deck, out, proof = small
    value: Scalar = getattr(proof, field)
    forged = dataclasses.replace(proof, **{field: (value + 1) % ORDER})
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, forged, CTX)


@pytest.mark.parametrize("field", ["s_permuted", "s_partial"])
@pytest.mark.parametrize("index", [0, -1])
def test_tampered_response_vector_rejected(small: Shuffled, field: str, index: int) -> None:
    deck, out, proof = small
    values = list(getattr(proof, field))
    values[index] = (values[index] + 1) % ORDER
    forged = dataclasses.replace(proof, **{field: tuple(values)})
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, forged, CTX)


def test_wrong_permutation_commitment_rejected(small: Shuffled) -> None:
    deck, out, proof = small
    c = list(proof.commitments)
    c[0], c[1] = c[1], c[0]
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, dataclasses.replace(proof, commitments=tuple(c)), CTX)
    c = list(proof.commitments)
    c[4] = base_mul(7)
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, dataclasses.replace(proof, commitments=tuple(c)), CTX)
    forged = dataclasses.replace(proof, product_commitment=base_mul(8))
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, forged, CTX)


@pytest.mark.parametrize("n", [2, 5, 78])
def test_cheating_prover_duplicating_a_card_cannot_prove(n: int) -> None:
    """The prover's own algorithm run on a map that sends two outputs to one input."""
    deck = masked_deck(n)
    not_a_permutation = [0, *range(n - 1)]
    out, proof = _prove(Y, deck, not_a_permutation, CTX, DeterministicRandom(b"cheat"))
    assert Counter(cards(out))[0] == 2
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, proof, CTX)
    with pytest.raises(ValueError):
        prove_shuffle(Y, deck, not_a_permutation, CTX, DeterministicRandom(b"cheat"))


def test_prove_shuffle_with_a_chosen_permutation_matches_shuffle_and_prove() -> None:
    deck = masked_deck(6)
    permutation = DeterministicRandom(b"chosen").permutation(6)
    rng = DeterministicRandom(b"chosen")
    rng.permutation(6)
    out, proof = prove_shuffle(Y, deck, permutation, CTX, rng)
    same_out, same_proof = shuffle_and_prove(Y, deck, CTX, DeterministicRandom(b"chosen"))
    assert out == same_out and proof == same_proof
    assert cards(out) == [cards(deck)[i] for i in permutation]


def test_malformed_points_rejected(small: Shuffled) -> None:
    _, _, proof = small
    data = proof.to_bytes()
    not_on_curve = next(x for x in range(5, 100) if _not_on_curve(b"\x02" + x.to_bytes(32, "big")))
    bad_points = [
        b"\x04" + data[1:33],  # wrong prefix
        b"\x02" + FIELD_P.to_bytes(32, "big"),  # x out of range
        b"\x02" + not_on_curve.to_bytes(32, "big"),  # no such point
        b"\x00" * 33,  # the identity has no encoding
    ]
    for offset in (0, 33 * 5):  # a permutation commitment, the product commitment
        for bad in bad_points:
            with pytest.raises(GroupError):
                ShuffleProof.from_bytes(data[:offset] + bad + data[offset + 33 :], 5)


def _not_on_curve(encoding: bytes) -> bool:
    try:
        Point(encoding)
    except ValueError:
        return True
    return False


def test_out_of_range_scalar_rejected(small: Shuffled) -> None:
    _, _, proof = small
    data = proof.to_bytes()
    for offset in (33 * 6, len(data) - 32):  # the challenge, the last response
        forged = data[:offset] + ORDER.to_bytes(32, "big") + data[offset + 32 :]
        with pytest.raises(GroupError):
            ShuffleProof.from_bytes(forged, 5)
    zero_challenge = data[: 33 * 6] + bytes(32) + data[33 * 6 + 32 :]
    with pytest.raises(GroupError):
        ShuffleProof.from_bytes(zero_challenge, 5)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_any_flipped_byte_rejected(small: Shuffled, data: st.DataObject) -> None:
    deck, out, proof = small
    raw = bytearray(proof.to_bytes())
    position = data.draw(st.integers(0, len(raw) - 1))
    raw[position] ^= data.draw(st.integers(1, 255))
    with pytest.raises(CryptoError):
        verify_shuffle(Y, deck, out, ShuffleProof.from_bytes(bytes(raw), 5), CTX)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 8), seed=st.binary(max_size=8), victim=st.integers(0, 7))
def test_random_shuffles_verify_and_a_substitution_fails(n: int, seed: bytes, victim: int) -> None:
    deck = masked_deck(n)
    out, proof = shuffle_and_prove(Y, deck, CTX, DeterministicRandom(seed))
    verify_shuffle(Y, deck, out, proof, CTX)
    forged = list(out)
    forged[victim % n] = remask(Y, out[(victim + 1) % n], 5)
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, forged, proof, CTX)
