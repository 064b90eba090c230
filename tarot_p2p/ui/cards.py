"""The 78 cards (and a back) drawn as SVG by the package itself.

Why drawn here: no image files to license or ship, every card crisp at any size, and the
page needs nothing but the strings. Suits are vector paths (no font may miss a symbol),
hearts and diamonds red, spades and clubs black; trumps are numbered large with the two
small oudlers and the 21 starred; the Excuse has its star and its name. The face letters
follow the player's language (R D C V in French, K Q C J in English).
"""

from __future__ import annotations

from functools import cache
from typing import Final

from tarot_p2p.rules.cards import EXCUSE, OUDLERS, RANK_OF, SUIT_OF, TRUMP_SUIT, Card
from tarot_p2p.ui.i18n import Words

WIDTH: Final = 100
HEIGHT: Final = 150

SUIT_PATHS: Final[tuple[str, ...]] = (
    # spades
    "M50 2C44 18 2 40 2 63c0 16 12 26 26 26 9 0 16-4 19-10-1 10-7 16-15 19h36"
    "c-8-3-14-9-15-19 3 6 10 10 19 10 14 0 26-10 26-26C98 40 56 18 50 2z",
    # hearts
    "M50 96C22 70 2 52 2 30 2 14 14 3 28 3c10 0 18 6 22 15 4-9 12-15 22-15 14 0 26 11 "
    "26 27 0 22-20 40-48 66z",
    # diamonds
    "M50 2L88 50 50 98 12 50z",
    # clubs
    "M50 4a21 21 0 0 0-19 30A21 21 0 1 0 45 70c-1 11-6 19-15 26h40c-9-7-14-15-15-26a21 "
    "21 0 1 0 14-36A21 21 0 0 0 50 4z",
)
"""Each suit in a 100 x 100 box."""

RED: Final = "#c0182b"
BLACK: Final = "#17181c"
SUIT_COLOURS: Final = (BLACK, RED, RED, BLACK)
TRUMP_INK: Final = "#1f3f8f"

# Pip places of the number cards in the card's central area (x, y), by rank.
_PIPS: Final[dict[int, tuple[tuple[int, int], ...]]] = {
    1: ((50, 75),),
    2: ((50, 38), (50, 112)),
    3: ((50, 38), (50, 75), (50, 112)),
    4: ((32, 38), (68, 38), (32, 112), (68, 112)),
    5: ((32, 38), (68, 38), (50, 75), (32, 112), (68, 112)),
    6: ((32, 38), (68, 38), (32, 75), (68, 75), (32, 112), (68, 112)),
    7: ((32, 38), (68, 38), (50, 56), (32, 75), (68, 75), (32, 112), (68, 112)),
    8: ((32, 38), (68, 38), (50, 56), (32, 75), (68, 75), (50, 94), (32, 112), (68, 112)),
    9: ((32, 34), (68, 34), (32, 60), (68, 60), (50, 75), (32, 90), (68, 90), (32, 116),
        (68, 116)),
    10: ((32, 34), (68, 34), (50, 47), (32, 60), (68, 60), (32, 90), (68, 90), (50, 103),
         (32, 116), (68, 116)),
}  # fmt: skip


def _suit(suit: int, x: float, y: float, size: float, flip: bool = False) -> str:
    """The suit symbol of ``size`` centred on (x, y)."""
    scale = size / 100
    turn = f" rotate(180 {x:g} {y:g})" if flip else ""
    return (
        f'<path transform="{turn} translate({x - size / 2:g} {y - size / 2:g}) '
        f'scale({scale:g})" d="{SUIT_PATHS[suit]}" fill="{SUIT_COLOURS[suit]}"/>'
    )


def _frame(fill: str, stroke: str) -> str:
    return (
        f'<rect x="1.5" y="1.5" width="{WIDTH - 3}" height="{HEIGHT - 3}" rx="8" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="2"/>'
    )


def _text(x: float, y: float, size: float, fill: str, text: str, extra: str = "") -> str:
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" fill="{fill}" text-anchor="middle" '
        f'font-family="Georgia, \'DejaVu Serif\', serif" font-weight="bold"{extra}>{text}</text>'
    )


def _svg(label: str, body: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{label}">{body}</svg>'
    )


def _suit_card(c: Card, words: Words) -> str:
    suit, rank = SUIT_OF[c], RANK_OF[c]
    colour = SUIT_COLOURS[suit]
    index = str(rank) if rank <= 10 else words(f"face_{rank}")
    corner = _text(13, 22, 17, colour, index) + _suit(suit, 13, 34, 13)
    corner_low = _text(87, 128, 17, colour, index, ' transform="rotate(180 87 122)"') + _suit(
        suit, 87, 116, 13, flip=True
    )
    if rank <= 10:
        size = 30 if rank == 1 else 19
        middle = "".join(_suit(suit, x, y, size, flip=y > 80) for x, y in _PIPS[rank])
    else:
        middle = (
            f'<rect x="24" y="30" width="52" height="90" rx="6" fill="#f6efd9" '
            f'stroke="{colour}" stroke-width="1.5"/>'
            + _crown(colour, rank)
            + _text(50, 92, 34, colour, index)
            + _suit(suit, 50, 106, 16)
        )
    return _svg(words.card(c), _frame("#fffdf7", "#b9b2a0") + corner + corner_low + middle)


