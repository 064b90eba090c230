"""The terminal client's own pieces: cards by name, the one-line écart, notices."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio
import trio.testing

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.cli.join import describe_table
from tarot_p2p.cli.terminal import TerminalPolicy, card_text, describe_hand, read_card
from tarot_p2p.protocol.names import for_terminal
from tarot_p2p.protocol.table import Phase as TablePhase
from tarot_p2p.rules.cards import parse_card
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.state import Phase
from tarot_p2p.ui.view import hand_order
from tests.protocol.harness import Bot, make_table, step
from tests.protocol.test_names import safe
from tests.rules.engine_helpers import bid, cards, start
from tests.seat.test_runner import play_local
from tests.test_names_cli import EVIL


@pytest.mark.parametrize(
    ("typed", "name"),
    [("KH", "KH"), ("kh", "KH"), ("K♥", "KH"), ("10♠", "10S"), ("t21", "T21"),
     ("EX", "EX"), ("Excuse", "EX"), (" c♣ ", "CC")],
)  # fmt: skip
def test_cards_are_typed_by_name(typed: str, name: str) -> None:
    assert read_card(typed) == parse_card(name)


def test_unknown_card_names_are_refused() -> None:
    for typed in ("", "ZZ", "T22", "11H"):
        with pytest.raises(ValueError):
            read_card(typed)


def test_cards_are_shown_with_suit_symbols_and_colour() -> None:
    assert card_text(parse_card("KH")) == "K♥"
    assert card_text(parse_card("KH"), colour=True) == "\x1b[31mK♥\x1b[0m"
    assert card_text(parse_card("KS"), colour=True) == "K♠"
    assert describe_hand(cards("EX T3 1S KH 2C QD")) == "1♠  K♥  2♣  Q♦  T3 Excuse"


def ecart_state() -> Any:
    state = start(
        TableConfig(players=4),
        {0: "KS KH KC KD 1S 2S 3S 4S 5S 6S 7S 8S T1 T2 T3 T4 T5 T6"},
        chien="1H 2H 3H 4H 5H 6H",
    )
    bid(state, 0, 2)
    assert state.phase is Phase.DISCARD and state.current_player() == 0
    return state


async def test_the_ecart_in_one_line_checked_then_confirmed() -> None:
    replies = iter(["1 2", "KS 1S 2S 3S 4S 5S", "1 1 2 3 4 5", "1H 2H 3H 4H 5H 6H", "n",
                    "1 2 3 4 5 6", "y"])  # fmt: skip
    said: list[str] = []
    policy = TerminalPolicy(ask=lambda prompt: next(replies), say=said.append, colour=False)
    peer = SimpleNamespace(config=TableConfig(players=4))
    ecart = await policy._ecart(peer, ecart_state())  # type: ignore[arg-type]
    assert ecart.cards == cards("1S 2S 3S 4S 5S 6S")  # the list starts with the plain cards
    text = "\n".join(said)
    assert "type 6 cards, not 2" in text
    assert "no king and no oudler in the écart" in text
    assert "a card is named twice" in text
    assert "1.1♠" in text and "K♠" not in said[-1]  # kings are not offered


async def test_a_trump_only_when_nothing_else_can_go() -> None:
    state = start(
        TableConfig(players=4),
        {0: "KS KH KC KD 1S 2S 3S T1 T2 T3 T4 T5 T6 T7 T8 T9 T10 T11"},
        chien="T12 T13 T14 T15 T16 T17",
    )
    bid(state, 0, 2)
    replies = iter(["T2 T3 T4 T5 T6 T7", "1S 2S 3S T2 T3 T4", "y"])
    said: list[str] = []
    policy = TerminalPolicy(ask=lambda prompt: next(replies), say=said.append, colour=False)
    peer = SimpleNamespace(config=TableConfig(players=4))
    ecart = await policy._ecart(peer, state)  # type: ignore[arg-type]
    assert ecart.cards == cards("1S 2S 3S T2 T3 T4")
    assert any("put plain cards first" in line for line in said)


async def test_notices_are_told_once_then_now_and_then() -> None:
    said: list[str] = []
    policy = TerminalPolicy(say=said.append)
    peer = fake_seat(0)

    def notice(kind: str, seconds: float) -> Any:
        return SimpleNamespace(kind=kind, seat=3, name=None, seconds=seconds)

    for kind, seconds in (("waiting", 5.0), ("waiting", 10.0), ("back", 0.0), ("waiting", 15.0),
                          ("waiting", 20.0), ("waiting", 30.0), ("unheard-of", 1.0)):  # fmt: skip
        await policy.notice(peer, notice(kind, seconds))
    await policy.notice(peer, SimpleNamespace(kind="reconnecting", seat=None, name=None, seconds=3))
    assert said == [
        "Waiting for West (0:05)",
        "West is coming back (reconnecting)",
        "Waiting for West (reconnecting, 0:15)",
        "Waiting for West (reconnecting, 0:30)",
        "Connection lost: reconnecting (0:03)",
    ]


def fake_seat(seat: int, phase: TablePhase = TablePhase.BIDDING) -> Any:
    """What a notice reads of a seat: the names, our seat, the hand and its phase."""
    hand = SimpleNamespace(hand=1, phase=phase)
    return SimpleNamespace(names=("North", "East", "South", "West"), seat=seat, hand=hand)


async def test_the_countdown_is_told_alike_to_the_awaited_seat_and_the_others() -> None:
    """The awaited player reads first how long he has, the others the same count; at 0:00
    the words change at once (the time is up, and what happens next)."""
    told: dict[int, list[str]] = {0: [], 1: []}
    for seat, lines in told.items():
        policy = TerminalPolicy(say=lines.append)
        kind = "turn" if seat == 0 else "waiting"
        for seconds in (5.0, 10.0, 20.0, 30.0, 35.0):
            left = max(0.0, 30.0 - seconds)
            notice = SimpleNamespace(kind=kind, seat=0, name="North", seconds=seconds, left=left)
            await policy.notice(fake_seat(seat), notice)
    assert told[0][:2] == ["You have 0:25 to bid", "You have 0:10 to bid"]
    assert told[1][:2] == ["North has 0:25 to bid", "North has 0:10 to bid"]
    assert told[0][2].startswith("Your time is up: once every other player has noted it")
    assert told[1][2].startswith("North's time is up: once every player has noted it")
    assert len(told[0]) == len(told[1]) == 3


async def test_the_other_players_names_are_printed_escaped() -> None:
    """The first deal of a game told to one seat whose table holds names a terminal would
    obey (a set-up recorded before the rule, or made by another program): every line the
    player reads — seats, moves, tricks, result, the running sheet, the question's header,
    the table's description — shows them escaped."""
    table = make_table(TableConfig(players=3, game_end=GameEnd.DEALS, game_length=2),
                       b"names", names=list(EVIL))  # fmt: skip
    said: list[str] = []
    policy = TerminalPolicy(ask=lambda prompt: "", say=said.append, colour=False)
    me, seen = table.peers[1], 0
    while me.sheet is None or not me.sheet.lines:
        assert step(table, Bot(contract=2, seed=3))
        await policy.observe(me, table.events[1][seen:])
        seen = len(table.events[1])
        state = me.private_state()
        if state is not None and state.current_player() == me.seat and me.hand.engine:
            said.append(policy._header(me, state))
    said.append(describe_table(me))
    text = "\n".join(said)
    assert all(safe(line) for line in text.split("\n"))
    for name in EVIL:
        assert for_terminal(name) in text
    told_draw = "Seats drawn, in playing order (each player drew a trump, the lowest deals): "
    for told in (told_draw, " (T1), ", " plays ", " takes it", "Scores: ", "Leading: "):
        assert told in text


