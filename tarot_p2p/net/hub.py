"""The hub: accepts authenticated peers and relays every message to all the others.

Theory of operation. The hub is untrusted by design. It terminates each peer's Noise
session (so it sees messages, which the protocol makes public anyway: hidden cards travel
encrypted to their owner by the mental-poker layer), but it cannot forge or alter a
message, since peers verify every envelope signature and the transcript chain. What it can
do is stall or drop, which peers repair by asking each other for records (sync requests)
and, past a seat's limit, record as an absence that blames nobody.

All relayed messages go into one ordered log; each member has a cursor in it and one
writer task that sends every entry not sent by that member. Appending is synchronous (no
checkpoint between "append" and "wake the writers"), so every member sees the same global
order. A peer connecting late, or again, is sent the log from its start (peers drop
duplicates by the transcript's ``DUPLICATE`` verdict).

Bounded, and the bounds fall on whoever exceeds them (``wire.md`` §7.4):

* the log keeps at most ``max_backlog`` bytes; a member still owed trimmed entries skips
  them (and asks the peers for what it missed): a slow reader loses messages, never its
  link, and never costs the others anything;
* each connected sender has a budget of bytes and of messages (a token bucket: a burst,
  refilled at a steady rate); a sender over budget is disconnected, so a member flooding
  the table loses its own link and the members reading it keep theirs;
* a member whose socket takes no bytes for ``send_timeout`` seconds is disconnected (its
  own link only).

Failure isolation: each connection runs in its own task; a malformed or oversize frame, a
bad transport tag or a timeout ends that task and closes that connection, and nothing
else. The same :class:`Hub` serves TCP members (:meth:`serve_link`, behind the
:class:`~.door.Door` that reads their hello and runs their handshake) and in-process
endpoints for a peer that hosts the hub (:meth:`local_link`).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.net.framing import LinkError
from tarot_p2p.net.joincode import JoinCode, link_key
from tarot_p2p.net.link import DEFAULT_CONFIG, Link, LinkConfig
from tarot_p2p.net.noise import NoiseError
from tarot_p2p.protocol.identity import fingerprint

log = logging.getLogger(__name__)


KEPT_DROPS = 256
"""The last dropped connections whose reasons a hub keeps (for logs and tests)."""
CONNECTION_ERRORS = (LinkError, NoiseError, trio.TooSlowError, trio.BrokenResourceError)
"""What a single connection can break; each ends that connection only."""


class OverBudget(LinkError):
    """This member sent more than its budget of bytes or messages: a flood."""


@dataclass(frozen=True, slots=True)
class Budget:
    """What one member may send: a burst, refilled at a steady rate (token buckets)."""

    burst_bytes: int = 8 << 20
    bytes_per_second: int = 2 << 20
    burst_messages: int = 512
    messages_per_second: int = 128


class _Bucket:
    def __init__(self, burst: int, rate: int) -> None:
        self.burst = burst
        self.rate = rate
        self.level = float(burst)
        self.at = trio.current_time()

    def take(self, amount: int) -> bool:
        now = trio.current_time()
        self.level = min(float(self.burst), self.level + (now - self.at) * self.rate)
        self.at = now
        if amount > self.level:
            return False
        self.level -= amount
        return True


@dataclass(slots=True)
class _Entry:
    sender: int
    message: bytes


@dataclass(slots=True)
class _Member:
    ident: int
    cursor: int


@dataclass(slots=True)
class HubStats:
    accepted: int = 0
    relayed: int = 0
    drops: deque[str] = field(default_factory=lambda: deque(maxlen=KEPT_DROPS))
    """The reasons of the last dropped connections (a relay's table lives for hours: a
    member dropping again and again must not grow its memory)."""


class Hub:
    def __init__(
        self,
        identity: Ed25519PrivateKey,
        table_id: bytes,
        secret: bytes | None,
        *,
        key: bytes | None = None,
        config: LinkConfig = DEFAULT_CONFIG,
        admit: Callable[[Ed25519PublicKey], bool] | None = None,
        max_backlog: int = 64 << 20,
        budget: Budget = Budget(),
        send_timeout: float = 60.0,
    ) -> None:
        self.identity = identity
        self.table_id = table_id
        if (secret is None) == (key is None):
            raise ValueError("a hub is given the join secret (its host's) or the link key")
        self.secret = secret
        """The join secret: known to a host's own hub, never to a relay's."""
        self.link_key: bytes = link_key(secret) if secret is not None else key or b""
        """What the handshake's join proofs are checked with (``wire.md`` §5.2)."""
        self.config = config
        self.admit = admit
        self.max_backlog = max_backlog
        self.budget = budget
        self.send_timeout = send_timeout
        self.stats = HubStats()
        self._log: list[_Entry] = []
        self._base = 0
        self._log_bytes = 0
        self._next_ident = 0
        self._members: dict[int, _Member] = {}
        self._changed = trio.Event()
        self.seen = time.time()
        """Wall-clock time a member last came or left (a relay forgets idle tables)."""

    def join_code(self, host: str, port: int, *, relay: bool = False) -> JoinCode:
        """The long code of this table (only a hub given the join secret can make it)."""
        if self.secret is None:
            raise ValueError("a relay's table has no join secret: its host makes the code")
        hub_key = fingerprint(self.identity.public_key())
        return JoinCode(host, port, self.table_id, hub_key, self.secret, relay)

    # --- the ordered log ---------------------------------------------------------------

    def _new_member(self) -> _Member:
        member = _Member(self._next_ident, self._base)
        self._next_ident += 1
        self._members[member.ident] = member
        self.seen = time.time()
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

        A member still owed some of them skips them: it will ask the peers for what it
        lacks. Nobody is disconnected for being slow."""
        keep_bytes, cut = self._log_bytes, 0
        while cut < len(self._log) - 1 and keep_bytes > self.max_backlog * 3 // 4:
            keep_bytes -= len(self._log[cut].message)
            cut += 1
        new_base = self._base + cut
        for member in self._members.values():
            member.cursor = max(member.cursor, new_base)
        del self._log[:cut]
        self._log_bytes = keep_bytes
        self._base = new_base

    async def _next_for(self, member: _Member) -> bytes:
        """The next logged message ``member`` did not send itself, waiting if needed."""
        while True:
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

    @property
    def connected(self) -> int:
        """Members connected now (in-process ones included)."""
        return len(self._members)

    def _leave(self, member: _Member) -> None:
        self._members.pop(member.ident, None)
        self.seen = time.time()

    def _drop(self, exc: BaseException) -> None:
        reason = f"{type(exc).__name__}: {exc}"
        self.stats.drops.append(reason)
        log.info("dropped connection: %s", reason)

    async def serve_link(self, link: Link) -> None:
        """Relay for one authenticated TCP member until it leaves or breaks something;
        never raises for it (the caller closes its connection)."""
        self.stats.accepted += 1
        member = self._new_member()

        budget = self.budget
        byte_bucket = _Bucket(budget.burst_bytes, budget.bytes_per_second)
        message_bucket = _Bucket(budget.burst_messages, budget.messages_per_second)

        async def pump_out() -> None:
            while True:
                message = await self._next_for(member)
                with trio.fail_after(self.send_timeout):
                    await link.send(message)

        async def pump_in() -> None:
            while True:
                message = await link.receive()
                if not (message_bucket.take(1) and byte_bucket.take(len(message))):
                    raise OverBudget(f"member {member.ident} sent over its budget")
                self._relay(member, message)

        try:
            async with trio.open_nursery() as nursery:

                async def guarded(pump: Callable[[], Awaitable[None]]) -> None:
                    try:
                        await pump()
                    except CONNECTION_ERRORS as exc:
                        self._drop(exc)
                    finally:
                        nursery.cancel_scope.cancel()

                nursery.start_soon(guarded, pump_out)
                nursery.start_soon(guarded, pump_in)
        finally:
            self._leave(member)


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
        self._hub._leave(self._member)
        await trio.lowlevel.checkpoint()
