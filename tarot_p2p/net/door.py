"""The door of a hub: reads the hello of every TCP connection and sends it on its way.

Theory of operation. Every connection to a hub, the host's own or a relay, says first
what it is for (``wire.md`` §5.0, :mod:`.hello`): a table's handshake (``table``: the
table's :class:`~.hub.Hub` then relays for it), a new table (``create``: relays only), a
rendezvous claim or open (``claim``/``open``: the hub's :class:`~.channels.Board`). The
door answers, and after an error closes the connection.

Bounded: connections that have not finished their hello and handshake are at most
``max_pending`` (strangers holding sockets open cannot exhaust the hub; past the bound a
connection is closed at once), and the hello and the handshake together get
``config.handshake_timeout`` seconds. A joiner's rendezvous connection may send at most
``OPENER_MESSAGES`` messages of at most ``MAX_RENDEZVOUS`` bytes and lives at most
``rendezvous_timeout`` seconds. Every failure closes that connection only.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import trio

from tarot_p2p.net.channels import (
    MAX_RENDEZVOUS,
    Board,
    BoardFull,
    ChannelBusy,
    ChannelClosed,
    Claim,
    Opener,
    serve_claim,
)
from tarot_p2p.net.framing import ConnectionClosed, FramedStream, LinkError
from tarot_p2p.net.hello import (
    Claimed,
    ClaimHello,
    Created,
    CreateHello,
    Ok,
    Refused,
    TableHello,
    encode_frame,
    read_hello,
)
from tarot_p2p.net.hub import CONNECTION_ERRORS, Hub
from tarot_p2p.net.link import DEFAULT_CONFIG, LinkConfig, accept_link
from tarot_p2p.net.noise import MAX_MESSAGE

log = logging.getLogger(__name__)

OPENER_MESSAGES = 4
"""A joiner's rendezvous sends two messages; a few more are tolerated, never many."""


class PendingFull(Exception):
    """A connection refused because too many others have not finished their hello."""


class RelayFull(Exception):
    """A relay holding as many tables as it may was asked for another."""


@dataclass(slots=True)
class DoorStats:
    drops: list[str] = field(default_factory=list)


After = Callable[[], Awaitable[None]]


class Door:
    """The hello's reader for one listening port.

    ``lookup`` finds a table's hub by id; ``create`` (relays only) makes a new table or
    raises :class:`RelayFull`; ``board`` holds the rendezvous channels."""

    def __init__(
        self,
        lookup: Callable[[bytes], Hub | None],
        *,
        create: Callable[[], Created] | None = None,
        board: Board | None = None,
        config: LinkConfig = DEFAULT_CONFIG,
        max_pending: int = 32,
        rendezvous_timeout: float = 120.0,
    ) -> None:
        self.lookup = lookup
        self.create = create
        self.board = board if board is not None else Board()
        self.config = config
        self.rendezvous_timeout = rendezvous_timeout
        self.stats = DoorStats()
        self._pending = trio.Semaphore(max_pending)

    @classmethod
    def of(
        cls, hub: Hub, *, board: Board | None = None, config: LinkConfig = DEFAULT_CONFIG
    ) -> Door:
        """The door of a host's own hub: one table, no ``create``."""
        return cls(lambda t: hub if t == hub.table_id else None, board=board, config=config)

    def _drop(self, exc: BaseException) -> None:
        reason = f"{type(exc).__name__}: {exc}"
        self.stats.drops.append(reason)
        log.info("dropped connection: %s", reason)

    async def handle_stream(self, stream: trio.abc.Stream) -> None:
        """Serve one TCP connection until it ends; never raises for it."""
        try:
            self._pending.acquire_nowait()
        except trio.WouldBlock:
            self._drop(PendingFull("too many connections before their handshake"))
            await trio.aclose_forcefully(stream)
            return
        try:
            framed = FramedStream(stream, MAX_MESSAGE)
            try:
                with trio.fail_after(self.config.handshake_timeout):
                    after = await self._enter(framed)
            finally:
                self._pending.release()
            if after is not None:
                await after()
        except CONNECTION_ERRORS as exc:
            self._drop(exc)
        finally:
            await trio.aclose_forcefully(stream)

    async def _refuse(self, framed: FramedStream, reason: str) -> None:
        await framed.send_frame(encode_frame(Refused(reason)))
        self._drop(LinkError(f"refused: {reason}"))

    async def _enter(self, framed: FramedStream) -> After | None:
        """Read the hello and answer it: what to run once the connection is in (``None``
        when it is done)."""
        try:
            hello = read_hello(await framed.receive_frame())
        except LinkError:
            await framed.send_frame(encode_frame(Refused("bad-hello")))
            raise
        if isinstance(hello, TableHello):
            hub = self.lookup(hello.table_id)
            if hub is None:
                await self._refuse(framed, "no-table")
                return None
            await framed.send_frame(encode_frame(Ok()))
            link = await accept_link(
                framed, hub.identity, hub.table_id, hub.secret, hub.config, hub.admit
            )
            return lambda: hub.serve_link(link)
        if isinstance(hello, CreateHello):
            if self.create is None:
                await self._refuse(framed, "not-a-relay")
                return None
            try:
                created = self.create()
            except RelayFull:
                await self._refuse(framed, "full")
                return None
            await framed.send_frame(encode_frame(created))
            return None
        if isinstance(hello, ClaimHello):
            try:
                claim = self.board.claim(hello.channel)
            except BoardFull:
                await self._refuse(framed, "busy")
                return None
            try:
                await framed.send_frame(encode_frame(Claimed(claim.channel)))
            except BaseException:
                claim.close()
                raise
            return lambda: self._claimer(framed, claim)
        try:
            opener = self.board.open(hello.channel)
        except ChannelBusy:
            await self._refuse(framed, "busy")
            return None
        if opener is None:
            await self._refuse(framed, "no-channel")
            return None
        try:
            await framed.send_frame(encode_frame(Ok()))
        except BaseException:
            opener.close()
            raise
        return lambda: self._opener(framed, opener)

    async def _claimer(self, framed: FramedStream, claim: Claim) -> None:
        try:
            await serve_claim(framed, claim)
        finally:
            claim.close()

    async def _opener(self, framed: FramedStream, opener: Opener) -> None:
        """Forward a joiner's few messages to the claimer and the claimer's back."""

        async def inward() -> None:
            for _ in range(OPENER_MESSAGES):
                message = await framed.receive_frame()
                if len(message) > MAX_RENDEZVOUS:
                    raise LinkError(f"rendezvous message of {len(message)} bytes")
                await opener.send(message)
            await trio.sleep_forever()

        async def outward() -> None:
            while True:
                await framed.send_frame(await opener.receive())

        try:
            with trio.move_on_after(self.rendezvous_timeout):
                async with trio.open_nursery() as nursery:

                    async def guarded(pump: Callable[[], Awaitable[None]]) -> None:
                        try:
                            await pump()
                        except LinkError as exc:
                            # The joiner is done or the host left (the usual ends), or
                            # the joiner broke its connection.
                            if not isinstance(exc, ConnectionClosed | ChannelClosed):
                                self._drop(exc)
                        finally:
                            nursery.cancel_scope.cancel()

                    nursery.start_soon(guarded, inward)
                    nursery.start_soon(guarded, outward)
        finally:
            opener.close()

    async def serve(
        self,
        host: str,
        port: int,
        *,
        task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Listen on ``host:port`` (0 picks a free port) and serve until cancelled."""
        await trio.serve_tcp(self.handle_stream, port, host=host, task_status=task_status)
