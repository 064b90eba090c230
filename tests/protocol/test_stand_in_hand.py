"""A silent seat's hand is finished by the stand-in, not priced (``table.md`` §3.1–§3.2).

Tables wired in memory play hand 1 until a chosen moment, when the expected sender goes
silent: every other seat claims it absent, its key is rebuilt from the escrow (or, before
the escrow, given its public absent key), and the others play on with its stand-in. The
hand is then scored as played, the silent seat signs nothing, and a replay of the
transcript (the audit) reaches the same sheet.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from tarot_p2p.conformance.cheats import (
    bad_escrow_sum,
    badly_sealed_piece,
    cheat_act,
    cheat_discard,
    cheat_play,
    escrow_secret,
    false_complaint,
    sign_next,
    wrong_release,
)
from tarot_p2p.crypto.group import scalar_to_bytes
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.errors import SeatViolation
from tarot_p2p.protocol.peer import CheatExposed, Peer, replay_file
from tarot_p2p.protocol.table import HandEnded, HandMachine, HandOpened, Phase
from tarot_p2p.protocol.transcript import file_header
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import KING_MASK, cards_of
from tarot_p2p.rules.config import Abandon, GameEnd, TableConfig
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.rules.sheet import LineKind
from tarot_p2p.rules.stand_in import stand_in_action
from tarot_p2p.rules.state import Phase as EnginePhase
from tests.protocol.harness import Bot, Table, go_silent, make_table, one_deal, step

Moment = Callable[[HandMachine], bool]
MOMENTS: dict[str, Moment] = {
    "keys": lambda h: h.phase is Phase.KEYS and len(h.key_shares) == 1,
    "escrow": lambda h: h.phase is Phase.ESCROW and len(h.escrows) == 2,
    "shuffle": lambda h: h.phase is Phase.SHUFFLE and len(h.accepted) == 1,
    "bidding": lambda h: h.phase is Phase.BIDDING,
    "ecart": lambda h: h.phase is Phase.ECART,
    "reveal": lambda h: h.phase is Phase.REVEAL,
    "mid-play": lambda h: h.phase is Phase.PLAY and len(h.history) > 12,
}
BOT = Bot(contract=Contract.GARDE, seed=3)


def until(table: Table, moment: Moment, bot: Bot = BOT) -> None:
    while not (table.observer.hand.hand == 1 and moment(table.observer.hand)):
        assert step(table, bot)


def silent_at(moment: Moment, seed: bytes) -> tuple[Table, int]:
    table = make_table(one_deal(4), seed=seed)
    until(table, moment)
    absent = table.observer.expected_sender()
    assert absent is not None
    go_silent(table, absent)
    while step(table, BOT):
        pass
    return table, absent


def replayed(table: Table) -> Peer:
    data = file_header(table.observer.table_id, table.observer.binding)
    data += b"".join(len(w).to_bytes(4, "big") + w for w in table.wires)
    replay = replay_file(data)
    assert replay.error is None
    return replay.observer


@pytest.mark.parametrize("when", list(MOMENTS))
def test_the_stand_in_finishes_the_hand_and_it_is_scored_as_played(when: str) -> None:
    table, absent = silent_at(MOMENTS[when], b"silent " + when.encode())
    observer = table.observer
    sheet = observer.sheet
    assert sheet is not None and sheet.is_over
    (line,) = sheet.lines
    hand = observer.hand
    assert hand.abandoned == absent and hand.audit is not None
    assert line.kind is LineKind.HAND and line.scores == hand.audit.returns
    # Every move is its seat's, the stand-in's too (the écart made in the open included).
    assert hand.engine is not None and hand.engine.taker is not None
    assert all(seat in range(4) for seat, _ in hand.history)
    discards = {seat for seat, act in hand.history if isinstance(act, a.Discard)}
    assert discards == {hand.engine.taker}
    assert "played by the stand-in" in line.note
    signed = [e.seat for e in observer.transcript if e.hand == 1 and e.kind == "score"]
    assert signed == [s for s in range(4) if s != absent]
    for peer in table.peers:
        assert peer.sheet is not None and peer.sheet.lines == sheet.lines
    audit = replayed(table).sheet
    assert audit is not None and audit.lines == sheet.lines
    # The hand's end, as every program is told it (the page says who was away, and when).
    silent_in = Phase[when.upper().replace("MID-", "")]
    for seat in [p.member for p in table.peers] + [-1]:
        (ended,) = [e for e in table.events[seat] if isinstance(e, HandEnded) and e.hand == 1]
        assert (ended.void, ended.absent, ended.absent_in) == (None, absent, silent_in), seat


@pytest.mark.parametrize("when", ["bidding", "mid-play"])
def test_every_present_seat_sees_the_absent_seats_cards_once_they_are_opened(when: str) -> None:
    """The stand-in plays in the open: once the silent seat's key is rebuilt, its cards are
    everyone's, and each present seat's own engine (what its bot and page read) holds
    them, no longer hidden."""
    table = make_table(one_deal(4), seed=b"opened " + when.encode())
    until(table, MOMENTS[when])
    absent = table.observer.expected_sender()
    assert absent is not None
    go_silent(table, absent)
    seen = len(table.events[-1])
    while not (opened := [e for e in table.events[-1][seen:] if isinstance(e, HandOpened)]):
        assert step(table, BOT)
    assert [e.seat for e in opened] == [absent] and opened[0].cards
    public = table.observer.hand.engine
    assert public is not None and not public.hidden[absent]
    held = public.hands[absent]  # (less what the stand-in played at once)
    assert held and not held & ~opened[0].cards
    for peer in table.peers:
        private = peer.private_state()
        assert private is not None and not private.hidden[absent], peer.seat
        assert private.hands[absent] == held, peer.seat


def test_a_void_deal_with_a_seat_away_ends_void_and_names_it() -> None:
    """Everybody passes, one seat by its stand-in: the deal is void, and its end says so
    and who was away in the bidding (the page shows both)."""
    table = make_table(one_deal(4), seed=b"silent void")
    until(table, MOMENTS["bidding"], Bot(contract=0))
    absent = table.observer.expected_sender()
    assert absent is not None
    go_silent(table, absent)
    while step(table, Bot(contract=0)):
        pass
    sheet = table.observer.sheet
    assert sheet is not None and [line.kind for line in sheet.lines] != [LineKind.HAND]
    for seat in [p.member for p in table.peers] + [-1]:
        (ended,) = [e for e in table.events[seat] if isinstance(e, HandEnded) and e.hand == 1]
        assert ended.void is sheet.lines[0].kind, seat
        assert (ended.absent, ended.absent_in) == (absent, Phase.BIDDING), seat


@pytest.mark.parametrize("void", [False, True])
def test_a_hand_the_stand_in_finished_ends_the_game_and_its_line_says_so(void: bool) -> None:
    """Under the default ``abandon: end``, the game is over after the hand the stand-in
    finished (played or void), though more deals were to come; the sheet's line names
    the absent player after the hand's own note."""
    config = TableConfig(players=4, game_end=GameEnd.DEALS, game_length=2)
    assert config.abandon is Abandon.END
    table = make_table(config, seed=b"silent ends " + bytes([void]))
    bot = Bot(contract=0) if void else BOT
    until(table, MOMENTS["bidding" if void else "mid-play"], bot)
    absent = table.observer.expected_sender()
    assert absent is not None
    go_silent(table, absent)
    while step(table, bot):
        pass
    observer = table.observer
    sheet = observer.sheet
    assert sheet is not None and sheet.is_over and observer.expected_sender() is None
    (line,) = sheet.lines
    stood = f"{observer.names[absent]}'s hand played by the stand-in"
    if void:
        assert line.kind is not LineKind.HAND and line.note == stood
    else:
        assert line.kind is LineKind.HAND and line.note.endswith(f"; {stood}")
        assert line.note.count(";") == 1


