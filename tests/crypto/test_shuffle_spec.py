"""protocol/shuffle.md, transcribed naively with plain group operations, agrees with the code.

Why: the fast implementation (fixed-base tables, merged sums) must compute exactly what the
spec says; this file follows the spec's formulas one by one (§3 prover, §5 verifier) so a
discrepancy between the two shows up as a test failure, not as a peer we cannot talk to.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tarot_p2p.crypto.elgamal import Ciphertext, card_point, encrypt
from tarot_p2p.crypto.fiat_shamir import ProofContext, challenge
from tarot_p2p.crypto.group import (
    ORDER,
    Point,
    Scalar,
    base_mul,
    hash_to_point,
    mul,
    neg,
    point_to_bytes,
    scalar_to_bytes,
    sum_points,
)
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shuffle import shuffle_and_prove

Y = base_mul(0xC0FFEE)
CTX = ProofContext(table_id=b"spec", hand=9, phase="ecart", seat=3)


def E(*points: Point) -> bytes:
    return b"".join(point_to_bytes(p) for p in points)


def H(j: int) -> Point:
    return hash_to_point(b"tarot-p2p/shuffle/generator/v1", j.to_bytes(2, "big"))


def lin(terms: Sequence[tuple[Point, Scalar]]) -> Point:
    return sum_points([mul(p, k) for p, k in terms if k % ORDER])


def statement(
    deck: Sequence[Ciphertext], out: Sequence[Ciphertext], c: Sequence[Point]
) -> list[bytes]:
    n = len(deck)
    return [
        n.to_bytes(2, "big"),
        E(Y),
        E(*(p for e in deck for p in e)),
        E(*(p for e in out for p in e)),
        E(*c),
    ]


def challenges(parts: list[bytes], n: int) -> list[Scalar]:
    seed = scalar_to_bytes(challenge(b"tarot-p2p/shuffle-u/v1", CTX, *parts))
    return [
        challenge(b"tarot-p2p/shuffle-u-index/v1", CTX, seed, i.to_bytes(2, "big"))
        for i in range(n)
    ]


def spec_prove(deck: list[Ciphertext], seed: bytes) -> tuple[list[Ciphertext], bytes]:
    """§3, formula by formula."""
    rng = DeterministicRandom(seed)
    n = len(deck)
    pi = rng.permutation(n)
    rho = [rng.scalar() for _ in range(n)]
    r = [rng.scalar() for _ in range(n)]
    out = [
        Ciphertext(
            sum_points([deck[pi[j]].a, base_mul(rho[j])]),
            sum_points([deck[pi[j]].b, mul(Y, rho[j])]),
        )
        for j in range(n)
    ]
    inv = {i: j for j, i in enumerate(pi)}
    c = [sum_points([base_mul(r[i]), H(inv[i])]) for i in range(n)]
    parts = statement(deck, out, c)
    u = challenges(parts, n)
    up = [u[pi[j]] for j in range(n)]
    beta = [up[0]]
    for k in range(1, n):
        beta.append(beta[-1] * up[k] % ORDER)
    r_bar, r_tilde = sum(r), sum(a * b for a, b in zip(u, r, strict=True))
    rho_p = sum(a * b for a, b in zip(up, rho, strict=True))
    w1, w3, w4 = rng.scalar(), rng.scalar(), rng.scalar()
    wp = [rng.scalar() for _ in range(n)]
    delta = [wp[0], *(rng.scalar() for _ in range(n - 2)), 0]
    sd, sD = rng.scalar(), rng.scalar()
    t1 = base_mul(w1)
    t3 = lin([(base_mul(1), w3), *((H(j), wp[j]) for j in range(n))])
    t4a = lin([*((out[j].a, wp[j]) for j in range(n)), (base_mul(1), -w4)])
    t4b = lin([*((out[j].b, wp[j]) for j in range(n)), (Y, -w4)])
    cd = lin([(base_mul(1), sd), *((H(k), -delta[k] * wp[k + 1]) for k in range(n - 1))])
    terms = [
        (H(k), delta[k + 1] - up[k + 1] * delta[k] - beta[k] * wp[k + 1]) for k in range(n - 1)
    ]
    cD = lin([(base_mul(1), sD), *terms])
    x = challenge(b"tarot-p2p/shuffle/v1", CTX, *parts, E(t1, t3, t4a, t4b, cd, cD))
    scalars = [
        x,
        (w1 + x * r_bar) % ORDER,
        (w3 + x * r_tilde) % ORDER,
        (w4 + x * rho_p) % ORDER,
        (sd + x * sD) % ORDER,
        *((wp[j] + x * up[j]) % ORDER for j in range(n)),
        *((x * beta[k] + delta[k]) % ORDER for k in range(1, n - 1)),
    ]
    return out, E(*c, cD) + b"".join(scalar_to_bytes(s) for s in scalars)


def spec_verify(deck: list[Ciphertext], out: list[Ciphertext], proof: bytes) -> bool:
    """§5, formula by formula (parsing by the library's validated decoders)."""
    n = len(deck)
    assert len(out) == n and len(proof) == 97 * n + 129
    pts = [Point(proof[33 * k : 33 * k + 33]) for k in range(n + 1)]
    sc = [int.from_bytes(proof[k : k + 32], "big") for k in range(33 * (n + 1), len(proof), 32)]
    c, cD = pts[:n], pts[n]
    x, s1, s3, s4, st = sc[:5]
    sp, inner = sc[5 : 5 + n], sc[5 + n :]
    parts = statement(deck, out, c)
    u = challenges(parts, n)
    big_u = 1
    for ui in u:
        big_u = big_u * ui % ORDER
    bt = [sp[0], *inner, x * big_u % ORDER]
    g = base_mul(1)
    rows = sum_points([*c, *(neg(H(j)) for j in range(n))])
    t1 = lin([(g, s1), (rows, -x)])
    t3 = lin([(g, s3), *((H(j), sp[j]) for j in range(n)), *((c[i], -x * u[i]) for i in range(n))])
    t4a = lin(
        [
            *((out[j].a, sp[j]) for j in range(n)),
            (g, -s4),
            *((deck[i].a, -x * u[i]) for i in range(n)),
        ]
    )
    t4b = lin(
        [
            *((out[j].b, sp[j]) for j in range(n)),
            (Y, -s4),
            *((deck[i].b, -x * u[i]) for i in range(n)),
        ]
    )
    cd = lin(
        [(g, st), *((H(k), x * bt[k + 1] - bt[k] * sp[k + 1]) for k in range(n - 1)), (cD, -x)]
    )
    return challenge(b"tarot-p2p/shuffle/v1", CTX, *parts, E(t1, t3, t4a, t4b, cd, cD)) == x


@pytest.mark.parametrize("n", [2, 3, 7])
def test_code_and_spec_agree_byte_for_byte(n: int) -> None:
    rng = DeterministicRandom(b"spec deck")
    deck = [encrypt(Y, card_point(c), rng.scalar()) for c in range(n)]
    seed = b"spec prover %d" % n
    out, proof = shuffle_and_prove(Y, deck, CTX, DeterministicRandom(seed))
    spec_out, spec_proof = spec_prove(deck, seed)
    assert [e.to_bytes() for e in out] == [e.to_bytes() for e in spec_out]
    assert proof.to_bytes() == spec_proof
    assert spec_verify(deck, out, spec_proof)
    assert not spec_verify(deck, out[::-1], spec_proof)
