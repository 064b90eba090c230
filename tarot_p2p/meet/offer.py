"""Meeting through a hub: a host makes its table at a relay and offers it under a short
code; a joiner finds it with that code.

Why apart from :mod:`.rendezvous`: that module is the exchange, bytes in and out; this one
drives it over the hub's channels (:mod:`tarot_p2p.net.channels`), in the hub's process or over TCP,
and holds the host's policy: every wrong code a joiner confirms is counted, and after
``MAX_FAILURES`` on one code the channel is dropped and a new code is made, so that an
online guesser (a stranger, or the relay itself) has ten tries out of 65 536 per code.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from typing import NoReturn, Protocol

import trio

from tarot_p2p.meet.rendezvous import (
    Entropy,
    HostExchange,
    Invitation,
    JoinerExchange,
    RendezvousError,
)
from tarot_p2p.meet.words import ShortCode
from tarot_p2p.net.channels import Arrival, ClaimEnd, RemoteClaim
from tarot_p2p.net.framing import FramedStream, LinkError
from tarot_p2p.net.hello import Claimed, ClaimHello, Created, CreateHello, OpenHello, dial
from tarot_p2p.net.noise import NoiseError

log = logging.getLogger(__name__)

MAX_FAILURES = 10
"""Wrong confirmations after which a code stops working (``rendezvous.md`` §4)."""
MAX_EXCHANGES = 16
"""Joiners in the middle of their exchange at once; the oldest is forgotten past it."""
CONNECT_TIMEOUT = 15.0
FIND_TIMEOUT = 30.0
RETRY = (1.0, 2.0, 5.0, 10.0)
"""Seconds before claiming again after the relay's connection was lost."""


class OpenEnd(Protocol):
    """A joiner's end of a channel: an in-process :class:`~.channels.Opener` or TCP."""

    async def send(self, message: bytes) -> None: ...

    async def receive(self) -> bytes: ...


class _FramedEnd:
    def __init__(self, framed: FramedStream) -> None:
        self._framed = framed

    async def send(self, message: bytes) -> None:
        await self._framed.send_frame(message)

    async def receive(self) -> bytes:
        return await self._framed.receive_frame()


class CodeShown(Protocol):
    """How the host tells its player about the code: a new one (``why`` says what
    happened to the old one, ``None`` the first time), or a wrong try counted."""

    def new_code(self, code: ShortCode, why: str | None) -> None: ...

    def wrong_try(self, count: int) -> None: ...


async def _serve_claim(
    claim: ClaimEnd,
    code: ShortCode,
    invitation: Invitation,
    failures: int,
    shown: CodeShown,
    entropy: Entropy,
) -> int:
    """Answer joiners on ``claim`` until ``MAX_FAILURES`` wrong tries; the count reached."""
    exchanges: dict[int, HostExchange] = {}
    while failures < MAX_FAILURES:
        arrival: Arrival = await claim.receive()
        joiner, message = arrival.joiner, arrival.message
        if message is None:
            exchanges.pop(joiner, None)
            continue
        exchange = exchanges.pop(joiner, None)
        try:
            if exchange is None:
                exchange = HostExchange(code, invitation, entropy)
                reply = exchange.answer(message)
                exchanges[joiner] = exchange
                if len(exchanges) > MAX_EXCHANGES:
                    del exchanges[next(iter(exchanges))]
                await claim.send(joiner, reply)
                continue
            reply, right = exchange.finish(message)
        except RendezvousError as exc:
            log.info("rendezvous: joiner %d: %s", joiner, exc)
            continue
        await claim.send(joiner, reply)
        if not right:
            failures += 1
            shown.wrong_try(failures)
    return failures


async def offer_table(
    claim_channel: Callable[[int], Awaitable[ClaimEnd]],
    invitation: Invitation,
    shown: CodeShown,
    *,
    entropy: Entropy = os.urandom,
) -> NoReturn:
    """Hold a channel and answer joiners under a short code until cancelled.

    ``claim_channel(wanted)`` claims channel ``wanted`` (0: any) at the hub. A lost claim
    is claimed again, the same channel if it is still free (the code then stays), and a
    code tried wrongly ``MAX_FAILURES`` times is replaced by a new one."""
    code: ShortCode | None = None
    failures, attempt = 0, 0
    why: str | None = None
    while True:
        try:
            claim = await claim_channel(code.channel if code is not None else 0)
        except (LinkError, NoiseError, OSError, trio.TooSlowError) as exc:
            log.info("rendezvous: cannot claim a channel: %s", exc)
            await trio.sleep(RETRY[min(attempt, len(RETRY) - 1)])
            attempt += 1
            continue
        attempt = 0
        if code is None or claim.channel != code.channel:
            code, failures = ShortCode.random(claim.channel), 0
            shown.new_code(code, why)
        try:
            failures = await _serve_claim(claim, code, invitation, failures, shown, entropy)
            code, why = None, f"it was tried wrongly {MAX_FAILURES} times"
        except LinkError as exc:
            log.info("rendezvous: channel lost: %s", exc)
            await trio.sleep(RETRY[0])
        finally:
            with trio.CancelScope(shield=True):
                await claim.aclose()


async def find_table(end: OpenEnd, code: ShortCode, *, entropy: Entropy = os.urandom) -> Invitation:
    """The joiner's exchange on an open channel (raises RendezvousError, WrongCode among
    them, or LinkError)."""
    exchange = JoinerExchange(code, entropy)
    await end.send(exchange.start())
    await end.send(exchange.read_reply(await end.receive()))
    return exchange.read_table(await end.receive())


async def ask_host(host: str, port: int, code: ShortCode) -> Invitation:
    """The invitation behind ``code``, asked at the hub ``host:port`` (raises
    :class:`~.hello.HubRefused` with ``no-channel`` when the hub does not know the code)."""
    framed, _ = await dial(host, port, OpenHello(code.channel), CONNECT_TIMEOUT)
    try:
        with trio.fail_after(FIND_TIMEOUT):
            return await find_table(_FramedEnd(framed), code)
    finally:
        await trio.aclose_forcefully(framed.stream)


async def claim_at(host: str, port: int, wanted: int) -> RemoteClaim:
    """A claim held at the relay ``host:port``."""
    framed, answer = await dial(host, port, ClaimHello(wanted), CONNECT_TIMEOUT)
    if not isinstance(answer, Claimed):
        await trio.aclose_forcefully(framed.stream)
        raise LinkError("the relay did not answer the claim")
    return RemoteClaim(framed, answer.channel)


async def create_at(host: str, port: int) -> Created:
    """A new table at the relay ``host:port``."""
    framed, answer = await dial(host, port, CreateHello(), CONNECT_TIMEOUT)
    await trio.aclose_forcefully(framed.stream)
    if not isinstance(answer, Created):
        raise LinkError("the relay did not answer with a new table")
    return answer
