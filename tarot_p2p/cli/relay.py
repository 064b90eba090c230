"""``tarot-p2p relay``: a standalone hub for many tables, for when no player can host.

Hosts give its address with ``host --relay ADDRESS``: each makes its own table here and
holds a rendezvous channel, so friends join with a short code. The relay holds no game
state and reads only public messages; players verify everything it forwards (see
:mod:`tarot_p2p.net.hub`), and the short code's exchange tells them the host's key, so it
cannot seat itself as the host.

It listens on every interface by default (``--listen 0.0.0.0``): a relay exists to be
reached from other machines, unlike a page or a test hub. It listens on port 7770 unless
told, so an address is easy to give. Run again with the same profile, it serves the same
tables (kept in its profile) and their players reconnect by themselves.

Anyone on the internet can knock, so the relay bounds what each address can hold
(:mod:`tarot_p2p.net.limits`, ``wire.md`` §5.5) and, given ``--password`` or
``--allow-hosts``, makes tables only for the hosts its operator knows.
"""

from __future__ import annotations

import argparse
import errno
import logging
import sys
from dataclasses import replace
from pathlib import Path

import trio

from tarot_p2p.cli.errors import leaf
from tarot_p2p.files.profile import Profile, ProfileError, default_root
from tarot_p2p.net.access import AllowedHostsError, RelayAccess, read_allowed_hosts
from tarot_p2p.net.address import (
    DEFAULT_PORT,
    Address,
    AddressError,
    is_loopback,
    local_address,
    parse_address,
    reaches_internet,
)
from tarot_p2p.net.door import Door
from tarot_p2p.net.limits import SourceLimits
from tarot_p2p.net.relay import (
    FORGET_AFTER,
    MAX_TABLES,
    RELAY_FILE,
    RelayFileError,
    RelayTables,
)

SWEEP_EVERY = 60.0
"""Seconds between two passes that forget unused tables and save the others."""

LIMITS = SourceLimits()
DESCRIPTION = (
    "Run a relay: a meeting point on the network for players when none of them can host. "
    "Hosts give its address with: tarot-p2p host --relay ADDRESS; each gets its own table "
    "here and a short code for its friends. The relay cannot read anyone's cards or change "
    "a message. Run it again with the same profile and it serves the same tables, and the "
    "players reconnect by themselves. "
    "Anyone who can reach it can make tables unless you give --password (hosts then give "
    "it with --relay-password) or --allow-hosts. Whoever connects, one address may hold "
    f"{LIMITS.tables} tables, {LIMITS.channels} short codes and {LIMITS.connections} "
    f"connections (at most {LIMITS.knocking} of them not yet past their greeting); a table "
    f"nobody is connected to for {FORGET_AFTER / 60:.0f} minutes is forgotten; an address "
    "that tried "
    f"{LIMITS.tries} wrong short codes is refused for a while. Players already at a table "
    "always keep their place."
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "relay", help="run a relay where hosts make their tables", description=DESCRIPTION
    )
    parser.add_argument(
        "--listen",
        default="0.0.0.0",
        help="address to listen on; 0.0.0.0 is every network of this computer",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help="port to listen on; 0 is any free port, the same as last time when it is free",
    )
    parser.add_argument(
        "--public-address",
        metavar="HOST[:PORT]",
        help="the address friends on the internet reach this relay by (your router's "
        "public address or a domain name, with the port it forwards here)",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help=f"where the relay keeps its identity and tables (default: {default_root()})",
    )
    secret = parser.add_mutually_exclusive_group()
    secret.add_argument(
        "--password",
        help="make tables only for hosts who give this password (with --relay-password); "
        "others on this computer can read a command line: on a shared computer use "
        "--password-file",
    )
    secret.add_argument(
        "--password-file",
        type=Path,
        metavar="FILE",
        help="the same, with the password in the first line of FILE",
    )
    parser.add_argument(
        "--allow-hosts",
        type=Path,
        metavar="FILE",
        help="make tables only for the hosts whose key fingerprints FILE lists, one a line "
        "(hosts see theirs when the relay refuses them)",
    )
    parser.add_argument(
        "--max-tables",
        type=int,
        default=MAX_TABLES,
        metavar="N",
        help="how many tables the relay holds at once",
    )
    parser.add_argument(
        "--tables-per-address",
        type=int,
        default=LIMITS.tables,
        metavar="N",
        help="how many tables hosts from one address may have here at once (a club whose "
        "hosts all play from one place needs more)",
    )
    parser.add_argument("--verbose", action="store_true", help="log dropped connections")
    parser.set_defaults(func=run)


