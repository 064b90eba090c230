"""The after-the-fact audit: offences found in complete records, none in legal ones."""

from __future__ import annotations

import dataclasses

import pytest

from tarot_p2p.rules.actions import Action, Bid, Discard, Go, Misere, MisereKind, Play, Poignee
from tarot_p2p.rules.audit import HandRecord, InvalidRecord, audit_hand, record_of
from tarot_p2p.rules.cards import KING_MASK, parse_card
from tarot_p2p.rules.config import Penalty, TableConfig
from tarot_p2p.rules.scoring import score_hand
from tarot_p2p.rules.state import from_hands

from .engine_helpers import (
    build_deal,
    cards,
    first_card,
    inject_revoke,
    play_out,
    plays_with_seats,
    random_hand,
    to_play,
    winner_at,
)

FOUR = TableConfig()


@pytest.mark.parametrize(
    "config", [TableConfig(players=3), FOUR, TableConfig(players=5)], ids=["3", "4", "5"]
)
def test_legal_random_hands_have_no_offence(config: TableConfig) -> None:
    for seed in range(15):
        state, hands, chien, _ = random_hand(config, seed)
        report = audit_hand(record_of(state, hands, chien))
        assert report.offences == () and report.complete
        assert report.returns == state.returns()


@pytest.mark.parametrize("penalty", list(Penalty))
def test_injected_revoke_is_found_and_penalised(penalty: Penalty) -> None:
    config = TableConfig(penalty=penalty)
    found = 0
    for seed in range(40):
        state, hands, chien, _ = random_hand(config, seed)
        if state.outcome() is None:
            continue
        injected = inject_revoke(state)
        if injected is None:
            continue
        actions, seat, index = injected
        rec = HandRecord(config, state.dealer, tuple(hands), chien, tuple(actions))
        report = audit_hand(rec)
        first = report.offences[0]
        assert (first.seat, first.rule, first.action_index) == (seat, "revoke", index)
        assert report.outcome is not None and report.outcome.offender == seat
        clean = dataclasses.replace(report.outcome, offender=None)
        if penalty is Penalty.REPORT_ONLY:
            assert report.returns == score_hand(config, clean)
        else:
            attack = seat in (report.outcome.taker, report.outcome.partner)
            taker_score = report.returns[report.outcome.taker]
            assert (taker_score < 0) if attack else (taker_score > 0)
        found += 1
    assert found >= 10


def test_illegal_ecart_is_found() -> None:
    for seed in range(400):
        state, hands, chien, _ = random_hand(FOUR, seed)
        if state.contract is None or state.contract > 2 or not state.ecart:
            continue
        history = state.history()
        taker = state.taker
        discard_at = next(i for i, a in enumerate(history) if isinstance(a, Discard))
        old = history[discard_at]
        assert isinstance(old, Discard)
        kings = [
            (i, card)
            for i, s, card, t in plays_with_seats(state)
            if s == taker
            and (KING_MASK >> card) & 1
            and winner_at(state.tricks[t].cards)
            == winner_at(tuple(old.card if c == card else c for c in state.tricks[t].cards))
        ]
        if not kings:
            continue
        i, king = kings[0]
        history[discard_at], history[i] = Discard(king), Play(old.card)
        report = audit_hand(HandRecord(FOUR, state.dealer, tuple(hands), chien, tuple(history)))
        first = report.offences[0]
        assert (first.seat, first.rule) == (taker, "ecart-king-oudler")
        assert report.outcome is not None and report.outcome.offender == taker
        return
    pytest.fail("no hand to inject an illegal écart into")


def _record_with(
    fixed: dict[int, str],
    insert: Action,
    config: TableConfig,
    avoid: dict[int, str] | None = None,
) -> HandRecord:
    """A legal garde sans by seat 0 with ``insert`` slipped in before seat 0's first card."""
    hands, chien = build_deal(config, 3, fixed, avoid=avoid)
    state = from_hands(config, 3, hands, chien)
    to_play(state, taker=0)
    at = len(state.history())
    play_out(state, first_card)
    actions = state.history()
    actions.insert(at, insert)
    return HandRecord(config, 3, tuple(hands), chien, tuple(actions))


def test_false_poignee_and_excuse_in_poignee_are_found() -> None:
    nine = "T2 T3 T4 T5 T6 T7 T8 T9 T10"
    rec = _record_with({0: nine + " EX T11"}, Poignee(cards(nine + " EX")), FOUR)
    report = audit_hand(rec)
    assert [(o.seat, o.rule) for o in report.offences] == [(0, "poignee-excuse")]
    rec = _record_with({0: nine}, Poignee(cards(nine + " T21")), FOUR, avoid={0: "T21"})
    with pytest.raises(InvalidRecord, match="does not hold"):
        audit_hand(rec)  # showing a card one does not hold contradicts the deal


