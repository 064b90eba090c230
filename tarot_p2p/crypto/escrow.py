"""Key escrow: a seat's hand key, rebuilt by all the other seats together and by no fewer.

Theory of operation. Each hand every seat ``i`` holds a key share ``x_i`` (``Y_i = x_i·G``,
:mod:`keys`); a card opens only with every share, so a seat that goes silent would leave its
cards shut for good. The escrow lets the other seats finish its hand:

* **Escrow keys.** Beside its key share, seat ``j`` publishes ``E_j = e_j·G`` for a fresh
  ``e_j`` it uses for nothing but receiving escrow pieces in this hand. No proof of
  knowledge goes with it: a seat that publishes a key it cannot use (someone else's, or a
  random point) only loses its own pieces, which it could as well give away or withhold.
* **Pieces.** Seat ``i`` splits ``x_i`` into ``n − 1`` additive pieces ``a_ij``, one per
  other seat ``j`` (its *holders*, ascending): all uniformly random but the last, which is
  ``x_i − Σ others mod ORDER``. It publishes the commitments ``A_ij = a_ij·G`` and, with one
  ephemeral ``R = r·G``, seals each piece to its holder: ``c_ij = a_ij + pad_ij mod ORDER``
  where ``pad_ij = challenge(PAD_LABEL, ctx_i, j, E_j, R, r·E_j)`` (hashed ElGamal of a
  scalar; ``ctx_i`` names the table, the hand, the phase ``"escrow"`` and seat ``i``).
* **Everyone** checks ``Σ_j A_ij = Y_i`` (:func:`check_escrow`). **Each holder** unseals its
  piece with ``e_j`` and checks ``a_ij·G = A_ij`` (:func:`open_piece`). No proof is needed
  for the sum: ``G`` has prime order, so once every holder has checked the discrete log of
  its own commitment, the pieces they hold add up to the one ``x_i`` with ``x_i·G = Y_i``.
* **Complaint.** A holder whose piece fails its check reveals ``e_j``; anyone then checks
  ``e_j·G = E_j``, unseals the piece and sees the mismatch (:func:`complaint_verdict`): it
  blames seat ``i``, or, when the piece is right (or ``e_j`` is not the published key's),
  the complainer. Revealing ``e_j`` opens only the pieces sealed to ``j`` in this hand;
  the protocol stops the hand at any complaint, so those pieces never guard a card.
* **Absent before escrow.** A seat silent before its key is escrowed gets a public key
  share instead, hashed from the table, hand and seat (:func:`absent_key`): its cards are
  then open to all, and the others finish its hand.
* **Release.** When seat ``i`` is absent, each holder publishes ``a_ij``; anyone checks it
  against ``A_ij`` (:func:`check_release`) and, with all ``n − 1``, ``x_i = Σ a_ij``
  (:func:`rebuild_key`). Any set of holders lacking one sees, of ``x_i``, nothing it could
  not simulate from the public ``Y_i``: the missing piece is uniform and sealed to another
  key.

The normative description, every byte and hash input, is ``protocol/crypto.md`` §10; what
the escrow gives a coalition is in ``docs/security.md``. Draw order (for the vectors):
:func:`make_escrow_key` draws ``e``; :func:`make_escrow` draws the pieces of every holder
but the last, ascending, then ``r``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from tarot_p2p.crypto.errors import GroupError, ProofError
from tarot_p2p.crypto.fiat_shamir import ProofContext, challenge
from tarot_p2p.crypto.group import (
    ORDER,
    POINT_BYTES,
    SCALAR_BYTES,
    Point,
    Scalar,
    base_mul,
    mul,
    mul_secret,
    point_from_bytes,
    point_to_bytes,
    points_equal,
    scalar_from_bytes,
    scalar_to_bytes,
    sum_points,
)
from tarot_p2p.crypto.randomness import RandomSource

ESCROW_PHASE = "escrow"
PAD_LABEL = b"tarot-p2p/escrow-pad/v1"
ABSENT_LABEL = b"tarot-p2p/absent-key/v1"
ABSENT_PHASE = "absent"
PIECE_BYTES = POINT_BYTES + SCALAR_BYTES
"""One sealed piece on the wire: its commitment ``A_ij`` then its sealed value ``c_ij``."""


class SealedPiece(NamedTuple):
    """The piece of one holder: public commitment ``A = a·G`` and sealed value ``c``."""

    commitment: Point
    sealed: Scalar


class Escrow(NamedTuple):
    """Seat ``i``'s escrow of its key share: the ephemeral ``R`` and one piece per holder,
    in ascending seat order, seat ``i`` itself left out."""

    r: Point
    pieces: tuple[SealedPiece, ...]

    def to_bytes(self) -> bytes:
        """``R`` (33 bytes), then per holder ``A_ij`` (33) ``|| c_ij`` (32)."""
        return point_to_bytes(self.r) + b"".join(
            point_to_bytes(p.commitment) + scalar_to_bytes(p.sealed) for p in self.pieces
        )

    @classmethod
    def from_bytes(cls, data: bytes, seats: int) -> Escrow:
        """Parse the escrow of a table of ``seats`` seats; every point and scalar checked."""
        if len(data) != escrow_bytes(seats):
            raise GroupError(f"an escrow at {seats} seats is {escrow_bytes(seats)} bytes")
        pieces = []
        for at in range(POINT_BYTES, len(data), PIECE_BYTES):
            commitment = point_from_bytes(data[at : at + POINT_BYTES])
            sealed = scalar_from_bytes(data[at + POINT_BYTES : at + PIECE_BYTES])
            pieces.append(SealedPiece(commitment, sealed))
        return cls(point_from_bytes(data[:POINT_BYTES]), tuple(pieces))


def escrow_bytes(seats: int) -> int:
    """The length of an escrow at ``seats`` seats: ``33 + 65·(seats − 1)``."""
    _check_seat(0, seats)
    return POINT_BYTES + PIECE_BYTES * (seats - 1)


def escrow_context(table_id: bytes, hand: int, owner: int) -> ProofContext:
    """The context seat ``owner``'s escrow is bound to (its pads hash it)."""
    return ProofContext(table_id=table_id, hand=hand, phase=ESCROW_PHASE, seat=owner)


