"""Between two deals, every seat sends its key of the next deal before it writes its score
sheet: the table waits for those keys, not for our files (issue 20)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import trio
import trio.testing

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.files.seat_files import SeatFiles
from tarot_p2p.net.link import MessageLink
from tarot_p2p.protocol.envelope import open_envelope
from tarot_p2p.protocol.errors import UnattributedMessage
from tests.net.links import PassThrough
from tests.net.test_game import TABLE_ID, assert_agreement, identity
from tests.seat.test_runner import play_local

SEED = "first-key-first"


def sheet_lines(path: Path) -> int:
    """Lines of the sheet saved at ``path`` (-1: none saved yet)."""
    try:
        sheet = json.loads(path.read_text(encoding="utf-8"))["sheet"]
    except FileNotFoundError:
        return -1
    return -1 if sheet is None else len(sheet["lines"])


@dataclass
class KeysSeen:
    """What seat ``i``'s saved sheet held when it sent each ``key`` (by hand)."""

    sheet: Path
    at_key: dict[int, int] = field(default_factory=dict)


class Recording(PassThrough):
    def __init__(self, inner: MessageLink, seen: KeysSeen) -> None:
        super().__init__(inner)
        self.seen = seen

    async def send(self, message: bytes) -> None:
        try:
            env = open_envelope(message, table_id=TABLE_ID, roster=None)
        except UnattributedMessage:
            env = None  # lobby and sync messages
        if env is not None and env.kind == "key":
            self.seen.at_key.setdefault(env.hand, sheet_lines(self.seen.sheet))
        await self.inner.send(message)


async def test_the_first_key_of_a_deal_goes_out_before_the_sheet_is_saved(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    players = 3
    seen = [
        KeysSeen(
            SeatFiles.for_table(
                tmp_path, TABLE_ID, identity(SEED, i).public_key().public_bytes_raw()
            ).sheet
        )
        for i in range(players)
    ]
    game = await play_local(
        players,
        [BotPolicy(i) for i in range(players)],
        tmp_path,
        SEED,
        deals=2,
        wrap=lambda i, link: Recording(link, seen[i]),
    )
    assert_agreement(game)
    # KEYS is a parallel round (table.md §1.4): every seat's key opens hands 1 and 2, and
    # the sheet that hand 0 (the draw) and hand 1 ended is saved once the key is out.
    for keys in seen:
        assert keys.at_key[1] == -1
        assert keys.at_key[2] == 0
    assert all(sheet_lines(s.sheet) == 2 for s in seen)
