"""tarot-p2p bot CODE: a bot takes a seat at a networked table and plays it out.

The bot plays at the chosen --level (easy, club or strong) and sees only what its own
seat may see. --seed makes its choices repeatable for a given deal; the deal itself comes
from the players' secret shuffles, so knowing the seed shows nobody the hands.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import trio

from tarot_p2p.bots import DEFAULT_THINK, Bot, Level
from tarot_p2p.cli.join import add_join_options, add_seat_options, run_joiner
from tarot_p2p.cli.rule_options import word
from tarot_p2p.protocol.peer import Peer, PeerEvent
from tarot_p2p.protocol.table import Phase
from tarot_p2p.rules.actions import Action
from tarot_p2p.rules.state import Observation, State
from tarot_p2p.seat.runner import Decision, ecart_by_steps


class BotPolicy:
    """Decisions by a :class:`~tarot_p2p.bots.Bot` of ``level`` for the peer's seat (``easy``
    unless told: what ``BotPolicy(seed)`` always meant; the programs pass ``--level``)."""

    def __init__(
        self, seed: int | str = 0, level: Level | str = Level.EASY, think: float = DEFAULT_THINK
    ) -> None:
        self.seed = seed
        self.level = Level(level)
        self.think = think
        self._bot: Bot | None = None

    def bot(self, peer: Peer) -> Bot:
        """The bot for this table's rules (made at the first decision, once they are known)."""
        if self._bot is None or self._bot.config != peer.config:
            self._bot = Bot(peer.config, self.level, self.seed, self.think)
        return self._bot

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        if refused is not None:
            raise RuntimeError(f"the bot's choice was refused: {refused}")
        state = peer.private_state()
        seat = peer.seat
        assert state is not None and seat is not None
        bot = self.bot(peer)
        if peer.hand.phase is Phase.ECART:

            async def pick(trial: State, k: int) -> Action:
                return await self._choose(bot, trial.observation(seat), trial.legal_actions())

            return await ecart_by_steps(peer, pick)
        return await self._choose(bot, state.observation(seat), peer.legal_actions())

    async def _choose(self, bot: Bot, obs: Observation, legal: list[Action]) -> Action:
        """A strong bot thinks in a worker thread, so that the other seats and links this
        program drives keep being served meanwhile."""
        if bot.level is Level.STRONG and len(legal) > 1:
            return await trio.to_thread.run_sync(bot.choose, obs, legal)
        return bot.choose(obs, legal)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None


def think_seconds(text: str) -> float:
    """``--think``: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError("the thinking time must be between 0 and 3600 seconds")
    return value


def add_bot_options(p: argparse.ArgumentParser) -> None:
    """The bots' level and thinking time, spelled the same by every program seating bots."""
    p.add_argument(
        "--level",
        type=word,
        choices=[lv.value for lv in Level],
        default=Level.CLUB.value,
        help="how well the bots play: easy, club or strong (searches, slower)",
    )
    p.add_argument(
        "--think",
        type=think_seconds,
        default=DEFAULT_THINK,
        metavar="SECONDS",
        help="how long a strong bot may think per decision",
    )


DESCRIPTION = (
    "Let a bot take a seat at a table with its join code and play it out. --level chooses "
    "how well it plays; --seed makes its choices repeatable (the cards are still dealt "
    "secretly by the players' shuffles)."
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "bot", help="let a bot take a seat at a table", description=DESCRIPTION
    )
    add_join_options(p)
    p.add_argument("--seed", default="0", help="seed of the bot's choices (not of the deal)")
    add_bot_options(p)
    add_seat_options(p, default_name=None)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return run_joiner(args, BotPolicy(args.seed, args.level, args.think), show=False)
