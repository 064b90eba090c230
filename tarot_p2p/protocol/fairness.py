"""Fairness statistics over many deals: do the cards land where a uniform shuffle puts them?

Theory of operation
===================

The audit of one transcript proves every card was dealt from the proven shuffles; it
cannot prove the shuffles were random (``docs/security.md``: random if one seat was
honest). Over many deals, though, a rigged or broken shuffle shows: some card goes to one
seat too often, oudlers clump, the host deals first too often. This module takes the
deals (from verified transcripts, or straight from peers in a benchmark) and compares them
with what a uniform shuffle gives, test by test, with one chi-square p-value each: the
chance that a fair deal strays at least this far. Everything is computed here; the
wording is :mod:`.fairness_render`'s.

What is measured, and why it is uniform under a fair deal:

* **Where each card goes.** A seat is counted *from the dealer* (``dealer+1`` is served
  first and plays first, ``dealer`` last): the deal pattern maps deck positions to these
  places whatever the dealer, so a biased shuffle (a card stuck near some deck position)
  shows as a card favouring a place, where counting absolute seats, which change role
  with the rotating dealer, would blur it. Each place receives a fixed number of cards
  (the chien too), so a fair deal puts card ``c`` at place ``p`` with probability
  ``size_p / 78``. The deals are grouped by *layout* (players, and the dead hand at five),
  in which those sizes are fixed.

  One chi-square per card (``places - 1`` degrees of freedom) says whether that card is
  uneven. The 78 per-card statistics are not independent (each deal puts exactly
  ``size_p`` cards at place ``p``), so the combined test is not their plain sum: per deal
  the counts have covariance ``M ⊗ (diag p - p pᵀ)`` with ``M = (78 I - J) / 77``, whose
  non-zero eigenvalues are all ``78/77``; hence ``77/78`` times the sum of the per-card
  statistics is chi-square with ``77 (places - 1)`` degrees of freedom. The *most uneven
  card* is a second test: the smallest per-card p-value times 78 (Bonferroni), which
  catches one card pushed hard where the combined test, spread over 78 cards, would not.
* **Oudlers and trumps per hand.** At each place (the chien included) the number of
  oudlers, and of trumps (the 21, not the Excuse), in the cards received follows the
  hypergeometric law (``size`` cards drawn from 78 holding 3 oudlers, or 21 trumps). One
  place over many deals is independent draws, so one chi-square per place, with the
  sparse tail classes merged until each expects at least 5.
* **The seat draw** of hand 0 (``protocol/table.md`` §4.2): members (join order, the host
  first) sorted by drawn card take the seats, so under a fair draw every seating is
  equally likely. The table of member by seat, over many tables, tests it (the column of
  seat 0 is the first dealer). By the same argument as for the cards, ``(n-1)/n`` times
  its chi-square has ``(n-1)²`` degrees of freedom.

Chi-square needs about 5 expected counts per cell; a test with fewer is *not run* (its
minimum is said) and takes no part in the verdict.

Multiple testing. Many tests at 5 % each would call an honest table biased almost every
time. The verdict is reached on the whole family: a test *flags* a bias when its p-value
times the number of tests run is below :data:`ALPHA` (Bonferroni). Under a fair deal the
chance that any test flags is then at most :data:`ALPHA` (1 %), whatever the dependence
between the tests.

What it cannot see: deals that were never opened (everybody passed, a petit sec, a game
that stopped mid-hand) are not in the transcripts. They are not a random part of the deals
(a deal everybody passed is a weak one), so when many are missing the oudlers and trumps
tests lean a little; the caller reports how many there were.
"""

from __future__ import annotations

import enum
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from tarot_p2p.protocol.audit_report import TranscriptReport
from tarot_p2p.rules.cards import DECK_SIZE, OUDLERS, CardSet, count, mask_of
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import active_seats, check_deal

ALPHA: Final = 0.01
"""Family-wise false-alarm rate: a fair table is called biased at most this often."""
MIN_EXPECTED: Final = 5.0
"""Smallest expected count of a chi-square cell (the usual rule for the approximation)."""

