"""The hub: accepts authenticated peers and relays every message to all the others.

Theory of operation. The hub is untrusted by design. It terminates each peer's Noise
session (so it sees messages, which the protocol makes public anyway: hidden cards travel
encrypted to their owner by the mental-poker layer), but it cannot forge or alter a
message, since peers verify every envelope signature and the transcript chain. What it can
do is stall, which peers' timeouts turn into an attributed abort.

All relayed messages go into one ordered log; each member has a cursor in it and one
writer task that sends every entry not sent by that member. Appending is synchronous (no
checkpoint between "append" and "wake the writers"), so every member sees the same global
order. A peer connecting late, or again, is sent the log from its start (peers drop
duplicates by the transcript's ``DUPLICATE`` verdict). The log keeps at most
``max_backlog`` bytes; a member whose cursor falls behind the oldest kept entry is too slow
and is dropped.

Failure isolation: each connection runs in its own task; a failed handshake, a malformed
or oversize frame, a bad transport tag or a timeout ends that task and closes that
connection, and nothing else. The same :class:`Hub` serves TCP peers (:meth:`serve`) and
an in-process endpoint for a peer that hosts the hub (:meth:`local_link`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.net.framing import LinkError
from tarot_p2p.net.joincode import JoinCode, fingerprint
from tarot_p2p.net.link import DEFAULT_CONFIG, LinkConfig, accept_link
from tarot_p2p.net.noise import NoiseError

log = logging.getLogger(__name__)


_CONNECTION_ERRORS = (LinkError, NoiseError, trio.TooSlowError, trio.BrokenResourceError)
"""What a single connection can break; each ends that connection only."""


class MemberDropped(LinkError):
    """This member fell too far behind the hub's backlog."""


@dataclass(slots=True)
class _Entry:
    sender: int
    message: bytes


@dataclass(slots=True)
class _Member:
    ident: int
    cursor: int
    dropped: bool = False
    cancel: Callable[[], None] | None = None
    """Stops the member's connection at once (a TCP member blocked on a slow socket)."""


class HandshakesFull(Exception):
    """A connection refused because too many others are still in their handshake."""


@dataclass(slots=True)
class HubStats:
    accepted: int = 0
    relayed: int = 0
    drops: list[str] = field(default_factory=list)


