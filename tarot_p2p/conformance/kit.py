"""The kit: runs each scenario against the implementation under test, over TCP.

Theory of operation. For one scenario the kit

1. starts a hub (``net.hub``) on a free port of the address it listens on, with its host's
   identity, so the join code names the kit's host as it would a real one;
2. runs the implementation's command once, through the shell, with ``{code}`` replaced by
   the join code and ``{dir}`` by a fresh empty folder (``protocol/conformance.md``);
3. waits for its join request, seats it at the scenario's place among the kit's seats
   (:class:`~.seats.KitSeats`) and sends the set-up;
4. plays: when a kit seat is expected it asks the scenario's stage for a cheat, else sends
   the seat's honest message; when the implementation is expected it waits for its
   message and hands it to every kit seat, which checks it as our peer does. It answers
   the implementation's sync requests, and once the game is over says so with a sync
   request of each of its seats (``wire.md`` §7.2), so a peer waiting for the others
   to hold the whole game may leave. In a leave game one kit seat goes silent at its turn
   and the kit's other seats take part in its abandon as our peers do: claims after the
   forfeit time, the abandon, the release, the stand-in (``conformance.md`` §3.3);
5. after a cheat that stops the table — sent to the implementation alone, while the kit's
   seats took the honest version of that slot (a split view) — plays on honestly until
   the implementation is expected, then listens until the program exits, keeping
   everything it sent: a program that copied the table's reaction, or blamed the last
   sender, would name an honest seat;
6. reads the program's last line of output, the verdict, and holds it and what the program
   sent against the scenario: the right verdict; for a violation, the evidence passed on
   (``wire.md`` §7.5) and nothing built on the offending message; for a finished game,
   the kit's seats finished it too, with the implementation's signed score line of every
   deal among the ones they accepted (so it signed the same lines).

Everything runs in one trio nursery per scenario, the program included: when the
scenario's time is up, or the kit is interrupted, the program is stopped with it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import shlex
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.meet.lobby import JOIN, LobbyError, read_lobby_request
from tarot_p2p.net.hub import Hub, LocalLink
from tarot_p2p.protocol.codec import DecodeError
from tarot_p2p.protocol.envelope import SignedEnvelope, open_envelope
from tarot_p2p.protocol.errors import ProtocolError, UnattributedMessage
from tarot_p2p.protocol.forfeit import ClaimError
from tarot_p2p.protocol.peer import CheatExposed, Peer
from tarot_p2p.protocol.sync import SyncError, answer
from tarot_p2p.protocol.table import HandMachine
from tarot_p2p.protocol.transcript import TranscriptGap, link_digest
from tarot_p2p.rules.audit import audit_hand
from tarot_p2p.rules.config import Penalty, TableConfig
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.seat.session import HostedHub

from . import deals
from .scenarios import FINISHED, Move, Scenario
from .seats import KitSeats
from .verdict import Verdict, VerdictError

T = TypeVar("T")
GRACE = 3.0
"""Seconds the kit gives a program that has exited to close its connection, or a program
in a game that has failed to exit, before it stops listening."""
TAIL = 4
"""Lines of the program's error output shown when it gives no verdict."""


@dataclass(frozen=True, slots=True)
class Options:
    command: str
    """The implementation's command, with ``{code}`` and ``{dir}`` to fill in."""
    listen: str = "127.0.0.1"
    """The address the hub listens on and the join code names."""
    timeout: float = 60.0
    """Seconds one scenario may take, from the program's start to its verdict."""
    players: int | None = None
    """Play every cheat at this table size (``None``: each scenario's own)."""


@dataclass(frozen=True, slots=True)
class Result:
    scenario: str
    players: int
    expected: str
    observed: str
    passed: bool
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "players": self.players,
            "expected": self.expected,
            "observed": self.observed,
            "passed": self.passed,
            "seconds": round(self.seconds, 1),
        }


class KitFailure(Exception):
    """The scenario cannot go on: what went wrong, in words for the report."""


