"""Hand-built scenarios for the phases of a hand and the rules that decide its count."""

from __future__ import annotations

import pytest

from tarot_p2p.rules import state as state_module
from tarot_p2p.rules.actions import (
    PETIT_SEC,
    Action,
    Bid,
    CallCard,
    Discard,
    Go,
    Misere,
    MisereKind,
    PetitSec,
    Play,
    Poignee,
    decode,
)
from tarot_p2p.rules.cards import EXCUSE, card_name, half_points_of, parse_card
from tarot_p2p.rules.config import AllPass, ExcuseLastTrick, FivePlayerMode, TableConfig
from tarot_p2p.rules.scoring import Contract, Side
from tarot_p2p.rules.state import (
    IllegalAction,
    IncompleteInformation,
    Phase,
    State,
    Void,
    from_hands,
    new_hand,
)

from .engine_helpers import (
    bid,
    build_deal,
    cards,
    first_card,
    first_legal,
    play_out,
    start,
    to_play,
)

FOUR = TableConfig()
FIVE = TableConfig(players=5)
TRUMPS = " ".join(f"T{n}" for n in range(1, 22))


def names(state: State, legal: list[Action]) -> set[str]:
    return {card_name(a.card) for a in legal if isinstance(a, Play | CallCard | Discard)}


def excuse_first(state: State, legal: list[Action]) -> Action:
    return Play(EXCUSE) if Play(EXCUSE) in legal else legal[0]


def excuse_last(state: State, legal: list[Action]) -> Action:
    plays = [a for a in legal if a != Play(EXCUSE)]
    return plays[0] if plays else legal[0]


# ---------------------------------------------------------------- bidding


def test_bidding_order_and_strictly_higher_bids() -> None:
    state = start(FOUR, {}, dealer=1)
    assert state.current_player() == 2  # the dealer's right speaks first
    state.apply_action(Bid(2))
    assert state.current_player() == 3
    with pytest.raises(IllegalAction, match="bid-order"):
        state.apply_action(Bid(2))
    with pytest.raises(IllegalAction, match="bid-order"):
        state.apply_action(Bid(1))
    assert state.legal_actions() == [Bid(0), Bid(3), Bid(4)]
    state.apply_action(Bid(3))
    state.apply_action(Bid(0))
    assert state.current_player() == 1  # the dealer speaks last
    state.apply_action(Bid(0))
    assert state.taker == 3 and state.contract is Contract.GARDE_SANS
    assert state.phase is Phase.GO


def test_all_pass_voids_the_deal() -> None:
    state = start(FOUR, {})
    for _ in range(4):
        state.apply_action(Bid(0))
    assert state.is_terminal() and state.void is Void.ALL_PASS
    assert state.returns() == (0, 0, 0, 0)
    assert state.outcome() is None
    with pytest.raises(IllegalAction, match="hand-over"):
        state.apply_action(Bid(0))


def test_all_pass_misere_deal_variant() -> None:
    config = TableConfig(all_pass=AllPass.MISERE_DEAL)
    state = start(config, {})
    for _ in range(4):
        state.apply_action(Bid(0))
    assert state.phase is Phase.PLAY and state.current_player() == 0
    assert not any(isinstance(a, Poignee) for a in state.legal_actions())
    play_out(state)
    hp = state.half_points()
    assert sum(hp) == 182 - half_points_of(state.chien)
    scores = state.returns()
    assert sum(scores) == 0
    fewest = min(range(4), key=lambda s: hp[s])
    assert scores[fewest] == max(scores)


# ---------------------------------------------------------------- petit sec


def test_petit_sec_must_be_announced_and_voids_the_deal() -> None:
    no_trumps = " ".join(f"T{n}" for n in range(2, 22)) + " EX"
    state = start(FOUR, {1: "T1"}, avoid={1: no_trumps})
    state.apply_action(Bid(0))
    assert state.current_player() == 1
    assert state.legal_actions() == [PETIT_SEC]
    with pytest.raises(IllegalAction, match="petit-sec"):
        state.apply_action(Bid(0))
    state.apply_action(PetitSec())
    assert state.void is Void.PETIT_SEC and state.returns() == (0, 0, 0, 0)


