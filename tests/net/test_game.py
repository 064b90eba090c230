"""Whole networked games: a hub on a real loopback socket, every seat a trio task.

Each seat goes through the same code as the programs (lobby, runner, files); the host
sits on the hub's in-process link, the others connect over TCP with the join code. The
peers' randomness is seeded so that a failing game replays exactly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.files.seat_files import SeatFiles
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.net.link import MessageLink, connect
from tarot_p2p.protocol.peer import Peer, PeerEvent, replay_file
from tarot_p2p.protocol.table import EngineAction
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import mask_of
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.seat.runner import Decision, Outcome, Policy, TableRunner, Timeouts
from tarot_p2p.seat.session import HostedHub, host_table, join_table

TABLE_ID = hashlib.sha256(b"net game table").digest()
SECRET = b"\x42" * 16
TIMEOUTS = Timeouts(message=60, decision=60)


def identity(seed: str, i: int) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"{seed}/{i}".encode()).digest())


def one_deal(players: int) -> TableConfig:
    return TableConfig(players=players, game_end=GameEnd.DEALS, game_length=1)


class Watch:
    """Wraps a policy: checks secrecy after every message, records the public actions."""

    def __init__(self, inner: Policy, seats: list[Peer]) -> None:
        self.inner = inner
        self.seats = seats
        self.actions: list[tuple[int, a.Action]] = []

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        return await self.inner.decide(peer, refused)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        self.actions += [(e.seat, e.action) for e in events if isinstance(e, EngineAction)]
        check_secrecy(peer, self.seats)
        await self.inner.observe(peer, events)


def check_secrecy(peer: Peer, everyone: list[Peer]) -> None:
    """``peer`` knows no card another seat still holds, unless everyone saw it (the chien
    shown in prise and garde, a poignée): the cards it opened for itself alone and the
    open slots are all it can name."""
    hand = peer.hand
    if hand.hand == 0 or hand.engine is None:
        return
    public = hand.engine.observation(peer.seat or 0)
    shown = public.chien or 0  # the chien was shown to everyone before the taker took it
    for _, cards in public.poignees:
        shown |= cards
    known = peer.private_cards() | mask_of(set(hand.cards.values()))
    private = peer.private_state()
    for other in everyone:
        if other is peer or other.hand.hand != hand.hand or other.seat is None:
            continue
        assert not known & other.my_cards() & ~shown, f"seat {peer.seat} sees {other.seat}'s"
        if private is not None:
            assert not private.is_known(other.seat) or not other.my_cards()


class Scripted:
    """The first seat to speak bids ``contract``, everyone else passes; then bots play."""

    def __init__(self, contract: int, seed: int) -> None:
        self.contract = contract
        self.bot = BotPolicy(seed)

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        legal = peer.legal_actions()
        if legal and isinstance(legal[-1], a.Bid):
            state = peer.private_state()
            assert state is not None
            first = not any(isinstance(x, a.Bid) for x in state.history())
            want = a.BIDS[self.contract] if first else a.PASS
            return want if want in legal else legal[0]
        return await self.bot.decide(peer, refused)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None


@dataclass
class Seat:
    identity: Ed25519PrivateKey
    name: str
    policy: Policy
    peer: Peer | None = None
    outcome: Outcome | None = None
    files: SeatFiles | None = None


@dataclass
class Game:
    seats: list[Seat]
    hub: Hub
    hosted: HostedHub | None
    code: JoinCode | None
    peers: list[Peer] = field(default_factory=list)


def local_game(keys: Sequence[Ed25519PrivateKey], policies: Sequence[Policy], hub: Hub) -> Game:
    """A game whose seats ``P0``, ``P1``... (``keys[i]`` playing ``policies[i]``) sit on
    ``hub``'s in-process links: no TCP listener, no join code."""
    seats = [Seat(k, f"P{i}", p) for i, (k, p) in enumerate(zip(keys, policies, strict=True))]
    return Game(seats, hub, None, None)


@asynccontextmanager
async def tcp_hub(host_key: Ed25519PrivateKey) -> AsyncIterator[tuple[Hub, HostedHub, JoinCode]]:
    hub = Hub(host_key, TABLE_ID, SECRET)
    hosted = HostedHub(hub)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(hosted.serve, "127.0.0.1", 0)
        code = hub.join_code("127.0.0.1", listeners[0].socket.getsockname()[1])
        yield hub, hosted, code
        nursery.cancel_scope.cancel()


