"""Every command's --help is read by players: plain words, no developer markup, a
description, a help text for every option, and every default said once, the same way."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

import pytest

from tarot_p2p.cli.main import COMMAND_MODULES, UNSAID_DEFAULTS, PlayerHelp, build_parser

MARKUP = re.compile(r"``|:(mod|func|class|meth|data|attr|ref):`|\*\*")
DEFAULT = "(default: "


def command_parser(command: str) -> argparse.ArgumentParser:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = commands.choices[command]
    return found


@pytest.mark.parametrize("command", ["", *COMMAND_MODULES])
def test_help_is_plain_text_with_a_description(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([command, "--help"] if command else ["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert not MARKUP.search(text), text
    if command:
        description = command_parser(command).description or ""
        assert len(description.split()) >= 8, f"{command} --help has no description"
        assert description.split()[0] in text


@pytest.mark.parametrize("command", COMMAND_MODULES)
def test_every_option_is_explained_and_says_its_default_once(command: str) -> None:
    parser = command_parser(command)
    assert parser.formatter_class is PlayerHelp
    formatter = parser._get_formatter()
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        name = "/".join(action.option_strings) or action.dest
        assert action.help, f"{command} {name} has no help text"
        shown = formatter._expand_help(action)
        assert shown.count(DEFAULT) <= 1, f"{command} {name}: {shown}"
        assert "default " not in shown.replace(DEFAULT, ""), f"{command} {name}: {shown}"
        if not any(action.default is unsaid for unsaid in UNSAID_DEFAULTS):
            assert f"{DEFAULT}{action.default})" in shown, f"{command} {name}: {shown}"


@pytest.mark.parametrize("command", COMMAND_MODULES)
def test_a_command_alone_parses_as_with_every_command(command: str) -> None:
    """``tarot-p2p host ...`` builds the host's parser only (fewer imports before the
    game), with the very options and help it has among all the commands."""
    alone = build_parser(command)
    commands = next(a for a in alone._actions if isinstance(a, argparse._SubParsersAction))
    assert list(commands.choices) == [command]
    assert commands.choices[command].format_help() == command_parser(command).format_help()


def test_host_does_not_import_the_other_commands() -> None:
    """Nor zeroconf (about 0.1 s) nor spake2, imported once the table is announced on the
    network or a short code is used, nor the offline audit (only the history's mending
    and rebuilding run it)."""
    probe = (
        "import sys; from tarot_p2p.cli.main import build_parser; build_parser('host'); "
        "print(sorted(m for m in ('tarot_p2p.cli.audit_stats', 'tarot_p2p.conformance.kit', "
        "'tarot_p2p.cli.score', 'zeroconf', 'spake2', 'tarot_p2p.protocol.audit_report') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
