"""Catching up: asking the other peers for transcript records one is missing.

Theory of operation. Every record of the transcript is a signed envelope chained to the
one before it, so a record is as good from any peer as from its author: whoever holds it
may hand it over, and the receiver checks it exactly like a live message. A peer that
missed messages (a relay dropped them, its link went down, its process was restarted)
therefore does not wait for the relay's goodwill: it broadcasts a **sync request**
naming how many records it holds and the digest after them, and every peer that holds
more answers by sending the records that follow, unchanged (``protocol/wire.md`` §7.2).

The request carries the requester's head digest so that a split view shows up: when the
responder's digest after the same number of records differs, the two have accepted
different messages somewhere, which only an equivocation can cause (the chain is
linear); the responder then also sends its last few records before that point, and the
requester finds the equivocation with both signed messages in hand.

A request is signed by a member of the roster, so a stranger holding the join code cannot
make the table resend its transcript; a replayed request only causes a bounded answer,
which peers rate-limit (the I/O layer keeps the clock), and each peer resends a member
only so much it sent that member before (:class:`AnswerBudget`).

:class:`EarlyMessages` keeps envelopes that arrived before the ones they build on (a gap):
they are retried, in order, as soon as the transcript reaches the digest they carry.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

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
from tarot_p2p.protocol.transcript import Transcript

SYNC_DOMAIN = b"tarot-p2p/sync/v1\x00"
SYNC_KIND = "sync"
MAX_ANSWER_RECORDS = 64
"""Records sent in answer to one request (the requester asks again for the rest)."""
MAX_ANSWER_BYTES = 512 << 10
"""Bytes of records sent in answer to one request (at least one record is sent)."""
SPLIT_CONTEXT = 8
"""Records before a diverging point sent along, so the requester sees both versions."""
REPEAT_BURST = 128 << 10
"""Bytes of records answered again to one member at once (see :class:`AnswerBudget`)."""
REPEAT_RATE = 8 << 10
"""Bytes a second by which that allowance comes back."""
_LIMITS = Limits(max_buffer_size=512, max_str_len=16, max_bin_len=128, max_map_len=5)


class SyncError(ValueError):
    """Bytes that are not a valid sync request of a roster member for this table."""


@dataclass(frozen=True, slots=True)
class _Payload:
    count: int
    head: bytes
    kind: str
    member: int
    table_id: bytes


_SCHEMA = Schema(
    _Payload,
    {
        "count": ("n", UInt(0xFFFFFFFF)),
        "head": ("d", Bytes(DIGEST_LEN)),
        "kind": ("k", Text(16)),
        "member": ("m", UInt(15)),
        "table_id": ("t", Bytes(TABLE_ID_LEN)),
    },
)


ROLL_KIND = "roll"
HERE_KIND = "here"
NONCE_LEN = 16
_ROLL_LIMITS = Limits(max_buffer_size=512, max_str_len=16, max_bin_len=128, max_map_len=6)


@dataclass(frozen=True, slots=True)
class _RollPayload(_Payload):
    """A roll call, or its answer: a sync request's fields and a nonce."""

    nonce: bytes


_ROLL_SCHEMA = Schema(_RollPayload, {**_SCHEMA.fields, "nonce": ("r", Bytes(NONCE_LEN))})


@dataclass(frozen=True, slots=True)
class SyncRequest:
    """``member`` holds ``count`` records whose chain ends at ``head``.

    ``kind`` is ``sync`` (a plain request), ``roll`` (a *roll call*: the member takes its
    seat back from its files and asks every other member to say where it stands, echoing
    ``nonce``) or ``here`` (a member's answer to the roll call ``nonce``)."""

    member: int
    count: int
    head: bytes
    kind: str = SYNC_KIND
    nonce: bytes = b""


def sync_request(
    identity: Ed25519PrivateKey, table_id: bytes, member: int, transcript: Transcript
) -> bytes:
    """Our request: the records we hold, and the digest they end at."""
    fields = _Payload(len(transcript), transcript.head, SYNC_KIND, member, table_id)
    return _signed(identity, _SCHEMA.dump(fields))


def roll_call(
    identity: Ed25519PrivateKey,
    table_id: bytes,
    member: int,
    transcript: Transcript,
    nonce: bytes,
    kind: str = ROLL_KIND,
) -> bytes:
    """Our roll call (``kind`` ``roll``) or our answer to one (``here``, echoing its
    ``nonce``): a sync request that also asks, or says, where each member stands."""
    if kind not in (ROLL_KIND, HERE_KIND) or len(nonce) != NONCE_LEN:
        raise ValueError("a roll call or its answer carries a 16-byte nonce")
    fields = _RollPayload(len(transcript), transcript.head, kind, member, table_id, nonce)
    return _signed(identity, _ROLL_SCHEMA.dump(fields))


def _signed(identity: Ed25519PrivateKey, fields: dict[str, object]) -> bytes:
    payload = encode(fields)
    return encode([payload, identity.sign(SYNC_DOMAIN + payload)])


