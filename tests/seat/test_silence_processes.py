"""Issue 16's figures over real processes: a silence, or a hub, cannot change a score by more
than the stand-in's play of the silent seat's own hand.

Every test here runs the real programs on loopback: ``tarot-p2p host`` (the hub in its
process, a bot at its seat) and two ``tarot-p2p bot`` joiners, each with its own profile,
at a 3-player table of one deal with the shortest forfeit time (30 s) and ``--abandon
end``. Each program is started through :mod:`tests.seat.silent_player`, which fixes its
bid (one joiner bids garde, the others pass, so the taker is known before the deal) and,
for the taker tests, stops the program (``SIGSTOP``) at an exact moment. The hub's
withholding is a TCP proxy in the test (:mod:`tests.seat.withholding_hub`).

Each test waits out the forfeit time once (about 45 s in all). By default three run: the
withholding hub, the taker silent at his écart, the cheat silent at the reveal; the others
(the link dropped, the taker silent at the bidding, mid-play and at an honest reveal) run
with ``TAROT_P2P_SILENCE_MATRIX=1``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.protocol.envelope import signature_input
from tarot_p2p.protocol.peer import replay_file
from tarot_p2p.protocol.table import HandMachine, Phase
from tarot_p2p.protocol.transcript import file_header, read_frames
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.audit import audit_hand
from tarot_p2p.rules.scoring import score_hand
from tarot_p2p.rules.stand_in import stand_in_action
from tarot_p2p.rules.state import from_hands
from tests.seat.test_resume_processes import ENV, PYTHON, Program, records, sheet, wait_for
from tests.seat.withholding_hub import WithholdingHub

pytestmark = pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")

FORFEIT = 30
"""The shortest forfeit time a table accepts (``FORFEIT_LIMITS``)."""
LIMIT = 150.0
"""Seconds a whole scenario may take before the test fails (about 45 here)."""
MATRIX = os.environ.get("TAROT_P2P_SILENCE_MATRIX") == "1"
matrix = pytest.mark.skipif(
    not MATRIX,
    reason="one more forfeit wait (about 45 s): runs with TAROT_P2P_SILENCE_MATRIX=1",
)
"""For the tests that show one more case of a defence another test here (or a faster one
elsewhere) shows by default."""
NAMES = ("Host", "Bot1", "Bot2")
SILENT_PLAYER = [sys.executable, "-m", "tests.seat.silent_player"]


class Player(Program):
    """A ``tarot-p2p`` program started through :mod:`tests.seat.silent_player`."""

    def __init__(self, options: list[str], args: list[str], log: Path) -> None:
        self.options = options
        super().__init__(args, log)

    def start(self) -> None:
        handle = open(self.log, "ab")  # noqa: SIM115 - the child owns it
        self.process = subprocess.Popen(
            [*SILENT_PLAYER, *self.options, "--", *self.args],
            stdout=handle,
            stderr=subprocess.STDOUT,
            env=ENV,
        )
        handle.close()


@dataclass
class Table:
    programs: list[Player]
    profiles: list[Path]
    hub: WithholdingHub | None
    deadline: float


@contextmanager
def three_seats(
    tmp_path: Path,
    options: tuple[list[str], list[str], list[str]],
    *,
    withheld: int | None = None,
    hold_when: Callable[[], bool] = lambda: False,
    release_when: Callable[[], bool] | None = None,
) -> Iterator[Table]:
    """Host (member 0), Bot1 and Bot2, each started with its ``options`` for
    :mod:`tests.seat.silent_player`; player ``withheld`` reaches the hub through a
    :class:`WithholdingHub`."""
    deadline = time.monotonic() + LIMIT
    common = ["--timeout", "60", "--decision-timeout", "60"]
    profiles = [tmp_path / f"p{i}" for i in range(3)]
    host = Player(
        options[0],
        [
            "host", "--bot", "--players", "3", "--deals", "1",
            "--forfeit-after", str(FORFEIT), "--abandon", "end", "--no-announce",
            "--listen", "127.0.0.1", "--port", "0", "--name", NAMES[0],
            "--profile", str(profiles[0]), *common,
        ],
        tmp_path / "p0.log",
    )  # fmt: skip
    programs = [host]
    hub: WithholdingHub | None = None
    try:
        said = wait_for(
            "the join code", lambda: re.search(r"join code: (\S+)", host.output()), deadline
        )
        assert isinstance(said, re.Match)
        code = said[1]
        for i in (1, 2):
            dial = code
            if i == withheld:
                hub = WithholdingHub(JoinCode.decode(code).port, hold_when, release_when)
                dial = dataclasses.replace(JoinCode.decode(code), port=hub.port).encode()
            args = ["bot", dial, "--name", NAMES[i], "--seed", str(i)]
            args += ["--profile", str(profiles[i]), *common]
            programs.append(Player(options[i], args, tmp_path / f"p{i}.log"))
        yield Table(programs, profiles, hub, deadline)
    finally:
        for program in programs:
            if program.process is not None and program.process.poll() is None:
                program.kill()
        if hub is not None:
            hub.close()


def finish(table: Table, seats: list[int]) -> dict[str, object]:
    """The sheet that the programs of ``seats`` agree on, once each has written it finished;
    any of them that has already ended ended well. (The test does not wait for them to
    end: after the game each stays for the others a while, a whole ``linger`` when one of
    them is gone for good.)"""

    def written() -> bool:
        files = [table.profiles[i] for i in seats]
        return all(list(p.glob("tables/*/sheet.json")) and sheet(p)["finished"] for p in files)

    wait_for("the finished sheets", written, table.deadline)
    for i in seats:
        code = table.programs[i].process.poll() if table.programs[i].process else None
        assert code in (None, 0), f"{NAMES[i]} exited with {code}:\n{table.programs[i].output()}"
    documents = [sheet(table.profiles[i]) for i in seats]
    agreed = {json.dumps(d["sheet"], sort_keys=True) for d in documents}
    assert len(agreed) == 1, agreed
    found: dict[str, object] = json.loads(agreed.pop())
    return found


def stand_in_line(document: dict[str, object], name: str) -> dict[str, object]:
    """The sheet's one line, which must be the hand as played with ``name``'s stand-in."""
    lines = document["lines"]
    assert isinstance(lines, list) and len(lines) == 1
    (line,) = lines
    assert line["kind"] != "abandon", "a priced abandon"
    assert f"{name}'s hand played by the stand-in" in line["note"], line
    return dict(line)


def nobody_blamed(table: Table, seats: list[int], game: Replayed) -> None:
    """No program of ``seats`` stopped on a violation or spoke of a cheat, and the audit
    of the replayed game names no offence."""
    for i in seats:
        assert not list(table.profiles[i].glob("tables/*/aborted.json")), NAMES[i]
        assert "cheat" not in table.programs[i].output().lower(), table.programs[i].output()
    found = game.hand.audit
    assert (found is None) == (game.hand.void is not None)  # a void deal is not counted
    assert found is None or found.offences == ()


def hand_played_by_the_stand_in(table: Table, document: dict[str, object], name: str) -> None:
    """The sheet's one line is ``name``'s hand played out by his stand-in and scored as the
    audit of the host's transcript scores it, and nobody of the three is blamed."""
    line = stand_in_line(document, name)
    assert line["kind"] == "hand"
    game = replayed(table.profiles[0])
    nobody_blamed(table, [0, 1, 2], game)
    assert game.hand.abandoned == game.names.index(name)
    assert game.hand.audit is not None and line["scores"] == list(game.hand.audit.returns)


