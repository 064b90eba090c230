"""The initial public deck: card points under the joint key, masked with ``r = 1``.

Why ``r = 1``: the first shuffler needs ciphertexts to start from, and everybody must be
able to check them without trusting anyone. ``(G, M_c + Y)`` for card ``c`` is a valid
encryption of ``M_c`` anyone recomputes from ``Y``; it hides nothing, and needs not: the
shuffles that follow permute and re-mask every card, so after the last one nobody who did
not take part in every shuffle knows where any card is.

Why a list of cards: a deal's deck is the 78 cards in card order; the seat draw's is a
short one (``table.md`` §4.1), which costs its shuffles several times less.
"""

from __future__ import annotations

from collections.abc import Sequence

from tarot_p2p.crypto.elgamal import Ciphertext, card_point
from tarot_p2p.crypto.group import G, Point, add

DECK_SIZE = 78


def initial_deck(y: Point, cards: Sequence[int] = range(DECK_SIZE)) -> list[Ciphertext]:
    """Position ``k`` holds ``(G, card_point(cards[k]) + Y)``: by default card ``k`` at
    position ``k``, for ``k`` in ``0..77``."""
    return [Ciphertext(G, add(card_point(c), y)) for c in cards]
