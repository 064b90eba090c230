"""What a peer refuses, and what it tells its own program, at the edges no whole game reaches.

A mutation run of ``protocol/peer.py`` from scratch (``docs/mutation.md``, stop 31) found
these reached by no test of its selection: a message claiming the next hand's first slot
while this hand is under way, bytes that are no envelope once the seats are drawn (read
before the signature, to choose the roster), a peer built half a seat,
what an observer may not sign, a seat's late message after we claimed it absent, an
abandon before the draw, a backup whose secrets predate the key the others hand back,
and the damaged transcript files. Each is fed here alone and refused in words, with the
honest case beside it.
"""

from __future__ import annotations

import copy
import re

import pytest

from tarot_p2p.crypto.group import scalar_to_bytes
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.protocol import forfeit
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.codec import decode, encode
from tarot_p2p.protocol.envelope import open_envelope, seal
from tarot_p2p.protocol.errors import (
    LocalProtocolError,
    RemoteProtocolError,
    SeatViolation,
)
from tarot_p2p.protocol.peer import Dealt, Peer
from tarot_p2p.protocol.sync import NONCE_LEN
from tarot_p2p.protocol.table import Phase
from tarot_p2p.protocol.transcript import TranscriptFileError, file_header, file_record
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import cards_of
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.rules.state import Phase as EnginePhase
from tests.protocol.harness import Bot, Table, make_table, one_deal, step
from tests.protocol.test_abandon import at_first_bid, seq_of

BOT = Bot(contract=Contract.GARDE, seed=5)


def until(table: Table, phase: Phase, hand: int = 1) -> None:
    while not (table.observer.hand.hand == hand and table.observer.hand.phase is phase):
        assert step(table, BOT)


def prefix_file(peer: Peer, count: int | None = None) -> bytes:
    """``peer``'s transcript file holding its first ``count`` records (all of them)."""
    records = list(peer.transcript)[:count]
    return file_header(peer.table_id, peer.binding) + b"".join(file_record(e) for e in records)


def resumed(table: Table, member: int, data: bytes, secrets: bytes | None) -> Peer:
    rng = copy.deepcopy(table.rngs[member])
    return Peer.resume(data, secrets, identity=table.keys[member], rng=rng)


# ---------------------------------------------------------------- what comes in


def test_a_message_for_the_next_hands_first_slot_mid_hand_is_its_senders_violation() -> None:
    """The transcript takes a hand's first slot after any slot (it cannot tell a hand's
    end); the peer knows the hand is not over and names the sender, with the message."""
    table = make_table(one_deal(4), seed=b"peer refusals")
    until(table, Phase.BIDDING)
    observer = table.observer
    sender = observer.expected_sender()
    assert sender is not None
    wire = seal(
        table.key_of(1, sender), table_id=observer.table_id, hand=2, seq=0, seat=sender,
        prev=observer.transcript.expected_prev, kind="act",
        body=m.dump_body(m.Act(b"\x00")),
    ).wire  # fmt: skip
    before = observer.transcript.head
    with pytest.raises(SeatViolation) as info:
        observer.receive(wire)
    seq = seq_of(observer)
    assert (info.value.seat, info.value.reason) == (sender, f"slot (2, 0) is not (1, {seq})")
    assert info.value.evidence == (wire,)
    assert observer.transcript.head == before


@pytest.mark.parametrize(
    "wire",
    [
        encode(5),  # not a list
        encode([]),  # an empty list
        encode([5, b"signature"]),  # a payload that is no bytes
        encode([encode([1, 2]), b"signature"]),  # a payload that is no map
        encode([encode({"h": "one"}), b"signature"]),  # a hand number that is no number
        b"\xc1",  # no msgpack at all
    ],
)
def test_bytes_that_are_no_envelope_are_refused_after_the_draw_too(wire: bytes) -> None:
    """After the draw the roster a message is checked against is chosen by its hand
    number, read before the signature: that reading must refuse junk like any other
    part of the envelope, never fail on it (a relay or stranger can send anything)."""
    table = make_table(one_deal(3), seed=b"peer refusals")
    until(table, Phase.KEYS)
    observer = table.observer
    before = observer.transcript.head
    with pytest.raises(RemoteProtocolError):
        observer.receive(wire)
    assert observer.transcript.head == before
    assert step(table, BOT)  # and the table goes on


