"""A TCP proxy on loopback that adds a fixed one-way delay, in trio (no kernel tools).

Why: a table of friends plays through a relay some tens of milliseconds away, and every
message that must wait for the one before it pays that distance twice (sender to relay,
relay to the next sender). Measuring it needs no ``tc netem`` and no root: each program
dials this proxy instead of the hub, and every chunk of bytes, in either direction, is
handed on ``delay`` seconds after it arrived. It is a delay line, not a throttle: chunks
in flight overlap (each keeps its own deadline, order kept), as on a real path whose
bandwidth is not the limit.

Usage as a program: ``python benchmarks/delay_proxy.py --to 127.0.0.1:PORT --delay-ms 25
[--port 0]`` prints the port it listens on; :mod:`latency_bench` uses :class:`DelayProxy`.
"""

from __future__ import annotations

import argparse
import math

import trio

CHUNK = 65536
IN_FLIGHT = 4096
"""Chunks one direction may hold in its delay line before the reader waits."""


class DelayProxy:
    """Forward every connection made to it to ``target``, ``delay`` seconds each way."""

    def __init__(self, target_host: str, target_port: int, delay: float) -> None:
        if delay < 0:
            raise ValueError("the delay is zero or more seconds")
        self.target = (target_host, target_port)
        self.delay = delay
        self.connections = 0

    async def serve(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Listen on ``host:port`` (0: any free port) until cancelled."""
        await trio.serve_tcp(self._handle, port, host=host, task_status=task_status)

    async def _handle(self, client: trio.SocketStream) -> None:
        self.connections += 1
        try:
            server = await trio.open_tcp_stream(*self.target)
        except OSError:
            await client.aclose()
            return
        async with client, server, trio.open_nursery() as nursery:
            nursery.start_soon(self._pipe, client, server, nursery.cancel_scope)
            nursery.start_soon(self._pipe, server, client, nursery.cancel_scope)

    async def _pipe(
        self, source: trio.SocketStream, sink: trio.SocketStream, scope: trio.CancelScope
    ) -> None:
        """One direction: read as fast as bytes come, deliver each chunk at its deadline;
        an end of stream (or an error) on either side ends the connection both ways."""
        send, receive = trio.open_memory_channel[tuple[float, bytes]](IN_FLIGHT)

        async def deliver() -> None:
            async for due, data in receive:
                await trio.sleep_until(due)
                await sink.send_all(data)

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(deliver)
                async with send:
                    while data := await source.receive_some(CHUNK):
                        await send.send((trio.current_time() + self.delay, bytes(data)))
                # (the chunks in flight still go out, late as the others, then the end)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        scope.cancel()


async def _main(target: str, port: int, delay: float) -> None:
    host, _, target_port = target.rpartition(":")
    proxy = DelayProxy(host or "127.0.0.1", int(target_port), delay)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(proxy.serve, "127.0.0.1", port)
        print(f"listening on 127.0.0.1:{listeners[0].socket.getsockname()[1]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--to", required=True, help="HOST:PORT to forward to")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any)")
    parser.add_argument("--delay-ms", type=float, default=25.0, help="one-way delay")
    args = parser.parse_args()
    if not math.isfinite(args.delay_ms) or args.delay_ms < 0:
        parser.error("--delay-ms is zero or more")
    trio.run(_main, args.to, args.port, args.delay_ms / 1000)


if __name__ == "__main__":
    main()
