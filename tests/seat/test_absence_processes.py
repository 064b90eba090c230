"""One story of absence, told by real programs over loopback (issue 18, item 3).

A player goes silent at his first decision: the host's own seat or a joiner's, at a
terminal or with his page closed. The others claim his absence after the table's forfeit
time (30 s), the stand-in plays his hand, and his own program follows: it shows him the
countdown the others see, takes the others' abandon (no prompt left live for a deal gone
on), ends the game with the others' transcript and sheet, and exits. Before, the host's
own seat left silent was never stood in from its own program's view: it kept its prompt
after the others had finished the game.

The page left open is in ``tests/ui/test_absence_page.py``.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.seat.test_resume_processes import ENV, PYTHON, Program, records, wait_for

FORFEIT = 30
LIMIT = 240.0
"""Seconds a scenario may take (about 60 here: the forfeit time and one deal)."""
COMMON = ["--forfeit-after", str(FORFEIT), "--deals", "1", "--players", "3"]


class Silent(Program):
    """A program whose player never types: its standard input is a pipe kept open."""

    def start(self) -> None:
        handle = open(self.log, "ab")  # noqa: SIM115 - the child owns it
        self.process = subprocess.Popen(
            [*PYTHON, *self.args],
            stdin=subprocess.PIPE,
            stdout=handle,
            stderr=subprocess.STDOUT,
            env=ENV,
        )
        handle.close()


def host_args(profile: Path, *more: str) -> list[str]:
    return [
        "host", *COMMON, "--listen", "127.0.0.1", "--port", "0", "--no-announce",
        "--name", "Alice", "--profile", str(profile), *more,
    ]  # fmt: skip


def code_of(host: Program, deadline: float) -> str:
    found = wait_for("the code", lambda: re.search(r"join code: (\S+)", host.output()), deadline)
    assert isinstance(found, re.Match)
    return found.group(1)


def one_sheet(profile: Path) -> dict[str, object]:
    (path,) = profile.glob("tables/*/sheet.json")
    document: dict[str, object] = json.loads(path.read_text())
    return document


def transcript(profile: Path) -> bytes:
    (path,) = profile.glob("tables/*/transcript.tp2p")
    return path.read_bytes()


def stood_in(profiles: list[Path], name: str) -> None:
    """Every profile holds one transcript and one finished sheet whose only line is the
    hand ``name``'s stand-in played; the transcript holds the abandon."""
    assert len({transcript(p) for p in profiles}) == 1, "the transcripts differ"
    sheets = [one_sheet(p) for p in profiles]
    assert len({json.dumps(s["sheet"], sort_keys=True) for s in sheets}) == 1
    for document in sheets:
        assert document["finished"]
        sheet = document["sheet"]
        assert isinstance(sheet, dict)
        (line,) = sheet["lines"]
        assert f"{name}'s hand played by the stand-in" in line["note"]
    assert any(e.kind == "abandon" for e in records(profiles[0]))


def finish(programs: list[Program], deadline: float) -> None:
    for program in programs:
        code = program.wait(deadline)
        assert code == 0, f"exit {code}:\n{program.output()}"
        assert "Traceback" not in program.output()


def told_at_the_terminal(output: str) -> None:
    """The silent player's terminal: his question, the countdown from 0:25 (the first
    notice comes after 5 s), the others noting his absence, the stand-in taking his hand,
    the panel that says why; and no question asked after the stand-in took over."""
    assert "Your move:" in output
    assert "You have 0:25 to bid" in output
    # The others' claims come at their 30 s, which may be before ours: the claim is told.
    assert "A player has noted that you are away" in output
    taken = output.index("The stand-in (a bot) plays your hand")
    assert "Your move:" not in output[taken:], "a question asked after the stand-in took over"
    assert "choice [" not in output[taken:], "the question shown again after the stand-in took it"
    assert "You were away: the stand-in played your hand" in output
    assert "The others received nothing from you for 30 s when it was your turn to bid" in output


@pytest.mark.parametrize("ui", ["terminal", "page closed"])
def test_the_hosts_own_seat_silent_is_stood_in_and_its_program_follows(
    tmp_path: Path, ui: str
) -> None:
    deadline = time.monotonic() + LIMIT
    more = ["--ui", "terminal"] if ui == "terminal" else ["--no-open"]
    host = Silent(host_args(tmp_path / "host", "--bots", "2", *more), tmp_path / "host.log")
    try:
        wait_for(
            "the game",
            lambda: "Seats drawn" in host.output() or "Table " in host.output(),
            deadline,
        )
        finish([host], deadline)
    finally:
        if host.process is not None and host.process.poll() is None:
            host.kill()
    bots = sorted((tmp_path / "host" / "house-bots").iterdir())
    stood_in([tmp_path / "host", *bots], "Alice")
    if ui == "terminal":
        told_at_the_terminal(host.output())


@pytest.mark.parametrize("ui", ["terminal", "page closed"])
def test_a_joiners_seat_silent_is_stood_in_and_his_program_follows(tmp_path: Path, ui: str) -> None:
    deadline = time.monotonic() + LIMIT
    host = Program(host_args(tmp_path / "host", "--bot", "--bots", "1"), tmp_path / "host.log")
    joiner: Program | None = None
    try:
        code = code_of(host, deadline)
        more = ["--ui", "terminal"] if ui == "terminal" else ["--no-open"]
        joiner = Silent(
            ["join", code, "--name", "Bob", "--profile", str(tmp_path / "bob"), *more],
            tmp_path / "bob.log",
        )
        finish([joiner, host], deadline)
    finally:
        for program in (host, joiner):
            if (
                program is not None
                and program.process is not None
                and program.process.poll() is None
            ):
                program.kill()
    assert joiner is not None
    bots = sorted((tmp_path / "host" / "house-bots").iterdir())
    stood_in([tmp_path / "bob", tmp_path / "host", *bots], "Bob")
    if ui == "terminal":
        told_at_the_terminal(joiner.output())
