"""Offline audit of saved transcript files: bytes in, report out (sans-IO).

Theory of operation
===================

A transcript file (``wire.md`` §4.4) holds every message a peer accepted, as signed. Its
verification is the peer's own receive path: :func:`~.peer.replay_file` checks the set-up
against the header's binding and builds an observer — the keyless table machine of
``table.md`` — which then checks every record in order: signature, digest chain, slot,
schema, turn, proofs, the rules engine, and at the end of each hand the rules audit and
the score lines that every seat signed. No check is re-implemented here, save the order
of the set-up's own (``wire.md`` §3.3: its signature, under the first key of its own
roster, before its body), which tells altered bytes from a set-up its host signed; this
module drives that observer record by record (reading the record frames itself, as
``replay_file`` does, only to say at which byte a broken frame sits) so that it can say
*where* and *why* a file stops being valid, keep each hand as it stood when it ended (the
deal, now public; the contract; the offences the rules audit found), and count what was
verified.

Where a file stops, it falls in exactly one of these cases (:class:`Status`), from the
most to the least serious:

* ``VIOLATION`` — a seat *signed* something the protocol refuses (a false score line, a
  bad shuffle, an illegal move, two messages for one slot...): the seat is named and its
  signed records are the evidence; anyone holding the set-up can re-check them.
* ``CORRUPT`` — bytes nobody provably signed: a record whose signature does not verify or
  that does not decode, a broken record frame, a record whose digest names a history the
  file does not hold (one removed or moved), a record stored twice, a header that is not
  a transcript's. Nobody can be blamed from the file alone.
* ``TORN_TAIL`` — the file ends inside a record: the writer crashed mid-write (``wire.md``
  §4.4). What precedes is verified; the report says who was to speak next.
* ``INCOMPLETE`` — every record verifies but the game is not over (an aborted hand, a
  peer that stopped): the report names the seat that was expected to speak, and what.
* ``VALID`` — every record verifies and the game is over.
* ``OTHER_VERSION`` — the set-up names rules of another version of the protocol (an older
  ``table-config`` header): this program does not check it, and blames nobody.

Offences found by the rules audit (a revoke...) do not make a file invalid: the protocol
finds them at the end of the hand and every seat signs the score *with* the penalty; the
report lists them, hand by hand, with the player and the rule.

Several files of one table (one per peer) must tell the same story: each is a prefix of
the longest, or they *fork*. Two records for the same slot, both validly signed by the
same seat, are that seat's equivocation (attributed); any other divergence comes from a
file already reported as corrupt or invalid (:func:`compare`).

The report is data; :mod:`.audit_render` words it as text or JSON. Records are
numbered from 1 in file order, as the payloads of ``wire.md`` §4.2: record
``i`` carries ``digest_{i-1}``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.protocol.codec import DecodeError, Limits, decode
from tarot_p2p.protocol.envelope import SignedEnvelope, open_envelope
from tarot_p2p.protocol.errors import ProtocolError, SeatViolation, UnattributedMessage
from tarot_p2p.protocol.messages import POINT
from tarot_p2p.protocol.peer import Peer, read_setup, replay_file
from tarot_p2p.protocol.table import HandMachine, Phase
from tarot_p2p.protocol.transcript import (
    FileFrames,
    TranscriptFileError,
    TranscriptGap,
    read_frames,
)
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.audit import Offence, audit_hand
from tarot_p2p.rules.cards import CardSet, mask_of
from tarot_p2p.rules.config import OlderConfig, TableConfig
from tarot_p2p.rules.scoring import Contract, HandOutcome, HandScore, explain_hand
from tarot_p2p.rules.sheet import LineKind, ScoreSheet


class Status(enum.StrEnum):
    VALID = "valid"
    OTHER_VERSION = "other_version"
    INCOMPLETE = "incomplete"
    TORN_TAIL = "torn_tail"
    CORRUPT = "corrupt"
    VIOLATION = "violation"


EXIT_CODES: Final[dict[Status, int]] = {
    Status.VALID: 0,
    Status.VIOLATION: 1,
    Status.CORRUPT: 3,
    Status.INCOMPLETE: 4,
    Status.TORN_TAIL: 5,
    Status.OTHER_VERSION: 8,
}
"""Exit status of ``tarot-p2p audit`` for each verdict (2 is argparse's usage error, and a
file that cannot be read)."""

SEVERITY: Final[tuple[Status, ...]] = (
    Status.VALID,
    Status.OTHER_VERSION,
    Status.INCOMPLETE,
    Status.TORN_TAIL,
    Status.CORRUPT,
    Status.VIOLATION,
)
"""Verdicts from the least to the most serious: several files report the worst."""

SHARE_KINDS: Final = ("shares", "petit_sec", "play", "poignee")
"""Message kinds that carry one batch of decryption shares and its DLEQ proof."""


def worst(statuses: Sequence[Status]) -> Status:
    return max(statuses, key=SEVERITY.index, default=Status.VALID)


# ---------------------------------------------------------------------- report types


@dataclass(frozen=True, slots=True)
class RecordRef:
    """One record of a file, as far as its bytes say (unverified unless stated)."""

    record: int | None
    """1-based record number in the file (``None``: not one of this file's records)."""
    offset: int | None
    """Byte offset of its length prefix."""
    slot: tuple[int, int] | None
    seat: int | None
    """The sender its payload names (a member in hand 0, a seat later)."""
    kind: str | None
    wire: bytes
    signed: bool = False
    """True when the signature was verified under the key of the seat it names."""


@dataclass(frozen=True, slots=True)
class Failure:
    """Where and why verification stopped, and who (if anyone) is to blame."""

    status: Status
    reason: str
    at: RecordRef | None = None
    """The record that failed (``None`` for a defect of the file as a whole)."""
    blamed: int | None = None
    """The seat that signed the offending message (``VIOLATION`` only)."""
    evidence: tuple[RecordRef, ...] = ()
    """The blamed seat's signed records that prove it (``VIOLATION`` only)."""
    expected: tuple[int, tuple[str, ...], int, str] | None = None
    """Who was to speak when the file ended: (seat, message kinds, hand, phase)."""


@dataclass(frozen=True, slots=True)
class HandSummary:
    """One hand as the observer saw it when it ended (or when the file stopped)."""

    number: int
    """0: set-up and seat draw; 1, 2, ...: the deals."""
    first_record: int
    last_record: int
    phase: str
    """``done`` once agreed; otherwise the phase the hand stopped in."""
    dealer: int | None
    """The seat that dealt (``None`` in hand 0, which draws the seats)."""
    draws: tuple[tuple[int, int], ...] = ()
    """Hand 0: (member, card) of every member's draw, by member."""
    contract: Contract | None = None
    taker: int | None = None
    partner: int | None = None
    called: int | None = None
    void: LineKind | None = None
    hands: tuple[CardSet, ...] | None = None
    """Each seat's dealt cards (the taker's before the chien), once all were opened."""
    chien: CardSet | None = None
    ecart: CardSet | None = None
    shown: tuple[tuple[int, CardSet], ...] = ()
    """Cards opened to all before the end: a petit sec hand, poignées."""
    offences: tuple[Offence, ...] = ()
    outcome: HandOutcome | None = None
    """What the opened cards give (the attack's points and oudlers...), first offender set."""
    score: HandScore | None = None
    """The score computed from ``outcome`` with the penalty, when a hand was played."""
    scores: tuple[int, ...] | None = None
    """The score line, once every seat signed it."""
    signed_by: tuple[int, ...] = ()
    """Seats whose ``score`` message for this hand is in the file."""
    abandoned: int | None = None
    """The seat whose abandon ended the hand (its claims were all checked)."""
    by_elimination: bool = False
    """The final opening never came: the hidden cards (écart, or chien of a garde sans or
    contre) were found as the cards of the deck not seen, and the hand audited with them."""


@dataclass(frozen=True, slots=True)
class Tally:
    """What the observer verified in the accepted records."""

    signatures: int = 0
    key_proofs: int = 0
    shuffle_proofs: int = 0
    """Shuffles of the deck, and the taker's re-shuffles for the écart."""
    share_proofs: int = 0
    decryption_shares: int = 0
    cards_opened: int = 0
    moves: int = 0
    """Engine actions checked by the rules engine (bids, calls, discards, plays...)."""
    hands_audited: int = 0
    """Hands whose whole record went through the after-the-fact rules audit."""
    score_signatures: int = 0


@dataclass(frozen=True, slots=True)
class Member:
    """A player as the set-up lists him (join order); seats are drawn in hand 0."""

    member: int
    name: str
    key: bytes
    """Raw Ed25519 identity public key, as in the set-up message."""


@dataclass(frozen=True, slots=True)
class TranscriptReport:
    """Everything :func:`audit_file` established about one file."""

    status: Status
    failure: Failure | None
    size: int
    records: int
    """Complete records in the file."""
    verified: int
    """Records accepted, in order, from the first."""
    table_id: bytes | None = None
    binding: bytes | None = None
    head: bytes | None = None
    """Transcript digest after the verified records."""
    config: TableConfig | None = None
    members: tuple[Member, ...] = ()
    seating: tuple[int, ...] | None = None
    """The member at each seat, once hand 0 has drawn them."""
    hands: tuple[HandSummary, ...] = ()
    sheet: ScoreSheet | None = None
    tally: Tally = field(default_factory=Tally)
    torn_tail: int = 0
    wires: tuple[bytes, ...] = ()
    """Every complete record's wire bytes (for :func:`compare`)."""

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def member_of(self, index: int, hand: int) -> int | None:
        """The member who signs as ``index`` in ``hand``: indexes are members in hand 0,
        seats once drawn (``None``: no such player)."""
        if hand > 0 and self.seating is not None:
            return self.seating[index] if index < len(self.seating) else None
        return index if index < len(self.members) else None

    def name(self, index: int, hand: int = 1) -> str:
        member = self.member_of(index, hand)
        return f"#{index}" if member is None else self.members[member].name

    def who(self, index: int, hand: int = 1) -> str:
        """``Ana (seat 2)``; in hand 0, before the seats are drawn, ``Ana (member 0)``."""
        role = "member" if hand == 0 or self.seating is None else "seat"
        return f"{self.name(index, hand)} ({role} {index})"


class Agreement(enum.StrEnum):
    SAME = "same"
    """Same table; every file is a prefix of the longest (or identical)."""
    FORK = "fork"
    """A seat signed two different messages for one slot (equivocation)."""
    DIVERGE = "diverge"
    """The files differ where one of them holds bytes nobody signed (see its report)."""
    OTHER_TABLE = "other_table"


@dataclass(frozen=True, slots=True)
class Comparison:
    """How several files of (supposedly) one table agree (:func:`compare`)."""

    agreement: Agreement
    reason: str
    status: Status
    files: tuple[int, int] | None = None
    """Indexes of the two files that disagree (the first such pair)."""
    record: int | None = None
    blamed: int | None = None
    evidence: tuple[RecordRef, ...] = ()


# ---------------------------------------------------------------------- the audit


def _record_ref(frames: FileFrames, index: int, *, signed: bool) -> RecordRef:
    """Record ``index`` (0-based) of the file, numbered from 1 in the report."""
    wire = frames.records[index]
    return _ref(wire, frames.table_id, index + 1, frames.offsets[index], signed=signed)


def _ref(
    wire: bytes, table_id: bytes, record: int | None, offset: int | None, *, signed: bool
) -> RecordRef:
    """What a record's payload says; ``signed`` tells whether its signature was verified."""
    try:
        env = open_envelope(wire, table_id=table_id, roster=None)
    except ProtocolError:
        return RecordRef(record, offset, None, None, None, wire)
    return RecordRef(record, offset, env.slot, env.seat, env.kind, wire, signed)


class _Run:
    """One observer driven over a file's records, keeping each hand as it ended."""

    def __init__(self, framing: FileFrames, observer: Peer) -> None:
        self.framing = framing
        self.observer = observer
        self.hands: list[HandMachine] = [observer.hand]
        self.starts: list[int] = [1]

    def feed(self) -> Failure | None:
        framing, observer = self.framing, self.observer
        for index in range(1, len(framing.records)):
            before = len(observer.transcript)
            try:
                observer.receive(framing.records[index])
            except ProtocolError as exc:
                return self.failure(index, exc)
            if len(observer.transcript) == before:
                return Failure(
                    Status.CORRUPT,
                    "the record repeats one already in the file (a writer's fault: a file "
                    "holds each accepted message once)",
                    _record_ref(framing, index, signed=True),
                )
            self._track(index)
        return None

    def _track(self, index: int) -> None:
        if self.observer.hand is not self.hands[-1]:
            self.hands.append(self.observer.hand)
            self.starts.append(index + 2)

    def failure(self, index: int, exc: ProtocolError) -> Failure:
        framing = self.framing
        if isinstance(exc, SeatViolation):
            evidence = tuple(self._evidence(wire) for wire in exc.evidence)
            at = _record_ref(framing, index, signed=True)
            return Failure(Status.VIOLATION, exc.reason, at, exc.seat, evidence)
        assert isinstance(exc, UnattributedMessage)
        if isinstance(exc, TranscriptGap):
            reason = (
                "chain break: the record's digest names a history this file does not hold "
                "(a record before it is missing or out of order)"
            )
            return Failure(Status.CORRUPT, reason, _record_ref(framing, index, signed=True))
        reason = f"{exc.reason}: nobody provably signed these bytes"
        return Failure(Status.CORRUPT, reason, _record_ref(framing, index, signed=False))

    def _evidence(self, wire: bytes) -> RecordRef:
        framing = self.framing
        index = framing.records.index(wire) if wire in framing.records else None
        if index is None:
            return _ref(wire, framing.table_id, None, None, signed=True)
        return _record_ref(framing, index, signed=True)


def audit_file(data: bytes) -> TranscriptReport:
    """Verify one transcript file completely; never raises on bad input."""
    try:
        framing = read_frames(data)
    except TranscriptFileError as exc:
        unreadable = Failure(Status.CORRUPT, str(exc))
        return TranscriptReport(Status.CORRUPT, unreadable, len(data), 0, 0)
    if not framing.records:
        return _unverified(data, framing, _end_failure(framing, None))
    refused = _setup_refused(framing)
    if refused is not None:
        return _unverified(data, framing, refused)
    # The set-up record goes through replay_file itself: it alone knows how a file's first
    # record becomes an observer (roster, names and rules from the set-up, checked against
    # the header's binding). The other records then go one by one through that observer.
    try:
        setup = replay_file(data[: framing.offsets[0] + 4 + len(framing.records[0])])
    except TranscriptFileError as exc:
        at = _record_ref(framing, 0, signed=False)
        return _unverified(data, framing, Failure(Status.CORRUPT, str(exc), at))
    run = _Run(framing, setup.observer)
    if setup.error is not None:
        failure: Failure | None = run.failure(0, setup.error)
    else:
        failure = run.feed() or _end_failure(framing, setup.observer)
    return _report(data, run, failure)


def _setup_refused(framing: FileFrames) -> Failure | None:
    """Why the set-up record is refused before the header's binding is compared, or
    ``None``.

    Its signature comes first (``wire.md`` §3.3): the key is the first of the roster its
    own body holds, and nothing else of the body is read before the signature verifies.
    So altered bytes read as what they are — nobody provably signed them — and not as a
    bad configuration; a set-up that verifies but is refused is its host's violation."""
    wire = framing.records[0]
    unsigned = _record_ref(framing, 0, signed=False)
    version = _payload_version(wire)
    if version is not None and version != PROTOCOL_VERSION:
        reason = (
            f"the table was played with tarot-p2p protocol {version}; this program checks "
            f"protocol {PROTOCOL_VERSION}"
            + (" (an older tarot-p2p)" if version < PROTOCOL_VERSION else "")
        )
        return Failure(Status.OTHER_VERSION, reason, _record_ref(framing, 0, signed=True))
    try:
        env = open_envelope(wire, table_id=framing.table_id, roster=None)
        roster = env.body.get("roster")
        first = roster[0] if isinstance(roster, list) and roster else None
        if (env.slot, env.seat, env.kind) != ((0, 0), 0, "table") or not isinstance(first, bytes):
            raise UnattributedMessage("the first record is not a table set-up", wire)
        host = Ed25519PublicKey.from_public_bytes(first)
        open_envelope(wire, table_id=framing.table_id, roster={0: host})
    except SeatViolation as exc:
        return _host_violation(framing, exc.reason)
    except (ProtocolError, ValueError) as exc:
        reason = f"the set-up cannot be verified ({exc}): nobody provably signed it"
        return Failure(Status.CORRUPT, reason, unsigned)
    try:
        config, keys, names = read_setup(wire, framing.table_id)
        Peer(config, framing.table_id, keys, names)
    except OlderConfig as exc:
        return Failure(Status.OTHER_VERSION, str(exc), _record_ref(framing, 0, signed=True))
    except (ValueError, ProtocolError) as exc:
        return _host_violation(framing, f"the set-up the host signed is refused: {exc}")
    return None


def _payload_version(wire: bytes) -> int | None:
    """The ``v`` of an envelope's payload, read before anything else (``None``: none). The
    envelope's form is the same in every version (``wire.md`` §3), so a transcript of
    another version is told as such instead of as a broken one."""
    try:
        outer = decode(wire, Limits(max_buffer_size=1 << 20, max_depth=1))
        if isinstance(outer, list) and len(outer) == 2 and isinstance(outer[0], bytes):
            fields = decode(outer[0])
            version = fields.get("v") if isinstance(fields, dict) else None
            return version if isinstance(version, int) and not isinstance(version, bool) else None
    except DecodeError:
        pass
    return None


def _host_violation(framing: FileFrames, reason: str) -> Failure:
    at = _record_ref(framing, 0, signed=True)
    return Failure(Status.VIOLATION, reason, at, 0, (at,))


def _unverified(data: bytes, framing: FileFrames, failure: Failure | None) -> TranscriptReport:
    """The report on a file whose set-up could not be verified: only its framing is known."""
    assert failure is not None
    return TranscriptReport(
        failure.status,
        failure,
        len(data),
        len(framing.records),
        0,
        table_id=framing.table_id,
        binding=framing.binding,
        torn_tail=framing.torn_tail,
        wires=tuple(framing.records),
    )


def _end_failure(framing: FileFrames, observer: Peer | None) -> Failure | None:
    """Why a file whose every record verified is not a whole game (or ``None``)."""
    expected: tuple[int, tuple[str, ...], int, str] | None = None
    if observer is None:
        expected = (0, ("table",), 0, Phase.SETUP.value)
    elif (seat := observer.expected_sender()) is not None:
        expected = (seat, observer.expected_types(), observer.hand.hand, observer.hand.phase.value)
    after = f"after record {len(framing.records)}" if framing.records else "before the first record"
    if framing.bad_length is not None:
        offset, length = framing.bad_length
        at = RecordRef(len(framing.records) + 1, offset, None, None, None, b"")
        return Failure(Status.CORRUPT, f"record frame with impossible length {length}", at)
    if framing.torn_tail:
        reason = (
            f"torn tail: the file ends {after} inside a record ({framing.torn_tail} bytes), "
            "a crash while writing; everything before it is verified"
        )
        return Failure(Status.TORN_TAIL, reason, expected=expected)
    if expected is not None:
        return Failure(Status.INCOMPLETE, "the game is not over", expected=expected)
    return None


def _report(data: bytes, run: _Run, failure: Failure | None) -> TranscriptReport:
    observer, framing = run.observer, run.framing
    table = observer.table
    setup = table.setup
    members = tuple(
        Member(i, name, key)
        for i, (name, key) in enumerate(zip(setup.names, setup.roster, strict=True))
    )
    envelopes = list(observer.transcript)
    hands = tuple(
        _summary(hand, start, _next_start(run, i, len(envelopes)), envelopes, observer.config)
        for i, (hand, start) in enumerate(zip(run.hands, run.starts, strict=True))
    )
    return TranscriptReport(
        status=Status.VALID if failure is None else failure.status,
        failure=failure,
        verified=len(envelopes),
        head=observer.transcript.head,
        config=observer.config,
        members=members,
        seating=observer.seating,
        hands=hands,
        sheet=observer.sheet,
        tally=_tally(envelopes, run.hands),
        size=len(data),
        records=len(framing.records),
        table_id=framing.table_id,
        binding=framing.binding,
        torn_tail=framing.torn_tail,
        wires=tuple(framing.records),
    )


def _next_start(run: _Run, i: int, verified: int) -> int:
    return run.starts[i + 1] - 1 if i + 1 < len(run.starts) else verified


def _summary(
    hand: HandMachine, first: int, last: int, envelopes: list[SignedEnvelope], config: TableConfig
) -> HandSummary:
    mine = envelopes[first - 1 : last]
    signed = tuple(e.seat for e in mine if e.kind == "score")
    phase = hand.phase.value
    if hand.hand == 0:
        return HandSummary(0, first, last, phase, None, tuple(hand.draws))
    engine = hand.engine
    summary = HandSummary(
        hand.hand, first, last, phase, hand.dealer, signed_by=signed, abandoned=hand.abandoned
    )
    if engine is None:
        return summary
    shown = tuple(
        (seat, action.cards) for seat, action in hand.history if isinstance(action, a.Poignee)
    )
    if any(isinstance(action, a.PetitSec) for _, action in hand.history):
        seat = next(s for s, x in hand.history if isinstance(x, a.PetitSec))
        shown = ((seat, mask_of(hand.cards[s] for s in hand.dealt_slots(seat))), *shown)
    partner = engine.partner() if engine.called is not None else None
    summary = replace(
        summary,
        contract=engine.contract,
        taker=engine.taker,
        partner=partner,
        called=engine.called,
        void=hand.void,
        shown=shown,
        scores=hand.scores if hand.phase is Phase.DONE else None,
    )
    audit = hand.audit
    if audit is not None:
        record = hand.record()
    else:
        # The tricks are all played but the final opening stalled: the hidden cards are
        # the ones not seen yet, and the rules audit still judges the hand.
        eliminated = hand.record_by_elimination()
        if eliminated is None:
            return summary
        record, audit = eliminated, audit_hand(eliminated)
        summary = replace(summary, by_elimination=True)
    ecart = mask_of(x.card for x in record.actions if isinstance(x, a.Discard))
    outcome = audit.outcome
    return replace(
        summary,
        hands=record.hands,
        chien=record.chien,
        ecart=ecart if ecart else None,
        offences=audit.offences,
        outcome=outcome,
        score=explain_hand(config, outcome) if outcome is not None else None,
    )


def _tally(envelopes: list[SignedEnvelope], hands: list[HandMachine]) -> Tally:
    def count(*kinds: str) -> int:
        return sum(e.kind in kinds for e in envelopes)

    # Bodies were checked against their schema on the way in: "d" is bytes, "trumps" a list.
    share_bytes = sum(len(d) for e in envelopes if isinstance(d := e.body.get("d"), bytes))
    shown_ecarts = sum(e.kind == "ecart" and bool(e.body["trumps"]) for e in envelopes)
    return Tally(
        signatures=len(envelopes),
        key_proofs=count("key"),
        shuffle_proofs=count("shuffle", "ecart"),
        share_proofs=count(*SHARE_KINDS) + shown_ecarts,
        decryption_shares=share_bytes // POINT,
        cards_opened=sum(len(h.cards) for h in hands),
        moves=sum(len(h.history) for h in hands),
        hands_audited=sum(h.audit is not None for h in hands),
        score_signatures=count("score"),
    )


# ---------------------------------------------------------------------- several files


def compare(reports: Sequence[TranscriptReport]) -> Comparison:
    """Do these files (one per peer, say) hold one history? Each is compared with the
    longest: it must be a prefix of it, record for record (payloads; the signature
    encoding may differ in transit)."""
    known = [i for i, r in enumerate(reports) if r.table_id is not None]
    if len(known) < 2:
        return Comparison(Agreement.SAME, "nothing to compare", Status.VALID)
    first = reports[known[0]]
    for i in known[1:]:
        if (reports[i].table_id, reports[i].binding) != (first.table_id, first.binding):
            return Comparison(
                Agreement.OTHER_TABLE,
                "the files are of different tables (table id or binding differ)",
                Status.CORRUPT,
                (known[0], i),
            )
    longest = max(known, key=lambda i: len(reports[i].wires))
    for i in known:
        if i != longest:
            found = _divergence(reports, longest, i)
            if found is not None:
                return found
    return Comparison(Agreement.SAME, "every file is a prefix of the longest", Status.VALID)


def _divergence(reports: Sequence[TranscriptReport], i: int, j: int) -> Comparison | None:
    a_rep, b_rep = reports[i], reports[j]
    assert a_rep.table_id is not None
    table_id = a_rep.table_id
    # Senders are named by seat after the draw: the file verified furthest knows the seats.
    keys = max((a_rep, b_rep), key=lambda r: r.verified)
    for index, (wa, wb) in enumerate(zip(a_rep.wires, b_rep.wires, strict=False)):
        if wa == wb or _payload(wa, table_id) == _payload(wb, table_id) is not None:
            continue
        record = index + 1
        ea, eb = _signed(wa, keys), _signed(wb, keys)
        evidence = tuple(
            _ref(w, table_id, record, None, signed=e is not None) for w, e in ((wa, ea), (wb, eb))
        )
        if ea is not None and eb is not None and (ea.seat, ea.slot) == (eb.seat, eb.slot):
            reason = (
                f"fork at record {record}: one sender signed two different messages for "
                f"slot {ea.slot[0]}.{ea.slot[1]} (equivocation)"
            )
            return Comparison(
                Agreement.FORK, reason, Status.VIOLATION, (i, j), record, ea.seat, evidence
            )
        reason = (
            f"the files differ from record {record}, and not by two signed messages of one "
            "sender for one slot: a file is damaged there (see its verdict)"
        )
        return Comparison(Agreement.DIVERGE, reason, Status.CORRUPT, (i, j), record, None, evidence)
    return None


def _payload(wire: bytes, table_id: bytes) -> bytes | None:
    try:
        return open_envelope(wire, table_id=table_id, roster=None).payload
    except ProtocolError:
        return None


def _signed(wire: bytes, report: TranscriptReport) -> SignedEnvelope | None:
    """The envelope if its signature verifies under the key of the player it names."""
    assert report.table_id is not None
    claimed = _ref(wire, report.table_id, None, None, signed=False)
    if claimed.slot is None or claimed.seat is None:
        return None
    member = report.member_of(claimed.seat, claimed.slot[0])
    if member is None:
        return None
    key = Ed25519PublicKey.from_public_bytes(report.members[member].key)
    try:
        return open_envelope(wire, table_id=report.table_id, roster={claimed.seat: key})
    except ProtocolError:
        return None
