"""Hand scoring: seed 002's worked examples, every variant, every per-player share, penalties."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.rules.config import (
    AllPass,
    FivePlayerMode,
    Penalty,
    PetitAuBout,
    PoigneeBeneficiary,
    TableConfig,
)
from tarot_p2p.rules.scoring import (
    MULTIPLIER,
    Contract,
    HandOutcome,
    Poignee,
    RefereedOutcome,
    Side,
    explain_hand,
    score_hand,
    score_misere_deal,
    score_refereed,
    threshold,
)

FOUR = TableConfig()
A, D = Side.ATTACK, Side.DEFENCE


def hand(
    points: float,
    oudlers: int,
    contract: Contract = Contract.GARDE,
    taker: int = 1,
    **kw: Any,
) -> HandOutcome:
    """An outcome with the attack's points written as a human would (47, 40.5)."""
    half = int(points * 2)
    assert half == points * 2
    return HandOutcome(contract, taker, kw.pop("partner", None), half, oudlers, **kw)


def per_defender(config: TableConfig, outcome: HandOutcome) -> int:
    return explain_hand(config, outcome).hand_score


# --- seed 002 -------------------------------------------------------------------------------


def test_seed_002_nico_made_with_petit_au_bout() -> None:
    h = explain_hand(FOUR, hand(47, 2, petit_au_bout=A))
    assert (h.threshold, h.difference, h.base, h.petit_au_bout, h.hand_score) == (41, 6, 62, 20, 82)
    assert h.scores == (-82, 246, -82, -82)


def test_seed_002_nico_failed_keeps_his_petit_au_bout() -> None:
    h = explain_hand(FOUR, hand(38, 2, petit_au_bout=A))
    assert (h.difference, h.base, h.petit_au_bout, h.hand_score) == (-3, -56, 20, -36)
    assert h.scores == (36, -108, 36, 36)


def test_seed_002_round_deal_3_defence_poignee_goes_to_the_winning_taker() -> None:
    outcome = hand(52, 3, Contract.GARDE_SANS, taker=0, poignees=(Poignee(D, 1),))
    assert score_hand(FOUR, outcome) == (552, -184, -184, -184)


def test_seed_002_round_deal_4_half_point_to_the_defence() -> None:
    h = explain_hand(FOUR, hand(40.5, 2, taker=3, petit_au_bout=D))
    assert (h.difference, h.base, h.hand_score) == (-1, -52, -72)
    assert h.scores == (72, 72, 72, -216)


# --- threshold and the half point -----------------------------------------------------------


def test_threshold_table() -> None:
    assert [threshold(n) for n in range(4)] == [56, 51, 41, 36]
    for bad in (-1, 4):
        with pytest.raises(ValueError, match="oudlers"):
            threshold(bad)


@pytest.mark.parametrize(
    ("points", "oudlers", "difference"),
    [
        (41.5, 2, 1),
        (40.5, 2, -1),
        (41, 2, 0),
        (36, 3, 0),
        (35.5, 3, -1),
        (56, 0, 0),
        (55.5, 0, -1),
        (51.5, 1, 1),
        (91, 3, 55),
        (4.5, 1, -47),
        (0, 0, -56),
    ],
)
def test_difference_gives_the_half_point_to_the_winner(
    points: float, oudlers: int, difference: int
) -> None:
    h = explain_hand(FOUR, hand(points, oudlers, Contract.PRISE))
    assert h.difference == difference
    assert h.made == (difference >= 0)
    assert h.hand_score == (25 + abs(difference)) * (1 if h.made else -1)


@pytest.mark.parametrize("contract", list(Contract))
def test_multiplier_applies_to_base_and_petit_au_bout_only(contract: Contract) -> None:
    mult = {Contract.PRISE: 1, Contract.GARDE: 2, Contract.GARDE_SANS: 4, Contract.GARDE_CONTRE: 6}
    assert MULTIPLIER[contract] == mult[contract]
    outcome = hand(47, 2, contract, petit_au_bout=A, poignees=(Poignee(A, 1),), chelem=None)
    assert per_defender(FOUR, outcome) == 31 * mult[contract] + 10 * mult[contract] + 20