def read_sync_request(wire: bytes, table_id: bytes, members: Roster) -> SyncRequest:
    """Parse and verify a request (a plain one, a roll call or an answer to one);
    ``members`` is the set-up's roster, by member index."""
    try:
        payload, signature, fields = load_signed(wire, _LIMITS, _SCHEMA, "sync request")
        nonce = b""
    except DecodeError as exc:
        try:
            payload, signature, rolled = load_signed(wire, _ROLL_LIMITS, _ROLL_SCHEMA, "roll call")
        except DecodeError:
            raise SyncError(str(exc)) from None
        if rolled.kind not in (ROLL_KIND, HERE_KIND) or len(rolled.nonce) != NONCE_LEN:
            raise SyncError("not a roll call") from None
        nonce = rolled.nonce
        fields = rolled
    if fields.kind not in (SYNC_KIND, ROLL_KIND, HERE_KIND) or fields.table_id != table_id:
        raise SyncError("not a sync request for this table")
    if (fields.kind == SYNC_KIND) != (not nonce):
        raise SyncError("not a sync request for this table")
    key = members.get(fields.member)
    if key is None:
        raise SyncError(f"member {fields.member} is not in the roster")
    try:
        key.verify(signature, SYNC_DOMAIN + payload)
    except InvalidSignature:
        raise SyncError("sync request: bad signature") from None
    return SyncRequest(fields.member, fields.count, fields.head, fields.kind, nonce)


def answer(transcript: Transcript, request: SyncRequest) -> list[bytes]:
    """The records to send for ``request``: those after the requester's, and when its head
    is not ours at that length, the few before it too (both versions then meet)."""
    return answer_span(transcript, request)[1]


def answer_span(transcript: Transcript, request: SyncRequest) -> tuple[int, list[bytes]]:
    """:func:`answer`, with the index (from 0) of the first record it sends."""
    ours = len(transcript)
    start = request.count
    if start > ours:
        return start, []  # the requester is ahead of us: we are the one to ask
    if transcript.digest_after(start) != request.head:
        start = max(0, start - SPLIT_CONTEXT)
    elif start == ours:
        return start, []
    records = [env.wire for env in list(transcript)[start:]]
    out: list[bytes] = []
    size = 0
    for wire in records[:MAX_ANSWER_RECORDS]:
        if out and size + len(wire) > MAX_ANSWER_BYTES:
            break
        out.append(wire)
        size += len(wire)
    return start, out


class AnswerBudget:
    """What one peer resends to each requesting member over time (``wire.md`` §7.2).

    Why: a request costs its sender a few hundred bytes and each answering peer up to
    512 KiB, which the hub then relays to every member; the hub's budget (§7.4) bounds
    what the requester sends, not what its requests make the others send. A member that
    asks again and again (a wrong digest, a replay) must not turn every honest peer into
    a flood.

    Each record is answered to a member once for free: a member catching up from nothing
    gets the whole transcript, at the pace of its own requests. A record answered to it
    before is a *repeat* (its answer was lost, or it asks for nothing new): repeats come
    out of a token bucket of bytes per member, ``burst`` deep and refilled at ``rate``
    bytes a second. An answer is cut at the first repeat that does not fit: records go
    out in chain order, never with a hole. Times are the caller's clock, in seconds."""

    def __init__(self, burst: int = REPEAT_BURST, rate: int = REPEAT_RATE) -> None:
        self.burst = burst
        self.rate = rate
        self._answered: dict[int, int] = {}
        """By member: records ``0 .. n - 1`` were each answered to it at least once."""
        self._bucket: dict[int, tuple[float, float]] = {}
        """By member: (bytes of repeats it may still be sent, at what time)."""

    def grant(self, member: int, start: int, records: Sequence[bytes], now: float) -> list[bytes]:
        """The first of ``records`` (numbered from ``start``) that may go to ``member``."""
        answered = self._answered.get(member, 0)
        level, at = self._bucket.get(member, (float(self.burst), now))
        level = min(float(self.burst), level + max(0.0, now - at) * self.rate)
        out: list[bytes] = []
        for index, wire in enumerate(records, start):
            if index < answered:
                if len(wire) > level:
                    break
                level -= len(wire)
            out.append(wire)
        self._bucket[member] = (level, now)
        self._answered[member] = max(answered, start + len(out))
        return out


class EarlyMessages:
    """Envelopes that build on a digest we do not hold yet, until we do (bounded).

    Oldest entries go first when the bounds are reached: an evicted record is simply
    asked for again by the next sync request."""

    def __init__(self, max_messages: int = 256, max_bytes: int = 8 << 20) -> None:
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self._by_prev: OrderedDict[tuple[bytes, bytes], bytes] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._by_prev)

    def keep(self, prev: bytes, wire: bytes) -> None:
        key = (prev, wire)
        if key in self._by_prev or len(wire) > self.max_bytes:
            return
        self._by_prev[key] = wire
        self._bytes += len(wire)
        while len(self._by_prev) > self.max_messages or self._bytes > self.max_bytes:
            _, old = self._by_prev.popitem(last=False)
            self._bytes -= len(old)

    def __iter__(self) -> Iterator[bytes]:
        """The kept envelopes, oldest first."""
        return iter(list(self._by_prev.values()))

    def ready(self, head: bytes) -> Sequence[bytes]:
        """Take out every kept envelope that builds on ``head``."""
        found = [key for key in self._by_prev if key[0] == head]
        out = []
        for key in found:
            wire = self._by_prev.pop(key)
            self._bytes -= len(wire)
            out.append(wire)
        return out