class Redraw(Exception):
    """The seat draw put the implementation last, where the kit cannot choose the deals
    its scenario needs: the game is played again on a new table."""


REDRAWS = 12
"""Tables a game that chooses its deals may take before the kit gives up (each redraw
happens with probability 1/n: twelve in a row, with odds below one in half a million)."""


@dataclass(slots=True)
class _Program:
    """The implementation's process and what it printed."""

    returncode: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    done: trio.Event = field(default_factory=trio.Event)

    async def run(self, command: str) -> None:
        try:
            done = await trio.run_process(
                command,
                shell=True,
                check=False,
                capture_stdout=True,
                capture_stderr=True,
                stdin=b"",
                start_new_session=True,
                deliver_cancel=_kill_group,
            )
            self.returncode = done.returncode
            self.stdout, self.stderr = done.stdout, done.stderr
        finally:
            self.done.set()

    def verdict(self) -> Verdict | str:
        """The verdict of the last line printed, or why there is none."""
        lines = [ln for ln in self.stdout.decode(errors="replace").splitlines() if ln.strip()]
        if not lines:
            errors = self.stderr.decode(errors="replace").strip().splitlines()[-TAIL:]
            said = f": {' / '.join(errors)}" if errors else ""
            return f"no verdict (the program ended with code {self.returncode}){said}"
        try:
            return Verdict.parse(lines[-1])
        except VerdictError as exc:
            return str(exc)


