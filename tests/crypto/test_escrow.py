"""The key escrow (protocol/crypto.md §10): all the other seats rebuild a seat's key, and each
check refuses what it must, naming the right seat."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.crypto.errors import GroupError, ProofError
from tarot_p2p.crypto.escrow import (
    Escrow,
    SealedPiece,
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
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import (
    ORDER,
    G,
    Point,
    Scalar,
    add,
    base_mul,
    neg,
    point_to_bytes,
    points_equal,
    scalar_to_bytes,
)
from tarot_p2p.crypto.randomness import DeterministicRandom
from tests.crypto.conftest import HAND, TABLE

SEATS = st.sampled_from([3, 4, 5])
SEEDS = st.binary(max_size=8)
DELTAS = st.integers(min_value=1, max_value=ORDER - 1)


@dataclass(frozen=True)
class Table:
    """One hand's secrets and escrows: key shares, escrow keys, every seat's escrow."""

    xs: list[Scalar]
    ys: list[Point]
    es: list[Scalar]
    big_es: list[Point]
    escrows: list[Escrow]

    @property
    def seats(self) -> int:
        return len(self.xs)


def ctx(owner: int) -> ProofContext:
    return escrow_context(TABLE, HAND, owner)


def holders(seats: int, owner: int) -> list[int]:
    return [j for j in range(seats) if j != owner]


def make_table(seed: bytes, seats: int) -> Table:
    rng = DeterministicRandom(b"escrow table " + seed)
    xs = [rng.scalar() for _ in range(seats)]
    pairs = [make_escrow_key(rng) for _ in range(seats)]
    big_es = [big_e for _, big_e in pairs]
    escrows = [make_escrow(xs[i], ctx(i), big_es, rng) for i in range(seats)]
    return Table(xs, [base_mul(x) for x in xs], [e for e, _ in pairs], big_es, escrows)


def with_piece(escrow: Escrow, owner: int, holder: int, piece: SealedPiece) -> Escrow:
    pieces = list(escrow.pieces)
    pieces[holder - (holder > owner)] = piece
    return Escrow(escrow.r, tuple(pieces))


def piece_of(escrow: Escrow, owner: int, holder: int) -> SealedPiece:
    return escrow.pieces[holder - (holder > owner)]


# ---------------------------------------------------------------- the honest round trip


@settings(max_examples=12, deadline=None)
@given(SEATS, SEEDS)
def test_every_key_is_rebuilt_by_all_the_others(seats: int, seed: bytes) -> None:
    t = make_table(seed, seats)
    for owner, escrow in enumerate(t.escrows):
        data = escrow.to_bytes()
        assert len(data) == escrow_bytes(seats) == 33 + 65 * (seats - 1)
        assert Escrow.from_bytes(data, seats) == escrow
        check_escrow(escrow, t.ys[owner], seats)
        pieces = [open_piece(t.es[j], j, escrow, ctx(owner)) for j in holders(seats, owner)]
        for j, piece in zip(holders(seats, owner), pieces, strict=True):
            check_release(piece, j, escrow, owner)
            assert complaint_verdict(t.es[j], j, escrow, ctx(owner), t.big_es[j]) == j
        x = rebuild_key(escrow, owner, pieces)
        assert x == t.xs[owner]
        assert points_equal(base_mul(x), t.ys[owner])


def test_sizes() -> None:
    assert [escrow_bytes(n) for n in (3, 4, 5)] == [163, 228, 293]


def test_fresh_escrows_differ() -> None:
    """Two escrows of one key share no piece, ephemeral key or sealed value."""
    t = make_table(b"fresh", 4)
    again = make_escrow(t.xs[0], ctx(0), t.big_es, DeterministicRandom(b"other draws"))
    assert again.r != t.escrows[0].r
    for a, b in zip(again.pieces, t.escrows[0].pieces, strict=True):
        assert a.commitment != b.commitment and a.sealed != b.sealed
    check_escrow(again, t.ys[0], 4)


# ---------------------------------------------------------------- the sum (every peer)


@settings(max_examples=10, deadline=None)
@given(SEATS, SEEDS, DELTAS)
def test_pieces_of_another_key_fail_the_sum(seats: int, seed: bytes, delta: int) -> None:
    """An escrow that is right in itself but of ``x + delta``: every holder opens its piece,
    so only the sum check stands between the table and a key nobody can rebuild."""
    t = make_table(seed, seats)
    owner = seats - 1
    x = (t.xs[owner] + delta) % ORDER
    wrong = make_escrow(x, ctx(owner), t.big_es, DeterministicRandom(seed))
    for j in holders(seats, owner):
        open_piece(t.es[j], j, wrong, ctx(owner))
    with pytest.raises(ProofError):
        check_escrow(wrong, t.ys[owner], seats)


def test_another_seats_escrow_fails_the_sum() -> None:
    t = make_table(b"copy", 4)
    with pytest.raises(ProofError):
        check_escrow(t.escrows[1], t.ys[2], 4)


def test_wrong_number_of_pieces_refused() -> None:
    """An escrow made for three seats adds up right, but leaves the fourth seat out."""
    t = make_table(b"count", 4)
    short = make_escrow(t.xs[0], ctx(0), t.big_es[:3], DeterministicRandom(b"short"))
    check_escrow(short, t.ys[0], 3)
    with pytest.raises(ProofError):
        check_escrow(short, t.ys[0], 4)
    with pytest.raises(GroupError):
        Escrow.from_bytes(t.escrows[0].to_bytes(), 5)


def test_commitments_summing_to_the_identity_refused() -> None:
    t = make_table(b"identity", 3)
    a = t.escrows[0].pieces[0]
    cancel = Escrow(t.escrows[0].r, (a, SealedPiece(neg(a.commitment), 5)))
    with pytest.raises(ProofError):
        check_escrow(cancel, t.ys[0], 3)


# ---------------------------------------------------------------- opening (each holder)


@settings(max_examples=10, deadline=None)
@given(SEATS, SEEDS, DELTAS, st.data())
def test_badly_sealed_piece_passes_the_sum_but_not_its_holder(
    seats: int, seed: bytes, delta: int, data: st.DataObject
) -> None:
    t = make_table(seed, seats)
    owner = data.draw(st.integers(0, seats - 1))
    holder = data.draw(st.sampled_from(holders(seats, owner)))
    piece = piece_of(t.escrows[owner], owner, holder)
    bad = with_piece(
        t.escrows[owner], owner, holder, piece._replace(sealed=(piece.sealed + delta) % ORDER)
    )
    check_escrow(bad, t.ys[owner], seats)  # the public check cannot see it
    with pytest.raises(ProofError):
        open_piece(t.es[holder], holder, bad, ctx(owner))
    for j in holders(seats, owner):
        if j != holder:
            open_piece(t.es[j], j, bad, ctx(owner))
    assert complaint_verdict(t.es[holder], holder, bad, ctx(owner), t.big_es[holder]) == owner


def test_commitments_shifted_between_holders_fail_both() -> None:
    """Moving ``G`` from one commitment to another keeps the sum; both holders see it."""
    t = make_table(b"shift", 4)
    escrow = t.escrows[0]
    p1, p2 = piece_of(escrow, 0, 1), piece_of(escrow, 0, 2)
    shifted = with_piece(escrow, 0, 1, p1._replace(commitment=add(p1.commitment, G)))
    shifted = with_piece(shifted, 0, 2, p2._replace(commitment=add(p2.commitment, neg(G))))
    check_escrow(shifted, t.ys[0], 4)
    for holder in (1, 2):
        with pytest.raises(ProofError):
            open_piece(t.es[holder], holder, shifted, ctx(0))
        assert complaint_verdict(t.es[holder], holder, shifted, ctx(0), t.big_es[holder]) == 0
    open_piece(t.es[3], 3, shifted, ctx(0))


@pytest.mark.parametrize("shared_key", [False, True])
def test_pieces_swapped_between_holders_fail(shared_key: bool) -> None:
    """A pad names its holder: a piece sealed to seat 2 does not open as seat 1's, even
    when seat 2 published seat 1's escrow key as its own."""
    t = make_table(b"swap", 4)
    escrow = t.escrows[0]
    if shared_key:
        t.es[2], t.big_es[2] = t.es[1], t.big_es[1]
        escrow = make_escrow(t.xs[0], ctx(0), t.big_es, DeterministicRandom(b"shared"))
    p1, p2 = piece_of(escrow, 0, 1), piece_of(escrow, 0, 2)
    swapped = with_piece(with_piece(escrow, 0, 1, p2), 0, 2, p1)
    check_escrow(swapped, t.ys[0], 4)
    for holder in (1, 2):
        with pytest.raises(ProofError):
            open_piece(t.es[holder], holder, swapped, ctx(0))


