"""The fairness statistics (:mod:`.fairness`) in words for an auditor, as JSON, and as a picture.

Why apart: the tests and the verdict are computed once; how they read — plain words for
someone who is not a statistician, a JSON document for tools, a heat map of card by seat —
is presentation. The picture is an SVG written by hand (no plotting library): a grid of
coloured cells with a tooltip each, which any browser opens.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from typing import Any, Final
from xml.sax.saxutils import escape

from tarot_p2p.protocol.fairness import (
    CHIEN_PLACE,
    DrawStats,
    FairnessReport,
    Kind,
    LayoutStats,
    Test,
    Verdict,
)
from tarot_p2p.protocol.wording import count_of
from tarot_p2p.rules.cards import DECK_SIZE, SUIT_OF, card_name

_WHAT: Final[dict[Kind, str]] = {
    Kind.CARDS: "where every card went (the 78 together)",
    Kind.WORST_CARD: "the most uneven card",
    Kind.OUDLERS: "oudlers received",
    Kind.TRUMPS: "trumps received",
    Kind.DRAW: "who drew which seat (member by seat)",
}


def _where(place: str) -> str:
    return "in the chien" if place == CHIEN_PLACE else f"by {place}"


def test_title(test: Test) -> str:
    """What a test measures, in words (``oudlers received by dealer+1``)."""
    title = _WHAT[test.kind]
    if test.kind is Kind.WORST_CARD and test.card is not None:
        title += f": {card_name(test.card)}, most off {_where(test.card_place or '')}"
    if test.place is not None:
        title += f" {_where(test.place)}"
    return title


def _p(p: float) -> str:
    if p >= 0.001:
        return f"{p:.3f}"
    return f"{p:.1e}"


def _status(test: Test, report: FairnessReport) -> str:
    if not test.ran:
        return f"not run: needs {test.needs} {'tables' if test.kind is Kind.DRAW else 'deals'}"
    return "BEYOND CHANCE" if test.flags(report.alpha) else "within chance"


def _test_line(test: Test, report: FairnessReport, width: int) -> str:
    title = test_title(test).ljust(width)
    if not test.ran:
        return f"  {title}  {'':>10}  {'':>4}  {'':>9}  {_status(test, report)}"
    assert test.statistic is not None and test.p_value is not None
    p = _p(test.p_value)
    return f"  {title}  {test.statistic:>10.2f}  {test.df:>4}  {p:>9}  {_status(test, report)}"


_VERDICTS: Final[dict[Verdict, str]] = {
    Verdict.NO_SIGN_OF_BIAS: (
        "Verdict: NO SIGN OF BIAS. Every test is within what chance gives a fair deal. "
        "This does not prove the deals fair: a small bias needs many deals to show."
    ),
    Verdict.BIASED: (
        "Verdict: BIASED. The deals are unlikely to come from fair shuffles: the tests marked "
        "BEYOND CHANCE below are further from what a fair deal gives than chance explains "
        "(a fair table gets such a result less than 1 time in 100). Check the software every "
        "player ran (each seat must shuffle with its own good randomness) and audit more games."
    ),
    Verdict.TOO_FEW: (
        "Verdict: TOO FEW DEALS. No test has enough deals or tables yet to say anything "
        "(each line below says how many it needs)."
    ),
}


_HEADLINES: Final[dict[Verdict, str]] = {
    Verdict.NO_SIGN_OF_BIAS: "NO SIGN OF BIAS",
    Verdict.BIASED: "BIASED",
    Verdict.TOO_FEW: "TOO FEW DEALS",
}


def headline(report: FairnessReport) -> str:
    """One line: the verdict and what it rests on."""
    deals = sum(x.deals for x in report.layouts)
    tables = sum(d.tables for d in report.draws)
    flagged = f", {len(report.flagged)} beyond chance" if report.flagged else ""
    return (
        f"{_HEADLINES[report.verdict]}: {count_of(report.run, 'test')} run{flagged} on "
        f"{count_of(deals, 'deal')} and {count_of(tables, 'seat draw')}"
    )


def render(report: FairnessReport) -> str:
    """The statistics as text: the verdict first, how it is reached, then every test."""
    intro = [_wrap(_VERDICTS[report.verdict])]
    if report.run:
        intro.append(
            _wrap(
                f"{count_of(report.run, 'test')} run. A test flags a bias when its p-value is "
                f"below "
                f"{report.alpha:g} / {report.run} = {_p(report.threshold)} (Bonferroni): so "
                f"a fair table is called biased less than {_one_in(report.alpha)}, however "
                "many tests run."
            )
        )
        intro.append(
            _wrap(
                "How to read a line: the p-value is the chance that fair shuffles give a result "
                "at least this far from the average (chi-square test). 0.3 is ordinary, 0.0001 "
                "is rare; for a fair table every line should be ordinary. The most uneven "
                "card's p-value is its own times 78, as it is the worst of 78 cards."
            )
        )
    tests = [t for x in report.layouts for t in x.tests] + [d.test for d in report.draws]
    width = max([len(test_title(t)) for t in tests] + [10])
    header = f"  {'test'.ljust(width)}  {'chi-square':>10}  {'df':>4}  {'p-value':>9}  verdict"
    out: list[str] = []
    for layout in report.layouts:
        out.extend(["", *_layout_head(layout)])
        if not any(t.ran for t in layout.tests):
            out.append(_too_few(layout.tests, "deals"))
            continue
        out.append(header)
        for test in layout.tests:
            out.append(_test_line(test, report, width))
            out.extend(_detail(test, layout, report))
    for draw in report.draws:
        out.extend(["", *_draw_head(draw)])
        if draw.test.ran:
            out.extend([header, _test_line(draw.test, report, width)])
        else:
            out.append(_too_few([draw.test], "tables"))
    return "\n\n".join(intro) + "\n" + "\n".join(out)


def _too_few(tests: Sequence[Test], what: str) -> str:
    needs = sorted({t.needs for t in tests})
    if len(tests) == 1:
        return f"  too few {what} for the test yet (it needs {needs[0]} {what})"
    return f"  too few {what} for any test yet (they need from {needs[0]} to {needs[-1]} {what})"


def _layout_head(layout: LayoutStats) -> list[str]:
    sizes = ", ".join(f"{p} {s}" for p, s in zip(layout.places, layout.sizes, strict=True))
    return [
        f"{layout.name}: {count_of(layout.deals, 'deal')}",
        _wrap(
            "Places are counted from the dealer: dealer+1 is served first and plays first"
            + ("; the dealer is served last" if "dealer" in layout.places else "")
            + f". Cards per deal: {sizes}."
        ),
    ]


def _draw_head(draw: DrawStats) -> list[str]:
    first = ", ".join(
        f"{'the host' if m == 0 else f'member {m}'} {row[0]}" for m, row in enumerate(draw.counts)
    )
    return [
        f"Seat draw at {draw.players} players (hand 0): {count_of(draw.tables, 'table')}",
        _wrap(
            "Members are numbered in join order, the host first. First dealer (seat 0): "
            f"{first} ({draw.tables / draw.players:.1f} each for a fair draw)."
        ),
    ]


def _detail(test: Test, layout: LayoutStats, report: FairnessReport) -> list[str]:
    """For a flagged test, what was off."""
    if not test.flags(report.alpha):
        return []
    if test.kind in (Kind.OUDLERS, Kind.TRUMPS):
        cells = ", ".join(
            f"{b}: {o} ({e:.1f})"
            for b, o, e in zip(test.bins, test.observed, test.expected, strict=True)
        )
        return [_wrap(f"deals with that many: {cells} (fair average in brackets)", indent=6)]
    if layout.card_p is None:
        return []
    cards = sorted(range(DECK_SIZE), key=lambda c: layout.card_p[c] if layout.card_p else 1.0)
    limit = 1 if test.kind is Kind.WORST_CARD else 5
    out = []
    for c in cards[:limit]:
        where = ", ".join(
            f"{place} {o} ({layout.expected(p):.1f})"
            for p, (place, o) in enumerate(zip(layout.places, layout.counts[c], strict=True))
        )
        out.append(_wrap(f"{card_name(c)}: {where} (fair average in brackets)", indent=6))
    return out


def _one_in(alpha: float) -> str:
    return f"1 time in {round(1 / alpha)}"


def _wrap(text: str, indent: int = 0) -> str:
    pad = " " * indent
    return textwrap.fill(text, 92, initial_indent=pad, subsequent_indent=pad + "  " * bool(indent))


# ---------------------------------------------------------------------- JSON


def _test_json(test: Test) -> dict[str, Any]:
    return {
        "kind": test.kind.value,
        "group": test.group,
        "place": test.place,
        "title": test_title(test),
        "samples": test.samples,
        "needs": test.needs,
        "ran": test.ran,
        "statistic": test.statistic,
        "df": test.df,
        "p_value": test.p_value,
        "adjusted_p_value": test.adjusted,
        "bins": [
            {"values": b, "observed": o, "expected": e}
            for b, o, e in zip(test.bins, test.observed, test.expected, strict=True)
        ],
        "card": None if test.card is None else card_name(test.card),
        "card_place": test.card_place,
    }


def to_json(report: FairnessReport) -> dict[str, Any]:
    """A JSON-able view: the verdict, the family, every test, every card's counts."""
    return {
        "verdict": report.verdict.value,
        "alpha": report.alpha,
        "tests_run": report.run,
        "threshold": report.threshold,
        "flagged": [_test_json(t) for t in report.flagged],
        "layouts": [
            {
                "name": x.name,
                "players": x.players,
                "active_players": x.active,
                "deals": x.deals,
                "places": list(x.places),
                "cards_per_place": list(x.sizes),
                "expected_per_card": [x.expected(p) for p in range(len(x.places))],
                "cards": [
                    {
                        "card": card_name(c),
                        "counts": list(x.counts[c]),
                        "p_value": None if x.card_p is None else x.card_p[c],
                    }
                    for c in range(DECK_SIZE)
                ],
                "tests": [_test_json(t) for t in x.tests],
            }
            for x in report.layouts
        ],
        "seat_draws": [
            {
                "players": d.players,
                "tables": d.tables,
                "member_by_seat": [list(row) for row in d.counts],
                "test": _test_json(d.test),
            }
            for d in report.draws
        ],
    }


