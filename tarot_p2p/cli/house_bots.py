"""Bots that sit at a table inside the host's process (``host --bots N``, ``demo``).

Why in-process: a player who wants a game against bots should not have to start one
program per bot and paste the join code into each. A house bot is still a full peer: its
own identity key, its own key shares and shuffles, its own transcript and score sheet;
it joins exactly as a remote player does (join request, then the host's signed set-up),
through the hub's in-process link when the hub runs in the host's program, or over TCP
to the relay holding the table (``host --bots N --relay ADDRESS``), so nothing in the
protocol knows it is local, and it learns nothing the hub does not relay to everyone.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.files.profile import Profile
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.joincode import SECRET_LEN, TABLE_ID_LEN, JoinCode
from tarot_p2p.net.link import MessageLink, connect
from tarot_p2p.protocol.identity import fingerprint
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.seat.runner import Outcome, Policy, Timeouts
from tarot_p2p.seat.session import host_table, join_table, play_seat, resume_seat

BOT_NAMES = ("Alice", "Bruno", "Chloé", "Denis", "Emma")
"""House bots' names, in the order they sit down (a player may take one: see
:func:`bot_names`)."""


def bot_names(count: int, taken: str) -> list[str]:
    """``count`` names for house bots, none equal to the player's own name ``taken``."""
    free = [n for n in BOT_NAMES if n.casefold() != taken.casefold()]
    if not 0 <= count <= len(free):
        raise ValueError(f"between 0 and {len(free)} house bots")
    return free[:count]


@dataclass(frozen=True, slots=True)
class Way:
    """How a house bot reaches the table: ``open(identity)`` gives a new link to its hub
    (again after a lost one); ``host`` is the fingerprint of the host's key, which must
    sign the set-up."""

    table_id: bytes
    secret: bytes
    """The table's join secret, which the bot's join requests prove (``lobby.md`` §1)."""
    host: bytes
    open: Callable[[Ed25519PrivateKey], Awaitable[MessageLink]]


def in_process(hub: Hub) -> Way:
    """The way to a hub running in this program (its key is the host's)."""

    async def local(identity: Ed25519PrivateKey) -> MessageLink:
        return hub.local_link()

    if hub.secret is None:
        raise ValueError("only a host's own hub: a relay's table is reached by its code")
    return Way(hub.table_id, hub.secret, fingerprint(hub.identity.public_key()), local)


def at_relay(code: JoinCode, host: bytes) -> Way:
    """The way to a table at a relay, dialed as ``code`` says (the host dials it so)."""

    async def dial(identity: Ed25519PrivateKey) -> MessageLink:
        return await connect(code, identity)

    return Way(code.table_id, code.secret, host, dial)


async def house_bot(
    way: Way,
    name: str,
    policy: Policy,
    profile: Profile,
    timeouts: Timeouts,
    *,
    history: bool = True,
) -> Outcome:
    """One bot seated by ``way``, played to the end of the game.

    Each bot has a profile of its own (under the host's), so that a host restarted after
    a crash brings its bots back to their seats with their keys and secrets. With
    ``history``, the bot also keeps a game history in it, as a player does."""
    # A worker thread: a new profile's key is written durably (two fsyncs), and the bots
    # then write theirs side by side instead of one after another on the event loop that
    # serves the player's page.
    identity = await trio.to_thread.run_sync(profile.identity)
    files = profile.seat_files(way.table_id, identity)
    peer = resume_seat(files, identity)

    async def reconnect() -> MessageLink:
        return await way.open(identity)

    link = await reconnect()
    try:
        if peer is None:
            peer, _ = await join_table(
                link,
                identity,
                name,
                way.table_id,
                way.secret,
                hub_fingerprint=way.host,
                timeout=timeouts.lobby,
            )
        return await play_seat(
            peer,
            link,
            policy,
            profile.tables,
            identity,
            timeouts=timeouts,
            reconnect=reconnect,
            history=profile.history if history else None,
        )
    finally:
        await link.aclose()


def bot_profile(root: Path, index: int) -> Profile:
    """The profile of the host's ``index``-th house bot, inside the host's own folder."""
    return Profile(root / "house-bots" / f"bot{index + 1}")


def seat_house_bots(
    nursery: trio.Nursery,
    way: Way,
    names: list[str],
    make_policy: Callable[[int], Policy],
    root: Path,
    timeouts: Timeouts,
    outcomes: list[Outcome] | None = None,
    *,
    history: bool = True,
) -> trio.Event:
    """Start one :func:`house_bot` per name in ``nursery``, each reaching the table by
    ``way`` (bot ``i`` decides with ``make_policy(i)`` and keeps its files in
    :func:`bot_profile` of ``root``, and a game history there with ``history``); their
    outcomes are appended to ``outcomes`` as they finish. The event returned is set once
    they all have (so the host waits for them before leaving)."""
    finished = trio.Event()
    running = [len(names)]

    async def run(index: int, name: str, policy: Policy) -> None:
        try:
            profile = bot_profile(root, index)
            outcome = await house_bot(way, name, policy, profile, timeouts, history=history)
            if outcomes is not None:
                outcomes.append(outcome)
        finally:
            running[0] -= 1
            if not running[0]:
                finished.set()

    for i, name in enumerate(names):
        nursery.start_soon(run, i, name, make_policy(i))
    if not names:
        finished.set()
    return finished


async def host_with_house_bots(
    policy: Policy,
    name: str,
    config: TableConfig,
    bots: list[str],
    make_bot_policy: Callable[[int], Policy],
    data_dir: Path,
    timeouts: Timeouts,
) -> tuple[Peer, Outcome, list[Outcome]]:
    """A table whose every other seat is a house bot, on a hub of its own that no one
    else can reach (the demo, tests, a quick game): the host's peer, its outcome and the
    bots'. ``host --bots N`` mixes house bots with remote players on a listening hub."""
    identity = Ed25519PrivateKey.generate()
    table_id = secrets.token_bytes(TABLE_ID_LEN)
    secret = secrets.token_bytes(SECRET_LEN)
    hub = Hub(identity, table_id, secret)
    link = hub.local_link()
    outcomes: list[Outcome] = []
    try:
        async with trio.open_nursery() as nursery:
            way = in_process(hub)
            seat_house_bots(nursery, way, bots, make_bot_policy, data_dir, timeouts, outcomes)
            peer = await host_table(
                link, identity, name, config, table_id, secret, timeout=timeouts.lobby
            )
            outcome = await play_seat(peer, link, policy, data_dir, identity, timeouts=timeouts)
    finally:
        await link.aclose()
    return peer, outcome, outcomes
