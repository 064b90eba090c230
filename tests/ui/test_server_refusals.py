"""Each check of the page's server, at its edge: the request that is one byte, one
connection or one character past a limit is refused, and the one just inside is served.

Written against the survivors of the mutation run of ``ui/server.py`` (docs/mutation.md):
each test here fails when the check it names is weakened or moved by one."""

from __future__ import annotations

import contextlib
import json
import logging
import sys
from pathlib import Path
from typing import Any

import h11
import pytest
import trio
import wsproto
from wsproto.events import AcceptConnection, Request

from tarot_p2p.ui import server as page_server
from tarot_p2p.ui.entry import PageMemory
from tarot_p2p.ui.server import (
    BURST,
    HTML,
    MAX_BODY,
    MAX_DISCARD,
    MAX_HEAD,
    MAX_MESSAGE,
    MAX_STRIKES,
    STATIC,
    PageServer,
)

from .page_client import (
    BINARY,
    CLOSE,
    PING,
    FakeTable,
    Served,
    Socket,
    frame,
    http,
    open_socket,
    page_key,
    served,
    text,
)

CLICK: dict[str, Any] = {"t": "act", "serial": 1, "id": 0}


async def raw(port: int, data: bytes, *, pause: bytes = b"") -> bytes:
    """Send ``data`` (then, a moment later, ``pause``) and read until the server closes."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(data)
        if pause:
            await trio.sleep(0.1)
            await stream.send_all(pause)
        got = b""
        with trio.fail_after(5), contextlib.suppress(trio.BrokenResourceError):
            while chunk := await stream.receive_some():
                got += chunk
        return got


class Kept:
    """A connection kept open between requests, as a browser keeps one."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.client = h11.Connection(h11.CLIENT)

    @classmethod
    async def open(cls, port: int) -> Kept:
        return cls(await trio.open_tcp_stream("127.0.0.1", port))

    async def ask(self, port: int, path: str) -> int:
        """The status of one GET on this connection."""
        if self.client.our_state is h11.DONE:
            self.client.start_next_cycle()
        request = h11.Request(method="GET", target=path, headers=[("host", f"127.0.0.1:{port}")])
        await self.stream.send_all(self.client.send(request) + self.client.send(h11.EndOfMessage()))
        status = 0
        with trio.fail_after(5):
            while True:
                event = self.client.next_event()
                if event is h11.NEED_DATA:
                    self.client.receive_data(await self.stream.receive_some())
                elif isinstance(event, h11.Response):
                    status = event.status_code
                elif isinstance(event, h11.EndOfMessage):
                    return status
                elif not isinstance(event, h11.Data):
                    raise AssertionError(f"unexpected {event!r}")

    async def ended(self) -> bool:
        """True when the server closed this connection."""
        with trio.fail_after(5), contextlib.suppress(trio.BrokenResourceError):
            return await self.stream.receive_some() == b""
        return True


async def taken(s: Served, count: int) -> None:
    with trio.fail_after(10):
        while len(s.table.taken) < count:
            await trio.sleep(0.01)


# ---------------------------------------------------------------------- connections


async def served_once_freed(port: int) -> Kept:
    """A connection the server serves, once it has noticed that a kept one was closed
    (however busy the machine: tried again until then, for 10 s at most)."""
    with trio.fail_after(10):
        while True:
            candidate = await Kept.open(port)
            with contextlib.suppress(trio.BrokenResourceError, h11.RemoteProtocolError):
                if await candidate.ask(port, "/door.js") == 200:
                    return candidate
            await candidate.stream.aclose()
            await trio.sleep(0.02)


