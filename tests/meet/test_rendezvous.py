"""The short code's exchange: the right code gives the long code and the host's key; a
wrong code, a tampered message or a hub playing SPAKE2 itself never gives another one."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.meet.offer import MAX_FAILURES, find_table, offer_table
from tarot_p2p.meet.rendezvous import (
    HostExchange,
    Invitation,
    JoinerExchange,
    RendezvousError,
    WrongCode,
)
from tarot_p2p.meet.words import ShortCode
from tarot_p2p.net.channels import Board, ClaimEnd
from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.protocol.identity import fingerprint, identity_bytes

HOST = Ed25519PrivateKey.from_private_bytes(b"\x11" * 32)
RELAY = Ed25519PrivateKey.from_private_bytes(b"\x22" * 32)
CODE = ShortCode(7, "guitar", "orbit")
LONG = JoinCode(
    "203.0.113.7", 7770, bytes(range(32)), fingerprint(RELAY.public_key()), b"\x05" * 16, True
)
INVITATION = Invitation(LONG, identity_bytes(HOST.public_key()))

Tamper = Callable[[int, bytes], bytes]


def exchange(joiner_code: ShortCode, tamper: Tamper = lambda i, m: m) -> tuple[Invitation, bool]:
    """One exchange, message ``i`` (0..3) passed through ``tamper``; the joiner's result and
    whether the host took the confirmation as right."""
    joiner, host = JoinerExchange(joiner_code), HostExchange(CODE, INVITATION)
    reply = host.answer(tamper(0, joiner.start()))
    confirm = joiner.read_reply(tamper(1, reply))
    last, right = host.finish(tamper(2, confirm))
    return joiner.read_table(tamper(3, last)), right


def test_the_right_code_gives_the_long_code_and_the_host_key() -> None:
    invitation, right = exchange(CODE)
    assert right and invitation == INVITATION


def test_a_wrong_code_is_refused_on_both_sides() -> None:
    with pytest.raises(WrongCode):
        exchange(ShortCode(7, "guitar", "otter"))
    joiner, host = JoinerExchange(ShortCode(7, "guitar", "otter")), HostExchange(CODE, INVITATION)
    confirm = joiner.read_reply(host.answer(joiner.start()))
    assert host.finish(confirm)[1] is False


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 3), st.integers(0, 400), st.integers(1, 255))
def test_a_flipped_byte_anywhere_never_gives_another_invitation(
    index: int, position: int, xor: int
) -> None:
    def tamper(i: int, message: bytes) -> bytes:
        if i != index:
            return message
        at = position % len(message)
        return message[:at] + bytes([message[at] ^ xor]) + message[at + 1 :]

    try:
        invitation, _ = exchange(CODE, tamper)
    except RendezvousError:
        return
    assert invitation == INVITATION  # only possible if the change was no change at all


@pytest.mark.parametrize("guess", [CODE, ShortCode(7, "acid", "acid")])
def test_a_hub_playing_spake2_itself_learns_nothing_and_is_counted(guess: ShortCode) -> None:
    """The hub answers the joiner with its own SPAKE2 side and talks to the host with
    another (a man in the middle guessing the password). Even a right guess gives it no
    way to hand the joiner another long code: the table message is sealed by the host."""
    joiner, host = JoinerExchange(CODE), HostExchange(CODE, INVITATION)
    rogue_host = HostExchange(guess, Invitation(LONG, identity_bytes(RELAY.public_key())))
    rogue_joiner = JoinerExchange(guess)
    to_joiner = rogue_host.answer(joiner.start())
    confirm = joiner.read_reply(to_joiner)
    forged, right_for_rogue = rogue_host.finish(confirm)
    host_confirm = rogue_joiner.read_reply(host.answer(rogue_joiner.start()))
    real, right_for_host = host.finish(host_confirm)
    if guess == CODE:
        # A right guess is a right guess: the joiner gets the rogue's invitation only by
        # knowing the code, which the ten-try limit makes unlikely (2^-16 per try).
        assert right_for_rogue and right_for_host
        assert joiner.read_table(forged).host_key == identity_bytes(RELAY.public_key())
        return
    assert not right_for_rogue and not right_for_host
    with pytest.raises(WrongCode):
        joiner.read_table(forged)
    with pytest.raises(RendezvousError):
        joiner.read_table(real)  # the host's real answer is sealed for another key


def test_the_host_answer_swapped_for_another_sessions_is_refused() -> None:
    first_joiner, first_host = JoinerExchange(CODE), HostExchange(CODE, INVITATION)
    first_host.finish(first_joiner.read_reply(first_host.answer(first_joiner.start())))
    other = Invitation(LONG, identity_bytes(RELAY.public_key()))
    joiner, host = JoinerExchange(CODE), HostExchange(CODE, other)
    old_host = HostExchange(CODE, other)
    joiner_msg = joiner.start()
    host.answer(joiner_msg)
    # The hub replays an old session's host message: keys differ, the host refuses.
    confirm = joiner.read_reply(old_host.answer(joiner_msg))
    assert host.finish(confirm)[1] is False


def test_an_own_hub_code_must_name_the_host() -> None:
    own = JoinCode("192.0.2.1", 4000, bytes(32), fingerprint(RELAY.public_key()), bytes(16))
    with pytest.raises(RendezvousError, match="host's key"):
        Invitation(own, identity_bytes(HOST.public_key()))


@pytest.mark.parametrize("garbage", [b"", b"\xc1", b"\x81\xa1k\xa4pake", b"\x80" * 3])
def test_garbage_is_a_rendezvous_error(garbage: bytes) -> None:
    with pytest.raises(RendezvousError):
        HostExchange(CODE, INVITATION).answer(garbage)
    joiner = JoinerExchange(CODE)
    joiner.start()
    with pytest.raises(RendezvousError):
        joiner.read_reply(garbage)


class Shown:
    """What the host's player is told, kept."""

    def __init__(self) -> None:
        self.codes: list[tuple[ShortCode, str | None]] = []
        self.guessed: list[float] = []
        self.problems: list[str] = []
        self.changed = trio.Event()

    def new_code(self, code: ShortCode, why: str | None) -> None:
        self.codes.append((code, why))
        self.changed.set()
        self.changed = trio.Event()

    def being_guessed(self, wait: float) -> None:
        self.guessed.append(wait)

    def no_code(self, words: str) -> None:
        self.problems.append(words)


