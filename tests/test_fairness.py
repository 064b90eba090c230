"""Fairness statistics: the chi-square law, the tests on fair and rigged deals, the command.

Fair and rigged sets of deals are synthetic (seeded shuffles through the rules engine's
deal pattern), so they can be large and still fast; the command runs on real transcripts
played in process by the protocol test harness.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from tarot_p2p.cli.main import main
from tarot_p2p.protocol.audit_report import Status, audit_file
from tarot_p2p.protocol.fairness import (
    DealSample,
    DrawSample,
    Kind,
    Verdict,
    chi2_sf,
    fairness,
    gamma_q,
    hypergeometric,
    merge_classes,
    table_samples,
)
from tarot_p2p.protocol.fairness_render import heat_map, render, to_json
from tarot_p2p.protocol.transcript import file_header
from tarot_p2p.rules.cards import TWENTY_ONE, count
from tarot_p2p.rules.config import FivePlayerMode, GameEnd, TableConfig
from tarot_p2p.rules.deal import deal_cards
from tests.protocol.harness import Bot, make_table, play_game

FOUR = TableConfig(players=4)
DEAD_HAND = TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND)

Rig = Callable[[random.Random, list[int]], None]


def deals(
    n: int, config: TableConfig = FOUR, seed: int = 1, rig: Rig | None = None
) -> list[DealSample]:
    """``n`` deals of seeded uniform shuffles, the dealer rotating; ``rig`` may alter each
    deck order (top card first) before it is dealt."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        order = list(range(78))
        rng.shuffle(order)
        if rig is not None:
            rig(rng, order)
        dealer = i % config.players
        deal = deal_cards(config, dealer, order)
        out.append(DealSample(config, dealer, deal.hands, deal.chien))
    return out


def draws(n: int, players: int = 4, seed: int = 2) -> list[DrawSample]:
    rng = random.Random(seed)
    return [DrawSample(tuple(rng.sample(range(players), players))) for _ in range(n)]


# ---------------------------------------------------------------------- the chi-square law


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [  # published critical values
        (3.841458820694124, 1, 0.05),
        (6.634896601021214, 1, 0.01),
        (5.991464547107979, 2, 0.05),
        (9.487729036781154, 4, 0.05),
        (18.307038053275146, 10, 0.05),
        (124.34211340400407, 100, 0.05),
        (135.80672317102676, 100, 0.01),
    ],
)
def test_chi2_sf_matches_tables(x: float, df: int, p: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-9)


def _even_df_sf(x: float, df: int) -> float:
    """Closed form for even df: the Poisson sum e^{-x/2} Σ_{i<df/2} (x/2)^i / i!."""
    y = x / 2
    return sum(math.exp(i * math.log(y) - y - math.lgamma(i + 1)) for i in range(df // 2))


def _odd_df_sf(x: float, df: int) -> float:
    """Closed form for odd df: erfc(√(x/2)) plus the upward recurrence of Q(a, y)."""
    y = x / 2
    q, a = math.erfc(math.sqrt(y)), 0.5
    while a < df / 2:
        q += math.exp(a * math.log(y) - y - math.lgamma(a + 1))
        a += 1
    return q


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 9, 12, 77, 308, 309])
@pytest.mark.parametrize("ratio", [0.05, 0.5, 0.9, 1.0, 1.1, 2.0, 4.0])
def test_chi2_sf_against_closed_forms(df: int, ratio: float) -> None:
    x = df * ratio + (2.0 if df < 5 else 0.0) * ratio
    exact = _even_df_sf(x, df) if df % 2 == 0 else _odd_df_sf(x, df)
    assert chi2_sf(x, df) == pytest.approx(exact, rel=1e-9, abs=1e-300)


def test_chi2_sf_far_in_the_tail_keeps_relative_precision() -> None:
    assert chi2_sf(100.0, 1) == pytest.approx(math.erfc(math.sqrt(50.0)), rel=1e-9)
    assert chi2_sf(1000.0, 308) == pytest.approx(_even_df_sf(1000.0, 308), rel=1e-9)
    assert 0 < chi2_sf(1000.0, 308) < 1e-70


