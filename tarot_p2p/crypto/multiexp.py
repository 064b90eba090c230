"""Sums of scalar multiples, ``Σ k_i·P_i``, at the speed the shuffle proof needs.

Theory of operation. libsecp256k1 (through coincurve's cffi binding) offers one
variable-base multiplication per call (``tweak_mul``, about 30 µs here) and an n-point sum
in one call (``combine``, about 2.5 µs plus 0.28 µs per point). A verifier or prover that
calls the coincurve wrappers point by point pays Python overhead and one field inversion per
intermediate result. This module cuts both:

* every product is computed straight into one preallocated C array and the whole sum is one
  ``combine`` call, so no intermediate :class:`coincurve.PublicKey` is ever made;
* a base known ahead of time (G, the shuffle's commitment generators) gets a
  :class:`FixedBase` table of ``d·2^(8t)·P`` for every byte value ``d`` and byte position
  ``t``; ``k·P`` is then the sum of one table entry per non-zero byte of ``k``: 32 additions
  inside the single ``combine`` call, about a third of a variable-base multiplication.

Results equal the plain group arithmetic of :mod:`tarot_p2p.crypto.group` exactly (the
tests compare them); only the cost differs. Scalars are public or secret alike: nothing here
is constant-time (the Python digit loops are not), see docs/security.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from coincurve import PublicKey
from coincurve._libsecp256k1 import ffi, lib
from coincurve.context import GLOBAL_CONTEXT

from tarot_p2p.crypto.errors import GroupError
from tarot_p2p.crypto.group import ORDER, SCALAR_BYTES, Point, Scalar, mul, point_to_bytes

_CTX: Final = GLOBAL_CONTEXT.ctx
_COMPRESSED: Final = 258  # SECP256K1_EC_COMPRESSED


class FixedBase:
    """Precomputed multiples of one point: ``k·P`` for the price of 32 point additions.

    Why: the bases G and the shuffle's commitment generators recur in every shuffle and
    proof, so a one-off table (about 25 ms and 512 KiB of C memory per base, built on first
    use) pays for itself within a single proof. Window ``t`` (``t = 0`` least significant)
    holds ``d·2^(8t)·P`` at index ``256·t + d`` for ``d = 1..255``.
    """

    __slots__ = ("_entries", "point")

    def __init__(self, point: Point) -> None:
        self.point = point
        entries = ffi.new("secp256k1_pubkey[]", 32 * 256)
        step = ffi.new("secp256k1_pubkey *")
        step[0] = point.public_key[0]
        shift = (256).to_bytes(SCALAR_BYTES, "big")
        for t in range(32):
            first = entries + 256 * t + 1
            first[0] = step[0]
            for d in range(2, 256):
                slot = first + (d - 1)
                if not lib.secp256k1_ec_pubkey_combine(_CTX, slot, [slot - 1, first], 2):
                    raise GroupError("table entry is the identity")  # pragma: no cover
            if t < 31 and not lib.secp256k1_ec_pubkey_tweak_mul(_CTX, step, shift):
                raise GroupError("table step failed")  # pragma: no cover
        self._entries = entries

    ENTRY_BYTES: Final = 64
    """Size of libsecp256k1's internal ``secp256k1_pubkey``."""
    SIZE: Final = 32 * 256 * 64
    """Bytes of one table (:meth:`to_bytes`)."""

    def to_bytes(self) -> bytes:
        """The table in libsecp256k1's internal form: only for this process's own cache
        (the form belongs to the library build), never for the network."""
        return bytes(ffi.buffer(self._entries, self.SIZE))

    @classmethod
    def from_bytes(
        cls, point: Point, data: bytes | memoryview, checks: Sequence[tuple[int, int]]
    ) -> FixedBase:
        """A table read back from :meth:`to_bytes`, trusted only after ``checks``: for each
        (window ``t``, digit ``d``) the entry must be ``d·2^(8t)·P`` (``GroupError``
        otherwise, and for a table of the wrong size).

        Immutable ``bytes`` (or a view of them: a cache file read whole) are used where
        they lie, kept alive by the table: copying 79 tables of 512 KiB took tens of
        milliseconds of the start of a game. Any other buffer is copied, since its owner
        could change it after the checks."""
        view = memoryview(data)
        if view.nbytes != cls.SIZE:
            raise GroupError("a table has the wrong size")
        table = cls.__new__(cls)
        table.point = point
        if isinstance(view.obj, bytes):
            table._entries = ffi.from_buffer("secp256k1_pubkey[]", view)
        else:
            table._entries = ffi.new("secp256k1_pubkey[]", 32 * 256)
            ffi.memmove(table._entries, view, cls.SIZE)
        for t, d in checks:
            if not (0 <= t < 32 and 1 <= d < 256):
                raise ValueError("a check names window 0..31 and digit 1..255")
            got = ffi.new("unsigned char[33]")
            size = ffi.new("size_t *", 33)
            lib.secp256k1_ec_pubkey_serialize(
                _CTX, got, size, table._entries + 256 * t + d, _COMPRESSED
            )
            want = point if (t, d) == (0, 1) else mul(point, (d << (8 * t)) % ORDER)
            if bytes(ffi.buffer(got, 33)) != point_to_bytes(want):
                raise GroupError(f"table entry ({t}, {d}) is wrong")
        return table

    def terms(self, k: Scalar, out: list[Any]) -> None:
        """Append to ``out`` the table entries whose sum is ``k·P`` (none when ``k ≡ 0``)."""
        entries = self._entries
        kb = (k % ORDER).to_bytes(SCALAR_BYTES, "big")
        out.extend([entries + (o + d) for o, d in zip(_OFFSETS, kb, strict=True) if d])


