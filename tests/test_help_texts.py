"""Every command's --help is read by players: plain words, no developer markup."""

from __future__ import annotations

import re

import pytest

from tarot_p2p.cli.main import COMMAND_MODULES, build_parser

MARKUP = re.compile(r"``|:(mod|func|class|meth|data|attr):`")


@pytest.mark.parametrize("command", COMMAND_MODULES)
def test_help_is_plain_text_with_a_description(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([command, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert not MARKUP.search(text), text
    description = text.split("\n\n")[1]
    assert len(description.split()) >= 8, f"{command} --help has no description"
