"""One spelling of the rule options for score, play and host, giving the same configuration."""

from __future__ import annotations

import pytest

from tarot_p2p.cli.host import table_config
from tarot_p2p.cli.main import build_parser, main
from tarot_p2p.rules.config import (
    AllPass,
    ExcuseLastTrick,
    FivePlayerMode,
    GameEnd,
    Penalty,
    PetitAuBout,
    PoigneeBeneficiary,
    TableConfig,
)

RULES = [
    "--five", "dead-hand", "--poignee-values", "20,40,60", "--poignee-to", "announcer",
    "--petit-au-bout-value", "fixed", "--chelem-values", "600,300,-300",
    "--excuse-last-trick", "to-trick-winner", "--variant", "misere", "--variant",
    "petit-chelem", "--variant", "misere-deal", "--penalty", "report-only",
]  # fmt: skip


def test_host_options_make_the_configuration() -> None:
    args = build_parser().parse_args(["host", "--players", "5", "--deals", "3", *RULES])
    assert table_config(args) == TableConfig(
        players=5,
        five_player_mode=FivePlayerMode.DEAD_HAND,
        poignee_values=(20, 40, 60),
        poignee_beneficiary=PoigneeBeneficiary.ANNOUNCER,
        petit_au_bout=PetitAuBout.FIXED,
        chelem_values=(600, 300, -300),
        excuse_last_trick=ExcuseLastTrick.TO_TRICK_WINNER,
        misere=True,
        all_pass=AllPass.MISERE_DEAL,
        petit_chelem=True,
        penalty=Penalty.REPORT_ONLY,
        game_end=GameEnd.DEALS,
        game_length=3,
    )


def test_the_same_options_are_accepted_by_play_and_score(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "--players", "5", "--deals", "2", "--json", *RULES]) == 0
    score = ["score", "--players", "5", "--contract", "garde", "--taker", "1", "--oudlers", "2"]
    assert main([*score, "--attack-points", "47", "--dead", "5", *RULES]) == 0


@pytest.mark.parametrize(
    "bad",
    [["--five", "dead-hand"], ["--poignee-values", "20,40"], ["--chelem-values", "1,2,99999"]],
)
def test_bad_rule_options_are_refused_cleanly(
    bad: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--players", "4", *bad]) == 2
    with pytest.raises(ValueError):
        table_config(build_parser().parse_args(["host", "--players", "4", *bad]))
