"""Files that cannot betray their owner (issue 17): what others send never shortens a seat's
transcript file.

Timing tests run on trio's autojump clock, every seat on the hub's in-process link, as in
``test_runner``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.cli.join import report
from tarot_p2p.cli.main import main
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.files import game_record
from tarot_p2p.files.atomic import write_json_atomic
from tarot_p2p.files.game_record import Result, read_table
from tarot_p2p.files.history import load_games, open_history, store_game
from tarot_p2p.files.profile import Profile, Ticket
from tarot_p2p.files.seat_files import SeatFiles, sheet_document
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.link import MessageLink
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.codec import encode
from tarot_p2p.protocol.envelope import SignedEnvelope, open_envelope, seal
from tarot_p2p.protocol.errors import UnattributedMessage
from tarot_p2p.protocol.peer import Peer, PeerEvent, replay_file
from tarot_p2p.protocol.sync import REPEAT_BURST, REPEAT_RATE, SYNC_DOMAIN
from tarot_p2p.protocol.transcript import parse_file, read_frames
from tarot_p2p.rules.config import Abandon
from tarot_p2p.seat.runner import LOST_SECRET, Decision, Outcome, Policy, TableRunner
from tarot_p2p.seat.session import resume_seat
from tests.net.links import PassThrough
from tests.net.test_game import (
    SECRET,
    TABLE_ID,
    assert_agreement,
    identity,
    joined,
    local_game,
    one_deal,
    sit,
)
from tests.seat.test_runner import SHORT, Crash, play_local


class ForgedAbandon(PassThrough):
    """A member's link that, as hand 2 starts, first sends an abandon it signed for the slot
    of the victim's own message in hand 1, carrying junk claims: a message claiming to
    rewrite the victim's earlier records."""

    def __init__(self, inner: MessageLink, key: Ed25519PrivateKey, victim: bytes, mine: Path):
        super().__init__(inner)
        self.key = key
        self.victim = victim
        self.mine = mine
        self.forged: bytes | None = None

    def _forge(self, env: SignedEnvelope) -> bytes:
        parsed = parse_file(self.mine.read_bytes())
        records = list(parsed.transcript)
        setup = m.load_body("table", records[0].body)
        assert isinstance(setup, m.Setup)
        victim_member = list(setup.roster).index(self.victim)
        # The victim's seat is the one whose hand-1 messages its key signed.
        for position, held in enumerate(records):
            if held.hand != 1:
                continue
            try:
                open_envelope(
                    held.wire,
                    table_id=TABLE_ID,
                    roster={
                        held.seat: Ed25519PublicKey.from_public_bytes(setup.roster[victim_member])
                    },
                )
            except UnattributedMessage:
                continue
            prev = parsed.transcript.digest_after(position)
            body = m.dump_body(m.Abandon(held.seat, (bytes(64), bytes(64))))
            return seal(
                self.key, table_id=TABLE_ID, hand=held.hand, seq=held.seq, seat=env.seat,
                prev=prev, kind="abandon", body=body,
            ).wire  # fmt: skip
        raise AssertionError("the victim signed nothing in hand 1")

    async def send(self, message: bytes) -> None:
        try:
            env = open_envelope(message, table_id=TABLE_ID, roster=None)
        except UnattributedMessage:  # join and sync requests
            await self.inner.send(message)
            return
        if self.forged is None and env.hand == 2:
            self.forged = self._forge(env)
            await self.inner.send(self.forged)
        await self.inner.send(message)


