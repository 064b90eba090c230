"""The abandon at the protocol level: claims of every other seat, checked by every peer.

A table wired in memory plays to hand 1, then its expected sender says nothing: the
``abandon`` message of the lowest other seat, with each other seat's signed claim for that
slot and history, ends the hand; anything less, or from anyone else, is that sender's
violation.
"""

from __future__ import annotations

import pytest

from tarot_p2p.protocol import forfeit
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.envelope import seal
from tarot_p2p.protocol.errors import SeatViolation
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.table import Phase
from tests.protocol.harness import Bot, Table, make_table, one_deal, step


def at_first_bid(seed: bytes) -> tuple[Table, int]:
    """A four-seat table whose expected sender is about to make its first bid of hand 1."""
    table = make_table(one_deal(4), seed=seed)
    while not (table.observer.hand.hand == 1 and table.observer.hand.phase is Phase.BIDDING):
        assert step(table, Bot())
    absent = table.observer.expected_sender()
    assert absent is not None
    return table, absent


def seq_of(peer: Peer) -> int:
    """The sequence number of the next message of the current hand."""
    return sum(e.hand == peer.hand.hand for e in peer.transcript)


def abandon_wire(table: Table, absent: int, sender: int, forge: int | None = None) -> bytes:
    observer = table.observer
    seating = observer.seating
    assert seating is not None
    slot = forfeit.Slot(1, seq_of(observer), observer.transcript.head, absent)
    claims = []
    for seat in range(4):
        if seat == absent:
            continue
        key = table.key_of(1, absent if seat == forge else seat)
        claims.append(forfeit.sign_claim(key, observer.table_id, slot, seating[seat]).signature)
    body = m.dump_body(m.Abandon(absent, tuple(claims)))
    return seal(
        table.key_of(1, sender), table_id=observer.table_id, hand=1, seq=slot.seq,
        seat=sender, prev=slot.prev, kind="abandon", body=body,
    ).wire  # fmt: skip


def fresh(table: Table) -> Peer:
    observer = Peer(
        table.config,
        table.observer.table_id,
        [k.public_key() for k in table.keys],
        list(table.observer.table.setup.names),
    )
    for wire in table.wires:
        observer.receive(wire)
    return observer


def test_every_other_seats_claim_opens_the_release_round() -> None:
    table, absent = at_first_bid(b"abandon ok")
    speaker = 0 if absent else 1
    observer = fresh(table)
    observer.receive(abandon_wire(table, absent, speaker))
    assert observer.hand.phase is Phase.RELEASE and observer.hand.abandoned == absent
    assert observer.expected_sender() == speaker  # the present seats release, in order
    assert observer.hand.present_speaker() is None  # no second abandon in this hand


@pytest.mark.parametrize("fault", ["forged claim", "wrong sender", "claim missing"])
def test_an_abandon_without_every_claim_is_its_senders_violation(fault: str) -> None:
    table, absent = at_first_bid(b"abandon bad")
    speaker = 0 if absent else 1
    other = next(s for s in range(4) if s not in (absent, speaker))
    if fault == "forged claim":
        wire, blamed = abandon_wire(table, absent, speaker, forge=other), speaker
    elif fault == "wrong sender":
        wire, blamed = abandon_wire(table, absent, other), other
    else:
        observer = table.observer
        slot = forfeit.Slot(1, seq_of(observer), observer.transcript.head, absent)
        seating = observer.seating
        assert seating is not None
        claims = (
            forfeit.sign_claim(
                table.key_of(1, speaker), observer.table_id, slot, seating[speaker]
            ).signature,
        ) * 2
        wire = seal(
            table.key_of(1, speaker), table_id=observer.table_id, hand=1, seq=slot.seq,
            seat=speaker, prev=slot.prev, kind="abandon",
            body=m.dump_body(m.Abandon(absent, claims)),
        ).wire  # fmt: skip
        blamed = speaker
    observer = fresh(table)
    with pytest.raises(SeatViolation) as info:
        observer.receive(wire)
    assert info.value.seat == blamed
    if fault == "forged claim":
        assert info.value.reason == f"abandon: seat {other}'s claim does not verify"
        assert info.value.evidence == (wire,)


def test_only_the_lowest_present_seat_with_every_claim_makes_the_abandon() -> None:
    """``forfeit_claim`` and ``abandon`` as a seat's program calls them. Nobody claims or
    abandons in hand 0 or once the game is over; the silent seat never claims itself
    absent; another present seat makes no abandon, even holding every claim; and the
    lowest present seat makes it from the others' claims and its own, kept when it made
    it (the hub does not send a seat its own claim back)."""
    table, absent = at_first_bid(b"abandon calls")
    before = make_table(one_deal(4), seed=b"abandon calls")
    assert all(p.forfeit_claim() is None and p.abandon() is None for p in before.peers)
    silent = table.peer_at(absent)
    assert silent.forfeit_claim() is None
    present = [p for p in table.peers if p is not silent]
    speaker = next(p for p in present if p.seat == table.observer.hand.present_speaker())
    claims = {p.seat: p.forfeit_claim() for p in present}
    other = next(p for p in present if p is not speaker)
    for seat, claim in claims.items():
        assert claim is not None
        if seat != other.seat:
            other.read_forfeit_claim(claim)
    assert other.abandon() is None, "every claim, but not the seat that sends the abandon"
    assert speaker.abandon() is None, "its own claim only"
    for seat, claim in claims.items():
        if seat != speaker.seat:
            assert claim is not None
            speaker.read_forfeit_claim(claim)
    wire = speaker.abandon()
    assert wire is not None
    for peer in (*present, table.observer):
        if peer is not speaker:
            assert peer.receive(wire) is not None  # taken, nobody blamed
    assert table.observer.hand.abandoned == absent
    table.peers = present
    while step(table, Bot()):
        pass
    assert table.observer.hand.phase is Phase.DONE
    assert all(p.forfeit_claim() is None and p.abandon() is None for p in present)