async def _kill_group(process: trio.Process) -> None:
    """Stop the program and whatever it started (it runs in a session of its own)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


class _Table:
    """One scenario's table as the kit drives it (steps 3 to 5 of the module docstring)."""

    def __init__(
        self,
        scenario: Scenario,
        config: TableConfig,
        link: LocalLink,
        table_id: bytes,
        secret: bytes,
        host: Ed25519PrivateKey,
    ) -> None:
        self.scenario = scenario
        self.config = config
        self.link = link
        self.table_id = table_id
        self.secret = secret
        self.host = host
        self.rng = DeterministicRandom(b"tarot-p2p conformance " + table_id)
        self.seats: KitSeats | None = None
        self.move: Move | None = None
        self.offence_digest: bytes | None = None
        self.offence_slot: tuple[int, int] | None = None
        """Where a cheat that stops the table was made: the implementation signs nothing
        after it."""
        self.offence_prev: bytes | None = None
        """The history the cheat was built on (what a message made before it may carry)."""
        self.offence_taken: tuple[int, int] | None = None
        """The slot of a two-version cheat whose first version the implementation takes."""
        self.early: list[bytes] = []
        """The implementation's messages that came before their slot (a parallel round's)."""
        self.exposed = False
        """The implementation's message exposed the kit's cheat (a complaint)."""
        self.redrawn = False
        """The seat draw put the implementation where the kit cannot choose the deals."""
        self.heard: list[bytes] = []
        """Every message the implementation sent (through the hub, in order)."""
        self.forfeit = float(config.forfeit_after)
        self.left: int | None = None
        """The kit seat that left the table (a leave game), once it has."""
        self.claimed = False
        """The kit's seats have claimed the silent seat absent."""

    async def seat_everyone(self) -> None:
        """Wait for the implementation's join request; seat it and send the set-up."""
        while True:
            wire = await self._receive()
            try:
                if read_lobby_request(wire, self.table_id, self.secret).kind != JOIN:
                    continue
            except LobbyError:
                continue
            seats = KitSeats(
                self.config, self.table_id, self.secret, self.scenario.member, wire, self.host
            )
            if self.scenario.plan is not None:
                seats.chooser = deals.chooser(seats, self.scenario.plan)
            self.seats = seats
            setup = seats.ref.next_message()
            assert setup is not None
            seats.deliver(setup, seats.ref)
            await self.link.send(setup)
            return

    async def play(self) -> None:
        """Play until the game ends, or until a cheat stops the table."""
        seats = self.seats
        assert seats is not None
        while (sender := seats.ref.expected_sender()) is not None and not self.exposed:
            if self.scenario.plan is not None and self._program_shuffles_last():
                raise Redraw
            peer = seats.peer_at(sender)
            if peer is None:
                await self._hear()
                continue
            if self._leaves(peer):
                await self._silence(peer)
                continue
            stage = self.scenario.stage
            bid = self.scenario.bid if self.move is None else None
            if self.move is None and stage is not None:
                move = await _work(stage, seats, peer, self.rng)
                if move is not None:
                    await self._cheat(move, peer, bid)
                    continue
            wire = await _work(seats.honest, peer, bid)
            seats.deliver(wire, peer)
            await self.link.send(wire)
        if self.exposed:
            return
        # Over: each seat says it holds the whole game (wire.md §7.2).
        for peer in seats.peers.values():
            await self.link.send(peer.sync_request())

    def _leaves(self, peer: Peer) -> bool:
        """Whether ``peer`` goes silent now (the scenario's leave, once a game)."""
        leaves = self.scenario.leaves
        seats = self.seats
        assert seats is not None
        return self.left is None and leaves is not None and leaves(seats, peer)

    async def _silence(self, peer: Peer) -> None:
        """``peer`` leaves: it sends nothing more. The kit hears the implementation until
        the silent seat's abandon is in the transcript (``table.md`` §3.1): after the
        table's forfeit time each other kit seat signs its claim, and the lowest present
        seat, once it holds every claim (the implementation's too), sends the abandon —
        the kit's seat, or the implementation, which then must. The silent peer keeps
        following the table (it gets every message), so the kit's view stays whole; it is
        never expected again in that hand."""
        seats = self.seats
        assert seats is not None and peer.seat is not None
        self.left = peer.seat
        head = seats.ref.transcript.head
        claim_at = trio.current_time() + self.forfeit
        while seats.ref.transcript.head == head:
            wire = None
            with trio.move_on_at(claim_at):  # the wait only: a message is handled whole
                wire = await self._receive()
            if wire is not None:
                await self._take(wire)
            if not self.claimed and trio.current_time() >= claim_at:
                self.claimed = True
                for claimer in seats.others(peer):
                    wire = claimer.forfeit_claim()
                    if wire is None:
                        raise KitFailure("the kit's seats could not claim the silent seat")
                    for other in seats.others(claimer):
                        other.read_forfeit_claim(wire)
                    await self.link.send(wire)
                await self._abandon()

    async def _abandon(self) -> None:
        """The ``abandon``, when a kit seat is the one to send it and holds every claim."""
        seats = self.seats
        assert seats is not None
        speaker = seats.ref.hand.present_speaker()
        peer = None if speaker is None else seats.peer_at(speaker)
        wire = None if peer is None else peer.abandon()
        if wire is not None:
            seats.deliver(wire, peer)
            await self.link.send(wire)

    def _program_shuffles_last(self) -> bool:
        """Whether the seats are drawn and the implementation's is the last (deals.py)."""
        seats = self.seats
        assert seats is not None
        return seats.ref.hand.hand >= 1 and seats.iut_seat() == self.config.seats - 1

    async def _cheat(self, move: Move, peer: Peer, bid: Contract | None) -> None:
        """Make ``move``: a cheat that stops the table reaches the implementation alone,
        while the kit's seats take the honest version of the slot (or nothing) and play on
        (the split view of ``conformance.md`` §1); one the table plays on with reaches
        everyone. A cheat that takes a slot is made only where a kit seat other than the
        cheater speaks next, so that the implementation hears honest traffic after it
        before it is expected itself; elsewhere the seat plays honestly and the cheat waits
        for a later turn."""
        seats = self.seats
        assert seats is not None
        if move.stops and move.split and move.replaces:
            honest = move.delivered
            if honest is None:
                honest = await _work(seats.honest, peer, bid)
            seats.deliver(honest, peer)
            after = seats.ref.expected_sender()
            follower = None if after is None else seats.peer_at(after)
            if follower is None or follower is peer:
                await self.link.send(honest)  # no cheat here: the seat played honestly
                return
        elif move.delivered is not None:
            seats.deliver(move.delivered)  # the cheater too, when it did not apply it
            if move.stops:  # the implementation's own next message must show the cheat
                self.move = move
                await self.link.send(move.delivered)
                return
        self.move = move
        if move.offence is not None:
            env = open_envelope(move.offence, table_id=self.table_id, roster=None)
            self.offence_digest = link_digest(env.prev, env.payload)
            self.offence_prev = env.prev
            taken = move.delivered
            if taken is not None and move.offence != taken:
                first = open_envelope(taken, table_id=self.table_id, roster=None)
                if first.slot == env.slot:
                    # Two versions of one slot: until the second reaches it, the program
                    # may build on the first (a parallel round's next message, made at once).
                    self.offence_taken = first.slot
            if move.stops:
                self.offence_slot = env.slot
        for wire in move.wires:
            await self.link.send(wire)

    async def listen(self) -> None:
        """Keep hearing the implementation, and answering its requests, until cancelled."""
        while True:
            await self._hear(apply=False)

    async def drain(self) -> None:
        """Take what the hub still holds for the kit."""
        while True:
            with trio.move_on_after(0.05) as waiting:
                await self._receive()
            if waiting.cancelled_caught:
                return

    async def _receive(self) -> bytes:
        wire = await self.link.receive()
        self.heard.append(wire)
        return wire

    async def _hear(self, *, apply: bool = True) -> None:
        """One message from the implementation: a sync request is answered; a message is
        checked by every kit seat while ``apply`` (the table is being played). Its messages
        that came early (a parallel round's, ``table.md`` §1.4) are tried first."""
        seats = self.seats
        if apply and seats is not None and self.early:
            head = seats.ref.transcript.head
            early, self.early = self.early, []
            for wire in early:
                await self._take(wire)
            if seats.ref.transcript.head != head:
                return
        await self._take(await self._receive(), apply=apply)

    def _after(self, env: SignedEnvelope) -> bool:
        """Whether the implementation's ``env`` was built on a history past the cheat's:
        a message of a parallel round carries the round's base, one of the next hand's
        opening a history that stops at this hand's first message, and one made before the
        cheat came is no sign of going on (``table.md`` §1.4, §1.6)."""
        seats = self.seats
        assert seats is not None and self.offence_prev is not None
        ref = seats.ref.transcript
        limit = ref.position(self.offence_prev) or 0
        if self.offence_taken is not None:
            limit = next((i + 1 for i, e in enumerate(ref) if e.slot == self.offence_taken), limit)
        return ref.includes(env.prev, limit) is not False

    async def _take(self, wire: bytes, *, apply: bool = True) -> None:
        """Handle ``wire``, heard from the implementation (see :meth:`_hear`)."""
        seats = self.seats
        assert seats is not None
        ref = seats.ref
        try:
            request = ref.read_sync_request(wire)
        except SyncError:
            request = None
        if request is not None:
            for record in answer(ref.transcript, request):
                await self.link.send(record)
            return
        if self.left is not None and await self._claim(wire):
            return
        env = _envelope(wire, self.table_id)
        if env is None or not apply or not self._signed_by_it(env):
            return  # messages of others it passes on are kept in `heard` (the evidence)
        if self.offence_digest is not None and env.prev == self.offence_digest:
            raise KitFailure(f"it sent a {env.kind!r} message built on the cheat")
        if self.offence_slot is not None and env.slot > self.offence_slot and self._after(env):
            raise KitFailure(
                f"it went on after the cheat: it signed a {env.kind!r} message (a violation "
                "ends the table, table.md 5)"
            )
        try:
            await _work(seats.deliver, wire)
        except TranscriptGap:
            self.early.append(wire)  # kept, as our peer does (wire.md 7.3)
            return
        except UnattributedMessage:
            return  # ignored, as our peer does (wire.md 3.3)
        except CheatExposed as exc:
            move = self.move
            if move is None or not move.stops or exc.seat != move.expected.seat:
                raise KitFailure(
                    f"its {env.kind!r} message exposed no cheat of the kit's"
                ) from None
            self.exposed = True  # its message showed the cheat, as it must: the table stops
        except ProtocolError as exc:
            raise KitFailure(f"the kit's seats refused its {env.kind!r} message: {exc}") from None

    async def _claim(self, wire: bytes) -> bool:
        """Whether ``wire`` is a forfeit claim. Every kit seat takes it (each keeps the
        claims of the slot it waits at); the implementation's may complete the abandon."""
        seats = self.seats
        assert seats is not None
        try:
            seats.ref.read_forfeit_claim(wire)
        except ClaimError:
            return False
        for peer in seats.others(seats.ref):
            peer.read_forfeit_claim(wire)
        await self._abandon()
        return True

    def _signed_by_it(self, env: SignedEnvelope) -> bool:
        """Whether ``env`` claims the implementation as its sender (its member index in
        hand 0, its seat after)."""
        seats = self.seats
        assert seats is not None
        if env.hand == 0:
            return env.seat == seats.member
        return env.seat == seats.ref.seat_of_member(seats.member)

    def built_on_the_cheat(self) -> bool:
        return self.offence_digest is not None and any(
            env is not None and env.prev == self.offence_digest
            for env in (_envelope(w, self.table_id) for w in self.heard)
        )


