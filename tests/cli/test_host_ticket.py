"""``host``: the table's ticket (what ``host`` run again needs to take the table back) is
written in a worker thread while the lobby fills, and the game waits for it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from tarot_p2p.cli import host as host_cli
from tarot_p2p.cli.main import build_parser
from tarot_p2p.files.profile import TICKET_FILE, Profile

HANG_GUARD = 60.0
"""Seconds before a test that would hang gives up (never reached when it passes)."""


def test_the_game_waits_for_the_ticket_written_beside_the_lobby(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The ticket's writing is held until every task of the program is blocked after the
    # lobby: the host's own task must then be waiting for it, not playing already.
    release = threading.Event()
    seen: list[tuple[bool, bool]] = []
    real_save = Profile.save_ticket
    real_host_table = host_cli.host_table

    def held_save(self: Profile, files: Any, ticket: Any) -> None:
        assert release.wait(HANG_GUARD)
        real_save(self, files, ticket)

    async def releaser() -> None:
        await trio.testing.wait_all_tasks_blocked()
        release.set()

    async def lobby(*args: Any, **kwargs: Any) -> Any:
        peer = await real_host_table(*args, **kwargs)
        trio.lowlevel.spawn_system_task(releaser)
        return peer

    async def first_message(
        peer: Any, link: Any, policy: Any, tables: Path, *a: Any, **k: Any
    ) -> Any:
        await trio.lowlevel.checkpoint()
        tickets = list(tables.rglob(TICKET_FILE))
        seen.append((release.is_set(), len(tickets) == 1))
        raise ValueError("stopped by the test before the first message")

    monkeypatch.setattr(Profile, "save_ticket", held_save)
    monkeypatch.setattr(host_cli, "host_table", lobby)
    monkeypatch.setattr(host_cli, "play_seat", first_message)
    args = build_parser().parse_args(
        ["host", "--bot", "--bots", "3", "--listen", "127.0.0.1", "--profile", str(tmp_path)]
    )
    assert args.func(args) == 2
    assert "stopped by the test" in capsys.readouterr().err
    assert seen == [(True, True)]
