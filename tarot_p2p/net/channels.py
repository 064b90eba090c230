"""The hub's rendezvous channels: a host's claim, joiners' opens, messages forwarded.

Theory of operation. A host holds a *claim* on one channel number (1..9999, a free one
drawn at random, short ones first, unless it asks for one it held before); the short code
it reads out starts with that number. A joiner *opens* the channel: the board gives it a
joiner id and pairs it with the claimer. From then on the board only forwards: a joiner's
messages reach the claimer tagged with the joiner's id, the claimer's messages tagged
with an id reach that joiner. The board learns nothing it could use: the messages are a
SPAKE2 exchange and its sealed result (``protocol/rendezvous.md``), so the hub can only
guess the password online, which the host counts like any wrong try.

A channel dies with its claim: its joiners are cut off and the number is free again.
Bounded: at most ``max_openers`` joiners at once on a channel, shared fairly between
sources (a newcomer from a source holding fewer takes the place of the oldest joiner of
the largest holder, :class:`~.limits.FairSlots`), so a few strangers holding a channel's
places cannot keep a friend out; each side's queue is small; a full queue makes the
sender wait (the claimer's TCP connection pauses), it never grows. A source may hold
``SourceLimits.channels`` claims.

Wrong codes are counted per source, across every channel of the board: the claimer
reports each joiner that confirmed a wrong code (:meth:`Claim.wrong`), and a source with
no try left (:class:`~.limits.Tries`) is refused when it opens any channel.

The same board serves claims in the hub's own process (the host's own hub) and over TCP
(a relay): :class:`Claim` and :class:`Opener` are the two ends either way, and a host
talking to a relay holds a :class:`RemoteClaim`, which behaves like a :class:`Claim`.

On a claim's TCP connection (after the hello ``claim``, ``wire.md`` §5.0) every frame is
a map: ``{"k": "msg", "p": joiner id, "m": bin message}`` both ways, from the hub
``{"k": "gone", "p": joiner id}`` when a joiner left, and from the claimer
``{"k": "wrong", "p": joiner id}`` when that joiner confirmed a wrong code. A joiner's
connection (hello ``open``) carries the bare messages, one per frame.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

import trio

from tarot_p2p.net.framing import FramedStream, LinkError
from tarot_p2p.net.hello import MAX_CHANNEL
from tarot_p2p.net.limits import (
    DEFAULT_LIMITS,
    LOCAL,
    FairSlots,
    Refusal,
    Slot,
    SourceLimits,
    Tries,
)
from tarot_p2p.protocol.codec import Bytes, DecodeError, Limits, Schema, UInt, decode, encode

QUEUE = 8
"""Messages waiting on one side of a channel before their sender waits."""
MAX_RENDEZVOUS = 1024
"""Bytes of one rendezvous message (the longest, the sealed long code, is about 300)."""
MAX_JOINER = 2**32 - 1
SHORT_CHANNELS = 999
"""A channel is drawn among 1..999 first (three digits to read out at most)."""
DRAWS = 64
"""Random draws among the short channels before any free channel is drawn."""
_LIMITS = Limits(
    max_buffer_size=MAX_RENDEZVOUS + 64, max_str_len=8, max_bin_len=MAX_RENDEZVOUS, max_map_len=3
)


class ChannelClosed(LinkError):
    """The other end of the rendezvous left (or the channel died with its claim)."""


@dataclass(frozen=True, slots=True)
class Arrival:
    """What the claimer receives: ``message`` from ``joiner``, or ``None`` once it left."""

    joiner: int
    message: bytes | None


@dataclass(slots=True)
class _Channel:
    number: int
    source: str | None
    inbox_send: trio.MemorySendChannel[Arrival]
    inbox: trio.MemoryReceiveChannel[Arrival]
    places: FairSlots
    openers: dict[int, Opener] = field(default_factory=dict)
    next_joiner: int = 0
    closed: bool = False


class Claim:
    """The claimer's end of a channel."""

    def __init__(self, board: Board, channel: _Channel) -> None:
        self._board = board
        self._channel = channel

    @property
    def channel(self) -> int:
        return self._channel.number

    async def receive(self) -> Arrival:
        try:
            return await self._channel.inbox.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise ChannelClosed("the channel is closed") from None

    async def send(self, joiner: int, message: bytes) -> None:
        """To one joiner; a joiner that left is skipped (its exchange is over anyway)."""
        opener = self._channel.openers.get(joiner)
        if opener is None:
            await trio.lowlevel.checkpoint()
            return
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await opener._inbox_send.send(message)

    async def wrong(self, joiner: int) -> None:
        """``joiner`` confirmed a wrong code: counted against its source (once a joiner;
        the claimer reports it before it answers, while the joiner is still there)."""
        await trio.lowlevel.checkpoint()
        opener = self._channel.openers.get(joiner)
        if opener is not None and not opener.counted:
            opener.counted = True
            self._board.tries.wrong(opener.source)

    def close(self) -> None:
        self._board._release(self._channel)

    async def aclose(self) -> None:
        self.close()
        await trio.lowlevel.checkpoint()


