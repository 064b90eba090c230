"""What a player sees of the page, measured in the browser: which element the pointer
would reach at each point (the browser's own hit test), the part of each card that shows,
and a grey card's face lying over a playable one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TARGET = 44
"""The smallest touch target, in CSS pixels, on each side."""

VISIBLE_SQUARES = """(selector) => {
  // For each element: the largest square of points where the browser's hit test reaches
  // it (on a 2 px grid), and that square's centre.
  const g = 2;
  return [...document.querySelectorAll(selector)].map((el) => {
    const r = el.getBoundingClientRect();
    const cols = Math.floor(r.width / g);
    const rows = Math.floor(r.height / g);
    let prev = new Array(cols + 1).fill(0);
    let best = 0;
    let at = [r.left + r.width / 2, r.top + r.height / 2];
    for (let j = 0; j < rows; j++) {
      const cur = new Array(cols + 1).fill(0);
      for (let i = 0; i < cols; i++) {
        const x = r.left + (i + 0.5) * g;
        const y = r.top + (j + 0.5) * g;
        const hit = document.elementFromPoint(x, y);
        if (hit && el.contains(hit)) {
          cur[i + 1] = Math.min(prev[i], prev[i + 1], cur[i]) + 1;
          if (cur[i + 1] > best) {
            best = cur[i + 1];
            at = [x - (best - 1) * g / 2, y - (best - 1) * g / 2];
          }
        }
      }
      prev = cur;
    }
    return {
      key: el.dataset.card || el.id || el.textContent.trim(),
      side: best * g,
      x: at[0],
      y: at[1],
      left: r.left, top: r.top, right: r.right, bottom: r.bottom,
    };
  });
}"""

GREY_OVER_PLAYABLE = """() => {
  // A grey card whose visible face lies over a playable card: a point of the face inside
  // the playable card's box. What shows is what the browser would reach with every card
  // taking the pointer (the page's own pointer rules are set aside for the measure), so
  // this finds the same place on any version of the page.
  const cards = [...document.querySelectorAll("#hand .card")];
  const saved = cards.map((c) => c.style.pointerEvents);
  for (const c of cards) c.style.pointerEvents = "auto";
  try {
    for (const grey of cards.filter((c) => c.classList.contains("illegal"))) {
      const g = grey.getBoundingClientRect();
      for (const legal of cards.filter((c) => c.classList.contains("legal"))) {
        const l = legal.getBoundingClientRect();
        const left = Math.max(g.left, l.left) + 3;
        const right = Math.min(g.right, l.right) - 3;
        const top = Math.max(g.top, l.top) + 3;
        const bottom = Math.min(g.bottom, l.bottom) - 3;
        const points = [];
        for (let y = top; y < bottom; y += 2) {
          for (let x = left; x < right; x += 2) {
            const hit = document.elementFromPoint(x, y);
            if (hit && grey.contains(hit)) points.push([x, y]);
          }
        }
        if (points.length < 25) continue;
        // Near the middle across, in the upper part: the playable card still lies under
        // it when lifted.
        const xs = points.map((p) => p[0]).sort((a, b) => a - b);
        const want = [xs[xs.length >> 1], top + (bottom - top) * 0.3];
        const dist = (p) => (p[0] - want[0]) ** 2 + (p[1] - want[1]) ** 2;
        const best = points.reduce((a, b) => (dist(b) < dist(a) ? b : a));
        return { grey: Number(grey.dataset.card), under: Number(legal.dataset.card),
                 x: best[0], y: best[1] };
      }
    }
    return null;
  } finally {
    cards.forEach((c, i) => { c.style.pointerEvents = saved[i]; });
  }
}"""


@dataclass(frozen=True)
class Shown:
    """The part of an element the pointer reaches."""

    key: str
    side: float
    """The side of the largest square of it that the pointer reaches."""
    x: float
    y: float
    """The centre of that square."""
    left: float
    top: float
    right: float
    bottom: float


def shown(page: Any, selector: str) -> list[Shown]:
    return [Shown(**s) for s in page.evaluate(VISIBLE_SQUARES, selector)]


@dataclass(frozen=True)
class GreyFace:
    grey: int
    under: int
    """The playable card beneath the point."""
    x: float
    y: float


def grey_over_playable(page: Any) -> GreyFace | None:
    found = page.evaluate(GREY_OVER_PLAYABLE)
    return GreyFace(**found) if found else None


def viewport(page: Any) -> tuple[int, int]:
    return page.evaluate("() => [window.innerWidth, window.innerHeight]")


def document_width(page: Any) -> int:
    return page.evaluate("() => document.documentElement.scrollWidth")


def inside(page: Any, box: Shown) -> bool:
    width, height = viewport(page)
    return box.left >= 0 and box.top >= 0 and box.right <= width and box.bottom <= height


REACHED = """(selector) => {
  // Each element shown (not display: none): scrolled into view as the player would
  // scroll it (every scrollable box around it, the page too), then the browser's hit
  // test at its centre and near its four corners, which must reach it or its children.
  const name = (node) => {
    if (!node) return "nothing (off the screen)";
    const owner = node.closest("[id]");
    const cls = node.classList && node.classList.length ? "." + [...node.classList].join(".") : "";
    return node.tagName.toLowerCase() + cls + (owner ? " in #" + owner.id : "");
  };
  const d = 4;
  return [...document.querySelectorAll(selector)]
    .filter((el) => el.getClientRects().length > 0)
    .map((el) => {
      el.scrollIntoView({ block: "nearest", inline: "nearest" });
      const r = el.getBoundingClientRect();
      const points = [
        [(r.left + r.right) / 2, (r.top + r.bottom) / 2],
        [r.left + d, r.top + d], [r.right - d, r.top + d],
        [r.left + d, r.bottom - d], [r.right - d, r.bottom - d],
      ];
      const over = [];
      for (const [x, y] of points) {
        const hit = document.elementFromPoint(x, y);
        if (!hit || !el.contains(hit)) over.push(name(hit));
      }
      return {
        key: el.id || el.dataset.card || el.textContent.trim() || name(el),
        inside: r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight,
        over,
      };
    });
}"""


@dataclass(frozen=True)
class Reached:
    """An element scrolled into view, and what the pointer reaches instead of it."""

    key: str
    inside: bool
    """Inside the screen once scrolled into view."""
    over: list[str]
    """What the hit test found instead at the points that missed it (none: all reach it)."""


def reached(page: Any, selector: str) -> list[Reached]:
    return [Reached(**r) for r in page.evaluate(REACHED, selector)]
