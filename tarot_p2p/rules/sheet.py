"""The score sheet of a game: one line per deal, running totals, dealer, end of the game.

Why a sheet of its own: peers sign the sheet line by line, and friends with physical cards
keep one on paper; both need the same checks a careful scorer makes (every line has one
score per seat and sums to zero), the same dealer rotation and the same rule for when the
game is over. Everything here is a pure function of the lines added, in order.

Choices where the sources are silent (documented in ``docs/rules.md``):

* The deal passes to the next seat (``dealer + 1``, the dealer's right-hand neighbour)
  after every deal, void or not: after an all-pass deal the rules say so, and a petit sec
  is treated the same way.
* Void deals (all pass, petit sec) count as deals for ``DEALS`` and ``ROUNDS``: a round is
  one deal by each seat, whatever happened in it.
* At five players with a dead hand, the dealer is the dead hand and must score 0.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tarot_p2p.rules.config import Abandon, FivePlayerMode, GameEnd, TableConfig
from tarot_p2p.rules.scoring import HandOutcome, explain_hand


class LineKind(enum.StrEnum):
    HAND = "hand"
    """A deal that was scored (a played hand, or a misère deal)."""
    ALL_PASS = "all_pass"
    """Everybody passed and the deal was void."""
    PETIT_SEC = "petit_sec"
    """A player showed the petit sec and the deal was void."""
    ABANDON = "abandon"
    """A priced abandon (he lost the deal alone): only in the saved games of programs
    before the stand-in (table-config/v1); a hand with an absent seat is now a ``HAND`` or
    void line (``protocol/game.md`` §6)."""


SCORED = frozenset({LineKind.HAND, LineKind.ABANDON})
"""Line kinds that carry scores (the others are void deals, all zeros)."""


@dataclass(frozen=True)
class SheetLine:
    number: int
    """1 for the first deal."""
    dealer: int
    kind: LineKind
    scores: tuple[int, ...]
    """One score per seat; all zeros for a void deal."""
    note: str = ""


class ScoreSheet:
    """Lines of a game under one :class:`TableConfig`, with player names per seat."""

    def __init__(self, config: TableConfig, names: Sequence[str], first_dealer: int = 0) -> None:
        if len(names) != config.players:
            raise ValueError(f"expected {config.players} player names, got {len(names)}")
        cleaned = tuple(name.strip() for name in names)
        if any(not name for name in cleaned):
            raise ValueError("player names cannot be empty")
        if len({name.casefold() for name in cleaned}) != len(cleaned):
            raise ValueError("player names must differ (ignoring case)")
        if not 0 <= first_dealer < config.players:
            raise ValueError(f"first dealer must be a seat 0..{config.players - 1}")
        self.config = config
        self.names = cleaned
        self.first_dealer = first_dealer
        self._abandoned = False
        """An abandon ended the game (``Abandon.END``)."""
        self._lines: list[SheetLine] = []

    @property
    def lines(self) -> tuple[SheetLine, ...]:
        return tuple(self._lines)

    @property
    def dealer(self) -> int:
        """Seat that deals next."""
        return (self.first_dealer + len(self._lines)) % self.config.players

    @property
    def dead(self) -> int | None:
        """Seat that sits out the next deal (five players, dead-hand mode), else ``None``."""
        if self.config.players == 5 and self.config.five_player_mode is FivePlayerMode.DEAD_HAND:
            return self.dealer
        return None

    def seat_of(self, name_or_seat: str) -> int:
        """Seat of a player given by name (case-insensitive) or by 1-based seat number."""
        text = name_or_seat.strip()
        for seat, name in enumerate(self.names):
            if name.casefold() == text.casefold():
                return seat
        if text.isdigit() and 1 <= int(text) <= len(self.names):
            return int(text) - 1
        raise ValueError(f"no player {name_or_seat!r} (players: {', '.join(self.names)})")

    def add_hand(
        self, scores: Sequence[int], note: str = "", absent: int | None = None
    ) -> SheetLine:
        """Record a scored deal; rejects a line of the wrong length or that does not sum to 0.
        ``absent``: the seat whose hand the stand-in finished (under ``Abandon.END`` the game
        is over after it)."""
        self._check_open()
        line = tuple(scores)
        if len(line) != self.config.players:
            raise ValueError(f"a line has {self.config.players} scores, not {len(line)}")
        if any(type(s) is not int for s in line):
            raise ValueError("scores are integers")
        if sum(line) != 0:
            raise ValueError(f"the line {list(line)} sums to {sum(line)}, not 0")
        dead = self.dead
        if dead is not None and line[dead] != 0:
            raise ValueError(f"{self.names[dead]} deals and sits out this deal: scores 0")
        self._absent(absent)
        return self._append(LineKind.HAND, line, note)

    def add_void(self, kind: LineKind, note: str = "", absent: int | None = None) -> SheetLine:
        """Record a deal that was not played (all pass, petit sec); ``absent`` as in
        :meth:`add_hand`."""
        self._check_open()
        if kind not in (LineKind.ALL_PASS, LineKind.PETIT_SEC):
            raise ValueError("a void deal is all_pass or petit_sec")
        self._absent(absent)
        return self._append(kind, (0,) * self.config.players, note)

    def _absent(self, seat: int | None) -> None:
        if seat is not None:
            if not 0 <= seat < self.config.players:
                raise ValueError(f"no seat {seat}")
            self._abandoned = self._abandoned or self.config.abandon is Abandon.END

    def add_abandon(self, seat: int, scores: Sequence[int], note: str = "") -> SheetLine:
        """Record the abandon of ``seat`` as a version-1 game priced it (read back from an
        older game's record); under ``Abandon.END`` the game is over after it."""
        self._check_open()
        line = tuple(scores)
        if len(line) != self.config.players or sum(line) != 0:
            raise ValueError("an abandon line has one score per seat and sums to 0")
        self._abandoned = self._abandoned or self.config.abandon is Abandon.END
        return self._append(LineKind.ABANDON, line, note)

    def _check_open(self) -> None:
        if self.is_over:
            raise ValueError("the game is over")

    def _append(self, kind: LineKind, scores: tuple[int, ...], note: str) -> SheetLine:
        line = SheetLine(len(self._lines) + 1, self.dealer, kind, scores, note)
        self._lines.append(line)
        return line

    @property
    def totals(self) -> tuple[int, ...]:
        totals = [0] * self.config.players
        for line in self._lines:
            for seat, score in enumerate(line.scores):
                totals[seat] += score
        return tuple(totals)

    @property
    def deals_to_play(self) -> int | None:
        """Number of deals in the game, or ``None`` when it ends on points."""
        if self.config.game_end is GameEnd.DEALS:
            return self.config.game_length
        if self.config.game_end is GameEnd.ROUNDS:
            return self.config.game_length * self.config.players
        return None

    @property
    def is_over(self) -> bool:
        if self._abandoned:
            return True
        planned = self.deals_to_play
        if planned is not None:
            return len(self._lines) >= planned
        return any(total > self.config.game_length for total in self.totals)

    def winners(self) -> tuple[int, ...]:
        """Seats with the highest total (several on a tie); the leaders while the game runs."""
        totals = self.totals
        best = max(totals)
        return tuple(seat for seat, total in enumerate(totals) if total == best)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able view of the sheet (lists and plain types, fixed key order); the
        configuration digest says which rules the lines were scored under."""
        return {
            "config_digest": self.config.digest().hex(),
            "players": list(self.names),
            "first_dealer": self.first_dealer,
            "lines": [
                {
                    "number": line.number,
                    "dealer": line.dealer,
                    "kind": line.kind.value,
                    "scores": list(line.scores),
                    "note": line.note,
                }
                for line in self._lines
            ],
            "totals": list(self.totals),
            "over": self.is_over,
            "winners": list(self.winners()),
        }

    def render(self, shown: Callable[[str], str]) -> str:
        """The sheet as plain text with aligned columns, totals and the winner(s).

        ``shown`` is how a text the players chose (a name, a note naming them) is printed:
        ``tarot_p2p.protocol.names.for_terminal`` on a terminal, where a name must not be
        obeyed (names are others' choice; this layer does not know terminals)."""
        names = [shown(name) for name in self.names]
        header = ["#", "Dealer", *names, "Note"]
        rows = [
            [
                str(line.number),
                names[line.dealer],
                *(_signed(s) if line.kind in SCORED else "-" for s in line.scores),
                shown(line.note)
                or ("" if line.kind is LineKind.HAND else line.kind.value.replace("_", " ")),
            ]
            for line in self._lines
        ]
        total_row = ["Total", "", *(_signed(t) for t in self.totals), ""]
        table = [header, *rows, total_row]
        widths = [max(len(row[i]) for row in table) for i in range(len(header))]

        def fmt(row: list[str]) -> str:
            cells = [row[0].rjust(widths[0]), row[1].ljust(widths[1])]
            cells += [cell.rjust(w) for cell, w in zip(row[2:-1], widths[2:-1], strict=True)]
            return "  ".join([*cells, row[-1]]).rstrip()

        rule = "-" * len(fmt([w * "-" for w in widths]))
        out = [fmt(header), rule, *(fmt(r) for r in rows), rule, fmt(total_row)]
        best = [names[s] for s in self.winners()]
        level = len(best) == len(names)  # every total equal: nobody is ahead
        leading = best[0] if len(best) == 1 else f"{', '.join(best[:-1])} and {best[-1]}"
        if self.is_over:
            if level:
                out.append("Game over, level: nobody wins.")
            elif len(best) > 1:
                out.append(f"Game over. {leading} share the win.")
            else:
                out.append(f"Game over. Winner: {leading}.")
        elif self._lines:
            ahead = "Level so far." if level else f"Leading: {leading}."
            out.append(f"{ahead} Next dealer: {names[self.dealer]}.")
        return "\n".join(out)


def _signed(score: int) -> str:
    return f"+{score}" if score > 0 else str(score)


def hand_note(config: TableConfig, outcome: HandOutcome | None, names: Sequence[str]) -> str:
    """The sheet's note for a scored deal: who took what, and by how much it was made or failed.

    One wording for every sheet (local game, networked game), so players read the same line
    whichever way the hand was played. ``None`` is the all-pass misère deal (a variant).
    """
    if outcome is None:
        return "misère deal"
    steps = explain_hand(config, outcome)
    verdict = "made" if steps.made else "failed"
    contract = outcome.contract.name.lower().replace("_", " ")
    note = f"{names[outcome.taker]} {contract} {verdict} by {abs(steps.difference)}"
    if outcome.offender is not None:
        note += f"; offence by {names[outcome.offender]}"
    return note
