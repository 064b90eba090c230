"""The page's server: one page and one WebSocket on 127.0.0.1, for this player alone.

Why so strict: the page drives a seat that holds secret cards and signs moves, so only
the player's own browser may talk to it. The server listens on the loopback address
only, on a port the system picks; every path starts with a random token (the page's
address is the only place it appears, and the page sends no referrer); the ``Host``
header must name the loopback address and port (against DNS rebinding); a WebSocket
must come from the page's own origin (against another site's script). Anything else gets
a plain refusal. The server is a minimal ASGI application under hypercorn's trio worker:
no framework, no JavaScript build, the assets are package data.

The server holds no game logic: it forwards the page's clicks to a :class:`Table` (the
browser policy) and sends the views the table publishes.
"""

from __future__ import annotations

import functools
import hmac
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from importlib import resources
from typing import Any, Final, Protocol

import trio
from hypercorn.config import Config
from hypercorn.trio import serve

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MAX_MESSAGE: Final = 4096
"""The page sends clicks: a few dozen bytes each."""
STATIC: Final[dict[str, str]] = {
    "": "text/html; charset=utf-8",
    "table.js": "text/javascript; charset=utf-8",
    "table.css": "text/css; charset=utf-8",
}
"""The page's files (``""`` is ``index.html``) and their types."""
SECURITY_HEADERS: Final = (
    (b"cache-control", b"no-store"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
)


class Table(Protocol):
    """What the server needs from the game side (implemented by the browser policy)."""

    def hello(self) -> str:
        """The first message to a page: its words and the cards' drawings."""
        ...

    def current(self) -> tuple[int, str]:
        """The version and text of the latest view."""
        ...

    async def changed(self, version: int) -> None:
        """Return once the view is newer than ``version``."""
        ...

    def take(self, message: dict[str, Any]) -> None:
        """A message from the page (a click)."""
        ...

    def transcript(self) -> bytes:
        """This seat's transcript, in the file format ``tarot-p2p audit`` reads."""
        ...

    def connected(self, delta: int) -> None:
        """A page connected (+1) or left (-1)."""
        ...


def _asset(name: str) -> bytes:
    return resources.files("tarot_p2p.ui").joinpath("static", name or "index.html").read_bytes()


class PageServer:
    """The ASGI application; :meth:`serve` runs it (see the module docstring)."""

    def __init__(self, table: Table, token: str | None = None) -> None:
        self.table = table
        self.token = token or secrets.token_urlsafe(24)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/{self.token}/"

    async def serve(self, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen on a free loopback port; ``task_status`` gets the page's address."""
        config = Config()
        config.bind = ["127.0.0.1:0"]
        config.accesslog = None
        config.loglevel = "WARNING"
        config.websocket_max_message_size = MAX_MESSAGE
        config.graceful_timeout = 0.5
        async with trio.open_nursery() as nursery:
            # hypercorn types its scopes as TypedDicts; this app reads them as mappings.
            app: Any = self
            binds = await nursery.start(functools.partial(serve, app, config))
            self.port = int(binds[0].rsplit(":", 1)[1])
            task_status.started(self.url)

    # ------------------------------------------------------------------ checks

    def _hosts(self) -> tuple[bytes, ...]:
        return (f"127.0.0.1:{self.port}".encode(), f"localhost:{self.port}".encode())

    def _allowed(self, scope: Scope) -> str | None:
        """The path after the token when the request may be served, else ``None``."""
        headers = dict(scope.get("headers") or [])
        if headers.get(b"host") not in self._hosts():
            return None
        path: str = scope.get("path", "")
        parts = path.split("/", 2)
        if len(parts) < 3 or parts[0]:
            return None
        if not hmac.compare_digest(parts[1].encode(), self.token.encode()):
            return None
        if scope["type"] == "websocket":
            origin = headers.get(b"origin", b"")
            if origin not in tuple(b"http://" + h for h in self._hosts()):
                return None
        return parts[2]

    # ------------------------------------------------------------------ ASGI

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "http":
            await self._http(scope, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, send: Send) -> None:
        rest = self._allowed(scope)
        if scope.get("method") not in ("GET", "HEAD") or rest is None:
            await _respond(send, 404, b"text/plain; charset=utf-8", b"Not found.\n")
            return
        if rest in STATIC:
            await _respond(send, 200, STATIC[rest].encode(), _asset(rest))
        elif rest == "transcript.tp2p":
            await _respond(
                send,
                200,
                b"application/octet-stream",
                self.table.transcript(),
                ((b"content-disposition", b'attachment; filename="transcript.tp2p"'),),
            )
        else:
            await _respond(send, 404, b"text/plain; charset=utf-8", b"Not found.\n")

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        first = await receive()
        if first["type"] != "websocket.connect":
            return
        if self._allowed(scope) != "ws":
            await send({"type": "websocket.close", "code": 1008})
            return
        await send({"type": "websocket.accept"})
        self.table.connected(1)
        try:
            await send({"type": "websocket.send", "text": self.table.hello()})
            async with trio.open_nursery() as nursery:

                async def push() -> None:
                    version = -1
                    while True:
                        now, text = self.table.current()
                        if now != version:
                            version = now
                            await send({"type": "websocket.send", "text": text})
                        await self.table.changed(version)

                nursery.start_soon(push)
                while True:
                    message = await receive()
                    if message["type"] == "websocket.disconnect":
                        break
                    self._take(message.get("text"))
                nursery.cancel_scope.cancel()
        finally:
            self.table.connected(-1)

    def _take(self, text: object) -> None:
        try:
            message = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            message = None
        if isinstance(message, dict):
            self.table.take(message)
        else:
            log.info("page: ignored a message that is not a JSON object")


async def _respond(
    send: Send,
    status: int,
    content_type: bytes,
    body: bytes,
    extra: tuple[tuple[bytes, bytes], ...] = (),
) -> None:
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
        *SECURITY_HEADERS,
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