# ---------------------------------------------------------------------- the picture

_CELL_W: Final = 12
_CELL_H: Final = 24
_GAP: Final = 6
_LEFT: Final = 78
_PALE: Final = 1.0
_CLIP: Final = 4.0
"""Cells within ``_PALE`` standard deviations of the average are white, beyond ``_CLIP`` the
darkest: chance alone puts about a third of the cells past one deviation, which would
otherwise speckle a fair table's picture."""


def deviation(layout: LayoutStats, card: int, place: int) -> float:
    """How far a cell is from a fair deal's average, in standard deviations (binomial)."""
    q = layout.sizes[place] / DECK_SIZE
    spread = math.sqrt(layout.deals * q * (1 - q))
    if spread == 0:
        return 0.0
    return (layout.counts[card][place] - layout.expected(place)) / spread


def _colour(z: float) -> str:
    t = max(0.0, min(1.0, (abs(z) - _PALE) / (_CLIP - _PALE)))
    fade = round(255 * (1 - t))
    return f"rgb(255,{fade},{fade})" if z >= 0 else f"rgb({fade},{fade},255)"


def _x(card: int) -> int:
    """Cards left to right by suit (spades, hearts, diamonds, clubs, trumps, the Excuse),
    a gap between groups."""
    group = SUIT_OF[card] if SUIT_OF[card] >= 0 else 5
    return _LEFT + card * _CELL_W + group * _GAP


