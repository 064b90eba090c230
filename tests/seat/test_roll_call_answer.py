"""A runner answering a roll call hands the caller back its own early messages first.

``table.md`` §7: a seat put back from an older backup during a parallel round may have
made and sent its message of the round already. Another seat that keeps it early (a seat
before it in the round has not spoken yet) holds the only copy: it is in no transcript,
so no record answers it. The runner's answer to the roll call (``_answer_roll``) sends it
first; the seat taken back then adopts it and waits for its slot. Without that, while
every other member is at the round's base, the roll call finds nobody ahead, and the seat
signs a second message for its slot, which every seat records as equivocation. (Here seat
0 has not made its key yet, seat 1 keeps seat 2's key early, and seat 2 comes back.)
``tests/protocol/test_parallel_rounds.py`` shows the adoption at the protocol level; here
the message goes through a real :class:`TableRunner` on a link the test plays.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.files.seat_files import SeatFiles
from tarot_p2p.protocol.envelope import open_envelope
from tarot_p2p.protocol.errors import ProtocolError
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.sync import HERE_KIND, NONCE_LEN, ROLL_KIND, SyncError
from tarot_p2p.protocol.table import Phase
from tarot_p2p.protocol.transcript import EarlyInRound, file_header, file_record
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.seat.runner import TableRunner
from tests.protocol.harness import Bot, make_table, one_deal, step
from tests.seat.test_runner import SHORT

BOT = Bot(contract=Contract.GARDE, seed=3)


class Scripted:
    """A link whose incoming messages the test sends, and which keeps what is sent."""

    def __init__(self) -> None:
        self.to_runner, self._incoming = trio.open_memory_channel[bytes](16)
        self.sent: list[bytes] = []
        self.new = trio.Event()

    async def send(self, message: bytes) -> None:
        self.sent.append(message)
        self.new.set()
        self.new = trio.Event()

    async def receive(self) -> bytes:
        return await self._incoming.receive()

    async def aclose(self) -> None:
        return None


def answered(peer: Peer, sent: list[bytes]) -> bool:
    """Whether ``peer``'s ``here`` answer is among ``sent``."""
    for wire in sent:
        try:
            if peer.read_sync_request(wire).kind == HERE_KIND:
                return True
        except SyncError:
            continue
    return False


def backup_of(peer: Peer) -> tuple[bytes, bytes]:
    """``peer``'s files as a backup holds them now: its transcript file and its secrets."""
    transcript = file_header(peer.table_id, peer.binding) + b"".join(
        file_record(e) for e in peer.transcript
    )
    return transcript, peer.export_secrets()


async def answer(
    keeper: Peer, identity: Ed25519PrivateKey, back: Peer, early: bytes, tmp_path: Path
) -> tuple[list[bytes], int]:
    """Run ``keeper`` in a real runner that first receives the ``early`` message of the seat
    ``back`` (taken back from a backup), then ``back``'s roll call; returns what the runner
    sent until it answered, and the index of its ``here``."""
    roll = back.roll_call(bytes(NONCE_LEN), ROLL_KIND)
    link = Scripted()
    files = SeatFiles.for_table(tmp_path, keeper.table_id, identity.public_key().public_bytes_raw())
    runner = TableRunner(keeper, link, BotPolicy(1), files, timeouts=SHORT, offload=False)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(runner.run)
        await link.to_runner.send(early)  # the message that reached it before the stop
        await link.to_runner.send(roll)  # the seat taken back asks where everybody is
        while not answered(back, link.sent):
            await link.new.wait()
        nursery.cancel_scope.cancel()
    return link.sent, next(i for i, w in enumerate(link.sent) if answered(back, [w]))


async def test_a_roll_call_is_answered_with_the_callers_early_message_first(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    table = make_table(one_deal(3), seed=b"roll call answer")
    while not (table.observer.hand.hand == 1 and table.observer.hand.phase is Phase.KEYS):
        step(table, BOT)
    victim, keeper = table.peer_at(2), table.peer_at(1)
    member = victim.member
    assert member is not None and keeper.member is not None
    backup, older = backup_of(victim)  # taken before its key was made
    made = victim.next_message()  # seat 2's key, sent before its program stopped
    assert made is not None
    with pytest.raises(EarlyInRound):  # seat 0 has not sent its key: at seat 1, it waits
        keeper.receive(made)
    back = Peer.resume(backup, older, identity=table.keys[member], rng=table.rngs[member])
    assert back.my_turn() and back.pending == ()  # left alone, it would sign a new key

    sent, here = await answer(keeper, table.keys[keeper.member], back, made, tmp_path)
    handed_back = made in sent[:here]
    assert handed_back, "the runner answered the roll call without the caller's early key"
    # The seat taken back reads what the runner sent: it adopts its key, signs none.
    for wire in sent:
        try:
            open_envelope(wire, table_id=back.table_id, roster=None)
        except ProtocolError:
            continue  # a sync request or its answer
        try:
            back.receive(wire)
        except EarlyInRound:
            continue  # the keeper's own key: after seat 0's
    assert back.pending == (made,) and not back.my_turn()


async def test_a_roll_call_is_answered_with_the_callers_key_of_the_next_deal_first(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """The same for a message of the next deal's opening, made during this deal
    (``table.md`` §1.6): the others keep it early until this deal is over, in no
    transcript, so only the answer to the roll call can hand it back."""
    table = make_table(replace(one_deal(3), game_length=2), seed=b"roll call next deal")
    while not (table.observer.hand.hand == 1 and table.observer.hand.phase is Phase.BIDDING):
        step(table, BOT)
    victim, keeper = table.peer_at(2), table.peer_at(1)
    member = victim.member
    assert member is not None and keeper.member is not None
    backup, older = backup_of(victim)  # taken before its key of deal 2 was made
    made = victim.prepare()  # its key of deal 2, sent before its program stopped
    assert [open_envelope(w, table_id=victim.table_id, roster=None).hand for w in made] == [2]
    back = Peer.resume(backup, older, identity=table.keys[member], rng=table.rngs[member])
    assert back.pending == ()  # left alone, it would make a new key of deal 2

    sent, here = await answer(keeper, table.keys[keeper.member], back, made[0], tmp_path)
    assert made[0] in sent[:here], "the answer did not hand back the key of deal 2"
    assert back.receive(made[0]) == []  # adopted: it waits for deal 2, makes no second key
    assert back.pending == tuple(made) and back.prepare() == []