async def sit(
    game: Game,
    index: int,
    link: MessageLink,
    config: TableConfig,
    data_dir: Path,
    timeouts: Timeouts,
    ready: Callable[[int, Peer], None] | None = None,
) -> None:
    """Seat ``index`` of ``game``: the lobby, then the runner (seeded randomness)."""
    seat = game.seats[index]
    rng = DeterministicRandom(f"rng/{seat.name}".encode())
    if index == 0:
        peer = await host_table(link, seat.identity, seat.name, config, TABLE_ID, SECRET, rng=rng)
    else:
        fp = game.code.hub_fingerprint if game.code is not None else None
        peer, _ = await join_table(
            link, seat.identity, seat.name, TABLE_ID, SECRET, hub_fingerprint=fp, rng=rng
        )
    seat.peer = peer
    game.peers.append(peer)
    if ready is not None:
        ready(index, peer)
    seat.files = SeatFiles.for_table(
        data_dir, TABLE_ID, seat.identity.public_key().public_bytes_raw()
    )
    runner = TableRunner(peer, link, seat.policy, seat.files, timeouts=timeouts, offload=False)
    seat.outcome = await runner.run()
    await link.aclose()


async def play_over_tcp(
    config: TableConfig,
    policies: Callable[[int, list[Peer]], Policy],
    data_dir: Path,
    *,
    timeouts: Timeouts = TIMEOUTS,
    seed: str = "g",
) -> Game:
    """A whole game: the host on the hub's local link, the others over TCP."""
    peers: list[Peer] = []
    keys = [identity(seed, i) for i in range(config.seats)]
    async with tcp_hub(keys[0]) as (hub, hosted, code):
        seats = [Seat(k, f"P{i}", policies(i, peers)) for i, k in enumerate(keys)]
        game = Game(seats, hub, hosted, code, peers)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sit, game, 0, hub.local_link(), config, data_dir, timeouts)
            for i in range(1, config.seats):
                link = await connect(code, keys[i])
                nursery.start_soon(sit, game, i, link, config, data_dir, timeouts)
                await joined(hub, i)
    return game


async def joined(hub: Hub, count: int) -> None:
    """Wait until ``count`` join requests went through the hub: seats in a fixed order,
    so that a seeded game replays exactly."""
    while hub.stats.relayed < count:
        await trio.sleep(0.001)


def assert_agreement(game: Game) -> None:
    """Every seat finished, with byte-identical transcript files and identical sheets."""
    files = [s.files for s in game.seats]
    assert all(s.outcome is not None and s.outcome.finished for s in game.seats)
    assert all(f is not None for f in files)
    transcripts = {f.transcript.read_bytes() for f in files if f is not None}
    assert len(transcripts) == 1
    docs = [json.loads(f.sheet.read_text()) for f in files if f is not None]
    assert len({json.dumps((d["sheet"], d["head"]), sort_keys=True) for d in docs}) == 1
    assert all(d["finished"] and d["sheet"]["over"] for d in docs)
    assert sum(docs[0]["sheet"]["totals"]) == 0
    replay = replay_file(transcripts.pop())
    assert replay.error is None and replay.observer.expected_sender() is None
    assert replay.observer.transcript.head.hex() == docs[0]["head"]


@pytest.mark.parametrize("players", [3, 4, 5])
async def test_full_game_agreed_and_secret(players: int, tmp_path: Path) -> None:
    watches: list[Watch] = []

    def policy(i: int, peers: list[Peer]) -> Policy:
        watch = Watch(BotPolicy(i), peers)
        watches.append(watch)
        return watch

    game = await play_over_tcp(one_deal(players), policy, tmp_path, seed=f"full{players}")
    assert_agreement(game)
    assert all(w.actions for w in watches)
    assert game.hosted is not None and game.hosted.bytes_in > 0


@pytest.mark.parametrize("contract", [Contract.GARDE_SANS, Contract.GARDE_CONTRE])
async def test_garde_sans_and_contre(contract: Contract, tmp_path: Path) -> None:
    watches: list[Watch] = []

    def policy(i: int, peers: list[Peer]) -> Policy:
        watch = Watch(Scripted(contract, i), peers)
        watches.append(watch)
        return watch

    game = await play_over_tcp(one_deal(4), policy, tmp_path, seed=f"c{contract}")
    assert_agreement(game)
    bids = [act.contract for _, act in watches[0].actions if isinstance(act, a.Bid)]
    assert max(bids) == contract
    # No écart in garde sans/contre: the chien stays masked until the end of the hand.
    assert not any(isinstance(act, a.Discard) for _, act in watches[0].actions)