def _envelope(wire: bytes, table_id: bytes) -> SignedEnvelope | None:
    """``wire`` read as an envelope of this table, signature unchecked (``None``: none)."""
    try:
        return open_envelope(wire, table_id=table_id, roster=None)
    except (ProtocolError, DecodeError):
        return None


async def _work(fn: Callable[..., T], *args: Any) -> T:
    """Protocol work (shuffles, proofs) off the event loop, so the hub keeps relaying."""
    return await trio.to_thread.run_sync(fn, *args)


async def run_scenario(scenario: Scenario, options: Options) -> Result:
    """Play ``scenario`` against the implementation and judge it."""
    players = scenario.size(options.players)
    started = time.monotonic()
    for _ in range(REDRAWS):
        result = await _run_table(scenario, options, players, started)
        if result is not None:
            return result
    seconds = time.monotonic() - started
    observed = f"the seat draw put the program last {REDRAWS} times"
    return Result(scenario.name, players, scenario.expects, observed, False, seconds)


async def _run_table(
    scenario: Scenario, options: Options, players: int, started: float
) -> Result | None:
    """One table of ``scenario`` (``None``: drawn again)."""
    table_id, secret = secrets.token_bytes(32), secrets.token_bytes(16)
    host = Ed25519PrivateKey.generate()
    hub = Hub(host, table_id, secret)  # the kit host's identity: the join code names it
    hosted = HostedHub(hub)
    table = _Table(scenario, scenario.config(players), hub.local_link(), table_id, secret, host)
    program = _Program()
    failure: str | None = None
    with tempfile.TemporaryDirectory(prefix="tarot-p2p-conformance-") as folder:
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(hosted.serve, options.listen, 0)
            port = listeners[0].socket.getsockname()[1]
            code = hub.join_code(options.listen, port).encode()
            command = options.command.replace("{code}", shlex.quote(code))
            nursery.start_soon(program.run, command.replace("{dir}", shlex.quote(folder)))
            timeout = options.timeout + (0 if scenario.leaves is None else table.forfeit)
            with trio.move_on_after(timeout) as clock:
                failure = await _drive(table, program, hosted)
            if table.redrawn:
                nursery.cancel_scope.cancel()  # the program is stopped with the table
                return None
            if clock.cancelled_caught:
                failure = f"no verdict within {timeout:g} s"
            nursery.cancel_scope.cancel()
    return _judge(table, program, failure, players, time.monotonic() - started)


