"""The base of the tests' misbehaving links.

Each test double (a hub that withholds, a member that forges, a link that stalls) changes
one way of a member's link; :class:`PassThrough` hands everything else on to the link it
wraps, so that a double says only what it does differently.
"""

from __future__ import annotations

from tarot_p2p.net.link import MessageLink


class PassThrough:
    """A :class:`~tarot_p2p.net.link.MessageLink` that sends, receives and closes through
    ``inner`` unchanged."""

    def __init__(self, inner: MessageLink) -> None:
        self.inner = inner

    async def send(self, message: bytes) -> None:
        await self.inner.send(message)

    async def receive(self) -> bytes:
        return await self.inner.receive()

    async def aclose(self) -> None:
        await self.inner.aclose()