class VariableBase:
    """A base whose table is not built (yet): ``k·P`` by one variable-base multiplication.

    Why: building the tables of the shuffle's 78 generators costs about two seconds; a
    program that builds or reads them in the background (:func:`tarot_p2p.crypto.shuffle.
    build_tables_on_use`) shuffles meanwhile with this stand-in, which gives the same
    points for about 30 µs a term instead of 10."""

    __slots__ = ("point",)

    def __init__(self, point: Point) -> None:
        self.point = point

    def terms(self, k: Scalar, out: list[Any]) -> None:
        """Append to ``out`` the product ``k·P`` (nothing when ``k ≡ 0``)."""
        k %= ORDER
        if k == 0:
            return
        slot = ffi.new("secp256k1_pubkey *")
        slot[0] = self.point.public_key[0]
        if not lib.secp256k1_ec_pubkey_tweak_mul(_CTX, slot, k.to_bytes(SCALAR_BYTES, "big")):
            raise GroupError("multiplication failed")  # pragma: no cover - k is in range
        out.append(slot)


# Big-endian byte i of a scalar is window 31 - i.
_OFFSETS: Final = tuple((31 - i) * 256 for i in range(32))


def linear_combination(
    variable: Sequence[tuple[Point, Scalar]],
    fixed: Sequence[tuple[FixedBase | VariableBase, Scalar]] = (),
    points: Sequence[Point] = (),
) -> Point:
    """``Σ k·P`` over ``variable`` and ``fixed`` terms, plus the plain ``points``, in one sum.

    Zero scalars contribute nothing; a result equal to the identity raises
    :class:`GroupError` (a verifier treats that as a failed proof).
    """
    # Equal bases are multiplied once with the sum of their scalars: the initial deck, for
    # one, has the same first component G in every card. The key is libsecp256k1's stored
    # form of the point (normalised affine coordinates), the same for equal points.
    merged: dict[bytes, tuple[Point, Scalar]] = {}
    for p, k in variable:
        key = bytes(ffi.buffer(p.public_key))
        seen = merged.get(key)
        merged[key] = (p, k if seen is None else seen[1] + k)
    products = ffi.new("secp256k1_pubkey[]", max(len(merged), 1))
    terms: list[Any] = []
    for i, (p, k) in enumerate(merged.values()):
        k %= ORDER
        if k == 0:
            continue
        slot = products + i
        slot[0] = p.public_key[0]
        if not lib.secp256k1_ec_pubkey_tweak_mul(_CTX, slot, k.to_bytes(SCALAR_BYTES, "big")):
            raise GroupError("multiplication failed")  # pragma: no cover - k is in range
        terms.append(slot)
    for table, k in fixed:
        table.terms(k, terms)
    terms.extend(p.public_key for p in points)
    return _combine(terms)


def _combine(terms: list[Any]) -> Point:
    if not terms:
        raise GroupError("identity")
    out = ffi.new("secp256k1_pubkey *")
    if not lib.secp256k1_ec_pubkey_combine(_CTX, out, terms, len(terms)):
        raise GroupError("identity")
    return PublicKey(out)


def encode_points(points: Sequence[Point]) -> bytes:
    """The concatenated 33-byte compressed encodings, without a wrapper object per point."""
    buf = ffi.new("unsigned char[]", 33 * len(points))
    size = ffi.new("size_t *")
    for i, p in enumerate(points):
        size[0] = 33
        lib.secp256k1_ec_pubkey_serialize(_CTX, buf + 33 * i, size, p.public_key, _COMPRESSED)
    return bytes(ffi.buffer(buf))
