"""A relay's tables cannot be taken by strangers: a few tables per address, a password or a
list of host keys for making them, hellos that cannot be replayed, tables forgotten when
unused (and not kept by a restart), a bounded backlog; what the host reads when refused."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli.host import relay_refusal
from tarot_p2p.net.access import (
    AllowedHostsError,
    RelayAccess,
    read_allowed_hosts,
)
from tarot_p2p.net.address import Address, parse_address
from tarot_p2p.net.hello import Created, CreateHello, HubRefused, dial
from tarot_p2p.net.limits import SourceLimits
from tarot_p2p.net.relay import RELAY_BACKLOG, RelayTables
from tarot_p2p.protocol.identity import fingerprint
from tests.net.tables import create_at, create_hello
from tests.net.test_relay import HOST, PEER, RELAY, running_relay

PASSWORD = "three little words"


async def create_from(source: str, port: int, hello: CreateHello | None = None) -> Created:
    """A table asked for from the address ``source`` (raises HubRefused)."""
    framed, answer = await dial(
        "127.0.0.1", port, hello or create_hello(HOST), 5, local_address=source
    )
    await framed.aclose()
    assert isinstance(answer, Created)
    return answer


async def refused(port: int, hello: CreateHello, source: str = "127.0.0.1") -> str:
    with pytest.raises(HubRefused) as caught:
        await create_from(source, port, hello)
    return caught.value.reason


async def test_one_address_may_have_only_a_few_tables_at_once(tmp_path: Path) -> None:
    async with running_relay(tmp_path, limits=SourceLimits(tables=3)) as (tables, port):
        for _ in range(3):  # (whatever key each hello is signed with: it is the address)
            await create_from("127.0.0.2", port, create_hello(Ed25519PrivateKey.generate()))
        assert await refused(port, create_hello(HOST), "127.0.0.2") == "too-many"
        await create_from("127.0.0.3", port)  # another address is not held back
        assert len(tables.hubs) == 4
    # A restart does not give the address its share back: the tables are still its own.
    async with running_relay(tmp_path, limits=SourceLimits(tables=3)) as (tables, port):
        assert len(tables.hubs) == 4
        assert await refused(port, create_hello(HOST), "127.0.0.2") == "too-many"


async def test_a_full_relay_tells_the_host_what_to_do(tmp_path: Path) -> None:
    async with running_relay(tmp_path, max_tables=2) as (_, port):
        await create_from("127.0.0.2", port)
        await create_from("127.0.0.3", port)
        with pytest.raises(HubRefused) as caught:
            await create_at("127.0.0.1", port, HOST)
    assert caught.value.reason == "full" and "is full" in str(caught.value)
    words = str(relay_refusal(caught.value, Address("127.0.0.1", port), HOST))
    assert "try again in a few minutes" in words.lower()
    assert "--relay ADDRESS" in words and "--no-relay" in words


async def test_a_relay_with_a_password_makes_tables_only_for_who_knows_it(
    tmp_path: Path,
) -> None:
    async with running_relay(tmp_path, access=RelayAccess(password=PASSWORD)) as (tables, port):
        assert await refused(port, create_hello(HOST)) == "password"
        assert await refused(port, create_hello(HOST, "three little word")) == "password"
        good = create_hello(HOST, PASSWORD)
        await create_from("127.0.0.1", port, good)
        # The same hello, recorded on the way and sent again, makes nothing.
        assert await refused(port, good, "127.0.0.5") == "bad-hello"
        assert len(tables.hubs) == 1
        with pytest.raises(HubRefused) as caught:
            await create_at("127.0.0.1", port, HOST)
    words = str(relay_refusal(caught.value, Address("127.0.0.1", port), HOST))
    assert "its password" in words and "--relay-password PASSWORD" in words
    wrong = relay_refusal(caught.value, Address("127.0.0.1", port, "guess"), HOST)
    assert "the one you gave is not it" in str(wrong)


async def test_a_relay_with_a_list_makes_tables_only_for_the_hosts_on_it(tmp_path: Path) -> None:
    listed = RelayAccess(hosts=frozenset([fingerprint(HOST.public_key())]))
    async with running_relay(tmp_path, access=listed) as (_, port):
        await create_from("127.0.0.1", port, create_hello(HOST))
        with pytest.raises(HubRefused) as caught:
            await create_from("127.0.0.1", port, create_hello(PEER))
    assert caught.value.reason == "not-allowed"
    words = str(relay_refusal(caught.value, Address("127.0.0.1", port), PEER))
    assert fingerprint(PEER.public_key()).hex() in words  # the key to send to the operator


async def test_hellos_from_another_time_or_forged_are_refused(tmp_path: Path) -> None:
    async with running_relay(tmp_path, access=RelayAccess(password=PASSWORD)) as (_, port):
        late = create_hello(HOST, PASSWORD, when=int(time.time()) - 3600)
        assert await refused(port, late) == "clock"
    # A hello signed by one key and said to be another's (at a relay whose list has both).
    listed = frozenset(fingerprint(k.public_key()) for k in (HOST, PEER))
    async with running_relay(tmp_path, access=RelayAccess(hosts=listed)) as (tables, port):
        good = create_hello(HOST)
        peer = PEER.public_key().public_bytes_raw()
        forged = replace(good, host=peer)
        assert await refused(port, forged) == "bad-hello"
        assert not tables.hubs


def test_the_list_of_hosts_is_read_with_words_for_its_mistakes(tmp_path: Path) -> None:
    path = tmp_path / "hosts.txt"
    key = fingerprint(HOST.public_key()).hex()
    path.write_text(f"# friends\n{key.upper()}  # Ana\n\n")
    assert read_allowed_hosts(path) == frozenset([bytes.fromhex(key)])
    path.write_text(f"{key}\nnot-a-key\n")
    with pytest.raises(AllowedHostsError, match=r"line 2: 'not-a-key' is not a key fingerprint"):
        read_allowed_hosts(path)
    path.write_text("# nobody yet\n")
    with pytest.raises(AllowedHostsError, match="lists no host key"):
        read_allowed_hosts(path)


def test_a_restart_keeps_used_tables_and_drops_those_unused_for_20_minutes(
    tmp_path: Path,
) -> None:
    """Tables keep the idle time they had when the relay stopped: the hours it was stopped
    do not count, and do not refresh them either."""
    path = tmp_path / "relay.json"
    tables = RelayTables(RELAY, path, Address("127.0.0.1", 1))
    busy, fresh, stale = (tables.create(create_hello(HOST), f"10.0.0.{i}") for i in range(3))
    stop = time.time()
    link = tables.hubs[busy.table_id].local_link()  # a member is connected when it stops
    tables.hubs[fresh.table_id].seen = stop - 5 * 60
    tables.hubs[stale.table_id].seen = stop - 21 * 60
    tables.save(stop)
    assert link is not None
    again = RelayTables(RELAY, path, Address("127.0.0.1", 1))
    start = stop + 6 * 3600  # six hours later
    again.load(start)
    assert set(again.hubs) == {busy.table_id, fresh.table_id}
    assert again.hubs[fresh.table_id].seen == pytest.approx(start - 5 * 60)
    assert again.makers[busy.table_id] == "10.0.0.0"
    assert again.sweep(start + 15 * 60) == [fresh.table_id]  # 5 + 15 minutes unused
    assert again.sweep(start + 20 * 60) == [busy.table_id]


def test_a_file_from_before_keeps_no_table_unused_for_a_day(tmp_path: Path) -> None:
    path = tmp_path / "relay.json"
    row = {"table_id": "ab" * 32, "secret": "cd" * 16, "seen": time.time() - 23 * 3600}
    path.write_text(json.dumps({"port": 7770, "tables": [row]}))
    tables = RelayTables(RELAY, path, Address("127.0.0.1", 1))
    tables.load()
    assert tables.hubs == {} and tables.port == 7770


async def test_a_relay_table_keeps_a_bounded_backlog(tmp_path: Path) -> None:
    tables = RelayTables(RELAY, tmp_path / "relay.json", Address("127.0.0.1", 1))
    hub = tables.hubs[tables.create(create_hello(HOST), "10.0.0.1").table_id]
    talker = hub.local_link()
    for _ in range(12):
        await talker.send(b"x" * (1 << 20))
    assert hub._log_bytes <= RELAY_BACKLOG
    await talker.aclose()


def test_a_password_is_part_of_the_relay_address_but_never_of_its_text() -> None:
    address = parse_address("three little words@relay.example.org:7000")
    assert address == Address("relay.example.org", 7000, "three little words")
    assert address.text() == "relay.example.org:7000"
    assert address.typed() == "three little words@relay.example.org:7000"
    assert parse_address(address.typed()) == address
    assert "three" not in repr(address)
