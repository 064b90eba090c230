"""The door's limits per source address, over real loopback sockets from several addresses
(on Linux the whole of 127/8 is this machine: each client binds its socket to its own
127.0.0.x). Each test shows one limit at work and fails without it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.meet.offer import FramedEnd, find_table, offer_table
from tarot_p2p.meet.rendezvous import Invitation, WrongCode
from tarot_p2p.meet.words import ShortCode
from tarot_p2p.net.channels import Board, ClaimEnd
from tarot_p2p.net.door import Door
from tarot_p2p.net.framing import FramedStream
from tarot_p2p.net.hello import (
    ClaimHello,
    HubRefused,
    Ok,
    OpenHello,
    TableHello,
    dial,
    knock,
)
from tarot_p2p.net.hub import KEPT_DROPS, Hub
from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.net.limits import SourceLimits
from tarot_p2p.net.link import Link, LinkConfig, open_link
from tarot_p2p.net.noise import MAX_MESSAGE
from tests.meet.test_rendezvous import INVITATION, Shown

HUB_KEY = Ed25519PrivateKey.from_private_bytes(b"\x61" * 32)
PEER = Ed25519PrivateKey.from_private_bytes(b"\x62" * 32)
TABLE, SECRET = bytes(range(32)), bytes(16)
PLAYER = "127.0.0.1"
STRANGERS = [f"127.0.0.{i}" for i in range(2, 10)]
PATIENT = SourceLimits(hello_timeout=60, rendezvous_timeout=60)
"""Limits whose deadlines do not end a test's silent sockets before the test does."""


@asynccontextmanager
async def serving(
    limits: SourceLimits,
    *,
    relay: bool = False,
    board: Board | None = None,
    config: LinkConfig | None = None,
) -> AsyncIterator[tuple[Door, Hub, JoinCode]]:
    """A door on loopback for one table (``relay``: it also takes claims over TCP)."""
    hub = Hub(HUB_KEY, TABLE, SECRET)

    def create(*_: object) -> object:
        raise AssertionError("no table is made here")

    door = Door(
        lambda t: hub if t == TABLE else None,
        create=create if relay else None,
        board=board,
        config=config or LinkConfig(),
        limits=limits,
    )
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(door.serve, PLAYER, 0)
        port = listeners[0].socket.getsockname()[1]
        yield door, hub, hub.join_code(PLAYER, port)
        nursery.cancel_scope.cancel()


async def socket_from(source: str, code: JoinCode) -> trio.SocketStream:
    return await trio.open_tcp_stream(code.host, code.port, local_address=source)


async def member_from(source: str, code: JoinCode) -> Link:
    """A member of the table connected from ``source`` (past its handshake)."""
    return await open_link(await socket_from(source, code), PEER, code)


async def settled(check: Callable[[], bool]) -> None:
    """Wait (a few seconds at most) until the hub's side has caught up with ``check``."""
    with trio.fail_after(5):
        while not check():
            await trio.sleep(0.01)


async def closed(stream: trio.abc.Stream, within: float) -> bool:
    """Whether the hub closed ``stream`` within ``within`` seconds (what it sent is read
    and dropped)."""
    with trio.move_on_after(within):
        try:
            while await stream.receive_some():
                pass
        except trio.BrokenResourceError:
            pass
        return True
    return False


async def test_a_silent_connection_is_closed_after_the_hello_deadline() -> None:
    async with serving(SourceLimits(hello_timeout=0.3)) as (door, _, code):
        silent = await socket_from(STRANGERS[0], code)
        with trio.fail_after(5):
            start = trio.current_time()
            assert await closed(silent, 5)
        assert trio.current_time() - start < 2
        assert door.stats.counts["TooSlowError"] == 1


async def test_a_handshake_left_silent_is_closed_after_its_deadline() -> None:
    limits = SourceLimits(hello_timeout=60)
    async with serving(limits, config=LinkConfig(handshake_timeout=0.3)) as (door, _, code):
        stream = await socket_from(STRANGERS[0], code)
        framed = FramedStream(stream, MAX_MESSAGE)
        assert await knock(framed, TableHello(TABLE)) == Ok()
        assert await closed(stream, 3)  # the Noise handshake never came
        assert door.stats.counts["TooSlowError"] == 1


async def test_one_source_may_knock_only_a_few_times_at_once() -> None:
    async with serving(SourceLimits(knocking=2, hello_timeout=60)) as (door, _, code):
        held = [await socket_from(STRANGERS[0], code) for _ in range(2)]
        await settled(lambda: len(door.knocking) == 2)
        third = await socket_from(STRANGERS[0], code)
        assert await closed(third, 2)  # at once, long before its hello deadline
        other = await socket_from(STRANGERS[1], code)
        assert not await closed(other, 0.3)  # another address knocks on
        assert door.stats.counts["busy"] == 1 and len(held) == 2


async def test_a_player_gets_in_when_strangers_hold_every_knocking_place() -> None:
    """Two addresses hold all eight places with silent sockets: a player connecting from a
    third takes the place of the oldest one of the largest holder, and sits down."""
    limits = SourceLimits(knocking=4, knocking_total=8, hello_timeout=60)
    async with serving(limits) as (door, hub, code):
        flood = [await socket_from(STRANGERS[i % 2], code) for i in range(8)]
        await settled(lambda: len(door.knocking) == 8)
        with trio.fail_after(5):
            link = await member_from(PLAYER, code)
        await settled(lambda: hub.connected == 1)
        assert door.stats.counts["Evicted"] == 1
        assert await closed(flood[0], 2)  # the oldest of the first largest holder
        assert not await closed(flood[1], 0.2)
        await link.aclose()