def make_escrow_key(rng: RandomSource) -> tuple[Scalar, Point]:
    """A fresh escrow key ``e`` and its public ``E = e·G``, for one hand."""
    e = rng.scalar()
    return e, base_mul(e)


def make_escrow(
    x: Scalar, ctx: ProofContext, escrow_keys: Sequence[Point], rng: RandomSource
) -> Escrow:
    """Seat ``ctx.seat``'s escrow of ``x`` to every other seat; ``escrow_keys[j]`` is
    ``E_j`` for every seat ``j`` (the owner's own entry is not used)."""
    owner, seats = ctx.seat, len(escrow_keys)
    _check_seat(owner, seats)
    holders = [j for j in range(seats) if j != owner]
    values = [rng.scalar() for _ in holders[:-1]]
    values.append((x - sum(values)) % ORDER)  # zero with probability 2^-256: base_mul refuses
    r = rng.scalar()
    big_r = base_mul(r)
    pieces = []
    for holder, value in zip(holders, values, strict=True):
        key = escrow_keys[holder]
        pad = _pad(ctx, holder, key, big_r, mul_secret(key, r))
        pieces.append(SealedPiece(base_mul(value), (value + pad) % ORDER))
    return Escrow(big_r, tuple(pieces))


def check_escrow(escrow: Escrow, y_owner: Point, seats: int) -> None:
    """Raise :class:`ProofError` unless the escrow has one piece per other seat and its
    commitments add up to the owner's key share ``Y_i`` (the check every peer makes)."""
    if len(escrow.pieces) != seats - 1:
        raise ProofError(f"an escrow at {seats} seats has {seats - 1} pieces")
    try:
        total = sum_points([p.commitment for p in escrow.pieces])
    except GroupError:
        raise ProofError("the escrow's commitments add up to the identity") from None
    if not points_equal(total, y_owner):
        raise ProofError("the escrow's commitments do not add up to the key share")


