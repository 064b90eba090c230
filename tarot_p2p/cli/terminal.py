"""A human at a terminal as a :class:`~tarot_p2p.net.runner.Policy`: plain prompts.

Why so plain: it is the smallest client that lets a person play a networked game (and a
reference for richer ones): the hand sorted by suit, every legal choice numbered, the
other players' moves as they happen, the score sheet after each hand. Input is read in a
worker thread so the connection keeps being served while the player thinks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import trio

from tarot_p2p.net.runner import Decision, ecart_by_steps
from tarot_p2p.protocol.peer import Dealt, Peer, PeerEvent
from tarot_p2p.protocol.table import ChienShown, EngineAction, HandEnded, Phase, SeatsDrawn
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import SUIT_OF, CardSet, card_name, cards_of
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.rules.state import State

_GROUPS = (("spades", 0), ("hearts", 1), ("diamonds", 2), ("clubs", 3), ("trumps", 4))


def describe_hand(cards: CardSet) -> str:
    """The cards grouped by suit, then trumps and the Excuse, each group ascending."""
    parts = []
    for label, suit in _GROUPS:
        group = [card_name(c) for c in cards_of(cards) if SUIT_OF[c] == suit]
        if group:
            parts.append(f"{label}: {' '.join(group)}")
    if any(SUIT_OF[c] == -1 for c in cards_of(cards)):
        parts.append("Excuse")
    return "; ".join(parts) or "(none)"


class TerminalPolicy:
    """Asks the player at the terminal; prints what the other seats do."""

    def __init__(
        self,
        ask: Callable[[str], str] = input,
        say: Callable[[str], None] = print,
    ) -> None:
        self._ask = ask
        self._say = say
        self._tricks_told = (0, 0)
        """(hand, number of its tricks already announced)."""

    async def _choose(self, title: str, options: Sequence[str]) -> int:
        self._say(title)
        for i, text in enumerate(options, 1):
            self._say(f"  {i:2d}. {text}")
        while True:
            try:
                # Abandoned on cancel (the runner's decision timeout, Ctrl-C): a thread
                # blocked in input() cannot be interrupted, and must not hold the seat.
                reply = await trio.to_thread.run_sync(
                    self._ask, f"choice [1-{len(options)}]: ", abandon_on_cancel=True
                )
            except EOFError:
                raise KeyboardInterrupt from None
            if reply.strip().isdigit() and 1 <= int(reply) <= len(options):
                return int(reply) - 1
            self._say(f"type a number from 1 to {len(options)}")

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        if refused:
            self._say(f"refused: {refused}")
        state = peer.private_state()
        seat = peer.seat
        assert state is not None and seat is not None
        obs = state.observation(seat)
        self._say(f"\nYour hand: {describe_hand(obs.hand)}")
        if peer.hand.phase is Phase.ECART:
            size = chien_size(peer.config)

            async def discard(trial: State, k: int) -> a.Action:
                legal = trial.legal_actions()
                title = f"Écart: card {k + 1} of {size}"
                return legal[await self._choose(title, [str(d) for d in legal])]

            return await ecart_by_steps(peer, discard)
        if obs.trick:
            names = peer.names
            played = ", ".join(
                f"{names[s]} {card_name(c)}"
                for s, c in zip(obs.trick_seats, obs.trick, strict=True)
            )
            self._say(f"Trick so far: {played}")
        legal = peer.legal_actions()
        pick = await self._choose(f"{peer.hand.phase.value}: your move", [str(x) for x in legal])
        return legal[pick]

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        names = peer.names
        for event in events:
            if isinstance(event, SeatsDrawn):
                order = ", ".join(peer.table.setup.names[m] for m in event.seating)
                self._say(f"Seats drawn, in playing order: {order}. {names[0]} deals first.")
            elif isinstance(event, Dealt):
                self._say(f"\nHand {peer.hand.hand}. Your cards: {describe_hand(event.cards)}")
            elif isinstance(event, ChienShown):
                self._say(f"Chien: {describe_hand(event.cards)}")
            elif isinstance(event, EngineAction) and event.seat != peer.seat:
                self._say(f"{names[event.seat]}: {event.action}")
            elif isinstance(event, HandEnded) and peer.sheet and not peer.sheet.is_over:
                self._say(f"\nHand {event.hand} agreed.\n{peer.sheet.render()}\n")
        self._tell_tricks(peer)

    def _tell_tricks(self, peer: Peer) -> None:
        """One line per finished trick: its cards and who takes it."""
        engine = peer.hand.engine
        if engine is None:
            return
        hand, told = self._tricks_told
        if hand != peer.hand.hand:
            told = 0
        for number, trick in enumerate(engine.tricks[told:], told + 1):
            cards = " ".join(card_name(c) for c in trick.cards)
            self._say(f"Trick {number} ({cards}) to {peer.names[trick.winner]}")
        self._tricks_told = (peer.hand.hand, len(engine.tricks))
