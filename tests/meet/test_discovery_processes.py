"""A table announced by one process is found by another, over real multicast DNS on this
machine's loopback; its count changes while seats fill, and it is gone once withdrawn.

Whether multicast works here is found by trying (announce and look up in this process);
when it does not (a sandbox without multicast), the tests skip and say why.
"""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest
import trio
from zeroconf import IPVersion, ServiceInfo, Zeroconf

from tarot_p2p.cli import lan
from tarot_p2p.cli.lan import CodeCheck, CodeRefused, HostOnLan, LanChoice, choose_table
from tarot_p2p.meet.discovery import (
    SERVICE_TYPE,
    LanTable,
    LanUnavailable,
    announce,
    browse,
    find_channel,
    txt_fields,
)
from tarot_p2p.meet.rendezvous import Invitation
from tarot_p2p.meet.words import parse as parse_short_code
from tarot_p2p.net.joincode import JoinCode
from tests.seat.test_resume_processes import ENV, PYTHON, Program, wait_for

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


@contextmanager
def announced_elsewhere(table: LanTable) -> Iterator[subprocess.Popen[str]]:
    """``table`` announced by another process (``lan_announcer.py``) for the block."""
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
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


@pytest.fixture
def announcer() -> Iterator[tuple[subprocess.Popen[str], LanTable]]:
    table = _random_table("Zoé Martin")
    with announced_elsewhere(table) as process:
        yield process, table


async def _mine(table: LanTable, timeout: float) -> list[LanTable]:
    return [t for t in await browse(timeout) if t.fingerprint == table.fingerprint]


