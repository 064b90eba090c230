"""The ``strong`` level: determinized Monte Carlo search on the rules engine.

Theory of operation
-------------------
For a card to play, the bot draws worlds — whole deals consistent with everything its seat
has seen (:mod:`tarot_p2p.bots.sampling`) — and in each world plays every legal card, then
the rest of the hand with the fast rollout policy (:mod:`tarot_p2p.bots.rollout`), and
reads its own score from the engine. Every candidate is tried in the same worlds, so the
comparison is paired: the bot leaves the ``club`` level's choice only for a card that does
better on average by more than the noise of the sample (one standard error of the paired
differences). That makes the search an improvement over ``club`` even when the budget
allows only a few worlds.

For a bid, it draws the other hands and the chien — hands on which the seats that spoke
before it would have bid what they did, as ``club`` bids — and plays the whole hand under
each contract it considers (the seats after it bid as ``club`` would; the taker calls,
discards and goes as ``club`` would). It considers one contract either side of ``club``'s
bid, but never passes a hand ``club`` takes (so it takes at least as often), and leaves
``club``'s bid with the same paired test, once it has played :data:`_MIN_BID_WORLDS`
worlds. The other decisions (call, écart,
announcements, chelem) are ``club``'s.

A card that ``club`` never plays because it only gives points away (a face card, such as
a king or a queen, under an opponent's winning trump while a low card of its suit may go,
see
:func:`tarot_p2p.bots.club.thrown_away`) is not a candidate: with a handful of worlds a
lucky sample could otherwise make it look better.

Budget: worlds are drawn while the next one should end within ``think`` seconds (judged
from the mean time of those done) and until ``rollouts`` playouts are done, whichever
stops first (at least one world always). Wall time depends on the machine
and its load, so only a ``rollouts`` cap with ``think=None`` makes a decision reproducible;
the worlds themselves come from ``rng``, which the caller seeds.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence

from tarot_p2p.bots import bidding, club
from tarot_p2p.bots.rollout import playout
from tarot_p2p.bots.sampling import sample_world
from tarot_p2p.rules.actions import BIDS, PLAY, Action, Bid, CallCard, Discard, Go, Play
from tarot_p2p.rules.cards import (
    EXCUSE,
    FULL_DECK,
    HALF_POINTS,
    PETIT,
    SUIT_OF,
    TWENTY_ONE,
    CardSet,
    cards_of,
)
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import active_seats
from tarot_p2p.rules.state import IllegalAction, Observation, Phase, State, from_hands

_FAILED_DRAWS = 50
"""Worlds that may fail to be drawn in a row before the bot settles for ``club``'s move."""
_MIN_BID_WORLDS = 10
"""Worlds a bid needs before the search may leave ``club``'s: a whole hand's score varies
by about 150 points, so with a handful of worlds (20 ms of thinking) a take or a garde
that looks better is mostly noise: strong bots took hands club passes and made 49% of
their contracts at four players (150 deals at 20 ms)."""
_CONSISTENT_DRAWS = 20
"""Deals drawn, for a bid, until the seats before this one would have bid what they did;
after that many (a player who bids unlike ``club``), the last one is kept."""


def choose(
    config: TableConfig,
    obs: Observation,
    legal: Sequence[Action],
    rng: random.Random,
    think: float | None,
    rollouts: int | None,
) -> Action:
    """The strong player's move for ``obs`` among ``legal``."""
    base = club.choose(obs, legal)
    if len(legal) == 1 or obs.tops:
        return base
    if isinstance(base, Bid):
        # One contract either side of club's, never a pass where club takes: the search
        # may raise a bid, lower a garde to a prise, or take a hand club would pass.
        low = max(base.contract - 1, min(base.contract, 1))
        bids = [a for a in legal if isinstance(a, Bid) and low <= a.contract <= base.contract + 1]
        trial = _bid_trial(config, obs, rng)
        return _search(bids, base, trial, think, rollouts, _MIN_BID_WORLDS)
    if isinstance(base, Play) and obs.phase is Phase.PLAY:
        cards = [a.card for a in legal if isinstance(a, Play)]
        thrown = club.thrown_away(obs, cards)
        plays = [c for c in distinct_plays(cards, obs.played) if c not in thrown]
        if base.card not in plays:
            plays.append(base.card)
        candidates = [PLAY[c] for c in plays]
        return _search(candidates, base, _play_trial(config, obs, rng), think, rollouts)
    return base


def distinct_plays(cards: Sequence[int], played: CardSet) -> list[int]:
    """``cards`` without those that cannot change the outcome compared with a lower one:
    two cards of the same suit worth the same points, with every card between them held
    by this seat or already played, win and lose the same tricks. Oudlers stand alone."""
    out: list[int] = []
    mine = sum(1 << c for c in cards)
    for c in sorted(cards):
        if out and c not in (PETIT, TWENTY_ONE, EXCUSE):
            prev = out[-1]
            between = ((1 << c) - 1) & ~((2 << prev) - 1)
            if (
                SUIT_OF[prev] == SUIT_OF[c]
                and prev != PETIT
                and HALF_POINTS[prev] == HALF_POINTS[c]
                and not between & ~(mine | played)
            ):
                continue
        out.append(c)
    return out