def test_false_petit_sec_rejected() -> None:
    state = start(FOUR, {0: "T1 T2"})
    with pytest.raises(IllegalAction, match="petit-sec"):
        state.apply_action(PetitSec())


def test_petit_with_the_excuse_is_not_sec() -> None:
    no_trumps = " ".join(f"T{n}" for n in range(2, 22))
    state = start(FOUR, {0: "T1 EX"}, avoid={0: no_trumps})
    assert PETIT_SEC not in state.legal_actions()


# ---------------------------------------------------------------- five players


def test_call_a_king_or_lower_when_holding_them_all() -> None:
    state = start(FIVE, {}, dealer=4)
    bid(state, 0, 1)
    assert names(state, state.legal_actions()) == {"KS", "KH", "KD", "KC"}
    with pytest.raises(IllegalAction, match="call"):
        state.apply_action(CallCard(parse_card("QS")))
    state = start(FIVE, {0: "KS KH KD KC"}, dealer=4)
    bid(state, 0, 1)
    assert names(state, state.legal_actions()) == {
        "KS", "KH", "KD", "KC", "QS", "QH", "QD", "QC"
    }  # fmt: skip
    state = start(FIVE, {0: "KS KH KD KC QS QH QD QC"}, dealer=4)
    bid(state, 0, 1)
    assert "CS" in names(state, state.legal_actions())
    assert "JS" not in names(state, state.legal_actions())


def test_partner_hidden_until_the_called_king_is_played() -> None:
    state = start(FIVE, {2: "KH"}, dealer=4)
    bid(state, 0, 3)
    state.apply_action(CallCard(parse_card("KH")))
    state.apply_action(Go(False))
    assert state.observation(1).partner is None and not state.observation(1).partner_known
    assert state.observation(0).partner is None  # the taker does not know either
    assert state.observation(2).partner == 2 and state.observation(2).partner_known
    while not state.played >> parse_card("KH") & 1:
        state.apply_action(state.legal_actions()[0])
    assert state.observation(1).partner == 2 and state.observation(0).partner == 2
    play_out(state)
    outcome = state.outcome()
    assert outcome is not None and outcome.partner == 2
    scores = state.returns()
    assert scores[0] == 2 * scores[2] and sum(scores) == 0


def test_calling_own_king_plays_alone() -> None:
    state = start(FIVE, {0: "KH"}, dealer=4)
    bid(state, 0, 3)
    state.apply_action(CallCard(parse_card("KH")))
    state.apply_action(Go(False))
    assert state.observation(0).partner_known and state.observation(0).partner is None
    play_out(state)
    outcome = state.outcome()
    assert outcome is not None and outcome.partner is None
    scores = state.returns()
    assert scores[0] == -4 * scores[1]


def test_dead_hand_seat_sits_out() -> None:
    config = TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND)
    state = start(config, {}, dealer=2)
    assert state.current_player() == 3
    bid(state, 3, 3)
    state.apply_action(Go(False))
    play_out(state)
    assert all(2 not in (t.leader, t.winner) for t in state.tricks)
    assert state.returns()[2] == 0 and sum(state.returns()) == 0
    outcome = state.outcome()
    assert outcome is not None and outcome.dead == 2


# ---------------------------------------------------------------- chien and écart


def test_chien_shown_and_ecart_rules() -> None:
    plain = "1S 2S 3S 4S 5S 6S 7S 8S 9S 10S 1H 2H 3H 4H 5H 6H 7H 8H"
    state = start(FOUR, {0: plain}, chien="KC T21 T5 3C 4C EX")
    bid(state, 0, 2)
    assert state.observation(2).chien == cards("KC T21 T5 3C 4C EX")
    bad_discards = [
        ("KC", "ecart-king-oudler"),
        ("T21", "ecart-king-oudler"),
        ("EX", "ecart-king-oudler"),
        ("T5", "ecart-trump"),
        ("KD", "discard"),
    ]
    for bad, rule in bad_discards:
        with pytest.raises(IllegalAction, match=rule):
            state.apply_action(Discard(parse_card(bad)))
    assert "T5" not in names(state, state.legal_actions())
    for c in ("1S", "2S", "3C", "4C", "5S", "6S"):
        state.apply_action(Discard(parse_card(c)))
    assert state.phase is Phase.GO
    assert state.observation(0).ecart == cards("1S 2S 3C 4C 5S 6S")
    assert state.observation(1).ecart == 0


