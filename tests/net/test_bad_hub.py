"""A relay that drops, delays, reorders, duplicates, injects or shows members different
versions of a message: the honest seats finish with the same transcript and blame nobody,
or, for a split view of two signed versions, all name the seat that signed both.

The relay double wraps each member's in-process hub link on the receiving side, so it
decides, message by message, what each member gets and when: exactly the power of a hub.
Everything runs on trio's autojump clock (delays of minutes cost nothing).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.link import MessageLink
from tarot_p2p.protocol.envelope import open_envelope, seal
from tarot_p2p.protocol.errors import ProtocolError
from tarot_p2p.protocol.peer import Peer, PeerEvent
from tarot_p2p.rules.actions import BIDS, PASS
from tarot_p2p.rules.actions import decode as decode_action
from tarot_p2p.rules.sheet import LineKind
from tarot_p2p.seat.runner import Decision, Policy, Timeouts
from tests.net.links import PassThrough
from tests.net.test_game import (
    SECRET,
    TABLE_ID,
    Game,
    Seat,
    assert_agreement,
    identity,
    joined,
    local_game,
    one_deal,
    sit,
)
from tests.ui.test_view import PageBot

TIMEOUTS = Timeouts(message=30, decision=90)

Plan = Callable[[int, bytes, int], list[tuple[float, bytes]]]
"""(member, message, how many messages that member was offered before) -> what it gets:
a list of (delay in seconds, bytes); empty to drop it."""


class RelayedLink(PassThrough):
    """A member's link as a misbehaving hub serves it: sends go through, receives are
    rewritten by ``plan``."""

    def __init__(self, inner: MessageLink, member: int, plan: Plan) -> None:
        super().__init__(inner)
        self.member = member
        self.plan = plan
        self.offered = 0
        self.held: list[tuple[float, int, bytes]] = []
        self._order = 0

    async def receive(self) -> bytes:
        while True:
            now = trio.current_time()
            self.held.sort()
            if self.held and self.held[0][0] <= now:
                return self.held.pop(0)[2]
            wake = self.held[0][0] if self.held else float("inf")
            message: bytes | None = None
            with trio.move_on_at(wake):
                message = await self.inner.receive()
            if message is None:
                continue
            for delay, data in self.plan(self.member, message, self.offered):
                self._order += 1
                self.held.append((trio.current_time() + delay, self._order, data))
            self.offered += 1


def honest(member: int, message: bytes, offered: int) -> list[tuple[float, bytes]]:
    return [(0.0, message)]


async def run_table(
    tmp_path: Path,
    keys: list[Ed25519PrivateKey],
    link_for: Callable[[int, MessageLink], MessageLink],
    names: str = "P",
    policies: dict[int, Policy] | None = None,
) -> Game:
    """One deal of bots, member ``i`` talking through ``link_for(i, its hub link)``; the
    players are called ``names`` and their number (the seats' randomness follows them);
    ``policies`` replaces some members' bots."""
    players = len(keys)
    hub = Hub(keys[0], TABLE_ID, SECRET)
    chosen = policies or {}
    seats = [Seat(k, f"{names}{i}", chosen.get(i) or BotPolicy(i)) for i, k in enumerate(keys)]
    game = Game(seats, hub, None, None)
    async with trio.open_nursery() as nursery:
        for i in range(players):
            link = link_for(i, hub.local_link())
            nursery.start_soon(sit, game, i, link, one_deal(players), tmp_path, TIMEOUTS)
            await joined(hub, i + 1 if i else 0)
    return game


async def play(tmp_path: Path, players: int, plan: Plan, seed: str, members: int = -1) -> Game:
    """One deal; every member's incoming messages rewritten by ``plan`` (or only
    ``members``'s when it is not -1)."""
    keys = [identity(seed, i) for i in range(players)]

    def link_for(i: int, inner: MessageLink) -> MessageLink:
        return RelayedLink(inner, i, plan if members in (-1, i) else honest)

    return await run_table(tmp_path, keys, link_for)


def lossy(seed: int, drop: float, dup: float, delay: float, reorder: float) -> Plan:
    rng = random.Random(seed)

    def plan(member: int, message: bytes, offered: int) -> list[tuple[float, bytes]]:
        if offered < 1:  # the set-up or a join request: the lobby has no repair
            return [(0.0, message)]
        roll = rng.random()
        if roll < drop:
            return []
        if roll < drop + dup:
            return [(0.0, message), (rng.uniform(0, 5), message)]
        if roll < drop + dup + delay:
            return [(rng.uniform(1, 120), message)]  # past the 30 s limit, often
        if roll < drop + dup + delay + reorder:
            return [(rng.uniform(0.01, 0.5), message)]
        return [(0.0, message)]

    return plan


@pytest.mark.parametrize("players", [3, 4])
async def test_a_lossy_relay_costs_time_not_blame(
    autojump_clock: trio.testing.MockClock, tmp_path: Path, players: int
) -> None:
    plan = lossy(players, drop=0.08, dup=0.05, delay=0.04, reorder=0.08)
    game = await play(tmp_path, players, plan, f"lossy{players}")
    assert_agreement(game)  # finished, byte-identical transcripts, identical sheets
    outcomes = [s.outcome for s in game.seats]
    assert all(o is not None and o.abort is None for o in outcomes)
    assert sum(o.stats.sync_requests for o in outcomes if o) > 0
    assert sum(o.stats.resent for o in outcomes if o) > 0


async def test_one_message_withheld_from_one_member_is_fetched_from_the_others(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    withheld: list[bytes] = []

    def plan(member: int, message: bytes, offered: int) -> list[tuple[float, bytes]]:
        if offered == 12 and not withheld:
            withheld.append(message)
            return [(10 * TIMEOUTS.decision, message)]  # far past every limit
        return [(0.0, message)]

    game = await play(tmp_path, 3, plan, "withheld", members=2)
    assert withheld
    assert_agreement(game)
    outcome = game.seats[2].outcome
    assert outcome is not None and outcome.stats.sync_requests > 0


async def test_junk_and_replays_injected_by_the_relay_blame_nobody(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    stranger = identity("stranger", 0)
    seen: list[bytes] = []

    def plan(member: int, message: bytes, offered: int) -> list[tuple[float, bytes]]:
        seen.append(message)
        other_table = seal(
            stranger, table_id=bytes(32), hand=0, seq=0, seat=0, prev=bytes(32),
            kind="table", body={},
        ).wire  # fmt: skip
        junk = [b"\xc1", b"\x92\xc4\x00\xc4\x00", other_table, random.Random(offered).randbytes(90)]
        replay = seen[len(seen) // 2]  # an old message, again
        return [(0.0, message), (0.0, junk[offered % len(junk)]), (0.0, replay)]

    game = await play(tmp_path, 3, plan, "inject")
    assert_agreement(game)
    assert all(s.outcome is not None and s.outcome.stats.ignored > 0 for s in game.seats)


async def test_a_split_view_of_two_signed_versions_names_the_signer_everywhere(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """Seat ``cheat`` signs two different bids for one slot; the relay shows one version to
    one honest member and the other to the other. Both find out (through sync answers),
    pass the evidence on, and name the cheat; nobody else is named."""
    players = 3
    keys = [identity("split", i) for i in range(players)]
    cheat_member = 1
    versions: list[bytes] = []

    class Equivocating(RelayedLink):
        async def send(self, message: bytes) -> None:
            try:
                env = open_envelope(message, table_id=TABLE_ID, roster=None)
            except ProtocolError:  # the join request, a sync request
                await self.inner.send(message)
                return
            if env.kind == "action" and env.hand == 1 and not versions:
                bid = decode_action(env.body["action"])  # type: ignore[arg-type]
                # Another bid for the same slot, on the same history.
                other = PASS if bid != PASS else BIDS[1]
                twin = seal(
                    keys[cheat_member], table_id=TABLE_ID, hand=env.hand, seq=env.seq,
                    seat=env.seat, prev=env.prev, kind="action",
                    body={"action": list(other.encode())},
                ).wire  # fmt: skip
                versions.extend([message, twin])
                await self.inner.send(message)
                await self.inner.send(twin)
                return
            await self.inner.send(message)

    hidden: set[int] = set()

    def plan(member: int, message: bytes, offered: int) -> list[tuple[float, bytes]]:
        # As relayed, member 0 gets only the first version and member 2 only the second;
        # what the members later send each other (sync answers) goes through.
        if len(versions) == 2 and message in versions and member not in hidden:
            shown = versions[0] if member == 0 else versions[1]
            if message != shown:
                hidden.add(member)
                return []
        return [(0.0, message)]

    game = await run_table(
        tmp_path,
        keys,
        lambda i, inner: (Equivocating if i == cheat_member else RelayedLink)(inner, i, plan),
    )
    assert len(versions) == 2
    cheat = game.seats[cheat_member].peer
    assert cheat is not None
    assert hidden == {0, 2}
    for i in (0, 2):
        outcome = game.seats[i].outcome
        assert outcome is not None and outcome.abort is not None, i
        abort = outcome.abort
        assert (abort.kind, abort.seat, abort.attributed) == ("violation", cheat.seat, True)
        # Both signed versions as evidence (or, had the second bid been illegal there,
        # that bid alone: either way a signed message of the cheat).
        assert set(abort.evidence) <= set(versions) and abort.evidence


async def test_a_hand_0_message_after_the_draw_is_blamed_on_its_signers_seat(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """Member ``m`` signs a hand-0 envelope (under its member index ``m``) once seats are
    drawn: every honest peer names the seat ``m`` drew, not the seat numbered ``m``."""
    players = 3
    keys = [identity("member", i) for i in range(players)]
    cheat_member = 1
    sent: list[bytes] = []

    class Stale(RelayedLink):
        async def send(self, message: bytes) -> None:
            try:
                env = open_envelope(message, table_id=TABLE_ID, roster=None)
            except ProtocolError:
                await self.inner.send(message)
                return
            if env.hand == 1 and env.kind == "key" and not sent:
                stale = seal(
                    keys[cheat_member], table_id=TABLE_ID, hand=0, seq=99, seat=cheat_member,
                    prev=env.prev, kind="key", body={},
                ).wire  # fmt: skip
                sent.append(stale)
                message = stale
            await self.inner.send(message)

    game = await run_table(
        tmp_path,
        keys,
        lambda i, inner: (Stale if i == cheat_member else RelayedLink)(inner, i, honest),
        names="Q",  # a seat draw that moves member 1
    )
    cheat = game.seats[cheat_member].peer
    assert sent and cheat is not None and cheat.seating is not None
    assert cheat.seat == cheat.seating.index(cheat_member) != cheat_member  # a real test
    named = set()
    for i in (0, 2):
        outcome = game.seats[i].outcome
        assert outcome is not None and outcome.abort is not None
        assert (outcome.abort.kind, outcome.abort.attributed) == ("violation", True)
        named.add(outcome.abort.seat)
    assert named == {cheat.seat}


class Silent:
    """A player who never decides; notes when it was first asked."""

    def __init__(self) -> None:
        self.asked: float | None = None

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        if self.asked is None:
            self.asked = trio.current_time()
        await trio.sleep_forever()

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None


async def test_junk_and_duplicates_do_not_keep_a_silent_seat_alive(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """While a seat stays silent, the relay sends junk and old messages every 3 s: the
    others still claim it absent when the forfeit time, counted from the start of the
    wait, has passed, and score its abandon (a deadline that restarted on every arrival
    would never pass)."""
    players = 3
    keys = [identity("noise", i) for i in range(players)]
    hub = Hub(keys[0], TABLE_ID, SECRET)
    silent = Silent()
    policies: list[Policy] = [BotPolicy(0), silent, BotPolicy(2)]
    game = local_game(keys, policies, hub)
    seen: list[bytes] = []

    def plan(member: int, message: bytes, offered: int) -> list[tuple[float, bytes]]:
        seen.append(message)
        return [(0.0, message)]

    async def noise() -> None:
        link = hub.local_link()
        while True:
            await trio.sleep(3)
            await link.send(b"\x92\xc4\x00\xc4\x00")
            if seen:
                await link.send(seen[-1])  # a duplicate of the last message

    with trio.fail_after(20 * TIMEOUTS.decision):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(noise)
            async with trio.open_nursery() as table:
                for i in range(players):
                    link = RelayedLink(hub.local_link(), i, plan)
                    table.start_soon(sit, game, i, link, one_deal(players), tmp_path, TIMEOUTS)
                    await joined(hub, i + 1 if i else 0)
            nursery.cancel_scope.cancel()
    assert silent.asked is not None
    elapsed = trio.current_time() - silent.asked
    forfeit = one_deal(players).forfeit_after
    assert forfeit <= elapsed <= forfeit + TIMEOUTS.linger + 5  # then they wait for it a bit
    mute = game.seats[1].peer
    assert mute is not None and mute.seat is not None
    for i in (0, 2):
        outcome, peer = game.seats[i].outcome, game.seats[i].peer
        assert outcome is not None and outcome.abort is None and outcome.finished
        assert outcome.stats.ignored > 0
        assert peer is not None and peer.sheet is not None
        (line,) = peer.sheet.lines
        # The silent seat's hand is finished by its stand-in (table.md §3.2), not priced.
        assert line.kind is not LineKind.ABANDON and "played by the stand-in" in line.note


async def test_a_seat_whose_message_the_relay_swallowed_takes_the_abandon_without_blame(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """The relay swallows seat X's first bid, every copy, until the others have scored X's
    abandon: X, which holds its own bid at that slot, drops it and takes the abandon (the
    others never took the bid); all end with one transcript and nobody is blamed."""
    players = 3
    keys = [identity("swallow", i) for i in range(players)]
    victim_member = 2
    swallowed: list[bytes] = []

    class Swallowing(RelayedLink):
        async def send(self, message: bytes) -> None:
            try:
                env = open_envelope(message, table_id=TABLE_ID, roster=None)
            except ProtocolError:
                await self.inner.send(message)
                return
            if env.hand == 1 and env.kind == "action" and not swallowed:
                swallowed.append(message)
            await self.inner.send(message)

    def plan(member: int, message: bytes, offered: int) -> list[tuple[float, bytes]]:
        if swallowed and message == swallowed[0]:
            return []  # never delivered to anyone
        return [(0.0, message)]

    page = PageBot(victim_member)  # the bot's page: what its player would read
    game = await run_table(
        tmp_path,
        keys,
        lambda i, inner: (Swallowing if i == victim_member else RelayedLink)(inner, i, plan),
        policies={victim_member: page},
    )
    assert swallowed
    # Told as it is: the others' claims name a slot it sent, so its program says that its
    # messages are not getting through the hub, not that it was away; the score panel too.
    kinds = {notice.kind for notice in page.notices}
    assert {"unheard", "overtaken"} <= kinds
    result = json.loads(page.current()[1])["view"]["result"]
    assert result["stand_in"].startswith(
        "Your messages did not reach the others (lost at the hub: the host's program or the "
        "relay) for 5 min when it was your turn to bid"
    )
    victim = game.seats[victim_member].peer
    outcomes = [s.outcome for s in game.seats]
    assert all(o is not None and o.abort is None and o.finished for o in outcomes)
    final = outcomes[victim_member]
    assert final is not None and final.peer is not None and final.peer is not victim
    assert final.peer.sheet is not None
    (line,) = final.peer.sheet.lines
    # X's hand is finished by its stand-in (table.md §3.2): nobody blamed, no price.
    assert line.kind is not LineKind.ABANDON and "played by the stand-in" in line.note
    assert_agreement(game)