OUDLER_MASK: Final[CardSet] = mask_of(OUDLERS)
TRUMP_MASK: Final[CardSet] = mask_of(range(56, 77))
"""The 21 trumps (the Excuse is not one)."""

CHIEN_PLACE: Final = "chien"


# ---------------------------------------------------------------------- chi-square law


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom: the p-value of ``x``."""
    if not isinstance(df, int) or df < 1:
        raise ValueError(f"degrees of freedom must be a positive integer, not {df!r}")
    if math.isnan(x):
        raise ValueError("the statistic is not a number")
    if x <= 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    return gamma_q(df / 2, x / 2)


_EPS: Final = 1e-15
_TINY: Final = 1e-300
_STEPS: Final = 100_000


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x), a > 0, x >= 0.

    Below ``x = a + 1`` its complement's power series converges fast (and Q is not small
    there, so ``1 - P`` loses nothing); above, the continued fraction of Q itself (modified
    Lentz), which keeps full relative precision far into the tail.
    """
    if a <= 0 or x < 0:
        raise ValueError(f"gamma_q needs a > 0 and x >= 0 (a={a}, x={x})")
    if x == 0:
        return 1.0
    front = math.exp(a * math.log(x) - x - math.lgamma(a))
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(_STEPS):
            n += 1
            term *= x / n
            total += term
            if term < total * _EPS:
                break
        return max(0.0, 1.0 - total * front)
    b = x + 1 - a
    c = 1 / _TINY
    d = 1 / b
    h = d
    for i in range(1, _STEPS):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = d if abs(d) > _TINY else _TINY
        c = b + an / c
        c = c if abs(c) > _TINY else _TINY
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPS:
            break
    return front * h


def hypergeometric(total: int, marked: int, drawn: int) -> tuple[float, ...]:
    """P(k marked cards among ``drawn`` taken from ``total`` holding ``marked``), k = 0.."""
    ways = math.comb(total, drawn)
    top = min(marked, drawn)
    return tuple(
        math.comb(marked, k) * math.comb(total - marked, drawn - k) / ways for k in range(top + 1)
    )


# ---------------------------------------------------------------------- inputs


@dataclass(frozen=True, slots=True)
class DealSample:
    """One opened deal: each seat's dealt cards (the taker's before the chien), the chien."""

    config: TableConfig
    dealer: int
    hands: tuple[CardSet, ...]
    chien: CardSet


@dataclass(frozen=True, slots=True)
class DrawSample:
    """One table's seat draw: ``seating[s]`` is the member (join order) at seat ``s``."""

    seating: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TableSamples:
    """What one verified transcript gives the statistics."""

    deals: tuple[DealSample, ...]
    """The deals whose every card was opened."""
    draw: DrawSample | None
    void: int
    """Void deals (everybody passed, a petit sec): their cards were never opened."""
    unfinished: int
    """Deals that stopped before their cards were opened (the game ended there)."""


def table_samples(report: TranscriptReport) -> TableSamples:
    """The deals and the seat draw of a transcript's audit (:mod:`.audit_report`).

    Only what the report holds as verified: a caller counts only transcripts whose
    records all verified (no corrupt bytes, no violation)."""
    deals: list[DealSample] = []
    void = unfinished = 0
    for h in report.hands:
        if h.number == 0:
            continue
        if h.hands is not None and h.chien is not None and h.dealer is not None:
            assert report.config is not None
            deals.append(DealSample(report.config, h.dealer, h.hands, h.chien))
        elif h.void is not None:
            void += 1
        else:
            unfinished += 1
    draw = None if report.seating is None else DrawSample(report.seating)
    return TableSamples(tuple(deals), draw, void, unfinished)


# ---------------------------------------------------------------------- results


class Verdict(enum.StrEnum):
    NO_SIGN_OF_BIAS = "no_sign_of_bias"
    BIASED = "biased"
    TOO_FEW = "too_few"
    """No test had enough deals or tables to run."""


