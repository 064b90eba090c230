"""The running totals of a game as an SVG line chart, for the page's score sheet.

Why these pieces: a chart is read by someone who did not draw it, so it says what its axes
are (deals along, points up, with numbers), whose line is whose (a legend with the names
and each final total), and it keeps equal totals apart. In Tarot equal totals are the rule,
not the exception: the defenders of a deal all score the same, so after the first deal
two, three or four lines coincide. Each player's line therefore has its own dash and
marker, the points of equal totals are fanned out a pixel or two around their value (never
enough to be read as a different score, and never across zero, a numbered mark or another
total), and the legend gives every total in figures.

Names are other people's text: they are escaped, and shortened in the legend only.
"""

from __future__ import annotations

from html import escape
from typing import Final

from tarot_p2p.rules.sheet import ScoreSheet
from tarot_p2p.ui.i18n import Words

COLOURS: Final = ("#f4d35e", "#7fd1ff", "#ff8fa3", "#b8f28b", "#d7b5ff")
"""One colour per seat (the score sheet's columns are underlined with the same)."""
DASHES: Final = ("", "7 3", "2 3", "9 3 2 3", "4 2")
MARKERS: Final = ("circle", "square", "triangle", "diamond", "cross")
INK: Final = "#f4efe1"

WIDTH: Final = 320
LEFT: Final = 44
RIGHT: Final = 10
TOP: Final = 10
PLOT_HEIGHT: Final = 120
AXIS_ROOM: Final = 34
"""Below the plot: the deals' numbers and the axis' name."""
LEGEND_ROW: Final = 17
LEGEND_COLUMNS: Final = 2
NAME_CHARS: Final = 12
"""A name longer than this is shortened in the legend (whole in its tooltip)."""
MARKED_DEALS: Final = 24
"""Up to this many deals every point has its marker; beyond, the last one only."""
SPREAD: Final = 3
"""Pixels between two lines that would coincide."""


def nice_step(span: int, most: int) -> int:
    """The smallest step of 1, 2 or 5 times a power of ten that cuts ``span`` into at
    most ``most`` parts."""
    unit = 1
    while True:
        for factor in (1, 2, 5):
            if span <= most * factor * unit:
                return factor * unit
        unit *= 10


def _marker(kind: str, x: float, y: float, colour: str) -> str:
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.2" fill="{colour}"/>'
    if kind == "square":
        return f'<rect x="{x - 3:.1f}" y="{y - 3:.1f}" width="6" height="6" fill="{colour}"/>'
    if kind == "triangle":
        return (
            f'<polygon points="{x:.1f},{y - 4:.1f} {x + 3.6:.1f},{y + 2.6:.1f} '
            f'{x - 3.6:.1f},{y + 2.6:.1f}" fill="{colour}"/>'
        )
    if kind == "diamond":
        return (
            f'<polygon points="{x:.1f},{y - 4:.1f} {x + 4:.1f},{y:.1f} {x:.1f},{y + 4:.1f} '
            f'{x - 4:.1f},{y:.1f}" fill="{colour}"/>'
        )
    return (
        f'<path d="M{x - 3.2:.1f} {y - 3.2:.1f}L{x + 3.2:.1f} {y + 3.2:.1f}M{x - 3.2:.1f} '
        f'{y + 3.2:.1f}L{x + 3.2:.1f} {y - 3.2:.1f}" stroke="{colour}" stroke-width="2"/>'
    )


def _text(x: float, y: float, text: str, anchor: str = "middle", size: int = 10) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" fill="{INK}" font-size="{size}" '
        f'text-anchor="{anchor}">{text}</text>'
    )