async def test_connections_at_once_are_counted_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(page_server, "MAX_CONNECTIONS", 3)
    async with served(tmp_path) as s:
        port = s.port
        kept = [await Kept.open(port) for _ in range(3)]
        for k in kept:  # all three served, and again on the same connection
            assert await k.ask(port, "/door.js") == 200
            assert await k.ask(port, "/door.js") == 200
        newcomer = await Kept.open(port)
        assert await newcomer.ended()
        # One leaves: one place, not more.
        await kept.pop().stream.aclose()
        kept.append(await served_once_freed(port))
        newcomer = await Kept.open(port)
        assert await newcomer.ended()
        for k in kept:
            await k.stream.aclose()


async def test_a_refusal_ends_its_connection_cleanly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="tarot_p2p.ui.server")
    async with served(tmp_path) as s:
        k = await Kept.open(s.port)
        assert await k.ask(s.port, "/nothing") == 403  # (no cookie)
        assert await k.ended()
        await trio.sleep(0.05)
    assert "a connection failed" not in caplog.text


# ---------------------------------------------------------------------- sizes


async def test_a_head_over_its_limit_is_refused_before_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(page_server, "REQUEST_TIME", 1.0)
    async with served(tmp_path) as s:
        here = f"127.0.0.1:{s.port}"
        head = f"GET / HTTP/1.1\r\nHost: {here}\r\nX: ".encode() + b"y" * (MAX_HEAD + 100)
        assert (await raw(s.port, head)).startswith(b"HTTP/1.1 431")  # no end of head yet