def test_trumps_discarded_only_when_forced_and_shown() -> None:
    kings_trumps = "KS KH KD KC T2 T3 T4 T6 T7 T8 T9 T10 T11 T12 T13 T14 T15 T16"
    state = start(FOUR, {0: kings_trumps}, chien="1S 2S T17 T18 T19 T20")
    bid(state, 0, 1)
    # Two plain cards for six discards: trumps are allowed, oudlers and kings never.
    legal = names(state, state.legal_actions())
    assert "1S" in legal and "T17" in legal and "KS" not in legal
    for c in ("T17", "1S", "T18", "2S"):
        state.apply_action(Discard(parse_card(c)))
    # No plain card left: only trumps remain possible.
    assert names(state, state.legal_actions()) <= set(TRUMPS.split())
    state.apply_action(Discard(parse_card("T2")))
    state.apply_action(Discard(parse_card("T3")))
    assert state.observation(1).ecart == cards("T17 T18 T2 T3")  # discarded trumps are shown


def test_garde_sans_and_contre_give_the_chien_to_each_side() -> None:
    results = {}
    for contract in (3, 4):
        state = start(FOUR, {})
        to_play(state, taker=0, contract=contract)
        assert state.observation(1).chien is None and state.observation(0).chien is None
        play_out(state)
        outcome = state.outcome()
        assert outcome is not None
        results[contract] = outcome.attack_half_points
    assert results[3] - results[4] == half_points_of(start(FOUR, {}).chien)


def test_ecart_counts_for_the_attack() -> None:
    state = start(FOUR, {0: "KS"}, chien="QH QD 1C 2C 3C 4C")
    bid(state, 0, 2)
    for c in ("QH", "QD", "1C", "2C", "3C", "4C"):
        state.apply_action(Discard(parse_card(c)))
    state.apply_action(Go(False))
    play_out(state, excuse_first)
    outcome = state.outcome()
    assert outcome is not None
    attack = sum(
        half_points_of(sum(1 << c for c in t.cards)) for t in state.tricks if t.winner == 0
    )
    excuse_trick = next(t for t in state.tricks if EXCUSE in t.cards)
    owner_attacks = excuse_trick.cards.index(EXCUSE) == (0 - excuse_trick.leader) % 4
    if (excuse_trick.winner == 0) != owner_attacks:
        attack += 1 if excuse_trick.winner == 0 else 0
        attack += 8 if owner_attacks else -9
    expected = attack + half_points_of(cards("QH QD 1C 2C 3C 4C"))
    assert outcome.attack_half_points == expected


# ---------------------------------------------------------------- announcements


def test_poignee_rules() -> None:
    ten = "T2 T3 T4 T5 T6 T7 T8 T9 T10 T11"
    state = start(FOUR, {1: ten}, avoid={1: "T1 T12 T13 T14 T15 T16 T17 T18 T19 T20 T21 EX"})
    to_play(state, taker=0)
    state.apply_action(state.legal_actions()[-1])  # seat 0 leads
    assert state.current_player() == 1
    with pytest.raises(IllegalAction, match="poignee-size"):
        state.apply_action(Poignee(cards("T2 T3 T4 T5 T6 T7 T8 T9 T10")))
    with pytest.raises(IllegalAction, match="poignee-not-held"):
        state.apply_action(Poignee(cards("T2 T3 T4 T5 T6 T7 T8 T9 T10 T21")))
    with pytest.raises(IllegalAction, match="poignee-cards"):
        state.apply_action(Poignee(cards("T2 T3 T4 T5 T6 T7 T8 T9 T10 1S")))
    assert Poignee(cards(ten)) in state.legal_actions()
    state.apply_action(Poignee(cards(ten)))
    assert state.observation(3).poignees == ((1, cards(ten)),)
    with pytest.raises(IllegalAction, match="poignee-twice"):
        state.apply_action(Poignee(cards(ten)))
    play_out(state)
    outcome = state.outcome()
    assert outcome is not None and len(outcome.poignees) == 1
    assert outcome.poignees[0].side is Side.DEFENCE and outcome.poignees[0].level == 1


