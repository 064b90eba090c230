"""The ``club`` level: how a decent club player plays, written down as rules.

Why rules and not search: they cost microseconds, so this level also drives the ``strong``
level's rollouts and the tests' many quick games; and a person can read why the bot did
what it did.

Bidding and the chelem come from :mod:`tarot_p2p.bots.bidding` (a club player's count
of the hand, and the seat's place in the bidding). The écart voids the shortest suits
without a king (voids let the taker trump: in simulation nothing else in the écart
counts as much), then discards from the shortest suits left, the richest cards first;
trumps only when nothing else may go.

Card play, in the order the rules are tried:

* the Excuse is kept for when a trick is lost anyway or would cost a point card, and never
  left for the last trick; the petit is played only when it surely wins (no trump left
  above it with an opponent still to play, or partner's master trump on the trick) or to
  save it when it would otherwise be caught, so that it can go au bout;
* leading, the attack draws trumps when it holds more than the defence or the master
  trump (the 21 first: each costs the defence a trump it would cut a king with), cashes
  master kings where nobody has shown a void, and otherwise leads from a short suit to
  make voids; at five the taker leads the called suit to find his partner, and the partner
  signals himself by feeding points to the taker's tricks and leading the called king;
* leading, the defence cashes its master kings, hunts the petit at the end (leads the
  master trump when the petit is still out with at most three trumps, so its holder may
  have to give it up; leading trumps earlier cost the defence points in simulation),
  makes the taker trump in suits where he is void, and otherwise leads its long suits;
* following, a trick that a partner surely wins is fed with points; one an opponent wins
  is taken with the cheapest card that surely wins it, else given the least.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tarot_p2p.bots import bidding
from tarot_p2p.bots.knowledge import DISCARDABLE, infer, trick_seats, trick_winner
from tarot_p2p.rules.actions import (
    BIDS,
    Action,
    Bid,
    CallCard,
    Discard,
    Go,
    Misere,
    Play,
    Poignee,
)
from tarot_p2p.rules.cards import (
    EXCUSE,
    HALF_POINTS,
    KING,
    KING_MASK,
    PETIT,
    RANK_OF,
    SUIT_MASK,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
    TWENTY_ONE,
    CardSet,
    cards_of,
)
from tarot_p2p.rules.state import ABOVE, POIGNEE_THRESHOLDS, Observation


def choose(obs: Observation, legal: Sequence[Action]) -> Action:
    """The club player's move for ``obs`` among ``legal`` (these rules need no chance)."""
    if len(legal) == 1:
        return legal[0]
    first = legal[0]
    if any(isinstance(a, Bid) for a in legal):
        want = bidding.contract(obs.hand, obs.players, obs.bids)
        bids = [a for a in legal if isinstance(a, Bid) and a.contract <= want]
        return max(bids, key=lambda a: a.contract) if bids else BIDS[0]
    if isinstance(first, CallCard):
        return CallCard(call_card(obs.hand, [a.card for a in legal if isinstance(a, CallCard)]))
    if isinstance(first, Discard):
        left = (obs.chien or 0).bit_count() - obs.ecart.bit_count()
        allowed = sum(1 << a.card for a in legal if isinstance(a, Discard))
        return Discard(ecart_plan(obs.hand, allowed, max(left, 1))[0])
    if isinstance(first, Go):
        sure = bidding.announces_chelem(obs.hand, obs.players)
        return Go(sure) if Go(sure) in legal else Go(False)
    announce = announcement(obs, legal)
    if announce is not None:
        return announce
    plays = [a.card for a in legal if isinstance(a, Play)]
    return Play(play_card(obs, plays))


def call_card(hand: CardSet, callable_cards: Sequence[int]) -> int:
    """The king (or lower) to call: in the suit where the taker is longest and holds the
    most honours, so that he can lead it to his partner; his own card only if he must."""
    others = [c for c in callable_cards if not hand >> c & 1] or list(callable_cards)

    def key(c: int) -> tuple[int, int, int]:
        suit = hand & SUIT_MASK[SUIT_OF[c]]
        honours = sum(HALF_POINTS[x] for x in cards_of(suit))
        return (suit.bit_count() > 0, suit.bit_count(), honours - c)

    return max(others, key=key)


