"""The table machine's checks that no game of ``test_hand.py`` reaches, at the hand level.

Why a third way in: the protocol tests play whole hands through peers, which takes seconds
a hand and never sends what an honest seat would not; these tests pin what a mutation run
of ``protocol/table.py`` found unguarded (``docs/mutation.md``), on a hand machine fed by
hand with the keys and escrows of ``test_prepared_refusals.py`` (no shuffle, no game): an
escrow complaint, true or false or naming nobody, and the table's queries a peer asks
before the game (which keys sign a hand, the machine of the next hand).
"""

from __future__ import annotations

import contextlib
import dataclasses

import pytest

from tarot_p2p.crypto.escrow import absent_key, escrow_context, open_piece
from tarot_p2p.crypto.group import (
    ORDER,
    Point,
    base_mul,
    points_equal,
    scalar_to_bytes,
    sum_points,
)
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shuffle import shuffle_and_prove
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.peer import CheatExposed
from tarot_p2p.protocol.table import HandMachine, Phase, TableMachine, Violation
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import TRUMP_MASK, card_name
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.sheet import LineKind, ScoreSheet, hand_note
from tests.protocol.harness import Bot, honest_ecart, lying_ecart, make_table, one_deal, step
from tests.protocol.test_prepared_refusals import CONFIG, HAND, OPENING, TABLE, fresh


def at_the_shuffles(escrow_of_1: m.Escrow | None = None) -> HandMachine:
    """Hand ``HAND`` after its keys and escrows (seat 1's replaced if told): seat 0 is to
    shuffle, and may complain of the pieces sealed to it instead."""
    machine = fresh()
    for env in OPENING.keys + OPENING.escrows:
        body = m.load_body(env.kind, env.body)
        if env.kind == "escrow" and env.seat == 1 and escrow_of_1 is not None:
            body = escrow_of_1
        machine.apply(env.seat, body)
    assert machine.phase is Phase.SHUFFLE and machine.expected_sender() == 0
    assert machine.expected_types() == ("shuffle", "complaint")
    return machine


def e_of(seat: int) -> bytes:
    return scalar_to_bytes(OPENING.escrow_secrets[seat])


def test_a_true_complaint_blames_the_owner_of_the_badly_sealed_piece() -> None:
    machine = at_the_shuffles(OPENING.badly_sealed)
    assert machine.apply(0, m.Complaint(1, e_of(0))) == []
    exposed = machine.exposed
    assert machine.phase is Phase.ABORTED and exposed is not None
    assert exposed.reason == "seat 1 sealed a wrong escrow piece to seat 0" == str(exposed)
    assert exposed.seat == 1 and exposed.evidence_type == "escrow"
    assert machine.count == 7 and machine.expected_sender() is None


def test_a_complaint_of_a_piece_sealed_right_blames_the_complainer() -> None:
    machine = at_the_shuffles()
    for owner in (1, 2):
        with pytest.raises(Violation) as info:
            machine.apply(0, m.Complaint(owner, e_of(0)))
        assert info.value.reason == f"a false complaint of seat {owner}'s escrow piece"
        assert info.value.seat is None and info.value.evidence_type == ""
        assert str(info.value) == info.value.reason and machine.exposed is None
    assert machine.phase is Phase.SHUFFLE and machine.count == 6


@pytest.mark.parametrize("owner", [0, 3])
def test_a_complaint_of_its_own_escrow_or_of_no_seat_is_refused_in_words(owner: int) -> None:
    machine = at_the_shuffles(OPENING.badly_sealed)
    with pytest.raises(Violation) as info:
        machine.apply(0, m.Complaint(owner, e_of(0)))
    assert info.value.reason == f"seat 0 holds no escrow piece of seat {owner}"
    assert machine.phase is Phase.SHUFFLE and machine.exposed is None


def test_a_complaint_whose_key_is_no_scalar_is_refused_in_words() -> None:
    machine = at_the_shuffles(OPENING.badly_sealed)
    with pytest.raises(Violation, match=r"^complaint: ") as info:
        machine.apply(0, m.Complaint(1, b"\xff" * 32))
    assert info.value.seat is None
    assert machine.phase is Phase.SHUFFLE and machine.exposed is None


