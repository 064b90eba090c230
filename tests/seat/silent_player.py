"""The real ``tarot-p2p`` program with its bot made to bid, cheat or go silent on cue (tests only).

``python -m tests.seat.silent_player [OPTIONS] -- <tarot-p2p arguments>`` runs
:func:`tarot_p2p.cli.main.main` with the arguments after ``--``, once it has patched the bot
(:class:`~tarot_p2p.cli.bot.BotPolicy`) of this program's seat:

``--bid pass`` / ``--bid garde``
    its bid: always pass, or a garde whenever one is legal (the rest of its play is the
    program's own bot). With one seat bidding garde and the others passing, the seat is
    the taker of every deal, so a test knows who takes before a card is dealt.
``--silent-at bidding|ecart|mid-play|reveal``
    the process stops itself (``SIGSTOP``, as a laptop put to sleep, its connection left
    open) when its seat is to speak there: at its bid, at its écart (as taker), at its
    seventh card (as taker), at the final opening of the cards (as taker, an automatic
    message). It says so first on its output (``STOPPED AT <moment>``), so that the test,
    reading that output, knows the table now waits on a silent seat.
``--cheat-ecart``
    as taker, its écart holds a card the rules forbid there and the others cannot see until
    the écart is opened: a king, else the Excuse, else a trump it does not show (a shown
    oudler would be refused at once). It is sent the way a modified client would
    (:func:`~tarot_p2p.conformance.cheats.cheat_discard`); the seat then plays the lowest
    card the public engine allows.

Why in the program and not from outside: the bot decides within milliseconds of the
message that makes it its turn, so a test watching files cannot stop it at an exact
moment; stopped from inside, it stops exactly there, and everything else — links, hub,
files, the other programs — is the real thing.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence

from tarot_p2p.cli import bot as bot_module
from tarot_p2p.cli.main import main
from tarot_p2p.conformance.cheats import cheat_act, cheat_discard, cheat_play
from tarot_p2p.protocol import peer as peer_module
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.table import Phase
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import EXCUSE, KING_MASK, TRUMP_MASK, cards_of
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.rules.state import Phase as EnginePhase
from tarot_p2p.seat.runner import Decision

MOMENTS = ("bidding", "ecart", "mid-play", "reveal")
OUDLERS = (56, 76, EXCUSE)
MID_PLAY_CARD = 7
"""``mid-play``: the taker stops when his seventh card is due."""


def stop(moment: str) -> None:
    print(f"STOPPED AT {moment}", flush=True)
    os.kill(os.getpid(), signal.SIGSTOP)


def is_taker(peer: Peer) -> bool:
    engine = peer.hand.engine
    return engine is not None and engine.taker is not None and engine.taker == peer.seat


def patch(bid: str | None, silent_at: str | None, cheat: bool) -> None:
    honest_decide = bot_module.BotPolicy.decide

    async def decide(self: bot_module.BotPolicy, peer: Peer, refused: str | None) -> Decision:
        phase = peer.hand.phase
        if silent_at == "bidding" and phase is Phase.BIDDING:
            stop("bidding")
        if silent_at == "ecart" and phase is Phase.ECART:
            stop("ecart")
        if silent_at == "mid-play" and phase is Phase.PLAY and is_taker(peer):
            engine = peer.hand.engine
            assert engine is not None and peer.seat is not None
            if engine.played_by[peer.seat].bit_count() + 1 == MID_PLAY_CARD:
                stop("mid-play")
        if phase is Phase.BIDDING and bid is not None:
            garde = a.Bid(Contract.GARDE)
            return garde if bid == "garde" and garde in peer.legal_actions() else a.PASS
        if peer.private_state() is None:
            return public_choice(peer)  # a cheater: his own engine is gone
        return await honest_decide(self, peer, refused)

    bot_module.BotPolicy.decide = decide  # type: ignore[method-assign]

    honest_next = Peer.next_message

    def next_message(self: Peer) -> bytes | None:
        if (
            silent_at == "reveal"
            and self.hand.phase is Phase.REVEAL
            and self.my_turn()
            and is_taker(self)
        ):
            stop("reveal")
        return honest_next(self)

    Peer.next_message = next_message  # type: ignore[method-assign]
    if not cheat:
        return

    def discard(self: Peer, cards: int) -> bytes:
        private = self.private_state()
        assert private is not None and self.seat is not None
        held = private.hands[self.seat] | cards  # his hand and the chien
        kings = list(cards_of(held & KING_MASK))
        trumps = [c for c in cards_of(held & TRUMP_MASK & ~cards) if c not in OUDLERS]
        hidden = 0
        if kings:
            bad = kings[0]
        elif held >> EXCUSE & 1:
            bad = EXCUSE
        elif trumps:  # a trump put aside without showing it (as only the audit can see)
            bad = trumps[0]
            hidden = 1 << bad
        else:
            print("NO FORBIDDEN CARD TO DISCARD", flush=True)
            return honest_discard(self, cards)
        chosen = sorted(cards_of(cards))
        if bad not in chosen:
            chosen[0] = bad
        print(f"CHEATING ECART {chosen}", flush=True)
        peer_module.TRUMP_MASK = TRUMP_MASK & ~hidden  # what the écart message shows
        try:
            return cheat_discard(self, sum(1 << c for c in chosen))
        finally:
            peer_module.TRUMP_MASK = TRUMP_MASK

    def act(self: Peer, action: a.Action) -> bytes:
        if self._private is not None:
            return honest_act(self, action)
        if isinstance(action, a.Play):
            return cheat_play(self, action.card)
        return cheat_act(self, action)

    honest_discard, honest_act = Peer.discard, Peer.act
    Peer.discard = discard  # type: ignore[method-assign]
    Peer.act = act  # type: ignore[method-assign]


def public_choice(peer: Peer) -> a.Action:
    """The cheater's move once his engine is gone: from the public engine, which knows his
    hand once it is told (as in ``tests/protocol/test_stand_in_hand.py``)."""
    public = peer.hand.engine
    assert public is not None and peer.seat is not None
    trial = public.clone()
    if trial.phase is EnginePhase.GO:
        return a.Go(False)
    trial.reveal_hand(peer.seat, peer.my_cards())
    return a.PLAY[min(cards_of(trial.legal_play_mask()))]


def run(argv: Sequence[str]) -> int:
    words = list(argv)
    split = words.index("--")
    ours, theirs = words[:split], words[split + 1 :]
    bid = silent_at = None
    cheat = False
    while ours:
        option = ours.pop(0)
        if option == "--bid":
            bid = ours.pop(0)
            assert bid in ("pass", "garde"), bid
        elif option == "--silent-at":
            silent_at = ours.pop(0)
            assert silent_at in MOMENTS, silent_at
        elif option == "--cheat-ecart":
            cheat = True
        else:
            raise SystemExit(f"unknown option {option}")
    patch(bid, silent_at, cheat)
    return main(theirs)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