async def _drive(table: _Table, program: _Program, hosted: HostedHub) -> str | None:
    """Seat, play, then listen until the program has stopped; what went wrong on the
    kit's side, if anything. A program that stops mid-game leaves the kit waiting for it:
    the wait ends a little after."""
    failure: str | None = None
    async with trio.open_nursery() as nursery:

        async def watch() -> None:
            await program.done.wait()
            with trio.move_on_after(GRACE):
                await hosted.wait_empty()
            nursery.cancel_scope.cancel()

        nursery.start_soon(watch)
        try:
            await table.seat_everyone()
            await table.play()
            await table.listen()
        except KitFailure as exc:
            failure = str(exc)  # the game has failed: the program gets a moment to stop
            with trio.move_on_after(GRACE):
                await program.done.wait()
            nursery.cancel_scope.cancel()
        except Redraw:
            table.redrawn = True
            nursery.cancel_scope.cancel()
            return None
    await table.drain()
    return failure


def _judge(
    table: _Table, program: _Program, failure: str | None, players: int, seconds: float
) -> Result:
    scenario, move = table.scenario, table.move
    expected: Verdict | None = FINISHED if scenario.stage is None else None
    if move is not None:
        expected = move.expected
    verdict = program.verdict()
    problems = [failure] if failure else []
    if expected is None and not failure and table.seats is not None:
        problems.append("the kit found no deal that allowed its cheat")
    if (
        scenario.leaves is not None
        and table.left is None
        and not failure
        and table.seats is not None
    ):
        problems.append("the kit's seat found no moment to leave the table")
    if expected is not None and verdict == expected:
        problems += _wire_problems(table, expected)
    # A program the kit had to stop printed nothing worth showing beside why it was stopped.
    silent = failure is not None and str(verdict).startswith("no verdict")
    observed = "; ".join([*([] if silent else [str(verdict)]), *problems])
    passed = isinstance(verdict, Verdict) and verdict == expected and not problems
    shown = scenario.expects if expected is None else str(expected)
    return Result(scenario.name, players, shown, observed, passed, seconds)


