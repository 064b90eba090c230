"""The hub and links over real loopback TCP sockets (and memory streams for timing)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.net.door import Door
from tarot_p2p.net.framing import FramedStream
from tarot_p2p.net.handshake import HandshakeRejected
from tarot_p2p.net.hello import Ok, TableHello, encode_frame, read_hello
from tarot_p2p.net.hub import Budget, Hub
from tarot_p2p.net.joincode import JoinCode, link_key
from tarot_p2p.net.limits import SourceLimits
from tarot_p2p.net.link import Link, LinkConfig, LinkError, accept_link, connect, open_link
from tarot_p2p.net.noise import MAX_MESSAGE
from tarot_p2p.protocol.identity import fingerprint
from tests.net.tables import create_hello

HUB = Ed25519PrivateKey.from_private_bytes(b"\x0a" * 32)
PEERS = [Ed25519PrivateKey.from_private_bytes(bytes([0x20 + i]) * 32) for i in range(4)]
TABLE = bytes(range(32))
SECRET = b"\x5a" * 16


@asynccontextmanager
async def running_hub(**options: object) -> AsyncIterator[tuple[Hub, Door, JoinCode]]:
    hub = Hub(HUB, TABLE, SECRET, **options)  # type: ignore[arg-type]
    door = Door.of(hub)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(door.serve, "127.0.0.1", 0)
        port = listeners[0].socket.getsockname()[1]
        yield hub, door, hub.join_code("127.0.0.1", port)
        nursery.cancel_scope.cancel()


async def exchange(links: list[Link], per_peer: int) -> list[list[bytes]]:
    """Every peer sends ``per_peer`` messages concurrently and receives all the others'."""
    received: list[list[bytes]] = [[] for _ in links]
    expected = per_peer * (len(links) - 1)

    async def peer(index: int, link: Link) -> None:
        async def sender() -> None:
            for k in range(per_peer):
                await link.send(f"{index}:{k}".encode())

        async with trio.open_nursery() as nursery:
            nursery.start_soon(sender)
            with trio.fail_after(20):
                while len(received[index]) < expected:
                    received[index].append(await link.receive())

    async with trio.open_nursery() as nursery:
        for index, link in enumerate(links):
            nursery.start_soon(peer, index, link)
    return received


def assert_same_order(received: list[list[bytes]]) -> None:
    """Any two peers see the messages neither of them sent in the same order."""
    senders = [{m for m in got} for got in received]
    for a in range(len(received)):
        for b in range(a + 1, len(received)):
            common = senders[a] & senders[b]
            assert [m for m in received[a] if m in common] == [
                m for m in received[b] if m in common
            ]


@pytest.mark.parametrize("count", [3, 4])
async def test_peers_exchange_through_the_hub_in_one_order(count: int) -> None:
    async with running_hub() as (hub, _door, code):
        links = [await connect(code, PEERS[i]) for i in range(count)]
        for link in links:
            assert link.remote_identity.public_bytes_raw() == HUB.public_key().public_bytes_raw()
        received = await exchange(links, per_peer=25)
        for index, got in enumerate(received):
            assert sorted(got) == sorted(
                f"{i}:{k}".encode() for i in range(count) if i != index for k in range(25)
            )
            # Each sender's messages arrive in the order it sent them.
            for i in set(range(count)) - {index}:
                mine = [m for m in got if m.startswith(f"{i}:".encode())]
                assert mine == [f"{i}:{k}".encode() for k in range(25)]
        assert_same_order(received)
        assert hub.stats.accepted == count and hub.stats.relayed == 25 * count
        for link in links:
            await link.aclose()


async def test_large_messages_are_chunked_and_reassembled() -> None:
    async with running_hub() as (_, _, code):
        a, b = await connect(code, PEERS[0]), await connect(code, PEERS[1])
        big = bytes(range(256)) * 1200  # 307200 bytes: five Noise messages
        await a.send(big)
        assert await b.receive() == big
        with pytest.raises(ValueError):
            await a.send(b"x" * ((1 << 20) + 1))


async def test_wrong_join_secret_is_dropped_and_others_keep_playing() -> None:
    async with running_hub() as (_hub, door, code):
        good = [await connect(code, PEERS[0]), await connect(code, PEERS[1])]
        bad_code = JoinCode(code.host, code.port, TABLE, code.hub_fingerprint, b"\x00" * 16)
        intruder = await connect(bad_code, PEERS[2])
        with pytest.raises(LinkError):
            await intruder.receive()
        assert any("join proof" in reason for reason in door.stats.drops)
        received = await exchange(good, per_peer=3)
        assert all(len(got) == 3 for got in received)


async def test_wrong_hub_identity_is_rejected_by_the_peer() -> None:
    async with running_hub() as (_, _, code):
        other = Ed25519PrivateKey.from_private_bytes(b"\x0d" * 32).public_key()
        fake = JoinCode(code.host, code.port, TABLE, fingerprint(other), SECRET)
        with pytest.raises(HandshakeRejected, match="join code"):
            await connect(fake, PEERS[0])