def ecart_plan(hand: CardSet, allowed: CardSet, count: int) -> list[int]:
    """``count`` cards of ``allowed`` to discard: void the shortest suits without a king
    first (voids let the taker trump), then discard from the shortest suits left, the
    richest cards of each first (shorter suits, sooner trumped; the points banked); trumps
    (shown to all) only when nothing else may go."""
    plain = allowed & DISCARDABLE
    out: list[int] = []
    suits = sorted(range(4), key=lambda s: ((hand & SUIT_MASK[s]).bit_count(), s))
    for s in suits:
        cards = plain & SUIT_MASK[s]
        if hand & KING_MASK & SUIT_MASK[s] or not cards:
            continue
        if len(out) + cards.bit_count() <= count:
            out += cards_of(cards)
    rest = [c for c in cards_of(plain) if c not in out]
    rest.sort(key=lambda c: ((hand & SUIT_MASK[SUIT_OF[c]]).bit_count(), -HALF_POINTS[c], c))
    out += rest[: count - len(out)]
    if len(out) < count:
        out += [c for c in cards_of(allowed & TRUMP_MASK)][: count - len(out)]
    return out


def announcement(obs: Observation, legal: Sequence[Action]) -> Action | None:
    """A misère is always worth announcing; the attack shows its biggest poignée (the bonus
    goes to the winning side, usually the attack); the defence shows only a triple."""
    for a in legal:
        if isinstance(a, Misere):
            return a
    poignees = [a for a in legal if isinstance(a, Poignee)]
    if not poignees:
        return None
    best = max(poignees, key=lambda a: a.cards.bit_count())
    attack = obs.seat == obs.taker or obs.partner == obs.seat
    if attack or best.cards.bit_count() == POIGNEE_THRESHOLDS[obs.players][2]:
        return best
    return None


@dataclass(slots=True)
class _Table:
    """The facts one card decision needs, read once from the observation."""

    seat: int
    hand: CardSet
    attack: frozenset[int]
    """Seats known to be on the taker's side (the taker alone when the partner is unknown)."""
    after: tuple[int, ...]
    """Seats still to play to this trick after this one."""
    out_trumps: CardSet
    """Trumps that opponents (or an unknown partner) may still hold."""
    out: CardSet
    """Cards whose place this seat does not know."""
    voids: tuple[CardSet, ...]
    """Per seat: cards it cannot hold."""
    tricks_left: int

    def friend(self, other: int) -> bool:
        if other == self.seat:
            return True
        if not self.attack:
            return False
        return (other in self.attack) == (self.seat in self.attack)

    def may_hold(self, seat: int, cards: CardSet) -> bool:
        return bool(cards & self.out & ~self.voids[seat])


def _table(obs: Observation) -> _Table:
    know = infer(obs)
    attack: set[int] = set()
    if obs.taker is not None:
        attack.add(obs.taker)
        if obs.partner is not None:
            attack.add(obs.partner)
    seats = trick_seats(obs, obs.trick_seats[0] if obs.trick else obs.seat)
    after = seats[len(obs.trick) + 1 :]
    out = know.out | sum(know.shown)
    if obs.chien is not None and obs.seat != obs.taker:
        out |= obs.chien & ~obs.played & ~obs.ecart
    return _Table(
        seat=obs.seat,
        hand=obs.hand,
        attack=frozenset(attack),
        after=after,
        out_trumps=TRUMP_MASK & out,
        out=out,
        voids=know.forbidden,
        tricks_left=obs.hand.bit_count(),
    )