class Kind(enum.StrEnum):
    CARDS = "cards"
    """Every card's place, combined."""
    WORST_CARD = "worst_card"
    OUDLERS = "oudlers"
    TRUMPS = "trumps"
    DRAW = "draw"


@dataclass(frozen=True, slots=True)
class Test:
    """One chi-square test and where it stands in the family."""

    kind: Kind
    group: str
    """The layout (``4 players``...) or ``seat draw, 4 players``."""
    place: str | None
    """The place for oudlers and trumps (``dealer+1``..., ``chien``)."""
    samples: int
    """Deals (or tables, for the draw) it counts."""
    statistic: float | None
    """``None``: not run (too few samples)."""
    df: int
    p_value: float | None
    needs: int
    """Samples it needs to run (at least :data:`MIN_EXPECTED` expected per cell)."""
    bins: tuple[str, ...] = ()
    """Oudlers and trumps: the classes (``0``, ``1``, ``7-9``...) with their counts."""
    observed: tuple[int, ...] = ()
    expected: tuple[float, ...] = ()
    card: int | None = None
    """The most uneven card (``WORST_CARD``), and below where it went most unlike chance."""
    card_place: str | None = None
    adjusted: float | None = None
    """``p_value`` times the number of tests run (capped at 1): compared with ``ALPHA``."""

    @property
    def ran(self) -> bool:
        return self.p_value is not None

    def flags(self, alpha: float) -> bool:
        return self.adjusted is not None and self.adjusted < alpha


@dataclass(frozen=True, slots=True)
class LayoutStats:
    """The deals of one layout: where every card went, and its tests."""

    name: str
    players: int
    active: int
    places: tuple[str, ...]
    """``dealer+1``, ..., ``dealer`` (absent with a dead hand), ``chien``."""
    sizes: tuple[int, ...]
    """Cards each place receives per deal."""
    deals: int
    counts: tuple[tuple[int, ...], ...]
    """``counts[card][place]``: deals in which that card went to that place."""
    card_p: tuple[float, ...] | None
    """Each card's own p-value (``None`` when too few deals)."""
    tests: tuple[Test, ...]

    def expected(self, place: int) -> float:
        """Deals in which a given card goes to ``place``, on average, under a fair deal."""
        return self.deals * self.sizes[place] / DECK_SIZE


@dataclass(frozen=True, slots=True)
class DrawStats:
    """The seat draws of the tables of one size."""

    players: int
    tables: int
    counts: tuple[tuple[int, ...], ...]
    """``counts[member][seat]``: tables where that member (join order) drew that seat."""
    test: Test


@dataclass(frozen=True, slots=True)
class FairnessReport:
    layouts: tuple[LayoutStats, ...]
    draws: tuple[DrawStats, ...]
    tests: tuple[Test, ...]
    """Every test, run or not, with its adjusted p-value, in report order."""
    run: int
    """Tests that had enough samples: the size of the Bonferroni family."""
    alpha: float
    verdict: Verdict

    @property
    def flagged(self) -> tuple[Test, ...]:
        return tuple(t for t in self.tests if t.flags(self.alpha))

    @property
    def threshold(self) -> float:
        """The p-value under which one test flags a bias."""
        return self.alpha / self.run if self.run else self.alpha


# ---------------------------------------------------------------------- the statistics