def reach_note(public: Address | None, shown: Address) -> str | None:
    """What the operator must know about who can use the address shown, if anything."""
    if public is not None:
        return None
    if is_loopback(shown.host):
        return (
            "This relay can be reached from this computer only. To let others in, run it "
            "with --listen 0.0.0.0."
        )
    if reaches_internet(shown.host):
        return None
    return (
        f"This address works on this network only. For friends on the internet, forward "
        f"port {shown.port} of your router to this computer (or run the relay on a server) "
        "and give its public address with --public-address HOST[:PORT]."
    )


def access_note(access: RelayAccess) -> str:
    """Who may make tables here, in words for the operator."""
    if access.open:
        return (
            "Anyone who can reach this relay can make tables here (each address a few): to "
            "keep it for your friends, run it with --password or --allow-hosts."
        )
    return "Tables are made only for the hosts you allow (--password, --allow-hosts)."


async def _serve(tables: RelayTables, listen: str, port: int, public: Address | None) -> None:
    door = Door(tables.lookup, create=tables.create, limits=tables.limits)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(door.serve, listen, port)
        bound = listeners[0].socket.getsockname()[1]
        host = local_address() if listen in ("", "0.0.0.0", "::") else listen
        shown = public or Address(host, bound)
        tables.address = shown
        tables.port = bound
        tables.save()
        kept = len(tables.hubs)
        print(f"relay listening on {listen}:{bound}", flush=True)
        if kept:
            print(f"serving {kept} table{'s' if kept > 1 else ''} kept from the last run")
        print(f"relay ready: hosts use --relay {shown.text()}", flush=True)
        note = reach_note(public, shown)
        if note:
            print(note, flush=True)
        print(access_note(tables.access), flush=True)
        while True:
            await trio.sleep(SWEEP_EVERY)
            tables.sweep()
            tables.save()


def password_of(args: argparse.Namespace) -> str | None:
    """The password given, if any (raises ValueError in words)."""
    if args.password_file is None:
        password: str | None = args.password
    else:
        try:
            lines = args.password_file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(
                f"cannot read the password file {args.password_file} ({exc})"
            ) from None
        password = lines[0].strip() if lines else ""
    if password is not None and not password.strip():
        raise ValueError("the password is empty: give one with a few words in it")
    return password


def allowed_hosts_of(args: argparse.Namespace) -> frozenset[bytes] | None:
    if args.allow_hosts is None:
        return None
    try:
        return read_allowed_hosts(args.allow_hosts)
    except AllowedHostsError as exc:
        raise ValueError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    try:
        public = parse_address(args.public_address) if args.public_address else None
        if public is not None and not reaches_internet(public.host):
            raise AddressError(
                f"{public.host} cannot be reached from the internet: give the public "
                "address of your router or server with --public-address"
            )
        if not 0 <= args.port < 65536:
            raise AddressError("--port is 0 to 65535")
        if args.max_tables < 1 or args.tables_per_address < 1:
            raise ValueError("--max-tables and --tables-per-address are at least 1")
        access = RelayAccess(password_of(args), allowed_hosts_of(args))
        profile = Profile(args.profile)
        identity = profile.identity()
        tables = RelayTables(
            identity,
            profile.root / RELAY_FILE,
            Address(args.listen, 0),
            max_tables=args.max_tables,
            limits=replace(LIMITS, tables=args.tables_per_address),
            access=access,
        )
        tables.load()
    except (AddressError, ProfileError, RelayFileError, ValueError) as exc:
        print(f"relay: {exc}", file=sys.stderr)
        return 2
    port = args.port or tables.port or 0
    try:
        trio.run(_serve, tables, args.listen, port, public)
    except BaseException as caught:
        error = leaf(caught, (KeyboardInterrupt, OSError))
        if isinstance(error, KeyboardInterrupt):
            tables.save()
            print("relay stopped", file=sys.stderr)
            return 0
        if not isinstance(error, OSError):
            raise
        if error.errno == errno.EADDRINUSE:
            print(
                f"relay: port {port} is already in use on this computer (is another relay "
                "running?). Stop the other program, or choose another port with --port.",
                file=sys.stderr,
            )
        else:
            print(
                f"relay: cannot listen on {args.listen}:{port}: {error.strerror or error}. "
                "Check the address given with --listen.",
                file=sys.stderr,
            )
        return 1
    return 0