async def test_the_hand_is_printed_once_until_it_changes(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """A whole game at the terminal (always the first choice): the cards dealt are not
    printed again at the bid, nor at any question while they are the same."""
    said: list[str] = []
    player = TerminalPolicy(ask=lambda prompt: "1", say=said.append, colour=False)
    game = await play_local(3, [player, BotPolicy(1), BotPolicy(2)], tmp_path, "hand")
    assert game.seats[0].outcome is not None and game.seats[0].outcome.finished
    shown = [
        line.split(": ", 1)[1]
        for line in said
        if line.startswith(("Your hand: ", "\nDeal")) and ": " in line
    ]
    assert any(line.startswith("\nDeal 1. Your cards: ") for line in said)
    assert all(a != b for a, b in itertools.pairwise(shown)), shown


async def test_a_seat_claimed_absent_for_a_move_it_sent_is_told_the_hub_loses_its_messages() -> (
    None
):
    said: list[str] = []
    policy = TerminalPolicy(say=said.append)
    notice = SimpleNamespace(kind="unheard", seat=0, name="North", seconds=0.0)
    await policy.notice(fake_seat(0), notice)
    (line,) = said
    assert line.startswith("The others are not receiving your messages: they are not getting")
    assert "the hub (the host's program or the relay). You were not away" in line


async def test_a_notice_during_a_question_goes_below_it_and_the_question_is_asked_again() -> None:
    """The countdown comes while the player is typing: it used to be printed after the
    prompt, on the line being typed, and the prompt was gone. As a terminal shows it:"""
    screen: list[str] = []
    asked, answer = threading.Event(), threading.Event()

    def ask(prompt: str) -> str:  # input(): the prompt, then the line typed
        screen.append(prompt)
        asked.set()
        answer.wait()
        screen.append("2\n")
        return "2"

    policy = TerminalPolicy(
        ask=ask, say=lambda line: screen.append(line + "\n"), write=screen.append, colour=False
    )
    chosen: list[int] = []
    async with trio.open_nursery() as nursery:

        async def choose() -> None:
            chosen.append(await policy._choose(fake_seat(0), "Your move:", ["Pass", "Garde"], {}))

        nursery.start_soon(choose)
        await trio.to_thread.run_sync(asked.wait)
        notice = SimpleNamespace(kind="turn", seat=0, name="North", seconds=5.0, left=25.0)
        await policy.notice(fake_seat(0), notice)
        answer.set()
    assert chosen == [1]
    assert "".join(screen).split("\n") == [
        "Your move:",
        "   1. Pass",
        "   2. Garde",
        "choice [1-2, l: last trick]: ",
        "You have 0:25 to bid",
        "choice [1-2, l: last trick]: 2",
        "",
    ]


async def test_the_cards_offered_come_in_the_order_of_the_hand(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """A whole game at the terminal: each question lists its cards as the hand shows them
    (suits with colours alternating, then trumps), and a question with one answer asks for
    "1", not "1-1"."""
    said: list[str] = []
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return "1"

    player = TerminalPolicy(ask=ask, say=said.append, colour=False)
    game = await play_local(3, [player, BotPolicy(1), BotPolicy(2)], tmp_path, "order")
    assert game.seats[0].outcome is not None and game.seats[0].outcome.finished
    lists, offered = [], None
    for line in said:
        if line == "Your move:":
            offered = []
            lists.append(offered)
        elif offered is not None and line[:4].strip().rstrip(".").isdigit():
            offered.append(line.split(". ", 1)[1])
        else:
            offered = None
    orders = [cards for cards in map(card_list, lists) if cards is not None]
    assert sum(len(o) > 1 for o in orders) > 10  # many questions with several cards
    assert all(o == sorted(o, key=hand_order) for o in orders)
    assert "choice [1, l: last trick]: " in prompts
    assert not any("[1-1," in prompt for prompt in prompts)


def card_list(texts: list[str]) -> list[int] | None:
    """The cards a question offered, or ``None`` if it offered something else (bids)."""
    try:
        return [read_card(text) for text in texts]
    except ValueError:
        return None
