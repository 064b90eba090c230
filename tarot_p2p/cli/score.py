"""``tarot-p2p score``: the score counter for people playing with physical cards.

Why it exists: at a real table somebody counts the taker's points, works out the hand score
and writes one line per deal; seed 002 lists the mistakes people make doing it by hand. This
command does the arithmetic with the engine's own :mod:`tarot_p2p.rules.scoring`, so a
paper sheet and a peer-to-peer game are scored by the same code.

Two modes. One hand: the table options and a hand's summary on the command line. A round:
``--file`` names a file whose first line holds the table options and each following line
one deal, in the same option syntax (or the same thing as JSON); the sheet is printed and
every line checked. See ``docs/rules.md`` for the file formats.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from tarot_p2p.cli.rule_options import (
    add_length_options,
    add_rule_options,
    game_length,
    rule_fields,
    word,
)
from tarot_p2p.protocol.names import for_terminal
from tarot_p2p.rules.cards import TOTAL_HALF_POINTS
from tarot_p2p.rules.config import (
    TableConfig,
)
from tarot_p2p.rules.scoring import (
    MULTIPLIER,
    Contract,
    HandOutcome,
    HandScore,
    Poignee,
    Side,
    explain_hand,
    score_misere_deal,
)
from tarot_p2p.rules.sheet import LineKind, ScoreSheet

CONTRACTS = {
    "prise": Contract.PRISE,
    "petite": Contract.PRISE,
    "garde": Contract.GARDE,
    "garde-sans": Contract.GARDE_SANS,
    "garde-contre": Contract.GARDE_CONTRE,
}
CONTRACT_NAMES = {contract: name for name, contract in CONTRACTS.items() if name != "petite"}
SIDES = {"attack": Side.ATTACK, "defence": Side.DEFENCE, "defense": Side.DEFENCE}
LEVELS = {"1": 1, "2": 2, "3": 3, "simple": 1, "double": 2, "triple": 3}
VOIDS = {"all-pass": LineKind.ALL_PASS, "petit-sec": LineKind.PETIT_SEC}
APPEND_OPTIONS = frozenset({"poignee", "misere", "variant"})
"""Options that may be given several times (a JSON list repeats them)."""

_POINTS = re.compile(r"(\d{1,2})(?:[.,]([05]))?")


class InputError(Exception):
    """Bad input from the user: reported as one line, exit status 1, never a traceback."""


class _Parser(argparse.ArgumentParser):
    """Parser for the lines of a round file: errors are raised, not printed and exited."""

    def error(self, message: str) -> NoReturn:
        raise InputError(message)


def _add_table_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("table (agreed before the first deal)")
    g.add_argument(
        "--players",
        metavar="NAMES|N",
        help="comma-separated names in seat order, or a count 2..5 (names P1..PN) (default: 4)",
    )
    add_rule_options(g)
    add_length_options(g)
    g.add_argument("--first-dealer", metavar="PLAYER", help="name or 1-based seat")


def _add_deal_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("one deal")
    g.add_argument("--contract", type=word, choices=tuple(CONTRACTS), help="the contract taken")
    g.add_argument("--taker", metavar="PLAYER", help="name or 1-based seat")
    g.add_argument("--partner", metavar="PLAYER", help="called partner at five (omit if alone)")
    g.add_argument("--oudlers", type=int, choices=(0, 1, 2, 3), help="oudlers of the attack")
    g.add_argument("--attack-points", metavar="P", help="the attack's points, e.g. 47 or 40.5")
    g.add_argument("--defence-points", metavar="P", help="or the defence's points")
    g.add_argument(
        "--petit-au-bout", type=word, choices=("attack", "defence"), help="side that won it"
    )
    g.add_argument("--poignee", action="append", metavar="SIDE:LEVEL", help="e.g. defence:1")
    g.add_argument(
        "--chelem", type=word, choices=("attack", "defence"), help="side that took every trick"
    )
    g.add_argument(
        "--chelem-announced", action="store_true", default=None, help="the taker announced it"
    )
    g.add_argument(
        "--petit-chelem",
        type=word,
        choices=("attack", "defence"),
        help="side that took every trick but one (variant petit-chelem)",
    )
    g.add_argument(
        "--petit-chelem-announced",
        action="store_true",
        default=None,
        help="the taker announced a petit chelem",
    )
    g.add_argument("--misere", action="append", metavar="PLAYER", help="misère announcer")
    g.add_argument("--offender", metavar="PLAYER", help="player who broke a rule")
    g.add_argument("--dead", metavar="PLAYER", help="player sitting out (five, dead hand)")
    g.add_argument("--misere-deal", metavar="P,P,...", help="all-pass misère deal: points/seat")
    g.add_argument("--void", type=word, choices=tuple(VOIDS), help="deal not played")
    g.add_argument(
        "--scores", metavar="S,S,...", help="a written line to check; write --scores=-82,246,..."
    )
    g.add_argument("--note", help="text for the sheet")


def _option_names(add: Any) -> tuple[str, ...]:
    """Destinations of the options that ``add`` defines, in definition order."""
    parser = _Parser(add_help=False)
    add(parser)
    return tuple(vars(parser.parse_args([])))


TABLE_KEYS = _option_names(_add_table_options)
DEAL_KEYS = _option_names(_add_deal_options)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "score",
        help="score counter for games with physical cards",
        description="Score one hand, or a whole round from a file, with the engine's rules.",
        epilog="Example: tarot-p2p score --players Emma,Nico,Pat,Lea --contract garde "
        "--taker Nico --oudlers 2 --attack-points 47 --petit-au-bout attack. A round file holds "
        "the "
        "table options on its first line and one deal per line after it (or the same as JSON); "
        "see docs/rules.md.",
    )
    _add_table_options(p)
    _add_deal_options(p)
    p.add_argument("--file", metavar="PATH", help="score a round: text or JSON file, - for stdin")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        if args.file is not None:
            given = [k for k in (*TABLE_KEYS, *DEAL_KEYS) if getattr(args, k) is not None]
            if given:
                flags = ", ".join("--" + k.replace("_", "-") for k in given)
                raise InputError(f"with --file, the table and deals come from the file ({flags})")
            output = _run_round(args.file, args.json)
        else:
            output = _run_hand(args, args.json)
    except InputError as e:
        print(f"tarot-p2p score: error: {e}", file=sys.stderr)
        return 1
    print(output)
    return 0


def _table(args: argparse.Namespace) -> ScoreSheet:
    """An empty score sheet for the table options: configuration, names, first dealer."""
    players = args.players if args.players is not None else "4"
    if players.strip().isdigit():
        count = int(players)
        names = tuple(f"P{i + 1}" for i in range(count))
    else:
        names = tuple(players.split(","))
        count = len(names)
    try:
        kwargs: dict[str, Any] = {"players": count, **rule_fields(args, count)}
    except ValueError as e:
        raise InputError(str(e)) from None
    kwargs["game_end"], kwargs["game_length"] = game_length(args)
    try:
        sheet = ScoreSheet(TableConfig(**kwargs), names)
        if args.first_dealer is not None:
            sheet = ScoreSheet(sheet.config, names, sheet.seat_of(args.first_dealer))
    except ValueError as e:
        raise InputError(str(e)) from None
    return sheet


def parse_half_points(text: str) -> int:
    """'40.5' (or '40,5') -> 81 half-points; exact, never through a float."""
    m = _POINTS.fullmatch(text.strip())
    if m is None:
        raise InputError(f"points must look like 47 or 40.5, not {text!r}")
    half = 2 * int(m.group(1)) + (1 if m.group(2) == "5" else 0)
    if half > TOTAL_HALF_POINTS:
        raise InputError(f"points cannot exceed 91, not {text!r}")
    return half


def _points_text(half: int) -> str:
    return f"{half // 2}.5" if half % 2 else str(half // 2)


def _seat(sheet: ScoreSheet, player: str) -> int:
    try:
        return sheet.seat_of(player)
    except ValueError as e:
        raise InputError(str(e)) from None


@dataclass(frozen=True)
class DealResult:
    kind: LineKind
    scores: tuple[int, ...]
    note: str
    outcome: HandOutcome | None = None
    explanation: HandScore | None = None


def _deal(sheet: ScoreSheet, d: argparse.Namespace, dead: int | None) -> DealResult:
    """Score one deal from its options; ``dead`` is the sheet's dead seat in a round."""
    players = sheet.config.players
    summary = [
        k
        for k in DEAL_KEYS
        if getattr(d, k) is not None and k not in ("void", "scores", "note", "misere_deal")
    ]
    if d.void is not None:
        if summary or d.scores is not None or d.misere_deal is not None:
            raise InputError("a void deal has nothing else but a --note")
        return DealResult(VOIDS[d.void], (0,) * players, d.note or "")
    if d.dead is not None:
        given_dead = _seat(sheet, d.dead)
        if dead is not None and given_dead != dead:
            raise InputError(f"the dead hand is the dealer, {sheet.names[dead]}")
        dead = given_dead
    summary = [k for k in summary if k != "dead"]
    outcome: HandOutcome | None = None
    explanation: HandScore | None = None
    computed: tuple[int, ...] | None = None
    note = ""
    if d.misere_deal is not None:
        if summary:
            raise InputError("a misère deal has no contract: give only the points per seat")
        computed = _misere_deal(sheet.config, d.misere_deal, dead)
        note = "misère deal"
    elif summary:
        outcome = _outcome(sheet, d, dead)
        explanation = explain_hand(sheet.config, outcome)
        computed = explanation.scores
        verdict = (
            f"made by {explanation.difference}"
            if explanation.made
            else f"failed by {-explanation.difference}"
        )
        note = f"{d.contract} by {sheet.names[outcome.taker]}, {verdict}"
    written = None if d.scores is None else _score_line(d.scores, players)
    if computed is not None and written is not None and computed != written:
        raise InputError(
            f"the written line {_line_text(written)} differs from "
            f"the computed line {_line_text(computed)}"
        )
    scores = computed if computed is not None else written
    if scores is None:
        raise InputError("a deal needs a summary (--contract ...), --scores, or --void")
    if sum(scores) != 0:
        raise InputError(f"the line {_line_text(scores)} sums to {sum(scores)}, not 0")
    if d.note is not None:
        note = d.note
    return DealResult(LineKind.HAND, scores, note, outcome, explanation)


