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
    Penalty,
    PetitAuBout,
    PoigneeBeneficiary,
)

VARIANTS = ("misere", "petit-chelem", "misere-deal")
"""Variants switched on by ``--variant NAME`` (repeatable)."""


def add_rule_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--five", choices=("called-king", "dead-hand"), help="five-player mode")
    group.add_argument("--poignee-values", metavar="S,D,T", help="default 20,30,40 (old: 20,40,60)")
    group.add_argument("--poignee-to", choices=("winner", "announcer"), help="default winner")
    group.add_argument(
        "--petit-au-bout-value", choices=("multiplied", "fixed"), help="default multiplied"
    )
    group.add_argument("--chelem-values", metavar="A,U,F", help="default 400,200,-200")
    group.add_argument(
        "--excuse-last-trick",
        choices=("changes-sides", "to-trick-winner"),
        help="the Excuse played to the last trick: default changes-sides",
    )
    group.add_argument(
        "--variant", action="append", choices=VARIANTS, help="enable a variant (repeatable)"
    )
    group.add_argument("--penalty", choices=("lose-hand", "report-only"), help="default lose-hand")


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
