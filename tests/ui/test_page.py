"""The table page in a real browser: a whole hand clicked, a garde with its écart (undo
included), the partner told at once at five players."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.protocol.peer import Peer, PeerEvent
from tarot_p2p.protocol.table import Phase
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import KING_MASK, cards_of
from tarot_p2p.seat.runner import Decision, Policy
from tarot_p2p.ui.policy import BrowserPolicy

from .conftest import Table, enter

STEP_MS = 120_000
"""How long a step may wait for the bots (generous: CI shares two cores)."""

NEXT = """(last) => {
  if (!document.querySelector('#over[hidden]')) return 'over';
  const d = document.body.dataset.decision;
  return d && d !== last ? d : null;
}"""


def next_decision(table: Table, last: str) -> str:
    """The serial of the next question put to the player, or ``over``."""
    handle = table.page.wait_for_function(NEXT, arg=last, timeout=STEP_MS)
    return str(handle.json_value())


def last_view(table: Table, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The latest game view the page received that is ``wanted`` (waiting a little for it:
    the page may draw a view before this side has read the frame). Lobby views, sent while
    the table fills up, have none of a game view's fields."""
    for _ in range(100):
        found = [v for v in table.views if not v.get("lobby") and wanted(v)]
        if found:
            return found[-1]
        table.page.wait_for_timeout(50)
    raise AssertionError("the page was sent no such view")


def click_option(table: Table, prefer: Sequence[str] = ()) -> None:
    buttons = table.page.locator("#prompt button.option[data-option]")
    labels = [t.strip() for t in buttons.all_inner_texts()]
    for wanted in prefer:
        if wanted in labels:
            buttons.nth(labels.index(wanted)).click()
            return
    buttons.first.click()


def click_card(locator: Any) -> None:
    """Click a card of the hand where a player would: its visible corner (the next card
    overlaps the rest)."""
    locator.click(position={"x": 8, "y": 40})


def make_ecart(table: Table) -> None:
    """Choose the first cards that may go into the écart until every slot is filled, then
    confirm once the program has taken them all in. A choice shows among the chosen cards
    at once, but the confirm button waits for the program's view: a loop on that button
    chose a seventh card, of which there was none, once the sixth showed."""
    page = table.page
    need = page.locator(".ecart-chosen > *").count()  # a slot or a card chosen, each
    while (before := page.locator(".ecart-chosen .card").count()) < need:
        click_card(page.locator("#hand .card.legal").first)
        page.wait_for_function(
            "(n) => document.querySelectorAll('.ecart-chosen .card').length > n", arg=before
        )
    page.wait_for_selector("#ecart-done:not([disabled])", timeout=STEP_MS)
    page.click("#ecart-done")


def play_out(table: Table, bids: Sequence[str] = ()) -> None:
    """Answer every question until the game is over: ``bids`` preferred when bidding,
    the first legal card otherwise."""
    serial = ""
    while (serial := next_decision(table, serial)) != "over":
        table.page.wait_for_function(
            "(s) => document.body.dataset.decision === s", arg=serial, timeout=STEP_MS
        )
        if table.page.locator("#ecart-done").count():
            make_ecart(table)
        elif table.page.locator("#prompt:not([hidden]) button.option[data-option]").count():
            click_option(table, bids)
        else:
            click_card(table.page.locator("#hand .card.legal").first)


def check_no_secret(table: Table) -> None:
    """Every card the page was ever shown in a hand was the player's own (dealt, or the
    chien he took), and every card offered was in that hand."""
    peer = table.game.peer
    assert peer is not None and peer.dealt is not None
    state = peer.private_state()
    assert state is not None
    own = peer.dealt | (state.chien if state.taker == peer.seat else 0)
    for view in table.views:
        if view.get("lobby"):  # sent while the table fills up: no cards at all
            continue
        hand = set(view["hand"])
        assert hand <= set(cards_of(own)), "the page was sent a card that is not the player's"
        decision = view["decision"]
        if decision and decision["kind"] in ("play", "ecart"):
            assert {int(c) for c in decision["cards"]} <= hand


