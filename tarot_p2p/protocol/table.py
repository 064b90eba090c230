"""The table state machine: who must send which message next, and whether what came is right.

Theory of operation
===================

A table is a sequence of *hands*: hand 0 is the set-up (the host's ``table`` message, which
fixes rules, roster and names) and the draw of seats and first dealer; hands 1, 2, ... are
the deals of the game, until the score sheet says the game is over. Each hand is a
:class:`HandMachine`; :class:`TableMachine` chains them and keeps the agreed score sheet.
``protocol/table.md`` is the normative description; this file is its executable form.

Two numberings. In hand 0 a sender is named by its *member* index, its place in the
set-up's roster (join order); the draw then gives every member a *seat* (playing order,
seat 0 deals first), and from hand 1 on every index — envelope sender, roster key, engine
seat, score-sheet column — is a seat. :attr:`TableMachine.seating` maps one to the other.

Exactly one sender at a time. The transcript is linear, so at every moment the machine
names the one seat that must speak (:meth:`HandMachine.expected_sender`) and the message
types it may send (:meth:`HandMachine.expected_types`). Two kinds of phases:

* *round* phases (``ROUND_TYPE``): every seat that has something to contribute speaks
  once, in ascending seat order — key shares, shuffles, decryption shares, score lines;
* *engine* phases (``ENGINE_TYPES``): the rules engine's ``current_player()`` speaks —
  bids, the king called, the écart, announcements, cards.

Transitions between phases are the table ``NEXT`` where the next phase is fixed, and
:meth:`HandMachine._branch` where it depends on the deal (hand 0 or not, the contract,
the players, whether the engine reached the end).

Keyless and symmetric. The machine holds no secret and does not know which seat runs it.
It checks every message with public data only: proofs of key knowledge, shuffle proofs,
decryption-share proofs, and the rules engine in its imperfect-information mode (other
seats' hands unknown). A peer feeds its own outgoing messages through :meth:`apply` exactly
as everyone else's; an observer (the ``audit`` command) replays a saved transcript through
the same code. Private knowledge — a seat's own cards — lives in :mod:`.peer`.

Slots. Masked cards are addressed by *slot*: ``0..77`` the dealt deck (the last shuffle's
output), ``78..`` the taker's deck (his proven re-shuffle of hand and chien). Decryption
shares are stored per slot and per seat; when all seats' shares of a slot are known it is
open and its card public. A seat's own unplayed cards never get its own share in the
transcript, so nobody else can open them.

Errors. :meth:`apply` raises :class:`Violation` when a message breaks the protocol; the
caller turns it into an attributed :class:`~tarot_p2p.protocol.errors.SeatViolation`
against the sender. The hand cannot go on after that (a few checks run after a first
change, e.g. the engine's verdict on a petit sec once the hand is revealed). One case is
not the sender's fault: a valid message that opens cards proving an *earlier* message of
another seat false (a "trump" shown in the écart that is not one). That message is
applied, the phase becomes ``ABORTED`` and :attr:`HandMachine.exposed` names the liar.
A true escrow complaint is the same case (it proves the owner's escrow false).

Absent seats. Every seat escrows its key share with the others (ESCROW round). When all the
others claim a silent seat absent (``abandon``), its key becomes public — released by the
others (RELEASE round), or, before it was escrowed, its hashed *absent key* — and the hand
goes on without it: the machine computes its decryption shares itself
(:meth:`HandMachine._open_away`) and its stand-in (:mod:`tarot_p2p.rules.stand_in`) makes its
engine moves with no message (:meth:`HandMachine._stand_in`), so that an observer replaying
the transcript computes them too.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from tarot_p2p.crypto.deck import initial_deck
from tarot_p2p.crypto.elgamal import Ciphertext
from tarot_p2p.crypto.errors import CryptoError
from tarot_p2p.crypto.escrow import (
    Escrow,
    absent_key,
    check_escrow,
    check_release,
    complaint_verdict,
    escrow_context,
)
from tarot_p2p.crypto.fiat_shamir import ProofContext, frame
from tarot_p2p.crypto.group import (
    ORDER,
    Point,
    Scalar,
    base_mul,
    point_from_bytes,
    points_equal,
    scalar_from_bytes,
    sum_points,
)
from tarot_p2p.crypto.keys import KeyShare, key_context, verify_key
from tarot_p2p.crypto.shares import decryption_share, recover_card, verify_shares
from tarot_p2p.crypto.shuffle import ShuffleProof, verify_shuffle
from tarot_p2p.crypto.sigma import CompactProof
from tarot_p2p.protocol import messages as m
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.audit import AuditReport, HandRecord, audit_hand
from tarot_p2p.rules.cards import (
    DECK_SIZE,
    CardSet,
    card_name,
    mask_of,
    trump,
)
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import CHIEN, chien_size, deal_pattern
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.rules.sheet import LineKind, ScoreSheet, hand_note
from tarot_p2p.rules.stand_in import stand_in_action
from tarot_p2p.rules.state import IllegalAction, IncompleteInformation, State, from_hands
from tarot_p2p.rules.state import Phase as EnginePhase

DEALT_SLOTS: Final = 78
"""Slots ``0..77`` are the dealt deck; the taker's deck starts at this slot."""
HOST: Final = 0
"""The member that created the table and sends the set-up message (roster index 0)."""
BINDING_TAG: Final = b"tarot-p2p/binding/v1\x00"


class Phase(enum.Enum):
    SETUP = "setup"
    KEYS = "keys"
    ESCROW = "escrow"
    SHUFFLE = "shuffle"
    DRAW = "draw"
    DEAL = "deal"
    BIDDING = "bidding"
    CALL = "call"
    CHIEN = "chien"
    ECART = "ecart"
    ECART_SHARES = "ecart_shares"
    PLAY = "play"
    REVEAL = "reveal"
    RELEASE = "release"
    SCORE = "score"
    DONE = "done"
    ABORTED = "aborted"