def _outcome(sheet: ScoreSheet, d: argparse.Namespace, dead: int | None) -> HandOutcome:
    missing = [k for k in ("contract", "taker", "oudlers") if getattr(d, k) is None]
    if missing:
        raise InputError("a hand needs " + ", ".join("--" + k for k in missing))
    if (d.attack_points is None) == (d.defence_points is None):
        raise InputError("give exactly one of --attack-points and --defence-points")
    if d.attack_points is not None:
        half = parse_half_points(d.attack_points)
    else:
        half = TOTAL_HALF_POINTS - parse_half_points(d.defence_points)
    poignees = []
    for text in d.poignee or ():
        shower, sep, level = (part.strip().lower() for part in text.partition(":"))
        if not sep or shower not in SIDES or level not in LEVELS:
            raise InputError(
                f"--poignee takes SIDE:LEVEL like defence:1 or attack:double, not {text!r}"
            )
        poignees.append(Poignee(SIDES[shower], LEVELS[level]))

    def seat(player: str | None) -> int | None:
        return None if player is None else _seat(sheet, player)

    def side(name: str | None) -> Side | None:
        return None if name is None else SIDES[name]

    return HandOutcome(
        contract=CONTRACTS[d.contract],
        taker=_seat(sheet, d.taker),
        partner=seat(d.partner),
        attack_half_points=half,
        attack_oudlers=d.oudlers,
        petit_au_bout=side(d.petit_au_bout),
        poignees=tuple(poignees),
        chelem_announced=bool(d.chelem_announced),
        chelem=side(d.chelem),
        petit_chelem=side(d.petit_chelem),
        miseres=tuple(_seat(sheet, m) for m in d.misere or ()),
        offender=seat(d.offender),
        dead=dead,
        petit_chelem_announced=bool(d.petit_chelem_announced),
    )


