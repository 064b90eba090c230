"""Whole games between in-memory peers: agreement, secrecy, and replay by an observer."""

from __future__ import annotations

import pytest
from cryptography.exceptions import InvalidSignature

from tarot_p2p.conformance.cheats import shares_for, sign_next
from tarot_p2p.crypto.deck import initial_deck
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shuffle import shuffle_and_prove
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.audit_render import render
from tarot_p2p.protocol.audit_report import Status, audit_file
from tarot_p2p.protocol.envelope import seal
from tarot_p2p.protocol.errors import SeatViolation
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.table import HandEnded, Phase, SeatsDrawn, draw_cards
from tarot_p2p.protocol.transcript import file_header
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import (
    PETIT,
    TRUMP_MASK,
    CardSet,
    card_name,
    cards_of,
    mask_of,
    parse_card,
    trump,
)
from tarot_p2p.rules.config import AllPass, FivePlayerMode
from tarot_p2p.rules.deal import deal_pattern
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.rules.sheet import LineKind
from tests.protocol.harness import (
    Bot,
    Table,
    make_table,
    one_deal,
    play_game,
    rig_deal,
    rig_trumps_to_discard,
    step,
    until_poignee,
)


def poignees(table: Table) -> list[tuple[int, CardSet]]:
    """The poignées shown so far in the current hand, from its public history."""
    history = table.observer.hand.history
    return [(seat, act.cards) for seat, act in history if isinstance(act, a.Poignee)]


def check_secrecy(table: Table) -> None:
    """No peer can name a card another seat still holds, nor the hidden chien or écart.

    Private knowledge must stay within the seat's own cards; public knowledge (opened
    slots) must not reach an unplayed slot, unless its holder showed it in a poignée.
    """
    hand = table.peers[0].hand
    if hand.hand == 0 or hand.engine is None:
        return
    shown = 0
    for _, cards in poignees(table):
        shown |= cards
    if hand.void is LineKind.PETIT_SEC:
        shown |= mask_of(hand.cards.values())  # that whole hand was shown
    for p in table.peers:
        private = p.private_cards()
        for q in table.peers:
            if q is not p:
                assert not private & q.my_cards(), f"seat {p.seat} knows cards of seat {q.seat}"
        for slot in hand.holding[p.seat or 0]:
            if slot in hand.cards:
                assert (shown >> hand.cards[slot]) & 1, f"unplayed slot {slot} is open"
    hidden = set(hand.chien_slots)
    engine = hand.engine
    if engine.contract is not None and engine.contract <= Contract.GARDE:
        hidden = set(hand.discard_slots) - set(hand.shown_slots)
    if hand.phase not in (Phase.REVEAL, Phase.SCORE, Phase.DONE):
        assert not hidden & set(hand.cards), "a hidden chien or écart card was opened"


def play_checked(table: Table, bot: Bot) -> None:
    while step(table, bot):
        check_secrecy(table)


def assert_agreement(table: Table) -> None:
    everyone = [*table.peers, table.observer]
    heads = {p.transcript.head for p in everyone}
    assert len(heads) == 1
    assert {len(p.transcript) for p in everyone} == {len(table.wires)}
    sheets = [p.table.sheet for p in everyone]
    assert all(s is not None and s.is_over for s in sheets)
    lines = {s.lines for s in sheets if s is not None}
    assert len(lines) == 1
    for line in lines.pop():
        assert sum(line.scores) == 0


