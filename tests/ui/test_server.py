"""The page's server lets in the player's own page only: token, Host and Origin."""

from __future__ import annotations

import json
from typing import Any

import trio

from tarot_p2p.ui.server import PageServer


class FakeTable:
    def __init__(self) -> None:
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


async def request(port: int, head: str) -> bytes:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(head.encode())
        data = b""
        with trio.move_on_after(5):
            while b"\r\n\r\n" not in data or not data.startswith(b"HTTP/1.1 101"):
                chunk = await stream.receive_some()
                if not chunk:
                    break
                data += chunk
                if data.startswith(b"HTTP/1.1 101") and b"\r\n\r\n" in data:
                    break
        return data


def get(path: str, host: str) -> str:
    return f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"


def upgrade(path: str, host: str, origin: str) -> str:
    return (
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: {origin}\r\n\r\n"
    )


async def test_only_the_token_host_and_origin_get_in() -> None:
    table = FakeTable()
    server = PageServer(table, token="s3cret-token")
    async with trio.open_nursery() as nursery:
        url = await nursery.start(server.serve)
        port = server.port
        here = f"127.0.0.1:{port}"
        assert url == f"http://{here}/s3cret-token/"

        page = await request(port, get("/s3cret-token/", here))
        assert page.startswith(b"HTTP/1.1 200")
        assert b"content-security-policy" in page.lower() and b"table.js" in page
        assert (await request(port, get("/s3cret-token/table.js", here))).startswith(
            b"HTTP/1.1 200"
        )
        download = await request(port, get("/s3cret-token/transcript.tp2p", here))
        assert download.startswith(b"HTTP/1.1 200") and download.endswith(b"TP2P-transcript")

        for path, host in (
            ("/wrong-token/", here),  # no token, no page
            ("/", here),
            ("/s3cret-token/../etc/passwd", here),
            ("/s3cret-token/", f"evil.example:{port}"),  # DNS rebinding
            ("/s3cret-token/", "127.0.0.1:1"),
        ):
            answer = await request(port, get(path, host))
            assert answer.startswith(b"HTTP/1.1 404"), (path, host, answer[:40])

        good = await request(port, upgrade("/s3cret-token/ws", here, f"http://{here}"))
        assert good.startswith(b"HTTP/1.1 101")
        for origin in ("http://evil.example", "null", f"https://{here}"):
            bad = await request(port, upgrade("/s3cret-token/ws", here, origin))
            assert not bad.startswith(b"HTTP/1.1 101"), origin
        bad = await request(port, upgrade("/other/ws", here, f"http://{here}"))
        assert not bad.startswith(b"HTTP/1.1 101")
        nursery.cancel_scope.cancel()
