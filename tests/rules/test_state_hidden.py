"""The engine run by a peer that sees only its own hand (imperfect information)."""

from __future__ import annotations

import pytest

from tarot_p2p.rules.actions import HIDDEN, Bid, Discard, Go, Play, public_action
from tarot_p2p.rules.cards import CardSet, parse_card
from tarot_p2p.rules.config import FivePlayerMode, TableConfig
from tarot_p2p.rules.deal import active_seats
from tarot_p2p.rules.state import IllegalAction, IncompleteInformation, State, from_hands

from .engine_helpers import build_deal, cards, random_hand, start, to_play

CONFIGS = [
    TableConfig(players=3),
    TableConfig(),
    TableConfig(players=5),
    TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND),
]


def peer_of(config: TableConfig, dealer: int, hands: list[CardSet], viewer: int) -> State:
    seats = active_seats(config, dealer)
    view = [h if s == viewer or s not in seats else None for s, h in enumerate(hands)]
    return from_hands(config, dealer, view, None)


def follow(full: State, peer: State, viewer: int, chien: CardSet) -> None:
    """Replay ``full``'s history on ``peer`` as the network would deliver it."""
    for a in full.history():
        if isinstance(a, Discard) and not peer.chien_known:
            peer.reveal_chien(chien)  # the chien is shown before the écart
        seat = peer.current_player()
        peer.apply_action(a if seat == viewer else public_action(a))


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("seed", range(12))
def test_peer_reaches_the_same_result(config: TableConfig, seed: int) -> None:
    full, hands, chien, _ = random_hand(config, seed)
    viewer = active_seats(config, full.dealer)[seed % config.active_players]
    peer = peer_of(config, full.dealer, hands, viewer)
    follow(full, peer, viewer, chien)
    assert peer.is_terminal()
    if full.void is None and full.taker is not None:
        peer.reveal_chien(chien)
        if peer.ecart_hidden:
            with pytest.raises(IncompleteInformation):
                peer.returns()
            peer.reveal_ecart(full.ecart)
    elif full.void is None:
        peer.reveal_chien(chien)
    assert peer.returns() == full.returns()
    assert peer.observation(viewer).hand == full.observation(viewer).hand


def _hidden_table(fixed: dict[int, str], avoid: dict[int, str] | None = None) -> State:
    config = TableConfig()
    hands, _ = build_deal(config, 3, fixed, avoid=avoid)
    peer = from_hands(config, 3, [hands[0], None, None, None], None)
    to_play(peer, taker=0)
    return peer


def test_hidden_revoke_is_accepted_now_and_left_to_the_audit() -> None:
    peer = _hidden_table({0: "1H T21", 1: "5H T10"})
    peer.apply_action(Play(parse_card("1H")))
    peer.apply_action(Play(parse_card("T10")))  # seat 1 holds 5H: a revoke nobody sees yet
    assert peer.hidden[1] == 17


def test_hidden_seat_cannot_play_a_known_or_played_card() -> None:
    peer = _hidden_table({0: "1H 2H T21"})
    peer.apply_action(Play(parse_card("1H")))
    before = peer.observation(0)
    with pytest.raises(IllegalAction, match="card-not-held"):
        peer.apply_action(Play(parse_card("2H")))  # in the viewer's own hand
    with pytest.raises(IllegalAction, match="card-not-held"):
        peer.apply_action(Play(parse_card("1H")))  # already played
    assert peer.observation(0) == before


def test_hidden_discards_and_shown_trumps() -> None:
    config = TableConfig()
    hands, chien = build_deal(config, 3, {1: "T5"}, chien="1S 2S 3S 4S 5S 6S")
    peer = from_hands(config, 3, [hands[0], None, None, None], None)
    peer.apply_action(Bid(0))
    peer.apply_action(Bid(1))  # seat 1 takes
    peer.apply_action(Bid(0))
    peer.apply_action(Bid(0))
    with pytest.raises(IncompleteInformation):
        peer.apply_action(Discard(HIDDEN))  # the chien is shown first
    peer.reveal_chien(chien)
    assert peer.observation(0).chien == chien
    with pytest.raises(IllegalAction, match="ecart-shown"):
        peer.apply_action(Discard(parse_card("3S")))
    with pytest.raises(IllegalAction, match="ecart-shown"):
        peer.apply_action(Discard(parse_card("T21")))
    peer.apply_action(Discard(parse_card("T5")))
    for _ in range(5):
        peer.apply_action(Discard(HIDDEN))
    assert peer.observation(0).ecart == cards("T5")
    peer.apply_action(Go(False))
    with pytest.raises(IllegalAction, match="card-not-held"):
        peer.apply_action(Play(parse_card("T5")))  # it is in the écart


def test_known_taker_must_name_his_discards() -> None:
    state = start(TableConfig(), {})
    state.apply_action(Bid(1))
    for _ in range(3):
        state.apply_action(Bid(0))
    with pytest.raises(IllegalAction, match="discard"):
        state.apply_action(Discard(HIDDEN))


def test_reveal_hand_checks_consistency() -> None:
    peer = _hidden_table({0: "1H T21"}, avoid={0: "KS"})
    with pytest.raises(IllegalAction):
        peer.reveal_hand(1, cards("T21"))  # the viewer holds it
    peer.reveal_hand(1, cards("KS"))
    assert peer.hands[1] == cards("KS") and peer.hidden[1] == 17
    with pytest.raises(IllegalAction):
        peer.reveal_hand(2, cards("KS"))  # now known to be elsewhere
