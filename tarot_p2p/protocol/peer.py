"""One seat at the table, sans I/O: signed bytes in, events out; decisions in, signed bytes out.

Why a layer above :mod:`.table`: the table machine is keyless and public, the same for
every seat and for an observer; a seat also has secrets (its per-hand key share, its
shuffle permutations) and private knowledge (its own cards). The :class:`Peer` keeps both,
builds its messages from them, and sends nothing the machine would refuse: every outgoing
message is sealed, then run through :meth:`Peer._accept` — the very path of received
messages — before its bytes are handed to the caller.

How a caller drives it (the net layer, the ``demo`` bots, the tests):

* ``receive(wire)`` for every frame from the table; it returns the events it caused (those
  of this seat's own messages are in ``own_events`` after each send), or
  raises :class:`~.errors.UnattributedMessage` (drop the connection that brought it) or
  :class:`~.errors.SeatViolation` (abort the hand, naming the seat, keeping the evidence).
* ``expected_sender()`` names the seat that must speak next (``None``: game over); the I/O
  layer times that seat out and names it when it stays silent.
* When it is this seat's turn: ``next_message()`` returns the message the protocol
  dictates (key share, shuffle, decryption shares, score line), or ``None`` when a
  decision is needed; then ``legal_actions()`` lists the choices and ``act(action)`` (or
  ``discard(cards)`` for the écart) returns the message carrying it.

Seats are drawn in hand 0 (``protocol/table.md`` §4.1): a peer is created with its
*member* index (its place in the set-up's roster) and learns its playing seat when the
draw ends; :attr:`Peer.seat` is the index it signs with in the current hand.

A peer without identity key and seat is an **observer**: it only receives, and checks
everything public (``tarot-p2p audit`` replays a transcript file through one).

Resuming (``table.md`` §7): :meth:`Peer.export_secrets` is the small blob a seat must keep
to go on after a crash — its key share of the current hand and its écart permutation;
:meth:`Peer.resume` rebuilds the seat from its transcript file and that blob.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.crypto.elgamal import Ciphertext
from tarot_p2p.crypto.errors import CryptoError, ProofError
from tarot_p2p.crypto.escrow import escrow_context, make_escrow, make_escrow_key, open_piece
from tarot_p2p.crypto.group import (
    Scalar,
    base_mul,
    point_to_bytes,
    points_equal,
    scalar_from_bytes,
    scalar_to_bytes,
)
from tarot_p2p.crypto.keys import key_context, make_key_share
from tarot_p2p.crypto.randomness import RandomSource
from tarot_p2p.crypto.shares import decryption_share, prove_shares, recover_card
from tarot_p2p.crypto.shuffle import prove_shuffle, shuffle_and_prove
from tarot_p2p.protocol import forfeit, sync
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.codec import (
    Bytes,
    DecodeError,
    ListOf,
    Schema,
    SchemaError,
    UInt,
    decode,
    encode,
)
from tarot_p2p.protocol.envelope import (
    TABLE_ID_LEN,
    Roster,
    SignedEnvelope,
    open_envelope,
    seal,
)
from tarot_p2p.protocol.errors import LocalProtocolError, ProtocolError, SeatViolation
from tarot_p2p.protocol.prepared import Preparation
from tarot_p2p.protocol.table import (
    DEALT_SLOTS,
    ROUND_TYPE,
    ChienShown,
    EngineAction,
    Event,
    HandMachine,
    HandOpened,
    Phase,
    TableMachine,
    Violation,
)
from tarot_p2p.protocol.transcript import (
    MAX_RECORD_LEN,
    EarlyInRound,
    FileFrames,
    RoundSlots,
    Transcript,
    TranscriptFileError,
    Verdict,
    file_header,
    file_record,
    read_frames,
)
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import (
    FULL_DECK,
    TRUMP_MASK,
    CardSet,
    card_name,
    cards_of,
    mask_of,
)
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.rules.sheet import ScoreSheet
from tarot_p2p.rules.state import IllegalAction, State, from_hands

SECRETS_VERSION = 4


class Superseded(LocalProtocolError):
    """An ``abandon`` arrived for a slot where our transcript holds our own message: we were
    the silent seat, and the others scored our abandon without ever taking that message.
    Nobody is at fault; :meth:`Peer.rewound` gives the peer from before that slot, on which
    the abandon then fits."""

    def __init__(self, position: int, wire: bytes) -> None:
        super().__init__(f"our message {position + 1} was overtaken by the others' abandon")
        self.position = position
        self.wire = wire


class SecretLost(LocalProtocolError):
    """This seat cannot sign anything more in hand ``hand``: its own ``kind`` message of
    that hand is in the transcript, but not the secret it was made with (the seat's files
    were older than what it had signed: a backup put back, a disk that lost its last
    writes). Nobody is at fault. The others finish that hand without this seat once it has
    been silent past the forfeit time (``table.md`` §3.1); the next hand needs no old
    secret, so the seat plays on from there (``table.md`` §7)."""

    def __init__(self, hand: int, kind: str) -> None:
        super().__init__(f"the secret of our own {kind} of hand {hand} is lost")
        self.hand = hand
        self.kind = kind


class CheatExposed(SeatViolation):
    """A valid message opened cards that prove an earlier message of ``seat`` false.

    The message is in the transcript (it is part of the evidence); when it was our own,
    ``outgoing`` holds its bytes, which the caller must still send so that every peer sees
    the proof."""

    outgoing: bytes | None = None


@dataclass(frozen=True, slots=True)
class Dealt:
    """Private: this seat's cards were opened to it (the dealt hand)."""

    cards: CardSet


PeerEvent = Event | Dealt


MAX_WAITING = 4
"""Our messages made ahead of their slot at once, at most: one of the round under way and
three of the next hand's opening (key, escrow, shuffle)."""


@dataclass(frozen=True, slots=True)
class _Ahead:
    """The secrets of our messages made ahead for hand ``hand`` (its key share and escrow
    key, once our ``key`` of it is made)."""

    hand: int
    x: Scalar
    e: Scalar


@dataclass(frozen=True, slots=True)
class _Secrets:
    """The blob of :meth:`Peer.export_secrets` (``table.md`` §7), decoded."""

    version: int
    table_id: bytes
    member: int
    hand: int
    x: bytes
    e: bytes
    perm: tuple[int, ...]
    pending: tuple[bytes, ...] = ()
    next_x: bytes = b""
    next_e: bytes = b""


