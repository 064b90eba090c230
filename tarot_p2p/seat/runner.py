"""Drive one seat's :class:`~tarot_p2p.protocol.peer.Peer` over one link until the game ends.

Theory of operation. The protocol is turn-based: at every moment the peer names the one
seat that must speak. The runner therefore alternates between two states, with no
background task:

* **our turn** — ask the peer for the message the protocol dictates
  (``next_message()``); when it is a decision, ask the :class:`Policy` (a bot or a human)
  and hand the choice to the peer (``act`` / ``discard``), which refuses anything illegal.
  The message is made durable in the transcript file, then sent. While the policy
  thinks, the link is still read: the player may be away, and the others' ``abandon``
  (``table.md`` §3.1) then withdraws the question, so no prompt outlives its deal.
* **their turn** — receive from the link until the expected sender's message is in. The
  wait has an absolute deadline (the seat's *absence* limit: a decision gets longer than
  a computed message); bytes no seat provably signed and duplicates are ignored *without*
  moving it, so junk cannot keep a silent seat alive. A message accepted by the peer is
  written to the transcript file before anything else happens (the process may die: the
  record is the operating system's), and made durable (``fsync``) before our next message
  is sent, which depends on it (``wire.md`` §4.4).

Nothing a relay does can make a seat look guilty (``wire.md`` §7):

* **Gaps are repaired, not blamed.** A message that builds on records we do not hold is
  kept aside (:class:`~tarot_p2p.protocol.sync.EarlyMessages`) and we broadcast a signed
  *sync request*; every peer holding more answers with the records, which anyone may hand
  over since each is signed and chained. The same request goes out whenever the wait has
  made no progress for ``nudge`` seconds, so a message the relay dropped for us alone is
  fetched from the others, and after every reconnection.
* **Equivocation is shared.** Two signed messages of one seat for one slot (however they
  arrived: a relay showing members different versions is found through the sync
  answers) name that seat; we pass both on to the others before stopping, so every honest
  peer names it too.
* **Silence is an absence, never a violation.** The expected sender silent past its limit
  ends the wait with an *absence* record naming who was silent, marked unattributed: the
  relay, the network or the player may be the cause, and only a signed message is proof.
* **Links come back.** When our link fails, the runner reconnects by itself with
  backoff (``reconnect``), asks for what it missed and goes on; the wait's deadline
  restarts, since we could not hear anybody meanwhile.

Before each message of ours, the peer's exported secrets (``secrets.bin``, private) are
saved when they changed in anything a resumed seat needs, so that ``Peer.resume`` can take
the seat back after a crash.

Ends: the game is over (the peer expects nobody); an absence; a seat signed something the
protocol refuses (``violation``, with the signed evidence); our link could not be brought
back (``disconnected``, nobody named). Every end but the first writes an **aborted-hand
record** (JSON) next to the transcript; an absence or a lost link can be resumed later
from the same files. The score sheet is rewritten (atomically: temporary file,
``fsync``, rename) after each agreed hand — by the seat that opens the next deal, just
after its first key, which the table is waiting for — so a crash loses nothing that was
agreed (the transcript holds it anyway);
then the game is recorded in the player's history (:mod:`tarot_p2p.files.history`),
which never stops it. One more end, nobody named: ``lost_secret``, our turn came in a hand
whose own key share or écart our files lack the secret of (they were put back from a
backup); the same files go on once the others have finished that hand without us.

The policy is told what it may show a player while it waits (:class:`Notice`): whom we
wait for and since when, a seat that came back, our own link going down and up.

CPU-heavy protocol work (shuffles, proofs) runs in a worker thread by default
(``offload``), so a hub hosted in the same process keeps relaying meanwhile; tests that
use trio's mock clock turn it off, because a thread looks idle to the clock.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import trio

from tarot_p2p.files.atomic import write_json_atomic, write_private_atomic
from tarot_p2p.files.seat_files import SeatFiles, sheet_document
from tarot_p2p.files.transcripts import TranscriptStore
from tarot_p2p.meet.lobby import JOIN, LobbyError, read_lobby_request
from tarot_p2p.net.framing import LinkError
from tarot_p2p.net.link import MessageLink
from tarot_p2p.protocol.envelope import open_envelope
from tarot_p2p.protocol.errors import (
    LocalProtocolError,
    ProtocolError,
    SeatViolation,
    UnattributedMessage,
)
from tarot_p2p.protocol.forfeit import ClaimError
from tarot_p2p.protocol.peer import (
    CheatExposed,
    Peer,
    PeerEvent,
    SecretLost,
    Superseded,
    secrets_cover,
)
from tarot_p2p.protocol.sync import (
    HERE_KIND,
    NONCE_LEN,
    ROLL_KIND,
    AnswerBudget,
    EarlyMessages,
    SyncError,
    SyncRequest,
    answer_span,
)
from tarot_p2p.protocol.table import ENGINE_TYPES
from tarot_p2p.protocol.transcript import EarlyInRound, TranscriptGap
from tarot_p2p.rules.actions import Action, Discard
from tarot_p2p.rules.cards import CardSet
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.rules.state import State

if TYPE_CHECKING:
    from tarot_p2p.files.history import HistoryWriter

log = logging.getLogger(__name__)
T = TypeVar("T")
DECISION_TYPES = frozenset(t for types in ENGINE_TYPES.values() for t in types)
"""Message kinds a player chooses (bids, cards, écart...): they get the decision timeout."""
MAX_REFUSALS = 5
LINK_ERRORS = (LinkError, trio.BrokenResourceError, trio.ClosedResourceError)
"""What a dead link raises; the runner reconnects (or stops, when it cannot)."""
NOTICE_EVERY = 5.0
"""Seconds between two "still waiting for ..." notices to the policy."""
ANSWER_EVERY = 0.5
"""Seconds between two answers to the same member's sync requests (a replayed or
repeated request costs the table one bounded answer per interval, no more)."""
MAX_NUDGE = 16.0
"""Longest interval between two sync requests of one wait without progress."""
LOST_SECRET = "lost_secret"
"""The stop of a seat that cannot sign in this hand (:class:`~.peer.SecretLost`)."""
BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0)
"""Seconds between reconnection attempts (the last one repeats)."""


@dataclass(frozen=True, slots=True)
class Ecart:
    """A policy's écart: the cards put aside, all at once."""

    cards: CardSet