# --- per-player shares ----------------------------------------------------------------------


def test_three_players_taker_takes_twice() -> None:
    config = TableConfig(players=3)
    assert score_hand(config, hand(47, 2, taker=2)) == (-62, -62, 124)


def test_four_players_taker_takes_three_times() -> None:
    assert score_hand(FOUR, hand(38, 2, taker=0)) == (-168, 56, 56, 56)


def test_five_players_with_partner() -> None:
    config = TableConfig(players=5)
    assert score_hand(config, hand(47, 2, taker=1, partner=3)) == (-62, 124, -62, 62, -62)


def test_five_players_taker_alone() -> None:
    config = TableConfig(players=5)
    assert score_hand(config, hand(38, 2, taker=4)) == (56, 56, 56, 56, -224)


def test_five_players_dead_hand_is_a_four_player_hand() -> None:
    config = TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND)
    assert score_hand(config, hand(47, 2, taker=1, dead=0)) == (0, 186, -62, -62, -62)


def test_two_players_counted_once() -> None:
    config = TableConfig(players=2)
    assert score_hand(config, hand(47, 2, taker=0, petit_au_bout=A)) == (82, -82)


def test_defence_chelem_pays_each_defender_with_partner() -> None:
    config = TableConfig(players=5)
    scores = score_hand(config, hand(4, 1, Contract.GARDE_SANS, taker=0, partner=2, chelem=D))
    # base (25 + 47) x 4 = 288, plus 200 for the defence's chelem.
    assert scores == (-976, 488, -488, 488, 488)


# --- petit au bout --------------------------------------------------------------------------


def test_petit_au_bout_seed_001_examples() -> None:
    # Garde sans, a defender takes the petit au bout: the taker pays 10 x 4 = 40 more.
    made = explain_hand(FOUR, hand(60, 2, Contract.GARDE_SANS, petit_au_bout=D))
    assert made.petit_au_bout == -40
    # Prise, a defender wins the last trick with the petit: 10 per defender.
    assert explain_hand(FOUR, hand(60, 2, Contract.PRISE, petit_au_bout=D)).petit_au_bout == -10


def test_petit_au_bout_fixed_variant() -> None:
    config = TableConfig(petit_au_bout=PetitAuBout.FIXED)
    h = explain_hand(config, hand(60, 2, Contract.GARDE_CONTRE, petit_au_bout=D))
    assert h.petit_au_bout == -10
    assert h.hand_score == 44 * 6 - 10


# --- poignées -------------------------------------------------------------------------------


def test_poignee_seed_001_examples() -> None:
    # The taker shows a double poignée and wins: each defender pays 30 more.
    assert explain_hand(FOUR, hand(47, 2, poignees=(Poignee(A, 2),))).poignees == 30
    # A defender shows ten trumps and the taker wins: each defender pays 20.
    assert explain_hand(FOUR, hand(47, 2, poignees=(Poignee(D, 1),))).poignees == 20


def test_poignees_add_up_and_go_to_the_winner() -> None:
    shown = (Poignee(A, 3), Poignee(D, 1))
    assert explain_hand(FOUR, hand(38, 2, poignees=shown)).poignees == -60
    assert explain_hand(FOUR, hand(47, 2, poignees=shown)).poignees == 60


def test_poignee_to_announcer_variant() -> None:
    config = TableConfig(poignee_beneficiary=PoigneeBeneficiary.ANNOUNCER)
    shown = (Poignee(A, 3), Poignee(D, 1))
    assert explain_hand(config, hand(38, 2, poignees=shown)).poignees == 40 - 20
    assert explain_hand(config, hand(47, 2, poignees=(Poignee(D, 2),))).poignees == -30


def test_old_poignee_values() -> None:
    config = TableConfig(poignee_values=(20, 40, 60))
    assert explain_hand(config, hand(47, 2, poignees=(Poignee(A, 3),))).poignees == 60


