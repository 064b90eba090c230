"""The engine's fast paths against straightforward recomputations.

The hot path (the deal, the listing of legal cards and discards, the count of half-points)
uses look-up tables and C-level gathers for speed; each is compared here, on random hands
at every table size, with the plain loop it replaces.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.rules.actions import Bid, Discard, Play
from tarot_p2p.rules.cards import (
    DECK_SIZE,
    EXCUSE,
    HALF_POINTS,
    KING_MASK,
    OUDLER_MASK,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
    half_points_of,
)
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import CHIEN, Deal, deal_cards, deal_pattern, pile_positions
from tarot_p2p.rules.state import Phase, State, new_hand

from .test_properties import CONFIGS


def reference_deal(config_index: int, dealer: int, deck: list[int]) -> Deal:
    """The deal read position by position from the normative pattern."""
    config = CONFIGS[config_index]
    pattern = deal_pattern(config, dealer)
    positions = pile_positions(config, dealer)
    hands = [0] * config.seats
    piles = [[[0] * 3 for _ in range(6)] for _ in range(config.seats)]
    chien = 0
    for card, dest, pos in zip(deck, pattern, positions, strict=True):
        if dest == CHIEN:
            chien |= 1 << card
        elif pos is not None:
            piles[dest][pos[0]][pos[1]] = card
        else:
            hands[dest] |= 1 << card
    if config.players != 2:
        return Deal(tuple(hands), chien)
    return Deal(tuple(hands), chien, tuple(tuple(tuple(p) for p in ps) for ps in piles))


def reference_legal_cards(state: State) -> list[int]:
    """The legal cards of the current (known) hand by the rules of the play, card by card."""
    seat = state.current
    held = [c for c in range(DECK_SIZE) if (state.hands[seat] | state.tops[seat]) >> c & 1]
    led = [c for c in state.observation(seat).trick if c != EXCUSE]
    if not led:
        return held
    suit = SUIT_OF[led[0]]
    excuse = [c for c in held if c == EXCUSE]
    follow = [c for c in held if SUIT_OF[c] == suit]
    if suit != TRUMP_SUIT and follow:
        return sorted(follow + excuse)
    trumps = [c for c in held if SUIT_OF[c] == TRUMP_SUIT]
    if not trumps:
        return held
    high = max((c for c in led if SUIT_OF[c] == TRUMP_SUIT), default=-1)
    over = [c for c in trumps if c > high]
    return sorted((over or trumps) + excuse)


def reference_discards(state: State) -> list[int]:
    seat = state.current
    hand = [c for c in range(DECK_SIZE) if state.hands[seat] >> c & 1]
    plain = [c for c in hand if not (TRUMP_MASK | KING_MASK | OUDLER_MASK) >> c & 1]
    if len(plain) >= state.discards_left:
        return plain
    trumps = [c for c in hand if TRUMP_MASK >> c & 1 and not OUDLER_MASK >> c & 1]
    return sorted(plain + trumps)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, len(CONFIGS) - 1), st.integers(0, 4), st.randoms(use_true_random=False))
def test_the_deal_matches_the_pattern_read_card_by_card(
    index: int, dealer: int, rnd: random.Random
) -> None:
    config = CONFIGS[index]
    dealer %= config.seats
    deck = list(range(DECK_SIZE))
    rnd.shuffle(deck)
    assert deal_cards(config, dealer, deck) == reference_deal(index, dealer, deck)
    assert deal_cards(config, dealer, tuple(deck)) == reference_deal(index, dealer, deck)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CONFIGS), st.integers(0, 2**32 - 1))
def test_listed_cards_and_discards_match_the_rules_card_by_card(
    config: TableConfig, seed: int
) -> None:
    rnd = random.Random(seed)
    deck = list(range(DECK_SIZE))
    rnd.shuffle(deck)
    state = new_hand(config, rnd.randrange(config.seats), deck)
    while not state.is_terminal():
        legal = state.legal_actions()
        if state.phase is Phase.PLAY:
            plays = [a.card for a in legal if type(a) is Play]
            assert plays == reference_legal_cards(state)
            assert state.legal_play_mask() == sum(1 << c for c in plays)
        elif state.phase is Phase.DISCARD:
            assert [a.card for a in legal if type(a) is Discard] == reference_discards(state)
        if type(legal[0]) is Bid and rnd.random() < 0.3:
            state.apply_action(legal[0])
        else:
            state.apply_action(legal[rnd.randrange(len(legal))])


@given(st.integers(0, (1 << DECK_SIZE) - 1))
def test_half_points_match_the_sum_over_the_cards(mask: int) -> None:
    assert half_points_of(mask) == sum(HALF_POINTS[c] for c in range(DECK_SIZE) if mask >> c & 1)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CONFIGS), st.integers(0, 2**32 - 1))
def test_the_legal_mask_computed_alone_matches_the_listing(config: TableConfig, seed: int) -> None:
    # legal_play_mask (the strong bot's path) computes what legal_actions lists, each on a
    # position where the other has not been asked first.
    rnd = random.Random(seed)
    deck = list(range(DECK_SIZE))
    rnd.shuffle(deck)
    state = new_hand(config, rnd.randrange(config.seats), deck)
    while not state.is_terminal():
        alone = state.clone().legal_play_mask() if state.phase is Phase.PLAY else None
        legal = state.legal_actions()
        if alone is not None:
            assert alone == sum(1 << a.card for a in legal if type(a) is Play)
        state.apply_action(legal[rnd.randrange(len(legal))])
