"""The linear transcript: a hash chain over every accepted message, and its file format.

Theory of operation. All peers of a table accept the same messages in the same order. The
protocol is turn-based: at every point the table state machine names the one seat whose
message fills the next slot, so the order is never ambiguous and a chain suffices (no
DAG). Each message carries the digest of the transcript before it, so a message states the
exact history it was sent on, under the sender's signature. The one refinement is the
*parallel round* (``table.md`` §1.4): messages that do not depend on one another are all
made on the history before the round (its *base*), sent at once, and still take their
slots in seat order; the chain links them one after the other as always.

* ``digest_0 = SHA-256(GENESIS_TAG || table_id || binding)``, where ``binding`` is a
  32-byte digest fixed by the table set-up (configuration and host identity).
* ``digest_i = SHA-256(LINK_TAG || digest_{i-1} || SHA-256(payload_i))``: the chain covers
  the exact signed payload bytes. It does not cover the signature or the outer array,
  which a relay could re-encode (or, for a malleable signature, re-sign) without changing
  what was said; signatures are verified separately and kept in the file.

Slots: a message occupies ``(hand, seq)``; the first is ``(0, 0)`` and the successors of
``(h, q)`` are ``(h, q + 1)`` and ``(h + 1, 0)`` (the state machine says which one is
legal). Against our transcript an incoming message is:

* the next message — its ``prev`` is our head (in a parallel round: the round's base) and
  its slot a successor;
* early — in a parallel round, a later slot of the round on the round's base: it fits once
  the slots before it are filled;
* a duplicate — the same payload as the one already in that slot (a relay replay: ignored);
* equivocation — another payload signed by the same seat for a filled slot (both kept);
* a fork — a slot filled by another seat, or a ``prev`` that is a digest of our history
  other than the head, or a wrong slot on top of our head: the seat signed a history
  that contradicts ours;
* a gap — a ``prev`` we have never seen: we missed messages, nobody can be blamed yet.

File format (``protocol/wire.md`` §Transcript file): header ``MAGIC || u16 version ||
table_id || binding``, then records ``u32 big-endian length || envelope wire bytes``. A
torn final record (crash during a write) is detected and can be cut off; every other defect
makes the file invalid.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

from tarot_p2p.protocol.envelope import (
    DIGEST_LEN,
    TABLE_ID_LEN,
    Roster,
    SignedEnvelope,
    open_envelope,
)
from tarot_p2p.protocol.errors import SeatViolation, UnattributedMessage

GENESIS_TAG = b"tarot-p2p/transcript/v1/genesis\x00"
LINK_TAG = b"tarot-p2p/transcript/v1/link\x00"
FILE_MAGIC = b"TP2PTRN\x00"
FILE_VERSION = 1
HEADER_LEN = len(FILE_MAGIC) + 2 + TABLE_ID_LEN + DIGEST_LEN
MAX_RECORD_LEN = 1 << 20


def genesis_digest(table_id: bytes, binding: bytes) -> bytes:
    if len(table_id) != TABLE_ID_LEN or len(binding) != DIGEST_LEN:
        raise ValueError("table_id and binding must be 32 bytes each")
    return hashlib.sha256(GENESIS_TAG + table_id + binding).digest()


def link_digest(prev: bytes, payload: bytes) -> bytes:
    return hashlib.sha256(LINK_TAG + prev + hashlib.sha256(payload).digest()).digest()


class Verdict(enum.Enum):
    NEXT = "next"
    DUPLICATE = "duplicate"


class TranscriptGap(UnattributedMessage):
    """A message built on a history we do not have (we missed messages, or it was made up).

    Nobody can be blamed yet: keep it aside (``prev`` says after which digest it would
    fit), ask the others for the missing records, and keep waiting for the expected sender.
    """

    def __init__(self, reason: str, raw: bytes, prev: bytes) -> None:
        super().__init__(reason, raw)
        self.prev = prev


class EarlyInRound(TranscriptGap):
    """A message of the parallel round we are in, for a slot after the next one: it fits
    once the messages of the seats before it are in. Kept, never blamed while it waits."""


@dataclass(frozen=True, slots=True)
class RoundSlots:
    """A parallel round (``table.md`` §1.4): its messages all carry the digest after the
    first ``base`` messages, and fill the slots ``(hand, q)``, ``q`` in ``seqs``."""

    base: int
    hand: int
    seqs: range


def successors(slot: tuple[int, int] | None) -> tuple[tuple[int, int], ...]:
    if slot is None:
        return ((0, 0),)
    hand, seq = slot
    return ((hand, seq + 1), (hand + 1, 0))


class Transcript:
    """The accepted messages of one table, in order, with the digest after each."""

    def __init__(self, table_id: bytes, binding: bytes) -> None:
        self.table_id = table_id
        self.binding = binding
        self.genesis = genesis_digest(table_id, binding)
        self._entries: list[SignedEnvelope] = []
        self._digests: list[bytes] = [self.genesis]
        self._known: dict[bytes, int] = {self.genesis: 0}
        self._slots: dict[tuple[int, int], int] = {}
        self.round: RoundSlots | None = None
        """The parallel round we are in (``None``: none), as the table state machine says;
        ``strict=False`` leaves it unused."""
        self.strict = True
        """Whether the ``prev`` of the next message must be exactly :attr:`expected_prev`.
        A reader without the table's state (a file's structure) only requires a digest of
        the same hand, at most the head; the table's replay then checks which one."""

    @property
    def head(self) -> bytes:
        """Digest of the whole transcript so far."""
        return self._digests[-1]

    @property
    def expected_prev(self) -> bytes:
        """What the next message must carry as ``prev``: the head, or in a parallel round
        the round's base (the digest before its first message)."""
        return self._digests[len(self._entries) if self.round is None else self.round.base]

    @property
    def last_slot(self) -> tuple[int, int] | None:
        return self._entries[-1].slot if self._entries else None

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[SignedEnvelope]:
        return iter(self._entries)

    def position(self, digest: bytes) -> int | None:
        """How many messages came before ``digest`` (``None``: not a digest of ours)."""
        return self._known.get(digest)

    def digest_after(self, count: int) -> bytes:
        """Digest after the first ``count`` messages (``digest_after(0)`` is the genesis)."""
        return self._digests[count]

    def classify(self, env: SignedEnvelope) -> Verdict:
        """Place ``env`` against our history; raise if it forks, equivocates or skips ahead."""
        if env.table_id != self.table_id:
            raise UnattributedMessage("message for another table", env.wire)
        filled = self._slots.get(env.slot)
        if filled is not None:
            first = self._entries[filled]
            if first.payload == env.payload:
                return Verdict.DUPLICATE
            if first.seat == env.seat:
                raise SeatViolation(
                    env.seat,
                    f"equivocation: two messages for slot {env.slot}",
                    (first.wire, env.wire),
                )
            raise SeatViolation(
                env.seat,
                f"fork: slot {env.slot} already holds a message of seat {first.seat}",
                (env.wire,),
            )
        position = self._known.get(env.prev)
        if position is None:
            raise TranscriptGap(
                f"message {env.slot} built on an unknown history", env.wire, env.prev
            )
        round_ = self.round
        base = len(self._entries) if round_ is None else round_.base
        if position != base and (self.strict or position < self._hand_start(env.hand)):
            raise SeatViolation(
                env.seat, f"fork: message {env.slot} built on message {position}", (env.wire,)
            )
        if env.slot not in successors(self.last_slot):
            if round_ is not None and env.hand == round_.hand and env.seq in round_.seqs:
                raise EarlyInRound(
                    f"message {env.slot} of this round came early", env.wire, env.prev
                )
            raise SeatViolation(
                env.seat, f"slot {env.slot} does not follow {self.last_slot}", (env.wire,)
            )
        return Verdict.NEXT

    def _hand_start(self, hand: int) -> int:
        """How many messages came before hand ``hand``'s first one (ours if it has none)."""
        first = self._slots.get((hand, 0))
        return len(self._entries) if first is None else first

    def append(self, env: SignedEnvelope) -> bytes:
        """Accept ``env`` as the next message (the caller has validated it); return the head."""
        if self.classify(env) is not Verdict.NEXT:
            raise ValueError(f"message {env.slot} is already in the transcript")
        head = link_digest(self.head, env.payload)
        self._slots[env.slot] = len(self._entries)
        self._entries.append(env)
        self._digests.append(head)
        self._known[head] = len(self._entries)
        return head


