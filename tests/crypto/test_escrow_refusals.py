"""The escrow's bounds at their edges and the words of its refusals (``crypto.md`` §10).

Each test builds what it needs itself (no fixture, nothing at import): the mutation check
(docs/mutation.md) runs these tests against every changed check of ``crypto/escrow.py``.
The words matter: a refusal names the seat at fault, and a peer's log is what tells a bug
from a cheat."""

from __future__ import annotations

import pytest

from tarot_p2p.crypto.errors import GroupError, ProofError
from tarot_p2p.crypto.escrow import (
    Escrow,
    SealedPiece,
    absent_key,
    check_escrow,
    check_release,
    complaint_verdict,
    escrow_bytes,
    escrow_context,
    make_escrow,
    make_escrow_key,
    open_piece,
    rebuild_key,
)
from tarot_p2p.crypto.group import ORDER, Point, Scalar, base_mul, neg
from tarot_p2p.crypto.randomness import DeterministicRandom
from tests.crypto.conftest import HAND, TABLE


def keys(seats: int, seed: bytes = b"refusals") -> tuple[list[Scalar], list[Point]]:
    rng = DeterministicRandom(b"escrow keys " + seed)
    pairs = [make_escrow_key(rng) for _ in range(seats)]
    return [e for e, _ in pairs], [big_e for _, big_e in pairs]


@pytest.mark.parametrize(("seats", "size"), [(2, 33 + 65), (3, 33 + 130), (256, 33 + 65 * 255)])
def test_escrow_sizes_at_the_ends_of_the_table_sizes(seats: int, size: int) -> None:
    assert escrow_bytes(seats) == size


@pytest.mark.parametrize("seats", [1, 257])
def test_table_sizes_past_the_ends_are_refused_in_words(seats: int) -> None:
    with pytest.raises(ValueError, match=r"^an escrow needs 2 to 256 seats$"):
        escrow_bytes(seats)


def test_an_escrow_at_two_seats_goes_to_the_other_seat_whole() -> None:
    """The smallest table: one holder, whose one piece is the whole key share."""
    es, big_es = keys(2)
    x = 123456789
    for owner, holder in ((0, 1), (1, 0)):
        ctx = escrow_context(TABLE, HAND, owner)
        escrow = make_escrow(x, ctx, big_es, DeterministicRandom(b"two"))
        check_escrow(escrow, base_mul(x), 2)
        assert open_piece(es[holder], holder, escrow, ctx) == x
        assert rebuild_key(escrow, owner, [x]) == x


@pytest.mark.parametrize("owner", [3, 4])  # (a context's seat is never negative)
def test_an_owner_not_at_the_table_is_refused_in_words(owner: int) -> None:
    _, big_es = keys(3)
    ctx = escrow_context(TABLE, HAND, owner)
    with pytest.raises(ValueError, match=rf"^seat {owner} is not one of 3$"):
        make_escrow(5, ctx, big_es, DeterministicRandom(b"x"))


def test_the_last_seat_may_escrow_and_seat_zero_hold() -> None:
    es, big_es = keys(3)
    ctx = escrow_context(TABLE, HAND, 2)
    escrow = make_escrow(77, ctx, big_es, DeterministicRandom(b"last"))
    pieces = [open_piece(es[j], j, escrow, ctx) for j in (0, 1)]
    assert sum(pieces) % ORDER == 77


@pytest.mark.parametrize("holder", [-1, 3])
def test_a_holder_not_at_the_table_is_refused_in_words(holder: int) -> None:
    es, big_es = keys(3)
    ctx = escrow_context(TABLE, HAND, 0)
    escrow = make_escrow(5, ctx, big_es, DeterministicRandom(b"x"))
    with pytest.raises(ValueError, match=rf"^seat {holder} is not one of 3$"):
        open_piece(es[1], holder, escrow, ctx)


def test_a_seat_holding_its_own_piece_is_refused_in_words() -> None:
    es, big_es = keys(3)
    ctx = escrow_context(TABLE, HAND, 1)
    escrow = make_escrow(5, ctx, big_es, DeterministicRandom(b"x"))
    with pytest.raises(ValueError, match=r"^a seat holds no piece of its own key$"):
        open_piece(es[1], 1, escrow, ctx)


def test_an_escrow_of_the_wrong_length_is_refused_in_words() -> None:
    with pytest.raises(GroupError, match=r"^an escrow at 3 seats is 163 bytes$"):
        Escrow.from_bytes(bytes(162), 3)


def test_the_public_checks_say_what_is_wrong() -> None:
    _, big_es = keys(4)
    x = 987654321
    escrow = make_escrow(x, escrow_context(TABLE, HAND, 0), big_es, DeterministicRandom(b"w"))
    with pytest.raises(ProofError, match=r"^an escrow at 5 seats has 4 pieces$"):
        check_escrow(escrow, base_mul(x), 5)
    with pytest.raises(ProofError, match=r"^the escrow's commitments do not add up to the key"):
        check_escrow(escrow, base_mul(x + 1), 4)
    a = escrow.pieces[0].commitment
    cancel = Escrow(escrow.r, (SealedPiece(a, 1), SealedPiece(neg(a), 2)))
    with pytest.raises(ProofError, match=r"^the escrow's commitments add up to the identity$"):
        check_escrow(cancel, base_mul(x), 3)


def test_a_wrong_piece_names_its_owner_and_holder() -> None:
    es, big_es = keys(4)
    ctx = escrow_context(TABLE, HAND, 2)
    escrow = make_escrow(99, ctx, big_es, DeterministicRandom(b"p"))
    piece = escrow.pieces[1]  # holder 1's (holders 0, 1, 3)
    bad = Escrow(
        escrow.r, (escrow.pieces[0], piece._replace(sealed=piece.sealed + 1), escrow.pieces[2])
    )
    with pytest.raises(ProofError, match=r"^the escrow piece of seat 2 for seat 1 is wrong$"):
        open_piece(es[1], 1, bad, ctx)
    assert complaint_verdict(es[1], 1, bad, ctx, big_es[1]) == 2


def test_rebuilding_with_a_piece_missing_says_how_many_it_takes() -> None:
    es, big_es = keys(4)
    ctx = escrow_context(TABLE, HAND, 0)
    escrow = make_escrow(42, ctx, big_es, DeterministicRandom(b"r"))
    pieces = [open_piece(es[j], j, escrow, ctx) for j in (1, 2, 3)]
    with pytest.raises(ProofError, match=r"^rebuilding a key takes all 3 pieces$"):
        rebuild_key(escrow, 0, pieces[:2])
    with pytest.raises(ProofError, match=r"^rebuilding a key takes all 3 pieces$"):
        rebuild_key(escrow, 0, [*pieces, 1])


def test_an_absent_key_is_the_hash_of_its_seat_and_never_zero() -> None:
    keys_ = {absent_key(TABLE, HAND, seat) for seat in range(5)}
    assert len(keys_) == 5 and all(0 < k < ORDER for k in keys_)
    assert absent_key(TABLE, HAND + 1, 0) not in keys_


def test_a_released_multiple_of_the_order_is_refused_as_zero() -> None:
    """``ORDER`` is zero as a scalar: it matches no commitment, a :class:`ProofError` that
    blames the holder (not a :class:`GroupError` from multiplying by it)."""
    _, big_es = keys(3)
    escrow = make_escrow(5, escrow_context(TABLE, HAND, 0), big_es, DeterministicRandom(b"o"))
    for value in (0, ORDER, 2 * ORDER):
        with pytest.raises(ProofError, match=r"^seat 1 released a wrong piece of seat 0's key$"):
            check_release(value, 1, escrow, 0)
