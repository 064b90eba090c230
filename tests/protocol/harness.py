"""In-memory tables for the protocol tests: N peers and an observer wired by a plain loop.

Why a loop and no sockets: the protocol layer is sans-IO, so the whole game is "ask the
expected sender for its next message, hand the bytes to everybody else". The bots are
deterministic (seeded) so a failing game can be replayed exactly.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.conformance.cheats import cheat_play
from tarot_p2p.crypto.elgamal import Ciphertext
from tarot_p2p.crypto.group import point_to_bytes, scalar_from_bytes
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shares import prove_shares
from tarot_p2p.protocol.codec import decode
from tarot_p2p.protocol.envelope import SignedEnvelope, open_envelope, seal
from tarot_p2p.protocol.messages import Ecart, dump_body, load_body
from tarot_p2p.protocol.peer import Peer, PeerEvent
from tarot_p2p.protocol.table import Phase
from tarot_p2p.protocol.transcript import TranscriptGap
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import EXCUSE, PETIT, cards_of, parse_card
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.deal import CHIEN, chien_size, deal_pattern
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.rules.state import Phase as EnginePhase

Tamper = Callable[[int, bytes], bytes]
"""Called with (sender seat, wire bytes) for every message; returns what is delivered."""


@dataclass
class Table:
    """``keys``, ``rngs``, ``peers`` and ``events`` are by member (roster index);
    ``events[-1]`` is the observer's."""

    config: TableConfig
    keys: list[Ed25519PrivateKey]
    rngs: list[DeterministicRandom]
    peers: list[Peer]
    observer: Peer
    wires: list[bytes] = field(default_factory=list)
    events: list[list[PeerEvent]] = field(default_factory=list)

    def peer_at(self, seat: int) -> Peer:
        """The peer that sends as ``seat`` now (its member index in hand 0)."""
        return next(p for p in self.peers if p.seat == seat)

    def key_of(self, hand: int, seat: int) -> Ed25519PrivateKey:
        """The identity key of the sender numbered ``seat`` in ``hand``."""
        seating = self.observer.seating
        if hand == 0 or seating is None:
            return self.keys[seat]
        return self.keys[seating[seat]]


def make_table(config: TableConfig, seed: bytes = b"t", names: list[str] | None = None) -> Table:
    """A table of ``config`` with fixed keys and randomness from ``seed``; its members are
    named ``names`` (``P0``, ``P1``... unless told)."""
    keys = [
        Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed + bytes([i])).digest())
        for i in range(config.seats)
    ]
    roster = [k.public_key() for k in keys]
    table_id = hashlib.sha256(b"table" + seed).digest()
    names = names or [f"P{i}" for i in range(config.seats)]
    rngs = [DeterministicRandom(seed + b"rng" + bytes([i])) for i in range(config.seats)]
    peers = [
        Peer(config, table_id, roster, names, seat=i, identity=keys[i], rng=rngs[i])
        for i in range(config.seats)
    ]
    observer = Peer(config, table_id, roster, names)
    events: list[list[PeerEvent]] = [[] for _ in range(config.seats + 1)]
    return Table(config, keys, rngs, peers, observer, events=events)


@dataclass
class Bot:
    """A simple player: the first speaker bids ``contract`` (0: everybody passes)."""

    contract: int = 2
    seed: int = 0
    poignee: bool = False

    def choose(self, peer: Peer) -> bytes:
        rng = random.Random(f"{self.seed}/{peer.seat}/{len(peer.transcript)}")
        if peer.hand.phase is Phase.ECART:
            legal = [x for x in peer.legal_actions() if isinstance(x, a.Discard)]
            size = chien_size(peer.config)
            chosen = 0
            for d in legal[:size]:
                chosen |= 1 << d.card
            return peer.discard(chosen)
        legal = peer.legal_actions()
        assert legal, f"seat {peer.seat} has no legal action in {peer.hand.phase}"
        if legal == [a.PETIT_SEC]:
            return peer.act(a.PETIT_SEC)
        if isinstance(legal[0], a.Bid):
            engine = peer.private_state()
            assert engine is not None
            first = not any(isinstance(x, a.Bid) and x.contract for x in engine.history())
            want = a.BIDS[self.contract] if first and self.contract else a.PASS
            return peer.act(want if want in legal else a.PASS)
        if isinstance(legal[0], a.Go):
            return peer.act(a.Go(False))
        poignees = [x for x in legal if isinstance(x, a.Poignee)]
        if self.poignee and poignees:
            return peer.act(poignees[0])
        plays = [x for x in legal if isinstance(x, a.Play | a.CallCard)]
        return peer.act(rng.choice(plays))