def test_poignee_too_late() -> None:
    ten = "T2 T3 T4 T5 T6 T7 T8 T9 T10 T11"
    state = start(FOUR, {0: ten})
    to_play(state, taker=0)
    state.apply_action(Play(parse_card("T2")))
    while state.current_player() != 0:
        state.apply_action(state.legal_actions()[-1])
    with pytest.raises(IllegalAction, match="announce-late"):
        state.apply_action(Poignee(cards("T3 T4 T5 T6 T7 T8 T9 T10 T11 T12")))


def test_excuse_in_poignee_only_without_other_hidden_trumps() -> None:
    nine = "T2 T3 T4 T5 T6 T7 T8 T9 T10"
    state = start(FOUR, {0: nine + " EX T11"})
    to_play(state, taker=0)
    with pytest.raises(IllegalAction, match="poignee-excuse"):
        state.apply_action(Poignee(cards(nine + " EX")))
    state.apply_action(Poignee(cards(nine + " T11")))
    rest = "T1 T12 T13 T14 T15 T16 T17 T18 T19 T20 T21"
    state = start(FOUR, {0: nine + " EX"}, avoid={0: rest})
    to_play(state, taker=0)
    assert Poignee(cards(nine + " EX")) in state.legal_actions()
    state.apply_action(Poignee(cards(nine + " EX")))


def test_double_poignee_level() -> None:
    thirteen = " ".join(f"T{n}" for n in range(2, 15))
    state = start(FOUR, {0: thirteen})
    to_play(state, taker=0)
    state.apply_action(Poignee(cards(thirteen)))
    play_out(state)
    outcome = state.outcome()
    assert outcome is not None and outcome.poignees[0].level == 2
    assert outcome.poignees[0].side is Side.ATTACK


def test_misere_announcements() -> None:
    config = TableConfig(misere=True)
    no_trump = TRUMPS + " EX"
    state = start(config, {1: "1S"}, avoid={1: no_trump})
    to_play(state, taker=0)
    with pytest.raises(IllegalAction, match="misere-false"):
        state.apply_action(Misere(MisereKind.TRUMP))  # seat 0 holds trumps
    state.apply_action(state.legal_actions()[-1])
    assert Misere(MisereKind.TRUMP) in state.legal_actions()
    state.apply_action(Misere(MisereKind.TRUMP))
    with pytest.raises(IllegalAction, match="misere-twice"):
        state.apply_action(Misere(MisereKind.TRUMP))
    play_out(state)
    outcome = state.outcome()
    assert outcome is not None and outcome.miseres == (1,)
    with pytest.raises(IllegalAction, match="misere-off"):
        off = start(FOUR, {1: "1S"}, avoid={1: no_trump})
        to_play(off, taker=0)
        off.apply_action(off.legal_actions()[-1])
        off.apply_action(Misere(MisereKind.TRUMP))


def test_misere_d_atout_may_not_hold_the_excuse() -> None:
    """For these announcements the Excuse counts as a trump (seed 000: "no tenga triunfos,
    incluyendo la excusa"): a hand with the Excuse and no trump is no misère d'atout; the
    same hand without the Excuse is one."""
    config = TableConfig(misere=True)
    holder = start(config, {1: "EX 1S"}, avoid={1: TRUMPS})
    to_play(holder, taker=0)
    holder.apply_action(holder.legal_actions()[-1])
    assert holder.current_player() == 1
    assert Misere(MisereKind.TRUMP) not in holder.legal_actions()
    with pytest.raises(IllegalAction, match="misere-false"):
        holder.apply_action(Misere(MisereKind.TRUMP))
    clean = start(config, {1: "1S"}, avoid={1: TRUMPS + " EX"})
    to_play(clean, taker=0)
    clean.apply_action(clean.legal_actions()[-1])
    assert clean.current_player() == 1
    assert Misere(MisereKind.TRUMP) in clean.legal_actions()
    clean.apply_action(Misere(MisereKind.TRUMP))


# ---------------------------------------------------------------- chelem, Excuse, petit au bout


def test_announced_chelem_gives_the_lead() -> None:
    state = start(FOUR, {})
    to_play(state, taker=2, chelem=True)
    assert state.current_player() == 2 and state.chelem_announced
    state = start(FOUR, {})
    to_play(state, taker=2)
    assert state.current_player() == 0