def test_a_whole_hand_by_clicking(table: Callable[..., Table]) -> None:
    t = table(4)
    t.page.click("#langs button:text('EN')")  # the page's language can be switched
    t.page.wait_for_selector("#title:text('Peer-to-peer Tarot')")
    t.page.click("#langs button:text('FR')")
    t.page.wait_for_selector("#title:text('Tarot entre pairs')")
    play_out(t, bids=("Garde contre", "Garde sans", "Garde", "Prise"))
    page = t.page
    assert t.game.outcome is not None and t.game.outcome.finished
    final = last_view(t, lambda v: bool(v["over"]))
    assert final["over"] and len(final["sheet"]["lines"]) == 1
    if final["result"]["rows"]:  # a played deal (not everybody passing)
        assert page.locator("#tricks li").count() == 18
        assert "Bouts" in page.locator("#over").inner_text()
        # Every hand is empty: no "0" left under the names, where it reads as a score.
        assert page.locator(".seat .count").all_inner_texts() == []
    assert "Partie terminée" in page.locator("#over-text").inner_text()
    check_no_secret(t)
    # The transcript offered for download is this seat's, as saved and audited.
    download = page.request.get(page.url + "transcript.tp2p")
    assert download.ok and download.body() == t.game.outcome.files.transcript.read_bytes()
    other = page.context.browser.new_page()  # the table open in a second window too
    enter(other, t.game.url)
    other.wait_for_selector("#over:not([hidden])")
    page.click("#leave")  # the page says the player left, not that it lost its program
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('Vous avez quitté')"
    )
    # The program ends: the other tab says the game is over, not to run it again.
    other.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('La partie est finie')"
    )
    assert "relancez" not in other.locator("#status").inner_text()
    other.close()


@dataclass(frozen=True)
class Status:
    """A notice as the runner gives one (only its attributes matter)."""

    kind: str
    seat: int | None
    name: str | None
    seconds: float


class PassingBot:
    """A bot that passes every bid (so the player's bid stands), otherwise a bot."""

    def __init__(self, seed: str) -> None:
        self.inner = BotPolicy(seed)

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        if peer.hand.phase is Phase.BIDDING:
            legal = peer.legal_actions()
            return a.Bid(0) if a.Bid(0) in legal else legal[0]
        return await self.inner.decide(peer, refused)

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        return None


def test_garde_with_ecart_and_undo(table: Callable[..., Table]) -> None:
    t = table(4, lambda i, _: PassingBot(f"ecart/{i}"))
    page = t.page
    next_decision(t, "")
    if "Garde" not in page.locator("#prompt").inner_text():
        pytest.skip("the deal gave the player a petit sec (about 1 deal in 200)")
    click_option(t, ("Garde",))
    page.wait_for_selector("#ecart-done", timeout=STEP_MS)
    assert "Ni roi ni bout" in page.locator("#prompt").inner_text()
    assert page.locator("#centre .chien .card").count() == 6  # the chien shown
    assert page.locator("#hand .card").count() == 24
    ecart = last_view(t, lambda v: bool(v["decision"]) and v["decision"]["kind"] == "ecart")
    kings = [c for c in ecart["hand"] if (KING_MASK >> c) & 1]
    for king in kings:  # a king cannot be put aside: not clickable
        assert "illegal" in (
            page.locator(f"#hand .card[data-card='{king}']").get_attribute("class") or ""
        )
    first = page.locator("#hand .card.legal").first
    card = first.get_attribute("data-card")
    click_card(first)
    page.wait_for_selector(f".ecart-chosen .card[data-card='{card}']")
    assert page.locator(f"#hand .card[data-card='{card}']").count() == 0
    page.click("#ecart-undo")
    page.wait_for_selector(f"#hand .card[data-card='{card}']")
    assert page.locator(".ecart-chosen .card").count() == 0
    make_ecart(t)
    page.wait_for_selector("#ecart-done", state="detached", timeout=STEP_MS)
    page.wait_for_selector("#prompt button[data-option]", timeout=STEP_MS)  # the lead
    # The chelem question: its plain answer says what it does.
    assert "Non, jouer" in page.locator("#prompt button.option").all_inner_texts()
    assert page.locator("#hand .card").count() == 18
    chosen = [
        v["decision"]["chosen"] for v in t.views if v["decision"] and "chosen" in v["decision"]
    ]
    lead = last_view(t, lambda v: bool(v["decision"]) and v["decision"]["kind"] == "go")
    assert len(chosen[-1]) == 6 and not set(chosen[-1]) & set(lead["hand"])
    # The chien is gone from the centre: the taker sees his écart there instead.
    page.wait_for_selector("#centre .ecart-mine")
    assert page.locator("#centre .chien").count() == 1
    assert "Votre écart" in page.locator("#centre .ecart-mine").inner_text()
    centre = page.locator("#centre .card")
    shown = {centre.nth(i).get_attribute("data-card") for i in range(centre.count())}
    assert shown == {str(c) for c in chosen[-1]}
    peer = t.game.policy.peer
    assert peer is not None and peer.hand.phase is Phase.PLAY  # the table took it
    assert "Garde" in page.locator("#contract").inner_text()
    # The runner's status notices reach the page in plain words.
    nxt = ((peer.seat or 0) + 1) % len(peer.names)
    west = peer.names[nxt]
    t.game.call(t.game.policy.notice, peer, Status("back", nxt, west, 0.0))
    t.game.call(t.game.policy.notice, peer, Status("waiting", nxt, west, 42.5))
    page.wait_for_selector("#notice:not([hidden])")
    assert page.locator("#notice").inner_text() == f"En attente de {west} (reconnexion, 0:42)"
    # ... and covers no seat's name.
    notice = page.locator("#notice").bounding_box()
    for seat in page.locator(".seat").all():
        box = seat.bounding_box()
        apart = (
            notice["x"] + notice["width"] <= box["x"] or box["x"] + box["width"] <= notice["x"]
            or notice["y"] + notice["height"] <= box["y"]
            or box["y"] + box["height"] <= notice["y"]
        )  # fmt: skip
        assert apart, (notice, box, seat.inner_text())


