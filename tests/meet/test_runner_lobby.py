"""The lobby before the transcript: join requests, seating, and the joiner's checks of the
set-up it is offered (``tarot_p2p/meet/lobby.py``, ``protocol/lobby.md``)."""

from __future__ import annotations

import hashlib
import hmac
import re

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.meet.lobby import (
    JOIN_AGAIN,
    JOIN_REQUEST_DOMAIN,
    LIVENESS,
    LobbyChange,
    LobbyError,
    Seating,
    join_request,
    leave_request,
    read_lobby_request,
    read_table_offer,
    seat_proof,
)
from tarot_p2p.net.hub import Hub
from tarot_p2p.protocol.codec import decode, encode
from tarot_p2p.protocol.envelope import seal
from tarot_p2p.protocol.identity import fingerprint
from tarot_p2p.protocol.names import NameRefused, for_terminal
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.transcript import genesis_digest
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.seat.session import LobbyTimeout, host_table, join_table
from tests.protocol.test_names import ATTACKS

TABLE = hashlib.sha256(b"lobby table").digest()
SECRET = b"\x07" * 16
KEYS = [Ed25519PrivateKey.from_private_bytes(bytes([0x30 + i]) * 32) for i in range(5)]
CONFIG = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=1)


def test_join_request_is_the_documented_bytes() -> None:
    wire = join_request(KEYS[1], "  Alice   B ", TABLE, SECRET)
    payload, signature = decode(wire)  # type: ignore[misc]
    raw = KEYS[1].public_key().public_bytes_raw()
    proof = hmac.new(SECRET, b"tarot-p2p/seat/v1\x00" + TABLE + raw, hashlib.sha256).digest()
    assert payload == encode(
        {"i": raw, "k": "join", "n": "Alice B", "p": proof, "t": TABLE, "v": PROTOCOL_VERSION}
    )
    KEYS[1].public_key().verify(signature, JOIN_REQUEST_DOMAIN + payload)
    request = read_lobby_request(wire, TABLE, SECRET)
    assert request.name == "Alice B" and request.kind == "join"


def test_bad_join_requests_are_refused() -> None:
    wire = join_request(KEYS[1], "Alice", TABLE, SECRET)
    with pytest.raises(LobbyError):
        read_lobby_request(wire, bytes(32), SECRET)  # another table
    payload, _ = decode(wire)  # type: ignore[misc]
    with pytest.raises(LobbyError, match="signature"):
        read_lobby_request(encode([payload, bytes(64)]), TABLE, SECRET)
    for junk in (b"", b"\xc1", encode([payload]), encode({"k": "join"})):
        with pytest.raises(LobbyError):
            read_lobby_request(junk, TABLE, SECRET)
    with pytest.raises(NameRefused):
        join_request(KEYS[1], "   ", TABLE, SECRET)


def test_seating_in_relay_order_without_duplicates() -> None:
    seating = Seating(3, KEYS[0].public_key(), "Host", SECRET)
    assert seating.offer(b"junk", TABLE, 0) is None
    first = seating.offer(join_request(KEYS[1], "host", TABLE, SECRET), TABLE, 0)
    assert first is not None and first.name == "host (2)"  # names differ ignoring case
    assert first.kind == "joined" and first.names == ("Host", "host (2)") and first.missing == 1
    assert seating.offer(join_request(KEYS[1], "host", TABLE, SECRET), TABLE, 1) is None  # a repeat
    assert (
        seating.offer(join_request(KEYS[0], "Me", TABLE, SECRET), TABLE, 1) is None
    )  # the host's key
    assert seating.offer(join_request(KEYS[2], "Bob", TABLE, SECRET), TABLE, 2) is not None
    assert seating.full
    assert seating.offer(join_request(KEYS[3], "Late", TABLE, SECRET), TABLE, 3) is None
    assert seating.names == ["Host", "host (2)", "Bob"]


