"""The local network at the command line: ``join`` without a code lists the tables near
the player, and ``host`` announces its table while seats are free (``--no-announce``: not).

Why apart from ``join`` and ``host``: both programs speak to the player about the same
announcements (``protocol/lobby.md`` §5), in the same words, and the prompts are tested
on their own (an injected ``ask``), without a whole game around them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import trio

from tarot_p2p.meet.discovery import (
    Announcement,
    LanTable,
    LanUnavailable,
    announce,
    browse,
    lan_addresses,
    local_interfaces,
    look_alikes,
)
from tarot_p2p.meet.rendezvous import Invitation
from tarot_p2p.protocol.names import for_terminal

BROWSE_SECONDS = 3.0
CODE_EXAMPLE = "7-guitar-orbit"
NEXT_STEP = "Ask the host for the table's code and run: tarot-p2p join CODE"


@dataclass(frozen=True, slots=True)
class LanChoice:
    """The table a player picked on the network, the code its host read aloud, and what
    the host's program answered to a short code (``None`` for a long code)."""

    table: LanTable
    code: str
    invitation: Invitation | None


class Left(Exception):
    """The player closed the input (Ctrl-D) or answered nothing, instead of answering."""


class CodeRefused(Exception):
    """A code typed at the prompt does not open the table picked; the message says why
    and what to type (the prompt asks again)."""


CodeCheck = Callable[[LanTable, str], Invitation | None]
"""What a code typed for a table opens: a short code's invitation, asked of the table's
hub, or ``None`` for a long code; raises :class:`CodeRefused` on a mistake."""


def _answer(ask: Callable[[str], str], prompt: str) -> str:
    try:
        text = ask(prompt).strip()
    except EOFError:
        raise Left from None
    if not text:
        raise Left
    return text


_COUNTS = {2: "two", 3: "three", 4: "four", 5: "five"}


def look_alike_warning(table: LanTable, tables: list[LanTable]) -> str | None:
    """What the list says under ``table`` when another table of ``tables`` has its name, or
    one that reads the same (``None``: no other). Anyone on the network can announce a
    friend's name: the player is told to ask the friend rather than guess."""
    others = look_alikes(table, tables)
    if not others:
        return None
    count = _COUNTS.get(len(others) + 1, str(len(others) + 1))
    names = list(dict.fromkeys(for_terminal(t.host) for t in [table, *others]))
    if len(names) == 1:
        host = names[0]
        return f"{count} tables are called {host}'s table: ask {host} which address is the real one"
    return (
        f"{count} tables have names that look alike ({', '.join(names)}): ask your friend "
        "which address is the real one"
    )


def _pick(tables: list[LanTable], ask: Callable[[str], str]) -> LanTable:
    if len(tables) == 1:
        print(f"Found {tables[0].describe()}.", flush=True)
        return tables[0]
    print("Tables on your network:", flush=True)
    for number, table in enumerate(tables, 1):
        print(f"  {number}) {table.describe()}", flush=True)
        warning = look_alike_warning(table, tables)
        if warning is not None:
            print(f"     warning: {warning}", flush=True)
    while True:
        text = _answer(ask, f"Which table do you join? Type its number (1 to {len(tables)}): ")
        numbered = _numbered(text, tables)
        if numbered is not None:
            return numbered
        print(
            f"Please type a number from 1 to {len(tables)} (or press Enter to leave).", flush=True
        )


def _numbered(text: str, tables: list[LanTable]) -> LanTable | None:
    """The table numbered ``text`` in the list, or ``None``."""
    if text.isdecimal() and 1 <= int(text) <= len(tables):
        return tables[int(text) - 1]
    return None


def choose_table(
    check: CodeCheck, ask: Callable[[str], str] = input, seconds: float = BROWSE_SECONDS
) -> LanChoice | None:
    """``join`` without a code: look for announced tables, let the player pick one, then
    ask for the code its host reads aloud (always: the code, not the announcement, proves
    that the machine is the host's) until ``check`` accepts it; a table's number typed
    instead picks that table. ``None`` when there is nothing to join here, or the player
    leaves (Ctrl-C, Ctrl-D or an empty answer)."""
    try:
        return _choose(check, ask, seconds)
    except (Left, KeyboardInterrupt):
        print("\nleft without joining", flush=True)
        return None


def _choose(check: CodeCheck, ask: Callable[[str], str], seconds: float) -> LanChoice | None:
    print(f"Looking for tables on your network ({seconds:g} seconds)...", flush=True)
    try:
        tables = trio.run(browse, seconds)
    except LanUnavailable as exc:
        print(f"Cannot look for tables: {exc}. {NEXT_STEP}", flush=True)
        return None
    if not tables:
        print(
            "No table found on your network. Tables show here when the host's computer is on "
            f"the same network as yours (the same Wi-Fi, say). {NEXT_STEP}",
            flush=True,
        )
        return None
    table = _pick(tables, ask)
    while True:
        host = for_terminal(table.host)
        code = _answer(
            ask,
            f"Type the code {host} reads aloud (it looks like {CODE_EXAMPLE}; "
            "Enter alone to leave): ",
        )
        numbered = _numbered(code, tables)
        if numbered is not None:  # the list's number, typed again or for another table
            table = numbered
            print(f"Table {code}: {table.describe()}.", flush=True)
            continue
        try:
            return LanChoice(table, code, check(table, code))
        except CodeRefused as exc:
            print(exc, flush=True)  # and the code is asked again


class HostOnLan:
    """``host``: its table announced on the network from its first short code until every
    seat is taken (the task :meth:`run` is cancelled then, which withdraws it).

    Why a task told things by plain calls: the channel comes with the short code (which
    changes after too many wrong tries) and the count with each player seated, both
    reported by synchronous callbacks of the host's program."""

    def __init__(
        self, listen: str, port: int, host: str, seats: int, fingerprint: bytes, seated: int
    ) -> None:
        self._listen = listen
        self._table = LanTable(host, 1, seated, seats, fingerprint, (), port)
        self._coded = trio.Event()
        self._announcement: Announcement | None = None

    def new_code(self, channel: int) -> None:
        """The host's short code is now on ``channel``."""
        self._table = replace(self._table, channel=channel)
        if self._announcement is not None:
            self._announcement.update(channel=channel)
        self._coded.set()

    def seated(self, count: int) -> None:
        """``count`` players sit now, the host included."""
        if count >= self._table.seats:
            return  # the table is full: the announcement is withdrawn with the lobby
        self._table = replace(self._table, seated=count)
        if self._announcement is not None:
            self._announcement.update(seated=count)

    async def run(self) -> None:
        """Announce the table once it has a code, until cancelled; says to the player
        whether it is announced (a network that cannot carry it is no error)."""
        addresses = lan_addresses(self._listen, local_interfaces())
        if not addresses:
            print(
                f"your table is not announced on the network (the hub listens on "
                f"{self._listen}): friends join with the code",
                flush=True,
            )
            return
        await self._coded.wait()
        try:
            async with announce(replace(self._table, addresses=tuple(addresses))) as lan:
                self._announcement = lan
                # The count may have moved during the announcement's first seconds.
                lan.update(seated=self._table.seated, channel=self._table.channel)
                print(
                    "your table is announced on your network: friends there can also run "
                    "tarot-p2p join without a code",
                    flush=True,
                )
                await trio.sleep_forever()
        except LanUnavailable as exc:
            print(f"{exc}: friends join with the code", flush=True)
        finally:
            self._announcement = None
