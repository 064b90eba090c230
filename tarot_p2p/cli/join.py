"""``tarot-p2p join CODE``: take a seat at a table and play it in the browser (or terminal).

CODE is the short code the host reads out (``7-guitar-orbit``) or the long join code. A
short code is looked up at a relay (``--relay``, or the one remembered in the profile) or,
without one, on this network; its exchange (:mod:`tarot_p2p.meet.offer`) gives the long code
and the host's key, and the set-up is then accepted only if that key signed it. The long
code names the hub, proves its identity and lets you in; when the host runs the hub, it
also names the host. A long code of a standalone relay cannot: compare the host key
fingerprint printed with the table, or pin it with ``--host-key``.
"""

from __future__ import annotations

import argparse
import functools
import getpass
import logging
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.cli.errors import INTERRUPTED, NETWORK_ERRORS, explain, leaf, tell
from tarot_p2p.cli.lan import CodeRefused, choose_table
from tarot_p2p.cli.player import add_ui_options, human_policy, remember_page, with_page
from tarot_p2p.crypto.shuffle import build_tables_on_use
from tarot_p2p.files.game_record import rules_summary
from tarot_p2p.files.profile import Profile, ProfileError, Ticket, default_root
from tarot_p2p.files.tables_cache import cache_file, load_tables, read_tables
from tarot_p2p.meet.discovery import LanTable, find_channel
from tarot_p2p.meet.lobby import LobbyError, clean_name
from tarot_p2p.meet.offer import ask_host
from tarot_p2p.meet.rendezvous import Invitation
from tarot_p2p.meet.words import ShortCode, ShortCodeError, is_short_code
from tarot_p2p.meet.words import parse as parse_short_code
from tarot_p2p.net.address import DEFAULT_PORT, Address, parse_address
from tarot_p2p.net.framing import LinkError
from tarot_p2p.net.joincode import JoinCode, JoinCodeError
from tarot_p2p.net.link import MessageLink, connect
from tarot_p2p.protocol.identity import FINGERPRINT_LEN, fingerprint
from tarot_p2p.protocol.names import for_terminal
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.rules.config import Abandon
from tarot_p2p.seat.runner import BACKOFF, LOST_SECRET, Outcome, Policy, Timeouts
from tarot_p2p.seat.session import join_table, play_seat, resume_seat
from tarot_p2p.ui.policy import BrowserPolicy


def add_seat_options(p: argparse.ArgumentParser, default_name: str | None) -> None:
    """Options every seated program shares (``host``, ``join``, ``bot``)."""
    p.add_argument("--name", default=default_name, help="your name at the table")
    p.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="your profile folder: identity, tables, transcripts and score sheets "
        f"(default: {default_root()})",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=60,
        help="seconds to wait for a computed message (keys, shuffles, shares) before "
        "recording the silent player as absent",
    )
    p.add_argument(
        "--decision-timeout",
        type=float,
        default=600,
        help="seconds to wait for a player's decision (bid, card...)",
    )
    p.add_argument(
        "--lobby-timeout",
        type=float,
        default=1800,
        help="seconds to wait for the table to fill up before giving up",
    )
    p.add_argument("--verbose", action="store_true", help="log what is ignored and why")


T = TypeVar("T")
log = logging.getLogger(__name__)

