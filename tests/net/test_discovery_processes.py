"""A table announced by one process is found by another, over real multicast DNS on this
machine's loopback; its count changes while seats fill, and it is gone once withdrawn.

Whether multicast works here is found by trying (announce and look up in this process);
when it does not (a sandbox without multicast), the tests skip and say why.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from tarot_p2p.net.discovery import LanTable, LanUnavailable, announce, browse, find_channel

ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
ANNOUNCER = Path(__file__).with_name("lan_announcer.py")


def _random_table(host: str, seated: int = 1) -> LanTable:
    # A random channel and fingerprint: other programs on this machine may announce too.
    return LanTable(
        host, 1000 + secrets.randbelow(9000), seated, 4, secrets.token_bytes(16),
        ("127.0.0.1",), 20000 + secrets.randbelow(40000),
    )  # fmt: skip


def _multicast_problem() -> str | None:
    """Why multicast DNS cannot be tested here, or ``None`` when it works."""
    table = _random_table("probe")

    async def probe() -> tuple[str, int] | None:
        async with announce(table):
            return await find_channel(table.channel, 5.0)

    try:
        found = trio.run(probe)
    except LanUnavailable as exc:
        return str(exc)
    if found != (table.address, table.port):
        return "an announcement on loopback is not seen by this very process"
    return None


@pytest.fixture(scope="module")
def multicast() -> None:
    problem = _multicast_problem()
    if problem is not None:
        pytest.skip(f"multicast DNS does not work on this machine: {problem}")


@pytest.fixture
def announcer() -> Iterator[tuple[subprocess.Popen[str], LanTable]]:
    table = _random_table("Zoé Martin")
    args = [table.host, str(table.channel), str(table.seats), str(table.port)]
    process = subprocess.Popen(
        [sys.executable, str(ANNOUNCER), *args, table.fingerprint.hex()],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == "announced\n"
        yield process, table
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


async def _mine(table: LanTable, timeout: float) -> list[LanTable]:
    return [t for t in await browse(timeout) if t.fingerprint == table.fingerprint]


@pytest.mark.usefixtures("multicast")
async def test_another_process_finds_the_table_then_sees_it_fill_and_go(
    announcer: tuple[subprocess.Popen[str], LanTable],
) -> None:
    process, table = announcer
    assert process.stdin is not None and process.stdout is not None
    started = time.monotonic()
    assert await find_channel(table.channel, 5.0) == ("127.0.0.1", table.port)
    assert time.monotonic() - started < 4.0  # found as it answers, not at the timeout
    assert await _mine(table, 2.0) == [table]
    assert table.describe() == "Zoé Martin's table, 1 of 4 seated (127.0.0.1)"

    process.stdin.write("seated 3\n")
    process.stdin.flush()
    assert process.stdout.readline() == "seated 3\n"
    with trio.fail_after(10):  # published in the background, within about a second
        while (found := await _mine(table, 1.5)) != [replace(table, seated=3)]:
            pass
    assert found[0].describe() == "Zoé Martin's table, 3 of 4 seated (127.0.0.1)"

    process.stdin.close()  # the host's seats are full: it withdraws the table
    assert await trio.to_thread.run_sync(process.wait, 10.0) == 0
    assert await _mine(table, 2.0) == []
    assert await find_channel(table.channel, 1.0) is None


@pytest.mark.usefixtures("multicast")
async def test_nothing_announced_is_nothing_found() -> None:
    started = time.monotonic()
    assert await find_channel(1000 + secrets.randbelow(9000), 1.0) is None
    assert 1.0 <= time.monotonic() - started < 3.0