def _misere_deal(config: TableConfig, text: str, dead: int | None) -> tuple[int, ...]:
    parts = text.split(",")
    if len(parts) != config.players:
        raise InputError(f"--misere-deal takes {config.players} point counts")
    return score_misere_deal(config, tuple(parse_half_points(p) for p in parts), dead)


def _score_line(text: str, players: int) -> tuple[int, ...]:
    parts = text.split(",")
    if len(parts) != players or not all(re.fullmatch(r"[+-]?\d{1,7}", p.strip()) for p in parts):
        raise InputError(f"--scores takes {players} integers separated by commas, not {text!r}")
    return tuple(int(p) for p in parts)


def _line_text(scores: Sequence[int]) -> str:
    return ",".join(str(s) for s in scores)


def _explain_lines(names: Sequence[str], outcome: HandOutcome, h: HandScore) -> list[str]:
    """The computation as a score counter writes it (seed 002's order)."""
    mult = MULTIPLIER[outcome.contract]
    oudlers = outcome.attack_oudlers
    verdict = f"made by {h.difference}" if h.made else f"failed by {-h.difference}"
    lines = [
        f"{CONTRACT_NAMES[outcome.contract]}, {oudlers} oudler{'s' if oudlers != 1 else ''}: "
        f"threshold {h.threshold}, attack {_points_text(outcome.attack_half_points)} points: "
        f"{verdict}",
        f"(25 + {abs(h.base) // mult - 25}) x {mult} = {abs(h.base)}",
    ]
    if h.attack_wins != h.made:
        lines.insert(1, "penalty: the offending side loses the hand")
    for label, value in (
        ("petit au bout", h.petit_au_bout),
        ("poignées", h.poignees),
        ("chelem", h.chelem),
    ):
        if value:
            lines.append(f"{label}: {value:+d}")
    who = "each defender pays" if h.hand_score >= 0 else "each defender receives"
    lines.append(f"hand score: {abs(h.hand_score)} ({who})")
    if any(h.miseres):
        paid = ", ".join(f"{n} {m:+d}" for n, m in zip(names, h.miseres, strict=True))
        lines.append(f"misères: {paid}")
    return lines


