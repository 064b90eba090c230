"""The hub's count of messages: a member sending many small ones is cut off.

The byte budget alone would let a member send a flood of tiny messages (each one costs
every other member a frame, a decryption and a verification); the hub therefore also
counts messages (``wire.md`` §7.4). The flood here stays far below the byte budget, so
only the message count can stop it.
"""

from __future__ import annotations

import pytest
import trio

from tarot_p2p.net.hub import Budget
from tarot_p2p.net.link import LinkError, connect
from tests.net.test_hub import PEERS, running_hub

BURST = 20
FLOOD = 400
"""Tiny messages sent back to back: twenty times the burst, a few kilobytes in all."""


async def test_a_member_sending_too_many_small_messages_loses_its_link() -> None:
    budget = Budget(burst_messages=BURST, messages_per_second=0)  # bytes: the default budget
    async with running_hub(budget=budget) as (hub, _door, code):
        reader = await connect(code, PEERS[0])
        flooder = await connect(code, PEERS[1])
        with pytest.raises(LinkError), trio.fail_after(10):
            for k in range(FLOOD):
                await flooder.send(b"%d" % k)
            await flooder.receive()  # the hub closes this link: the end of the stream
        with trio.fail_after(10):
            while hub.connected > 1:  # the reader alone is left
                await trio.sleep(0.01)
        assert [r for r in hub.stats.drops if "budget" in r] and len(hub.stats.drops) == 1
        # The reader gets the burst, then the next member's message: nothing of the rest
        # of the flood went through, and the reader's link still works.
        with trio.fail_after(10):
            got = [await reader.receive() for _ in range(BURST)]
        assert got == [b"%d" % k for k in range(BURST)]
        other = await connect(code, PEERS[2])
        await other.send(b"still here")
        with trio.fail_after(10):
            assert await reader.receive() == b"still here"
