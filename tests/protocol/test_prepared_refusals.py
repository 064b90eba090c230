"""The next hand's opening made ahead, one :class:`Preparation` at a time, at its edges.

Why a second file: ``test_prepared.py`` plays whole games, which shows that the opening
made ahead is the one the transcript takes, but takes seconds a game; these tests pin what
a mutation run of ``protocol/prepared.py`` found unguarded (``docs/mutation.md``), on a
hand machine of a three-seat table fed by hand with keys and escrows (no shuffle, no game):
where each message is taken (its slot, its base on the opening chain), what stops the
preparation (a message of another kind, on another history, that does not read or does not
verify), what is kept ahead and what is not, and which slot is ours.
"""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto.escrow import (
    Escrow,
    SealedPiece,
    escrow_context,
    make_escrow,
    make_escrow_key,
)
from tarot_p2p.crypto.group import ORDER, Scalar, point_to_bytes
from tarot_p2p.crypto.keys import key_context, make_key_share
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.envelope import SignedEnvelope, seal
from tarot_p2p.protocol.prepared import MADE, MAX_KEPT, Preparation
from tarot_p2p.protocol.table import HandMachine, Phase
from tarot_p2p.protocol.transcript import link_digest
from tarot_p2p.rules.config import GameEnd, TableConfig

CONFIG = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=3)
TABLE = hashlib.sha256(b"prepared refusals").digest()
HAND = 2
START = hashlib.sha256(b"the opening chain's start").digest()
IDENTITIES = [Ed25519PrivateKey.from_private_bytes(bytes([i + 7]) * 32) for i in range(3)]


def envelope(seat: int, seq: int, prev: bytes, kind: str, body: object) -> SignedEnvelope:
    return seal(
        IDENTITIES[seat],
        table_id=TABLE,
        hand=HAND,
        seq=seq,
        seat=seat,
        prev=prev,
        kind=kind,
        body=body,  # type: ignore[arg-type]
    )


def fresh() -> HandMachine:
    return HandMachine(CONFIG, TABLE, HAND, dealer=0)


def preparation() -> Preparation:
    return Preparation(fresh(), START)


def phase(prep: Preparation) -> Phase:
    return prep.machine.phase


class Opening:
    """The keys and escrows of hand ``HAND`` at a three-seat table, made as the seats
    would: seat ``s``'s key at slot ``s``, its escrow at slot ``3 + s``."""

    def __init__(self) -> None:
        rng = DeterministicRandom(b"prepared refusals")
        self.secrets: list[Scalar] = []
        self.escrow_secrets: list[Scalar] = []
        self.keys: list[SignedEnvelope] = []
        for seat in range(3):
            x, share = make_key_share(key_context(TABLE, HAND, seat), rng)
            e, escrow_key = make_escrow_key(rng)
            key = m.Key(point_to_bytes(share.y), share.proof.to_bytes(), point_to_bytes(escrow_key))
            self.secrets.append(x)
            self.escrow_secrets.append(e)
            self.keys.append(envelope(seat, seat, START, "key", m.dump_body(key)))
        machine = fresh()
        for env in self.keys:
            machine.apply(env.seat, m.load_body("key", env.body))
        self.after_keys = START
        for env in self.keys:
            self.after_keys = link_digest(self.after_keys, env.payload)
        self.escrows = []
        for seat in range(3):
            ctx = escrow_context(TABLE, HAND, seat)
            escrow = make_escrow(self.secrets[seat], ctx, machine.escrow_keys, rng)
            body = m.dump_body(m.Escrow(escrow.to_bytes()))
            self.escrows.append(envelope(seat, 3 + seat, self.after_keys, "escrow", body))
        # Seat 1's escrow again, its piece for seat 0 sealed wrong: its commitments add up,
        # only seat 0 can tell (crypto.md §10.5).
        honest = make_escrow(
            self.secrets[1], escrow_context(TABLE, HAND, 1), machine.escrow_keys, rng
        )
        first = honest.pieces[0]
        pieces = (SealedPiece(first.commitment, (first.sealed + 1) % ORDER), *honest.pieces[1:])
        self.badly_sealed = m.Escrow(Escrow(honest.r, pieces).to_bytes())


OPENING = Opening()