def _run_hand(args: argparse.Namespace, as_json: bool) -> str:
    sheet = _table(args)
    if args.dead is None and sheet.dead is not None:
        raise InputError("five players with a dead hand: say who sits out with --dead")
    try:
        result = _deal(sheet, args, None)
    except ValueError as e:
        raise InputError(str(e)) from None
    if result.kind is not LineKind.HAND:
        raise InputError("--void is for the lines of a round file")
    h = result.explanation
    if as_json:
        return json.dumps(
            {
                "players": list(sheet.names),
                "scores": list(result.scores),
                "breakdown": None if h is None else _breakdown(h),
            },
            ensure_ascii=False,
        )
    lines = (
        []
        if h is None or result.outcome is None
        else _explain_lines(sheet.names, result.outcome, h)
    )
    width = max(len(n) for n in sheet.names)
    lines += [
        f"{n.ljust(width)}  {s:+d}" if s else f"{n.ljust(width)}  0"
        for n, s in zip(sheet.names, result.scores, strict=True)
    ]
    return "\n".join(lines)


def _breakdown(h: HandScore) -> dict[str, Any]:
    return {
        "threshold": h.threshold,
        "difference": h.difference,
        "made": h.made,
        "attack_wins": h.attack_wins,
        "base": h.base,
        "petit_au_bout": h.petit_au_bout,
        "poignees": h.poignees,
        "chelem": h.chelem,
        "hand_score": h.hand_score,
        "miseres": list(h.miseres),
    }


