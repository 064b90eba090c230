"""Properties of random legal hands at every table size and with every variant."""

from __future__ import annotations

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tarot_p2p.rules.actions import Bid, Discard, public_action
from tarot_p2p.rules.audit import HandRecord, audit_hand, record_of
from tarot_p2p.rules.cards import FULL_DECK, TOTAL_HALF_POINTS, half_points_of
from tarot_p2p.rules.config import AllPass, ExcuseLastTrick, FivePlayerMode, TableConfig
from tarot_p2p.rules.deal import Deal, active_seats, deal_cards
from tarot_p2p.rules.scoring import Contract, score_hand
from tarot_p2p.rules.state import State, from_hands, new_hand

from .engine_helpers import inject_revoke

DEAD = FivePlayerMode.DEAD_HAND
VARIANTS = dict(
    misere=True,
    all_pass=AllPass.MISERE_DEAL,
    petit_chelem=True,
    excuse_last_trick=ExcuseLastTrick.TO_TRICK_WINNER,
)
CONFIGS = [
    TableConfig(players=2),
    TableConfig(players=3),
    TableConfig(players=4),
    TableConfig(players=5),
    TableConfig(players=5, five_player_mode=DEAD),
    TableConfig(players=2, **VARIANTS),  # type: ignore[arg-type]
    TableConfig(players=3, **VARIANTS),  # type: ignore[arg-type]
    TableConfig(players=4, **VARIANTS),  # type: ignore[arg-type]
    TableConfig(players=5, **VARIANTS),  # type: ignore[arg-type]
    TableConfig(players=5, five_player_mode=DEAD, **VARIANTS),  # type: ignore[arg-type]
]


def play_random(config: TableConfig, seed: int, pass_bias: float) -> tuple[State, Deal]:
    """A random deal played with random legal actions; bids pass with ``pass_bias``."""
    rng = random.Random(seed)
    deck = list(range(78))
    rng.shuffle(deck)
    dealer = rng.randrange(config.seats)
    state = new_hand(config, dealer, deck)
    while not state.is_terminal():
        legal = state.legal_actions()
        if isinstance(legal[0], Bid) and rng.random() < pass_bias:
            state.apply_action(legal[0])
        else:
            state.apply_action(rng.choice(legal))
    return state, deal_cards(config, dealer, deck)


hands_strategy = st.tuples(
    st.sampled_from(CONFIGS), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.5, 0.8])
)


@settings(max_examples=120, deadline=None)
@given(hands_strategy)
def test_random_legal_hands(case: tuple[TableConfig, int, float]) -> None:
    config, seed, bias = case
    state, deal = play_random(config, seed, bias)
    chien = deal.chien
    scores = state.returns()
    assert len(scores) == config.seats and sum(scores) == 0
    if state.void is None:
        # Every card is played once, except the chien or the écart; no hand keeps a card.
        kept = state.ecart if state.contract is not None and state.contract <= 2 else chien
        assert state.played & kept == 0 and state.played | kept == FULL_DECK
        assert not any(state.hands)
        points = state.half_points()
        if state.taker is None:
            assert sum(points) == TOTAL_HALF_POINTS - half_points_of(chien)
        else:
            assert sum(points) == TOTAL_HALF_POINTS
        if state.contract is not None and state.contract >= Contract.GARDE_SANS:
            assert state.ecart == 0
    if config.active_players < config.seats:
        assert scores[state.dealer] == 0
    # returns() counts without the outcome's checks: the checked outcome scores the same.
    outcome = state.outcome()
    if outcome is not None:
        assert score_hand(config, outcome) == scores
    # The audit's independent check finds nothing to blame in a hand the engine allowed.
    report = audit_hand(record_of(state, deal.hands, chien, deal.piles))
    assert report.offences == () and report.returns == scores


@settings(max_examples=60, deadline=None)
@given(hands_strategy, st.integers(0, 4))
def test_a_peer_seeing_one_hand_agrees(case: tuple[TableConfig, int, float], pick: int) -> None:
    config, seed, bias = case
    full, deal = play_random(config, seed, bias)
    chien = deal.chien
    seats = active_seats(config, full.dealer)
    viewer = seats[pick % len(seats)]
    view = [h if s == viewer or s not in seats else None for s, h in enumerate(deal.hands)]
    # Two players: only the top card of each pile is seen; the others show when turned up.
    piles = [[[None, None, p[-1]] for p in ps] for ps in deal.piles]
    peer = from_hands(config, full.dealer, view, None, piles)
    for a in full.history():
        if isinstance(a, Discard) and not peer.chien_known:
            peer.reveal_chien(chien)
        for seat in seats:
            for i in peer.pending_piles(seat):
                peer.reveal_pile(seat, i, deal.piles[seat][i][len(peer.piles[seat][i]) - 1])
        peer.apply_action(a if peer.current_player() == viewer else public_action(a))
    if full.void is None:
        peer.reveal_chien(chien)
        if peer.ecart_hidden:
            peer.reveal_ecart(full.ecart)
    assert peer.returns() == full.returns()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(CONFIGS[1:5]), st.integers(0, 2**32 - 1))
def test_an_injected_revoke_is_found(config: TableConfig, seed: int) -> None:
    state, deal = play_random(config, seed, 0.0)
    assume(state.void is None)
    injected = inject_revoke(state)
    assume(injected is not None)
    assert injected is not None
    actions, seat, index = injected
    record = HandRecord(config, state.dealer, deal.hands, deal.chien, tuple(actions), deal.piles)
    report = audit_hand(record)
    assert report.offences[0].seat == seat and report.offences[0].rule == "revoke"
    assert report.offences[0].action_index == index
    if report.outcome is not None:
        assert report.outcome.offender == seat
    assert sum(report.returns) == 0