Trial = Callable[[], Callable[[Action], int] | None]
"""Draws one world and returns the function scoring a candidate in it (``None`` when no
world could be drawn)."""


def _search(
    candidates: Sequence[Action],
    base: Action,
    trial: Trial,
    think: float | None,
    rollouts: int | None,
    min_worlds: int = 2,
) -> Action:
    """``base`` unless a candidate did better in at least ``min_worlds`` worlds, on average
    by more than one standard error of the paired differences."""
    if len(candidates) == 1:
        return candidates[0]
    start = time.perf_counter()
    deadline = None if think is None else start + think
    diffs: list[list[int]] = [[] for _ in candidates]
    done = failed = worlds = 0
    while True:
        score = trial()
        if score is None:
            failed += 1
            if failed >= _FAILED_DRAWS:
                break
            continue
        failed = 0
        ref = score(base)
        for i, a in enumerate(candidates):
            diffs[i].append(0 if a == base else score(a) - ref)
        done += len(candidates)
        worlds += 1
        if rollouts is not None and done >= rollouts:
            break
        # Stop before a world that would likely end past the deadline.
        now = time.perf_counter()
        if deadline is not None and now + (now - start) / worlds >= deadline:
            break
    best, best_gain = base, 0.0
    for a, d in zip(candidates, diffs, strict=True):
        n = len(d)
        if a == base or n < min_worlds:
            continue
        mean = sum(d) / n
        var = sum((x - mean) ** 2 for x in d) / (n - 1)
        if mean > best_gain and mean > math.sqrt(var / n):
            best, best_gain = a, mean
    return best


def _play_trial(config: TableConfig, obs: Observation, rng: random.Random) -> Trial:
    def trial() -> Callable[[Action], int] | None:
        world = sample_world(config, obs, rng)
        if world is None:
            return None

        def score(action: Action) -> int:
            assert isinstance(action, Play)
            state = world.clone()
            state.apply_action(action)
            if len(state.tricks) == len(obs.tricks):
                playout(state, [*obs.trick, action.card], [*obs.trick_seats, obs.seat])
            else:
                playout(state, [], [])
            return state.returns()[obs.seat]

        return score

    return trial


def _bid_trial(config: TableConfig, obs: Observation, rng: random.Random) -> Trial:
    order = active_seats(config, obs.dealer)
    spoken = list(obs.bids)
    earlier = order[: len(spoken)]
    later = order[len(spoken) + 1 :]
    size = obs.hand.bit_count()

    def draw() -> tuple[list[int], int]:
        rest = list(cards_of(FULL_DECK & ~obs.hand))
        rng.shuffle(rest)
        hands = [0] * len(obs.hand_sizes)
        at = 0
        for s in order:
            if s == obs.seat:
                hands[s] = obs.hand
            else:
                hands[s] = sum(1 << c for c in rest[at : at + size])
                at += size
        return hands, sum(1 << c for c in rest[at:])

    def trial() -> Callable[[Action], int] | None:
        # The seats before this one bid as club would have on the hands drawn: a pass
        # says a hand is weak, and the last to speak after three passes knows it.
        for _ in range(_CONSISTENT_DRAWS):
            hands, chien = draw()
            if _club_bids(hands, earlier, [], obs.players) == spoken:
                break
        try:
            world = from_hands(config, obs.dealer, hands, chien)
        except ValueError:
            return None

        def score(action: Action) -> int:
            assert isinstance(action, Bid)
            state = world.clone()
            heard = [*spoken, (obs.seat, action.contract)]
            try:
                for _, c in spoken:
                    state.apply_action(BIDS[c])
                state.apply_action(action)
                for _, c in _club_bids(hands, later, heard, obs.players)[len(heard) :]:
                    state.apply_action(BIDS[c])
                _finish_contract(state)
            except IllegalAction:
                return 0
            if not state.is_terminal():
                playout(state, [], [])
            return state.returns()[obs.seat]

        return score

    return trial


def _club_bids(
    hands: Sequence[int], seats: Sequence[int], heard: Sequence[tuple[int, int]], players: int
) -> list[tuple[int, int]]:
    """``heard``, then the bids of ``seats`` (in speaking order) as ``club`` makes them, each
    having heard those before it."""
    out = list(heard)
    top = max((c for _, c in out), default=0)
    for s in seats:
        want = bidding.contract(hands[s], players, out)
        said = want if want > top else 0
        out.append((s, said))
        top = max(top, said)
    return out


def _finish_contract(state: State) -> None:
    """The call, the écart and the go, as ``club`` makes them, on a fully known world."""
    while state.phase in (Phase.CALL, Phase.DISCARD, Phase.GO):
        legal = state.legal_actions()
        first = legal[0]
        hand = state.hands[state.current]
        if isinstance(first, CallCard):
            cards = [a.card for a in legal if isinstance(a, CallCard)]
            state.apply_action(CallCard(club.call_card(hand, cards)))
        elif isinstance(first, Discard):
            allowed = sum(1 << a.card for a in legal if isinstance(a, Discard))
            state.apply_action(Discard(club.ecart_plan(hand, allowed, state.discards_left)[0]))
        else:
            state.apply_action(Go(False))
