"""The table at a phone's, a tablet's and a laptop's size: one game shown in three
browsers at once (a phone with touch at 390x844, a tablet at 768x1024, a laptop at
1280x800), played by tapping on the phone. At each step nothing is wider than the screen,
and every seat, every card of the hand, the trick, the prompt's buttons, the écart's
confirm and, at the end, the game-over dialog's buttons lie inside the screen; on the
phone each card and button shows at least 44x44 pixels that a tap reaches."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import FAILED, Game, enter
from .page_geometry import TARGET, document_width, grey_over_playable, inside, shown, viewport
from .test_page import STEP_MS, PassingBot

SIZES: dict[str, dict[str, Any]] = {
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
    "tablet": {"viewport": {"width": 768, "height": 1024}, "has_touch": True},
    "laptop": {"viewport": {"width": 1280, "height": 800}},
}
WATCHED = {
    "seat": "#seats .seat",
    "card of the hand": "#hand .card",
    "card of the trick": "#centre .card",
    "button of the prompt": "#prompt button",
    "tab": "#tabs button:not([hidden])",
}
"""What must lie inside the screen (and, on the phone, be a touch target if it is one)."""
TOUCHED = ("card of the hand", "button of the prompt", "tab")
SEEN = 20
"""The smallest square of each card of the hand that must show (not covered, not cut), in
CSS pixels, at every size."""


@pytest.fixture
def screens(chromium: Any, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """``screens(players)``: a game shown at the three sizes; screenshots if the test fails."""
    made: list[tuple[Game, dict[str, Any]]] = []

    def make(players: int, deals: int = 1) -> tuple[Game, dict[str, Any]]:
        game = Game(players, lambda i, _: PassingBot(f"sizes/{i}"), deals=deals)
        pages = {
            name: chromium.new_context(**options).new_page() for name, options in SIZES.items()
        }
        made.append((game, pages))
        for page in pages.values():
            enter(page, game.url)  # one after the other: each takes the entry's new key
        return game, pages

    yield make
    for game, pages in made:
        if request.node.stash.get(FAILED, False):
            print(f"\nthe game: {game.error!r} {game.outcome!r}")
        for name, page in pages.items():
            if request.node.stash.get(FAILED, False):
                shot = tmp_path / f"{request.node.name}-{name}.png"
                page.screenshot(path=str(shot))
                print(f"\nscreenshot at the {name}'s size: {shot}")
            page.context.close()
        game.stop()


def check(pages: dict[str, Any], when: str) -> None:
    """Every watched element of every page inside its screen, no page wider than its
    screen, the phone's touch targets at least TARGET pixels square."""
    for name, page in pages.items():
        width, _ = viewport(page)
        assert document_width(page) <= width, f"{when}: the {name}'s page scrolls sideways"
        for what, selector in WATCHED.items():
            for box in shown(page, selector):
                assert inside(page, box), f"{when}: a {what} ({box.key}) is off the {name}'s screen"
                if what == "card of the hand":
                    assert box.side >= SEEN, (
                        f"{when}: the card {box.key} shows a {box.side:.0f} px square on the {name}"
                    )
                if name == "phone" and what in TOUCHED:
                    assert box.side >= TARGET, (
                        f"{when}: a {what} ({box.key}) is a {box.side:.0f} px target on the phone"
                    )


def wait_decision(page: Any, last: str) -> str:
    handle = page.wait_for_function(
        """(last) => {
          if (!document.querySelector('#over[hidden]')) return 'over';
          const d = document.body.dataset.decision;
          return d && d !== last ? d : null;
        }""",
        arg=last,
        timeout=STEP_MS,
    )
    return str(handle.json_value())


def tap_option(phone: Any, prefer: tuple[str, ...] = ()) -> None:
    buttons = phone.locator("#prompt button.option[data-option]")
    labels = [t.strip() for t in buttons.all_inner_texts()]
    index = next((labels.index(p) for p in prefer if p in labels), 0)
    buttons.nth(index).tap()


def tap_card(phone: Any, which: str = "#hand .card.legal") -> int:
    """Tap the first card matching ``which`` where it shows; the card tapped."""
    box = shown(phone, which)[0]
    phone.touchscreen.tap(box.x, box.y)
    return int(box.key)


