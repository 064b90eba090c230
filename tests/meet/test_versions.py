"""Programs of another protocol version are refused in words on both sides (``lobby.md``
§1.4, ``protocol/README.md`` "Versions"), tested with a frozen version-1 join request and
set-up (``tests/data/version1_lobby.json``, made by the version-1 code)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli.errors import explain
from tarot_p2p.cli.lobby_news import lobby_news
from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.meet.lobby import (
    JOIN_REQUEST_DOMAIN,
    LobbyChange,
    LobbyError,
    OtherVersion,
    Seating,
    read_lobby_request,
    read_table_offer,
    seat_proof,
)
from tarot_p2p.net.hub import Hub
from tarot_p2p.protocol.codec import encode
from tarot_p2p.protocol.identity import fingerprint
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.seat.session import LobbyTimeout, host_table, join_table

V1 = json.loads((Path(__file__).parents[1] / "data" / "version1_lobby.json").read_text())
TABLE = bytes.fromhex(V1["table_id"])
KEYS = [Ed25519PrivateKey.from_private_bytes(bytes.fromhex(s)) for s in V1["seeds"]]
SECRET = b"\x09" * 16
CONFIG = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=1)


def test_this_program_speaks_version_2() -> None:
    assert PROTOCOL_VERSION == 5 and V1["protocol_version"] == 1


def test_the_host_given_a_version_1_request_says_who_must_update() -> None:
    seating = Seating(3, KEYS[0].public_key(), "Host", SECRET)
    wire = bytes.fromhex(V1["join_request"])
    with pytest.raises(OtherVersion) as other:
        read_lobby_request(wire, TABLE, SECRET)
    assert other.value.version == 1 and other.value.name == "Bob"
    change = seating.offer(wire, TABLE, 0)
    assert change is not None and change.kind == "other-version" and change.version == 1
    assert seating.names == ["Host"]  # nobody seated
    assert lobby_news(change) == (
        "Bob cannot sit: their program speaks tarot-p2p protocol 1, and this table is played "
        "with protocol 5; they must update it; waiting for 2 more players"
    )
    assert seating.offer(wire, TABLE, 1) is None  # told once, not every 5 seconds
    assert seating.offer(bytes.fromhex(V1["leave_request"]), TABLE, 1) is None
    # Another table's version-1 request, or a forged one, is junk as before.
    assert seating.offer(wire, bytes(32), 2) is None
    forged = bytearray(wire)
    forged[-1] ^= 1
    with pytest.raises(LobbyError, match="bad signature"):
        read_lobby_request(bytes(forged), TABLE, SECRET)


def test_a_newer_program_is_told_to_the_host_too() -> None:
    """A request of the version-2 form saying another ``v`` (a later release)."""
    key = KEYS[2]
    raw = key.public_key().public_bytes_raw()
    proof = seat_proof(SECRET, TABLE, raw)
    payload = encode({"i": raw, "k": "join", "n": "Carol", "p": proof, "t": TABLE, "v": 6})
    wire = encode([payload, key.sign(JOIN_REQUEST_DOMAIN + payload)])
    change = Seating(3, KEYS[0].public_key(), "Host", SECRET).offer(wire, TABLE, 0)
    assert change is not None and change.version == 6
    assert "protocol 6, and this table is played with protocol 5; update this program" in (
        lobby_news(change)
    )


async def test_a_hosts_lobby_tells_the_version_1_joiner_and_goes_on() -> None:
    hub = Hub(KEYS[0], TABLE, SECRET)
    changes: list[LobbyChange] = []
    await hub.local_link().send(bytes.fromhex(V1["join_request"]))
    with pytest.raises(LobbyTimeout, match="did not fill up"):
        await host_table(
            hub.local_link(), KEYS[0], "Host", CONFIG, TABLE, SECRET,
            on_change=changes.append, timeout=1,
        )  # fmt: skip
    assert [(c.kind, c.name, c.version) for c in changes] == [("other-version", "Bob", 1)]


def test_a_joiner_given_a_version_1_set_up_says_who_must_update() -> None:
    setup = bytes.fromhex(V1["setup"])
    me = KEYS[1].public_key()
    host = fingerprint(KEYS[0].public_key())
    words = (
        "this table is played with tarot-p2p protocol 1; your program speaks 5: the host's "
        "program must be updated"
    )
    with pytest.raises(OtherVersion) as other:
        read_table_offer(setup, TABLE, me, "Bob", host)
    assert str(other.value) == words and other.value.version == 1
    with pytest.raises(OtherVersion):
        read_table_offer(setup, TABLE, me, "Bob")  # signed by its roster key 0
    # Signed by another host than the code names, altered, or of another table: the old
    # refusals, nothing about versions (nobody can make a joiner quit with a fake one).
    with pytest.raises(LobbyError) as foreign:
        read_table_offer(setup, TABLE, me, "Bob", fingerprint(KEYS[2].public_key()))
    assert not isinstance(foreign.value, OtherVersion)
    altered = bytearray(setup)
    altered[-1] ^= 1
    for wire, table in ((bytes(altered), TABLE), (setup, bytes(32))):
        with pytest.raises(LobbyError) as refused:
            read_table_offer(wire, table, me, "Bob", host)
        assert not isinstance(refused.value, OtherVersion)
    explained = explain(other.value)
    assert explained is not None and words in explained[0]


async def test_a_joiner_stops_at_a_version_1_set_up_signed_by_its_host(
    autojump_clock: object,
) -> None:
    hub = Hub(KEYS[0], TABLE, SECRET)
    await hub.local_link().send(bytes.fromhex(V1["setup"]))
    host = fingerprint(KEYS[0].public_key())
    with pytest.raises(OtherVersion, match="protocol 1; your program speaks 5"):
        await join_table(
            hub.local_link(), KEYS[1], "Bob", TABLE, SECRET, hub_fingerprint=host, timeout=60
        )
    start = trio.current_time()
    # Through a relay with no host key, the joiner cannot tell who signed it: it says so
    # when its wait ends, not at once.
    with pytest.raises(OtherVersion, match="the host's program must be updated"):
        await join_table(hub.local_link(), KEYS[1], "Bob", TABLE, SECRET, timeout=60)
    assert trio.current_time() - start == pytest.approx(60)
