from __future__ import annotations

import itertools

import pytest

from tarot_p2p.rules.config import FivePlayerMode, TableConfig
from tarot_p2p.rules.deal import (
    CHIEN,
    active_seats,
    check_deal,
    deal_cards,
    deal_pattern,
    pile_positions,
)

CONFIGS = [
    TableConfig(players=3),
    TableConfig(players=4),
    TableConfig(players=5),
    TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND),
]


def test_documented_four_player_pattern() -> None:
    pattern = deal_pattern(TableConfig(), 3)
    # Packets of three, starting at the dealer's right (seat 0 when seat 3 deals).
    assert pattern[:3] == (0, 0, 0) and pattern[3:6] == (1, 1, 1)
    # The chien slots of the docstring: after packets 3, 6, 10, 13, 17, 20.
    positions = [i for i, d in enumerate(pattern) if d == CHIEN]
    assert positions == [9, 19, 32, 42, 55, 65]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dealer", range(5))
def test_pattern_sizes_and_chien_never_first_or_last(config: TableConfig, dealer: int) -> None:
    if dealer >= config.seats:
        return
    pattern = deal_pattern(config, dealer)
    assert len(pattern) == 78
    assert pattern[0] != CHIEN and pattern[-1] != CHIEN
    chien = 3 if config.active_players == 5 else 6
    assert pattern.count(CHIEN) == chien
    # Chien cards one at a time: never two in a row.
    assert all(not (a == b == CHIEN) for a, b in itertools.pairwise(pattern))
    seats = active_seats(config, dealer)
    assert pattern[0] == (dealer + 1) % config.seats == seats[0]
    for seat in range(config.seats):
        want = (78 - chien) // config.active_players if seat in seats else 0
        assert pattern.count(seat) == want
    # Packets of three.
    runs = [d for i, d in enumerate(pattern) if d != CHIEN and (i == 0 or pattern[i - 1] != d)]
    assert len(runs) == (78 - chien) // 3


def test_dead_hand_dealer_gets_nothing() -> None:
    config = CONFIGS[3]
    pattern = deal_pattern(config, 2)
    assert 2 not in pattern
    assert active_seats(config, 2) == (3, 4, 0, 1)


def test_deal_cards_maps_positions() -> None:
    config = TableConfig()
    order = list(range(77, -1, -1))
    deal = deal_cards(config, 0, order)
    pattern = deal_pattern(config, 0)
    for pos, card in enumerate(order):
        dest = pattern[pos]
        target = deal.chien if dest == CHIEN else deal.hands[dest]
        assert target >> card & 1
    check_deal(config, 0, deal.hands, deal.chien)


@pytest.mark.parametrize(
    "bad",
    [
        list(range(77)),
        [*range(77), 0],
        [*range(77), "x"],
        [*range(77), 78],
        [-1, *range(77)],  # -1 would index the last card
        [*range(-78, 0)],
        [0, True, *range(2, 78)],  # True equals 1
        [0, 0, 1, *range(3, 78)],  # 0 twice: its two bits carry into card 1's and 2's
        [*range(77), 77.0],
        [*range(79)],
    ],
)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_bad_deck_order_rejected(bad: list[int], players: int) -> None:
    with pytest.raises(ValueError, match="78 cards"):
        deal_cards(TableConfig(players=players), 0, bad)


def test_check_deal_rejects_bad_hands() -> None:
    config = TableConfig()
    deal = deal_cards(config, 0, list(range(78)))
    hands = list(deal.hands)
    hands[0], hands[1] = hands[0] | (hands[1] & -hands[1]), hands[1] & (hands[1] - 1)
    with pytest.raises(ValueError, match="must hold"):
        check_deal(config, 0, tuple(hands), deal.chien)
    with pytest.raises(ValueError, match="seat"):
        deal_pattern(config, 4)


def test_two_players_hands_and_piles() -> None:
    config = TableConfig(players=2)
    pattern = deal_pattern(config, 1)
    positions = pile_positions(config, 1)
    assert pattern.count(CHIEN) == 6 and pattern[0] == 0
    for seat in (0, 1):
        mine = [i for i, d in enumerate(pattern) if d == seat]
        in_piles = [positions[i] for i in mine if positions[i] is not None]
        assert len(mine) == 36 and len(in_piles) == 18
        assert sorted(in_piles) == [(p, d) for p in range(6) for d in range(3)]
    # Seat 0's first packet goes to its hand, its second packet is its pile 0.
    assert positions[:3] == (None, None, None) and positions[6:9] == ((0, 0), (0, 1), (0, 2))
    deal = deal_cards(config, 1, list(range(78)))
    assert deal.piles[0][0] == (6, 7, 8)  # the last card dealt to a pile is its top
    assert all(h.bit_count() == 18 for h in deal.hands)
    check_deal(config, 1, deal.hands, deal.chien, deal.piles)
    with pytest.raises(ValueError, match="piles"):
        check_deal(config, 1, deal.hands, deal.chien)
    with pytest.raises(ValueError, match="piles"):
        check_deal(TableConfig(), 0, *_four_with_piles())


def _four_with_piles() -> tuple[tuple[int, ...], int, tuple[tuple[tuple[int, ...], ...], ...]]:
    deal = deal_cards(TableConfig(), 0, list(range(78)))
    return deal.hands, deal.chien, (((1, 2, 3),),)