def taker_plays_as_the_stand_in(peer: Peer) -> bytes:
    """The taker's own message making exactly the stand-in's move."""
    private = peer.private_state()
    assert private is not None
    if peer.hand.phase is Phase.ECART:
        trial = private.clone()
        cards = 0
        for _ in range(chien_size(peer.config)):
            move = stand_in_action(trial)
            assert isinstance(move, a.Discard)
            trial.apply_action(move)
            cards |= 1 << move.card
        return peer.discard(cards)
    return peer.act(stand_in_action(private))


def defender(peer: Peer) -> bytes:
    """A random legal card, chosen by the seat and the position alone (so that the same
    cards come whether or not the taker's silence added messages to the transcript)."""
    rng = random.Random(f"{peer.seat}/{len(peer.hand.history)}")
    legal = peer.legal_actions()
    plays = [x for x in legal if isinstance(x, a.Play)]
    return peer.act(rng.choice(plays) if plays else legal[0])


@pytest.mark.parametrize("when", ["ecart", "first play", "mid-play"])
@pytest.mark.parametrize("seed", [b"1", b"2"])
def test_a_taker_going_silent_scores_as_the_stand_in_playing_his_hand(
    when: str, seed: bytes
) -> None:
    def moment(h: HandMachine) -> bool:
        engine = h.engine
        if engine is None or engine.taker is None or h.expected_sender() != engine.taker:
            return False
        if when == "ecart":
            return h.phase is Phase.ECART
        return h.phase is Phase.PLAY and len(h.history) > (12 if when == "mid-play" else 0)

    lines = []
    for silent in (True, False):
        table = make_table(one_deal(4), seed=b"taker " + seed)
        until(table, moment)
        taker = table.observer.expected_sender()
        assert taker is not None
        if silent:
            go_silent(table, taker)
        while (sender := table.observer.expected_sender()) is not None:
            peer = table.peer_at(sender)
            if sender != taker:
                wire = peer.next_message() or defender(peer)
            else:
                wire = peer.next_message() or taker_plays_as_the_stand_in(peer)
            table.wires.append(wire)
            for other in (*table.peers, table.observer):
                if other is not peer:
                    other.receive(wire)
        sheet = table.observer.sheet
        assert sheet is not None
        lines.append(sheet.lines[0].scores)
    assert lines[0] == lines[1]