def test_chi2_sf_edges_and_bad_input() -> None:
    assert chi2_sf(0.0, 3) == 1.0
    assert chi2_sf(-1.0, 3) == 1.0
    assert chi2_sf(math.inf, 3) == 0.0
    assert gamma_q(2.5, 0.0) == 1.0
    for bad in ((1.0, 0), (1.0, -2), (math.nan, 3)):
        with pytest.raises(ValueError):
            chi2_sf(*bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        gamma_q(0.0, 1.0)


def test_hypergeometric_law() -> None:
    law = hypergeometric(78, 3, 18)
    assert len(law) == 4
    assert sum(law) == pytest.approx(1.0)
    assert law[0] == pytest.approx(math.comb(75, 18) / math.comb(78, 18))
    assert law[3] == pytest.approx(18 * 17 * 16 / (78 * 77 * 76))


def test_merge_classes_keep_five_expected_per_class() -> None:
    law = hypergeometric(78, 21, 18)
    for n in (11, 12, 40, 1000):
        classes = merge_classes(law, n)
        assert classes[0][0] == 0 and classes[-1][1] == len(law) - 1
        assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(classes))
        if len(classes) > 1:
            assert all(n * sum(law[lo : hi + 1]) >= 5 for lo, hi in classes)
    assert len(merge_classes(law, 3)) == 1


# ---------------------------------------------------------------------- fair and rigged deals


def test_fair_deals_show_no_bias() -> None:
    report = fairness(deals(500) + deals(200, DEAD_HAND, seed=3), draws(60))
    assert report.verdict is Verdict.NO_SIGN_OF_BIAS
    assert report.run == 2 * 12 + 1 and not report.flagged
    four = report.layouts[0]
    assert four.places == ("dealer+1", "dealer+2", "dealer+3", "dealer", "chien")
    assert four.sizes == (18, 18, 18, 18, 6)
    assert all(sum(row) == 500 for row in four.counts)
    assert report.layouts[1].places == ("dealer+1", "dealer+2", "dealer+3", "dealer+4", "chien")


def test_p_values_are_calibrated_under_fair_deals() -> None:
    """Over many fair data sets the combined card test's p-values are about uniform, and the
    seat draw's statistic averages its degrees of freedom (without the (n-1)/n correction
    it would average 12, not 9, at four players)."""
    p_values = []
    for seed in range(120):
        report = fairness(deals(65, seed=100 + seed))
        p_values.append(report.layouts[0].tests[0].p_value)
    assert all(p is not None for p in p_values)
    low = sum(p is not None and p < 0.2 for p in p_values) / len(p_values)
    assert 0.1 < low < 0.32
    statistics = []
    for seed in range(300):
        test = fairness([], draws(20, seed=seed)).draws[0].test
        assert test.statistic is not None and test.df == 9
        statistics.append(test.statistic)
    assert sum(statistics) / len(statistics) == pytest.approx(9, abs=0.8)


def _t21_to_first(rng: random.Random, order: list[int]) -> None:
    """One deal in six, the 21 of trumps is moved to the top of the deck: dealer+1 gets it."""
    if rng.random() < 1 / 6:
        i = order.index(TWENTY_ONE)
        order[0], order[i] = order[i], order[0]


def _lazy_shuffle(rng: random.Random, order: list[int]) -> None:
    """A broken shuffle: the deck starts in order and gets only 60 random swaps."""
    order.sort()
    for _ in range(60):
        i, j = rng.randrange(78), rng.randrange(78)
        order[i], order[j] = order[j], order[i]


def test_one_card_pushed_to_a_seat_is_flagged() -> None:
    report = fairness(deals(600, rig=_t21_to_first), draws(30))
    assert report.verdict is Verdict.BIASED
    worst = next(t for t in report.flagged if t.kind is Kind.WORST_CARD)
    assert worst.card == TWENTY_ONE and worst.card_place == "dealer+1"
    text = render(report)
    assert "Verdict: BIASED" in text and "BEYOND CHANCE" in text and "T21" in text
    svg = heat_map(report)
    assert svg is not None and 'stroke="black"' in svg


def test_a_lazy_shuffle_is_flagged_everywhere() -> None:
    report = fairness(deals(100, rig=_lazy_shuffle))
    assert report.verdict is Verdict.BIASED
    assert {t.kind for t in report.flagged} >= {Kind.CARDS, Kind.WORST_CARD}


def test_a_host_who_always_deals_first_is_flagged() -> None:
    rng = random.Random(5)
    rigged = [DrawSample((0, *rng.sample(range(1, 4), 3))) for _ in range(40)]
    report = fairness([], rigged)
    assert report.verdict is Verdict.BIASED
    assert [t.kind for t in report.flagged] == [Kind.DRAW]
    assert "the host 40" in render(report)


def test_too_few_deals_run_no_test() -> None:
    report = fairness(deals(10), draws(3))
    assert report.verdict is Verdict.TOO_FEW and report.run == 0
    assert "TOO FEW DEALS" in render(report)
    assert heat_map(fairness([])) is None


