"""The player in the browser as a :class:`~tarot_p2p.seat.runner.Policy`.

Why a policy: the runner asks it for each decision and tells it every accepted message,
exactly as it does a bot or the terminal; the page is only a view of this seat and a
source of clicks. The peer stays the one thing that touches the network and the secrets;
the page receives what :func:`~tarot_p2p.ui.view.build_view` computes for this seat.

A click names the question it answers (``serial``), so a late click on an earlier
question is ignored rather than taken for the current one. The écart is chosen card by
card on a copy of the seat's engine, so the cards still allowed are always the engine's
(no rule is repeated here), with an undo until the player confirms; the whole écart then
goes to the peer at once.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

import trio

from tarot_p2p.protocol.peer import Peer, PeerEvent
from tarot_p2p.protocol.table import Phase
from tarot_p2p.protocol.transcript import file_header, file_record
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import DECK_SIZE, mask_of
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.seat.runner import Decision, Ecart
from tarot_p2p.ui.browser import show_page
from tarot_p2p.ui.cards import back_svg, card_svg
from tarot_p2p.ui.i18n import LANGUAGES, Words, system_language
from tarot_p2p.ui.server import PageServer
from tarot_p2p.ui.view import Notice, Pending, Story, build_view, lobby_view

log = logging.getLogger(__name__)
ECART_CLICKS: Final = ("card", "undo")
"""The page's messages that change the écart being made; it counts those it sends."""
T = TypeVar("T")

PAGE_LINGER: Final = 600.0
"""Seconds the page stays served after the game, until the player leaves it."""
TRICK_PAUSE: Final = 1.5
"""Seconds a trick just won stays whole on the page before the next one (bots play at
once: without it the last card of a trick would never be seen)."""
LABELS: Final = (
    "title",
    "you",
    "dealer",
    "last_trick",
    "hide",
    "tricks",
    "undo",
    "done",
    "leave",
    "quit",
    "left_lobby",
    "download",
    "sheet",
    "deal",
    "total",
    "trust",
    "score",
    "chart",
    "connecting",
    "disconnected",
    "over_closed",
    "ecart_shown",
    "ecart_mine",
    "why_ecart_full",
    "waiting_table",
    "copy",
    "left_table",
    "new_page",
    "tab_log",
    "tab_score",
    "tab_sheet",
)
"""Words the page places itself (buttons, headings)."""
TEMPLATES: Final = ("takes",)
"""Words the page fills in itself ("{name} wins trick {n}": the trick it holds a moment)."""


