"""One digest of everything the rules engine says over many seeded random hands.

Why: the engine's hot path is rewritten for speed from time to time, and such a rewrite
must not change any behaviour. This digest covers, at every position of every hand, in
every table configuration of the property tests: each seat's observation, the legal
actions, the legal play mask, an illegal (or legal) attempt on a clone with its error
text, and at the end the history, tricks, points, outcome and returns; and the same hand
followed by a peer that sees one seat only (the moves in their public form, the chien,
écart and turned-up pile cards revealed as the protocol would). Compare the digest before
and after a change: ``python -m tests.rules.fingerprint [hands per configuration]`` (300
by default: 3,000 hands). ``test_fingerprint.py`` pins it on fewer hands.
"""

from __future__ import annotations

import hashlib
import random
import sys
from dataclasses import fields
from typing import Any

from tarot_p2p.rules.actions import BIDS, DISCARD, PLAY, Action, Bid, public_action
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import active_seats, deal_cards
from tarot_p2p.rules.state import (
    IllegalAction,
    IncompleteInformation,
    Observation,
    Phase,
    State,
    from_hands,
    new_hand,
)

from .test_properties import CONFIGS

_ATTEMPTS: tuple[Action, ...] = (*PLAY, *DISCARD, *BIDS)
"""What an attempt on a clone is drawn from: any card played or discarded, any bid."""


class _Digest:
    """A running hash of the ``repr`` of what it is given."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()

    def add(self, *values: Any) -> None:
        self.hash.update(repr(values).encode())


_OBSERVED = tuple(f.name for f in fields(Observation))


def _observed(obs: Observation) -> tuple[Any, ...]:
    """The fields of ``obs``, its finished tricks as their number and the last one (the
    earlier ones were in the observations before)."""
    return tuple(
        (len(obs.tricks), obs.tricks[-1:]) if name == "tricks" else getattr(obs, name)
        for name in _OBSERVED
    )


def _query(out: _Digest, state: State, name: str) -> None:
    """The answer of ``state.<name>()``, or the text of the error it raised."""
    try:
        out.add(name, getattr(state, name)())
    except (IllegalAction, IncompleteInformation) as e:
        out.add(name, type(e).__name__, str(e))


def _position(out: _Digest, state: State, seats: range, rng: random.Random) -> None:
    """What ``state`` says of its position (the observations of ``seats``), and of one
    attempted action on a clone."""
    out.add(state.phase, state.current_player(), state.is_terminal())
    for seat in seats:
        out.add(_observed(state.observation(seat)), state.is_known(seat), state.pending_piles(seat))
    _query(out, state, "legal_actions")
    _query(out, state, "legal_play_mask")
    _query(out, state, "partner")
    trial = state.clone()
    attempt = rng.choice(_ATTEMPTS)
    try:
        trial.apply_action(attempt)
        out.add("accepted", attempt, _observed(trial.observation(0)), trial.history()[-1])
    except (IllegalAction, IncompleteInformation) as e:
        out.add("refused", attempt, type(e).__name__, str(e))


def _end(out: _Digest, state: State) -> None:
    out.add(state.history(), state.tricks, state.void, state.played_by, state.played)
    out.add(state.taker, state.contract, state.called, state.ecart, state.partner())
    for name in ("returns", "outcome", "half_points"):
        _query(out, state, name)


def _catch_up(peer: State, full: State, chien: int) -> None:
    """Tell ``peer`` what the protocol would have by now: the chien when the taker takes
    it, the pile cards turned up."""
    if peer.phase is Phase.DISCARD and not peer.chien_known:
        peer.reveal_chien(chien)
    for seat, piles in enumerate(full.piles):
        for i in peer.pending_piles(seat):
            peer.reveal_pile(seat, i, piles[i][-1])


def hand(out: _Digest, config: TableConfig, seed: int) -> None:
    """One seeded random hand, played fully known and followed by one seat's peer."""
    rng = random.Random(seed)
    deck = list(range(78))
    rng.shuffle(deck)
    dealer = rng.randrange(config.seats)
    pass_bias = (0.0, 0.5, 0.8)[seed % 3]
    full = new_hand(config, dealer, deck)
    deal = deal_cards(config, dealer, deck)
    seats = active_seats(config, dealer)
    viewer = seats[seed % len(seats)]
    view = [h if s == viewer or s not in seats else None for s, h in enumerate(deal.hands)]
    # Under each pile's top card (face up), the cards are face down to both players.
    shown = [[[None, None, p[-1]] for p in ps] for ps in deal.piles or ()]
    peer = from_hands(config, dealer, view, None, shown)
    while True:
        _position(out, full, range(config.seats), rng)
        _catch_up(peer, full, deal.chien)
        _position(out, peer, range(viewer, viewer + 1), rng)
        if full.is_terminal():
            break
        legal = full.legal_actions()
        if type(legal[0]) is Bid and rng.random() < pass_bias:
            action = legal[0]
        else:
            action = legal[rng.randrange(len(legal))]
        seat = full.current_player()
        full.apply_action(action)
        peer.apply_action(action if seat == viewer else public_action(action))
    _end(out, full)
    if full.void is None:
        peer.reveal_chien(deal.chien)
        if peer.ecart_hidden:
            peer.reveal_ecart(full.ecart)
    _end(out, peer)


def digest(hands_per_config: int) -> str:
    """The digest of ``hands_per_config`` seeded hands in each configuration."""
    out = _Digest()
    for index, config in enumerate(CONFIGS):
        for i in range(hands_per_config):
            hand(out, config, index * 1_000_003 + i)
    return out.hash.hexdigest()


if __name__ == "__main__":
    print(digest(int(sys.argv[1]) if len(sys.argv) > 1 else 300))
