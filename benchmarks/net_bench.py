"""Throughput and overhead of the networking stack over loopback TCP.

Measures, for a table of ``--peers`` peers connected to one hub on 127.0.0.1:

* handshake: time to open an authenticated link (TCP connect + Noise XX + identity checks);
* relay: messages/s when every peer in turn sends ``--messages`` messages of ``--size``
  bytes that all the others receive through the hub (``delivered/s`` counts each copy);
* overhead: bytes on the wire per message and hop beyond the message itself (framing,
  chunk flag, AEAD tag), measured by counting the bytes the sender's socket writes;
* envelope: size of a signed envelope around a body, and seal/open rates (Ed25519).

Usage: ``python benchmarks/net_bench.py [--peers 4] [--messages 500] [--size 1024] [--json]``.
Timings are wall-clock on a shared machine: treat them as orders of magnitude.
"""

from __future__ import annotations

import argparse
import json
import time

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.net.door import Door
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.link import Link, open_link
from tarot_p2p.protocol.codec import encode
from tarot_p2p.protocol.envelope import open_envelope, seal

TABLE = bytes(32)
SECRET = bytes(16)


class CountingStream(trio.abc.Stream):
    """A stream wrapper that counts the bytes written to the socket."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.sent = 0

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.sent += len(data)
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def relay_bench(peers: int, messages: int, size: int) -> dict[str, float]:
    hub = Hub(Ed25519PrivateKey.generate(), TABLE, SECRET)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(Door.of(hub).serve, "127.0.0.1", 0)
        code = hub.join_code("127.0.0.1", listeners[0].socket.getsockname()[1])
        links: list[Link] = []
        counters: list[CountingStream] = []
        start = time.perf_counter()
        for _ in range(peers):
            counter = CountingStream(await trio.open_tcp_stream(code.host, code.port))
            links.append(await open_link(counter, Ed25519PrivateKey.generate(), code))
            counters.append(counter)
        handshake_ms = (time.perf_counter() - start) / peers * 1000
        before = [c.sent for c in counters]
        body = b"\x5a" * size

        async def drain(link: Link, count: int) -> None:
            for _ in range(count):
                await link.receive()

        start = time.perf_counter()
        for sender in range(peers):
            async with trio.open_nursery() as inner:
                for index, link in enumerate(links):
                    if index != sender:
                        inner.start_soon(drain, link, messages)
                for _ in range(messages):
                    await links[sender].send(body)
        elapsed = time.perf_counter() - start
        sent_bytes = sum(c.sent - b for c, b in zip(counters, before, strict=True))
        nursery.cancel_scope.cancel()
    total = messages * peers
    return {
        "handshake_ms": handshake_ms,
        "messages_per_s": total / elapsed,
        "delivered_per_s": total * (peers - 1) / elapsed,
        "wire_overhead_bytes_per_hop": sent_bytes / total - size,
    }


def envelope_bench(size: int, rounds: int) -> dict[str, float]:
    key = Ed25519PrivateKey.generate()
    body = {"data": b"\x5a" * size}
    fields = {"table_id": TABLE, "hand": 1, "seq": 10, "seat": 0, "prev": bytes(32), "kind": "x"}
    start = time.perf_counter()
    for _ in range(rounds):
        env = seal(key, body=body, **fields)  # type: ignore[arg-type]
    seal_s = (time.perf_counter() - start) / rounds
    roster = {0: key.public_key()}
    start = time.perf_counter()
    for _ in range(rounds):
        open_envelope(env.wire, table_id=TABLE, roster=roster)
    open_s = (time.perf_counter() - start) / rounds
    return {
        "envelope_overhead_bytes": len(env.wire) - len(encode(body)),
        "seal_per_s": 1 / seal_s,
        "open_per_s": 1 / open_s,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args()
    results: dict[str, object] = {"peers": args.peers, "messages": args.messages, "size": args.size}
    results.update(trio.run(relay_bench, args.peers, args.messages, args.size))
    results.update(envelope_bench(args.size, 500))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for name, value in results.items():
        shown = f"{value:,.1f}" if isinstance(value, float) else str(value)
        print(f"{name:>30}: {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