def test_a_complaint_with_another_seats_key_is_false() -> None:
    """The verdict reads the piece with the complainer's own escrow key: seat 2's key
    opens nothing sealed to seat 0."""
    machine = at_the_shuffles(OPENING.badly_sealed)
    with pytest.raises(Violation, match=r"^a false complaint of seat 1's escrow piece$"):
        machine.apply(0, m.Complaint(1, e_of(2)))


ROSTER = [bytes([i]) * 32 for i in range(3)]
NAMES = ["Ana", "Bo", "Cy"]


def test_the_keys_of_a_hand_are_by_member_then_by_seat() -> None:
    table = TableMachine(CONFIG, TABLE, ROSTER, NAMES)
    assert table.roster(0) == tuple(ROSTER)
    assert table.roster(1) is None  # the seats are not drawn yet
    table.seating = (2, 0, 1)
    assert table.roster(0) == tuple(ROSTER)
    assert table.roster(1) == (ROSTER[2], ROSTER[0], ROSTER[1])


@pytest.mark.parametrize(("dealer", "following"), [(0, 1), (1, 2), (2, 0)])
def test_the_next_hand_is_dealt_by_the_seat_after_this_ones_dealer(
    dealer: int, following: int
) -> None:
    config = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=5)
    table = TableMachine(config, TABLE, ROSTER, NAMES)
    table.sheet = ScoreSheet(config, NAMES, first_dealer=dealer)
    table.hand = HandMachine(config, TABLE, HAND, dealer)
    nxt = table.following_hand()
    assert (nxt.hand, nxt.dealer, nxt.table_id, nxt.config) == (HAND + 1, following, TABLE, config)
    assert nxt.phase is Phase.KEYS and nxt.setup is None


CLAIMS = (bytes(64), bytes(64))
"""Two claims: the machine counts them; their signatures are the peer's to check."""


@pytest.mark.parametrize(
    ("sender", "abandon", "words"),
    [
        (
            2,
            m.Abandon(0, CLAIMS),
            "an abandon is sent by the lowest seat other than the silent one",
        ),
        (1, m.Abandon(2, CLAIMS), "seat 2 is not the one expected to speak"),
        (1, m.Abandon(0, CLAIMS[:1]), "an abandon carries 2 claims"),
        (1, m.Abandon(0, (*CLAIMS, bytes(64))), "an abandon carries 2 claims"),
    ],
)
def test_an_abandon_from_the_wrong_seat_for_the_wrong_seat_or_claims_is_refused_in_words(
    sender: int, abandon: m.Abandon, words: str
) -> None:
    machine = fresh()  # seat 0 is to send its key
    with pytest.raises(Violation) as info:
        machine.apply(sender, abandon)
    assert info.value.reason == words
    assert machine.abandoned is None and machine.count == 0


def absent_share(seat: int) -> Point:
    return base_mul(absent_key(TABLE, HAND, seat))


def test_a_seat_silent_in_the_keys_gets_its_absent_key_and_the_others_go_on() -> None:
    machine = fresh()
    assert machine.apply(1, m.Abandon(0, CLAIMS)) == []
    assert machine.abandoned == 0 and machine.away == 0 and machine.abandoned_in is Phase.KEYS
    assert machine.away_key == absent_key(TABLE, HAND, 0)
    assert points_equal(machine.key_shares[0], absent_share(0))
    assert points_equal(machine.escrow_keys[0], absent_share(0))
    assert machine.expected_sender() == 1 and machine.round_seqs == range(0, 3)
    for env in OPENING.keys[1:]:
        machine.apply(env.seat, m.load_body("key", env.body))
    assert machine.phase is Phase.ESCROW and machine.expected_sender() == 1
    shares = [absent_share(0), *machine.key_shares[1:]]
    assert machine.joint_key is not None
    assert points_equal(machine.joint_key, sum_points(shares))