async def offered(board: Board, nursery: trio.Nursery) -> Shown:
    shown = Shown()

    async def claim(wanted: int) -> ClaimEnd:
        await trio.lowlevel.checkpoint()
        return board.claim(wanted)

    nursery.start_soon(offer_table, claim, INVITATION, shown)
    await shown.changed.wait()
    return shown


async def try_code(board: Board, code: ShortCode, source: str = "10.0.0.1") -> Invitation:
    """A joiner from ``source`` tries ``code`` on the board."""
    opener = board.open(code.channel, source)
    assert opener is not None
    try:
        return await find_table(opener, code)
    finally:
        opener.close()


async def test_joiners_find_the_table_through_the_board() -> None:
    board = Board()
    async with trio.open_nursery() as nursery:
        shown = await offered(board, nursery)
        ((code, why),) = shown.codes
        assert why is None and board.claimed() == [code.channel]
        results = []

        async def join() -> None:
            results.append(await try_code(board, code))

        async with trio.open_nursery() as joiners:
            for _ in range(4):
                joiners.start_soon(join)
        assert results == [INVITATION] * 4 and not shown.guessed
        nursery.cancel_scope.cancel()
    assert board.claimed() == []  # the channel dies with its claim


async def test_ten_wrong_tries_close_the_channel_and_make_a_new_code(
    autojump_clock: trio.abc.Clock,
) -> None:
    """The host counts wrong tries and drops the code at the tenth. Run on a virtual clock
    with a deadline: were the limit gone, the wait for the new code would end in the
    deadline's error at once instead of hanging."""
    board = Board()
    with trio.fail_after(600):
        async with trio.open_nursery() as nursery:
            shown = await offered(board, nursery)
            code = shown.codes[0][0]
            wrong = ShortCode(
                code.channel, code.first, "zebra" if code.second != "zebra" else "acid"
            )
            for i in range(MAX_FAILURES - 1):
                with pytest.raises(WrongCode):
                    await try_code(board, wrong, f"10.0.0.{i}")
            assert len(shown.codes) == 1 and not shown.guessed
            changed = shown.changed
            with pytest.raises(WrongCode):
                await try_code(board, wrong, "10.0.1.1")
            await changed.wait()
            assert shown.guessed == [60.0]  # told once, with the wait before the next code
            new, why = shown.codes[1]
            assert why is not None and f"{MAX_FAILURES} times" in why
            if new.channel != code.channel:  # the old code leads nowhere
                assert board.open(code.channel, "10.0.1.2") is None
            elif new != code:  # the words are new (they match the old ones once in 65 536)
                with pytest.raises(WrongCode):
                    await try_code(board, code, "10.0.1.2")
            assert await try_code(board, new, "10.0.1.3") == INVITATION
            nursery.cancel_scope.cancel()


def test_vector_file_keys_are_domain_separated() -> None:
    """The confirmation and the sealing key differ for the same K and messages."""
    from tarot_p2p.meet.rendezvous import confirmation, sealing_key

    k = hashlib.sha256(b"K").digest()
    assert confirmation(k, b"a", b"b") != sealing_key(k, b"a", b"b")
