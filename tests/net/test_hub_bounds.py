"""The hub's bounds, at their edges (``wire.md`` §7.4).

A bound that refuses too late lets a flood through; one that refuses too early cuts off an
honest member or loses messages nobody needed to lose. So each bound is tested on both
sides: the backlog is trimmed only past its size, down to three quarters, newest entries
kept (the newest always); a member's budget refills at its rate, up to its burst; a local
member's message may be exactly the largest size a link carries.
"""

from __future__ import annotations

import time

import pytest
import trio
import trio.testing

from tarot_p2p.net.door import Door
from tarot_p2p.net.hub import Budget, Hub
from tarot_p2p.net.joincode import JoinCode, link_key
from tarot_p2p.net.link import LinkError, open_link
from tarot_p2p.protocol.identity import fingerprint
from tests.net.test_hub import HUB, PEERS, SECRET, TABLE


def message(k: int, size: int) -> bytes:
    return (b"%d:" % k).ljust(size, b".")


async def received_by_a_sleeper(sizes: list[int], backlog: int) -> list[bytes]:
    """What a member that reads nothing until the end gets of messages of ``sizes``."""
    hub = Hub(HUB, TABLE, SECRET, max_backlog=backlog)
    sleeper, talker = hub.local_link(), hub.local_link()
    for k, size in enumerate(sizes):
        await talker.send(message(k, size))
    await talker.send(b"end")
    got = []
    while (m := await sleeper.receive()) != b"end":
        got.append(m)
    return got


async def test_a_backlog_filled_exactly_is_not_trimmed() -> None:
    assert await received_by_a_sleeper([250] * 3 + [247], backlog=1000) == [
        message(k, 250 if k < 3 else 247) for k in range(4)
    ]  # with "end", 1000 bytes: nothing lost


async def test_a_backlog_over_its_size_keeps_the_newest_three_quarters() -> None:
    # 5 × 250 = 1250 > 1000: the oldest go until 750 bytes are left, the three newest.
    got = await received_by_a_sleeper([250] * 5, backlog=1000)
    assert got == [message(k, 250) for k in (2, 3, 4)]


async def test_the_newest_message_stays_even_when_larger_than_the_trimmed_backlog() -> None:
    got = await received_by_a_sleeper([900, 900], backlog=1000)
    assert got == [message(1, 900)]


async def test_a_members_budget_refills_at_its_rate_up_to_its_burst(
    autojump_clock: trio.abc.Clock,
) -> None:
    """Four messages at once, then four more two seconds later at two a second: an honest
    pace, never cut off. After a long pause the burst is four again, not more."""
    hub = Hub(HUB, TABLE, SECRET, budget=Budget(burst_messages=4, messages_per_second=2))
    client, server = trio.testing.memory_stream_pair()
    code = JoinCode("memory", 1, TABLE, fingerprint(HUB.public_key()), SECRET)
    reader = hub.local_link()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(Door.of(hub).handle_stream, server)
        member = await open_link(client, PEERS[0], code)
        for round_ in range(2):
            for k in range(4):
                await member.send(b"%d.%d" % (round_, k))
            await trio.sleep(2)
        assert [await reader.receive() for _ in range(8)] == [
            b"%d.%d" % (r, k) for r in range(2) for k in range(4)
        ]
        assert not hub.stats.drops
        await trio.sleep(60)  # the bucket holds its burst, no more
        with pytest.raises(LinkError):
            for k in range(6):
                await member.send(b"burst %d" % k)
            await member.receive()  # the hub cut the link
        assert [await reader.receive() for _ in range(4)] == [b"burst %d" % k for k in range(4)]
        assert len(hub.stats.drops) == 1 and "budget" in hub.stats.drops[0]


async def test_a_local_member_may_send_the_largest_message_a_link_carries() -> None:
    hub = Hub(HUB, TABLE, SECRET)
    sender, reader = hub.local_link(), hub.local_link()
    largest = b"x" * hub.config.max_message
    await sender.send(largest)
    assert await reader.receive() == largest
    with pytest.raises(ValueError, match="exceeds the limit"):
        await sender.send(largest + b"x")


async def test_a_local_link_closed_twice_is_closed_and_nothing_breaks() -> None:
    hub = Hub(HUB, TABLE, SECRET)
    link = hub.local_link()
    await link.aclose()
    await link.aclose()
    assert hub.connected == 0
    with pytest.raises(LinkError, match=r"^local link closed$"):
        await link.send(b"late")
    with pytest.raises(LinkError, match=r"^local link closed$"):
        await link.receive()


async def test_the_hub_remembers_when_a_member_last_came_or_left() -> None:
    """What a relay reads to forget idle tables."""
    before = time.time()
    hub = Hub(HUB, TABLE, SECRET)
    assert hub.seen >= before  # a new table counts as just used
    hub.seen = 0.0
    link = hub.local_link()
    assert hub.seen >= before
    hub.seen = 0.0
    await link.aclose()
    assert hub.seen >= before


def test_a_join_code_says_whether_the_hub_is_a_relay() -> None:
    hub = Hub(HUB, TABLE, SECRET)
    assert hub.join_code("127.0.0.1", 7770).relay is False
    assert hub.join_code("127.0.0.1", 7770, relay=True).relay is True


def test_a_hub_is_given_the_secret_or_the_link_key_and_only_a_hosts_makes_a_code() -> None:
    """A host's own hub knows the join secret and derives the link key from it; a relay's
    is given the link key alone (it never learns the secret, ``wire.md`` §5.2), so it
    cannot make the table's code. Anything else is refused in words."""
    hosts = Hub(HUB, TABLE, SECRET)
    assert hosts.link_key == link_key(SECRET) != SECRET
    relays = Hub(HUB, TABLE, None, key=hosts.link_key)
    assert relays.secret is None and relays.link_key == hosts.link_key
    assert hosts.join_code("127.0.0.1", 4000).secret == SECRET
    with pytest.raises(
        ValueError, match=r"^a relay's table has no join secret: its host makes the code$"
    ):
        relays.join_code("127.0.0.1", 4000)
    for secret, key in ((None, None), (SECRET, hosts.link_key)):
        with pytest.raises(
            ValueError, match=r"^a hub is given the join secret \(its host's\) or the link key$"
        ):
            Hub(HUB, TABLE, secret, key=key)
