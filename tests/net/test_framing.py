from __future__ import annotations

import socket

import pytest
import trio
import trio.testing

from tarot_p2p.net.framing import (
    KEEPALIVE_IDLE,
    ConnectionClosed,
    FramedStream,
    FrameError,
    keep_alive,
)


async def test_frames_round_trip_across_arbitrary_chunking() -> None:
    left, right = trio.testing.memory_stream_pair()
    sender, receiver = FramedStream(left, 1000), FramedStream(right, 1000)
    frames = [b"", b"a", b"x" * 1000, bytes(range(256))]
    for frame in frames:
        await sender.send_frame(frame)
    assert [await receiver.receive_frame() for _ in frames] == frames


async def test_frames_split_into_single_bytes() -> None:
    send_stream, receive_stream = trio.testing.memory_stream_one_way_pair()
    receiver = FramedStream(trio.StapledStream(send_stream, receive_stream), 100)
    wire = (5).to_bytes(4, "big") + b"hello" + (0).to_bytes(4, "big")
    for byte in wire:
        await send_stream.send_all(bytes([byte]))
    assert await receiver.receive_frame() == b"hello"
    assert await receiver.receive_frame() == b""


async def test_oversize_frame_is_refused_before_reading_it() -> None:
    left, right = trio.testing.memory_stream_pair()
    await left.send_all((1001).to_bytes(4, "big"))
    with pytest.raises(FrameError, match="exceeds"):
        await FramedStream(right, 1000).receive_frame()
    with pytest.raises(ValueError):
        await FramedStream(left, 1000).send_frame(b"x" * 1001)


@pytest.mark.parametrize("wire", [b"\x00\x00", b"\x00\x00\x00\x05abc"])
async def test_truncated_frame(wire: bytes) -> None:
    left, right = trio.testing.memory_stream_pair()
    await left.send_all(wire)
    await left.aclose()
    with pytest.raises(FrameError, match="closed inside"):
        await FramedStream(right).receive_frame()


async def test_clean_close_between_frames() -> None:
    left, right = trio.testing.memory_stream_pair()
    await FramedStream(left).send_frame(b"bye")
    await left.aclose()
    receiver = FramedStream(right)
    assert await receiver.receive_frame() == b"bye"
    with pytest.raises(ConnectionClosed):
        await receiver.receive_frame()


def test_limit_must_fit_the_length_prefix() -> None:
    left, _ = trio.testing.memory_stream_pair()
    with pytest.raises(ValueError):
        FramedStream(left, 1 << 32)


async def test_keep_alive_has_the_system_probe_a_silent_connection() -> None:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    try:
        assert stream.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 0
        keep_alive(stream)
        assert stream.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        if hasattr(socket, "TCP_KEEPIDLE"):
            idle = stream.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE)
            assert idle == KEEPALIVE_IDLE
    finally:
        await stream.aclose()
        for listener in listeners:
            await listener.aclose()
