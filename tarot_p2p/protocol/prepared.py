"""The next hand's opening, made while this hand is played (``table.md`` §1.5, §1.6).

Why: between two deals every seat used to wait for the next deal's keys, escrows and
shuffles, each shuffle proven by one seat and checked by the others in turn, before a card
showed. None of it depends on the hand being played but the seats, so it is built on the
next hand's opening chain and each seat makes its part as soon as it may, while the player
thinks: when the hand ends, the next one's opening is already there and only the deal is
left.

A :class:`Preparation` is one seat's copy of the next hand's opening as far as it has
gone: a :class:`~.table.HandMachine` of that hand fed, in slot order, with the messages the
others made early and with ours. It blames nobody: a message refused here stops the
preparation, and is refused (and blamed) again when its slot comes in the transcript, on
the usual path. What it is for is deciding our own messages before their time and checking
the others' proofs ahead (the process's memory of verified proofs makes the second pass
cheap). It makes keys, escrows and shuffles only: a complaint, an abandon or a release is
made when the hand is under way, as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.codec import SchemaError
from tarot_p2p.protocol.envelope import SignedEnvelope
from tarot_p2p.protocol.table import OPENING, HandMachine, Violation
from tarot_p2p.protocol.transcript import link_digest

MADE: Final = ("key", "escrow", "shuffle")
"""What is made and taken ahead. An abandon is not: its claims are checked on the hand's
own course, and nothing of ours may rest on one that was not."""

MAX_KEPT = 64
"""Messages of the next hand kept ahead of their slot: an opening has at most three a
seat (key, escrow, shuffle) and five seats; more is someone's noise."""


class Preparation:
    """Our copy of hand ``machine.hand``'s opening, on its opening chain from ``start``."""

    def __init__(self, machine: HandMachine, start: bytes) -> None:
        self.machine = machine
        self.hand = machine.hand
        self._chain = [start]
        self._others: dict[int, SignedEnvelope] = {}
        self.taken: dict[int, SignedEnvelope] = {}
        """The messages applied here, by sequence number: what our own were built on (a
        seat that shows the transcript another version of one is caught by it)."""
        self.stopped = False
        """A message was refused here, or ours needs the hand under way (a complaint):
        nothing more is made ahead; the hand's own course takes over."""

    @property
    def going(self) -> bool:
        """Whether our copy may still move: in the opening, and not stopped."""
        return not self.stopped and self.machine.phase in OPENING

    @property
    def base(self) -> bytes:
        """What the next slot's message carries as ``d``: the point of the opening chain
        before its round (``wire.md`` §4.2)."""
        seqs = self.machine.round_seqs
        return self._chain[self.machine.count if seqs is None else seqs.start]

    def keep(self, env: SignedEnvelope) -> None:
        """Another seat's message of this hand, received early: taken when its slot comes
        (the first one for a slot; a second version is the transcript's to judge)."""
        if env.hand != self.hand or env.seq < self.machine.count or env.seq in self._others:
            return
        if len(self._others) < MAX_KEPT:
            self._others[env.seq] = env

    def take_next(self, own: Mapping[int, SignedEnvelope]) -> bool:
        """Apply the message of the next slot if we hold it, the others' or ``own`` (ours,
        by sequence number); whether one was applied."""
        if not self.going:
            return False
        seq = self.machine.count
        env = self._others.pop(seq, None) or own.get(seq)
        if env is None:
            return False
        if env.kind not in MADE or env.prev != self.base:
            self.stopped = True  # built on another history: the transcript will say whose
            return False
        try:
            self.machine.apply(env.seat, m.load_body(env.kind, env.body))
        except (SchemaError, Violation):
            self.stopped = True
            return False
        self._chain.append(link_digest(self._chain[-1], env.payload))
        self.taken[seq] = env
        return True

    def our_slot(self, seat: int, own: Mapping[int, SignedEnvelope]) -> int | None:
        """The sequence number our next message of the opening would take now (``None``:
        none is due, or it is made already)."""
        if not self.going:
            return None
        machine = self.machine
        if machine.round_seqs is None:
            seq = machine.count if machine.expected_sender() == seat else None
        else:
            ahead = machine.round_position(seat)
            seq = None if ahead is None else machine.count + ahead
        return None if seq is None or seq in own else seq
