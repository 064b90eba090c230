"""The page's server outlives whatever a connection sends: frames of any size, type and
content, in any order, garbage instead of HTTP, too much or too slowly. A page that
misbehaves is told so, then closed; the server goes on and a well-behaved page plays."""

from __future__ import annotations

import contextlib
import json
import logging
from pathlib import Path
from typing import Any

import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tarot_p2p.ui import server as page_server
from tarot_p2p.ui.server import BURST, MAX_DISCARD, MAX_MESSAGE, MAX_STRIKES

from .page_client import (
    BINARY,
    CLOSE,
    PING,
    PONG,
    TEXT,
    Served,
    Socket,
    frame,
    open_socket,
    served,
    text,
)

CLICK: dict[str, Any] = {"t": "act", "serial": 1, "id": 0}
REFUSED = "The program ignored a message from this page (too long, too fast, or not understood)."


def errors(sock: Socket) -> list[dict[str, Any]]:
    return [m for m in sock.messages if m.get("type") == "error"]


async def page(s: Served) -> Socket:
    sock = await open_socket(s.port, cookie=await s.cookie())
    assert isinstance(sock, Socket)
    await sock.until(3)  # the proof key, the hello and the view
    return sock


async def plays(s: Served) -> None:
    """A well-behaved page gets in and its click reaches the game."""
    sock = await page(s)
    before = len(s.table.taken)
    await sock.send(text(CLICK))
    with trio.fail_after(10):
        while len(s.table.taken) == before:
            await trio.sleep(0.01)
    assert s.table.taken[-1] == CLICK
    await sock.to_the_end()


async def test_the_message_that_stopped_the_program(tmp_path: Path) -> None:
    # A binary message over the limit, then a text one: hypercorn raised a TypeError
    # that stopped the whole program. Now each is refused to that page alone.
    async with served(tmp_path) as s:
        sock = await page(s)
        await sock.send(frame(BINARY, b"x" * (MAX_MESSAGE + 1000)))
        await trio.sleep(0.1)
        await sock.send(text("hello"))
        await sock.until(5)
        assert errors(sock) == [{"type": "error", "text": REFUSED}] * 2
        await sock.send(text(CLICK))  # the page goes on
        with trio.fail_after(10):
            while not s.table.taken:
                await trio.sleep(0.01)
        assert s.table.taken == [CLICK] and sock.closed is None
        await plays(s)


@pytest.mark.parametrize(
    "bad",
    [
        text({"t": "act", "pad": "x" * MAX_MESSAGE}),  # longer than a click can be
        frame(TEXT, b'{"t": "act"}', fin=False) + frame(0x0, b" " * MAX_MESSAGE),  # the same
        frame(BINARY, b"{}"),
        text("not json"),
        text("[1, 2]"),
        text('"a string"'),
        text("[" * 2000 + "]" * 2000),  # deeper than the JSON parser goes
        text("1" * 4300),  # more digits than Python turns into an int
        frame(TEXT, b"x" * 10, fin=False) + frame(0x0, b"y" * MAX_MESSAGE),  # in two pieces
    ],
)
async def test_a_message_the_game_cannot_take_is_refused_to_that_page(
    tmp_path: Path, bad: bytes
) -> None:
    async with served(tmp_path) as s:
        sock = await page(s)
        await sock.send(bad)
        await sock.until(4)
        assert errors(sock) == [{"type": "error", "text": REFUSED}]
        assert s.table.taken == [] and sock.closed is None
        await sock.send(text(CLICK))
        with trio.fail_after(10):
            while not s.table.taken:
                await trio.sleep(0.01)
        assert s.table.taken == [CLICK]


