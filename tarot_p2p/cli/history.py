"""``tarot-p2p history``: the games you played, one game's score sheet, every player's totals.

Every table you sit at is recorded in your profile's history as it is played
(:mod:`tarot_p2p.files.history`); this command reads it. ``--rebuild`` first reads every
table folder of the profile again (checking each transcript as ``audit`` does), for a
history that was damaged, deleted, or kept by an older version.

The text views print names the other players chose and reasons their programs wrote, read
from tables recorded by any version: each goes through
:func:`~tarot_p2p.protocol.names.for_terminal`, so nothing in them is obeyed by the
terminal. The JSON views keep them as they are (JSON escapes them).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections.abc import Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

from tarot_p2p.files.game_record import Deal, Game, PlayerTotals, Result, player_totals
from tarot_p2p.files.history import (
    HistoryError,
    load_games,
    mend_unfinished,
    open_history,
    rebuild,
)
from tarot_p2p.files.profile import Profile
from tarot_p2p.protocol.names import for_terminal

DESCRIPTION = (
    "The games you played. With nothing else: the list of your games, the most recent "
    "first (date, players, rules, number of deals, your total, how it ended). With a game's "
    "number from that list, or the start of its table name: that game's score sheet. "
    "--players: each player's totals over all your games, with the contracts they took and "
    "made. --json prints the same as JSON. --rebuild reads every table of your profile "
    "again to refill the history, if it was damaged or deleted."
)
CONTRACT_ORDER = ("prise", "garde", "garde_sans", "garde_contre")
STOPPED = {
    "absence": "stopped, {named} was silent",
    "disconnected": "stopped, connection lost",
    "lost_secret": "stopped, your program's files were older than its messages",
    "violation": "stopped, {named} broke the rules (the proof is kept)",
}


class NoSuchGame(Exception):
    """The game asked for is not in the history (message for the player)."""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("history", help="the games you played", description=DESCRIPTION)
    p.add_argument(
        "game",
        nargs="?",
        help="a game: its number in the list, or the start of its table name",
    )
    p.add_argument(
        "--players", action="store_true", help="each player's totals over all your games"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument(
        "--rebuild",
        action="store_true",
        help="read every table of your profile again to refill the history (slow: each "
        "transcript is checked)",
    )
    p.add_argument("--profile", type=Path, default=None, help="your profile folder")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.game is not None and args.players:
        print("error: ask for one game or for --players, not both", file=sys.stderr)
        return 2
    profile = Profile(args.profile)
    path = profile.history
    try:
        if args.rebuild:
            _rebuild(path, profile.tables)
        if not path.exists():
            games: list[Game] = []
        else:
            with closing(open_history(path, _tell)) as conn:
                mend_unfinished(conn, profile.tables)
                games = load_games(conn)
        text = _output(args, games)
    except (HistoryError, OSError, sqlite3.Error, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(
            f"error: cannot read your game history ({reason}). To read your tables again, "
            "run: tarot-p2p history --rebuild",
            file=sys.stderr,
        )
        return 2
    except NoSuchGame as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(text)
    return 0


def _output(args: argparse.Namespace, games: list[Game]) -> str:
    """What to print; raises :class:`NoSuchGame` for a game not there,
    ``ValueError`` for a game the database holds damaged."""
    if args.players:
        totals = player_totals(games)
        return json.dumps(_players_json(totals), indent=2) if args.json else _players(totals)
    if args.game is not None:
        number, game = _choose(games, args.game)
        return json.dumps(_game_json(number, game), indent=2) if args.json else _game(number, game)
    if args.json:
        return json.dumps(
            {"games": [_summary_json(i, g) for i, g in enumerate(games, 1)]}, indent=2
        )
    return _list(games)


def _tell(message: str) -> None:
    print(message, file=sys.stderr)


def _rebuild(path: Path, tables: Path) -> None:
    if not tables.is_dir():
        print(f"There is no table in {tables.parent} to read.", file=sys.stderr)
        return
    done = rebuild(path, tables, lambda text: print(text, file=sys.stderr, flush=True), _tell)
    games = len(done.recorded)
    print(
        f"Your history now holds the {games} game{'s' if games != 1 else ''} found in {tables}.",
        file=sys.stderr,
    )
    for folder, why in done.skipped:
        print(f"  table {folder} left out: {for_terminal(why)}", file=sys.stderr)


def _choose(games: Sequence[Game], key: str) -> tuple[int, Game]:
    """The game named by its number in the list or a table name prefix
    (:class:`NoSuchGame` saying why not)."""
    if not games:
        raise NoSuchGame("your history holds no game yet")
    text = key.strip().lower()
    if text.isdigit():
        number = int(text)
        if 1 <= number <= len(games):
            return number, games[number - 1]
        raise NoSuchGame(f"there is no game {number}: the list goes from 1 to {len(games)}")
    found = [(i, g) for i, g in enumerate(games, 1) if text and g.folder.startswith(text)]
    if len(found) == 1:
        return found[0]
    what = "no game's table name starts" if not found else "several games' table names start"
    raise NoSuchGame(f"{what} with {key!r}; see the list with: tarot-p2p history")


# ---------------------------------------------------------------------- words


def _when(moment: float | None) -> str:
    if moment is None:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(moment))


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _players_of(game: Game) -> str:
    return ", ".join(for_terminal(p.name) + (" (you)" if p.me else "") for p in game.players)


def _result(game: Game) -> str:
    named = for_terminal(game.named) if game.named else "a player"
    if game.result is Result.FINISHED:
        winners = [for_terminal(game.players[s].name) for s in game.sheet().winners()]
        if len(winners) == len(game.players):  # every total the same: "won by" all reads wrong
            return "finished level, nobody won"
        return f"finished, won by {_names(winners)}"
    if game.result is Result.ABANDONED:
        return f"ended when {named} abandoned"
    if game.result is Result.ABORTED and game.stops:
        kind = game.stops[-1].kind
        return STOPPED.get(kind, "stopped").format(named=named)
    return "unfinished"


def _table(rows: list[list[str]], right: frozenset[int]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.rjust(w) if i in right else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def _list(games: Sequence[Game]) -> str:
    if not games:
        return (
            "Your history holds no game yet. Host one with: tarot-p2p host, or join one with: "
            "tarot-p2p join CODE. If you played before with this profile, run: "
            "tarot-p2p history --rebuild"
        )
    rows = [["#", "Date", "Players", "Rules", "Deals", "You", "Result"]]
    for i, game in enumerate(games, 1):
        rows.append(
            [
                str(i),
                _when(game.started),
                _players_of(game),
                game.rules,
                str(len(game.deals)),
                _signed(game.sheet().totals[game.me]),
                _result(game),
            ]
        )
    lines = _table(rows, frozenset({0, 4, 5}))
    lines.append("")
    lines.append(
        "One game's score sheet: tarot-p2p history NUMBER. "
        "Totals by player: tarot-p2p history --players."
    )
    if any(g.result in (Result.UNFINISHED, Result.ABORTED) for g in games):
        lines.append("A stopped or unfinished game can be taken up again with: tarot-p2p resume")
    return "\n".join(lines)


def _note(game: Game, deal: Deal) -> str:
    """The sheet's note, with the called partner at five (the note does not name him)."""
    partner = deal.detail.partner
    if partner is None:
        return deal.note
    return f"{deal.note}; partner {game.players[partner].name}"


