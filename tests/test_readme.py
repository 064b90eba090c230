"""The README's two first commands are the ones CI runs (the guide's promise to a new user)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).parent.parent


def first_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    return block.strip().splitlines()


def test_the_readme_starts_with_a_run_command_and_a_test_command() -> None:
    run, test = first_commands()
    for command in (run, test):
        # PEP 668: Debian and Ubuntu refuse pip outside a virtual environment.
        assert command.startswith("python3 -m venv .venv && .venv/bin/python -m pip install")
    assert run.endswith("-m tarot_p2p demo")
    assert test.endswith("-m pytest")


def test_ci_runs_exactly_the_readme_test_command() -> None:
    _, test = first_commands()
    lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip()]
    assert lines[-1] == test
