"""Score sheet: seed 002's round, zero-sum lines, void deals, dealers, game end, rendering."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.rules.config import MAX_GAME_LENGTH, FivePlayerMode, GameEnd, TableConfig
from tarot_p2p.rules.scoring import Contract, HandOutcome, Poignee, Side, score_hand
from tarot_p2p.rules.sheet import LineKind, ScoreSheet

FOUR = TableConfig()
NAMES = ("Emma", "Nico", "Pat", "Léa")


def seed_002_round() -> ScoreSheet:
    """Seed 002's round; Emma takes only deal 3, the other takers as the line totals imply."""
    sheet = ScoreSheet(FOUR, NAMES)
    deals = [
        HandOutcome(Contract.GARDE, 1, None, 94, 2, petit_au_bout=Side.ATTACK),
        HandOutcome(Contract.PRISE, 2, None, 96, 1),
        HandOutcome(Contract.GARDE_SANS, 0, None, 104, 3, poignees=(Poignee(Side.DEFENCE, 1),)),
        HandOutcome(Contract.GARDE, 3, None, 81, 2, petit_au_bout=Side.DEFENCE),
    ]
    for outcome in deals:
        sheet.add_hand(score_hand(FOUR, outcome))
    return sheet


def test_seed_002_round_emma_wins_with_570() -> None:
    sheet = seed_002_round()
    assert [line.scores for line in sheet.lines] == [
        (-82, 246, -82, -82),
        (28, 28, -84, 28),
        (552, -184, -184, -184),
        (72, 72, 72, -216),
    ]
    assert sheet.totals == (570, 162, -278, -454)
    assert sheet.is_over
    assert sheet.winners() == (0,)


def test_emma_570_whoever_took_deals_2_and_4() -> None:
    # Emma's total depends only on her being a defender in deals 1, 2 and 4.
    for taker2 in (1, 2, 3):
        for taker4 in (1, 2, 3):
            sheet = ScoreSheet(FOUR, NAMES)
            sheet.add_hand(
                score_hand(FOUR, HandOutcome(Contract.GARDE, 1, None, 94, 2, Side.ATTACK))
            )
            sheet.add_hand(score_hand(FOUR, HandOutcome(Contract.PRISE, taker2, None, 96, 1)))
            sheet.add_hand(
                score_hand(
                    FOUR,
                    HandOutcome(
                        Contract.GARDE_SANS, 0, None, 104, 3, poignees=(Poignee(Side.DEFENCE, 1),)
                    ),
                )
            )
            sheet.add_hand(
                score_hand(FOUR, HandOutcome(Contract.GARDE, taker4, None, 81, 2, Side.DEFENCE))
            )
            assert sheet.totals[0] == 570


def test_rejects_lines_of_wrong_length_or_sum() -> None:
    sheet = ScoreSheet(FOUR, NAMES)
    with pytest.raises(ValueError, match="4 scores"):
        sheet.add_hand((10, -10))
    with pytest.raises(ValueError, match="sums to 1"):
        sheet.add_hand((10, -10, 0, 1))
    with pytest.raises(ValueError, match="integers"):
        sheet.add_hand((1.5, -1.5, 0, 0))  # type: ignore[arg-type]
    assert sheet.lines == ()


def test_names_are_checked() -> None:
    with pytest.raises(ValueError, match="4 player names"):
        ScoreSheet(FOUR, ("A", "B", "C"))
    with pytest.raises(ValueError, match="differ"):
        ScoreSheet(FOUR, ("A", "B", "C", "a"))
    with pytest.raises(ValueError, match="empty"):
        ScoreSheet(FOUR, ("A", "B", "C", " "))
    with pytest.raises(ValueError, match="first dealer"):
        ScoreSheet(FOUR, NAMES, first_dealer=4)


def test_seat_of_by_name_or_one_based_seat() -> None:
    sheet = ScoreSheet(FOUR, NAMES)
    assert sheet.seat_of("léa") == 3
    assert sheet.seat_of("2") == 1
    for bad in ("Bob", "0", "5"):
        with pytest.raises(ValueError, match="no player"):
            sheet.seat_of(bad)


def test_void_deals_rotate_the_dealer_and_count_as_deals() -> None:
    sheet = ScoreSheet(FOUR, NAMES, first_dealer=2)
    assert sheet.dealer == 2
    sheet.add_void(LineKind.ALL_PASS)
    sheet.add_void(LineKind.PETIT_SEC, "Pat shows the petit sec")
    assert [line.dealer for line in sheet.lines] == [2, 3]
    assert sheet.dealer == 0
    assert sheet.totals == (0, 0, 0, 0)
    with pytest.raises(ValueError, match="void deal"):
        sheet.add_void(LineKind.HAND)
    sheet.add_hand((3, -1, -1, -1))
    sheet.add_hand((-3, 1, 1, 1))
    assert sheet.is_over
    with pytest.raises(ValueError, match="over"):
        sheet.add_void(LineKind.ALL_PASS)


def test_game_end_by_deals_and_rounds() -> None:
    by_deals = ScoreSheet(TableConfig(players=3, game_end=GameEnd.DEALS, game_length=2), "ABC")
    by_rounds = ScoreSheet(TableConfig(players=3, game_end=GameEnd.ROUNDS, game_length=2), "ABC")
    assert (by_deals.deals_to_play, by_rounds.deals_to_play) == (2, 6)
    for _ in range(2):
        by_deals.add_hand((2, -1, -1))
        by_rounds.add_hand((2, -1, -1))
    assert by_deals.is_over
    assert not by_rounds.is_over


