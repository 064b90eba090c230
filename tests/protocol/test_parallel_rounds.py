"""Parallel rounds (``table.md`` §1.4): every contributor makes its message as the round
opens, on the round's base, and the receivers fill the slots in order whatever order the
messages come in."""

from __future__ import annotations

import pytest

from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.codec import decode, encode
from tarot_p2p.protocol.envelope import open_envelope, seal
from tarot_p2p.protocol.errors import SeatViolation
from tarot_p2p.protocol.peer import Peer, Superseded
from tarot_p2p.protocol.table import PARALLEL, Phase, Violation
from tarot_p2p.protocol.transcript import EarlyInRound, TranscriptGap, file_header, file_record
from tarot_p2p.rules.scoring import Contract
from tests.protocol.harness import (
    Bot,
    Table,
    claim_and_abandon,
    deliver,
    make_table,
    one_deal,
    step,
)

BOT = Bot(contract=Contract.GARDE, seed=3)


def play_all_at_once(table: Table, reverse: bool) -> int:
    """Play the game with every seat sending whatever it may send now, all at once, the
    messages handed to the others in seat order or in reverse; returns the early count."""
    receivers = [*table.peers, table.observer]
    inbox: dict[int, list[bytes]] = {id(r): [] for r in receivers}
    early = 0
    while table.observer.expected_sender() is not None:
        outgoing = []
        for peer in table.peers:
            if peer.my_turn():
                wire = peer.next_message()
                outgoing.append((peer, wire if wire is not None else BOT.choose(peer)))
        assert outgoing, "nobody may speak, yet the hand is not over"
        outgoing.sort(key=lambda sent: sent[0].seat or 0, reverse=reverse)
        for sender, wire in outgoing:
            table.wires.append(wire)
            for r in receivers:
                if r is not sender:
                    inbox[id(r)].append(wire)
        for r in receivers:
            early += deliver(r, inbox[id(r)], EarlyInRound)
    assert all(not box for box in inbox.values())
    return early


def records(peer: Peer) -> list[bytes]:
    return [e.wire for e in peer.transcript]


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_round_messages_sent_at_once_in_any_order_give_one_transcript(seats: int) -> None:
    table = make_table(one_deal(seats), seed=b"parallel%d" % seats)
    early = play_all_at_once(table, reverse=True)
    assert early > 0, "the later seats' messages came first and waited"
    reference = records(table.observer)
    assert all(records(p) == reference for p in table.peers)
    assert table.observer.sheet is not None and len(table.observer.sheet.lines) == 1
    # Every message of a round carries the round's base: hand 1's four keys, one digest.
    keys = [e for e in table.observer.transcript if e.hand == 1 and e.kind == "key"]
    assert len(keys) == seats and len({e.prev for e in keys}) == 1
    scores = [e for e in table.observer.transcript if e.hand == 1 and e.kind == "score"]
    assert len({e.prev for e in scores}) == 1


def test_in_seat_order_nothing_comes_early_and_the_transcript_is_the_same() -> None:
    """The order of delivery changes nothing: the same seeds give the same records."""
    one, other = make_table(one_deal(4), seed=b"same"), make_table(one_deal(4), seed=b"same")
    assert play_all_at_once(one, reverse=False) == 0
    play_all_at_once(other, reverse=True)
    assert records(one.observer) == records(other.observer)


def _at_round(table: Table, phase: Phase) -> None:
    while not (table.observer.hand.hand == 1 and table.observer.hand.phase is phase):
        step(table, BOT)


def test_a_round_message_built_on_the_head_instead_of_the_base_is_a_fork() -> None:
    table = make_table(one_deal(4), seed=b"fork")
    _at_round(table, Phase.KEYS)
    for _ in range(2):  # seats 0 and 1 send their keys
        step(table, BOT)
    third = table.peer_at(2)
    honest = open_envelope(third.next_message() or b"", table_id=third.table_id, roster=None)
    wrong = seal(
        table.keys[table.observer.seating[2]],  # type: ignore[index]
        table_id=third.table_id,
        hand=1,
        seq=honest.seq,
        seat=2,
        prev=table.observer.transcript.head,  # the head, not the round's base
        kind="key",
        body=honest.body,
    )
    with pytest.raises(SeatViolation, match="fork") as fork:
        table.observer.receive(wrong.wire)
    assert fork.value.seat == 2
    assert honest.prev == table.observer.transcript.expected_prev != table.observer.transcript.head