def _wire_problems(table: _Table, expected: Verdict) -> list[str]:
    """What the implementation sent that contradicts its (right) verdict."""
    problems: list[str] = []
    move, seats = table.move, table.seats
    if move is not None:
        if any(w not in table.heard for w in move.evidence):
            problems.append("it did not pass the evidence on (wire.md 7.5)")
        if table.built_on_the_cheat():
            problems.append("it sent a message built on the cheat")
        if move.audited is not None:
            hand, cheater = move.audited
            audit = hand.audit
            if audit is None or not audit.offences or audit.offences[0].seat != cheater:
                problems.append("the kit's own audit did not name its cheater")
            elif audit.returns == _as_played(hand):
                problems.append("the kit's deal let the audit leave the score line as it was")
    if expected.end == "finished" and seats is not None:
        ref = seats.ref
        if ref.expected_sender() is not None:
            problems.append("the kit's seats did not see the game end")
        elif ref.sheet is not None:
            seat = seats.iut_seat()
            signed = {e.hand for e in ref.transcript if e.kind == "score" and e.seat == seat}
            missing = [h for h in range(1, len(ref.sheet.lines) + 1) if h not in signed]
            if missing:
                problems.append(f"its score line of deal {missing[0]} is missing")
    return problems


def _as_played(hand: HandMachine) -> tuple[int, ...]:
    """The hand's score line without the audit's penalty (what a program that skips the
    audit signs)."""
    record = hand.record()
    config = dataclasses.replace(record.config, penalty=Penalty.REPORT_ONLY)
    return audit_hand(dataclasses.replace(record, config=config)).returns


async def run_kit(
    scenarios: list[Scenario],
    options: Options,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Every scenario in turn (``on_result`` hears each result as it comes)."""
    results = []
    for scenario in scenarios:
        result = await run_scenario(scenario, options)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


TABLE_HEADER = f"{'game':<22} {'expected':<26} {'observed':<26} result"


def table_row(result: Result) -> str:
    """One line of the pass/fail table: game, expected, observed, PASS or FAIL."""
    name = f"{result.scenario} ({result.players})"
    mark = "PASS" if result.passed else "FAIL"
    return f"{name:<22} {result.expected:<26} {result.observed:<26} {mark}"
