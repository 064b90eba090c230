"""Verifiable shuffle: permute and re-mask a deck of ElGamal ciphertexts, with a proof.

Theory of operation (normative details, byte for byte, in protocol/shuffle.md).

A peer receives ``N`` ciphertexts ``e_i = (a_i, b_i)`` under the joint key ``Y`` and publishes
``e'_j = e_{π(j)} + (ρ_j·G, ρ_j·Y)`` for a secret permutation ``π`` and secret re-masking
factors ``ρ_j``. The proof convinces anyone holding ``Y``, the input, the output and the
:class:`~tarot_p2p.crypto.fiat_shamir.ProofContext`, that such ``π`` and ``ρ`` exist and that
the prover knows them, while revealing nothing about which output came from which input.

It is the Terelius–Wikström proof of a shuffle (in the layout of Haenni, Locher, Koenig and
Dubuis, "Pseudo-code algorithms for verifiable re-encryption mix-nets", FC 2017) in additive
notation, with one change: the product ``Π u'_j = Π u_i`` is proven with Bayer and Groth's
single-value product argument (Eurocrypt 2012, section 5.3) over the same Pedersen
generators instead of the commitment chain. Both prove the same statement; the product
argument's bases are the fixed generators but for one point, which removes ``2N`` of the
verifier's ``7N`` variable-base multiplications (the cost that matters here, see
benchmarks/shuffle_bench.py).

1. Permutation commitment: ``c_i = r_i·G + H_{π⁻¹(i)}``, one point per input card, with
   independent generators ``H_j`` (:func:`commitment_generator`).
2. Challenges ``u_i`` from a hash of the statement and the ``c_i``. Then
   ``Σ_i u_i·c_i = r̃·G + Σ_j u'_j·H_j`` with ``u'_j = u_{π(j)}``: a commitment to the
   permuted challenges.
3. The prover shows, with one Fiat–Shamir challenge ``x``: knowledge of ``r̄`` with
   ``Σ c_i − Σ H_j = r̄·G`` (each row of the committed matrix sums to one); an opening
   ``(u', r̃)`` of ``Σ u_i·c_i``; that ``Π u'_j = Π u_i`` (so, with the row sums, the matrix is a
   permutation matrix except with probability ``N / ORDER``); and ``ρ'`` with
   ``Σ_j u'_j·e'_j − ρ'·(G, Y) = Σ_i u_i·e_i`` (the output is the permuted, re-masked input).

Secret scalars go through libsecp256k1's variable-time multiplication and Python table
look-ups: a timing side channel that docs/security.md discusses.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from tarot_p2p.crypto import verified
from tarot_p2p.crypto.elgamal import Ciphertext
from tarot_p2p.crypto.errors import GroupError, ProofError
from tarot_p2p.crypto.fiat_shamir import ProofContext, challenge
from tarot_p2p.crypto.group import (
    ORDER,
    POINT_BYTES,
    SCALAR_BYTES,
    G,
    Point,
    Scalar,
    hash_to_point,
    neg,
    point_from_bytes,
    scalar_from_bytes,
    scalar_to_bytes,
)
from tarot_p2p.crypto.multiexp import FixedBase, VariableBase, encode_points, linear_combination
from tarot_p2p.crypto.randomness import RandomSource

MIN_CARDS: Final = 2
MAX_CARDS: Final = 78
GENERATOR_DST: Final = b"tarot-p2p/shuffle/generator/v1"
LABEL_U: Final = b"tarot-p2p/shuffle-u/v1"
LABEL_U_INDEX: Final = b"tarot-p2p/shuffle-u-index/v1"
LABEL_X: Final = b"tarot-p2p/shuffle/v1"


def commitment_generator(j: int) -> Point:
    """``H_j = hash_to_point(GENERATOR_DST, j as 2 bytes big-endian)``, ``0 <= j < MAX_CARDS``.

    The same ``H_j`` serve every deck length ``N`` (a proof for ``N`` cards uses
    ``H_0..H_{N-1}``), so a subset shuffle needs no generators of its own.
    """
    if not 0 <= j < MAX_CARDS:
        raise ValueError("generator index out of range")
    return _generator_point(j)


@functools.cache
def _generator_point(j: int) -> Point:
    return hash_to_point(GENERATOR_DST, j.to_bytes(2, "big"))


def precompute_tables(n: int = MAX_CARDS, between: Callable[[], None] | None = None) -> None:
    """Build now the tables a shuffle of ``n`` cards needs (about 2 s and 40 MiB for 78).

    Why: they are otherwise built on the first shuffle or verification, which then takes
    that much longer; a client can call this ahead of time, e.g. in a worker thread while
    the table fills, or take them from a cache of its own (:func:`export_tables`).
    ``between`` is called before each table (a worker thread's caller may stop it there).
    """
    for j in range(-1, n):
        if between is not None:
            between()
        if j < 0:
            _base_table()
        else:
            _build_generator_table(j)


def build_tables_on_use(on: bool) -> None:
    """Whether a shuffle builds a generator's missing table itself (the default).

    Why: a program that reads the tables from its cache, or builds them, in the background
    (:mod:`tarot_p2p.files.tables_cache`) turns this off, so that a shuffle needed
    meanwhile does not wait for them: it multiplies the generators without tables
    (:class:`~tarot_p2p.crypto.multiexp.VariableBase`: a shuffle takes a third to a half
    longer)
    until they are there. G's table (one, about 25 ms) is built on first use either way.
    """
    global _BUILD_ON_USE
    _BUILD_ON_USE = on


TABLES_BYTES: Final = (MAX_CARDS + 1) * FixedBase.SIZE


def export_tables(between: Callable[[], None] | None = None) -> bytes:
    """Every table (G's, then ``H_0..H_77``'s), built if needed, for a local cache: the
    bytes are libsecp256k1's internal form, valid for this library build only.
    ``between``: as for :func:`precompute_tables`."""
    precompute_tables(between=between)
    tables = [_base_table(), *map(_build_generator_table, range(MAX_CARDS))]
    return b"".join(t.to_bytes() for t in tables)


def import_tables(data: bytes | memoryview, checks: int = 4, digest: bytes | None = None) -> None:
    """Take the tables from a cache written by :func:`export_tables`.

    The cache is not trusted: each table must hold ``checks`` entries recomputed here (at
    positions drawn from the data's hash, so a table edited in a few places rarely passes),
    and the bases are the protocol's own. Raises ``GroupError`` or ``ValueError`` and keeps
    nothing when a check fails. ``digest``: the data's SHA-256, when the caller has just
    checked it (hashing 40 MiB again costs tens of milliseconds)."""
    if len(data) != TABLES_BYTES:
        raise ValueError("the tables cache has the wrong size")
    seed = digest if digest is not None else hashlib.sha256(data).digest()
    positions = [(seed[2 * i] % 32, 1 + seed[2 * i + 1] % 255) for i in range(checks)]
    points = [G, *map(_generator_point, range(MAX_CARDS))]
    size = FixedBase.SIZE
    tables = [
        FixedBase.from_bytes(p, data[i * size : (i + 1) * size], [(0, 1), (31, 255), *positions])
        for i, p in enumerate(points)
    ]
    _TABLES[-1] = tables[0]
    for j, table in enumerate(tables[1:]):
        _TABLES[j] = table


_TABLES: dict[int, FixedBase] = {}
"""Tables by generator index (``-1``: the base point G), built on first use. A table goes
in whole (built or checked first), so a shuffle in another thread sees it or not."""
_BUILD_ON_USE = True
"""See :func:`build_tables_on_use`."""


def _generator_table(j: int) -> FixedBase | VariableBase:
    """``H_j``'s table, or its stand-in while the tables come (:func:`build_tables_on_use`)."""
    table = _TABLES.get(j)
    if table is not None:
        return table
    if _BUILD_ON_USE:
        return _build_generator_table(j)
    return VariableBase(_generator_point(j))


def _build_generator_table(j: int) -> FixedBase:
    if not 0 <= j < MAX_CARDS:
        raise ValueError("generator index out of range")
    table = _TABLES.get(j)
    if table is None:
        table = _TABLES[j] = FixedBase(_generator_point(j))
    return table


def _base_table() -> FixedBase:
    table = _TABLES.get(-1)
    if table is None:
        table = _TABLES[-1] = FixedBase(G)
    return table


@functools.cache
def _minus_generator_sum(n: int) -> Point:
    return neg(linear_combination([], [], [_generator_point(j) for j in range(n)]))


def proof_size(n: int) -> int:
    """Bytes of :meth:`ShuffleProof.to_bytes` for ``n`` cards: ``97·n + 129``."""
    return (n + 1) * POINT_BYTES + (2 * n + 3) * SCALAR_BYTES


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """The proof of one shuffle of ``n`` ciphertexts (symbols of protocol/shuffle.md).

    ``commitments`` are the ``c_i``; ``product_commitment`` is ``C_Δ``; ``challenge`` is ``x``;
    ``s_rows``, ``s_opening``, ``s_remask``, ``s_product`` are ``s_1``, ``s_3``, ``s_4``, ``s̃``;
    ``s_permuted`` are the ``s'_j`` and ``s_partial`` the ``β̃_1..β̃_{n-2}``.
    """

    commitments: tuple[Point, ...]
    product_commitment: Point
    challenge: Scalar
    s_rows: Scalar
    s_opening: Scalar
    s_remask: Scalar
    s_product: Scalar
    s_permuted: tuple[Scalar, ...]
    s_partial: tuple[Scalar, ...]

    @property
    def n(self) -> int:
        return len(self.commitments)

    def to_bytes(self) -> bytes:
        """``c_0..c_{n-1} || C_Δ || x || s_1 || s_3 || s_4 || s̃ || s'_0..s'_{n-1} || β̃_1..β̃_{n-2}``.

        Points compressed (33 bytes), scalars 32 bytes big-endian: ``97·n + 129`` bytes.
        """
        scalars = (
            self.challenge,
            self.s_rows,
            self.s_opening,
            self.s_remask,
            self.s_product,
            *self.s_permuted,
            *self.s_partial,
        )
        return encode_points([*self.commitments, self.product_commitment]) + b"".join(
            scalar_to_bytes(k) for k in scalars
        )

    @classmethod
    def from_bytes(cls, data: bytes, n: int) -> ShuffleProof:
        """Parse a proof for ``n`` cards: the length exact, every point and scalar validated.

        Like every compact proof of protocol/crypto.md, a zero challenge ``x`` is rejected.
        """
        if not MIN_CARDS <= n <= MAX_CARDS:
            raise GroupError("a shuffle has 2 to 78 cards")
        if len(data) != proof_size(n):
            raise GroupError(f"a {n}-card shuffle proof is {proof_size(n)} bytes")
        points = [
            point_from_bytes(data[k : k + POINT_BYTES])
            for k in range(0, (n + 1) * POINT_BYTES, POINT_BYTES)
        ]
        base = (n + 1) * POINT_BYTES
        scalars = [
            scalar_from_bytes(data[k : k + SCALAR_BYTES], nonzero=k == base)
            for k in range(base, len(data), SCALAR_BYTES)
        ]
        return cls(
            commitments=tuple(points[:n]),
            product_commitment=points[n],
            challenge=scalars[0],
            s_rows=scalars[1],
            s_opening=scalars[2],
            s_remask=scalars[3],
            s_product=scalars[4],
            s_permuted=tuple(scalars[5 : 5 + n]),
            s_partial=tuple(scalars[5 + n :]),
        )


def shuffle_and_prove(
    y: Point, deck: Sequence[Ciphertext], ctx: ProofContext, rng: RandomSource
) -> tuple[list[Ciphertext], ShuffleProof]:
    """Permute and re-mask ``deck`` under the joint key ``y``; return the new deck and its proof.

    Draws from ``rng`` in this order (so vectors are reproducible): ``π = permutation(n)``,
    ``ρ_0..ρ_{n-1}``, ``r_0..r_{n-1}``, ``ω_1``, ``ω_3``, ``ω_4``, ``ω'_0..ω'_{n-1}``,
    ``δ_1..δ_{n-2}``, ``σ_δ``, ``σ_Δ`` (all ``scalar()``).
    """
    if not MIN_CARDS <= len(deck) <= MAX_CARDS:
        raise ValueError("a shuffle has 2 to 78 cards")
    return _prove(y, deck, rng.permutation(len(deck)), ctx, rng)


def prove_shuffle(
    y: Point,
    deck: Sequence[Ciphertext],
    permutation: Sequence[int],
    ctx: ProofContext,
    rng: RandomSource,
) -> tuple[list[Ciphertext], ShuffleProof]:
    """Like :func:`shuffle_and_prove` with the permutation chosen by the caller.

    Why: a shuffler who must know where its own cards went (the taker re-shuffling his hand
    with the chien before the écart) draws ``permutation = rng.permutation(n)`` itself;
    output ``j`` is then input ``permutation[j]``. With that draw first, the result is
    exactly :func:`shuffle_and_prove`'s for the same ``rng``. The draws that follow are as
    listed there.
    """
    n = len(deck)
    if not MIN_CARDS <= n <= MAX_CARDS:
        raise ValueError("a shuffle has 2 to 78 cards")
    if sorted(permutation) != list(range(n)):
        raise ValueError("not a permutation of the deck's positions")
    return _prove(y, deck, list(permutation), ctx, rng)


def _prove(
    y: Point,
    deck: Sequence[Ciphertext],
    perm: list[int],
    ctx: ProofContext,
    rng: RandomSource,
) -> tuple[list[Ciphertext], ShuffleProof]:
    """The prover of protocol/shuffle.md §3 after the permutation is drawn (not checked here)."""
    n = len(deck)
    g = _base_table()
    h = [_generator_table(j) for j in range(n)]
    rho = [rng.scalar() for _ in range(n)]
    out = [
        Ciphertext(
            linear_combination([], [(g, rho[j])], [deck[perm[j]].a]),
            linear_combination([(y, rho[j])], [], [deck[perm[j]].b]),
        )
        for j in range(n)
    ]
    position = [0] * n
    for j, i in enumerate(perm):
        position[i] = j
    r = [rng.scalar() for _ in range(n)]
    commitments = [linear_combination([], [(g, r[i])], [h[position[i]].point]) for i in range(n)]

    statement = _statement(y, deck, out, commitments)
    u = _challenges(ctx, statement, n)
    up = [u[perm[j]] for j in range(n)]
    partial = [up[0]]
    for j in range(1, n):
        partial.append(partial[-1] * up[j] % ORDER)

    w1, w3, w4 = rng.scalar(), rng.scalar(), rng.scalar()
    wp = [rng.scalar() for _ in range(n)]
    delta = [wp[0], *(rng.scalar() for _ in range(n - 2)), 0]
    sigma_small, sigma_big = rng.scalar(), rng.scalar()

    t1 = linear_combination([], [(g, w1)])
    t3 = linear_combination([], [(g, w3), *zip(h, wp, strict=True)])
    # Σ ω'_j·e'_j computed from the inputs, Σ ω'_j·e_{π(j)} + (Σ ω'_j·ρ_j)·(G, Y): the same
    # points, but equal inputs merge (the initial deck's first components are all G).
    shift = sum(w * k for w, k in zip(wp, rho, strict=True)) - w4
    t4a = linear_combination([(deck[perm[j]].a, wp[j]) for j in range(n)], [(g, shift)])
    t4b = linear_combination([*((deck[perm[j]].b, wp[j]) for j in range(n)), (y, shift)])
    c_small = linear_combination(
        [], [(g, sigma_small), *((h[k], -delta[k] * wp[k + 1]) for k in range(n - 1))]
    )
    c_big = linear_combination(
        [],
        [
            (g, sigma_big),
            *(
                (h[k], delta[k + 1] - up[k + 1] * delta[k] - partial[k] * wp[k + 1])
                for k in range(n - 1)
            ),
        ],
    )
    x = challenge(LABEL_X, ctx, *statement, encode_points([t1, t3, t4a, t4b, c_small, c_big]))

    proof = ShuffleProof(
        commitments=tuple(commitments),
        product_commitment=c_big,
        challenge=x,
        s_rows=(w1 + x * sum(r)) % ORDER,
        s_opening=(w3 + x * sum(ui * ri for ui, ri in zip(u, r, strict=True))) % ORDER,
        s_remask=(w4 + x * sum(a * b for a, b in zip(up, rho, strict=True))) % ORDER,
        s_product=(sigma_small + x * sigma_big) % ORDER,
        s_permuted=tuple((w + x * v) % ORDER for w, v in zip(wp, up, strict=True)),
        s_partial=tuple((x * partial[k] + delta[k]) % ORDER for k in range(1, n - 1)),
    )
    if sorted(perm) == list(range(n)):
        # Made from a permutation, the proof verifies: the seats of this program need not
        # check it (see verified.py). Another map (a cheat's, in the tests) is not kept.
        verified.remember(verified.key(LABEL_X, ctx, *statement, proof.to_bytes()))
    return out, proof


def verify_shuffle(
    y: Point,
    deck_in: Sequence[Ciphertext],
    deck_out: Sequence[Ciphertext],
    proof: ShuffleProof,
    ctx: ProofContext,
) -> None:
    """Accept ``deck_out`` as a proven shuffle of ``deck_in`` under ``y`` and ``ctx``, or raise.

    Raises :class:`ProofError` when the lengths disagree or any equation fails. The very
    same statement and proof found valid before in this process are accepted from memory
    (:mod:`.verified`).
    """
    n = len(deck_in)
    if not MIN_CARDS <= n <= MAX_CARDS:
        raise ProofError("a shuffle has 2 to 78 cards")
    if len(deck_out) != n or proof.n != n or len(proof.s_permuted) != n:
        raise ProofError("shuffle lengths disagree")
    if len(proof.s_partial) != n - 2:
        raise ProofError("shuffle lengths disagree")
    statement = _statement(y, deck_in, deck_out, proof.commitments)
    memo = verified.key(LABEL_X, ctx, *statement, proof.to_bytes())
    verified.once(memo, lambda: _check(y, deck_in, deck_out, proof, ctx, statement))


def _check(
    y: Point,
    deck_in: Sequence[Ciphertext],
    deck_out: Sequence[Ciphertext],
    proof: ShuffleProof,
    ctx: ProofContext,
    statement: tuple[bytes, ...],
) -> None:
    """The equations of :func:`verify_shuffle`, computed (no memory; sizes checked there)."""
    n = len(deck_in)
    g = _base_table()
    h = [_generator_table(j) for j in range(n)]
    u = _challenges(ctx, statement, n)
    x = proof.challenge
    sp = proof.s_permuted
    xu = [-x * ui for ui in u]
    total = 1
    for ui in u:
        total = total * ui % ORDER
    tilde = [sp[0], *proof.s_partial, x * total % ORDER]
    try:
        rows = linear_combination([], [], [*proof.commitments, _minus_generator_sum(n)])
        t1 = linear_combination([(rows, -x)], [(g, proof.s_rows)])
        t3 = linear_combination(
            list(zip(proof.commitments, xu, strict=True)),
            [(g, proof.s_opening), *zip(h, sp, strict=True)],
        )
        t4a = linear_combination(
            [
                *((c.a, s) for c, s in zip(deck_out, sp, strict=True)),
                *((c.a, k) for c, k in zip(deck_in, xu, strict=True)),
            ],
            [(g, -proof.s_remask)],
        )
        t4b = linear_combination(
            [
                *((c.b, s) for c, s in zip(deck_out, sp, strict=True)),
                *((c.b, k) for c, k in zip(deck_in, xu, strict=True)),
                (y, -proof.s_remask),
            ]
        )
        c_small = linear_combination(
            [(proof.product_commitment, -x)],
            [
                (g, proof.s_product),
                *((h[k], x * tilde[k + 1] - tilde[k] * sp[k + 1]) for k in range(n - 1)),
            ],
        )
    except GroupError as exc:
        raise ProofError(f"shuffle proof equation hit the identity: {exc}") from None
    commitments = encode_points([t1, t3, t4a, t4b, c_small, proof.product_commitment])
    if challenge(LABEL_X, ctx, *statement, commitments) != x:
        raise ProofError("shuffle proof does not verify")


def shuffle_challenges(
    y: Point,
    deck_in: Sequence[Ciphertext],
    deck_out: Sequence[Ciphertext],
    commitments: Sequence[Point],
    ctx: ProofContext,
) -> list[Scalar]:
    """The ``u_i`` of a statement: published in the test vectors to help other implementers."""
    return _challenges(ctx, _statement(y, deck_in, deck_out, commitments), len(deck_in))


def _statement(
    y: Point, deck_in: Sequence[Ciphertext], deck_out: Sequence[Ciphertext], c: Sequence[Point]
) -> tuple[bytes, ...]:
    """The hashed statement parts: ``N`` (u16), ``Y``, input deck, output deck, ``c_0..c_{N-1}``."""
    return (
        len(deck_in).to_bytes(2, "big"),
        encode_points([y]),
        encode_points([p for e in deck_in for p in e]),
        encode_points([p for e in deck_out for p in e]),
        encode_points(c),
    )


def _challenges(ctx: ProofContext, statement: tuple[bytes, ...], n: int) -> list[Scalar]:
    """``u_i = challenge(LABEL_U_INDEX, ctx, seed, i as u16)``, ``seed`` hashing the statement."""
    seed = scalar_to_bytes(challenge(LABEL_U, ctx, *statement))
    return [challenge(LABEL_U_INDEX, ctx, seed, i.to_bytes(2, "big")) for i in range(n)]
