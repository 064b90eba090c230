"""A player's files put back from a backup, with real processes (issue 17 item 6).

A bot is killed with ``kill -9`` in the middle of a deal; an older copy of its profile's
transcript and secrets, taken earlier in the same deal at a moment when that bot was the
next to speak, is put back; the same command is run again. Its files now end before
messages it had signed and sent: signing its turn again would make a second message for a
slot it signed already, which every seat records as equivocation. The resumed program asks
the others first (a roll call, ``wire.md`` §7.2) and takes its own signed messages back.
Done when the game finishes, nobody is recorded as cheating, and every transcript is the
same, holding the killed program's messages as it had signed them.

Real programs on loopback sockets, as ``test_resume_processes`` runs them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.envelope import SignedEnvelope, open_envelope
from tarot_p2p.protocol.errors import UnattributedMessage
from tarot_p2p.protocol.transcript import read_frames
from tests.seat.test_resume_processes import LIMIT, Program, finish_and_compare, table

PLAYS_BEFORE_KILL = 12
"""Plays of the watched deal in the victim's file when it is killed (of 3 × 24)."""


def complete(data: bytes) -> tuple[bytes, list[SignedEnvelope]]:
    """A transcript file's bytes up to its last complete record (a copy taken while the
    program writes may end in the middle of one), and its envelopes, unverified."""
    frames = read_frames(data)
    envs = [open_envelope(w, table_id=frames.table_id, roster=None) for w in frames.records]
    return data[: frames.end], envs


def seat_of(envs: list[SignedEnvelope], name: str) -> int | None:
    """The seat ``name`` signs with after the draw: the one whose hand-1 messages its key
    (from the set-up's roster) verifies."""
    if not envs:
        return None
    setup = m.load_body("table", envs[0].body)
    assert isinstance(setup, m.Setup)
    key = Ed25519PublicKey.from_public_bytes(setup.roster[list(setup.names).index(name)])
    for env in envs:
        if env.hand < 1:
            continue
        try:
            open_envelope(env.wire, table_id=env.table_id, roster={env.seat: key})
        except UnattributedMessage:
            continue
        return env.seat
    return None


def ended(program: Program) -> bool:
    return program.process is not None and program.process.poll() is not None


def watch(folder: Path, deadline: float, ended: Callable[[], bool]) -> tuple[bytes, int]:
    """Wait until a deal holds ``PLAYS_BEFORE_KILL`` plays in the victim's file; the
    victim's secrets as its owner's backup took them at that deal's first play (they
    change only with a key or an écart), and the deal's number."""
    secrets: bytes | None = None
    hand: int | None = None
    while time.monotonic() < deadline:
        if ended():
            pytest.skip("the game ended before a card was played: every deal was passed out")
        try:
            kept = (folder / "secrets.bin").read_bytes()
            _, envs = complete((folder / "transcript.tp2p").read_bytes())
        except (FileNotFoundError, ValueError):
            envs = []
        plays = [e for e in envs if e.kind == "play"]
        if plays and hand is None:
            secrets, hand = kept, plays[-1].hand
        if hand is not None and sum(e.hand == hand for e in plays) >= PLAYS_BEFORE_KILL:
            assert secrets is not None
            return secrets, hand
        time.sleep(0.05)
    raise AssertionError("timed out waiting for the cards to be played")


def test_a_bot_given_back_an_older_copy_of_its_files_signs_nothing_twice(
    tmp_path: Path,
) -> None:
    deadline = time.monotonic() + LIMIT
    with table(tmp_path, players=3, deals=1) as programs:
        victim = programs[1]
        folder_found = None
        while folder_found is None and time.monotonic() < deadline:
            folder_found = next((tmp_path / "p1").glob("tables/*/transcript.tp2p"), None)
            time.sleep(0.05)
        assert folder_found is not None
        folder = folder_found.parent
        secrets, hand = watch(folder, deadline, lambda: all(ended(p) for p in programs))
        victim.kill()
        killed, signed = complete((folder / "transcript.tp2p").read_bytes())
        seat = seat_of(signed, "Bot1")
        assert seat is not None
        # The backup: the records before the victim's first card of this deal (a file only
        # grows, so a copy taken then held exactly these bytes), and its secrets of then.
        mine = [i for i, e in enumerate(signed) if e.seat == seat and e.hand == hand]
        first = next(i for i in mine if signed[i].kind == "play")
        assert sum(i > first for i in mine) >= 2, "the victim had not played again"
        backup = read_frames(killed).offsets[first]
        (folder / "transcript.tp2p").write_bytes(killed[:backup])
        (folder / "secrets.bin").write_bytes(secrets)
        victim.start()  # the same command again
        finish_and_compare(programs, tmp_path, deadline)
    final = next(folder.glob("transcript.tp2p")).read_bytes()
    # Every message the victim had signed before the kill is in the game as it signed it;
    # but for its last one, when the kill fell between writing it and sending it: nobody
    # ever saw that one, and only the file the backup replaced held it (table.md §7).
    if not final.startswith(killed):
        last = read_frames(killed).offsets[-1]
        assert signed[-1].seat == seat, "the others' messages differ from those the victim held"
        assert final.startswith(killed[:last]), "the resumed bot's messages differ from its own"
    for i in range(3):
        assert not list((tmp_path / f"p{i}").glob("tables/*/aborted.json"))