def fairness(
    deals: Iterable[DealSample], draws: Iterable[DrawSample] = (), alpha: float = ALPHA
) -> FairnessReport:
    """Every test over these deals and seat draws, and the verdict of the whole family.

    Raises ``ValueError`` on a deal that is not one (wrong sizes, a card twice...), a
    two-player deal (its piles are not modelled), or a seating that is no permutation.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha}")
    by_layout: dict[tuple[int, int], list[DealSample]] = defaultdict(list)
    for deal in deals:
        _check_deal(deal)
        by_layout[(deal.config.players, deal.config.active_players)].append(deal)
    by_size: dict[int, list[DrawSample]] = defaultdict(list)
    for draw in draws:
        _check_draw(draw)
        by_size[len(draw.seating)].append(draw)
    layouts = [_layout(by_layout[key]) for key in sorted(by_layout)]
    draw_stats = [_draw(size, by_size[size]) for size in sorted(by_size)]
    tests = [t for layout in layouts for t in layout.tests] + [d.test for d in draw_stats]
    run = sum(t.ran for t in tests)

    def adjust(t: Test) -> Test:
        return t if t.p_value is None else replace(t, adjusted=min(1.0, t.p_value * run))

    layouts = [replace(x, tests=tuple(adjust(t) for t in x.tests)) for x in layouts]
    draw_stats = [replace(d, test=adjust(d.test)) for d in draw_stats]
    final = tuple(adjust(t) for t in tests)
    if not run:
        verdict = Verdict.TOO_FEW
    elif any(t.flags(alpha) for t in final):
        verdict = Verdict.BIASED
    else:
        verdict = Verdict.NO_SIGN_OF_BIAS
    return FairnessReport(tuple(layouts), tuple(draw_stats), final, run, alpha, verdict)


def _check_deal(deal: DealSample) -> None:
    if deal.config.players not in (3, 4, 5):
        raise ValueError("only deals at 3, 4 or 5 players are counted (no piles)")
    check_deal(deal.config, deal.dealer, deal.hands, deal.chien)


def _check_draw(draw: DrawSample) -> None:
    n = len(draw.seating)
    if n not in (3, 4, 5) or sorted(draw.seating) != list(range(n)):
        raise ValueError(f"a seating must give 3, 4 or 5 members one seat each: {draw.seating}")


def layout_name(players: int, active: int) -> str:
    return f"{players} players" + (", dead hand" if active < players else "")


def _received(deal: DealSample) -> tuple[CardSet, ...]:
    """The cards each place received: seats in dealing order from the dealer's right
    (the dealer last, absent when he sits out), then the chien."""
    seats = active_seats(deal.config, deal.dealer)
    return (*(deal.hands[s] for s in seats), deal.chien)


def _places(config: TableConfig, dealer: int) -> tuple[str, ...]:
    seats = active_seats(config, dealer)
    names = ["dealer" if s == dealer else f"dealer+{i + 1}" for i, s in enumerate(seats)]
    return (*names, CHIEN_PLACE)


def _layout(deals: Sequence[DealSample]) -> LayoutStats:
    config = deals[0].config
    places = _places(config, deals[0].dealer)
    sizes = tuple(count(cards) for cards in _received(deals[0]))
    n, k = len(deals), len(places)
    counts = [[0] * k for _ in range(DECK_SIZE)]
    received = [_received(d) for d in deals]
    for hands in received:
        for p, cards in enumerate(hands):
            for c in range(DECK_SIZE):
                counts[c][p] += cards >> c & 1
    name = layout_name(config.players, config.active_players)
    needs = math.ceil(MIN_EXPECTED * DECK_SIZE / min(sizes))
    expected = [n * size / DECK_SIZE for size in sizes]
    card_p: tuple[float, ...] | None = None
    if n >= needs:
        per_card = [
            sum((o - e) ** 2 / e for o, e in zip(row, expected, strict=True)) for row in counts
        ]
        card_p = tuple(chi2_sf(x, k - 1) for x in per_card)
        combined = sum(per_card) * (DECK_SIZE - 1) / DECK_SIZE
        df = (DECK_SIZE - 1) * (k - 1)
        all_cards = Test(Kind.CARDS, name, None, n, combined, df, chi2_sf(combined, df), needs)
        worst = min(range(DECK_SIZE), key=lambda c: card_p[c])
        z = [(o - e) / math.sqrt(e) for o, e in zip(counts[worst], expected, strict=True)]
        where = max(range(k), key=lambda p: abs(z[p]))
        worst_test = Test(
            Kind.WORST_CARD,
            name,
            None,
            n,
            per_card[worst],
            k - 1,
            min(1.0, card_p[worst] * DECK_SIZE),
            needs,
            card=worst,
            card_place=places[where],
        )
    else:
        all_cards = Test(Kind.CARDS, name, None, n, None, (DECK_SIZE - 1) * (k - 1), None, needs)
        worst_test = Test(Kind.WORST_CARD, name, None, n, None, k - 1, None, needs)
    tests = [all_cards, worst_test]
    for kind, mask, marked in ((Kind.OUDLERS, OUDLER_MASK, 3), (Kind.TRUMPS, TRUMP_MASK, 21)):
        for p, place in enumerate(places):
            tally = [count(hands[p] & mask) for hands in received]
            law = hypergeometric(DECK_SIZE, marked, sizes[p])
            tests.append(_law_test(kind, name, place, tally, law))
    return LayoutStats(
        name,
        config.players,
        config.active_players,
        places,
        sizes,
        n,
        tuple(tuple(row) for row in counts),
        card_p,
        tuple(tests),
    )


def _law_test(
    kind: Kind, group: str, place: str, tally: Sequence[int], law: Sequence[float]
) -> Test:
    """Chi-square of how many marked cards each deal put at one place, against ``law``."""
    n = len(tally)
    classes = merge_classes(law, n)
    needs = _needs(law)
    observed = [0] * len(law)
    for k in tally:
        observed[k] += 1
    obs = tuple(sum(observed[lo : hi + 1]) for lo, hi in classes)
    exp = tuple(n * sum(law[lo : hi + 1]) for lo, hi in classes)
    bins = tuple(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in classes)
    if len(classes) < 2:
        return Test(kind, group, place, n, None, 0, None, needs, bins, obs, exp)
    x = sum((o - e) ** 2 / e for o, e in zip(obs, exp, strict=True))
    df = len(classes) - 1
    return Test(kind, group, place, n, x, df, chi2_sf(x, df), needs, bins, obs, exp)


def merge_classes(law: Sequence[float], n: int) -> tuple[tuple[int, int], ...]:
    """Adjacent values of ``law`` grouped so that each group expects at least
    :data:`MIN_EXPECTED` of ``n`` draws: from the low end, a group closes once it has
    enough; what is left at the high end joins the last group. One group: too few."""
    groups: list[tuple[int, int]] = []
    start, mass = 0, 0.0
    for k, prob in enumerate(law):
        mass += prob
        if n * mass >= MIN_EXPECTED:
            groups.append((start, k))
            start, mass = k + 1, 0.0
    if start < len(law):
        if groups:
            groups[-1] = (groups[-1][0], len(law) - 1)
        else:
            groups.append((0, len(law) - 1))
    return tuple(groups)


def _needs(law: Sequence[float]) -> int:
    """The fewest samples for which :func:`merge_classes` makes two classes."""
    n = 1
    while len(merge_classes(law, n)) < 2:
        n *= 2
    low = n // 2
    while low + 1 < n:
        mid = (low + n) // 2
        low, n = (low, mid) if len(merge_classes(law, mid)) >= 2 else (mid, n)
    return n


def _draw(players: int, draws: Sequence[DrawSample]) -> DrawStats:
    tables = len(draws)
    counts = [[0] * players for _ in range(players)]
    for draw in draws:
        for seat, member in enumerate(draw.seating):
            counts[member][seat] += 1
    group = f"seat draw, {players} players"
    needs = math.ceil(MIN_EXPECTED * players)
    df = (players - 1) ** 2
    if tables >= needs:
        e = tables / players
        x = sum((o - e) ** 2 / e for row in counts for o in row) * (players - 1) / players
        test = Test(Kind.DRAW, group, None, tables, x, df, chi2_sf(x, df), needs)
    else:
        test = Test(Kind.DRAW, group, None, tables, None, df, None, needs)
    return DrawStats(players, tables, tuple(tuple(row) for row in counts), test)