def step(table: Table, bot: Bot, tamper: Tamper | None = None) -> bool:
    """One message from the expected sender to everybody; False once the game is over."""
    sender = table.peers[0].expected_sender()
    if sender is None:
        return False
    peer = table.peer_at(sender)
    wire = peer.next_message()
    if wire is None:
        wire = bot.choose(peer)
    table.wires.append(wire)
    table.events[peer.member or 0].extend(peer.own_events)
    delivered = tamper(sender, wire) if tamper else wire
    for other in (*table.peers, table.observer):
        if other is not peer:
            events = other.receive(delivered)
            table.events[other.member if other.member is not None else -1].extend(events)
    return True


def until_poignee(table: Table, bot: Bot) -> tuple[Peer, list[a.Poignee]]:
    """Play on until the expected sender may show a poignée: that seat, and the poignées
    its ``legal_actions`` list."""
    while True:
        sender = table.observer.expected_sender()
        assert sender is not None, "the deal must give a poignée"
        peer = table.peer_at(sender)
        offers = [x for x in peer.legal_actions() if isinstance(x, a.Poignee)]
        if offers:
            return peer, offers
        assert step(table, bot)


def play_game(table: Table, bot: Bot, tamper: Tamper | None = None) -> None:
    while step(table, bot, tamper):
        pass


def play_with_a_revoke() -> tuple[Table, Peer | None]:
    """A four-seat garde in which the first player who can play an illegal card does,
    and from then on plays his lowest card whatever the rules say; returns the table and
    that cheater (``None`` if the seeds had never given anyone the chance)."""
    table = make_table(one_deal(4), seed=b"revoke")
    bot = Bot(contract=Contract.GARDE, seed=5)
    cheater: Peer | None = None
    while (sender := table.observer.expected_sender()) is not None:
        peer = table.peer_at(sender)
        wire = peer.next_message()
        if wire is None and peer is cheater:
            wire = cheat_play(peer, min(cards_of(peer.my_cards())))
        elif wire is None and cheater is None and peer.hand.phase is Phase.PLAY:
            private = peer.private_state()
            assert private is not None
            if private.phase is EnginePhase.PLAY:
                illegal = peer.my_cards() & ~private.legal_play_mask()
                if illegal:
                    cheater = peer
                    wire = cheat_play(peer, min(cards_of(illegal)))
        if wire is None:
            wire = bot.choose(peer)
        table.wires.append(wire)
        for other in (*table.peers, table.observer):
            if other is not peer:
                other.receive(wire)
    return table, cheater


def one_deal(players: int, **options: object) -> TableConfig:
    return TableConfig(players=players, game_end=GameEnd.DEALS, game_length=1, **options)  # type: ignore[arg-type]


class RiggedRandom(DeterministicRandom):
    """A seeded source whose 78-card permutations (the deals' shuffles: the seat draw's
    deck is shorter) come from ``rig()``: with every shuffler rigged (the others to the
    identity), a test chooses the deal. It shows the other side of the model too: one
    honest shuffler is enough."""

    def __init__(self, seed: bytes, rig: Callable[[], list[int]]) -> None:
        super().__init__(seed)
        self._rig = rig

    def permutation(self, n: int) -> list[int]:
        if n != 78:
            return super().permutation(n)
        return self._rig()


def rig_deal(table: Table, deck_for: Callable[[int], list[int]]) -> None:
    """Make hand 1 deal ``deck_for(dealer)`` (the card at each dealt-deck position)."""

    def chosen() -> list[int]:
        return deck_for(table.observer.hand.dealer)

    def identity() -> list[int]:
        return list(range(78))

    for i, peer in enumerate(table.peers):
        table.rngs[i] = RiggedRandom(b"rigged" + bytes([i]), chosen if i == 0 else identity)
        peer._rng = table.rngs[i]


def rig_trumps_to_discard(table: Table) -> None:
    """Make hand 1 of a four-seat ``table`` a deal whose first speaker, once he takes a
    garde, must discard six trumps: he holds the four kings and the trumps 2 to 15, the
    chien holds the trumps 16 to 21 (the next seat holds the Petit and the Excuse: no
    petit sec)."""
    kings = [parse_card(f"K{s}") for s in "SHDC"]
    trumps = [parse_card(f"T{n}") for n in range(2, 16)]
    chien = [parse_card(f"T{n}") for n in range(16, 22)]
    plain = [c for c in range(56) if c not in kings]

    def deck_for(dealer: int) -> list[int]:
        taker, other = (dealer + 1) % 4, (dealer + 2) % 4
        sources = {
            taker: iter(kings + trumps),
            CHIEN: iter(chien),
            other: iter([PETIT, EXCUSE, *plain[:16]]),
        }
        rest = iter(plain[16:])
        pattern = deal_pattern(table.config, dealer)
        return [next(sources[d]) if d in sources else next(rest) for d in pattern]

    rig_deal(table, deck_for)