_SECRETS = Schema(
    _Secrets,
    {
        "version": ("v", UInt(0xFFFF)),
        "table_id": ("t", Bytes(TABLE_ID_LEN)),
        "member": ("m", UInt(m.MAX_SEATS - 1)),
        "hand": ("h", UInt(0xFFFFFFFF)),
        "x": ("x", Bytes(0, 32)),
        "e": ("e", Bytes(0, 32)),
        "perm": ("p", ListOf(UInt(m.MAX_TAKER - 1), max_len=m.MAX_TAKER)),
        "pending": ("w", ListOf(Bytes(1, MAX_RECORD_LEN), max_len=MAX_WAITING)),
        "next_x": ("nx", Bytes(0, 32)),
        "next_e": ("ne", Bytes(0, 32)),
    },
)


def secrets_cover(saved: bytes, current: bytes) -> bool:
    """Whether the blob ``saved`` (:meth:`Peer.export_secrets`, ``table.md`` §7) serves
    :meth:`Peer.resume` as well as ``current`` does, so that ``current`` need not be
    written over it: the same secrets of the same hand, and every message made ahead that
    ``current`` keeps (``w``) kept in ``saved`` too. ``saved`` may keep more: messages of
    ours that the transcript took since, which a resumed seat drops (their slots are
    filled).

    Why: a message of ours made ahead of its slot (a parallel round's) leaves ``w`` when
    its slot comes; rewriting the blob only for that would put its two ``fsync`` calls in
    front of our next message (in a deal's opening, the shuffle every seat after us
    waits for) and save nothing a resumed seat needs."""
    if not saved:
        return False
    old = _SECRETS.load(decode(saved), "secrets")
    new = _SECRETS.load(decode(current), "secrets")
    return replace(old, pending=()) == replace(new, pending=()) and set(new.pending) <= set(
        old.pending
    )


