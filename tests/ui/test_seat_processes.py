"""The real program, as a player runs it: the page's key is in no command line, the entry
file is the player's alone, only the cookie the key gets opens the seat's WebSocket, and
the same command run again after a kill -9 serves the same page to the same cookie."""

from __future__ import annotations

import contextlib
import re
import stat
from pathlib import Path

import pytest
import trio

from tests.seat import test_resume_processes as processes
from tests.seat.test_resume_processes import Program

from .page_client import Socket, enter, http, open_socket, page_key, proves

pytestmark = pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")

FAKE_BROWSER = """#!/bin/sh
printf '%s\\n' "$@" > "$0.args"
sleep 3
"""


def host(profile: Path, *more: str, bots: int = 2) -> list[str]:
    return [
        "host",
        "--players",
        "3",
        "--bots",
        str(bots),
        "--deals",
        "1",
        "--listen",
        "127.0.0.1",
        "--no-announce",
        "--profile",
        str(profile),
        "--name",
        "Alice",
        *more,
    ]


async def until(what: str, check: object, timeout: float = 60) -> object:
    with trio.fail_after(timeout):
        while True:
            found = check() if callable(check) else check
            if found:
                return found
            await trio.sleep(0.05)
    raise AssertionError(what)


def entry_of(program: Program) -> Path | None:
    found = re.search(r"your table: file://(\S+)", program.output())
    return Path(found.group(1)) if found else None


def command_lines() -> list[bytes]:
    lines = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):  # gone meanwhile
                lines.append((proc / "cmdline").read_bytes())
    return lines


async def test_the_key_is_in_no_command_line_and_works_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser = tmp_path / "browser"
    browser.write_text(FAKE_BROWSER)
    browser.chmod(0o700)
    monkeypatch.setitem(processes.ENV, "BROWSER", str(browser))
    program = Program(host(tmp_path / "profile"), tmp_path / "host.log")
    try:
        entry = await until("the page's address", lambda: entry_of(program))
        assert isinstance(entry, Path)
        key = page_key(entry)
        # The browser was opened on the file's path, and nothing secret is in any
        # process's command line while it runs.
        args = Path(f"{browser}.args")
        await until("the browser", args.exists)
        assert args.read_text().split() == [entry.as_uri()]
        lines = command_lines()
        assert any(entry.as_uri().encode() in line for line in lines), "the browser is running"
        assert not any(key.encode() in line for line in lines)
        assert stat.S_IMODE(entry.stat().st_mode) == 0o600
        assert stat.S_IMODE(entry.parent.stat().st_mode) == 0o700
        assert entry.parent == tmp_path / "profile" / "page"

        port = int(entry.name.removeprefix("page-").removesuffix(".html"))
        assert await open_socket(port, cookie=None) == 403
        assert (await http(port, "GET", "/")).status == 403
        cookie = await enter(port, key)
        assert cookie is not None
        assert await enter(port, key) is None, "the key works once"
        sock = await open_socket(port, cookie=cookie)
        assert isinstance(sock, Socket)
        proof, hello, *_ = await sock.until(3)
        assert proof["type"] == "proof"
        assert hello["type"] == "hello" and len(hello["cards"]) == 78
        await sock.aclose()
    finally:
        program.kill()
    assert not program.output().count("Traceback")


TAKEN = "another program on this computer now uses port"


async def test_the_same_command_again_serves_the_same_page(tmp_path: Path) -> None:
    # Any program on the machine may take the freed port in between (it is an ephemeral
    # one); the program then says so, and the scenario is tried again on a fresh profile.
    for attempt in range(3):
        if await same_page_again(tmp_path / str(attempt)):
            return
    raise AssertionError("the page's port was taken by another program three times")


async def same_page_again(tmp_path: Path) -> bool:
    """Kill -9 the host and run it again: True once the page came back; False when
    another program took its port in between."""
    profile = tmp_path / "profile"
    tmp_path.mkdir()
    program = Program(host(profile, "--no-open"), tmp_path / "host.log")
    try:
        entry = await until("the page's address", lambda: entry_of(program))
        assert isinstance(entry, Path)
        assert "open it in a browser on this computer (--no-open)" in program.output()
        port = int(entry.name.removeprefix("page-").removesuffix(".html"))
        cookie = await enter(port, page_key(entry))
        assert cookie is not None
        sock = await open_socket(port, cookie=cookie)
        assert isinstance(sock, Socket)
        key = (await sock.until(1))[0]["key"]
        await until("the game", lambda: "Table " in program.output())
        await sock.aclose()
    finally:
        program.kill()

    again = Program(host(profile, "--no-open"), tmp_path / "again.log")
    try:
        entry = await until("the page's address again", lambda: entry_of(again))
        assert "taking it back" in again.output()
        if entry != profile / "page" / f"page-{port}.html":
            await until("why", lambda: TAKEN in again.output())
            assert f"{TAKEN} {port}," in again.output(), again.output()
            return False

        # The tab left open asks until its own program proves it is back, then reloads:
        # its cookie still works, and the program does not open another tab.
        with trio.fail_after(30):
            while not await proves(port, key):
                await trio.sleep(0.2)
        sock = await open_socket(port, cookie=cookie)
        assert isinstance(sock, Socket)
        await sock.until(3)
        await until("the page came back", lambda: "your page came back by itself" in again.output())
        assert TAKEN not in again.output()
        await sock.aclose()
    finally:
        again.kill()
    assert "Traceback" not in again.output()
    return True


async def test_a_joiner_run_again_serves_the_same_page(tmp_path: Path) -> None:
    hosting = Program(
        host(tmp_path / "host", "--bot", bots=1),
        tmp_path / "host.log",
    )
    joiner: Program | None = None
    try:
        found = await until("the code", lambda: re.search(r"join code: (\S+)", hosting.output()))
        assert isinstance(found, re.Match)
        join = ["join", found.group(1), "--no-open", "--profile", str(tmp_path / "bob")]
        joiner = Program([*join, "--name", "Bob"], tmp_path / "bob.log")
        entry = await until("the page's address", lambda: entry_of(joiner))
        assert isinstance(entry, Path)
        port = int(entry.name.removeprefix("page-").removesuffix(".html"))
        cookie = await enter(port, page_key(entry))
        assert cookie is not None
        await until("the game", lambda: "Table " in joiner.output())
        joiner.kill()

        joiner = Program([*join, "--name", "Bob"], tmp_path / "bob-again.log")
        again = await until("the page's address again", lambda: entry_of(joiner))
        assert again == entry, "the same port"
        sock = await open_socket(port, cookie=cookie)
        assert isinstance(sock, Socket)
        await sock.until(3)
        await sock.aclose()
    finally:
        if joiner is not None:
            joiner.kill()
        hosting.kill()
