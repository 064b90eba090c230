"""The lobby's checks at their edges: names, suffixes, and why a request or set-up is refused.

A player name has 1 to 64 characters; a name another seat holds (in any case) gets the
smallest free suffix " (n)", cut so that it still fits, and the joiner accepts a set-up
that seats it under its own name or that name with a suffix, nothing else. Each refusal
says what was wrong.
"""

from __future__ import annotations

import re

import pytest

from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.meet.lobby import (
    JOIN_REQUEST_DOMAIN,
    MAX_NAME,
    ForeignHost,
    LobbyError,
    Seating,
    clean_name,
    join_request,
    read_lobby_request,
    read_table_offer,
    seat_proof,
)
from tarot_p2p.protocol.codec import encode
from tarot_p2p.protocol.identity import fingerprint
from tarot_p2p.protocol.names import NameRefused
from tests.meet.test_runner_lobby import KEYS, SECRET, TABLE, host_setup


def test_a_name_has_one_to_sixty_four_characters() -> None:
    assert clean_name("x" * MAX_NAME) == "x" * MAX_NAME
    for bad in ("x" * (MAX_NAME + 1), "   "):
        with pytest.raises(NameRefused, match=r"^a player name has 1 to 64 characters"):
            clean_name(bad)


def test_names_taken_get_the_smallest_free_suffix() -> None:
    seating = Seating(4, KEYS[0].public_key(), "Ann", SECRET)
    seating.offer(join_request(KEYS[1], "ann", TABLE, SECRET), TABLE, 0)
    seating.offer(join_request(KEYS[2], "ANN", TABLE, SECRET), TABLE, 0)
    assert seating.names == ["Ann", "ann (2)", "ANN (3)"]


def test_a_seat_changing_only_the_case_of_its_name_keeps_it_unsuffixed() -> None:
    seating = Seating(4, KEYS[0].public_key(), "Host", SECRET)
    seating.offer(join_request(KEYS[1], "Bob", TABLE, SECRET), TABLE, 0)
    renamed = seating.offer(join_request(KEYS[1], "bob", TABLE, SECRET), TABLE, 1)
    assert renamed is not None and seating.names == ["Host", "bob"]


def test_a_longest_name_taken_is_cut_to_fit_its_suffix_and_the_joiner_accepts_it() -> None:
    longest = "h" * MAX_NAME
    seating = Seating(3, KEYS[0].public_key(), longest.upper(), SECRET)
    seating.offer(join_request(KEYS[1], longest, TABLE, SECRET), TABLE, 0)
    seating.offer(join_request(KEYS[2], "Bob", TABLE, SECRET), TABLE, 0)
    given = seating.names[1]
    assert given == "h" * (MAX_NAME - 6) + " (2)" and len(given) <= MAX_NAME
    wire = host_setup(KEYS[:3], seating.names)
    offer = read_table_offer(wire, TABLE, KEYS[1].public_key(), longest)
    assert offer.index == 1
    for other in ("h" * (MAX_NAME - 7) + " (2)", "h" * (MAX_NAME - 6) + " (x)"):
        wire = host_setup(KEYS[:3], [longest.upper(), other, "Bob"])
        with pytest.raises(LobbyError, match=r"^the set-up seats our key under another name"):
            read_table_offer(wire, TABLE, KEYS[1].public_key(), longest)


def test_each_refused_request_or_set_up_says_why() -> None:
    wire = join_request(KEYS[1], "Ann", TABLE, SECRET)
    with pytest.raises(LobbyError, match=r"^not a lobby request for this table$"):
        read_lobby_request(wire, bytes(32), SECRET)
    other = KEYS[2].public_key().public_bytes_raw()
    proof = seat_proof(SECRET, TABLE, other)
    payload = encode(
        {"i": other, "k": "join", "n": "Ann", "p": proof, "t": TABLE, "v": PROTOCOL_VERSION}
    )
    forged = encode([payload, KEYS[1].sign(JOIN_REQUEST_DOMAIN + payload)])  # names KEYS[2]
    with pytest.raises(LobbyError, match=r"^join request: bad signature$"):
        read_lobby_request(forged, TABLE, SECRET)
    with pytest.raises(LobbyError, match=re.escape("join request: not [payload, signature]")):
        read_lobby_request(encode([b"payload alone"]), TABLE, SECRET)
    setup = host_setup(KEYS[:3], ["Host", "Ann", "Bob"])
    me = KEYS[1].public_key()
    with pytest.raises(ForeignHost, match=r"^set-up not signed by the host named in the join"):
        read_table_offer(setup, TABLE, me, "Ann", fingerprint(KEYS[4].public_key()))
    with pytest.raises(LobbyError, match=r"^set-up: "):
        read_table_offer(setup[:-3], TABLE, me, "Ann")
