"""The score panel the page and the terminal show after a deal."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import trio
import trio.testing

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.protocol.peer import Peer, PeerEvent
from tarot_p2p.protocol.table import HandEnded, Phase
from tarot_p2p.rules.audit import AuditReport
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.scoring import Contract, HandOutcome, Poignee, Side, score_hand
from tarot_p2p.rules.sheet import LineKind
from tarot_p2p.ui.i18n import Words
from tarot_p2p.ui.policy import BrowserPolicy
from tarot_p2p.ui.view import Story, build_view, lobby_view
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
    assert got["Poignées"] == "-20" and got["Petit au bout"] == "nobody 0"


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
