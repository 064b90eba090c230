"""``tarot-p2p conformance``'s own words: the list of games and its refusals."""

from __future__ import annotations

import pytest

from tarot_p2p.cli.conformance import chosen
from tarot_p2p.cli.main import main
from tarot_p2p.conformance.scenarios import SCENARIOS


def test_the_list_names_every_game_and_what_it_expects(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [s.name for s in SCENARIOS]
    assert all("expected: " in line and "``" not in line for line in lines)


def test_players_keeps_every_cheat_and_the_honest_game_of_that_size() -> None:
    names = [s.name for s in chosen(None, 4)]
    assert "honest-4" in names and "honest-3" not in names and "honest-5" not in names
    # honest, leaves, illegal-ecart, false-poignee-excuse and revoke: one per size
    assert len(names) == len([s for s in SCENARIOS if not s.sized]) + 5
    assert "illegal-ecart-4" in names and "illegal-ecart-3" not in names
    assert "leaves-4" in names and "revoke-4" in names and "revoke-5" not in names
    assert [s.name for s in chosen(["rogue-key", "honest-5"], 3)] == ["rogue-key"]


def test_a_game_that_needs_four_seats_is_played_at_four_when_asked_for_three() -> None:
    (released,) = [s for s in chosen(["wrong-release"], 3)]
    assert released.size(3) == released.size(None) == 4 and released.size(5) == 5
    assert released.config(3).seats == 4


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--only", "nope"], "no game named nope; --list shows them"),
        ([], "give the program to test with --peer"),
        (["--peer", "my-peer --join"], "its join code written {code}"),
        (["--peer", "p {code}", "--timeout", "0"], "--timeout is a positive number"),
    ],
)
def test_what_cannot_run_is_said_plainly(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["conformance", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err