def test_game_end_by_points_stops_after_the_first_deal_above_the_total() -> None:
    sheet = ScoreSheet(TableConfig(game_end=GameEnd.POINTS, game_length=300), NAMES)
    assert sheet.deals_to_play is None
    sheet.add_hand((300, -100, -100, -100))
    assert not sheet.is_over  # exactly 300 does not exceed 300
    sheet.add_hand((3, -1, -1, -1))
    assert sheet.is_over


def test_ties_give_several_winners() -> None:
    sheet = ScoreSheet(TableConfig(game_end=GameEnd.DEALS, game_length=1), NAMES)
    sheet.add_hand((50, 50, -50, -50))
    assert sheet.winners() == (0, 1)
    assert "Game over. Emma and Nico share the win." in sheet.render(str)


def test_a_game_ended_level_has_no_winner_in_words() -> None:
    """One deal that everybody passed: every total is 0, and nobody is named the winner."""
    sheet = ScoreSheet(TableConfig(game_end=GameEnd.DEALS, game_length=2), NAMES)
    sheet.add_void(LineKind.ALL_PASS)
    assert "Level so far. Next dealer:" in sheet.render(str)
    sheet.add_void(LineKind.ALL_PASS)
    text = sheet.render(str)
    assert text.endswith("Game over, level: nobody wins.") and "Winner" not in text


def test_dead_hand_is_the_dealer_and_scores_zero() -> None:
    config = TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND)
    sheet = ScoreSheet(config, ("A", "B", "C", "D", "E"), first_dealer=1)
    assert sheet.dead == 1
    with pytest.raises(ValueError, match="sits out"):
        sheet.add_hand((3, -3, 0, 0, 0))
    sheet.add_hand(score_hand(config, HandOutcome(Contract.PRISE, 0, None, 120, 2, dead=1)))
    assert sheet.dead == 2
    assert ScoreSheet(TableConfig(players=5), "ABCDE").dead is None


def test_render_and_dict() -> None:
    sheet = seed_002_round()
    text = sheet.render(str)
    lines = text.splitlines()
    assert lines[0].split() == ["#", "Dealer", *NAMES, "Note"]
    assert lines[-2].split() == ["Total", "+570", "+162", "-278", "-454"]
    assert lines[-1] == "Game over. Winner: Emma."
    # Columns are aligned: every score ends where its header ends.
    end = lines[0].index("Léa") + len("Léa")
    assert all(line[end - 1].isdigit() for line in lines[2:6])
    data = sheet.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["totals"] == [570, 162, -278, -454]
    assert data["config_digest"] == FOUR.digest().hex()
    assert data["lines"][2] == {
        "number": 3,
        "dealer": 2,
        "kind": "hand",
        "scores": [552, -184, -184, -184],
        "note": "",
    }
    assert data["winners"] == [0]
    assert data["over"] is True


def test_render_void_and_running_game() -> None:
    sheet = ScoreSheet(TableConfig(game_length=2), NAMES)
    sheet.add_void(LineKind.ALL_PASS)
    text = sheet.render(str)
    assert "all pass" in text
    assert text.endswith("Level so far. Next dealer: Nico.")


def test_render_shows_every_name_and_note_through_the_function_given() -> None:
    """The players chose the names (and a note names them): the caller says how they are
    printed (on a terminal, escaped); the columns are aligned on what is printed."""
    sheet = ScoreSheet(TableConfig(game_length=2), NAMES)
    sheet.add_hand((60, -20, -20, -20), "Emma prise made")
    lines = sheet.render(lambda text: f"<{text}>" if text else text).splitlines()
    assert lines[0].split() == ["#", "Dealer", *(f"<{n}>" for n in NAMES), "Note"]
    assert lines[2].split()[1] == "<Emma>" and lines[2].endswith("<Emma prise made>")
    assert lines[-1] == "Leading: <Emma>. Next dealer: <Nico>."
    assert len({len(line) for line in lines[1:4:2]}) == 1  # the rules span the columns


@settings(max_examples=100)
@given(
    st.integers(2, 5).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.integers(0, n - 1),
            st.lists(st.none() | st.lists(st.integers(-500, 500), min_size=n - 1, max_size=n - 1)),
        )
    )
)
def test_totals_sum_to_zero_and_dealers_rotate(
    case: tuple[int, int, list[list[int] | None]],
) -> None:
    players, first, deals = case
    sheet = ScoreSheet(
        TableConfig(players=players, game_end=GameEnd.POINTS, game_length=MAX_GAME_LENGTH),
        [f"P{i}" for i in range(players)],
        first_dealer=first,
    )
    for deal in deals:
        if deal is None:
            sheet.add_void(LineKind.ALL_PASS)
        else:
            sheet.add_hand([*deal, -sum(deal)])
    assert sum(sheet.totals) == 0
    assert [line.dealer for line in sheet.lines] == [
        (first + k) % players for k in range(len(deals))
    ]
    assert set(sheet.winners()) == {s for s, t in enumerate(sheet.totals) if t == max(sheet.totals)}
