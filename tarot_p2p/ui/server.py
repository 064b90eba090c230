"""The page's server: one page and one WebSocket on 127.0.0.1, for this player alone.

Why so strict: the page drives a seat that holds secret cards and signs moves, so only
the player's own browser may talk to it. The server listens on the loopback address
only; the page, its files and its WebSocket are served to a browser that holds the
session cookie, which only the entry file's one-time key gets (:mod:`.entry`); the
``Host`` header must name the loopback address and port (against DNS rebinding); a
WebSocket and a key's exchange must come from the page's own origin (against another
site's script). Anything else gets a plain refusal, and a browser without the cookie a
page that says how to get in.

Why its own few lines of HTTP (h11 and wsproto, the sans-IO protocol machines, driven
by trio here) rather than a server framework: the server must outlive whatever a
connection sends. Each connection is one task that ends alone: requests are bounded in
size and time, a page's messages in size and rate; a page that sends what it should not
is told so, and closed if it goes on; the program and the game go on. (hypercorn, used
before, stopped the whole program on a binary message over its limit followed by a text
one.)

The server holds no game logic: it forwards the page's clicks to a :class:`Table` (the
browser policy) and sends the views the table publishes.
"""

from __future__ import annotations

import html
import json
import logging
import shutil
import tempfile
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Final, Protocol

import h11
import trio
import wsproto
import wsproto.utilities
from wsproto.connection import ConnectionState
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Ping,
    Pong,
    TextMessage,
)

from tarot_p2p.ui.entry import (
    EntryFile,
    PageMemory,
    alive_proof,
    new_secret,
    proof_key,
    same_secret,
)
from tarot_p2p.ui.i18n import Words

log = logging.getLogger(__name__)

