"""Generator of the game vectors in ``protocol/vectors/game_*.json`` (``protocol/game.md`` §7).

Run ``python -m tests.protocol.game_vectors`` to rewrite them after a deliberate change of
the rules engine; ``test_game_vectors.py`` recomputes them on every run and checks the
normative parts (card numbers, configuration bytes, deal pattern, action encodings) with
code written from the spec, not from the engine. Every hand lists its deck order and its
actions explicitly, so an implementer needs no random generator to replay it; the seeded
``random.Random`` below only chose them.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

from tarot_p2p.rules.actions import (
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
    public_action,
)
from tarot_p2p.rules.audit import HandRecord, audit_hand
from tarot_p2p.rules.cards import (
    DECK_SIZE,
    EXCUSE,
    HALF_POINTS,
    PETIT,
    TRUMP_MASK,
    card_name,
    cards_of,
    mask_of,
    parse_card,
)
from tarot_p2p.rules.config import (
    Abandon,
    AllPass,
    ExcuseLastTrick,
    FivePlayerMode,
    GameEnd,
    Penalty,
    PetitAuBout,
    PoigneeBeneficiary,
    TableConfig,
)
from tarot_p2p.rules.deal import CHIEN, deal_cards, deal_pattern, pile_positions
from tarot_p2p.rules.sheet import LineKind, ScoreSheet
from tarot_p2p.rules.state import Phase, State, from_hands, new_hand

VECTOR_DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors"

NON_DEFAULT = TableConfig(
    players=5,
    five_player_mode=FivePlayerMode.DEAD_HAND,
    poignee_values=(20, 40, 60),
    poignee_beneficiary=PoigneeBeneficiary.ANNOUNCER,
    petit_au_bout=PetitAuBout.FIXED,
    chelem_values=(600, 300, -300),
    excuse_last_trick=ExcuseLastTrick.TO_TRICK_WINNER,
    misere=True,
    all_pass=AllPass.MISERE_DEAL,
    petit_chelem=True,
    penalty=Penalty.REPORT_ONLY,
    game_end=GameEnd.POINTS,
    game_length=1000,
    forfeit_after=120,
    abandon=Abandon.CONTINUE,
)


def cards_vector() -> dict[str, Any]:
    return {
        "cards": [
            {"card": c, "name": card_name(c), "half_points": HALF_POINTS[c]}
            for c in range(DECK_SIZE)
        ]
    }


def config_case(config: TableConfig) -> dict[str, Any]:
    data = config.canonical_bytes()
    return {
        "text": data.decode("ascii"),
        "bytes": data.hex(),
        "digest": config.digest().hex(),
    }


def config_vector() -> dict[str, Any]:
    return {"default": config_case(TableConfig()), "non_default": config_case(NON_DEFAULT)}


DEAL_MODES: tuple[tuple[str, TableConfig], ...] = (
    ("2", TableConfig(players=2)),
    ("3", TableConfig(players=3)),
    ("4", TableConfig(players=4)),
    ("5_called_king", TableConfig(players=5)),
    ("5_dead_hand", TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND)),
)


def deal_vector() -> dict[str, Any]:
    modes: dict[str, Any] = {}
    for label, config in DEAL_MODES:
        by_dealer = []
        for dealer in range(config.seats):
            case: dict[str, Any] = {
                "dealer": dealer,
                "pattern": list(deal_pattern(config, dealer)),
            }
            if config.players == 2:
                case["piles"] = [
                    None if p is None else list(p) for p in pile_positions(config, dealer)
                ]
            by_dealer.append(case)
        modes[label] = {"players": config.players, "by_dealer": by_dealer}
    return {"chien": CHIEN, "modes": modes}


def named(names: str) -> int:
    """The card set of space-separated short names."""
    return mask_of(parse_card(n) for n in names.split())


SAMPLE_ACTIONS: tuple[Action, ...] = (
    PetitSec(),
    Bid(0),
    Bid(1),
    Bid(2),
    Bid(3),
    Bid(4),
    CallCard(parse_card("KH")),
    CallCard(parse_card("QC")),
    Discard(parse_card("3D")),
    Discard(parse_card("T7")),
    Discard(DECK_SIZE),
    Go(False),
    Go(True),
    Go(False, True),
    Poignee(named("T2 T3 T5 T8 T9 T10 T12 T15 T20 EX")),
    Misere(MisereKind.TRUMP),
    Misere(MisereKind.HEAD),
    Play(parse_card("1S")),
    Play(parse_card("T1")),
    Play(parse_card("EX")),
)


def actions_vector() -> dict[str, Any]:
    return {
        "actions": [
            {
                "action": str(a),
                "encoding": list(a.encode()),
                "msgpack": msgpack.packb(list(a.encode())).hex(),
                "public": list(public_action(a).encode()),
            }
            for a in SAMPLE_ACTIONS
        ]
    }


# ---------------------------------------------------------------- full hands

Chooser = Callable[[State, list[Action], random.Random], Action]


@dataclasses.dataclass(frozen=True)
class HandCase:
    name: str
    note: str
    config: TableConfig
    dealer: int
    deck: tuple[int, ...]
    bids: tuple[int, ...] = ()
    """Contracts in speaking order; the first ``PetitSec`` legal is always taken."""
    chelem: bool = False
    announce: bool = False
    """Show the highest poignée offered before each first card."""
    petit_chelem: bool = False
    """The taker announces a petit chelem (variant)."""
    false_misere: int | None = None
    """A seat that announces a misère d'atout it does not hold, before its first card."""
    cheat_on_trump_lead: int | None = None
    """A seat that, at the first trump lead where it holds a trump and a suit card, plays
    its lowest suit card; from then on it follows the suit, else trumps (its highest),
    else plays its lowest card, and no engine checks it (it goes in the record)."""
    play: Chooser | None = None
    seed: int = 0