def _taker_high_first(state: State, legal: list[Action]) -> Action:
    if state.current_player() == 0:
        plays = [a for a in legal if isinstance(a, Play)]
        trumps = [a for a in plays if 57 <= a.card <= 76]
        if trumps:
            return max(trumps, key=lambda a: a.card)
        return min(plays, key=lambda a: a.card)  # the petit, then the Excuse
    return legal[0]


def test_chelem_closed_by_the_excuse_and_petit_au_bout_penultimate() -> None:
    taker = "EX T1 " + " ".join(f"T{n}" for n in range(6, 22))
    state = start(FOUR, {0: taker})
    to_play(state, taker=0, chelem=True)
    play_out(state, _taker_high_first)
    assert state.tricks[-1].cards[0] == EXCUSE and state.tricks[-2].cards[0] == 56
    assert state.tricks[-1].winner == 0
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.chelem is Side.ATTACK and outcome.chelem_announced
    assert outcome.petit_au_bout is Side.ATTACK
    assert outcome.attack_half_points == 182 and outcome.attack_oudlers == 3


def _keep_the_petit_lead_suits(state: State, legal: list[Action]) -> Action:
    """The lowest legal card (suit cards before trumps), but the Excuse and the petit last."""
    plays = [a for a in legal if isinstance(a, Play)]
    if not plays:
        return legal[0]
    ordinary = [a for a in plays if a.card not in (EXCUSE, parse_card("T1"))]
    return ordinary[0] if ordinary else plays[0]


def test_petit_in_the_last_trick_of_a_chelem_closed_by_the_excuse_goes_with_that_trick() -> None:
    """Five players: the attack takes every trick and leads the Excuse to the last one, where a
    defender is left with the petit. The last trick goes to the chelem side (the Excuse wins
    it), and so does the petit au bout."""
    hands = [
        cards("8H 9H 10H JH CH QH KH T15 T16 T17 T18 T19 T20 T21 EX"),  # taker
        cards("8S 9S 10S JS CS QS KS T8 T9 T10 T11 T12 T13 T14 1D"),  # called partner
        cards("1H 2H 3H 4H 5H 6H 7H 1S 2S 3S 4S 5S 6S T1 T7"),  # keeps the petit
        cards("2D 3D 4D 5D 6D 7D 8D 9D 10D JD CD QD KD 7S T6"),
        cards("1C 2C 3C 4C 5C 6C 7C 8C 9C 10C JC CC QC KC T5"),
    ]
    state = from_hands(FIVE, 4, hands, cards("T2 T3 T4"))
    bid(state, taker=0, contract=int(Contract.GARDE_SANS))
    state.apply_action(CallCard(parse_card("KS")))
    state.apply_action(Go(True))
    play_out(state, _keep_the_petit_lead_suits)
    last = state.tricks[-1]
    assert last.cards[0] == EXCUSE and parse_card("T1") in last.cards
    assert last.winner == last.leader  # the Excuse wins the trick it closes the chelem with
    outcome = state.outcome()
    assert outcome is not None and outcome.partner == 1
    assert outcome.chelem is Side.ATTACK
    assert outcome.petit_au_bout is Side.ATTACK


def test_excuse_kept_by_a_side_without_tricks_is_worth_four() -> None:
    weak = "EX 1S 2S 3S 4S 5S 6S 7S 8S 9S 1H 2H 3H 4H 5H 6H 7H 8H"
    state = start(FOUR, {0: weak})
    to_play(state, taker=0, contract=4)
    play_out(state, excuse_first)
    assert all(t.winner != 0 for t in state.tricks)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.chelem is Side.DEFENCE
    assert outcome.attack_half_points == 8 and outcome.attack_oudlers == 1


def test_excuse_on_the_last_trick_changes_sides() -> None:
    weak = "1S 2S 3S 4S 5S 6S 7S 8S 9S 1H 2H 3H 4H 5H 6H 7H 8H T21"
    outcomes = {}
    for mode in ExcuseLastTrick:
        config = TableConfig(excuse_last_trick=mode)
        state = start(config, {0: weak, 1: "EX"})
        to_play(state, taker=0, contract=4)
        state.apply_action(Play(parse_card("T21")))  # the attack takes a trick: no chelem
        play_out(state, excuse_last)
        last = state.tricks[-1]
        # The defence owns the Excuse, plays it last, and a defender wins that trick.
        assert EXCUSE in last.cards and last.winner in (2, 3)
        outcomes[mode] = state.outcome()
    fft, table = outcomes[ExcuseLastTrick.CHANGES_SIDES], outcomes[ExcuseLastTrick.TO_TRICK_WINNER]
    assert fft is not None and table is not None
    # FFT: it goes to the attack; the table reading leaves it with the defence that won it.
    assert fft.attack_oudlers == table.attack_oudlers + 1
    assert fft.attack_half_points == table.attack_half_points + 9