async def test_identity_not_admitted() -> None:
    allowed = {PEERS[0].public_key().public_bytes_raw()}
    async with running_hub(admit=lambda key: key.public_bytes_raw() in allowed) as (_, door, code):
        await connect(code, PEERS[0])
        outsider = await connect(code, PEERS[1])
        with pytest.raises(LinkError):
            await outsider.receive()
        assert any("not admitted" in reason for reason in door.stats.drops)


async def wait_closed(stream: trio.SocketStream) -> None:
    """Read until the hub closes this connection (EOF or reset)."""
    with trio.fail_after(10):
        try:
            while await stream.receive_some(4096):
                pass
        except trio.BrokenResourceError:
            pass


def frame(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


HELLO = frame(encode_frame(TableHello(TABLE)))
BAD_BEFORE_HANDSHAKE = [
    b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",  # garbage: absurd frame length
    (1 << 20).to_bytes(4, "big"),  # oversize frame
    (10).to_bytes(4, "big") + b"tiny",  # truncated frame, then close
    (32).to_bytes(4, "big") + bytes(32),  # well-framed but not a hello
    HELLO + (32).to_bytes(4, "big") + bytes(32),  # an invalid handshake (low-order key)
    HELLO + (33).to_bytes(4, "big") + bytes(range(33)),  # non-empty first payload
    frame(encode_frame(TableHello(bytes(32)))),  # another table: refused, closed
    frame(encode_frame(create_hello(PEERS[0]))),  # a host's own hub is no relay: refused, closed
]


@pytest.mark.parametrize("garbage", BAD_BEFORE_HANDSHAKE)
async def test_bad_bytes_before_handshake_drop_only_that_connection(garbage: bytes) -> None:
    async with running_hub() as (hub, door, code):
        good = [await connect(code, PEERS[0]), await connect(code, PEERS[1])]
        raw = await trio.open_tcp_stream(code.host, code.port)
        await raw.send_all(garbage)
        await raw.send_eof()
        await wait_closed(raw)
        assert len(door.stats.drops) == 1 and not hub.stats.drops
        received = await exchange(good, per_peer=2)
        assert all(len(got) == 2 for got in received)


@pytest.mark.parametrize(
    "garbage",
    [
        (5).to_bytes(4, "big") + b"hello",  # fails the transport tag
        (1 << 20).to_bytes(4, "big"),  # oversize
        (200).to_bytes(4, "big") + b"x" * 20,  # truncated
    ],
)
async def test_bad_frames_after_handshake_drop_only_that_connection(garbage: bytes) -> None:
    async with running_hub() as (hub, _door, code):
        good = [await connect(code, PEERS[0]), await connect(code, PEERS[1])]
        raw = await trio.open_tcp_stream(code.host, code.port)
        await open_link(raw, PEERS[2], code)
        await raw.send_all(garbage)
        await raw.send_eof()
        await wait_closed(raw)
        assert len(hub.stats.drops) == 1
        received = await exchange(good, per_peer=2)
        assert all(len(got) == 2 for got in received)


async def test_a_peer_hosting_the_hub_in_process() -> None:
    async with running_hub() as (hub, _door, code):
        host = hub.local_link()
        remote = await connect(code, PEERS[1])
        await host.send(b"from host")
        assert await remote.receive() == b"from host"
        await remote.send(b"from remote")
        assert await host.receive() == b"from remote"
        await host.aclose()
        with pytest.raises(LinkError):
            await host.send(b"closed")


async def test_late_joiner_receives_the_backlog() -> None:
    async with running_hub() as (_, _, code):
        first = await connect(code, PEERS[0])
        for k in range(3):
            await first.send(b"early %d" % k)
        late = await connect(code, PEERS[1])
        assert [await late.receive() for _ in range(3)] == [b"early 0", b"early 1", b"early 2"]


async def test_a_member_too_far_behind_skips_what_was_trimmed_and_stays() -> None:
    hub = Hub(HUB, TABLE, SECRET, max_backlog=1000)
    sleeper, talker = hub.local_link(), hub.local_link()
    for k in range(5):
        await talker.send(b"%d" % k + b"x" * 399)
    # The oldest entries are gone; the sleeper gets what is left, and nobody is dropped.
    assert await sleeper.receive() == b"4" + b"x" * 399
    assert not hub.stats.drops
    await talker.send(b"after")
    assert await sleeper.receive() == b"after"


async def test_a_flooding_member_loses_its_link_and_the_readers_keep_theirs() -> None:
    budget = Budget(burst_bytes=200_000, bytes_per_second=50_000)
    async with running_hub(budget=budget, max_backlog=150_000) as (hub, _door, code):
        honest = await connect(code, PEERS[0])
        reader = await connect(code, PEERS[1])
        flooder = await connect(code, PEERS[2])
        with pytest.raises(LinkError), trio.fail_after(10):
            while True:  # far beyond its budget: the hub cuts it off
                await flooder.send(b"junk" * 10_000)
        # The members that read are still served, in order, after the flood.
        await honest.send(b"still here")
        with trio.fail_after(10):
            while (got := await reader.receive()) != b"still here":
                assert got.startswith(b"junk")
        assert [r for r in hub.stats.drops if "budget" in r] and len(hub.stats.drops) == 1


async def handshake_pair(config: LinkConfig) -> tuple[Link, Link]:
    left, right = trio.testing.memory_stream_pair()
    code = JoinCode("memory", 1, TABLE, fingerprint(HUB.public_key()), SECRET)
    links: dict[str, Link] = {}

    async def hub_side() -> None:
        framed = FramedStream(right, MAX_MESSAGE)
        assert read_hello(await framed.receive_frame()) == TableHello(TABLE)
        await framed.send_frame(encode_frame(Ok()))
        links["hub"] = await accept_link(framed, HUB, TABLE, link_key(SECRET), config)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(hub_side)
        links["peer"] = await open_link(left, PEERS[0], code, config)
    return links["peer"], links["hub"]


async def test_receive_timeout_is_a_cancel_scope(autojump_clock: trio.abc.Clock) -> None:
    peer, hub = await handshake_pair(LinkConfig())
    start = trio.current_time()
    with trio.move_on_after(30) as scope:
        await peer.receive()
    assert scope.cancelled_caught and trio.current_time() - start == pytest.approx(30)
    # Cancelled in the middle of a chunked message: nothing is lost.
    big = b"y" * 200_000
    async with trio.open_nursery() as nursery:
        nursery.start_soon(hub.send, big)
        with trio.move_on_after(0):
            await peer.receive()
    assert await peer.receive() == big


async def test_silent_connection_times_out_the_handshake(autojump_clock: trio.abc.Clock) -> None:
    hub = Hub(HUB, TABLE, SECRET)
    door = Door.of(hub, config=LinkConfig(handshake_timeout=5))
    _client, server = trio.testing.memory_stream_pair()
    start = trio.current_time()
    await door.handle_stream(server)
    assert trio.current_time() - start == pytest.approx(5)
    assert door.stats.drops and "TooSlowError" in door.stats.drops[0]


async def test_tcp_member_that_stops_reading_is_cut_off(autojump_clock: trio.abc.Clock) -> None:
    hub = Hub(HUB, TABLE, SECRET, max_backlog=4000, send_timeout=30)
    client, server = trio.testing.lockstep_stream_pair()  # send_all waits for the reader
    code = JoinCode("memory", 1, TABLE, fingerprint(HUB.public_key()), SECRET)
    talker, listener = hub.local_link(), hub.local_link()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(Door.of(hub).handle_stream, server)
        await open_link(client, PEERS[0], code)  # handshake done, then never reads again
        for k in range(6):
            await talker.send(b"%d" % k * 1000)
        # The other member reads on, unhindered by the stuck one.
        got = [await listener.receive()]
        while got[-1] != b"5" * 1000:
            got.append(await listener.receive())
        assert got == [b"%d" % k * 1000 for k in range(6 - len(got), 6)]
    # handle_stream returned: the hub closed the connection that took no bytes for 30 s.
    assert len(hub.stats.drops) == 1 and "TooSlowError" in hub.stats.drops[0]


async def test_connections_in_their_handshake_are_bounded(autojump_clock: trio.abc.Clock) -> None:
    """Strangers holding sockets open in the handshake cannot pile up: past the bound a new
    connection is refused at once; once the silent ones time out, a real peer gets in."""
    hub = Hub(HUB, TABLE, SECRET)
    door = Door(
        lambda t: hub,
        config=LinkConfig(handshake_timeout=5),
        limits=SourceLimits(knocking=2, knocking_total=2),
    )
    async with trio.open_nursery() as nursery:
        silent = [trio.testing.memory_stream_pair() for _ in range(2)]
        for _client, server in silent:
            nursery.start_soon(door.handle_stream, server)
        await trio.testing.wait_all_tasks_blocked()
        _refused_client, refused_server = trio.testing.memory_stream_pair()
        start = trio.current_time()
        await door.handle_stream(refused_server)
        assert trio.current_time() == start  # refused without waiting
        assert door.stats.counts["busy"] == 1
    assert sum("TooSlowError" in d for d in door.stats.drops) == 2
    client, server = trio.testing.memory_stream_pair()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(door.handle_stream, server)
        await open_link(client, PEERS[0], hub.join_code("127.0.0.1", 1))
        await trio.testing.wait_all_tasks_blocked()
        assert hub.stats.accepted == 1
        nursery.cancel_scope.cancel()