def audit(profile: Path) -> subprocess.CompletedProcess[str]:
    (path,) = profile.glob("tables/*/transcript.tp2p")
    return subprocess.run(
        [*PYTHON, "audit", str(path)], capture_output=True, text=True, env=ENV, check=False
    )


def own_plays(profile: Path, name: str) -> int:
    """Cards ``name`` has played in hand 1, as ``profile``'s transcript holds them."""
    seat = seat_of(profile, name)
    if seat is None:
        return 0
    return sum(e.hand == 1 and e.kind == "play" and e.seat == seat for e in records(profile))


def seat_of(profile: Path, name: str) -> int | None:
    """``name``'s seat, once ``profile``'s transcript holds a key of hand 1: the one whose
    signature his identity key (in the set-up) verifies. (Quick enough to ask in a loop,
    unlike a replay of the draw.)"""
    envs = records(profile)
    if not envs:
        return None
    setup = envs[0].body
    names, roster = setup["names"], setup["roster"]
    assert isinstance(names, list) and isinstance(roster, list)
    key = Ed25519PublicKey.from_public_bytes(roster[names.index(name)])
    for e in envs:
        if e.hand == 1 and e.kind == "key":
            with contextlib.suppress(InvalidSignature):
                key.verify(e.signature, signature_input(e.payload))
                return e.seat
    return None


def transcript_file(table_id: bytes, binding: bytes, wires: list[bytes]) -> bytes:
    return file_header(table_id, binding) + b"".join(len(w).to_bytes(4, "big") + w for w in wires)