class BrowserPolicy:
    """Decisions clicked in the page; see the module docstring."""

    def __init__(self, lang: str | None = None, trick_pause: float = TRICK_PAUSE) -> None:
        self.words = Words(lang or system_language())
        self.trick_pause = trick_pause
        """Seconds the page keeps a trick just won in view (see :data:`TRICK_PAUSE`)."""
        self.follow_browser = lang is None
        """No language given (``--lang``): the page switches to its browser's, once."""
        self.story = Story(self.words)
        self.server = PageServer(self)
        self.peer: Peer | None = None
        self.pending: Pending | None = None
        self._serial = 0
        self._version = 0
        self._text = json.dumps({"type": "view", "view": None})
        self._changed = trio.Event()
        self._inbox_in, self._inbox = trio.open_memory_channel[dict[str, Any]](64)
        self.pages = 0
        self.join_command: str | None = None
        """What the other players type to join, shown while the table fills up."""
        self.lobby: tuple[tuple[str, ...], int | None] = ((), None)
        """At the host, while the table fills up: who sits already, how many are awaited."""
        self.left = trio.Event()
        """Set when the player leaves the table from the page, or closes it after the game."""
        self.quit = trio.Event()
        """Set when the player leaves from the page before the game started."""
        self.admitted = trio.Event()
        """Set once the table lets this player in (a joiner's code accepted): the browser
        opens on the page then, not on a table that a mistyped code never reached."""

    # ------------------------------------------------------------------ Policy

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        self.peer = peer
        self.story.refused = refused
        self._serial += 1
        state = peer.private_state()
        assert state is not None
        if peer.hand.phase is Phase.ECART:
            pending = Pending(self._serial, [], chien_size(peer.config), trial=state.clone())
        else:
            pending = Pending(self._serial, peer.legal_actions())
        self.pending = pending
        self.publish()
        try:
            while True:
                message = await self._inbox.receive()
                decision = self._answer(peer, pending, message)
                if decision is not None:
                    return decision
                self.publish()
        finally:
            # Answered, or withdrawn (the others' abandon came first): either way the
            # page loses the question's buttons now, not at the next message.
            self.pending = None
            self.story.refused = None
            self.publish()

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        self.peer = peer
        self.story.record(peer, events)
        self.publish()

    async def notice(self, peer: Peer, notice: Any) -> None:
        """The runner's status of the table (a player slow to answer, reconnecting...)."""
        self.peer = peer
        self.story.take_notice(
            Notice(
                str(notice.kind),
                notice.seat,
                notice.name,
                float(notice.seconds),
                getattr(notice, "left", None),
            ),
            peer.hand.hand,
        )
        self.publish()

    # ------------------------------------------------------------------ the page's clicks

    def _answer(self, peer: Peer, pending: Pending, message: dict[str, Any]) -> Decision | None:
        """The decision a click makes, or ``None`` when it only changes the page."""
        if message.get("serial") != pending.serial:
            return None
        kind = message.get("t")
        if pending.ecart_size:
            return self._ecart_click(peer, pending, kind, message.get("card"))
        choice = message.get("id")
        if kind == "act" and type(choice) is int and 0 <= choice < len(pending.actions):
            return pending.actions[choice]
        return None

    def _ecart_click(
        self, peer: Peer, pending: Pending, kind: object, card: object
    ) -> Decision | None:
        if kind in ECART_CLICKS:
            pending.clicks += 1
        if kind == "done" and len(pending.ecart) == pending.ecart_size:
            return Ecart(mask_of(pending.ecart))
        if kind == "undo" and pending.ecart:
            pending.ecart.pop()
            state = peer.private_state()
            assert state is not None
            pending.trial = state.clone()
            for chosen in pending.ecart:
                pending.trial.apply_action(a.DISCARD[chosen])
        elif kind == "card" and type(card) is int and 0 <= card < DECK_SIZE:
            if not (pending.ecart_choices() >> card) & 1:
                return None  # not allowed now: the page shows why
            assert pending.trial is not None
            pending.trial.apply_action(a.DISCARD[card])
            pending.ecart.append(card)
        return None

    # ------------------------------------------------------------------ the server's Table

    def hello(self) -> str:
        lang = self.words.lang
        return json.dumps(
            {
                "type": "hello",
                "lang": lang,
                "languages": list(LANGUAGES),
                "follow": self.follow_browser,
                "pause": round(self.trick_pause * 1000),
                "labels": {k: self.words(k) for k in LABELS},
                "templates": {k: self.words.table[k] for k in TEMPLATES},
                "cards": [card_svg(c, lang) for c in range(DECK_SIZE)],
                "back": back_svg(),
            }
        )

    def current(self) -> tuple[int, str]:
        return self._version, self._text

    async def changed(self, version: int) -> None:
        while self._version == version:
            await self._changed.wait()

    def take(self, message: dict[str, Any]) -> None:
        kind = message.get("t")
        if kind == "leave":
            self.left.set()
        elif kind == "quit":
            if self.peer is None:  # once the game is on, leaving is the absence rules' job
                self.quit.set()
        elif kind == "lang" and message.get("lang") in LANGUAGES:
            self.follow_browser = False  # chosen: by the browser's language or a click
            self.words = Words(str(message["lang"]))
            self.story.words = self.words
            self.publish()
        else:
            try:
                self._inbox_in.send_nowait(message)
            except trio.WouldBlock:
                log.info("page: too many clicks at once, one ignored")
                pending = self.pending
                if (
                    pending is not None
                    and pending.ecart_size
                    and message.get("t") in ECART_CLICKS
                    and message.get("serial") == pending.serial
                ):
                    pending.clicks += 1  # taken in, to no effect: the page waits for no view
                    self.publish()

    def transcript(self) -> bytes:
        peer = self.peer
        if peer is None:
            return b""
        header = file_header(peer.table_id, peer.transcript.binding)
        return header + b"".join(file_record(env) for env in peer.transcript)

    def connected(self, delta: int) -> None:
        self.pages += delta
        if self.pages == 0 and self.peer is not None and self.peer.expected_sender() is None:
            self.left.set()

    # ------------------------------------------------------------------ publishing

    def invite(self, command: str) -> None:
        """Show the page ``command``, which the other players type to join the table."""
        self.join_command = command
        self.publish()

    def seated(self, names: Sequence[str], missing: int) -> None:
        """Show who sits at the table while it fills up (called again as players come and
        go), and how many players are still awaited."""
        self.lobby = (tuple(names), missing)
        self.publish()

    def publish(self) -> None:
        """Compute the view once and wake every page's sender."""
        peer = self.peer
        view = (
            build_view(peer, self.story, self.pending)
            if peer is not None
            else lobby_view(self.words, self.join_command, *self.lobby)
        )
        self._text = json.dumps({"type": "view", "view": view}, ensure_ascii=False)
        self._version += 1
        self._changed.set()
        self._changed = trio.Event()


async def play_in_browser(
    policy: BrowserPolicy,
    main: Callable[..., Awaitable[T]],
    *args: object,
    open_page: bool = True,
    when_admitted: bool = False,
) -> T:
    """Serve ``policy``'s page (its address printed, the browser opened on it unless
    ``open_page`` is false, and only once ``policy.admitted`` is set if ``when_admitted``:
    a joiner's code accepted) while ``main(*args)`` plays; afterwards keep it until the
    player leaves it (at most :data:`PAGE_LINGER` s)."""
    async with trio.open_nursery() as nursery:
        await nursery.start(policy.server.serve)
        admitted = policy.admitted if when_admitted else None
        await nursery.start(
            functools.partial(show_page, policy.server, open_page=open_page, admitted=admitted)
        )
        result = await _unless_quit(policy, main, *args)
        if policy.pages:  # the page shows the final sheet until the player leaves it
            print("the game is over: leave the table in the page (or press Ctrl-C)", flush=True)
            with trio.move_on_after(PAGE_LINGER):
                await policy.left.wait()
        nursery.cancel_scope.cancel()
    return result


class LeftTable(Exception):
    """The player left from the page before the game started."""


async def _unless_quit(
    policy: BrowserPolicy, main: Callable[..., Awaitable[T]], *args: object
) -> T:
    """``main(*args)``, cancelled if the player quits from the page first: cancelled, a seat
    still in the lobby tells the host it leaves (:func:`~tarot_p2p.seat.session.join_table`)."""
    done: list[T] = []
    async with trio.open_nursery() as nursery:

        async def play() -> None:
            done.append(await main(*args))
            nursery.cancel_scope.cancel()

        nursery.start_soon(play)
        await policy.quit.wait()
        nursery.cancel_scope.cancel()
    if not done:
        raise LeftTable
    return done[0]