def test_a_message_for_a_later_slot_of_the_round_waits_and_is_blamed_on_nobody() -> None:
    table = make_table(one_deal(4), seed=b"early")
    _at_round(table, Phase.DEAL)
    last = table.peer_at(3).next_message()
    assert last is not None and table.peer_at(3).pending == (last,)
    with pytest.raises(EarlyInRound):
        table.observer.receive(last)
    for _ in range(3):  # seats 0, 1, 2
        step(table, BOT)
    table.observer.receive(last)  # now it fits
    assert table.observer.hand.phase is Phase.BIDDING


def test_every_parallel_phase_is_a_round_of_independent_messages() -> None:
    """The set-up has one sender and each shuffle takes the previous one's output."""
    assert Phase.SETUP not in PARALLEL and Phase.SHUFFLE not in PARALLEL
    assert {Phase.KEYS, Phase.ESCROW, Phase.DEAL, Phase.SCORE, Phase.RELEASE} <= PARALLEL


def test_silent_in_a_round_of_shares_the_round_ends_before_its_key_is_released() -> None:
    """Seats 1-3 sent their deal shares at once; seat 0 is silent. The abandon takes seat
    0's slot, the others' shares fill theirs, then the RELEASE round, then the bidding."""
    table = make_table(one_deal(4), seed=b"silent-deal")
    _at_round(table, Phase.DEAL)
    later = [table.peer_at(s).next_message() for s in (1, 2, 3)]
    silent = table.peer_at(0)
    others = [p for p in table.peers if p is not silent]
    for peer in (*others, table.observer):
        for wire in later:
            if wire is not None and peer.pending != (wire,):
                with pytest.raises(TranscriptGap):
                    peer.receive(wire)
    abandon = claim_and_abandon(table, 0)
    speaker = next(p for p in others if p.seat == 1)
    for peer in (*others, table.observer):
        if peer is not speaker:
            peer.receive(abandon)
        inbox = [wire for wire in later if wire is not None]
        deliver(peer, inbox, EarlyInRound)
        assert not inbox
    hand = table.observer.hand
    assert hand.phase is Phase.RELEASE and hand.abandoned == 0 and hand.abandoned_in is Phase.DEAL
    kinds = [e.kind for e in table.observer.transcript if e.hand == 1][-4:]
    assert kinds == ["abandon", "shares", "shares", "shares"]
    table.peers = others
    while table.observer.hand.phase is Phase.RELEASE:
        step(table, BOT)
    assert table.observer.hand.phase is Phase.BIDDING
    assert all(p.dealt is not None for p in others)


def test_the_silent_seat_takes_the_abandon_and_keeps_the_others_round_messages() -> None:
    """The silent seat had taken its own deal shares, then the later seats' (its message
    never reached them): the abandon of it overtakes its message, and the others' shares,
    made on the round's base, are taken again after the abandon."""
    table = make_table(one_deal(4), seed=b"overtaken")
    _at_round(table, Phase.DEAL)
    silent = table.peer_at(0)
    own = silent.next_message()  # taken by seat 0 alone
    assert own is not None and len(silent.transcript) == len(table.observer.transcript) + 1
    later = [table.peer_at(s).next_message() for s in (1, 2, 3)]
    for wire in later:
        assert wire is not None
        silent.receive(wire)
    count = len(table.observer.transcript)
    assert len(silent.transcript) == count + 4
    others = [p for p in table.peers if p is not silent]
    abandon = claim_and_abandon(table, 0)
    for peer in (*others, table.observer):
        if peer.seat != 1:
            peer.receive(abandon)
        inbox = [wire for wire in later if wire is not None]
        deliver(peer, inbox, EarlyInRound)
        assert not inbox
    with pytest.raises(Superseded) as superseded:
        silent.receive(abandon)
    assert superseded.value.position == count
    rewound = silent.rewound(count)
    rewound.receive(abandon)
    for wire in later:
        rewound.receive(wire)
    assert records(rewound) == records(table.observer)


def test_a_resumed_seat_sends_its_round_message_again_byte_for_byte() -> None:
    table = make_table(one_deal(4), seed=b"resume")
    _at_round(table, Phase.KEYS)
    peer = table.peer_at(2)
    made = peer.next_message()
    assert made is not None and peer.pending == (made,)
    secrets = peer.export_secrets()
    data = file_header(peer.table_id, peer.binding) + b"".join(
        file_record(e) for e in peer.transcript
    )
    member = peer.member
    assert member is not None
    back = Peer.resume(data, secrets, identity=table.keys[member], rng=table.rngs[member])
    assert back.pending == (made,) and not back.my_turn()
    table.peers[member] = back
    for _ in range(2):  # seats 0 and 1: seat 2's key is then taken from what it saved
        step(table, BOT)
    assert back.pending == ()
    assert [e.wire for e in back.transcript if e.kind == "key" and e.hand == 1][2] == made