ROUND_TYPE: Final[dict[Phase, str]] = {
    Phase.SETUP: "table",
    Phase.KEYS: "key",
    Phase.ESCROW: "escrow",
    Phase.SHUFFLE: "shuffle",
    Phase.DRAW: "shares",
    Phase.DEAL: "shares",
    Phase.CHIEN: "shares",
    Phase.ECART_SHARES: "shares",
    Phase.REVEAL: "shares",
    Phase.RELEASE: "release",
    Phase.SCORE: "score",
}
"""Round phases: each contributing seat in ascending order sends one message of this type."""

PARALLEL: Final[frozenset[Phase]] = frozenset(
    {
        Phase.KEYS,
        Phase.ESCROW,
        Phase.DRAW,
        Phase.DEAL,
        Phase.CHIEN,
        Phase.ECART_SHARES,
        Phase.REVEAL,
        Phase.RELEASE,
        Phase.SCORE,
    }
)
"""Rounds whose messages do not depend on one another (``table.md`` §1.4): every
contributor makes its message as the round opens, on the history before the round, so the
round costs one trip through the hub instead of one per seat. Their slots still follow in
ascending seat order. Not the set-up (one sender) nor the shuffles (each shuffles the
previous one's output)."""

OPENING: Final = frozenset({Phase.KEYS, Phase.ESCROW, Phase.SHUFFLE})
"""The phases of a hand's opening (``table.md`` §1.5): nothing in them depends on the
hand before but its seats, so they are built on the hand's opening chain (``wire.md``
§4.2) and can be made while that hand is still played."""

SHARE_ROUNDS: Final = frozenset(
    {Phase.DRAW, Phase.DEAL, Phase.CHIEN, Phase.ECART_SHARES, Phase.REVEAL}
)
"""The rounds of decryption shares."""

ENGINE_TYPES: Final[dict[Phase, tuple[str, ...]]] = {
    Phase.BIDDING: ("action", "petit_sec"),
    Phase.CALL: ("action",),
    Phase.ECART: ("ecart",),
    Phase.PLAY: ("action", "play", "poignee"),
}
"""Engine phases: the engine's current player sends one of these types."""

CLEAR_ACTIONS: Final[dict[Phase, tuple[type, ...]]] = {
    Phase.BIDDING: (a.Bid,),
    Phase.CALL: (a.CallCard,),
    Phase.PLAY: (a.Go, a.Misere),
}
"""Engine actions an ``action`` message may carry in each phase (they show no hidden card)."""

NEXT: Final[dict[Phase, Phase | None]] = {
    Phase.SETUP: Phase.KEYS,
    Phase.KEYS: None,
    Phase.ESCROW: Phase.SHUFFLE,
    Phase.SHUFFLE: None,
    Phase.DRAW: None,
    Phase.DEAL: Phase.BIDDING,
    Phase.BIDDING: None,
    Phase.CALL: None,
    Phase.CHIEN: Phase.ECART,
    Phase.ECART: Phase.ECART_SHARES,
    Phase.ECART_SHARES: Phase.PLAY,
    Phase.PLAY: None,
    Phase.REVEAL: Phase.SCORE,
    Phase.RELEASE: None,
    Phase.SCORE: Phase.DONE,
}
"""The phase after each one, or ``None`` when :meth:`HandMachine._branch` decides."""