class Opener:
    """A joiner's end of a channel."""

    def __init__(self, channel: _Channel, joiner: int, source: str) -> None:
        self._channel = channel
        self.joiner = joiner
        self.source = source
        self.counted = False
        """Whether this joiner's wrong code was counted already."""
        self._slot: Slot | None = None
        self._inbox_send, self._inbox = trio.open_memory_channel[bytes](QUEUE)

    async def send(self, message: bytes) -> None:
        if self._channel.closed or self.joiner not in self._channel.openers:
            raise ChannelClosed("the host left the channel")
        try:
            await self._channel.inbox_send.send(Arrival(self.joiner, message))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise ChannelClosed("the host left the channel") from None

    async def receive(self) -> bytes:
        try:
            return await self._inbox.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise ChannelClosed("the host left the channel") from None

    def close(self) -> None:
        """Leave the channel (the claimer is told, if it is still there)."""
        if self._channel.openers.pop(self.joiner, None) is None:
            return
        if self._slot is not None:
            self._channel.places.release(self._slot)
        self._inbox_send.close()
        if not self._channel.closed:
            # A claimer far behind learns of the departure by a skipped send instead.
            with contextlib.suppress(trio.WouldBlock):
                self._channel.inbox_send.send_nowait(Arrival(self.joiner, None))