def abandoned(tmp_path: Path) -> Callable[[], bool]:
    """True once the host's transcript holds an abandon."""
    return lambda: any(e.kind == "abandon" for e in records(tmp_path / "p0"))


# ---------------------------------------------------------------- 1. the hub, the link


def test_a_hub_withholding_an_honest_seat_cannot_make_him_pay(tmp_path: Path) -> None:
    """The attack of issue 16: the hub (in the host's program) keeps back everything an
    honest joiner (Bot2, a defender) sends from his third card on, past the forfeit time,
    until the others have scored his absence, then lets it all through, late. The two
    others claimed him absent, released his key, and his stand-in played his hand: every
    program's sheet — his own too — scores the hand as played, says the stand-in played
    it, and names nobody a cheat."""
    seen: dict[str, int] = {}

    def third_card() -> bool:
        seen["plays"] = own_plays(tmp_path / "p2", "Bot2")
        return seen["plays"] >= 3

    options = (["--bid", "pass"], ["--bid", "garde"], ["--bid", "pass"])
    with three_seats(
        tmp_path, options, withheld=2, hold_when=third_card, release_when=abandoned(tmp_path)
    ) as table:
        document = finish(table, [0, 1, 2])
        assert table.hub is not None and table.hub.held_frames > 0
        assert table.hub.delivered_late == table.hub.held_frames
    hand_played_by_the_stand_in(table, document, "Bot2")


@matrix
def test_a_joiner_killed_mid_hand_has_his_hand_finished_by_the_stand_in(tmp_path: Path) -> None:
    """A joiner's program dies (kill -9) at his third card, so his link drops: the others
    wait out the forfeit time, claim him absent and play his hand with his stand-in. Run
    again once they have (the same command), his program takes the finished hand from
    them: the three sheets agree, scored as played, and nobody is blamed. (By default the
    runner-level crash test of ``test_runner.py`` shows the others finishing the hand.)"""
    options = (["--bid", "pass"], ["--bid", "garde"], ["--bid", "pass"])
    with three_seats(tmp_path, options) as table:
        victim = table.programs[2]
        wait_for(
            "Bot2's third card", lambda: own_plays(tmp_path / "p2", "Bot2") >= 3, table.deadline
        )
        victim.kill()
        wait_for("the abandon", abandoned(tmp_path), table.deadline)
        victim.start()  # the same command
        document = finish(table, [0, 1, 2])
    hand_played_by_the_stand_in(table, document, "Bot2")


# ---------------------------------------------------------------- 2. a taker who goes silent


@dataclass
class Replayed:
    """A finished one-deal game, replayed from a transcript file."""

    hand: HandMachine
    """Its hand, every card open at its end."""
    names: tuple[str, ...]
    """The players by seat."""
    moves: int
    """The engine moves the hand held when the abandon came."""
    phase: Phase
    """The hand's phase then."""


def replayed(profile: Path) -> Replayed:
    """``profile``'s transcript replayed (as ``tarot-p2p audit`` does), noting where the
    abandon came."""
    (path,) = profile.glob("tables/*/transcript.tp2p")
    frames = read_frames(path.read_bytes())
    envs = records(profile)
    (at,) = [i for i, e in enumerate(envs) if e.kind == "abandon"]
    replay = replay_file(transcript_file(frames.table_id, frames.binding, [*frames.records[:at]]))
    assert replay.error is None, replay.error
    observer = replay.observer
    moves, phase = len(observer.hand.history), observer.hand.phase
    for wire in frames.records[at:]:
        observer.receive(wire)
    assert observer.expected_sender() is None
    return Replayed(observer.hand, observer.names, moves, phase)


def played_out_by_the_stand_in(hand: HandMachine, moves: int) -> tuple[int, ...]:
    """The same deal with the silent seat played by the stand-in from its ``moves``-th
    engine move on, the other seats making the moves they made: the scores, by the audit.

    The other seats' moves are theirs in the game: their bots choose from what they see,
    and they saw the same cards whether the silent seat's moves came from the stand-in or
    from the seat itself playing as the stand-in does."""
    seat = hand.abandoned
    assert seat is not None
    if hand.void is not None:
        # A void deal (all passed) opens no card: the stand-in can only have passed (or
        # shown a petit sec, its only move then), and the line is nothing to anyone.
        bids = [action for s, action in hand.history[moves:] if s == seat]
        assert bids and all(b in (a.PASS, a.PETIT_SEC) for b in bids), bids
        return (0,) * hand.config.players
    record = hand.record()
    state = from_hands(record.config, record.dealer, list(record.hands), record.chien)
    moved: list[a.Action] = []
    for i, action in enumerate(record.actions):
        if i >= moves and state.current_player() == seat:
            action = stand_in_action(state)
        state.apply_action(action)
        moved.append(action)
    assert state.is_terminal()
    return audit_hand(dataclasses.replace(record, actions=tuple(moved))).returns


