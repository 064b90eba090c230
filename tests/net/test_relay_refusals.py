"""A relay's tables at their edges: what ``relay.json`` must hold to be read, the idle time
kept across a restart to the second, and the limits on tables counted exactly.

Each test builds its own relay (no fixture): the mutation check (docs/mutation.md) runs
these tests against every changed check of ``net/relay.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.net.address import Address
from tarot_p2p.net.joincode import link_key
from tarot_p2p.net.limits import Refusal, SourceLimits
from tarot_p2p.net.relay import FORGET_AFTER, RelayFileError, RelayTables
from tarot_p2p.protocol.identity import identity_bytes
from tests.net.tables import create_hello

RELAY = Ed25519PrivateKey.from_private_bytes(b"\x33" * 32)
HOST = Ed25519PrivateKey.from_private_bytes(b"\x44" * 32)
SAVED = 1_800_000_000.0
TABLE = "ab" * 32
KEY = "cd" * 16


def relay(path: Path, **options: Any) -> RelayTables:
    return RelayTables(RELAY, path / "relay.json", Address("127.0.0.1", 1), **options)


def write(path: Path, *rows: dict[str, object], **document: object) -> None:
    (path / "relay.json").write_text(json.dumps({"saved": SAVED, "tables": rows, **document}))


def row(table_id: str = TABLE, **fields: object) -> dict[str, object]:
    return {"table_id": table_id, "link_key": KEY, **fields}


def test_a_table_idle_just_under_the_limit_is_kept_and_one_at_it_dropped(tmp_path: Path) -> None:
    write(
        tmp_path,
        row("01" * 32, seen=SAVED - FORGET_AFTER + 1),
        row("02" * 32, seen=SAVED - FORGET_AFTER),
    )
    tables = relay(tmp_path)
    start = SAVED + 3600.0
    tables.load(start)
    assert list(tables.hubs) == [bytes.fromhex("01" * 32)]
    assert tables.hubs[bytes.fromhex("01" * 32)].seen == start - FORGET_AFTER + 1


def test_a_table_dropped_on_loading_leaves_the_tables_after_it(tmp_path: Path) -> None:
    write(tmp_path, row("01" * 32, seen=SAVED - FORGET_AFTER), row("02" * 32, seen=SAVED))
    tables = relay(tmp_path)
    tables.load(SAVED)
    assert list(tables.hubs) == [bytes.fromhex("02" * 32)]


def test_a_table_with_a_member_connected_is_saved_as_in_use(tmp_path: Path) -> None:
    """However long ago its last member came, a table with one connected when the relay
    stops has all its twenty minutes again after the restart."""
    tables = relay(tmp_path)
    hello = create_hello(HOST)
    tables.create(hello, "10.0.0.9")
    hub = tables.hubs[hello.table_id]
    link = hub.local_link()
    hub.seen = SAVED - 2 * FORGET_AFTER
    tables.save(SAVED)
    assert link is not None
    again = relay(tmp_path)
    again.load(SAVED + 60.0)
    assert again.hubs[hello.table_id].seen == SAVED + 60.0


def test_a_table_in_use_when_saved_starts_again_with_no_idle_time(tmp_path: Path) -> None:
    """Its ``seen`` is the save time: after a restart it has all twenty minutes again."""
    write(tmp_path, row(seen=SAVED, by="10.0.0.7", host="44" * 32))
    tables = relay(tmp_path)
    tables.load(SAVED + 60.0)
    table_id = bytes.fromhex(TABLE)
    assert tables.hubs[table_id].seen == SAVED + 60.0
    assert tables.makers[table_id] == "10.0.0.7"
    assert tables.hosts[table_id] == bytes.fromhex("44" * 32)
    assert tables.hubs[table_id].link_key == bytes.fromhex(KEY)


def test_a_seen_time_after_the_save_counts_as_no_idle_time(tmp_path: Path) -> None:
    """A clock set back between two saves must not make a table younger than new."""
    write(tmp_path, row(seen=SAVED + 500.0))
    tables = relay(tmp_path)
    tables.load(SAVED + 60.0)
    assert tables.hubs[bytes.fromhex(TABLE)].seen == SAVED + 60.0


def test_a_file_with_no_save_time_counts_from_now(tmp_path: Path) -> None:
    now = SAVED + 7 * 24 * 3600.0
    (tmp_path / "relay.json").write_text(json.dumps({"tables": [row(seen=now - 60.0)]}))
    tables = relay(tmp_path)
    tables.load(now)
    assert tables.hubs[bytes.fromhex(TABLE)].seen == now - 60.0
    assert tables.makers[bytes.fromhex(TABLE)] == "" and tables.hosts[bytes.fromhex(TABLE)] == b""


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (row("ab" * 31), "bad table id or link key length"),
        ({"table_id": TABLE, "link_key": "cd" * 17}, "bad table id or link key length"),
        ({"table_id": TABLE, "secret": "cd" * 15}, "bad secret length"),
    ],
)
def test_a_damaged_file_says_what_is_damaged(
    tmp_path: Path, bad: dict[str, object], words: str
) -> None:
    write(tmp_path, bad)
    with pytest.raises(RelayFileError, match=rf"relay\.json is damaged \({words}\): move it"):
        relay(tmp_path).load(SAVED)


@pytest.mark.parametrize(
    "bad",
    [
        row("ab" * 31),  # a table id one byte short
        row("ab" * 33),
        {"table_id": TABLE, "link_key": "cd" * 15},
        {"table_id": TABLE, "link_key": "cd" * 17},
        {"table_id": TABLE, "secret": "cd" * 15},  # an older relay's secret, one byte short
        {"table_id": TABLE, "secret": "cd" * 17},
        {"table_id": TABLE},
        row(seen="yesterday"),
        row(host="not hex"),
    ],
)
def test_a_damaged_file_is_refused_in_words(tmp_path: Path, bad: dict[str, object]) -> None:
    write(tmp_path, bad)
    with pytest.raises(RelayFileError, match=r"relay\.json is damaged \(.*\): move it away"):
        relay(tmp_path).load(SAVED)


def test_a_file_that_is_no_json_is_refused_in_words(tmp_path: Path) -> None:
    (tmp_path / "relay.json").write_text("{")
    with pytest.raises(RelayFileError, match=r"relay\.json cannot be read \(.*\): move it away"):
        relay(tmp_path).load(SAVED)


def test_an_older_relays_secret_gives_the_link_key(tmp_path: Path) -> None:
    secret = bytes(range(16))
    write(tmp_path, {"table_id": TABLE, "secret": secret.hex(), "seen": SAVED})
    tables = relay(tmp_path)
    tables.load(SAVED)
    assert tables.hubs[bytes.fromhex(TABLE)].link_key == link_key(secret)


def test_a_save_writes_every_field_back(tmp_path: Path) -> None:
    tables = relay(tmp_path)
    hello = create_hello(HOST)
    tables.create(hello, "10.0.0.9")
    tables.hubs[hello.table_id].seen = SAVED - 30.0
    tables.port = 7770
    tables.save(SAVED)
    document = json.loads((tmp_path / "relay.json").read_text())
    assert document == {
        "port": 7770,
        "saved": SAVED,
        "tables": [
            {
                "table_id": hello.table_id.hex(),
                "link_key": hello.link_key.hex(),
                "host": identity_bytes(HOST.public_key()).hex(),
                "seen": SAVED - 30.0,
                "by": "10.0.0.9",
            }
        ],
    }


def test_a_sweep_forgets_a_table_whole(tmp_path: Path) -> None:
    tables = relay(tmp_path)
    hello = create_hello(HOST)
    tables.create(hello, "10.0.0.9")
    at = tables.hubs[hello.table_id].seen
    assert tables.sweep(at + FORGET_AFTER - 1) == []
    assert tables.sweep(at + FORGET_AFTER) == [hello.table_id]
    assert not tables.hubs and not tables.makers and not tables.hosts


def test_a_source_gets_exactly_its_share_of_tables(tmp_path: Path) -> None:
    tables = relay(tmp_path, limits=SourceLimits(tables=2))
    for _ in range(2):
        tables.create(create_hello(HOST), "10.0.0.1")
    with pytest.raises(Refusal, match=r"^10\.0\.0\.1 has 2 tables$") as caught:
        tables.create(create_hello(HOST), "10.0.0.1")
    assert caught.value.reason == "too-many"
    tables.create(create_hello(HOST), "10.0.0.2")
    assert len(tables.hubs) == 3


def test_a_relay_makes_exactly_its_number_of_tables(tmp_path: Path) -> None:
    tables = relay(tmp_path, max_tables=2)
    tables.create(create_hello(HOST), "10.0.0.1")
    tables.create(create_hello(HOST), "10.0.0.2")
    with pytest.raises(Refusal, match=r"^2 tables$") as caught:
        tables.create(create_hello(HOST), "10.0.0.3")
    assert caught.value.reason == "full" and len(tables.hubs) == 2


def test_a_created_answer_names_the_table_the_relay_and_its_address(tmp_path: Path) -> None:
    tables = relay(tmp_path)
    hello = create_hello(HOST)
    created = tables.create(hello, "10.0.0.1")
    assert created.table_id == hello.table_id
    assert created.identity == identity_bytes(RELAY.public_key())
    assert created.address == "127.0.0.1:1"