# --- file format ------------------------------------------------------------------------


class TranscriptFileError(ValueError):
    """A transcript file that is not a valid prefix of a table's transcript."""


def file_header(table_id: bytes, binding: bytes) -> bytes:
    genesis_digest(table_id, binding)  # validates the lengths
    return FILE_MAGIC + FILE_VERSION.to_bytes(2, "big") + table_id + binding


def file_record(env: SignedEnvelope) -> bytes:
    return len(env.wire).to_bytes(4, "big") + env.wire


@dataclass(frozen=True, slots=True)
class FileFrames:
    """A transcript file cut into its header fields and records, nothing verified yet.

    Why one reader: the store (resuming), the replay of :mod:`.peer` and the audit all read
    the same normative framing, and must agree on where a file stops being usable.
    """

    table_id: bytes
    binding: bytes
    records: tuple[bytes, ...]
    """The complete records' envelope bytes, in file order."""
    offsets: tuple[int, ...]
    """Byte offset of each record's length prefix."""
    end: int
    """Offset just after the last complete record."""
    bad_length: tuple[int, int] | None
    """(offset, length) of a length prefix out of ``1..MAX_RECORD_LEN``, where reading
    stopped; ``None`` when every prefix was in range."""
    torn_tail: int
    """Bytes after the last complete record: an incomplete record (a crash while writing).
    None are counted after a bad length prefix: the file is corrupt there, not torn."""

    def refuse_bad_length(self) -> None:
        """Raise :class:`TranscriptFileError` if reading stopped at a bad length prefix."""
        if self.bad_length is not None:
            offset, length = self.bad_length
            record = len(self.records)
            raise TranscriptFileError(f"record {record} at byte {offset}: bad length {length}")


