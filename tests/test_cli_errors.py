"""Every error a player can meet says what to do next, and no traceback reaches anyone.

Real processes (``python -m tarot_p2p``) for what a player types; a real hub on loopback
where a table is needed. Each test checks the exit status, that stderr holds no traceback,
and that it names the next step."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli import main as cli_main
from tarot_p2p.cli import play
from tarot_p2p.cli.errors import ERROR_LOG
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.meet.lobby import LobbyChange, Seating
from tarot_p2p.net.hub import Hub
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.rules.config import GameEnd, TableConfig
from tests.net.test_game import SECRET, TABLE_ID, identity, tcp_hub

ROOT = str(Path(__file__).resolve().parents[1])
ENV = {"PYTHONPATH": ROOT, "PATH": "/usr/bin:/bin", "HOME": "/nonexistent-home"}
CONFIG = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=1)


def command(*words: str) -> list[str]:
    return [sys.executable, "-m", "tarot_p2p", *words]


def run(words: Sequence[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(*words), capture_output=True, text=True, env=ENV, timeout=timeout, check=False
    )


def plain(stderr: str, *wanted: str) -> None:
    """No traceback, and every ``wanted`` piece of advice (case-insensitive)."""
    assert "Traceback" not in stderr and "Error:" not in stderr, stderr
    for piece in wanted:
        assert piece.lower() in stderr.lower(), stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_refused_connection(tmp_path: Path) -> None:
    code = Hub(identity("err", 0), TABLE_ID, b"\x01" * 16).join_code("127.0.0.1", free_port())
    done = run(["join", code.encode(), "--ui", "terminal", "--profile", str(tmp_path)])
    assert done.returncode == 1
    plain(done.stderr, "cannot reach the table", "host's program is still running", "again")


def test_an_address_that_does_not_exist(tmp_path: Path) -> None:
    code = Hub(identity("err", 0), TABLE_ID, b"\x01" * 16).join_code("nowhere.invalid", 7000)
    done = run(["bot", code.encode(), "--profile", str(tmp_path)])
    assert done.returncode == 1
    plain(done.stderr, "cannot be found", "whole code")


def test_a_join_code_with_a_typo(tmp_path: Path) -> None:
    code = Hub(identity("err", 0), TABLE_ID, b"\x01" * 16).join_code("127.0.0.1", 7000).encode()
    typo = code[:-3] + ("a" if code[-3] != "a" else "b") + code[-2:]
    for wrong in (typo, "tp2p1-hello", "hello"):
        done = run(["join", wrong, "--ui", "terminal", "--profile", str(tmp_path)])
        assert done.returncode == 2
        plain(done.stderr, "copy the whole long code")


def test_a_profile_folder_that_cannot_be_used(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for words in (["resume"], ["host", "--ui", "terminal", "--bot"]):
        done = run([*words, "--profile", str(blocker / "profile")])
        assert done.returncode == 2
        plain(done.stderr, "--profile")


def test_a_port_already_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        words = ["host", "--ui", "terminal", "--bot", "--listen", "127.0.0.1", "--port", port]
        done = run([*words, "--profile", str(tmp_path)])
    assert done.returncode == 1
    plain(done.stderr, "already in use", "--port")


def test_a_broken_pipe_on_stdout() -> None:
    process = subprocess.Popen(
        command("play", "--deals", "20", "--level", "easy"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # like `tarot-p2p play | head -1`
    stderr = process.stderr.read()
    process.wait(60)
    plain(stderr)
    assert stderr == ""


def test_an_unexpected_error_is_logged_not_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(args: object) -> int:
        raise RuntimeError("a bug nobody foresaw")

    monkeypatch.setattr(play, "run", broken)
    monkeypatch.setattr("tarot_p2p.cli.errors.default_root", lambda: tmp_path)
    assert cli_main.main(["play"]) == 1
    stderr = capsys.readouterr().err
    plain(stderr, "did not expect", str(tmp_path / ERROR_LOG))
    assert "a bug nobody foresaw" not in stderr
    details = (tmp_path / ERROR_LOG).read_text()
    assert "Traceback" in details and "RuntimeError: a bug nobody foresaw" in details
    assert "tarot-p2p play" in details


async def fake_host(
    hub: Hub, host: Ed25519PrivateKey, seat_joiner: bool, changes: list[LobbyChange]
) -> None:
    """Seat whoever asks (``seat_joiner``) or two strangers, and send the set-up signed by
    the hub's key; every lobby change is noted in ``changes``."""
    link = hub.local_link()
    seating = Seating(3, host.public_key(), "Host", SECRET)
    while True:
        change = seating.offer(await link.receive(), TABLE_ID, trio.current_time())
        if change is None:
            continue
        changes.append(change)
        if change.kind != "joined" or len(changes) > 1:
            continue
        keys = [host.public_key(), *(identity("stranger", i).public_key() for i in range(2))]
        names = ["Host", "Ann", "Bob"]
        if seat_joiner:
            keys[1], names[1] = seating.keys[1], change.name
        setup = Peer(
            CONFIG, TABLE_ID, keys, names, seat=0, identity=host, rng=DeterministicRandom(b"h")
        ).next_message()
        assert setup is not None
        await link.send(setup)


