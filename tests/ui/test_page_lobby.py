"""The page while the table fills up, in a real browser: the host's list of the players
seated follows those who come and those who leave before the start; a joiner may leave
from the page, and the host is told."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli.errors import leaf
from tarot_p2p.meet.lobby import JOIN, LEAVE, read_lobby_request
from tarot_p2p.seat.session import join_table
from tarot_p2p.ui.policy import BrowserPolicy, LeftTable, play_in_browser

from .conftest import enter


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
    enter(page, served.url)
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


def test_a_joiner_may_leave_from_the_page_before_the_start(
    lobby: tuple[LobbyPage, Any],
) -> None:
    served, page = lobby
    enter(page, served.url)  # a joiner's page: no table yet
    page.wait_for_function("() => !document.querySelector('#quit').hidden")
    assert page.locator("#quit").inner_text() == "Leave"
    page.click("#quit")
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('You left the table')"
    )
    assert page.locator("#quit").is_hidden()
    deadline = time.monotonic() + 10
    while not served.policy.quit.is_set() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert served.policy.quit.is_set()


class WaitingLink:
    """A joiner's link to a hub where the host never answers: what it sends is kept."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    async def send(self, message: bytes) -> None:
        self.sent.append(message)

    async def receive(self) -> bytes:
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        return None


async def test_leaving_from_the_page_tells_the_host_and_ends_the_program() -> None:
    policy = BrowserPolicy("en")
    link = WaitingLink()
    key = Ed25519PrivateKey.generate()
    table_id = bytes(32)

    async def leave_once_asked() -> None:
        while not link.sent:
            await trio.sleep(0.01)
        policy.take({"t": "quit"})

    with pytest.raises(BaseExceptionGroup) as stopped:  # trio's nurseries wrap it
        async with trio.open_nursery() as nursery:
            nursery.start_soon(leave_once_asked)
            await play_in_browser(
                policy, join_table, link, key, "Nico", table_id, bytes(16), open_page=False
            )
    assert leaf(stopped.value, (LeftTable,)) is not None, stopped.value
    requests = [read_lobby_request(wire, table_id, bytes(16)) for wire in link.sent]
    assert requests[0].kind == JOIN and requests[-1].kind == LEAVE
    assert requests[-1].identity.public_bytes_raw() == key.public_key().public_bytes_raw()