class Board:
    """Every channel of one hub."""

    def __init__(self, *, max_openers: int = 16, limits: SourceLimits = DEFAULT_LIMITS) -> None:
        self.max_openers = max_openers
        self.limits = limits
        self.tries = Tries(limits.tries, limits.try_back_after)
        self._channels: dict[int, _Channel] = {}
        self._claims: dict[str, int] = {}

    def claim(self, wanted: int = 0, source: str | None = None) -> Claim:
        """Channel ``wanted`` if it is free, else a free one drawn at random. ``source``:
        where a claim over TCP comes from (``None``: the hub's own program). Raises
        :class:`~.limits.Refusal`: ``too-many`` (the source holds its share), ``busy``
        (every channel is taken)."""
        if source is not None and self._claims.get(source, 0) >= self.limits.channels:
            raise Refusal("too-many", f"{source} holds {self.limits.channels} channels")
        if 1 <= wanted <= MAX_CHANNEL and wanted not in self._channels:
            number = wanted
        else:
            number = self._free_number()
        inbox_send, inbox = trio.open_memory_channel[Arrival](self.max_openers * QUEUE)
        places = FairSlots(self.max_openers, max(1, self.max_openers // 4))
        channel = _Channel(number, source, inbox_send, inbox, places)
        self._channels[number] = channel
        if source is not None:
            self._claims[source] = self._claims.get(source, 0) + 1
        return Claim(self, channel)

    def _free_number(self) -> int:
        """A free channel at random: a short one if one of a few draws is free, else any.

        Why at random: with the lowest free number, every code of a quiet hub would start
        with 1 or 2, and a guesser would know where to try without knowing anything."""
        for _ in range(DRAWS):
            number = secrets.randbelow(SHORT_CHANNELS) + 1
            if number not in self._channels:
                return number
        free = [n for n in range(1, MAX_CHANNEL + 1) if n not in self._channels]
        if not free:
            raise Refusal("busy", "every channel is in use")
        return secrets.choice(free)

    def open(self, number: int, source: str = LOCAL) -> Opener | None:
        """A joiner from ``source`` on channel ``number``, or ``None`` when nobody claims it.
        Raises :class:`~.limits.Refusal`: ``tries`` (the source confirmed too many wrong
        codes lately), ``busy`` (the channel's places are fairly taken)."""
        if self.tries.refused(source):
            raise Refusal("tries", f"{source} tried too many wrong codes")
        channel = self._channels.get(number)
        if channel is None:
            return None
        opener = Opener(channel, channel.next_joiner, source)
        opener._slot = channel.places.take(source, opener.close)
        channel.next_joiner += 1
        channel.openers[opener.joiner] = opener
        return opener

    def claimed(self) -> list[int]:
        return sorted(self._channels)

    def _release(self, channel: _Channel) -> None:
        if self._channels.get(channel.number) is channel:
            del self._channels[channel.number]
            if channel.source is not None:
                left = self._claims[channel.source] - 1
                if left:
                    self._claims[channel.source] = left
                else:
                    del self._claims[channel.source]
        channel.closed = True
        channel.inbox_send.close()
        for opener in list(channel.openers.values()):
            opener._inbox_send.close()
        channel.openers.clear()


class ClaimEnd(Protocol):
    """What a host's rendezvous talks through: a :class:`Claim` or a :class:`RemoteClaim`."""

    @property
    def channel(self) -> int: ...

    async def receive(self) -> Arrival: ...

    async def send(self, joiner: int, message: bytes) -> None: ...

    async def wrong(self, joiner: int) -> None: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class _Message:
    joiner: int
    message: bytes


@dataclass(frozen=True, slots=True)
class _About:
    """A frame about one joiner: ``gone`` (to the claimer) or ``wrong`` (from it)."""

    joiner: int


_MESSAGE = Schema(
    _Message, {"joiner": ("p", UInt(MAX_JOINER)), "message": ("m", Bytes(0, MAX_RENDEZVOUS))}
)
_ABOUT = Schema(_About, {"joiner": ("p", UInt(MAX_JOINER))})


def _frame(kind: str, joiner: int, message: bytes | None = None) -> bytes:
    if message is None:
        return encode({**_ABOUT.dump(_About(joiner)), "k": kind})
    return encode({**_MESSAGE.dump(_Message(joiner, message)), "k": kind})


def _read(frame: bytes, kinds: tuple[str, ...]) -> tuple[str, Arrival]:
    """The kind of a claim connection's frame, and the joiner and message it carries
    (``None``: a frame about the joiner)."""
    try:
        value = decode(frame, _LIMITS)
        if not isinstance(value, dict) or value.get("k") not in kinds:
            raise LinkError(f"claim connection: expected {' or '.join(kinds)}")
        kind = value.pop("k")
        assert isinstance(kind, str)
        if kind != "msg":
            return kind, Arrival(_ABOUT.load(value).joiner, None)
        message = _MESSAGE.load(value)
    except DecodeError as exc:
        raise LinkError(f"claim connection: {exc}") from exc
    return kind, Arrival(message.joiner, message.message)


async def serve_claim(framed: FramedStream, claim: Claim) -> None:
    """The hub's side of a claim's TCP connection, until either side ends it."""

    async def inward() -> None:
        while True:
            _, arrival = _read(await framed.receive_frame(), ("msg", "wrong"))
            if arrival.message is None:
                await claim.wrong(arrival.joiner)
            else:
                await claim.send(arrival.joiner, arrival.message)

    async def outward() -> None:
        while True:
            arrival = await claim.receive()
            kind = "gone" if arrival.message is None else "msg"
            await framed.send_frame(_frame(kind, arrival.joiner, arrival.message))

    async with trio.open_nursery() as nursery:

        async def guarded(pump: Callable[[], Awaitable[None]]) -> None:
            try:
                await pump()
            except LinkError:
                pass  # the claimer left or broke its connection: either way the claim ends
            finally:
                nursery.cancel_scope.cancel()

        nursery.start_soon(guarded, inward)
        nursery.start_soon(guarded, outward)


class RemoteClaim:
    """A claim held at a relay over TCP, for the host (same interface as :class:`Claim`)."""

    def __init__(self, framed: FramedStream, channel: int) -> None:
        self._framed = framed
        self._channel = channel
        self._send_lock = trio.Lock()

    @property
    def channel(self) -> int:
        return self._channel

    async def receive(self) -> Arrival:
        try:
            frame = await self._framed.receive_frame()
        except LinkError as exc:
            raise ChannelClosed(f"the relay closed the channel: {exc}") from exc
        return _read(frame, ("msg", "gone"))[1]

    async def send(self, joiner: int, message: bytes) -> None:
        async with self._send_lock:
            await self._framed.send_frame(_frame("msg", joiner, message))

    async def wrong(self, joiner: int) -> None:
        async with self._send_lock:
            await self._framed.send_frame(_frame("wrong", joiner))

    async def aclose(self) -> None:
        """Closing the connection ends the claim at the relay."""
        await trio.aclose_forcefully(self._framed.stream)
