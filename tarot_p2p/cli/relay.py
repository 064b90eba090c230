"""``tarot-p2p relay``: a standalone hub for one table, for when no player can host.

It listens, prints the join code players paste into ``tarot-p2p join``, and relays
messages until interrupted. It holds no game state and can read only public messages;
players verify everything it forwards (see :mod:`tarot_p2p.net.hub`).
"""

from __future__ import annotations

import argparse
import logging
import secrets
import sys
from collections.abc import Callable

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.net.hub import Hub
from tarot_p2p.net.joincode import SECRET_LEN, TABLE_ID_LEN


def _hex_bytes(size: int) -> Callable[[str], bytes]:
    def parse(text: str) -> bytes:
        try:
            value = bytes.fromhex(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"not hexadecimal: {text!r}") from exc
        if len(value) != size:
            raise argparse.ArgumentTypeError(f"expected {size} bytes ({2 * size} hex digits)")
        return value

    parse.__name__ = f"{size}-byte hex"
    return parse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "relay",
        help="run a standalone hub for one table and print its join code",
        description=__doc__,
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free)")
    parser.add_argument(
        "--advertise", metavar="HOST", help="host name to put in the join code (default: --host)"
    )
    parser.add_argument(
        "--table-id", type=_hex_bytes(TABLE_ID_LEN), help="table id, 64 hex digits (random)"
    )
    parser.add_argument(
        "--join-secret", type=_hex_bytes(SECRET_LEN), help="join secret, 32 hex digits (random)"
    )
    parser.add_argument("--verbose", action="store_true", help="log dropped connections")
    parser.set_defaults(func=run)


async def _serve(hub: Hub, host: str, port: int, advertise: str) -> None:
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(hub.serve, host, port)
        bound_port = listeners[0].socket.getsockname()[1]
        print(f"relay listening on {host}:{bound_port}", flush=True)
        print(hub.join_code(advertise, bound_port).encode(), flush=True)


def run(args: argparse.Namespace) -> int:
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    hub = Hub(
        Ed25519PrivateKey.generate(),
        args.table_id or secrets.token_bytes(TABLE_ID_LEN),
        args.join_secret or secrets.token_bytes(SECRET_LEN),
    )
    try:
        trio.run(_serve, hub, args.host, args.port, args.advertise or args.host)
    except KeyboardInterrupt:
        print("relay stopped", file=sys.stderr)
    except OSError as exc:
        print(f"relay: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    return 0
