"""Drive one seat's :class:`~tarot_p2p.protocol.peer.Peer` over one link until the game ends.

Theory of operation. The protocol is turn-based: at every moment the peer names the one
seat that must speak. The runner therefore alternates between two states, with no
background task:

* **our turn** — ask the peer for the message the protocol dictates
  (``next_message()``); when it is a decision, ask the :class:`Policy` (a bot or a human)
  and hand the choice to the peer (``act`` / ``discard``), which refuses anything illegal.
  The message is made durable in the transcript file, then sent.
* **their turn** — receive from the link inside a cancel scope whose deadline is the
  expected sender's timeout (a decision gets longer than a computed message). Bytes no
  seat provably signed, duplicates and gaps are logged and ignored *without* moving the
  deadline, so junk cannot keep a silent seat alive. A message accepted by the peer is
  written to the transcript file before anything else happens (the process may die: the
  record is the operating system's), and made durable (``fsync``) before our next message
  is sent, which depends on it (``wire.md`` §4.4).

Before each message of ours, the peer's exported secrets (``secrets.bin``, private) are
saved when they changed, so that ``Peer.resume`` can take the seat back after a crash.

Ends: the game is over (the peer expects nobody); the expected sender stayed silent
(``timeout``); a seat signed something the protocol refuses (``violation``, with the
signed evidence); the link died (``disconnected``, nobody blamed). Every end but the first
writes an **aborted-hand record** (JSON) next to the transcript. The score sheet is
rewritten (atomically: temporary file, ``fsync``, rename) after each agreed hand, so a
crash loses nothing that was agreed.

CPU-heavy protocol work (shuffles, proofs) runs in a worker thread by default
(``offload``), so a hub hosted in the same process keeps relaying meanwhile; tests that
use trio's mock clock turn it off, because a thread looks idle to the clock.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Protocol, TypeVar

import trio

from tarot_p2p.net.framing import LinkError
from tarot_p2p.net.link import MessageLink
from tarot_p2p.net.store import TranscriptStore
from tarot_p2p.protocol.errors import LocalProtocolError, SeatViolation, UnattributedMessage
from tarot_p2p.protocol.peer import CheatExposed, Peer, PeerEvent
from tarot_p2p.protocol.table import ENGINE_TYPES
from tarot_p2p.rules.actions import Action, Discard
from tarot_p2p.rules.cards import CardSet
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.rules.state import State

log = logging.getLogger(__name__)
T = TypeVar("T")
DECISION_TYPES = frozenset(t for types in ENGINE_TYPES.values() for t in types)
"""Message kinds a player chooses (bids, cards, écart...): they get the decision timeout."""
MAX_REFUSALS = 5


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


class Policy(Protocol):
    """Who makes this seat's decisions: a bot, a human at a terminal, a test script."""

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        """The choice for the decision due now (``refused``: why the last one was refused)."""
        ...

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        """Called after every accepted message with the events it caused."""
        ...


@dataclass(frozen=True, slots=True)
class Timeouts:
    """How long to wait for the expected sender before aborting the hand, in seconds."""

    message: float = 60.0
    """A message a program computes (key share, shuffle, decryption shares, score)."""
    decision: float = 600.0
    """A player's decision (bid, call, écart, announcement, card)."""
    lobby: float = 1800.0
    """The table filling up: the host waiting for every seat, a joiner for the set-up."""

    def for_types(self, kinds: Sequence[str]) -> float:
        return self.decision if DECISION_TYPES.intersection(kinds) else self.message


@dataclass(slots=True)
class WireStats:
    """What went through this seat's link (envelope bytes, not counting link overhead)."""

    sent_messages: int = 0
    sent_bytes: int = 0
    received_messages: int = 0
    received_bytes: int = 0
    ignored: int = 0


@dataclass(frozen=True, slots=True)
class AbortRecord:
    """Why a hand stopped short: who is blamed (``None``: nobody can be) and the proof."""

    kind: str
    """``timeout``, ``violation`` or ``disconnected``."""
    hand: int
    seat: int | None
    reason: str
    expected_types: tuple[str, ...]
    evidence: tuple[bytes, ...]
    accepted: int
    """Messages in the transcript when the hand stopped."""
    head: bytes

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "hand": self.hand,
            "seat": self.seat,
            "reason": self.reason,
            "expected_types": list(self.expected_types),
            "evidence": [e.hex() for e in self.evidence],
            "accepted": self.accepted,
            "head": self.head.hex(),
        }