@pytest.mark.parametrize(
    "other",
    [
        ProofContext(TABLE, HAND + 1, "escrow", 0),
        ProofContext(TABLE + b"!", HAND, "escrow", 0),
        ProofContext(TABLE, HAND, "key", 0),
    ],
)
def test_escrow_opened_under_another_context_fails(other: ProofContext) -> None:
    t = make_table(b"context", 4)
    for holder in holders(4, 0):
        with pytest.raises(ProofError):
            open_piece(t.es[holder], holder, t.escrows[0], other)


def test_escrow_of_one_owner_does_not_open_as_another() -> None:
    t = make_table(b"owner", 4)
    with pytest.raises(ProofError):
        open_piece(t.es[2], 2, t.escrows[0], ctx(1))


def test_opening_with_a_wrong_key_fails() -> None:
    t = make_table(b"wrong key", 4)
    with pytest.raises(ProofError):
        open_piece(t.es[3], 1, t.escrows[0], ctx(0))


# ---------------------------------------------------------------- complaints


def test_false_complaint_blames_the_complainer() -> None:
    t = make_table(b"false", 5)
    for owner, escrow in enumerate(t.escrows):
        for j in holders(5, owner):
            assert complaint_verdict(t.es[j], j, escrow, ctx(owner), t.big_es[j]) == j