def heat_map(report: FairnessReport) -> str | None:
    """The SVG heat map of card by place, one panel per layout (``None``: no deal)."""
    panels = [x for x in report.layouts if x.deals]
    if not panels:
        return None
    width = _x(DECK_SIZE - 1) + _CELL_W + 20
    parts: list[str] = []
    y = 20
    parts.append(
        _text(10, y, "Where each card went, by place counted from the dealer", size=15, bold=True)
    )
    y += 20
    parts.append(
        _text(
            10,
            y,
            "Red: more often than a fair deal gives on average; blue: less often; white: "
            "as expected. A few pale cells are normal chance; look for dark cells or a pattern. "
            "A black frame marks a card beyond chance.",
            size=11,
        )
    )
    y += 16
    for layout in panels:
        y += 24
        state = "" if layout.card_p is not None else " (too few deals for the tests)"
        title = f"{layout.name}: {count_of(layout.deals, 'deal')}{state}"
        parts.append(_text(10, y, title, size=13))
        y += 8
        for p, place in enumerate(layout.places):
            top = y + p * _CELL_H
            parts.append(_text(8, top + _CELL_H * 0.65, place, size=11))
            for card in range(DECK_SIZE):
                z = deviation(layout, card, p)
                tip = (
                    f"{card_name(card)} {_where(place)}: {layout.counts[card][p]} of "
                    f"{layout.deals} deals ({layout.expected(p):.1f} on average), {z:+.1f} sd"
                )
                parts.append(
                    f'<rect x="{_x(card)}" y="{top}" width="{_CELL_W - 1}" '
                    f'height="{_CELL_H - 1}" fill="{_colour(z)}">'
                    f"<title>{escape(tip)}</title></rect>"
                )
        for card in _beyond_chance(layout, report):
            parts.append(
                f'<rect x="{_x(card) - 1}" y="{y - 1}" width="{_CELL_W + 1}" '
                f'height="{len(layout.places) * _CELL_H + 1}" fill="none" stroke="black" '
                'stroke-width="2"/>'
            )
        y += len(layout.places) * _CELL_H + 4
        for card in range(DECK_SIZE):
            cx = _x(card) + _CELL_W / 2 + 3
            parts.append(
                f'<text x="{cx}" y="{y}" font-size="8" font-family="sans-serif" '
                f'transform="rotate(90 {cx} {y})">{escape(card_name(card))}</text>'
            )
        y += 24
    y += 20
    parts.extend(_legend(y))
    height = y + 60
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            *parts,
            "</svg>",
            "",
        ]
    )