def test_false_misere_is_found() -> None:
    config = TableConfig(misere=True)
    rec = _record_with({0: "T2"}, Misere(MisereKind.TRUMP), config)
    report = audit_hand(rec)
    assert [(o.seat, o.rule) for o in report.offences] == [(0, "misere-false")]
    assert report.outcome is not None and report.outcome.offender == 0


def test_misere_d_atout_with_the_excuse_is_false() -> None:
    """Seed 000: for the announcements the Excuse counts as a trump."""
    config = TableConfig(misere=True)
    no_trump = " ".join(f"T{n}" for n in range(1, 22))
    hands, chien = build_deal(config, 3, {1: "EX"}, avoid={1: no_trump})
    state = from_hands(config, 3, hands, chien)
    to_play(state, taker=0)
    at = len(state.history()) + 1  # after seat 0's lead, at seat 1's turn
    play_out(state, first_card)
    actions = state.history()
    actions.insert(at, Misere(MisereKind.TRUMP))
    report = audit_hand(HandRecord(config, 3, tuple(hands), chien, tuple(actions)))
    assert [(o.seat, o.rule) for o in report.offences] == [(1, "misere-false")]


def test_hidden_petit_sec_is_found() -> None:
    others = " ".join(f"T{n}" for n in range(2, 22)) + " EX"
    hands, chien = build_deal(FOUR, 3, {1: "T1"}, avoid={1: others})
    rec = HandRecord(FOUR, 3, tuple(hands), chien, tuple(Bid(0) for _ in range(4)))
    report = audit_hand(rec)
    assert [(o.seat, o.rule) for o in report.offences] == [(1, "petit-sec-hidden")]
    assert report.returns == (0, 0, 0, 0)


def test_publicly_illegal_record_is_invalid() -> None:
    hands, chien = build_deal(FOUR, 3, {})
    with pytest.raises(InvalidRecord, match="bid-order"):
        audit_hand(HandRecord(FOUR, 3, tuple(hands), chien, (Bid(2), Bid(1))))
    with pytest.raises(InvalidRecord):
        audit_hand(HandRecord(FOUR, 3, tuple(hands), chien, (Bid(3), Go(False))))


def test_incomplete_record() -> None:
    hands, chien = build_deal(FOUR, 3, {})
    report = audit_hand(HandRecord(FOUR, 3, tuple(hands), chien, (Bid(3),)))
    assert not report.complete and report.outcome is None


HEARTS = "1H 2H 3H 4H 5H 6H 7H 8H 9H 10H JH CH QH KH"


@pytest.mark.parametrize(
    ("fixed", "avoid", "plays", "rule"),
    [
        ({0: "2H", 1: "5H 3S"}, {}, ["2H", "3S"], "revoke"),
        ({0: "2H", 1: "T10 3S"}, {1: HEARTS}, ["2H", "3S"], "must-trump"),
        (
            {0: "2H", 1: "T10", 2: "T5 T15"},
            {1: HEARTS, 2: HEARTS},
            ["2H", "T10", "T5"],
            "must-overtrump",
        ),
        ({0: "T10", 1: "T5 T15 3C"}, {}, ["T10", "T5"], "must-overtrump"),
        ({0: "T10", 1: "T5 3C"}, {}, ["T10", "3C"], "must-trump"),
    ],
)
def test_play_offences_are_named(
    fixed: dict[int, str], avoid: dict[int, str], plays: list[str], rule: str
) -> None:
    hands, chien = build_deal(FOUR, 3, fixed, avoid=avoid)
    actions: list[Action] = [Bid(3), Bid(0), Bid(0), Bid(0), Go(False)]
    actions += [Play(parse_card(n)) for n in plays]
    report = audit_hand(HandRecord(FOUR, 3, tuple(hands), chien, tuple(actions)))
    assert not report.complete
    assert [(o.seat, o.rule) for o in report.offences] == [(len(plays) - 1, rule)]


def test_legal_plays_of_the_same_tricks_are_not_offences() -> None:
    hands, chien = build_deal(
        FOUR, 3, {0: "2H", 1: "T10", 2: "T5 T15"}, avoid={1: HEARTS, 2: HEARTS}
    )
    actions: list[Action] = [Bid(3), Bid(0), Bid(0), Bid(0), Go(False)]
    actions += [Play(parse_card(n)) for n in ("2H", "T10", "T15")]
    assert audit_hand(HandRecord(FOUR, 3, tuple(hands), chien, tuple(actions))).offences == ()
