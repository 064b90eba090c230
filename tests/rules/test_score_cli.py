"""`tarot-p2p score`: one hand from options, a round from a text or JSON file, clean errors."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tarot_p2p.cli.main import main
from tarot_p2p.cli.score import InputError, parse_half_points

TABLE = ["--players", "Emma,Nico,Pat,Léa"]
NICO = [*TABLE, "--contract", "garde", "--taker", "Nico", "--oudlers", "2"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["score", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> object:
    code, out, err = run(capsys, *argv, "--json")
    assert (code, err) == (0, "")
    return json.loads(out)


def test_seed_002_nico_hands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *NICO, "--attack-points", "47", "--petit-au-bout", "attack")
    assert code == 0
    assert "threshold 41, attack 47 points: made by 6" in out
    assert "(25 + 6) x 2 = 62" in out
    assert out.splitlines()[-4:] == ["Emma  -82", "Nico  +246", "Pat   -82", "Léa   -82"]
    data = run_json(capsys, *NICO, "--attack-points", "38", "--petit-au-bout", "attack")
    assert isinstance(data, dict)
    assert data["scores"] == [36, -108, 36, 36]
    assert data["breakdown"]["hand_score"] == -36


def test_defence_points_and_half_points(capsys: pytest.CaptureFixture[str]) -> None:
    by_attack = run_json(capsys, *NICO, "--attack-points", "41.5")
    by_defence = run_json(capsys, *NICO, "--defence-points", "49,5")
    assert by_attack == by_defence
    assert isinstance(by_attack, dict)
    assert by_attack["scores"] == [-52, 156, -52, -52]
    lost = run_json(capsys, *NICO, "--attack-points", "40.5")
    assert isinstance(lost, dict)
    assert lost["scores"] == [52, -156, 52, 52]


@pytest.mark.parametrize(
    ("text", "half"), [("0", 0), ("47", 94), ("40.5", 81), ("40,5", 81), ("91", 182), ("9.0", 18)]
)
def test_parse_half_points(text: str, half: int) -> None:
    assert parse_half_points(text) == half


@pytest.mark.parametrize("text", ["47.3", "91.5", "92", "-1", "1e1", "", "4O", "40.50"])
def test_parse_half_points_rejects(text: str) -> None:
    with pytest.raises(InputError):
        parse_half_points(text)


def test_players_by_count_and_seat_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "--players",
        "3",
        "--contract",
        "prise",
        "--taker",
        "3",
        "--oudlers",
        "1",
        "--attack-points",
        "51",
    )
    assert data == {
        "players": ["P1", "P2", "P3"],
        "scores": [-25, -25, 50],
        "breakdown": {
            "threshold": 51,
            "difference": 0,
            "made": True,
            "attack_wins": True,
            "base": 25,
            "petit_au_bout": 0,
            "poignees": 0,
            "chelem": 0,
            "hand_score": 25,
            "miseres": [0, 0, 0],
        },
    }


def test_five_players(capsys: pytest.CaptureFixture[str]) -> None:
    five = [
        "--players",
        "A,B,C,D,E",
        "--contract",
        "garde",
        "--oudlers",
        "2",
        "--attack-points",
        "47",
    ]
    partner = run_json(capsys, *five, "--taker", "A", "--partner", "C")
    alone = run_json(capsys, *five, "--taker", "A")
    dead = run_json(capsys, *five, "--taker", "A", "--five", "dead-hand", "--dead", "E")
    assert isinstance(partner, dict) and isinstance(alone, dict) and isinstance(dead, dict)
    assert partner["scores"] == [124, -62, 62, -62, -62]
    assert alone["scores"] == [248, -62, -62, -62, -62]
    assert dead["scores"] == [186, -62, -62, -62, 0]


def test_bonuses_and_variants(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        *NICO,
        "--attack-points",
        "47",
        "--poignee",
        "defence:simple",
        "--poignee",
        "attack:2",
        "--chelem-announced",
        "--variant",
        "misere",
        "--misere",
        "Pat",
    )
    assert code == 0
    assert "poignées: +50" in out
    assert "chelem: -200" in out
    assert "misères: Emma -10, Nico -10, Pat +30, Léa -10" in out
    # (62 + 50 - 200) = -88 per defender, plus Pat's misère.
    assert out.splitlines()[-4:] == ["Emma  +78", "Nico  -274", "Pat   +118", "Léa   +78"]
    data = run_json(
        capsys,
        *NICO,
        "--attack-points",
        "47",
        "--petit-au-bout",
        "defence",
        "--petit-au-bout-value",
        "fixed",
        "--poignee",
        "defence:3",
        "--poignee-values",
        "20,40,60",
        "--poignee-to",
        "announcer",
    )
    assert isinstance(data, dict)
    assert data["breakdown"]["hand_score"] == 62 - 10 - 60
    pc = run_json(
        capsys,
        *NICO,
        "--attack-points",
        "86.5",
        "--variant",
        "petit-chelem",
        "--petit-chelem",
        "attack",
        "--petit-chelem-announced",
    )
    assert isinstance(pc, dict)
    assert pc["breakdown"]["chelem"] == 300


def test_penalty_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *NICO, "--attack-points", "47", "--offender", "Nico")
    assert code == 0
    assert "penalty: the offending side loses the hand" in out
    assert "(25 + 0) x 2 = 50" in out
    assert out.splitlines()[-3] == "Nico  -150"
    report = run_json(
        capsys, *NICO, "--attack-points", "47", "--offender", "Nico", "--penalty", "report-only"
    )
    assert isinstance(report, dict)
    assert report["scores"] == [-62, 186, -62, -62]


def test_written_scores_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, *NICO, "--attack-points", "47", "--scores=-62,186,-62,-62")[0] == 0
    code, _, err = run(capsys, *NICO, "--attack-points", "47", "--scores=-62,186,-62,-61")
    assert code == 1
    assert "differs from the computed line -62,186,-62,-62" in err
    code, _, err = run(capsys, *TABLE, "--scores", "10,-10,0,1")
    assert (code, err) == (1, "tarot-p2p score: error: the line 10,-10,0,1 sums to 1, not 0\n")


def test_misere_deal_option(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, *TABLE, "--variant", "misere-deal", "--misere-deal", "0,10,20.5,40")
    assert isinstance(data, dict)
    assert data["scores"] == [71, 31, -12, -90]
    assert data["breakdown"] is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([*NICO, "--attack-points", "47.3"], "points must look like"),
        ([*NICO, "--attack-points", "95"], "cannot exceed 91"),
        ([*NICO], "exactly one of --attack-points"),
        (
            [*NICO, "--attack-points", "47", "--defence-points", "44"],
            "exactly one of --attack-points",
        ),
        (
            [*TABLE, "--contract", "garde", "--oudlers", "2", "--attack-points", "47"],
            "needs --taker",
        ),
        ([*NICO, "--attack-points", "47", "--partner", "Pat"], "partner is called only"),
        (
            [
                *TABLE,
                "--contract",
                "garde",
                "--taker",
                "Bob",
                "--oudlers",
                "2",
                "--attack-points",
                "4",
            ],
            "no player 'Bob'",
        ),
        ([*NICO, "--attack-points", "47", "--poignee", "defence"], "SIDE:LEVEL"),
        ([*NICO, "--attack-points", "47", "--poignee", "defence:4"], "SIDE:LEVEL"),
        ([*NICO, "--attack-points", "40", "--chelem", "attack"], "every trick"),
        ([*NICO, "--attack-points", "47", "--misere", "Pat"], "does not play"),
        ([*NICO, "--attack-points", "3", "--oudlers", "3"], "cannot hold"),
        (
            [
                "--players",
                "A,B,C,D,E",
                "--five",
                "dead-hand",
                "--contract",
                "garde",
                "--taker",
                "A",
                "--oudlers",
                "2",
                "--attack-points",
                "47",
            ],
            "--dead",
        ),
        (["--players", "A,B", "--five", "dead-hand"], "--five is for five players"),
        (["--players", "A,B,C,D,E,F"], "players must be 2, 3, 4 or 5"),
        (["--players", "A,B,A"], "differ"),
        ([*TABLE, "--poignee-values", "20,40"], "three integers"),
        ([*TABLE, "--void", "all-pass"], "round file"),
        ([*TABLE], "a deal needs a summary"),
        ([*TABLE, "--variant", "misere-deal", "--misere-deal", "1,2,3"], "4 point counts"),
        ([*NICO, "--attack-points", "47", "--misere-deal", "1,2,3,4"], "no contract"),
    ],
)
def test_bad_input_is_one_clear_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 1
    assert out == ""
    assert err.startswith("tarot-p2p score: error: ")
    assert message in err
    assert "Traceback" not in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["score", "--contract", "grande"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


ROUND_TEXT = """\
# Seed 002: Emma, Nico, Pat and Léa, one round of four deals
--players Emma,Nico,Pat,Léa

