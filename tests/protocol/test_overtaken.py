"""The only message that may make a peer drop records: the others' abandon of it.

A seat that was silent holds its own message nobody took; the present seats' ``abandon``
for that slot overtakes it (``table.md`` §3.1). Anything else that claims to rewrite
earlier records — junk claims, another hand, records of other seats after the slot — is
its sender's fork, and drops nothing. The silent seat's messages that nobody took, when
they come after all, are nobody's fork either (``wire.md`` §4.3).
"""

from __future__ import annotations

import pytest

from tarot_p2p.protocol import forfeit
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.envelope import seal
from tarot_p2p.protocol.errors import SeatViolation, UnattributedMessage
from tarot_p2p.protocol.peer import Peer, Superseded
from tests.protocol.harness import Bot, Table, go_silent, step
from tests.protocol.test_abandon import at_first_bid, seq_of


def silent_sent(seed: bytes) -> tuple[Table, Peer, int]:
    """A table at hand 1's first bid whose expected sender made its bid, delivered to
    nobody: the peer holds its own message the others never saw."""
    table, absent = at_first_bid(seed)
    silent = table.peer_at(absent)
    Bot().choose(silent)
    assert len(silent.transcript) == len(table.observer.transcript) + 1
    return table, silent, absent


def abandon_of(
    table: Table, absent: int, claims: list[bytes] | None = None, sender: int | None = None
) -> bytes:
    """The present seats' abandon of ``absent`` at the observer's slot (claims made by
    each present seat unless ``claims`` is given), signed by the lowest present seat
    unless ``sender`` is given."""
    observer = table.observer
    seating = observer.seating
    assert seating is not None
    slot = forfeit.Slot(1, seq_of(observer), observer.transcript.head, absent)
    present = [s for s in range(table.config.seats) if s != absent]
    if claims is None:
        claims = [
            forfeit.sign_claim(table.key_of(1, s), observer.table_id, slot, seating[s]).signature
            for s in present
        ]
    body = m.dump_body(m.Abandon(absent, tuple(claims)))
    by = present[0] if sender is None else sender
    return seal(
        table.key_of(1, by), table_id=observer.table_id, hand=1, seq=slot.seq,
        seat=by, prev=slot.prev, kind="abandon", body=body,
    ).wire  # fmt: skip


def test_the_others_abandon_overtakes_the_message_nobody_took() -> None:
    table, silent, absent = silent_sent(b"overtaken ok")
    position = len(table.observer.transcript)
    with pytest.raises(Superseded) as info:
        silent.receive(abandon_of(table, absent))
    assert info.value.position == position
    assert str(info.value) == f"our message {position + 1} was overtaken by the others' abandon"
    rewound = silent.rewound(position)
    rewound.receive(info.value.wire)
    assert rewound.hand.abandoned == absent


def test_an_abandon_with_junk_claims_rewrites_nothing() -> None:
    """The forged abandon of issue 17: junk claims for the slot of our own message."""
    table, silent, absent = silent_sent(b"overtaken junk")
    held = len(silent.transcript)
    junk = [bytes(64)] * (table.config.seats - 1)
    wire = abandon_of(table, absent, junk)
    with pytest.raises(SeatViolation) as info:
        silent.receive(wire)
    assert not isinstance(info.value, Superseded)
    assert info.value.seat == min(s for s in range(table.config.seats) if s != absent)
    assert info.value.evidence == (wire,)
    assert len(silent.transcript) == held


def test_an_abandon_of_us_from_another_than_the_lowest_present_seat_rewrites_nothing() -> None:
    """Every claim, the right slot and history, but signed by a present seat that is not
    the one that sends an abandon: its sender's fork, and our message stays."""
    table, silent, absent = silent_sent(b"overtaken sender")
    held = len(silent.transcript)
    second = [s for s in range(table.config.seats) if s != absent][1]
    wire = abandon_of(table, absent, sender=second)
    with pytest.raises(SeatViolation) as info:
        silent.receive(wire)
    assert not isinstance(info.value, Superseded)
    assert info.value.seat == second and info.value.evidence[-1] == wire
    assert len(silent.transcript) == held


def test_a_bad_abandon_of_us_at_our_next_slot_is_its_senders_violation() -> None:
    """The silent seat had not spoken yet: a forged abandon of it, for the slot it was to
    fill, is the next message and refused as such; nothing of ours is looked for at that
    slot (the search for it must not fail)."""
    table, absent = at_first_bid(b"overtaken next")
    silent = table.peer_at(absent)
    held = len(silent.transcript)
    wire = abandon_of(table, absent, [bytes(64)] * (table.config.seats - 1))
    with pytest.raises(SeatViolation) as info:
        silent.receive(wire)
    assert not isinstance(info.value, Superseded)
    assert info.value.seat == min(s for s in range(table.config.seats) if s != absent)
    assert len(silent.transcript) == held