async def test_a_page_that_keeps_misbehaving_is_closed_alone(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        other = await page(s)
        sock = await page(s)
        for _ in range(MAX_STRIKES + 3):
            await sock.send(text("nonsense"))
        await sock.to_the_end()
        assert sock.closed == 1008 and len(errors(sock)) == MAX_STRIKES
        await other.send(text(CLICK))  # the other page is not concerned
        with trio.fail_after(10):
            while not s.table.taken:
                await trio.sleep(0.01)
        assert s.table.taken == [CLICK]
        await plays(s)


async def test_a_flood_of_clicks_is_cut(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        sock = await page(s)
        await sock.send(text(CLICK) * 200)
        await sock.to_the_end()
        assert sock.closed == 1008
        assert BURST <= len(s.table.taken) <= BURST + 2  # the burst, and what refilled meanwhile
        await plays(s)


async def test_a_message_without_end_closes_its_connection(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        sock = await page(s)
        # One frame that announces 2**40 bytes: the server counts, holds nothing, and stops.
        await sock.send(bytes([0x80 | BINARY, 0x80 | 127]) + (2**40).to_bytes(8, "big") + bytes(4))
        for _ in range(MAX_DISCARD // 4096):
            await sock.send(bytes(4096))
        await sock.send(b"x")
        await sock.to_the_end()
        assert sock.closed == 1009
        await plays(s)


async def test_a_fault_on_the_game_side_ends_one_connection(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with served(tmp_path) as s:
        sock = await page(s)

        def broken(message: dict[str, Any]) -> None:
            raise RuntimeError("a bug")

        s.table.take = broken  # type: ignore[method-assign]
        with caplog.at_level(logging.WARNING, "tarot_p2p.ui.server"):
            await sock.send(text(CLICK))
            await sock.to_the_end()
        assert "page: a connection failed" in caplog.text
        del s.table.take
        await plays(s)


async def test_http_garbage_and_greed_end_their_connection_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(page_server, "REQUEST_TIME", 0.3)
    monkeypatch.setattr(page_server, "MAX_CONNECTIONS", 4)
    async with served(tmp_path) as s:
        port = s.port
        here = f"127.0.0.1:{port}"

        async def answer(raw: bytes) -> bytes:
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            async with stream:
                await stream.send_all(raw)
                got = b""
                with trio.fail_after(5), contextlib.suppress(trio.BrokenResourceError):
                    while chunk := await stream.receive_some():  # (reset when closed unread)
                        got += chunk
                return got

        assert (await answer(b"\x16\x03\x01\x02\x00garbage\r\n\r\n")).startswith(b"HTTP/1.1 400")
        too_long = await answer(b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X: " + b"y" * 20000)
        assert too_long == b"" or too_long.startswith(b"HTTP/1.1 431")
        posted = await answer(
            f"POST /enter HTTP/1.1\r\nHost: {here}\r\nContent-Length: 100000\r\n\r\n".encode()
            + b"k" * 100000
        )
        assert posted.startswith(b"HTTP/1.1 413")
        cookie = await s.cookie()
        bad_handshake = await answer(
            f"GET /ws HTTP/1.1\r\nHost: {here}\r\nOrigin: http://{here}\r\nCookie: {cookie}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 7\r\n\r\n".encode()
        )
        assert bad_handshake.startswith(b"HTTP/1.1 400")

        # Silent connections are let go after a while; while they hold every place, a
        # newcomer is closed at once, then gets in once they are gone.
        silent = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(4)]
        await trio.sleep(0.05)
        assert await answer(f"GET / HTTP/1.1\r\nHost: {here}\r\n\r\n".encode()) == b""
        with trio.fail_after(5):
            for stream in silent:
                assert await stream.receive_some() == b""
                await stream.aclose()
        await plays(s)


# ---------------------------------------------------------------------- any sequence

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
clicks = st.fixed_dictionaries(
    {"t": st.sampled_from(["act", "card", "undo", "done", "lang", "leave", "quit", "x"])},
    optional={
        "serial": json_values,
        "id": json_values,
        "card": json_values,
        "lang": json_values,
    },
)
frames = st.one_of(
    st.builds(lambda s: frame(TEXT, s.encode()), st.text(max_size=3000)),
    st.builds(lambda b: frame(BINARY, b), st.binary(max_size=6000)),
    st.builds(
        lambda n, op: frame(op, b"x" * n),
        st.integers(MAX_MESSAGE, 3 * MAX_MESSAGE),
        st.sampled_from([TEXT, BINARY]),
    ),
    st.builds(lambda v: text(json.dumps(v)), json_values),
    st.builds(text, clicks),
    st.builds(
        lambda parts, op: b"".join(
            frame(op if i == 0 else 0, p.encode(), fin=i == len(parts) - 1)
            for i, p in enumerate(parts)
        ),
        st.lists(st.text(max_size=1500), min_size=1, max_size=4),
        st.sampled_from([TEXT, BINARY]),
    ),
    st.builds(lambda b, op: frame(op, b), st.binary(max_size=125), st.sampled_from([PING, PONG])),
    st.builds(
        lambda b, op, fin, mask: frame(op, b, fin=fin, mask=mask),
        st.binary(max_size=200),
        st.integers(0, 15),
        st.booleans(),
        st.binary(min_size=4, max_size=4),
    ),
    st.binary(min_size=1, max_size=64),  # not a frame at all
    st.just(frame(CLOSE, (1000).to_bytes(2, "big"))),
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(frames, max_size=10), st.integers(16, 5000))
async def test_any_frames_leave_the_server_up_and_playing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, sent: list[bytes], chunk: int
) -> None:
    with caplog.at_level(logging.WARNING, "tarot_p2p.ui.server"):
        async with served(tmp_path) as s:
            sock = await page(s)
            data = b"".join(sent)
            try:
                for i in range(0, len(data), chunk):
                    await sock.send(data[i : i + chunk])
            except trio.BrokenResourceError:
                pass  # closed for misbehaving
            await sock.to_the_end()
            assert len(errors(sock)) <= MAX_STRIKES
            assert all(isinstance(m, dict) for m in s.table.taken)
            await plays(s)
            with trio.fail_after(5):
                while s.table.pages:
                    await trio.sleep(0.01)
    assert not caplog.records, "a connection ended in an error the server did not expect"
