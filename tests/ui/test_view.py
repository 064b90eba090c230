"""The score panel the page and the terminal show after a deal."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio
import trio.testing

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.protocol.peer import Peer, PeerEvent, read_setup
from tarot_p2p.protocol.table import HandEnded, Phase
from tarot_p2p.protocol.transcript import read_frames
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.audit import AuditReport
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.scoring import Contract, HandOutcome, Poignee, Side, score_hand
from tarot_p2p.rules.sheet import LineKind, ScoreSheet
from tarot_p2p.rules.state import Phase as Step
from tarot_p2p.seat.runner import Decision
from tarot_p2p.ui.i18n import Words
from tarot_p2p.ui.policy import BrowserPolicy
from tarot_p2p.ui.view import Story, action_label, build_view, lobby_view, sheet_view
from tests.protocol.table_vectors import VECTOR_DIR
from tests.seat.test_runner import play_local

CONFIG = TableConfig(players=4)
NAMES = ("Emma", "Nico", "Pat", "Lea")


def panel(lang: str, outcome: HandOutcome | None, void: LineKind | None = None) -> dict:
    story = Story(Words(lang))
    scores = score_hand(CONFIG, outcome) if outcome else (0, 0, 0, 0)
    report = AuditReport((), None, outcome, scores, True)
    story._audit = (3, report, None)  # type: ignore[assignment]
    peer = SimpleNamespace(names=NAMES, config=CONFIG)
    result = story._result(peer, HandEnded(3, void, scores))  # type: ignore[arg-type]
    assert result is not None
    return result


def rows(result: dict) -> dict[str, str]:
    return {r["label"]: r["value"] for r in result["rows"]}


def test_a_garde_made_with_the_petit_au_bout() -> None:
    # The README's example: Nico, garde, two oudlers, 47 points, petit au bout.
    outcome = HandOutcome(Contract.GARDE, 1, None, 94, 2, petit_au_bout=Side.ATTACK)
    result = panel("fr", outcome)
    assert result["title"] == "Nico — Garde — réussi de 6"
    got = rows(result)
    assert got["Bouts"] == "2" and got["Points faits"] == "47" and got["Points demandés"] == "41"
    assert got["Base (25 + écart) × contrat"] == "+62"
    assert got["Petit au bout"] == "attaque +20"
    assert got["Marque de la donne"] == "+82"
    assert [p["score"] for p in result["players"]] == [-82, 246, -82, -82]


def test_a_failed_prise_with_a_poignee_in_english() -> None:
    outcome = HandOutcome(Contract.PRISE, 0, None, 81, 1, poignees=(Poignee(Side.DEFENCE, 1),))
    result = panel("en", outcome)
    assert result["title"] == "Emma — Prise — failed by 11" and result["made"] is False
    got = rows(result)
    assert got["Points made"] == "40.5" and got["Points needed"] == "51"
    assert got["Poignées"] == "-20" and got["Petit au bout"] == "0"


def test_void_deals_say_why() -> None:
    assert panel("fr", None, LineKind.ALL_PASS)["title"] == "Donne annulée (tout le monde a passé)"
    assert panel("en", None, LineKind.PETIT_SEC)["title"] == "Deal void (petit sec)"


async def test_the_lobby_shows_what_the_others_type() -> None:
    policy = BrowserPolicy("fr")
    assert json.loads(policy.current()[1])["view"] is None  # nothing published yet
    policy.invite("tarot-p2p join tp2p1-abc")
    view = json.loads(policy.current()[1])["view"]
    assert view["lobby"] and view["join_command"] == "tarot-p2p join tp2p1-abc"
    assert view["join_help"] == "Pour s'asseoir à cette table, les autres joueurs tapent :"
    assert lobby_view(Words("en"), None)["join_help"] is None  # a relay's table: no command


async def test_the_hosts_lobby_lists_who_sits_and_follows_who_leaves() -> None:
    policy = BrowserPolicy("en")
    policy.invite("tarot-p2p join tp2p1-abc")
    policy.seated(["Emma", "Nico"], 2)
    view = json.loads(policy.current()[1])["view"]
    assert view["seated"] == "At the table: Emma, Nico"
    assert view["status"] == "Waiting for 2 more players…"
    policy.seated(["Emma"], 3)  # Nico left before the table started
    view = json.loads(policy.current()[1])["view"]
    assert view["seated"] == "At the table: Emma" and "Nico" not in json.dumps(view)
    assert view["status"] == "Waiting for 3 more players…"
    policy.seated(["Emma", "Pat", "Lea"], 1)
    assert json.loads(policy.current()[1])["view"]["status"] == "Waiting for 1 more player…"
    french = lobby_view(Words("fr"), None, ["Emma"], 1)
    assert french["seated"] == "À la table : Emma" and french["join_help"] is None
    assert french["status"] == "En attente d'un joueur de plus…"


class Watching(BotPolicy):
    """A bot that notes the status the page would show it after every message."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.statuses: list[tuple[Phase, str]] = []

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        view = build_view(peer, Story(Words("en")), None)
        self.statuses.append((peer.hand.phase, str(view["status"])))


