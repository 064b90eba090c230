"""``--ui`` and ``--no-open``: the page's address is always printed; the browser is opened
on it when asked and when a graphical one can be, otherwise the player is told what to
do; a program run again gives the tab left open a moment to come back first."""

from __future__ import annotations

import functools
import webbrowser
from pathlib import Path

import pytest
import trio

from tarot_p2p.cli.join import table_folder
from tarot_p2p.cli.main import build_parser
from tarot_p2p.cli.player import human_policy, with_page
from tarot_p2p.cli.terminal import TerminalPolicy
from tarot_p2p.files.profile import Profile, Ticket
from tarot_p2p.meet.words import parse as parse_short_code
from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.ui import browser as opening
from tarot_p2p.ui.browser import browser_available, show_page
from tarot_p2p.ui.entry import PageMemory
from tarot_p2p.ui.policy import BrowserPolicy, play_in_browser

from .page_client import Socket, enter, open_socket, page_key, served


def args(*argv: str) -> object:
    return build_parser().parse_args(["join", "tp2p1-x", *argv])


def test_the_page_by_default_in_the_systems_language(tmp_path: Path) -> None:
    policy = human_policy(args("--lang", "en"))
    assert isinstance(policy, BrowserPolicy) and policy.words.lang == "en"
    main = test_the_page_by_default_in_the_systems_language
    wrapped = with_page(policy, main, args(), Profile(tmp_path), None)  # type: ignore[arg-type]
    assert isinstance(wrapped, functools.partial) and wrapped.func is play_in_browser
    assert wrapped.keywords == {"open_page": True, "when_admitted": False}
    no_open = with_page(policy, main, args("--no-open"), Profile(tmp_path), None)  # type: ignore[arg-type]
    assert isinstance(no_open, functools.partial) and no_open.keywords == {
        "open_page": False,
        "when_admitted": False,
    }


def test_the_terminal_when_asked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    policy = human_policy(args("--ui", "terminal"))
    assert isinstance(policy, TerminalPolicy)
    main = test_the_terminal_when_asked
    assert with_page(policy, main, args(), Profile(tmp_path), None) is main  # type: ignore[arg-type]
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("browser", ["lynx", "w3m", "www-browser"])
def test_a_text_browser_is_not_used(monkeypatch: pytest.MonkeyPatch, browser: str) -> None:
    monkeypatch.setenv("BROWSER", browser)
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    assert not browser_available()


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the browser was opened on (nothing is opened for real)."""
    calls: list[str] = []

    def record(url: str) -> bool:
        calls.append(url)
        return True

    monkeypatch.setenv("BROWSER", "firefox")
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "open", record)
    return calls


async def test_the_address_is_printed_and_the_browser_opened_on_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], opened: list[str]
) -> None:
    async with served(tmp_path) as s:
        await show_page(s.server, open_page=True)
        out = capsys.readouterr().out
        key = page_key(s.entry)
        assert f"your table: {s.entry.as_uri()}\n" in out
        assert f"http://127.0.0.1:{s.port}/#k={key})" in out  # for a browser that cannot
        assert "opened in your browser" in out
        assert opened == [s.entry.as_uri()] and key not in opened[0]


async def test_no_open_prints_the_address_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], opened: list[str]
) -> None:
    async with served(tmp_path) as s:
        await show_page(s.server, open_page=False)
        out = capsys.readouterr().out
        assert f"your table: {s.entry.as_uri()}" in out
        assert "open it in a browser on this computer (--no-open)" in out
        assert opened == []


async def test_without_a_browser_the_player_is_told_and_given_the_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def nothing(using: str | None = None) -> webbrowser.BaseBrowser:
        raise webbrowser.Error("could not locate runnable browser")

    def never(url: str) -> bool:
        raise AssertionError("no browser to open")

    monkeypatch.setattr(webbrowser, "get", nothing)
    monkeypatch.setattr(webbrowser, "open", never)
    assert isinstance(human_policy(args()), BrowserPolicy)  # the page, still
    async with served(tmp_path) as s:
        await show_page(s.server, open_page=True)
        out = capsys.readouterr().out
        assert f"your table: {s.entry.as_uri()}" in out
        assert "no browser can be opened from here: open your table in a browser" in out
        assert "--ui terminal" in out


async def test_a_browser_that_fails_to_start_is_told_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROWSER", "firefox")
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "open", lambda url: False)
    async with served(tmp_path) as s:
        await show_page(s.server, open_page=True)
        assert "no browser can be opened from here" in capsys.readouterr().out


async def test_run_again_the_tab_left_open_comes_back_instead_of_a_new_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], opened: list[str]
) -> None:
    table = tmp_path / "table"
    table.mkdir()
    async with served(tmp_path / "page") as first:
        cookie = await enter(first.port, page_key(first.entry))
        first.server.remember(table)
    async with served(tmp_path / "page", table) as again, trio.open_nursery() as nursery:

        async def tab() -> None:
            await trio.sleep(0.3)  # the tab's next try
            sock = await open_socket(again.port, cookie=cookie)
            assert isinstance(sock, Socket)
            await sock.until(3)
            await sock.aclose()

        nursery.start_soon(tab)
        await show_page(again.server, open_page=True)
        assert "your page came back by itself" in capsys.readouterr().out
        assert opened == []


async def test_run_again_with_no_tab_left_the_browser_is_opened(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    opened: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(opening, "COMEBACK_WAIT", 0.2)
    table = tmp_path / "table"
    table.mkdir()
    PageMemory(0, "x" * 32).save(table)  # damaged: a fresh start
    async with served(tmp_path, table) as s:
        assert not s.server.came_back
    async with served(tmp_path) as first:
        first.server.remember(table)
    async with served(tmp_path, table) as again:
        assert again.server.came_back
        await show_page(again.server, open_page=True)
        assert "came back" not in capsys.readouterr().out
        assert opened == [again.entry.as_uri()]


async def test_run_again_with_the_port_taken_the_player_is_told_the_tab_cannot_come_back(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    opened: list[str],
) -> None:
    table = tmp_path / "table"
    table.mkdir()
    async with served(tmp_path) as first:
        first.server.remember(table)
        port = first.port
        async with served(tmp_path, table) as again:  # the first one still holds the port
            assert again.server.taken_port == port and not again.server.came_back
            await show_page(again.server, open_page=True)
            out = capsys.readouterr().out
            assert f"another program on this computer now uses port {port}" in out
            assert "cannot come back by itself" in out
            assert opened == [again.entry.as_uri()]  # a new tab at once, no wait
    async with served(tmp_path, table) as free:
        assert free.server.came_back and not free.server.taken_port


def test_the_table_a_join_takes_up_again_is_known_before_its_code_is_used(
    tmp_path: Path,
) -> None:
    profile = Profile(tmp_path)
    identity = profile.identity()
    code = JoinCode("127.0.0.1", 7770, bytes(range(32)), bytes(16), bytes(16), False)
    files = profile.seat_files(code.table_id, identity)
    assert table_folder(profile, identity, code) == files.directory  # a long code says it
    short = parse_short_code("7-guitar-orbit")
    assert table_folder(profile, identity, short) is None  # a short code, the first time
    profile.save_ticket(files, Ticket("join", code.encode(), "Bob", short=short.text()))
    assert table_folder(profile, identity, short) == files.directory
    assert table_folder(profile, identity, parse_short_code("8-guitar-orbit")) is None
