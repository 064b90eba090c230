"""Signed requests outside the transcript are refused unless their signature holds.

Two of them steer what a peer does without ever entering the transcript, so no later
check would catch a forgery: a **sync request** makes a peer resend its records (a
stranger holding the join code must not be able to), and a live **forfeit claim**
counts towards the abandon of a silent seat (a seat must not be declared absent by
claims its neighbours never signed). Each test feeds the forged bytes and expects the
refusal; the honest bytes beside them show that the refusal is the signature's doing.
"""

from __future__ import annotations

import hashlib
import re

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.protocol import forfeit
from tarot_p2p.protocol.codec import encode
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.sync import (
    HERE_KIND,
    NONCE_LEN,
    ROLL_KIND,
    SYNC_DOMAIN,
    SyncError,
    SyncRequest,
)
from tests.protocol.harness import Bot, Table, make_table, one_deal, step
from tests.protocol.test_abandon import at_first_bid

STRANGER = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"stranger").digest())


def sync_wire(
    key: Ed25519PrivateKey,
    table_id: bytes,
    head: bytes,
    *,
    member: int = 1,
    count: int = 0,
    kind: str = "sync",
    signed_count: int | None = None,
) -> bytes:
    """A sync request naming ``member``, signed by ``key`` (over another count when
    ``signed_count`` is given: the payload was changed after signing)."""

    def payload(n: int) -> bytes:
        return encode({"d": head, "k": kind, "m": member, "n": n, "t": table_id})

    signed = payload(count if signed_count is None else signed_count)
    return encode([payload(count), key.sign(SYNC_DOMAIN + signed)])


def table_in_play() -> Table:
    """A four-seat table a few messages into its set-up (a transcript to ask for)."""
    table = make_table(one_deal(4), seed=b"defences")
    for _ in range(6):
        assert step(table, Bot())
    return table


def test_a_members_own_sync_request_is_read() -> None:
    table = table_in_play()
    asker, holder = table.peers[1], table.peers[0]
    request = holder.read_sync_request(asker.sync_request())
    assert request == SyncRequest(1, len(asker.transcript), asker.transcript.head)
    wire = sync_wire(table.keys[2], holder.table_id, asker.transcript.genesis, member=2)
    assert holder.read_sync_request(wire) == SyncRequest(2, 0, asker.transcript.genesis)


def test_a_members_roll_call_and_its_answer_are_read_as_signed() -> None:
    """A seat taking its place back from its files asks where it stands (``roll``), and
    each other seat says where it stands (``here``), echoing the same nonce: both are
    read back as the member, transcript and nonce that signed them."""
    table = table_in_play()
    back, holder = table.peers[1], table.peers[0]
    nonce = bytes(range(NONCE_LEN))
    roll = holder.read_sync_request(back.roll_call(nonce))
    assert roll == SyncRequest(1, len(back.transcript), back.transcript.head, ROLL_KIND, nonce)
    here = back.read_sync_request(holder.roll_call(nonce, HERE_KIND))
    assert here == SyncRequest(0, len(holder.transcript), holder.transcript.head, HERE_KIND, nonce)
    with pytest.raises(ValueError, match=r"^a roll call or its answer carries a 16-byte nonce$"):
        back.roll_call(nonce[1:])


@pytest.mark.parametrize(
    ("forgery", "reason"),
    [
        ("signed by a stranger", "sync request: bad signature"),
        ("signed by another member", "sync request: bad signature"),
        ("count changed after signing", "sync request: bad signature"),
        ("signed for another table", "not a sync request for this table"),
        ("not a sync request", "not a sync request for this table"),
        ("member not in the roster", "member 4 is not in the roster"),
        ("not [payload, signature]", "sync request: not [payload, signature]"),
    ],
)
def test_a_sync_request_not_signed_by_the_member_it_names_is_refused(
    forgery: str, reason: str
) -> None:
    """Whoever cannot sign as a member cannot make the table resend its transcript."""
    table = table_in_play()
    holder = table.peers[0]
    table_id, genesis = holder.table_id, holder.transcript.genesis
    if forgery == "signed by a stranger":
        wire = sync_wire(STRANGER, table_id, genesis)
    elif forgery == "signed by another member":
        wire = sync_wire(table.keys[2], table_id, genesis)
    elif forgery == "count changed after signing":
        wire = sync_wire(table.keys[1], table_id, genesis, signed_count=5)
    elif forgery == "signed for another table":
        wire = sync_wire(table.keys[1], hashlib.sha256(b"another table").digest(), genesis)
    elif forgery == "not a sync request":
        wire = sync_wire(table.keys[1], table_id, genesis, kind="forfeit")
    elif forgery == "member not in the roster":
        wire = sync_wire(STRANGER, table_id, genesis, member=4)
    else:
        wire = encode([b"payload alone"])
    with pytest.raises(SyncError, match=f"^{re.escape(reason)}$"):
        holder.read_sync_request(wire)


def claims_of_the_present(table: Table, absent: int) -> tuple[Peer, dict[int, bytes]]:
    """The seat that sends the abandon, and every present seat's signed claim by seat."""
    speaker_seat = table.observer.hand.present_speaker()
    assert speaker_seat is not None
    present = [p for p in table.peers if p.seat != absent]
    claims = {}
    for peer in present:
        claim = peer.forfeit_claim()
        assert claim is not None and peer.seat is not None
        claims[peer.seat] = claim
    return table.peer_at(speaker_seat), claims


