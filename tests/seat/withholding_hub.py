"""A hub that withholds one player's bytes, for the process tests: a TCP proxy on 127.0.0.1.

The player's program dials this proxy (its join code rewritten to the proxy's port) and the
proxy dials the real hub (in the host's program). Bytes from the hub reach the player as
they come; the player's own bytes go on frame by frame (``wire.md`` §5: a 4-byte length,
then the frame) until ``hold_when()`` first says yes; from then on every frame he sends is
kept back until ``release_when()`` says yes (never, without it), and then delivered in
order, late, with everything after. That is what a hub in a dishonest host's program can
do to an honest joiner, and all it can do short of cutting him off: the frames are
encrypted, so it can only choose *when* they go.

Trio in a thread of the test (the process tests are plain functions waiting on programs);
:meth:`close` cancels it and waits for the thread.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

import trio

CHUNK = 1 << 16
POLL = 0.1
"""Seconds between two looks at ``release_when`` while frames are kept back."""


class WithholdingHub:
    def __init__(
        self,
        hub_port: int,
        hold_when: Callable[[], bool],
        release_when: Callable[[], bool] | None = None,
    ) -> None:
        self.hub_port = hub_port
        self.hold_when = hold_when
        self.release_when = release_when
        self.released = False
        self.port = 0
        self.held_since: float | None = None
        """When the holding began (trio's clock), once it has."""
        self.held_frames = 0
        self.delivered_late = 0
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: trio.run(self._main), daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the proxy did not start")

    def close(self) -> None:
        if self._token is not None and self._scope is not None:
            scope = self._scope
            with contextlib.suppress(trio.RunFinishedError):
                self._token.run_sync_soon(scope.cancel)
        self._thread.join(10)

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as self._scope:
            async with trio.open_nursery() as nursery:
                listeners = await nursery.start(
                    lambda task_status: trio.serve_tcp(
                        self._handle, 0, host="127.0.0.1", task_status=task_status
                    )
                )
                self.port = listeners[0].socket.getsockname()[1]
                self._ready.set()

    def _holding(self) -> bool:
        """Whether a frame the player sends now is kept back (deciding to start, or to
        stop, if it is time)."""
        if self.held_since is None:
            if not self.hold_when():
                return False
            self.held_since = trio.current_time()
        if not self.released and self.release_when is not None and self.release_when():
            self.released = True
        return not self.released

    async def _handle(self, player: trio.SocketStream) -> None:
        try:
            hub = await trio.open_tcp_stream("127.0.0.1", self.hub_port)
        except OSError:
            await player.aclose()
            return
        async with player, hub, trio.open_nursery() as nursery:
            nursery.start_soon(self._down, hub, player, nursery.cancel_scope)
            nursery.start_soon(self._up, player, hub, nursery.cancel_scope)

    async def _down(
        self, hub: trio.SocketStream, player: trio.SocketStream, scope: trio.CancelScope
    ) -> None:
        try:
            while data := await hub.receive_some(CHUNK):
                await player.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        scope.cancel()

    async def _up(
        self, player: trio.SocketStream, hub: trio.SocketStream, scope: trio.CancelScope
    ) -> None:
        buffer = bytearray()
        kept: list[bytes] = []
        try:
            while True:
                data: bytes | bytearray | None = None
                with trio.move_on_after(POLL if kept else float("inf")):
                    data = await player.receive_some(CHUNK)
                    if not data:
                        break
                if data:
                    buffer += data
                while len(buffer) >= 4 and len(buffer) >= 4 + int.from_bytes(buffer[:4], "big"):
                    end = 4 + int.from_bytes(buffer[:4], "big")
                    frame = bytes(buffer[:end])
                    del buffer[:end]
                    if self._holding():
                        kept.append(frame)
                        self.held_frames += 1
                    else:
                        await self._flush(kept, hub)
                        await hub.send_all(frame)
                if kept and not self._holding():
                    await self._flush(kept, hub)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        scope.cancel()

    async def _flush(self, kept: list[bytes], hub: trio.SocketStream) -> None:
        for frame in kept:
            await hub.send_all(frame)
            self.delivered_late += 1
        kept.clear()
