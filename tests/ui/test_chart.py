"""The chart of running totals under the score sheet: axes with numbers and names, a
legend with every player's name and total, equal totals kept apart, names escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import pairwise

from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.sheet import ScoreSheet
from tarot_p2p.ui.chart import totals_chart
from tarot_p2p.ui.i18n import Words

SVG = "{http://www.w3.org/2000/svg}"


def sheet(names: list[str], *lines: tuple[int, ...]) -> ScoreSheet:
    config = TableConfig(players=len(names), game_end=GameEnd.DEALS, game_length=30)
    out = ScoreSheet(config, names)
    for line in lines:
        out.add_hand(line)
    return out


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def test_axes_say_what_they_count() -> None:
    root = ET.fromstring(
        totals_chart(sheet(["Emma", "Nico", "Pat", "Lea"], (-82, 246, -82, -82)), Words("en"))
    )
    words = texts(root)
    assert "Deal" in words and "Total" in words  # the axes' names
    assert {"0", "1"} <= set(words)  # deals along
    assert {"-100", "0", "+100", "+200", "+300"} <= set(words)  # points up, around every total
    assert root.get("aria-label") == "Totals over the deals"


def test_the_legend_names_every_player_with_the_total() -> None:
    names = ["Emma", "Nico <b>&", "Pat", "Bruno-Maximilien de la Tour"]
    text = totals_chart(sheet(names, (-82, 246, -82, -82), (60, 60, -180, 60)), Words("fr"))
    assert "<b>" not in text  # another player's name is text, never markup
    root = ET.fromstring(text)
    words = texts(root)
    assert "Donne" in words
    for name, total in [("Emma", "-22"), ("Nico <b>&", "+306"), ("Pat", "-262")]:
        assert name in words and total in words
    assert "Bruno-Maxim…" in words  # shortened in the legend, whole in its tooltip
    assert names[3] in [t.text for t in root.iter(f"{SVG}title")]


def test_equal_totals_stay_apart() -> None:
    # The three defenders score alike deal after deal: three lines on the same values.
    root = ET.fromstring(
        totals_chart(
            sheet(["A", "B", "C", "D"], (-40, 120, -40, -40), (-30, 90, -30, -30)), Words("en")
        )
    )
    lines = [e for e in root if e.tag == f"{SVG}polyline"]  # the plot's (not the legend's)
    assert len(lines) == 4
    assert len({line.get("points") for line in lines}) == 4, "two lines lie on one another"
    assert len({line.get("stroke-dasharray") for line in lines}) == 4
    # Each player's marks have their own shape (circle, square, triangle, diamond), as
    # the legend shows.
    legend = [list(group) for group in root.iter(f"{SVG}g")]
    shapes = {(g[2].tag, len((g[2].get("points") or "").split())) for g in legend}
    assert len(shapes) == 4
    assert [w for w in texts(root) if w == "-70"] == ["-70", "-70", "-70"]  # told in figures


def drawn(root: ET.Element) -> tuple[list[list[float]], dict[int, float]]:
    """The plot's lines as the heights drawn at each deal, and each numbered grid line's
    height by its value."""
    lines = [e for e in root if e.tag == f"{SVG}polyline"]
    heights = [[float(p.split(",")[1]) for p in (e.get("points") or "").split()] for e in lines]
    grid = {
        int(label.text or ""): float(line.get("y1") or "")
        for line, label in pairwise(root)
        if line.tag == f"{SVG}line"
        and label.tag == f"{SVG}text"
        and line.get("y1") == line.get("y2")
    }
    return heights, grid


def test_keeping_lines_apart_never_moves_a_point_across_zero_or_another_value() -> None:
    # Four players on -22 after the first deal, the fifth far up; the second deal stretches
    # the scale so that -22 is barely two pixels under zero.
    game = sheet(["A", "B", "C", "D", "E"], (-22, -22, -22, -22, 88), (0, 0, 0, -400, 400))
    heights, grid = drawn(ET.fromstring(totals_chart(game, Words("en"))))
    assert 0 in grid and len(grid) >= 3
    totals = [[0, -22, -22], [0, -22, -22], [0, -22, -22], [0, -22, -422], [0, 88, 488]]
    for deal in range(3):
        for seat, line in enumerate(heights):
            value, height = totals[seat][deal], line[deal]
            for mark, at in grid.items():  # zero first of all: on its own side of every mark
                assert (value < mark) <= (height > at) and (value > mark) <= (height < at)
            for other, other_line in enumerate(heights):  # and of every other total
                if totals[other][deal] < value:
                    assert height < other_line[deal], (seat, other, deal)
    assert len({tuple(line) for line in heights}) == 5  # still apart
    (low, at_low), (high, at_high) = min(grid.items()), max(grid.items())

    def at(value: int) -> float:
        return at_low + (value - low) * (at_high - at_low) / (high - low)

    # A total nobody else has is drawn where it is; the four equal ones around theirs.
    assert abs(heights[4][1] - at(88)) < 0.1 and abs(heights[3][2] - at(-422)) < 0.1
    assert abs(sum(line[1] for line in heights[:4]) / 4 - at(-22)) < 0.1
