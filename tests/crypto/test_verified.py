"""The memory of valid proofs: a proof checked once is accepted again from memory, and
nothing but those very bytes under that very statement is."""

from __future__ import annotations

import contextlib
import dataclasses
import threading

import pytest

from tarot_p2p.crypto import shares as shares_module
from tarot_p2p.crypto import shuffle as shuffle_module
from tarot_p2p.crypto import verified
from tarot_p2p.crypto.elgamal import card_point, encrypt
from tarot_p2p.crypto.errors import ProofError
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import ORDER, base_mul
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shares import prove_shares, verify_shares
from tarot_p2p.crypto.shuffle import (
    LABEL_X,
    _statement,
    prove_shuffle,
    shuffle_and_prove,
    verify_shuffle,
)
from tarot_p2p.crypto.sigma import CompactProof

SECRET = 0x7E57


@pytest.fixture(autouse=True)
def memory() -> None:
    """The memory on, empty (``conftest.py`` turns it off for the other tests)."""
    verified.set_size(verified.DEFAULT_SIZE)


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


class _Watched:
    """Threads' events as :func:`verified.once` makes them, telling the test when one is
    waited on (the second check of a key has reached its wait)."""

    def __init__(self, waiting: threading.Event) -> None:
        self.waiting = waiting

    def Event(self) -> threading.Event:  # the name of the threading.Event it stands for
        waiting = self.waiting

        class Told(threading.Event):
            def wait(self, timeout: float | None = None) -> bool:
                waiting.set()
                return super().wait(timeout)

        return Told()


HANG_GUARD = 60.0
"""Seconds before a test that would hang gives up (never reached when it passes)."""


def _second_check_meets_the_first(
    monkeypatch: pytest.MonkeyPatch, first_passes: bool
) -> tuple[list[str], list[BaseException]]:
    """Thread A checks a key and is held inside its check; thread B asks about the same
    key meanwhile; then A's check ends (passed or failed). Returns which checks ran, in
    order, and B's exception if it raised."""
    progress = threading.Event()
    monkeypatch.setattr(verified, "threading", _Watched(progress))
    k = verified.key(b"label", CTX, b"same proof")
    ran: list[str] = []
    raised: list[BaseException] = []
    started, release = threading.Event(), threading.Event()

    def first() -> None:
        ran.append("A")
        started.set()
        assert release.wait(HANG_GUARD)
        if not first_passes:
            raise ProofError("A's check failed")

    def second() -> None:
        ran.append("B")
        progress.set()

    def a() -> None:
        with contextlib.suppress(ProofError):
            verified.once(k, first)

    def b() -> None:
        try:
            verified.once(k, second)
        except ProofError as exc:  # pragma: no cover - second() does not raise
            raised.append(exc)

    ta = threading.Thread(target=a)
    ta.start()
    assert started.wait(HANG_GUARD)
    tb = threading.Thread(target=b)
    tb.start()
    assert progress.wait(HANG_GUARD)  # B waits for A, or (the defect) checks beside it
    assert ran == ["A"]
    release.set()
    ta.join(HANG_GUARD)
    tb.join(HANG_GUARD)
    return ran, raised


def test_a_check_under_way_answers_for_the_same_proof_asked_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran, raised = _second_check_meets_the_first(monkeypatch, first_passes=True)
    assert ran == ["A"] and not raised
    assert verified.known(verified.key(b"label", CTX, b"same proof"))


def test_after_a_failed_check_the_waiting_caller_checks_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran, raised = _second_check_meets_the_first(monkeypatch, first_passes=False)
    assert ran == ["A", "B"] and not raised


def test_other_proofs_do_not_wait_for_a_check_under_way() -> None:
    started, release = threading.Event(), threading.Event()
    k1, k2 = (verified.key(b"label", CTX, bytes([i])) for i in range(2))

    def held() -> None:
        started.set()
        assert release.wait(HANG_GUARD)

    t = threading.Thread(target=verified.once, args=(k1, held))
    t.start()
    assert started.wait(HANG_GUARD)
    ran: list[bytes] = []
    verified.once(k2, lambda: ran.append(k2))  # in this thread, while k1's check is held
    assert ran == [k2] and verified.known(k2) and not verified.known(k1)
    release.set()
    t.join(HANG_GUARD)
    assert verified.known(k1)


def test_a_failed_check_is_raised_and_not_remembered() -> None:
    k = verified.key(b"label", CTX, b"bad")

    def bad() -> None:
        raise ProofError("no")

    for _ in range(2):
        with pytest.raises(ProofError):
            verified.once(k, bad)
    assert not verified.known(k)


def _never_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any full check of a shuffle or shares fail the test."""

    def checked(*_: object) -> None:
        raise AssertionError("checked in full")

    monkeypatch.setattr(shuffle_module, "_check", checked)
    monkeypatch.setattr(shares_module, "_check_shares", checked)


def test_a_shuffle_made_here_is_taken_without_a_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The seat that proved a shuffle, and the house bots beside it, take it from memory:
    each check took a shuffle's proving time again on the way to the next seat."""
    deck = _deck(5)
    out, proof = shuffle_and_prove(Y, deck, CTX, DeterministicRandom(b"made"))
    chosen, chosen_proof = prove_shuffle(Y, deck, [4, 3, 2, 1, 0], CTX, DeterministicRandom(b"x"))
    _never_checked(monkeypatch)
    verify_shuffle(Y, deck, out, proof, CTX)
    verify_shuffle(Y, deck, chosen, chosen_proof, CTX)


def test_shares_made_here_are_taken_without_a_check(monkeypatch: pytest.MonkeyPatch) -> None:
    x = 0x4D4D
    ctx = dataclasses.replace(CTX, phase="deal")
    cts = _deck(3)
    made, proof = prove_shares(x, cts, ctx, DeterministicRandom(b"made-shares"))
    _never_checked(monkeypatch)
    verify_shares(base_mul(x), cts, made, proof, ctx)


def test_what_the_prover_makes_of_a_map_that_is_not_a_permutation_is_checked() -> None:
    """The prover run on a map sending two outputs to one input (a cheat, done with our
    own code) makes a proof that does not verify: it must not be remembered as made."""
    deck = _deck(4)
    out, proof = shuffle_module._prove(Y, deck, [0, 0, 1, 2], CTX, DeterministicRandom(b"cheat"))
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, proof, CTX)


def test_changed_after_it_was_made_a_shuffle_is_checked_in_full() -> None:
    """A cheat's message: a proof made here, its deck changed after (the conformance kit's
    swapped cards). The change makes another key, checked, and refused."""
    deck = _deck(4)
    out, proof = shuffle_and_prove(Y, deck, CTX, DeterministicRandom(b"swapped"))
    out[0], out[1] = out[1], out[0]
    with pytest.raises(ProofError):
        verify_shuffle(Y, deck, out, proof, CTX)


def test_with_no_memory_a_proof_made_here_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """``set_size(0)`` (peers timed apart, as on their own machines) keeps nothing, not
    even the proofs made here."""
    verified.set_size(0)
    deck = _deck(3)
    out, proof = shuffle_and_prove(Y, deck, CTX, DeterministicRandom(b"apart"))
    _never_checked(monkeypatch)
    with pytest.raises(AssertionError, match="checked in full"):
        verify_shuffle(Y, deck, out, proof, CTX)
