"""The smallest client of tarot_p2p: it takes a seat and always makes its first legal move.

Why it is here: it is the template for a client of your own. A seat is driven through one
interface, a *policy* with two coroutines — ``decide`` (the choice due now) and ``observe``
(what the last accepted message caused) — and the package does the rest: the join
handshake, the mental-poker deal, checking every other seat, the transcript and score sheet
on disk, timeouts. Replace ``decide`` with your own strategy; everything your seat may know
is in ``peer.private_state().observation(peer.seat)``.

    python3 clients/first_legal_bot.py CODE [--name NAME] [--relay] [--profile DIR]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tarot_p2p.cli.join import add_join_options, add_seat_options, run_joiner
from tarot_p2p.protocol.peer import Peer, PeerEvent
from tarot_p2p.protocol.table import HandEnded, Phase
from tarot_p2p.rules.actions import Action
from tarot_p2p.rules.state import State
from tarot_p2p.seat.runner import Decision, ecart_by_steps


class FirstLegal:
    """Passes every bid, plays its lowest legal card, discards its lowest legal cards."""

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        if refused is not None:  # cannot happen with legal moves; a real client would retry
            raise RuntimeError(f"move refused: {refused}")
        if peer.hand.phase is Phase.ECART:
            # The écart is one decision on the wire, but chosen card by card like any move.
            return await ecart_by_steps(peer, self._first_discard)
        return peer.legal_actions()[0]

    async def _first_discard(self, trial: State, k: int) -> Action:
        return trial.legal_actions()[0]

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        for event in events:
            if isinstance(event, HandEnded) and peer.seat is not None:
                print(f"hand {event.hand}: {event.scores[peer.seat]:+d} for me", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_join_options(parser)
    add_seat_options(parser, default_name="first-legal")
    return run_joiner(parser.parse_args(argv), FirstLegal(), show=False)


if __name__ == "__main__":
    sys.exit(main())