class CallsThePlayer(PassingBot):
    """At five: the first bot takes and calls a king the page's player holds (when he
    holds one), so the player is the partner; the other bots pass."""

    def __init__(self, seed: str, taker: bool, player: BrowserPolicy) -> None:
        super().__init__(seed)
        self.taker = taker
        self.player = player

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        legal = peer.legal_actions()
        if peer.hand.phase is Phase.BIDDING and self.taker and a.Bid(1) in legal:
            return a.Bid(1)
        if peer.hand.phase is Phase.CALL:
            human = self.player.peer
            held = human.my_cards() if human is not None else 0
            for act in legal:
                if isinstance(act, a.CallCard) and (held >> act.card) & 1:
                    return act
        return await super().decide(peer, refused)


def test_partner_told_at_once_at_five(table: Callable[..., Table]) -> None:
    def bot(i: int, player: BrowserPolicy) -> Policy:
        return CallsThePlayer(f"five/{i}", i == 0, player)

    t = table(5, bot)
    page = t.page
    serial = next_decision(t, "")
    if "Passe" not in page.locator("#prompt").inner_text():
        pytest.skip("the deal gave the player a petit sec (about 1 deal in 200)")
    click_option(t, ("Passe",))  # the bot on seat "Alice" takes a prise
    called = page.wait_for_function(
        "() => document.querySelector('#contract .partner-text') ? 'called'"
        " : document.querySelector('#over[hidden]') ? null : 'over'",
        timeout=STEP_MS,
    )
    if called.json_value() == "over":
        pytest.skip("the deal gave the bot that takes a petit sec (about 1 deal in 200)")
    view = last_view(t, lambda v: bool(v.get("contract") and v["contract"]["called"] is not None))
    contract = view["contract"]
    held = set(view["hand"])
    text = page.locator("#contract").inner_text()
    if contract["called"] in held:  # told privately, before any card is played
        assert "Vous êtes le partenaire" in text
        assert contract["partner"] == view["me"] and not view["tricks"]
        return
    if "Alice joue seul" in text:
        # Said to all only when the called king is in the chien, which the page may have
        # been shown between the view above and this text.
        shown = last_view(t, lambda v: bool(v.get("chien")))
        assert contract["called"] in shown["chien"]
        return
    # Not the partner: the page learns who it is when the called king is played (the bots
    # play at once: it may be played, and the partner told, before this text is read).
    assert "Partenaire inconnu" in text or "Partenaire :" in text
    while "Partenaire :" not in text:
        serial = next_decision(t, serial)
        text = page.locator("#contract").inner_text()
        if serial == "over" or "Partenaire :" in text or "joue seul" in text:
            break
        page.wait_for_function(
            "(s) => document.body.dataset.decision === s", arg=serial, timeout=STEP_MS
        )
        if page.locator("#prompt:not([hidden]) button.option[data-option]").count():
            click_option(t, ("Non, jouer",))
        else:
            click_card(page.locator("#hand .card.legal").first)
    if "joue seul" in text:
        return

    def played() -> set[int]:
        """Every card the page was shown played: in the trick on the table, or in the
        tricks already taken (the king may have ended a trick, seen only once taken)."""
        cards: set[int] = set()
        for v in t.views:
            cards |= {p["card"] for p in v.get("trick", [])}
            cards |= {c["card"] for trick in v.get("tricks", []) for c in trick["cards"]}
        return cards

    # The page may draw a view before this side has read its frame: wait a little for it.
    for _ in range(100):
        if contract["called"] in played():
            break
        page.wait_for_timeout(50)
    assert contract["called"] in played()