DESCRIPTION = (
    "Take a seat at a table with the code the host gave you, and play in your browser (or "
    "at this terminal with --ui terminal). The short code (like 7-guitar-orbit) is looked "
    "up at the relay your host uses: give its address once with --relay, it is remembered; "
    "without a relay, on this network. The long code (tp2p1-...) works anywhere. If your "
    "program stops, run the same command again to take your seat back."
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("join", help="join a table and play at it", description=DESCRIPTION)
    add_join_options(p, lan=True)
    add_seat_options(p, default_name=None)
    add_ui_options(p)
    p.set_defaults(func=run)


def add_join_options(p: argparse.ArgumentParser, *, lan: bool = False) -> None:
    """``lan``: the code may be left out, to pick a table announced on the network."""
    about = "the code the host gave you: short (7-guitar-orbit) or long (tp2p1-...)"
    if lan:
        p.add_argument(
            "code", nargs="?", help=f"{about}; leave it out to see the tables on your network"
        )
    else:
        p.add_argument("code", help=about)
    add_relay_options(p, "the relay where the host's short code is found")
    p.add_argument(
        "--host-key",
        help=f"with a long code: the host key fingerprint to require "
        f"({2 * FINGERPRINT_LEN} hex digits)",
    )


def add_relay_options(p: argparse.ArgumentParser, what: str) -> None:
    """``--relay ADDRESS`` (remembered) and ``--no-relay`` (forgotten), for host and join."""
    relay = p.add_mutually_exclusive_group()
    relay.add_argument(
        "--relay",
        metavar="HOST[:PORT]",
        help=f"{what} (remembered for next time; the port is {DEFAULT_PORT} if left out)",
    )
    relay.add_argument(
        "--no-relay", action="store_true", help="forget the relay remembered and do without"
    )


def chosen_relay(args: argparse.Namespace, profile: Profile) -> Address | None:
    """The relay of this run: given (then remembered), remembered, or none (``--no-relay``
    forgets it). Raises AddressError or ProfileError with a message for the player."""
    if args.no_relay:
        profile.remember_relay(None)
        return None
    kept = profile.relay()
    if args.relay:
        address = parse_address(args.relay)
        before = parse_address(kept) if kept else None
        if before is not None and before.text() == address.text() and not address.password:
            address = before  # the same relay: its password, if any, is kept
        profile.remember_relay(address.typed())
        return address
    return parse_address(kept) if kept else None


def seat_timeouts(args: argparse.Namespace) -> Timeouts:
    if args.timeout <= 0 or args.decision_timeout <= 0 or args.lobby_timeout <= 0:
        raise ValueError("timeouts must be positive")
    return Timeouts(message=args.timeout, decision=args.decision_timeout, lobby=args.lobby_timeout)


def describe_table(peer: Peer) -> str:
    """The table as a player reads it before the first deal: the rules, then every player
    with the key they sign with (names escaped for the terminal: the others chose them)."""
    names = peer.table.setup.names
    roster = peer.table.setup.roster
    config = peer.config
    after = "the game ends" if config.abandon is Abandon.END else "the game goes on"
    lines = [
        f"Table {peer.table_id[:8].hex()}: {rules_summary(config)}",
        f"A player silent for {config.forfeit_after} s when it is his turn has his hand "
        f"played by the stand-in (a bot) once all the others agree; then {after}.",
    ]
    for i, name in enumerate(names):
        mine = " (you)" if i == peer.member else ""
        fp = fingerprint(Ed25519PublicKey.from_public_bytes(roster[i])).hex()
        lines.append(f"  {for_terminal(name)}{mine}  key {fp}")
    return "\n".join(lines)


def lost_secret_next_step(peer: Peer) -> str:
    """What a player whose program lost a deal's secret can do (``table.md`` §7)."""
    config = peer.config
    after = (
        "the game ends with that deal"
        if config.abandon is Abandon.END
        else "then run the same command again to play the next deals"
    )
    return (
        f"The other players finish this deal without you once your seat has been silent for "
        f"{config.forfeit_after} s: your cards are played for you and the deal is scored as "
        f"played. Keep this program stopped until then; {after}."
    )


def report(outcome: Outcome, peer: Peer) -> int:
    """Print how the game ended and where its records are; the exit code."""
    files = outcome.files
    peer = outcome.peer or peer
    if outcome.finished and peer.sheet is not None:
        print(peer.sheet.render(for_terminal))
    elif outcome.abort is not None:
        abort = outcome.abort
        print(f"Deal {abort.hand} stopped: {for_terminal(abort.reason)}")
        if abort.kind == "violation":
            print("This table cannot go on: the proof is kept in the record below.")
        elif abort.kind == LOST_SECRET:
            print(lost_secret_next_step(peer))
        else:
            print("Nothing is lost: run the same command again later to go on with this table.")
        print(f"record of the stop: {files.abort}")
    print(f"transcript: {files.transcript}")
    print(f"score sheet: {files.sheet}")
    return 0 if outcome.finished else 1


async def connect_patiently(
    code: JoinCode, identity: Ed25519PrivateKey, timeouts: Timeouts, show: bool
) -> MessageLink:
    """A link to the table's hub, trying again with backoff while it is down (a host
    restarting its program), up to the reconnection limit."""
    attempt = 0
    with trio.move_on_after(timeouts.reconnect):
        while True:
            try:
                return await connect(code, identity)
            except NETWORK_ERRORS as exc:
                if attempt == 0 and show:
                    print(
                        f"cannot reach the table yet ({for_terminal(str(exc))}); trying again...",
                        flush=True,
                    )
            await trio.sleep(BACKOFF[min(attempt, len(BACKOFF) - 1)])
            attempt += 1
    raise LinkError(f"the table at {code.host}:{code.port} did not answer")


LAN_SEARCH = 5.0
"""Seconds to look on the network for the host of a short code when no relay is known."""


async def invitation_for(short: ShortCode, relay: Address | None, show: bool) -> Invitation:
    """The long code and host key behind ``short``: asked at ``relay``, or at the hub found
    on this network announcing its channel."""
    if relay is not None:
        if show:
            print(f"looking for the table {short.text()} at {relay.text()}...", flush=True)
        return await ask_at(relay, short)
    found = await find_channel(short.channel, LAN_SEARCH)
    if found is None:
        raise ValueError(
            f"no table with the code {short.text()} on this network: check the code, or "
            "give the relay's address with --relay HOST[:PORT] (ask the host)"
        )
    return await ask_at(Address(*found), short)


async def ask_at(where: Address, short: ShortCode) -> Invitation:
    """The invitation behind ``short``, asked of the hub at ``where``.

    The code returned names ``where``: the same hub serves the table there, and that
    address is the one known to work from here (a player on the relay's own network may
    not reach it by the public address written in the code)."""
    invitation = await ask_host(where.host, where.port, short)
    return replace(invitation, code=replace(invitation.code, host=where.host, port=where.port))


def joined_with(profile: Profile, identity: Ed25519PrivateKey, short: str) -> Ticket | None:
    """The ticket of the table this identity joined with the short code ``short``, if
    any: the same command run again finds its table, unfinished or over (the host of a
    finished game no longer answers to the code)."""
    for t in profile.tables_of(identity):
        ticket = t.ticket
        usable = t.resumable or t.finished
        if ticket is not None and ticket.role == "join" and ticket.short == short and usable:
            return ticket
    return None


def table_folder(
    profile: Profile, identity: Ed25519PrivateKey, target: JoinCode | ShortCode
) -> Path | None:
    """Where the table of ``target`` is kept, when it is known before the code is used."""
    if isinstance(target, ShortCode):
        kept = joined_with(profile, identity, target.text())
        if kept is None:
            return None
        target = JoinCode.decode(kept.code)
    return profile.seat_files(target.table_id, identity).directory


async def _join(
    target: JoinCode | ShortCode,
    name: str,
    policy: Policy,
    profile: Profile,
    timeouts: Timeouts,
    hub_fingerprint: bytes | None,
    show: bool,
    relay: Address | None,
    found: Invitation | None,
) -> int:
    identity = profile.identity()
    short: str | None = None
    if isinstance(target, ShortCode):
        short = target.text()
        kept = joined_with(profile, identity, short)
        if kept is not None:
            code = JoinCode.decode(kept.code)
            hub_fingerprint = bytes.fromhex(kept.host_key) if kept.host_key else None
        else:
            invitation = found or await invitation_for(target, relay, show)
            code = invitation.code
            host = Ed25519PublicKey.from_public_bytes(invitation.host_key)
            hub_fingerprint = fingerprint(host)
    else:
        code = target
    files = profile.seat_files(code.table_id, identity)
    host_key = None if hub_fingerprint is None else hub_fingerprint.hex()
    ticket = Ticket("join", code.encode(), name, code.relay, host_key, short=short)
    profile.save_ticket(files, ticket)
    remember_page(policy, files.directory)
    peer = resume_seat(files, identity)

    async def reconnect() -> MessageLink:
        return await connect(code, identity)

    if peer is not None and peer.expected_sender() is None:
        # Finished before this program stopped: nothing to reconnect for.
        print("This table's game is over.", flush=True)
        if peer.sheet is not None:
            print(peer.sheet.render(for_terminal))
        return 0
    if peer is not None:
        if show:
            print("taking your seat back at this table...", flush=True)
        link = await connect_patiently(code, identity, timeouts, show)
    else:
        link = await connect(code, identity)  # the hub proved it is the one the code names
    if isinstance(policy, BrowserPolicy):
        policy.admitted.set()
    if peer is None:
        if show:
            print(f"connected to {code.host}:{code.port}; waiting for the host to seat everyone")
        peer, _ = await join_table(
            link,
            identity,
            name,
            code.table_id,
            code.secret,
            hub_fingerprint=hub_fingerprint,
            timeout=timeouts.lobby,
        )
    if show:
        print(describe_table(peer))
    try:
        outcome = await play_seat(
            peer,
            link,
            policy,
            profile.tables,
            identity,
            timeouts=timeouts,
            reconnect=reconnect,
            history=profile.history,
        )
    finally:
        with trio.CancelScope(shield=True):
            await link.aclose()
    return report(outcome, peer)


async def warm_up_crypto() -> None:
    """The shuffle's tables, from the cache or built (a few seconds, once per machine)."""
    await trio.to_thread.run_sync(load_tables)


async def warm_up_meanwhile() -> None:
    """The shuffle's tables made ready as :func:`warm_up_crypto` does, but nobody waits for
    them: until they are there, shuffles multiply without them (a shuffle takes a third to
    a half longer, :func:`~tarot_p2p.crypto.shuffle.build_tables_on_use`).

    Why: reading the cache takes a few tenths of a second, and a machine's first build
    about two seconds of processor time (more on a busy machine), which a player would
    otherwise wait through before his first card. The cache is read in a worker thread
    (reading and hashing leave the game's threads run). A build, though, would hold
    Python's lock and slow every seat of this program down as long as it lasts: it is made
    by a program of its own at the lowest priority (``python -m
    tarot_p2p.files.tables_cache``), which takes only processor time nobody else wants,
    and read once it is saved. Run this in the nursery of the whole game
    (:func:`warming_up`): cancelled, it stops that program."""
    build_tables_on_use(False)
    if await trio.to_thread.run_sync(read_tables):
        return
    folder = str(cache_file().parent)
    builder = [sys.executable, "-m", "tarot_p2p.files.tables_cache", folder]
    try:
        await trio.run_process(builder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError) as exc:
        log.info("the shuffle's tables were not built: %s", exc)
        return  # the shuffles go on without them
    await trio.to_thread.run_sync(read_tables)


async def warming_up(main: Callable[..., Awaitable[T]], *args: object) -> T:
    """``main(*args)`` while :func:`warm_up_meanwhile` makes the tables ready beside it
    (stopped when ``main`` returns first; then shuffles build missing tables again, as
    by default, for whatever this process runs next: a test, say)."""
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(warm_up_meanwhile)
            result = await main(*args)
            nursery.cancel_scope.cancel()
    finally:
        build_tables_on_use(True)
    return result


def run_joiner(
    args: argparse.Namespace, policy: Policy, *, show: bool, found: Invitation | None = None
) -> int:
    """Sit at the table of ``args.code`` with ``policy`` deciding; shared by join and bot.
    ``found``: what the host's program answered to the short code already (a table picked
    on the network)."""
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        target: JoinCode | ShortCode
        pinned: bytes | None = None
        profile = Profile(args.profile)
        relay = None if found is not None else chosen_relay(args, profile)
        if is_short_code(args.code):
            target = parse_short_code(args.code)
            if args.host_key:
                raise ValueError("a short code tells the host's key itself: leave out --host-key")
        else:
            target = JoinCode.decode(args.code)
            if args.host_key:
                pinned = bytes.fromhex(args.host_key)
                if len(pinned) != FINGERPRINT_LEN:
                    raise ValueError(f"--host-key is {2 * FINGERPRINT_LEN} hex digits")
            elif not target.relay:
                pinned = target.hub_fingerprint
        timeouts = seat_timeouts(args)
        name = clean_name(args.name or (getpass.getuser() if show else "bot"))
        table = table_folder(profile, profile.identity(), target)
    except (JoinCodeError, LobbyError, ValueError, ProfileError) as exc:
        return tell(exc)
    main = functools.partial(
        warming_up, with_page(policy, _join, args, profile, table, when_admitted=True)
    )
    return run_seat(main, target, name, policy, profile, timeouts, pinned, show, relay, found)


def run_seat(main: Callable[..., Awaitable[int]], *args: object) -> int:
    """``trio.run(main, *args)`` with the errors a player can meet turned into messages
    (:mod:`.errors`); a ``ValueError`` raised for the player (a bad option, seat files that
    cannot be used) is told as it is."""
    try:
        return trio.run(main, *args)
    except BaseException as exc:
        explained = explain(exc, seated=True)
        if explained is None:
            wrong = leaf(exc, (ValueError,))
            if wrong is None:
                raise
            explained = (for_terminal(str(wrong)), 2)
        message, code = explained
        print(f"\n{message}" if code == INTERRUPTED else f"error: {message}", file=sys.stderr)
        return code


def run(args: argparse.Namespace) -> int:
    if args.code is None:
        choice = choose_table(check_code)
        if choice is None:
            return 1
        args.code = choice.code
        return run_joiner(args, human_policy(args), show=True, found=choice.invitation)
    return run_joiner(args, human_policy(args), show=True)


def check_code(table: LanTable, text: str) -> Invitation | None:
    """The prompt's check of a code typed for a table picked on the network (see
    :data:`~tarot_p2p.cli.lan.CodeCheck`): a short code is asked of the hub that announced
    the table (not remembered: it is no relay); a long code is read."""
    try:
        if is_short_code(text):
            short = parse_short_code(text)
            return trio.run(ask_at, Address(table.address, table.port), short)
        JoinCode.decode(text)
        return None
    except ShortCodeError as exc:  # a code mistyped: it says which word
        raise CodeRefused(for_terminal(str(exc))) from None
    except Exception as exc:
        explained = explain(exc)  # a code the host's program refuses, a network down...
        if explained is None:
            raise
        raise CodeRefused(explained[0]) from None
