"""The local network at the command line: ``join`` without a code lists the tables near
the player, and ``host`` announces its table while seats are free.

Why apart from ``join`` and ``host``: both programs speak to the player about the same
announcements (``protocol/lobby.md`` §5), in the same words, and the prompts are tested
on their own (an injected ``ask``), without a whole game around them.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

import trio

from tarot_p2p.net.discovery import (
    Announcement,
    LanTable,
    LanUnavailable,
    announce,
    browse,
    lan_addresses,
    local_interfaces,
)

log = logging.getLogger(__name__)

BROWSE_SECONDS = 3.0
CODE_EXAMPLE = "7-guitar-orbit"
NEXT_STEP = "Ask the host for the table's code and run: tarot-p2p join CODE"


@dataclass(frozen=True, slots=True)
class LanChoice:
    """The table a player picked on the network, and the code its host read aloud."""

    table: LanTable
    code: str


class Left(Exception):
    """The player closed the input (Ctrl-D) instead of answering."""


def _answer(ask: Callable[[str], str], prompt: str) -> str:
    try:
        return ask(prompt).strip()
    except EOFError:
        raise Left from None


def _pick(tables: list[LanTable], ask: Callable[[str], str]) -> LanTable:
    if len(tables) == 1:
        print(f"Found {tables[0].describe()}.", flush=True)
        return tables[0]
    print("Tables on your network:", flush=True)
    for number, table in enumerate(tables, 1):
        print(f"  {number}) {table.describe()}", flush=True)
    while True:
        text = _answer(ask, f"Which table do you join? Type its number (1 to {len(tables)}): ")
        if text.isdecimal() and 1 <= int(text) <= len(tables):
            return tables[int(text) - 1]
        print(f"Please type a number from 1 to {len(tables)}.", flush=True)


def choose_table(
    ask: Callable[[str], str] = input, seconds: float = BROWSE_SECONDS
) -> LanChoice | None:
    """``join`` without a code: look for announced tables, let the player pick one, then
    ask for the code its host reads aloud (always: the code, not the announcement, proves
    that the machine is the host's). ``None`` when there is nothing to join here."""
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
    try:
        table = _pick(tables, ask)
        while True:
            code = _answer(
                ask, f"Type the code {table.host} reads aloud (it looks like {CODE_EXAMPLE}): "
            )
            if code:
                return LanChoice(table, code)
    except Left:
        print("\nleft without joining", flush=True)
        return None


@asynccontextmanager
async def announced(table: LanTable | None) -> AsyncIterator[Announcement | None]:
    """``host``: ``table`` on the network for the time of the block (``None``: not
    announced). A network that cannot carry it is said, and the table goes on unannounced."""
    async with AsyncExitStack() as stack:
        announcement = None
        if table is not None:
            try:
                announcement = await stack.enter_async_context(announce(table))
            except LanUnavailable as exc:
                print(f"{exc}: friends join with the code", flush=True)
            else:
                print(
                    "your table is announced on your network: friends there can run "
                    "tarot-p2p join without a code",
                    flush=True,
                )
        yield announcement


def lan_table(
    listen: str, port: int, host: str, channel: int, seats: int, fingerprint: bytes
) -> LanTable | None:
    """What ``host`` announces for a hub listening on ``listen:port``, or ``None`` (said to
    the player) when it listens on no address others could reach."""
    addresses = lan_addresses(listen, local_interfaces())
    if not addresses:
        print(f"your table is not announced on the network (the hub listens on {listen})")
        return None
    return LanTable(host, channel, 1, seats, fingerprint, tuple(addresses), port)
