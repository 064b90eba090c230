"""Signed envelopes: every protocol message, bound to its table, slot, history and sender.

Theory of operation. A message is a msgpack map (the *payload*) holding the protocol
version, table id, hand number, sequence number, sender seat, the transcript digest
before this message, the message type and the body. The sender signs
``SIGNATURE_DOMAIN || payload`` with its Ed25519 identity key; the wire form is the
two-element array ``[payload, signature]``. Receivers verify the signature over the payload
bytes exactly as they arrived and never re-encode anything (msgpack is not canonical).

Attribution follows :mod:`tarot_p2p.protocol.errors`: until a valid signature of a seat of
the roster over a payload naming *our* table is established, a failure blames nobody
(:class:`UnattributedMessage`); after that, any defect is the seat's
(:class:`SeatViolation`, with the signed bytes as evidence).

Our own messages go through :func:`open_envelope` too (in :func:`seal`), so a peer never
sends what it would refuse from others.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.protocol.codec import (
    DEFAULT_LIMITS,
    AnyMap,
    Bytes,
    DecodeError,
    EncodeError,
    Limits,
    Schema,
    Text,
    UInt,
    Value,
    decode,
    encode,
)
from tarot_p2p.protocol.errors import (
    LocalProtocolError,
    RemoteProtocolError,
    SeatViolation,
    UnattributedMessage,
)

SIGNATURE_DOMAIN = b"tarot-p2p/envelope/v1\x00"
"""Prefix of every envelope signature input, so the key signs nothing else by accident."""

TABLE_ID_LEN = 32
DIGEST_LEN = 32
SIGNATURE_LEN = 64
MAX_SEAT = 15
KIND_PATTERN = re.compile(r"[a-z][a-z0-9_.]{0,31}")

Roster = Mapping[int, Ed25519PublicKey]
"""Seat -> identity key of the seats known so far (partial during table set-up)."""


@dataclass(frozen=True, slots=True)
class _Header:
    version: int
    table_id: bytes
    hand: int
    seq: int
    seat: int
    prev: bytes
    kind: str
    body: dict[str, Value]


_PAYLOAD = Schema(
    _Header,
    {
        "version": ("v", UInt(0xFFFF)),
        "table_id": ("t", Bytes(TABLE_ID_LEN)),
        "hand": ("h", UInt(0xFFFFFFFF)),
        "seq": ("q", UInt(0xFFFFFFFF)),
        "seat": ("s", UInt(MAX_SEAT)),
        "prev": ("d", Bytes(DIGEST_LEN)),
        "kind": ("k", Text(32)),
        "body": ("b", AnyMap()),
    },
)


@dataclass(frozen=True, slots=True)
class SignedEnvelope:
    """A parsed message. ``payload`` is the exact signed bytes, ``wire`` the exact frame.

    ``verified`` is False only for envelopes read without a roster (a file being loaded
    before its roster is known): their signature has not been checked yet.
    """

    version: int
    table_id: bytes
    hand: int
    seq: int
    seat: int
    prev: bytes
    kind: str
    body: dict[str, Value]
    payload: bytes
    signature: bytes
    wire: bytes
    verified: bool

    @property
    def slot(self) -> tuple[int, int]:
        return (self.hand, self.seq)

    @property
    def payload_digest(self) -> bytes:
        return hashlib.sha256(self.payload).digest()


def signature_input(payload: bytes) -> bytes:
    return SIGNATURE_DOMAIN + payload


def seal(
    identity: Ed25519PrivateKey,
    *,
    table_id: bytes,
    hand: int,
    seq: int,
    seat: int,
    prev: bytes,
    kind: str,
    body: Mapping[str, object],
    limits: Limits = DEFAULT_LIMITS,
) -> SignedEnvelope:
    """Encode, sign and re-check one outgoing message (raises :class:`LocalProtocolError`)."""
    if not KIND_PATTERN.fullmatch(kind):
        raise LocalProtocolError(f"bad message kind {kind!r}")
    fields = {
        "v": PROTOCOL_VERSION,
        "t": table_id,
        "h": hand,
        "q": seq,
        "s": seat,
        "d": prev,
        "k": kind,
        "b": dict(body),
    }
    try:
        payload = encode(fields)
    except EncodeError as exc:
        raise LocalProtocolError(f"cannot encode {kind}: {exc}") from exc
    signature = identity.sign(signature_input(payload))
    wire = encode([payload, signature])
    try:
        return open_envelope(
            wire, table_id=table_id, roster={seat: identity.public_key()}, limits=limits
        )
    except (UnattributedMessage, SeatViolation) as exc:
        raise LocalProtocolError(f"own message would be refused: {exc}") from exc


def _split(wire: bytes, limits: Limits) -> tuple[bytes, bytes, dict[str, Value]]:
    outer_limits = Limits(
        max_buffer_size=limits.max_buffer_size,
        max_str_len=0,
        max_bin_len=limits.max_buffer_size,
        max_array_len=2,
        max_map_len=0,
        max_depth=1,
    )
    try:
        outer = decode(wire, outer_limits)
    except DecodeError as exc:
        raise UnattributedMessage(f"envelope: {exc}", wire) from exc
    if not (isinstance(outer, list) and len(outer) == 2):
        raise UnattributedMessage("envelope: expected [payload, signature]", wire)
    payload, signature = outer
    if not isinstance(payload, bytes) or not isinstance(signature, bytes):
        raise UnattributedMessage("envelope: payload and signature must be bytes", wire)
    if len(signature) != SIGNATURE_LEN:
        raise UnattributedMessage("envelope: signature must be 64 bytes", wire)
    try:
        fields = decode(payload, limits)
    except DecodeError as exc:
        raise UnattributedMessage(f"payload: {exc}", wire) from exc
    if not isinstance(fields, dict):
        raise UnattributedMessage("payload: expected a map", wire)
    return payload, signature, fields


def open_envelope(
    wire: bytes,
    *,
    table_id: bytes,
    roster: Roster | None,
    limits: Limits = DEFAULT_LIMITS,
) -> SignedEnvelope:
    """Parse and verify one received message.

    Checks, in this order: structure and limits, claimed seat in ``roster``, signature,
    table id (these blame nobody), then the payload schema and version (these blame the
    seat). ``roster=None`` skips the signature: only for reading a file whose roster is
    not known yet; such envelopes must be verified before anything is concluded.
    """
    payload, signature, fields = _split(wire, limits)
    seat = fields.get("s")
    if roster is not None:
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in roster:
            raise UnattributedMessage(f"payload: sender seat {seat!r} not in roster", wire)
        try:
            roster[seat].verify(signature, signature_input(payload))
        except InvalidSignature:
            raise UnattributedMessage(f"bad signature for seat {seat}", wire) from None
    if fields.get("t") != table_id:
        raise UnattributedMessage("message for another table (replay?)", wire)
    verified_seat = seat if roster is not None and isinstance(seat, int) else None

    def blame(reason: str) -> RemoteProtocolError:
        if verified_seat is None:
            return UnattributedMessage(reason, wire)
        return SeatViolation(verified_seat, reason, (wire,))

    try:
        header = _PAYLOAD.load(fields, "payload")
    except DecodeError as exc:
        raise blame(f"malformed payload: {exc}") from exc
    if header.version != PROTOCOL_VERSION:
        raise blame(f"unsupported version {header.version}")
    if not KIND_PATTERN.fullmatch(header.kind):
        raise blame(f"bad message kind {header.kind!r}")
    return SignedEnvelope(
        version=header.version,
        table_id=header.table_id,
        hand=header.hand,
        seq=header.seq,
        seat=header.seat,
        prev=header.prev,
        kind=header.kind,
        body=header.body,
        payload=payload,
        signature=signature,
        wire=wire,
        verified=roster is not None,
    )
