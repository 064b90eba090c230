"""The only message that may make a peer drop records: the others' abandon of it.

A seat that was silent holds its own message nobody took; the present seats' ``abandon``
for that slot overtakes it (``table.md`` §3.1). Anything else that claims to rewrite
earlier records — junk claims, another hand, records of other seats after the slot — is
its sender's fork, and drops nothing.
"""

from __future__ import annotations

import pytest

from tarot_p2p.protocol import forfeit
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.envelope import seal
from tarot_p2p.protocol.errors import SeatViolation
from tarot_p2p.protocol.peer import Peer, Superseded
from tests.protocol.harness import Bot, Table
from tests.protocol.test_abandon import at_first_bid, seq_of


def silent_sent(seed: bytes) -> tuple[Table, Peer, int]:
    """A table at hand 1's first bid whose expected sender made its bid, delivered to
    nobody: the peer holds its own message the others never saw."""
    table, absent = at_first_bid(seed)
    silent = table.peer_at(absent)
    Bot().choose(silent)
    assert len(silent.transcript) == len(table.observer.transcript) + 1
    return table, silent, absent


def abandon_of(table: Table, absent: int, claims: list[bytes] | None = None) -> bytes:
    """The present seats' abandon of ``absent`` at the observer's slot (claims made by
    each present seat unless ``claims`` is given)."""
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
    return seal(
        table.key_of(1, present[0]), table_id=observer.table_id, hand=1, seq=slot.seq,
        seat=present[0], prev=slot.prev, kind="abandon", body=body,
    ).wire  # fmt: skip


def test_the_others_abandon_overtakes_the_message_nobody_took() -> None:
    table, silent, absent = silent_sent(b"overtaken ok")
    position = len(table.observer.transcript)
    with pytest.raises(Superseded) as info:
        silent.receive(abandon_of(table, absent))
    assert info.value.position == position
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