@pytest.mark.parametrize(
    ("players", "contract", "options"),
    [
        (4, Contract.GARDE, {}),
        (3, Contract.PRISE, {}),
        (5, Contract.GARDE, {}),
        (4, Contract.GARDE_SANS, {}),
        (4, Contract.GARDE_CONTRE, {}),
        (5, Contract.PRISE, {"five_player_mode": FivePlayerMode.DEAD_HAND}),
        (4, 0, {"all_pass": AllPass.MISERE_DEAL}),
    ],
)
def test_full_hand_agreed_and_secret(
    players: int, contract: int, options: dict[str, object]
) -> None:
    table = make_table(one_deal(players, **options), seed=f"{players}/{contract}".encode())
    play_checked(table, Bot(contract=contract, seed=players))
    assert_agreement(table)
    sheet = table.observer.table.sheet
    assert sheet is not None
    (line,) = sheet.lines
    assert line.kind is LineKind.HAND and any(line.scores)
    # Every seat's privately opened hand is the one the complete public record shows.
    hand = table.observer.hand
    assert hand.audit is not None and hand.audit.complete and not hand.audit.offences
    record = hand.record()
    for p in table.peers:
        assert p.dealt == record.hands[p.seat or 0]
    for events in table.events:  # every seat and the observer saw the hand end, once
        (ended,) = [e for e in events if isinstance(e, HandEnded) and e.hand == 1]
        assert ended.scores == line.scores


def test_all_pass_is_a_void_deal() -> None:
    table = make_table(one_deal(4), seed=b"pass")
    play_checked(table, Bot(contract=0))
    assert_agreement(table)
    sheet = table.observer.table.sheet
    assert sheet is not None and sheet.lines[0].kind is LineKind.ALL_PASS
    hand = table.observer.hand
    assert not hand.cards.keys() & set(range(78)), "a void deal opens no card"


def test_poignee_opens_only_the_shown_trumps() -> None:
    # Seed chosen so that a seat holds a poignée (8 trumps at five players).
    table = make_table(one_deal(5), seed=b"poignee-5-0")
    bot = Bot(contract=Contract.GARDE, seed=3, poignee=True)
    shown: list[tuple[int, int]] = []
    while step(table, bot):
        check_secrecy(table)
        hand = table.observer.hand
        if poignees(table) and not shown:
            shown = poignees(table)
            seat, cards = shown[0]
            held = table.peer_at(seat).my_cards()
            assert cards & held == cards, "the poignée shows cards its owner still holds"
            opened = {hand.cards[s] for s in hand.holding[seat] if s in hand.cards}
            assert mask_of(opened) == cards, "exactly the poignée's cards are open"
    assert shown, "the seed must give a poignée"
    assert_agreement(table)
    hand = table.observer.hand
    assert hand.audit is not None and hand.audit.outcome is not None
    assert hand.audit.outcome.poignees


def test_a_poignee_naming_its_slots_out_of_order_is_refused() -> None:
    """table.md §2 ``poignee``: its slots are distinct, the sender's, ascending. The same
    cards named in descending order, with right shares and proof, are still refused (one
    form per poignée, as for every list of slots)."""
    table = make_table(one_deal(5), seed=b"poignee-5-8")
    bot = Bot(contract=Contract.GARDE, seed=3)
    peer, offers = until_poignee(table, bot)
    sender = peer.seat
    assert sender is not None
    slots = sorted((peer._slot_of(c) for c in cards_of(offers[0].cards)), reverse=True)
    d, proof = shares_for(peer, "poignee", slots, DeterministicRandom(b"order"))
    wire = sign_next(peer, table.key_of(1, sender), m.Poignee(tuple(slots), d, proof))
    words = "a poignée names distinct unplayed slots of its sender, ascending$"
    with pytest.raises(SeatViolation, match=words) as info:
        table.observer.receive(wire)
    assert info.value.seat == sender


def draw_seats(table: Table) -> SeatsDrawn:
    while table.observer.hand.hand == 0:
        step(table, Bot())
    (drawn,) = [e for e in table.events[-1] if isinstance(e, SeatsDrawn)]
    return drawn


