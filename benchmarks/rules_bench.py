"""Random legal full hands per second on the rules engine (one core).

Run: ``python3 benchmarks/rules_bench.py`` (``--json`` for machine output, ``--hands N``,
``--players``). Each hand: a shuffled deck, random bids where each player passes with
probability ``--pass-rate`` (so some deals are void), otherwise a random legal action
among ``legal_actions()`` (random contracts, calls, écarts, announcements, chelem
announcements), random legal cards to the end, then ``returns()`` (the scoring included).

Three figures:

- ``hands_per_s``: everything per hand, the shuffle, the deal, listing the legal moves,
  applying them, the score, and the random choices themselves. The random numbers come
  from ``Random.random`` alone, a call into C: the deck is put in the order of 78 random
  keys and a choice among ``n`` is ``int(random() * n)`` (a bias of at most ``n / 2**53``).
  ``Random.shuffle`` and ``randrange`` run in Python and made almost a third of the
  instructions this figure counted (measured with callgrind in stop 30), so the figure
  said more about the ``random`` module than about the engine. The timed loop keeps only
  the counts it reports, not the hands, as a bot's playouts drop each hand at its end.
- ``engine_hands_per_s``: the same hands replayed with their choices known in advance, so
  only the engine is timed (no shuffle, no random numbers): what a caller that chooses
  cheaply, like the strong bot's rollouts, pays.
- ``audited_hands_per_s``: the after-the-fact audit on a tenth of the hands (a slower,
  deliberately simple replay).

Figures are the best of ``--repeat`` runs; on a shared machine they are noisy.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from tarot_p2p.rules.actions import Bid
from tarot_p2p.rules.audit import audit_hand, record_of
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import deal_cards
from tarot_p2p.rules.state import State, new_hand


def play_hands(
    config: TableConfig, n: int, seed: int, pass_rate: float, keep: int = 0
) -> tuple[int, int, list[tuple[State, tuple[int, ...]]]]:
    """Play ``n`` random hands: the actions applied, the void deals, and the first ``keep``
    hands with their decks."""
    rnd = random.Random(seed).random
    cards = range(78)
    actions = void = 0
    kept = []
    for i in range(n):
        deck = sorted(cards, key=[rnd() for _ in cards].__getitem__)
        state = new_hand(config, i % config.seats, deck)
        while not state.is_terminal():
            legal = state.legal_actions()
            if type(legal[0]) is Bid and rnd() < pass_rate:
                state.apply_action(legal[0])
            else:
                state.apply_action(legal[int(rnd() * len(legal))])
            actions += 1
        state.returns()
        void += state.void is not None
        if i < keep:
            kept.append((state, tuple(deck)))
    return actions, void, kept


def replay_hands(config: TableConfig, hands: list[tuple[list[int], list[int]]]) -> None:
    """Play hands again from their decks and the index of each action chosen."""
    for i, (deck, choices) in enumerate(hands):
        state = new_hand(config, i % config.seats, deck)
        for k in choices:
            state.is_terminal()
            state.apply_action(state.legal_actions()[k])
        state.returns()


def choices_of(
    config: TableConfig, n: int, seed: int, pass_rate: float
) -> list[tuple[list[int], list[int]]]:
    """The decks and choices of :func:`play_hands`' hands, for :func:`replay_hands`."""
    _, _, kept = play_hands(config, n, seed, pass_rate, keep=n)
    out = []
    for state, deck in kept:
        replay = new_hand(config, state.dealer, deck)
        choices = []
        for action in state.history():
            k = replay.legal_actions().index(action)
            replay.apply_action(action)
            choices.append(k)
        out.append((list(deck), choices))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5))
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pass-rate", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    config = TableConfig(players=args.players)
    audit_n = max(1, args.hands // 10)

    best = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        actions, void, _ = play_hands(config, args.hands, args.seed, args.pass_rate)
        best = min(best, time.perf_counter() - t0)

    hands = choices_of(config, args.hands, args.seed, args.pass_rate)
    engine_best = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        replay_hands(config, hands)
        engine_best = min(engine_best, time.perf_counter() - t0)
    del hands

    _, _, kept = play_hands(config, audit_n, args.seed, args.pass_rate, keep=audit_n)
    records = []
    for s, deck in kept:
        deal = deal_cards(config, s.dealer, deck)
        records.append(record_of(s, deal.hands, deal.chien, deal.piles))
    t0 = time.perf_counter()
    for r in records:
        audit_hand(r)
    audit_time = time.perf_counter() - t0

    figures = {
        "players": args.players,
        "hands": args.hands,
        "hands_per_s": round(args.hands / best),
        "actions_per_s": round(actions / best),
        "engine_hands_per_s": round(args.hands / engine_best),
        "void_fraction": round(void / args.hands, 3),
        "audited_hands_per_s": round(audit_n / audit_time),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{args.players} players, {args.hands} random legal hands, best of {args.repeat}:")
        print(f"  {figures['hands_per_s']:>8} hands/s   ({figures['actions_per_s']} actions/s)")
        print(f"  {figures['engine_hands_per_s']:>8} hands/s, the engine alone (choices known)")
        print(f"  {figures['void_fraction']:>8.1%} of the deals void (all pass or petit sec)")
        print(f"  {figures['audited_hands_per_s']:>8} hands/s through the audit")


if __name__ == "__main__":
    main()