def test_a_seat_silent_in_the_escrows_gets_its_absent_key_in_the_joint_key() -> None:
    machine = fresh()
    for env in OPENING.keys + OPENING.escrows[:1]:
        machine.apply(env.seat, m.load_body(env.kind, env.body))
    assert machine.expected_sender() == 1
    machine.apply(0, m.Abandon(1, CLAIMS))  # seat 0 is the lowest other than seat 1
    assert machine.away == 1 and machine.abandoned_in is Phase.ESCROW
    assert points_equal(machine.key_shares[1], absent_share(1))
    assert machine.joint_key is not None
    assert points_equal(machine.joint_key, sum_points(machine.key_shares))
    assert machine.expected_sender() == 2
    machine.apply(2, m.load_body("escrow", OPENING.escrows[2].body))
    assert machine.phase is Phase.SHUFFLE and machine.expected_sender() == 0


def test_no_abandon_is_taken_in_hand_0() -> None:
    """An abandon is for hands 1, 2, ... only (``table.md`` §3.1): the set-up and the draw
    have no stand-in, so no member of hand 0 is claimed absent, before the set-up or
    after it. (And the set-up is the one the peer joined, names included.)"""
    setup = m.Setup(CONFIG.canonical_bytes(), tuple(ROSTER), tuple(NAMES))
    machine = HandMachine(CONFIG, TABLE, 0, 0, setup)
    other = m.Setup(setup.config, setup.roster, ("Ana", "Bo", "Di"))
    with pytest.raises(Violation, match=r"^the set-up differs from the table this peer joined$"):
        machine.apply(0, other)
    for ready in (False, True):
        if ready:
            machine.apply(0, setup)  # now member 0 is to send its key
        assert machine.expected_sender() == 0 and machine.present_speaker() is None
        with pytest.raises(Violation) as info:
            machine.apply(1, m.Abandon(0, CLAIMS))
        assert (
            info.value.reason == "an abandon is sent by the lowest seat other than the silent one"
        )
        assert machine.abandoned is None


def piece(holder: int, owner: int, machine: HandMachine) -> bytes:
    """``holder``'s honest release of its piece of ``owner``'s escrowed key."""
    ctx = escrow_context(TABLE, HAND, owner)
    value = open_piece(OPENING.escrow_secrets[holder], holder, machine.escrows[owner], ctx)
    return scalar_to_bytes(value)


def test_a_seat_silent_in_the_shuffles_has_its_key_released_and_the_others_go_on() -> None:
    machine = at_the_shuffles()
    machine.apply(1, m.Abandon(0, CLAIMS))
    assert machine.phase is Phase.RELEASE and machine.expected_sender() == 1
    assert machine.present_speaker() is None  # no second abandon
    wrong = scalar_to_bytes((OPENING.secrets[0] + 1) % ORDER)
    with pytest.raises(Violation) as info:
        machine.apply(1, m.Release(wrong))
    assert info.value.reason == "release: seat 1 released a wrong piece of seat 0's key"
    machine.apply(1, m.Release(piece(1, 0, machine)))
    assert machine.phase is Phase.RELEASE and machine.expected_sender() == 2
    machine.apply(2, m.Release(piece(2, 0, machine)))
    assert machine.away == 0 and machine.away_key == OPENING.secrets[0]
    assert machine.abandoned_in is Phase.SHUFFLE
    assert machine.phase is Phase.SHUFFLE and machine.expected_sender() == 1


def test_in_the_release_only_a_seat_yet_to_shuffle_may_complain() -> None:
    """Sending its shuffle, a seat accepts the escrow pieces sealed to it (``crypto.md``
    §10.5): once seat 0 shuffled and seat 1 fell silent, seat 0 may no longer complain
    at its RELEASE turn; seat 2, yet to shuffle, still may."""
    machine = at_the_shuffles()
    assert machine.joint_key is not None
    ctx = machine.context("shuffle", 0)
    out, proof = shuffle_and_prove(
        machine.joint_key, machine.shuffle_input(), ctx, DeterministicRandom(b"shuffle 0")
    )
    machine.apply(0, m.Shuffle(b"".join(c.to_bytes() for c in out), proof.to_bytes()))
    assert machine.expected_sender() == 1 and machine.may_complain(1)
    machine.apply(0, m.Abandon(1, CLAIMS))
    assert machine.phase is Phase.RELEASE and machine.expected_sender() == 0
    assert not machine.may_complain(0) and machine.expected_types() == ("release",)
    with pytest.raises(Violation, match=r"^'complaint' is not expected in phase release$"):
        machine.apply(0, m.Complaint(1, e_of(0)))
    machine.apply(0, m.Release(piece(0, 1, machine)))
    assert machine.expected_sender() == 2 and machine.may_complain(2)
    assert machine.expected_types() == ("release", "complaint")