def shuffled(seed: int) -> tuple[int, ...]:
    deck = list(range(DECK_SIZE))
    random.Random(seed).shuffle(deck)
    return tuple(deck)


def stacked(config: TableConfig, dealer: int, hands: dict[int, str]) -> tuple[int, ...]:
    """A deck order dealing each seat in ``hands`` the named cards, the rest in card order."""
    wanted = {s: [parse_card(n) for n in v.split()] for s, v in hands.items()}
    rest = [c for c in range(DECK_SIZE) if all(c not in w for w in wanted.values())]
    deck = []
    for dest in deal_pattern(config, dealer):
        pile = wanted.get(dest)
        deck.append(pile.pop(0) if pile else rest.pop(0))
    return tuple(deck)


def random_card(state: State, legal: list[Action], rng: random.Random) -> Action:
    return rng.choice([a for a in legal if isinstance(a, Play)])


def chelem_order(state: State, legal: list[Action], rng: random.Random) -> Action:
    """The taker plays his cards in a fixed order (Excuse last); the others their lowest."""
    if state.current_player() != state.taker:
        return next(a for a in legal if isinstance(a, Play))
    order = [parse_card("KS"), parse_card("KH"), *(55 + n for n in range(21, 0, -1)), 77]
    plays = {a.card for a in legal if isinstance(a, Play)}
    return Play(next(c for c in order if c in plays))


def petit_last_order(state: State, legal: list[Action], rng: random.Random) -> Action:
    """The taker leads his trumps, then his suit cards, the Excuse last; the others play
    their highest legal card, keeping the petit for the end."""
    plays = [a for a in legal if isinstance(a, Play)]
    if state.current_player() == state.taker:
        heads = [parse_card(f"{r}{s}") for s in "SH" for r in ("K", "Q", "C", "J", "10", "9", "8")]
        order = [*(55 + n for n in range(21, 0, -1)), *heads, EXCUSE]
        held = {a.card for a in plays}
        return Play(next(c for c in order if c in held))
    return max(plays, key=lambda a: (a.card != PETIT, a.card))


def excuse_last(state: State, legal: list[Action], rng: random.Random) -> Action:
    """A random legal card, the Excuse only when nothing else is left."""
    plays = [a for a in legal if isinstance(a, Play)]
    return rng.choice([a for a in plays if a.card != EXCUSE] or plays)


def strongest(state: State, legal: list[Action], rng: random.Random) -> Action:
    """The highest legal card: trumps by number, then suit cards by rank, the Excuse last."""
    plays = [a for a in legal if isinstance(a, Play)]
    return max(plays, key=lambda a: (a.card != EXCUSE, a.card >= 56, _rank(a.card)))


def _rank(card: int) -> int:
    return card if card >= 56 else card % 14