def _line(points: str, colour: str, dash: str) -> str:
    dashes = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2" '
        f'stroke-linejoin="round"{dashes}/>'
    )


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def _short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def totals_chart(sheet: ScoreSheet, words: Words) -> str:
    """Every player's running total after each deal, from 0 before the first."""
    names = sheet.names
    series: list[list[int]] = [[0] for _ in names]
    for line in sheet.lines:
        for seat, score in enumerate(line.scores):
            series[seat].append(series[seat][-1] + score)
    deals = len(series[0]) - 1
    step = nice_step(max(max(map(max, series)) - min(map(min, series)), 1), 5)
    low = min(map(min, series)) // step * step
    high = max(-(-max(map(max, series)) // step) * step, low + step)
    plot_width = WIDTH - LEFT - RIGHT
    bottom = TOP + PLOT_HEIGHT

    def x(i: int) -> float:
        return LEFT + plot_width * i / max(deals, 1)

    def y(v: float) -> float:
        return bottom - PLOT_HEIGHT * (v - low) / (high - low)

    rows = -(-len(names) // LEGEND_COLUMNS)
    height = bottom + AXIS_ROOM + rows * LEGEND_ROW + 4
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'class="chart" role="img" aria-label="{escape(words("chart"))}">',
    ]
    grid = range(low, high + 1, step)
    for value in grid:
        zero = (
            ' stroke-opacity=".5" stroke-dasharray="4 3"' if value == 0 else ' stroke-opacity=".12"'
        )
        parts.append(
            f'<line x1="{LEFT - 4}" x2="{WIDTH - RIGHT}" y1="{y(value):.1f}" y2="{y(value):.1f}" '
            f'stroke="{INK}"{zero}/>'
        )
        parts.append(_text(LEFT - 7, y(value) + 3.5, _signed(value), "end"))
    parts.append(
        f'<path d="M{LEFT} {TOP}V{bottom}H{WIDTH - RIGHT}" fill="none" stroke="{INK}" '
        'stroke-opacity=".7"/>'
    )
    every = nice_step(max(deals, 1), 8)
    for i in range(0, deals + 1, every):
        parts.append(
            f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{bottom}" y2="{bottom + 4}" '
            f'stroke="{INK}" stroke-opacity=".7"/>'
        )
        parts.append(_text(x(i), bottom + 15, str(i)))
    parts.append(_text(LEFT + plot_width / 2, bottom + 29, escape(words("deal")), size=11))
    parts.append(
        f'<text transform="translate(12 {TOP + PLOT_HEIGHT / 2:.1f}) rotate(-90)" '
        f'fill="{INK}" font-size="11" text-anchor="middle">{escape(words("total"))}</text>'
    )

    def drawn(seat: int, i: int) -> float:
        """Where a point is drawn: at its value when no other player has that total then;
        else the players who share it are fanned out around it, SPREAD apart in seat order,
        the fan narrowed to a third of the way to the nearest other value at this deal
        (another player's total, zero or any numbered mark). So a point never shows on
        the wrong side of zero or of a different total: the other fan may close a third of
        the way towards it too, and a third of the gap remains between them."""
        value = series[seat][i]
        alike = [s for s, line in enumerate(series) if line[i] == value]
        if len(alike) == 1:
            return y(value)
        others = ({line[i] for line in series} | set(grid)) - {value}
        room = min(abs(y(v) - y(value)) for v in others)
        half = (len(alike) - 1) / 2
        step = min(SPREAD, room / 3 / half)
        return y(value) - (alike.index(seat) - half) * step

    column_width = plot_width / LEGEND_COLUMNS
    for seat, points in enumerate(series):
        colour, dash = COLOURS[seat % len(COLOURS)], DASHES[seat % len(DASHES)]
        marker = MARKERS[seat % len(MARKERS)]
        parts.append(
            _line(
                " ".join(f"{x(i):.1f},{drawn(seat, i):.1f}" for i in range(len(points))),
                colour,
                dash,
            )
        )
        shown = range(len(points)) if deals <= MARKED_DEALS else (len(points) - 1,)
        parts.extend(_marker(marker, x(i), drawn(seat, i), colour) for i in shown)
        lx = LEFT + (seat % LEGEND_COLUMNS) * column_width
        ly = bottom + AXIS_ROOM + (seat // LEGEND_COLUMNS) * LEGEND_ROW + 8
        parts.append(
            f"<g><title>{escape(names[seat])}</title>"
            + _line(f"{lx:.1f},{ly:.1f} {lx + 22:.1f},{ly:.1f}", colour, dash)
            + _marker(marker, lx + 11, ly, colour)
            + _text(lx + 54, ly + 3.5, _signed(points[-1]), "end")
            + _text(lx + 59, ly + 3.5, escape(_short(names[seat])), "start")
            + "</g>"
        )
    parts.append("</svg>")
    return "".join(parts)