class Peer:
    """A seat (with ``seat``, ``identity`` and ``rng``) or an observer (without them).

    ``roster`` and ``names`` are by member (the set-up's order) and ``seat`` is this peer's
    member index; its playing seat is drawn in hand 0 (:attr:`seat`, :attr:`seating`).
    """

    def __init__(
        self,
        config: TableConfig,
        table_id: bytes,
        roster: Sequence[Ed25519PublicKey],
        names: Sequence[str],
        *,
        seat: int | None = None,
        identity: Ed25519PrivateKey | None = None,
        rng: RandomSource | None = None,
    ) -> None:
        if len(roster) != config.seats:
            raise ValueError(f"the roster must list {config.seats} identity keys")
        if (seat is None) != (identity is None) or (seat is None) != (rng is None):
            raise ValueError("a seat needs its identity key and a random source; an observer none")
        if seat is not None and identity is not None:
            mine = identity.public_key().public_bytes_raw()
            if roster[seat].public_bytes_raw() != mine:
                raise ValueError(f"the identity key is not seat {seat}'s key in the roster")
        self.config = config
        self.table_id = table_id
        self.member = seat
        """This peer's index in the set-up's roster (``None`` for an observer)."""
        self.seat = seat
        """The index this peer signs with in the current hand: its member index in hand 0,
        its drawn seat from hand 1 on."""
        self._identity = identity
        self._rng = rng
        self._members: Roster = dict(enumerate(roster))
        self._seated: Roster = {}
        self._saved: _Secrets | None = None
        """The secrets to take back as our own messages come by: while :meth:`resume`
        replays the file, and after it for messages the file did not hold yet."""
        self._replaying = False
        self._claimed: forfeit.Slot | None = None
        """The slot whose silent sender we claimed absent (we ignore its message there)."""
        self._claims: dict[forfeit.Slot, dict[int, bytes]] = {}
        """Forfeit claims received, by slot, then by claiming seat."""
        keys = [k.public_bytes_raw() for k in roster]
        self.table = TableMachine(config, table_id, keys, names)
        self.transcript = Transcript(table_id, self.table.binding)
        self._seq = 0
        self._hand_start = 0
        """How many messages came before the current hand's first one."""
        self._waiting: dict[tuple[int, int], SignedEnvelope] = {}
        """Our messages made ahead of their slot, by slot: of the parallel round under way
        (on the round's base) and of the next hand's opening (``table.md`` §1.4, §1.6).
        Each is accepted like any message once the slots before it are filled."""
        self._ahead: _Ahead | None = None
        """The secrets of our messages of the next hand's opening made so far."""
        self._next: Preparation | None = None
        """The next hand's opening as far as we followed it (:meth:`prepare`)."""
        self._seen: dict[int, SignedEnvelope] = {}
        """The opening of the hand under way as our preparation took it, by sequence
        number: what our own messages of it were built on."""
        self.own_events: list[PeerEvent] = []
        """The events caused by the last message this seat sent (its own last ``score``
        ends a hand, its own last ``shares`` may open its cards...)."""
        self._reset_secrets()

    def _reset_secrets(self) -> None:
        self._lost: str | None = None
        """The kind of our own message of this hand whose secret we lack (SecretLost)."""
        self._x: Scalar | None = None
        self._e: Scalar | None = None
        """This seat's escrow key of the hand (``crypto.md`` §10.1)."""
        self._cards: dict[int, int] = {}
        """Slot -> card for the slots this seat may know and others may not."""
        self._private: State | None = None
        self._ecart_perm: tuple[int, ...] = ()
        """As taker: output ``j`` of the écart re-shuffle is input ``perm[j]``."""
        self._my_discards: list[int] | None = None
        """As taker, once the écart is accepted: the discarded cards, in slot order."""
        self.dealt: CardSet | None = None
        """This seat's dealt hand, once opened to it (also announced by a :class:`Dealt`
        event when the message that opened it was someone else's)."""

    # ------------------------------------------------------------------ queries

    @property
    def hand(self) -> HandMachine:
        return self.table.hand

    def expected_sender(self) -> int | None:
        return self.table.expected_sender()

    @property
    def sheet(self) -> ScoreSheet | None:
        """The agreed score sheet, by seat (``None`` until the seats are drawn)."""
        return self.table.sheet

    @property
    def seating(self) -> tuple[int, ...] | None:
        """The member index at each seat, once hand 0 has drawn them."""
        return self.table.seating

    @property
    def names(self) -> tuple[str, ...]:
        """The players' names indexed as the current hand's senders: by member in hand 0,
        by seat from hand 1 on (so ``names[expected_sender()]`` is who must speak)."""
        return self.table.names

    def expected_types(self) -> tuple[str, ...]:
        """The message kinds the expected sender may send (for logs and abort records)."""
        return () if self.expected_sender() is None else self.hand.expected_types()

    def my_turn(self) -> bool:
        """Whether this seat has a message to make now: it is the expected sender, or it
        has not yet made its message of the parallel round under way (``table.md`` §1.4)."""
        if self.seat is None:
            return False
        if self.expected_sender() == self.seat:
            return True
        hand = self.hand
        ahead = hand.round_position(self.seat)
        return ahead is not None and (hand.hand, self._seq + ahead) not in self._waiting

    @property
    def pending(self) -> tuple[bytes, ...]:
        """Our messages that the transcript has not taken yet, in slot order: of the round
        under way and of the next hand's opening (sent, or to send again after a restart)."""
        return tuple(self._waiting[slot].wire for slot in sorted(self._waiting))

    def my_cards(self) -> CardSet:
        """This seat's unplayed cards (empty for an observer or before the deal)."""
        if self.seat is None:
            return 0
        return mask_of(self._cards[s] for s in self.hand.holding[self.seat] if s in self._cards)

    def private_cards(self) -> CardSet:
        """Every card of the current hand this seat has opened for itself alone (its dealt
        hand; as taker, its taker's deck), played or not: what must never reach another
        peer, and what a secrecy test compares."""
        return mask_of(set(self._cards.values()))

    def private_state(self) -> State | None:
        """The rules engine as this seat sees the hand (its own cards known)."""
        return self._private

    def legal_actions(self) -> list[a.Action]:
        """The choices open to this seat now (empty unless a decision is due)."""
        if not self.my_turn() or self.hand.phase in ROUND_TYPE or self._private is None:
            return []
        return self._private.legal_actions()

    def other_members(self) -> list[int]:
        """Every member index but ours."""
        return [m for m in sorted(self._members) if m != self.member]

    def member_of(self, key: Ed25519PublicKey) -> int | None:
        """The member index of the identity ``key`` (``None``: not at this table)."""
        raw = key.public_bytes_raw()
        return next((i for i, k in self._members.items() if k.public_bytes_raw() == raw), None)

    def seat_of_member(self, member: int) -> int | None:
        """The index ``member`` signs with in the current hand (``None``: not a member)."""
        if member not in self._members:
            return None
        seating = self.table.seating
        return member if seating is None or self.hand.hand == 0 else seating.index(member)

    # ------------------------------------------------------------------ abandons

    def _silent_slot(self) -> forfeit.Slot | None:
        """The slot whose expected sender could be claimed absent now (hand 1 on)."""
        hand = self.hand
        if hand.present_speaker() is None:
            return None
        absent = hand.expected_sender()
        assert absent is not None
        return forfeit.Slot(hand.hand, self._seq, self.transcript.expected_prev, absent)

    def forfeit_claim(self) -> bytes | None:
        """Our signed claim that the expected sender is absent (``None``: we are that
        sender, or no abandon is possible now). From then on we ignore that seat's
        message for this slot: the claim is a promise (:mod:`.forfeit`)."""
        slot = self._silent_slot()
        if slot is None or self.seat is None or slot.absent == self.seat:
            return None
        assert self._identity is not None and self.member is not None
        claim = forfeit.sign_claim(self._identity, self.table_id, slot, self.member)
        self._claimed = slot
        self._claims.setdefault(slot, {})[self.seat] = claim.signature
        return forfeit.claim_wire(self.table_id, claim)

    def read_forfeit_claim(self, wire: bytes) -> forfeit.Claim:
        """A member's claim (raises :class:`~.forfeit.ClaimError` for anything else); kept
        when it is about the slot we are at."""
        claim = forfeit.read_claim(wire, self.table_id, self._members)
        seat = self.seat_of_member(claim.member)
        if claim.slot == self._silent_slot() and seat is not None and seat != claim.slot.absent:
            self._claims.setdefault(claim.slot, {})[seat] = claim.signature
        return claim

    def abandon(self) -> bytes | None:
        """The ``abandon`` message, when every other seat claimed the silent one absent
        and we are the seat that sends it; ``None`` otherwise."""
        slot = self._silent_slot()
        if slot is None or self.seat != self.hand.present_speaker() or self._claimed != slot:
            return None
        held = self._claims.get(slot, {})
        present = [s for s in range(self.config.seats) if s != slot.absent]
        if any(s not in held for s in present):
            return None
        return self._send(m.Abandon(slot.absent, tuple(held[s] for s in present)))

    def _check_claims(self, env: SignedEnvelope, msg: m.Abandon) -> None:
        """Every other seat's claim, in seat order, over this very slot and history."""
        seating = self.table.seating
        if seating is None:
            raise SeatViolation(env.seat, "no abandon before the seats are drawn", (env.wire,))
        present = [s for s in range(self.config.seats) if s != msg.seat]
        if len(msg.claims) != len(present):
            return  # the table machine names the count
        slot = forfeit.Slot(env.hand, env.seq, env.prev, msg.seat)
        for s, signature in zip(present, msg.claims, strict=True):
            member = seating[s]
            claim = forfeit.Claim(slot, member, signature)
            if not forfeit.verify_claim(self._members[member], self.table_id, claim):
                raise SeatViolation(
                    env.seat, f"abandon: seat {s}'s claim does not verify", (env.wire,)
                )

    # ------------------------------------------------------------------ catching up

    def sync_request(self) -> bytes:
        """Our signed request for the records after ours (:mod:`.sync`)."""
        if self._identity is None or self.member is None:
            raise LocalProtocolError("an observer sends nothing")
        return sync.sync_request(self._identity, self.table_id, self.member, self.transcript)

    def roll_call(self, nonce: bytes, kind: str = sync.ROLL_KIND) -> bytes:
        """Our signed roll call (taking our seat back), or our answer to one (``here``)."""
        if self._identity is None or self.member is None:
            raise LocalProtocolError("an observer sends nothing")
        return sync.roll_call(
            self._identity, self.table_id, self.member, self.transcript, nonce, kind
        )

    def read_sync_request(self, wire: bytes) -> sync.SyncRequest:
        """A member's sync request (raises :class:`~.sync.SyncError` for anything else)."""
        return sync.read_sync_request(wire, self.table_id, self._members)

    # ------------------------------------------------------------------ receiving

    def receive(self, wire: bytes) -> list[PeerEvent]:
        """Verify and apply one message from the table (see the module docstring)."""
        env = open_envelope(wire, table_id=self.table_id, roster=self._roster_for(wire))
        claimed = self._claimed
        if claimed is not None and (env.hand, env.seq, env.prev, env.seat) == (
            claimed.hand,
            claimed.seq,
            claimed.prev,
            claimed.absent,
        ):
            return []  # too late: we promised to ignore it (see forfeit_claim)
        if self._abandoned_at(env):
            return []
        try:
            if self.transcript.classify(env) is Verdict.DUPLICATE:
                return []
            return self._accept(env)
        except EarlyInRound:
            if env.seat == self.seat and env.hand - self.hand.hand in (0, 1):
                # Our own message made ahead, before we stopped, and handed back by the
                # others (table.md §7): ours to wait for, never to make anew.
                self._waiting.setdefault(env.slot, env)
                return []
            prep = self._preparation()
            if prep is not None:
                prep.keep(env)
            raise
        except SeatViolation as exc:
            position = self._overtaken(env)
            if position is not None:
                raise Superseded(position, wire) from None
            raise self._by_seat(env, exc) from None

    def _abandoned_at(self, env: SignedEnvelope) -> bool:
        """Whether ``env`` is the message of a seat the others' abandon, in our transcript,
        took the place of: the same slot and history, the abandon naming its sender. It
        was sent but never taken (the hub held it, or it crossed the claims): late, not a
        fork (``table.md`` §3.1). Every claimer promised to ignore it; this is that promise
        kept without the claim's memory (a program run again, a peer that made none)."""
        held = self.transcript.at(env.slot)
        if held is None or held.kind != "abandon" or held.prev != env.prev:
            return False
        message = m.load_body(held.kind, held.body)  # (checked when it was taken)
        assert isinstance(message, m.Abandon)
        return message.seat == env.seat

    def _overtaken(self, env: SignedEnvelope) -> int | None:
        """Where ``env`` is the others' abandon of us, overtaking our own messages that
        nobody took (``table.md`` §3.1); ``None`` for anything else, which then stays a
        fork by its sender.

        Only such an abandon may make a peer drop records, so everything that can be
        checked before dropping them is: the slot is in the hand we are in, every record
        from that slot on is ours (the others never took the first, so none of theirs can
        follow), the abandon names us, and every other seat's claim verifies. A message
        that claims to rewrite earlier records without all this changes nothing."""
        if env.kind != "abandon" or self.seat is None or env.hand != self.hand.hand:
            return None
        held = list(self.transcript)
        position = next((i for i, e in enumerate(held) if e.slot == env.slot), None)
        if position is None or held[position].prev != env.prev:
            return None
        # After ours, only our own messages, or the others' of the same parallel round
        # (made on its base, they stay valid: the round goes on without us).
        if any(e.seat != self.seat and e.prev != env.prev for e in held[position:]):
            return None
        try:
            message = m.load_body(env.kind, env.body)
            assert isinstance(message, m.Abandon)
            first = min(s for s in range(self.config.seats) if s != self.seat)
            if message.seat != self.seat or env.seat != first:
                return None
            if len(message.claims) != self.config.seats - 1:
                return None
            self._check_claims(env, message)
        except (SchemaError, SeatViolation):
            return None
        return position

    def _own_position(self, slot: tuple[int, int], prev: bytes) -> int | None:
        for position, held in enumerate(self.transcript):
            if held.slot == slot:
                return position if held.seat == self.seat and held.prev == prev else None
        return None

    def sent_at(self, slot: forfeit.Slot) -> bool:
        """Whether our transcript holds our own message at ``slot`` (its hand, sequence
        number and history): a claim of our absence there means that message never
        reached the claimer, so the hub (or the network) is not passing it on."""
        if slot.absent != self.seat:
            return False
        return self._own_position((slot.hand, slot.seq), slot.prev) is not None

    def rewound(self, count: int) -> Peer:
        """This seat as it stood after its first ``count`` messages, with its secrets (its
        later messages, which nobody took, are dropped)."""
        if self._identity is None or self._rng is None:
            raise LocalProtocolError("an observer has no seat to rewind")
        data = file_header(self.table_id, self.binding)
        data += b"".join(file_record(env) for env in list(self.transcript)[:count])
        return Peer.resume(data, self.export_secrets(), identity=self._identity, rng=self._rng)

    def _by_seat(self, env: SignedEnvelope, exc: SeatViolation) -> SeatViolation:
        """Name the signer of a hand-0 message by its drawn seat once seats are drawn.

        A hand-0 envelope is signed under the signer's member index; after the draw every
        index a peer reports is a seat, so member ``m`` must be reported as the seat it
        drew, not as seat ``m`` (another, innocent player)."""
        seating = self.table.seating
        if env.hand != 0 or seating is None or exc.seat != env.seat:
            return exc
        member = env.seat
        return type(exc)(
            seating.index(member), f"{exc.reason} (member {member} of the set-up)", exc.evidence
        )

    def _roster_for(self, wire: bytes) -> Roster:
        """The keys a message is checked against, chosen by its hand number ``h`` (read
        before the signature, which covers it): by member in hand 0, by seat after the
        draw. Unreadable bytes get the member roster; :func:`open_envelope` refuses them."""
        if not self._seated:
            return self._members
        try:
            outer = decode(wire)
            payload = outer[0] if isinstance(outer, list) and outer else None
            fields = decode(payload) if isinstance(payload, bytes) else None
        except DecodeError:
            return self._members
        hand = fields.get("h") if isinstance(fields, dict) else None
        return self._seated if isinstance(hand, int) and hand > 0 else self._members

    def _accept(self, env: SignedEnvelope) -> list[PeerEvent]:
        hand = self.hand
        if (env.hand, env.seq) != (hand.hand, self._seq):
            raise SeatViolation(
                env.seat, f"slot {env.slot} is not ({hand.hand}, {self._seq})", (env.wire,)
            )
        seen = self._seen.get(env.seq)
        if seen is not None and seen.seat == env.seat and seen.payload != env.payload:
            # Our own messages of this opening rest on the one we took ahead: the sender
            # signed two versions of its slot (table.md §1.6).
            raise SeatViolation(
                env.seat, f"equivocation: two messages for slot {env.slot}", (seen.wire, env.wire)
            )
        try:
            message = m.load_body(env.kind, env.body)
            if isinstance(message, m.Abandon):
                self._check_claims(env, message)
            events: list[PeerEvent] = list(self.table.apply(env.seat, message))
        except SchemaError as exc:
            raise SeatViolation(env.seat, f"{env.kind}: {exc}", (env.wire,)) from None
        except Violation as v:
            raise self._blame(env, v) from None
        self.transcript.append(env)
        self._waiting.pop(env.slot, None)  # ours, if handed back to us by the others
        if self.hand is not hand:
            self._hand_start = len(self.transcript)
        seqs = self.hand.round_seqs
        self.transcript.round = (
            None
            if seqs is None
            else RoundSlots(self._hand_start + seqs.start, self.hand.hand, seqs)
        )
        self.transcript.opening = self.hand.hand if self.hand.opening else None
        if hand.exposed is not None:
            blamed = self._blame(env, hand.exposed)
            raise CheatExposed(blamed.seat, blamed.reason, blamed.evidence)
        if self._saved is not None and env.seat == self.seat and env.hand == self._saved.hand:
            try:
                self._restore(env.kind, hand)
            except ValueError:
                if self._replaying:
                    raise
                self._saved = None  # not the secrets of this message: see just below
            saved = self._saved
            if saved is not None and (
                env.kind == "ecart" or (env.kind == "key" and not saved.perm)
            ):
                self._saved = None  # taken back: nothing left to wait for
        if env.seat == self.seat and self._secret_missing(env.kind):
            # Our own message, handed back by the others or read from our file, without
            # the secret it was made with: this hand goes on without us (SecretLost).
            self._lost = env.kind
            self._private = None  # it cannot follow our own moves any more
        if self.seat is not None:
            events.extend(self._learn(hand, events))
        if self.hand is hand:
            self._seq += 1
            return events + self._take_own()
        self._seq = 0
        if hand.hand == 0:
            self._take_seats()
        ahead, prep = self._ahead, self._next
        self._next, self._seen = None, {}
        if self.seat is not None:
            self._reset_secrets()
            if ahead is not None and ahead.hand <= self.hand.hand:
                self._ahead = None  # (one of a later hand stays: resume() gave it early)
                if ahead.hand == self.hand.hand:
                    self._x, self._e = ahead.x, ahead.e  # made ahead (table.md §1.6)
            if prep is not None and prep.hand == self.hand.hand:
                self._seen = prep.taken
        return events + self._take_own()

    def _take_own(self) -> list[PeerEvent]:
        """Accept our own message made ahead for the next slot, if we hold one."""
        own = self._waiting.pop((self.hand.hand, self._seq), None)
        if own is None:
            return []
        try:
            return self._accept(own)
        except CheatExposed:
            raise  # our message is the proof: the caller passes it on
        except SeatViolation as exc:
            raise LocalProtocolError(f"own message refused: {exc}") from exc

    def _take_seats(self) -> None:
        """Hand 0 is over: from now on senders are seats."""
        seating = self.table.seating
        assert seating is not None
        self._seated = {seat: self._members[member] for seat, member in enumerate(seating)}
        if self.member is not None:
            self.seat = seating.index(self.member)

    def _blame(self, env: SignedEnvelope, v: Violation) -> SeatViolation:
        if v.seat is None:
            return SeatViolation(env.seat, v.reason, (env.wire,))
        earlier = [
            e.wire
            for e in self.transcript
            if e.hand == env.hand and e.seat == v.seat and e.kind == v.evidence_type
        ]
        return SeatViolation(v.seat, v.reason, (*earlier[-1:], env.wire))

    def _learn(self, hand: HandMachine, events: list[PeerEvent]) -> list[PeerEvent]:
        """Update private knowledge from what the public machine just accepted."""
        assert self.seat is not None
        out: list[PeerEvent] = []
        if self.dealt is None and hand.engine is not None and self._x is not None:
            dealt = hand.dealt_slots(self.seat)
            for slot in dealt:
                ct = hand.deck[slot]
                shares = [*hand.shares[slot].values(), decryption_share(self._x, ct)]
                self._cards[slot] = recover_card(ct, shares)
            mine = mask_of(self._cards[s] for s in dealt)
            hands: list[CardSet | None] = [None] * self.config.seats
            hands[self.seat] = mine
            for s in range(self.config.seats):
                if not hand.dealt_slots(s):
                    hands[s] = 0
            self._private = from_hands(self.config, hand.dealer, hands, None)
            self.dealt = mine
            out.append(Dealt(mine))
        if self._ecart_perm and self._my_discards is None and hand.discard_slots:
            self._take_ecart(hand)
        private = self._private
        if private is None:
            return out
        # The private engine follows the public one step by step; a refusal there is a bug.
        for event in events:
            if isinstance(event, ChienShown):
                private.reveal_chien(event.cards)
            elif isinstance(event, HandOpened) and event.seat != self.seat:
                private.reveal_hand(event.seat, event.cards & ~private.hands[event.seat])
            elif isinstance(event, EngineAction):
                action = event.action
                if event.seat == self.seat and isinstance(action, a.Discard):
                    assert self._my_discards is not None
                    action = a.DISCARD[self._my_discards.pop(0)]
                private.apply_action(action)
        return out

    def _taker_cards(self, hand: HandMachine) -> list[int]:
        """The cards of the écart re-shuffle's input: own dealt cards, then the open chien."""
        return [self._cards[s] if s in self._cards else hand.cards[s] for s in hand.taker_input]

    def _take_ecart(self, hand: HandMachine) -> None:
        """Our écart was accepted: learn which taker's-deck slot holds which card."""
        in_cards = self._taker_cards(hand)
        for j, i in enumerate(self._ecart_perm):
            self._cards[DEALT_SLOTS + j] = in_cards[i]
        self._my_discards = [self._cards[s] for s in hand.discard_slots]

    # ------------------------------------------------------------------ resuming

    def export_secrets(self) -> bytes:
        """This seat's secrets of the current hand, as the versioned blob of ``table.md``
        §7: enough, with the transcript, for :meth:`resume` to go on. It changes when a
        key share or an écart is made: save it before sending each message of this seat.
        It opens this seat's cards to whoever holds it: keep it as secret as the cards."""
        if self.member is None:
            raise LocalProtocolError("an observer has no secrets")
        ahead = self._ahead
        return encode(
            {
                "v": SECRETS_VERSION,
                "t": self.table_id,
                "m": self.member,
                "h": self.hand.hand,
                "x": b"" if self._x is None else scalar_to_bytes(self._x),
                "e": b"" if self._e is None else scalar_to_bytes(self._e),
                "p": list(self._ecart_perm),
                "w": list(self.pending),
                "nx": b"" if ahead is None else scalar_to_bytes(ahead.x),
                "ne": b"" if ahead is None else scalar_to_bytes(ahead.e),
            }
        )

    @classmethod
    def resume(
        cls,
        data: bytes,
        secrets: bytes | None,
        *,
        identity: Ed25519PrivateKey,
        rng: RandomSource,
    ) -> Peer:
        """Rebuild a seat from its transcript file ``data`` and its last exported
        ``secrets``: every record is received again (and checked again), and the secrets
        are taken back when the seat's own ``key`` and ``ecart`` of that hand come by.
        ``secrets=None``: the seat never saved any (it had sent nothing yet); its member
        index is then found in the set-up by its identity key.

        Raises :class:`~.transcript.TranscriptFileError` for an unusable file, a
        :class:`ProtocolError` for a record refused, ``ValueError`` when the secrets are
        not this file's or do not fit the own message of their hand that the file holds.
        Secrets of an earlier hand than the file's own key are no error: the seat then
        knows it cannot sign more in this hand (:attr:`secret_lost`)."""
        frames = _read_file(data)
        table_id = frames.table_id
        config, roster, names = _setup_of(frames)
        if secrets is None:
            me = identity.public_key().public_bytes_raw()
            members = [k.public_bytes_raw() for k in roster]
            if me not in members:
                raise ValueError("this identity has no seat at this table")
            saved = _Secrets(SECRETS_VERSION, table_id, members.index(me), 0, b"", b"", ())
        else:
            try:
                saved = _SECRETS.load(decode(secrets), "secrets")
            except DecodeError as exc:
                raise ValueError(f"unreadable secrets: {exc}") from None
        if saved.version != SECRETS_VERSION or saved.table_id != table_id:
            raise ValueError("the secrets are not of this version or of this table")
        if saved.member >= len(roster):
            raise ValueError(f"member {saved.member} is not in the roster")
        peer = cls(config, table_id, roster, names, seat=saved.member, identity=identity, rng=rng)
        peer._saved = saved
        if saved.next_x or saved.next_e:
            try:
                x = scalar_from_bytes(saved.next_x, nonzero=True)
                e = scalar_from_bytes(saved.next_e, nonzero=True)
            except (CryptoError, ValueError):
                raise ValueError("the saved secrets of the next hand are invalid") from None
            peer._ahead = _Ahead(saved.hand + 1, x, e)
        peer._replaying = True
        for wire in frames.records:
            peer.receive(wire)
        peer._replaying = False
        hand = peer.hand
        for wire in saved.pending:
            peer._take_pending(wire)
        peer.own_events = peer._take_own()
        if saved.hand < hand.hand or (saved.hand == hand.hand and not (saved.x or saved.perm)):
            peer._saved = None
        # Secrets this file does not use yet stay pending: the file may be older than what
        # this seat signed (restored from a backup), and its own messages, handed back by
        # the others, take them back as they come (§7, a resumed seat adopts its copies).
        # A file holding our key of this hand without its secret resumes all the same
        # (secret_lost): the seat catches up, signs nothing more in this hand, and plays
        # the next one once the others have finished this one without it.
        return peer

    def _take_pending(self, wire: bytes) -> None:
        """One of our saved messages made ahead (sent or not before we stopped): kept to
        send again as it was, never made anew (a second version of it would be an
        equivocation). Dropped when the transcript already holds its slot."""
        try:
            env = open_envelope(wire, table_id=self.table_id, roster=self._roster_for(wire))
        except ProtocolError:
            raise ValueError("a saved message made ahead does not verify") from None
        hand = self.hand.hand
        if env.seat != self.seat or (env.hand, env.seq) < (hand, self._seq) or env.hand > hand + 1:
            return
        self._waiting.setdefault(env.slot, env)

    @property
    def secret_lost(self) -> SecretLost | None:
        """Why this seat cannot sign anything more in the current hand, or ``None``."""
        if self._lost is None:
            return None
        return SecretLost(self.hand.hand, self._lost)

    def _secret_missing(self, kind: str) -> bool:
        """Our own ``kind`` message was just accepted without the secret it was made with
        (its key share or its écart's permutation), which the hand needs again."""
        if kind == "key":
            seat = self.seat
            assert seat is not None
            return self._x is None or not points_equal(
                base_mul(self._x), self.hand.key_shares[seat]
            )
        return kind == "ecart" and not self._ecart_perm

    @property
    def behind_own_secrets(self) -> bool:
        """Our saved secrets are of a later hand than our transcript: we signed more than
        it holds, and must take those records back before signing anything."""
        saved = self._saved
        return saved is not None and saved.hand > self.hand.hand

    def _restore(self, kind: str, hand: HandMachine) -> None:
        """Take back a saved secret as the own message that used it is replayed."""
        saved = self._saved
        assert saved is not None and self.seat is not None
        if kind == "key":
            try:
                x = scalar_from_bytes(saved.x, nonzero=True)
            except (CryptoError, ValueError):
                raise ValueError("the saved key share is missing or invalid") from None
            if not points_equal(base_mul(x), hand.key_shares[self.seat]):
                raise ValueError("the saved key share is not the one in the transcript")
            try:
                e = scalar_from_bytes(saved.e, nonzero=True)
            except (CryptoError, ValueError):
                raise ValueError("the saved escrow key is missing or invalid") from None
            if not points_equal(base_mul(e), hand.escrow_keys[self.seat]):
                raise ValueError("the saved escrow key is not the one in the transcript")
            self._x, self._e = x, e
        elif kind == "ecart":
            if sorted(saved.perm) != list(range(len(hand.taker_input))):
                raise ValueError("the saved écart permutation does not fit this écart")
            self._ecart_perm = saved.perm

    # ------------------------------------------------------------------ sending

    @property
    def binding(self) -> bytes:
        """The transcript binding (what a transcript file's header must hold)."""
        return self.table.binding

    def next_message(self) -> bytes | None:
        """The message the protocol dictates now, or ``None`` (not our turn, or a decision)."""
        if not self.my_turn():
            return None
        if (lost := self.secret_lost) is not None:
            raise lost
        hand = self.hand
        phase = hand.phase
        seat = self.seat
        assert seat is not None and self._rng is not None
        message: m.Message
        if phase is Phase.SETUP:
            message = self.table.setup
        elif phase is Phase.KEYS:
            self._x, self._e, message = self._key(hand)
        elif phase is Phase.ESCROW:
            assert self._x is not None
            message = self._escrow(hand, self._x)
        elif (complaint := self._complaint(hand, self._e)) is not None:
            message = complaint
        elif phase is Phase.RELEASE:
            assert self._e is not None
            message = m.Release(scalar_to_bytes(self._piece(hand, self._e, hand.abandoned)))
        elif phase is Phase.SHUFFLE:
            message = self._shuffle(hand)
        elif phase is Phase.SCORE:
            assert hand.scores is not None
            message = m.Score(hand.scores)
        elif phase in ROUND_TYPE:
            d, proof_bytes = self._shares(phase.value, hand.share_slots(seat))
            message = m.Shares(d, proof_bytes)
        else:
            return None
        return self._send(message)

    def _key(self, hand: HandMachine) -> tuple[Scalar, Scalar, m.Key]:
        """Our key share and escrow key of ``hand``, and the ``key`` message showing them."""
        assert self.seat is not None and self._rng is not None
        x, share = make_key_share(key_context(self.table_id, hand.hand, self.seat), self._rng)
        e, escrow_key = make_escrow_key(self._rng)
        y, proof = point_to_bytes(share.y), share.proof.to_bytes()
        return x, e, m.Key(y, proof, point_to_bytes(escrow_key))

    def _escrow(self, hand: HandMachine, x: Scalar) -> m.Escrow:
        assert self.seat is not None and self._rng is not None
        ctx = escrow_context(self.table_id, hand.hand, self.seat)
        return m.Escrow(make_escrow(x, ctx, hand.escrow_keys, self._rng).to_bytes())

    def _shuffle(self, hand: HandMachine) -> m.Shuffle:
        assert self.seat is not None and self._rng is not None and hand.joint_key is not None
        ctx = hand.context("shuffle", self.seat)
        out, proof = shuffle_and_prove(hand.joint_key, hand.shuffle_input(), ctx, self._rng)
        return m.Shuffle(_cts(out), proof.to_bytes())

    def _piece(self, hand: HandMachine, e: Scalar, owner: int | None) -> Scalar:
        """Our piece of ``owner``'s escrowed key, unsealed with our escrow key ``e``."""
        assert owner is not None and self.seat is not None
        ctx = escrow_context(self.table_id, hand.hand, owner)
        return open_piece(e, self.seat, hand.escrows[owner], ctx)

    def _complaint(self, hand: HandMachine, e: Scalar | None) -> m.Complaint | None:
        """Before accepting the escrow pieces sealed to us (our shuffle), each is checked;
        the first wrong one is complained of with our escrow key (``crypto.md`` §10.5)."""
        if self.seat is None or not hand.may_complain(self.seat) or e is None:
            return None
        for owner in sorted(hand.escrows):
            if owner == self.seat:
                continue
            try:
                self._piece(hand, e, owner)
            except ProofError:
                return m.Complaint(owner, scalar_to_bytes(e))
        return None

    # ------------------------------------------------------------------ ahead

    def _preparation(self) -> Preparation | None:
        """Our copy of the next hand's opening, begun as soon as it may be (hand 1 on,
        when a hand may follow this one); ``None`` when it may not."""
        if self._next is None and self.seat is not None and self.hand.hand >= 1:
            start = self.transcript.opening_start(self.hand.hand + 1)
            if start is not None and self.table.may_go_on:
                self._next = Preparation(self.table.following_hand(), start)
        return self._next

    @property
    def may_prepare(self) -> bool:
        """Whether :meth:`prepare` may make anything now: a seat whose hand's cards are
        dealt and has lost none of its secrets. Cheap: a caller that runs :meth:`prepare`
        in a worker thread asks first, and spares the opening of every hand (the way to
        each first card) a thread's round trip per message and seat."""
        return self._identity is not None and self.hand.engine is not None and self._lost is None

    def prepare(self) -> list[bytes]:
        """Our messages of the next hand's opening that can be made now (``table.md``
        §1.6), in slot order: save the secrets (:meth:`export_secrets`) before sending
        them. Like every message made ahead they wait for their slots (:attr:`pending`).

        Nothing before this hand's cards are dealt: its own opening and deal go first, the
        next hand's is made while the players think. Nothing either after the last deal of
        the game, or once this hand has lost one of our secrets. Keys, escrows and
        shuffles only: when one of the escrow pieces sealed to us does not open, our
        complaint waits for the hand (its own course makes it)."""
        if not self.may_prepare:
            return []
        prep = self._preparation()
        if prep is None:
            return []
        seat, identity = self.seat, self._identity
        assert seat is not None and identity is not None
        own = {seq: env for (hand, seq), env in self._waiting.items() if hand == prep.hand}
        made: list[bytes] = []
        while True:
            if prep.take_next(own):
                continue
            seq = prep.our_slot(seat, own)
            if seq is None:
                return made
            message = self._made_ahead(prep.machine)
            if message is None:
                prep.stopped = True
                return made
            env = seal(
                identity,
                table_id=self.table_id,
                hand=prep.hand,
                seq=seq,
                seat=seat,
                prev=prep.base,
                kind=m.type_of(message),
                body=m.dump_body(message),
            )
            self._waiting[env.slot] = own[seq] = env
            made.append(env.wire)

    def _made_ahead(self, hand: HandMachine) -> m.Message | None:
        """Our message of ``hand``'s opening due now, made ahead (``None``: not ahead)."""
        if hand.phase is Phase.KEYS:
            x, e, key = self._key(hand)
            self._ahead = _Ahead(hand.hand, x, e)
            return key
        ahead = self._ahead
        if ahead is None or ahead.hand != hand.hand:
            return None  # our key of it was made before we stopped, its secret is lost
        if hand.phase is Phase.ESCROW:
            return self._escrow(hand, ahead.x)
        if hand.phase is Phase.SHUFFLE and self._complaint(hand, ahead.e) is None:
            return self._shuffle(hand)
        return None

    def act(self, action: a.Action) -> bytes:
        """The message carrying this seat's decision ``action`` (one of ``legal_actions()``,
        or any valid poignée); raises :class:`LocalProtocolError` otherwise."""
        if (lost := self.secret_lost) is not None:
            raise lost
        if action not in self.legal_actions() and not self._valid_poignee(action):
            raise LocalProtocolError(f"{action} is not a legal action now")
        seat = self.seat
        assert seat is not None
        hand = self.hand
        message: m.Message
        if isinstance(action, a.Bid | a.CallCard | a.Go | a.Misere):
            message = m.Act(action.encode())
        elif isinstance(action, a.PetitSec):
            d, proof = self._shares("petit_sec", hand.holding[seat])
            message = m.PetitSec(d, proof)
        elif isinstance(action, a.Play):
            slot = self._slot_of(action.card)
            d, proof = self._shares("play", [slot])
            message = m.Play(slot, d, proof)
        elif isinstance(action, a.Poignee):
            slots = sorted(self._slot_of(c) for c in cards_of(action.cards))
            d, proof = self._shares("poignee", slots)
            message = m.Poignee(tuple(slots), d, proof)
        else:
            raise LocalProtocolError(f"{action} is made with discard(), not act()")
        return self._send(message)

    def discard(self, cards: CardSet) -> bytes:
        """The écart message: ``cards`` go to the écart (the engine's rules checked here)."""
        if (lost := self.secret_lost) is not None:
            raise lost
        if not self.my_turn() or self.hand.phase is not Phase.ECART or self._private is None:
            raise LocalProtocolError("no écart to make now")
        if cards & ~FULL_DECK:
            raise LocalProtocolError("the écart is a set of the 78 cards")
        order = sorted(cards_of(cards))
        if len(order) != chien_size(self.config):
            raise LocalProtocolError(f"the écart is {chien_size(self.config)} cards")
        trial = self._private.clone()
        try:
            for c in order:
                trial.apply_action(a.DISCARD[c])
        except IllegalAction as exc:
            raise LocalProtocolError(f"illegal écart: {exc}") from None
        return self._ecart(order)

    def _ecart(self, order: Sequence[int]) -> bytes:
        """The écart message putting the cards ``order`` aside, with no rules check (the
        caller made it: :meth:`discard`, or a cheating client of the conformance kit)."""
        hand = self.hand
        seat = self.seat
        assert seat is not None and self._x is not None and self._rng is not None
        in_cards = self._taker_cards(hand)
        perm = self._rng.permutation(len(in_cards))
        assert hand.joint_key is not None
        ctx = hand.context("ecart", seat)
        out, proof = prove_shuffle(hand.joint_key, hand.shuffle_input(), perm, ctx, self._rng)
        chosen = set(order)
        discard = [j for j, i in enumerate(perm) if in_cards[i] in chosen]
        trumps = [j for j in discard if (TRUMP_MASK >> in_cards[perm[j]]) & 1]
        d, dproof = b"", b""
        if trumps:
            shares, sproof = prove_shares(self._x, [out[j] for j in trumps], ctx, self._rng)
            d, dproof = b"".join(point_to_bytes(p) for p in shares), sproof.to_bytes()
        # Kept before sending (export_secrets), used once the écart is accepted (_learn).
        self._ecart_perm = tuple(perm)
        try:
            return self._send(
                m.Ecart(_cts(out), proof.to_bytes(), tuple(discard), tuple(trumps), d, dproof)
            )
        except LocalProtocolError:
            self._ecart_perm = ()
            raise

    def _valid_poignee(self, action: a.Action) -> bool:
        if not isinstance(action, a.Poignee) or not self.my_turn() or self._private is None:
            return False
        if self.hand.phase is not Phase.PLAY or action.cards & ~self.my_cards():
            return False
        trial = self._private.clone()
        try:
            trial.apply_action(action)
        except IllegalAction:
            return False
        return True

    def _slot_of(self, card: int) -> int:
        assert self.seat is not None
        for slot in self.hand.holding[self.seat]:
            if self._cards.get(slot) == card:
                return slot
        raise LocalProtocolError(f"{card_name(card)} is not in this seat's hand")

    def _shares(self, phase: str, slots: Sequence[int]) -> tuple[bytes, bytes]:
        assert self.seat is not None and self._x is not None and self._rng is not None
        hand = self.hand
        shares, proof = prove_shares(
            self._x, [hand.deck[s] for s in slots], hand.context(phase, self.seat), self._rng
        )
        return b"".join(point_to_bytes(p) for p in shares), proof.to_bytes()

    def _send(self, message: m.Message) -> bytes:
        """Seal ``message`` for the next slot, or in a parallel round for our own slot of
        the round (on the round's base): a later slot waits, unapplied, until the slots
        before it are filled. The machine checks it then; what it checks is what we built
        it from, which is all there at the round's start (``table.md`` §1.4)."""
        assert self.seat is not None and self._identity is not None
        self._saved = None  # a new message of ours: only what the transcript holds counts
        hand = self.hand
        ahead = 0 if isinstance(message, m.Abandon) else hand.round_position(self.seat) or 0
        env = seal(
            self._identity,
            table_id=self.table_id,
            hand=hand.hand,
            seq=self._seq + ahead,
            seat=self.seat,
            prev=self.transcript.expected_prev,
            kind=m.type_of(message),
            body=m.dump_body(message),
        )
        if ahead:
            self._waiting[env.slot] = env
            self.own_events = []
            return env.wire
        try:
            self.own_events = self._accept(env)
        except CheatExposed as exc:
            exc.outgoing = env.wire
            raise
        except SeatViolation as exc:
            raise LocalProtocolError(f"own message refused: {exc}") from exc
        return env.wire