def _cheater_card(state: State, held: int) -> Play:
    """What the cheater of ``cheat_on_trump_lead`` plays once it has cheated."""
    trick = [c for c in state.observation(state.current_player()).trick if c != EXCUSE]
    mine = sorted(cards_of(held))
    suit = [c for c in mine if trick and c < 56 and c // 14 == trick[0] // 14 and trick[0] < 56]
    trumps = [c for c in mine if 56 <= c < EXCUSE]
    if suit:
        return Play(suit[0])
    if trick and trumps:
        return Play(trumps[-1])
    return Play(mine[0])


def play_hand(case: HandCase) -> tuple[list[Action], State]:
    """The case's actions, applied to a fully known state (except a false misère, which an
    honest engine refuses: it goes in the record only, for the audit to find). With a
    cheater, the state does not see the cheater's hand (it accepts his illegal card, as a
    peer does, for the audit to find); a fully known shadow chooses his honest moves."""
    shadow: State | None = None
    state = new_hand(case.config, case.dealer, case.deck)
    cheater = case.cheat_on_trump_lead
    if cheater is not None:
        shadow = state
        deal = deal_cards(case.config, case.dealer, case.deck)
        hands = [None if s == cheater else h for s, h in enumerate(deal.hands)]
        state = from_hands(case.config, case.dealer, hands, deal.chien)
        held = deal.hands[cheater]
    rng = random.Random(case.seed)
    bids = list(case.bids)
    actions: list[Action] = []
    first_card_done: set[int] = set()
    misered = False
    while not state.is_terminal():
        seat = state.current_player()
        action: Action
        if seat == cheater and state.phase is Phase.PLAY:
            trick = [c for c in state.observation(seat).trick if c != EXCUSE]
            suits = [c for c in cards_of(held) if c < 56]
            if shadow is not None and trick and trick[0] >= 56 and suits and held & TRUMP_MASK:
                shadow = None  # the cheat: a suit card on a trump lead, holding trumps
                action = Play(suits[0])
            elif shadow is None:
                action = _cheater_card(state, held)
            else:
                action = (case.play or random_card)(shadow, shadow.legal_actions(), rng)
            held &= ~(1 << action.card)
            state.apply_action(action)
            if shadow is not None:
                shadow.apply_action(action)
            actions.append(action)
            continue
        legal = (shadow if seat == cheater and shadow is not None else state).legal_actions()
        if state.phase is Phase.BIDDING:
            action = legal[0] if legal == [PetitSec()] else Bid(bids.pop(0))
        elif state.phase is Phase.GO:
            action = Go(case.chelem, case.petit_chelem)
        elif state.phase is Phase.CALL:
            # A card held by another seat, when there is one: the hand then has a partner.
            action = next(
                (
                    a
                    for a in legal
                    if isinstance(a, CallCard) and not state.hands[seat] >> a.card & 1
                ),
                legal[0],
            )
        elif state.phase is not Phase.PLAY:
            action = legal[0]
        else:
            if seat == case.false_misere and not misered:
                misered = True
                actions.append(Misere(MisereKind.TRUMP))
            offers = [a for a in legal if isinstance(a, Poignee)]
            if case.announce and seat not in first_card_done and offers:
                action = offers[-1]
            else:
                action = (case.play or random_card)(state, legal, rng)
                first_card_done.add(seat)
        state.apply_action(action)
        if shadow is not None and shadow is not state:
            shadow.apply_action(action)
        actions.append(action)
    return actions, state


def hand_vector(case: HandCase) -> dict[str, Any]:
    config = case.config
    deal = deal_cards(config, case.dealer, case.deck)
    actions, state = play_hand(case)
    record = HandRecord(config, case.dealer, deal.hands, deal.chien, tuple(actions), deal.piles)
    report = audit_hand(record)
    outcome = report.outcome
    sheet = ScoreSheet(config, [f"P{s}" for s in range(config.seats)], case.dealer)
    if report.void is not None:
        sheet.add_void(LineKind(report.void.value))
    else:
        sheet.add_hand(report.returns)
    out: dict[str, Any] = {
        "name": case.name,
        "note": case.note,
        "config": config.canonical_bytes().decode("ascii"),
        "dealer": case.dealer,
        "deck": list(case.deck),
        "hands": [list(cards_of(h)) for h in deal.hands],
        "chien": list(cards_of(deal.chien)),
    }
    if deal.piles:
        out["piles"] = [[list(p) for p in ps] for ps in deal.piles]
    out["actions"] = [list(a.encode()) for a in actions]
    out["actions_text"] = " | ".join(str(a) for a in actions)
    out["result"] = {
        "void": None if report.void is None else report.void.value,
        "tricks": [
            {"leader": t.leader, "cards": list(t.cards), "winner": t.winner} for t in state.tricks
        ],
        "half_points": None if report.void is not None else list(state.half_points()),
        "offences": [
            {"seat": o.seat, "rule": o.rule, "action_index": o.action_index}
            for o in report.offences
        ],
        "outcome": None if outcome is None else _outcome_dict(outcome),
        "scores": list(report.returns),
        "next_dealer": sheet.dealer,
    }
    return out


def _outcome_dict(outcome: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(outcome):
        value = getattr(outcome, f.name)
        if f.name == "poignees":
            value = [{"side": p.side.name.lower(), "level": p.level} for p in value]
        elif hasattr(value, "name"):
            value = value.name.lower()
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def hand_cases() -> tuple[HandCase, ...]:
    four = TableConfig(players=4)
    three = TableConfig(players=3)
    return (
        HandCase(
            "four_garde",
            "4 players, seat 2 gardes: chien shown, écart, random legal play",
            four,
            0,
            shuffled(101),
            bids=(0, 2, 0, 0),
            announce=True,
            seed=1,
        ),
        HandCase(
            "three_garde_sans",
            "3 players, seat 0 (dealer's right is seat 0 when seat 2 deals) takes garde sans",
            three,
            2,
            shuffled(202),
            bids=(3, 0, 0),
            announce=True,
            seed=2,
        ),
        HandCase(
            "five_called_king",
            "5 players, called king: seat 4 takes a prise and calls a king held by a partner",
            TableConfig(players=5),
            3,
            shuffled(305),
            bids=(1, 0, 0, 0, 0),
            announce=True,
            seed=3,
        ),
        HandCase(
            "five_called_king_alone",
            "5 players, called king: the called king is in the chien, the taker plays alone",
            TableConfig(players=5),
            3,
            shuffled(303),
            bids=(1, 0, 0, 0, 0),
            seed=3,
        ),
        HandCase(
            "five_dead_hand",
            "5 players, dead hand: dealer 1 sits out, seat 3 takes a garde contre",
            TableConfig(players=5, five_player_mode=FivePlayerMode.DEAD_HAND),
            1,
            shuffled(404),
            bids=(0, 4, 0, 0),
            seed=4,
        ),
        HandCase(
            "four_false_misere",
            "misère variant: seat 3 (a defender) announces a misère d'atout holding trumps; "
            "the audit names him and the defence loses the hand (LOSE_HAND)",
            TableConfig(players=4, misere=True),
            1,
            shuffled(505),
            bids=(1, 0, 0, 0),
            false_misere=3,
            seed=5,
        ),
        HandCase(
            "three_chelem",
            "seat 0 holds every trump, the Excuse and two kings: garde contre, chelem "
            "announced, triple poignée, the petit au bout in the penultimate trick, the "
            "Excuse led to the last trick",
            three,
            2,
            stacked(three, 2, {0: "KS KH EX " + " ".join(f"T{n}" for n in range(1, 22))}),
            bids=(4, 0, 0),
            chelem=True,
            announce=True,
            play=chelem_order,
        ),
        HandCase(
            "four_petit_sec",
            "seat 2 holds the petit sec and announces it at its turn to bid: void deal",
            four,
            0,
            stacked(
                four,
                0,
                {2: "T1 " + " ".join(f"{r}S" for r in range(1, 11)) + " 1H 2H 3H 4H 5H 6H 7H"},
            ),
            bids=(0,),
        ),
        HandCase(
            "four_all_pass",
            "everybody passes: void deal (FFT), the next seat deals",
            four,
            3,
            shuffled(606),
            bids=(0, 0, 0, 0),
        ),
        HandCase(
            "four_misere_deal",
            "all-pass misère deal variant: everybody passes, each plays for himself",
            TableConfig(players=4, all_pass=AllPass.MISERE_DEAL),
            2,
            shuffled(707),
            bids=(0, 0, 0, 0),
            seed=7,
        ),
        HandCase(
            "two_players",
            "two-player variant (engine only, not the network protocol): hand and piles",
            TableConfig(players=2),
            0,
            shuffled(808),
            bids=(2, 0),
            seed=8,
        ),
        HandCase(
            "three_chelem_petit_last",
            "chelem closed by the Excuse with the petit in the last trick itself: seat 1 keeps "
            "the petit to the end; the Excuse, led by the taker, wins that trick, so the petit "
            "au bout goes to the attack (the side that wins the last trick)",
            three,
            2,
            stacked(
                three,
                2,
                {
                    0: "EX " + " ".join(f"T{n}" for n in range(13, 22)) + " " + _heads("SH", 8),
                    1: " ".join(f"T{n}" for n in range(1, 11)) + " " + _tails("SH", 7),
                    2: _heads("D", 1) + " " + _tails("C", 10),
                },
            ),
            bids=(4, 0, 0),
            chelem=True,
            play=petit_last_order,
        ),
        HandCase(
            "four_excuse_last_trick",
            "the Excuse played to the last trick outside a chelem by seat 0 (defence); the "
            "defence wins that trick, yet the Excuse goes to the attack, whole (4.5 points), "
            "with no half-point exchange, and no longer counts as the defence's oudler",
            four,
            0,
            shuffled(902),
            bids=(0, 2, 0, 0),
            play=excuse_last,
            seed=2,
        ),
        HandCase(
            "four_excuse_last_trick_to_winner",
            "the same hand under the variant excuse_last_trick = to_trick_winner: the Excuse "
            "stays with the defence, which wins the last trick, again with no exchange",
            TableConfig(players=4, excuse_last_trick=ExcuseLastTrick.TO_TRICK_WINNER),
            0,
            shuffled(902),
            bids=(0, 2, 0, 0),
            play=excuse_last,
            seed=2,
        ),
        HandCase(
            "four_misere_with_excuse",
            "misère variant: seat 3 holds the Excuse and no trump and announces a misère "
            "d'atout: for the announcements the Excuse counts as a trump, so the audit finds "
            "misere-false and the defence loses the hand",
            TableConfig(players=4, misere=True),
            1,
            stacked(
                TableConfig(players=4),
                1,
                {3: "EX " + _tails("S", 10) + " " + _tails("H", 7)},
            ),
            bids=(1, 0, 0, 0),
            false_misere=3,
            seed=9,
        ),
        HandCase(
            "four_poignee_with_excuse",
            "seat 1 holds nine trumps and the Excuse: its simple poignée shows the Excuse in "
            "place of a tenth trump (allowed: no trump of its hand stays unshown)",
            four,
            0,
            stacked(
                four,
                0,
                {1: "EX " + " ".join(f"T{n}" for n in range(2, 11)) + " " + _tails("C", 8)},
            ),
            bids=(0, 2, 0, 0),
            announce=True,
            seed=10,
        ),
        HandCase(
            "four_petit_chelem",
            "petit chelem variant: seat 1 takes a garde sans and announces a petit chelem; "
            "the attack takes 15 of the 18 tricks: 300, not multiplied",
            TableConfig(players=4, petit_chelem=True),
            0,
            stacked(
                TableConfig(players=4, petit_chelem=True),
                0,
                {1: " ".join(f"T{n}" for n in range(8, 22)) + " KS 1S 1H 1D"},
            ),
            bids=(3, 0, 0, 0),
            petit_chelem=True,
            play=strongest,
        ),
        HandCase(
            "four_must_trump_on_trump_lead",
            "seat 3, holding trumps, plays a suit card on a trump lead: the offence is "
            "must-trump (never revoke), found by the audit; the defence loses the hand",
            four,
            1,
            shuffled(111),
            bids=(2, 0, 0, 0),
            cheat_on_trump_lead=3,
            seed=11,
        ),
    )


def _heads(suits: str, lowest: int) -> str:
    """Every card of ``suits`` from the king down to rank ``lowest``."""
    ranks = ["K", "Q", "C", "J", *(str(r) for r in range(10, lowest - 1, -1))]
    return " ".join(f"{r}{s}" for s in suits for r in ranks)


def _tails(suits: str, highest: int) -> str:
    """Every card of ``suits`` from rank 1 up to rank ``highest`` (at most 10)."""
    return " ".join(f"{r}{s}" for s in suits for r in range(1, highest + 1))


def hands_vector() -> dict[str, Any]:
    return {"hands": [hand_vector(case) for case in hand_cases()]}


def build() -> dict[str, dict[str, Any]]:
    return {
        "game_cards.json": cards_vector(),
        "game_config.json": config_vector(),
        "game_deal.json": deal_vector(),
        "game_actions.json": actions_vector(),
        "game_hands.json": hands_vector(),
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    VECTOR_DIR.mkdir(parents=True, exist_ok=True)
    for name, data in build().items():
        (VECTOR_DIR / name).write_text(render(data), encoding="utf-8")
        print(f"wrote {VECTOR_DIR / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
