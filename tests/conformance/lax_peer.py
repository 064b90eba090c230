"""Deliberately wrong adapters, so that the kit's checks are seen to fail.

    python3 tests/conformance/lax_peer.py MODE CODE FOLDER

The first three play exactly as our adapter does (``clients/conformance_peer.py``), then
lie: ``finished`` says the game finished whatever happened; ``wrong-seat`` names, for a
violation, the seat after the one our peer named; ``keeps-evidence`` gives the right
verdict but never passes a received message on (the evidence ``wire.md`` §7.5 asks for).

The others are the lax programs of issue 19, which the kit must fail in every game built
for what they skip:

``lax``
    checks no signature and no proof (key shares, shuffles, decryption shares, escrows,
    released pieces), echoes every message it gets, and, when the table has been quiet for
    a few seconds without the game being over, blames the last sender for the last kind of
    message it got: a program that copies the table's reaction instead of finding the
    cheat. At a table whose forfeit time a game can wait out (the kit's leave games) it
    waits that long too before it calls the table quiet, so it takes part in an absence
    as our peer does and fails a cheat made after one for what it skips, not for leaving.
``no-audit``
    checks everything as it arrives but skips the end-of-hand audit (it scores every hand
    as played, with no penalty).
``builds-on``
    checks everything, but when it finds a violation it drops the offending message and
    plays on (the other version of the slot, the next hand's keys...) as if nothing had
    happened.
``own-stand-in``
    checks everything, but when a seat has left, its stand-in plays the last legal move
    instead of the one ``table.md`` §3.2 names: a program that finishes the hand its own
    way, not as every peer computes it.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients"))

import conformance_peer

from tarot_p2p.conformance.verdict import Verdict, verdict_of
from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.net.link import MessageLink
from tarot_p2p.protocol import envelope, peer, table
from tarot_p2p.protocol.codec import DecodeError
from tarot_p2p.protocol.errors import ProtocolError, SeatViolation
from tarot_p2p.rules.config import Penalty

QUIET = 6.0
"""Seconds without a message after which ``lax`` gives its verdict."""
SHORT_FORFEIT = 60
"""A forfeit time up to this many seconds is waited out before the table counts as quiet."""


class KeepsEvidence:
    """A link that sends our own messages only: nothing it received goes out again."""

    def __init__(self, inner: MessageLink) -> None:
        self.inner = inner
        self.heard: set[bytes] = set()

    async def send(self, message: bytes) -> None:
        if message not in self.heard:
            await self.inner.send(message)

    async def receive(self) -> bytes:
        message = await self.inner.receive()
        self.heard.add(message)
        return message

    async def aclose(self) -> None:
        await self.inner.aclose()


class _AnyKey:
    """A public key that takes every signature."""

    def verify(self, signature: bytes, data: bytes) -> None:
        return None


def _no_checks() -> None:
    """No signature, no proof: every key share, shuffle, share list and escrow is taken."""
    opened = envelope.open_envelope

    def open_unsigned(wire: bytes, *, table_id: bytes, roster: Any, **kw: Any) -> Any:
        lax = None if roster is None else dict.fromkeys(roster, _AnyKey())
        return opened(wire, table_id=table_id, roster=lax, **kw)

    peer.open_envelope = open_unsigned  # type: ignore[assignment]

    def nothing(*args: Any, **kwargs: Any) -> None:
        return None

    table.verify_key = nothing  # type: ignore[assignment]
    table.verify_shuffle = nothing  # type: ignore[assignment]
    table.verify_shares = nothing  # type: ignore[assignment]
    table.check_escrow = nothing  # type: ignore[assignment]
    table.check_release = nothing  # type: ignore[assignment]


def _no_audit() -> None:
    """Every hand scored as played: the audit's offences cost nothing."""
    audited = table.audit_hand

    def as_played(record: Any) -> Any:
        config = dataclasses.replace(record.config, penalty=Penalty.REPORT_ONLY)
        return audited(dataclasses.replace(record, config=config))

    table.audit_hand = as_played  # type: ignore[assignment]


def _builds_on() -> None:
    """A violation found is a message dropped, and the game goes on without it."""
    receive = peer.Peer.receive

    def regardless(self: peer.Peer, wire: bytes) -> Any:
        try:
            return receive(self, wire)
        except SeatViolation:
            return []

    peer.Peer.receive = regardless  # type: ignore[method-assign]