def _game(number: int, game: Game) -> str:
    shown = replace(game, deals=tuple(replace(d, note=_note(game, d)) for d in game.deals))
    ended = f", ended {_when(game.ended)}" if game.ended is not None else ""
    lines = [
        f"Game {number}: table {game.folder}, started {_when(game.started)}{ended}",
        f"Rules: {game.rules}",
        f"Players: {_players_of(game)}",
        f"Result: {_result(game)}",
        "",
        shown.sheet().render(for_terminal) if game.deals else "No deal was played.",
    ]
    if game.stops:
        lines.append("")
        lines.append("Stops:")
        lines += [
            f"  deal {s.hand}: {for_terminal(s.reason)}"
            if s.hand
            else f"  before the first deal: {for_terminal(s.reason)}"
            for s in game.stops
        ]
    lines += [
        "",
        f"Transcript: {game.transcript}",
        f"  SHA-256 {game.transcript_sha256}",
        f"  check it with: tarot-p2p audit {game.transcript}",
    ]
    return "\n".join(lines)


def _display_names(totals: Sequence[PlayerTotals]) -> list[str]:
    """Names, with the start of the key when two identities used the same name."""
    counts: dict[str, int] = {}
    for row in totals:
        counts[row.name.casefold()] = counts.get(row.name.casefold(), 0) + 1
    names = []
    for row in totals:
        name = for_terminal(row.name)
        if counts[row.name.casefold()] > 1:
            name += f" (key {row.fingerprint[:8]})"
        names.append(f"{name} (you)" if row.me else name)
    return names


