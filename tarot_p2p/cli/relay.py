"""``tarot-p2p relay``: a standalone hub for one table, for when no player can host.

It listens, prints the join code players paste into ``tarot-p2p join``, and relays
messages until interrupted. It holds no game state and can read only public messages;
players verify everything it forwards (see :mod:`tarot_p2p.net.hub`).

Run it again with the same profile and it serves the same table under the same code (its
identity, table and port are kept in the profile), so a relay that was stopped or
crashed comes back and the players reconnect by themselves. --new starts another table.
"""

from __future__ import annotations

import argparse
import json
import logging
import secrets
import sys
from collections.abc import Callable
from pathlib import Path

import trio

from tarot_p2p.net.hub import Hub
from tarot_p2p.net.joincode import SECRET_LEN, TABLE_ID_LEN
from tarot_p2p.net.profile import Profile, ProfileError, default_root
from tarot_p2p.net.runner import write_private_atomic

RELAY_FILE = "relay.json"
"""The relay's table in its profile: table id, join secret and port (owner-only)."""


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


DESCRIPTION = (
    "Run a standalone hub for one table, for when no player can host: it prints the join "
    "code the players use with --relay, and passes their messages on until you stop it. It "
    "cannot read anyone's cards or change a message. Run it again with the same profile and "
    "it serves the same table under the same code, and the players reconnect by themselves; "
    "--new starts another table."
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "relay",
        help="run a standalone hub for one table and print its join code",
        description=DESCRIPTION,
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
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help=f"where the relay keeps its identity and table (default: {default_root()})",
    )
    parser.add_argument(
        "--new", action="store_true", help="serve a new table, not the one kept in the profile"
    )
    parser.add_argument("--verbose", action="store_true", help="log dropped connections")
    parser.set_defaults(func=run)


def relay_table(args: argparse.Namespace, profile: Profile) -> tuple[bytes, bytes, int]:
    """The table id, join secret and port to serve: those kept in the profile (the same
    join code as last time), unless new ones are asked for; saved for next time."""
    path = profile.root / RELAY_FILE
    explicit = args.new or args.table_id is not None or args.join_secret is not None
    if path.exists() and not explicit:
        try:
            kept = json.loads(path.read_text())
            return bytes.fromhex(kept["table_id"]), bytes.fromhex(kept["secret"]), kept["port"]
        except (OSError, ValueError, KeyError, TypeError):
            print(f"relay: {path} is damaged; serving a new table", file=sys.stderr)
    table_id = args.table_id or secrets.token_bytes(TABLE_ID_LEN)
    secret = args.join_secret or secrets.token_bytes(SECRET_LEN)
    return table_id, secret, args.port


async def _serve(hub: Hub, host: str, port: int, advertise: str, kept: Path) -> None:
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(hub.serve, host, port)
        bound_port = listeners[0].socket.getsockname()[1]
        record = {"table_id": hub.table_id.hex(), "secret": hub.secret.hex(), "port": bound_port}
        write_private_atomic(kept, (json.dumps(record) + "\n").encode())
        print(f"relay listening on {host}:{bound_port}", flush=True)
        print(hub.join_code(advertise, bound_port).encode(), flush=True)


def run(args: argparse.Namespace) -> int:
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    try:
        profile = Profile(args.profile)
        identity = profile.identity()
    except ProfileError as exc:
        print(f"relay: {exc}", file=sys.stderr)
        return 2
    table_id, secret, port = relay_table(args, profile)
    hub = Hub(identity, table_id, secret)
    kept = profile.root / RELAY_FILE
    try:
        trio.run(_serve, hub, args.host, port, args.advertise or args.host, kept)
    except KeyboardInterrupt:
        print("relay stopped", file=sys.stderr)
    except OSError as exc:
        print(f"relay: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    return 0
