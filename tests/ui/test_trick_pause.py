"""A trick just won stays whole on the page a moment: bots answer at once, and without the
pause the last card of a trick was never seen (the trick vanished the moment it was won,
the next one already led). Here the pause lasts longer than the test, so nothing in it
depends on time: the trick is shown with its winner, no question is offered meanwhile,
and a click on a card only ends the pause."""

from __future__ import annotations

from collections.abc import Callable

from tarot_p2p.cli.bot import BotPolicy

from .conftest import Table
from .test_page import STEP_MS, click_card, click_option, last_view, next_decision
from .test_page_input import hand_cards, pending_serial

FOREVER = 3600.0


def next_question(table: Table) -> int:
    """The serial of the question put to the player after the first trick, once the page
    has been sent it (the bots may take a while to lead)."""
    for _ in range(STEP_MS // 50):
        if any(len(v.get("tricks") or []) == 1 and v.get("decision") for v in table.views):
            serial = pending_serial(table)
            assert serial is not None
            return serial
        table.page.wait_for_timeout(50)
    raise AssertionError("no question came after the first trick")


def test_a_trick_won_stays_whole_until_the_player_goes_on(table: Callable[..., Table]) -> None:
    t = table(4, lambda i, _: BotPolicy(f"pause/{i}"), trick_pause=FOREVER)
    page = t.page
    serial = ""
    while True:  # to the first card of the play (garde sans: no écart to make)
        serial = next_decision(t, serial)
        assert serial != "over", "the deal ended before a trick was played"
        page.wait_for_function(
            "(s) => document.body.dataset.decision === s", arg=serial, timeout=STEP_MS
        )
        if not page.locator("#prompt:not([hidden]) button.option[data-option]").count():
            break
        click_option(t, ("Garde sans", "Passe", "Jouer"))
    click_card(page.locator("#hand .card.legal").first)

    page.wait_for_selector("#centre .trick-caption", timeout=STEP_MS)
    won = last_view(t, lambda v: len(v.get("tricks") or []) == 1)["tricks"][0]
    winner = won["winner"]
    shown = page.eval_on_selector_all(
        "#centre .card", "e => e.map(c => [Number(c.dataset.card), c.classList.contains('winner')])"
    )
    assert sorted(shown) == sorted([p["card"], p["seat"] == winner] for p in won["cards"])
    name = t.views[-1]["names"][winner]
    caption = f"{name} remporte le pli 1"
    assert page.locator("#centre .trick-caption").inner_text() == caption
    assert page.locator("#status").inner_text() == caption

    # The table goes on meanwhile: the next question comes, but is not offered yet.
    asked = next_question(t)
    assert page.evaluate("() => document.body.dataset.decision") == ""
    assert hand_cards(t, "legal") == [] and page.locator("#prompt").is_hidden()

    # A click on a card ends the pause and plays nothing; the question is then offered.
    hand = hand_cards(t)
    click_card(page.locator("#hand .card").first)
    page.wait_for_function(
        "(s) => document.body.dataset.decision === s", arg=str(asked), timeout=STEP_MS
    )
    assert page.locator("#centre .trick-caption").count() == 0
    assert pending_serial(t) == asked and hand_cards(t) == hand