TAKER_MOMENTS = {
    # --silent-at: the phase the table is in when the abandon comes
    "bidding": Phase.BIDDING,
    "ecart": Phase.ECART,
    "mid-play": Phase.PLAY,
    "reveal": Phase.REVEAL,
}


@pytest.mark.parametrize(
    "moment",
    [
        pytest.param(m, marks=[] if m == "ecart" else [matrix])
        for m in TAKER_MOMENTS
    ],
)  # fmt: skip
def test_a_taker_going_silent_scores_no_better_than_his_hand_played_out(
    tmp_path: Path, moment: str
) -> None:
    """Bot1 bids garde (the others pass) and his program stops itself (SIGSTOP, its
    connection left open) at ``moment``: at his bid, his écart, his seventh card, or the
    final opening of the cards. The others finish the hand with his stand-in. His line is
    at least as bad as the same deal played out by the stand-in from that moment, the
    others making their moves: computed here from the deal the transcript opens, it is
    the same line, and never the old priced abandon."""
    options = (["--bid", "pass"], ["--bid", "garde", "--silent-at", moment], ["--bid", "pass"])
    with three_seats(tmp_path, options) as table:
        wait_for(
            f"Bot1 to stop at the {moment}",
            lambda: f"STOPPED AT {moment}" in table.programs[1].output(),
            table.deadline,
        )
        document = finish(table, [0, 2])
    line = stand_in_line(document, "Bot1")
    game = replayed(tmp_path / "p0")
    nobody_blamed(table, [0, 2], game)
    taker = game.names.index("Bot1")
    assert game.hand.abandoned == taker
    assert game.phase is TAKER_MOMENTS[moment]
    played_out = played_out_by_the_stand_in(game.hand, game.moves)
    scores = line["scores"]
    assert isinstance(scores, list)
    assert scores[taker] <= played_out[taker]
    assert scores == list(played_out)  # the silence changed nobody's score
    if moment == "bidding":
        assert line["kind"] == "all_pass"  # his stand-in passed, as the others did
    else:
        assert line["kind"] == "hand" and "garde" in str(line["note"])


# ---------------------------------------------------------------- 3. a cheat who goes silent


def test_a_taker_with_an_illegal_ecart_silent_at_the_reveal_is_caught(tmp_path: Path) -> None:
    """Bot1 bids garde, hides a king in his écart as a modified client would (else the
    Excuse, else a trump he does not show: see ``silent_player``), plays on, and stops at
    the final opening of the cards, which would show his écart. The others release his
    key, open the écart, and the audit finds the offence: his line
    is the one the audit gives the record, with the penalty (his side loses the hand: no
    better than the cards made it), and ``tarot-p2p audit`` shows the offence."""
    options = (
        ["--bid", "pass"],
        ["--bid", "garde", "--cheat-ecart", "--silent-at", "reveal"],
        ["--bid", "pass"],
    )
    with three_seats(tmp_path, options) as table:
        cheater = table.programs[1]
        said = ("STOPPED AT reveal", "NO FORBIDDEN CARD", "cannot go on")
        wait_for(
            "Bot1 to stop at the reveal",
            lambda: any(words in cheater.output() for words in said),
            table.deadline,
        )
        if "NO FORBIDDEN CARD" in cheater.output():
            pytest.skip("the taker held no king, no Excuse and no small trump to hide")
        assert "CHEATING ECART" in cheater.output()
        assert "STOPPED AT reveal" in cheater.output(), cheater.output()
        document = finish(table, [0, 2])
    line = stand_in_line(document, "Bot1")
    game = replayed(tmp_path / "p0")
    hand = game.hand
    taker = game.names.index("Bot1")
    assert hand.abandoned == taker
    assert game.phase is Phase.REVEAL
    audit_report = hand.audit
    assert audit_report is not None
    assert {o.seat for o in audit_report.offences} == {taker}
    assert audit_report.offences[0].rule.startswith("ecart")
    assert line["scores"] == list(audit_report.returns)
    outcome = audit_report.outcome
    assert outcome is not None and outcome.offender == taker
    honest = score_hand(hand.config, dataclasses.replace(outcome, offender=None))
    assert audit_report.returns[taker] <= min(honest[taker], -1)  # he loses the hand
    report = audit(tmp_path / "p0")
    assert report.returncode == 0, report.stdout
    rule = audit_report.offences[0].rule
    assert rule in report.stdout and "Bot1" in report.stdout, report.stdout
