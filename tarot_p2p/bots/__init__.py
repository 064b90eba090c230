"""Bots for empty seats, at three levels, seeing only what their seat may see.

Why a package below the programs: ``play``, ``demo``, ``bot`` and the host all seat the
same bots, and the bots use the rules engine only (``tarot_p2p.rules``), never the network
or the cryptography. A bot is given a seat's :class:`~tarot_p2p.rules.state.Observation`
and the legal actions; it is never handed a position, so it cannot read hidden cards.

Levels (see ``docs/bots.md``): ``easy`` (:mod:`.easy`, the first bot, a baseline),
``club`` (:mod:`.club`, a club player's rules) and ``strong`` (:mod:`.strong`, a
determinized Monte Carlo search on the engine, with rollouts by club-like rules).

Determinism: each decision draws its random numbers from a generator seeded with the
bot's seed and the observation itself, so a decision is a function of (seed, observation)
alone — the same whatever the hidden cards or the order in which decisions were asked.
The ``strong`` level's wall-time budget is the exception: see :mod:`.strong`.
"""

from __future__ import annotations

import enum
import hashlib
import random
from collections.abc import Sequence

from tarot_p2p.bots import club, easy, strong
from tarot_p2p.bots.easy import choose_action, hand_strength
from tarot_p2p.rules.actions import Action
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.state import Observation

__all__ = ["DEFAULT_THINK", "Bot", "Level", "choose_action", "hand_strength"]

DEFAULT_THINK = 1.0
"""Seconds the ``strong`` level may think per decision by default."""


class Level(enum.StrEnum):
    EASY = "easy"
    CLUB = "club"
    STRONG = "strong"


class Bot:
    """One seat's bot: ``choose`` gives its move for an observation of that seat."""

    def __init__(
        self,
        config: TableConfig,
        level: Level | str = Level.CLUB,
        seed: int | str = 0,
        think: float | None = DEFAULT_THINK,
        rollouts: int | None = None,
    ) -> None:
        """``think``: the ``strong`` level's seconds per decision (``None``: no limit, then
        ``rollouts`` must bound it); ``rollouts``: its cap on playouts per decision."""
        try:
            self.level = Level(level)
        except ValueError:
            raise ValueError(f"no bot level {level!r}: choose easy, club or strong") from None
        if think is not None and not think > 0:
            raise ValueError("the thinking time must be a positive number of seconds")
        if rollouts is not None and rollouts < 1:
            raise ValueError("the rollout cap must be at least 1")
        if think is None and rollouts is None:
            raise ValueError("a strong bot needs a thinking time or a rollout cap")
        self.config = config
        self.seed = str(seed)
        self.think = think
        self.rollouts = rollouts

    def rng_for(self, obs: Observation) -> random.Random:
        """The generator of the decision at ``obs``: seeded by the bot's seed and ``obs``."""
        digest = hashlib.sha256(f"{self.seed}\n{obs!r}".encode()).digest()
        return random.Random(int.from_bytes(digest[:16], "big"))

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        """The bot's move at ``obs``, one of ``legal`` (the engine's legal actions there)."""
        if not legal:
            raise ValueError("no legal action to choose from")
        if len(legal) == 1:
            return legal[0]
        if self.level is Level.CLUB:
            return club.choose(obs, legal)
        if self.level is Level.EASY:
            return easy.choose_action(obs, legal, self.rng_for(obs))
        return strong.choose(self.config, obs, legal, self.rng_for(obs), self.think, self.rollouts)
