"""A test's side of the page server: HTTP requests (h11), the key's exchange, WebSockets
(wsproto for what the server sends, raw frames for what a page should not), and a
server with a stand-in table run for the length of a test."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import stat
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h11
import trio
import wsproto
from wsproto.events import (
    AcceptConnection,
    CloseConnection,
    RejectConnection,
    RejectData,
    Request,
    TextMessage,
)

from tarot_p2p.ui.i18n import Words
from tarot_p2p.ui.server import PageServer


class FakeTable:
    """The game side, as the server sees it: what the pages send is kept."""

    def __init__(self) -> None:
        self.words = Words("en")
        self.taken: list[dict[str, Any]] = []
        self.pages = 0

    def hello(self) -> str:
        return json.dumps({"type": "hello"})

    def current(self) -> tuple[int, str]:
        return 1, json.dumps({"type": "view", "view": None})

    async def changed(self, version: int) -> None:
        await trio.sleep_forever()

    def take(self, message: dict[str, Any]) -> None:
        self.taken.append(message)

    def transcript(self) -> bytes:
        return b"TP2P-transcript"

    def connected(self, delta: int) -> None:
        self.pages += delta


@dataclass
class Answer:
    status: int
    headers: dict[bytes, bytes]
    body: bytes = b""


async def http(
    port: int,
    method: str,
    path: str,
    *,
    host: str | None = None,
    origin: str | None = None,
    cookie: str | None = None,
    body: bytes = b"",
) -> Answer:
    """One request on a new connection, and its answer."""
    headers = [("host", host or f"127.0.0.1:{port}"), ("content-length", str(len(body)))]
    if origin is not None:
        headers.append(("origin", origin))
    if cookie is not None:
        headers.append(("cookie", cookie))
    client = h11.Connection(h11.CLIENT)
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        out = client.send(h11.Request(method=method, target=path, headers=headers))
        out += client.send(h11.Data(data=body)) if body else b""
        out += client.send(h11.EndOfMessage())
        await stream.send_all(out)
        answer: Answer | None = None
        with trio.fail_after(10):
            while True:
                event = client.next_event()
                if event is h11.NEED_DATA:
                    client.receive_data(await stream.receive_some())
                elif isinstance(event, h11.Response):
                    answer = Answer(event.status_code, dict(event.headers))
                elif isinstance(event, h11.Data) and answer is not None:
                    answer.body += event.data
                elif isinstance(event, h11.EndOfMessage) and answer is not None:
                    return answer
                else:
                    raise AssertionError(f"unexpected {event!r}")


def page_key(entry: Path) -> str:
    """The one-time key in an entry file."""
    text = entry.read_text()
    return text.split("#k=", 1)[1].split('"', 1)[0]


async def enter(port: int, key: str) -> str | None:
    """The ``Cookie`` header the key gets, as the door page's script asks for it."""
    answer = await http(
        port, "POST", "/enter", origin=f"http://127.0.0.1:{port}", body=key.encode()
    )
    if answer.status != 204:
        return None
    return answer.headers[b"set-cookie"].decode().split(";", 1)[0]


async def proves(port: int, key: str) -> bool:
    """What the tab of a lost program asks before it sends its cookie again: does the
    program at ``port`` know the proof key ``key`` (hex)? (no cookie is sent)"""
    nonce = secrets.token_hex(16)
    try:
        answer = await http(port, "GET", f"/alive?n={nonce}")
    except OSError:
        return False
    expected = hmac.new(bytes.fromhex(key), nonce.encode(), hashlib.sha256).hexdigest()
    return answer.status == 200 and answer.body.decode() == expected


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@dataclass
class Socket:
    """A WebSocket to the page server: frames go out raw, what comes back is parsed."""

    stream: trio.SocketStream
    ws: wsproto.WSConnection
    messages: list[dict[str, Any]] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    closed: int | None = None
    """The code of the server's close frame, once it came."""
    ended: bool = False

    async def send(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def pump(self) -> bool:
        """Read once; False at the connection's end (a reset too: what a page sends
        after the server closed cannot be read)."""
        try:
            data = await self.stream.receive_some()
        except trio.BrokenResourceError:
            data = b""
        if not data:
            self.ended = True
            return False
        self.ws.receive_data(data)
        for event in self.ws.events():
            if isinstance(event, TextMessage):
                self.parts.append(event.data)
                if event.message_finished:
                    self.messages.append(json.loads("".join(self.parts)))
                    self.parts = []
            elif isinstance(event, CloseConnection):
                self.closed = event.code
        return True

    async def until(self, count: int, timeout: float = 10) -> list[dict[str, Any]]:
        """At least ``count`` messages (fewer if the connection ends first)."""
        with trio.fail_after(timeout):
            while len(self.messages) < count and await self.pump():
                pass
        return self.messages

    async def to_the_end(self, timeout: float = 10) -> None:
        """Half-close our side, then read all the server sends until it closes."""
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await self.stream.send_eof()
        with trio.fail_after(timeout):
            while await self.pump():
                pass

    async def aclose(self) -> None:
        await self.stream.aclose()


async def open_socket(
    port: int,
    *,
    cookie: str | None,
    origin: str | None = None,
    host: str | None = None,
    target: str = "/ws",
) -> Socket | int:
    """A WebSocket accepted by the server, or the HTTP status it refused with."""
    headers = [(b"origin", (origin or f"http://127.0.0.1:{port}").encode())]
    if cookie is not None:
        headers.append((b"cookie", cookie.encode()))
    ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(
        ws.send(Request(host=host or f"127.0.0.1:{port}", target=target, extra_headers=headers))
    )
    status = 0
    with trio.fail_after(10):
        while True:
            data = await stream.receive_some()
            if not data:
                await stream.aclose()
                return status
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, AcceptConnection):
                    return Socket(stream, ws)
                if isinstance(event, RejectConnection) and not event.has_body:
                    await stream.aclose()
                    return event.status_code
                if isinstance(event, RejectConnection):
                    status = event.status_code
                elif isinstance(event, RejectData) and event.body_finished:
                    await stream.aclose()
                    return status


def frame(opcode: int, payload: bytes, *, fin: bool = True, mask: bytes = bytes(4)) -> bytes:
    """One client frame as a page would send it (masked), whatever it holds."""
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    key = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
    return head + mask + (int.from_bytes(payload, "big") ^ key).to_bytes(n, "big")


TEXT, BINARY, CLOSE, PING, PONG = 0x1, 0x2, 0x8, 0x9, 0xA


def text(message: str | dict[str, Any]) -> bytes:
    data = message if isinstance(message, str) else json.dumps(message)
    return frame(TEXT, data.encode())


@dataclass
class Served:
    server: PageServer
    table: FakeTable
    folder: Path

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def entry(self) -> Path:
        assert self.server.entry is not None
        return self.server.entry.path

    async def cookie(self) -> str:
        got = await enter(self.port, page_key(self.entry))
        assert got is not None
        return got


@contextlib.asynccontextmanager
async def served(folder: Path, table: Path | None = None) -> AsyncIterator[Served]:
    """A page server for a stand-in table, its entry file in ``folder``."""
    fake = FakeTable()
    server = PageServer(fake)
    server.prepare(folder, table)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        yield Served(server, fake, folder)
        nursery.cancel_scope.cancel()