async def test_a_key_body_of_the_limit_is_read_and_one_more_byte_is_not(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        here = f"127.0.0.1:{s.port}"

        def post(body: bytes, length: int) -> bytes:
            return (
                f"POST /enter HTTP/1.1\r\nHost: {here}\r\nOrigin: http://{here}\r\n"
                f"Content-Length: {length}\r\nConnection: close\r\n\r\n"
            ).encode() + body

        key = page_key(s.entry).encode()
        padded = key + b" " * (MAX_BODY - len(key))
        assert (await raw(s.port, post(padded, MAX_BODY))).startswith(b"HTTP/1.1 204")
        # Over the limit in two pieces, each under it: counted together.
        first, second = b"k" * 200, b"k" * (MAX_BODY + 1 - 200)
        got = await raw(s.port, post(first, MAX_BODY + 1), pause=second)
        assert got.startswith(b"HTTP/1.1 413")


async def test_a_message_of_the_limit_is_taken_and_a_split_one_too(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        sock = await open_socket(s.port, cookie=await s.cookie())
        assert isinstance(sock, Socket)
        await sock.until(3)
        pad = '{"t": "act", "pad": ""}'
        click = {"t": "act", "pad": "x" * (MAX_MESSAGE - len(pad))}
        await sock.send(text(click))
        await taken(s, 1)
        assert s.table.taken == [click]
        # One message in three frames is one click.
        data = text(CLICK)[6:]  # the unmasked payload (mask of zeros)
        parts = [data[:5], data[5:12], data[12:]]
        await sock.send(frame(0x1, parts[0], fin=False))
        await sock.send(frame(0x0, parts[1], fin=False))
        await sock.send(frame(0x0, parts[2]))
        await taken(s, 2)
        assert s.table.taken[1] == CLICK
        assert not [m for m in sock.messages if m.get("type") == "error"]
        await sock.aclose()


# ---------------------------------------------------------------------- what is asked


async def test_the_key_is_exchanged_by_post_only(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        origin = f"http://127.0.0.1:{s.port}"
        key = page_key(s.entry).encode()
        got = await http(s.port, "GET", "/enter", origin=origin, body=key)
        assert got.status == 403 and b"set-cookie" not in got.headers  # (no cookie)
        posted = await http(s.port, "POST", "/enter", origin=origin, body=key)
        assert posted.status == 204  # the key was not spent by the GET


async def test_a_key_that_is_not_text_gets_a_plain_refusal(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        here = f"127.0.0.1:{s.port}"
        body = b"\xff\xfe" * 8
        post = (
            f"POST /enter HTTP/1.1\r\nHost: {here}\r\nOrigin: http://{here}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        assert (await raw(s.port, post)).startswith(b"HTTP/1.1 403")


async def test_the_alive_nonce_is_16_to_64_letters_after_the_first_question_mark(
    tmp_path: Path,
) -> None:
    async with served(tmp_path) as s:
        for nonce, status in (("a" * 15, 404), ("a" * 16, 200), ("a" * 64, 200), ("a" * 65, 404)):
            assert (await http(s.port, "GET", f"/alive?n={nonce}")).status == status, nonce
        assert (await http(s.port, "GET", f"/alive?x?n={'a' * 20}")).status == 404


async def test_the_cookie_is_found_among_others(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        cookie = await s.cookie()
        got = await http(s.port, "GET", "/", cookie=f"a=b; {cookie}; c=d")
        assert got.status == 200 and got.headers[b"content-type"].startswith(b"text/html")


# ---------------------------------------------------------------------- where it listens


@pytest.mark.skipif(sys.platform != "linux", reason="127.0.0.2 is the loopback only on Linux")
async def test_only_the_loopback_address_is_listened_on(tmp_path: Path) -> None:
    async def refused(port: int) -> bool:
        try:
            stream = await trio.open_tcp_stream("127.0.0.2", port)
        except OSError:
            return True
        await stream.aclose()
        return False

    table = tmp_path / "table"
    table.mkdir()
    async with served(tmp_path / "page") as first:
        assert await refused(first.port)
        first.server.remember(table)
    assert PageMemory.load(table) is not None
    async with served(tmp_path / "page", table) as again:  # the port kept, taken up again
        assert again.server.came_back and await refused(again.port)


async def test_without_a_folder_the_entry_file_goes_into_a_private_one_removed_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    server = PageServer(FakeTable())
    async with trio.open_nursery() as nursery:
        address = await nursery.start(server.serve)
        assert server.entry is not None and address == server.entry.address
        folder = server.entry.path.parent
        assert folder.is_dir() and folder.name.startswith("tarot-p2p-page-")
        nursery.cancel_scope.cancel()
    assert not folder.exists() and not list(tmp_path.iterdir())


# ---------------------------------------------------------------------- the page socket


async def test_a_ping_gets_its_pong_and_nothing_else(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        sock = await open_socket(s.port, cookie=await s.cookie())
        assert isinstance(sock, Socket)
        await sock.until(3)
        for _ in range(3):
            await sock.send(frame(PING, b"hi"))
        await sock.send(text(CLICK))
        await taken(s, 1)
        with trio.move_on_after(0.3):  # what the server answered meanwhile
            while await sock.pump():
                pass
        assert not [m for m in sock.messages if m.get("type") == "error"]
        assert sock.closed is None and not sock.ended
        await sock.aclose()


async def test_a_click_sent_with_the_handshake_is_taken(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        cookie = await s.cookie()
        here = f"127.0.0.1:{s.port}"
        ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
        stream = await trio.open_tcp_stream("127.0.0.1", s.port)
        headers = [(b"origin", f"http://{here}".encode()), (b"cookie", cookie.encode())]
        hello = ws.send(Request(host=here, target="/ws", extra_headers=headers))
        await stream.send_all(hello + text(CLICK))
        with trio.fail_after(5):
            accepted = False
            while not accepted:
                ws.receive_data(await stream.receive_some())
                accepted = any(isinstance(e, AcceptConnection) for e in ws.events())
        await taken(s, 1)
        assert s.table.taken == [CLICK]
        await stream.aclose()


async def page(s: Served) -> Socket:
    sock = await open_socket(s.port, cookie=await s.cookie())
    assert isinstance(sock, Socket)
    await sock.until(3)  # the proof key, the hello and the view
    return sock


def errors(sock: Socket) -> int:
    return len([m for m in sock.messages if m.get("type") == "error"])


async def test_a_ping_flood_is_refused_then_closed(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        sock = await page(s)
        await sock.send(frame(PING, b"hi") * (BURST + MAX_STRIKES))
        await sock.to_the_end()
        assert errors(sock) == MAX_STRIKES and sock.closed == 1008


async def test_nothing_is_taken_after_the_server_closed(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        sock = await page(s)
        await sock.send(text("not json") * MAX_STRIKES + text(CLICK))
        await sock.until(1000)  # the server ends the connection without waiting for ours
        assert sock.ended and sock.closed == 1008 and not s.table.taken
        sock = await page(s)
        await sock.send(frame(BINARY, b"x" * (MAX_DISCARD + 10)) + text(CLICK))
        await sock.until(1000)
        assert sock.ended and sock.closed == 1009 and not s.table.taken


async def test_a_message_of_the_discard_limit_is_refused_not_closed(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        sock = await page(s)
        await sock.send(frame(BINARY, b"x" * MAX_DISCARD))
        await sock.send(text(CLICK))
        await taken(s, 1)
        await sock.until(4)
        assert errors(sock) == 1 and sock.closed is None
        await sock.aclose()


async def test_a_close_is_answered_and_a_broken_frame_closed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="tarot_p2p.ui.server")
    async with served(tmp_path) as s:
        sock = await page(s)
        await sock.send(frame(CLOSE, (1000).to_bytes(2, "big")))
        await sock.to_the_end()
        assert sock.closed == 1000
        sock = await page(s)
        await sock.send(frame(0x3, b"reserved opcode"))
        await sock.to_the_end()
        assert sock.closed == 1002
        await trio.sleep(0.05)
    assert "a connection failed" not in caplog.text


async def test_the_pages_open_are_counted(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        assert s.server.pages == 0
        first, second = await page(s), await page(s)
        assert s.server.pages == 2 and s.table.pages == 2
        for left, sock in ((1, first), (0, second)):
            await sock.to_the_end()
            with trio.fail_after(5):
                while s.server.pages != left:
                    await trio.sleep(0.01)
            assert s.table.pages == left


class Versions(FakeTable):
    """A table whose view changes when the test says (as the browser policy's does)."""

    def __init__(self) -> None:
        super().__init__()
        self.version = 1
        self.event = trio.Event()

    def current(self) -> tuple[int, str]:
        return self.version, json.dumps({"type": "view", "view": self.version})

    async def changed(self, version: int) -> None:
        while self.version == version:
            await self.event.wait()

    def bump(self) -> None:
        self.version += 1
        self.event.set()
        self.event = trio.Event()


async def test_each_view_is_sent_once(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        table = Versions()
        s.server.table = table
        sock = await page(s)

        async def views() -> list[Any]:
            with trio.move_on_after(0.3):
                while await sock.pump():
                    pass
            return [m["view"] for m in sock.messages if m.get("type") == "view"]

        assert await views() == [1]
        table.bump()
        assert await views() == [1, 2]
        await sock.aclose()


async def test_each_file_has_its_type(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        door = await http(s.port, "GET", "/")
        assert door.status == 403 and door.headers[b"content-type"] == HTML.encode()
        assert b'<html lang="en">' in door.body
        cookie = await s.cookie()
        for path, kind in (
            ("/", HTML),
            ("/table.js", STATIC["table.js"]),
            ("/table.css", STATIC["table.css"]),
            ("/door.js", STATIC["table.js"]),
        ):
            got = await http(s.port, "GET", path, cookie=cookie)
            assert got.status == 200 and got.headers[b"content-type"] == kind.encode(), path
        got = await http(s.port, "GET", "/transcript.tp2p", cookie=cookie)
        assert got.headers[b"content-type"] == b"application/octet-stream"
        disposition = b'attachment; filename="transcript.tp2p"'
        assert got.headers[b"content-disposition"] == disposition
        assert got.body == b"TP2P-transcript"