class Violation(Exception):
    """A message breaks the protocol. ``seat`` is set when the blame falls on an earlier
    message of another seat (``evidence_type`` says which: its last one of that type)."""

    def __init__(self, reason: str, seat: int | None = None, evidence_type: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.seat = seat
        self.evidence_type = evidence_type


@dataclass(frozen=True, slots=True)
class EngineAction:
    """An action the rules engine accepted, in its public form."""

    seat: int
    action: a.Action


@dataclass(frozen=True, slots=True)
class HandOpened:
    """An absent seat's cards became known to everyone (its stand-in plays them)."""

    seat: int
    cards: CardSet


@dataclass(frozen=True, slots=True)
class ChienShown:
    """The chien was opened to everyone (prise and garde, before the écart)."""

    cards: CardSet


@dataclass(frozen=True, slots=True)
class SeatsDrawn:
    """Hand 0 is over: the draw fixed the seats; seat 0 deals hand 1."""

    seating: tuple[int, ...]
    """The member (roster index) at each seat: members by drawn card, lowest first."""
    draws: tuple[tuple[int, int], ...]
    """(member, card) of every member, by member."""


@dataclass(frozen=True, slots=True)
class HandEnded:
    """The hand is agreed: every seat signed these scores."""

    hand: int
    void: LineKind | None
    scores: tuple[int, ...]
    absent: int | None = None
    """The seat whose hand the stand-in finished (it did not sign the scores)."""
    absent_in: Phase | None = None
    """The phase ``absent`` was silent in (what it was awaited for when claimed absent)."""


Event = EngineAction | HandOpened | ChienShown | SeatsDrawn | HandEnded


def draw_cards(members: int) -> tuple[int, ...]:
    """The seat draw's deck (``table.md`` §4.1): the trumps 1 to ``members``, in that order.

    Why so short: the draw only needs one distinct card a member, and each of its shuffles
    costs in proportion to the deck (a 78-card shuffle, proven and checked, is about ten
    times a 4-card one), on the way to every player's first card. With as many cards as
    members, none is left over and none is the Excuse, so there is never a redraw."""
    return tuple(trump(k) for k in range(1, members + 1))


class HandMachine:
    """One hand of the table: hand 0 draws the seats, later hands are deals."""

    def __init__(
        self,
        config: TableConfig,
        table_id: bytes,
        hand: int,
        dealer: int,
        setup: m.Setup | None = None,
    ) -> None:
        """Hand 0 takes the ``setup`` message the host must send first (its ``dealer`` is
        unused: nobody deals the draw); later hands none."""
        if (hand == 0) != (setup is not None):
            raise ValueError("hand 0, and only hand 0, starts with the set-up message")
        self.config = config
        self.table_id = table_id
        self.hand = hand
        self.dealer = dealer
        self.seats = config.seats
        self.setup = setup
        self.phase = Phase.KEYS if setup is None else Phase.SETUP
        self._round: list[int] = list(range(self.seats)) if setup is None else [HOST]
        self.count = 0
        """Messages of this hand applied so far."""
        self._opened = 0
        """:attr:`count` when the last parallel round opened (see :attr:`round_seqs`)."""
        self.key_shares: list[Point] = []
        self.escrow_keys: list[Point] = []
        """Each seat's escrow key ``E_j`` of this hand (``crypto.md`` §10.1)."""
        self.escrows: dict[int, Escrow] = {}
        """The escrow of each seat that sent one (§10.2), checked against its key share."""
        self.accepted: set[int] = set()
        """Seats that sent their shuffle, accepting their escrow pieces (§10.4)."""
        self.away: int | None = None
        """The seat whose hand the stand-in plays (``table.md`` §3.1), once its key is public."""
        self.away_key: Scalar | None = None
        """That seat's key share, public: rebuilt from the escrow, or its absent key."""
        self._released: list[Scalar] = []
        """RELEASE: the pieces of the absent seat's key released so far, by holder."""
        self._resume: tuple[Phase, list[int], int] | None = None
        """RELEASE: the phase, round and silent seat to go back to once its key is rebuilt."""
        self.joint_key: Point | None = None
        self.deck: list[Ciphertext] = []
        """The current shuffle chain's deck, then the dealt deck, then taker's deck appended."""
        self.shares: list[dict[int, Point]] = []
        self.cards: dict[int, int] = {}
        """Open slots and their cards."""
        self.pattern: tuple[int, ...] = deal_pattern(config, dealer) if hand else ()
        self.holding: list[list[int]] = [[] for _ in range(self.seats)]
        """Each seat's unplayed slots, ascending."""
        self.engine: State | None = None
        self.history: list[tuple[int, a.Action]] = []
        """Public engine actions, with the acting seat."""
        self.chien_slots: tuple[int, ...] = ()
        self.discard_slots: tuple[int, ...] = ()
        self.shown_slots: tuple[int, ...] = ()
        self.taker_input: tuple[int, ...] = ()
        self.void: LineKind | None = None
        self.scores: tuple[int, ...] | None = None
        self.abandoned: int | None = None
        """The seat that all the others claimed absent (``abandon``): the stand-in plays its
        hand from then on, and it signs no score."""
        self.abandoned_in: Phase | None = None
        """The phase the abandon interrupted: what the absent seat was awaited for. Kept
        from the transcript itself, so a program started again later says the same."""
        self.audit: AuditReport | None = None
        self.exposed: Violation | None = None
        """Set when an accepted message proved an earlier one false (phase ABORTED)."""
        self.draws: list[tuple[int, int]] = []
        """Hand 0: (member, card) of every member once drawn, by member."""
        self.seating: tuple[int, ...] | None = None
        """Hand 0, once drawn: the member at each seat."""

    # ------------------------------------------------------------------ queries

    def expected_sender(self) -> int | None:
        """The one seat that must send the next message, ``None`` once the hand is over."""
        if self.phase in ROUND_TYPE:
            return self._round[0]
        if self.phase in (Phase.DONE, Phase.ABORTED):
            return None
        assert self.engine is not None
        return self.engine.current_player()

    def expected_types(self) -> tuple[str, ...]:
        if self.phase in ROUND_TYPE:
            kind = ROUND_TYPE[self.phase]
            if self.may_complain(self._round[0]):
                return (kind, "complaint")
            return (kind,)
        return ENGINE_TYPES.get(self.phase, ())

    def may_complain(self, seat: int) -> bool:
        """A holder may complain of an escrow piece until it has accepted them by sending
        its shuffle: at its SHUFFLE turn, or at its RELEASE turn before that."""
        return (
            self.hand > 0
            and self.phase in (Phase.SHUFFLE, Phase.RELEASE)
            and seat not in self.accepted
        )

    @property
    def round_seqs(self) -> range | None:
        """In a parallel round, the sequence numbers of its slots in this hand (every
        message of the round is built on the history before the first); ``None``
        elsewhere. Its size is fixed when it opens: the contributors then, one slot each
        (an abandon takes the silent seat's)."""
        if self.phase not in PARALLEL:
            return None
        return range(self._opened, self.count + len(self._round))

    @property
    def opening(self) -> bool:
        """Whether the next message is of the hand's opening (``table.md`` §1.5): its keys,
        escrows and shuffles, with what stands in for them (complaint, abandon, the release
        of a seat silent in the shuffles), before any card is dealt. Hand 0 has none."""
        if self.hand == 0:
            return False
        if self.phase is Phase.RELEASE:
            return self._resume is not None and self._resume[0] in OPENING
        return self.phase in OPENING

    def round_position(self, seat: int) -> int | None:
        """In a parallel round, how many messages still come before ``seat``'s own
        (``None``: not a parallel round, or ``seat`` has nothing more to send in it)."""
        if self.phase not in PARALLEL or seat not in self._round:
            return None
        return self._round.index(seat)

    def share_slots(self, seat: int) -> tuple[int, ...]:
        """The slots whose shares ``seat`` must send in the current round, ascending."""
        phase = self.phase
        if phase is Phase.DRAW:
            return tuple(range(self.seats))  # member i draws slot i
        if phase is Phase.DEAL:
            return tuple(p for p, dest in enumerate(self.pattern) if dest not in (seat, CHIEN))
        if phase is Phase.CHIEN:
            return self.chien_slots
        if phase is Phase.ECART_SHARES:
            taker = self._taker()
            return () if seat == taker else tuple(sorted({*self.holding[taker], *self.shown_slots}))
        if phase is Phase.REVEAL:
            return self._hidden_slots()
        return ()

    def context(self, phase: str, seat: int) -> ProofContext:
        return ProofContext(table_id=self.table_id, hand=self.hand, phase=phase, seat=seat)

    def shuffle_input(self) -> list[Ciphertext]:
        """What the expected shuffler must shuffle (SHUFFLE and ECART phases)."""
        if self.phase is Phase.ECART:
            return [self.deck[s] for s in self.taker_input]
        return list(self.deck)

    def dealt_slots(self, seat: int) -> tuple[int, ...]:
        return tuple(p for p, dest in enumerate(self.pattern) if dest == seat)

    def _taker(self) -> int:
        assert self.engine is not None and self.engine.taker is not None
        return self.engine.taker

    def _hidden_slots(self) -> tuple[int, ...]:
        engine = self.engine
        assert engine is not None
        if engine.taker is None:
            return self.chien_slots if engine.void is None else ()
        assert engine.contract is not None
        if engine.contract <= Contract.GARDE:
            return tuple(s for s in self.discard_slots if s not in self.shown_slots)
        return self.chien_slots

    # ------------------------------------------------------------------ transitions

    def present_speaker(self) -> int | None:
        """Who may send an ``abandon`` for the expected sender now: the lowest other seat
        (``None`` when no abandon is possible: hand 0, or no sender expected)."""
        expected = self.expected_sender()
        if self.hand == 0 or expected is None or self.phase in (Phase.SCORE, Phase.RELEASE):
            return None
        if self.abandoned is not None:
            return None  # a second silence: nobody can finish two hands (§3.1)
        return 0 if expected else 1

    def apply(self, seat: int, message: m.Message) -> list[Event]:
        """Check ``message`` from ``seat`` and move on, or raise :class:`Violation` (then
        the hand is dead: see the module docstring)."""
        expected = self.expected_sender()
        if expected is None:
            raise Violation("the hand is over")
        self.count += 1
        try:
            return self._apply(expected, seat, message)
        except Violation:
            self.count -= 1  # not taken (a program that plays on anyway keeps its count)
            raise

    def _apply(self, expected: int, seat: int, message: m.Message) -> list[Event]:
        if isinstance(message, m.Abandon):
            return self._on_abandon(seat, message)
        if seat != expected:
            raise Violation(f"out of turn: seat {expected} must send the next message")
        kind = m.type_of(message)
        if kind not in self.expected_types():
            raise Violation(f"{kind!r} is not expected in phase {self.phase.value}")
        events: list[Event] = []
        handler = _HANDLERS[kind]
        in_round = self.phase in ROUND_TYPE
        handler(self, seat, message, events)
        if self.phase is Phase.ABORTED:
            return events
        if in_round:
            self._round.pop(0)
            if not self._round:
                self._leave_round(events)
        self._stand_in(events)
        return events

    def _enter(self, phase: Phase, events: list[Event]) -> None:
        """Enter ``phase``; a round with no contributor is skipped at once. The absent
        seat, whose shares everybody computes (:meth:`_open_away`), contributes to none."""
        self.phase = phase
        self._opened = self.count
        self._open_away(events)
        present = [s for s in range(self.seats) if s != self.away]
        if phase is Phase.ECART:
            self.taker_input = (*self.holding[self._taker()], *self.chien_slots)
        elif phase in (Phase.KEYS, Phase.ESCROW, Phase.SHUFFLE, Phase.SCORE):
            self._round = present
        elif phase in SHARE_ROUNDS:
            self._round = [s for s in present if self.share_slots(s)]
            if not self._round:
                self._leave_round(events)

    def _leave_round(self, events: list[Event]) -> None:
        if self.abandoned is not None and self.away is None and self.phase in SHARE_ROUNDS:
            # Silent in a round of shares (§3.1): the round was finished without it, and its
            # key is released now; the round then ends as usual (:meth:`_rebuild`).
            self._release(self.abandoned, [])
            return
        if self.phase is Phase.KEYS:
            self._joint_key()
        elif self.phase is Phase.SHUFFLE:
            self.shares = [{} for _ in self.deck]
        elif self.phase is Phase.RELEASE:
            self._rebuild(events)
            return
        elif self.phase is Phase.ECART_SHARES:
            if not self._apply_discards(events):
                return  # aborted: the écart was a lie
        elif self.phase is Phase.DEAL:
            self._start_engine()
        elif self.phase is Phase.CHIEN:
            assert self.engine is not None
            chien = self._cards_of(self.chien_slots)
            self.engine.reveal_chien(chien)
            events.append(ChienShown(chien))
        elif self.phase is Phase.REVEAL:
            self._final_count()
        elif self.phase is Phase.SCORE:
            assert self.scores is not None
            events.append(
                HandEnded(self.hand, self.void, self.scores, self.abandoned, self.abandoned_in)
            )
        nxt = NEXT.get(self.phase)
        self._enter(nxt if nxt is not None else self._branch(events), events)

    def _branch(self, events: list[Event]) -> Phase:
        """The next phase where the table ``NEXT`` cannot say."""
        phase = self.phase
        if phase is Phase.KEYS:
            return Phase.ESCROW if self.hand else Phase.SHUFFLE
        if phase is Phase.SHUFFLE:
            if self.hand:
                return Phase.DEAL
            return Phase.DRAW
        if phase is Phase.DRAW:
            return self._after_draw(events)
        engine = self.engine
        assert engine is not None
        if engine.phase is EnginePhase.DONE:
            if engine.void is not None:
                self.void = LineKind(engine.void.value)
                self.scores = (0,) * self.seats
                return Phase.SCORE
            return Phase.REVEAL
        if engine.phase is EnginePhase.CALL:
            return Phase.CALL
        if engine.phase is EnginePhase.DISCARD:
            return Phase.CHIEN
        return Phase.PLAY

    # ------------------------------------------------------------------ handlers

    def _on_abandon(self, seat: int, msg: m.Abandon) -> list[Event]:
        """Every other seat claimed ``msg.seat`` absent (its signatures were checked with
        the transcript digest by the peer): its hand is finished by the stand-in
        (``table.md`` §3.1). Silent before its key was escrowed (KEYS, ESCROW), it gets its
        public absent key at once; later, the others first release its escrowed key."""
        if seat != self.present_speaker():
            raise Violation("an abandon is sent by the lowest seat other than the silent one")
        if msg.seat != self.expected_sender():
            raise Violation(f"seat {msg.seat} is not the one expected to speak")
        if len(msg.claims) != self.seats - 1:
            raise Violation(f"an abandon carries {self.seats - 1} claims")
        absent = self.abandoned = msg.seat
        self.abandoned_in = self.phase
        events: list[Event] = []
        if self.phase in (Phase.KEYS, Phase.ESCROW):
            key = absent_key(self.table_id, self.hand, absent)
            share = base_mul(key)
            if self.phase is Phase.KEYS:
                self.key_shares.append(share)
                self.escrow_keys.append(share)
            else:
                self.key_shares[absent] = share
                self._joint_key()
            self.away, self.away_key = absent, key
            self._round.pop(0)
            if not self._round:
                self._leave_round(events)
        elif self.phase in SHARE_ROUNDS:
            # The others' messages of this round do not depend on the absent seat's: the
            # round goes on without it, and its key is released once the round is over.
            self._round.pop(0)
            if not self._round:
                self._leave_round(events)
        else:
            self._release(absent, list(self._round))
        return events

    def _release(self, absent: int, round_: list[int]) -> None:
        """Open the RELEASE round of ``absent``'s escrowed key; :meth:`_rebuild` then goes
        back to the current phase with the seats ``round_`` still to speak in it."""
        self._resume = (self.phase, round_, absent)
        self.phase = Phase.RELEASE
        self._opened = self.count
        self._round = [s for s in range(self.seats) if s != absent]
        self._released = []

    def _on_release(self, seat: int, msg: m.Release, events: list[Event]) -> None:
        assert self._resume is not None
        absent = self._resume[2]
        try:
            value = scalar_from_bytes(msg.piece)
            check_release(value, seat, self.escrows[absent], absent)
        except (CryptoError, ValueError) as exc:
            raise Violation(f"release: {exc}") from None
        self._released.append(value)

    def _rebuild(self, events: list[Event]) -> None:
        """Every present seat released its piece: the absent seat's key is public, and the
        hand goes back where the silence stopped it, its stand-in now in its seat."""
        assert self._resume is not None
        phase, round_, absent = self._resume
        key = sum(self._released) % ORDER
        assert points_equal(base_mul(key), self.key_shares[absent])  # crypto.md §10.6
        self.away, self.away_key = absent, key
        self._resume, self._released = None, []
        self.phase, self._round = phase, [s for s in round_ if s != absent]
        self._open_away(events)
        if phase in ROUND_TYPE and not self._round:
            self._leave_round(events)

    def _open_away(self, events: list[Event]) -> None:
        """The absent seat's decryption shares, which everybody computes from its public
        key, go into every slot that lacks them; the engine learns its open cards."""
        absent, key = self.away, self.away_key
        if absent is None or key is None:
            return
        for slot, held in enumerate(self.shares):
            if absent not in held:
                self._store(absent, [(slot, decryption_share(key, self.deck[slot]))])
        engine = self.engine
        if engine is None:
            return
        known = mask_of(self.cards[s] for s in self.holding[absent] if s in self.cards)
        new = known & ~engine.hands[absent]
        if new:
            try:
                engine.reveal_hand(absent, new)
            except (IllegalAction, IncompleteInformation) as exc:  # pragma: no cover
                raise AssertionError(f"the absent seat's open cards: {exc}") from None
            events.append(HandOpened(absent, known))

    def _stand_in(self, events: list[Event]) -> None:
        """Make the absent seat's moves while the engine waits for it (``table.md`` §3.2)."""
        absent = self.away
        while absent is not None and self.phase in ENGINE_TYPES:
            engine = self.engine
            assert engine is not None
            if engine.current_player() != absent:
                return
            action = stand_in_action(engine)
            if isinstance(action, a.Discard):
                self._stand_in_ecart(events)
                continue
            if isinstance(action, a.Play):
                slot = next(s for s in self.holding[absent] if self.cards.get(s) == action.card)
                self.holding[absent].remove(slot)
            self._engine_apply(absent, action, events)
            self._after_engine(events)

    def _stand_in_ecart(self, events: list[Event]) -> None:
        """The stand-in taker's écart: its cards and the chien are open, so the discards are
        made in the open, with no re-shuffle and no round of shares."""
        engine = self.engine
        taker = self.away
        assert engine is not None and taker is not None
        slot_of = {self.cards[s]: s for s in self.taker_input}
        discards = []
        while engine.phase is EnginePhase.DISCARD:
            action = stand_in_action(engine)
            assert isinstance(action, a.Discard)
            self._engine_apply(taker, action, events)
            discards.append(slot_of[action.card])
        self.discard_slots = self.shown_slots = tuple(discards)
        self.holding[taker] = [s for s in self.taker_input if s not in discards]
        self._enter(Phase.PLAY, events)

    def _on_setup(self, seat: int, msg: m.Setup, events: list[Event]) -> None:
        if msg != self.setup:
            raise Violation("the set-up differs from the table this peer joined")

    def _on_key(self, seat: int, msg: m.Key, events: list[Event]) -> None:
        try:
            share = KeyShare(point_from_bytes(msg.y), CompactProof.from_bytes(msg.pok))
            verify_key(share, key_context(self.table_id, self.hand, seat))
            escrow_key = point_from_bytes(msg.e)
        except (CryptoError, ValueError) as exc:
            raise Violation(f"key share: {exc}") from None
        self.key_shares.append(share.y)
        self.escrow_keys.append(escrow_key)

    def _on_escrow(self, seat: int, msg: m.Escrow, events: list[Event]) -> None:
        try:
            escrow = Escrow.from_bytes(msg.escrow, self.seats)
            check_escrow(escrow, self.key_shares[seat], self.seats)
        except (CryptoError, ValueError) as exc:
            raise Violation(f"escrow: {exc}") from None
        self.escrows[seat] = escrow

    def _on_complaint(self, seat: int, msg: m.Complaint, events: list[Event]) -> None:
        """A holder shows its escrow key: the verdict blames the owner of a bad piece (the
        complaint is then kept as evidence and the hand stops, ``crypto.md`` §10.5), or the
        complainer (a violation like any other)."""
        escrow = self.escrows.get(msg.owner)
        if escrow is None or msg.owner == seat:
            raise Violation(f"seat {seat} holds no escrow piece of seat {msg.owner}")
        try:
            e = scalar_from_bytes(msg.e)
        except (CryptoError, ValueError) as exc:
            raise Violation(f"complaint: {exc}") from None
        ctx = escrow_context(self.table_id, self.hand, msg.owner)
        if complaint_verdict(e, seat, escrow, ctx, self.escrow_keys[seat]) == seat:
            raise Violation(f"a false complaint of seat {msg.owner}'s escrow piece")
        self.exposed = Violation(
            f"seat {msg.owner} sealed a wrong escrow piece to seat {seat}",
            seat=msg.owner,
            evidence_type="escrow",
        )
        self.phase = Phase.ABORTED

    def _joint_key(self) -> None:
        try:
            self.joint_key = sum_points(self.key_shares)
        except CryptoError:
            raise Violation("the key shares sum to the identity") from None
        cards = draw_cards(self.seats) if self.hand == 0 else range(DECK_SIZE)
        self.deck = initial_deck(self.joint_key, cards)

    def _on_shuffle(self, seat: int, msg: m.Shuffle, events: list[Event]) -> None:
        out = self._verified_shuffle(seat, "shuffle", self.deck, msg.deck, msg.proof)
        self.deck = out
        self.accepted.add(seat)

    def _verified_shuffle(
        self, seat: int, phase: str, deck_in: list[Ciphertext], data: bytes, proof: bytes
    ) -> list[Ciphertext]:
        size = m.CIPHERTEXT
        if len(data) != size * len(deck_in):
            raise Violation(f"{phase}: expected {len(deck_in)} ciphertexts")
        assert self.joint_key is not None
        try:
            out = [Ciphertext.from_bytes(data[i : i + size]) for i in range(0, len(data), size)]
            verify_shuffle(
                self.joint_key,
                deck_in,
                out,
                ShuffleProof.from_bytes(proof, len(deck_in)),
                self.context(phase, seat),
            )
        except (CryptoError, ValueError) as exc:
            raise Violation(f"{phase}: {exc}") from None
        return out

    def _take_shares(
        self, seat: int, phase: str, slots: Sequence[int], data: bytes, proof: bytes
    ) -> list[tuple[int, Point]]:
        """Verify ``seat``'s shares of ``slots``; return them (stored by :meth:`_store`)."""
        size = m.POINT
        if len(data) != size * len(slots):
            raise Violation(f"{phase}: expected {len(slots)} shares, got {len(data) / size:g}")
        try:
            points = [point_from_bytes(data[i : i + size]) for i in range(0, len(data), size)]
            verify_shares(
                self.key_shares[seat],
                [self.deck[s] for s in slots],
                points,
                CompactProof.from_bytes(proof),
                self.context(phase, seat),
            )
        except (CryptoError, ValueError) as exc:
            raise Violation(f"{phase}: {exc}") from None
        return list(zip(slots, points, strict=True))

    def _store(self, seat: int, shares: list[tuple[int, Point]]) -> None:
        for slot, point in shares:
            held = self.shares[slot]
            held[seat] = point
            if len(held) == self.seats and slot not in self.cards:
                self.cards[slot] = recover_card(self.deck[slot], list(held.values()))

    def _on_shares(self, seat: int, msg: m.Shares, events: list[Event]) -> None:
        slots = self.share_slots(seat)
        shares = self._take_shares(seat, self.phase.value, slots, msg.d, msg.proof)
        self._store(seat, shares)

    def _apply_discards(self, events: list[Event]) -> bool:
        """The shown écart cards are open now: the engine takes the écart, one discard per
        output index, ascending — the card when shown, ``HIDDEN`` otherwise.

        If it refuses a shown card (not a trump, or an oudler), the taker lied in his
        ``ecart``; the message that opened the cards is valid and stays applied, and the
        hand is aborted with the blame on the taker (:attr:`exposed`): False then."""
        taker = self._taker()
        for slot in self.discard_slots:
            card = self.cards.get(slot, a.HIDDEN)
            try:
                self._engine_apply(taker, a.DISCARD[card], events)
            except Violation as v:
                self.exposed = Violation(
                    f"the écart shows {card_name(card)}: {v.reason}",
                    seat=taker,
                    evidence_type="ecart",
                )
                self.phase = Phase.ABORTED
                return False
        return True

    def _on_action(self, seat: int, msg: m.Act, events: list[Event]) -> None:
        try:
            action = a.decode(msg.action)
        except ValueError as exc:
            raise Violation(f"action: {exc}") from None
        if not isinstance(action, CLEAR_ACTIONS[self.phase]):
            raise Violation(f"{action} cannot be sent in the clear in phase {self.phase.value}")
        self._engine_apply(seat, action, events)
        self._after_engine(events)

    def _engine_apply(self, seat: int, action: a.Action, events: list[Event]) -> None:
        assert self.engine is not None
        try:
            self.engine.apply_action(action)
        except (IllegalAction, IncompleteInformation) as exc:
            raise Violation(f"rules: {exc}") from None
        self.history.append((seat, action))
        events.append(EngineAction(seat, action))

    def _after_engine(self, events: list[Event]) -> None:
        """Leave an engine phase when the engine has moved past it."""
        assert self.engine is not None
        now = {
            Phase.BIDDING: EnginePhase.BIDDING,
            Phase.CALL: EnginePhase.CALL,
            Phase.PLAY: EnginePhase.PLAY,
        }.get(self.phase)
        engine_phase = self.engine.phase
        if self.phase is Phase.PLAY and engine_phase is EnginePhase.GO:
            return
        if engine_phase is not now:
            self._enter(self._branch(events), events)

    def _on_petit_sec(self, seat: int, msg: m.PetitSec, events: list[Event]) -> None:
        slots = self.holding[seat]
        shares = self._take_shares(seat, "petit_sec", slots, msg.d, msg.proof)
        hand = self._preview(seat, shares)
        assert self.engine is not None
        try:
            self.engine.reveal_hand(seat, mask_of(hand.values()))
        except (IllegalAction, IncompleteInformation) as exc:
            raise Violation(f"petit sec: {exc}") from None
        self._store(seat, shares)
        self._engine_apply(seat, a.PETIT_SEC, events)
        self._after_engine(events)

    def _preview(self, seat: int, shares: list[tuple[int, Point]]) -> dict[int, int]:
        """The cards ``seat``'s ``shares`` open (each completing its slot), without storing."""
        out = {}
        for slot, point in shares:
            held = {**self.shares[slot], seat: point}
            if len(held) != self.seats:
                raise Violation(f"slot {slot} is not open to its holder's share alone")
            out[slot] = recover_card(self.deck[slot], list(held.values()))
        return out

    def _on_play(self, seat: int, msg: m.Play, events: list[Event]) -> None:
        if msg.slot not in self.holding[seat]:
            raise Violation(f"slot {msg.slot} is not an unplayed card of seat {seat}")
        shares = self._take_shares(seat, "play", [msg.slot], msg.d, msg.proof)
        card = self._preview(seat, shares)[msg.slot]
        self._engine_apply(seat, a.PLAY[card], events)
        self._store(seat, shares)
        self.holding[seat].remove(msg.slot)
        self._after_engine(events)

    def _on_poignee(self, seat: int, msg: m.Poignee, events: list[Event]) -> None:
        slots = msg.slots
        if list(slots) != sorted(set(slots)) or not set(slots) <= set(self.holding[seat]):
            raise Violation("a poignée names distinct unplayed slots of its sender, ascending")
        shares = self._take_shares(seat, "poignee", slots, msg.d, msg.proof)
        shown = mask_of(self._preview(seat, shares).values())
        self._engine_apply(seat, a.Poignee(shown), events)
        self._store(seat, shares)

    def _on_ecart(self, seat: int, msg: m.Ecart, events: list[Event]) -> None:
        k = len(self.taker_input)
        size = chien_size(self.config)
        if len(msg.discard) != size or list(msg.discard) != sorted(set(msg.discard)):
            raise Violation(f"the écart names {size} distinct output positions, ascending")
        if msg.discard[-1] >= k:
            raise Violation(f"écart positions are below {k}")
        if list(msg.trumps) != sorted(set(msg.trumps)) or not set(msg.trumps) <= set(msg.discard):
            raise Violation("shown trumps are distinct écart positions, ascending")
        out = self._verified_shuffle(seat, "ecart", self.shuffle_input(), msg.deck, msg.proof)
        base = len(self.deck)
        self.deck.extend(out)
        self.shares.extend({} for _ in out)
        shown = tuple(base + j for j in msg.trumps)
        try:
            shares = self._take_shares(seat, "ecart", shown, msg.d, msg.dproof) if shown else []
            if not shown and (msg.d or msg.dproof):
                raise Violation("no trump shown: d and dproof are empty")
        except Violation:
            del self.deck[base:], self.shares[base:]
            raise
        self._store(seat, shares)
        self.discard_slots = tuple(base + j for j in msg.discard)
        self.shown_slots = shown
        self.holding[seat] = [base + j for j in range(k) if j not in msg.discard]
        nxt = NEXT[Phase.ECART]
        assert nxt is not None
        self._enter(nxt, events)

    def _on_score(self, seat: int, msg: m.Score, events: list[Event]) -> None:
        if msg.scores != self.scores:
            raise Violation(f"score line {list(msg.scores)} differs from {self.scores}")

    # ------------------------------------------------------------------ hand 0: the draw

    def _after_draw(self, events: list[Event]) -> Phase:
        """Record the draws. The members sorted by card (lowest trump first) take seats
        0, 1, ...: the lowest card deals hand 1, the others sit in playing order after
        him."""
        self.draws = [(member, self.cards[member]) for member in range(self.seats)]
        final = dict(self.draws)
        self.seating = tuple(sorted(final, key=final.__getitem__))
        events.append(SeatsDrawn(self.seating, tuple(self.draws)))
        return Phase.DONE

    # ------------------------------------------------------------------ engine glue

    def _start_engine(self) -> None:
        for seat in range(self.seats):
            self.holding[seat] = list(self.dealt_slots(seat))
        # Every hand unknown, except a seat sitting out (dead hand), known to be empty.
        hands: list[CardSet | None] = [None if h else 0 for h in self.holding]
        self.engine = from_hands(self.config, self.dealer, hands, None)
        self.chien_slots = tuple(p for p, d in enumerate(self.pattern) if d == CHIEN)

    def _cards_of(self, slots: Sequence[int]) -> CardSet:
        return mask_of(self.cards[s] for s in slots)

    def record(self) -> HandRecord:
        """The complete record of a played hand (every slot is open once REVEAL is over):
        the dealt hands, the chien, and the engine actions with every discard named."""
        return self._record(self.cards)

    def record_by_elimination(self) -> HandRecord | None:
        """The record of a hand whose tricks are all played but whose final opening never
        came (its REVEAL round stalled): the cards still hidden — the écart, or the chien
        of a garde sans or contre — are then exactly the cards of the deck not seen yet,
        which is all the rules audit needs (it judges the écart as a set). ``None`` in any
        other phase."""
        if self.phase is not Phase.REVEAL:
            return None
        hidden = self._hidden_slots()
        missing = sorted(set(range(DECK_SIZE)) - set(self.cards.values()))
        if len(missing) != len(hidden):
            return None
        return self._record({**self.cards, **dict(zip(hidden, missing, strict=True))})

    def _record(self, cards: Mapping[int, int]) -> HandRecord:
        engine = self.engine
        assert engine is not None

        def cards_of(slots: Iterable[int]) -> CardSet:
            return mask_of(cards[s] for s in slots)

        chien = cards_of(self.chien_slots)
        rebuilt = engine.taker if len(self.deck) > DEALT_SLOTS else None
        hands = [
            cards_of(range(DEALT_SLOTS, len(self.deck))) & ~chien
            if s == rebuilt
            else cards_of(self.dealt_slots(s))
            for s in range(self.seats)
        ]
        discards = iter(self.discard_slots)
        actions = [
            a.DISCARD[cards[next(discards)]] if isinstance(act, a.Discard) else act
            for _, act in self.history
        ]
        unshown = cards_of([s for s in self.discard_slots if s not in self.shown_slots])
        return HandRecord(
            self.config, self.dealer, tuple(hands), chien, tuple(actions), (), unshown
        )

    def _final_count(self) -> None:
        self.audit = audit_hand(self.record())
        self.scores = self.audit.returns


_HANDLERS: Final[dict[str, Callable[[HandMachine, int, Any, list[Event]], None]]] = {
    "table": HandMachine._on_setup,
    "key": HandMachine._on_key,
    "escrow": HandMachine._on_escrow,
    "complaint": HandMachine._on_complaint,
    "release": HandMachine._on_release,
    "shuffle": HandMachine._on_shuffle,
    "shares": HandMachine._on_shares,
    "action": HandMachine._on_action,
    "petit_sec": HandMachine._on_petit_sec,
    "ecart": HandMachine._on_ecart,
    "poignee": HandMachine._on_poignee,
    "play": HandMachine._on_play,
    "score": HandMachine._on_score,
}


def binding(setup: m.Setup) -> bytes:
    """The transcript's ``binding`` (wire.md §4.2): SHA-256 of ``BINDING_TAG`` followed by
    the set-up message's fields, each framed (4-byte big-endian length, then the bytes):
    the configuration's canonical bytes, each roster key, each name in UTF-8."""
    h = hashlib.sha256(BINDING_TAG)
    for part in (setup.config, *setup.roster, *(n.encode("utf-8") for n in setup.names)):
        h.update(frame(part))
    return h.digest()


class TableMachine:
    """The whole table: set-up and seat draw (hand 0), then hands until the sheet is over."""

    def __init__(
        self, config: TableConfig, table_id: bytes, roster: Sequence[bytes], names: Sequence[str]
    ) -> None:
        """``roster`` and ``names`` are by member (the set-up's order)."""
        if config.players not in (3, 4, 5):
            raise ValueError("the network protocol plays three, four or five seats")
        if len(roster) != config.seats or len(names) != config.seats:
            raise ValueError(f"a {config.seats}-seat table needs {config.seats} keys and names")
        ScoreSheet(config, names)  # refuses unusable names now rather than after the draw
        self.config = config
        self.table_id = table_id
        self.setup = m.Setup(config.canonical_bytes(), tuple(roster), tuple(names))
        self.binding = binding(self.setup)
        self.hand = HandMachine(config, table_id, 0, 0, self.setup)
        self.seating: tuple[int, ...] | None = None
        """The member at each seat, once hand 0 has drawn them."""
        self.sheet: ScoreSheet | None = None

    @property
    def finished(self) -> bool:
        return self.sheet is not None and self.sheet.is_over

    def roster(self, hand: int) -> tuple[bytes, ...] | None:
        """The identity keys indexed as senders of ``hand`` sign: by member in hand 0, by
        seat later (``None`` while the seats are not drawn)."""
        if hand == 0:
            return self.setup.roster
        if self.seating is None:
            return None
        return tuple(self.setup.roster[member] for member in self.seating)

    @property
    def names(self) -> tuple[str, ...]:
        """The players' names by the current hand's index: by member in hand 0, by seat
        once seated."""
        if self.seating is None:
            return self.setup.names
        return tuple(self.setup.names[member] for member in self.seating)

    def expected_sender(self) -> int | None:
        return None if self.finished else self.hand.expected_sender()

    @property
    def may_go_on(self) -> bool:
        """Whether a hand may follow the one under way (hand 1 on): not after the last of
        a game of so many deals. A game played to a score may end with any hand."""
        sheet = self.sheet
        if sheet is None or sheet.is_over:
            return False
        planned = sheet.deals_to_play
        return planned is None or len(sheet.lines) + 1 < planned

    def following_hand(self) -> HandMachine:
        """A machine of the hand after the one under way, as it will open whatever this
        one's outcome (§4.3: the deal passes on after a void deal too)."""
        sheet = self.sheet
        assert sheet is not None
        dealer = (sheet.dealer + 1) % self.config.players
        return HandMachine(self.config, self.table_id, self.hand.hand + 1, dealer)

    def apply(self, seat: int, message: m.Message) -> list[Event]:
        events = self.hand.apply(seat, message)
        if self.hand.phase is Phase.DONE:
            self._next_hand()
        return events

    def _next_hand(self) -> None:
        done = self.hand
        if done.hand == 0:
            self.seating = done.seating
            self.sheet = ScoreSheet(self.config, self.names, first_dealer=0)
        else:
            assert self.sheet is not None and done.scores is not None
            absent = done.abandoned
            stood = "" if absent is None else f"{self.names[absent]}'s hand played by the stand-in"
            if done.void is None:
                assert done.audit is not None
                note = hand_note(self.config, done.audit.outcome, self.names)
                note = "; ".join(n for n in (note, stood) if n)
                self.sheet.add_hand(done.scores, note, absent=absent)
            else:
                self.sheet.add_void(done.void, stood, absent=absent)
        if not self.sheet.is_over:
            self.hand = HandMachine(self.config, self.table_id, done.hand + 1, self.sheet.dealer)
