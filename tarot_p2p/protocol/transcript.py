"""The linear transcript: a hash chain over every accepted message, and its file format.

Theory of operation. All peers of a table accept the same messages in the same order. The
protocol is turn-based: at every point the table state machine names the one seat whose
message fills the next slot, so the order is never ambiguous and a chain suffices (no
DAG). Each message carries the digest of the transcript before it, so a message states the
exact history it was sent on, under the sender's signature. The one refinement is the
*parallel round* (``table.md`` §1.4): messages that do not depend on one another are all
made on the history before the round (its *base*), sent at once, and still take their
slots in seat order; the chain links them one after the other as always. The other is
the *opening* of a hand (``table.md`` §1.5: its keys, escrows and shuffles, before any card
is dealt), which depends on nothing of the hand before but its seats: its messages are
built on the hand's *opening chain*, which starts after the previous hand's first message,
so that they can be made while that hand is still played.

* ``digest_0 = SHA-256(GENESIS_TAG || table_id || binding)``, where ``binding`` is a
  32-byte digest fixed by the table set-up (configuration and host identity).
* ``digest_i = SHA-256(LINK_TAG || digest_{i-1} || SHA-256(payload_i))``: the chain covers
  the exact signed payload bytes. It does not cover the signature or the outer array,
  which a relay could re-encode (or, for a malleable signature, re-sign) without changing
  what was said; signatures are verified separately and kept in the file.
* the opening chain of hand ``h >= 1``: ``o_0 = SHA-256(OPENING_TAG || digest after
  (h - 1, 0))``, ``o_j = SHA-256(LINK_TAG || o_{j-1} || SHA-256(payload of (h, j - 1)))``.
  It links the same payloads; only the start differs (tagged, so that no opening digest
  is ever a digest of the transcript's chain).

Slots: a message occupies ``(hand, seq)``; the first is ``(0, 0)`` and the successors of
``(h, q)`` are ``(h, q + 1)`` and ``(h + 1, 0)`` (the state machine says which one is
legal). Against our transcript an incoming message is:

* the next message — its ``prev`` is our head (in a parallel round: the round's base) and
  its slot a successor;
* early — in a parallel round, a later slot of the round on the round's base, or a message
  of the next hand's opening built on its opening chain before this hand is over: it fits
  once the slots before it are filled;
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
OPENING_TAG = b"tarot-p2p/transcript/v1/opening\x00"
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


def opening_digest(after_first: bytes) -> bytes:
    """``o_0`` of a hand, from the digest after the previous hand's first message."""
    return hashlib.sha256(OPENING_TAG + after_first).digest()


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
    """A message of the parallel round we are in, for a slot after the next one, or of the
    next hand's opening while this hand is not over: it fits once the messages before it
    are in. Kept, never blamed while it waits."""


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
        self._openings: dict[int, list[bytes]] = {}
        """Each hand's opening chain (hands 1, 2, ...), over all of its messages: only the
        opening's use it, but a reader without the table's state cannot tell where the
        opening stops."""
        self._opening_known: dict[bytes, tuple[int, int]] = {}
        self.round: RoundSlots | None = None
        """The parallel round we are in (``None``: none), as the table state machine says;
        ``strict=False`` leaves it unused."""
        self.opening: int | None = None
        """The hand whose opening the next message belongs to (``None``: not an opening),
        as the table state machine says; ``strict=False`` leaves it unused."""
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
        the round's base (the digest before its first message); in an opening, the same
        point of the hand's opening chain."""
        count = len(self._entries) if self.round is None else self.round.base
        if self.opening is None:
            return self._digests[count]
        chain = self._opening(self.opening)
        if chain is None:
            raise ValueError(f"hand {self.opening} cannot open here")
        return chain[count - self._hand_start(self.opening)]

    @property
    def last_slot(self) -> tuple[int, int] | None:
        return self._entries[-1].slot if self._entries else None

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[SignedEnvelope]:
        return iter(self._entries)

    def position(self, digest: bytes) -> int | None:
        """How many messages come before the one built on ``digest`` (``None``: not a
        digest of ours); for a point of an opening chain, before the slot it is the
        expected digest of."""
        position = self._known.get(digest)
        if position is not None:
            return position
        placed = self._opening_known.get(digest)
        if placed is not None:
            hand, index = placed
            return self._hand_start(hand) + index
        last = self.last_slot
        if last is not None and digest == self.opening_start(last[0] + 1):
            return len(self._entries)
        return None

    def includes(self, digest: bytes, index: int) -> bool | None:
        """Whether the history ``digest`` stands for holds our message number ``index``
        (from 0; ``None``: not a digest of ours). An opening chain's point holds the
        messages up to the previous hand's first one, then its own hand's before it: a
        message of the next hand's opening says nothing of how this hand went on."""
        position = self._known.get(digest)
        if position is not None:
            return index < position
        last = self.last_slot
        if last is not None and digest == self.opening_start(last[0] + 1):
            placed: tuple[int, int] | None = (last[0] + 1, 0)
        else:
            placed = self._opening_known.get(digest)
        if placed is None:
            return None
        hand, count = placed
        first = self._slots[(hand - 1, 0)]
        start = self._hand_start(hand)
        return index <= first or start <= index < start + count

    def opening_start(self, hand: int) -> bytes | None:
        """``open_0`` of ``hand`` (``None``: hand 0, or the hand before has no message)."""
        first = self._slots.get((hand - 1, 0)) if hand >= 1 else None
        return None if first is None else opening_digest(self._digests[first + 1])

    def _opening(self, hand: int) -> list[bytes] | None:
        """The opening chain of ``hand`` so far (``None``: it cannot have one here)."""
        chain = self._openings.get(hand)
        if chain is not None:
            return chain
        start = self.opening_start(hand)
        return None if start is None else [start]

    def _in_hand(self, digest: bytes, hand: int) -> bool:
        """Whether ``digest`` is of ``hand``'s own history: the transcript's chain from the
        hand's start on, or the hand's opening chain."""
        position = self._known.get(digest)
        if position is not None:
            return position >= self._hand_start(hand)
        placed = self._opening_known.get(digest)
        if placed is not None:
            return placed[0] == hand
        return digest == self.opening_start(hand)

    def at(self, slot: tuple[int, int]) -> SignedEnvelope | None:
        """The message that fills ``slot`` (``None``: none yet)."""
        filled = self._slots.get(slot)
        return None if filled is None else self._entries[filled]

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
            if self.position(env.prev) is None:
                # Its sender's history left ours before this slot: a message the silent
                # seat sent after one that the others' abandon overtook (table.md §3.1),
                # which nobody can place, or one built on a made-up history: no proof
                # against anyone either way (wire.md §4.3).
                raise UnattributedMessage(
                    f"message {env.slot} built on a history we do not hold, for a slot we "
                    "have filled",
                    env.wire,
                )
            raise SeatViolation(
                env.seat,
                f"fork: slot {env.slot} already holds a message of seat {first.seat}",
                (env.wire,),
            )
        position = self.position(env.prev)
        last = self.last_slot
        if (
            self.strict
            and last is not None
            and env.hand == last[0] + 1 != self.opening
            and (position is None or env.prev == self.opening_start(env.hand))
        ):
            # The next hand's opening, made while ours is played (table.md §1.6): its own
            # messages build on one another, which we cannot check before ours is over.
            raise EarlyInRound(
                f"message {env.slot} of the next hand came early", env.wire, env.prev
            )
        if position is None:
            raise TranscriptGap(
                f"message {env.slot} built on an unknown history", env.wire, env.prev
            )
        if not (
            env.prev == self.expected_prev if self.strict else self._in_hand(env.prev, env.hand)
        ):
            raise SeatViolation(
                env.seat, f"fork: message {env.slot} built on message {position}", (env.wire,)
            )
        round_ = self.round
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
        if env.hand >= 1:
            chain = self._openings.get(env.hand)
            if chain is None:
                start = self.opening_start(env.hand)
                assert start is not None  # every hand's first slot follows the last hand's
                chain = self._openings[env.hand] = [start]
                self._opening_known[start] = (env.hand, 0)
            chain.append(link_digest(chain[-1], env.payload))
            self._opening_known[chain[-1]] = (env.hand, len(chain) - 1)
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
    chain (its ``prev`` a digest of the same hand's history, on the transcript's chain or
    the hand's opening chain, at most the running digest: which one the table's replay
    checks, knowing the rounds and the opening; its slot a successor). With a
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
