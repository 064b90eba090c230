"""The door of a hub: reads the hello of every TCP connection and sends it on its way.

Theory of operation. Every connection to a hub, the host's own or a relay, says first
what it is for (``wire.md`` §5.0, :mod:`.hello`): a table's handshake (``table``: the
table's :class:`~.hub.Hub` then relays for it), a new table (``create``: relays only), a
rendezvous claim or open (``claim``/``open``: the hub's :class:`~.channels.Board`; claims
over TCP at relays only, from an address that has a member at one of its tables). The
door answers, and after an error closes the connection.

Bounded per source address (``wire.md`` §5.5, :mod:`.limits`): a source may hold
``connections`` open connections; a connection is *knocking* until it is past its hello
and its handshake, or while a joiner's rendezvous lasts, and knocking connections are
bounded per source and in total, with fair admission (a newcomer from a source holding
fewer takes the place of the largest holder's oldest one). The hello has
``hello_timeout`` seconds, the handshake ``config.handshake_timeout`` more, a joiner's
rendezvous ``rendezvous_timeout`` and at most ``OPENER_MESSAGES`` messages of at most
``MAX_RENDEZVOUS`` bytes. A member (past its handshake) is bounded only by its table's
budgets (:mod:`.hub`): strangers knocking never take its room. Every failure closes that
connection only.
"""

from __future__ import annotations

import logging
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import trio

