"""The table in the browser: a page served by the player's own peer.

``policy`` is the seat's :class:`~tarot_p2p.seat.runner.Policy` (decisions come from the
page's clicks), ``view`` computes what the page may show from this seat's observation
alone, ``server`` serves the page and its WebSocket on 127.0.0.1 to this player only,
``cards`` draws the cards, ``i18n`` holds the words; ``static/`` is the page itself
(plain HTML, CSS and JavaScript, no build step).
"""