# --- chelem ---------------------------------------------------------------------------------


def test_chelem_announced_and_made() -> None:
    h = explain_hand(FOUR, hand(87, 2, chelem_announced=True, chelem=A))
    assert h.chelem == 400
    assert h.hand_score == (25 + 46) * 2 + 400


def test_chelem_made_unannounced() -> None:
    assert explain_hand(FOUR, hand(91, 3, chelem=A)).chelem == 200


def test_chelem_announced_and_failed() -> None:
    h = explain_hand(FOUR, hand(80, 3, chelem_announced=True))
    assert h.chelem == -200
    assert h.hand_score == (25 + 44) * 2 - 200


def test_defence_chelem_on_top_of_a_failed_announcement() -> None:
    assert explain_hand(FOUR, hand(4, 1, chelem=D)).chelem == -200
    assert explain_hand(FOUR, hand(4, 1, chelem_announced=True, chelem=D)).chelem == -400


def test_chelem_values_variant() -> None:
    config = TableConfig(chelem_values=(1000, 500, -500))
    assert explain_hand(config, hand(91, 3, chelem_announced=True, chelem=A)).chelem == 1000
    assert explain_hand(config, hand(4, 1, chelem=D)).chelem == -500


def test_chelem_impossible_with_the_result() -> None:
    with pytest.raises(ValueError, match="every trick"):
        hand(40, 2, chelem=A)
    with pytest.raises(ValueError, match="every trick"):
        hand(60, 2, chelem=D)


# --- petit chelem (variant) -----------------------------------------------------------------

PC = TableConfig(petit_chelem=True)


def test_petit_chelem_needs_the_variant() -> None:
    with pytest.raises(ValueError, match="petit chelem"):
        score_hand(FOUR, hand(80, 3, petit_chelem=A))
    with pytest.raises(ValueError, match="petit chelem"):
        score_hand(FOUR, hand(80, 3, petit_chelem_announced=True))


@pytest.mark.parametrize(
    ("points", "oudlers", "kw", "bonus"),
    [
        (86.5, 3, {"petit_chelem": A, "petit_chelem_announced": True}, 300),
        (86.5, 3, {"petit_chelem": A}, 150),
        (70, 3, {"petit_chelem_announced": True}, -150),
        (10, 1, {"petit_chelem": D}, -150),
        (10, 1, {"petit_chelem": D, "petit_chelem_announced": True}, -300),
        (91, 3, {"chelem": A, "petit_chelem_announced": True}, 300),
        (86.5, 3, {"petit_chelem": A, "chelem_announced": True}, -200),
    ],
)
def test_petit_chelem_values(points: float, oudlers: int, kw: dict[str, Any], bonus: int) -> None:
    assert explain_hand(PC, hand(points, oudlers, **kw)).chelem == bonus


def test_chelem_and_petit_chelem_are_exclusive() -> None:
    with pytest.raises(ValueError, match="not both"):
        hand(91, 3, chelem=A, petit_chelem=A)
    with pytest.raises(ValueError, match="not both"):
        hand(91, 3, chelem_announced=True, petit_chelem_announced=True)


# --- misère (variant) -----------------------------------------------------------------------

MISERE = TableConfig(misere=True)


def test_misere_needs_the_variant() -> None:
    with pytest.raises(ValueError, match="misère"):
        score_hand(FOUR, hand(47, 2, miseres=(0,)))


def test_misere_whatever_the_result() -> None:
    plain = score_hand(MISERE, hand(38, 2))
    with_misere = score_hand(MISERE, hand(38, 2, miseres=(2,)))
    assert [b - a for a, b in zip(plain, with_misere, strict=True)] == [-10, -10, 30, -10]


def test_misere_both_kinds_and_two_announcers() -> None:
    h = explain_hand(MISERE, hand(47, 2, miseres=(0, 0, 3)))
    assert h.miseres == (50, -30, -30, 10)
    with pytest.raises(ValueError, match="more than two"):
        score_hand(MISERE, hand(47, 2, miseres=(0, 0, 0)))


