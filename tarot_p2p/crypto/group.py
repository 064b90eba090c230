"""The secp256k1 group through coincurve (libsecp256k1): points, scalars, and their encodings.

Why this module: every received point and scalar crosses one of the parsing functions here
before any use, so no other module has to think about invalid encodings, off-curve points,
the identity, or out-of-range scalars.

Encodings (normative): a point is 33-byte compressed SEC1 (``0x02``/``0x03`` || x); the
identity has no encoding and is never accepted. A scalar is 32-byte big-endian and must lie
in ``[0, ORDER)``; where a scalar must be non-zero (secret keys, nonces) the caller says so.

A :class:`coincurve.PublicKey` never holds the identity, so sums and products that would
give it raise :class:`GroupError`. Honest parties reach the identity only with negligible
probability; a verifier that meets it rejects the proof.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Final

from coincurve import PublicKey
from coincurve._libsecp256k1 import ffi, lib
from coincurve.context import GLOBAL_CONTEXT

from tarot_p2p.crypto.errors import GroupError as GroupError  # re-exported for callers

ORDER: Final = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
FIELD_P: Final = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F
POINT_BYTES: Final = 33
SCALAR_BYTES: Final = 32

Point = PublicKey
Scalar = int

_CTX: Final = GLOBAL_CONTEXT.ctx


def point_to_bytes(p: Point) -> bytes:
    return bytes(p.format(compressed=True))


def point_from_bytes(data: bytes) -> Point:
    """Parse a compressed point; rejects wrong length, bad prefix, x not on the curve.

    Points parsed before in this process come from memory (:data:`_PARSED`): the host's
    house bots and the host parse the same decks (two points a card, four shuffles a
    deal) from the same bytes, and decompressing a point costs a square root."""
    key = bytes(data)
    known = _PARSED.get(key)
    if known is not None:
        return known
    if len(key) != POINT_BYTES or key[0] not in (2, 3):
        raise GroupError("a point is 33 bytes, compressed SEC1")
    if int.from_bytes(key[1:], "big") >= FIELD_P:
        raise GroupError("point x-coordinate out of range")
    try:
        point = PublicKey(key)
    except ValueError:
        raise GroupError("point is not on secp256k1") from None
    if len(_PARSED) >= PARSED_KEPT:
        _PARSED.clear()  # (rarely: a few deals' worth of points)
    _PARSED[key] = point
    return point


PARSED_KEPT: Final = 8192
"""Points :func:`point_from_bytes` keeps, by their exact 33 bytes: only points that parsed
(nothing refused is remembered), shared by every peer of the process. A point is never
changed in place here (every operation makes a new one), so sharing one is safe."""
_PARSED: dict[bytes, Point] = {}


def scalar_to_bytes(k: Scalar) -> bytes:
    if not 0 <= k < ORDER:
        raise GroupError("scalar out of range")
    return k.to_bytes(SCALAR_BYTES, "big")


def scalar_from_bytes(data: bytes, *, nonzero: bool = False) -> Scalar:
    """Parse a 32-byte big-endian scalar in ``[0, ORDER)`` (``[1, ORDER)`` if ``nonzero``)."""
    if len(data) != SCALAR_BYTES:
        raise GroupError("a scalar is 32 bytes")
    k = int.from_bytes(data, "big")
    if k >= ORDER or (nonzero and k == 0):
        raise GroupError("scalar out of range")
    return k


def base_mul(k: Scalar) -> Point:
    """``k·G`` for the standard generator G; ``k`` must be non-zero mod ORDER."""
    k %= ORDER
    if k == 0:
        raise GroupError("identity")
    return PublicKey.from_valid_secret(k.to_bytes(SCALAR_BYTES, "big"))


def mul(p: Point, k: Scalar) -> Point:
    """``k·p``; ``k`` must be non-zero mod ORDER."""
    k %= ORDER
    if k == 0:
        raise GroupError("identity")
    return p.multiply(k.to_bytes(SCALAR_BYTES, "big"))


def mul_secret(p: Point, k: Scalar) -> Point:
    """``k·p`` in constant time, for a secret ``k`` (key share, nonce) and any point ``p``.

    Why: :func:`mul` runs libsecp256k1's variable-time multiplication, fine for public
    scalars; a secret one goes through the constant-time ECDH multiplication instead, with a
    hash function that hands back the full point rather than hashing it. That hash function
    is a cffi callback; where the platform forbids one (no writable-executable memory, see
    :data:`CONSTANT_TIME_SECRET_MUL`) the result is the same but computed in variable time.
    """
    k %= ORDER
    if k == 0:
        raise GroupError("identity")
    if _XY is None:  # platforms without cffi callbacks
        return mul(p, k)
    out = ffi.new("unsigned char[65]")
    out[0] = 4
    ok = lib.secp256k1_ecdh(
        _CTX, out + 1, p.public_key, k.to_bytes(SCALAR_BYTES, "big"), _XY, ffi.NULL
    )
    if not ok:  # pragma: no cover - only for k out of range, excluded above
        raise GroupError("multiplication failed")
    return PublicKey(bytes(ffi.buffer(out, 65)))


def _copy_xy(out: Any, x: Any, y: Any, _data: Any) -> int:
    """ECDH 'hash' that copies x || y (64 bytes) to the output."""
    ffi.memmove(out, x, 32)
    ffi.memmove(out + 32, y, 32)
    return 1


def _xy_callback() -> Any:
    try:
        return ffi.callback(
            "int(unsigned char *, const unsigned char *, const unsigned char *, void *)"
        )(_copy_xy)
    except (MemoryError, OSError, RuntimeError):  # pragma: no cover - hardened platforms
        return None


_XY = _xy_callback()
CONSTANT_TIME_SECRET_MUL: Final = _XY is not None
"""Whether :func:`mul_secret` runs in constant time on this platform."""


def mul_add_base(p: Point, k: Scalar, t: Scalar) -> Point:
    """``k·p + t·G`` for public scalars (``k`` non-zero): what verification equations need.

    Why the detour: libsecp256k1 exposes no two-base multiplication, but ECDSA public-key
    recovery computes ``Q = r⁻¹·(s·R − e·G)`` in one Strauss pass, for the point ``R``
    whose x-coordinate is ``r`` (plus ``n`` if the recovery id says so) and whose y parity
    is the recovery id's low bit. With ``R = p``, ``s = k·r`` and ``e = −t·r`` that is
    exactly ``k·p + t·G``, about 25% cheaper than a multiplication then an addition.
    """
    k %= ORDER
    t %= ORDER
    if k == 0:
        raise GroupError("identity")
    raw = p.format(compressed=False)
    x = int.from_bytes(raw[1:33], "big")
    r = x % ORDER
    if r == 0:  # pragma: no cover - x = n has probability 2^-128
        return add(mul(p, k), base_mul(t)) if t else mul(p, k)
    recid = (raw[64] & 1) | (2 if x >= ORDER else 0)
    sig = ffi.new("secp256k1_ecdsa_recoverable_signature *")
    compact = r.to_bytes(SCALAR_BYTES, "big") + (k * r % ORDER).to_bytes(SCALAR_BYTES, "big")
    if not lib.secp256k1_ecdsa_recoverable_signature_parse_compact(_CTX, sig, compact, recid):
        raise GroupError("recovery encoding failed")  # pragma: no cover - r, s are in range
    out = ffi.new("secp256k1_pubkey *")
    e = (-t * r % ORDER).to_bytes(SCALAR_BYTES, "big")
    if not lib.secp256k1_ecdsa_recover(_CTX, out, sig, e):
        raise GroupError("identity")
    return PublicKey(out)


def add(p: Point, q: Point) -> Point:
    try:
        return PublicKey.combine_keys([p, q])
    except ValueError:
        raise GroupError("identity") from None


def sum_points(points: Sequence[Point]) -> Point:
    """The sum of one or more points, in one libsecp256k1 call."""
    if not points:
        raise GroupError("empty sum")
    if len(points) == 1:
        return points[0]
    try:
        return PublicKey.combine_keys(list(points))
    except ValueError:
        raise GroupError("identity") from None


def neg(p: Point) -> Point:
    """``-p``: a sign flip of y in libsecp256k1, far cheaper than multiplying by ``ORDER - 1``."""
    out = ffi.new("secp256k1_pubkey *")
    out[0] = p.public_key[0]
    lib.secp256k1_ec_pubkey_negate(_CTX, out)
    return PublicKey(out)


def sub(p: Point, q: Point) -> Point:
    return add(p, neg(q))


def points_equal(p: Point, q: Point) -> bool:
    return point_to_bytes(p) == point_to_bytes(q)


def hash_to_point(dst: bytes, message: bytes) -> Point:
    """A point nobody knows the discrete log of: try-and-increment over SHA-256.

    For counter = 0, 1, ...: x = SHA-256(len(dst) as 1 byte || dst || message || counter as
    4 bytes big-endian) read as an integer; if x < FIELD_P and ``0x02 || x`` is on the curve,
    that is the point. Each try succeeds with probability about 1/2.
    """
    if not 0 < len(dst) < 256:
        raise GroupError("domain-separation tag must be 1..255 bytes")
    prefix = bytes([len(dst)]) + dst + message
    for counter in range(1 << 16):
        x = hashlib.sha256(prefix + counter.to_bytes(4, "big")).digest()
        if int.from_bytes(x, "big") >= FIELD_P:
            continue
        try:
            return PublicKey(b"\x02" + x)
        except ValueError:
            continue
    raise GroupError("hash_to_point found no point")  # pragma: no cover - probability 2^-65536


G: Final[Point] = base_mul(1)
