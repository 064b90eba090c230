"""The kit's own seats: every seat but the implementation's, in one process, as real peers.

Why real :class:`~tarot_p2p.protocol.peer.Peer` objects: each kit seat checks every message
the implementation sends exactly as our peer does, so an implementation that signs
something the spec refuses is caught by the kit too, and the kit's honest messages are the
reference's. The seats share the process, so a message one of them sends is handed to the
others directly and to the hub for the implementation; what the implementation sends comes
back through the hub and is handed to every kit seat.

Their play is scripted and plain — the first legal card, the first legal discards, one
chosen bid — because a scenario needs the hand to reach its cheat quickly, not to win.
"""

from __future__ import annotations

from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto.randomness import SecretsRandom
from tarot_p2p.meet.lobby import Seating, join_request
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.table import Phase
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import cards_of
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.rules.state import Phase as EnginePhase

from . import cheats

NAMES = ("Alice", "Bruno", "Chloé", "David", "Emma")
"""The kit's players, by member (the implementation's place is skipped)."""


class KitSeats:
    """The kit's seats at one table: ``member`` is where the implementation sits in the
    roster (never 0: the kit hosts), ``request`` the join request it sent; ``host`` is the
    identity of the kit's host (member 0), which the hub shares."""

    def __init__(
        self,
        config: TableConfig,
        table_id: bytes,
        secret: bytes,
        member: int,
        request: bytes,
        host: Ed25519PrivateKey,
    ) -> None:
        if not 0 < member < config.seats:
            raise ValueError("the implementation sits after the kit's host")
        self.config = config
        self.member = member
        self.keys = {
            i: host if i == 0 else Ed25519PrivateKey.generate()
            for i in range(config.seats)
            if i != member
        }
        seating = Seating(config.seats, self.keys[0].public_key(), NAMES[0], secret)
        for i in range(1, config.seats):
            wire = (
                request if i == member else join_request(self.keys[i], NAMES[i], table_id, secret)
            )
            if seating.offer(wire, table_id, now=0.0) is None:
                raise ValueError("not a join request for this table")
        self.chooser: Callable[[Peer], bytes | None] | None = None
        """The kit's shuffle that fixes a deal, for the seat about to shuffle (``None``, or
        when it returns ``None``: an honest shuffle); set by the kit (``deals.py``)."""
        self.names = tuple(seating.names)
        self.peers = {
            i: Peer(
                config,
                table_id,
                seating.keys,
                seating.names,
                seat=i,
                identity=key,
                rng=SecretsRandom(),
            )
            for i, key in self.keys.items()
        }

    @property
    def ref(self) -> Peer:
        """The host's peer: the kit's view of the table."""
        return self.peers[0]

    def peer_at(self, sender: int) -> Peer | None:
        """The kit peer that signs as ``sender`` now; ``None``: the implementation."""
        return next((p for p in self.peers.values() if p.seat == sender), None)

    def iut_seat(self) -> int:
        """The implementation's index now: its member index in hand 0, its seat after."""
        seat = self.ref.seat_of_member(self.member)
        assert seat is not None
        return seat

    def others(self, peer: Peer) -> list[Peer]:
        """The kit's peers other than ``peer``, by member."""
        return [p for p in self.peers.values() if p is not peer]

    def key(self, peer: Peer) -> Ed25519PrivateKey:
        assert peer.member is not None
        return self.keys[peer.member]

    def deliver(self, wire: bytes, sender: Peer | None = None) -> None:
        """Hand ``wire`` to every kit peer but its ``sender`` (raises as
        :meth:`~tarot_p2p.protocol.peer.Peer.receive` does)."""
        for peer in self.peers.values():
            if peer is not sender:
                peer.receive(wire)

    def honest(self, peer: Peer, bid: Contract | None) -> bytes:
        """``peer``'s next message: the one the protocol dictates, or the kit's plain choice
        (the first kit bidder bids ``bid``, the others pass)."""
        if self.chooser is not None and (shuffle := self.chooser(peer)) is not None:
            return shuffle
        wire = peer.next_message()
        if wire is not None:
            return wire
        if peer.private_state() is None:  # it dropped its rules engine to cheat
            return self._blind(peer)
        if peer.hand.phase is Phase.ECART:
            state = peer.private_state()
            assert state is not None
            trial = state.clone()
            cards = 0
            for _ in range(chien_size(peer.config)):
                choice = trial.legal_actions()[0]
                trial.apply_action(choice)
                assert isinstance(choice, a.Discard)
                cards |= 1 << choice.card
            return peer.discard(cards)
        legal = peer.legal_actions()
        if a.PETIT_SEC in legal:
            return peer.act(a.PETIT_SEC)
        if any(isinstance(x, a.Bid) for x in legal):
            return peer.act(self._bid(peer, bid, legal))
        for kind in (a.Go, a.CallCard, a.Play):
            chosen = next((x for x in legal if isinstance(x, kind)), None)
            if chosen is not None:
                return peer.act(a.Go(False) if isinstance(chosen, a.Go) else chosen)
        return peer.act(legal[0])

    def _bid(self, peer: Peer, bid: Contract | None, legal: list[a.Action]) -> a.Action:
        kit = {p.seat for p in self.peers.values()}
        bid_already = any(
            s in kit and isinstance(x, a.Bid) and x.contract for s, x in peer.hand.history
        )
        want = a.BIDS[bid] if bid is not None and not bid_already else a.PASS
        return want if want in legal else a.PASS

    def _blind(self, peer: Peer) -> bytes:
        """A cheater without its rules engine: it goes on and plays its lowest card."""
        engine = peer.hand.engine
        assert engine is not None
        if engine.phase is EnginePhase.GO:
            return cheats.cheat_act(peer, a.Go(False))
        return cheats.cheat_play(peer, min(cards_of(peer.my_cards())))
