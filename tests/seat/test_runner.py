"""The runner's ends other than a normal game: silence, junk on the wire, a crash; and the
``demo`` command as a user runs it.

Timing tests run on trio's autojump clock with every seat on an in-process hub link (a
socket wait would look idle to the clock) and the runner's thread offload off.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.files.transcripts import TranscriptStore
from tarot_p2p.meet.lobby import join_request
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.link import MessageLink, connect
from tarot_p2p.protocol.audit_render import render
from tarot_p2p.protocol.audit_report import Status, audit_file
from tarot_p2p.protocol.envelope import open_envelope, seal
from tarot_p2p.protocol.errors import UnattributedMessage
from tarot_p2p.protocol.peer import Peer, PeerEvent, replay_file, secrets_cover
from tarot_p2p.protocol.transcript import read_frames
from tarot_p2p.rules.actions import PASS
from tarot_p2p.rules.sheet import LineKind
from tarot_p2p.seat.runner import (
    NOTICE_EVERY,
    Decision,
    Notice,
    Policy,
    TableRunner,
    Timeouts,
)
from tests.net.links import PassThrough
from tests.net.test_game import (
    SECRET,
    TABLE_ID,
    Game,
    Seat,
    assert_agreement,
    identity,
    joined,
    local_game,
    one_deal,
    sit,
    tcp_hub,
)

SHORT = Timeouts(message=30, decision=90)


class Silent:
    """A player who never makes up his mind (asked ``asked`` times, every question
    withdrawn so far when ``withdrawn`` equals it); keeps what the runner tells him."""

    def __init__(self) -> None:
        self.asked = 0
        self.withdrawn = 0
        self.notices: list[tuple[float, Notice]] = []

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        self.asked += 1
        try:
            await trio.sleep_forever()
        finally:
            self.withdrawn += 1
        raise AssertionError("unreachable")

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None

    async def notice(self, peer: Peer, notice: Notice) -> None:
        self.notices.append((trio.current_time(), notice))


class Passing:
    """A bot that passes whenever it may (so that a deal is void whatever the cards)."""

    def __init__(self, seed: int) -> None:
        self.bot = BotPolicy(seed)

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        if PASS in peer.legal_actions():
            return PASS
        return await self.bot.decide(peer, refused)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None


class Told:
    """A bot that keeps what the runner tells it while it waits."""

    def __init__(self, seed: int) -> None:
        self.bot = BotPolicy(seed)
        self.notices: list[tuple[float, Notice]] = []

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        return await self.bot.decide(peer, refused)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None

    async def notice(self, peer: Peer, notice: Notice) -> None:
        self.notices.append((trio.current_time(), notice))


class Crash(Exception):
    pass


class CrashAt:
    """A bot whose process dies at its ``n``-th decision."""

    def __init__(self, n: int) -> None:
        self.left = n
        self.bot = BotPolicy(0)

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        self.left -= 1
        if not self.left:
            raise Crash
        return await self.bot.decide(peer, refused)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None


async def play_local(
    players: int,
    policies: list[Policy],
    data_dir: Path,
    seed: str,
    timeouts: Timeouts = SHORT,
    deals: int = 1,
    wrap: Callable[[int, MessageLink], MessageLink] = lambda i, link: link,
) -> Game:
    """A game with every seat on the hub's in-process link (for the mock clock); seat
    ``i`` uses ``wrap(i, link)``."""
    keys = [identity(seed, i) for i in range(players)]
    hub = Hub(keys[0], TABLE_ID, SECRET)
    game = local_game(keys, policies, hub)

    async def guarded(i: int) -> None:
        with contextlib.suppress(Crash):  # the crashed seat's files stay as they are
            config = replace(one_deal(players), game_length=deals)
            await sit(game, i, wrap(i, hub.local_link()), config, data_dir, timeouts)

    async with trio.open_nursery() as nursery:
        for i in range(players):
            nursery.start_soon(guarded, i)
            await joined(hub, i)
        # A seat stuck forever (Silent) is released once every other seat has stopped.
        while (
            sum(s.outcome is not None for s in game.seats) < players - 1
            or len(game.peers) < players
        ):
            await trio.sleep(1)
        await trio.sleep(1)
        nursery.cancel_scope.cancel()
    return game


async def test_a_seat_that_never_speaks_is_timed_out_and_named(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    keys = [identity("silent", i) for i in range(4)]
    hub = Hub(keys[0], TABLE_ID, SECRET)
    game = Game([Seat(k, f"P{i}", BotPolicy(i)) for i, k in enumerate(keys)], hub, None, None)
    mute = hub.local_link()
    await mute.send(
        join_request(keys[3], "P3", TABLE_ID, SECRET)
    )  # asks for a seat, then goes quiet
    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        for i in range(3):
            nursery.start_soon(sit, game, i, hub.local_link(), one_deal(4), tmp_path, SHORT)
            await joined(hub, i + 1)
    assert trio.current_time() - start >= SHORT.message
    member = game.peers[0].table.setup.roster.index(keys[3].public_key().public_bytes_raw())
    for seat in game.seats[:3]:
        assert seat.outcome is not None and seat.files is not None
        abort = seat.outcome.abort
        assert abort is not None and abort.kind == "absence" and abort.seat == member
        assert abort.hand == 0 and abort.expected_types == ("key",)
        record = json.loads(seat.files.abort.read_text())
        assert record["seat"] == member and record["kind"] == "absence"
    transcripts = {s.files.transcript.read_bytes() for s in game.seats[:3] if s.files}
    assert len(transcripts) == 1


class StuckAfter(PassThrough):
    """A link whose sending blocks forever after its first ``n`` messages (a hub that no
    longer reads them)."""

    def __init__(self, inner: MessageLink, n: int) -> None:
        super().__init__(inner)
        self.left = n

    async def send(self, message: bytes) -> None:
        if not self.left:
            await trio.sleep_forever()
        self.left -= 1
        await self.inner.send(message)


async def test_a_send_that_never_completes_ends_as_a_lost_link(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    keys = [identity("stuck", i) for i in range(3)]
    hub = Hub(keys[0], TABLE_ID, SECRET)
    game = Game([Seat(k, f"P{i}", BotPolicy(i)) for i, k in enumerate(keys)], hub, None, None)
    with trio.fail_after(10 * SHORT.decision):  # fail, not hang, if the stuck seat waits on
        async with trio.open_nursery() as nursery:
            for i in range(3):
                link: MessageLink = hub.local_link()
                if i == 2:
                    link = StuckAfter(link, 1)  # the join request goes, nothing after it
                nursery.start_soon(sit, game, i, link, one_deal(3), tmp_path, SHORT)
                await joined(hub, i)
    stuck = game.seats[2]
    assert stuck.outcome is not None and stuck.outcome.abort is not None
    assert (stuck.outcome.abort.kind, stuck.outcome.abort.seat) == ("disconnected", None)
    member = game.peers[0].table.setup.roster.index(keys[2].public_key().public_bytes_raw())
    for seat in game.seats[:2]:
        assert seat.outcome is not None and seat.outcome.abort is not None
        assert (seat.outcome.abort.kind, seat.outcome.abort.seat) == ("absence", member)


async def test_a_player_who_never_decides_has_his_hand_played_by_the_stand_in(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """Past the forfeit time the three others claim him absent, the lowest of them sends
    the abandon with their three signed claims, they release his key, his stand-in plays
    his hand (here it passes, as everybody does: a void deal), they sign its line, and the
    game ends (``Abandon.END``) with a sheet that names him. Nobody is called a cheat."""
    policies: list[Policy] = [Passing(0), Passing(1), Silent(), Passing(3)]
    start = trio.current_time()
    game = await play_local(4, policies, tmp_path, "mute")
    config = one_deal(4)
    assert trio.current_time() - start >= config.forfeit_after
    silent = game.seats[2].peer
    assert silent is not None and silent.hand.hand == 1 and silent.seat is not None
    sheets = set()
    for seat in (game.seats[0], game.seats[1], game.seats[3]):
        assert seat.outcome is not None and seat.outcome.abort is None and seat.outcome.finished
        assert seat.peer is not None and seat.peer.sheet is not None
        (line,) = seat.peer.sheet.lines
        assert line.kind is LineKind.ALL_PASS and "P2's hand played by the stand-in" in line.note
        sheets.add(seat.files.sheet.read_text() if seat.files else "")
        kinds = [e.kind for e in seat.peer.transcript if e.hand == 1]
        after = kinds[kinds.index("abandon") :]
        assert after[:4] == ["abandon", *["release"] * 3] and after[-3:] == ["score"] * 3
        assert set(after[4:-3]) <= {"action"}  # the passes of the seats after his
    # The silent seat's own program heard the others all along: their abandon withdrew its
    # question (no prompt stays live), it followed the stand-in's play and ends the game
    # with the same files as everyone.
    own = game.seats[2].outcome
    assert own is not None and own.finished and own.abort is None
    mute = policies[2]
    assert isinstance(mute, Silent) and mute.asked == mute.withdrawn == 1
    transcripts = {s.files.transcript.read_bytes() for s in game.seats if s.files}
    assert len(transcripts) == 1
    report = audit_file(transcripts.pop())
    assert report.status is Status.VALID and report.sheet is not None
    assert report.sheet.lines[0].kind is LineKind.ALL_PASS
    assert report.hands[1].abandoned == silent.seat
    assert "the stand-in played P2's hand" in render(report)


class LateOnce:
    """A bot that once, on a decision following another seat's message, thinks for the
    decision timeout less ``margin`` seconds."""

    def __init__(self, seed: int, margin: float) -> None:
        self.bot = BotPolicy(seed)
        self.margin = margin
        self.late = False

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        last = list(peer.transcript)[-1]
        if not self.late and last.hand > 0 and last.seat != peer.seat:
            self.late = True
            await trio.sleep(SHORT.decision - self.margin)
        return await self.bot.decide(peer, refused)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None


async def test_a_message_received_in_time_is_applied_though_checking_it_ends_late(
    autojump_clock: trio.testing.MockClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checking = 4.0

    async def slow_checks(self: TableRunner, fn: Callable[..., Any], *args: Any) -> Any:
        # Received messages take ``checking`` seconds to verify, and, like the worker
        # thread of the real runner, that work is not interrupted by a cancellation.
        if getattr(fn, "__name__", "") == "receive":
            with trio.CancelScope(shield=True):
                await trio.sleep(checking)
        await trio.lowlevel.checkpoint()
        return fn(*args)

    monkeypatch.setattr(TableRunner, "_run", slow_checks)
    # The seat that sent the last message started waiting at once, the late seat only after
    # checking that message: so its decision reaches that seat half a check before the
    # deadline, and is checked until half a check after it.
    policies: list[Policy] = [LateOnce(i, margin=1.5 * checking) for i in range(3)]
    # No sync requests: every message, even a duplicate, costs ``checking`` here.
    quiet = Timeouts(SHORT.message, SHORT.decision, nudge=SHORT.decision)
    game = await play_local(3, policies, tmp_path, "late", quiet)
    for seat in game.seats:
        assert seat.outcome is not None and seat.outcome.abort is None, seat.outcome
    assert all(isinstance(p, LateOnce) and p.late for p in policies)
    assert_agreement(game)


async def test_a_crash_keeps_every_accepted_message(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    crasher = CrashAt(1)
    game = await play_local(3, [BotPolicy(0), crasher, BotPolicy(2)], tmp_path, "crash")
    seat = game.seats[1]
    assert seat.outcome is None and seat.peer is not None and seat.files is not None
    accepted = len(seat.peer.transcript)
    path = seat.files.transcript
    with path.open("ab") as handle:  # and the crash tore the record being written
        handle.write((500).to_bytes(4, "big") + b"partial")
    store, transcript = TranscriptStore.resume(path)
    store.close()
    assert len(transcript) == accepted and transcript.head == seat.peer.transcript.head
    data = path.read_bytes()
    replay = replay_file(data)
    assert replay.error is None and replay.accepted == accepted and not replay.torn_tail
    # The other seats held the same messages, then finished the hand with its stand-in.
    for other in (game.seats[0], game.seats[2]):
        assert other.outcome is not None and other.outcome.finished
        assert other.peer is not None and other.peer.sheet is not None
        assert "played by the stand-in" in other.peer.sheet.lines[-1].note
        assert other.files is not None and other.files.transcript.read_bytes().startswith(data)
    # The seat's saved secrets let it take its place again, cards and all.
    resumed = Peer.resume(
        data,
        seat.files.secrets.read_bytes(),
        identity=seat.identity,
        rng=DeterministicRandom(b"again"),
    )
    assert resumed.transcript.head == seat.peer.transcript.head
    assert resumed.seat == seat.peer.seat and resumed.my_cards() == seat.peer.my_cards()
    assert resumed.my_turn() and resumed.legal_actions() == seat.peer.legal_actions()


async def test_a_kill_after_any_secrets_write_leaves_files_the_seat_resumes_from(
    autojump_clock: trio.testing.MockClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill -9 may come right after the runner writes a seat's secrets: the transcript
    file as it then stands and those secrets must resume. (A seat whose own score signature
    ended a hand once wrote the next hand's secrets before that signature reached its
    transcript, and could not take its seat back.)"""
    kept: list[tuple[bytes, bytes, int, int]] = []
    write = TableRunner._save_secrets

    async def save_and_keep(self: TableRunner) -> None:
        await write(self)
        if self.files.secrets.exists():
            hand = self.peer.hand.hand
            disk = (self.files.transcript.read_bytes(), self.files.secrets.read_bytes())
            member = self.peer.member
            assert member is not None
            kept.append((*disk, member, hand))

    monkeypatch.setattr(TableRunner, "_save_secrets", save_and_keep)
    policies: list[Policy] = [BotPolicy(i) for i in range(3)]
    game = await play_local(3, policies, tmp_path, "kill", deals=2)
    assert all(s.outcome is not None and s.outcome.finished for s in game.seats)
    assert {hand for *_, hand in kept} >= {1, 2}  # across the end of a hand
    for data, secrets, member, _hand in kept:
        if read_frames(data).records:  # (before the set-up the table is joined again)
            key = game.seats[member].identity
            Peer.resume(data, secrets, identity=key, rng=DeterministicRandom(b"again"))