def claim_and_abandon(table: Table, sender: int) -> bytes:
    """Every seat but ``sender`` claims it absent, and the lowest of them makes the
    ``abandon`` (``table.md`` §3.1), delivered to nobody yet."""
    present = [p for p in table.peers if p.seat != sender]
    speaker = next(p for p in present if p.seat == table.observer.hand.present_speaker())
    for p in present:
        claim = p.forfeit_claim()
        assert claim is not None
        if p is not speaker:  # as the hub does: nobody is sent his own claim back
            speaker.read_forfeit_claim(claim)
    wire = speaker.abandon()
    assert wire is not None
    return wire


def go_silent(table: Table, sender: int) -> Peer:
    """Seat ``sender`` stays silent: every other seat claims it absent, the lowest of them
    sends the ``abandon`` (``table.md`` §3.1); the silent peer is returned (it gets nothing
    more: callers leave it out of the table's peers)."""
    silent = table.peer_at(sender)
    present = [p for p in table.peers if p is not silent]
    speaker = next(p for p in present if p.seat == table.observer.hand.present_speaker())
    wire = claim_and_abandon(table, sender)
    table.wires.append(wire)
    for other in (*present, table.observer):
        if other is not speaker:
            other.receive(wire)
    table.peers = present
    return silent


def deliver(receiver: Peer, inbox: list[bytes], kept: type[TranscriptGap] = TranscriptGap) -> int:
    """Apply what ``receiver`` can of ``inbox`` (in any order), keeping what it refuses as
    ``kept`` (early, or built on an early one: ``wire.md`` §4.3) for a later pass; returns
    how many times a kept message was met on the way."""
    met = 0
    progress = True
    while progress:
        progress = False
        for wire in list(inbox):
            try:
                receiver.receive(wire)
            except kept:
                met += 1
                continue
            inbox.remove(wire)
            progress = True
    return met


def honest_ecart(table: Table) -> tuple[Peer, SignedEnvelope, Ecart]:
    """Play ``table`` to its écart (a garde), and make the taker's écart of the first
    cards it may put aside: the taker, and the message (not delivered yet), signed and
    read back."""
    bot = Bot(contract=Contract.GARDE, seed=11)
    while table.peers[0].hand.phase is not Phase.ECART:
        step(table, bot)
    hand = table.peers[0].hand
    taker_seat = hand.expected_sender()
    assert taker_seat is not None
    taker = table.peer_at(taker_seat)
    legal = [x.card for x in taker.legal_actions() if isinstance(x, a.Discard)]
    chosen = 0
    for c in legal[: chien_size(table.config)]:
        chosen |= 1 << c
    honest = taker.discard(chosen)
    roster = {taker_seat: table.key_of(hand.hand, taker_seat).public_key()}
    env = open_envelope(honest, table_id=taker.table_id, roster=roster)
    msg = load_body("ecart", env.body)
    assert isinstance(msg, Ecart)
    return taker, env, msg


def lying_ecart(table: Table) -> tuple[Peer, bytes]:
    """Play ``table`` (seeded so that the taker's écart holds a non-trump) to its écart, and
    forge it: one of the taker's discarded non-trumps is "shown" as a trump, with the right
    decryption share (he knows his key), so only its opening can expose it. The taker and
    the forged message, not delivered yet."""
    taker, env, msg = honest_ecart(table)
    hand, taker_seat = taker.hand, env.seat
    taker_key = table.key_of(hand.hand, taker_seat)
    liar = next((j for j in msg.discard if j not in msg.trumps), None)  # trumps are shown
    assert liar is not None, "the seed must give an écart with a non-trump"
    trumps = tuple(sorted({*msg.trumps, liar}))
    x = scalar_from_bytes(decode(taker.export_secrets())["x"])  # type: ignore[index, arg-type]
    shown = [Ciphertext.from_bytes(msg.deck[66 * j : 66 * (j + 1)]) for j in trumps]
    ctx = hand.context("ecart", taker_seat)
    shares, proof = prove_shares(x, shown, ctx, DeterministicRandom(b"forger"))
    forged = dataclasses.replace(
        msg,
        trumps=trumps,
        d=b"".join(point_to_bytes(p) for p in shares),
        dproof=proof.to_bytes(),
    )
    wire = seal(
        taker_key,
        table_id=env.table_id,
        hand=env.hand,
        seq=env.seq,
        seat=taker_seat,
        prev=env.prev,
        kind="ecart",
        body=dump_body(forged),
    ).wire
    return taker, wire
