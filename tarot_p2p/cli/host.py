"""``tarot-p2p host``: create a table, print its codes, seat the players, play seat 0.

By default the hub runs inside this process (its identity is the host's key, so the long
join code also tells the players who the host is) and listens on ``--listen``/``--port``;
give ``--relay ADDRESS`` (remembered in the profile) to make the table at a standalone
relay (``tarot-p2p relay``) instead. Either way the host offers the table under a short
code to read aloud (``7-guitar-orbit``, :mod:`tarot_p2p.meet.offer`) until every seat is
taken, and prints the long code for scripts. The host plays in a page of the browser
(``--ui terminal``: at the terminal), or lets a bot play for it with ``--bot``;
``--bots N`` seats N bots that play inside this program (through the relay too).
"""

from __future__ import annotations

import argparse
import functools
import getpass
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.cli.bot import BotPolicy, add_bot_options
from tarot_p2p.cli.errors import tell
from tarot_p2p.cli.house_bots import at_relay, bot_names, in_process, seat_house_bots
from tarot_p2p.cli.join import (
    add_relay_options,
    add_seat_options,
    chosen_relay,
    connect_patiently,
    describe_table,
    report,
    run_seat,
    seat_timeouts,
    warming_up,
)
from tarot_p2p.cli.lan import HostOnLan
from tarot_p2p.cli.lobby_news import lobby_news, waiting_for
from tarot_p2p.cli.player import add_ui_options, human_policy, remember_page, with_page
from tarot_p2p.cli.rule_options import (
    add_length_options,
    add_rule_options,
    game_length,
    rule_fields,
    word,
)
from tarot_p2p.files.profile import Profile, ProfileError, TableState, Ticket
from tarot_p2p.meet.lobby import LobbyChange, LobbyError, clean_name
from tarot_p2p.meet.offer import MAX_FAILURES, claim_at, create_at, offer_table
from tarot_p2p.meet.rendezvous import Invitation
from tarot_p2p.meet.words import ShortCode
from tarot_p2p.net.address import Address, code_address, local_address, parse_address
from tarot_p2p.net.channels import Board, ClaimEnd
from tarot_p2p.net.hello import HubRefused
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.joincode import SECRET_LEN, TABLE_ID_LEN, JoinCode, JoinCodeError
from tarot_p2p.net.link import MessageLink, connect
from tarot_p2p.net.relay import FORGET_AFTER
from tarot_p2p.protocol.identity import fingerprint, identity_bytes
from tarot_p2p.rules.config import (
    FORFEIT_LIMITS,
    Abandon,
    TableConfig,
)
from tarot_p2p.seat.runner import Connector, Policy, Timeouts
from tarot_p2p.seat.session import HostedHub, host_table, play_seat, resume_seat
from tarot_p2p.ui.policy import BrowserPolicy

LINGER = 30.0
"""Seconds this program stays after our game ends, for the others to finish (its house
bots, and the players of the hub it runs)."""