def test_bad_samples_are_refused() -> None:
    good = deals(1)[0]
    with pytest.raises(ValueError, match="twice"):
        first, other = good.hands[0] & -good.hands[0], good.hands[1] & -good.hands[1]
        twice = (good.hands[0] & ~first | other, *good.hands[1:])
        fairness([DealSample(FOUR, 0, twice, good.chien)])
    with pytest.raises(ValueError, match="3, 4 or 5"):
        deal = deal_cards(TableConfig(players=2), 0, list(range(78)))
        fairness([DealSample(TableConfig(players=2), 0, deal.hands, deal.chien)])
    with pytest.raises(ValueError, match="seat each"):
        fairness([], [DrawSample((0, 0, 1, 2))])
    with pytest.raises(ValueError, match="alpha"):
        fairness([], alpha=1.5)


def test_json_view_is_complete() -> None:
    report = fairness(deals(100), draws(25))
    document = json.loads(json.dumps(to_json(report)))
    assert document["verdict"] == "no_sign_of_bias"
    assert document["tests_run"] == report.run
    layout = document["layouts"][0]
    assert len(layout["cards"]) == 78 and layout["deals"] == 100
    assert sum(c["counts"][4] for c in layout["cards"]) == 600
    assert document["seat_draws"][0]["test"]["ran"] is True


# ---------------------------------------------------------------------- real transcripts


def _transcript(players: int, deals_: int, contract: int, seed: bytes) -> bytes:
    table = make_table(
        TableConfig(players=players, game_end=GameEnd.DEALS, game_length=deals_), seed
    )
    play_game(table, Bot(contract=contract, seed=1))
    observer = table.observer
    frames = b"".join(len(w).to_bytes(4, "big") + w for w in table.wires)
    return file_header(observer.table_id, observer.binding) + frames


@pytest.fixture(scope="module")
def games() -> dict[str, bytes]:
    return {
        "played": _transcript(4, 1, 2, b"fair-played"),
        "passed": _transcript(3, 1, 0, b"fair-passed"),
    }


def test_samples_of_a_verified_transcript(games: dict[str, bytes]) -> None:
    report = audit_file(games["played"])
    assert report.status is Status.VALID
    samples = table_samples(report)
    assert len(samples.deals) == 1 and samples.void == 0 and samples.unfinished == 0
    assert samples.draw is not None and samples.draw.seating == report.seating
    for deal, hand in zip(samples.deals, report.hands[1:], strict=True):
        assert deal.dealer == hand.dealer and deal.hands == hand.hands
        assert [count(h) for h in deal.hands] == [18] * 4 and count(deal.chien) == 6
    passed = table_samples(audit_file(games["passed"]))
    assert passed.deals == () and passed.void == 1


def test_stats_command_over_a_folder(
    games: dict[str, bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "games"
    (folder / "Ana").mkdir(parents=True)
    (folder / "Ben").mkdir()
    played = games["played"]
    (folder / "Ana" / "t1.tp2p").write_bytes(played)
    (folder / "Ben" / "t1.tp2p").write_bytes(played[: len(played) - 2000])  # a shorter copy
    (folder / "Ana" / "t2.tp2p").write_bytes(games["passed"])
    (folder / "junk.tp2p").write_bytes(b"not a transcript at all")
    (folder / "notes.txt").write_text("ignored: not a .tp2p file")
    svg = tmp_path / "map.svg"
    code = main(["audit", "--stats", str(folder), "--svg", str(svg)])
    out, err = capsys.readouterr()
    assert code == 7, err  # a handful of deals: too few for any test
    assert "over 4 transcript files" in out
    assert "counted: 2 tables (2 complete, 0 stopped before the end), 1 deal opened" in out
    assert "1 void deal (everybody passed, or a petit sec)" in out
    assert "Ben/t1.tp2p: a copy of the table of" in out
    assert "junk.tp2p: CORRUPT" in out
    assert "Verdict: TOO FEW DEALS" in out and "Traceback" not in out + err
    root = ET.fromstring(svg.read_text(encoding="utf-8"))
    cells = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.find("*") is not None]
    assert len(cells) == 78 * 5  # the 4-player layout: four seats and the chien

    code = main(["audit", "--stats", "--json", str(folder), "--svg", str(svg)])
    document = json.loads(capsys.readouterr().out)
    assert code == 7 and document["exit_code"] == 7
    assert document["deals_counted"] == 1 and document["deals_void"] == 1
    assert len(document["counted"]) == 2 and len(document["skipped"]) == 2
    assert document["statistics"]["verdict"] == "too_few"

    assert main(["audit", "--stats", "--quiet", str(folder), "--svg", str(svg)]) == 7
    assert capsys.readouterr().out.startswith("TOO FEW DEALS: 0 tests run on 1 deal")


def test_stats_command_refuses_plainly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--stats", str(tmp_path)]) == 2
    assert "no transcript (.tp2p) file found" in capsys.readouterr().err
    assert main(["audit", "--svg", str(tmp_path / "x.svg"), str(tmp_path)]) == 2
    assert "--svg goes with --stats" in capsys.readouterr().err