def read_frames(data: bytes) -> FileFrames:
    """Check the header and cut ``data`` into records (raises :class:`TranscriptFileError`
    only for an unusable header; a bad length prefix is reported in the result)."""
    if len(data) < HEADER_LEN or not data.startswith(FILE_MAGIC):
        raise TranscriptFileError("not a tarot-p2p transcript file")
    start = len(FILE_MAGIC) + 2
    version = int.from_bytes(data[len(FILE_MAGIC) : start], "big")
    if version != FILE_VERSION:
        raise TranscriptFileError(f"unsupported transcript file version {version}")
    records: list[bytes] = []
    offsets: list[int] = []
    bad_length = None
    offset = HEADER_LEN
    while len(data) - offset >= 4:
        length = int.from_bytes(data[offset : offset + 4], "big")
        if not 0 < length <= MAX_RECORD_LEN:
            bad_length = (offset, length)
            break
        if len(data) - offset - 4 < length:
            break
        offsets.append(offset)
        records.append(data[offset + 4 : offset + 4 + length])
        offset += 4 + length
    return FileFrames(
        table_id=data[start : start + TABLE_ID_LEN],
        binding=data[start + TABLE_ID_LEN : HEADER_LEN],
        records=tuple(records),
        offsets=tuple(offsets),
        end=offset,
        bad_length=bad_length,
        torn_tail=0 if bad_length else len(data) - offset,
    )


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """A transcript read from file bytes; ``valid_length`` excludes a torn final record."""

    transcript: Transcript
    valid_length: int
    torn_tail: int


def parse_file(data: bytes, roster: Roster | None = None) -> ParsedFile:
    """Rebuild and re-verify the chain from file bytes.

    Every record must decode as an envelope of this table and be the next message of the
    chain (its ``prev`` a digest of the same hand's history, at most the running digest:
    which one the table's replay checks, knowing the rounds; its slot a successor). With a
    ``roster`` every signature is verified too; without one, only the chain is checked.
    The transcript returned checks the next messages the same way until its owner sets
    :attr:`Transcript.strict`.
    """
    frames = read_frames(data)
    frames.refuse_bad_length()
    transcript = Transcript(frames.table_id, frames.binding)
    transcript.strict = False
    for index, (offset, wire) in enumerate(zip(frames.offsets, frames.records, strict=True)):
        try:
            env = open_envelope(wire, table_id=frames.table_id, roster=roster)
            if transcript.classify(env) is not Verdict.NEXT:
                raise TranscriptFileError(f"record {index}: duplicate message")
        except (UnattributedMessage, SeatViolation) as exc:
            raise TranscriptFileError(f"record {index} at byte {offset}: {exc}") from exc
        transcript.append(env)
    return ParsedFile(transcript, frames.end, frames.torn_tail)