DESCRIPTION = (
    "Create a table, print the short code you read to your friends (and the long code for "
    "scripts), and play your seat in your browser (or at this terminal with --ui terminal). "
    "The table's hub runs in this program; to make it at a relay instead (for friends on "
    "the internet), give the relay's address with --relay, once: it is remembered "
    "(--no-relay forgets it). --bots N fills N seats with "
    "bots playing in this program; --bot lets a bot play your own seat. If you have an "
    "unfinished table, running host again takes it back (--new starts another one)."
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("host", help="create a table and play at it", description=DESCRIPTION)
    p.add_argument(
        "--players", type=int, choices=(3, 4, 5), default=4, help="how many play at the table"
    )
    add_length_options(p)
    add_rule_options(p.add_argument_group("rule variants (default: FFT)"))
    p.add_argument("--bot", action="store_true", help="a bot plays the host's seat")
    p.add_argument(
        "--bots",
        type=int,
        default=0,
        metavar="N",
        help="fill N seats with bots playing inside this program (each a full peer)",
    )
    p.add_argument("--seed", default="0", help="seed of the bots' choices (not of the deal)")
    add_bot_options(p)
    add_ui_options(p)
    p.add_argument("--listen", default="0.0.0.0", help="address the hub listens on")
    p.add_argument("--port", type=int, default=0, help="port the hub listens on (0: any)")
    p.add_argument("--advertise", help="host name in the join code (default: this machine's)")
    add_relay_options(p, "make the table at this relay (tarot-p2p relay) instead of here")
    p.add_argument(
        "--relay-password",
        metavar="PASSWORD",
        help="the relay's password, when it makes tables only for hosts who know it "
        "(remembered with the relay; PASSWORD@HOST[:PORT] in --relay does the same)",
    )
    p.add_argument(
        "--no-announce",
        action="store_true",
        help="do not show your table to the players on your network (they then need the "
        "code to join; announced otherwise while seats are free)",
    )
    p.add_argument(
        "--forfeit-after",
        type=int,
        default=TableConfig().forfeit_after,
        metavar="SECONDS",
        help="how long a player may stay silent at his turn before the others may score his "
        f"abandon, {FORFEIT_LIMITS[0]} to {FORFEIT_LIMITS[1]}",
    )
    p.add_argument(
        "--abandon",
        type=word,
        choices=[a.value for a in Abandon],
        default=TableConfig().abandon.value,
        help="after an abandon: end the game, or go on (the player may come back)",
    )
    p.add_argument(
        "--new",
        action="store_true",
        help="start a new table even if you have an unfinished one (which is kept)",
    )
    p.add_argument(
        "--table",
        metavar="NAME",
        help="take back this unfinished table of yours (names: tarot-p2p resume --list)",
    )
    add_seat_options(p, default_name=None)
    p.set_defaults(func=run)


def table_config(args: argparse.Namespace) -> TableConfig:
    """The rules chosen on the command line (raises ``ValueError`` on a bad combination)."""
    end = game_length(args)
    return TableConfig(
        players=args.players,
        game_end=end[0],
        game_length=end[1],
        forfeit_after=args.forfeit_after,
        abandon=Abandon(args.abandon),
        **rule_fields(args, args.players),
    )


OWN_CHANNELS = 99
"""A host's own hub picks its rendezvous channel at random among 1..99 (one or two
digits to read out)."""


LONG_CODE_WAIT = 10.0
"""Seconds the long code waits for the first short code before it is printed anyway (the
relay may not answer yet: the long code alone lets friends join meanwhile)."""


class CodeBoard:
    """Tells the host's player the short code to read out, and what becomes of it; and the
    long code, after the first short code: the short one is what a player reads aloud, so
    it comes first, where the eye lands, and the long one (for scripts, and for friends
    elsewhere) after it."""

    def __init__(
        self,
        relay: Address | None,
        lan: HostOnLan | None,
        page: BrowserPolicy | None,
        long_code: str,
    ) -> None:
        self.relay = relay
        self.lan = lan
        self.page = page
        self.long_code = long_code
        self.long_shown = False

    def show_long(self) -> None:
        """Print the long code, once."""
        if not self.long_shown:
            print(f"join code: {self.long_code}", flush=True)
            self.long_shown = True

    async def show_long_later(self) -> None:
        """The long code even when no short code comes (a relay out of reach for now)."""
        await trio.sleep(LONG_CODE_WAIT)
        self.show_long()

    def _where(self) -> str:
        return "above" if self.long_shown else "below"

    def new_code(self, code: ShortCode, why: str | None) -> None:
        if self.lan is not None:
            self.lan.new_code(code.channel)
        if why is not None:
            print(f"The code no longer works: {why}. Here is a new one.", flush=True)
        print(f"Read this code to your friends: {code.text()}", flush=True)
        command = f"tarot-p2p join {code.text()}"
        if self.relay is not None:
            command += f" --relay {self.relay.text()}"
            print(f"  (they type: {command})", flush=True)
        else:
            print(
                f"  (on this network they type: {command}; from elsewhere, send them the "
                f"long code {self._where()})",
                flush=True,
            )
        if self.page is not None:
            self.page.invite(command)
        self.show_long()

    def being_guessed(self, wait: float) -> None:
        print(
            f"Someone is trying codes for your table: each code stops working after "
            f"{MAX_FAILURES} wrong tries, and from now on a new one comes only every so often "
            f"(the next in {minutes(wait)}). Friends can also join with the long code "
            "printed above (join code: tp2p1-...).",
            flush=True,
        )

    def no_code(self, words: str) -> None:
        print(
            f"No short code for now: {words}. Trying again; meanwhile friends can join with "
            f"the long code printed {self._where()}.",
            flush=True,
        )
        self.show_long()


def minutes(seconds: float) -> str:
    count = max(1, round(seconds / 60))
    return "1 minute" if count == 1 else f"{count} minutes"


def relay_refusal(refused: HubRefused, relay: Address, identity: Ed25519PrivateKey) -> HubRefused:
    """The relay's refusal of a new table, said with what the host can do about it."""
    where = relay.text()
    mine = fingerprint(identity.public_key()).hex()
    words = {
        "full": f"the relay at {where} is full: it holds as many tables as it can. Try again "
        "in a few minutes, give another relay with --relay ADDRESS, or host the table in "
        "this program with --no-relay (your friends must then be able to reach this computer)",
        "too-many": f"your address already has as many tables at the relay {where} as it "
        "allows one address. Finish or leave one of them, or wait: a table nobody is "
        f"connected to is forgotten after {FORGET_AFTER / 60:.0f} minutes",
        "password": f"the relay at {where} makes tables only for hosts who give its password"
        + (" (the one you gave is not it)" if relay.password else "")
        + ". Ask the person who runs it, then run host again with --relay-password PASSWORD",
        "not-allowed": f"the relay at {where} makes tables only for the hosts its operator "
        f"lets in. Send your key's fingerprint, {mine}, to the person who runs it, then run "
        "host again",
    }.get(refused.reason)
    return HubRefused(refused.reason, words) if words else refused


async def new_relay_table(relay: Address, identity: Ed25519PrivateKey) -> JoinCode:
    """A table held at the relay: its long code, with the address friends can use. The
    table id and the join secret are drawn here; the relay is given only the link key
    (``wire.md`` §5.0), so it cannot seat anyone at its own tables."""
    table_id = secrets.token_bytes(TABLE_ID_LEN)
    secret = secrets.token_bytes(SECRET_LEN)
    try:
        created = await create_at(
            relay.host, relay.port, identity, table_id, secret, relay.password
        )
    except HubRefused as refused:
        raise relay_refusal(refused, relay, identity) from None
    where = code_address(relay, parse_address(created.address))
    hub_key = fingerprint(Ed25519PublicKey.from_public_bytes(created.identity))
    return JoinCode(where.host, where.port, table_id, hub_key, secret, True)


async def _host(
    args: argparse.Namespace,
    config: TableConfig,
    name: str,
    policy: Policy,
    timeouts: Timeouts,
    relay: Address | None,
    profile: Profile,
    resume: TableState | None,
) -> int:
    identity = profile.identity()
    ticket = resume.ticket if resume is not None else None
    relay_code: JoinCode | None = None
    if ticket is not None:
        code = JoinCode.decode(ticket.code)
        if ticket.relay and not code.relay:
            code = replace(code, relay=True)  # saved before codes said so themselves
        relay_code = code if code.relay else None
        table_id, secret = code.table_id, code.secret
        if ticket.config is not None:
            config = TableConfig.from_canonical_bytes(bytes.fromhex(ticket.config))
        name = ticket.name
        names = list(ticket.bots)
    else:
        table_id = secrets.token_bytes(TABLE_ID_LEN)
        secret = secrets.token_bytes(SECRET_LEN)
        if relay is not None:
            relay_code = await new_relay_table(relay, identity)
            table_id, secret = relay_code.table_id, relay_code.secret
        names = bot_names(args.bots, name)
    files = profile.seat_files(table_id, identity)
    peer = resume_seat(files, identity) if resume is not None else None

    lan: HostOnLan | None = None

    def lobby_changed(change: LobbyChange) -> None:
        print(lobby_news(change), flush=True)
        if isinstance(policy, BrowserPolicy):
            policy.seated(change.names, change.missing)
        if lan is not None:
            lan.seated(len(change.names))

    free_seats = len(names) < config.players - 1
    page = policy if isinstance(policy, BrowserPolicy) and free_seats else None
    async with trio.open_nursery() as nursery:
        hosted: HostedHub | None = None
        link: MessageLink
        reconnect: Connector | None = None
        claim_channel: Callable[[int], Awaitable[ClaimEnd]]
        if relay_code is None:
            board = Board()
            hub = Hub(identity, table_id, secret)
            hosted = HostedHub(hub, board)
            listen = ticket.listen if ticket is not None and ticket.listen else args.listen
            wanted = ticket.port if ticket is not None and ticket.port else args.port
            listeners = await nursery.start(hosted.serve, listen, wanted)
            port = listeners[0].socket.getsockname()[1]
            if ticket is not None:
                code = JoinCode.decode(ticket.code)
            else:
                advertise = args.advertise or (
                    local_address() if listen in ("0.0.0.0", "") else listen
                )
                code = hub.join_code(advertise, port)
            where = "every network of this computer" if listen in ("0.0.0.0", "") else listen
            print(f"your table is open on port {port} ({where})", flush=True)
            link = hub.local_link()
            if peer is None and free_seats and not args.no_announce:
                key = fingerprint(identity.public_key())
                lan = HostOnLan(listen, port, name, config.players, key, 1)
            saved = Ticket(
                "host", code.encode(), name, False, None, listen, port, bots=tuple(names)
            )
            way = in_process(hub)

            async def claim_here(wanted: int) -> ClaimEnd:
                # A random channel, not the lowest free one: two tables on one network
                # would otherwise both read out codes starting with 1.
                await trio.lowlevel.checkpoint()
                return board.claim(wanted or secrets.randbelow(OWN_CHANNELS) + 1)

            claim_channel = claim_here
            shown = CodeBoard(None, lan, page, code.encode())
        else:
            code = relay_code
            # The relay is dialed as it was given, then as it was dialed before (the code
            # may hold the public address, which a host on the relay's own network may not
            # reach).
            if ticket is None and relay is not None:
                dialed = relay
            elif ticket is not None and ticket.listen and ticket.port:
                dialed = Address(ticket.listen, ticket.port)
            else:
                dialed = Address(code.host, code.port)
            own = replace(code, host=dialed.host, port=dialed.port)

            async def reconnect() -> MessageLink:
                return await connect(own, identity)

            async def claim_there(wanted: int) -> ClaimEnd:
                return await claim_at(dialed.host, dialed.port, wanted)

            claim_channel = claim_there
            shown = CodeBoard(Address(code.host, code.port), None, page, code.encode())
            link = await connect_patiently(own, identity, timeouts, show=True)
            print(f"connected to the relay at {dialed.text()}", flush=True)
            # The address dialed is kept: it is the one known to reach the relay from here.
            saved = Ticket(
                "host",
                code.encode(),
                name,
                True,
                listen=dialed.host,
                port=dialed.port,
                bots=tuple(names),
            )
            # The bots dial the relay as the host does, once the host's link is there to
            # hear their join requests.
            way = at_relay(own, fingerprint(identity.public_key()))
        bots_done = seat_house_bots(
            nursery,
            way,
            names,
            lambda i: BotPolicy(f"{args.seed}/{i + 1}", args.level, args.think),
            profile.root,
            timeouts,
            # Nobody reads a house bot's game history (the player's own has the game),
            # and each one is a database written after every deal: the seat after the
            # dealer would wait for it before sending its first key.
            history=False,
        )
        if names:
            print(f"bots playing in this program: {', '.join(names)}", flush=True)
        if peer is not None or not free_seats:  # no short code to read out: the long one now
            shown.show_long()
        config_hex = (peer.config if peer is not None else config).canonical_bytes().hex()
        ticket_saved = trio.Event()

        async def keep_table() -> None:
            # In a worker thread, beside the lobby: each file is written durably (fsyncs,
            # tens of milliseconds on a busy disk), which would otherwise hold up the
            # event loop that seats the bots and serves the page. The game waits for it.
            def save() -> None:
                profile.save_ticket(files, replace(saved, config=config_hex))
                remember_page(policy, files.directory)

            await trio.to_thread.run_sync(save)
            ticket_saved.set()

        nursery.start_soon(keep_table)
        if peer is None:
            print(f"{waiting_for(config.players - 1)}...", flush=True)
            if isinstance(policy, BrowserPolicy):
                policy.seated([name], config.players - 1)
            async with trio.open_nursery() as ready:
                # The short code works until every seat is taken.
                invitation = Invitation(code, identity_bytes(identity.public_key()))
                if free_seats:  # (not when the house bots take every seat)
                    ready.start_soon(offer_table, claim_channel, invitation, shown)
                    ready.start_soon(shown.show_long_later)
                if lan is not None:
                    ready.start_soon(lan.run)  # withdrawn once every seat is taken
                peer = await host_table(
                    link,
                    identity,
                    name,
                    config,
                    table_id,
                    secret,
                    on_change=lobby_changed,
                    timeout=timeouts.lobby,
                )
                ready.cancel_scope.cancel()
        else:
            print("taking back your unfinished table...", flush=True)
        print(describe_table(peer), flush=True)
        await ticket_saved.wait()  # the table can be taken back before our first message
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
        exit_code = report(outcome, peer)
        with trio.move_on_after(LINGER):
            await bots_done.wait()
            if hosted is not None:
                await hosted.wait_empty()
        nursery.cancel_scope.cancel()
    return exit_code


def run(args: argparse.Namespace) -> int:
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        config = table_config(args)
        timeouts = seat_timeouts(args)
        name = clean_name(args.name or getpass.getuser())  # as join names a player
        profile = Profile(args.profile)
        if not 0 <= args.bots < config.players:
            raise ValueError(f"--bots is 0 to {config.players - 1} at {config.players} players")
        relay = chosen_relay(args, profile)
        if args.relay_password:
            if relay is None:
                raise ValueError("--relay-password goes with a relay: give --relay ADDRESS")
            relay = replace(relay, password=args.relay_password)
            profile.remember_relay(relay.typed())
        bot_names(args.bots, name)
        resume = None
        if not args.new:
            tables = profile.unfinished(profile.identity())
            hosted = [t for t in tables if t.ticket and t.ticket.role == "host"]
            if args.table:
                hosted = [t for t in hosted if t.files.directory.name == args.table]
                if not hosted:
                    raise ValueError(f"you host no unfinished table named {args.table}")
            resume = hosted[0] if hosted else None
    except (ValueError, JoinCodeError, LobbyError, ProfileError) as exc:
        return tell(exc)
    if resume is not None:
        print(
            f"You have an unfinished table ({resume.files.directory.name}): taking it back. "
            "To start a new table instead, run host with --new.",
            flush=True,
        )
    policy = BotPolicy(args.seed, args.level, args.think) if args.bot else human_policy(args)
    table = resume.files.directory if resume is not None else None
    # The tables' warm-up starts first, before the page is served: the first shuffle (the
    # seat draw's) comes a few tenths of a second later and is slower without them.
    main = functools.partial(warming_up, with_page(policy, _host, args, profile, table))
    return run_seat(main, args, config, name, policy, timeouts, relay, profile, resume)
