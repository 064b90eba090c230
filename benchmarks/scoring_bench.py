"""Timings of the scoring layer: one hand's score, a score sheet, the score counter's round.

Run: ``python3 benchmarks/scoring_bench.py`` (``--json`` for machine output, ``--quick`` for
fewer repetitions). Figures are the best of several runs on one core; on a shared machine
they are noisy — compare runs, not single numbers.

Scoring runs once per hand per peer, so it only has to be far below the cost of a hand's
cryptography; the figures show by how much.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tarot_p2p.cli.main import main as cli_main
from tarot_p2p.rules.config import AllPass, TableConfig
from tarot_p2p.rules.scoring import (
    Contract,
    HandOutcome,
    Poignee,
    Side,
    score_hand,
    score_misere_deal,
)
from tarot_p2p.rules.sheet import ScoreSheet

FOUR = TableConfig()
FIVE = TableConfig(players=5)
SIMPLE = HandOutcome(Contract.GARDE, 1, None, 94, 2, petit_au_bout=Side.ATTACK)
BUSY = HandOutcome(
    Contract.GARDE_SANS,
    0,
    2,
    104,
    3,
    petit_au_bout=Side.DEFENCE,
    poignees=(Poignee(Side.ATTACK, 2), Poignee(Side.DEFENCE, 1)),
    chelem_announced=True,
    offender=3,
)
ROUND = """\
--players Emma,Nico,Pat,Léa
--contract garde --taker Nico --oudlers 2 --attack-points 47 --petit-au-bout attack
--contract prise --taker Pat --oudlers 1 --attack-points 48 --scores 28,28,-84,28
--contract garde-sans --taker Emma --oudlers 3 --attack-points 52 --poignee defence:simple
--contract garde --taker Léa --oudlers 2 --attack-points 40.5 --petit-au-bout defence
"""


def best_us(stmt: Callable[[], object], repeat: int, number: int) -> float:
    """Best time of one call in microseconds."""
    return min(timeit.repeat(stmt, repeat=repeat, number=number)) / number * 1e6


def sheet_of_a_round() -> str:
    sheet = ScoreSheet(FOUR, ("Emma", "Nico", "Pat", "Léa"))
    for _ in range(4):
        sheet.add_hand(score_hand(FOUR, SIMPLE))
    return sheet.render(str)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    repeat, number = (3, 200) if args.quick else (7, 2000)
    misere_config = TableConfig(all_pass=AllPass.MISERE_DEAL)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "round.txt"
        path.write_text(ROUND, encoding="utf-8")

        def cli_round() -> None:
            with contextlib.redirect_stdout(io.StringIO()):
                status = cli_main(["score", "--file", str(path)])
            if status != 0:  # a refused round would time the error message instead
                raise SystemExit(f"the score counter refused the round (status {status})")

        figures = {
            "score_hand_simple_us": best_us(lambda: score_hand(FOUR, SIMPLE), repeat, number),
            "score_hand_busy_5p_us": best_us(lambda: score_hand(FIVE, BUSY), repeat, number),
            "score_misere_deal_us": best_us(
                lambda: score_misere_deal(misere_config, (10, 30, 50, 70), None), repeat, number
            ),
            "sheet_round_render_us": best_us(sheet_of_a_round, repeat, number // 10),
            "cli_round_file_us": best_us(cli_round, repeat, max(1, number // 100)),
        }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    for key, value in figures.items():
        print(f"{key:28s} {value:10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