def test_a_seats_message_after_we_claimed_it_absent_is_ignored() -> None:
    """A claim is a promise to ignore the silent seat's message for that slot: taking it
    after signing the claim would split us from the others, who go on without it."""
    table, absent = at_first_bid(b"peer refusals")
    silent = table.peer_at(absent)
    wire = silent.act(silent.legal_actions()[0])
    claimer = next(p for p in table.peers if p is not silent)
    other = next(p for p in table.peers if p not in (silent, claimer))
    assert claimer.forfeit_claim() is not None
    head = claimer.transcript.head
    assert claimer.receive(wire) == []
    assert claimer.transcript.head == head
    other.receive(wire)  # a seat that claimed nothing takes it
    assert other.transcript.head != head


def test_only_claims_of_the_slot_we_are_at_by_a_present_seat_are_kept() -> None:
    """A member may sign claims for any slot; only those about the seat silent now, from
    another seat than it, count towards an abandon, and only those are kept (the others
    would pile up for ever)."""
    table, absent = at_first_bid(b"peer refusals claims")
    keeper = next(p for p in table.peers if p.seat != absent)
    observer = table.observer
    seating = observer.seating
    assert seating is not None
    now = forfeit.Slot(1, seq_of(observer), observer.transcript.head, absent)
    stale = forfeit.Slot(1, now.seq - 1, observer.transcript.digest_after(now.seq - 1), absent)
    claimer = next(s for s in range(4) if s not in (absent, keeper.seat))
    for slot, seat in ((stale, claimer), (now, absent)):
        claim = forfeit.sign_claim(table.key_of(1, seat), observer.table_id, slot, seating[seat])
        assert keeper.read_forfeit_claim(forfeit.claim_wire(observer.table_id, claim)) == claim
    assert keeper._claims == {}
    claim = forfeit.sign_claim(table.key_of(1, claimer), observer.table_id, now, seating[claimer])
    keeper.read_forfeit_claim(forfeit.claim_wire(observer.table_id, claim))
    assert keeper._claims == {now: {claimer: claim.signature}}


def test_an_abandon_before_the_seats_are_drawn_is_its_senders_violation() -> None:
    table = make_table(one_deal(3), seed=b"peer refusals")
    assert step(table, BOT)  # the set-up
    observer = table.observer
    sender = 1
    wire = seal(
        table.keys[sender], table_id=observer.table_id, hand=0, seq=seq_of(observer),
        seat=sender, prev=observer.transcript.expected_prev, kind="abandon",
        body=m.dump_body(m.Abandon(0, (bytes(64), bytes(64)))),
    ).wire  # fmt: skip
    with pytest.raises(SeatViolation) as info:
        observer.receive(wire)
    assert (info.value.seat, info.value.reason) == (sender, "no abandon before the seats are drawn")
    assert info.value.evidence == (wire,)


# ---------------------------------------------------------------- what a peer is


