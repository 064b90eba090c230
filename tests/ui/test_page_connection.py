"""The page follows its program, in a real browser: a tab left open comes back by itself
when the same command is run again, says where to go when the program moved, and a
player who leaves the table is told so and what to do next."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from tarot_p2p.ui.entry import PageMemory
from tarot_p2p.ui.policy import BrowserPolicy

from .conftest import enter
from .page_client import page_key

WAITING = "Waiting for the other players…"
LOST = "This page lost its program and waits for it."
MOVED = "Your program was started again and its page has a new key"
LEFT = "You left the table."


class Program:
    """A program's page (no game behind it) served from its own trio thread, as a
    ``host`` or ``join`` of the table whose folder is ``table`` serves it; ``stop()`` is
    the program's end (or its kill)."""

    def __init__(self, folder: Path, table: Path) -> None:
        self.policy = BrowserPolicy("en")
        self.policy.server.prepare(folder, table)
        self.table = table
        self.address = ""
        self._token: trio.lowlevel.TrioToken | None = None
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the page server did not start")

    @property
    def port(self) -> int:
        return self.policy.server.port

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        async with trio.open_nursery() as nursery:
            self.address = await nursery.start(self.policy.server.serve)
            self.policy.server.remember(self.table)
            self._ready.set()
            while not (self._stop.is_set() or self.policy.left.is_set()):
                await trio.sleep(0.02)
            nursery.cancel_scope.cancel()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    yield context.new_page()
    context.close()


def status_starts(page: Any, text: str) -> None:
    page.wait_for_function(
        "(text) => document.querySelector('#status').textContent.startsWith(text)",
        arg=text,
        timeout=20000,
    )


def test_an_open_tab_comes_back_when_the_program_is_run_again(page: Any, tmp_path: Path) -> None:
    folder, table = tmp_path / "page", tmp_path / "table"
    table.mkdir()
    first = Program(folder, table)
    enter(page, first.address)
    status_starts(page, WAITING)
    address = page.url
    assert "#" not in address, "the address the browser lands on holds no key"
    enter(page, first.address)  # the file opened again: its fresh key lets it in again
    assert page.url == address
    pasted = page.context.new_page()  # a keyed address pasted in a tab of this browser:
    pasted.goto(address + "#k=pasted")
    pasted.wait_for_selector("#status", state="attached")
    pasted.wait_for_function("() => location.hash === ''")  # the key taken out of sight
    pasted.close()
    first.stop()  # killed, or stopped
    status_starts(page, LOST)

    again = Program(folder, table)
    try:
        assert again.port == first.port
        status_starts(page, WAITING)  # reloaded by itself, with its cookie
        assert page.url == address
        assert again.policy.pages == 1
    finally:
        again.stop()


def test_a_tab_the_program_no_longer_knows_says_where_to_go(page: Any, tmp_path: Path) -> None:
    folder, table = tmp_path / "page", tmp_path / "table"
    table.mkdir()
    first = Program(folder, table)
    enter(page, first.address)
    status_starts(page, WAITING)
    first.stop()
    status_starts(page, LOST)
    # Its port is served again, under another session (the program moved, and another
    # one took the port): the page is told where to go instead of retrying for ever.
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    PageMemory(first.port, "another-session-that-this-tab-never-saw").save(elsewhere)
    other = Program(folder, elsewhere)
    try:
        assert other.port == first.port
        status_starts(page, MOVED)
        assert other.policy.pages == 0
    finally:
        other.stop()


class Stranger(http.server.ThreadingHTTPServer):
    """Another user's program on the port of a program that is down: it answers every
    request, and keeps the cookies it was sent."""

    def __init__(self, port: int) -> None:
        self.seen: list[tuple[str, str | None]] = []
        seen = self.seen

        class Answer(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append((self.path, self.headers.get("Cookie")))
                body = b"0" * 64
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_HEAD = do_GET

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", port), Answer)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.shutdown()
        self.server_close()


def test_a_stranger_on_the_port_of_a_stopped_program_gets_no_cookie(
    page: Any, tmp_path: Path
) -> None:
    table = tmp_path / "table"
    table.mkdir()
    program = Program(tmp_path / "page", table)
    enter(page, program.address)
    status_starts(page, WAITING)
    page.evaluate("window.sameDocument = true")
    program.stop()
    stranger = Stranger(program.port)
    try:
        status_starts(page, MOVED)  # asked for a proof, and got none
        page.wait_for_timeout(2500)  # and asked again
        assert len(stranger.seen) >= 2 and all(
            path.startswith("/alive?n=") for path, _ in stranger.seen
        )
        assert all(cookie is None for _, cookie in stranger.seen)
        assert page.evaluate("window.sameDocument") is True  # not reloaded
    finally:
        stranger.close()


def test_leaving_the_table_says_so_and_what_next(page: Any, tmp_path: Path) -> None:
    table = tmp_path / "table"
    table.mkdir()
    program = Program(tmp_path / "page", table)
    try:
        enter(page, program.address)
        status_starts(page, WAITING)
        page.evaluate("document.querySelector('#leave').click()")  # the game-over dialog's
        status_starts(page, LEFT)
        program._thread.join(10)  # the program ends, and the page's socket with it
        assert not program._thread.is_alive()
        page.wait_for_timeout(1500)
        text = page.locator("#status").inner_text()
        assert text.startswith(LEFT) and "tarot-p2p host" in text and LOST not in text
    finally:
        program.stop()


def test_a_used_key_lets_nobody_in_and_says_what_to_open(page: Any, tmp_path: Path) -> None:
    table = tmp_path / "table"
    table.mkdir()
    program = Program(tmp_path / "page", table)
    try:
        keyed = f"http://127.0.0.1:{program.port}/#k=" + page_key(Path(program.address[7:]))
        enter(page, program.address)  # the file's key, used by the player's browser
        status_starts(page, WAITING)
        stranger = page.context.browser.new_context()  # another browser, the key seen
        door = stranger.new_page()
        door.goto(keyed)
        door.wait_for_selector("#door-used", state="visible")
        assert "already used" in door.inner_text("body")
        assert door.evaluate("location.hash") == "" and door.locator("#status").count() == 0
        stranger.close()
        assert program.policy.pages == 1
    finally:
        program.stop()