def _cts(deck: Sequence[Ciphertext]) -> bytes:
    return b"".join(ct.to_bytes() for ct in deck)


@dataclass(frozen=True, slots=True)
class Replay:
    """What replaying a transcript file found (see :func:`replay_file`)."""

    observer: Peer
    accepted: int
    """Records accepted, in order; record number ``accepted`` is the one that failed."""
    error: ProtocolError | None
    """Why the replay stopped early (a :class:`SeatViolation` names its seat), or ``None``."""
    torn_tail: int
    """Bytes of an incomplete last record (a crash while writing), ignored."""


def replay_file(data: bytes) -> Replay:
    """Replay a saved transcript through an observer, for ``tarot-p2p audit``.

    The rules, roster and names come from the first record (the set-up message), checked
    against the header's binding; then every record goes through :meth:`Peer.receive` —
    signature, turn, digest chain, schema, proofs, rules, scores — and the replay stops at
    the first one refused. A file cut short (an aborted hand) replays up to its end; the
    observer's ``expected_sender()`` then names the seat that was to speak. Raises
    :class:`~.transcript.TranscriptFileError` when the file or its set-up is unusable.
    """
    frames = _read_file(data)
    config, roster, names = _setup_of(frames)
    observer = Peer(config, frames.table_id, roster, names)
    for index, wire in enumerate(frames.records):
        try:
            observer.receive(wire)
        except ProtocolError as exc:
            return Replay(observer, index, exc, frames.torn_tail)
    return Replay(observer, len(frames.records), None, frames.torn_tail)


