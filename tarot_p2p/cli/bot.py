"""``tarot-p2p bot CODE``: a bot takes a seat at a networked table and plays it out.

The bot's decisions come from :func:`tarot_p2p.bots.choose_action`, fed with what this
seat alone may see (the peer's private engine). ``--seed`` makes its choices reproducible
for a given deal; the deal itself comes from the mental-poker shuffles, whose randomness
is the operating system's and stays secret (a seeded deal would let anyone who knows the
seed see every hand).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from typing import Any

from tarot_p2p.bots import choose_action
from tarot_p2p.cli.join import add_join_options, add_seat_options, run_joiner
from tarot_p2p.net.runner import Decision, ecart_by_steps
from tarot_p2p.protocol.peer import Peer, PeerEvent
from tarot_p2p.protocol.table import Phase
from tarot_p2p.rules.actions import Action
from tarot_p2p.rules.state import State


class BotPolicy:
    """Decisions by :func:`~tarot_p2p.bots.choose_action`, ties broken by a seeded rng."""

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(str(seed))

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        if refused is not None:
            raise RuntimeError(f"the bot's choice was refused: {refused}")
        state = peer.private_state()
        seat = peer.seat
        assert state is not None and seat is not None
        if peer.hand.phase is Phase.ECART:

            async def pick(trial: State, k: int) -> Action:
                return choose_action(trial.observation(seat), trial.legal_actions(), self.rng)

            return await ecart_by_steps(peer, pick)
        return choose_action(state.observation(seat), peer.legal_actions(), self.rng)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("bot", help="let a bot take a seat at a table", description=__doc__)
    add_join_options(p)
    p.add_argument("--seed", default="0", help="seed of the bot's choices (not of the deal)")
    add_seat_options(p, default_name=None)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return run_joiner(args, BotPolicy(args.seed), show=False)
