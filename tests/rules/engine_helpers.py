"""Builders for hand-made deals and scripted hands used by the rules-engine tests."""

from __future__ import annotations

import random
from collections.abc import Callable

from tarot_p2p.rules.actions import Action, Bid, Go, Play
from tarot_p2p.rules.cards import EXCUSE, SUIT_OF, TRUMP_SUIT, CardSet, mask_of, parse_card
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import active_seats, chien_size, deal_cards, hand_size
from tarot_p2p.rules.state import Phase, State, from_hands, new_hand


def cards(names: str) -> CardSet:
    return mask_of(parse_card(n) for n in names.split())


def build_deal(
    config: TableConfig,
    dealer: int,
    fixed: dict[int, str],
    chien: str = "",
    avoid: dict[int, str] | None = None,
) -> tuple[list[CardSet], CardSet]:
    """Hands holding the ``fixed`` cards; the other cards are shared out from the highest
    card down, round-robin, never giving a seat a card of its ``avoid`` list."""
    avoid_masks = {s: cards(v) for s, v in (avoid or {}).items()}
    seats = active_seats(config, dealer)
    hands = [0] * config.seats
    for s, names in fixed.items():
        hands[s] = cards(names)
    chien_mask = cards(chien) if chien else 0
    used = chien_mask
    for h in hands:
        used |= h
    size = hand_size(config)
    free = [c for c in range(77, -1, -1) if not used >> c & 1]
    # Most constrained cards first, each to the seat that needs the most cards.
    free.sort(key=lambda c: -sum(m >> c & 1 for m in avoid_masks.values()))
    for c in free:
        takers = [
            s for s in seats if hands[s].bit_count() < size and not avoid_masks.get(s, 0) >> c & 1
        ]
        if takers:
            s = max(takers, key=lambda s: (size - hands[s].bit_count(), -seats.index(s)))
            hands[s] |= 1 << c
        else:
            chien_mask |= 1 << c
    assert chien_mask.bit_count() == chien_size(config), "the fixed cards do not fit"
    return hands, chien_mask


def start(
    config: TableConfig,
    fixed: dict[int, str],
    chien: str = "",
    avoid: dict[int, str] | None = None,
    dealer: int | None = None,
) -> State:
    dealer = config.seats - 1 if dealer is None else dealer
    hands, chien_mask = build_deal(config, dealer, fixed, chien, avoid)
    return from_hands(config, dealer, hands, chien_mask)


def bid(state: State, taker: int, contract: int) -> None:
    """Everyone passes except ``taker``, who bids ``contract``."""
    while state.phase is Phase.BIDDING:
        seat = state.current_player()
        state.apply_action(Bid(contract if seat == taker else 0))


def to_play(state: State, taker: int, contract: int = 3, chelem: bool = False) -> None:
    """Bid (garde sans by default: no écart) and start the play."""
    bid(state, taker, contract)
    state.apply_action(Go(chelem))


Policy = Callable[[State, list[Action]], Action]


def first_legal(state: State, legal: list[Action]) -> Action:
    return legal[0]


def first_card(state: State, legal: list[Action]) -> Action:
    """The lowest legal card, never an announcement."""
    return next((a for a in legal if isinstance(a, Play)), legal[0])


def play_out(state: State, policy: Policy = first_legal) -> None:
    while not state.is_terminal():
        state.apply_action(policy(state, state.legal_actions()))


def random_hand(
    config: TableConfig, seed: int
) -> tuple[State, list[CardSet], CardSet, random.Random]:
    """A random deal played with random legal actions (fully known)."""
    rng = random.Random(seed)
    deck = list(range(78))
    rng.shuffle(deck)
    dealer = rng.randrange(config.seats)
    state = new_hand(config, dealer, deck)
    deal = deal_cards(config, dealer, deck)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state, list(deal.hands), deal.chien, rng


def plays_with_seats(state: State) -> list[tuple[int, int, int, int]]:
    """(action index, seat, card, trick number) of every card played."""
    out = []
    history = state.history()
    idx = [i for i, a in enumerate(history) if isinstance(a, Play)]
    n = state.game.players
    for t, trick in enumerate(state.tricks):
        seat = trick.leader
        for j, card in enumerate(trick.cards):
            out.append((idx[t * n + j], seat, card, t))
            seat = state.next_seat[seat]
    return out


def winner_at(cards: tuple[int, ...]) -> int:
    """Position of the card winning a trick (the Excuse never wins)."""
    best = -1
    for i, c in enumerate(cards):
        if c == EXCUSE:
            continue
        if best < 0:
            best = i
            continue
        b = cards[best]
        over = SUIT_OF[c] == TRUMP_SUIT and (SUIT_OF[b] != TRUMP_SUIT or c > b)
        if over or (SUIT_OF[c] == SUIT_OF[b] and c > b):
            best = i
    return best


def inject_revoke(state: State) -> tuple[list[Action], int, int] | None:
    """Swap two cards of one player so that, in a trick after the first, he plays another
    plain suit while still holding the suit led (both tricks keep their winners, so the
    turn order is unchanged). Returns the actions, the seat and the index of the revoke."""
    plays = plays_with_seats(state)
    actions = state.history()
    for i, seat, x, t in plays:
        trick = state.tricks[t]
        led = next((c for c in trick.cards if c != EXCUSE), None)
        if t == 0 or led is None or SUIT_OF[led] == TRUMP_SUIT or x in (led, EXCUSE):
            continue
        if SUIT_OF[x] != SUIT_OF[led] or trick.cards[winner_at(trick.cards)] == x:
            continue
        for j, seat2, y, t2 in plays:
            if t2 <= t or seat2 != seat or y == EXCUSE or SUIT_OF[y] in (SUIT_OF[led], TRUMP_SUIT):
                continue
            later = state.tricks[t2].cards
            swapped = tuple(x if c == y else c for c in later)
            if winner_at(swapped) != winner_at(later):
                continue
            actions[i], actions[j] = Play(y), Play(x)
            return actions, seat, i
    return None