MAX_CONNECTIONS: Final = 32
"""Connections served at once (a page needs two or three)."""
REQUEST_TIME: Final = 15.0
"""Seconds for a whole request to arrive (a connection kept open waits as long)."""
MAX_HEAD: Final = 8192
MAX_BODY: Final = 256
"""The only body is a key (32 characters)."""
RECEIVE: Final = 16384
MAX_MESSAGE: Final = 4096
"""The page sends clicks: a few dozen characters each."""
MAX_DISCARD: Final = 65536
"""A refused message this long closes its connection at once."""
BURST: Final = 20
RATE: Final = 10.0
"""A page may send ``BURST`` messages at once and ``RATE`` a second after that."""
MAX_STRIKES: Final = 4
"""Messages refused before the page's connection is closed."""
STATIC: Final[dict[str, str]] = {
    "table.js": "text/javascript; charset=utf-8",
    "table.css": "text/css; charset=utf-8",
}
"""The page's files (``/`` is ``index.html``) and their types."""
HTML: Final = "text/html; charset=utf-8"
TEXT: Final = "text/plain; charset=utf-8"
SECURITY_HEADERS: Final = (
    ("cache-control", "no-store"),
    ("referrer-policy", "no-referrer"),
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    (
        "content-security-policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
)


class Table(Protocol):
    """What the server needs from the game side (implemented by the browser policy)."""

    @property
    def words(self) -> Words:
        """The page's language, for the page shown to a browser without the cookie."""
        ...

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
    return resources.files("tarot_p2p.ui").joinpath("static", name).read_bytes()


class Reply:
    """An HTTP answer: status, content type, body and extra headers."""

    def __init__(
        self,
        status: int,
        body: bytes,
        content_type: str = TEXT,
        extra: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.status = status
        self.body = body
        self.content_type = content_type
        self.extra = extra


NOT_FOUND: Final = Reply(404, b"Not found.\n")
FORBIDDEN: Final = Reply(403, b"Forbidden.\n")


class PageServer:
    """Listens, and serves each connection in a task of its own (see the module
    docstring). :meth:`prepare` before :meth:`serve` says where the entry file goes and
    which table's port and session to take up."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.port = 0
        self.session = new_secret()
        self.entry: EntryFile | None = None
        self.came_back = False
        """True when this run took up the port and session a table kept (a tab of the
        previous run may come back by itself)."""
        self.taken_port = 0
        """The port a table kept, when another program had taken it (0 when not): the tab
        of the previous run cannot come back, and the player must be told."""
        self.pages = 0
        self.page_came = trio.Event()
        self._folder: Path | None = None
        self._wanted = 0
        self._open = 0

    # ------------------------------------------------------------------ set-up

    def prepare(self, folder: Path, table: Path | None = None) -> None:
        """The entry file goes into ``folder``; ``table``: the folder of the table this
        program takes up, when known now, whose page memory is then used."""
        self._folder = folder
        memory = PageMemory.load(table) if table is not None else None
        if memory is not None:
            self._wanted, self.session = memory.port, memory.session

    def remember(self, table: Path) -> None:
        """Keep this page's port and session in the folder ``table``, for the next run."""
        PageMemory(self.port, self.session).save(table)

    @property
    def cookie(self) -> str:
        """The session cookie's name; one per port, so that pages of two programs, in the
        same browser, do not overwrite each other's."""
        return f"tarot-p2p-{self.port}"

    async def serve(self, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen on the loopback address; ``task_status`` gets the entry file's address.
        Without :meth:`prepare`, the entry file goes into a private temporary folder."""
        own: str | None = None
        folder = self._folder
        if folder is None:
            folder = Path(own := tempfile.mkdtemp(prefix="tarot-p2p-page-"))
        try:
            listeners = await self._listen()
            self.port = listeners[0].socket.getsockname()[1]
            self.entry = EntryFile(folder, self.port)
            try:
                task_status.started(self.entry.address)
                await trio.serve_listeners(self._connection, listeners)
            finally:
                self.entry.remove()
        finally:
            if own is not None:
                shutil.rmtree(own, ignore_errors=True)

    async def _listen(self) -> list[trio.SocketListener]:
        if self._wanted:
            try:
                listeners = await trio.open_tcp_listeners(self._wanted, host="127.0.0.1")
            except OSError:
                log.info("page: port %d is taken; another port, and a new session", self._wanted)
                self.taken_port = self._wanted
                self.session = new_secret()
            else:
                self.came_back = True
                return listeners
        return await trio.open_tcp_listeners(0, host="127.0.0.1")

    # ------------------------------------------------------------------ one connection

    async def _connection(self, stream: trio.SocketStream) -> None:
        """One connection, from its first byte to its end: whatever it sends ends here."""
        if self._open >= MAX_CONNECTIONS:
            await trio.aclose_forcefully(stream)
            return
        self._open += 1
        try:
            await self._http(stream)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass  # the other side went away
        except (h11.RemoteProtocolError, wsproto.utilities.RemoteProtocolError) as exc:
            log.info("page: a connection broke the protocol (%s)", exc)
        except Exception:
            # The last guard: a fault of ours on one connection must not end the game.
            log.warning("page: a connection failed", exc_info=True)
        finally:
            self._open -= 1
            await trio.aclose_forcefully(stream)

    async def _http(self, stream: trio.SocketStream) -> None:
        http = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        while True:
            try:
                got = await _read_request(stream, http)
            except h11.RemoteProtocolError as exc:
                if http.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                    refusal = h11.Response(
                        status_code=exc.error_status_hint, headers=[("connection", "close")]
                    )
                    await stream.send_all(http.send(refusal) + http.send(h11.EndOfMessage()))
                return
            if got is None:
                return
            request, body = got
            if body is None:
                await _respond(stream, http, request, Reply(413, b"Too large.\n"))
                return
            if _header(request, b"upgrade").lower() == b"websocket":
                await self._upgrade(stream, http, request)
                return
            await _respond(stream, http, request, self._answer(request, body))
            if http.our_state is not h11.DONE or http.their_state is not h11.DONE:
                return
            http.start_next_cycle()

    # ------------------------------------------------------------------ checks

    def _origins(self) -> tuple[bytes, ...]:
        return (f"127.0.0.1:{self.port}".encode(), f"localhost:{self.port}".encode())

    def _host_ok(self, request: h11.Request) -> bool:
        return _header(request, b"host") in self._origins()

    def _origin_ok(self, request: h11.Request) -> bool:
        return _header(request, b"origin") in tuple(b"http://" + h for h in self._origins())

    def _known(self, request: h11.Request) -> bool:
        """The request carries this page's session cookie."""
        given = _cookies(request).get(self.cookie)
        return given is not None and same_secret(given, self.session)

    # ------------------------------------------------------------------ HTTP

    def _answer(self, request: h11.Request, body: bytes) -> Reply:
        if not self._host_ok(request):
            return NOT_FOUND
        path = request.target.split(b"?", 1)[0].decode("ascii", "replace")
        if request.method == b"POST" and path == "/enter":
            return self._enter(request, body)
        if request.method not in (b"GET", b"HEAD"):
            return NOT_FOUND
        if path == "/door.js":
            return Reply(200, _asset("door.js"), STATIC["table.js"])
        if path == "/alive":
            return self._alive(request)
        known = self._known(request)
        if path == "/":
            return Reply(200, _asset("index.html"), HTML) if known else self._door()
        if not known:
            return FORBIDDEN
        name = path[1:]
        if name in STATIC:
            return Reply(200, _asset(name), STATIC[name])
        if name == "transcript.tp2p":
            return Reply(
                200,
                self.table.transcript(),
                "application/octet-stream",
                (("content-disposition", 'attachment; filename="transcript.tp2p"'),),
            )
        return NOT_FOUND

    def _door(self) -> Reply:
        """The page a browser without the cookie gets: how to get in (and, with a key in
        its address, the script that exchanges it)."""
        words = self.table.words
        page = _asset("door.html").decode()
        for key in ("door_title", "door_text", "door_used"):
            page = page.replace("{" + key + "}", html.escape(words(key)))
        page = page.replace("{lang}", words.lang)
        return Reply(403, page.encode(), HTML)

    def _alive(self, request: h11.Request) -> Reply:
        """The proof a page asks for before it sends its cookie again (:mod:`.entry`)."""
        query = request.target.partition(b"?")[2].decode("ascii", "replace")
        nonce = query.removeprefix("n=")
        if not (query.startswith("n=") and 16 <= len(nonce) <= 64 and nonce.isalnum()):
            return NOT_FOUND
        return Reply(200, alive_proof(self.session, nonce).encode())

    def _enter(self, request: h11.Request, body: bytes) -> Reply:
        """The key's exchange for the session cookie (posted by the door page's script)."""
        entry = self.entry
        if entry is None or not self._origin_ok(request):
            return FORBIDDEN
        if not entry.use(body.decode("utf-8", "replace").strip()):
            return Reply(403, b"This key is not valid (it works once).\n")
        cookie = f"{self.cookie}={self.session}; Path=/; HttpOnly; SameSite=Strict"
        return Reply(204, b"", TEXT, (("set-cookie", cookie),))

    # ------------------------------------------------------------------ WebSocket

    async def _upgrade(
        self, stream: trio.SocketStream, http: h11.Connection, request: h11.Request
    ) -> None:
        allowed = (
            request.method == b"GET"
            and request.target == b"/ws"
            and self._host_ok(request)
            and self._origin_ok(request)
            and self._known(request)
        )
        if not allowed:
            await _respond(stream, http, request, FORBIDDEN)
            return
        ws = wsproto.WSConnection(wsproto.ConnectionType.SERVER)
        try:
            ws.initiate_upgrade_connection(list(request.headers), request.target)
        except wsproto.utilities.RemoteProtocolError:
            await _respond(stream, http, request, Reply(400, b"Bad WebSocket request.\n"))
            return
        for _ in ws.events():  # its own view of the request, checked above
            pass
        await stream.send_all(ws.send(AcceptConnection()))
        page = PageSocket(self.table, stream, ws, proof_key(self.session))
        self.pages += 1
        self.page_came.set()
        self.table.connected(1)
        try:
            await page.run(http.trailing_data[0])
        finally:
            self.pages -= 1
            self.table.connected(-1)


class PageSocket:
    """One page's WebSocket, once accepted: the proof key (:mod:`.entry`) and the views
    out, clicks in, misbehaviour bounded.

    A message is refused (an error to this page, nothing to the game) when it is binary,
    longer than :data:`MAX_MESSAGE`, faster than the rate allows, or not a JSON object;
    :data:`MAX_STRIKES` refusals, or one message longer than :data:`MAX_DISCARD`, close
    the connection. Messages are counted as they arrive, never held whole beyond the
    limit."""

    def __init__(
        self, table: Table, stream: trio.SocketStream, ws: wsproto.WSConnection, proof: bytes
    ) -> None:
        self.table = table
        self.proof = proof
        self.stream = stream
        self.ws = ws
        self.strikes = 0
        self._lock = trio.Lock()
        self._tokens = float(BURST)
        self._clock = trio.current_time()
        self._parts: list[str] = []
        self._size = 0

    async def run(self, early: bytes) -> None:
        """Serve until either side closes; ``early``: bytes that came with the request."""
        await self._send(TextMessage(json.dumps({"type": "proof", "key": self.proof.hex()})))
        await self._send(TextMessage(self.table.hello()))
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._push)
            if early:
                self.ws.receive_data(early)
            while await self._events():
                self.ws.receive_data(await self.stream.receive_some(RECEIVE) or None)
            nursery.cancel_scope.cancel()

    async def _push(self) -> None:
        version = -1
        while True:
            now, text = self.table.current()
            if now != version:
                version = now
                await self._send(TextMessage(text))
            await self.table.changed(version)

    async def _send(self, event: TextMessage | CloseConnection | Pong) -> None:
        async with self._lock:
            state = self.ws.state
            if state is ConnectionState.OPEN or (
                state is ConnectionState.REMOTE_CLOSING and isinstance(event, CloseConnection)
            ):
                await self.stream.send_all(self.ws.send(event))

    async def _events(self) -> bool:
        """Handle what arrived; False once the connection is over."""
        for event in self.ws.events():
            if isinstance(event, CloseConnection):
                if self.ws.state is ConnectionState.REMOTE_CLOSING:
                    await self._send(event.response())
                elif self.ws.state is ConnectionState.OPEN:  # a frame wsproto could not read
                    await self._send(CloseConnection(event.code))
                return False
            if isinstance(event, (TextMessage, BytesMessage)):
                going = await self._part(event)
            elif not self._spend():  # a ping or a pong, too fast
                going = await self._refuse()
            else:
                going = True
                if isinstance(event, Ping):
                    await self._send(event.response())
            if not going:
                return False
        return self.ws.state is ConnectionState.OPEN

    async def _part(self, event: TextMessage | BytesMessage) -> bool:
        """One piece of a message; False when the connection is to be closed."""
        self._size += len(event.data)
        if isinstance(event, TextMessage) and self._size <= MAX_MESSAGE:
            self._parts.append(event.data)
        if self._size > MAX_DISCARD:
            await self._send(CloseConnection(1009, "message too long"))
            return False
        if not event.message_finished:
            return True
        size, text = self._size, "".join(self._parts)
        self._size, self._parts = 0, []
        if not self._spend() or size > MAX_MESSAGE:
            return await self._refuse()
        try:  # (a binary message, whose parts are not kept, is "": not JSON)
            message = json.loads(text)
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            message = None
        if not isinstance(message, dict):
            return await self._refuse()
        self.table.take(message)
        return True

    def _spend(self) -> bool:
        """One message's worth of the rate; False when the page sends too fast."""
        now = trio.current_time()
        self._tokens = min(float(BURST), self._tokens + (now - self._clock) * RATE)
        self._clock = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    async def _refuse(self) -> bool:
        """Tell the page its message was not taken; False once it has been told enough."""
        self.strikes += 1
        text = self.table.words("page_refused")
        await self._send(TextMessage(json.dumps({"type": "error", "text": text})))
        if self.strikes < MAX_STRIKES:
            return True
        await self._send(CloseConnection(1008, "too many refused messages"))
        return False


# ---------------------------------------------------------------------- HTTP plumbing


async def _read_request(
    stream: trio.SocketStream, http: h11.Connection
) -> tuple[h11.Request, bytes | None] | None:
    """The next request and its body (``None`` when over :data:`MAX_BODY`); ``None`` at
    the connection's end or when the request is too slow to come."""
    request: h11.Request | None = None
    body = bytearray()
    with trio.move_on_after(REQUEST_TIME):
        while True:
            event = http.next_event()
            if event is h11.NEED_DATA:
                http.receive_data(await stream.receive_some(RECEIVE))
            elif isinstance(event, h11.Request):
                request = event
            elif isinstance(event, h11.Data):
                body += event.data
                if len(body) > MAX_BODY and request is not None:
                    return request, None
            elif isinstance(event, h11.EndOfMessage) and request is not None:
                return request, bytes(body)
            else:  # the connection closed
                return None
    return None


async def _respond(
    stream: trio.SocketStream, http: h11.Connection, request: h11.Request, reply: Reply
) -> None:
    headers = [
        ("content-type", reply.content_type),
        ("content-length", str(len(reply.body))),
        *SECURITY_HEADERS,
        *reply.extra,
    ]
    if reply.status >= 400:
        headers.append(("connection", "close"))
    out = http.send(h11.Response(status_code=reply.status, headers=headers))
    if request.method != b"HEAD" and reply.body:
        out += http.send(h11.Data(data=reply.body))
    out += http.send(h11.EndOfMessage())
    await stream.send_all(out)


def _header(request: h11.Request, name: bytes) -> bytes:
    """The value of the header ``name`` given once; empty when absent or repeated."""
    values = [value for key, value in request.headers if key == name]
    return values[0] if len(values) == 1 else b""


def _cookies(request: h11.Request) -> dict[str, str]:
    jar: dict[str, str] = {}
    for key, value in request.headers:
        if key == b"cookie":
            for part in value.decode("latin-1").split(";"):
                name, eq, content = part.strip().partition("=")
                if eq:
                    jar.setdefault(name, content)
    return jar
