"""The initial public deck: the 78 card points under the joint key, masked with ``r = 1``.

Why ``r = 1``: the first shuffler needs ciphertexts to start from, and everybody must be
able to check them without trusting anyone. ``(G, M_c + Y)`` for card ``c`` at position
``c`` is a valid encryption of ``M_c`` anyone recomputes from ``Y``; it hides nothing,
and needs not: the shuffles that follow permute and re-mask every card, so after the last
one nobody who did not take part in every shuffle knows where any card is.
"""

from __future__ import annotations

from tarot_p2p.crypto.elgamal import Ciphertext, card_point
from tarot_p2p.crypto.group import G, Point, add

DECK_SIZE = 78


def initial_deck(y: Point) -> list[Ciphertext]:
    """Position ``c`` holds ``(G, card_point(c) + Y)``, for ``c`` in ``0..77``."""
    return [Ciphertext(G, add(card_point(c), y)) for c in range(DECK_SIZE)]