def _players(totals: Sequence[PlayerTotals]) -> str:
    if not totals:
        return "Your history holds no game yet: there is nobody to count."
    rows = [
        [
            "Player",
            "Games",
            "Deals",
            "Total",
            "Per deal",
            "Taken",
            "Made",
            "Success",
            "By contract (made/taken)",
        ]
    ]
    for name, row in zip(_display_names(totals), totals, strict=True):
        success = f"{round(100 * row.made / row.taken)}%" if row.taken else "-"
        contracts = ", ".join(
            f"{c.replace('_', ' ')} {row.contracts[c][1]}/{row.contracts[c][0]}"
            for c in CONTRACT_ORDER
            if c in row.contracts
        )
        rows.append(
            [
                name,
                str(row.games),
                str(row.deals),
                _signed(row.total),
                f"{row.mean:+.1f}",
                str(row.taken),
                str(row.made),
                success,
                contracts,
            ]
        )
    return "\n".join(_table(rows, frozenset(range(1, 8))))


# ---------------------------------------------------------------------- JSON


def _iso(moment: float | None) -> str | None:
    if moment is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(moment))


def _summary_json(number: int, game: Game) -> dict[str, Any]:
    totals = game.sheet().totals
    return {
        "number": number,
        "table": game.folder,
        "table_id": game.table_id,
        "started": _iso(game.started),
        "ended": _iso(game.ended),
        "players": [
            {"name": p.name, "fingerprint": p.fingerprint, "me": p.me, "total": total}
            for p, total in zip(game.players, totals, strict=True)
        ],
        "rules": game.rules,
        "deals": len(game.deals),
        "my_total": totals[game.me],
        "result": game.result.value,
        "named": game.named,
    }


def _game_json(number: int, game: Game) -> dict[str, Any]:
    names = [p.name for p in game.players]

    def name(seat: int | None) -> str | None:
        return None if seat is None else names[seat]

    return {
        **_summary_json(number, game),
        "config": game.config.canonical_bytes().decode("ascii"),
        "lines": [
            {
                "number": d.number,
                "dealer": name(d.dealer),
                "kind": d.kind.value,
                "contract": d.detail.contract,
                "taker": name(d.detail.taker),
                "partner": name(d.detail.partner),
                "made": d.detail.made,
                "absent": name(d.detail.absent),
                "note": d.note,
                "scores": dict(zip(names, d.scores, strict=True)),
            }
            for d in game.deals
        ],
        "stops": [
            {"deal": s.hand, "kind": s.kind, "named": s.named, "reason": s.reason}
            for s in game.stops
        ],
        "transcript": game.transcript,
        "transcript_sha256": game.transcript_sha256,
    }


def _players_json(totals: Sequence[PlayerTotals]) -> dict[str, Any]:
    return {
        "players": [
            {
                "name": row.name,
                "fingerprint": row.fingerprint,
                "me": row.me,
                "games": row.games,
                "deals": row.deals,
                "total": row.total,
                "mean_per_deal": row.mean,
                "taken": row.taken,
                "made": row.made,
                "success_rate": row.made / row.taken if row.taken else None,
                "by_contract": {
                    c: {"taken": row.contracts[c][0], "made": row.contracts[c][1]}
                    for c in CONTRACT_ORDER
                    if c in row.contracts
                },
            }
            for row in totals
        ]
    }