def test_a_leave_request_frees_the_seat_at_once() -> None:
    seating = Seating(4, KEYS[0].public_key(), "Host", SECRET)
    for i, name in ((1, "Ann"), (2, "Bob"), (3, "Cid")):
        seating.offer(join_request(KEYS[i], name, TABLE, SECRET), TABLE, 0)
    assert seating.full
    left = seating.offer(leave_request(KEYS[2], "Bob", TABLE, SECRET), TABLE, 1)
    assert left is not None and (left.kind, left.name, left.missing) == ("left", "Bob", 1)
    assert left.names == ("Host", "Ann", "Cid") and not seating.full
    assert seating.offer(leave_request(KEYS[2], "Bob", TABLE, SECRET), TABLE, 1) is None  # twice
    assert (
        seating.offer(leave_request(KEYS[4], "Eve", TABLE, SECRET), TABLE, 1) is None
    )  # never sat
    assert (
        seating.offer(leave_request(KEYS[0], "Host", TABLE, SECRET), TABLE, 1) is None
    )  # the host
    back = seating.offer(join_request(KEYS[2], "Bob", TABLE, SECRET), TABLE, 2)
    assert back is not None and back.kind == "joined"
    assert seating.names == ["Host", "Ann", "Cid", "Bob"]  # back at the end of the order
    payload, _ = decode(leave_request(KEYS[1], "Ann", TABLE, SECRET))  # type: ignore[misc]
    forged = encode([payload, bytes(64)])
    assert seating.offer(forged, TABLE, 3) is None and "Ann" in seating.names
    assert seating.offer(leave_request(KEYS[1], "Ann", bytes(32), SECRET), TABLE, 3) is None


def signed_as_typed(key: Ed25519PrivateKey, kind: str, name: str) -> bytes:
    """A lobby request signed with ``name`` as it is, as a program without the name rule
    (or a forger) sends it: :func:`join_request` refuses to build it."""
    raw = key.public_key().public_bytes_raw()
    proof = seat_proof(SECRET, TABLE, raw)
    payload = encode(
        {"i": raw, "k": kind, "n": name, "p": proof, "t": TABLE, "v": PROTOCOL_VERSION}
    )
    return encode([payload, key.sign(JOIN_REQUEST_DOMAIN + payload)])


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_a_join_request_with_a_name_a_terminal_obeys_seats_nobody(name: str) -> None:
    """lobby.md §1.2: the host ignores it, with the reason; the joiner's own program never
    builds it, and says why in words."""
    seating = Seating(3, KEYS[0].public_key(), "Host", SECRET)
    wire = signed_as_typed(KEYS[1], "join", name)
    with pytest.raises(LobbyError, match=re.escape(ATTACKS[name][1])) as refused:
        read_lobby_request(wire, TABLE, SECRET)
    assert str(refused.value).startswith(f'join request refused: the name "{for_terminal(name)}"')
    assert seating.offer(wire, TABLE, 0) is None and seating.names == ["Host"]
    with pytest.raises(NameRefused, match="Choose a name of letters"):
        join_request(KEYS[1], name, TABLE, SECRET)
    honest = seating.offer(join_request(KEYS[2], "Bob", TABLE, SECRET), TABLE, 1)
    assert honest is not None and honest.names == ("Host", "Bob") and honest.missing == 1


def test_a_renaming_to_a_refused_name_keeps_the_seat_and_its_name() -> None:
    seating = Seating(3, KEYS[0].public_key(), "Host", SECRET)
    seating.offer(join_request(KEYS[1], "Ann", TABLE, SECRET), TABLE, 0)
    assert seating.offer(signed_as_typed(KEYS[1], "join", "Ann\x1b[2J"), TABLE, 1) is None
    assert seating.names == ["Host", "Ann"]
    # A leave request's name is not read (lobby.md §1.1): it frees the seat all the same.
    left = seating.offer(signed_as_typed(KEYS[1], "leave", "Ann\u202e"), TABLE, 2)
    assert left is not None and left.kind == "left" and seating.names == ["Host"]


def test_a_seat_whose_requests_stop_is_freed() -> None:
    seating = Seating(3, KEYS[0].public_key(), "Host", SECRET)
    assert seating.next_silence() == float("inf")
    seating.offer(join_request(KEYS[1], "Ann", TABLE, SECRET), TABLE, 0.0)
    seating.offer(join_request(KEYS[2], "Bob", TABLE, SECRET), TABLE, 4.0)
    assert seating.next_silence() == LIVENESS == 3 * JOIN_AGAIN
    for t in (5.0, 10.0):  # Ann keeps asking, Bob went quiet
        seating.offer(join_request(KEYS[1], "Ann", TABLE, SECRET), TABLE, t)
    assert seating.expire(4.0 + LIVENESS - 0.001) == []
    gone = seating.expire(4.0 + LIVENESS)
    assert [(c.kind, c.name, c.missing) for c in gone] == [("silent", "Bob", 1)]
    assert seating.names == ["Host", "Ann"] and seating.next_silence() == 10.0 + LIVENESS


