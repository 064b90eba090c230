"""Showing the page to the player: its address printed, the browser opened on it.

Why here: every program with a page says the same. The address is printed always, so a
player without a browser that Python can open (a text browser only, a machine reached
over SSH, ``--no-open``) can open it himself. A program run again for a table that kept
its page gives the tab left open a moment to come back by itself before opening another.
"""

from __future__ import annotations

import webbrowser
from typing import Final

import trio

from tarot_p2p.ui.server import PageServer

TEXT_BROWSERS: Final = frozenset({"www-browser", "links", "links2", "elinks", "lynx", "w3m"})
"""Browsers that would take over the terminal the game is printing to."""
COMEBACK_WAIT: Final = 5.0
"""Seconds a tab of the previous run has to come back before a new one is opened (the
page tries again every second or two)."""


def browser_available() -> bool:
    """True when the ``webbrowser`` module can open a page in a graphical browser here."""
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return False
    return getattr(browser, "name", "") not in TEXT_BROWSERS


async def show_page(
    server: PageServer,
    *,
    open_page: bool,
    admitted: trio.Event | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Print the page's address (then ``task_status`` is told), and open the browser on it
    unless ``open_page`` is false, no graphical browser can be opened here, or the tab of
    a previous run came back. With ``admitted``, nothing is opened before it is set (a
    joiner's code accepted: a wrong code leaves no dead tab)."""
    entry = server.entry
    assert entry is not None, "the server is listening"
    print(f"your table: {entry.address}", flush=True)
    print(
        "  (a browser that cannot open this file can open this address instead, once: "
        f"{entry.keyed_address})",
        flush=True,
    )
    task_status.started()
    if admitted is not None:
        await admitted.wait()
    if server.taken_port:
        print(
            f"another program on this computer now uses port {server.taken_port}, where your "
            "page was: the tab you had open cannot come back by itself (close it)",
            flush=True,
        )
    if server.came_back:
        with trio.move_on_after(COMEBACK_WAIT):
            await server.page_came.wait()
        if server.pages:
            print("your page came back by itself (the tab you had open)", flush=True)
            return
    if not open_page:
        print("open it in a browser on this computer (--no-open)", flush=True)
        return
    # (a browser command that never returns must not hold the program)
    opened = browser_available() and await trio.to_thread.run_sync(
        webbrowser.open, entry.address, abandon_on_cancel=True
    )
    if opened:
        print("opened in your browser", flush=True)
        return
    print(
        "no browser can be opened from here: open your table in a browser on this computer, "
        "or stop this program (Ctrl-C) and run the same command with --ui terminal to play "
        "at this terminal",
        flush=True,
    )