async def test_secrets_are_written_only_when_a_resumed_seat_needs_more(
    autojump_clock: trio.testing.MockClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before each message of ours the secrets file serves a resumed seat as well as the
    peer's current secrets (table.md §7), and it is not written again when it already did:
    our key share made ahead and taken in since (a parallel round's) is no reason to put
    two fsyncs in front of our shuffle."""
    checked: list[tuple[int, int]] = []
    written: dict[int, list[bytes]] = {}
    save = TableRunner._save_secrets

    async def save_and_check(self: TableRunner) -> None:
        member = self.peer.member
        assert member is not None
        before = self.files.secrets.read_bytes() if self.files.secrets.exists() else b""
        await save(self)
        after = self.files.secrets.read_bytes()
        current = self.peer.export_secrets()
        assert after == current or secrets_cover(after, current)
        if after != before:
            assert not secrets_cover(before, current), "written though the file served"
            written.setdefault(member, []).append(after)
        checked.append((member, self.peer.hand.hand))

    monkeypatch.setattr(TableRunner, "_save_secrets", save_and_check)
    policies: list[Policy] = [BotPolicy(i) for i in range(3)]
    game = await play_local(3, policies, tmp_path, "covered")
    assert all(s.outcome is not None and s.outcome.finished for s in game.seats)
    assert {hand for _, hand in checked} >= {0, 1}
    saves = {m: sum(1 for who, _ in checked if who == m) for m in range(3)}
    assert all(len(written[m]) < saves[m] for m in range(3)), "some saves were skipped"


class ForgingLink(PassThrough):
    """A seat's link that swaps its first key share of hand 1 for one with a false proof,
    validly signed: a violation that seat can be held to."""

    def __init__(self, inner: MessageLink, key: Ed25519PrivateKey) -> None:
        super().__init__(inner)
        self.key = key
        self.forged: bytes | None = None

    async def send(self, message: bytes) -> None:
        try:
            env = open_envelope(message, table_id=TABLE_ID, roster=None)
        except UnattributedMessage:  # the join request
            await self.inner.send(message)
            return
        if self.forged is None and (env.hand, env.kind) == (1, "key"):
            self.forged = seal(
                self.key, table_id=TABLE_ID, hand=env.hand, seq=env.seq, seat=env.seat,
                prev=env.prev, kind="key", body={**env.body, "pok": bytes(64)},
            ).wire  # fmt: skip
            message = self.forged
        await self.inner.send(message)


async def test_a_signed_violation_aborts_naming_the_signer_with_evidence(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    keys = [identity("forge", i) for i in range(3)]
    hub = Hub(keys[0], TABLE_ID, SECRET)
    game = Game([Seat(k, f"P{i}", BotPolicy(i)) for i, k in enumerate(keys)], hub, None, None)
    forger = ForgingLink(hub.local_link(), keys[1])
    links: list[MessageLink] = [hub.local_link(), forger, hub.local_link()]
    async with trio.open_nursery() as nursery:
        for i in range(3):
            nursery.start_soon(sit, game, i, links[i], one_deal(3), tmp_path, SHORT)
            await joined(hub, i)
    assert forger.forged is not None
    cheat = game.seats[1].peer
    assert cheat is not None
    for seat in (game.seats[0], game.seats[2]):
        assert seat.outcome is not None and seat.outcome.abort is not None
        abort = seat.outcome.abort
        assert (abort.kind, abort.seat, abort.hand) == ("violation", cheat.seat, 1)
        assert abort.evidence == (forger.forged,)
        assert seat.files is not None
        record = json.loads(seat.files.abort.read_text())
        assert record["evidence"] == [forger.forged.hex()] and record["seat"] == cheat.seat
    # The forger's own peer holds its honest message; the others pass the forged one on,
    # so it too sees two messages its key signed for one slot.
    own = game.seats[1].outcome
    assert own is not None and own.abort is not None and own.abort.kind == "violation"
    assert own.abort.seat == cheat.seat and "equivocation" in own.abort.reason


async def test_junk_on_the_wire_is_survived(tmp_path: Path) -> None:
    """A malformed frame drops only its connection; junk relayed by a member is ignored."""
    players = 3
    keys = [identity("junk", i) for i in range(players)]
    rogue_key = identity("junk", 9)
    async with tcp_hub(keys[0]) as (hub, hosted, code):
        game = Game([Seat(k, f"P{i}", BotPolicy(i)) for i, k in enumerate(keys)], hub, hosted, code)

        async def rogue() -> None:
            raw = await trio.open_tcp_stream(code.host, code.port)
            await raw.send_all(b"\xff\xff\xff\xff" + b"x" * 64)  # a frame far too long
            member = await connect(code, rogue_key)
            seen = [await member.receive() for _ in range(players + 4)]  # the game is on
            forged = seal(
                rogue_key, table_id=TABLE_ID, hand=0, seq=99, seat=1, prev=bytes(32),
                kind="key", body={},
            )  # fmt: skip
            for junk in (b"\xc1", b"\x92\xc4\x00\xc4\x00", forged.wire, seen[-1]):
                await member.send(junk)
            while True:
                await member.receive()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(rogue)
            async with trio.open_nursery() as table:
                table.start_soon(sit, game, 0, hub.local_link(), one_deal(players), tmp_path, SHORT)
                for i in range(1, players):
                    link = await connect(code, keys[i])
                    table.start_soon(sit, game, i, link, one_deal(players), tmp_path, SHORT)
                    await joined(hub, i)
            nursery.cancel_scope.cancel()
    assert_agreement(game)
    assert any("exceeds" in reason for reason in hosted.door.stats.drops)
    ignored = [s.outcome.stats.ignored for s in game.seats if s.outcome is not None]
    assert all(n >= 3 for n in ignored), ignored


async def test_demo_command_end_to_end(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "tarot_p2p", "demo", "--players", "3", "--seed", "5"]
    command += ["--data-dir", str(tmp_path)]
    with trio.fail_after(300):
        result = await trio.run_process(
            command, capture_stdout=True, stderr=subprocess.STDOUT, check=False
        )
    output = result.stdout.decode()
    assert result.returncode == 0, output
    assert "byte-identical transcripts and identical score sheets" in output
    assert "Agreed score sheet" in output and "demo succeeded" in output
    assert "demo: 3 bots, 1 round, seed" in output  # not "1 rounds"
    transcripts = sorted(tmp_path.rglob("transcript.tp2p"))
    assert len(transcripts) == 3
    assert len({p.read_bytes() for p in transcripts}) == 1


class Noticing:
    """A bot that keeps every notice its runner gives it."""

    def __init__(self, seed: int) -> None:
        self.bot = BotPolicy(seed)
        self.notices: list[Notice] = []

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        return await self.bot.decide(peer, refused)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None

    async def notice(self, peer: Peer, notice: Notice) -> None:
        self.notices.append(notice)


async def test_no_seat_is_said_to_come_back_when_no_link_broke(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """Every seat asks for what it may lack when its runner starts, and whenever its wait
    makes no progress: such a request can reach the others just after their wait turned
    to that seat. It is not a seat coming back, and nobody is told so."""
    policies = [Noticing(i) for i in range(4)]
    game = await play_local(4, list(policies), tmp_path, "calm")
    assert all(s.outcome is not None and s.outcome.finished for s in game.seats)
    told = [(n.kind, n.name) for p in policies for n in p.notices]
    assert not [t for t in told if t[0] in ("back", "reconnecting", "connected")], told


class DeafFor(PassThrough):
    """A link that loses everything it receives for ``seconds``, from its ``n``-th message
    on (a network gone quiet that comes back), its own messages still going out."""

    def __init__(self, inner: MessageLink, n: int, seconds: float) -> None:
        super().__init__(inner)
        self.left = n
        self.seconds = seconds
        self.until = float("inf")

    async def receive(self) -> bytes:
        while True:
            message = await self.inner.receive()
            self.left -= 1
            if not self.left:
                self.until = trio.current_time() + self.seconds
            if self.left > 0 or trio.current_time() >= self.until:
                return message


async def test_a_seat_away_long_enough_to_be_awaited_is_said_to_come_back(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    policies = [Noticing(i) for i in range(4)]

    def deaf(i: int, link: MessageLink) -> MessageLink:
        return DeafFor(link, 12, 1.5 * NOTICE_EVERY) if i == 2 else link

    game = await play_local(4, list(policies), tmp_path, "deaf", wrap=deaf)
    assert all(s.outcome is not None and s.outcome.finished for s in game.seats)
    others = [n for i, p in enumerate(policies) if i != 2 for n in p.notices]
    assert ("waiting", "P2") in [(n.kind, n.name) for n in others]
    assert ("back", "P2") in [(n.kind, n.name) for n in others]
    assert {n.name for n in others if n.kind == "back"} == {"P2"}


def when(time: float, notice: Notice) -> tuple[float, float, float | None]:
    """A notice's moment, elapsed and left seconds, to the millisecond."""
    left = None if notice.left is None else round(notice.left, 3)
    return (round(time, 3), round(notice.seconds, 3), left)


@pytest.mark.parametrize("silent", [0, 1, 2])
async def test_every_seat_silent_in_turn_is_counted_down_and_stood_in_by_one_rule(
    autojump_clock: trio.testing.MockClock, tmp_path: Path, silent: int
) -> None:
    """Member 0 is the host's own seat: it goes silent like any other, the others claim it
    at the same time, and its own program follows. Everyone, the silent seat first, sees
    the same countdown to the claims at the same moments ("you have 4:55 to bid" / "P0
    has 4:55 to bid")."""
    policies: list[Policy] = [Silent() if i == silent else Told(i) for i in range(3)]
    game = await play_local(3, policies, tmp_path, f"turn{silent}")
    forfeit = one_deal(3).forfeit_after
    mute = policies[silent]
    assert isinstance(mute, Silent) and mute.asked == mute.withdrawn == 1
    for seat in game.seats:
        assert seat.outcome is not None and seat.outcome.finished, seat.outcome
        assert seat.peer is not None and seat.peer.sheet is not None
        (line,) = seat.peer.sheet.lines
        assert f"P{silent}'s hand played by the stand-in" in line.note
    transcripts = {s.files.transcript.read_bytes() for s in game.seats if s.files}
    assert len(transcripts) == 1
    me = game.seats[silent].peer
    assert me is not None and me.seat is not None
    own = [when(t, n) for t, n in mute.notices if n.kind == "turn"]
    assert own, "the silent seat is shown its own countdown"
    assert all(left == round(max(0.0, forfeit - seconds), 3) for _, seconds, left in own)
    assert own[0][2] == forfeit - NOTICE_EVERY
    for other, policy in enumerate(policies):
        if other == silent:
            continue
        assert isinstance(policy, Told)
        seen = [
            when(t, n)
            for t, n in policy.notices
            if n.kind == "waiting" and n.seat == me.seat and n.left is not None
        ]
        # The same countdown at the same moments, up to the claims.
        assert [x for x in seen if x[0] <= own[-1][0]] == own


def test_the_moments_of_a_wait_are_wire_md_7_1s() -> None:
    """Where an abandon is possible, forfeit_after rules, for a computed message too: the
    claim at 30 s, the player told at the limit (60 s), an absence only at 30 + 60 s; where
    none is possible (hand 0, SCORE, RELEASE), the limit ends the wait."""
    from types import SimpleNamespace

    from tarot_p2p.seat.runner import WaitPlan

    def seat(speaker: int | None, kinds: tuple[str, ...]) -> Any:
        hand = SimpleNamespace(present_speaker=lambda: speaker)
        config = SimpleNamespace(forfeit_after=30)
        return SimpleNamespace(hand=hand, config=config, expected_types=lambda: kinds)

    times = Timeouts(message=60, decision=600)
    plan = WaitPlan.of(seat(0, ("shuffle",)), times, 100.0)
    assert (plan.claim_at, plan.absent_at, plan.deadline) == (130.0, 160.0, 190.0)
    assert plan.left(110.0) == 20.0 and plan.left(140.0) == 0.0
    decision = WaitPlan.of(seat(0, ("action", "petit_sec")), times, 0.0)
    assert (decision.claim_at, decision.deadline) == (30.0, 630.0)
    no_claim = WaitPlan.of(seat(None, ("score",)), times, 0.0)
    assert no_claim.claim_at == float("inf") and no_claim.deadline == 60.0
    assert no_claim.left(10.0) is None