@pytest.mark.parametrize("players", [3, 4, 5])
def test_seats_are_drawn_lowest_card_deals(players: int) -> None:
    table = make_table(one_deal(players), seed=b"draw%d" % players)
    drawn = draw_seats(table)
    final = dict(drawn.draws)
    assert [m for m, _ in drawn.draws] == list(range(players)), "one draw a member"
    assert sorted(final.values()) == [trump(k) for k in range(1, players + 1)]
    assert [final[m] for m in drawn.seating] == sorted(final.values())
    hand0 = [e for e in table.observer.transcript if e.hand == 0]
    shuffles = [e for e in hand0 if e.kind == "shuffle"]
    assert [len(e.body["deck"]) for e in shuffles] == [66 * players] * players, "a short deck"
    for member, peer in enumerate(table.peers):
        assert peer.seating == drawn.seating
        assert peer.member == member and peer.seat == drawn.seating.index(member)
    assert table.observer.hand.dealer == 0, "the lowest card deals hand 1"
    sheet = table.observer.sheet
    assert sheet is not None
    assert sheet.names == tuple(f"P{m}" for m in drawn.seating)
    assert table.observer.names == sheet.names


def test_the_seating_is_not_the_roster_order() -> None:
    # With honest shuffles each seating is equally likely: over five tables at three
    # seats (six seatings) the roster order cannot be the rule.
    seatings = {draw_seats(make_table(one_deal(3), seed=b"s%d" % i)).seating for i in range(5)}
    assert len(seatings) > 1


def test_hand_one_is_signed_by_drawn_seats() -> None:
    table = make_table(one_deal(3), seed=b"signed")
    drawn = draw_seats(table)
    step(table, Bot())
    first = list(table.observer.transcript)[-1]
    assert (first.hand, first.seq, first.seat, first.kind) == (1, 0, 0, "key")
    member = drawn.seating[0]
    assert member != 0, "seed chosen so that seat 0 is not member 0"
    signed = b"tarot-p2p/envelope/v1\x00" + first.payload
    table.keys[member].public_key().verify(first.signature, signed)
    with pytest.raises(InvalidSignature):
        table.keys[0].public_key().verify(first.signature, signed)


def test_the_draw_deck_is_the_lowest_trumps() -> None:
    assert [card_name(c) for c in draw_cards(3)] == ["T1", "T2", "T3"]
    assert [card_name(c) for c in draw_cards(5)] == ["T1", "T2", "T3", "T4", "T5"]


def test_a_game_of_two_deals_rotates_the_dealer() -> None:
    from tarot_p2p.rules.config import GameEnd, TableConfig

    table = make_table(TableConfig(players=3, game_end=GameEnd.DEALS, game_length=2), seed=b"two")
    play_game(table, Bot(contract=Contract.PRISE, seed=3))
    assert_agreement(table)
    sheet = table.observer.table.sheet
    assert sheet is not None
    first, second = sheet.lines
    assert second.dealer == (first.dealer + 1) % 3


def test_petit_sec_opens_that_hand_only_and_voids_the_deal() -> None:
    table = make_table(one_deal(4), seed=b"petit-sec")
    suits = [c for c in range(56) if c % 14 < 10]  # plain suit cards

    def deck_for(dealer: int) -> list[int]:  # dealer is a seat
        pattern = deal_pattern(table.config, dealer)
        holder = (dealer + 1) % 4
        mine = iter([PETIT, *suits[:17]])
        rest = iter(c for c in range(78) if c != PETIT and c not in suits[:17])
        return [next(mine) if dest == holder else next(rest) for dest in pattern]

    rig_deal(table, deck_for)
    play_checked(table, Bot())
    assert_agreement(table)
    sheet = table.observer.sheet
    assert sheet is not None and sheet.lines[0].kind is LineKind.PETIT_SEC
    hand = table.observer.hand
    holder = (hand.dealer + 1) % 4
    assert hand.history[-1] == (holder, a.PETIT_SEC)  # the announcement is its holder's
    opened = {s for s in hand.cards if s < 78}
    assert opened == set(hand.dealt_slots(holder))
    assert mask_of(hand.cards[s] for s in opened) == mask_of([PETIT, *suits[:17]])
    # Every seat signs the void deal's score line: nothing to anyone.
    scores = [e for e in table.observer.transcript if e.hand == 1 and e.kind == "score"]
    assert len(scores) == 4
    assert all(m.load_body("score", e.body) == m.Score((0, 0, 0, 0)) for e in scores)