async def join_process(
    words: Sequence[str], hub: Hub, host: Ed25519PrivateKey, seat_joiner: bool
) -> tuple[int, str, list[LobbyChange]]:
    changes: list[LobbyChange] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(fake_host, hub, host, seat_joiner, changes)
        done = await trio.run_process(
            command(*words), capture_stdout=True, capture_stderr=True, env=ENV, check=False
        )
        nursery.cancel_scope.cancel()
    return done.returncode, done.stderr.decode(), changes


async def test_a_full_table(tmp_path: Path) -> None:
    host = identity("err", 0)
    async with tcp_hub(host) as (hub, _, code):
        words = ["bot", code.encode(), "--profile", str(tmp_path), "--lobby-timeout", "60"]
        status, stderr, _ = await join_process(words, hub, host, seat_joiner=False)
    assert status == 3
    plain(stderr, "table is full", "ask the host")


async def test_a_host_key_that_is_not_the_one_required(tmp_path: Path) -> None:
    host = identity("err", 0)
    async with tcp_hub(host) as (hub, _, code):
        words = ["bot", code.encode(), "--profile", str(tmp_path), "--lobby-timeout", "8"]
        words += ["--host-key", "00" * 16]
        status, stderr, _ = await join_process(words, hub, host, seat_joiner=True)
    assert status == 1
    plain(stderr, "no set-up from the host within 8 s", "host key", "--lobby-timeout")


async def test_a_lobby_timeout(tmp_path: Path) -> None:
    async with tcp_hub(identity("err", 0)) as (_, _, code):
        words = ["bot", code.encode(), "--profile", str(tmp_path), "--lobby-timeout", "3"]
        done = await trio.run_process(
            command(*words), capture_stderr=True, capture_stdout=True, env=ENV, check=False
        )
    assert done.returncode == 1
    plain(done.stderr.decode(), "no set-up from the host within 3 s", "--lobby-timeout")


async def test_ctrl_c_in_the_lobby_leaves_the_table(tmp_path: Path) -> None:
    """The joiner's program is interrupted while it waits for the others: it says how to
    come back, and the host hears its leave request at once (no ghost seat)."""
    host = identity("err", 0)
    changes: list[LobbyChange] = []
    words = ["join", "", "--ui", "terminal", "--name", "Bob", "--verbose"]
    words += ["--profile", str(tmp_path)]
    errors = tmp_path / "stderr.txt"
    async with tcp_hub(host) as (hub, _, code):
        words[1] = code.encode()
        link = hub.local_link()
        seating = Seating(4, host.public_key(), "Host", SECRET)
        with errors.open("wb") as stderr:
            async with trio.open_nursery() as nursery:
                process: trio.Process = await nursery.start(
                    lambda task_status: trio.run_process(
                        command(*words), stdout=subprocess.DEVNULL, stderr=stderr, env=ENV,
                        check=False, task_status=task_status,
                    )
                )  # fmt: skip
                with trio.move_on_after(60):
                    while not changes or changes[-1].kind != "left":
                        change = seating.offer(await link.receive(), TABLE_ID, trio.current_time())
                        if change is not None:
                            changes.append(change)
                            if change.kind == "joined":
                                process.send_signal(signal.SIGINT)
                with trio.move_on_after(10):
                    await process.wait()
                process.kill()
    told = errors.read_text(errors="replace")
    assert [(c.kind, c.name) for c in changes] == [("joined", "Bob"), ("left", "Bob")], told
    assert process.returncode == 130, told


def test_help_and_usage_errors_still_exit_as_argparse_does() -> None:
    assert run(["play", "--help"]).returncode == 0
    done = run(["play", "--players", "9"])
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert os.environ.get("TAROT_P2P_NEVER_SET") is None