async def test_the_status_says_what_the_awaited_seat_is_to_do(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    watching = Watching(0)
    await play_local(3, [watching, BotPolicy(1), BotPolicy(2)], tmp_path, "status")
    during = {phase: {s for p, s in watching.statuses if p is phase} for phase in Phase}
    assert during[Phase.BIDDING] and all(s.endswith(" to bid.") for s in during[Phase.BIDDING])
    assert not any(s.endswith(" to play.") for s in during[Phase.BIDDING])


class PageBot(BrowserPolicy):
    """A seat whose page is a bot's: the view and the notices a player's page gets."""

    def __init__(self, seed: int, lang: str = "en") -> None:
        super().__init__(lang)
        self.bot = BotPolicy(seed)
        self.notices: list[Any] = []

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        return await self.bot.decide(peer, refused)

    async def notice(self, peer: Peer, notice: Any) -> None:
        self.notices.append(notice)
        await super().notice(peer, notice)


class Away(BrowserPolicy):
    """A player whose page is closed (or open, and nobody at it): asked, never answers;
    keeps every view published while the question was live."""

    def __init__(self, lang: str = "en") -> None:
        super().__init__(lang)
        self.views: list[dict[str, Any]] = []

    def publish(self) -> None:
        super().publish()
        self.views.append(json.loads(self.current()[1])["view"])


def view_of(policy: BrowserPolicy) -> dict[str, Any]:
    view: dict[str, Any] = json.loads(policy.current()[1])["view"]
    return view


async def test_the_absent_player_is_told_his_hand_was_played_by_the_stand_in_and_why(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """His own page counts down with the others', loses its buttons when the others' abandon
    comes (never a live prompt for a deal gone on), and its score panel says that the
    stand-in, a bot, played his hand, why, and that it is scored as played. The others'
    pages say the same of him."""
    away = Away()
    other = PageBot(1, "fr")
    await play_local(3, [away, other, BotPolicy(2)], tmp_path, "away")
    asked = [v for v in away.views if v.get("decision")]
    assert asked, "he was asked to bid"
    counted = [v["notice"] for v in away.views if v.get("notice") and v["notice"]["kind"] == "turn"]
    assert counted[0]["text"] == "You have 4:55 to bid"
    assert counted[0]["template"] == "You have {time} to bid" and counted[0]["left"] == 295
    assert any(n["text"].startswith("Your time is up") for n in counted)
    final = view_of(away)
    assert final["decision"] is None and final["over"]
    assert any("The stand-in (a bot) plays your hand" in v["log"] for v in away.views)
    result = final["result"]
    assert result["stand_in_title"] == "You were away: the stand-in played your hand"
    assert result["stand_in"] == (
        "The others received nothing from you for 5 min when it was your turn to bid: the "
        "stand-in, a bot every program computes the same way, played your hand. The deal is "
        "scored as played."
    )
    assert result["title"]  # the deal's own panel is there too (contract or void)
    name = final["names"][final["me"]]
    seen = view_of(other)["result"]
    assert seen["stand_in"].startswith(f"{name} n'a rien envoyé pendant 5 min quand c'était à")
    assert seen["stand_in_title"] == f"{name} est resté silencieux : le remplaçant a joué sa main"


@pytest.mark.parametrize(
    ("vector", "what"),
    [
        ("table_abandon_4", "bid"),
        ("table_abandon_after_bid_4", "bid"),
        ("table_stand_in_4", "play"),
    ],
)
@pytest.mark.parametrize("restarted_after", [None, 1, -1])
def test_what_the_absent_seat_was_awaited_for_comes_from_the_transcript(
    vector: str, what: str, restarted_after: int | None
) -> None:
    """The score panel says what the silent seat was awaited for ("to bid") from the
    transcript alone: the same whether the page followed the hand throughout (``None``),
    or its program was started again with an empty story one record after the abandon, or
    just before the record that ends the hand — never "to speak", and no live notice."""
    data = (VECTOR_DIR / f"{vector}.tp2p").read_bytes()
    meta = json.loads((VECTOR_DIR / f"{vector}.json").read_text())
    frames = read_frames(data)
    config, roster, names = read_setup(frames.records[0], frames.table_id)
    peer = Peer(config, frames.table_id, roster, names)
    records = frames.records
    start = 0
    if restarted_after == 1:
        start = meta["abandon"]["record"] + 1  # numbered from 1: the record after it
    elif restarted_after == -1:
        start = len(records) - 1
    for wire in records[:start]:
        peer.receive(wire)
    story = Story(Words("en"))
    for wire in records[start:]:
        story.record(peer, peer.receive(wire))
    assert story.notice is None
    result = story.result
    assert result is not None and result["hand"] == 1
    name = peer.names[meta["abandon"]["absent_seat"]]
    assert result["stand_in_title"].startswith(name)
    assert result["stand_in"].startswith(f"{name} sent nothing for ")
    assert f" when it was their turn to {what}: the stand-in" in result["stand_in"]


def ended(lang: str, *totals: int) -> str:
    sheet = ScoreSheet(TableConfig(players=4, game_end=GameEnd.DEALS, game_length=1), NAMES)
    if any(totals):
        sheet.add_hand(totals)
    else:
        sheet.add_void(LineKind.ALL_PASS)
    view = sheet_view(Words(lang), sheet)
    assert view is not None
    return str(view["over"])


def test_the_end_says_who_won_who_shared_it_or_that_nobody_won() -> None:
    assert ended("en", 0, 0, 0, 0) == "Game over, level: nobody wins."  # one deal, all passed
    assert ended("fr", 0, 0, 0, 0) == "Partie terminée à égalité : personne ne gagne."
    assert ended("en", 30, 30, -30, -30) == "Game over. Emma and Nico share the win."
    assert ended("en", 20, 20, 20, -60) == "Game over. Emma, Nico and Pat share the win."
    assert (
        ended("fr", 30, 30, -30, -30) == "Partie terminée. Emma et Nico se partagent la victoire."
    )
    assert ended("en", -30, 90, -30, -30) == "Game over. Winner: Nico."


class Garde(BotPolicy):
    """A bot that bids a garde when it may (else passes) and notes, after every message, the
    centre of the table as its page would show it."""

    def __init__(self, seed: int, bid: bool) -> None:
        super().__init__(seed)
        self.bid = bid
        self.centres: list[tuple[bool, bool, dict[str, Any]]] = []

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        if peer.hand.phase is Phase.BIDDING:
            garde = a.Bid(Contract.GARDE)
            return garde if self.bid and garde in peer.legal_actions() else a.Bid(0)
        return await super().decide(peer, refused)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        state = peer.private_state()
        if state is None or state.taker is None or state.tricks:  # the centre until a trick
            return
        view = build_view(peer, Story(Words("en")), None)
        made = state.phase > Step.DISCARD
        self.centres.append((made, state.taker == peer.seat, view))


async def test_after_the_ecart_the_taker_sees_his_ecart_and_no_longer_the_chien(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    seats = [Garde(i, i == 0) for i in range(4)]
    await play_local(4, list(seats), tmp_path, "chien")
    taker = next(s for s in seats if any(mine for _, mine, _ in s.centres))
    other = seats[1] if taker is seats[0] else seats[0]
    before = [v for made, _, v in taker.centres if not made and v["chien"]]
    after = [v for made, _, v in taker.centres if made]
    assert before and after, "the deal was played with a chien and an écart"
    assert all(len(v["chien"]) == 6 and v["chien_caption"] == "Chien" for v in before)
    for view in after:
        assert view["chien"] is None  # its cards are in his hand or put aside
        assert len(view["ecart_mine"]) == 6 and not set(view["ecart_mine"]) & set(view["hand"])
    name = after[0]["names"][after[0]["me"]]
    seen = [v for made, _, v in other.centres if made]
    assert seen and all(v["ecart_mine"] == [] for _, _, v in other.centres)
    assert all(v["chien"] == before[0]["chien"] for v in seen)  # theirs to read until a card
    assert seen[-1]["chien_caption"] == f"Chien, taken by {name}"


def test_the_chelem_question_is_answered_no_play() -> None:
    """The question is whether to announce a chelem: a bare "Play" did not answer it."""
    peer: Any = None  # an announcement's label needs no table
    assert action_label(Words("en"), peer, a.Go(False)) == "No, play"
    assert action_label(Words("fr"), peer, a.Go(False)) == "Non, jouer"
    assert action_label(Words("en"), peer, a.Go(True)) == "Announce a chelem"
