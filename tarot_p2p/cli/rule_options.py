"""The table's rule options: one spelling for every command that sets rules.

Why a module of its own: ``score``, ``play`` and ``host`` all let a player choose the
variants of ``TableConfig``; the same variant must be written the same way wherever a player
meets it, and turned into the same configuration field.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from tarot_p2p.rules.config import (
    AllPass,
    ExcuseLastTrick,
    FivePlayerMode,
    GameEnd,
    Penalty,
    PetitAuBout,
    PoigneeBeneficiary,
)


def word(text: str) -> str:
    """A word of a closed list (a contract, a side, a variant...) as the player typed it:
    any case is the same word, so ``Garde`` and ``GARDE`` are ``garde``."""
    return text.strip().lower()


VARIANTS = ("misere", "petit-chelem", "misere-deal")
"""Variants switched on by ``--variant NAME`` (repeatable)."""


def positive(text: str) -> int:
    """A whole number of at least 1 (deals, rounds, points)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("give a number of at least 1")
    return value


def add_length_options(container: Any) -> None:
    """How long the game lasts, spelled the same by every command that plays or scores one."""
    length = container.add_mutually_exclusive_group()
    length.add_argument("--deals", type=positive, metavar="N", help="the game is N deals")
    length.add_argument(
        "--rounds",
        type=positive,
        metavar="N",
        help="the game is N rounds, each player dealing once a round (default: 1)",
    )
    length.add_argument(
        "--points", type=positive, metavar="N", help="the game ends once a total exceeds N"
    )


def game_length(args: argparse.Namespace) -> tuple[GameEnd, int]:
    """The ``game_end`` and ``game_length`` of :func:`add_length_options` (one round unless
    told)."""
    for end in GameEnd:
        length: int | None = getattr(args, end.value)
        if length is not None:
            return end, length
    return GameEnd.ROUNDS, 1


def add_rule_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--five",
        type=word,
        choices=("called-king", "dead-hand"),
        help="five-player mode (default: called-king)",
    )
    group.add_argument(
        "--poignee-values",
        metavar="S,D,T",
        help="the poignées' values (default: 20,30,40; older rules: 20,40,60)",
    )
    group.add_argument(
        "--poignee-to",
        type=word,
        choices=("winner", "announcer"),
        help="who scores the poignées (default: winner)",
    )
    group.add_argument(
        "--petit-au-bout-value",
        type=word,
        choices=("multiplied", "fixed"),
        help="the petit au bout's value: multiplied by the contract or fixed (default: multiplied)",
    )
    group.add_argument(
        "--chelem-values",
        metavar="A,U,F",
        help="chelem announced and made, made unannounced, announced and failed "
        "(default: 400,200,-200)",
    )
    group.add_argument(
        "--excuse-last-trick",
        type=word,
        choices=("changes-sides", "to-trick-winner"),
        help="the Excuse played to the last trick (default: changes-sides)",
    )
    group.add_argument(
        "--variant",
        action="append",
        type=word,
        choices=VARIANTS,
        help="enable a variant (repeatable)",
    )
    group.add_argument(
        "--penalty",
        type=word,
        choices=("lose-hand", "report-only"),
        help="after a rule broken: the offender loses the deal, or it is only reported "
        "(default: lose-hand)",
    )


def rule_fields(args: argparse.Namespace, players: int) -> dict[str, Any]:
    """``TableConfig`` keyword arguments for the rule options given (FFT for the others);
    raises ``ValueError`` on a malformed value or an option that does not fit ``players``."""
    variants = set(args.variant or ())
    fields: dict[str, Any] = {
        "misere": "misere" in variants,
        "petit_chelem": "petit-chelem" in variants,
        "all_pass": AllPass.MISERE_DEAL if "misere-deal" in variants else AllPass.REDEAL,
    }
    if args.five is not None:
        if players != 5:
            raise ValueError("--five is for five players")
        fields["five_player_mode"] = FivePlayerMode(args.five.replace("-", "_"))
    if args.poignee_values is not None:
        fields["poignee_values"] = _int_triple(args.poignee_values, "--poignee-values")
    if args.poignee_to is not None:
        fields["poignee_beneficiary"] = PoigneeBeneficiary(args.poignee_to)
    if args.petit_au_bout_value is not None:
        fields["petit_au_bout"] = PetitAuBout(args.petit_au_bout_value)
    if args.chelem_values is not None:
        fields["chelem_values"] = _int_triple(args.chelem_values, "--chelem-values")
    if args.excuse_last_trick is not None:
        fields["excuse_last_trick"] = ExcuseLastTrick(args.excuse_last_trick.replace("-", "_"))
    if args.penalty is not None:
        fields["penalty"] = Penalty(args.penalty.replace("-", "_"))
    return fields


def _int_triple(text: str, flag: str) -> tuple[int, int, int]:
    parts = text.split(",")
    if len(parts) != 3 or not all(re.fullmatch(r"-?\d{1,6}", x.strip()) for x in parts):
        raise ValueError(f"{flag} takes three integers separated by commas, not {text!r}")
    a, b, c = (int(x) for x in parts)
    return a, b, c
