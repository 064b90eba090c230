"""Forfeit claims: how the seats present agree that a silent seat has abandoned.

Theory of operation. A silence proves nothing (the relay may cause it), so no seat can be
declared absent by one peer's clock. Instead, when the expected sender of a slot has been
silent past the table's forfeit time, each other seat signs a **claim**: "seat ``s`` is
absent at slot ``(h, q)`` of the history ending in ``d``". A seat that has signed a claim
no longer accepts the absent seat's message for that slot. The abandon happens only with
the claims of *every* other seat, which the lowest of them puts in an ``abandon`` message
at that very slot; so if the absent seat's message reached any of them in time (that one
never signs), there is no abandon and the message goes round instead (sync requests).
Either way every honest peer ends with the same transcript.

A claim is not in the transcript; the ``abandon`` message carries the signatures, and
anyone can check them against the set-up's keys (``protocol/table.md`` §3.1).
"""

from __future__ import annotations

from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.protocol.codec import (
    Bytes,
    DecodeError,
    Limits,
    Schema,
    Text,
    UInt,
    encode,
    load_signed,
)
from tarot_p2p.protocol.envelope import DIGEST_LEN, TABLE_ID_LEN, Roster

FORFEIT_DOMAIN = b"tarot-p2p/forfeit/v1\x00"
FORFEIT_KIND = "forfeit"
_LIMITS = Limits(max_buffer_size=512, max_str_len=16, max_bin_len=160, max_map_len=7)


class ClaimError(ValueError):
    """Bytes that are not a valid forfeit claim of a member for this table."""


@dataclass(frozen=True, slots=True)
class Slot:
    """Where a seat is silent: hand, sequence number, the digest before it, the seat."""

    hand: int
    seq: int
    prev: bytes
    absent: int
    """The silent **seat** (the payload's ``s``), numbered as every sender from hand 1 on."""


@dataclass(frozen=True, slots=True)
class Claim:
    slot: Slot
    member: int
    """The claimer's **member index** (the payload's ``m``): its place in the set-up's
    roster, which names the key that signs, so a claim is checked against the roster alone;
    the claimer's seat is the one whose member this is (``table.md`` §3.1)."""
    signature: bytes


@dataclass(frozen=True, slots=True)
class _Payload:
    prev: bytes
    hand: int
    kind: str
    member: int
    seq: int
    absent: int
    table_id: bytes


_SCHEMA = Schema(
    _Payload,
    {
        "prev": ("d", Bytes(DIGEST_LEN)),
        "hand": ("h", UInt(0xFFFFFFFF)),
        "kind": ("k", Text(16)),
        "member": ("m", UInt(15)),
        "seq": ("q", UInt(0xFFFFFFFF)),
        "absent": ("s", UInt(15)),
        "table_id": ("t", Bytes(TABLE_ID_LEN)),
    },
)


def claim_payload(table_id: bytes, slot: Slot, member: int) -> bytes:
    """The fixed-form bytes a claim signs (what an ``abandon`` message's checker rebuilds)."""
    return encode(
        {
            "d": slot.prev,
            "h": slot.hand,
            "k": FORFEIT_KIND,
            "m": member,
            "q": slot.seq,
            "s": slot.absent,
            "t": table_id,
        }
    )


def sign_claim(identity: Ed25519PrivateKey, table_id: bytes, slot: Slot, member: int) -> Claim:
    payload = claim_payload(table_id, slot, member)
    return Claim(slot, member, identity.sign(FORFEIT_DOMAIN + payload))


def claim_wire(table_id: bytes, claim: Claim) -> bytes:
    return encode([claim_payload(table_id, claim.slot, claim.member), claim.signature])


def verify_claim(key: Ed25519PublicKey, table_id: bytes, claim: Claim) -> bool:
    try:
        key.verify(
            claim.signature, FORFEIT_DOMAIN + claim_payload(table_id, claim.slot, claim.member)
        )
    except InvalidSignature:
        return False
    return True


def read_claim(wire: bytes, table_id: bytes, members: Roster) -> Claim:
    """Parse and verify a claim; ``members`` is the set-up's roster, by member index."""
    try:
        _, signature, fields = load_signed(wire, _LIMITS, _SCHEMA, "forfeit claim")
    except DecodeError as exc:
        raise ClaimError(str(exc)) from None
    if fields.kind != FORFEIT_KIND or fields.table_id != table_id:
        raise ClaimError("not a forfeit claim for this table")
    key = members.get(fields.member)
    if key is None:
        raise ClaimError(f"member {fields.member} is not in the roster")
    slot = Slot(fields.hand, fields.seq, fields.prev, fields.absent)
    claim = Claim(slot, fields.member, signature)
    if len(signature) != 64 or not verify_claim(key, table_id, claim):
        raise ClaimError("forfeit claim: bad signature")
    return claim