@pytest.mark.parametrize("revealed", ["another seat's key", "a random key", "zero"])
def test_complaint_with_a_key_not_the_published_one_blames_the_complainer(revealed: str) -> None:
    """Even against an escrow that really is bad, a complaint must show the holder's own key."""
    t = make_table(b"not mine", 4)
    owner, holder = 0, 1
    piece = piece_of(t.escrows[owner], owner, holder)
    bad = with_piece(t.escrows[owner], owner, holder, piece._replace(sealed=piece.sealed ^ 1))
    e = {"another seat's key": t.es[2], "a random key": 12345, "zero": 0}[revealed]
    assert complaint_verdict(e, holder, bad, ctx(owner), t.big_es[holder]) == holder


def test_complaint_reveals_only_the_pieces_sealed_to_its_holder() -> None:
    """What a complaint gives away: every piece sealed to the complainer, no other."""
    t = make_table(b"reveal", 4)
    e2 = t.es[2]
    for owner in (0, 1, 3):
        open_piece(e2, 2, t.escrows[owner], ctx(owner))
        for j in holders(4, owner):
            if j != 2:
                with pytest.raises(ProofError):
                    open_piece(e2, j, t.escrows[owner], ctx(owner))


# ---------------------------------------------------------------- release and rebuild


@settings(max_examples=10, deadline=None)
@given(SEATS, SEEDS, DELTAS, st.data())
def test_wrong_release_piece_refused(
    seats: int, seed: bytes, delta: int, data: st.DataObject
) -> None:
    t = make_table(seed, seats)
    owner = data.draw(st.integers(0, seats - 1))
    escrow = t.escrows[owner]
    pieces = [open_piece(t.es[j], j, escrow, ctx(owner)) for j in holders(seats, owner)]
    k = data.draw(st.integers(0, seats - 2))
    liar = holders(seats, owner)[k]
    wrong = (pieces[k] + delta) % ORDER
    with pytest.raises(ProofError, match=f"seat {liar} released"):
        check_release(wrong, liar, escrow, owner)
    with pytest.raises(ProofError, match=f"seat {liar} released"):
        rebuild_key(escrow, owner, [*pieces[:k], wrong, *pieces[k + 1 :]])


def test_release_of_another_holders_piece_refused() -> None:
    t = make_table(b"other piece", 4)
    piece_of_2 = open_piece(t.es[2], 2, t.escrows[0], ctx(0))
    with pytest.raises(ProofError):
        check_release(piece_of_2, 1, t.escrows[0], 0)


def test_rebuild_needs_every_piece() -> None:
    t = make_table(b"every", 4)
    pieces = [open_piece(t.es[j], j, t.escrows[3], ctx(3)) for j in holders(4, 3)]
    with pytest.raises(ProofError):
        rebuild_key(t.escrows[3], 3, pieces[:2])
    assert rebuild_key(t.escrows[3], 3, pieces) == t.xs[3]