def test_a_peer_is_a_seat_with_identity_and_randomness_or_an_observer_with_neither() -> None:
    table = make_table(one_deal(3), seed=b"peer refusals")
    config, peer = table.config, table.peers[0]
    roster = [k.public_key() for k in table.keys]
    names = list(peer.table.setup.names)
    half = r"^a seat needs its identity key and a random source; an observer none$"
    for kwargs in (
        {"seat": 0, "identity": table.keys[0]},
        {"seat": 0, "rng": table.rngs[0]},
        {"identity": table.keys[0], "rng": table.rngs[0]},
        {"rng": table.rngs[0]},
    ):
        with pytest.raises(ValueError, match=half):
            Peer(config, peer.table_id, roster, names, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^the roster must list 3 identity keys$"):
        Peer(config, peer.table_id, roster[:2], names)
    with pytest.raises(ValueError, match=r"^the identity key is not seat 1's key in the roster$"):
        Peer(
            config, peer.table_id, roster, names, seat=1, identity=table.keys[0], rng=table.rngs[0]
        )


def test_an_observer_signs_nothing_and_is_never_to_play() -> None:
    """An observer holds no identity of the table: it has nothing to sign with, no secret
    to save, no seat to take back, and it never has a move to make."""
    table = make_table(one_deal(3), seed=b"peer refusals")
    until(table, Phase.BIDDING)
    observer = table.observer
    assert not observer.my_turn() and observer.next_message() is None
    assert observer.legal_actions() == [] and observer.private_state() is None
    for call, words in (
        (observer.sync_request, "an observer sends nothing"),
        (lambda: observer.roll_call(bytes(NONCE_LEN)), "an observer sends nothing"),
        (lambda: observer.rewound(0), "an observer has no seat to rewind"),
        (observer.export_secrets, "an observer has no secrets"),
    ):
        with pytest.raises(LocalProtocolError, match=f"^{words}$"):
            call()


def test_a_member_signs_as_itself_until_the_draw_then_as_its_seat() -> None:
    table = make_table(one_deal(4), seed=b"peer refusals")
    observer = table.observer
    assert step(table, BOT)
    assert [observer.seat_of_member(i) for i in range(5)] == [0, 1, 2, 3, None]
    until(table, Phase.KEYS)
    seating = observer.seating
    assert seating is not None and list(seating) != [0, 1, 2, 3]  # (a draw that moves them)
    assert [observer.seat_of_member(i) for i in range(4)] == [seating.index(i) for i in range(4)]


def test_the_private_engine_comes_with_the_deal_and_tells_the_seat_its_cards() -> None:
    """No engine before this seat's cards are open (a page drawing the table asks at any
    moment); then one ``Dealt`` event, to that seat alone, with the cards it holds."""
    table = make_table(one_deal(4), seed=b"peer refusals")
    until(table, Phase.DEAL)
    assert all(p.private_state() is None and p.dealt is None for p in table.peers)
    before = [len(events) for events in table.events]
    until(table, Phase.BIDDING)
    for peer in table.peers:
        assert peer.member is not None
        new = table.events[peer.member][before[peer.member] :]
        dealt = [e for e in new if isinstance(e, Dealt)]
        assert dealt == [Dealt(peer.my_cards())] and peer.my_cards().bit_count() == 18
        assert peer.dealt == peer.my_cards() and peer.private_state() is not None
    assert not any(isinstance(e, Dealt) for e in table.events[-1])  # the observer's


def test_a_move_that_is_not_legal_now_is_refused_in_words_and_signs_nothing() -> None:
    """A bid too low, a bid out of turn, a card not held and a card that does not follow:
    the seat's own program is told in words, before anything is signed (a page or bot
    that asks for them gets a sentence, not a refusal of its own signed message)."""
    table = make_table(one_deal(4), seed=b"peer refusals moves")
    until(table, Phase.BIDDING)
    assert step(table, BOT)  # the first bid: a garde
    speaker = table.peer_at(table.observer.expected_sender() or 0)
    waiting = next(p for p in table.peers if p is not speaker)
    moves: list[tuple[Peer, a.Action]] = [(speaker, a.Bid(Contract.PRISE))]
    moves.append((waiting, a.Bid(Contract.GARDE_SANS)))
    refused(moves)
    until(table, Phase.PLAY)
    while True:  # on to a player holding a card that does not follow
        player = table.peer_at(table.observer.expected_sender() or 0)
        engine = player.private_state()
        assert engine is not None
        if engine.phase is EnginePhase.PLAY:
            held, legal = player.my_cards(), engine.legal_play_mask()
            if held & ~legal:
                break
        assert step(table, BOT)
    waiting = next(p for p in table.peers if p is not player)
    moves = [(player, a.Play(min(cards_of(~held & ((1 << 78) - 1)))))]
    moves.append((player, a.Play(min(cards_of(held & ~legal)))))
    moves.append((waiting, a.Play(min(cards_of(waiting.my_cards())))))
    refused(moves)


def refused(moves: list[tuple[Peer, a.Action]]) -> None:
    for peer, move in moves:
        head = peer.transcript.head
        words = f"^{re.escape(str(move))} is not a legal action now$"
        with pytest.raises(LocalProtocolError, match=words):
            peer.act(move)
        assert peer.transcript.head == head and peer.pending == ()


def test_a_message_made_ahead_tells_nothing_until_its_slot_comes() -> None:
    """In a round where every seat speaks, a seat may make its message before its turn:
    it waits, unapplied, so it has caused no event yet (its program reads
    ``own_events`` after every message it makes)."""
    table = make_table(one_deal(4), seed=b"peer refusals")
    until(table, Phase.DEAL)
    hand = table.observer.hand
    later = next(p for p in table.peers if (hand.round_position(p.seat or 0) or 0) > 0)
    wire = later.next_message()
    assert wire is not None and later.pending == (wire,)
    assert later.own_events == []


def test_an_ecart_the_table_refuses_leaves_the_taker_free_to_make_the_right_one() -> None:
    """An écart of the wrong size, made by a client without the rules check (as the
    conformance kit's cheats do): refused as our own error, in words, with nothing kept
    of it, so the taker's secrets still save and the right écart follows."""
    table = make_table(one_deal(4), seed=b"peer refusals")
    until(table, Phase.ECART)
    sender = table.observer.expected_sender()
    assert sender is not None
    taker = table.peer_at(sender)
    size = chien_size(table.config)
    head = taker.transcript.head
    refused = f"^own message refused: seat {sender}: the écart names {size} distinct output "
    with pytest.raises(LocalProtocolError, match=refused + "positions, ascending$"):
        taker._ecart(sorted(cards_of(taker.my_cards()))[: size - 3])
    assert taker.transcript.head == head
    assert decode(taker.export_secrets())["p"] == []  # type: ignore[index]
    assert step(table, BOT)
    assert table.observer.hand.phase is not Phase.ECART


# ---------------------------------------------------------------- taking a seat back


def test_a_saved_message_made_ahead_that_our_own_table_refuses_is_our_error() -> None:
    """A message made ahead, saved signed and taken back on resuming (``w``), is checked
    like any other when its slot comes; one the table refuses (here another seat's key
    re-signed: files of another program) is this program's own error, in words."""
    table = make_table(one_deal(3), seed=b"peer refusals own ahead")
    until(table, Phase.KEYS)
    made = {}
    for member, peer in enumerate(table.peers):
        wire = peer.next_message()
        assert wire is not None and peer.seat is not None  # every seat's key, on the base
        roster = {peer.seat: table.keys[member].public_key()}
        made[member] = open_envelope(wire, table_id=peer.table_id, roster=roster)
    first, nxt, last = sorted(made, key=lambda member: made[member].seq)
    own = made[last]
    forged = seal(
        table.keys[last], table_id=own.table_id, hand=own.hand, seq=own.seq, seat=own.seat,
        prev=own.prev, kind=own.kind, body=made[first].body,
    ).wire  # fmt: skip
    fields = decode(table.peers[last].export_secrets())
    assert isinstance(fields, dict) and fields["w"] == [own.wire]
    back = resumed(table, last, prefix_file(table.observer), encode({**fields, "w": [forged]}))
    back.receive(made[first].wire)
    with pytest.raises(LocalProtocolError, match=rf"^own message refused: seat {own.seat}: key"):
        back.receive(made[nxt].wire)


def test_a_seat_resumed_without_secrets_is_behind_nothing() -> None:
    table = make_table(one_deal(3), seed=b"peer refusals")
    assert step(table, BOT)
    back = resumed(table, 2, prefix_file(table.observer), None)
    assert not back.behind_own_secrets and back.secret_lost is None
    assert back.next_message() is not None  # its first message of hand 0, made afresh


def test_secrets_of_a_later_hand_than_the_file_say_the_seat_signed_more() -> None:
    """A file older than the secrets (a backup of the transcript alone): the seat signed
    more than it holds, and must take those records back before signing anything, even
    when the secrets hold no key yet."""
    table = make_table(one_deal(3), seed=b"peer refusals")
    until(table, Phase.KEYS)
    member = 0
    secrets = table.peers[member].export_secrets()
    assert decode(secrets)["x"] == b""  # type: ignore[index]
    back = resumed(table, member, prefix_file(table.observer, 3), secrets)
    assert back.hand.hand == 0 and back.behind_own_secrets


def key_round_backup(seed: bytes) -> tuple[Table, int, bytes, bytes, int]:
    """A table of 3 in hand 1's key round, the next key's maker, its file and secrets
    from just before it made its key, and how many messages had been sent then."""
    table = make_table(one_deal(3), seed=seed)
    until(table, Phase.KEYS)
    sender = table.observer.expected_sender()
    assert sender is not None
    member = table.peer_at(sender).member
    assert member is not None
    peer = table.peers[member]
    return table, member, prefix_file(peer), peer.export_secrets(), len(table.wires)


def test_a_key_handed_back_whose_secret_the_backup_lacks_is_lost_not_a_crash() -> None:
    """The seat's files put back from before its key (a backup): the others hand its key
    back, whose secret is in no file. It takes the record (its own signed copy) and knows
    it can sign nothing more in this hand; its engine is gone with the secret."""
    table, member, data, secrets, sent = key_round_backup(b"peer refusals lost key")
    until(table, Phase.ESCROW)
    back = resumed(table, member, data, secrets)
    assert back.secret_lost is None
    for wire in table.wires[sent:]:
        back.receive(wire)
    lost = back.secret_lost
    assert lost is not None and (lost.hand, lost.kind) == (1, "key")
    assert back.transcript.head == table.observer.transcript.head
    assert back.private_state() is None and back.legal_actions() == []


def test_a_key_handed_back_that_the_saved_share_does_not_open_is_lost_not_a_crash() -> None:
    """Secrets that do not fit the key the others hand back (the same profile played on
    two computers, or files put back from two different days): the transcript's key
    wins, the saved share is dropped, and the seat knows it can sign nothing more in
    this hand, instead of refusing the table's own record."""
    table, member, data, _, sent = key_round_backup(b"peer refusals other key")
    assert step(table, BOT)
    fields = decode(table.peers[member].export_secrets())
    assert isinstance(fields, dict)
    other = encode({**fields, "x": scalar_to_bytes(12345)})
    back = resumed(table, member, data, other)
    for wire in table.wires[sent:]:
        back.receive(wire)
    lost = back.secret_lost
    assert lost is not None and (lost.hand, lost.kind) == (1, "key")
    assert back.transcript.head == table.observer.transcript.head
    with pytest.raises(ValueError, match=r"^the saved key share is not the one in the transcript$"):
        resumed(table, member, prefix_file(table.observer), other)  # from the file: refused


def test_a_key_share_saved_after_the_file_is_taken_back_when_the_key_comes() -> None:
    """The other way round: the secrets were saved with the key (before sending it, as a
    program must) and the file was written before it. The key, handed back, finds its
    secret waiting, and the seat plays the hand on."""
    table, member, data, _, sent = key_round_backup(b"peer refusals kept key")
    assert step(table, BOT)
    secrets = table.peers[member].export_secrets()
    assert decode(secrets)["x"] != b""  # type: ignore[index]
    back = resumed(table, member, data, secrets)
    for wire in table.wires[sent:]:
        back.receive(wire)
    assert back.secret_lost is None and not back.behind_own_secrets
    dealt = len(table.wires)
    until(table, Phase.BIDDING)
    for wire in table.wires[dealt:]:  # the deal, its own shares among them
        back.receive(wire)
    assert back.my_cards() == table.peers[member].my_cards() != 0  # its key opens its cards


def test_a_file_whose_set_up_does_not_match_its_header_is_refused_in_words() -> None:
    table = make_table(one_deal(3), seed=b"peer refusals")
    until(table, Phase.KEYS)
    observer = table.observer
    records = b"".join(file_record(e) for e in observer.transcript)
    rng = DeterministicRandom(b"resumed")
    wrong = file_header(observer.table_id, bytes(32)) + records
    with pytest.raises(
        TranscriptFileError, match=r"^the set-up does not match the file's binding$"
    ):
        Peer.resume(wrong, None, identity=table.keys[0], rng=rng)
    no_setup = (
        file_header(observer.table_id, observer.binding)
        + records[len(file_record(next(iter(observer.transcript)))) :]
    )
    with pytest.raises(TranscriptFileError, match=r"^unusable table set-up: not the table set-up$"):
        Peer.resume(no_setup, None, identity=table.keys[0], rng=rng)