def test_a_retry_keeps_its_seat_and_may_change_its_name() -> None:
    seating = Seating(4, KEYS[0].public_key(), "Host", SECRET)
    seating.offer(join_request(KEYS[1], "Ann", TABLE, SECRET), TABLE, 0)
    seating.offer(join_request(KEYS[2], "Bob", TABLE, SECRET), TABLE, 0)
    renamed = seating.offer(join_request(KEYS[1], "bob", TABLE, SECRET), TABLE, 1)
    assert renamed is not None and (renamed.kind, renamed.name) == ("renamed", "bob (2)")
    assert seating.names == ["Host", "bob (2)", "Bob"]
    again = seating.offer(join_request(KEYS[1], "Annie", TABLE, SECRET), TABLE, 2)
    assert again is not None and seating.names == ["Host", "Annie", "Bob"]


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
    hub = Hub(KEYS[0], TABLE, SECRET)
    with pytest.raises(LobbyTimeout, match="did not fill up"):
        await host_table(hub.local_link(), KEYS[0], "Host", CONFIG, TABLE, SECRET, timeout=60)
    start = trio.current_time()
    with pytest.raises(LobbyTimeout, match="no set-up"):
        await join_table(hub.local_link(), KEYS[1], "Ann", TABLE, SECRET, timeout=60)
    assert trio.current_time() - start == pytest.approx(60)


FOUR = TableConfig(players=4, game_end=GameEnd.DEALS, game_length=1)


async def seat_four(
    hub: Hub, leaver: trio.CancelScope | None
) -> tuple[list[str], list[LobbyChange], dict[str, int | None]]:
    """Ann joins, then Bob, who leaves (``leaver`` cancelled; ``None``: Bob sends one
    request and then goes silent), then Cid and Dan: the names of the set-up the host
    sends, what the host was told, and where each joiner sat."""
    changes: list[LobbyChange] = []
    seats: dict[str, int | None] = {}

    async def joiner(key: Ed25519PrivateKey, name: str) -> None:
        _, offer = await join_table(hub.local_link(), key, name, TABLE, SECRET, timeout=600)
        seats[name] = offer.index

    async def bob() -> None:
        if leaver is None:
            await hub.local_link().send(join_request(KEYS[2], "Bob", TABLE, SECRET))
        else:
            with leaver:
                await joiner(KEYS[2], "Bob")

    async def the_others() -> None:
        while not any(c.name == "Bob" and c.kind in ("left", "silent") for c in changes):
            await trio.sleep(0.5)
        nursery.start_soon(joiner, KEYS[3], "Cid")
        await trio.sleep(1)
        nursery.start_soon(joiner, KEYS[4], "Dan")

    host_link = hub.local_link()
    with trio.fail_after(300):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(joiner, KEYS[1], "Ann")
            await trio.sleep(1)
            nursery.start_soon(bob)
            nursery.start_soon(the_others)
            peer = await host_table(
                host_link,
                KEYS[0],
                "Host",
                FOUR,
                TABLE,
                SECRET,
                on_change=changes.append,
                timeout=600,
            )
            setup = peer.next_message()
            assert setup is not None
            await host_link.send(setup)
    return list(peer.names), changes, seats


async def test_a_joiner_that_quits_the_lobby_leaves_no_ghost(autojump_clock: object) -> None:
    """The trap: Bob quits before the table is full. Before the leave request, Bob kept his
    seat, the last joiner was told the host seated other players, and the table started
    with a ghost."""
    hub = Hub(KEYS[0], TABLE, SECRET)
    leaver = trio.CancelScope()

    async def quit_soon() -> None:
        await trio.sleep(3)
        leaver.cancel()  # what Ctrl-C or a closed page does to the joiner's program

    async with trio.open_nursery() as nursery:
        nursery.start_soon(quit_soon)
        start = trio.current_time()
        names, changes, seats = await seat_four(hub, leaver)
    assert names == ["Host", "Ann", "Cid", "Dan"] and seats == {"Ann": 1, "Cid": 2, "Dan": 3}
    assert [(c.kind, c.name, c.missing) for c in changes] == [
        ("joined", "Ann", 2),
        ("joined", "Bob", 1),
        ("left", "Bob", 2),
        ("joined", "Cid", 1),
        ("joined", "Dan", 0),
    ]
    assert changes[2].names == ("Host", "Ann")
    assert trio.current_time() - start < LIVENESS  # freed by the leave, not by the silence


async def test_a_joiner_that_goes_silent_is_unseated(autojump_clock: object) -> None:
    """Bob's program died without a word (a crash, a cable pulled): his seat is freed once
    his requests have stopped for LIVENESS seconds, and the others sit instead."""
    hub = Hub(KEYS[0], TABLE, SECRET)
    start = trio.current_time()
    names, changes, seats = await seat_four(hub, None)
    assert names == ["Host", "Ann", "Cid", "Dan"] and seats == {"Ann": 1, "Cid": 2, "Dan": 3}
    assert ("silent", "Bob", 2) in [(c.kind, c.name, c.missing) for c in changes]
    assert trio.current_time() - start >= LIVENESS