def test_misere_at_five_with_dead_hand_is_paid_by_the_four_players() -> None:
    config = TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND, misere=True)
    assert explain_hand(config, hand(47, 2, dead=4, miseres=(2,))).miseres == (-10, -10, 30, -10, 0)
    with pytest.raises(ValueError, match="dead hand"):
        score_hand(config, hand(47, 2, dead=4, miseres=(4,)))


# --- penalty --------------------------------------------------------------------------------


def test_offending_defender_makes_the_attack_win_juste() -> None:
    h = explain_hand(FOUR, hand(38, 2, offender=0))
    assert (h.made, h.attack_wins, h.base) == (False, True, 50)
    assert h.scores == (-50, 150, -50, -50)


def test_offending_defender_when_the_attack_won_anyway() -> None:
    h = explain_hand(FOUR, hand(47, 2, offender=0, petit_au_bout=D))
    assert (h.attack_wins, h.base, h.petit_au_bout, h.hand_score) == (True, 62, 0, 62)


def test_offending_taker_loses_a_made_contract_juste() -> None:
    h = explain_hand(FOUR, hand(47, 2, offender=1))
    assert (h.made, h.attack_wins, h.hand_score) == (True, False, -50)


def test_offending_taker_who_failed_anyway() -> None:
    assert explain_hand(FOUR, hand(38, 2, offender=1)).hand_score == -56


def test_offending_side_gains_no_bonus() -> None:
    outcome = hand(
        47,
        2,
        offender=1,
        petit_au_bout=A,
        poignees=(Poignee(A, 1), Poignee(D, 2)),
        chelem=None,
    )
    h = explain_hand(FOUR, outcome)
    assert (h.petit_au_bout, h.poignees, h.hand_score) == (0, -50, -100)
    announcer = TableConfig(poignee_beneficiary=PoigneeBeneficiary.ANNOUNCER)
    assert explain_hand(announcer, outcome).poignees == -30
    # The non-offending side keeps its petit au bout.
    assert explain_hand(FOUR, hand(47, 2, offender=1, petit_au_bout=D)).petit_au_bout == -20


def test_offending_partner_at_five_is_the_attack() -> None:
    config = TableConfig(players=5)
    scores = score_hand(config, hand(47, 2, taker=0, partner=1, offender=1))
    assert scores == (-100, -50, 50, 50, 50)


def test_offender_loses_his_own_misere_only() -> None:
    config = TableConfig(misere=True)
    h = explain_hand(config, hand(47, 2, miseres=(0, 2), offender=0))
    assert h.miseres == (-10, -10, 30, -10)


def test_offending_attack_chelem_bonus_void_but_failed_announcement_stands() -> None:
    assert explain_hand(FOUR, hand(91, 3, chelem=A, chelem_announced=True, offender=1)).chelem == 0
    assert explain_hand(FOUR, hand(60, 3, chelem_announced=True, offender=1)).chelem == -200


def test_report_only_penalty_leaves_the_score() -> None:
    config = TableConfig(penalty=Penalty.REPORT_ONLY)
    outcome = hand(47, 2, offender=1, petit_au_bout=A)
    assert score_hand(config, outcome) == score_hand(config, hand(47, 2, petit_au_bout=A))


