"""Authenticated, encrypted, message-oriented links over TCP.

A :class:`Link` is what the table layer talks through: ``send(message)`` and
``receive() -> message`` for whole protocol messages (signed envelopes), nothing else. It
sits on a Noise XX session (:mod:`tarot_p2p.net.handshake`) over length-prefixed frames
(:mod:`tarot_p2p.net.framing`).

Transport rules (``protocol/wire.md`` §Transport): one frame carries one Noise transport
message (at most 65535 bytes, empty associated data, nonces counting up from 0 in each
direction; a session never rekeys and refuses to go past 2^64 - 1 messages). A protocol
message of up to ``max_message`` bytes is cut into chunks; each chunk's plaintext is one
flag byte (``0x01`` more chunks follow, ``0x00`` last chunk) followed by at most 65518
bytes. Any decryption failure, bad flag or oversize message raises :class:`LinkError`:
the connection is dead, the process is not.

Every TCP connection to a hub starts with a hello frame (``wire.md`` §5.0, :mod:`.hello`):
a joining peer's names the table whose handshake follows.

Timeouts are the caller's cancel scopes (``with trio.fail_after(t): await
link.receive()``), except the hello and the handshake, bounded together by
``LinkConfig.handshake_timeout``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.net.framing import ConnectionClosed, FramedStream, FrameError, LinkError, keep_alive
from tarot_p2p.net.handshake import Initiator, Responder, Session
from tarot_p2p.net.hello import TableHello, knock
from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.net.noise import MAX_MESSAGE, TAGLEN, NoiseError

MORE = 0x01
LAST = 0x00
MAX_CHUNK = MAX_MESSAGE - TAGLEN - 1


@dataclass(frozen=True, slots=True)
class LinkConfig:
    handshake_timeout: float = 10.0
    max_message: int = 1 << 20


DEFAULT_CONFIG = LinkConfig()


class MessageLink(Protocol):
    """Whole messages both ways: a TCP :class:`Link` or an in-process hub endpoint."""

    async def send(self, message: bytes) -> None: ...

    async def receive(self) -> bytes: ...

    async def aclose(self) -> None: ...


class Link:
    """One end of an established encrypted connection."""

    def __init__(self, framed: FramedStream, session: Session, config: LinkConfig) -> None:
        self._framed = framed
        self._session = session
        self._config = config
        self._send_lock = trio.Lock()
        self._pending: list[bytes] = []
        self._pending_size = 0

    @property
    def remote_identity(self) -> Ed25519PublicKey:
        return self._session.remote_identity

    @property
    def handshake_hash(self) -> bytes:
        """Unique to this session; both ends agree on it (channel binding)."""
        return self._session.handshake_hash

    async def send(self, message: bytes) -> None:
        """Send one whole message. If cancelled midway the link is unusable: close it."""
        if len(message) > self._config.max_message:
            raise ValueError(f"message of {len(message)} bytes exceeds {self._config.max_message}")
        async with self._send_lock:
            start = 0
            while True:
                chunk = message[start : start + MAX_CHUNK]
                start += MAX_CHUNK
                flag = MORE if start < len(message) else LAST
                frame = self._session.send.encrypt_with_ad(b"", bytes([flag]) + chunk)
                await self._framed.send_frame(frame)
                if flag == LAST:
                    return

    async def receive(self) -> bytes:
        """The next whole message. Safe to cancel: a partly received message is kept."""
        while True:
            frame = await self._framed.receive_frame()
            try:
                plain = self._session.receive.decrypt_with_ad(b"", frame)
            except NoiseError as exc:
                raise LinkError(f"transport: {exc}") from exc
            if not plain or plain[0] not in (MORE, LAST):
                raise LinkError("transport: bad chunk flag")
            self._pending_size += len(plain) - 1
            if self._pending_size > self._config.max_message:
                raise LinkError(f"message exceeds {self._config.max_message} bytes")
            self._pending.append(plain[1:])
            if plain[0] == LAST:
                message = b"".join(self._pending)
                self._pending.clear()
                self._pending_size = 0
                return message

    async def aclose(self) -> None:
        await self._framed.aclose()


async def _expect_frame(framed: FramedStream) -> bytes:
    try:
        return await framed.receive_frame()
    except ConnectionClosed as exc:
        raise LinkError(f"handshake: {exc}") from exc


async def open_link(
    stream: trio.abc.Stream,
    identity: Ed25519PrivateKey,
    code: JoinCode,
    config: LinkConfig = DEFAULT_CONFIG,
) -> Link:
    """Say hello for the code's table, then run the joining side of the handshake on
    ``stream`` (raises LinkError, :class:`~.hello.HubRefused` among them, or NoiseError)."""
    framed = FramedStream(stream, MAX_MESSAGE)
    initiator = Initiator(identity, code)
    with trio.fail_after(config.handshake_timeout):
        await knock(framed, TableHello(code.table_id))
        await framed.send_frame(initiator.message1())
        initiator.read_message2(await _expect_frame(framed))
        message3, session = initiator.message3()
        await framed.send_frame(message3)
    return Link(framed, session, config)


async def connect(
    code: JoinCode, identity: Ed25519PrivateKey, config: LinkConfig = DEFAULT_CONFIG
) -> Link:
    """Dial the hub named by ``code`` and authenticate both ways."""
    with trio.fail_after(config.handshake_timeout):
        stream = await trio.open_tcp_stream(code.host, code.port)
    keep_alive(stream)
    try:
        return await open_link(stream, identity, code, config)
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise


async def accept_link(
    framed: FramedStream,
    identity: Ed25519PrivateKey,
    table_id: bytes,
    key: bytes,
    config: LinkConfig = DEFAULT_CONFIG,
    admit: Callable[[Ed25519PublicKey], bool] | None = None,
) -> Link:
    """Run the hub side of the handshake on a connection whose hello named ``table_id``
    (the caller's cancel scope bounds it); ``key`` is the table's link key."""
    responder = Responder(identity, table_id, key, admit=admit)
    responder.read_message1(await _expect_frame(framed))
    await framed.send_frame(responder.message2())
    session = responder.read_message3(await _expect_frame(framed))
    return Link(framed, session, config)


__all__ = [
    "DEFAULT_CONFIG",
    "FrameError",
    "Link",
    "LinkConfig",
    "LinkError",
    "MessageLink",
    "accept_link",
    "connect",
    "open_link",
]