def test_an_abandon_of_a_slot_the_others_took_is_a_fork() -> None:
    """Our message reached the others and the game went on: an abandon for its slot, even
    with every claim, cannot overtake records that are not all ours."""
    table, silent, absent = silent_sent(b"overtaken late")
    wire = abandon_of(table, absent)  # signed while the others had not seen the bid
    bid = silent.transcript.digest_after(len(silent.transcript))
    assert bid == silent.transcript.head
    own = list(silent.transcript)[-1].wire
    for other in (*table.peers, table.observer):  # the bid reaches everybody after all
        if other is not silent:
            other.receive(own)
    nxt = table.peer_at(table.observer.expected_sender() or 0)
    follow = nxt.next_message() or Bot().choose(nxt)
    silent.receive(follow)
    with pytest.raises(SeatViolation) as info:
        silent.receive(wire)
    assert not isinstance(info.value, Superseded)


def test_the_silent_seats_messages_that_come_after_all_blame_nobody() -> None:
    """The withholding hub of issue 16, as a CI run met it: the hub held every message of
    the silent seat, two in a row (it had won a trick and led the next), and let them
    through once the others had scored its abandon and gone on. The first crosses the
    abandon at its slot; the second is built on the first, which nobody took. Neither is
    a fork: not at a present seat, nor at one that made no claim (the same program run
    again, or an observer), nor at the silent seat once it took the abandon. Before, the
    second was a fork of the silent seat everywhere, and the first one too wherever the
    claim was not remembered: an honest player named a cheat by the hub's doing."""
    table, silent, absent = silent_sent(b"overtaken twice")
    first = list(silent.transcript)[-1]
    second = seal(
        table.key_of(1, absent), table_id=first.table_id, hand=1, seq=first.seq + 1,
        seat=absent, prev=silent.transcript.head, kind=first.kind, body=first.body,
    ).wire  # fmt: skip
    start = len(table.wires)
    go_silent(table, absent)
    while table.observer.transcript.at((1, first.seq + 1)) is None:
        assert step(table, Bot())  # the release goes on without the silent seat
    again = [p.rewound(len(p.transcript)) for p in table.peers]  # no claim remembered
    for peer in (*table.peers, *again, table.observer):
        held = len(peer.transcript)
        assert peer.receive(first.wire) == []
        with pytest.raises(UnattributedMessage, match="a history we do not hold"):
            peer.receive(second)
        assert len(peer.transcript) == held

    abandon, *after = table.wires[start:]
    with pytest.raises(Superseded) as info:
        silent.receive(abandon)
    rewound = silent.rewound(info.value.position)
    for wire in (abandon, *after):
        rewound.receive(wire)
    assert rewound.receive(first.wire) == []
    with pytest.raises(UnattributedMessage):
        rewound.receive(second)


def test_a_message_for_a_filled_slot_on_our_history_is_still_a_fork() -> None:
    """What stays a fork: a seat's message for a slot another seat filled, built on the
    history we hold there (the silent seat's own message aside, when the abandon names
    it)."""
    table, silent, absent = silent_sent(b"overtaken fork")
    go_silent(table, absent)
    observer = table.observer
    abandon = list(observer.transcript)[-1]
    other = next(s for s in range(table.config.seats) if s not in (absent, abandon.seat))
    wire = seal(
        table.key_of(1, other), table_id=abandon.table_id, hand=1, seq=abandon.seq,
        seat=other, prev=abandon.prev, kind="action", body=list(silent.transcript)[-1].body,
    ).wire  # fmt: skip
    with pytest.raises(SeatViolation, match="fork: slot") as info:
        observer.receive(wire)
    assert info.value.seat == other


def test_a_claim_of_our_absence_at_a_slot_we_filled_is_known_for_what_it_is() -> None:
    """``sent_at``: a claim that we were silent at a slot where our transcript holds our
    own message, on the same history, tells us the hub is not passing our messages on
    (``wire.md`` §7.1); at any other slot, history or seat it is a claim like any other."""
    table, silent, absent = silent_sent(b"overtaken claimed")
    own = list(silent.transcript)[-1]
    assert own.seat == absent
    slot = forfeit.Slot(own.hand, own.seq, own.prev, absent)
    assert silent.sent_at(slot)
    other = next(s for s in range(table.config.seats) if s != absent)
    before = list(silent.transcript)[-2]
    for elsewhere in (
        forfeit.Slot(own.hand, own.seq, before.prev, absent),  # another history
        forfeit.Slot(own.hand, own.seq + 1, own.prev, absent),  # a slot not filled
        forfeit.Slot(before.hand, before.seq, before.prev, absent),  # another seat's slot
        forfeit.Slot(own.hand, own.seq, own.prev, other),  # another seat claimed absent
    ):
        assert before.seat != absent and not silent.sent_at(elsewhere), elsewhere
    assert not table.observer.sent_at(slot)  # an observer sends nothing
