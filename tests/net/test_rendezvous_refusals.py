"""Why a short-code exchange is refused: each refusal of ``rendezvous.py`` says what was wrong.

Messages are read under tight limits (a rendezvous message is small: a kilobyte at most)
before anything else is looked at, so a relay cannot make a host or a joiner parse a
large one; the kind expected at each step, the invitation's form and the seal of the table
message are each checked with their own reason.
"""

from __future__ import annotations

import pytest

from tarot_p2p.meet.rendezvous import (
    HostExchange,
    Invitation,
    JoinerExchange,
    RendezvousError,
    WrongCode,
)
from tarot_p2p.meet.words import ShortCode
from tarot_p2p.protocol.codec import encode
from tests.meet.test_rendezvous import CODE, INVITATION, LONG

LARGE = encode({"k": "pake", "m": b"x" * 1100})
"""A well-formed message over the kilobyte a rendezvous message may have."""


def test_a_message_over_a_kilobyte_is_refused_before_it_is_read() -> None:
    with pytest.raises(RendezvousError, match=r"^bad rendezvous message: message of \d+ bytes"):
        HostExchange(CODE, INVITATION).answer(LARGE)
    with pytest.raises(RendezvousError, match=r"^bad invitation: message of \d+ bytes"):
        Invitation.from_bytes(encode({"c": "x" * 1100, "h": bytes(32)}))


def test_a_message_of_another_step_is_refused() -> None:
    joiner = JoinerExchange(CODE)
    start = joiner.start()
    with pytest.raises(RendezvousError, match=r"^expected a confirm message$"):
        HostExchange(CODE, INVITATION).finish(start)
    with pytest.raises(RendezvousError, match=r"^expected a table or refused message$"):
        joiner.read_table(start)
    with pytest.raises(RendezvousError, match=r"^bad rendezvous message: pake: "):
        HostExchange(CODE, INVITATION).answer(encode({"k": "pake"}))


def test_an_invitation_needs_a_host_key_of_32_bytes() -> None:
    with pytest.raises(RendezvousError, match=r"^a host key is 32 bytes$"):
        Invitation(LONG, bytes(31))
    with pytest.raises(RendezvousError, match=r"^bad invitation: invitation: "):
        Invitation.from_bytes(encode({"c": LONG.encode()}))


def test_a_wrong_code_and_a_foreign_seal_are_told_apart() -> None:
    wrong = JoinerExchange(ShortCode(CODE.channel, CODE.first, "otter"))
    host = HostExchange(CODE, INVITATION)
    refused, _ = host.finish(wrong.read_reply(host.answer(wrong.start())))
    with pytest.raises(WrongCode, match=r"^the host says the code is wrong$"):
        wrong.read_table(refused)
    first, other = JoinerExchange(CODE), JoinerExchange(CODE)
    host = HostExchange(CODE, INVITATION)
    sealed, right = host.finish(first.read_reply(host.answer(first.start())))
    assert right and first.read_table(sealed) == INVITATION
    other_host = HostExchange(CODE, INVITATION)
    other.read_reply(other_host.answer(other.start()))
    with pytest.raises(RendezvousError, match=r"^the table message was not sealed with our key$"):
        other.read_table(sealed)
    with pytest.raises(RendezvousError, match=r"^bad SPAKE2 message: "):
        JoinerExchange(CODE).read_reply(encode({"k": "pake", "m": b"\x01" * 33}))