def test_no_abandon_is_taken_in_the_score_round() -> None:
    """An abandon is taken in any phase of a hand but SCORE (and RELEASE, which follows
    one): ``table.md`` §3.1. Reached by a void deal of a three-seat table, every seat
    passing."""
    table = make_table(one_deal(3), seed=b"pass")
    hand = table.observer.hand
    while not (hand.hand == 1 and hand.phase is Phase.SCORE):
        assert step(table, Bot(contract=0))
        hand = table.observer.hand
    silent = hand.expected_sender()
    assert silent is not None and hand.present_speaker() is None
    with pytest.raises(Violation) as info:
        hand.apply(1 if silent == 0 else 0, m.Abandon(silent, CLAIMS))
    assert info.value.reason == "an abandon is sent by the lowest seat other than the silent one"
    assert hand.abandoned is None and hand.phase is Phase.SCORE
    while step(table, Bot(contract=0)):
        pass
    sheet = table.observer.sheet
    assert sheet is not None
    (line,) = sheet.lines
    assert line.kind is LineKind.ALL_PASS and line.note == ""  # no stand-in to name


def test_a_non_trump_shown_in_the_ecart_aborts_the_hand_on_the_taker() -> None:
    """The écart's message is valid (its shares verify); the round that opens its shown
    cards proves it false, and the hand stops there with the blame on the taker, in words
    naming the first shown card the rules refuse."""
    table = make_table(one_deal(4), seed=b"tamper")
    taker, wire = lying_ecart(table)
    everyone = [p for p in (*table.peers, table.observer) if p is not taker]
    for p in everyone:
        p.receive(wire)
    while (sender := table.observer.expected_sender()) is not None:
        try:
            out = table.peer_at(sender).next_message()
        except CheatExposed as exc:
            out = exc.outgoing
        assert out is not None
        for p in everyone:
            if p.seat != sender:
                with contextlib.suppress(CheatExposed):
                    p.receive(out)
    hand = table.observer.hand
    shown = [hand.cards[s] for s in hand.discard_slots if s in hand.shown_slots]
    card = next(c for c in shown if not (TRUMP_MASK >> c) & 1)
    exposed = hand.exposed
    assert hand.phase is Phase.ABORTED and exposed is not None
    words = "rules: ecart-shown: only trumps other than oudlers are shown"
    assert exposed.reason == f"the écart shows {card_name(card)}: {words}" == str(exposed)
    assert exposed.seat == taker.seat and exposed.evidence_type == "ecart"