Decision = Action | Ecart


async def ecart_by_steps(peer: Peer, pick: Callable[[State, int], Awaitable[Action]]) -> Ecart:
    """The écart chosen one card at a time, as the engine takes it; the protocol sends it
    all at once. ``pick(trial, k)`` chooses the ``k``-th discard (from 0) on a copy of the
    seat's engine holding the discards already chosen, so its legal actions are those left."""
    state = peer.private_state()
    assert state is not None
    trial = state.clone()
    cards = 0
    for k in range(chien_size(peer.config)):
        choice = await pick(trial, k)
        if not isinstance(choice, Discard):
            raise LocalProtocolError(f"{choice} is not a discard")
        trial.apply_action(choice)
        cards |= 1 << choice.card
    return Ecart(cards)


@dataclass(frozen=True, slots=True)
class Notice:
    """Something a player should see while the table waits.

    ``kind`` is ``waiting`` (for ``seat``, since ``seconds``), ``turn`` (the table waits
    for us, since ``seconds``: the same countdown the others see), ``absent`` (``seat``
    has been silent past its limit), ``claimed`` (another seat claimed ``seat`` absent),
    ``unheard`` (another seat claimed *us* absent at a slot where we sent our message: it
    is not getting through the hub), ``overtaken`` (the others' abandon overtook a
    message of ours that never reached them: the stand-in plays our hand), ``back``
    (``seat`` asked for the records it missed after we had told the player we wait for
    it: it was away and is back), ``confirming`` (this seat was taken back from its files
    and waits, before signing anything, for ``seat`` to say where the game stands),
    ``reconnecting`` (our own link is down, since
    ``seconds``) or ``connected`` (our link is back).

    ``left``: for ``waiting`` and ``turn``, the seconds before the others may claim the
    awaited seat absent (``table.md`` §3.1; zero once that time has passed), ``None``
    when no abandon is possible at this point (the seat draw, the score, the release)."""

    kind: str
    seat: int | None
    name: str | None
    seconds: float
    left: float | None = None


class Policy(Protocol):
    """Who makes this seat's decisions: a bot, a human at a terminal, a test script.

    A policy may also define ``async notice(peer, notice: Notice)`` to show the table's
    waiting and reconnecting states; the runner calls it when present."""

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        """The choice for the decision due now (``refused``: why the last one was refused)."""
        ...

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        """Called after every accepted message with the events it caused."""
        ...


Connector = Callable[[], Awaitable[MessageLink]]
"""Opens a new link to the table's hub (the runner's way back after a lost link)."""


@dataclass(frozen=True, slots=True)
class Timeouts:
    """How long to wait, in seconds."""

    message: float = 60.0
    """For a message a program computes (key share, shuffle, shares, score), before the
    silent seat is recorded as absent."""
    decision: float = 600.0
    """For a player's decision (bid, call, écart, announcement, card), likewise."""
    lobby: float = 1800.0
    """The table filling up: the host waiting for every seat, a joiner for the set-up."""
    nudge: float = 2.0
    """Without progress for this long, ask the other peers for records we may lack (then
    again after twice as long, and so on, up to 16 s)."""
    reconnect: float = 900.0
    """How long to keep trying to bring a lost link back before giving up."""
    linger: float = 60.0
    """After the game, how long to stay for seats that may still lack the last messages."""

    def for_types(self, kinds: Sequence[str]) -> float:
        return self.decision if DECISION_TYPES.intersection(kinds) else self.message


@dataclass(frozen=True, slots=True)
class WaitPlan:
    """The moments of one wait for one slot, the same for every seat, the awaited one
    included (``wire.md`` §7.1, ``table.md`` §3.1), counted from when the wait began.

    Where an abandon is possible (hand 1 on, a phase other than SCORE and RELEASE, no seat
    of the hand absent yet), ``forfeit_after`` rules: the others claim the silent seat at
    ``claim_at``; the seat's limit (``absent_at``) only tells the players; the wait ends
    with the abandon, or with an absence record at ``deadline`` (``forfeit_after`` plus
    the larger of ``forfeit_after`` and the limit) when the abandon never comes. Where none
    is possible, the limit ends the wait."""

    started: float
    claim_at: float
    """``inf``: no abandon is possible."""
    absent_at: float
    deadline: float

    @classmethod
    def of(cls, peer: Peer, timeouts: Timeouts, started: float) -> WaitPlan:
        limit = timeouts.for_types(peer.expected_types())
        if peer.hand.present_speaker() is None:
            return cls(started, float("inf"), float("inf"), started + limit)
        forfeit = float(peer.config.forfeit_after)
        deadline = started + forfeit + max(forfeit, limit)
        return cls(started, started + forfeit, started + limit, deadline)

    def left(self, now: float) -> float | None:
        """Seconds before the claims (``None``: no abandon possible here)."""
        if self.claim_at == float("inf"):
            return None
        return max(0.0, self.claim_at - now)