# --- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "kw", "message"),
    [
        (FOUR, {"taker": 4}, "taker seat"),
        (FOUR, {"taker": -1}, "taker seat"),
        (FOUR, {"partner": 2}, "partner is called only"),
        (TableConfig(players=5), {"partner": 5}, "partner seat"),
        (FOUR, {"offender": 7}, "offender seat"),
        (FOUR, {"dead": 0}, "dead seat exists only"),
        (TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND), {}, "dead seat must"),
        (
            TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND),
            {"dead": 1},
            "dead hand",
        ),
        (TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND), {"dead": 5}, "0..4"),
        (FOUR, {"poignees": (Poignee(A, 1),) * 5}, "more poignées"),
    ],
)
def test_bad_seats(config: TableConfig, kw: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        score_hand(config, hand(47, 2, **kw))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((Contract.GARDE, 1, 1, 94, 2), "his own partner"),
        ((Contract.GARDE, 1, None, 183, 3), "0..182"),
        ((Contract.GARDE, 1, None, -1, 0), "0..182"),
        ((Contract.GARDE, 1, None, 94, 4), "0..3"),
        ((Contract.GARDE, 1, None, 10, 3), "cannot hold"),
        ((Contract.GARDE, 1, None, 180, 0), "cannot hold"),
        ((2, 1, None, 94, 2), "Contract"),
        ((Contract.GARDE, 1, None, 94.0, 2), "integers"),
        ((Contract.GARDE, True, None, 94, 2), "integers"),
        ((Contract.GARDE, 1, 2.0, 94, 2), "integers"),
    ],
)
def test_bad_outcomes(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        HandOutcome(*args)


def test_bad_poignee_and_side() -> None:
    with pytest.raises(ValueError, match="level"):
        Poignee(A, 4)
    with pytest.raises(ValueError, match="Side"):
        Poignee(0, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="petit_au_bout"):
        hand(47, 2, petit_au_bout="attack")


# --- properties -----------------------------------------------------------------------------


@st.composite
def table_and_outcome(draw: st.DrawFn) -> tuple[TableConfig, HandOutcome]:
    players = draw(st.integers(2, 5))
    mode = draw(st.sampled_from(FivePlayerMode)) if players == 5 else FivePlayerMode.CALLED_KING
    config = TableConfig(
        players=players,
        five_player_mode=mode,
        poignee_values=draw(st.sampled_from([(20, 30, 40), (20, 40, 60)])),
        poignee_beneficiary=draw(st.sampled_from(PoigneeBeneficiary)),
        petit_au_bout=draw(st.sampled_from(PetitAuBout)),
        chelem_values=draw(st.sampled_from([(400, 200, -200), (1000, 500, -500)])),
        misere=True,
        petit_chelem=True,
        penalty=draw(st.sampled_from(Penalty)),
    )
    seats = list(range(players))
    dead = draw(st.sampled_from(seats)) if config.active_players < players else None
    active = [s for s in seats if s != dead]
    taker = draw(st.sampled_from(active))
    partner = None
    if players == 5 and mode is FivePlayerMode.CALLED_KING:
        partner = draw(st.none() | st.sampled_from([s for s in active if s != taker]))
    oudlers = draw(st.integers(0, 3))
    half = draw(st.integers(8 * oudlers, 182 - 8 * (3 - oudlers)))
    made = half >= 2 * threshold(oudlers)
    slam = draw(st.sampled_from(["none", "chelem", "petit"]))
    chelem = (A if made else D) if slam == "chelem" else None
    petit_chelem = draw(st.sampled_from([A, D])) if slam == "petit" else None
    announce = draw(st.sampled_from(["none", "chelem", "petit"]))
    outcome = HandOutcome(
        contract=draw(st.sampled_from(Contract)),
        taker=taker,
        partner=partner,
        attack_half_points=half,
        attack_oudlers=oudlers,
        petit_au_bout=draw(st.none() | st.sampled_from(Side)),
        poignees=tuple(
            draw(st.lists(st.builds(Poignee, st.sampled_from(Side), st.integers(1, 3)), max_size=2))
        ),
        chelem_announced=announce == "chelem",
        chelem=chelem,
        petit_chelem=petit_chelem,
        miseres=tuple(draw(st.lists(st.sampled_from(active), max_size=2))),
        offender=draw(st.none() | st.sampled_from(active)),
        dead=dead,
        petit_chelem_announced=announce == "petit",
    )
    return config, outcome


@settings(max_examples=400)
@given(table_and_outcome())
def test_every_hand_sums_to_zero(case: tuple[TableConfig, HandOutcome]) -> None:
    config, outcome = case
    scores = score_hand(config, outcome)
    assert len(scores) == config.players
    assert sum(scores) == 0
    assert all(type(s) is int for s in scores)
    if outcome.dead is not None:
        assert scores[outcome.dead] == 0


@settings(max_examples=200)
@given(table_and_outcome())
def test_one_more_half_point_never_hurts_the_attack(case: tuple[TableConfig, HandOutcome]) -> None:
    config, outcome = case
    if outcome.attack_half_points >= 182 - 8 * (3 - outcome.attack_oudlers):
        return
    if outcome.chelem is D and outcome.attack_half_points + 1 == 2 * threshold(
        outcome.attack_oudlers
    ):
        return
    better = HandOutcome(
        **{**outcome.__dict__, "attack_half_points": outcome.attack_half_points + 1}
    )
    before = explain_hand(config, outcome).hand_score
    assert explain_hand(config, better).hand_score >= before


# --- the all-pass misère deal (variant) -----------------------------------------------------

MISERE_DEAL = TableConfig(all_pass=AllPass.MISERE_DEAL)


def test_misere_deal_needs_the_variant() -> None:
    with pytest.raises(ValueError, match="variant"):
        score_misere_deal(FOUR, (40, 40, 40, 52), None)


def test_misere_deal_pairwise_differences() -> None:
    # 0, 10, 20.5 and 40 points: each pair settles its difference, half point to the fewer.
    scores = score_misere_deal(MISERE_DEAL, (0, 20, 41, 80), None)
    assert scores == (10 + 21 + 40, -10 + 11 + 30, -21 - 11 + 20, -40 - 30 - 20)
    assert sum(scores) == 0


def test_misere_deal_ties_and_dead_hand() -> None:
    assert score_misere_deal(MISERE_DEAL, (30, 30, 30, 30), None) == (0, 0, 0, 0)
    config = TableConfig(
        players=5, five_player_mode=FivePlayerMode.DEAD_HAND, all_pass=AllPass.MISERE_DEAL
    )
    assert score_misere_deal(config, (0, 10, 10, 10, 30), 0) == (0, 10, 10, 10, -30)
    with pytest.raises(ValueError, match="dead hand"):
        score_misere_deal(config, (2, 10, 10, 10, 30), 0)
    with pytest.raises(ValueError, match="dead seat"):
        score_misere_deal(config, (0, 10, 10, 10, 30), None)


@pytest.mark.parametrize(
    ("points", "message"),
    [((1, 2, 3), "expected 4"), ((-1, 0, 0, 0), "0..182"), ((100, 100, 0, 0), "more than")],
)
def test_misere_deal_bad_input(points: tuple[int, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        score_misere_deal(MISERE_DEAL, points, None)


@settings(max_examples=200)
@given(
    st.integers(2, 5).flatmap(lambda n: st.lists(st.integers(0, 182 // n), min_size=n, max_size=n))
)
def test_misere_deal_zero_sum_and_order(points: list[int]) -> None:
    config = TableConfig(players=len(points), all_pass=AllPass.MISERE_DEAL)
    scores = score_misere_deal(config, tuple(points), None)
    assert sum(scores) == 0
    for i in range(len(points)):
        for j in range(len(points)):
            if points[i] < points[j]:
                assert scores[i] > scores[j]


def test_a_refereed_outcome_has_the_hand_outcomes_fields_and_defaults() -> None:
    # The engine's count of its own hand: the same fields, order and defaults as the checked
    # construction, which the score reads by name.
    hand_fields = dataclasses.fields(HandOutcome)
    assert RefereedOutcome._fields == tuple(f.name for f in hand_fields)
    assert RefereedOutcome._field_defaults == {
        f.name: f.default for f in hand_fields if f.default is not dataclasses.MISSING
    }
    fields = {"contract": Contract.GARDE, "taker": 1, "partner": None}
    fields |= {"attack_half_points": 120, "attack_oudlers": 2}
    counted, checked = RefereedOutcome(**fields), HandOutcome(**fields)  # type: ignore[arg-type]
    assert counted == tuple(getattr(checked, f.name) for f in hand_fields)
    assert score_refereed(FOUR, counted) == score_hand(FOUR, checked)
