"""Why a grey card is grey: the words the page shows when a card that may not be played,
or put in the écart, is clicked. Checked on random deals played out by the engine against
the rules as a player states them, at three, four and five players."""

from __future__ import annotations

import random

import pytest

from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import (
    EXCUSE,
    KING_MASK,
    OUDLER_MASK,
    RANK_OF,
    SUIT_OF,
    TRUMP_SUIT,
    cards_of,
)
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.rules.state import Phase, State, new_hand
from tarot_p2p.ui.i18n import Words
from tarot_p2p.ui.view import Pending, why_not_discard, why_not_play

SUITS = ("spades ♠", "hearts ♥", "diamonds ♦", "clubs ♣")


def said(card: int, trick: list[int], hand: int) -> str:
    """What a player would say of ``card``, which may not be played on ``trick``."""
    led = next(SUIT_OF[c] for c in trick if c != EXCUSE)
    if led != TRUMP_SUIT and any(SUIT_OF[c] == led for c in cards_of(hand)):
        return f"You must follow {SUITS[led]}."
    if SUIT_OF[card] == TRUMP_SUIT:
        high = max(RANK_OF[c] for c in trick if SUIT_OF[c] == TRUMP_SUIT)
        return f"You must play a trump higher than the {high}."
    if led == TRUMP_SUIT:
        return "Trumps were led: you must play a trump."
    return f"You have no {SUITS[led]}: you must trump."


def deal(players: int, rng: random.Random, contract: int) -> State:
    deck = list(range(78))
    rng.shuffle(deck)
    state = new_hand(TableConfig(players=players), 0, deck)
    while state.phase is Phase.BIDDING:
        legal = state.legal_actions()
        bid = a.Bid(contract)
        state.apply_action(bid if bid in legal else legal[0])
    return state


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_grey_card_of_the_play_says_the_rule_it_breaks(players: int) -> None:
    words = Words("en")
    rng = random.Random(f"why/{players}")
    told = set()
    for _ in range(12):
        state = deal(players, rng, 3)  # garde sans: straight to the play
        while state.phase is not Phase.DONE:
            if state.phase is Phase.PLAY:
                seat = state.current_player()
                obs = state.observation(seat)
                grey = obs.hand & ~state.legal_play_mask()
                why = why_not_play(words, state, seat)
                assert set(why) == {str(c) for c in cards_of(grey)}
                for c in cards_of(grey):
                    assert why[str(c)] == said(c, list(obs.trick), obs.hand)
                    told.add(why[str(c)].split(" ")[2])
            state.apply_action(rng.choice(state.legal_actions()))
    assert told == {"follow", "play", "no", "led:"}  # every rule of the play met


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_card_kept_from_the_ecart_says_why(players: int) -> None:
    words = Words("fr")
    rng = random.Random(f"ecart/{players}")
    for _ in range(12):
        state = deal(players, rng, 2)  # garde: the taker makes an écart
        while state.phase is not Phase.DISCARD:
            state.apply_action(state.legal_actions()[0])  # five players: a king called
        seat = state.current_player()
        pending = Pending(1, [], chien_size(state.config), trial=state.clone())
        while True:
            hand = pending.trial.observation(seat).hand if pending.trial else 0
            why = why_not_discard(words, pending, seat)
            if len(pending.ecart) == pending.ecart_size:
                assert why == dict.fromkeys(
                    map(str, cards_of(hand)),
                    "Votre écart est complet : validez-le, ou annulez une carte.",
                )
                break
            kept = hand & ~pending.ecart_choices()
            assert set(why) == {str(c) for c in cards_of(kept)}
            for c in cards_of(kept):
                if (KING_MASK >> c) & 1:
                    assert why[str(c)] == "Un roi ne va jamais à l'écart."
                elif (OUDLER_MASK >> c) & 1:
                    assert why[str(c)] == "Un bout (le 1, le 21, l'Excuse) ne va jamais à l'écart."
                else:
                    assert SUIT_OF[c] == TRUMP_SUIT
                    assert why[str(c)].startswith("Un atout ne va à l'écart que faute")
            card = rng.choice(list(cards_of(pending.ecart_choices())))
            assert pending.trial is not None
            pending.trial.apply_action(a.DISCARD[card])
            pending.ecart.append(card)