def thrown_away(obs: Observation, cards: Sequence[int]) -> list[int]:
    """The face cards among the legal ``cards`` that would only give points away: a foe's
    trump wins the trick (no suit card can take it back), and a low card of the same suit
    is legal too, which loses the trick as well and keeps the face card for later. These
    rules never play them (they give the cheapest card); the ``strong`` level does not
    consider them either, whatever its sample says."""
    if not obs.trick:
        return []
    best = trick_winner(list(obs.trick))
    if best < 0 or SUIT_OF[obs.trick[best]] != TRUMP_SUIT:
        return []
    if _table(obs).friend(obs.trick_seats[best]):
        return []
    low_suits = {SUIT_OF[c] for c in cards if SUIT_OF[c] != TRUMP_SUIT and HALF_POINTS[c] == 1}
    return [c for c in cards if SUIT_OF[c] in low_suits and HALF_POINTS[c] > 1]


def play_card(obs: Observation, cards: Sequence[int]) -> int:
    """The card to play among the legal ``cards`` (see the module docstring)."""
    t = _table(obs)
    if len(cards) == 1:
        return cards[0]
    if EXCUSE in cards and t.tricks_left == 2 and not obs.chelem_announced:
        return EXCUSE
    if not obs.trick:
        return _lead(obs, t, [c for c in cards if c != EXCUSE] or list(cards))
    return _follow(obs, t, list(cards))


def _master(t: _Table, card: int, trick: Sequence[int]) -> bool:
    """True when ``card`` (winning the trick now) cannot be beaten by anyone after us."""
    foes = [s for s in t.after if not t.friend(s)]
    if not foes:
        return True
    if SUIT_OF[card] == TRUMP_SUIT:
        return not any(t.may_hold(s, ABOVE[card]) for s in foes)
    suit = SUIT_OF[card]
    higher = SUIT_MASK[suit] & ~((2 << card) - 1)
    for s in foes:
        if t.may_hold(s, higher):
            return False
        # A foe void in the suit may trump.
        if not t.may_hold(s, SUIT_MASK[suit]) and t.may_hold(s, TRUMP_MASK):
            return False
    return not any(SUIT_OF[c] == TRUMP_SUIT for c in trick)


def _lead(obs: Observation, t: _Table, cards: list[int]) -> int:
    trumps = [c for c in cards if SUIT_OF[c] == TRUMP_SUIT]
    plain = [c for c in cards if SUIT_OF[c] != TRUMP_SUIT]
    n_out = t.out_trumps.bit_count()
    attacking = t.seat in t.attack
    foes = [s for s in _active(obs) if not t.friend(s)]
    foes_trump = any(t.may_hold(s, TRUMP_MASK) for s in foes)

    masters = [c for c in plain if _cashable(t, c, foes)]
    non_petit = [c for c in trumps if c != PETIT]
    if attacking:
        if obs.called_card is not None and not obs.partner_known and obs.seat == obs.taker:
            called = [c for c in plain if SUIT_OF[c] == SUIT_OF[obs.called_card]]
            if called:
                return min(called)
        called_card = obs.called_card
        if called_card in cards and obs.seat != obs.taker and _cashable(t, called_card, foes):
            return called_card
        if non_petit and foes_trump:
            top = max(non_petit)
            master = not t.out_trumps & ABOVE[top]
            if master or len(trumps) > n_out:
                return top if master else min(non_petit)
        if masters:
            return max(masters, key=lambda c: (HALF_POINTS[c], c))
        if plain:
            return _low_from(t, plain, shortest=True)
        if PETIT in trumps and not n_out:
            return PETIT
        return (
            max(non_petit)
            if non_petit and not t.out_trumps & ABOVE[max(non_petit)]
            else min(non_petit or trumps)
        )
    # Defence.
    taker = obs.taker
    if masters:
        return max(masters, key=lambda c: (HALF_POINTS[c], c))
    petit_out = bool(t.out >> PETIT & 1)
    if petit_out and taker is not None and non_petit and n_out <= 3:
        top = max(non_petit)
        if not t.out_trumps & ABOVE[top]:
            return top
    if taker is not None and plain:
        forced = [c for c in plain if not t.may_hold(taker, SUIT_MASK[SUIT_OF[c]])]
        forced = [c for c in forced if HALF_POINTS[c] == 1]
        if forced and t.may_hold(taker, TRUMP_MASK):
            return min(forced, key=lambda c: (RANK_OF[c], c))
    if plain:
        return _low_from(t, plain, shortest=False)
    if non_petit:
        return min(non_petit)
    return cards[0]  # the petit alone


