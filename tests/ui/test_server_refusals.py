"""The page's server at the edges of what it serves, over a real loopback socket.

A path that is the token alone, or a known file with more after it, is not found (never a
crash, never the file); only GET and HEAD are served, the transcript as a download. A page
socket that is not let in is forbidden; one that is gets the hello, then each new view
once, and counts as a page open until it goes. A page's message is taken when it is a JSON
object within 4 KiB, and a longer one closes the socket (1009) before the table sees any
of it; text that is not a JSON object, and a binary message, are dropped and the socket
stays.
"""

from __future__ import annotations

import json
import os
import struct
from importlib import resources

import trio

from tarot_p2p.ui.server import MAX_MESSAGE, PageServer
from tests.ui.test_server import FakeTable, get, request, upgrade

TOKEN = "s3cret-token"


def frame(text: bytes, opcode: int = 0x1) -> bytes:
    """One masked frame (text unless ``opcode`` says otherwise), as a browser sends it
    (RFC 6455 §5.2)."""
    mask = os.urandom(4)
    size = len(text)
    first = 0x80 | opcode
    if size < 126:
        head = struct.pack("!BB", first, 0x80 | size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", first, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", first, 0x80 | 127, size)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(text))


async def page_socket(port: int) -> trio.SocketStream:
    here = f"127.0.0.1:{port}"
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(upgrade(f"/{TOKEN}/ws", here, f"http://{here}").encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += await stream.receive_some()
    assert data.startswith(b"HTTP/1.1 101")
    return stream


async def close_code(stream: trio.SocketStream) -> int:
    """The code of the close frame the server sends (text frames before it are skipped)."""
    data = b""
    while True:
        chunk = await stream.receive_some()
        assert chunk, "closed without a close frame"
        data += chunk
        while len(data) >= 2:
            opcode, size = data[0] & 0x0F, data[1] & 0x7F
            start = 2 + (2 if size == 126 else 8 if size == 127 else 0)
            if size >= 126:
                size = int.from_bytes(data[2:start], "big")
            if len(data) < start + size:
                break
            if opcode == 0x8:
                return int.from_bytes(data[start : start + 2], "big")
            data = data[start + size :]


async def text_frame(stream: trio.SocketStream) -> str:
    """The next text frame the server sends (unmasked, as a server sends; small ones)."""
    head = await stream.receive_some(2)
    while len(head) < 2:
        head += await stream.receive_some(2 - len(head))
    assert head[0] == 0x81 and head[1] < 126, head
    data = b""
    while len(data) < head[1]:
        data += await stream.receive_some(head[1] - len(data))
    return data.decode()


async def test_the_token_alone_or_a_file_with_more_after_it_is_not_found() -> None:
    server = PageServer(FakeTable(), token=TOKEN)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        here = f"127.0.0.1:{server.port}"
        for path in (f"/{TOKEN}", f"/{TOKEN}/table.js/more", f"/{TOKEN}/x/table.js"):
            answer = await request(server.port, get(path, here))
            assert answer.startswith(b"HTTP/1.1 404"), (path, answer[:40])
        nursery.cancel_scope.cancel()


async def test_only_get_and_head_are_served_and_a_refused_page_socket_is_forbidden() -> None:
    server = PageServer(FakeTable(), token=TOKEN)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        here = f"127.0.0.1:{server.port}"
        script = await request(server.port, get(f"/{TOKEN}/table.js", here))
        asset = resources.files("tarot_p2p.ui").joinpath("static", "table.js").read_bytes()
        assert script.startswith(b"HTTP/1.1 200") and script.endswith(asset)
        download = (await request(server.port, get(f"/{TOKEN}/transcript.tp2p", here))).lower()
        assert b"content-type: application/octet-stream" in download
        assert b'content-disposition: attachment; filename="transcript.tp2p"' in download
        head = await request(server.port, get(f"/{TOKEN}/table.js", here).replace("GET", "HEAD"))
        assert head.startswith(b"HTTP/1.1 200")
        for method in ("POST", "PUT", "DELETE"):
            answer = await request(
                server.port, get(f"/{TOKEN}/table.js", here).replace("GET", method)
            )
            assert answer.startswith(b"HTTP/1.1 404") and answer.endswith(b"Not found.\n"), method
        refused = await request(server.port, upgrade("/other/ws", here, f"http://{here}"))
        assert refused.startswith(b"HTTP/1.1 403"), refused[:40]
        nursery.cancel_scope.cancel()


async def test_a_page_message_is_taken_within_its_size_and_refused_beyond() -> None:
    table = FakeTable()
    server = PageServer(table, token=TOKEN)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        with trio.fail_after(10):
            stream = await page_socket(server.port)
            first = [await text_frame(stream) for _ in range(2)]
            assert first == [FakeTable().hello(), FakeTable().current()[1]]  # hello, then the view
            assert table.pages == 1
            for junk in (b"not json", b"[1, 2]"):
                await stream.send_all(frame(junk))
            await stream.send_all(frame(b'{"binary": true}', opcode=0x2))  # not text: dropped
            largest = json.dumps({"play": "x" * (MAX_MESSAGE - 20)}).encode()
            assert len(largest) <= MAX_MESSAGE
            await stream.send_all(frame(largest))
            while not table.taken:
                await trio.sleep(0.01)
            assert table.taken == [json.loads(largest)]
            await stream.send_all(frame(json.dumps({"play": "y" * MAX_MESSAGE}).encode()))
            assert await close_code(stream) == 1009
            assert len(table.taken) == 1
            await stream.aclose()
            while table.pages:  # the server saw the socket go and counted it
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()


class LiveTable(FakeTable):
    """A table whose view changes when the test says so."""

    def __init__(self) -> None:
        super().__init__()
        self.version = 1
        self.bumped = trio.Event()

    def current(self) -> tuple[int, str]:
        return self.version, json.dumps({"type": "view", "view": self.version})

    async def changed(self, version: int) -> None:
        while self.version == version:
            await self.bumped.wait()
            self.bumped = trio.Event()

    def bump(self) -> None:
        self.version += 1
        self.bumped.set()


async def test_each_new_view_is_pushed_once_and_a_closed_page_is_no_longer_counted() -> None:
    table = LiveTable()
    server = PageServer(table, token=TOKEN)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        with trio.fail_after(10):
            stream = await page_socket(server.port)
            assert [await text_frame(stream) for _ in range(2)] == [
                table.hello(),
                table.current()[1],
            ]
            table.bump()
            assert await text_frame(stream) == table.current()[1]  # view 2, not view 1 again
            assert table.pages == 1
            await stream.send_all(struct.pack("!BB", 0x88, 0x80) + os.urandom(4))  # close
            while table.pages:
                await trio.sleep(0.01)
            assert table.pages == 0
        nursery.cancel_scope.cancel()