def test_petit_au_bout() -> None:
    taker = " ".join(f"T{n}" for n in range(1, 19))  # T1..T18: the petit is played last
    state = start(FOUR, {0: taker})
    to_play(state, taker=0)

    def petit_last(state: State, legal: list[Action]) -> Action:
        if state.current_player() == 0:
            plays = [a for a in legal if isinstance(a, Play)]
            return max(plays, key=lambda a: a.card)
        return legal[0]

    play_out(state, petit_last)
    last = state.tricks[-1]
    assert 56 in last.cards
    outcome = state.outcome()
    assert outcome is not None
    won_by_attack = last.winner == 0
    assert outcome.petit_au_bout is (Side.ATTACK if won_by_attack else Side.DEFENCE)


# ---------------------------------------------------------------- API


def test_actions_encode_and_decode() -> None:
    actions: list[Action] = [
        PetitSec(),
        Bid(0),
        Bid(4),
        CallCard(13),
        Discard(5),
        Discard(78),
        Go(True),
        Go(False),
        Poignee(cards("T2 T3 EX")),
        Misere(MisereKind.HEAD),
        Play(77),
    ]
    for a in actions:
        assert decode(a.encode()) == a
        assert all(type(x) is int for x in a.encode())
    for bad in [(), (9, 1), (1, 5), (7, 78), (5, 3, 2), (5,), (0, 1), (4, 3), ("x",)]:
        with pytest.raises(ValueError):
            decode(bad)  # type: ignore[arg-type]


def test_history_replays_to_the_same_result() -> None:
    state = start(FIVE, {}, dealer=4)
    bid(state, 1, 1)
    state.apply_action(state.legal_actions()[0])
    play_out(state)
    hands, chien = build_deal(FIVE, 4, {})
    replay = from_hands(FIVE, 4, hands, chien)
    for a in state.history():
        replay.apply_action(a)
    assert replay.returns() == state.returns()
    assert replay.observation(3) == state.observation(3)


def test_observation_shows_only_what_a_seat_may_see() -> None:
    state = start(FOUR, {})
    bid(state, 0, 3)
    obs = state.observation(1)
    assert obs.hand == state.hands[1]
    assert obs.chien is None and obs.ecart == 0
    assert obs.hand_sizes == (18, 18, 18, 18)
    assert not any(v == state.hands[0] for v in vars_of(obs))


def vars_of(obs: object) -> list[object]:
    return [getattr(obs, f) for f in obs.__dataclass_fields__]  # type: ignore[attr-defined]


def test_incomplete_hand_has_no_result() -> None:
    state = start(FOUR, {})
    with pytest.raises(IncompleteInformation):
        state.returns()


def test_first_legal_policy_helper_terminates() -> None:
    state = start(FOUR, {})
    to_play(state, 0)
    play_out(state, first_legal)
    assert len(state.tricks) == 18 and state.played == (1 << 78) - 1 - state.chien


def test_petit_chelem_variant_detected() -> None:
    taker = " ".join(f"T{n}" for n in range(7, 22)) + " 1S 2S 3S"
    for variant in (False, True):
        config = TableConfig(petit_chelem=variant)
        state = start(config, {0: taker}, chien="1D 2D 3D 4D 5D 6D")
        to_play(state, taker=0)

        def defenders_keep_spades(state: State, legal: list[Action]) -> Action:
            return _taker_high_first(state, legal) if state.current_player() == 0 else legal[-1]

        play_out(state, defenders_keep_spades)
        assert sum(t.winner == 0 for t in state.tricks) == 15  # all but the three spades
        outcome = state.outcome()
        assert outcome is not None and outcome.chelem is None
        assert outcome.petit_chelem is (Side.ATTACK if variant else None)