def test_an_ecart_naming_its_positions_wrong_is_refused_in_words() -> None:
    """The écart's positions (``table.md`` §2): exactly the chien's size of them, distinct,
    ascending, each below the taker's deck size; its shown trumps distinct, ascending and
    among them; ``d`` and ``dproof`` empty when none is shown. Each refusal leaves the hand
    as it was (the shuffled deck it had appended taken back), and the honest écart is then
    taken."""
    table = make_table(one_deal(4), seed=b"tamper")
    taker, _, msg = honest_ecart(table)
    assert len(msg.trumps) < len(msg.discard) and len(msg.d) == 33 * len(msg.trumps)
    hand = table.observer.hand
    assert hand.phase is Phase.ECART and hand.expected_sender() == taker.seat
    k, size, count = len(hand.taker_input), len(msg.discard), hand.count
    assert (k, size) == (24, 6)
    outside = next(j for j in range(k) if j not in msg.discard)
    names = f"the écart names {size} distinct output positions, ascending"
    below = f"écart positions are below {k}"
    shown = "shown trumps are distinct écart positions, ascending"
    first, *rest = msg.discard
    bad = [
        (msg.discard[:-1], msg.trumps, names),  # ascending, one short
        ((*msg.discard, msg.discard[-1] + 1), msg.trumps, names),  # one more
        ((rest[0], first, *rest[1:]), msg.trumps, names),  # not ascending
        ((first, first, *rest[1:]), msg.trumps, names),  # twice the same
        ((*msg.discard[:-1], k), (), below),  # the last one past the deck
        ((*msg.discard[:-1], k + 9), (), below),
        (msg.discard, (msg.discard[1], msg.discard[0]), shown),  # not ascending
        (msg.discard, (msg.discard[0], msg.discard[0]), shown),  # twice the same
        (msg.discard, (outside,), shown),  # not among the discards
        # Every discard shown passes these checks: then the shares are counted.
        (msg.discard, msg.discard, f"ecart: expected 6 shares, got {len(msg.trumps)}"),
    ]
    for discard, trumps, words in bad:
        with pytest.raises(Violation) as info:
            hand.apply(taker.seat or 0, dataclasses.replace(msg, discard=discard, trumps=trumps))
        assert info.value.reason == words
    deck, shares = len(hand.deck), len(hand.shares)
    for d, dproof in ((bytes(33), b""), (b"", bytes(64)), (bytes(33), bytes(64))):
        unshown = dataclasses.replace(msg, trumps=(), d=d, dproof=dproof)
        with pytest.raises(Violation) as info:
            hand.apply(taker.seat or 0, unshown)
        assert info.value.reason == "no trump shown: d and dproof are empty"
    assert (len(hand.deck), len(hand.shares)) == (deck, shares) == (78, 78)
    assert hand.phase is Phase.ECART and hand.count == count
    hand.apply(taker.seat or 0, msg)
    assert hand.phase is Phase.ECART_SHARES and len(hand.deck) == len(hand.shares) == 78 + k


def refused(hand: HandMachine, seat: int, message: m.Message) -> str:
    """The words ``hand`` refuses ``message`` from ``seat`` with; it is left as it was."""
    count, phase, sender = hand.count, hand.phase, hand.expected_sender()
    with pytest.raises(Violation) as info:
        hand.apply(seat, message)
    assert (hand.count, hand.phase, hand.expected_sender()) == (count, phase, sender)
    assert info.value.seat is None and str(info.value) == info.value.reason
    return info.value.reason