def _run_round(path: str, as_json: bool) -> str:
    text = _read(path)
    entries = _json_entries(text) if text.lstrip().startswith("{") else _text_entries(text)
    if not entries:
        raise InputError(f"{path}: empty round file")
    table_parser, deal_parser = _Parser(add_help=False), _Parser(add_help=False)
    _add_table_options(table_parser)
    _add_deal_options(deal_parser)
    (where, argv), deals = entries[0], entries[1:]
    try:
        sheet = _table(table_parser.parse_args(argv))
    except InputError as e:
        raise InputError(f"{path}:{where}: table: {e}") from None
    for where, argv in deals:
        try:
            result = _deal(sheet, deal_parser.parse_args(argv), sheet.dead)
            if result.kind is LineKind.HAND:
                sheet.add_hand(result.scores, result.note)
            else:
                sheet.add_void(result.kind, result.note)
        except (InputError, ValueError) as e:
            raise InputError(f"{path}:{where}: {e}") from None
    if as_json:
        return json.dumps(sheet.to_dict(), ensure_ascii=False)
    return sheet.render(for_terminal)


def _read(path: str) -> str:
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read {path}: {e}") from None


def _text_entries(text: str) -> list[tuple[str, list[str]]]:
    """Text format: '#' comments and blank lines ignored; first line the table, then deals."""
    entries = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            argv = shlex.split(line, comments=True)
        except ValueError as e:
            raise InputError(f"line {number}: {e}") from None
        if argv:
            entries.append((f"line {number}", argv))
    return entries


def _json_entries(text: str) -> list[tuple[str, list[str]]]:
    """JSON format: {"table": {option: value}, "deals": [{option: value}, ...]}."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON: {e}") from None
    if not isinstance(data, dict) or set(data) != {"table", "deals"}:
        raise InputError('a JSON round is {"table": {...}, "deals": [...]}')
    table, deals = data["table"], data["deals"]
    if not isinstance(table, dict) or not isinstance(deals, list):
        raise InputError('a JSON round is {"table": {...}, "deals": [...]}')
    entries = [("table", _argv(table, "table"))]
    entries += [(f"deal {i}", _argv(deal, f"deal {i}")) for i, deal in enumerate(deals, 1)]
    return entries


def _argv(options: object, where: str) -> list[str]:
    """JSON options as command-line tokens, so both formats go through the same parser."""
    if not isinstance(options, dict):
        raise InputError(f"{where}: expected an object of options")
    argv: list[str] = []
    for key, value in options.items():
        flag = "--" + str(key).replace("_", "-")
        name = str(key).replace("-", "_")
        if value is True:
            argv.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, list):
            items = [_scalar(v, where) for v in value]
            if name in APPEND_OPTIONS:
                argv += [f"{flag}={item}" for item in items]
            else:
                argv.append(f"{flag}={','.join(items)}")
        else:
            # "--flag=value": a value such as "-82,246,-82,-82" must not look like an option.
            argv.append(f"{flag}={_scalar(value, where)}")
    return argv


def _scalar(value: object, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(f"{where}: unexpected value {value!r}")
    if isinstance(value, float):
        # Points such as 40.5 are exact in binary; anything else is refused, not rounded.
        if value * 2 != int(value * 2):
            raise InputError(f"{where}: {value!r} is not a whole or half number")
        return _points_text(int(value * 2))
    return str(value)