def test_a_missing_piece_leaves_the_key_unknown() -> None:
    """The pieces of all holders but one add up to a uniformly random value, not to ``x``:
    two escrows of the same key, by the same holders but one, give unrelated sums."""
    t = make_table(b"missing", 4)
    again = make_escrow(t.xs[0], ctx(0), t.big_es, DeterministicRandom(b"again"))
    partial = [
        sum(open_piece(t.es[j], j, escrow, ctx(0)) for j in (1, 2)) % ORDER
        for escrow in (t.escrows[0], again)
    ]
    assert partial[0] != partial[1]
    assert t.xs[0] not in partial


# ---------------------------------------------------------------- encodings


def test_malformed_escrows_refused() -> None:
    t = make_table(b"bytes", 3)
    good = t.escrows[0].to_bytes()
    bad = [
        good[:-1],
        good + b"\x00",
        b"\x04" + good[1:],  # R not compressed
        good[:33] + b"\x05" + good[34:],  # the first commitment's prefix
        good[:33] + b"\x02" + b"\xff" * 32 + good[66:],  # x >= p
        good[:66] + ORDER.to_bytes(32, "big") + good[98:],  # the first sealed value = n
        good[:-32] + b"\xff" * 32,  # the last sealed value > n
    ]
    for data in bad:
        with pytest.raises(GroupError):
            Escrow.from_bytes(data, 3)


def test_zero_sealed_value_parses() -> None:
    t = make_table(b"zero", 3)
    good = t.escrows[0].to_bytes()
    escrow = Escrow.from_bytes(good[:66] + bytes(32) + good[98:], 3)
    assert escrow.pieces[0].sealed == 0


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_every_bit_flip_is_caught_by_someone(data: st.DataObject) -> None:
    """A flipped bit anywhere fails parsing, the public sum, or some holder's opening."""
    t = make_table(b"flip", 4)
    good = bytearray(t.escrows[2].to_bytes())
    bit = data.draw(st.integers(0, 8 * len(good) - 1))
    good[bit // 8] ^= 1 << (bit % 8)
    try:
        escrow = Escrow.from_bytes(bytes(good), 4)
        check_escrow(escrow, t.ys[2], 4)
    except (GroupError, ProofError):
        return
    refused = 0
    for j in holders(4, 2):
        try:
            open_piece(t.es[j], j, escrow, ctx(2))
        except ProofError:
            refused += 1
    assert refused >= 1


@pytest.mark.parametrize("seats", [1, 257])
def test_table_sizes_out_of_range_refused(seats: int) -> None:
    with pytest.raises(ValueError):
        escrow_bytes(seats)


def test_a_seat_holds_no_piece_of_its_own_key() -> None:
    t = make_table(b"own", 3)
    with pytest.raises(ValueError):
        open_piece(t.es[0], 0, t.escrows[0], ctx(0))
    with pytest.raises(ValueError):
        check_release(1, 3, t.escrows[0], 0)


def test_commitment_encoding_is_the_points() -> None:
    t = make_table(b"layout", 3)
    escrow = t.escrows[1]
    data = escrow.to_bytes()
    assert data[:33] == point_to_bytes(escrow.r)
    for k, piece in enumerate(escrow.pieces):
        at = 33 + 65 * k
        assert data[at : at + 33] == point_to_bytes(piece.commitment)
        assert data[at + 33 : at + 65] == scalar_to_bytes(piece.sealed)


def test_a_piece_that_unseals_to_zero_matches_nothing() -> None:
    """Zero has no commitment (the identity has no encoding): a sealed zero is the owner's
    fault and a released zero the holder's, never a crash."""
    t = make_table(b"zero piece", 4)
    owner, holder = 1, 3
    a = open_piece(t.es[holder], holder, t.escrows[owner], ctx(owner))
    piece = piece_of(t.escrows[owner], owner, holder)
    zero = with_piece(
        t.escrows[owner], owner, holder, piece._replace(sealed=(piece.sealed - a) % ORDER)
    )
    with pytest.raises(ProofError):
        open_piece(t.es[holder], holder, zero, ctx(owner))
    assert complaint_verdict(t.es[holder], holder, zero, ctx(owner), t.big_es[holder]) == owner
    with pytest.raises(ProofError):
        check_release(0, holder, t.escrows[owner], owner)
