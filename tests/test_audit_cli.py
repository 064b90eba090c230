"""``tarot-p2p audit``: exit codes, the three output forms, and no traceback on bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tarot_p2p.cli import audit as audit_cli
from tarot_p2p.cli.main import main
from tarot_p2p.protocol.transcript import HEADER_LEN
from tests.protocol.table_vectors import NAME, VECTOR_DIR

VECTOR = (VECTOR_DIR / f"{NAME}.tp2p").read_bytes()


def record_ends(data: bytes) -> list[int]:
    """Byte offsets just after each record of a transcript file."""
    ends, offset = [], HEADER_LEN
    while offset < len(data):
        offset += 4 + int.from_bytes(data[offset : offset + 4], "big")
        ends.append(offset)
    return ends


def audit(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["audit", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    cut = record_ends(VECTOR)[-2]
    contents = {
        "valid": VECTOR,
        "cut": VECTOR[:cut],
        "torn": VECTOR[: cut + 10],
        "flipped": VECTOR[:5000] + bytes([VECTOR[5000] ^ 4]) + VECTOR[5001:],
        "random": bytes(range(7, 250, 3)) * 20,
        "empty": b"",
    }
    paths = {}
    for name, data in contents.items():
        paths[name] = tmp_path / f"{name}.tp2p"
        paths[name].write_bytes(data)
    return paths


def test_a_valid_game_exits_0_with_the_full_report(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path]
) -> None:
    code, out, _ = audit(capsys, files["valid"])
    assert code == 0
    assert out.startswith(f"{files['valid']}: VALID")
    for words in ("Ana", "Ben", "Cleo", "Hand 1", "deal:", "Score sheet", "Verified"):
        assert words in out
    # People are named, never numbered: no "seat 2", no "0 Cleo".
    assert not re.search(r"\bseats? \d|\b\d (Ana|Ben|Cleo)\b", out), out
    assert re.search(r"playing order, lowest card first \((Ana|Ben|Cleo) deals hand 1\)", out)


@pytest.mark.parametrize(
    ("name", "code", "words"),
    [
        ("cut", 4, "INCOMPLETE"),
        ("torn", 5, "TORN TAIL"),
        ("flipped", 3, "CORRUPT"),
        ("random", 3, "CORRUPT"),
        ("empty", 3, "CORRUPT"),
    ],
)
def test_each_verdict_has_its_exit_code(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], name: str, code: int, words: str
) -> None:
    got, out, err = audit(capsys, "--quiet", files[name])
    assert got == code
    assert out.count("\n") == 1 and words in out
    assert "Traceback" not in out + err
    if name == "cut":  # said once, then who was to speak
        assert out.count("the game is not over") == 1, out
        assert re.search(r"the game is not over — (Ana|Ben|Cleo) .*was to send score", out)


def test_a_missing_file_exits_2_with_a_message(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], tmp_path: Path
) -> None:
    code, _, err = audit(capsys, files["valid"], tmp_path / "nowhere.tp2p")
    assert code == 2
    assert "cannot read" in err and "nowhere.tp2p" in err


def test_json_is_valid_and_complete(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path]
) -> None:
    code, out, _ = audit(capsys, "--json", files["valid"], files["cut"])
    document = json.loads(out)
    assert code == document["exit_code"] == 4
    valid, cut = document["files"]
    assert valid["status"] == "valid" and cut["status"] == "incomplete"
    assert valid["sheet"]["over"] is True and valid["hands"][1]["deal"] is not None
    assert cut["failure"]["expected"]["kinds"] == ["score"]
    assert document["comparison"]["agreement"] == "same"


def test_several_files_are_compared(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path]
) -> None:
    code, out, _ = audit(capsys, "--quiet", files["valid"], files["cut"], files["valid"])
    assert code == 4
    assert out.splitlines()[-1].startswith("Files agree")
    code, out, _ = audit(capsys, "--quiet", files["valid"], files["flipped"])
    assert code == 3 and "Files DISAGREE" in out


def test_a_verifier_bug_is_no_verdict(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(data: bytes) -> None:
        raise KeyError("slot")

    monkeypatch.setattr(audit_cli, "audit_file", broken)
    code, out, err = audit(capsys, files["valid"])
    assert code == 70 and out == ""
    assert "internal error" in err and "KeyError" in err and "Traceback" not in err


def test_the_installed_command_reports_garbage_without_a_traceback(
    files: dict[str, Path],
) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run(
        [sys.executable, "-m", "tarot_p2p", "audit", str(files["random"])],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode == 3
    assert "CORRUPT" in done.stdout and "Traceback" not in done.stderr


def test_a_damaged_set_up_is_a_bad_signature_not_a_rule_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The set-up's signature is checked before its configuration is read (wire.md §3.3)."""
    at = VECTOR.index(b"players=3") + len(b"players=")
    path = tmp_path / "setup.tp2p"
    path.write_bytes(VECTOR[:at] + b"9" + VECTOR[at + 1 :])
    code, out, err = audit(capsys, path)
    assert code == 3 and "CORRUPT" in out and "nobody provably signed" in out
    assert "players must be" not in out and "Traceback" not in out + err


OLDER = Path(__file__).parent / "data" / "version1_draw_excuse.tp2p"
"""A transcript written before escrowed hand keys (``tarot-p2p/table-config/v1``), frozen."""


def test_a_table_of_an_older_version_is_told_as_such_and_blames_nobody(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = audit(capsys, OLDER)
    assert code == 8
    assert "OTHER VERSION" in out and "older tarot-p2p" in out
    assert "VIOLATION" not in out and "Evidence" not in out
    assert "Traceback" not in out + err
