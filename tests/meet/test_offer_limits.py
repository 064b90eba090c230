"""The host's side of guessing: codes renewed slowly, on a channel drawn at random, and
the player told once that someone is trying codes, not once a try."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from tarot_p2p.cli.host import CodeBoard
from tarot_p2p.meet.offer import MAX_FAILURES, RENEW_AFTER, offer_table
from tarot_p2p.meet.rendezvous import WrongCode
from tarot_p2p.meet.words import ShortCode
from tarot_p2p.net.channels import Board, ClaimEnd
from tarot_p2p.net.hello import REASONS, HubRefused
from tests.meet.test_rendezvous import INVITATION, Shown, offered, try_code


def wrong_for(code: ShortCode) -> ShortCode:
    return ShortCode(code.channel, code.first, "zebra" if code.second != "zebra" else "acid")


async def use_up(board: Board, code: ShortCode, round_: int) -> None:
    """Ten wrong tries on ``code``, each from its own address (no address is over its
    limit, so only the host's counting is at work)."""
    for i in range(MAX_FAILURES):
        with pytest.raises(WrongCode):
            await try_code(board, wrong_for(code), f"10.{round_}.0.{i}")


async def test_used_up_codes_come_back_ever_more_slowly_and_the_host_is_told_once(
    autojump_clock: trio.abc.Clock,
) -> None:
    board = Board()
    async with trio.open_nursery() as nursery:
        shown = await offered(board, nursery)
        made = [trio.current_time()]
        for round_ in range(4):
            changed = shown.changed
            await use_up(board, shown.codes[-1][0], round_)
            used_up = trio.current_time()
            await trio.testing.wait_all_tasks_blocked()
            assert board.claimed() == []  # no code at all during the pause
            await changed.wait()
            made.append(trio.current_time())
            assert made[-1] - used_up == pytest.approx(RENEW_AFTER[round_], abs=1)
        assert shown.guessed == [RENEW_AFTER[0]]  # told once, four codes used up
        assert len(shown.codes) == 5
        assert await try_code(board, shown.codes[-1][0], "10.9.9.9") == INVITATION
        nursery.cancel_scope.cancel()
    assert RENEW_AFTER == (60.0, 120.0, 240.0, 480.0, 960.0, 1800.0)  # rendezvous.md §2.1


async def test_a_new_code_is_on_a_channel_drawn_at_random() -> None:
    """Not the lowest free channel: codes of a quiet hub would all start with 1."""
    board = Board()
    channels = set()
    for _ in range(40):
        claim = board.claim(0)
        channels.add(claim.channel)
        claim.close()
    assert len(channels) > 20 and max(channels) <= 999
    # A channel asked for by number is given when free, another one at random if not.
    held = board.claim(0)
    assert board.claim(held.channel).channel != held.channel


async def test_the_hosts_terminal_says_once_that_codes_are_being_tried(
    autojump_clock: trio.abc.Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    board = Board()

    async def claim(wanted: int) -> ClaimEnd:
        await trio.lowlevel.checkpoint()
        return board.claim(wanted)

    async with trio.open_nursery() as nursery:
        seen = Shown()  # to know when codes change; the player reads the CodeBoard

        class Both(CodeBoard):
            def new_code(self, code: ShortCode, why: str | None) -> None:
                super().new_code(code, why)
                seen.new_code(code, why)

        nursery.start_soon(offer_table, claim, INVITATION, Both(None, None, None, "tp2p1-long"))
        await seen.changed.wait()
        for round_ in range(3):
            changed = seen.changed
            await use_up(board, seen.codes[-1][0], round_)
            await changed.wait()
        nursery.cancel_scope.cancel()
    out = capsys.readouterr().out
    assert out.count("Someone is trying codes for your table") == 1
    assert "the next in 1 minute" in out
    assert out.count("Read this code to your friends") == 4
    assert out.count("The code no longer works") == 3
    assert len(out.splitlines()) < 20  # 30 wrong tries, and no line for any of them
    # The short code first, the one read aloud; the long code once, under it.
    lines = out.splitlines()
    assert lines[0].startswith("Read this code to your friends: ")
    assert "send them the long code below" in lines[1] and lines[2] == "join code: tp2p1-long"
    assert out.count("join code: tp2p1-long") == 1 and "long code above" in out


async def test_a_hub_that_gives_no_code_is_said_once_for_each_reason(
    autojump_clock: trio.abc.Clock,
) -> None:
    reasons = ["no-host", "no-host", "too-many", "too-many", "too-many"]
    board = Board()

    async def claim(wanted: int) -> ClaimEnd:
        await trio.lowlevel.checkpoint()
        if reasons:
            raise HubRefused(reasons.pop(0))
        return board.claim(wanted)

    shown = Shown()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(offer_table, claim, INVITATION, shown)
        await shown.changed.wait()  # a code at last
        nursery.cancel_scope.cancel()
    assert shown.problems == [REASONS["no-host"], REASONS["too-many"]]
