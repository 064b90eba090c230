"""What the lobby tells of another protocol version, and what it refuses to read as one.

A mutation run of ``meet/lobby.py`` from scratch (``docs/mutation.md``, stop 31) found
these reached by no test: the words and fields of a request of another version, a
version-1 request for another table or a leave taken for one, the sixteenth player of
another version told to the host, and junk that a joiner peeks at for its version before
reading it (where three mutants failed on it instead of refusing it).
"""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.meet.lobby import (
    JOIN_REQUEST_DOMAIN,
    TOLD_VERSIONS,
    LobbyError,
    OtherVersion,
    Seating,
    other_version_words,
    read_lobby_request,
    read_table_offer,
    seat_proof,
)
from tarot_p2p.protocol.codec import decode, encode
from tarot_p2p.protocol.envelope import SIGNATURE_DOMAIN
from tests.meet.test_versions import KEYS, SECRET, TABLE, V1
from tests.net.test_lobby_refusals import join_request

NEWER = PROTOCOL_VERSION + 1


def newer_request(seed: int, name: str = "Carol") -> tuple[bytes, bytes]:
    """A request of the current form saying a later version, and its key (raw)."""
    key = Ed25519PrivateKey.from_private_bytes(bytes([seed]) * 32)
    raw = key.public_key().public_bytes_raw()
    fields = {"i": raw, "k": "join", "n": name, "p": seat_proof(SECRET, TABLE, raw)}
    payload = encode({**fields, "t": TABLE, "v": NEWER})
    return encode([payload, key.sign(JOIN_REQUEST_DOMAIN + payload)]), raw


def test_the_words_of_another_version_name_who_must_update() -> None:
    assert other_version_words(1) == (
        f"this table is played with tarot-p2p protocol 1; your program speaks "
        f"{PROTOCOL_VERSION}: the host's program must be updated"
    )
    assert other_version_words(NEWER) == (
        f"this table is played with tarot-p2p protocol {NEWER}; your program speaks "
        f"{PROTOCOL_VERSION}: update it"
    )


def test_a_request_of_another_version_names_its_version_key_and_name() -> None:
    wire, raw = newer_request(7)
    with pytest.raises(OtherVersion) as newer:
        read_lobby_request(wire, TABLE, SECRET)
    assert str(newer.value) == f"protocol {NEWER}"
    assert (newer.value.version, newer.value.identity, newer.value.name) == (NEWER, raw, "Carol")
    old = bytes.fromhex(V1["join_request"])
    fields = decode(decode(old)[0])  # type: ignore[index]
    assert isinstance(fields, dict)
    with pytest.raises(OtherVersion) as first:
        read_lobby_request(old, TABLE, SECRET)
    assert str(first.value) == "protocol 1"
    assert (first.value.version, first.value.identity, first.value.name) == (1, fields["i"], "Bob")


def test_a_version_1_request_for_another_table_or_to_leave_is_not_one_to_tell() -> None:
    """Only a version-1 join request for this table makes the host say who must update."""
    for wire, table in (
        (bytes.fromhex(V1["join_request"]), bytes(32)),
        (bytes.fromhex(V1["leave_request"]), TABLE),
    ):
        with pytest.raises(LobbyError) as refused:
            read_lobby_request(wire, table, SECRET)
        assert not isinstance(refused.value, OtherVersion)


def test_a_request_without_the_join_secrets_proof_is_refused_in_words() -> None:
    wire = join_request(KEYS[1], "Ann", TABLE, b"\x01" * 16)
    with pytest.raises(
        LobbyError, match=r"^join request: the seat proof is not made with the join secret$"
    ):
        read_lobby_request(wire, TABLE, SECRET)


def test_the_host_is_told_of_sixteen_players_of_other_versions_at_most() -> None:
    """Each key once, and sixteen keys at most: a stranger with many keys cannot fill the
    host's screen (or memory) with them."""
    seating = Seating(3, KEYS[0].public_key(), "Host", SECRET)
    told = [seating.offer(newer_request(seed)[0], TABLE, 0) for seed in range(TOLD_VERSIONS)]
    assert all(change is not None and change.kind == "other-version" for change in told)
    assert seating.offer(newer_request(TOLD_VERSIONS)[0], TABLE, 0) is None
    assert seating.names == ["Host"]


def peeked(roster: object, signature: object = None, **body: object) -> bytes:
    """A set-up's envelope of another version, its roster replaced by ``roster`` (and its
    body given ``body`` too), signed by the host unless ``signature`` is given."""
    fields = {"h": 0, "k": "table", "q": 0, "s": 0, "t": TABLE, "v": 1}
    payload = encode({**fields, "b": {"roster": roster, **body}})
    signed = KEYS[0].sign(SIGNATURE_DOMAIN + payload) if signature is None else signature
    return encode([payload, signed])


HOST = KEYS[0].public_key().public_bytes_raw()


def refusal(wire: bytes) -> LobbyError:
    """What a joiner reading ``wire`` as its host's set-up refuses it with."""
    with pytest.raises(LobbyError) as refused:
        read_table_offer(wire, TABLE, KEYS[1].public_key(), "Ann")
    return refused.value


@pytest.mark.parametrize(
    "wire",
    [
        encode(5),  # not a list
        encode([b"payload", b"signature", b"more"]),  # three parts
        encode([b"payload", 5]),  # a signature that is no bytes
        encode([5, b"signature"]),  # a payload that is no bytes
        peeked([]),  # no roster key
        peeked(5),  # a roster that is no list
        peeked([5]),  # a roster key that is no bytes
        peeked([HOST], signature=5),  # a signature that is no bytes, after a good payload
    ],
)
def test_junk_a_joiner_peeks_at_for_its_version_is_refused_not_failed_on(wire: bytes) -> None:
    """Before reading a set-up, a joiner looks at its version (to say who must update):
    that look must refuse junk like the reading after it, whoever sent it."""
    assert not isinstance(refusal(wire), OtherVersion)


def test_a_set_up_beyond_the_bounds_of_any_is_not_read_for_its_version() -> None:
    """The look at a set-up's version reads within bounds no real set-up comes near (no
    text of it is longer than 256 characters): past them it is junk, refused as such,
    not a version to tell the player about."""
    assert isinstance(refusal(peeked([HOST])), OtherVersion)
    assert not isinstance(refusal(peeked([HOST], note="x" * 257)), OtherVersion)