def test_every_present_seats_claim_lets_the_speaker_send_the_abandon() -> None:
    table, absent = at_first_bid(b"live claims")
    speaker, claims = claims_of_the_present(table, absent)
    for wire in claims.values():
        speaker.read_forfeit_claim(wire)
    assert speaker.abandon() is not None


@pytest.mark.parametrize(
    "forgery", ["signed by the absent seat", "signed by a stranger", "claims another seat absent"]
)
def test_a_live_claim_not_signed_by_its_member_is_refused_and_not_counted(forgery: str) -> None:
    """A claim some seat never signed neither passes nor moves the table to an abandon."""
    table, absent = at_first_bid(b"live claims")
    speaker, claims = claims_of_the_present(table, absent)
    victim = next(s for s in claims if s != speaker.seat)  # the seat whose claim is forged
    roster = {member: key.public_key() for member, key in enumerate(table.keys)}
    real = forfeit.read_claim(claims[victim], speaker.table_id, roster)
    if forgery == "signed by the absent seat":
        signature = forfeit.sign_claim(
            table.key_of(1, absent), speaker.table_id, real.slot, real.member
        ).signature
        forged = forfeit.Claim(real.slot, real.member, signature)
    elif forgery == "signed by a stranger":
        signature = forfeit.sign_claim(STRANGER, speaker.table_id, real.slot, real.member).signature
        forged = forfeit.Claim(real.slot, real.member, signature)
    else:  # the victim's signature, over a slot naming another seat as the absent one
        other = forfeit.Slot(real.slot.hand, real.slot.seq, real.slot.prev, speaker.seat or 0)
        forged = forfeit.Claim(other, real.member, real.signature)
    for seat, wire in claims.items():
        if seat != victim:
            speaker.read_forfeit_claim(wire)
    with pytest.raises(forfeit.ClaimError, match=r"^forfeit claim: bad signature$"):
        speaker.read_forfeit_claim(forfeit.claim_wire(speaker.table_id, forged))
    assert speaker.abandon() is None  # the victim's claim is still missing
    speaker.read_forfeit_claim(claims[victim])
    assert speaker.abandon() is not None


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("for another table", "not a forfeit claim for this table"),
        ("of another kind", "not a forfeit claim for this table"),
        ("member not in the roster", "member 4 is not in the roster"),
        ("not [payload, signature]", "forfeit claim: not [payload, signature]"),
        ("payload not a claim", "forfeit claim: missing keys"),
    ],
)
def test_a_claim_that_is_not_a_members_claim_for_this_table_is_refused(
    fault: str, reason: str
) -> None:
    """Before its signature, a claim must name this table, be a claim, and name a member;
    each refusal says which (a signed claim for another table proves nothing here)."""
    table, absent = at_first_bid(b"live claims")
    speaker, claims = claims_of_the_present(table, absent)
    roster = {member: key.public_key() for member, key in enumerate(table.keys)}
    seat = next(s for s in claims if s != speaker.seat)
    real = forfeit.read_claim(claims[seat], speaker.table_id, roster)
    key = table.key_of(1, seat)
    if fault == "for another table":
        other = hashlib.sha256(b"another table").digest()
        wire = forfeit.claim_wire(other, forfeit.sign_claim(key, other, real.slot, real.member))
    elif fault == "of another kind":
        slot = real.slot
        payload = encode(
            {"d": slot.prev, "h": slot.hand, "k": "sync", "m": real.member, "q": slot.seq,
             "s": slot.absent, "t": speaker.table_id}
        )  # fmt: skip
        wire = encode([payload, key.sign(forfeit.FORFEIT_DOMAIN + payload)])
    elif fault == "member not in the roster":
        wire = forfeit.claim_wire(
            speaker.table_id, forfeit.sign_claim(STRANGER, speaker.table_id, real.slot, 4)
        )
    elif fault == "not [payload, signature]":
        wire = encode([b"payload alone"])
    else:
        wire = encode([encode({"k": "forfeit"}), real.signature])
    with pytest.raises(forfeit.ClaimError, match=f"^{re.escape(reason)}"):
        speaker.read_forfeit_claim(wire)


@pytest.mark.parametrize(
    ("label", "extra", "reason"),
    [
        ("a roll call without its nonce", {"k": "roll"}, "not a sync request for this table"),
        ("a here without its nonce", {"k": "here"}, "not a sync request for this table"),
        ("a sync request carrying a nonce", {"k": "sync", "r": bytes(16)}, "not a roll call"),
        ("an unknown kind", {"k": "call", "r": bytes(16)}, "not a roll call"),
        ("a roll call for another table", {"k": "roll", "r": bytes(16), "t": bytes(32)},
         "not a sync request for this table"),
    ],
)  # fmt: skip
def test_a_roll_call_that_is_none_is_refused_in_words(
    label: str, extra: dict[str, object], reason: str
) -> None:
    """Signed by a member, yet not a roll call, an answer to one or a plain request: each
    is refused, and the words say which (a relay or member can send any of these)."""
    table = table_in_play()
    holder = table.peers[0]
    fields = {"d": holder.transcript.head, "m": 1, "n": 3, "t": holder.table_id, **extra}
    data = encode(fields)
    wire = encode([data, table.keys[1].sign(SYNC_DOMAIN + data)])
    with pytest.raises(SyncError, match=f"^{re.escape(reason)}$"):
        holder.read_sync_request(wire)