@dataclass(frozen=True, slots=True)
class SeatFiles:
    """Where one seat keeps one table: transcript, score sheet, aborted-hand record."""

    directory: Path

    @classmethod
    def for_table(cls, data_dir: Path, table_id: bytes, identity: bytes) -> SeatFiles:
        """``data_dir/<table id>-<our key>/``: several seats may share a data directory."""
        return cls(data_dir / f"{table_id[:8].hex()}-{identity[:4].hex()}")

    @property
    def transcript(self) -> Path:
        return self.directory / "transcript.tp2p"

    @property
    def sheet(self) -> Path:
        return self.directory / "sheet.json"

    @property
    def abort(self) -> Path:
        return self.directory / "aborted.json"

    @property
    def secrets(self) -> Path:
        """This seat's secrets of the current hand (to resume after a crash): private."""
        return self.directory / "secrets.bin"


@dataclass(slots=True)
class Outcome:
    finished: bool
    abort: AbortRecord | None
    files: SeatFiles
    stats: WireStats = field(default_factory=WireStats)


def write_atomic(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace ``path`` by ``data`` so that a crash leaves the old or the new file, whole."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_json_atomic(path: Path, value: object) -> None:
    write_atomic(path, (json.dumps(value, indent=2, sort_keys=True) + "\n").encode())


def write_private_atomic(path: Path, data: bytes) -> None:
    write_atomic(path, data, 0o600)


def sheet_document(peer: Peer, files: SeatFiles) -> dict[str, Any]:
    """What ``sheet.json`` holds: the agreed sheet and the transcript it rests on."""
    sheet = peer.sheet
    return {
        "table_id": peer.table_id.hex(),
        "config": peer.config.canonical_bytes().decode("ascii"),
        "seat": peer.seat,
        "transcript": str(files.transcript),
        "messages": len(peer.transcript),
        "head": peer.transcript.head.hex(),
        "finished": peer.expected_sender() is None,
        "sheet": sheet.to_dict() if sheet is not None else None,
    }


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
    ) -> None:
        if peer.seat is None:
            raise ValueError("an observer does not play: give the peer a seat")
        self.peer = peer
        self.link = link
        self.policy = policy
        self.files = files
        self.timeouts = timeouts
        self.offload = offload
        self.stats = WireStats()
        self._store: TranscriptStore | None = None
        self._saved = 0
        self._unsynced = False
        self._sheet_lines = -1
        self._secrets = b""

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        if self.offload:
            return await trio.to_thread.run_sync(fn, *args)
        await trio.lowlevel.checkpoint()
        return fn(*args)

    async def run(self) -> Outcome:
        """Play until the game ends or the hand is aborted; never raises for a remote fault."""
        self.files.directory.mkdir(parents=True, exist_ok=True)
        peer = self.peer
        self._store = await self._run(
            TranscriptStore.create, self.files.transcript, peer.table_id, peer.binding
        )
        abort: AbortRecord | None = None
        try:
            await self._persist()
            try:
                while peer.expected_sender() is not None:
                    if peer.my_turn():
                        await self._speak()
                    else:
                        await self._listen()
            except _Stop as stop:
                abort = stop.record
                log.warning("hand %d aborted: %s", abort.hand, abort.reason)
                await self._persist()
                await self._run(write_json_atomic, self.files.abort, abort.to_dict())
            await self._save_sheet()
        finally:
            self._store.close()
        return Outcome(abort is None, abort, self.files, self.stats)

    # ------------------------------------------------------------------ our turn

    async def _speak(self) -> None:
        peer = self.peer
        try:
            wire = await self._run(peer.next_message)
            if wire is None:
                wire = await self._decide()
        except CheatExposed as exc:
            # Our message proved an earlier one false: it is accepted and is the proof.
            await self._persist()
            if exc.outgoing is not None:
                await self._send(exc.outgoing)
            raise self._violation(exc) from None
        await self._save_secrets()  # first: a transcript holding our key needs its secret
        await self._persist()
        await self._send(wire)
        await self._after(peer.own_events)

    async def _decide(self) -> bytes:
        """Our decision, within the decision timeout: past it every other seat aborts the
        hand naming us (:meth:`_listen`), so we stop too, with the same record, instead of
        waiting on a player who has left."""
        peer = self.peer
        refused: str | None = None
        with trio.move_on_after(self.timeouts.decision):
            for _ in range(MAX_REFUSALS):
                decision = await self.policy.decide(peer, refused)
                try:
                    if isinstance(decision, Ecart):
                        return await self._run(peer.discard, decision.cards)
                    return await self._run(peer.act, decision)
                except LocalProtocolError as exc:
                    refused = str(exc)
                    log.info("decision refused: %s", refused)
            raise LocalProtocolError(f"the policy made {MAX_REFUSALS} illegal choices: {refused}")
        raise self._timeout(self.timeouts.decision)

    async def _send(self, wire: bytes) -> None:
        """Hand ``wire`` to the link within the message timeout: a hub (or a network) that
        takes no bytes at all is a lost link, not a reason to wait forever."""
        limit = self.timeouts.message
        with trio.move_on_after(limit) as sending:
            try:
                await self.link.send(wire)
            except (LinkError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                raise self._stop("disconnected", None, f"cannot send: {exc}") from None
        if sending.cancelled_caught:
            raise self._stop("disconnected", None, f"cannot send: no progress in {limit:g} s")
        self.stats.sent_messages += 1
        self.stats.sent_bytes += len(wire)

    # ------------------------------------------------------------------ their turn

    async def _listen(self) -> None:
        """Wait for the expected sender's next message, until its deadline.

        Only the wait for bytes is under the deadline: a message received in time is
        checked and applied whatever the clock says meanwhile. Cancelling that work would
        leave a message applied but reported late (and blame the seat after the sender).
        """
        peer = self.peer
        kinds = peer.expected_types()
        limit = self.timeouts.for_types(kinds)
        deadline = trio.current_time() + limit
        while True:
            with trio.move_on_at(deadline) as waiting:
                try:
                    wire = await self.link.receive()
                except (LinkError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                    raise self._stop("disconnected", None, f"link lost: {exc}") from None
            if waiting.cancelled_caught:
                raise self._timeout(limit)
            self.stats.received_messages += 1
            self.stats.received_bytes += len(wire)
            before = len(peer.transcript)
            try:
                events = await self._run(peer.receive, wire)
            except UnattributedMessage as exc:
                self.stats.ignored += 1
                log.info("ignored a message nobody can be held to: %s", exc.reason)
                continue
            except SeatViolation as exc:
                await self._persist()
                raise self._violation(exc) from None
            if len(peer.transcript) == before:
                continue  # a duplicate relayed again
            await self._persist(durable=False)
            await self._after(events)
            return

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
        """Keep what :meth:`Peer.resume` needs, before sending a message that uses it."""
        blob = self.peer.export_secrets()
        if blob != self._secrets:
            await self._run(write_private_atomic, self.files.secrets, blob)
            self._secrets = blob

    async def _after(self, events: Sequence[PeerEvent]) -> None:
        sheet = self.peer.sheet
        lines = -1 if sheet is None else len(sheet.lines)
        if lines != self._sheet_lines:
            self._sheet_lines = lines
            await self._save_sheet()
        await self.policy.observe(self.peer, events)

    async def _save_sheet(self) -> None:
        await self._persist()  # the transcript the sheet rests on, durable first
        await self._run(write_json_atomic, self.files.sheet, sheet_document(self.peer, self.files))

    def _stop(
        self, kind: str, seat: int | None, reason: str, evidence: tuple[bytes, ...] = ()
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
            )
        )

    def _timeout(self, limit: float) -> _Stop:
        """The expected sender stayed silent for ``limit`` seconds (us, or another seat)."""
        seat = self.peer.expected_sender()
        kinds = "/".join(self.peer.expected_types())
        return self._stop("timeout", seat, f"seat {seat} sent no {kinds} within {limit:g} s")

    def _violation(self, exc: SeatViolation) -> _Stop:
        return self._stop("violation", exc.seat, str(exc), exc.evidence)
