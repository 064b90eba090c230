"""Limits per source address: what strangers can cost a hub, and who goes first.

Theory of operation. A hub (a relay on the internet, or the hub in a host's program) is
reached by anyone. A public TURN server (coturn) meets the same problem with quotas per
client address and lifetimes on everything it allocates; this module does the same for
the connections a :class:`~.door.Door` serves (``wire.md`` §5.5):

* a **source** is the address a connection comes from: an IPv4 address, or the /64
  network of an IPv6 address (one home or one server gets a whole /64, so counting single
  IPv6 addresses would count nothing);
* a connection is **knocking** from its first byte until it is past its hello and its
  Noise handshake (a member of a table), or for as long as a joiner's rendezvous lasts:
  until then it has proven nothing. Knocking connections have deadlines (the hello, the
  handshake, the rendezvous) and are bounded per source and in total. Members are not:
  strangers, however many, never take the room of a seated player's connection;
* when every knocking place is taken, admission is **fair**: a newcomer from a source
  that holds fewer places than the largest holder takes the place of that holder's oldest
  connection (:class:`FairSlots`). A source holding a few places (a player reconnecting)
  therefore always gets in; a flood from a few sources only ever pushes itself out;
* **wrong codes** are counted per source across every code of the hub
  (:class:`Tries`): a source that confirmed too many wrong short codes is refused for a
  while, whatever channel it tries next.

Every refusal a client can be told about is a :class:`Refusal` whose reason is one of the
hello's error reasons (``hello.REASONS``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import trio

LOCAL = "local"
"""The source of a stream that is not a socket (tests' memory streams, in-process ends)."""


@dataclass(frozen=True, slots=True)
class SourceLimits:
    """The limits of one hub; the reference values (``wire.md`` §5.5)."""

    connections: int = 32
    """Open connections from one source, in any stage (a NAT with a whole table behind it
    needs five)."""
    knocking: int = 4
    """Connections from one source not yet past their hello and handshake (a player needs
    one at a time)."""
    knocking_total: int = 64
    """Knocking connections from every source together."""
    hello_timeout: float = 5.0
    """Seconds from a connection's first byte to its hello."""
    rendezvous_timeout: float = 30.0
    """Seconds a joiner's rendezvous connection may last (the exchange takes one round trip
    to the host and back, twice)."""
    channels: int = 4
    """Rendezvous channels one source may hold at a relay (a host holds one)."""
    tables: int = 4
    """Tables one source may have at a relay at once."""
    tries: int = 5
    """Wrong short codes one source may confirm in a row before it is refused."""
    try_back_after: float = 300.0
    """Seconds after which a source gets one more try back (12 an hour at most)."""


DEFAULT_LIMITS = SourceLimits()


class Refusal(Exception):
    """What a hub answers instead of serving a hello: ``reason`` is a hello error reason."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(detail or reason)
        self.reason = reason


def source_key(host: str) -> str:
    """The source an address counts as: IPv4 itself, IPv6 its /64 network."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def source_of(stream: trio.abc.Stream) -> str:
    """The source of a connection (:data:`LOCAL` when it is no socket)."""
    if not isinstance(stream, trio.SocketStream):
        return LOCAL
    try:
        peer = stream.socket.getpeername()
    except OSError:
        return LOCAL
    return source_key(str(peer[0]))


class Counts:
    """How many of something each source holds now."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def __getitem__(self, source: str) -> int:
        return self._counts.get(source, 0)

    @contextmanager
    def holding(self, source: str) -> Iterator[None]:
        self._counts[source] = self[source] + 1
        try:
            yield
        finally:
            left = self._counts[source] - 1
            if left:
                self._counts[source] = left
            else:
                del self._counts[source]


@dataclass(eq=False, slots=True)
class Slot:
    """One place in a :class:`FairSlots`; ``evicted`` once a newcomer took it."""

    source: str
    order: int
    evict: Callable[[], None]
    evicted: bool = False


@dataclass(slots=True)
class FairSlots:
    """At most ``total`` places, at most ``per_source`` for one source, handed out fairly.

    When every place is taken, a newcomer whose source holds fewer places than the largest
    holder takes the place of that holder's oldest one (ties: the holder whose oldest place
    is the oldest); otherwise it is refused. A source that holds ``per_source`` places is
    refused outright."""

    total: int
    per_source: int
    _held: dict[str, list[Slot]] = field(default_factory=dict)
    _count: int = 0
    _order: int = 0

    def __len__(self) -> int:
        return self._count

    def held_by(self, source: str) -> int:
        return len(self._held.get(source, ()))

    def take(self, source: str, evict: Callable[[], None], reason: str = "busy") -> Slot:
        """A place for ``source`` (raises :class:`Refusal` with ``reason``); ``evict`` is
        called if a newcomer takes it later."""
        mine = self.held_by(source)
        if mine >= self.per_source:
            raise Refusal(reason, f"{source} holds {mine} places")
        if self._count >= self.total:
            victim = self._victim()
            if victim is None or self.held_by(victim.source) <= mine:
                raise Refusal(reason, f"all {self.total} places are taken")
            self.release(victim)
            victim.evicted = True
            victim.evict()
        self._order += 1
        slot = Slot(source, self._order, evict)
        self._held.setdefault(source, []).append(slot)
        self._count += 1
        return slot

    def _victim(self) -> Slot | None:
        best: Slot | None = None
        for slots in self._held.values():
            oldest = slots[0]
            if best is None:
                best = oldest
                continue
            size, best_size = len(slots), self.held_by(best.source)
            if size > best_size or (size == best_size and oldest.order < best.order):
                best = oldest
        return best

    def release(self, slot: Slot) -> None:
        """Give the place back (nothing when it was taken away already)."""
        slots = self._held.get(slot.source)
        if slots is None or slot not in slots:
            return
        slots.remove(slot)
        self._count -= 1
        if not slots:
            del self._held[slot.source]


@dataclass(slots=True)
class _Bucket:
    level: float
    at: float


class Tries:
    """Wrong short codes per source: ``allowed`` in a row, then one more every
    ``back_after`` seconds (a token bucket); a source with none left is refused."""

    def __init__(self, allowed: int, back_after: float) -> None:
        self.allowed = allowed
        self.back_after = back_after
        self._buckets: dict[str, _Bucket] = {}

    def _level(self, source: str, now: float) -> float:
        bucket = self._buckets.get(source)
        if bucket is None:
            return float(self.allowed)
        return min(float(self.allowed), bucket.level + (now - bucket.at) / self.back_after)

    def refused(self, source: str) -> bool:
        """Whether ``source`` has no try left now."""
        return self._level(source, trio.current_time()) < 1.0

    def wrong(self, source: str) -> None:
        """Count one wrong code confirmed from ``source``."""
        now = trio.current_time()
        level = max(0.0, self._level(source, now) - 1.0)
        # Sources whose tries all came back are forgotten: the table holds only the
        # sources that guessed within the last allowed * back_after seconds.
        for other in [s for s in self._buckets if self._level(s, now) >= self.allowed]:
            del self._buckets[other]
        self._buckets[source] = _Bucket(level, now)

    def __len__(self) -> int:
        return len(self._buckets)
