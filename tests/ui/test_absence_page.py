"""The host's own player away with his page open (issue 18, item 3; issue 16, item 3).

The real program over loopback, its page read through its WebSocket as a browser would:
the page shows the question with the countdown the others see ("You have 0:25 to bid"),
loses its buttons when the others' abandon comes (the question is withdrawn; before, the
page still showed "Your bid." with live buttons after the game had ended), and its score
panel says that the stand-in, a bot, played his hand, and why. Leaving the page then ends
the program. (Page closed and terminal: ``tests/seat/test_absence_processes.py``.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import trio
from wsproto.events import TextMessage

from tests.seat.test_absence_processes import FORFEIT
from tests.seat.test_resume_processes import Program

from .page_client import Socket, enter, open_socket, page_key
from .test_seat_processes import entry_of, host, until


def views(sock: Socket) -> list[dict[str, Any]]:
    return [m["view"] for m in sock.messages if m.get("type") == "view" and m.get("view")]


async def test_the_hosts_page_left_open_is_told_what_became_of_his_hand(tmp_path: Path) -> None:
    args = host(tmp_path / "profile", "--no-open", "--lang", "en")
    args += ["--forfeit-after", str(FORFEIT)]
    program = Program(args, tmp_path / "host.log")
    sock: Socket | None = None
    try:
        entry = await until("the page's address", lambda: entry_of(program))
        assert isinstance(entry, Path)
        port = int(entry.name.removeprefix("page-").removesuffix(".html"))
        cookie = await enter(port, page_key(entry))
        assert cookie is not None
        opened = await open_socket(port, cookie=cookie)
        assert isinstance(opened, Socket)
        sock = opened
        with trio.fail_after(4 * FORFEIT + 60):
            while not any(v.get("over") for v in views(sock)):
                assert await sock.pump(), "the page's socket closed before the game ended"
        seen = views(sock)
        asked = [i for i, v in enumerate(seen) if v.get("decision")]
        assert asked, "the page asked its player to bid"
        counted = [
            v["notice"]["text"] for v in seen if (v.get("notice") or {}).get("kind") == "turn"
        ]
        assert counted[0] == "You have 0:25 to bid"
        # After the last view with a question, none comes back: the deal went on without
        # him, and the page never offered a live button for it again.
        assert not any(v.get("decision") for v in seen[asked[-1] + 1 :])
        final = seen[-1]
        assert final["decision"] is None and final["over"]
        assert any("The stand-in (a bot) plays your hand" in v.get("log", []) for v in seen)
        result = final["result"]
        assert result["stand_in_title"] == "You were away: the stand-in played your hand"
        assert result["stand_in"].startswith(
            "The others received nothing from you for 30 s when it was your turn to bid"
        )
        # He reads it, then leaves the table from the page: the program ends.
        leave = json.dumps({"t": "leave"})
        await sock.send(sock.ws.send(TextMessage(data=leave)))
        with trio.fail_after(30):
            while program.process is not None and program.process.poll() is None:
                await trio.sleep(0.1)
        assert program.process is not None and program.process.returncode == 0
    finally:
        if sock is not None:
            await sock.aclose()
        if program.process is not None and program.process.poll() is None:
            program.kill()
    assert "Traceback" not in program.output()
    assert "Alice's hand played by the stand-in" in program.output()