async def test_a_forged_abandon_shortens_no_file_and_names_its_signer(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """Issue 17: a forged abandon with junk claims cut a victim's transcript from 51 to 40
    records, and at an earlier hand stopped its program ("the secrets are of hand 2, not
    1"). Now the victim keeps every record and names the forger with the signed abandon,
    as the other seat does."""
    seed = "forged abandon"
    keys = [identity(seed, i) for i in range(3)]
    raw = [k.public_key().public_bytes_raw() for k in keys]
    forger_files = SeatFiles.for_table(tmp_path, TABLE_ID, raw[2])
    links: dict[int, ForgedAbandon] = {}

    def wrap(i: int, link: MessageLink) -> MessageLink:
        if i != 2:
            return link
        links[i] = ForgedAbandon(link, keys[2], raw[1], forger_files.transcript)
        return links[i]

    held_records: list[list[bytes]] = []
    game = await play_local(3, [BotPolicy(i) for i in range(3)], tmp_path, seed, deals=3, wrap=wrap)
    forged = links[2].forged
    assert forged is not None
    forger = game.seats[2].peer
    assert forger is not None
    for index in (0, 1):
        seat = game.seats[index]
        assert seat.outcome is not None and seat.outcome.abort is not None
        abort = seat.outcome.abort
        assert abort.kind == "violation" and abort.attributed
        assert abort.seat == forger.seat and abort.evidence == (forged,)
        assert seat.files is not None and seat.outcome.peer is not None
        held = parse_file(seat.files.transcript.read_bytes()).transcript
        held_records.append([e.wire for e in held])
        assert held.head == seat.outcome.peer.transcript.head
    # Both honest seats kept the same history up to the forged message: nothing was cut.
    # (One may hold a message of the round under way that the other had not taken yet:
    # a parallel round's messages are sent at once, table.md §1.4.)
    shorter, longer = sorted(held_records, key=len)
    assert len(shorter) > 20 and longer[: len(shorter)] == shorter
    assert len(longer) - len(shorter) < 3


class AskingAgain(PassThrough):
    """A member's link that also sends, every ``every`` seconds, a sync request signed by
    its key claiming one record with a wrong digest: each honest peer would answer it with
    the transcript's first records (issue 17's amplification)."""

    def __init__(self, inner: MessageLink, key: Ed25519PrivateKey, member: int, every: float):
        super().__init__(inner)
        self.key = key
        self.member = member
        self.every = every
        self.sent = 0
        self._next = 0.0

    def _request(self) -> bytes:
        payload = encode({"d": bytes(32), "k": "sync", "m": self.member, "n": 1, "t": TABLE_ID})
        return encode([payload, self.key.sign(SYNC_DOMAIN + payload)])

    async def receive(self) -> bytes:
        while True:
            now = trio.current_time()
            if now >= self._next:
                self._next = now + self.every
                self.sent += 1
                await self.inner.send(self._request())
            with trio.move_on_at(self._next):
                return await self.inner.receive()


class Thinking:
    """A bot that thinks one second (on the test's clock) before each decision, so that a
    game lasts as long as one between players and a member asking on a timer asks as
    often as it would then."""

    def __init__(self, seed: int) -> None:
        self.bot = BotPolicy(seed)

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        await trio.sleep(1)
        return await self.bot.decide(peer, refused)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None


async def test_sync_requests_asked_again_and_again_cost_a_bounded_answer(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """Issue 17: a member asking with a wrong digest every 0.5 s made the hub send 71.5 MiB
    where a quiet game sends 0.5 MiB. Each honest peer now resends that member the
    transcript once at most, plus its repeat budget (wire.md §7.2); the game finishes.
    Here member 1 asks every 0.25 s through a two-deal game of bots that think a second
    a move (about 600 requests in 156 s): the two others resend it 2.9 MB, within the
    bound; without the budget, 64 MB."""
    asking: list[AskingAgain] = []

    def wrap(i: int, link: MessageLink) -> MessageLink:
        if i != 1:
            return link
        asking.append(AskingAgain(link, identity("asked", 1), 1, 0.25))
        return asking[0]

    started = trio.current_time()
    game = await play_local(
        3, [Thinking(i) for i in range(3)], tmp_path, "asked", deals=2, wrap=wrap
    )
    elapsed = trio.current_time() - started
    assert all(s.outcome is not None and s.outcome.finished for s in game.seats)
    files = game.seats[0].files
    assert files is not None
    transcript = len(files.transcript.read_bytes())
    resent = 0
    for index in (0, 2):
        outcome = game.seats[index].outcome
        assert outcome is not None
        resent += outcome.stats.resent_bytes
    assert asking[0].sent >= 2 * elapsed  # it kept asking, at least every 0.5 s
    bound = 2 * (transcript + REPEAT_BURST + REPEAT_RATE * elapsed)
    assert transcript < resent <= bound, (resent, bound, elapsed)


async def test_a_game_whose_last_record_landed_before_a_kill_is_recorded_as_ended(
    autojump_clock: trio.testing.MockClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 17: a bot killed just as the game's last record landed kept ``sheet.json``
    unfinished forever (``history`` said "unfinished", ``resume --list`` offered it,
    ``--rebuild`` did not mend it). The end is now read from the transcript."""
    tables = tmp_path / "tables"
    game = await play_local(3, [BotPolicy(i) for i in range(3)], tables, "killed late")
    seat = game.seats[1]
    assert seat.files is not None and seat.outcome is not None and seat.outcome.finished
    files = seat.files
    document = json.loads(files.sheet.read_text())
    # The kill: every record is in the file, the sheet is the one written before the last.
    data = files.transcript.read_bytes()
    frames = read_frames(data)
    before = replay_file(data[: frames.offsets[-1]]).observer
    write_json_atomic(files.sheet, sheet_document(before, files, document["seat"]))
    profile = Profile(tmp_path)
    profile.save_ticket(files, Ticket(role="join", code="c", name="P1"))
    # The history written while the program ran, before the end: "unfinished".
    with monkeypatch.context() as patched:
        patched.setattr(game_record, "mend_sheet", lambda files: False)
        stale = read_table(files.directory, {})
    assert stale.result is Result.UNFINISHED
    with closing(open_history(profile.history, print)) as conn:
        store_game(conn, stale, 0.0, 0.0)
    assert main(["history", "--profile", str(tmp_path)]) == 0
    assert "unfinished" not in capsys.readouterr().out
    assert json.loads(files.sheet.read_text()) == document  # mended, as the runner wrote it
    with closing(open_history(profile.history, print)) as conn:
        (kept,) = load_games(conn)
    assert kept.result is Result.FINISHED and len(kept.deals) == len(stale.deals) + 1
    # The same for resume --list and --rebuild, each from the stale sheet again.
    for look in ("list", "rebuild"):
        write_json_atomic(files.sheet, sheet_document(before, files, document["seat"]))
        if look == "list":
            assert profile.state(files).finished
            assert profile.unfinished(profile.identity()) == []
        else:
            assert read_table(files.directory, {}).result is Result.FINISHED
        assert json.loads(files.sheet.read_text()) == document


class BackupThenCrash:
    """A bot whose owner copies its transcript file at its ``backup``-th decision (a
    backup), and whose process dies at its ``crash``-th."""

    def __init__(self, path: Path, backup: int, crash: int) -> None:
        self.path = path
        self.backup = backup
        self.crash = crash
        self.made = 0
        self.copy: bytes | None = None
        self.bot = BotPolicy(1)

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        self.made += 1
        if self.made == self.backup:
            self.copy = self.path.read_bytes()
        if self.made == self.crash:
            raise Crash
        return await self.bot.decide(peer, refused)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None


async def test_a_seat_resumed_from_a_backup_signs_no_slot_twice(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """Issue 17: after restoring an older copy of one's own transcript, the same command
    signed again a slot it had signed already, and every seat named it an equivocator.
    Now the resumed seat asks the others first, takes back its own signed messages from
    them, and the game finishes with one transcript everywhere."""
    keys = [identity("backup", i) for i in range(3)]
    hub = Hub(keys[0], TABLE_ID, SECRET)
    victim = SeatFiles.for_table(tmp_path, TABLE_ID, keys[1].public_key().public_bytes_raw())
    crashing = BackupThenCrash(victim.transcript, backup=3, crash=6)
    policies: list[Policy] = [BotPolicy(0), crashing, BotPolicy(2)]
    game = local_game(keys, policies, hub)
    config = replace(one_deal(3), game_length=2)
    resumed: list[Outcome] = []

    async def seat(i: int) -> None:
        try:
            await sit(game, i, hub.local_link(), config, tmp_path, SHORT)
        except Crash:
            assert crashing.copy is not None
            victim.transcript.write_bytes(crashing.copy)  # the backup put back
            peer = resume_seat(victim, keys[1], rng=DeterministicRandom(b"other"))
            assert peer is not None and peer.my_turn()
            runner = TableRunner(
                peer, hub.local_link(), BotPolicy(7), victim, timeouts=SHORT, offload=False
            )
            resumed.append(await runner.run())

    async with trio.open_nursery() as nursery:
        for i in range(3):
            nursery.start_soon(seat, i)
            await joined(hub, i)
    assert crashing.made == 6 and resumed
    game.seats[1].outcome = resumed[0]
    for s in game.seats:
        assert s.outcome is not None
        assert s.outcome.abort is None, s.outcome.abort
    assert_agreement(game)


class BackupBeforeKey:
    """A bot whose owner copies its transcript and secrets as its cards of deal 1 show (a
    backup taken before its key of deal 2, which it makes from then on, table.md §1.6),
    and whose process dies as its cards of deal 2 show (before it makes anything of deal
    3)."""

    def __init__(self, files: SeatFiles) -> None:
        self.files = files
        self.copy: tuple[bytes, bytes] | None = None
        self.bot = BotPolicy(1)

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        return await self.bot.decide(peer, refused)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        if peer.hand.hand == 1 and peer.dealt is not None and self.copy is None:
            self.copy = (self.files.transcript.read_bytes(), self.files.secrets.read_bytes())
        elif peer.hand.hand > 1 and peer.dealt is not None:
            raise Crash


async def test_a_seat_whose_backup_lacks_its_key_of_the_deal_stops_in_words_and_plays_on(
    autojump_clock: trio.testing.MockClock, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A backup of deal 1 (transcript and secrets) put back after the seat sent its key of
    deal 2: the others hand that key back, and the secret it was made with is nowhere.
    Before, the seat dropped its saved secret and went on, and its next turn failed on a
    missing key (an assertion: "a problem it did not expect"). Now it signs nothing more in
    that deal and stops in words, naming nobody; the others finish the deal without it
    (its abandon, the stand-in playing its cards), and the same command run again takes
    the seat back from the same files and plays the next deal."""
    keys = [identity("lost secret", i) for i in range(3)]
    hub = Hub(keys[0], TABLE_ID, SECRET)
    victim = SeatFiles.for_table(tmp_path, TABLE_ID, keys[1].public_key().public_bytes_raw())
    backup = BackupBeforeKey(victim)
    policies: list[Policy] = [BotPolicy(0), backup, BotPolicy(2)]
    game = local_game(keys, policies, hub)
    config = replace(one_deal(3), game_length=3, abandon=Abandon.CONTINUE)
    runs: list[Outcome] = []

    async def again() -> Outcome:
        peer = resume_seat(victim, keys[1], rng=DeterministicRandom(b"again"))
        assert peer is not None
        runner = TableRunner(
            peer, hub.local_link(), BotPolicy(7), victim, timeouts=SHORT, offload=False
        )
        return await runner.run()

    async def seat(i: int) -> None:
        try:
            await sit(game, i, hub.local_link(), config, tmp_path, SHORT)
        except Crash:
            assert backup.copy is not None
            victim.transcript.write_bytes(backup.copy[0])  # the backup put back
            victim.secrets.write_bytes(backup.copy[1])
            runs.append(await again())
            # The player keeps the program stopped until the others have finished the deal
            # without it, then runs the same command again.
            host = game.seats[0].peer
            assert host is not None
            while not any(e.kind == "abandon" for e in host.transcript):
                await trio.sleep(1)
            runs.append(await again())

    async with trio.open_nursery() as nursery:
        for i in range(3):
            nursery.start_soon(seat, i)
            await joined(hub, i)
    stopped, back = runs
    abort = stopped.abort
    assert abort is not None and abort.kind == LOST_SECRET
    assert abort.seat is None and not abort.attributed and abort.evidence == ()
    assert "Nobody cheated" in abort.reason and f"deal {abort.hand}" in abort.reason
    # It had taken its own key of that deal back from the others: nothing signed twice.
    assert stopped.peer is not None and stopped.peer.seat is not None
    mine = [e for e in stopped.peer.transcript if e.hand == abort.hand]
    assert any(e.kind == "key" and e.seat == stopped.peer.seat for e in mine)
    report(stopped, stopped.peer)
    said = capsys.readouterr().out
    assert "cannot play the rest of deal" in said and "run the same command again" in said
    assert "Traceback" not in said
    game.seats[1].outcome = back
    assert_agreement(game)
    final = replay_file(victim.transcript.read_bytes()).observer
    victim_seat = final.seating.index(1) if final.seating is not None else None
    assert any(
        e.hand > abort.hand and e.seat == victim_seat and e.kind == "key" for e in final.transcript
    ), "the seat played the next deal"
