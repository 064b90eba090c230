"""Determinization: whole deals consistent with one seat's observation, replayed on the
engine up to the position that seat sees.

Why replay rather than build the position directly: the engine then checks that the
sampled deal could really have produced every move observed (a petit sec that was not
announced, an écart the rules forbid), and the world is a genuine :class:`State` on which
rollouts run with ``clone`` and ``apply_action``.

How a deal is drawn: the cards this seat has not seen (:attr:`Knowledge.out`) go to
*slots* — each other seat's unknown cards, the hidden part of the écart (when this seat is
not the taker), the chien (when nobody saw it) — of known sizes. Each card may go only to
the slots allowed by the inferences of :mod:`tarot_p2p.bots.knowledge`; the chien's cards
not yet played, when it was shown, belong to the taker's hand or his écart. Cards are
placed most constrained first, each in an allowed slot drawn with weight its free room; a
dead end starts over. This is not exactly uniform over consistent deals, but close to it
when few cards are constrained, and it never gives a seat a card it cannot hold.
"""

from __future__ import annotations

import random

from tarot_p2p.bots.knowledge import DISCARDABLE, Knowledge, active_order, infer, trick_seats
from tarot_p2p.rules.actions import BIDS, DISCARD, PLAY, Action, CallCard, Go, Misere, Poignee
from tarot_p2p.rules.cards import FULL_DECK, TRUMP_MASK, CardSet, cards_of
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.rules.state import IllegalAction, Observation, Phase, State, from_hands

_ATTEMPTS = 20
"""Draws tried before giving up on a world (a dead end or an impossible replay is rare)."""


def sample_world(config: TableConfig, obs: Observation, rng: random.Random) -> State | None:
    """A fully known position, in the play phase, that ``obs.seat`` cannot tell apart from
    the one it sees; ``None`` if no consistent deal was found in a few draws."""
    if obs.phase is not Phase.PLAY or obs.tops:
        return None
    know = infer(obs)
    for _ in range(_ATTEMPTS):
        world = _draw(config, obs, know, rng)
        if world is not None:
            return world
    return None


def _draw(
    config: TableConfig, obs: Observation, know: Knowledge, rng: random.Random
) -> State | None:
    seats = len(obs.hand_sizes)
    me, taker, contract = obs.seat, obs.taker, obs.contract
    # Slots: 0..seats-1 the hands, seats the hidden écart, seats + 1 the unseen chien.
    ecart_slot, chien_slot = seats, seats + 1
    room = [0] * (seats + 2)
    accepts = [0] * (seats + 2)
    for s in range(seats):
        if s != me and obs.hand_sizes[s]:
            room[s] = obs.hand_sizes[s] - know.shown[s].bit_count()
            accepts[s] = FULL_DECK & ~know.forbidden[s]
    pending = 0
    if taker is not None and contract is not None and contract <= Contract.GARDE:
        if taker != me:
            room[ecart_slot] = chien_size(config) - obs.ecart.bit_count()
            accepts[ecart_slot] = DISCARDABLE
            # The shown chien's cards not played yet are in the taker's hand or his écart.
            pending = (obs.chien or 0) & ~obs.played & ~obs.ecart & ~know.shown[taker]
    else:
        room[chien_slot] = chien_size(config)
        accepts[chien_slot] = FULL_DECK
    cards: list[tuple[int, list[int]]] = []
    for c in cards_of(know.out | pending):
        bit = 1 << c
        among = (taker, ecart_slot) if pending & bit else range(seats + 2)
        cards.append((c, [s for s in among if s is not None and room[s] and accepts[s] & bit]))
    if sum(room) != len(cards):
        return None
    rng.shuffle(cards)
    cards.sort(key=lambda e: len(e[1]))
    got = [0] * (seats + 2)
    free = list(room)
    for c, slots in cards:
        open_slots = [s for s in slots if free[s]]
        if open_slots:
            pick = rng.choices(open_slots, weights=[free[s] for s in open_slots])[0]
            got[pick] |= 1 << c
            free[pick] -= 1
        elif not _make_room(c, slots, got, free, accepts):
            return None
    return _replay(config, obs, know, got[:seats], got[ecart_slot], got[chien_slot])


def _make_room(
    card: int, slots: list[int], got: list[CardSet], free: list[int], accepts: list[CardSet]
) -> bool:
    """Place ``card`` in a full slot by moving other cards along a chain of slots that
    accept them, ending in one with room (an augmenting path: it exists whenever the
    cards placed so far and this one fit together)."""
    parent: dict[int, tuple[int, CardSet]] = {}
    queue = list(slots)
    seen = set(queue)
    while queue:
        s = queue.pop(0)
        for t in range(len(got)):
            movable = got[s] & accepts[t]
            if t in seen or not movable:
                continue
            parent[t] = (s, movable & -movable)
            if not free[t]:
                seen.add(t)
                queue.append(t)
                continue
            free[t] -= 1
            while t in parent:
                s, moved = parent[t]
                got[s] ^= moved
                got[t] |= moved
                t = s
            got[t] |= 1 << card
            return True
    return False


def _replay(
    config: TableConfig,
    obs: Observation,
    know: Knowledge,
    holding: list[CardSet],
    hidden_ecart: CardSet,
    hidden_chien: CardSet,
) -> State | None:
    """The world where each seat holds ``holding`` now, replayed from the deal."""
    seats = len(obs.hand_sizes)
    me, taker, contract = obs.seat, obs.taker, obs.contract
    ecart = obs.ecart | hidden_ecart
    chien = obs.chien if obs.chien is not None else hidden_chien
    hands: list[CardSet | None] = []
    for s in range(seats):
        now = obs.hand if s == me else holding[s] | know.shown[s]
        dealt = now | know.played_by[s]
        if s == taker and contract is not None and contract <= Contract.GARDE:
            dealt = (dealt | ecart) & ~chien
        hands.append(dealt)
    try:
        world = from_hands(config, obs.dealer, hands, chien)
        for action in _history(obs, ecart):
            world.apply_action(action)
    except (IllegalAction, ValueError):
        return None
    return world


def _history(obs: Observation, ecart: CardSet) -> list[Action]:
    """The moves that led to ``obs``, as a seat seeing every card would have applied them."""
    out: list[Action] = [BIDS[c] for _, c in obs.bids]
    if obs.called_card is not None:
        out.append(CallCard(obs.called_card))
    if obs.taker is not None and obs.contract is not None:
        if obs.contract <= Contract.GARDE:
            # Plain cards first: a trump may be discarded only once nothing else can be.
            plain = ecart & ~TRUMP_MASK
            out += [DISCARD[c] for c in cards_of(plain)]
            out += [DISCARD[c] for c in cards_of(ecart & TRUMP_MASK)]
        out.append(Go(obs.chelem_announced, obs.petit_chelem_announced))
    announced: dict[int, list[Action]] = {}
    for s, poignee in obs.poignees:
        announced.setdefault(s, []).append(Poignee(poignee))
    for s, kind in obs.miseres:
        announced.setdefault(s, []).append(Misere(kind))
    tricks = [(t.cards, trick_seats(obs, t.leader)) for t in obs.tricks]
    if obs.trick:
        tricks.append((obs.trick, obs.trick_seats))
    for cards, who in tricks:
        for c, s in zip(cards, who, strict=False):
            out += announced.pop(s, [])
            out.append(PLAY[c])
    for s in active_order(obs):
        out += announced.pop(s, [])
    return out