--contract garde --taker Nico --oudlers 2 --attack-points 47 --petit-au-bout attack
--contract prise --taker Pat --oudlers 1 --attack-points 48 --scores 28,28,-84,28  # written by hand
--contract garde-sans --taker Emma --oudlers 3 --attack-points 52 --poignee defence:simple
--contract garde --taker Léa --oudlers 2 --attack-points 40.5 --petit-au-bout defence
"""


def test_round_text_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "round.txt"
    path.write_text(ROUND_TEXT, encoding="utf-8")
    code, out, err = run(capsys, "--file", str(path))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[2].split()[:6] == ["1", "Emma", "-82", "+246", "-82", "-82"]
    assert lines[2].endswith("garde by Nico, made by 6")
    assert lines[-2].split() == ["Total", "+570", "+162", "-278", "-454"]
    assert lines[-1] == "Game over. Winner: Emma."
    data = run_json(capsys, "--file", str(path))
    assert isinstance(data, dict)
    assert data["totals"] == [570, 162, -278, -454]
    assert data["winners"] == [0]


def test_round_json_file_and_stdin(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    round_ = {
        "table": {"players": ["Emma", "Nico", "Pat", "Léa"], "deals": 4},
        "deals": [
            {
                "contract": "garde",
                "taker": "Nico",
                "oudlers": 2,
                "attack-points": 47,
                "petit_au_bout": "attack",
            },
            {"void": "petit-sec", "note": "Pat: petit sec"},
            {
                "contract": "prise",
                "taker": 4,
                "oudlers": 1,
                "attack-points": 40.5,
                "poignee": ["attack:1", "defence:1"],
                "chelem_announced": False,
            },
            {"scores": [-3, 1, 1, 1], "note": "written by hand"},
        ],
    }
    path = tmp_path / "round.json"
    path.write_text(json.dumps(round_), encoding="utf-8")
    data = run_json(capsys, "--file", str(path))
    assert isinstance(data, dict)
    assert [line["kind"] for line in data["lines"]] == ["hand", "petit_sec", "hand", "hand"]
    assert data["lines"][1]["note"] == "Pat: petit sec"
    # Prise failed by 11 (40.5 for 51): 36 + 40 of poignées to the defence.
    assert data["lines"][2]["scores"] == [76, 76, 76, -228]
    assert data["lines"][3]["scores"] == [-3, 1, 1, 1]
    assert data["over"] is True
    monkeypatch.setattr("sys.stdin", io.StringIO(ROUND_TEXT))
    assert run(capsys, "--file", "-")[0] == 0


def test_round_dead_hand_follows_the_dealer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "five.txt"
    path.write_text(
        "--players A,B,C,D,E --five dead-hand --first-dealer B --deals 2\n"
        "--contract prise --taker A --oudlers 2 --attack-points 41\n"
        "--contract prise --taker A --oudlers 2 --attack-points 41 --dead D\n",
        encoding="utf-8",
    )
    code, _, err = run(capsys, "--file", str(path))
    assert code == 1
    assert err == f"tarot-p2p score: error: {path}:line 3: the dead hand is the dealer, C\n"
    path.write_text(path.read_text().replace("--dead D", "--dead C"), encoding="utf-8")
    data = run_json(capsys, "--file", str(path))
    assert isinstance(data, dict)
    assert [line["scores"] for line in data["lines"]] == [
        [75, 0, -25, -25, -25],
        [75, -25, 0, -25, -25],
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty round file"),
        ("# nothing\n", "empty round file"),
        ("--players A,B,C\n--scores 1,1,-1\n", "line 2: the line 1,1,-1 sums to 1"),
        (
            "--players A,B,C\n"
            "--contract garde --taker A --oudlers 2 --attack-points 47 --scores 1,1,-2\n",
            "line 2: the written line 1,1,-2 differs",
        ),
        ("--players A,B,C\n--bogus\n", "line 2: unrecognized arguments: --bogus"),
        ("--contract garde\n", "line 1: table: unrecognized arguments"),
        ("--players A,B,C\n--contract 'garde\n", "line 2: No closing quotation"),
        (
            "--players A,B,C --deals 1\n--void all-pass\n--void all-pass\n",
            "line 3: the game is over",
        ),
        ('{"table": {}}', "a JSON round is"),
        ('{"table": {"players": 3}, "deals": [3]}', "deal 1: expected an object"),
        ('{"table": {"players": 3}, "deals": [{"attack-points": [1, {}]}]}', "unexpected value"),
        ('{"table": {"players": 3}, "deals": [{"points": 40.25}]}', "not a whole or half"),
        ("{not json", "invalid JSON"),
    ],
)
def test_bad_round_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "round"
    path.write_text(content, encoding="utf-8")
    code, out, err = run(capsys, "--file", str(path))
    assert code == 1
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_file_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "--file", str(tmp_path / "missing"))
    assert code == 1
    assert "cannot read" in err
    path = tmp_path / "round.txt"
    path.write_text(ROUND_TEXT, encoding="utf-8")
    code, _, err = run(capsys, "--file", str(path), "--players", "3", "--attack-points", "4")
    assert code == 1
    assert "(--players, --attack-points)" in err


def scored(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["score", *argv]) == 0
    return out.getvalue()


@given(
    contract=st.sampled_from(["garde", "garde-sans", "prise", "petite"]),
    side=st.sampled_from(["attack", "defence"]),
    flips=st.lists(st.booleans(), min_size=7, max_size=7),
)
def test_words_of_a_list_are_read_in_any_case(contract: str, side: str, flips: list[bool]) -> None:
    """``--contract Garde``, ``--petit-au-bout DEFENCE``, ``--poignee Attack:Double``, a
    variant, a player's name: each is the same word whatever its case, and scores the same."""

    def any_case(text: str) -> str:
        return "".join(c.upper() if flips[i % len(flips)] else c for i, c in enumerate(text))

    words = ["--players", "Emma,Nico,Pat,Lea", "--oudlers", "2", "--attack-points", "47"]
    words += ["--json"]
    lower = [*words, "--taker", "nico", "--contract", contract, "--petit-au-bout", side]
    lower += ["--poignee", f"{side}:double", "--variant", "misere", "--misere", "pat"]
    mixed = [*words, "--taker", any_case("nico"), "--contract", any_case(contract)]
    mixed += ["--petit-au-bout", any_case(side), "--poignee", any_case(f"{side}:double")]
    mixed += ["--variant", any_case("misere"), "--misere", any_case("pat")]
    assert scored(mixed) == scored(lower)