def open_piece(e: Scalar, holder: int, escrow: Escrow, ctx: ProofContext) -> Scalar:
    """The holder's piece, unsealed with its escrow key ``e``; :class:`ProofError` when it
    does not match its commitment (then the holder complains, revealing ``e``)."""
    value = _unseal(escrow, ctx, holder, base_mul(e), mul_secret(escrow.r, e))
    if not _matches(value, _piece(escrow, ctx.seat, holder).commitment):
        raise ProofError(f"the escrow piece of seat {ctx.seat} for seat {holder} is wrong")
    return value


def complaint_verdict(
    e: Scalar, holder: int, escrow: Escrow, ctx: ProofContext, escrow_key: Point
) -> int:
    """The seat a complaint proves at fault: the owner ``ctx.seat`` when ``e`` is the
    holder's published escrow key ``escrow_key`` and unseals a piece that does not match its
    commitment; the complaining ``holder`` otherwise."""
    commitment = _piece(escrow, ctx.seat, holder).commitment
    try:
        if not points_equal(base_mul(e), escrow_key):
            return holder
    except GroupError:  # e = 0 mod ORDER: no key at all
        return holder
    value = _unseal(escrow, ctx, holder, escrow_key, mul(escrow.r, e))
    return holder if _matches(value, commitment) else ctx.seat


def check_release(value: Scalar, holder: int, escrow: Escrow, owner: int) -> None:
    """Raise :class:`ProofError` unless ``value`` is the piece committed to ``holder``."""
    if not _matches(value, _piece(escrow, owner, holder).commitment):
        raise ProofError(f"seat {holder} released a wrong piece of seat {owner}'s key")


def rebuild_key(escrow: Escrow, owner: int, released: Sequence[Scalar]) -> Scalar:
    """``x_i = Σ a_ij``, from the pieces every holder released (``released[k]`` is the
    ``k``-th holder's, ascending), each checked against its commitment."""
    if len(released) != len(escrow.pieces):
        raise ProofError(f"rebuilding a key takes all {len(escrow.pieces)} pieces")
    seats = len(escrow.pieces) + 1
    holders = [j for j in range(seats) if j != owner]
    for holder, value in zip(holders, released, strict=True):
        check_release(value, holder, escrow, owner)
    return sum(released) % ORDER


def _check_seat(seat: int, seats: int) -> None:
    if not 2 <= seats <= 256:
        raise ValueError("an escrow needs 2 to 256 seats")
    if not 0 <= seat < seats:
        raise ValueError(f"seat {seat} is not one of {seats}")


def _piece(escrow: Escrow, owner: int, holder: int) -> SealedPiece:
    seats = len(escrow.pieces) + 1
    _check_seat(owner, seats)
    _check_seat(holder, seats)
    if holder == owner:
        raise ValueError("a seat holds no piece of its own key")
    return escrow.pieces[holder - (holder > owner)]


def _pad(ctx: ProofContext, holder: int, key: Point, big_r: Point, shared: Point) -> Scalar:
    """``challenge(PAD_LABEL, ctx, u8(holder), E_j, R, K)`` with ``K = r·E_j = e_j·R``."""
    parts = (point_to_bytes(key), point_to_bytes(big_r), point_to_bytes(shared))
    return challenge(PAD_LABEL, ctx, holder.to_bytes(1, "big"), *parts)


def _unseal(escrow: Escrow, ctx: ProofContext, holder: int, key: Point, shared: Point) -> Scalar:
    """``c_ij − pad_ij``: the piece as sealed, whatever its commitment says."""
    piece = _piece(escrow, ctx.seat, holder)
    return (piece.sealed - _pad(ctx, holder, key, escrow.r, shared)) % ORDER


def _matches(value: Scalar, commitment: Point) -> bool:
    """``value·G = commitment``; a zero value matches nothing (a commitment is never the
    identity)."""
    return value % ORDER != 0 and points_equal(base_mul(value), commitment)


def absent_key(table_id: bytes, hand: int, seat: int) -> Scalar:
    """The public key share given to ``seat`` when it is silent before its key is escrowed
    (``crypto.md`` §10.7): ``challenge(ABSENT_LABEL, ctx)`` with the context of phase
    ``"absent"``, never zero. Everybody knows it, so the cards it guards are open to all."""
    ctx = ProofContext(table_id=table_id, hand=hand, phase=ABSENT_PHASE, seat=seat)
    return challenge(ABSENT_LABEL, ctx) or 1
