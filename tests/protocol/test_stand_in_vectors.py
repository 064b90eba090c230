"""The stand-in vectors are reproduced exactly, and every stored move is the one chosen."""

from __future__ import annotations

import json

from tarot_p2p.rules import actions as a
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.stand_in import stand_in_action
from tarot_p2p.rules.state import new_hand
from tests.protocol.stand_in_vectors import VECTOR, build, render


def test_vector_is_reproduced_exactly() -> None:
    assert render(build()) == VECTOR.read_text(encoding="utf-8")


def test_every_stored_move_is_the_stand_ins() -> None:
    data = json.loads(VECTOR.read_text(encoding="utf-8"))
    checked = 0
    for case in data["hands"]:
        config = TableConfig.from_canonical_bytes(case["config"].encode("ascii"))
        deck = [int(c) for c in case["deck"].split()]
        actions = [a.decode([int(x) for x in s.split()]) for s in case["actions"]]
        state = new_hand(config, case["dealer"], deck)
        done = 0
        for position in case["positions"]:
            while done < position["after"]:
                state.apply_action(actions[done])
                done += 1
            assert state.current_player() == position["seat"]
            assert list(stand_in_action(state).encode()) == position["move"]
            checked += 1
    assert checked > 50
