"""The lobby before the transcript: join requests, seating, and the joiner's checks of the
set-up it is offered (``tarot_p2p/net/lobby.py``, ``protocol/lobby.md``)."""

from __future__ import annotations

import hashlib

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.joincode import fingerprint
from tarot_p2p.net.lobby import (
    JOIN_REQUEST_DOMAIN,
    LobbyError,
    Seating,
    join_request,
    read_join_request,
    read_table_offer,
)
from tarot_p2p.net.session import LobbyTimeout, host_table, join_table
from tarot_p2p.protocol.codec import decode, encode
from tarot_p2p.protocol.envelope import seal
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.transcript import genesis_digest
from tarot_p2p.rules.config import GameEnd, TableConfig

TABLE = hashlib.sha256(b"lobby table").digest()
KEYS = [Ed25519PrivateKey.from_private_bytes(bytes([0x30 + i]) * 32) for i in range(5)]
CONFIG = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=1)


def test_join_request_is_the_documented_bytes() -> None:
    wire = join_request(KEYS[1], "  Alice   B ", TABLE)
    payload, signature = decode(wire)  # type: ignore[misc]
    assert payload == encode(
        {"i": KEYS[1].public_key().public_bytes_raw(), "k": "join", "n": "Alice B", "t": TABLE}
    )
    KEYS[1].public_key().verify(signature, JOIN_REQUEST_DOMAIN + payload)
    request = read_join_request(wire, TABLE)
    assert request.name == "Alice B"


def test_bad_join_requests_are_refused() -> None:
    wire = join_request(KEYS[1], "Alice", TABLE)
    with pytest.raises(LobbyError):
        read_join_request(wire, bytes(32))  # another table
    payload, _ = decode(wire)  # type: ignore[misc]
    with pytest.raises(LobbyError, match="signature"):
        read_join_request(encode([payload, bytes(64)]), TABLE)
    for junk in (b"", b"\xc1", encode([payload]), encode({"k": "join"})):
        with pytest.raises(LobbyError):
            read_join_request(junk, TABLE)
    with pytest.raises(LobbyError):
        join_request(KEYS[1], "   ", TABLE)


def test_seating_in_relay_order_without_duplicates() -> None:
    seating = Seating(3, KEYS[0].public_key(), "Host")
    assert seating.offer(b"junk", TABLE) is None
    first = seating.offer(join_request(KEYS[1], "host", TABLE), TABLE)
    assert first is not None and first.name == "host (2)"  # names differ ignoring case
    assert seating.offer(join_request(KEYS[1], "Again", TABLE), TABLE) is None  # same key
    assert seating.offer(join_request(KEYS[2], "Bob", TABLE), TABLE) is not None
    assert seating.full
    assert seating.offer(join_request(KEYS[3], "Late", TABLE), TABLE) is None
    assert seating.names == ["Host", "host (2)", "Bob"]


def host_setup(keys: list[Ed25519PrivateKey], names: list[str]) -> bytes:
    host = Peer(
        CONFIG,
        TABLE,
        [k.public_key() for k in keys],
        names,
        seat=0,
        identity=keys[0],
        rng=DeterministicRandom(b"host"),
    )
    wire = host.next_message()
    assert wire is not None
    return wire


def test_a_joiner_checks_the_set_up() -> None:
    wire = host_setup(KEYS[:3], ["Host", "host (2)", "Bob"])
    me = KEYS[1].public_key()
    offer = read_table_offer(wire, TABLE, me, "host", fingerprint(KEYS[0].public_key()))
    assert offer.index == 1 and offer.config == CONFIG and offer.names[1] == "host (2)"
    with pytest.raises(LobbyError, match="join code"):
        read_table_offer(wire, TABLE, me, "host", fingerprint(KEYS[4].public_key()))
    with pytest.raises(LobbyError, match="another name"):
        read_table_offer(wire, TABLE, me, "Carol")
    with pytest.raises(LobbyError):
        read_table_offer(wire, bytes(32), me, "host")
    outsider = read_table_offer(wire, TABLE, KEYS[4].public_key(), "Eve")
    assert outsider.index is None  # the table is full without this key
    # A set-up signed by anyone but roster key 0 is refused.
    forged = bytearray(wire)
    forged[-1] ^= 1
    with pytest.raises(LobbyError):
        read_table_offer(bytes(forged), TABLE, me, "host")


def signed_setup(config: TableConfig, roster: list[bytes], names: list[str], prev: bytes) -> bytes:
    """A set-up message validly signed by roster key 0, whatever it says."""
    body = {"config": config.canonical_bytes(), "roster": roster, "names": names}
    env = seal(KEYS[0], table_id=TABLE, hand=0, seq=0, seat=0, prev=prev, kind="table", body=body)
    return env.wire


def test_a_signed_set_up_the_joiner_cannot_play_is_refused() -> None:
    raw = [k.public_key().public_bytes_raw() for k in KEYS]
    me = KEYS[1].public_key()
    binding = Peer(CONFIG, TABLE, [k.public_key() for k in KEYS[:3]], ["a", "b", "c"]).binding
    start = genesis_digest(TABLE, binding)
    assert read_table_offer(signed_setup(CONFIG, raw[:3], ["a", "b", "c"], start), TABLE, me, "b")
    four = TableConfig(players=4, game_end=GameEnd.DEALS, game_length=1)
    unusable = [
        (CONFIG, raw[:4], ["a", "b", "c"], start),  # more keys than seats and names
        (four, raw[:3], ["a", "b", "c"], start),  # a four-seat table with three keys
        (CONFIG, raw[:3], ["a", "b", "c"], bytes(32)),  # not built on the genesis digest
    ]
    for config, roster, names, prev in unusable:
        with pytest.raises(LobbyError):
            read_table_offer(signed_setup(config, roster, names, prev), TABLE, me, "b")


async def test_lobby_waits_end_with_a_clear_timeout(autojump_clock: object) -> None:
    """Nobody joins the host; no set-up reaches the joiner: both give up, saying why."""
    hub = Hub(KEYS[0], TABLE, b"\x07" * 16)
    with pytest.raises(LobbyTimeout, match="did not fill up"):
        await host_table(hub.local_link(), KEYS[0], "Host", CONFIG, TABLE, timeout=60)
    start = trio.current_time()
    with pytest.raises(LobbyTimeout, match="no set-up"):
        await join_table(hub.local_link(), KEYS[1], "Ann", TABLE, timeout=60)
    assert trio.current_time() - start == pytest.approx(60)