def _beyond_chance(layout: LayoutStats, report: FairnessReport) -> list[int]:
    """Cards whose own test, corrected for the 78 cards and the family, flags a bias."""
    if layout.card_p is None:
        return []
    limit = report.threshold / DECK_SIZE
    return [c for c in range(DECK_SIZE) if layout.card_p[c] < limit]


def _legend(y: int) -> list[str]:
    out = [_text(10, y + 14, "standard deviations from a fair average:", size=11)]
    steps = [-4, -3, -2, -1, 0, 1, 2, 3, 4]
    for i, z in enumerate(steps):
        x = 250 + i * 44
        out.append(
            f'<rect x="{x}" y="{y}" width="40" height="18" fill="{_colour(z)}" stroke="#888"/>'
        )
        out.append(_text(x + 12, y + 32, f"{z:+d}" if z else "0", size=10))
    out.append(
        _text(
            10,
            y + 48,
            "For a fair deal about 1 cell in 20 lies beyond ±2, about 1 in 370 beyond ±3.",
            size=11,
        )
    )
    return out


def _text(x: float, y: float, text: str, size: int = 11, bold: bool = False) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return (
        f'<text x="{x}" y="{y}" font-size="{size}" font-family="sans-serif"{weight}>'
        f"{escape(text)}</text>"
    )
