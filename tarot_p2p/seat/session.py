"""Sitting down at a table: the lobby over a link, then the runner until the game ends.

Why apart from :mod:`.runner`: the runner drives a peer that exists; building one needs
the set-up (rules, roster, names), which the host assembles from join requests and the
joiners receive from the host (:mod:`tarot_p2p.meet.lobby`). The programs (``host``,
``join``, ``bot``, ``demo``) and the tests all sit down through these functions, so there
is one way to do it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.crypto.randomness import RandomSource, SecretsRandom
from tarot_p2p.files.history import HistoryWriter
from tarot_p2p.files.seat_files import SeatFiles
from tarot_p2p.meet.lobby import (
    JOIN_AGAIN,
    ForeignHost,
    LobbyChange,
    LobbyError,
    OtherVersion,
    Seating,
    TableOffer,
    join_request,
    leave_request,
    read_table_offer,
)
from tarot_p2p.net.channels import Board
from tarot_p2p.net.door import Door
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.limits import source_of
from tarot_p2p.net.link import MessageLink
from tarot_p2p.protocol.errors import ProtocolError
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.transcript import read_frames
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.seat.runner import LINK_ERRORS, Connector, Outcome, Policy, TableRunner, Timeouts

log = logging.getLogger(__name__)

FOREIGN_HOST = (
    ", only one signed by another host than the one the code names (or --host-key): "
    "check the code, and the host key, with your host"
)
OTHER_VERSIONS = (
    f" (a host whose program speaks another version of tarot-p2p than this one, protocol "
    f"{PROTOCOL_VERSION}, cannot seat you: its terminal says so; check that you both run "
    "the same release)"
)
LEAVE_GRACE = 2.0
"""Seconds a joiner quitting the lobby spends at most telling the host it leaves."""


class TableFull(Exception):
    """The host seated other players: this identity is not in the set-up."""


class LobbyTimeout(Exception):
    """The table did not fill up (host) or no set-up came (joiner) in time."""


async def host_table(
    link: MessageLink,
    identity: Ed25519PrivateKey,
    name: str,
    config: TableConfig,
    table_id: bytes,
    secret: bytes,
    *,
    rng: RandomSource | None = None,
    on_change: Callable[[LobbyChange], None] | None = None,
    timeout: float = Timeouts().lobby,
) -> Peer:
    """Collect join requests until every seat is taken by a live joiner; return the host's
    peer (seat 0). Only requests proving the join ``secret`` seat anyone (``lobby.md`` §2).
    ``on_change`` hears each player who sits down, changes name or leaves.
    Raises :class:`LobbyTimeout` when the seats are not all taken within ``timeout``."""
    seating = Seating(config.seats, identity.public_key(), name, secret)
    with trio.move_on_after(timeout):
        while not seating.full:
            wire: bytes | None = None
            with trio.move_on_at(seating.next_silence()):
                wire = await link.receive()
            now = trio.current_time()
            changes = seating.expire(now)
            change = None if wire is None else seating.offer(wire, table_id, now)
            if change is not None:
                changes.append(change)
            if on_change is not None:
                for each in changes:
                    on_change(each)
    if not seating.full:
        raise LobbyTimeout(f"the table did not fill up within {timeout:g} s")
    return Peer(
        config,
        table_id,
        seating.keys,
        seating.names,
        seat=0,
        identity=identity,
        rng=rng or SecretsRandom(),
    )


async def join_table(
    link: MessageLink,
    identity: Ed25519PrivateKey,
    name: str,
    table_id: bytes,
    secret: bytes,
    *,
    hub_fingerprint: bytes | None = None,
    rng: RandomSource | None = None,
    timeout: float = Timeouts().lobby,
) -> tuple[Peer, TableOffer]:
    """Ask for a seat (our requests prove the join ``secret`` of the long code) and wait for
    the host's set-up; return our peer, set-up accepted.

    ``hub_fingerprint``: the join code's, when the hub runs inside the host (its key then
    signs the set-up). Raises :class:`TableFull` when the set-up leaves us out, and
    :class:`LobbyTimeout` when no set-up comes within ``timeout``.
    """
    request = join_request(identity, name, table_id, secret)
    try:
        return await _wait_for_setup(
            link, identity, name, table_id, request, hub_fingerprint, rng, timeout
        )
    except BaseException:
        # Quitting the lobby (Ctrl-C, the page closed, a timeout, an error): the host frees
        # our seat at once instead of starting the table with a player who is gone.
        with trio.CancelScope(shield=True) as scope:
            scope.deadline = trio.current_time() + LEAVE_GRACE
            try:
                await link.send(leave_request(identity, name, table_id, secret))
            except (*LINK_ERRORS, OSError) as exc:
                log.info("lobby: could not say we leave: %s", exc)
        raise


async def _wait_for_setup(
    link: MessageLink,
    identity: Ed25519PrivateKey,
    name: str,
    table_id: bytes,
    request: bytes,
    hub_fingerprint: bytes | None,
    rng: RandomSource | None,
    timeout: float,
) -> tuple[Peer, TableOffer]:
    me = identity.public_key()
    deadline = trio.current_time() + timeout
    ask_at = trio.current_time()
    foreign = False
    other: OtherVersion | None = None
    while True:
        # Asked again every few seconds: the host keeps a seat only while its requests
        # come (lobby.md §2), a relay may have lost one, or the set-up (the host, already
        # playing, answers a seated member's request with it).
        if trio.current_time() >= ask_at:
            await link.send(request)
            ask_at = trio.current_time() + JOIN_AGAIN
        wire: bytes | None = None
        with trio.move_on_at(min(deadline, ask_at)):
            wire = await link.receive()
        if wire is None:
            if trio.current_time() >= deadline:
                if other is not None:  # the host is not known: said now, not at once
                    raise other
                raise LobbyTimeout(
                    f"no set-up from the host within {timeout:g} s"
                    + (FOREIGN_HOST if foreign else "")
                    + OTHER_VERSIONS
                )
            continue
        try:
            offer = read_table_offer(wire, table_id, me, name, hub_fingerprint)
        except OtherVersion as exc:
            if hub_fingerprint is not None:  # signed by the host the code names
                raise
            other = exc
            continue
        except LobbyError as exc:
            foreign = foreign or isinstance(exc, ForeignHost)
            log.debug("lobby: ignored %s", exc)
            continue
        if offer.index is None:
            raise TableFull("the host seated other players")
        peer = Peer(
            offer.config,
            table_id,
            offer.roster,
            offer.names,
            seat=offer.index,
            identity=identity,
            rng=rng or SecretsRandom(),
        )
        peer.receive(offer.wire)
        return peer, offer


def resume_seat(
    files: SeatFiles, identity: Ed25519PrivateKey, *, rng: RandomSource | None = None
) -> Peer | None:
    """The seat rebuilt from its files after a crash or a lost link (``table.md`` §7), or
    ``None`` when they hold no set-up yet (the table must be joined again).

    Raises ``ValueError`` (with a message for the player) when the files cannot be used."""
    try:
        data = files.transcript.read_bytes()
    except FileNotFoundError:
        return None
    try:
        if not read_frames(data).records:
            return None
        secrets = files.secrets.read_bytes() if files.secrets.exists() else None
        return Peer.resume(data, secrets, identity=identity, rng=rng or SecretsRandom())
    except (ProtocolError, ValueError, OSError) as exc:
        raise ValueError(f"cannot take the seat back from {files.directory}: {exc}") from None


async def play_seat(
    peer: Peer,
    link: MessageLink,
    policy: Policy,
    data_dir: Path,
    identity: Ed25519PrivateKey,
    *,
    timeouts: Timeouts | None = None,
    offload: bool = True,
    reconnect: Connector | None = None,
    history: Path | None = None,
) -> Outcome:
    """Run ``peer`` to the end of the game; its files go under ``data_dir`` (a profile's
    tables folder), and the game into the ``history`` database (a profile's) if given.
    ``reconnect`` opens a new link when this one fails."""
    me = identity.public_key().public_bytes_raw()
    files = SeatFiles.for_table(data_dir, peer.table_id, me)
    runner = TableRunner(
        peer,
        link,
        policy,
        files,
        timeouts=timeouts or Timeouts(),
        offload=offload,
        reconnect=reconnect,
        history=None if history is None else HistoryWriter(history),
    )
    return await runner.run()


class HostedHub:
    """A :class:`Hub` served over TCP (behind its :class:`~.door.Door`, whose ``board``
    holds the host's rendezvous channel) that knows how many connections are open.

    Why: whoever runs the hub (the host, the demo) must keep it up after its own game
    ends until the other peers have received the last messages and left.
    """

    def __init__(self, hub: Hub, board: Board | None = None) -> None:
        self.hub = hub
        self.door = Door.of(hub, board=board)
        self.connected = 0
        self.bytes_in = 0
        """TCP bytes received from the members (handshakes and framing included)."""
        self.bytes_out = 0
        """TCP bytes sent to the members."""
        self._changed = trio.Event()

    async def _handle(self, stream: trio.SocketStream) -> None:
        self.connected += 1
        try:
            await self.door.handle_stream(_Counting(stream, self), source_of(stream))
        finally:
            self.connected -= 1
            self._changed.set()
            self._changed = trio.Event()

    async def serve(
        self,
        host: str,
        port: int,
        *,
        task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Listen on ``host:port`` (0: any free port) and serve until cancelled."""
        await trio.serve_tcp(self._handle, port, host=host, task_status=task_status)

    async def wait_empty(self) -> None:
        """Return once no TCP member is connected."""
        while self.connected:
            await self._changed.wait()


class _Counting(trio.abc.Stream):
    """A stream that counts the bytes it carries each way in its ``owner``."""

    def __init__(self, stream: trio.SocketStream, owner: HostedHub) -> None:
        self._stream = stream
        self._owner = owner

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self._stream.send_all(data)
        self._owner.bytes_out += len(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self._stream.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self._stream.receive_some(max_bytes)
        self._owner.bytes_in += len(data)
        return data

    async def send_eof(self) -> None:
        await self._stream.send_eof()

    async def aclose(self) -> None:
        await self._stream.aclose()