@dataclass(slots=True)
class WireStats:
    """What went through this seat's link (envelope bytes, not counting link overhead)."""

    sent_messages: int = 0
    sent_bytes: int = 0
    received_messages: int = 0
    received_bytes: int = 0
    ignored: int = 0
    sync_requests: int = 0
    """Sync requests we sent."""
    resent: int = 0
    """Records we sent again in answer to others' sync requests."""
    resent_bytes: int = 0
    reconnects: int = 0
    early: int = 0
    """Messages that arrived before those they build on, kept until they fit."""


@dataclass(frozen=True, slots=True)
class AbortRecord:
    """Why a hand stopped short: who is named (``None``: nobody) and whether it is blame.

    ``attributed`` is true only for a violation, whose ``evidence`` (signed messages)
    anyone can check; an absence names the silent seat without blaming it."""

    kind: str
    """``absence``, ``violation``, ``disconnected`` or ``lost_secret`` (our own files lack
    the secret of a message we signed in this hand: see :class:`~.peer.SecretLost`)."""
    hand: int
    seat: int | None
    reason: str
    expected_types: tuple[str, ...]
    evidence: tuple[bytes, ...]
    accepted: int
    """Messages in the transcript when the hand stopped."""
    head: bytes
    attributed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "hand": self.hand,
            "seat": self.seat,
            "attributed": self.attributed,
            "reason": self.reason,
            "expected_types": list(self.expected_types),
            "evidence": [e.hex() for e in self.evidence],
            "accepted": self.accepted,
            "head": self.head.hex(),
        }


@dataclass(slots=True)
class Outcome:
    finished: bool
    abort: AbortRecord | None
    files: SeatFiles
    stats: WireStats = field(default_factory=WireStats)
    peer: Peer | None = None
    """The seat at the end (not the one given to the runner if it had to rewind)."""


class _Stop(Exception):
    def __init__(self, record: AbortRecord) -> None:
        super().__init__(record.reason)
        self.record = record