def hidden_trump_game(monkeypatch: pytest.MonkeyPatch) -> tuple[Table, int]:
    """A garde whose taker must discard trumps (his hand and the chien hold no other
    discardable card) and hides one of them; the table and the hidden trump."""
    table = make_table(one_deal(4), seed=b"hidden-trump")
    rig_trumps_to_discard(table)
    hidden = parse_card("T2")
    # The taker's client "forgets" that T2 is a trump when it chooses which discards to show.
    monkeypatch.setattr("tarot_p2p.protocol.peer.TRUMP_MASK", TRUMP_MASK & ~(1 << hidden))
    play_checked(table, Bot(contract=Contract.GARDE))
    return table, hidden


def test_a_trump_discarded_unshown_is_found_by_the_audit_and_penalised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nobody can see the hidden trump during the hand; the audit finds it once the écart
    is opened, names the taker, and every peer signs the penalised score."""
    table, hidden = hidden_trump_game(monkeypatch)
    assert_agreement(table)
    hand = table.observer.hand
    assert hand.audit is not None and hand.engine is not None
    taker = hand.engine.taker
    assert hidden in set(cards_of(hand.record().unshown_discards))
    rules = {(o.seat, o.rule) for o in hand.audit.offences}
    assert (taker, "ecart-trump-unshown") in rules
    outcome = hand.audit.outcome
    assert outcome is not None and outcome.offender == taker
    assert table.observer.table.sheet is not None
    assert table.observer.table.sheet.lines[0].scores[taker] < 0


def test_a_taker_silent_at_the_final_opening_does_not_escape_the_audit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The taker who hid a trump goes silent instead of opening his écart: every trick is
    played, so the écart is the cards not seen, and the audit of the stopped transcript
    still finds the hidden trump and names him."""
    table, hidden = hidden_trump_game(monkeypatch)
    observer = Peer(
        table.config,
        table.observer.table_id,
        [k.public_key() for k in table.keys],
        list(table.observer.table.setup.names),
    )
    kept = []
    for wire in table.wires:
        hand = observer.hand
        if hand.hand == 1 and hand.phase is Phase.REVEAL:
            assert hand.engine is not None and observer.expected_sender() is not None
            if observer.expected_sender() == hand.engine.taker:
                break  # the taker says nothing more
        observer.receive(wire)
        kept.append(wire)
    assert observer.hand.phase is Phase.REVEAL
    data = file_header(observer.table_id, observer.binding)
    data += b"".join(len(w).to_bytes(4, "big") + w for w in kept)
    report = audit_file(data)
    assert report.status is Status.INCOMPLETE
    summary = report.hands[-1]
    assert summary.by_elimination and summary.ecart is not None and summary.ecart >> hidden & 1
    taker = observer.hand.engine.taker  # type: ignore[union-attr]
    assert (taker, "ecart-trump-unshown") in {(o.seat, o.rule) for o in summary.offences}
    assert "known by elimination" in render(report)


def test_a_draw_shuffle_of_the_whole_deck_is_refused() -> None:
    """Hand 0 shuffles the draw deck: a member who shuffles the 78 cards instead, with a
    proof that holds for them, signed a violation (table.md §4.1)."""
    table = make_table(one_deal(4), seed=b"draw-78")
    while table.observer.hand.phase is not Phase.SHUFFLE:
        step(table, Bot())
    hand = table.observer.hand
    assert hand.hand == 0 and hand.joint_key is not None and len(hand.deck) == 4
    ctx = hand.context("shuffle", 0)
    out, proof = shuffle_and_prove(hand.joint_key, initial_deck(hand.joint_key), ctx, table.rngs[0])
    wire = seal(
        table.keys[0],
        table_id=hand.table_id,
        hand=0,
        seq=hand.count,
        seat=0,
        prev=table.observer.transcript.expected_prev,
        kind="shuffle",
        body=m.dump_body(m.Shuffle(b"".join(ct.to_bytes() for ct in out), proof.to_bytes())),
    ).wire
    with pytest.raises(SeatViolation, match="expected 4 ciphertexts") as refused:
        table.observer.receive(wire)
    assert refused.value.seat == 0