class Hub:
    def __init__(
        self,
        identity: Ed25519PrivateKey,
        table_id: bytes,
        secret: bytes,
        *,
        config: LinkConfig = DEFAULT_CONFIG,
        admit: Callable[[Ed25519PublicKey], bool] | None = None,
        max_backlog: int = 64 << 20,
        max_handshakes: int = 32,
    ) -> None:
        self.identity = identity
        self.table_id = table_id
        self.secret = secret
        self.config = config
        self.admit = admit
        self.max_backlog = max_backlog
        self.stats = HubStats()
        self._log: list[_Entry] = []
        self._base = 0
        self._log_bytes = 0
        self._next_ident = 0
        self._members: dict[int, _Member] = {}
        self._changed = trio.Event()
        self._handshakes = trio.Semaphore(max_handshakes)
        """Connections still in their handshake: bounded, so that strangers holding sockets
        open until the handshake timeout cannot exhaust the hub (a full hub refuses more)."""

    def join_code(self, host: str, port: int) -> JoinCode:
        hub_key = fingerprint(self.identity.public_key())
        return JoinCode(host, port, self.table_id, hub_key, self.secret)

    # --- the ordered log ---------------------------------------------------------------

    def _new_member(self) -> _Member:
        member = _Member(self._next_ident, self._base)
        self._next_ident += 1
        self._members[member.ident] = member
        return member

    def _relay(self, sender: _Member, message: bytes) -> None:
        self._log.append(_Entry(sender.ident, message))
        self._log_bytes += len(message)
        self.stats.relayed += 1
        if self._log_bytes > self.max_backlog:
            self._trim()
        self._changed.set()
        self._changed = trio.Event()

    def _trim(self) -> None:
        """Forget the oldest entries (down to 3/4 of the budget, so trimming is rare).

        A member still owed one of them fell too far behind: it is dropped.
        """
        keep_bytes, cut = self._log_bytes, 0
        while cut < len(self._log) - 1 and keep_bytes > self.max_backlog * 3 // 4:
            keep_bytes -= len(self._log[cut].message)
            cut += 1
        new_base = self._base + cut
        for member in self._members.values():
            if member.dropped or member.cursor >= new_base:
                continue
            owed = self._log[member.cursor - self._base : cut]
            if all(entry.sender == member.ident for entry in owed):
                member.cursor = new_base
                continue
            member.dropped = True
            self._drop(MemberDropped(f"member {member.ident} fell behind the hub backlog"))
            if member.cancel is not None:
                member.cancel()
        del self._log[:cut]
        self._log_bytes = keep_bytes
        self._base = new_base

    async def _next_for(self, member: _Member) -> bytes:
        """The next logged message ``member`` did not send itself, waiting if needed."""
        while True:
            if member.dropped:
                raise MemberDropped("fell behind the hub backlog")
            end = self._base + len(self._log)
            while member.cursor < end:
                entry = self._log[member.cursor - self._base]
                member.cursor += 1
                if entry.sender != member.ident:
                    return entry.message
            await self._changed.wait()

    # --- members -----------------------------------------------------------------------

    def local_link(self) -> LocalLink:
        """An in-process member, for a peer that hosts the hub itself."""
        return LocalLink(self, self._new_member())

    def _drop(self, exc: BaseException) -> None:
        reason = f"{type(exc).__name__}: {exc}"
        self.stats.drops.append(reason)
        log.info("dropped connection: %s", reason)

    async def handle_stream(self, stream: trio.abc.Stream) -> None:
        """Serve one TCP peer until it leaves or breaks something; never raises for it."""
        try:
            self._handshakes.acquire_nowait()
        except trio.WouldBlock:
            self._drop(HandshakesFull("too many connections in their handshake"))
            await trio.aclose_forcefully(stream)
            return
        try:
            link = await accept_link(
                stream, self.identity, self.table_id, self.secret, self.config, self.admit
            )
        except _CONNECTION_ERRORS as exc:
            self._drop(exc)
            await trio.aclose_forcefully(stream)
            return
        finally:
            self._handshakes.release()
        self.stats.accepted += 1
        member = self._new_member()

        async def pump_out() -> None:
            while True:
                await link.send(await self._next_for(member))

        async def pump_in() -> None:
            while True:
                self._relay(member, await link.receive())

        try:
            async with trio.open_nursery() as nursery:

                async def guarded(pump: Callable[[], Awaitable[None]]) -> None:
                    try:
                        await pump()
                    except MemberDropped:
                        pass  # already recorded by _trim, which dropped it
                    except _CONNECTION_ERRORS as exc:
                        self._drop(exc)
                    finally:
                        nursery.cancel_scope.cancel()

                member.cancel = nursery.cancel_scope.cancel
                nursery.start_soon(guarded, pump_out)
                nursery.start_soon(guarded, pump_in)
        finally:
            self._members.pop(member.ident, None)
            await trio.aclose_forcefully(stream)

    async def serve(
        self,
        host: str,
        port: int,
        *,
        task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Listen on ``host:port`` (0 picks a free port) and serve until cancelled."""
        await trio.serve_tcp(self.handle_stream, port, host=host, task_status=task_status)


class LocalLink:
    """A hub member in the hub's own process: same interface as :class:`~.link.Link`."""

    def __init__(self, hub: Hub, member: _Member) -> None:
        self._hub = hub
        self._member = member
        self._closed = False

    async def send(self, message: bytes) -> None:
        if self._closed:
            raise LinkError("local link closed")
        if len(message) > self._hub.config.max_message:
            raise ValueError(f"message of {len(message)} bytes exceeds the limit")
        await trio.lowlevel.checkpoint()
        self._hub._relay(self._member, message)

    async def receive(self) -> bytes:
        if self._closed:
            raise LinkError("local link closed")
        return await self._hub._next_for(self._member)

    async def aclose(self) -> None:
        self._closed = True
        self._hub._members.pop(self._member.ident, None)
        await trio.lowlevel.checkpoint()