class _Table:
    """What the lax programs hear: every message read from the link as it comes (not only
    when the peer asks), echoed once, and the last sender and kind of message noted."""

    def __init__(self, inner: MessageLink, table_id: bytes) -> None:
        self.inner = inner
        self.table_id = table_id
        self.last: tuple[int, str] | None = None
        self.heard_at = trio.current_time()
        self.echoed: set[bytes] = set()
        self.send_in, self.receive_out = trio.open_memory_channel[bytes](1 << 12)

    async def read(self) -> None:
        while True:
            try:
                wire = await self.inner.receive()
            except Exception:
                return
            self.heard_at = trio.current_time()
            try:
                env = envelope.open_envelope(wire, table_id=self.table_id, roster=None)
                self.last = (env.seat, env.kind)
            except (ProtocolError, DecodeError):
                pass
            if wire not in self.echoed:
                self.echoed.add(wire)
                await self.inner.send(wire)
            self.send_in.send_nowait(wire)

    def link(self) -> MessageLink:
        outer = self

        class Inner:
            async def send(self, message: bytes) -> None:
                outer.heard_at = trio.current_time()
                await outer.inner.send(message)

            async def receive(self) -> bytes:
                return await outer.receive_out.receive()

            async def aclose(self) -> None:
                return None

        return Inner()


async def _lax(code: JoinCode, folder: Path) -> Verdict:
    """Play with the checks off; the verdict is the last sender's, once the table is quiet."""
    heard: dict[str, _Table] = {}
    dial = conformance_peer.connect

    async def connect(code: JoinCode, identity: Ed25519PrivateKey) -> MessageLink:
        heard["table"] = _Table(await dial(code, identity), code.table_id)
        nursery.start_soon(heard["table"].read)
        return heard["table"].link()

    conformance_peer.connect = connect
    seated = conformance_peer.play_seat
    quiet = [QUIET]

    async def play_seat(seat: peer.Peer, *args: Any, **kwargs: Any) -> Any:
        forfeit = seat.config.forfeit_after
        if forfeit <= SHORT_FORFEIT:
            quiet[0] = forfeit + QUIET
        return await seated(seat, *args, **kwargs)

    conformance_peer.play_seat = play_seat
    finished: list[bool] = []

    async def play() -> None:
        try:
            outcome = await conformance_peer.play(code, folder)
            finished.append(outcome.abort is None)
        except Exception:
            finished.append(False)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(play)
        while not (finished and finished[0]):
            await trio.sleep(0.2)
            seen = heard.get("table")
            if seen is not None and trio.current_time() - seen.heard_at > quiet[0]:
                break
        nursery.cancel_scope.cancel()
    seen = heard.get("table")
    if finished and finished[0]:
        return Verdict("finished")
    if seen is None or seen.last is None:
        return Verdict("disconnected")
    return Verdict("violation", *seen.last)


def _own_stand_in() -> None:
    """The silent seat's moves are the engine's last legal ones of the kind the stand-in
    would make (another card, another bid), not the stand-in's."""
    rule = table.stand_in_action

    def last_legal(engine: Any) -> Any:
        chosen = rule(engine)
        legal = [x for x in engine.legal_actions() if type(x) is type(chosen)]
        return next((x for x in reversed(legal) if x != chosen), chosen)

    table.stand_in_action = last_legal  # type: ignore[assignment]


MODES: Mapping[str, Callable[[], None]] = {
    "lax": _no_checks,
    "no-audit": _no_audit,
    "builds-on": _builds_on,
    "own-stand-in": _own_stand_in,
}


def main() -> int:
    mode, text, folder = sys.argv[1:4]
    code = JoinCode.decode(text)
    if mode in MODES:
        MODES[mode]()
    if mode == "lax":
        print(trio.run(_lax, code, Path(folder)).line(), flush=True)
        return 0
    if mode == "keeps-evidence":
        dial = conformance_peer.connect

        async def connect(code: JoinCode, identity: Ed25519PrivateKey) -> MessageLink:
            return KeepsEvidence(await dial(code, identity))

        conformance_peer.connect = connect
    outcome = trio.run(conformance_peer.play, code, Path(folder))
    verdict = verdict_of(outcome, code.table_id)
    if mode == "finished":
        verdict = Verdict("finished")
    elif mode == "wrong-seat" and verdict.seat is not None and outcome.peer is not None:
        verdict = Verdict(
            verdict.end, (verdict.seat + 1) % outcome.peer.config.seats, verdict.offence
        )
    print(verdict.line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
