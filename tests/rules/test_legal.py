"""Hand-built tricks for every duty of the card play (FFT)."""

from __future__ import annotations

import pytest

from tarot_p2p.rules.actions import CallCard, Go, Play
from tarot_p2p.rules.cards import card_name, parse_card
from tarot_p2p.rules.config import FivePlayerMode, TableConfig
from tarot_p2p.rules.state import IllegalAction, State

from .engine_helpers import bid, start, to_play

FOUR = TableConfig()


def suit(letter: str) -> str:
    ranks = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"]
    return " ".join(f"{r}{letter}" for r in ranks)


TRUMPS = " ".join(f"T{n}" for n in range(1, 22))


def table(fixed: dict[int, str], avoid: dict[int, str] | None = None) -> State:
    """Four players, seat 3 deals, seat 0 takes a garde sans and leads."""
    state = start(FOUR, fixed, avoid=avoid)
    to_play(state, taker=0)
    return state


def play(state: State, *names: str) -> None:
    for n in names:
        state.apply_action(Play(parse_card(n)))


def legal_cards(state: State) -> set[str]:
    return {card_name(a.card) for a in state.legal_actions() if isinstance(a, Play)}


def test_follow_suit_without_needing_to_win() -> None:
    state = table({0: "1H T21", 1: "5H 10H T10 3S"})
    play(state, "1H")
    assert legal_cards(state) == {c for c in legal_cards(state) if c.endswith("H")}
    with pytest.raises(IllegalAction, match="follow-suit"):
        play(state, "T10")
    with pytest.raises(IllegalAction, match="follow-suit"):
        play(state, "3S")
    play(state, "5H")  # lower than nothing needed: any heart will do


def test_void_must_trump() -> None:
    state = table({0: "2H", 1: "T10 3S"}, avoid={1: suit("H")})
    play(state, "2H")
    with pytest.raises(IllegalAction, match="must-trump"):
        play(state, "3S")
    assert all(c.startswith("T") or c == "EX" for c in legal_cards(state))
    play(state, "T10")


def test_must_overtrump_even_over_a_partner() -> None:
    # Seats 1 and 2 both defend: seat 2 must still go over his partner's trump.
    state = table({0: "2H", 1: "T10", 2: "T5 T15"}, avoid={1: suit("H"), 2: suit("H")})
    play(state, "2H", "T10")
    with pytest.raises(IllegalAction, match="overtrump"):
        play(state, "T5")
    assert "T5" not in legal_cards(state) and "T15" in legal_cards(state)
    play(state, "T15")


def test_undertrump_when_unable_to_overtrump() -> None:
    avoid_high = " ".join(f"T{n}" for n in range(11, 22))
    state = table(
        {0: "2H", 1: "T20", 2: "T5 T3 4S"},
        avoid={1: suit("H"), 2: suit("H") + " " + avoid_high + " EX"},
    )
    play(state, "2H", "T20")
    with pytest.raises(IllegalAction, match="must-trump"):
        play(state, "4S")
    assert legal_cards(state) == {c for c in legal_cards(state) if c.startswith("T")}
    play(state, "T3")


def test_void_without_trumps_plays_anything() -> None:
    state = table({0: "2H", 1: "4S KD"}, avoid={1: suit("H") + " " + TRUMPS + " EX"})
    play(state, "2H")
    assert {"4S", "KD"} <= legal_cards(state)
    play(state, "KD")


def test_trump_led_must_overtrump_if_able() -> None:
    state = table(
        {0: "T10", 1: "T5 T15 3C", 2: "T2 4C"},
        avoid={2: "T1 T11 T12 T13 T14 T16 T17 T18 T19 T20 T21 T3 T4 T6 T7 T8 T9 EX"},
    )
    play(state, "T10")
    with pytest.raises(IllegalAction, match="overtrump"):
        play(state, "T5")
    with pytest.raises(IllegalAction, match="must-trump"):
        play(state, "3C")
    play(state, "T15")
    assert legal_cards(state) == {"T2"}  # only a lower trump: he must still play it
    play(state, "T2")


def test_excuse_any_time() -> None:
    state = table({0: "1H", 1: "5H EX"})
    play(state, "1H")
    assert "EX" in legal_cards(state)
    play(state, "EX")


def test_excuse_led_next_card_sets_the_suit() -> None:
    state = table({0: "EX", 1: "3S T4", 2: "5S T6"})
    play(state, "EX")
    assert {"3S", "T4"} <= legal_cards(state)  # anything after the Excuse
    play(state, "3S")
    with pytest.raises(IllegalAction, match="follow-suit"):
        play(state, "T6")
    play(state, "5S")


def test_trick_winner() -> None:
    state = table({0: "EX", 1: "3S", 2: "5S", 3: "2S"})
    play(state, "EX", "3S", "5S", "2S")
    assert state.tricks[0].winner == 2  # the Excuse never wins; the highest spade does
    state = table({0: "KS", 1: "T2", 2: "QS", 3: "T1 T3"}, avoid={1: suit("S"), 3: suit("S")})
    play(state, "KS", "T2", "QS", "T3")
    assert state.tricks[0].winner == 3
    assert state.current_player() == 3


def test_illegal_action_leaves_state_untouched() -> None:
    state = table({0: "1H T21", 1: "5H 10H T10"})
    play(state, "1H")
    before = (state.observation(1), state.history(), state.legal_actions())
    with pytest.raises(IllegalAction):
        play(state, "T10")
    with pytest.raises(IllegalAction, match="card-not-held"):
        play(state, "T21")
    with pytest.raises(IllegalAction):
        state.apply_action(Play(200))
    assert (state.observation(1), state.history(), state.legal_actions()) == before


def test_five_players_must_overtrump_the_partner() -> None:
    config = TableConfig(players=5, five_player_mode=FivePlayerMode.CALLED_KING)
    state = start(config, {0: "2H KC", 1: "T10", 2: "T5 T15"}, avoid={1: suit("H"), 2: suit("H")})
    bid(state, 0, 3)
    state.apply_action(CallCard(parse_card("KS")))
    state.apply_action(Go(False))
    play(state, "2H", "T10")
    with pytest.raises(IllegalAction, match="overtrump"):
        play(state, "T5")
