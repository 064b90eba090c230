"""The history database on its own: any game stored (once or again) reads back as it was,
and the totals by player add up (hypothesis)."""

from __future__ import annotations

import tempfile
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.files.game_record import (
    Deal,
    DealDetail,
    Game,
    Player,
    Result,
    Stop,
    player_totals,
    rules_summary,
)
from tarot_p2p.files.history import load_games, open_history, store_game
from tarot_p2p.files.profile import HISTORY_FILE
from tarot_p2p.rules.config import Abandon, FivePlayerMode, GameEnd, TableConfig
from tarot_p2p.rules.sheet import LineKind

CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")
NAMES = ("Ana", "Bruno", "Chloé", "Denis", "Élise", "Fanny")


@st.composite
def games(draw: st.DrawFn, table: int) -> Game:
    players = draw(st.integers(3, 5))
    seat = st.integers(0, players - 1)
    count = draw(st.integers(0, 6))
    deals = []
    for number in range(1, count + 1):
        kind = draw(st.sampled_from([LineKind.HAND, LineKind.ALL_PASS, LineKind.PETIT_SEC]))
        scores = (0,) * players
        detail = DealDetail()
        if kind is LineKind.HAND:
            some = draw(
                st.lists(st.integers(-2000, 2000), min_size=players - 1, max_size=players - 1)
            )
            scores = (*some, -sum(some))
            detail = DealDetail(
                draw(st.sampled_from(CONTRACTS) | st.none()),
                draw(seat | st.none()),
                draw(seat | st.none()),
                draw(st.booleans() | st.none()),
                None,
            )
        note = draw(st.text(max_size=20))
        deals.append(Deal(number, (number - 1) % players, kind, scores, note, detail))
    config = TableConfig(players=players, game_end=GameEnd.DEALS, game_length=max(1, count))
    names = draw(st.permutations(NAMES))[:players]
    me = draw(seat)
    result = draw(st.sampled_from(Result))
    kinds = draw(st.lists(st.sampled_from(["absence", "violation"]), max_size=2))
    named = st.sampled_from(names) | st.none()
    stops = tuple(
        Stop(n, kind, draw(named), "silent", kind == "violation", n * 7)
        for n, kind in enumerate(kinds)
    )
    return Game(
        table_id=f"{table:064x}",
        folder=f"{table:016x}-{me:08x}",
        config=config,
        players=tuple(Player(n, f"{i:032x}", i == me) for i, n in enumerate(names)),
        first_dealer=0,
        deals=tuple(deals),
        result=result,
        named=draw(named),
        transcript=f"/profile/tables/{table}/transcript.tp2p",
        transcript_sha256=f"{table:064x}",
        messages=draw(st.integers(1, 5000)),
        stops=stops,
    )


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 10**6), min_size=1, max_size=4, unique=True).flatmap(
    lambda ids: st.tuples(*(games(i) for i in ids))))  # fmt: skip
def test_games_read_back_as_stored_however_often(stored: tuple[Game, ...]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / HISTORY_FILE
        with closing(open_history(path, print)) as conn:
            for when, game in enumerate(stored):
                store_game(conn, game, started=1000.0 + when, ended=2000.0 + when)
                store_game(conn, game, started=1500.0 + when, ended=2000.0 + when)
            back = load_games(conn)
    expected = [
        replace(
            g,
            started=1000.0 + when,
            ended=None if g.result is Result.UNFINISHED else 2000.0 + when,
        )
        for when, g in enumerate(stored)
    ]
    assert back == expected[::-1]  # the most recent first
    totals = player_totals(back)
    assert sum(row.total for row in totals) == 0  # every sheet line sums to zero
    assert sum(row.games for row in totals) == sum(len(g.players) for g in back)
    details = [d.detail for g in back for d in g.deals]
    taken = sum(1 for d in details if d.contract is not None and d.taker is not None)
    assert sum(row.taken for row in totals) == taken
    assert all(0 <= row.made <= row.taken for row in totals)
    assert [row.me for row in totals].count(True) == len({g.my_key for g in back})


def test_rules_are_summed_up_in_a_few_words() -> None:
    assert rules_summary(TableConfig()) == "4 players, 1 round"
    five = TableConfig(
        players=5,
        five_player_mode=FivePlayerMode.DEAD_HAND,
        game_end=GameEnd.POINTS,
        game_length=1000,
        misere=True,
        abandon=Abandon.CONTINUE,
        poignee_values=(20, 40, 60),
    )
    assert rules_summary(five) == (
        "5 players, dead hand, to 1000 points, misère, poignées 20/40/60, "
        "play goes on after an abandon"
    )
