"""Meeting through a hub: a host makes its table at a relay and offers it under a short
code; a joiner finds it with that code.

Why apart from :mod:`.rendezvous`: that module is the exchange, bytes in and out; this one
drives it over the hub's channels (:mod:`tarot_p2p.net.channels`), in the hub's process or over TCP,
and holds the host's policy (``rendezvous.md`` §2):

* every wrong code a joiner confirms is counted, and reported to the hub, which counts it
  against the joiner's address across every code it carries;
* after ``MAX_FAILURES`` on one code the channel is dropped, and the next code comes only
  after a pause that doubles each time (``RENEW_AFTER``), on a channel the hub draws at
  random: however many guessers there are, and even if the relay is one, they have ten
  tries out of 65 536 per code and a code every half hour at most;
* the player is told once that someone is trying codes for the table, not once a try.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from typing import NoReturn, Protocol

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.meet.rendezvous import (
    Entropy,
    HostExchange,
    Invitation,
    JoinerExchange,
    RendezvousError,
)
from tarot_p2p.meet.words import ShortCode
from tarot_p2p.net.access import create_hello
from tarot_p2p.net.channels import Arrival, ClaimEnd, RemoteClaim
from tarot_p2p.net.framing import FramedStream, LinkError
from tarot_p2p.net.hello import Claimed, ClaimHello, Created, HubRefused, OpenHello, dial
from tarot_p2p.net.joincode import link_key
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
RENEW_AFTER = (60.0, 120.0, 240.0, 480.0, 960.0, 1800.0)
"""Seconds without a code after the first, second... code was tried wrongly
``MAX_FAILURES`` times (then every half hour)."""


class OpenEnd(Protocol):
    """A joiner's end of a channel: an in-process :class:`~.channels.Opener` or TCP."""

    async def send(self, message: bytes) -> None: ...

    async def receive(self) -> bytes: ...


class FramedEnd:
    """A joiner's end over TCP: one message a frame."""

    def __init__(self, framed: FramedStream) -> None:
        self._framed = framed

    async def send(self, message: bytes) -> None:
        await self._framed.send_frame(message)

    async def receive(self) -> bytes:
        return await self._framed.receive_frame()


class CodeShown(Protocol):
    """How the host tells its player about the code: a new one (``why`` says what
    happened to the old one, ``None`` the first time); once, that someone is trying codes
    (the next code comes in ``wait`` seconds); and why the hub gives no code now, once for
    each reason (``words``, for the player)."""

    def new_code(self, code: ShortCode, why: str | None) -> None: ...

    def being_guessed(self, wait: float) -> None: ...

    def no_code(self, words: str) -> None: ...


async def _serve_claim(
    claim: ClaimEnd, code: ShortCode, invitation: Invitation, failures: int, entropy: Entropy
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
        if not right:
            failures += 1
            await claim.wrong(joiner)  # while the joiner is still there to be counted
        await claim.send(joiner, reply)
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
    is claimed again, the same channel if it is still free (the code then stays); a code
    tried wrongly ``MAX_FAILURES`` times is dropped, and a new one made after a pause
    (``RENEW_AFTER``)."""
    code: ShortCode | None = None
    failures, attempt, spent = 0, 0, 0
    why: str | None = None
    refusals: set[str] = set()
    while True:
        try:
            claim = await claim_channel(code.channel if code is not None else 0)
        except (LinkError, NoiseError, OSError, trio.TooSlowError) as exc:
            log.info("rendezvous: cannot claim a channel: %s", exc)
            if isinstance(exc, HubRefused) and exc.reason not in refusals:
                refusals.add(exc.reason)
                shown.no_code(str(exc))
            await trio.sleep(RETRY[min(attempt, len(RETRY) - 1)])
            attempt += 1
            continue
        attempt = 0
        if code is None or claim.channel != code.channel:
            code, failures = ShortCode.random(claim.channel), 0
            shown.new_code(code, why)
        pause = RETRY[0]
        try:
            failures = await _serve_claim(claim, code, invitation, failures, entropy)
            spent += 1
            pause = RENEW_AFTER[min(spent, len(RENEW_AFTER)) - 1]
            if spent == 1:
                shown.being_guessed(pause)
            code, why = None, f"it was tried wrongly {MAX_FAILURES} times"
        except LinkError as exc:
            log.info("rendezvous: channel lost: %s", exc)
        finally:
            with trio.CancelScope(shield=True):
                await claim.aclose()
        await trio.sleep(pause)


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
            return await find_table(FramedEnd(framed), code)
    finally:
        await trio.aclose_forcefully(framed.stream)


async def claim_at(host: str, port: int, wanted: int) -> RemoteClaim:
    """A claim held at the relay ``host:port``."""
    framed, answer = await dial(host, port, ClaimHello(wanted), CONNECT_TIMEOUT)
    if not isinstance(answer, Claimed):
        await trio.aclose_forcefully(framed.stream)
        raise LinkError("the relay did not answer the claim")
    return RemoteClaim(framed, answer.channel)


CREATE_TRIES = 3
"""Times a host asks a relay for its table when the answer is lost (``wire.md`` §5.0)."""


async def create_at(
    host: str,
    port: int,
    identity: Ed25519PrivateKey,
    table_id: bytes,
    secret: bytes,
    password: str = "",
) -> Created:
    """The table ``table_id`` (drawn by the host, with its join ``secret``) held at the
    relay ``host:port`` for the host of ``identity`` (``password``: the relay's, when it
    asks for one). The relay is given the link key only, never the secret. An answer lost
    on the way (the connection broke, no answer in time) is asked for again with a fresh
    hello: the relay answers a host's repeated request for its own table as the first."""
    key = link_key(secret)
    for attempt in range(CREATE_TRIES):
        hello = create_hello(identity, table_id, key, password)
        try:
            framed, answer = await dial(host, port, hello, CONNECT_TIMEOUT)
        except HubRefused:
            raise
        except (LinkError, OSError, trio.TooSlowError):
            if attempt + 1 == CREATE_TRIES:
                raise
            await trio.sleep(RETRY[attempt])
            continue
        await trio.aclose_forcefully(framed.stream)
        if not isinstance(answer, Created) or answer.table_id != table_id:
            raise LinkError("the relay did not answer with the table asked for")
        return answer
    raise AssertionError("unreachable")
