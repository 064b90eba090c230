"""The game vectors are recomputed byte for byte, and their normative parts are checked
with code written from ``protocol/game.md``, not from the rules engine."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import msgpack
import pytest

from tarot_p2p.rules.actions import decode
from tarot_p2p.rules.audit import HandRecord, audit_hand
from tarot_p2p.rules.cards import mask_of
from tarot_p2p.rules.config import TableConfig
from tests.protocol.game_vectors import VECTOR_DIR, build, render


def test_vectors_are_reproduced_exactly() -> None:
    """Every vector file, recomputed inside the test (not when the module is imported): it
    compares the code as it is when the test runs, which a mutation run changes after the
    import (docs/mutation.md)."""
    built = build()
    assert sorted(built) == sorted(p.name for p in VECTOR_DIR.glob("game_*.json"))
    stale = [n for n in sorted(built) if (VECTOR_DIR / n).read_text("utf-8") != render(built[n])]
    assert stale == []


def load(name: str) -> Any:
    return json.loads((VECTOR_DIR / name).read_text(encoding="utf-8"))


# ---------------------------------------------------------------- game.md §1: cards


def spec_card(c: int) -> tuple[str, int]:
    """Name and half-points of card ``c`` as game.md §1 defines them."""
    if c == 77:
        return "EX", 9
    if c >= 56:
        return f"T{c - 55}", 9 if c in (56, 76) else 1
    suit, rank = divmod(c, 14)
    rank += 1
    names = {1: "1", 11: "J", 12: "C", 13: "Q", 14: "K"}
    points = {11: 3, 12: 5, 13: 7, 14: 9}
    return names.get(rank, str(rank)) + "SHDC"[suit], points.get(rank, 1)


def test_cards_from_the_spec() -> None:
    cards = load("game_cards.json")["cards"]
    assert [c["card"] for c in cards] == list(range(78))
    for c in cards:
        assert (c["name"], c["half_points"]) == spec_card(c["card"])
    assert sum(c["half_points"] for c in cards) == 182


# ---------------------------------------------------------------- game.md §2: configuration

DEFAULT_FIELDS = (
    ("players", "4"),
    ("five_player_mode", "called_king"),
    ("poignee_values", "20,30,40"),
    ("poignee_beneficiary", "winner"),
    ("petit_au_bout", "multiplied"),
    ("chelem_values", "400,200,-200"),
    ("excuse_last_trick", "changes_sides"),
    ("misere", "0"),
    ("all_pass", "redeal"),
    ("petit_chelem", "0"),
    ("penalty", "lose_hand"),
    ("game_end", "rounds"),
    ("game_length", "1"),
    ("forfeit_after", "300"),
    ("abandon", "end"),
)


def test_default_config_from_the_spec() -> None:
    text = "tarot-p2p/table-config/v2" + "".join(f"\n{k}={v}" for k, v in DEFAULT_FIELDS)
    case = load("game_config.json")["default"]
    assert case["text"] == text
    assert bytes.fromhex(case["bytes"]) == text.encode("ascii")
    assert case["digest"] == hashlib.sha256(text.encode("ascii")).hexdigest()
    assert TableConfig.from_canonical_bytes(text.encode("ascii")) == TableConfig()


def test_non_default_config_parses_and_re_encodes() -> None:
    case = load("game_config.json")["non_default"]
    data = bytes.fromhex(case["bytes"])
    assert data.decode("ascii") == case["text"]
    assert hashlib.sha256(data).hexdigest() == case["digest"]
    assert TableConfig.from_canonical_bytes(data).canonical_bytes() == data
    names = [line.partition("=")[0] for line in case["text"].split("\n")[1:]]
    assert names == [k for k, _ in DEFAULT_FIELDS]


NUMBERS = {13: "thirteen", 14: "fourteen", 15: "fifteen", 16: "sixteen", 17: "seventeen"}


def test_the_spec_lists_the_fields_it_counts() -> None:
    """game.md §2.1's table names the fields in the vector's order, with the defaults the
    vector encodes, and the sentence above it counts them (it once said thirteen of
    fifteen)."""
    text = (VECTOR_DIR.parent / "game.md").read_text(encoding="utf-8")
    section = text.split("### 2.1 Encoding", 1)[1].split("### 2.2", 1)[0]
    rows = [line.split("|") for line in section.splitlines() if line.startswith("| ")]
    numbered = [(cells[1].strip(), cells[2].strip().strip("`")) for cells in rows[1:]]
    assert numbered == [(str(i), k) for i, (k, _) in enumerate(DEFAULT_FIELDS, 1)]
    count = NUMBERS[len(DEFAULT_FIELDS)]
    assert f"for each of the {count} fields below" in " ".join(section.split())


@pytest.mark.parametrize(
    "change",
    [
        ("game_length=1", "game_length=01"),
        ("misere=0", "misere=false"),
        ("players=4", "players=6"),
        ("chelem_values=400,200,-200", "chelem_values=400, 200,-200"),
        ("\ngame_length=1", "\ngame_length=1\n"),
    ],
)
def test_non_canonical_configs_are_refused(change: tuple[str, str]) -> None:
    data = TableConfig().canonical_bytes().decode("ascii").replace(*change)
    with pytest.raises(ValueError):
        TableConfig.from_canonical_bytes(data.encode("ascii"))


# ---------------------------------------------------------------- game.md §3: the deal


def spec_pattern(players: int, dead_hand: bool, dealer: int) -> list[int]:
    """The deal pattern as game.md §3 states it."""
    active = [(dealer + 1 + i) % players for i in range(players)]
    if dead_hand:
        active = active[:-1]
    chien = 3 if len(active) == 5 else 6
    packets = (78 - chien) // 3
    out: list[int] = []
    for p in range(1, packets + 1):
        out += [active[(p - 1) % len(active)]] * 3
        out += [-1] * sum(1 for i in range(chien) if (i + 1) * packets // (chien + 1) == p)
    return out


def test_deal_patterns_from_the_spec() -> None:
    vector = load("game_deal.json")
    assert vector["chien"] == -1
    for label, mode in vector["modes"].items():
        players = mode["players"]
        assert [c["dealer"] for c in mode["by_dealer"]] == list(range(players))
        for case in mode["by_dealer"]:
            want = spec_pattern(players, label == "5_dead_hand", case["dealer"])
            assert case["pattern"] == want
            if players == 2:
                own: dict[int, int] = {}
                piles = []
                for p in range(0, 78, 3):
                    if case["pattern"][p] < 0:
                        continue
                    seat = case["pattern"][p]
                    k = own.get(seat, 0)
                    own[seat] = k + 1
                    piles.append([[k // 2, d] for d in range(3)] if k % 2 else [None] * 3)
                got = [x for p, x in zip(case["pattern"], case["piles"], strict=True) if p >= 0]
                assert got == [x for packet in piles for x in packet]


# ---------------------------------------------------------------- game.md §4: actions


def test_action_encodings() -> None:
    for case in load("game_actions.json")["actions"]:
        encoding = case["encoding"]
        assert str(decode(encoding)) == case["action"]
        assert list(decode(encoding).encode()) == encoding
        assert bytes.fromhex(case["msgpack"]) == msgpack.packb(encoding)
        hidden_discard = encoding[0] == 3 and not 57 <= encoding[1] <= 75
        assert case["public"] == ([3, 78] if hidden_discard else encoding)


# ---------------------------------------------------------------- game.md §7: full hands


def trick_winner(cards: list[int]) -> int:
    """Index of the winning card (game.md §6: the Excuse never wins)."""
    led = next(c for c in cards if c != 77)
    suit = "T" if led >= 56 else led // 14

    def key(c: int) -> tuple[int, int]:
        if 56 <= c < 77:
            return (2, c)
        return (1, c) if c != 77 and c // 14 == suit else (0, 0)

    return max(range(len(cards)), key=lambda i: key(cards[i]))


@pytest.mark.parametrize("case", load("game_hands.json")["hands"], ids=lambda c: c["name"])
def test_hands_replay(case: dict[str, Any]) -> None:
    config = TableConfig.from_canonical_bytes(case["config"].encode("ascii"))
    pattern = spec_pattern(config.players, config.active_players < config.players, case["dealer"])
    dealt: list[list[int]] = [[] for _ in range(config.players)]
    for card, dest in zip(case["deck"], pattern, strict=True):
        if dest >= 0:
            dealt[dest].append(card)
    chien = [c for c, d in zip(case["deck"], pattern, strict=True) if d < 0]
    assert sorted(chien) == case["chien"]
    piles = case.get("piles", [])
    for seat, hand in enumerate(case["hands"]):
        in_piles = {c for pile in piles[seat] for c in pile} if piles else set()
        assert sorted(set(dealt[seat]) - in_piles) == hand
    result = case["result"]
    assert sum(result["scores"]) == 0
    if result["half_points"] is not None:
        misere_deal = result["outcome"] is None
        set_aside = sum(spec_card(c)[1] for c in case["chien"]) if misere_deal else 0
        assert sum(result["half_points"]) == 182 - set_aside
    outcome = result["outcome"]
    attack = {outcome["taker"], outcome["partner"]} if outcome else set()
    tricks = result["tricks"]
    for number, trick in enumerate(tricks, 1):
        n = len(trick["cards"])
        seat = trick["leader"]
        seats: list[int] = []
        while len(seats) < n:
            if seat != case["dealer"] or config.active_players == config.players:
                seats.append(seat)
            seat = (seat + 1) % config.players
        winner = seats[trick_winner(trick["cards"])]
        # docs/rules.md §5: the Excuse led to the last trick by a side that took every other
        # trick wins it (sides only where there is a taker).
        side = trick["leader"] in attack
        if (
            outcome
            and number == len(tricks)
            and trick["cards"][0] == 77
            and all((t["winner"] in attack) == side for t in tricks[:-1])
        ):
            winner = trick["leader"]
        assert trick["winner"] == winner
    if piles:
        check_pile_play(case)
    record = HandRecord(
        config,
        case["dealer"],
        tuple(mask_of(h) for h in case["hands"]),
        mask_of(case["chien"]),
        tuple(decode(a) for a in case["actions"]),
        tuple(tuple(tuple(p) for p in ps) for ps in piles),
    )
    report = audit_hand(record)
    assert list(report.returns) == result["scores"]
    assert [[o.seat, o.rule, o.action_index] for o in report.offences] == [
        [o["seat"], o["rule"], o["action_index"]] for o in result["offences"]
    ]
    assert result["next_dealer"] == (case["dealer"] + 1) % config.players


def check_pile_play(case: dict[str, Any]) -> None:
    """game.md §3.3 and docs/rules.md: a two-player seat plays from its hand or the top of
    one of its piles (each listed bottom first); every card of the piles is played."""
    hands = [set(h) for h in case["hands"]]
    piles = [[list(p) for p in ps] for ps in case["piles"]]
    plays = [a[1] for a in case["actions"] if a[0] == 7]
    chien = set(case["chien"])
    discards = {a[1] for a in case["actions"] if a[0] == 3}
    taker_hand = next(s for s, h in enumerate(hands) if discards <= h | chien)
    hands[taker_hand] = (hands[taker_hand] | chien) - discards
    for card in plays:
        tops = [{p[-1] for p in piles[s] if p} for s in range(2)]
        seat = next(s for s in range(2) if card in hands[s] | tops[s])
        if card in hands[seat]:
            hands[seat].remove(card)
        else:
            next(p for p in piles[seat] if p and p[-1] == card).pop()
    assert hands == [set(), set()] and piles == [[[]] * 6, [[]] * 6]
