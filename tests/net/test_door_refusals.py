"""The door's checks at their edges and what it records of a drop (``net/door.py``).

Each test builds what it needs itself (no fixture, nothing at import): the mutation check
(docs/mutation.md) runs these tests against every changed check of the module. Most feed
the door a connection in memory from a chosen source; one listens on loopback, to see
where."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.net.access import create_hello
from tarot_p2p.net.channels import MAX_RENDEZVOUS, Board, Claim
from tarot_p2p.net.door import Door
from tarot_p2p.net.framing import ConnectionClosed, FramedStream
from tarot_p2p.net.hello import (
    Created,
    CreateHello,
    HubRefused,
    Ok,
    OpenHello,
    Refused,
    TableHello,
    knock,
    read_answer,
)
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.link import LinkConfig
from tarot_p2p.net.noise import MAX_MESSAGE

HUB_KEY = Ed25519PrivateKey.from_private_bytes(b"\x71" * 32)
TABLE, SECRET = bytes(range(32)), bytes(16)
JOINER = "10.0.0.7"


async def connected(door: Door, nursery: trio.Nursery, source: str = JOINER) -> FramedStream:
    """A connection to ``door`` from ``source``, in memory; the door serves it in
    ``nursery``."""
    client, server = trio.testing.memory_stream_pair()
    nursery.start_soon(door.handle_stream, server, source)
    return FramedStream(client, MAX_MESSAGE)


async def test_a_hosts_own_door_refuses_another_tables_hello_and_counts_it() -> None:
    hub = Hub(HUB_KEY, TABLE, SECRET)
    door = Door.of(hub)
    async with trio.open_nursery() as nursery:
        framed = await connected(door, nursery)
        with pytest.raises(HubRefused) as caught:
            await knock(framed, TableHello(bytes(32)))
        assert caught.value.reason == "no-table"
    assert dict(door.stats.counts) == {"no-table": 1}
    assert list(door.stats.drops) == ["Refusal: no-table"]


async def test_a_hosts_own_door_uses_the_board_and_settings_it_is_given() -> None:
    """The host's program claims its channels on its own board: the door must open
    joiners on that board, and keep the program's link settings."""
    hub = Hub(HUB_KEY, TABLE, SECRET)
    board, config = Board(), LinkConfig(handshake_timeout=7.0)
    door = Door.of(hub, board=board, config=config)
    assert door.board is board and door.config is config
    claim = board.claim(0)
    async with trio.open_nursery() as nursery:
        framed = await connected(door, nursery)
        assert await knock(framed, OpenHello(claim.channel)) == Ok()
        nursery.cancel_scope.cancel()


async def opened(door: Door, claim: Claim, nursery: trio.Nursery) -> FramedStream:
    framed = await connected(door, nursery)
    assert await knock(framed, OpenHello(claim.channel)) == Ok()
    return framed


async def test_a_rendezvous_message_of_the_largest_size_is_passed_on() -> None:
    board = Board()
    door = Door(lambda _: None, board=board)
    claim = board.claim(0)
    async with trio.open_nursery() as nursery:
        framed = await opened(door, claim, nursery)
        await framed.send_frame(b"m" * MAX_RENDEZVOUS)
        arrival = await claim.receive()
        assert arrival.message == b"m" * MAX_RENDEZVOUS
        await framed.aclose()  # the joiner's usual end: no drop recorded
        await trio.testing.wait_all_tasks_blocked()
    assert not door.stats.counts and not door.stats.drops


async def test_a_longer_rendezvous_message_drops_its_connection_in_words() -> None:
    board = Board()
    door = Door(lambda _: None, board=board)
    claim = board.claim(0)
    async with trio.open_nursery() as nursery:
        framed = await opened(door, claim, nursery)
        await framed.send_frame(b"m" * (MAX_RENDEZVOUS + 1))
        with pytest.raises(ConnectionClosed):
            await framed.receive_frame()
        assert (await claim.receive()).message is None  # the host only sees it leave
    assert dict(door.stats.counts) == {"LinkError": 1}
    assert list(door.stats.drops) == [
        f"LinkError: rendezvous message of {MAX_RENDEZVOUS + 1} bytes"
    ]


async def test_a_door_listens_only_where_it_is_told() -> None:
    """On Linux all of 127/8 is loopback: a door told 127.0.0.1 must not answer on
    127.0.0.2 (one listening everywhere would)."""
    door = Door(lambda _: None)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(door.serve, "127.0.0.1", 0)
        port = listeners[0].socket.getsockname()[1]
        with pytest.raises(OSError):
            await trio.open_tcp_stream("127.0.0.2", port)
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.aclose()
        nursery.cancel_scope.cancel()


async def test_a_hello_that_cannot_be_read_is_answered_bad_hello() -> None:
    door = Door(lambda _: None)
    async with trio.open_nursery() as nursery:
        framed = await connected(door, nursery)
        await framed.send_frame(b"\xc1")
        assert read_answer(await framed.receive_frame()) == Refused("bad-hello")
    assert dict(door.stats.counts) == {"HelloError": 1}


async def test_a_first_frame_longer_than_a_noise_message_is_refused_unread() -> None:
    """A stranger's first frame is bounded like every frame of the link, 64 KiB: the door
    must not take a larger one in (up to the framing's default of 1 MiB) to read a hello
    of a few hundred bytes."""
    door = Door(lambda _: None)
    async with trio.open_nursery() as nursery:
        client, server = trio.testing.memory_stream_pair()
        nursery.start_soon(door.handle_stream, server, JOINER)
        length = MAX_MESSAGE + 1
        await client.send_all(length.to_bytes(4, "big") + bytes(length))
        answer = await FramedStream(client, MAX_MESSAGE).receive_frame()
        assert read_answer(answer) == Refused("bad-hello")
    assert list(door.stats.drops) == [f"FrameError: frame of {length} bytes exceeds {MAX_MESSAGE}"]


async def test_a_relay_makes_a_table_for_the_source_that_asked() -> None:
    """A relay bounds the tables each source holds (``RelayTables.create``): the door must
    give it the connection's source."""
    asked: list[str] = []

    def create(hello: CreateHello, source: str) -> Created:
        asked.append(source)
        return Created(hello.table_id, b"\x44" * 32, "203.0.113.9:7770")

    door = Door(lambda _: None, create=create)
    hello = create_hello(HUB_KEY, TABLE, bytes(16))
    async with trio.open_nursery() as nursery:
        framed = await connected(door, nursery)
        assert isinstance(await knock(framed, hello), Created)
    assert asked == [JOINER]


async def test_a_connection_counts_against_the_source_it_is_given() -> None:
    """A connection whose source is given (not a socket's peer) is counted as that source's."""
    door = Door(lambda _: None)
    async with trio.open_nursery() as nursery:
        await connected(door, nursery)
        await trio.testing.wait_all_tasks_blocked()
        assert door.open[JOINER] == 1 and len(door.knocking) == 1
        nursery.cancel_scope.cancel()
