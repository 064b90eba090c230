"""``tarot-p2p play``: a local game of bots on the rules engine, with its score sheet.

Why: the quickest way to see the whole engine work end to end (deal, bidding, écart,
announcements, tricks, scoring, the sheet), reproducibly from a seed.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from typing import Any

from tarot_p2p.bots import Bot
from tarot_p2p.cli.bot import add_bot_options
from tarot_p2p.cli.errors import tell
from tarot_p2p.cli.rule_options import (
    add_length_options,
    add_rule_options,
    game_length,
    rule_fields,
)
from tarot_p2p.protocol.names import for_terminal
from tarot_p2p.rules.actions import Bid
from tarot_p2p.rules.audit import audit_hand, record_of
from tarot_p2p.rules.cards import card_name
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import deal_cards
from tarot_p2p.rules.scoring import explain_hand
from tarot_p2p.rules.sheet import LineKind, ScoreSheet, hand_note
from tarot_p2p.rules.state import State, Void, new_hand

_NAMES = ("North", "West", "South", "East", "Centre")


DESCRIPTION = (
    "Watch bots play a whole game on this computer, without network or cryptography: every "
    "deal is printed with its contract and result, then the score sheet. The same --seed "
    "plays the same game again; --json gives every deal's details for programs."
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "play", help="play a local game of bots on the rules engine", description=DESCRIPTION
    )
    p.add_argument(
        "--players", type=int, choices=(2, 3, 4, 5), default=4, help="how many play at the table"
    )
    add_length_options(p)
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the shuffles and of the bots' choices"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_bot_options(p)
    add_rule_options(p.add_argument_group("rule variants (default: FFT)"))
    p.set_defaults(func=run)


def play_hand(
    config: TableConfig, dealer: int, rng: random.Random, bots: Sequence[Bot]
) -> tuple[State, dict[str, Any]]:
    """Deal from ``rng``, let the bots (one per seat) play, and audit the record."""
    deck = list(range(78))
    rng.shuffle(deck)
    state = new_hand(config, dealer, deck)
    while not state.is_terminal():
        seat = state.current_player()
        state.apply_action(bots[seat].choose(state.observation(seat), state.legal_actions()))
    deal = deal_cards(config, dealer, deck)
    report = audit_hand(record_of(state, deal.hands, deal.chien, deal.piles))
    if report.offences:
        raise AssertionError(f"the engine let an offence through: {report.offences}")
    summary: dict[str, Any] = {
        "dealer": dealer,
        "bids": [a.contract for a in state.history() if isinstance(a, Bid)],
        "void": state.void.value if state.void else None,
        "scores": list(state.returns()),
    }
    outcome = state.outcome()
    if outcome is not None:
        steps = explain_hand(config, outcome)
        summary.update(
            contract=outcome.contract.name.lower(),
            taker=outcome.taker,
            partner=outcome.partner,
            called=card_name(state.called) if state.called is not None else None,
            attack_half_points=outcome.attack_half_points,
            attack_oudlers=outcome.attack_oudlers,
            threshold=steps.threshold,
            difference=steps.difference,
            made=steps.made,
            petit_au_bout=outcome.petit_au_bout.name.lower() if outcome.petit_au_bout else None,
            poignees=[[p.side.name.lower(), p.level] for p in outcome.poignees],
            chelem=outcome.chelem.name.lower() if outcome.chelem is not None else None,
        )
    elif state.void is None:
        summary["misere_deal_half_points"] = list(state.half_points())
    return state, summary


def _describe(summary: dict[str, Any], names: tuple[str, ...]) -> str:
    if summary["void"] == Void.PETIT_SEC.value:
        return "petit sec: deal void"
    if summary["void"] == Void.ALL_PASS.value:
        return "all pass: deal void"
    if "contract" not in summary:
        return "all pass: misère deal, half-points " + str(summary["misere_deal_half_points"])
    hp = summary["attack_half_points"]
    points = f"{hp // 2}.5" if hp % 2 else str(hp // 2)
    text = f"{names[summary['taker']]} {summary['contract'].replace('_', ' ')}"
    if summary["called"]:
        partner = summary["partner"]
        text += f" calling {summary['called']} ({'alone' if partner is None else names[partner]})"
    verdict = "made" if summary["made"] else "failed"
    text += (
        f": {points} points with {summary['attack_oudlers']} oudler(s), needs "
        f"{summary['threshold']}, {verdict} by {abs(summary['difference'])}"
    )
    extras = []
    if summary["petit_au_bout"]:
        extras.append(f"petit au bout ({summary['petit_au_bout']})")
    if summary["poignees"]:
        extras.append(f"{len(summary['poignees'])} poignée(s)")
    if summary["chelem"]:
        extras.append(f"chelem ({summary['chelem']})")
    return text + (f"; {', '.join(extras)}" if extras else "")


def run(args: argparse.Namespace) -> int:
    end = game_length(args)
    try:
        config = TableConfig(
            players=args.players,
            game_end=end[0],
            game_length=end[1],
            **rule_fields(args, args.players),
        )
    except ValueError as e:
        return tell(e)
    names = _NAMES[: args.players]
    sheet = ScoreSheet(config, names)
    rng = random.Random(args.seed)
    bots = [
        Bot(config, args.level, f"{args.seed}/{seat}", args.think) for seat in range(config.seats)
    ]
    hands = []
    while not sheet.is_over:
        dealer = sheet.dealer
        state, summary = play_hand(config, dealer, rng, bots)
        hands.append(summary)
        note = _describe(summary, names)
        if state.void is Void.PETIT_SEC:
            sheet.add_void(LineKind.PETIT_SEC)
        elif state.void is Void.ALL_PASS:
            sheet.add_void(LineKind.ALL_PASS)
        else:
            sheet.add_hand(summary["scores"], hand_note(config, state.outcome(), names))
        if not args.json:
            print(f"Deal {len(hands)} (dealer {names[dealer]}): {note}")
    if args.json:
        print(
            json.dumps(
                {
                    "config": config.canonical_bytes().decode(),
                    "hands": hands,
                    "sheet": sheet.to_dict(),
                },
                indent=2,
            )
        )
    else:
        print()
        print(sheet.render(for_terminal))
    return 0