@pytest.mark.parametrize(
    ("config", "enough", "short"),
    [(TableConfig(players=3), 13, 12), (FOUR, 10, 9), (FIVE, 8, 7)],
    ids=["3", "4", "5"],
)
def test_poignee_thresholds_by_table_size(config: TableConfig, enough: int, short: int) -> None:
    trumps = " ".join(f"T{n}" for n in range(2, 2 + enough))
    state = start(config, {0: trumps}, dealer=config.seats - 1)
    bid(state, 0, 3)
    if config.players == 5:
        state.apply_action(state.legal_actions()[0])
    state.apply_action(Go(False))
    with pytest.raises(IllegalAction, match="poignee-size"):
        state.apply_action(Poignee(cards(" ".join(f"T{n}" for n in range(2, 2 + short)))))
    state.apply_action(Poignee(cards(trumps)))
    assert state.observation(1).poignees == ((0, cards(trumps)),)


def test_excuse_led_to_the_last_trick_without_a_chelem_is_lost() -> None:
    taker = "1S EX " + " ".join(f"T{n}" for n in range(6, 22))
    state = start(FOUR, {0: taker}, chien="1D 2D 3D 4D 5D 6D")
    to_play(state, taker=0)

    def policy(state: State, legal: list[Action]) -> Action:
        if state.current_player() != 0:
            return legal[-1]
        return Play(parse_card("1S")) if not state.tricks else _taker_high_first(state, legal)

    play_out(state, policy)
    first, last = state.tricks[0], state.tricks[-1]
    assert first.winner != 0  # the attack lost a trick: no chelem
    assert last.leader == 0 and last.cards[0] == EXCUSE and last.winner != 0
    outcome = state.outcome()
    assert outcome is not None and outcome.chelem is None
    won = sum(half_points_of(sum(1 << c for c in t.cards)) for t in state.tricks if t.winner == 0)
    # Garde sans: the chien counts for the attack; the Excuse went to the defence, no exchange.
    assert outcome.attack_half_points == won + half_points_of(state.chien)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_clone_is_independent(players: int) -> None:
    # A clone played to the end leaves the original untouched; the original then plays to
    # the very same end. Two players exercise the piles (nested lists).
    config = TableConfig(players=players)
    state = new_hand(config, 0, list(range(78)))
    to_play(state, taker=1)
    for _ in range(6):
        state.apply_action(first_card(state, state.legal_actions()))
    before = (state.history(), state.legal_actions(), state.observation(0))
    clone = state.clone()
    play_out(clone, first_card)
    assert (state.history(), state.legal_actions(), state.observation(0)) == before
    play_out(state, first_card)
    assert state.history() == clone.history() and state.returns() == clone.returns()


def test_petit_chelem_is_announced_only_in_the_variant_and_keeps_the_lead() -> None:
    assert decode(Go(False, True).encode()) == Go(False, True)
    plain = start(FOUR, {})
    bid(plain, taker=0, contract=3)
    assert Go(False, True) not in plain.legal_actions()
    with pytest.raises(IllegalAction):
        plain.apply_action(Go(False, True))
    taker = "EX T1 " + " ".join(f"T{n}" for n in range(6, 22))
    state = start(TableConfig(petit_chelem=True), {0: taker})
    bid(state, taker=0, contract=3)
    with pytest.raises(IllegalAction):
        state.apply_action(Go(True, True))
    state.apply_action(Go(False, True))
    assert state.petit_chelem_announced and not state.chelem_announced
    assert state.current_player() == state.next_seat[state.dealer]
    play_out(state, first_card)
    outcome = state.outcome()
    assert outcome is not None and outcome.petit_chelem_announced


def test_a_hand_set_up_again_checks_its_dealer() -> None:
    # The seating of a table and dealer is remembered; a dealer that only equals a seat is
    # still refused once that seat's seating is known.
    config = TableConfig()
    dealt = new_hand(config, 1, list(range(78)))
    with pytest.raises(ValueError, match="no seat"):
        State(config, 1.0, dealt.hands, dealt.chien)  # type: ignore[arg-type]


def test_seatings_remembered_stay_few() -> None:
    for _ in range(state_module._MAX_SEATINGS + 10):
        new_hand(TableConfig(), 0, list(range(78)))
    assert len(state_module._SEATINGS) <= state_module._MAX_SEATINGS
