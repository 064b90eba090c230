"""The seat proof of a join or leave request (``lobby.md`` §1, §2): only requests made with
the join secret seat anyone, whatever a hub (which holds the link key) sends."""

from __future__ import annotations

import pytest

from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.meet.lobby import (
    JOIN_REQUEST_DOMAIN,
    LobbyError,
    Seating,
    join_request,
    leave_request,
    read_lobby_request,
    seat_proof,
)
from tarot_p2p.net.joincode import link_key
from tarot_p2p.protocol.codec import decode, encode
from tests.meet.test_runner_lobby import KEYS, SECRET, TABLE


def with_proof(index: int, kind: str, name: str, proof: bytes) -> bytes:
    """A request validly signed by ``KEYS[index]`` carrying ``proof``."""
    raw = KEYS[index].public_key().public_bytes_raw()
    payload = encode(
        {"i": raw, "k": kind, "n": name, "p": proof, "t": TABLE, "v": PROTOCOL_VERSION}
    )
    return encode([payload, KEYS[index].sign(JOIN_REQUEST_DOMAIN + payload)])


def test_a_proof_made_without_the_join_secret_seats_nobody() -> None:
    seating = Seating(3, KEYS[0].public_key(), "Host", SECRET)
    for other in (link_key(SECRET), bytes(16), bytes(range(16))):
        wire = join_request(KEYS[1], "Ann", TABLE, other)
        with pytest.raises(LobbyError, match="seat proof"):
            read_lobby_request(wire, TABLE, SECRET)
        assert seating.offer(wire, TABLE, 0) is None
    assert seating.names == ["Host"]
    assert seating.offer(join_request(KEYS[1], "Ann", TABLE, SECRET), TABLE, 0) is not None


def test_a_proof_is_bound_to_its_key_and_its_table() -> None:
    """A hub sees Bob's proof; under another key, or at another table, it seats nobody."""
    seating = Seating(3, KEYS[0].public_key(), "Host", SECRET)
    bob = KEYS[2].public_key().public_bytes_raw()
    copied = with_proof(1, "join", "Bob", seat_proof(SECRET, TABLE, bob))
    assert seating.offer(copied, TABLE, 0) is None
    elsewhere = with_proof(1, "join", "Ann", seat_proof(SECRET, bytes(32), bob))
    assert seating.offer(elsewhere, TABLE, 0) is None
    assert seating.names == ["Host"]


def test_a_leave_request_needs_the_proof_too() -> None:
    seating = Seating(3, KEYS[0].public_key(), "Host", SECRET)
    seating.offer(join_request(KEYS[1], "Ann", TABLE, SECRET), TABLE, 0)
    assert seating.offer(leave_request(KEYS[1], "Ann", TABLE, link_key(SECRET)), TABLE, 1) is None
    assert seating.names == ["Host", "Ann"]
    left = seating.offer(leave_request(KEYS[1], "Ann", TABLE, SECRET), TABLE, 1)
    assert left is not None and left.kind == "left"


def test_a_request_without_a_proof_is_no_request() -> None:
    payload = encode({"i": bytes(32), "k": "join", "n": "Ann", "t": TABLE})
    wire = encode([payload, bytes(64)])
    with pytest.raises(LobbyError):
        read_lobby_request(wire, TABLE, SECRET)
    proof = decode(decode(join_request(KEYS[1], "Ann", TABLE, SECRET))[0])["p"]  # type: ignore[index, arg-type, call-overload]
    assert proof == seat_proof(SECRET, TABLE, KEYS[1].public_key().public_bytes_raw())