def _crown(colour: str, rank: int) -> str:
    """A small crown for kings and queens, a plume for knights and jacks."""
    if rank >= 13:
        return (
            f'<path d="M36 58l4-14 6 8 4-11 4 11 6-8 4 14z" fill="#d9a52b" stroke="{colour}" '
            f'stroke-width="1"/>'
        )
    return f'<path d="M42 60c2-10 10-16 18-18-5 5-7 11-8 18z" fill="{colour}" opacity=".8"/>'


def _trump(c: Card, words: Words) -> str:
    n = RANK_OF[c]
    star = c in OUDLERS
    band = "#d9e3f7"
    body = _frame("#fffdf7", TRUMP_INK)
    body += f'<rect x="8" y="8" width="84" height="134" rx="5" fill="{band}" opacity=".55"/>'
    body += _text(15, 22, 15, TRUMP_INK, str(n))
    body += _text(85, 134, 15, TRUMP_INK, str(n), ' transform="rotate(180 85 128)"')
    if star:
        body += _star(50, 48, 16, "#d9a52b")
    body += _text(50, 100, 44, TRUMP_INK, str(n))
    return _svg(words.card(c), body)


def _star(x: float, y: float, r: float, fill: str) -> str:
    points = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.42
        # The five points of a star, as exact fractions of a turn on a fixed table.
        dx, dy = _STAR_UNIT[i]
        points.append(f"{x + dx * radius:.1f},{y + dy * radius:.1f}")
    return f'<polygon points="{" ".join(points)}" fill="{fill}" stroke="#8a6512"/>'


_STAR_UNIT: Final = (
    (0.0, -1.0), (0.588, -0.809), (0.951, -0.309), (0.951, 0.309), (0.588, 0.809),
    (0.0, 1.0), (-0.588, 0.809), (-0.951, 0.309), (-0.951, -0.309), (-0.588, -0.809),
)  # fmt: skip
"""Unit vectors every 36 degrees from the top, clockwise."""


def _excuse(words: Words) -> str:
    body = _frame("#fffdf7", TRUMP_INK)
    body += '<rect x="8" y="8" width="84" height="134" rx="5" fill="#f3dfe9" opacity=".7"/>'
    body += _star(15, 20, 8, "#d9a52b") + _star(85, 130, 8, "#d9a52b")
    # The fool's cap: three bells.
    body += (
        '<path d="M30 80c4-22 14-34 20-34s16 12 20 34z" fill="#7d2e8f"/>'
        '<path d="M30 80c-8-10-14-12-18-10 6 0 10 6 18 14zM70 80c8-10 14-12 18-10-6 0-10 '
        '6-18 14zM50 46c-2-8 0-14 4-16-1 5-1 10-4 16z" fill="#c0182b"/>'
        '<circle cx="12" cy="70" r="4" fill="#d9a52b"/><circle cx="88" cy="70" r="4" '
        'fill="#d9a52b"/><circle cx="54" cy="29" r="4" fill="#d9a52b"/>'
        '<rect x="28" y="80" width="44" height="7" rx="3" fill="#d9a52b"/>'
    )
    body += _text(50, 112, 15, TRUMP_INK, words("excuse"))
    return _svg(words("excuse"), body)


@cache
def card_svg(c: Card, lang: str) -> str:
    """Card ``c`` (0..77) as a standalone SVG document."""
    words = Words(lang)
    if c == EXCUSE:
        return _excuse(words)
    if SUIT_OF[c] == TRUMP_SUIT:
        return _trump(c, words)
    return _suit_card(c, words)


@cache
def back_svg() -> str:
    """The back of a card, for the other players' hands."""
    lattice = "".join(
        f'<path d="M{x} 8L{x + 42} 142" stroke="#e9d8a6" stroke-width="1" opacity=".35"/>'
        f'<path d="M{x + 42} 8L{x} 142" stroke="#e9d8a6" stroke-width="1" opacity=".35"/>'
        for x in range(-34, 100, 14)
    )
    return _svg(
        "",
        _frame("#8e1f2f", "#f2e6c4")
        + '<rect x="8" y="8" width="84" height="134" rx="5" fill="none" stroke="#e9d8a6" '
        'stroke-width="2"/><clipPath id="b"><rect x="8" y="8" width="84" height="134"/>'
        f'</clipPath><g clip-path="url(#b)">{lattice}</g>' + _star(50, 75, 14, "#e9c46a"),
    )