from tarot_p2p.net.channels import (
    MAX_RENDEZVOUS,
    Board,
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
from tarot_p2p.net.hub import CONNECTION_ERRORS, KEPT_DROPS, Hub
from tarot_p2p.net.limits import (
    DEFAULT_LIMITS,
    Counts,
    FairSlots,
    Refusal,
    SourceLimits,
    source_of,
)
from tarot_p2p.net.link import DEFAULT_CONFIG, Link, LinkConfig, accept_link
from tarot_p2p.net.noise import MAX_MESSAGE

log = logging.getLogger(__name__)

OPENER_MESSAGES = 4
"""A joiner's rendezvous sends two messages; a few more are tolerated, never many."""


class Evicted(LinkError):
    """A knocking connection whose place a newcomer from a smaller source took."""


@dataclass(slots=True)
class DoorStats:
    drops: deque[str] = field(default_factory=lambda: deque(maxlen=KEPT_DROPS))
    """The reasons of the last dropped connections."""
    counts: Counter[str] = field(default_factory=Counter)
    """Dropped connections by kind: a refusal's reason, or the error's class name."""


After = Callable[[], Awaitable[None]]
Create = Callable[[CreateHello, str], Created]
"""A relay's maker of tables: the hello, the source asking (raises
:class:`~.limits.Refusal`)."""


class Door:
    """The hello's reader for one listening port.

    ``lookup`` finds a table's hub by id; ``create`` (relays only) makes a new table;
    ``board`` holds the rendezvous channels."""

    def __init__(
        self,
        lookup: Callable[[bytes], Hub | None],
        *,
        create: Create | None = None,
        board: Board | None = None,
        config: LinkConfig = DEFAULT_CONFIG,
        limits: SourceLimits = DEFAULT_LIMITS,
    ) -> None:
        self.lookup = lookup
        self.create = create
        self.board = board if board is not None else Board(limits=limits)
        self.config = config
        self.limits = limits
        self.stats = DoorStats()
        self.open = Counts()
        """Connections open now, per source."""
        self.members = Counts()
        """Connections past their handshake now, per source."""
        self.knocking = FairSlots(limits.knocking_total, limits.knocking)
        """Connections not yet past their hello and handshake (or in a rendezvous)."""

    @classmethod
    def of(
        cls, hub: Hub, *, board: Board | None = None, config: LinkConfig = DEFAULT_CONFIG
    ) -> Door:
        """The door of a host's own hub: one table, no ``create``, no claims over TCP."""
        return cls(lambda t: hub if t == hub.table_id else None, board=board, config=config)

    def _drop(self, exc: BaseException) -> None:
        kind = exc.reason if isinstance(exc, Refusal) else type(exc).__name__
        reason = f"{type(exc).__name__}: {exc}"
        self.stats.drops.append(reason)
        self.stats.counts[kind] += 1
        log.info("dropped connection: %s", reason)

    async def handle_stream(self, stream: trio.abc.Stream, source: str | None = None) -> None:
        """Serve one TCP connection until it ends; never raises for it. ``source``: the
        address it counts against (by default, the socket's peer)."""
        source = source_of(stream) if source is None else source
        try:
            if self.open[source] >= self.limits.connections:
                self._drop(Refusal("too-many", f"{source} has {self.open[source]} connections"))
                return
            with self.open.holding(source):
                after = await self._knock(FramedStream(stream, MAX_MESSAGE), source)
                if after is not None:
                    await after()
        except CONNECTION_ERRORS as exc:
            self._drop(exc)
        finally:
            await trio.aclose_forcefully(stream)

    async def _knock(self, framed: FramedStream, source: str) -> After | None:
        """The connection's knocking stage, in a fair place: what to run once it is in."""
        scope = trio.CancelScope()
        try:
            slot = self.knocking.take(source, scope.cancel)
        except Refusal as exc:
            self._drop(exc)  # closed at once, nothing read
            return None
        try:
            with scope:
                return await self._enter(framed, source)
            return None  # evicted
        finally:
            self.knocking.release(slot)
            if slot.evicted:
                self._drop(Evicted(f"a newcomer took the place of a connection from {source}"))

    async def _refuse(self, framed: FramedStream, refusal: Refusal) -> None:
        await framed.send_frame(encode_frame(Refused(refusal.reason)))
        self._drop(refusal)

    async def _enter(self, framed: FramedStream, source: str) -> After | None:
        """Read the hello and answer it: what to run once the connection is in (``None``
        when it is done)."""
        with trio.fail_after(self.limits.hello_timeout):
            try:
                hello = read_hello(await framed.receive_frame())
            except LinkError:
                await framed.send_frame(encode_frame(Refused("bad-hello")))
                raise
        try:
            if isinstance(hello, TableHello):
                hub = self.lookup(hello.table_id)
                if hub is None:
                    raise Refusal("no-table")
                await framed.send_frame(encode_frame(Ok()))
                with trio.fail_after(self.config.handshake_timeout):
                    link = await accept_link(
                        framed, hub.identity, hub.table_id, hub.link_key, hub.config, hub.admit
                    )
                return lambda: self._member(hub, link, source)
            if isinstance(hello, CreateHello):
                if self.create is None:
                    raise Refusal("not-a-relay")
                await framed.send_frame(encode_frame(self.create(hello, source)))
                return None
            if isinstance(hello, ClaimHello):
                if self.create is None:
                    raise Refusal("not-a-relay")  # a host claims in its own hub's program
                if not self.members[source]:
                    raise Refusal("no-host", f"no member from {source}")
                claim = self.board.claim(hello.channel, source)
                try:
                    await framed.send_frame(encode_frame(Claimed(claim.channel)))
                except BaseException:
                    claim.close()
                    raise
                return lambda: self._claimer(framed, claim)
            opener = self.board.open(hello.channel, source)
            if opener is None:
                raise Refusal("no-channel")
            try:
                await framed.send_frame(encode_frame(Ok()))
                await self._opener(framed, opener)
            finally:
                opener.close()
            return None
        except Refusal as refusal:
            await self._refuse(framed, refusal)
            return None

    async def _member(self, hub: Hub, link: Link, source: str) -> None:
        with self.members.holding(source):
            await hub.serve_link(link)

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

        with trio.move_on_after(self.limits.rendezvous_timeout):
            async with trio.open_nursery() as nursery:

                async def guarded(pump: Callable[[], Awaitable[None]]) -> None:
                    try:
                        await pump()
                    except LinkError as exc:
                        # The joiner is done or the host left (the usual ends), or the
                        # joiner broke its connection.
                        if not isinstance(exc, ConnectionClosed | ChannelClosed):
                            self._drop(exc)
                    finally:
                        nursery.cancel_scope.cancel()

                nursery.start_soon(guarded, inward)
                nursery.start_soon(guarded, outward)

    async def serve(
        self,
        host: str,
        port: int,
        *,
        task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Listen on ``host:port`` (0 picks a free port) and serve until cancelled."""
        await trio.serve_tcp(self.handle_stream, port, host=host, task_status=task_status)
