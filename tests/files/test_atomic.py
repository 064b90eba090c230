"""Files replaced whole: forced to the disk unless told the file is worth nothing after a
crash (``durable=False``), and whole for a reader either way."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tarot_p2p.files.atomic import write_atomic, write_private_atomic


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real_fsync = os.fsync

    def counting(fd: int) -> None:
        calls.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return calls


def test_a_durable_file_and_its_folder_are_synced(tmp_path: Path, synced: list[int]) -> None:
    path = tmp_path / "sheet.json"
    path.write_bytes(b"old")
    write_atomic(path, b"new")
    assert path.read_bytes() == b"new" and len(synced) == 2  # the file, then its folder
    write_private_atomic(path, b"newer")
    assert path.read_bytes() == b"newer" and len(synced) == 4
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_file_worth_nothing_after_a_crash_is_not_synced(
    tmp_path: Path, synced: list[int]
) -> None:
    path = tmp_path / "page.html"
    write_private_atomic(path, b"first", durable=False)
    write_private_atomic(path, b"second", durable=False)
    assert path.read_bytes() == b"second" and synced == []
    assert path.stat().st_mode & 0o777 == 0o600
    assert not path.with_name(path.name + ".tmp").exists()
