"""The runner makes the next hand's opening during the hand (``table.md`` §1.6): by the
time a hand's last score is signed, every seat has sent its key, escrow and shuffle of
the next hand, and nobody has to ask for anything between two deals.

On trio's autojump clock with every seat on the hub's in-process link, like
``test_runner.py``: a stall (a message of the next opening lost in a seat's hands) would
show as sync requests, which the clock reaches at once."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.net.link import MessageLink
from tarot_p2p.protocol.envelope import open_envelope
from tarot_p2p.protocol.errors import ProtocolError
from tests.net.links import PassThrough
from tests.net.test_game import TABLE_ID, assert_agreement
from tests.seat.test_runner import play_local

OPENING = ("key", "escrow", "shuffle")


class Recorded(PassThrough):
    """A link that notes what its seat sends, in order."""

    def __init__(self, inner: MessageLink, sent: list[bytes]) -> None:
        super().__init__(inner)
        self.sent = sent

    async def send(self, message: bytes) -> None:
        self.sent.append(message)
        await super().send(message)


async def test_every_seat_sends_its_next_opening_before_the_hand_is_over(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    sent: list[list[bytes]] = [[] for _ in range(4)]
    game = await play_local(
        4,
        [BotPolicy(i) for i in range(4)],
        tmp_path,
        "prepared runner",
        deals=3,
        wrap=lambda i, link: Recorded(link, sent[i]),
    )
    assert all(s.outcome is not None and s.outcome.finished for s in game.seats)
    assert_agreement(game)
    for i, seat in enumerate(game.seats):
        assert seat.outcome is not None and seat.outcome.peer is not None
        me = seat.outcome.peer.seat
        envs = []
        for wire in sent[i]:
            try:
                env = open_envelope(wire, table_id=TABLE_ID, roster=None)
            except ProtocolError:
                continue  # a sync request, a claim: not an envelope
            # Not the others' records it passed on, nor its own sent again (an answer).
            if env.hand >= 1 and env.seat == me and env.wire not in (e.wire for e in envs):
                envs.append(env)
        for hand in (2, 3):
            opening = [e.slot for e in envs if e.hand == hand and e.kind in OPENING]
            assert len(opening) == 3, f"seat {i} made its opening of hand {hand} once"
            scores = [k for k, e in enumerate(envs) if e.hand == hand - 1 and e.kind == "score"]
            made = [k for k, e in enumerate(envs) if e.hand == hand and e.kind in OPENING]
            assert max(made) < max(scores), f"seat {i}: hand {hand}'s opening after the score"
        assert not any(e.hand == 4 for e in envs), "nothing is made after the last deal"
        assert seat.outcome is not None
        # The one every seat sends as it starts (it may have been away), and no other.
        assert seat.outcome.stats.sync_requests == 1, f"seat {i} had to ask for messages"


class Withholding(PassThrough):
    """A link on which the hub withholds from its seat the first message of hand 2's
    opening that another seat made ahead (it is in nobody's transcript yet)."""

    def __init__(self, inner: MessageLink) -> None:
        super().__init__(inner)
        self.withheld: list[bytes] = []

    async def receive(self) -> bytes:
        while True:
            wire = await super().receive()
            if self.withheld:
                return wire
            try:
                env = open_envelope(wire, table_id=TABLE_ID, roster=None)
            except ProtocolError:
                return wire
            if env.hand == 2 and env.kind in OPENING:
                self.withheld.append(wire)
                continue
            return wire


async def test_a_message_made_ahead_withheld_from_a_seat_is_fetched_and_blames_no_one(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """A hub may drop a message of the next opening on its way to one seat (``table.md``
    §1.6): the others keep it, take it into their transcripts when the hand opens, and the
    seat that missed it fetches it with a sync request; the game goes on, and nobody is
    named for a silence the hub made."""
    links: list[Withholding] = []

    def wrap(i: int, link: MessageLink) -> MessageLink:
        if i != 1:
            return link
        links.append(Withholding(link))
        return links[-1]

    game = await play_local(
        4, [BotPolicy(i) for i in range(4)], tmp_path, "withheld ahead", deals=2, wrap=wrap
    )
    assert [len(link.withheld) for link in links] == [1], "the hub withheld nothing"
    assert all(s.outcome is not None and s.outcome.abort is None for s in game.seats)
    assert_agreement(game)
    victim = game.seats[1].outcome
    assert victim is not None and victim.stats.sync_requests > 1, "it never asked"