def test_each_phase_refuses_a_bad_message_in_words() -> None:
    """A whole hand of a three-seat table, fed at each phase, before the honest message,
    a message from the wrong seat, of the wrong type, or that does not read or count
    right: each is refused in words naming what is wrong, and nothing moves. Once the
    game is over, nothing more is taken."""
    table = make_table(one_deal(3), seed=b"refusals")
    bot = Bot(contract=2, seed=1)
    met: list[Phase] = []
    point = "a point is 33 bytes, compressed SEC1"
    while True:
        hand = table.observer.hand
        phase, seat = hand.phase, hand.expected_sender()
        if hand.hand == 1 and seat is not None and phase not in met:
            met.append(phase)
            other = (seat + 1) % 3
            name = phase.value
            got = refused(hand, other, m.Score((0, 0, 0)))
            assert got == f"out of turn: seat {seat} must send the next message"
            got = refused(hand, seat, m.Release(bytes(32)))
            assert got == f"'release' is not expected in phase {name}"
            if phase is Phase.KEYS:
                got = refused(hand, seat, m.Key(bytes(33), bytes(64), bytes(33)))
                assert got == f"key share: {point}"
            elif phase is Phase.ESCROW:
                got = refused(hand, seat, m.Escrow(bytes(7)))
                assert got == "escrow: an escrow at 3 seats is 163 bytes"
            elif phase is Phase.SHUFFLE:
                got = refused(hand, seat, m.Shuffle(bytes(66 * 77), b""))
                assert got == "shuffle: expected 78 ciphertexts"
                assert refused(hand, seat, m.Shuffle(bytes(66 * 78), b"")) == f"shuffle: {point}"
            elif phase in (Phase.DEAL, Phase.CHIEN, Phase.ECART_SHARES, Phase.REVEAL):
                n = len(hand.share_slots(seat))
                got = refused(hand, seat, m.Shares(bytes(33 * (n + 1)), b""))
                assert got == f"{name}: expected {n} shares, got {n + 1}"
                assert refused(hand, seat, m.Shares(bytes(33 * n), b"")) == f"{name}: {point}"
            elif phase is Phase.BIDDING:
                got = refused(hand, seat, m.Act(a.Go(False).encode()))
                assert got == "go cannot be sent in the clear in phase bidding"
                assert refused(hand, seat, m.Act((99,))) == "action: malformed action (99,)"
            elif phase is Phase.PLAY:
                theirs, mine = hand.holding[other][0], hand.holding[seat][0]
                got = refused(hand, seat, m.Play(theirs, bytes(33), b""))
                assert got == f"slot {theirs} is not an unplayed card of seat {seat}"
                got = refused(hand, seat, m.Play(mine, bytes(66), b""))
                assert got == "play: expected 1 shares, got 2"
                got = refused(hand, seat, m.Act(a.BIDS[1].encode()))
                assert got == f"{a.BIDS[1]} cannot be sent in the clear in phase play"
            elif phase is Phase.SCORE:
                assert hand.scores is not None
                wrong = (hand.scores[0] + 1, hand.scores[1] - 1, hand.scores[2])
                got = refused(hand, seat, m.Score(wrong))
                assert got == f"score line {list(wrong)} differs from {hand.scores}"
        if not step(table, bot):
            break
    skipped = (Phase.SETUP, Phase.DRAW, Phase.CALL, Phase.RELEASE, Phase.DONE, Phase.ABORTED)
    assert met == [p for p in Phase if p not in skipped]  # a three-seat garde, no call
    assert refused(hand, 0, m.Score((0, 0, 0))) == "the hand is over"
    assert {seat for seat, _ in hand.history} == {0, 1, 2}  # each move is its seat's
    sheet, audit = table.observer.sheet, hand.audit
    assert sheet is not None and audit is not None and audit.outcome is not None
    (line,) = sheet.lines
    assert line.note == hand_note(table.config, audit.outcome, table.observer.table.names)


def test_a_table_of_two_or_of_too_few_keys_or_names_is_refused_in_words() -> None:
    roster, names = [bytes([i]) * 32 for i in range(4)], ["Ana", "Bo", "Cy", "Di"]
    with pytest.raises(ValueError, match=r"^the network protocol plays three, four or five seats$"):
        TableMachine(TableConfig(players=2), b"t" * 32, roster[:2], names[:2])
    words = r"^a 4-seat table needs 4 keys and names$"
    with pytest.raises(ValueError, match=words):
        TableMachine(TableConfig(players=4), b"t" * 32, roster[:3], names)
    with pytest.raises(ValueError, match=words):
        TableMachine(TableConfig(players=4), b"t" * 32, roster, names[:3])
    table = TableMachine(TableConfig(players=4), b"t" * 32, roster, names)
    assert table.hand.hand == 0 and table.hand.dealer == 0 and table.expected_sender() == 0


def test_no_complaint_in_the_seat_draw_and_nothing_expected_after_the_game() -> None:
    """Hand 0 has no escrows, so nothing to complain of in its shuffles; once the game is
    over, no type of message is expected."""
    table = make_table(one_deal(3), seed=b"no complaint")
    hand = table.observer.hand
    while not (hand.hand == 0 and hand.phase is Phase.SHUFFLE):
        assert step(table, Bot())
        hand = table.observer.hand
    seat = hand.expected_sender()
    assert seat is not None and not hand.may_complain(seat)
    assert hand.expected_types() == ("shuffle",)
    while step(table, Bot()):
        pass
    assert table.observer.hand.expected_types() == ()