class TableRunner:
    """One seat at one table: see the module docstring."""

    def __init__(
        self,
        peer: Peer,
        link: MessageLink,
        policy: Policy,
        files: SeatFiles,
        *,
        timeouts: Timeouts = Timeouts(),
        offload: bool = True,
        reconnect: Connector | None = None,
        history: HistoryWriter | None = None,
    ) -> None:
        if peer.seat is None:
            raise ValueError("an observer does not play: give the peer a seat")
        self.peer = peer
        self.link = link
        self.policy = policy
        self.files = files
        self.timeouts = timeouts
        self.offload = offload
        self.reconnect = reconnect
        self.history = history
        self.stats = WireStats()
        self._store: TranscriptStore | None = None
        self._saved = 0
        self._unsynced = False
        self._sheet_lines = -1
        self._sheet_due = False
        """The sheet changed and is not saved yet: we spoke first (see :meth:`_after`)."""
        self._secrets = b""
        self._early = EarlyMessages()
        self._unread: list[bytes] = []
        """Messages read while we decided and not handled when our decision was taken:
        read again first."""
        self._answered: dict[int, float] = {}
        self._budget = AnswerBudget()
        """What we may resend each member (``wire.md`` §7.2)."""
        self._counts: dict[int, int] = {}
        """The most records each member said it holds (in its sync requests)."""
        self._ask_at = float("inf")
        """When to send our next sync request (``inf``: none planned)."""
        self._links = 0
        """Links opened so far after the first: a wait restarts its deadline on a new one."""
        self._claim: bytes | None = None
        """Our forfeit claim for the current wait, sent again with every nudge."""
        self._rolling = False
        """Taken back from our files, we sign nothing before every other member has told
        us where it stands (:meth:`_roll_call`)."""
        self._nonces: set[bytes] = set()
        """Our roll calls of this run."""
        self._here: dict[int, tuple[int, bytes]] = {}
        """By member: the records it held and their digest, as it answered our roll call."""
        self._here_sent: dict[int, float] = {}
        """By member: when we last answered one of its roll calls."""
        self._told_waiting: int | None = None
        """The seat the player was told we wait for, in the current wait (``None``: none
        yet): only a seat missed for that long can be said to come back."""

    def _open_store(self) -> tuple[TranscriptStore, int]:
        """The transcript file, new or (a seat taken back after a crash) the one the peer
        was rebuilt from: then its records must be the first of the peer's transcript."""
        peer, path = self.peer, self.files.transcript
        if not path.exists():
            return TranscriptStore.create(path, peer.table_id, peer.binding), 0
        store, on_disk = TranscriptStore.resume(path)
        count = len(on_disk)
        if count > len(peer.transcript) or on_disk.head != peer.transcript.digest_after(count):
            store.close()
            raise LocalProtocolError(f"{path} is not this seat's transcript")
        return store, count

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        if self.offload:
            return await trio.to_thread.run_sync(fn, *args)
        await trio.lowlevel.checkpoint()
        return fn(*args)

    async def run(self) -> Outcome:
        """Play until the game ends or the hand stops; never raises for a remote fault."""
        self.files.directory.mkdir(parents=True, exist_ok=True)
        store, self._saved = await self._run(self._open_store)
        self._store = store
        # Taken back from our files: they may be older than what we signed (table.md §7).
        self._rolling = self._saved > 0
        abort: AbortRecord | None = None
        try:
            await self._persist()
            for pending in self.peer.pending:
                await self._send(pending)  # our messages made ahead, as they were
            # A peer taken back from its files may lack what the others said meanwhile.
            self._ask_at = trio.current_time()
            try:
                while self.peer.expected_sender() is not None:  # (a rewind replaces the peer)
                    if self.peer.my_turn() and self._rolling:
                        await self._roll_call()  # first: the others may be past this turn
                    elif self.peer.my_turn() and (lost := self.peer.secret_lost) is not None:
                        raise self._lost(lost)
                    elif self.peer.my_turn():
                        await self._speak()
                    else:
                        await self._listen()
                await self._linger()
            except _Stop as stop:
                abort = stop.record
                log.warning("hand %d stopped: %s", abort.hand, abort.reason)
                await self._persist()
                await self._run(write_json_atomic, self.files.abort, abort.to_dict())
            await self._save_sheet()
        finally:
            store.close()
        return Outcome(abort is None, abort, self.files, self.stats, self.peer)

    # ------------------------------------------------------------------ our turn

    async def _speak(self) -> None:
        peer = self.peer
        hand = peer.hand.hand
        try:
            wire = await self._run(peer.next_message)
            if wire is None:
                wire = await self._decide()
                if wire is None:
                    return  # the table went on without us (the others' abandon came in)
        except CheatExposed as exc:
            # Our message proved an earlier one false: it is accepted and is the proof.
            await self._persist()
            if exc.outgoing is not None:
                await self._send(exc.outgoing)
            raise self._violation(exc) from None
        if self.peer.hand.hand == hand:
            await self._save_secrets()  # first: a transcript holding our key needs its secret
            await self._persist()
        else:
            # Our message ended the hand (a last score signature; it never carries a
            # secret). The next hand's secrets replace this hand's: written first, a crash
            # before the transcript would leave this hand's key in a file without its secret.
            await self._persist()
            await self._save_secrets()
        await self._send(wire)
        await self._after(peer.own_events)
        await self._take_early()
        await self._prepare()

    async def _prepare(self) -> None:
        """Make and send what we can of the next hand's opening (``table.md`` §1.6): the
        secrets first, as for any message of ours. Nothing while we take our seat back
        from our files: the others may hold such a message of ours already (§7)."""
        peer = self.peer
        if self._rolling or not peer.may_prepare:
            return
        made = await self._run(peer.prepare)
        if made:
            await self._save_secrets()
            for wire in made:
                await self._send(wire)

    async def _decide(self) -> bytes | None:
        """Our decision, while we go on listening to the table.

        The player may be away: the others then claim our absence after ``forfeit_after``
        and their ``abandon`` ends our turn (the stand-in plays our hand). So the link is
        read as in :meth:`_listen` while the policy thinks: requests are answered, claims
        told, and a message that moves the transcript (the abandon) cancels the question,
        so that no prompt stays live for a deal that went on without us (``None``). The
        player sees the same countdown as the others (``turn`` notices). Past the wait's
        deadline (:class:`WaitPlan`, the same as the others') we stop, with the record
        they write, instead of waiting on a player who has left.

        One lock keeps the peer to one task at a time: a decision is applied only on the
        history it was made for, and a received message never while one is applied."""
        peer = self.peer
        head = peer.transcript.head
        plan = WaitPlan.of(peer, self.timeouts, trio.current_time())
        lock = trio.Lock()
        chosen: list[bytes] = []
        failed: list[BaseException] = []

        def moved() -> bool:
            return self.peer is not peer or peer.transcript.head != head

        async def choose(done: trio.CancelScope) -> None:
            try:
                wire = await self._choose(peer, plan, lock, moved)
            except trio.Cancelled:
                raise
            except BaseException as exc:  # re-raised below, outside the nursery, as it is
                failed.append(exc)
            else:
                if wire is not None:
                    chosen.append(wire)
            done.cancel()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(choose, nursery.cancel_scope)
            try:
                await self._hear(plan, lock, moved)
            except trio.Cancelled:
                raise
            except BaseException as exc:
                failed.append(exc)
            nursery.cancel_scope.cancel()
        if failed:
            raise failed[0]
        return chosen[0] if chosen else None

    async def _choose(
        self, peer: Peer, plan: WaitPlan, lock: trio.Lock, moved: Callable[[], bool]
    ) -> bytes | None:
        """Ask the policy until the peer takes its choice (``None``: the table moved on)."""
        refused: str | None = None
        with trio.move_on_at(plan.deadline):
            for _ in range(MAX_REFUSALS):
                decision = await self.policy.decide(peer, refused)
                async with lock:
                    if moved():
                        return None
                    try:
                        if isinstance(decision, Ecart):
                            return await self._run(peer.discard, decision.cards)
                        return await self._run(peer.act, decision)
                    except LocalProtocolError as exc:
                        refused = str(exc)
                        log.info("decision refused: %s", refused)
            raise LocalProtocolError(f"the policy made {MAX_REFUSALS} illegal choices: {refused}")
        raise self._absence(plan.deadline - plan.started)

    async def _hear(self, plan: WaitPlan, lock: trio.Lock, moved: Callable[[], bool]) -> None:
        """While we decide: take what the table sends until the transcript moves, tell the
        player the countdown, and from the claim time on ask the others for what we may
        lack (their abandon may have been lost for us alone)."""
        me = self.peer.seat
        next_notice = plan.started + NOTICE_EVERY
        every = self.timeouts.nudge
        nudge = plan.claim_at
        while not moved():
            wire: bytes | None = None
            with trio.move_on_at(min(next_notice, nudge, self._ask_at)):
                wire = await self._receive()
            if wire is not None:
                # Kept until it is handled: our decision may go first and end this wait
                # (even while we wait for the lock), and it is read again after it. It may
                # be of the next hand's opening, which no sync request would fetch again.
                self._unread.append(wire)
                async with lock:
                    if moved():
                        return
                    await self._handle(self._unread.pop(0))
                continue
            now = trio.current_time()
            if now >= min(nudge, self._ask_at):
                nudge = now + every
                every = min(2 * every, MAX_NUDGE)
                async with lock:
                    await self._ask()
            if now >= next_notice:
                next_notice = now + NOTICE_EVERY
                await self._notice("turn", me, now - plan.started, plan.left(now))

    async def _send(self, wire: bytes) -> None:
        """Hand ``wire`` to the link, reconnecting as often as needed: a message of ours
        is in our transcript already, so sending it again is harmless (a duplicate)."""
        while True:
            limit = self.timeouts.message
            with trio.move_on_after(limit) as sending:
                try:
                    await self.link.send(wire)
                except LINK_ERRORS as exc:
                    await self._reconnect(f"cannot send: {exc}")
                    continue
            if not sending.cancelled_caught:
                break
            # A hub (or a network) that takes no bytes at all is a lost link.
            await self._reconnect(f"cannot send: no progress in {limit:g} s")
        self.stats.sent_messages += 1
        self.stats.sent_bytes += len(wire)

    async def _reconnect(self, why: str) -> None:
        """Bring the link back with backoff, or stop (nobody named) when we cannot."""
        log.info("link lost: %s", why)
        if self.reconnect is None:
            raise self._stop("disconnected", None, f"link lost: {why}")
        with trio.CancelScope() as cleanup:
            cleanup.shield = True
            with trio.move_on_after(1.0):
                await self.link.aclose()
        lost = trio.current_time()
        attempt = 0
        with trio.move_on_after(self.timeouts.reconnect):
            while True:
                await self._notice("reconnecting", None, trio.current_time() - lost)
                await trio.sleep(BACKOFF[min(attempt, len(BACKOFF) - 1)])
                attempt += 1
                try:
                    link = await self.reconnect()
                except (*LINK_ERRORS, OSError, trio.TooSlowError) as exc:
                    log.info("reconnection attempt %d failed: %s", attempt, exc)
                    continue
                except Exception as exc:  # e.g. a handshake refused by a restarting hub
                    log.info("reconnection attempt %d refused: %s", attempt, exc)
                    continue
                self.link = link
                self._links += 1
                self.stats.reconnects += 1
                self._ask_at = trio.current_time()
                await self._notice("connected", None, trio.current_time() - lost)
                return
        limit = self.timeouts.reconnect
        raise self._stop("disconnected", None, f"link lost ({why}), not back in {limit:g} s")

    # ------------------------------------------------------------------ their turn

    async def _listen(self) -> None:
        """Wait until the expected sender's message is in, or its absence limit passes.

        From hand 1 on, a silence past the table's forfeit time makes us claim the silent
        seat absent (:mod:`~tarot_p2p.protocol.forfeit`); once every other seat has, the
        abandon comes and the stand-in plays its hand. Until then the absence limit only
        tells the player; we give up (an absence record) when the abandon does not come
        (:class:`WaitPlan`: the awaited seat's own program counts the same way).

        Only the wait for bytes is under the deadline: a message received in time is
        checked and applied whatever the clock says meanwhile. Cancelling that work would
        leave a message applied but reported late (and name the seat after the sender).
        """
        if self._sheet_due:
            await self._save_sheet()
        peer = self.peer
        head = peer.transcript.head
        seat = peer.expected_sender()
        limit = self.timeouts.for_types(peer.expected_types())
        links = self._links
        started = trio.current_time()
        plan = WaitPlan.of(peer, self.timeouts, started)
        claim_at, absent_at, deadline = plan.claim_at, plan.absent_at, plan.deadline
        next_notice = started + NOTICE_EVERY
        self._told_waiting = None
        every = self.timeouts.nudge
        nudge = started + every
        while self.peer.transcript.head == head:
            if self._links != links:  # we could hear nobody while our link was down
                links = self._links
                deadline = max(deadline, trio.current_time() + limit)
            wake = min(deadline, next_notice, nudge, self._ask_at, claim_at, absent_at)
            wire: bytes | None = None
            with trio.move_on_at(wake):
                wire = await self._receive()
            if wire is not None:
                await self._handle(wire)
                continue
            now = trio.current_time()
            if now >= deadline:
                raise self._absence(deadline - started)
            if now >= absent_at:
                absent_at = float("inf")
                self._told_waiting = seat
                await self._notice("absent", seat, now - started)
            if now >= claim_at:
                claim_at = float("inf")
                self._claim = await self._run(peer.forfeit_claim)
                await self._send_claim()
            if now >= min(nudge, self._ask_at):
                every = min(2 * every, MAX_NUDGE)  # a long decision needs few reminders
                nudge = now + every
                await self._ask()
                await self._send_claim()
            if now >= next_notice:
                next_notice = now + NOTICE_EVERY
                self._told_waiting = seat
                await self._notice("waiting", seat, now - started, plan.left(now))

    async def _send_claim(self) -> None:
        """Send (again) our forfeit claim of the current wait, then the abandon if ours
        completes the set: claims may be lost like anything else."""
        if self._claim is None:
            return
        with trio.move_on_after(self.timeouts.message):
            try:
                await self.link.send(self._claim)
            except LINK_ERRORS as exc:
                await self._reconnect(f"cannot send: {exc}")
        await self._try_abandon()

    async def _try_abandon(self) -> None:
        """Send the ``abandon`` message if every claim is in and it is ours to send."""
        peer = self.peer
        wire = await self._run(peer.abandon)
        if wire is None:
            return
        self._claim = None
        await self._persist()
        await self._send(wire)
        await self._after(peer.own_events)

    async def _linger(self) -> None:
        """After the last message, stay a while for the seats that may have missed it.

        A relay can drop the last messages for one seat (or die just after we sent ours),
        and a seat can only fetch them from peers still listening. Each seat says it is
        done with a sync request holding the whole transcript; we answer requests, and
        bring our link back if it fails, until every seat has said so, or until ``linger``
        seconds have passed: the game is over either way."""
        peer = self.peer
        total = len(peer.transcript)
        with trio.move_on_after(self.timeouts.linger):
            try:
                await self._send(peer.sync_request())
                while any(self._counts.get(m, 0) < total for m in peer.other_members()):
                    await self._handle(await self._receive())
            except _Stop as stop:
                log.info("stopped waiting for the others after the game: %s", stop)

    async def _receive(self) -> bytes:
        if self._unread:
            await trio.lowlevel.checkpoint()
            return self._unread.pop(0)
        while True:
            try:
                wire = await self.link.receive()
            except LINK_ERRORS as exc:
                await self._reconnect(f"{exc}")
                continue
            self.stats.received_messages += 1
            self.stats.received_bytes += len(wire)
            return wire

    async def _handle(self, wire: bytes) -> None:
        """Apply one received message, then every kept one that now fits."""
        peer = self.peer
        before = len(peer.transcript)
        overtaken = False
        if await self._answer(wire):
            return
        try:
            claim = peer.read_forfeit_claim(wire)
        except ClaimError:
            claim = None
        if claim is not None:
            if peer.sent_at(claim.slot):
                # We did speak: our message is not getting through to that seat.
                log.warning("a seat claims us absent at a slot we sent: the hub loses our messages")
                await self._notice("unheard", claim.slot.absent, 0.0)
                self._ask_at = min(self._ask_at, trio.current_time())
            else:
                await self._notice("claimed", claim.slot.absent, 0.0)
            await self._try_abandon()
            return
        try:
            events = await self._run(peer.receive, wire)
        except TranscriptGap as gap:
            self.stats.early += 1
            self._early.keep(gap.prev, wire)
            if not isinstance(gap, EarlyInRound):  # (that one is the parallel rounds' norm)
                self._ask_at = min(self._ask_at, trio.current_time())
            else:
                await self._prepare()  # the next hand's opening may go on with it
            return
        except UnattributedMessage as exc:
            self.stats.ignored += 1
            log.info("ignored a message nobody can be held to: %s", exc.reason)
            return
        except Superseded as exc:
            # We were the silent seat: our message never reached the others, who scored
            # our abandon. Drop it (and anything after) and take the abandon instead.
            log.warning("%s", exc)
            taken = await self._rewind(exc)
            if taken is None:
                return
            peer, before, events = self.peer, exc.position, taken
            overtaken = True
        except SeatViolation as exc:
            await self._persist()
            # Every honest peer must see the proof: a relay may have shown the others
            # another version of that slot (then they find the equivocation), or nothing.
            for evidence in exc.evidence:
                with trio.move_on_after(self.timeouts.message):
                    try:
                        await self.link.send(evidence)
                    except LINK_ERRORS:
                        break
            raise self._violation(exc) from None
        if len(peer.transcript) == before:
            return  # a duplicate relayed again
        self._claim = None
        await self._persist(durable=False)
        await self._after(events)
        if overtaken:
            await self._notice("overtaken", self.peer.seat, 0.0)
        await self._take_early()
        await self._prepare()

    async def _take_early(self) -> None:
        """Take every kept message that fits now (``wire.md`` §7.3), unless it is our turn:
        ours goes first, and this is tried again once it is in."""
        peer = self.peer
        transcript = peer.transcript
        bases = dict.fromkeys((transcript.head, transcript.expected_prev))
        for base in bases:
            for kept in self._early.ready(base):
                if peer is not self.peer or peer.my_turn() or peer.expected_sender() is None:
                    self._early.keep(base, kept)
                    continue
                await self._handle(kept)

    async def _rewind(self, overtaken: Superseded) -> list[PeerEvent] | None:
        """Take the others' abandon of us in place of our own messages nobody took.

        The abandon is tried on the rewound seat first: the transcript file is cut only
        once it is accepted there, so a message that claims to rewrite our records and
        fails any check leaves the file as it was (``table.md`` §3.1)."""
        store = self._store
        assert store is not None
        count = overtaken.position
        # The others' messages of the round we were silent in stay valid after the
        # abandon (made on the round's base): they are taken again on the rewound seat.
        others = [e.wire for e in list(self.peer.transcript)[count:] if e.seat != self.peer.seat]
        try:
            rewound = await self._run(self.peer.rewound, count)
            events = await self._run(rewound.receive, overtaken.wire)
            for wire in others:
                events += await self._run(rewound.receive, wire)
        except SeatViolation as exc:
            raise self._violation(exc) from None
        except (LocalProtocolError, UnattributedMessage, ValueError) as exc:
            self.stats.ignored += 1
            log.info("ignored an abandon that does not fit our history: %s", exc)
            return None
        await self._run(store.truncate, count)
        self.peer = rewound
        self._saved = count
        self._unsynced = False
        return events

    async def _ask(self) -> None:
        """Broadcast a sync request: whoever holds records after ours sends them."""
        self._ask_at = float("inf")
        self.stats.sync_requests += 1
        with trio.move_on_after(self.timeouts.message):
            try:
                await self.link.send(self.peer.sync_request())
            except LINK_ERRORS as exc:
                await self._reconnect(f"cannot send: {exc}")

    async def _answer(self, wire: bytes) -> bool:
        """Answer ``wire`` if it is a member's sync request or join request (a late leave
        request is dropped); ``False`` if it is none of them. A member asking to join again
        lost its files before the set-up reached them (or the relay restarted): the set-up
        record is its way back in."""
        peer = self.peer
        try:
            request = peer.read_sync_request(wire)
        except SyncError:
            try:
                joining = read_lobby_request(wire, peer.table_id, None)
            except LobbyError:
                return False
            member = peer.member_of(joining.identity)
            if joining.kind != JOIN or member is None or not len(peer.transcript):
                return True
            request = SyncRequest(member, 0, peer.transcript.genesis)
        self._counts[request.member] = max(self._counts.get(request.member, 0), request.count)
        if request.kind == HERE_KIND and request.nonce in self._nonces:
            self._here[request.member] = (request.count, request.head)
        if request.kind == ROLL_KIND:
            await self._answer_roll(request)
        seat = peer.seat_of_member(request.member)
        if seat is not None and seat == peer.expected_sender() == self._told_waiting:
            # A seat we have been waiting for asks for what it missed: it was away and
            # comes back. Sooner, the request is news of nothing: every seat asks when its
            # runner starts and when its own wait stalls, and such a request may reach us
            # just after our wait turned to that seat (its link never broke).
            await self._notice("back", seat, 0.0)
        if request.count > len(peer.transcript):
            self._ask_at = min(self._ask_at, trio.current_time())  # we are behind
        now = trio.current_time()
        if now - self._answered.get(request.member, -ANSWER_EVERY) < ANSWER_EVERY:
            return True
        start, records = answer_span(peer.transcript, request)
        records = self._budget.grant(request.member, start, records, now)
        if not records:
            return True
        self._answered[request.member] = now
        for record in records:
            await self._send(record)
            self.stats.resent += 1
            self.stats.resent_bytes += len(record)
        return True

    async def _answer_roll(self, request: SyncRequest) -> None:
        """Tell a member taking its seat back where we stand (``here``), once per interval:
        it signs nothing before every other member has (``table.md`` §7)."""
        now = trio.current_time()
        if now - self._here_sent.get(request.member, -ANSWER_EVERY) < ANSWER_EVERY:
            return
        self._here_sent[request.member] = now
        # First its own messages we keep early (a parallel round's, or the next hand's
        # opening, made before it stopped): it must wait for them to fill their slots,
        # never sign them anew.
        seat = self.peer.seat_of_member(request.member)
        for wire in self._early:
            try:
                env = open_envelope(wire, table_id=self.peer.table_id, roster=None)
            except ProtocolError:
                continue
            if env.seat == seat and env.hand - self.peer.hand.hand in (0, 1):
                await self._send(wire)
        await self._send(self.peer.roll_call(request.nonce, HERE_KIND))

    # ------------------------------------------------------------------ resuming

    def _unconfirmed(self) -> list[int]:
        """The other members that have not yet shown, by answering our roll call, that
        they hold no record after ours (a member ahead of us is unconfirmed until its
        records are ours too: one of them may be a message we signed before)."""
        transcript = self.peer.transcript
        left = []
        for member in self.peer.other_members():
            count, head = self._here.get(member, (-1, b""))
            if not 0 <= count <= len(transcript) or transcript.digest_after(count) != head:
                left.append(member)
        return left

    async def _roll_call(self) -> None:
        """Our turn, in a seat taken back from its files: before signing anything, learn
        from every other member whether we signed this slot already (``table.md`` §7).

        Our files may be older than what we signed (a backup put back, a disk that lost
        its last writes): signing again would make two messages for one slot, and every
        seat, ours included, would name us as cheating. So we send a roll call; every
        other member answers with the records we lack (our own signed copies among them,
        which we adopt) and says where it stands. We sign once each of them holds nothing
        after our head; until then we wait and say so. A member that never answers keeps
        us waiting; past the message limit we stop, naming nobody, to be resumed later."""
        peer = self.peer
        head = peer.transcript.head
        started = trio.current_time()
        deadline = started + self.timeouts.message
        every = self.timeouts.nudge
        ask_at = started
        told_at = started + NOTICE_EVERY
        while peer is self.peer and peer.transcript.head == head:
            left = self._unconfirmed()
            if not left and not peer.behind_own_secrets:
                self._rolling = False
                return
            now = trio.current_time()
            if now >= deadline:
                names = ", ".join(peer.names[s] for s in self._seats_of(left)) or "nobody"
                raise self._stop(
                    "disconnected",
                    None,
                    f"not heard from {names} in {round(now - started)} s; this seat was "
                    "taken back from its files and signs nothing before the others say "
                    "where the game stands (it may have signed more than its files hold)",
                )
            if now >= ask_at:
                nonce = os.urandom(NONCE_LEN)
                self._nonces.add(nonce)
                await self._send(peer.roll_call(nonce))
                self.stats.sync_requests += 1
                ask_at = now + every
                every = min(2 * every, MAX_NUDGE)
            if now >= told_at:
                told_at = now + NOTICE_EVERY
                for seat in self._seats_of(left)[:1]:
                    await self._notice("confirming", seat, now - started)
            wire: bytes | None = None
            with trio.move_on_at(min(deadline, ask_at, told_at)):
                wire = await self._receive()
            if wire is not None:
                await self._handle(wire)

    def _seats_of(self, members: Sequence[int]) -> list[int]:
        """The seats (current hand's indexes) of ``members``."""
        seats = (self.peer.seat_of_member(m) for m in members)
        return [s for s in seats if s is not None]

    # ------------------------------------------------------------------ records

    async def _persist(self, *, durable: bool = True) -> None:
        """Write every newly accepted message to the transcript file before acting on it.

        Received messages are handed to the operating system at once (a crash of this
        process loses none) and made durable with ``fsync`` before the next message of
        ours, which depends on them, is sent (``wire.md`` §4.4): one ``fsync`` per message
        sent rather than per message received.
        """
        transcript = self.peer.transcript
        store = self._store
        assert store is not None
        fresh = list(islice(transcript, self._saved, None))
        if fresh:
            await self._run(functools.partial(store.append_batch, fresh, durable=False))
            self._saved = len(transcript)
            self._unsynced = True
        if durable and self._unsynced:
            await self._run(store.sync)
            self._unsynced = False

    async def _save_secrets(self) -> None:
        """Keep what :meth:`Peer.resume` needs, before sending a message that uses it:
        not when the blob saved last serves as well (:func:`secrets_cover`: only messages
        of ours the transcript took since have left it), which keeps two ``fsync`` calls
        off the way of each shuffle."""
        blob = self.peer.export_secrets()
        if blob != self._secrets and not secrets_cover(self._secrets, blob):
            await self._run(write_private_atomic, self.files.secrets, blob)
            self._secrets = blob

    async def _after(self, events: Sequence[PeerEvent]) -> None:
        if self.history is not None:
            self.history.observe(self.peer, events)
        sheet = self.peer.sheet
        lines = -1 if sheet is None else len(sheet.lines)
        if lines != self._sheet_lines:
            self._sheet_lines = lines
            # When the next message is ours (the first key of the next deal), the table
            # waits for it and not for our sheet and history: it goes out first, and the
            # sheet is saved as our wait begins (:meth:`_listen`). The transcript, which
            # holds every agreed hand, is made durable before that message as always.
            self._sheet_due = True
            if not self.peer.my_turn():
                await self._save_sheet()
        await self.policy.observe(self.peer, events)

    async def _notice(
        self, kind: str, seat: int | None, seconds: float, left: float | None = None
    ) -> None:
        show = getattr(self.policy, "notice", None)
        if show is None:
            return
        name = None if seat is None else self.peer.names[seat]
        await show(self.peer, Notice(kind, seat, name, seconds, left))

    async def _save_sheet(self) -> None:
        self._sheet_due = False
        await self._persist()  # the transcript the sheet rests on, durable first
        await self._run(write_json_atomic, self.files.sheet, sheet_document(self.peer, self.files))
        if self.history is not None:
            await self._run(self.history.save, self.files.directory)

    def _stop(
        self,
        kind: str,
        seat: int | None,
        reason: str,
        evidence: tuple[bytes, ...] = (),
        *,
        attributed: bool = False,
    ) -> _Stop:
        peer = self.peer
        return _Stop(
            AbortRecord(
                kind=kind,
                hand=peer.hand.hand,
                seat=seat,
                reason=reason,
                expected_types=peer.expected_types(),
                evidence=evidence,
                accepted=len(peer.transcript),
                head=peer.transcript.head,
                attributed=attributed,
            )
        )

    def _absence(self, limit: float) -> _Stop:
        """The expected sender (us, or another seat) sent nothing for ``limit`` seconds.

        Not a violation: the player, the network or the relay may be the cause."""
        peer = self.peer
        seat = peer.expected_sender()
        name = "nobody" if seat is None else peer.names[seat]
        return self._stop(
            "absence",
            seat,
            f"{name} sent nothing for {round(limit)} s when it was their turn; their "
            "connection or the relay may be the cause",
        )

    def _lost(self, lost: SecretLost) -> _Stop:
        """Our turn in a hand whose own key share or écart we can no longer use: our files
        were older than what we had signed. Nobody is at fault; the others finish the
        hand without us once we have been silent past the forfeit time."""
        return self._stop(
            LOST_SECRET,
            None,
            f"this program cannot play the rest of deal {lost.hand}: its files were older "
            f"than the messages it had sent (a backup put back?), and the secret its {lost.kind} "
            "of this deal was made with is not in them. Nobody cheated",
        )

    def _violation(self, exc: SeatViolation) -> _Stop:
        return self._stop("violation", exc.seat, str(exc), exc.evidence, attributed=True)