@pytest.mark.usefixtures("multicast")
async def test_another_process_finds_the_table_follows_it_and_sees_it_go(
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

    # A new short code (the old one met too many wrong tries) moves the table's channel.
    channel = table.channel % 9000 + 1
    process.stdin.write(f"channel {channel}\n")
    process.stdin.flush()
    assert process.stdout.readline() == f"channel {channel}\n"
    with trio.fail_after(10):
        while await find_channel(channel, 1.0) != ("127.0.0.1", table.port):
            pass
    assert await find_channel(table.channel, 1.0) is None

    process.stdin.close()  # the host's seats are full: it withdraws the table
    assert await trio.to_thread.run_sync(process.wait, 10.0) == 0
    assert await _mine(table, 2.0) == []
    assert await find_channel(table.channel, 1.0) is None


@pytest.mark.usefixtures("multicast")
async def test_nothing_announced_is_nothing_found() -> None:
    started = time.monotonic()
    assert await find_channel(1000 + secrets.randbelow(9000), 1.0) is None
    assert 1.0 <= time.monotonic() - started < 3.0


def only(code: str) -> CodeCheck:
    """A check that accepts ``code`` alone, as the table's host would."""

    def check(table: LanTable, text: str) -> Invitation | None:
        if text != code:
            raise CodeRefused("the host's program says this code is wrong.")
        return None

    return check


@pytest.mark.usefixtures("multicast")
def test_choose_table_lists_the_tables_and_asks_for_the_code_until_it_is_right(
    announcer: tuple[subprocess.Popen[str], LanTable], capsys: pytest.CaptureFixture[str]
) -> None:
    _, table = announcer
    other = _random_table("Bernard")
    asked: list[str] = []
    numbers: dict[str, str] = {}

    def ask(prompt: str) -> str:
        asked.append(prompt)
        if not numbers:
            for line in capsys.readouterr().out.splitlines():
                for t in (table, other):
                    if line.endswith(t.describe()):
                        numbers[t.host] = line.split(")")[0].strip()
        if prompt.startswith("Which table"):
            return "nine" if len(asked) == 1 else numbers["Bernard"]  # not a number: again
        # At the code: a typo, then the other table's number from the list (the player
        # meant Zoé's), then the code.
        answers = ["7 guitar orbt", numbers["Zoé Martin"], " 7 guitar orbit "]
        return answers[len(asked) - 3]

    async def two_tables() -> LanChoice | None:
        async with announce(other):
            return await trio.to_thread.run_sync(choose_table, only("7 guitar orbit"), ask, 3.0)

    choice = trio.run(two_tables)
    assert choice == LanChoice(table, "7 guitar orbit", None)
    assert asked[0] == asked[1] and asked[1].startswith("Which table do you join?")
    # The host is named in the question; a wrong code is said so and asked again.
    code = "reads aloud (it looks like 7-guitar-orbit; Enter alone to leave): "
    assert asked[2:] == [f"Type the code Bernard {code}"] * 2 + [f"Type the code Zoé Martin {code}"]
    out = capsys.readouterr().out
    assert "the host's program says this code is wrong." in out
    assert f"Table {numbers['Zoé Martin']}: {table.describe()}." in out


@pytest.mark.usefixtures("multicast")
def test_an_empty_answer_leaves(
    announcer: tuple[subprocess.Popen[str], LanTable], capsys: pytest.CaptureFixture[str]
) -> None:
    other = _random_table("Bernard")
    for answers in (["", "unused"], ["1", "7 guitar orbt", ""]):

        async def two_tables(given: Iterator[str]) -> LanChoice | None:
            async with announce(other):
                return await trio.to_thread.run_sync(
                    choose_table, only("7 guitar orbit"), lambda _: next(given), 3.0
                )

        assert trio.run(two_tables, iter(answers)) is None
        assert "left without joining" in capsys.readouterr().out


def test_choose_table_with_nothing_announced_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def nothing(seconds: float) -> list[LanTable]:
        return []

    async def no_network(seconds: float) -> list[LanTable]:
        raise LanUnavailable("this computer's network does not let programs find each other")

    monkeypatch.setattr(lan, "browse", nothing)
    assert choose_table(only(""), lambda _: pytest.fail("nothing to ask"), 0.1) is None
    assert "No table found on your network." in capsys.readouterr().out
    monkeypatch.setattr(lan, "browse", no_network)
    assert choose_table(only(""), lambda _: pytest.fail("nothing to ask"), 0.1) is None
    out = capsys.readouterr().out
    assert "does not let programs find each other" in out
    assert "run: tarot-p2p join CODE" in out


@pytest.mark.usefixtures("multicast")
def test_a_single_table_still_asks_for_the_code_and_ctrl_d_leaves(
    announcer: tuple[subprocess.Popen[str], LanTable],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, table = announcer

    async def only_mine(seconds: float) -> list[LanTable]:
        return [t for t in await browse(seconds) if t.fingerprint == table.fingerprint]

    monkeypatch.setattr(lan, "browse", only_mine)

    def ctrl_d(prompt: str) -> str:
        assert prompt.startswith("Type the code Zoé Martin reads aloud")
        raise EOFError

    assert choose_table(only(""), ctrl_d, 2.0) is None
    out = capsys.readouterr().out
    assert f"Found {table.describe()}." in out
    assert "left without joining" in out


def _hosting(tmp_path: Path, players: int, bots: int, *extra: str) -> Program:
    return Program(
        [
            "host", "--bot", "--players", str(players), "--bots", str(bots), "--deals", "1",
            "--listen", "127.0.0.1", "--name", "Zoé", "--profile", str(tmp_path / "host"),
            "--timeout", "60", "--decision-timeout", "60", *extra,
        ],
        tmp_path / "host.log",
    )  # fmt: skip


def _short_code(host: Program, deadline: float) -> str:
    found = wait_for(
        "the short code",
        lambda: re.search(r"Read this code to your friends: (\S+)", host.output()),
        deadline,
    )
    assert isinstance(found, re.Match)
    return found[1]


@pytest.mark.usefixtures("multicast")
def test_join_without_a_code_sits_at_the_table_the_host_announces(tmp_path: Path) -> None:
    """``join`` with no code, as a player runs it: the host's table found on the network,
    the short code the host shows typed at the prompt after three mistakes, each asked
    again, and the host sees the player come."""
    deadline = time.monotonic() + 90
    host = _hosting(tmp_path, 4, 1)
    joiner = None
    try:
        code = _short_code(host, deadline)
        wait_for("the announcement", lambda: "announced on your network" in host.output(), deadline)
        port = re.search(r"open on port (\d+) \(127\.0\.0\.1\)", host.output())
        assert port is not None
        key = re.search(r"join code: (\S+)", host.output())
        assert key is not None
        fp = JoinCode.decode(key[1]).hub_fingerprint
        table = LanTable(
            "Zoé", parse_short_code(code).channel, 2, 4, fp, ("127.0.0.1",), int(port[1])
        )
        with open(tmp_path / "joiner.log", "wb") as log:
            joiner = subprocess.Popen(
                [*PYTHON, "join", "--ui", "terminal", "--name", "Pierre",
                 "--profile", str(tmp_path / "joiner")],
                stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, text=True, env=ENV,
            )  # fmt: skip
        typed = wait_for(
            "the list of tables",
            lambda: _typed(table, code, (tmp_path / "joiner.log").read_text()),
            deadline,
        )
        assert joiner.stdin is not None
        joiner.stdin.write(str(typed))
        joiner.stdin.flush()
        wait_for("Pierre seen by the host", lambda: "Pierre joined" in host.output(), deadline)
        said = (tmp_path / "joiner.log").read_text()
        assert said.count("Type the code Zoé reads aloud") == 4, said
        assert "is not one of the code words: did you mean" in said
        assert f"Table 1: {table.describe()}." in said
        assert "the host's program says this code is wrong" in said
        # One wrong try is not news for the host: it is told only when a code is used up.
        assert "wrong code" not in host.output() and "trying codes" not in host.output()
    finally:
        host.kill()
        if joiner is not None:
            joiner.kill()
            joiner.wait()


@pytest.mark.usefixtures("multicast")
def test_a_short_code_alone_finds_its_host_on_the_network_and_the_game_is_played(
    tmp_path: Path,
) -> None:
    """``bot 7-guitar-orbit`` with no relay known: the host is found by its channel on the
    network, the code's exchange gives the long code and the host key, and a deal is played."""
    deadline = time.monotonic() + 150
    host = _hosting(tmp_path, 3, 1)
    bot = None
    try:
        code = _short_code(host, deadline)
        wait_for("the announcement", lambda: "announced on your network" in host.output(), deadline)
        bot = Program(
            ["bot", code, "--name", "Pierre", "--profile", str(tmp_path / "bot"),
             "--timeout", "60", "--decision-timeout", "60"],
            tmp_path / "bot.log",
        )  # fmt: skip
        assert bot.wait(deadline) == 0, bot.output()
        assert host.wait(deadline) == 0, host.output()
        assert "Pierre joined" in host.output()
    finally:
        for program in (host, bot):
            if program is not None and program.process and program.process.poll() is None:
                program.kill()


def _typed(table: LanTable, code: str, listing: str) -> str | None:
    """What a player types once ``join`` lists the tables: the number of ``table``'s line
    (unless it is the only table: no question), then at the code's prompt a typo, the
    table's number again, the code's words swapped (a code the host refuses), then the
    code; ``None`` while not listed."""
    number, first, second = code.split("-")
    mistakes = f"{number}-{first[:-1]}-{second}\n1\n{number}-{second}-{first}\n{code}\n"
    for line in listing.splitlines():
        if line.startswith(f"Found {table.describe()}"):
            return mistakes
        if line.startswith("  ") and line.endswith(table.describe()):
            return f"{line.split(')')[0].strip()}\n{mistakes}"
    return None


@pytest.mark.usefixtures("multicast")
async def test_the_host_announces_from_its_first_code_until_its_seats_are_taken(
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = _random_table("Zoé", seated=2)
    lan = HostOnLan("127.0.0.1", table.port, table.host, table.seats, table.fingerprint, 2)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lan.run)
        assert await _mine(table, 1.0) == []  # no short code yet: nothing to announce
        lan.new_code(table.channel)
        with trio.fail_after(10):
            while await find_channel(table.channel, 1.0) != ("127.0.0.1", table.port):
                pass
        lan.seated(3)
        with trio.fail_after(10):
            while await _mine(table, 1.0) != [replace(table, seated=3)]:
                pass
        nursery.cancel_scope.cancel()  # every seat taken
    assert await _mine(table, 1.5) == []
    assert capsys.readouterr().out == (
        "your table is announced on your network: friends there can also run tarot-p2p "
        "join without a code\n"
    )


async def test_a_host_listening_on_no_lan_address_says_it_is_not_announced(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lan = HostOnLan("::1", 4000, "Zoé", 4, bytes(16), 1)
    lan.new_code(7)
    await lan.run()
    assert capsys.readouterr().out == (
        "your table is not announced on the network (the hub listens on ::1): "
        "friends join with the code\n"
    )


@pytest.mark.usefixtures("multicast")
async def test_strangers_announcements_are_skipped_and_the_good_one_found() -> None:
    """Services of our type with a broken TXT record (another program, a later version,
    garbage) are left out of the list; nothing fails and the valid table is listed."""
    good = _random_table("Zoé")
    fields = txt_fields(good)
    broken: list[dict[str, str] | bytes] = [
        {**fields, "v": "2"},
        {**fields, "s": "4/4"},
        {k: v for k, v in fields.items() if k != "ch"},
        b"\x07garbage\xff\xfe\x00\x03v=1",
    ]
    zc = await trio.to_thread.run_sync(
        partial(Zeroconf, interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    )
    try:
        for i, txt in enumerate(broken):
            info = ServiceInfo(
                SERVICE_TYPE, f"stranger {i} {good.port}.{SERVICE_TYPE}", port=good.port,
                properties=txt, server=f"stranger-{good.port}.local.",
                parsed_addresses=["127.0.0.1"],
            )  # fmt: skip
            register = partial(zc.register_service, info, cooperating_responders=True)
            await trio.to_thread.run_sync(register)  # no probe: the names are ours
        async with announce(good):
            listed = await browse(3.0)
    finally:
        await trio.to_thread.run_sync(zc.close)
    assert [t for t in listed if t.port == good.port] == [good]


def test_ctrl_c_while_looking_leaves_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def interrupted(seconds: float) -> list[LanTable]:
        raise KeyboardInterrupt

    monkeypatch.setattr(lan, "browse", interrupted)
    assert choose_table(only(""), lambda _: pytest.fail("nothing to ask"), 0.1) is None
    assert capsys.readouterr().out.endswith("\nleft without joining\n")
