"""The hub's rendezvous channels: a host's claim, joiners' opens, messages forwarded.

Theory of operation. A host holds a *claim* on one channel number (1..9999, the lowest
free one unless it asks for one it held before); the short code it reads out starts with
that number. A joiner *opens* the channel: the board gives it a joiner id and pairs it
with the claimer. From then on the board only forwards: a joiner's messages reach the
claimer tagged with the joiner's id, the claimer's messages tagged with an id reach that
joiner. The board learns nothing it could use: the messages are a SPAKE2 exchange and its
sealed result (``protocol/rendezvous.md``), so the hub can only guess the password online,
which the host counts like any wrong try.

A channel dies with its claim: its joiners are cut off and the number is free again.
Bounded: at most ``max_openers`` joiners at once on a channel (more are refused as busy),
and each side's queue is small; a full queue makes the sender wait (the claimer's TCP
connection pauses), it never grows.

The same board serves claims in the hub's own process (the host's own hub) and over TCP
(a relay): :class:`Claim` and :class:`Opener` are the two ends either way, and a host
talking to a relay holds a :class:`RemoteClaim`, which behaves like a :class:`Claim`.

On a claim's TCP connection (after the hello ``claim``, ``wire.md`` §5.0) every frame is
a map: ``{"k": "msg", "p": joiner id, "m": bin message}`` both ways, and from the hub
``{"k": "gone", "p": joiner id}`` when a joiner left. A joiner's connection (hello
``open``) carries the bare messages, one per frame.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

import trio

from tarot_p2p.net.framing import FramedStream, LinkError
from tarot_p2p.net.hello import MAX_CHANNEL
from tarot_p2p.protocol.codec import Bytes, DecodeError, Limits, Schema, UInt, decode, encode

QUEUE = 8
"""Messages waiting on one side of a channel before their sender waits."""
MAX_RENDEZVOUS = 1024
"""Bytes of one rendezvous message (the longest, the sealed long code, is about 300)."""
MAX_JOINER = 2**32 - 1
_LIMITS = Limits(
    max_buffer_size=MAX_RENDEZVOUS + 64, max_str_len=8, max_bin_len=MAX_RENDEZVOUS, max_map_len=3
)


class ChannelClosed(LinkError):
    """The other end of the rendezvous left (or the channel died with its claim)."""


class BoardFull(Exception):
    """Every channel number is claimed."""


class ChannelBusy(Exception):
    """A channel already has as many joiners as it may."""


@dataclass(frozen=True, slots=True)
class Arrival:
    """What the claimer receives: ``message`` from ``joiner``, or ``None`` once it left."""

    joiner: int
    message: bytes | None


@dataclass(slots=True)
class _Channel:
    number: int
    inbox_send: trio.MemorySendChannel[Arrival]
    inbox: trio.MemoryReceiveChannel[Arrival]
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

    def close(self) -> None:
        self._board._release(self._channel)

    async def aclose(self) -> None:
        self.close()
        await trio.lowlevel.checkpoint()


class Opener:
    """A joiner's end of a channel."""

    def __init__(self, channel: _Channel, joiner: int) -> None:
        self._channel = channel
        self.joiner = joiner
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
        self._inbox_send.close()
        if not self._channel.closed:
            # A claimer far behind learns of the departure by a skipped send instead.
            with contextlib.suppress(trio.WouldBlock):
                self._channel.inbox_send.send_nowait(Arrival(self.joiner, None))


class Board:
    """Every channel of one hub."""

    def __init__(self, *, max_openers: int = 16) -> None:
        self.max_openers = max_openers
        self._channels: dict[int, _Channel] = {}

    def claim(self, wanted: int = 0) -> Claim:
        """Channel ``wanted`` if it is free, else the lowest free one (raises BoardFull)."""
        if 1 <= wanted <= MAX_CHANNEL and wanted not in self._channels:
            number = wanted
        else:
            number = next((n for n in range(1, MAX_CHANNEL + 1) if n not in self._channels), 0)
            if not number:
                raise BoardFull("every channel is in use")
        inbox_send, inbox = trio.open_memory_channel[Arrival](self.max_openers * QUEUE)
        channel = _Channel(number, inbox_send, inbox)
        self._channels[number] = channel
        return Claim(self, channel)

    def open(self, number: int) -> Opener | None:
        """A joiner on channel ``number``, or ``None`` when nobody claims it (raises
        ChannelBusy when it has its fill of joiners)."""
        channel = self._channels.get(number)
        if channel is None:
            return None
        if len(channel.openers) >= self.max_openers:
            raise ChannelBusy(f"channel {number} is busy")
        opener = Opener(channel, channel.next_joiner)
        channel.next_joiner += 1
        channel.openers[opener.joiner] = opener
        return opener

    def claimed(self) -> list[int]:
        return sorted(self._channels)

    def _release(self, channel: _Channel) -> None:
        if self._channels.get(channel.number) is channel:
            del self._channels[channel.number]
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

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class _Message:
    joiner: int
    message: bytes


@dataclass(frozen=True, slots=True)
class _Gone:
    joiner: int


_MESSAGE = Schema(
    _Message, {"joiner": ("p", UInt(MAX_JOINER)), "message": ("m", Bytes(0, MAX_RENDEZVOUS))}
)
_GONE = Schema(_Gone, {"joiner": ("p", UInt(MAX_JOINER))})


def _frame(arrival: Arrival) -> bytes:
    if arrival.message is None:
        return encode({**_GONE.dump(_Gone(arrival.joiner)), "k": "gone"})
    return encode({**_MESSAGE.dump(_Message(arrival.joiner, arrival.message)), "k": "msg"})


def _read(frame: bytes, kinds: tuple[str, ...]) -> Arrival:
    try:
        value = decode(frame, _LIMITS)
        if not isinstance(value, dict) or value.get("k") not in kinds:
            raise LinkError(f"claim connection: expected {' or '.join(kinds)}")
        if value.pop("k") == "gone":
            return Arrival(_GONE.load(value).joiner, None)
        message = _MESSAGE.load(value)
    except DecodeError as exc:
        raise LinkError(f"claim connection: {exc}") from exc
    return Arrival(message.joiner, message.message)


async def serve_claim(framed: FramedStream, claim: Claim) -> None:
    """The hub's side of a claim's TCP connection, until either side ends it."""

    async def inward() -> None:
        while True:
            arrival = _read(await framed.receive_frame(), ("msg",))
            assert arrival.message is not None
            await claim.send(arrival.joiner, arrival.message)

    async def outward() -> None:
        while True:
            await framed.send_frame(_frame(await claim.receive()))

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
        return _read(frame, ("msg", "gone"))

    async def send(self, joiner: int, message: bytes) -> None:
        async with self._send_lock:
            await self._framed.send_frame(_frame(Arrival(joiner, message)))

    async def aclose(self) -> None:
        """Closing the connection ends the claim at the relay."""
        await trio.aclose_forcefully(self._framed.stream)