async def test_members_are_not_counted_among_the_knocking() -> None:
    """Seated players take no knocking place, however many of them."""
    async with serving(SourceLimits(knocking=2, knocking_total=2)) as (_, hub, code):
        links = [await member_from(PLAYER, code) for _ in range(5)]
        await settled(lambda: hub.connected == 5)
        await links[0].send(b"still here")
        assert await links[4].receive() == b"still here"


async def test_one_source_may_hold_only_so_many_connections() -> None:
    async with serving(SourceLimits(connections=3)) as (door, hub, code):
        links = [await member_from(STRANGERS[0], code) for _ in range(3)]
        extra = await socket_from(STRANGERS[0], code)
        assert await closed(extra, 2)
        assert door.stats.counts["too-many"] == 1
        links.append(await member_from(STRANGERS[1], code))  # another address: in
        await settled(lambda: hub.connected == 4)


async def test_a_hosts_own_hub_takes_no_claim_over_tcp() -> None:
    async with serving(PATIENT) as (_, _hub, code):
        with pytest.raises(HubRefused) as caught:
            await dial(code.host, code.port, ClaimHello(0), 5)
        assert caught.value.reason == "not-a-relay"


async def test_a_relay_gives_channels_only_to_addresses_with_a_member_and_few() -> None:
    limits = SourceLimits(channels=2)
    async with serving(limits, relay=True) as (door, _, code):
        with pytest.raises(HubRefused) as caught:
            await dial(code.host, code.port, ClaimHello(0), 5, local_address=STRANGERS[0])
        assert caught.value.reason == "no-host"
        member = await member_from(STRANGERS[0], code)
        await settled(lambda: door.members[STRANGERS[0]] == 1)
        claims = [
            await dial(code.host, code.port, ClaimHello(0), 5, local_address=STRANGERS[0])
            for _ in range(2)
        ]
        with pytest.raises(HubRefused) as caught:
            await dial(code.host, code.port, ClaimHello(0), 5, local_address=STRANGERS[0])
        assert caught.value.reason == "too-many"
        assert len(claims) == 2 and member is not None


@asynccontextmanager
async def offered(
    limits: SourceLimits, board: Board
) -> AsyncIterator[tuple[Door, JoinCode, ShortCode]]:
    """A door whose board holds a channel offered by its host (in its own program)."""

    async def claim(wanted: int) -> ClaimEnd:
        await trio.lowlevel.checkpoint()
        return board.claim(wanted)

    async with serving(limits, board=board) as (door, _, code), trio.open_nursery() as nursery:
        shown = Shown()
        nursery.start_soon(offer_table, claim, INVITATION, shown)
        await shown.changed.wait()
        yield door, code, shown.codes[-1][0]
        nursery.cancel_scope.cancel()


async def open_from(source: str, code: JoinCode, short: ShortCode) -> FramedStream:
    """A joiner's connection from ``source`` to the channel of ``short``, opened."""
    framed, _ = await dial(code.host, code.port, OpenHello(short.channel), 5, local_address=source)
    return framed


async def ask_from(source: str, code: JoinCode, short: ShortCode) -> Invitation:
    """The invitation behind ``short``, asked from ``source``."""
    framed = await open_from(source, code, short)
    try:
        with trio.fail_after(10):
            return await find_table(FramedEnd(framed), short)
    finally:
        await framed.aclose()


async def test_strangers_holding_a_channel_cannot_keep_a_friend_out() -> None:
    """Four addresses hold the four places of the host's channel with silent joiners: a
    friend from a fifth takes the oldest place and finds the table."""
    limits = SourceLimits(hello_timeout=60, rendezvous_timeout=60)
    async with offered(limits, Board(max_openers=4, limits=limits)) as (_, code, short):
        squatters = [await open_from(source, code, short) for source in STRANGERS[:4]]
        with pytest.raises(HubRefused) as caught:  # one place a source on a channel
            await open_from(STRANGERS[0], code, short)
        assert caught.value.reason == "busy"
        assert await ask_from(PLAYER, code, short) == INVITATION
        assert await closed(squatters[0].stream, 2)


async def test_an_address_that_tried_too_many_wrong_codes_is_refused_for_a_while() -> None:
    limits = SourceLimits(tries=2, try_back_after=1.0)
    async with offered(limits, Board(limits=limits)) as (_, code, short):
        wrong = ShortCode(
            short.channel, short.first, "zebra" if short.second != "zebra" else "acid"
        )
        for _ in range(2):
            with pytest.raises(WrongCode):
                await ask_from(STRANGERS[0], code, wrong)
        # Even the right code is refused now, to that address only.
        with pytest.raises(HubRefused) as caught:
            await ask_from(STRANGERS[0], code, short)
        assert caught.value.reason == "tries" and "wrong codes" in str(caught.value)
        assert await ask_from(STRANGERS[1], code, short) == INVITATION
        await trio.sleep(1.0)
        assert await ask_from(STRANGERS[0], code, short) == INVITATION


async def test_a_joiner_silent_in_its_rendezvous_is_closed_after_its_deadline() -> None:
    limits = SourceLimits(rendezvous_timeout=0.3)
    async with offered(limits, Board(limits=limits)) as (_, code, short):
        framed = await open_from(STRANGERS[0], code, short)
        assert await closed(framed.stream, 3)


async def test_what_a_door_remembers_of_dropped_connections_is_bounded() -> None:
    """A relay runs for weeks and strangers come and go by the million: it keeps counts
    of its drops and the reasons of the last few only."""
    door = Door(lambda t: None)
    for _ in range(KEPT_DROPS + 50):
        client, server = trio.testing.memory_stream_pair()
        await client.aclose()  # closed before its hello
        await door.handle_stream(server)
    assert len(door.stats.drops) == KEPT_DROPS
    assert door.stats.counts["ConnectionClosed"] == KEPT_DROPS + 50
