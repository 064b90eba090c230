"""``join CODE`` as a player types it: short or long code, the relay remembered, and every
mistake answered in words with the next step."""

from __future__ import annotations

from pathlib import Path

import pytest

from tarot_p2p.cli.main import build_parser
from tarot_p2p.files.profile import Profile


def join(*argv: str) -> int:
    args = build_parser().parse_args(["join", *argv])
    code: int = args.func(args)
    return code


def test_a_typo_in_the_short_code_gets_a_suggestion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert join("7-gitar-orbit", "--profile", str(tmp_path)) == 2
    assert "did you mean 'guitar'" in capsys.readouterr().err


def test_a_code_with_a_part_missing_says_what_a_code_looks_like(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert join("guitar-orbit", "--profile", str(tmp_path)) == 2
    assert "like 7-guitar-orbit" in capsys.readouterr().err


def test_the_relay_is_remembered_then_forgotten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Nothing listens on port 1: the lookup fails, in words, but the relay is kept.
    assert join("7-guitar-orbit", "--relay", "127.0.0.1:1", "--profile", str(tmp_path)) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
    assert Profile(tmp_path).relay() == "127.0.0.1:1"
    assert join("7-guitar-orbit", "--no-relay", "--profile", str(tmp_path)) in (1, 2)
    assert Profile(tmp_path).relay() is None


def test_a_short_code_with_a_host_key_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert join("7-guitar-orbit", "--host-key", "00" * 16, "--profile", str(tmp_path)) == 2
    assert "leave out --host-key" in capsys.readouterr().err


def test_a_bad_relay_address_says_what_to_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert join("7-guitar-orbit", "--relay", "host:99999", "--profile", str(tmp_path)) == 2
    assert "is not a port" in capsys.readouterr().err
