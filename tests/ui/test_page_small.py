"""The table at every common size, the smallest phones and phones turned sideways
included: one game at five shown in a browser at each size, and one at four at the
smallest phone upright and sideways and a laptop, each played by tapping on the smallest
(360x640). In every phase each control (the prompt's buttons, the
écart's slots, the tabs, the languages, the last trick's button, the lobby's and the
dialogs' buttons) is reached by the browser's hit test once scrolled into view (nothing
lies over it, the hand least of all), each card of the hand shows a touch target of
TARGET pixels, a tap plays the card under the finger, and when the player is asked the
prompt, the hand and the trick show without his scrolling. At 360x640 the hand's rows
lay over the bidding's and the écart's prompt: its words, slots and buttons could not be
reached."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tarot_p2p.rules.cards import DECK_SIZE, TRUMP_MASK, cards_of, mask_of
from tarot_p2p.ui import policy
from tarot_p2p.ui.i18n import Words
from tarot_p2p.ui.view import build_view, poignee_text

from .conftest import FAILED, Game, Table, enter
from .page_geometry import TARGET, document_width, reached, shown, viewport
from .test_page import STEP_MS, PassingBot, click_card, click_option, make_ecart
from .test_page_lobby import LobbyPage
from .test_page_sizes import tap_option

PHONE = {"is_mobile": True, "has_touch": True}
SIZES: dict[str, dict[str, Any]] = {
    "360x640": PHONE,
    "375x667": PHONE,
    "390x844": PHONE,
    "412x915": PHONE,
    "844x390": PHONE,
    "640x360": PHONE,
    "1280x800": {},
}
"""Common phones upright and sideways, and a laptop; the first one plays."""
FEWER = ("360x640", "844x390", "1280x800")
"""The sizes of the game at four: the smallest phone, upright and sideways, and a laptop.
Every size plays the game at five, whose table holds one more seat and a called king (each
browser drawing every move of a game costs the suite about fifteen seconds)."""
CONTROLS = ", ".join(
    (
        "#prompt button",
        ".ecart-chosen > *",
        "#tabs button",
        "#langs button",
        "#last-button",
        "#quit",
        "#lobby button",
    )
)
"""Everything that takes a click or shows where the next one goes (the écart's slots)."""
# The longest a name may be (64 characters): it must end in dots, never widen the table.
LONG_NAME = ("Bartholomew-Alexander " * 3)[:64].strip()
DIALOG = ".modal:not([hidden]) .modal-buttons > *"
"""A dialog's buttons (the dialog lies over the rest, as it should)."""

HAND_IN_VIEW = "() => document.querySelector('#hand-area').scrollIntoView({block: 'nearest'})"


def context(chromium: Any, size: str) -> Any:
    width, height = (int(n) for n in size.split("x"))
    return chromium.new_context(viewport={"width": width, "height": height}, **SIZES[size])


@pytest.fixture
def pages(chromium: Any, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """``pages(url, game, sizes)``: the page at ``url`` open at every size of ``sizes`` (all
    of :data:`SIZES` by default), and the first size's page with every view it is sent
    (when ``game`` is given); screenshots if the test fails."""
    made: list[dict[str, Any]] = []

    def make(
        url: str, game: Game | None = None, sizes: tuple[str, ...] = tuple(SIZES)
    ) -> tuple[dict[str, Any], Table | None]:
        opened = {size: context(chromium, size).new_page() for size in sizes}
        made.append(opened)
        first = Table(opened[sizes[0]], game) if game is not None else None
        for page in opened.values():
            enter(page, url)  # one after the other: each takes the entry's new key
        return opened, first

    yield make
    for opened in made:
        for size, page in opened.items():
            if request.node.stash.get(FAILED, False):
                shot = tmp_path / f"{request.node.name}-{size}.png"
                page.screenshot(path=str(shot))
                print(f"\nscreenshot at {size}: {shot}")
            page.context.close()


def check(opened: dict[str, Any], when: str, controls: str = CONTROLS, hand: bool = True) -> None:
    """At every size: no page wider than its screen, every control reached, and (``hand``)
    every card of the hand, scrolled into view, a touch target inside the screen."""
    for size, page in opened.items():
        width, _ = viewport(page)
        assert document_width(page) <= width, f"{when}: the page scrolls sideways at {size}"
        found = reached(page, controls)
        assert found, f"{when}: nothing to click at {size}"
        for control in found:
            assert control.inside, f"{when}: {control.key!r} is off the screen at {size}"
            assert not control.over, (
                f"{when}: at {size} the pointer on {control.key!r} reaches {control.over}"
            )
        if not hand:
            continue
        page.evaluate(HAND_IN_VIEW)
        for card in shown(page, "#hand .card"):
            assert card.side >= TARGET, (
                f"{when}: at {size} the card {card.key} is a {card.side:.0f} px target"
            )
            assert card.bottom <= viewport(page)[1], f"{when}: the card {card.key} is cut at {size}"


IN_VIEW = """() => {
  // Inside the room's visible part (which the screen holds): what the room scrolled away
  // is hidden under its edge, though still on the screen.
  const room = document.querySelector('#room').getBoundingClientRect();
  const top = Math.max(room.top, 0), bottom = Math.min(room.bottom, innerHeight);
  return [...document.querySelectorAll(
    '#prompt button, .ecart-chosen > *, #hand .card, #centre .played')].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.left < 0 || r.top < top || r.right > innerWidth || r.bottom > bottom;
  }).map((el) => el.id || el.dataset.card || el.className);
}"""


def asked(opened: dict[str, Any], serial: str, when: str) -> None:
    """The question ``serial`` shown at every size, its prompt, the whole hand and the
    trick in view as the page shows them: the player need not look for them."""
    same_decision(opened, serial)
    for size, page in opened.items():
        page.evaluate(SETTLED)
        assert page.evaluate(IN_VIEW) == [], f"{when}: at {size} these are out of view at first"
    check(opened, when)


TRICK_COVERED = """() => {
  // The trick's cards with a corner under the prompt (a question lying over them).
  const prompt = document.querySelector('#prompt');
  return [...document.querySelectorAll('#centre .played')].filter((card) => {
    const r = card.getBoundingClientRect();
    const corners = [[r.left, r.top], [r.right, r.top], [r.left, r.bottom], [r.right, r.bottom]];
    return corners.some(([x, y]) => prompt.contains(
      document.elementFromPoint(x + (x === r.left ? 6 : -6), y + (y === r.top ? 6 : -6))));
  }).map((card) => card.dataset.card || card.className);
}"""
SETTLED = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
"""Two frames: what the page scrolled is laid out."""


def same_decision(opened: dict[str, Any], serial: str) -> None:
    """Every size shows the question ``serial``; skips the test when the deal ended first,
    which only a void deal does while a question is open: a bot that held the petit sec
    declared it, and the next question came before every size had shown this one."""
    for page in opened.values():
        page.wait_for_function(
            """(s) => document.body.dataset.decision === s
                      || !document.querySelector('#score-modal').hidden""",
            arg=serial,
            timeout=STEP_MS,
        )
        if page.evaluate("(s) => document.body.dataset.decision !== s", serial):
            pytest.skip("a bot held the petit sec: the deal was void before every size asked")


def next_decision(page: Any, last: str) -> str:
    """The serial of the next question put to the player, or ``over`` when a deal's score
    shows."""
    handle = page.wait_for_function(
        """(last) => {
          if (document.querySelector('.modal:not([hidden])')) return 'over';
          const d = document.body.dataset.decision;
          return d && d !== last ? d : null;
        }""",
        arg=last,
        timeout=STEP_MS,
    )
    return str(handle.json_value())


def tap_card(page: Any) -> int:
    """Tap the first card that may be played where it shows; the card tapped."""
    page.evaluate(HAND_IN_VIEW)
    box = shown(page, "#hand .card.legal")[0]
    page.touchscreen.tap(box.x, box.y)
    return int(box.key)


def was_played(table: Table, card: int) -> bool:
    """Whether the table plays ``card`` for the player: the page is sent a view with it in
    the trick or a trick taken (waiting a little for the table)."""
    for _ in range(400):
        for view in table.views:
            trick = view.get("trick") or []
            taken = [p for t in view.get("tricks") or [] for p in t["cards"]]
            if any(p["card"] == card and p["seat"] == view["me"] for p in trick + taken):
                return True
        table.page.wait_for_timeout(50)
    return False


def test_the_lobby_at_every_size(pages: Any) -> None:
    served = LobbyPage()
    try:
        served.invite("tarot-p2p join tp2p1-" + "a7" * 60)  # as long as a real one
        served.seated(["Emma", "Nico"], 2)
        opened, _ = pages(served.url)
        for page in opened.values():
            page.wait_for_selector("#copy:not([hidden])")
        check(opened, "the lobby")
    finally:
        served.close()


@pytest.mark.parametrize("players", [4, 5])
def test_every_phase_at_every_size(pages: Any, players: int) -> None:
    game = Game(players, lambda i, _: PassingBot(f"small/{i}"), deals=2)
    try:
        opened, table = pages(game.url, game, FEWER if players == 4 else tuple(SIZES))
        assert table is not None
        play_a_deal(table, opened)
    finally:
        game.stop()


def play_a_deal(table: Table, opened: dict[str, Any]) -> None:
    """Bid a garde, make the écart and play the deal out by tapping on the smallest
    phone, checking every size at each phase, up to the deal's score."""
    phone = opened["360x640"]
    serial = next_decision(phone, "")
    if "Garde" not in phone.locator("#prompt").inner_text():
        pytest.skip("the deal gave the player a petit sec (about 1 deal in 200)")
    asked(opened, serial, "bidding")
    tap_option(phone, ("Garde",))
    serial = next_decision(phone, serial)
    if serial == "over":
        pytest.skip("a bot speaking after the player held the petit sec: the deal is void")
    if phone.locator("#prompt button.option[data-option]").count():  # five: a king to call
        asked(opened, serial, "the call of a king")
        tap_option(phone)
        serial = next_decision(phone, serial)
    asked(opened, serial, "the écart, the chien shown")
    while phone.locator(".ecart-chosen .slot").count():
        before = phone.locator(".ecart-chosen .card").count()
        card = tap_card(phone)
        phone.wait_for_selector(f".ecart-chosen .card[data-card='{card}']")
        assert phone.locator(".ecart-chosen .card").count() == before + 1, "tapped one, took two"
    for page in opened.values():
        page.wait_for_selector("#ecart-done:not([disabled])", timeout=STEP_MS)
    check(opened, "the écart made")
    phone.locator("#ecart-done").tap()
    tricks = 0
    last_seen = False
    while (serial := next_decision(phone, serial)) != "over":
        same_decision(opened, serial)
        if phone.locator("#prompt:not([hidden]) button.option[data-option]").count():
            asked(opened, serial, "a question in the play")
            tap_option(phone, ("Non, jouer",))
            continue
        if tricks < 2 and phone.locator("#centre .played").count():
            tricks += 1
            asked(opened, serial, f"a trick in the middle ({tricks})")
        if not last_seen and phone.locator("#last-button:not([hidden])").count():
            last_seen = True
            show_last_trick(opened)
        card = tap_card(phone)
        assert was_played(table, card), f"the card tapped, {card}, was not played"
    assert last_seen, "no trick was ever taken"
    for page in opened.values():
        page.wait_for_selector("#score-modal:not([hidden])", timeout=STEP_MS)
    check(opened, "the deal's score", DIALOG, hand=False)


def show_last_trick(opened: dict[str, Any]) -> None:
    """The last trick shown at every size: it lies in the screen, over no control, its
    button (which hides it again) least of all."""
    for page in opened.values():
        page.locator("#last-button").click()
        page.wait_for_selector("#last:not([hidden])")
    check(opened, "the last trick shown", CONTROLS + ", #last")
    for page in opened.values():
        page.locator("#last-button").click()
        page.wait_for_selector("#last", state="hidden")


def test_a_poignee_and_a_called_king_on_the_smallest_phone(
    table: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The player's own poignée under his seat, at 360x640: the strip of fifteen small
    cards (a triple poignée at four) wraps in the seat. It widened the seat, and the seat's
    column, over the last trick's button. And the contract with a called king and its
    partner (five players) in lines as wide as the table: in the corner beside the
    player's seat its three sentences made a column of words taller than the trick. The
    other seats have the longest names, which made the middle column the table's width:
    the seats beside the trick went past the screen's edges, the player's over the button.
    The
    deal cannot be made to give the player fifteen trumps: the views sent show his first
    fifteen cards as his poignée once a trick is taken, and the longest called king's
    lines with the contract (the page draws any alike)."""
    words = Words("fr")

    def with_poignee(peer: Any, story: Any, pending: Any) -> dict[str, Any]:
        view = build_view(peer, story, pending)
        if view.get("tricks") and len(view["hand"]) >= 15:
            shown = list(cards_of(TRUMP_MASK))[-16:-1]
            text = poignee_text(words, mask_of(shown))
            view["poignees"] = [{"seat": view["me"], "cards": shown, "text": text}]
        view["names"] = [
            name if seat == view["me"] else LONG_NAME for seat, name in enumerate(view["names"])
        ]
        if view.get("contract"):
            view["contract"]["called_text"] = words("called", card="Roi de carreau")
            view["contract"]["partner_text"] = words("alone_you")
        return view

    monkeypatch.setattr(policy, "build_view", with_poignee)
    t = table(4, lambda i, _: PassingBot(f"poignee/{i}"))
    page = t.page
    page.set_viewport_size({"width": 360, "height": 640})
    serial = next_decision(page, "")
    if "Garde" not in page.locator("#prompt").inner_text():
        pytest.skip("the deal gave the player a petit sec (about 1 deal in 200)")
    click_option(t, ("Garde",))
    page.wait_for_selector("#ecart-done", timeout=STEP_MS)
    make_ecart(t)
    drawn = (
        "() => Boolean(document.querySelector('.seat.me .poignee'))"
        " && !document.querySelector('#last-button').hidden"
    )
    while not page.evaluate(drawn):
        serial = next_decision(page, serial)
        assert serial != "over", "the poignée was never drawn"
        page.wait_for_function(
            "(s) => document.body.dataset.decision === s", arg=serial, timeout=STEP_MS
        )
        if page.locator("#hand .card.legal").count():  # no poignée shown: a card played
            click_card(page.locator("#hand .card.legal").first)
        else:
            click_option(t, ("Non, jouer",))
    (button,) = reached(page, "#last-button")
    assert not button.over, f"the pointer on the last trick's button reaches {button.over}"
    lines = page.evaluate(
        """() => {
          const box = document.querySelector('#contract');
          return box.getBoundingClientRect().height / parseFloat(getComputedStyle(box).lineHeight);
        }"""
    )
    assert lines <= 4, f"the contract is a column of {lines:.1f} lines"
    for width, height in ((360, 640), (640, 360), (844, 390)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate(SETTLED)
        cut = page.evaluate(
            """() => [...document.querySelectorAll('.seat, #contract')].filter((box) => {
              const r = box.getBoundingClientRect();
              return r.left < 0 || r.right > innerWidth;
            }).map((box) => box.className || box.id)"""
        )
        assert not cut, f"at {width}x{height}, past the screen's edges: {cut}"


@pytest.mark.parametrize("question", [False, True], ids=["shown", "asked"])
def test_the_first_trick_shows_whole_beside_poignees_at_every_size(
    pages: Any, monkeypatch: pytest.MonkeyPatch, question: bool
) -> None:
    """The most crowded first trick at five: four cards in it, the longest contract (a
    king called, the taker alone), and thirteen trumps shown by the player and by a seat
    beside the trick, while the player still holds fifteen cards. The poignée's small
    cards wrapped in the narrow seats: the player's own seat grew taller than the trick
    and the room, kept scrolled to the hand, hid the trick's upper cards under its top
    edge. Or the player asked whether to show his: the question's words and button, in a
    row of their own under the contract, hid them too. The deal cannot be made to hold
    all of it: the views sent at the first card are given it (the page draws any alike;
    the test never answers the question it adds)."""
    words = Words("fr")
    trumps = list(cards_of(TRUMP_MASK))[:13]

    def crowded(peer: Any, story: Any, pending: Any) -> dict[str, Any]:
        view = build_view(peer, story, pending)
        if pending is None or pending.kind != "play" or len(view["hand"]) != 15:
            return view
        me = view["me"]
        others = [(me + k) % 5 for k in range(1, 5)]
        free = [c for c in range(DECK_SIZE) if c not in view["hand"] and c not in trumps]
        view["trick"] = [{"seat": s, "card": c} for s, c in zip(others, free, strict=False)]
        shown = {"cards": trumps, "text": poignee_text(words, mask_of(trumps))}
        view["poignees"] = [{"seat": others[0], **shown}]
        decision = view["decision"]
        if question and not decision["options"]:  # the three levels: the tallest question
            decision["options"] = [
                {
                    "id": len(decision["cards"]) + k,
                    "label": words("poignee", level=words(f"poignee_{k}"), n=n),
                }
                for k, n in ((1, 8), (2, 10), (3, 13))
            ]
            decision["prompt"] += " " + words("you_announce")
        if not decision["options"]:  # asked to show his own: not shown yet
            view["poignees"].append({"seat": me, **shown})
        view["contract"]["called_text"] = words("called", card="Roi de carreau")
        view["contract"]["partner_text"] = words("alone_you")
        return view

    monkeypatch.setattr(policy, "build_view", crowded)
    game = Game(5, lambda i, _: PassingBot(f"crowded/{i}"))
    try:
        opened, _ = pages(game.url, game)
        phone = opened["360x640"]
        serial = next_decision(phone, "")
        if "Garde" not in phone.locator("#prompt").inner_text():
            pytest.skip("the deal gave the player a petit sec (about 1 deal in 200)")
        tap_option(phone, ("Garde",))
        serial = next_decision(phone, serial)
        if serial == "over":
            pytest.skip("a bot speaking after the player held the petit sec: the deal is void")
        tap_option(phone)  # the king to call
        serial = next_decision(phone, serial)
        while phone.locator(".ecart-chosen .slot").count():
            card = tap_card(phone)
            phone.wait_for_selector(f".ecart-chosen .card[data-card='{card}']")
        phone.wait_for_selector("#ecart-done:not([disabled])", timeout=STEP_MS)
        phone.locator("#ecart-done").tap()
        serial = next_decision(phone, serial)
        while not phone.locator("#hand .card.legal").count():  # a slam to declare
            tap_option(phone, ("Non, jouer",))
            serial = next_decision(phone, serial)
        for page in opened.values():
            page.wait_for_selector("#centre .played", timeout=STEP_MS)
        if question:
            phone.wait_for_selector("#prompt button.option", timeout=STEP_MS)
        asked(opened, serial, "the first trick, crowded")
        for size, page in opened.items():  # the question lies over none of the trick's cards
            hidden = page.evaluate(TRICK_COVERED)
            assert hidden == [], f"at {size} the question lies over the trick's {hidden}"
        assert phone.locator(".seat.me .poignee-text, .seat .poignee-text").count() >= 1
    finally:
        game.stop()
