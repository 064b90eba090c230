"""Length-prefixed frames over a trio byte stream.

A frame is a 4-byte big-endian length followed by that many bytes. The length is checked
against a hard limit *before* anything is buffered, so a hostile peer cannot make us
allocate more than ``max_frame`` bytes. Every defect raises :class:`FrameError`, which
the owner of the connection answers by closing that connection, and nothing else.
"""

from __future__ import annotations

import socket

import trio

LENGTH_BYTES = 4
DEFAULT_MAX_FRAME = 1 << 20
RECEIVE_CHUNK = 1 << 16


KEEPALIVE_IDLE = 30
"""Seconds a connection may carry nothing before the system starts probing it."""
KEEPALIVE_PROBES = (10, 3)
"""Seconds between probes, and how many unanswered probes end the connection."""


def keep_alive(stream: trio.SocketStream) -> None:
    """Let the system notice a connection that died without a word.

    Why: a home router or a laptop that slept may drop a connection silently; until then a
    host's claim at a relay looks alive while no joiner can reach it, and a link waits for
    bytes that never come. With TCP keepalive the dead connection fails within about a
    minute, and its owner reconnects. (Systems without these options keep their defaults.)
    """
    stream.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    interval, count = KEEPALIVE_PROBES
    for name, value in (
        ("TCP_KEEPIDLE", KEEPALIVE_IDLE),
        ("TCP_KEEPINTVL", interval),
        ("TCP_KEEPCNT", count),
    ):
        option = getattr(socket, name, None)
        if option is not None:
            stream.setsockopt(socket.IPPROTO_TCP, option, value)


class LinkError(Exception):
    """This connection cannot be used any more (the peer, not the process, is at fault)."""


class FrameError(LinkError):
    """Bytes that are not a well-formed frame within the size limit."""


class ConnectionClosed(LinkError):
    """The other side closed the connection cleanly between two frames."""


class FramedStream:
    """Whole frames in, whole frames out; one reader task and one writer task at a time."""

    def __init__(self, stream: trio.abc.Stream, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        if not 0 < max_frame < 1 << 32:
            raise ValueError("max_frame must fit in 4 bytes")
        self.stream = stream
        self.max_frame = max_frame
        self._buffer = bytearray()

    async def send_frame(self, data: bytes) -> None:
        if len(data) > self.max_frame:
            raise ValueError(f"frame of {len(data)} bytes exceeds {self.max_frame}")
        try:
            await self.stream.send_all(len(data).to_bytes(LENGTH_BYTES, "big") + data)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise ConnectionClosed(f"cannot send: {exc}") from exc

    async def _fill(self, size: int) -> bool:
        """Buffer at least ``size`` bytes; False on a clean end of stream."""
        while len(self._buffer) < size:
            try:
                chunk = await self.stream.receive_some(RECEIVE_CHUNK)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                raise ConnectionClosed(f"cannot receive: {exc}") from exc
            if not chunk:
                return False
            self._buffer += chunk
        return True

    async def receive_frame(self) -> bytes:
        if not await self._fill(LENGTH_BYTES):
            if self._buffer:
                raise FrameError("connection closed inside a frame length")
            raise ConnectionClosed("connection closed by peer")
        length = int.from_bytes(self._buffer[:LENGTH_BYTES], "big")
        if length > self.max_frame:
            raise FrameError(f"frame of {length} bytes exceeds {self.max_frame}")
        if not await self._fill(LENGTH_BYTES + length):
            raise FrameError(f"connection closed inside a frame of {length} bytes")
        frame = bytes(self._buffer[LENGTH_BYTES : LENGTH_BYTES + length])
        del self._buffer[: LENGTH_BYTES + length]
        return frame

    async def aclose(self) -> None:
        await self.stream.aclose()
