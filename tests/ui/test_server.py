"""The page's server lets in the player's own browser only: the entry file's one-time key
gets the session cookie, and the cookie, the Host and the Origin let a page in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import trio

from tarot_p2p.ui.entry import PAGE_FILE, PageMemory, proof_key

from .page_client import Socket, enter, http, mode, open_socket, page_key, proves, served


async def test_the_entry_file_is_the_players_alone(tmp_path: Path) -> None:
    async with served(tmp_path / "profile" / "page") as s:
        entry = s.server.entry
        assert entry is not None
        assert mode(s.folder) == 0o700 and mode(s.entry) == 0o600
        assert s.entry.name == f"page-{s.port}.html"
        key = page_key(s.entry)
        assert len(key) >= 32
        # The browser is opened on the file's path: the key is not in it.
        assert entry.address == s.entry.as_uri() and key not in entry.address
        # The file sends the browser on with the key after "#": never sent to a server.
        assert f"http://127.0.0.1:{s.port}/#k={key}" in s.entry.read_text()
    assert not s.entry.exists(), "the entry file goes with its program"


async def test_a_folder_made_before_with_another_mode_is_closed(tmp_path: Path) -> None:
    folder = tmp_path / "page"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    async with served(folder) as s:
        assert mode(s.folder) == 0o700 and mode(s.entry) == 0o600


async def test_the_key_works_once_and_only_from_the_page(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        port = s.port
        key = page_key(s.entry)
        own = f"http://127.0.0.1:{port}"
        for origin, host in (
            (None, None),  # no origin: not the door page's script
            ("null", None),  # a file or a sandboxed frame
            ("http://evil.example", None),  # another site's script
            (f"http://127.0.0.1:{port + 1}", None),
            (own, f"evil.example:{port}"),  # DNS rebinding
        ):
            answer = await http(port, "POST", "/enter", origin=origin, host=host, body=key.encode())
            assert answer.status in (403, 404), (origin, host)
            assert b"set-cookie" not in answer.headers
        assert (await http(port, "POST", "/enter", origin=own, body=b"not-the-key")).status == 403
        assert (await http(port, "GET", "/enter", origin=own)).status == 403

        answer = await http(port, "POST", "/enter", origin=own, body=key.encode())
        assert answer.status == 204
        cookie = answer.headers[b"set-cookie"].decode()
        name_value, *attributes = [part.strip() for part in cookie.split(";")]
        assert name_value.startswith(f"tarot-p2p-{port}=") and key not in cookie
        assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= set(attributes)

        # Used, the key is worth nothing; the entry file holds a fresh one, once too.
        assert await enter(port, key) is None
        fresh = page_key(s.entry)
        assert fresh != key and mode(s.entry) == 0o600
        assert await enter(port, fresh) == name_value
        assert await enter(port, fresh) is None


async def test_only_the_cookie_host_and_origin_get_in(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        port, cookie = s.port, await s.cookie()
        here = f"127.0.0.1:{port}"

        page = await http(port, "GET", "/", cookie=cookie)
        assert page.status == 200 and b"table.js" in page.body
        assert b"content-security-policy" in page.headers
        for name in ("/table.js", "/table.css"):
            assert (await http(port, "GET", name, cookie=cookie)).status == 200
        download = await http(port, "GET", "/transcript.tp2p", cookie=cookie)
        assert download.status == 200 and download.body == b"TP2P-transcript"
        # What the page asks to know whether its program still knows it.
        head = await http(port, "HEAD", "/", cookie=cookie)
        assert head.status == 200 and head.body == b""
        assert (await http(port, "HEAD", "/")).status == 403

        # Without the cookie, a page that says how to get in, and nothing of the table.
        door = await http(port, "GET", "/")
        assert door.status == 403 and b"tarot-p2p printed in its terminal" in door.body
        assert b"table.js" not in door.body
        assert (await http(port, "GET", "/door.js")).status == 200

        wrong = cookie[:-4] + "AAAA"
        for path, host, given in (
            ("/", f"evil.example:{port}", cookie),  # DNS rebinding
            ("/", "127.0.0.1:1", cookie),
            ("/table.js", here, None),
            ("/transcript.tp2p", here, None),
            ("/transcript.tp2p", here, wrong),
            ("/transcript.tp2p", here, cookie.replace(str(port), "1")),  # another page's name
            ("/transcript.tp2p", here, cookie + "x"),
            ("/../etc/passwd", here, cookie),
            ("/index.html", here, cookie),
        ):
            answer = await http(port, "GET", path, host=host, cookie=given)
            assert answer.status in (403, 404), (path, host, given)
            assert answer.body != b"TP2P-transcript"

        good = await open_socket(port, cookie=cookie)
        assert isinstance(good, Socket)
        assert (await good.until(3))[:3] == [
            {"type": "proof", "key": proof_key(s.server.session).hex()},
            {"type": "hello"},
            {"type": "view", "view": None},
        ]
        await good.aclose()
        for refused in (
            {"cookie": None},
            {"cookie": wrong},
            {"cookie": cookie, "origin": "http://evil.example"},
            {"cookie": cookie, "origin": "null"},
            {"cookie": cookie, "origin": f"https://{here}"},
            {"cookie": cookie, "host": f"evil.example:{port}"},
            {"cookie": cookie, "target": "/other"},
        ):
            assert await open_socket(port, **refused) == 403, refused  # type: ignore[arg-type]


async def test_a_program_proves_to_its_page_that_it_is_its_own(tmp_path: Path) -> None:
    async with served(tmp_path) as s:
        port = s.port
        sock = await open_socket(port, cookie=await s.cookie())
        assert isinstance(sock, Socket)
        key = (await sock.until(1))[0]["key"]
        await sock.aclose()
        assert await proves(port, key)  # asked without the cookie, answered all the same
        assert not await proves(port, proof_key("another session").hex())
        for query in (
            "",
            "?n=",
            "?n=short",
            "?n=" + "a" * 65,
            "?n=" + "%C3%A9" * 10,
            "?x=" + "a" * 20,
        ):
            assert (await http(port, "GET", "/alive" + query)).status == 404, query


async def test_a_table_keeps_its_page_for_the_next_run(tmp_path: Path) -> None:
    table = tmp_path / "table"
    table.mkdir()
    async with served(tmp_path / "page") as first:
        cookie = await first.cookie()
        first.server.remember(table)
        port = first.port
    assert mode(table / PAGE_FILE) == 0o600
    kept = PageMemory.load(table)
    assert kept is not None and kept.port == port and kept.session in cookie

    # Run again: the same port, the same session; the old cookie still gets in.
    async with served(tmp_path / "page", table) as again:
        assert again.port == port and again.server.came_back and again.server.taken_port == 0
        sock = await open_socket(port, cookie=cookie)
        assert isinstance(sock, Socket)
        await sock.aclose()
        # The port taken meanwhile: another port, and a session nobody saw.
        async with served(tmp_path / "page", table) as elsewhere:
            assert elsewhere.port != port and not elsewhere.server.came_back
            assert elsewhere.server.taken_port == port  # the player is told (the old tab is lost)
            assert elsewhere.server.session not in cookie
            refused = await open_socket(
                elsewhere.port, cookie=cookie.replace(str(port), str(elsewhere.port))
            )
            assert refused == 403


async def test_damaged_page_memory_is_a_fresh_start(tmp_path: Path) -> None:
    session = "a" * 32
    for text in (
        "",
        "{",
        "[]",
        f'{{"port": "80", "session": "{session}"}}',
        f'{{"port": 0, "session": "{session}"}}',
        f'{{"port": 70000, "session": "{session}"}}',
        '{"port": 5000, "session": "short"}',
        '{"port": 5000, "session": 12}',
    ):
        (tmp_path / PAGE_FILE).write_text(text)
        assert PageMemory.load(tmp_path) is None, text
    (tmp_path / PAGE_FILE).unlink()
    assert PageMemory.load(tmp_path) is None
    async with served(tmp_path / "page", tmp_path) as s:
        assert not s.server.came_back and s.port and s.server.taken_port == 0


async def test_a_stopped_server_closes_its_pages_at_once(tmp_path: Path) -> None:
    with trio.fail_after(5):
        async with served(tmp_path) as s:
            sock = await open_socket(s.port, cookie=await s.cookie())
            assert isinstance(sock, Socket)
    with trio.fail_after(5):
        await sock.to_the_end()


async def test_the_entry_file_is_not_forced_to_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its key is good for one opening of this run: each ``fsync`` (tens of milliseconds
    on a busy disk) held up the page's address, and the event loop when a key was used."""
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    async with served(tmp_path) as s:
        assert synced == []
        key = page_key(s.entry)
        assert await enter(s.port, key) is not None
        assert page_key(s.entry) != key
        assert synced == []
