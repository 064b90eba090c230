"""A process that announces one table on the LAN, for ``test_discovery.py``.

Arguments: host name, channel, seats, port, fingerprint hex. It prints ``announced`` once
the table is on the network, republishes it on each line ``seated N`` or ``channel N`` read
from its standard input, and withdraws the table and exits when its input closes.
"""

from __future__ import annotations

import sys

import trio

from tarot_p2p.meet.discovery import LanTable, announce


async def main(host: str, channel: str, seats: str, port: str, fp: str) -> None:
    table = LanTable(
        host, int(channel), 1, int(seats), bytes.fromhex(fp), ("127.0.0.1",), int(port)
    )
    async with announce(table) as announcement:
        print("announced", flush=True)
        stdin = trio.lowlevel.FdStream(sys.stdin.fileno())
        pending = b""
        while data := await stdin.receive_some():
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                key, value = line.decode().split()  # "seated 3" or "channel 42"
                announcement.update(**{key: int(value)})
                print(line.decode(), flush=True)


if __name__ == "__main__":
    trio.run(main, *sys.argv[1:6])
