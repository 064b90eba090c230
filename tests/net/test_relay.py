"""A relay over loopback TCP: many tables made by hosts, a short code found through it,
its tables kept across a restart and forgotten when idle; the address policy."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.meet.offer import ask_host, claim_at, offer_table
from tarot_p2p.meet.rendezvous import Invitation, WrongCode
from tarot_p2p.meet.words import ShortCode
from tarot_p2p.net import access
from tarot_p2p.net.address import (
    Address,
    AddressError,
    code_address,
    parse_address,
    reaches_internet,
)
from tarot_p2p.net.door import Door
from tarot_p2p.net.framing import LinkError
from tarot_p2p.net.hello import Created, CreateHello, HubRefused, OpenHello, dial
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.joincode import JoinCode, link_key
from tarot_p2p.net.limits import Refusal, SourceLimits
from tarot_p2p.net.link import Link, connect
from tarot_p2p.net.relay import RelayTables
from tarot_p2p.protocol.identity import identity_bytes
from tests.meet.test_rendezvous import Shown
from tests.net.tables import SECRETS, create_at, create_hello, long_code

RELAY = Ed25519PrivateKey.from_private_bytes(b"\x33" * 32)
HOST = Ed25519PrivateKey.from_private_bytes(b"\x44" * 32)
PEER = Ed25519PrivateKey.from_private_bytes(b"\x55" * 32)


@asynccontextmanager
async def running_relay(path: Path, **options: Any) -> AsyncIterator[tuple[RelayTables, int]]:
    tables = RelayTables(RELAY, path / "relay.json", Address("127.0.0.1", 0), **options)
    tables.load()
    door = Door(tables.lookup, create=tables.create, limits=tables.limits)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(door.serve, "127.0.0.1", 0)
        port = listeners[0].socket.getsockname()[1]
        tables.address = Address("127.0.0.1", port)
        yield tables, port
        nursery.cancel_scope.cancel()


async def test_two_tables_at_once_each_relaying_its_own(tmp_path: Path) -> None:
    async with running_relay(tmp_path) as (tables, port):
        first = await create_at("127.0.0.1", port, HOST)
        second = await create_at("127.0.0.1", port, HOST)
        assert first.table_id != second.table_id and len(tables.hubs) == 2
        assert first.identity == identity_bytes(RELAY.public_key())
        assert parse_address(first.address) == Address("127.0.0.1", port)
        links = {}
        for name, created in (("a", first), ("b", second)):
            code = long_code(created, port)
            links[name] = [await connect(code, HOST), await connect(code, PEER)]
        await links["a"][0].send(b"for table a")
        await links["b"][0].send(b"for table b")
        assert await links["a"][1].receive() == b"for table a"
        assert await links["b"][1].receive() == b"for table b"
        assert [hub.connected for hub in tables.hubs.values()] == [2, 2]


async def test_an_unknown_table_is_refused_in_words(tmp_path: Path) -> None:
    async with running_relay(tmp_path) as (_, port):
        created = await create_at("127.0.0.1", port, HOST)
        unknown = long_code(created, port)
        unknown = JoinCode(unknown.host, port, bytes(32), unknown.hub_fingerprint, bytes(16), True)
        with pytest.raises(HubRefused, match="not on that relay any more") as caught:
            await connect(unknown, PEER)
        assert caught.value.reason == "no-table"


async def test_a_full_relay_says_so(tmp_path: Path) -> None:
    async with running_relay(tmp_path, max_tables=2) as (_, port):
        await create_at("127.0.0.1", port, HOST)
        await create_at("127.0.0.1", port, HOST)
        with pytest.raises(HubRefused, match="as many tables as it can"):
            await create_at("127.0.0.1", port, HOST)


async def test_a_hosts_own_hub_is_not_a_relay() -> None:
    hub = Hub(HOST, bytes(32), bytes(16))
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(Door.of(hub).serve, "127.0.0.1", 0)
        port = listeners[0].socket.getsockname()[1]
        with pytest.raises(HubRefused, match="not a relay") as caught:
            await create_at("127.0.0.1", port, HOST)
        assert caught.value.reason == "not-a-relay"
        nursery.cancel_scope.cancel()


async def test_a_restarted_relay_serves_its_tables_again(tmp_path: Path) -> None:
    async with running_relay(tmp_path) as (_, port):
        created = await create_at("127.0.0.1", port, HOST)
    async with running_relay(tmp_path) as (tables, port):
        assert list(tables.hubs) == [created.table_id]
        code = long_code(created, port)
        a, b = await connect(code, HOST), await connect(code, PEER)
        await a.send(b"back again")
        assert await b.receive() == b"back again"


def test_the_old_one_table_file_is_still_read(tmp_path: Path) -> None:
    (tmp_path / "relay.json").write_text(
        '{"table_id": "' + "ab" * 32 + '", "secret": "' + "cd" * 16 + '", "port": 4321}'
    )
    tables = RelayTables(RELAY, tmp_path / "relay.json", Address("127.0.0.1", 1))
    tables.load()
    assert list(tables.hubs) == [bytes.fromhex("ab" * 32)] and tables.port == 4321
    hub = tables.hubs[bytes.fromhex("ab" * 32)]
    assert hub.secret is None and hub.link_key == link_key(bytes.fromhex("cd" * 16))
    tables.save()  # the secret an older relay kept is forgotten: only the link key stays
    saved = (tmp_path / "relay.json").read_text()
    assert "cd" * 16 not in saved and hub.link_key.hex() in saved
    again = RelayTables(RELAY, tmp_path / "relay.json", Address("127.0.0.1", 1))
    again.load()
    assert again.hubs[hub.table_id].link_key == hub.link_key


def test_unused_tables_are_forgotten_after_20_minutes_and_busy_ones_kept(
    tmp_path: Path,
) -> None:
    tables = RelayTables(RELAY, tmp_path / "relay.json", Address("127.0.0.1", 1))
    idle, busy, recent = (tables.create(create_hello(HOST), "127.0.0.1").table_id for _ in range(3))
    now = tables.hubs[idle].seen
    tables.hubs[idle].seen = tables.hubs[busy].seen = now - 20 * 60
    link = tables.hubs[busy].local_link()  # a member is connected
    assert tables.sweep(now) == [idle]
    assert set(tables.hubs) == {busy, recent}
    assert link is not None


async def offered_at(nursery: trio.Nursery, port: int) -> tuple[Invitation, ShortCode, Shown]:
    """A table made at the relay on ``port`` and offered there by its host (in ``nursery``):
    what a joiner should learn, the short code the host shows, and what the host shows."""
    created = await create_at("127.0.0.1", port, HOST)
    invitation = Invitation(long_code(created, port), identity_bytes(HOST.public_key()))
    nursery.start_soon(hold, await connect(invitation.code, HOST))  # the host sits first
    shown = Shown()
    nursery.start_soon(
        offer_table, lambda wanted: claim_at("127.0.0.1", port, wanted), invitation, shown
    )
    await shown.changed.wait()
    return invitation, shown.codes[0][0], shown


async def hold(link: Link) -> None:
    """Keep ``link`` open until cancelled."""
    try:
        await trio.sleep_forever()
    finally:
        await link.aclose()


async def test_a_short_code_is_found_through_the_relay(tmp_path: Path) -> None:
    async with running_relay(tmp_path) as (_, port), trio.open_nursery() as nursery:
        invitation, code, shown = await offered_at(nursery, port)
        assert await ask_host("127.0.0.1", port, code) == invitation
        wrong = ShortCode(code.channel, "zebra" if code.first != "zebra" else "acid", "acid")
        with pytest.raises(WrongCode):
            await ask_host("127.0.0.1", port, wrong)
        assert not shown.guessed  # one wrong try is no attack
        with pytest.raises(HubRefused, match="not known there") as caught:
            await ask_host("127.0.0.1", port, ShortCode(code.channel + 1, "acid", "acid"))
        assert caught.value.reason == "no-channel"
        nursery.cancel_scope.cancel()


async def test_a_lost_claim_comes_back_on_the_same_channel_with_the_same_code(
    tmp_path: Path,
) -> None:
    claims = []

    async def claim(wanted: int) -> object:
        got = await claim_at("127.0.0.1", port, wanted)
        claims.append(got)
        return got

    async with running_relay(tmp_path) as (_, port), trio.open_nursery() as nursery:
        created = await create_at("127.0.0.1", port, HOST)
        invitation = Invitation(long_code(created, port), identity_bytes(HOST.public_key()))
        nursery.start_soon(hold, await connect(invitation.code, HOST))
        shown = Shown()
        nursery.start_soon(offer_table, claim, invitation, shown)
        await shown.changed.wait()
        await claims[0].aclose()  # the connection to the relay breaks
        with trio.fail_after(10):
            while len(claims) < 2:
                await trio.sleep(0.05)
        code = shown.codes[0][0]
        with trio.fail_after(10):
            assert await ask_host("127.0.0.1", port, code) == invitation
        assert len(shown.codes) == 1  # the same code works again
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("relay.example.org", Address("relay.example.org", 7770)),
        ("relay.example.org:9000", Address("relay.example.org", 9000)),
        (" 203.0.113.7:7000 ", Address("203.0.113.7", 7000)),
        ("[2001:db8::1]", Address("2001:db8::1", 7770)),
        ("[2001:db8::1]:80", Address("2001:db8::1", 80)),
    ],
)
def test_addresses_as_typed(text: str, address: Address) -> None:
    assert parse_address(text) == address
    assert parse_address(address.text()) == address


@pytest.mark.parametrize("text", ["", ":7000", "host:0", "host:99999", "host:x", "a b", "[::1"])
def test_bad_addresses_say_what_to_type(text: str) -> None:
    with pytest.raises(AddressError, match=r"address|port"):
        parse_address(text)


@pytest.mark.parametrize(
    ("host", "public"),
    [
        ("203.0.113.7", False),  # documentation range: not global
        ("8.8.8.8", True),
        ("2001:4860::1", True),
        ("relay.example.org", True),
        ("0.0.0.0", False),
        ("127.0.0.1", False),
        ("::1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.20", False),
        ("169.254.1.1", False),
        ("100.64.0.1", False),  # carrier-grade NAT
        ("fd00::1", False),
        ("fe80::1", False),
        ("localhost", False),
        ("tarot-box.local", False),
        ("tarotbox", False),
    ],
)
def test_which_addresses_reach_the_internet(host: str, public: bool) -> None:
    assert reaches_internet(host) is public


def test_the_code_holds_the_address_others_can_use() -> None:
    lan, public = Address("192.168.1.5", 7770), Address("relay.example.org", 7770)
    loop = Address("127.0.0.1", 7770)
    assert code_address(lan, public) == public  # the relay knows its public address
    assert code_address(lan, Address("192.168.1.5", 7770)) == lan
    assert code_address(loop, lan) == lan  # never loopback when the relay knows better
    assert code_address(Address("relay.example.org", 7770), lan) == Address(
        "relay.example.org", 7770
    )


async def test_bad_rendezvous_traffic_drops_only_that_connection(tmp_path: Path) -> None:
    async with running_relay(tmp_path) as (_, port), trio.open_nursery() as nursery:
        invitation, code, _ = await offered_at(nursery, port)
        oversize, _ = await dial("127.0.0.1", port, OpenHello(code.channel), 5)
        await oversize.send_frame(b"\x00" * 5000)
        with trio.fail_after(5), pytest.raises(LinkError):
            await oversize.receive_frame()  # the relay closed it
        garbage = []
        for junk in (b"\xc1", b"", b"\x81\xa1k\xa4pake"):
            framed, _ = await dial("127.0.0.1", port, OpenHello(code.channel), 5)
            await framed.send_frame(junk)  # the host ignores it: no answer
            garbage.append(framed)
        assert await ask_host("127.0.0.1", port, code) == invitation
        nursery.cancel_scope.cancel()


def test_the_relay_keeps_the_link_key_and_no_secret(tmp_path: Path) -> None:
    """wire.md §5.0: the host draws the table id and the secret; the relay holds the id,
    the link key and the host key, and its hub can make no join code."""
    tables = RelayTables(RELAY, tmp_path / "relay.json", Address("127.0.0.1", 1))
    hello = create_hello(HOST)
    created = tables.create(hello, "10.0.0.1")
    secret = SECRETS[hello.table_id]
    assert created.table_id == hello.table_id
    hub = tables.hubs[hello.table_id]
    assert hub.secret is None and hub.link_key == link_key(secret) == hello.link_key
    with pytest.raises(ValueError, match="no join secret"):
        hub.join_code("127.0.0.1", 1)
    kept = (tmp_path / "relay.json").read_text()
    assert secret.hex() not in kept and '"secret"' not in kept


def test_a_repeated_create_is_answered_again_and_a_hijack_refused(tmp_path: Path) -> None:
    """A host whose answer was lost asks again for its table (same id, host, link key): it
    is answered again, with no new table, even at its source's limit. The same id with
    another link key or another host is refused: nobody takes over a table's routing."""
    tables = RelayTables(
        RELAY, tmp_path / "relay.json", Address("127.0.0.1", 1), limits=SourceLimits(tables=1)
    )
    first = create_hello(HOST)
    made = tables.create(first, "10.0.0.1")
    again = access.create_hello(HOST, first.table_id, first.link_key)  # a fresh hello
    assert tables.create(again, "10.0.0.1") == made and len(tables.hubs) == 1
    other_key = access.create_hello(HOST, first.table_id, bytes(16))
    other_host = access.create_hello(PEER, first.table_id, first.link_key)
    for hijack in (other_key, other_host):
        with pytest.raises(Refusal) as refused:
            tables.create(hijack, "10.0.0.2")
        assert refused.value.reason == "bad-hello"
    assert tables.hubs[first.table_id].link_key == first.link_key
    forged = replace(again, signature=bytes(64))  # only the host may ask again
    with pytest.raises(Refusal):
        tables.create(forged, "10.0.0.1")


async def test_a_lost_created_answer_is_asked_for_again(tmp_path: Path) -> None:
    """The host's program asks again when the relay's answer does not come, and the relay
    answers it for the table it already holds."""
    tables = RelayTables(RELAY, tmp_path / "relay.json", Address("127.0.0.1", 1))
    asked: list[bytes] = []

    def lose_the_first(hello: CreateHello, source: str) -> Created:
        created = tables.create(hello, source)
        asked.append(hello.table_id)
        if len(asked) == 1:
            raise LinkError("the answer is lost on the way")
        return created

    door = Door(tables.lookup, create=lose_the_first, limits=tables.limits)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(door.serve, "127.0.0.1", 0)
        port = listeners[0].socket.getsockname()[1]
        created = await create_at("127.0.0.1", port, HOST)
        nursery.cancel_scope.cancel()
    assert asked == [created.table_id] * 2 and list(tables.hubs) == [created.table_id]