def _active(obs: Observation) -> tuple[int, ...]:
    """Seats holding cards this hand."""
    seats = len(obs.hand_sizes)
    return tuple(s for s in range(seats) if obs.hand_sizes[s] or s == obs.seat)


def _cashable(t: _Table, card: int, foes: list[int]) -> bool:
    """A master card that every foe can still follow: leading it wins the trick."""
    suit = SUIT_OF[card]
    higher = SUIT_MASK[suit] & ~((2 << card) - 1)
    if higher & t.out:
        return False
    left = (t.out & SUIT_MASK[suit]).bit_count()
    if left < len(foes) + 1:
        return False
    return all(t.may_hold(s, SUIT_MASK[suit]) or not t.may_hold(s, TRUMP_MASK) for s in foes)


def _low_from(t: _Table, plain: list[int], shortest: bool) -> int:
    """A low card of the shortest (or longest) suit, kings kept."""

    def length(c: int) -> int:
        return (t.hand & SUIT_MASK[SUIT_OF[c]]).bit_count()

    pool = [c for c in plain if RANK_OF[c] != KING] or plain
    sign = 1 if shortest else -1
    return min(pool, key=lambda c: (HALF_POINTS[c] > 1, sign * length(c), RANK_OF[c], c))


def _follow(obs: Observation, t: _Table, cards: list[int]) -> int:
    trick = list(obs.trick)
    best = trick_winner(trick)
    winner = obs.trick_seats[best] if best >= 0 else -1
    points = sum(HALF_POINTS[c] for c in trick)
    options = [c for c in cards if c != EXCUSE]
    if not options:
        return EXCUSE
    friend_wins = winner >= 0 and t.friend(winner) and _master(t, trick[best], trick)
    if friend_wins:
        return _feed(t, options)
    winning = [c for c in options if trick_winner([*trick, c]) == len(trick)]
    sure = [c for c in winning if _master(t, c, [*trick, c])]
    if sure:
        # The petit first when it is safe: that is how it gets home.
        return min(sure, key=lambda c: (c != PETIT, _cost(c), c))
    if winning and not t.after and points:
        return min(winning, key=lambda c: (_cost(c), c))
    if winning and all(t.friend(s) for s in t.after if s != obs.seat):
        return min(winning, key=lambda c: (_cost(c), c))
    losing = [c for c in options if c != PETIT and c != TWENTY_ONE] or options
    cheapest = min(losing, key=lambda c: (HALF_POINTS[c], SUIT_OF[c] == TRUMP_SUIT, c))
    if EXCUSE in cards and HALF_POINTS[cheapest] >= 5:
        return EXCUSE
    if PETIT in options and _petit_doomed(t):
        return PETIT if PETIT in winning else cheapest
    return cheapest


def _cost(card: int) -> int:
    """What winning with ``card`` spends: a trump's rank, a suit card's points."""
    if SUIT_OF[card] == TRUMP_SUIT:
        return 40 + RANK_OF[card]
    return HALF_POINTS[card]


def _feed(t: _Table, options: list[int]) -> int:
    """Points to a trick the side surely wins: the richest card, masters and trumps kept
    (but the petit goes home here if it must be played)."""
    if PETIT in options:
        return PETIT
    plain = [c for c in options if SUIT_OF[c] != TRUMP_SUIT]
    if plain:
        return max(plain, key=lambda c: (HALF_POINTS[c], -RANK_OF[c]))
    return min(options)


def _petit_doomed(t: _Table) -> bool:
    """The petit is the last trump left in the hand while foes still hold trumps."""
    return (t.hand & TRUMP_MASK) == 1 << PETIT and bool(t.out_trumps)
