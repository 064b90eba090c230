"""The host's page while the table fills up, in a real browser: the list of the players
seated follows those who come and those who leave before the start."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import trio

from tarot_p2p.ui.policy import BrowserPolicy


class LobbyPage:
    """A policy's page served from its own trio thread, with no game behind it yet."""

    def __init__(self) -> None:
        self.policy = BrowserPolicy("en")
        self.url = ""
        self._token: trio.lowlevel.TrioToken | None = None
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the page server did not start")

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        async with trio.open_nursery() as nursery:
            self.url = await nursery.start(self.policy.server.serve)
            self._ready.set()
            while not self._stop.is_set():
                await trio.sleep(0.05)
            nursery.cancel_scope.cancel()

    def seated(self, names: list[str], missing: int) -> None:
        trio.from_thread.run_sync(self.policy.seated, names, missing, trio_token=self._token)

    def invite(self, command: str) -> None:
        trio.from_thread.run_sync(self.policy.invite, command, trio_token=self._token)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(30)


@pytest.fixture
def lobby(chromium: Any) -> Iterator[tuple[LobbyPage, Any]]:
    served = LobbyPage()
    page = chromium.new_page(viewport={"width": 1360, "height": 860})
    try:
        yield served, page
    finally:
        page.close()
        served.close()


def test_the_lobby_list_follows_who_comes_and_goes(lobby: tuple[LobbyPage, Any]) -> None:
    served, page = lobby
    served.invite("tarot-p2p join tp2p1-abc")
    served.seated(["Emma"], 3)
    page.goto(served.url)
    page.wait_for_function("() => document.querySelector('#seated').textContent.includes('Emma')")
    assert not page.locator("#lobby").is_hidden()
    served.seated(["Emma", "Nico", "Pat"], 1)
    page.wait_for_function("() => document.querySelector('#seated').textContent.includes('Pat')")
    assert page.locator("#status").inner_text() == "Waiting for 1 more player…"
    served.seated(["Emma", "Pat"], 2)  # Nico left before the table started
    page.wait_for_function("() => !document.querySelector('#seated').textContent.includes('Nico')")
    assert page.locator("#seated").inner_text() == "At the table: Emma, Pat"
    assert page.locator("#status").inner_text() == "Waiting for 2 more players…"
    assert page.locator("#join-command").inner_text() == "tarot-p2p join tp2p1-abc"