def test_an_abandon_is_a_message_of_the_round_and_carries_its_base() -> None:
    table = make_table(one_deal(4), seed=b"keys-abandon")
    _at_round(table, Phase.KEYS)
    step(table, BOT)  # seat 0's key; seat 1 stays silent
    table.peers = [p for p in table.peers if p.seat != 1]
    wire = claim_and_abandon(table, 1)
    env = open_envelope(wire, table_id=table.observer.table_id, roster=None)
    assert env.kind == m.type_of(m.Abandon(1, ())) and env.prev != table.observer.transcript.head
    assert env.prev == table.observer.transcript.expected_prev
    table.observer.receive(wire)
    assert table.observer.hand.abandoned == 1


def test_a_seat_put_back_from_a_backup_adopts_its_round_message_handed_back() -> None:
    """Its files are older than its key (saved before it made it): the others hand the key
    back from what they keep early (the runner's answer to its roll call), and the seat
    waits for it to fill its slot instead of making a second key for the same slot."""
    table = make_table(one_deal(4), seed=b"backup")
    _at_round(table, Phase.KEYS)
    peer = table.peer_at(2)
    member = peer.member
    assert member is not None
    older = peer.export_secrets()  # the backup: before the key was made
    data = file_header(peer.table_id, peer.binding) + b"".join(
        file_record(e) for e in peer.transcript
    )
    made = peer.next_message()
    assert made is not None
    back = Peer.resume(data, older, identity=table.keys[member], rng=table.rngs[member])
    assert back.my_turn() and back.pending == ()  # it would make a new key...
    assert back.receive(made) == []  # ...but its own key comes back first
    assert back.pending == (made,) and not back.my_turn()
    table.peers[member] = back
    for _ in range(2):  # seats 0 and 1: then the adopted key fills seat 2's slot
        step(table, BOT)
    assert [e.wire for e in back.transcript if e.kind == "key" and e.hand == 1][2] == made
    assert back.secret_lost is not None  # the backup lacks that key's secret (table.md §7)


@pytest.mark.parametrize("seq", [4, 99])
def test_a_slot_past_the_round_on_its_base_is_its_signers_violation(seq: int) -> None:
    """The round's slots are fixed when it opens: a message on its base for a slot after
    its last one is no early message to keep, but a slot its signer made up."""
    table = make_table(one_deal(4), seed=b"past")
    _at_round(table, Phase.KEYS)
    honest = open_envelope(
        table.peer_at(1).next_message() or b"", table_id=table.observer.table_id, roster=None
    )
    assert honest.seq == 1 and table.observer.transcript.round is not None
    assert table.observer.transcript.round.seqs == range(0, 4)
    wrong = seal(
        table.keys[table.observer.seating[1]],  # type: ignore[index]
        table_id=honest.table_id,
        hand=1,
        seq=seq,
        seat=1,
        prev=honest.prev,
        kind="key",
        body=honest.body,
    )
    with pytest.raises(SeatViolation, match="does not follow") as refused:
        table.observer.receive(wrong.wire)
    assert refused.value.seat == 1
    with pytest.raises(EarlyInRound):
        table.observer.receive(honest.wire)  # the honest one waits for seat 0's key


def test_a_refused_message_takes_no_slot_of_the_round() -> None:
    """A message the machine refuses is not counted: a program that plays on anyway
    (a lax one of the conformance kit) still knows where the round's slots are."""
    table = make_table(one_deal(4), seed=b"refused")
    _at_round(table, Phase.DEAL)
    hand = table.observer.hand
    before = (hand.count, hand.round_seqs)
    with pytest.raises(Violation):
        hand.apply(0, m.Score((0, 0, 0, 0)))  # not a message of the deal's round
    assert (hand.count, hand.round_seqs) == before


def test_saved_round_message_that_does_not_verify_is_refused_in_words() -> None:
    table = make_table(one_deal(4), seed=b"bad-w")
    _at_round(table, Phase.KEYS)
    peer = table.peer_at(2)
    assert peer.next_message() is not None
    blob = decode(peer.export_secrets())
    assert isinstance(blob, dict) and isinstance(blob["w"], list) and len(blob["w"]) == 1
    broken = bytearray(blob["w"][0])
    broken[-1] ^= 1  # the signature no longer verifies
    blob["w"] = [bytes(broken)]
    data = file_header(peer.table_id, peer.binding) + b"".join(
        file_record(e) for e in peer.transcript
    )
    member = peer.member
    assert member is not None
    with pytest.raises(ValueError, match="does not verify"):
        Peer.resume(data, encode(blob), identity=table.keys[member], rng=table.rngs[member])