def test_a_taker_silent_at_the_reveal_after_an_illegal_ecart_is_caught_by_the_audit() -> None:
    table = make_table(one_deal(4), seed=b"illegal ecart")
    until(table, MOMENTS["ecart"])
    taker = table.observer.expected_sender()
    assert taker is not None
    peer = table.peer_at(taker)
    private = peer.private_state()
    assert private is not None
    hand = private.hands[taker]
    king = min(cards_of(hand & KING_MASK), default=None)
    assert king is not None, "the seed must give the taker a king"
    others = [c for c in cards_of(hand & ~KING_MASK) if c < 56][: chien_size(table.config) - 1]
    wire = cheat_discard(peer, (1 << king) | sum(1 << c for c in others))
    table.wires.append(wire)
    for other in (*table.peers, table.observer):
        if other is not peer:
            other.receive(wire)
    while not (
        table.observer.hand.phase is Phase.REVEAL and table.observer.expected_sender() == taker
    ):
        if table.observer.expected_sender() != taker or peer.next_message() is not None:
            assert step(table, BOT)
            continue
        # The cheater's own engine is gone (cheat_discard): its legal cards from the public one.
        public = table.observer.hand.engine
        assert public is not None
        trial = public.clone()
        if trial.phase is EnginePhase.GO:
            wire = cheat_act(peer, a.Go(False))
        else:
            trial.reveal_hand(taker, peer.my_cards())
            wire = cheat_play(peer, min(cards_of(trial.legal_play_mask())))
        table.wires.append(wire)
        for other in (*table.peers, table.observer):
            if other is not peer:
                other.receive(wire)
    go_silent(table, taker)
    while step(table, BOT):
        pass
    audit = table.observer.hand.audit
    assert audit is not None and any(o.seat == taker for o in audit.offences)
    sheet = table.observer.sheet
    assert sheet is not None and sheet.lines[0].scores == audit.returns
    assert audit.returns[taker] < 0


def deliver(table: Table, sender: Peer, wire: bytes) -> list[SeatViolation]:
    refused = []
    for other in (*table.peers, table.observer):
        if other is not sender:
            try:
                other.receive(wire)
            except SeatViolation as exc:
                refused.append(exc)
    return refused


