"""Every ``tarot-p2p`` command written out in the guides is one the program accepts.

Why: a player copies these lines; an option renamed in the program but not in a guide
(as ``score --points`` became ``--attack-points`` while a benchmark still used the old
spelling) would greet him with a usage error. Each command shown in a code block of the
README, ``docs/``, ``protocol/`` or ``clients/`` is read by the program's own parser.
Synopses (a line with ``[`` for what may be left out) describe rather than show: skipped.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tarot_p2p.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
GUIDES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "protocol").glob("*.md")),
    *sorted((ROOT / "clients").rglob("*.md")),
]


def first_command(lines: list[str]) -> tuple[str, int]:
    """The command ``lines`` start with, on one line, and how many lines it takes (a line
    ending in ``\\`` goes on in the next)."""
    n = next((i + 1 for i, line in enumerate(lines) if not line.endswith("\\")), len(lines))
    return " ".join(line.rstrip("\\") for line in lines[:n]), n


def code_lines(text: str) -> list[tuple[int, str]]:
    """The lines of fenced or indented code blocks (numbered), continuation lines joined."""
    code: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced or line.startswith("    "):
            code.append((number, line.strip()))
    found = []
    while code:
        command, n = first_command([line for _, line in code])
        found.append((code[n - 1][0], command))
        code = code[n:]
    return found


def documented_commands() -> list[tuple[str, list[str]]]:
    commands = []
    for guide in GUIDES:
        for number, line in code_lines(guide.read_text(encoding="utf-8")):
            line = re.sub(r"^\$ ", "", line)
            if line.startswith("tarot-p2p ") and "[" not in line:
                where = f"{guide.relative_to(ROOT)}:{number}"
                commands.append((where, shlex.split(line, comments=True)[1:]))
    return commands


COMMANDS = documented_commands()


def test_the_guides_show_commands() -> None:
    shown = {words[0] for _, words in COMMANDS}
    assert {"host", "join", "relay", "score", "history", "conformance"} <= shown


@pytest.mark.parametrize(("where", "words"), COMMANDS, ids=[where for where, _ in COMMANDS])
def test_a_documented_command_is_accepted(where: str, words: list[str]) -> None:
    try:
        build_parser(words[0]).parse_args(words)
    except SystemExit as exc:
        pytest.fail(f"{where}: tarot-p2p {shlex.join(words)} is refused ({exc})")


def fenced_blocks(text: str) -> list[str]:
    return text.split("```")[1::2]


def first_line(block: str) -> str:
    """The first line that is not a comment."""
    return next((line for line in block.splitlines() if not line.startswith("#")), "")


def test_the_score_examples_of_the_rules_guide_print_what_it_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The counter's examples: a command with its output below it, and a round file with
    the score sheet shown in the next block."""
    blocks = [b.strip("\n") for b in fenced_blocks((ROOT / "docs" / "rules.md").read_text())]
    shown = 0
    for i, block in enumerate(blocks):
        if block.startswith("$ tarot-p2p score"):
            lines = block.splitlines()
            command, n = first_command(lines)
            words, output = shlex.split(command)[2:], "\n".join(lines[n:])  # ($ tarot-p2p)
        elif first_line(block).startswith("--players"):
            path = tmp_path / f"round{i}.txt"
            path.write_text(block + "\n", encoding="utf-8")
            words, output = ["score", "--file", str(path)], blocks[i + 1]
        else:
            continue
        assert main(words) == 0
        assert capsys.readouterr().out.strip("\n") == output
        shown += 1
    assert shown >= 2