def _read_file(data: bytes) -> FileFrames:
    """A transcript file's header and complete records; a bad length prefix is refused."""
    frames = read_frames(data)
    frames.refuse_bad_length()
    return frames


def read_setup(
    wire: bytes, table_id: bytes
) -> tuple[TableConfig, list[Ed25519PublicKey], tuple[str, ...]]:
    """The rules, roster and names a set-up message states, before anything is verified.

    Why unverified: the roster the signature must be checked against is inside the
    message. Whoever reads one (a joiner offered a table, a transcript file's replay) builds
    a :class:`Peer` from what this returns and has it :meth:`~Peer.receive` the same bytes,
    which checks them as any first message. Raises ``ValueError`` (including
    :class:`~.codec.SchemaError`) or a :class:`ProtocolError` for anything else.
    """
    first = open_envelope(wire, table_id=table_id, roster=None)
    if first.kind != "table":
        raise ValueError("not the table set-up")
    setup = m.load_body("table", first.body)
    assert isinstance(setup, m.Setup)
    config = TableConfig.from_canonical_bytes(setup.config)
    roster = [Ed25519PublicKey.from_public_bytes(k) for k in setup.roster]
    return config, roster, setup.names


def _setup_of(
    frames: FileFrames,
) -> tuple[TableConfig, list[Ed25519PublicKey], tuple[str, ...]]:
    """The configuration, roster and names of the set-up record, checked against the
    file header's binding."""
    try:
        config, roster, names = read_setup(frames.records[0], frames.table_id)
        raw = [k.public_bytes_raw() for k in roster]
        machine = TableMachine(config, frames.table_id, raw, names)
    except (IndexError, ValueError, ProtocolError) as exc:
        raise TranscriptFileError(f"unusable table set-up: {exc}") from None
    if machine.binding != frames.binding:
        raise TranscriptFileError("the set-up does not match the file's binding")
    return config, roster, names