def test_an_escrow_that_does_not_add_up_is_its_senders_violation() -> None:
    table = make_table(one_deal(4), seed=b"escrow sum")
    until(table, lambda h: h.phase is Phase.ESCROW and len(h.escrows) == 1)
    cheater = table.peer_at(1)
    refused = deliver(
        table, cheater, bad_escrow_sum(cheater, table.key_of(1, 1), DeterministicRandom(b"c"))
    )
    assert len(refused) == 4 and all(r.seat == 1 for r in refused)


def test_a_badly_sealed_piece_makes_its_holder_complain_and_blames_the_owner() -> None:
    table = make_table(one_deal(4), seed=b"sealed")
    until(table, lambda h: h.phase is Phase.ESCROW and len(h.escrows) == 2)
    cheater = table.peer_at(2)
    wire = badly_sealed_piece(cheater, table.key_of(1, 2), DeterministicRandom(b"c"))
    for peer in (*table.peers, table.observer):
        peer.receive(wire)  # its commitments add up: nobody but the holder can see the fault
    table.wires.append(wire)
    while table.observer.hand.phase is not Phase.SHUFFLE:
        assert step(table, BOT)
    holder = table.peer_at(0)  # the first piece is the lowest holder's
    with pytest.raises(CheatExposed) as own:
        holder.next_message()
    assert own.value.seat == 2 and own.value.outgoing is not None
    # The evidence: the owner's escrow of this hand (not the last escrow of the round,
    # seat 3's, nor its own last message), then the complaint that opens its piece.
    assert own.value.evidence == (wire, own.value.outgoing)
    refused = deliver(table, holder, own.value.outgoing)
    assert len(refused) == 4 and all(isinstance(r, CheatExposed) and r.seat == 2 for r in refused)
    assert all(r.evidence == (wire, own.value.outgoing) for r in refused)


def test_a_false_complaint_is_the_complainers_violation() -> None:
    table = make_table(one_deal(4), seed=b"false complaint")
    until(table, lambda h: h.phase is Phase.SHUFFLE and len(h.accepted) == 1)
    liar = table.peer_at(1)
    refused = deliver(table, liar, false_complaint(liar, table.key_of(1, 1)))
    assert len(refused) == 4 and all(
        r.seat == 1 and not isinstance(r, CheatExposed) for r in refused
    )


def test_a_wrong_release_is_its_senders_violation_and_a_second_silence_no_abandon() -> None:
    table = make_table(one_deal(4), seed=b"release")
    until(table, MOMENTS["bidding"])
    absent = table.observer.expected_sender()
    assert absent is not None
    go_silent(table, absent)
    releaser = table.observer.expected_sender()
    assert releaser is not None and table.observer.hand.phase is Phase.RELEASE
    assert all(p.forfeit_claim() is None for p in table.peers)  # a silence here: no abandon
    cheater = table.peer_at(releaser)
    wire = wrong_release(cheater, table.key_of(1, releaser), DeterministicRandom(b"c"))
    refused = deliver(table, cheater, wire)
    assert len(refused) == 3 and all(r.seat == releaser for r in refused)
    assert all("release: " in str(r) for r in refused)  # what the log tells of it


@pytest.mark.parametrize("fault", ["itself", "no such seat", "not a scalar"])
def test_a_complaint_naming_no_escrow_or_bearing_no_scalar_is_the_complainers_violation(
    fault: str,
) -> None:
    """table.md §3 SHUFFLE, crypto.md §10.5: a complaint of the sender's own escrow, of a
    seat with none (owner ≥ n), or whose e is 32 bytes ≥ n, blames the complainer."""
    table = make_table(one_deal(4), seed=b"complaint owner")
    until(table, lambda h: h.phase is Phase.SHUFFLE and len(h.accepted) == 1)
    liar = table.peer_at(1)
    e = scalar_to_bytes(escrow_secret(liar))
    body = {
        "itself": m.Complaint(1, e),
        "no such seat": m.Complaint(4, e),
        "not a scalar": m.Complaint(0, b"\xff" * 32),
    }[fault]
    refused = deliver(table, liar, sign_next(liar, table.key_of(1, 1), body))
    assert len(refused) == 4 and all(
        r.seat == 1 and not isinstance(r, CheatExposed) for r in refused
    )