def test_the_keys_then_the_escrows_are_taken_each_on_its_rounds_base() -> None:
    prep = preparation()
    assert prep.hand == HAND and prep.going and prep.base == START and prep.taken == {}
    for env in OPENING.keys:
        assert prep.base == START  # every key is built on the round's base
        prep.keep(env)
        assert prep.take_next({}) is True
    assert phase(prep) is Phase.ESCROW and prep.base == OPENING.after_keys
    for env in OPENING.escrows:
        assert prep.take_next({env.seq: env}) is True  # our own, this time
    assert prep.taken == {e.seq: e for e in OPENING.keys + OPENING.escrows}
    # The shuffles are one after the other: each on the chain's point before its slot.
    assert phase(prep) is Phase.SHUFFLE and prep.machine.round_seqs is None
    after = OPENING.after_keys
    for env in OPENING.escrows:
        after = link_digest(after, env.payload)
    assert prep.base == after and prep.going
    assert prep.take_next({}) is False  # nothing held for slot 6


def test_a_message_is_taken_only_in_its_slot() -> None:
    prep = preparation()
    prep.keep(OPENING.keys[1])
    assert prep.take_next({}) is False and not prep.stopped  # slot 0 first
    assert prep.take_next({0: OPENING.keys[0]}) is True
    assert prep.take_next({}) is True  # the kept one, now in its slot
    assert prep.machine.count == 2 and prep.taken[1] == OPENING.keys[1]


def test_what_is_not_kept_ahead() -> None:
    prep = preparation()
    prep.take_next({0: OPENING.keys[0]})
    # A message of another hand, or of a slot already taken: not kept.
    other_hand = seal(
        IDENTITIES[1],
        table_id=TABLE,
        hand=HAND + 1,
        seq=1,
        seat=1,
        prev=START,
        kind="key",
        body=OPENING.keys[1].body,
    )
    prep.keep(other_hand)
    assert prep.take_next({}) is False and not prep.stopped
    prep.keep(OPENING.keys[0])
    assert prep.take_next({}) is False and not prep.stopped
    # The first version of a slot is kept; a second is the transcript's to judge.
    second = envelope(1, 1, START, "key", {**OPENING.keys[1].body, "pok": bytes(64)})
    prep.keep(OPENING.keys[1])
    prep.keep(second)
    assert prep.take_next({}) is True and prep.taken[1] == OPENING.keys[1]


def test_at_most_max_kept_messages_wait_ahead() -> None:
    for noise, kept in ((MAX_KEPT - 1, True), (MAX_KEPT, False)):
        prep = preparation()
        for seq in range(100, 100 + noise):
            prep.keep(envelope(2, seq, START, "key", {}))
        prep.keep(OPENING.keys[0])
        assert prep.take_next({}) is kept


def test_a_message_of_another_kind_or_history_or_that_does_not_verify_stops_it() -> None:
    key = OPENING.keys[0]
    wrong = {
        "kind": envelope(0, 0, START, "complaint", key.body),
        "history": envelope(0, 0, link_digest(START, b""), "key", key.body),
        "schema": envelope(0, 0, START, "key", {"y": key.body["y"]}),
        "proof": envelope(0, 0, START, "key", {**key.body, "pok": bytes(64)}),
        "seat": envelope(1, 0, START, "key", OPENING.keys[1].body),
    }
    assert "complaint" not in MADE
    for why, env in wrong.items():
        prep = preparation()
        prep.keep(env)
        assert prep.take_next({}) is False, why
        assert prep.stopped and not prep.going, why
        assert prep.machine.count == 0 and prep.taken == {}, why
        assert prep.take_next({0: key}) is False, why  # stopped: nothing more is taken
        assert prep.our_slot(0, {}) is None, why


def test_our_slot_in_a_round_and_in_turn() -> None:
    prep = preparation()
    assert [prep.our_slot(seat, {}) for seat in range(3)] == [0, 1, 2]
    assert prep.our_slot(1, {1: OPENING.keys[1]}) is None  # made already
    prep.take_next({0: OPENING.keys[0]})
    assert [prep.our_slot(seat, {}) for seat in range(3)] == [None, 1, 2]
    prep.take_next({1: OPENING.keys[1]})
    prep.take_next({2: OPENING.keys[2]})
    assert [prep.our_slot(seat, {}) for seat in range(3)] == [3, 4, 5]
    for env in OPENING.escrows:
        prep.take_next({env.seq: env})
    shuffler = prep.machine.expected_sender()
    assert shuffler is not None
    assert [prep.our_slot(seat, {}) for seat in range(3)] == [
        6 if seat == shuffler else None for seat in range(3)
    ]
    assert prep.our_slot(shuffler, {6: OPENING.keys[0]}) is None
    prep.stopped = True
    assert prep.our_slot(shuffler, {}) is None


def test_nothing_moves_once_the_opening_is_over() -> None:
    prep = preparation()
    prep.machine.phase = Phase.DEAL  # what the last shuffle leads to
    assert not prep.going and not prep.stopped
    assert prep.take_next({0: OPENING.keys[0]}) is False and prep.taken == {}
    assert prep.our_slot(0, {}) is None