@pytest.mark.parametrize(
    ("players", "to_the_end"),
    [(3, False), (5, True)],
    ids=["3-players-most-cards", "5-players-most-seats-to-the-end"],
)
def test_every_size_shows_the_whole_table(screens: Any, players: int, to_the_end: bool) -> None:
    game, pages = screens(players)
    phone = pages["phone"]
    serial = wait_decision(phone, "")
    if "Garde" not in phone.locator("#prompt").inner_text():
        pytest.skip("the deal gave the player a petit sec (about 1 deal in 200)")
    check(pages, "bidding")
    tap_option(phone, ("Garde",))
    serial = wait_decision(phone, serial)
    if serial == "over":
        pytest.skip("a bot speaking after the player held the petit sec: the deal is void")
    if players == 5:  # the taker calls a king
        tap_option(phone)
    phone.wait_for_selector("#ecart-done", timeout=STEP_MS)
    for page in pages.values():
        page.wait_for_selector("#ecart-done", timeout=STEP_MS)
    check(pages, "écart")
    for name, page in pages.items():
        (confirm,) = shown(page, "#ecart-done")
        assert inside(page, confirm), f"the écart's confirm is off the {name}'s screen"
        if name == "phone":
            assert confirm.side >= TARGET

    # A tap on a grey card's face puts nothing aside and says why.
    face = grey_over_playable(phone)
    if face is not None:
        phone.touchscreen.tap(face.x, face.y)
        phone.wait_for_selector("#why:not([hidden])")
        assert phone.locator(".ecart-chosen .card").count() == 0
        pending = game.policy.pending
        assert pending is not None and pending.ecart == []
        (why,) = shown(phone, "#why")
        assert inside(phone, why)
    while phone.locator(".ecart-chosen .slot").count():
        before = phone.locator(".ecart-chosen .card").count()
        tap_card(phone)
        phone.wait_for_function(
            "(n) => document.querySelectorAll('.ecart-chosen .card').length > n", arg=before
        )
    serial = phone.evaluate("() => document.body.dataset.decision")
    phone.locator("#ecart-done").tap()

    checked = 0
    while (serial := wait_decision(phone, serial)) != "over":
        phone.wait_for_function(
            "(s) => document.body.dataset.decision === s", arg=serial, timeout=STEP_MS
        )
        if phone.locator("#prompt:not([hidden]) button.option[data-option]").count():
            tap_option(phone, ("Non, jouer",))
            continue
        if checked < 2 and phone.locator("#centre .played").count():
            for page in pages.values():
                page.wait_for_function(
                    "(s) => document.body.dataset.decision === s", arg=serial, timeout=STEP_MS
                )
            check(pages, "a trick")
            checked += 1
            if not to_the_end:
                return
        tap_card(phone)

    # The game-over dialog: its buttons in view at every size, Leave included.
    for name, page in pages.items():
        page.wait_for_selector("#over:not([hidden])", timeout=STEP_MS)
        assert document_width(page) <= viewport(page)[0]
        for box in shown(page, "#over .modal-buttons a, #over .modal-buttons button"):
            assert inside(page, box), f"the game-over {box.key!r} is off the {name}'s screen"
            if name == "phone":
                assert box.side >= TARGET
        assert page.locator("#over .chart").count() == 1
    phone.locator("#leave").tap()


def test_a_later_deal_fits_as_the_first(screens: Any) -> None:
    """After a deal the page holds more: its score, the sheet and its chart, two more tabs.
    The next deal's seats, hand and prompt must still lie inside every screen (at 1280x800
    the side column, grown by the sheet, made the table's row taller than the screen and
    the hand's last row went below it)."""
    _game, pages = screens(3, deals=2)
    phone = pages["phone"]
    serial = wait_decision(phone, "")
    if "Passe" not in phone.locator("#prompt").inner_text():
        pytest.skip("the deal gave the player a petit sec (about 1 deal in 200)")
    tap_option(phone, ("Passe",))  # the bots pass too: a void deal, then the second
    serial = wait_decision(phone, serial)
    assert serial != "over"
    for page in pages.values():
        page.wait_for_selector("#score-modal:not([hidden])", timeout=STEP_MS)
        page.locator("#modal-close").click()
        page.wait_for_function(
            "(s) => document.body.dataset.decision === s", arg=serial, timeout=STEP_MS
        )
    check(pages, "the second deal's bidding")
