"""Generator of ``protocol/vectors/stand_in.json``: positions and the stand-in's move there.

Run ``python -m tests.protocol.stand_in_vectors`` to rewrite the file after a deliberate
change of the stand-in's rules (``protocol/table.md`` §3.2); ``test_stand_in_vectors.py``
recomputes it on every run. Each hand gives its configuration, dealer, deck order and
every action played (``game.md`` §4 encodings); each position is "after the first ``after``
actions", with the seat to act and the stand-in's move there. An implementer replays the
actions on the deal and must choose the same move at every position. The seeded
``random.Random`` below only chose the positions (the other players' moves are random
legal ones; the first bidder takes a garde so that every phase occurs).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from tarot_p2p.rules import actions as a
from tarot_p2p.rules.config import FivePlayerMode, TableConfig
from tarot_p2p.rules.stand_in import stand_in_action
from tarot_p2p.rules.state import Phase, State, new_hand

VECTOR = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "stand_in.json"
CONFIGS = (
    TableConfig(players=3),
    TableConfig(players=4),
    TableConfig(players=5),
    TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND),
)
EVERY = 7
"""Positions of the play phase kept: one in ``EVERY`` (all of the other phases)."""


def _hand(config: TableConfig, seed: int) -> tuple[int, list[int], State]:
    rng = random.Random(seed)
    dealer = rng.randrange(config.seats)
    deck = list(range(78))
    rng.shuffle(deck)
    return dealer, deck, new_hand(config, dealer, deck)


def hand_case(config: TableConfig, seed: int) -> dict[str, Any]:
    """One hand, and every kept position of it with the stand-in's move."""
    dealer, deck, state = _hand(config, seed)
    rng = random.Random(seed * 31 + 1)
    done: list[a.Action] = []
    moves: list[dict[str, Any]] = []
    while not state.is_terminal():
        move = stand_in_action(state)
        legal = state.legal_actions()
        plays = state.phase is Phase.PLAY
        if not plays or len(done) % EVERY == 0:
            moves.append(
                {
                    "after": len(done),
                    "seat": state.current_player(),
                    "move": list(move.encode()),
                    "text": str(move),
                }
            )
        if isinstance(legal[0], a.Bid) and not any(isinstance(x, a.Bid) for x in done):
            chosen: a.Action = a.BIDS[2]
        elif isinstance(legal[0], a.Bid):
            chosen = a.PASS
        elif plays:
            chosen = rng.choice([x for x in legal if isinstance(x, a.Play)])
        else:
            chosen = rng.choice(legal)
        state.apply_action(chosen)
        done.append(chosen)
    return {
        "config": config.canonical_bytes().decode("ascii"),
        "dealer": dealer,
        "deck": " ".join(map(str, deck)),
        "actions": [" ".join(map(str, x.encode())) for x in done],
        "positions": moves,
    }


def build() -> dict[str, Any]:
    return {
        "description": __doc__.split("\n\n")[1].replace("\n", " ").strip(),
        "encoding": "deck: card numbers in dealt-deck order; actions and moves: game.md §4",
        "hands": [hand_case(config, 2026 + i) for i, config in enumerate(CONFIGS)],
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    VECTOR.write_text(render(build()), encoding="utf-8")
    sys.stdout.write(f"wrote {VECTOR.name}\n")


if __name__ == "__main__":
    main()
