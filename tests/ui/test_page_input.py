"""Input a player can trust: a click or a tap reaches the card whose face is under the
pointer, or nothing. A grey card takes its click and says why it may not be played (in
the écart as in the play), a card played shows as played at once, and the hand is played
from the keyboard too (arrows, Enter)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.protocol.table import Phase
from tarot_p2p.rules.cards import EXCUSE, KING_MASK, OUDLER_MASK, RANK_OF, SUIT_OF, TRUMP_SUIT

from .conftest import Table
from .page_geometry import grey_over_playable, shown
from .test_page import STEP_MS, PassingBot, click_card, click_option, last_view, next_decision

SUITS_FR = ("pique", "cœur", "carreau", "trèfle")


def pending_serial(table: Table) -> int | None:
    pending = table.game.policy.pending
    return pending.serial if pending is not None else None


def focus_hand(table: Table) -> int:
    """Tab into the hand as a keyboard player does; the index of the card focused."""
    page = table.page
    for _ in range(40):
        page.keyboard.press("Tab")
        index = page.evaluate(
            "() => [...document.querySelectorAll('#hand .card')].indexOf(document.activeElement)"
        )
        if index >= 0:
            return int(index)
    raise AssertionError("Tab never reaches the hand")


def move_focus(table: Table, to: int) -> None:
    """Arrow keys from the focused card of the hand to card ``to``."""
    page = table.page
    at = page.evaluate(
        "() => [...document.querySelectorAll('#hand .card')].indexOf(document.activeElement)"
    )
    assert at >= 0, "the focus left the hand"
    key = "ArrowRight" if to > at else "ArrowLeft"
    for _ in range(abs(to - at)):
        page.keyboard.press(key)
    focused = page.evaluate(
        """() => {
          const el = document.activeElement;
          const style = getComputedStyle(el);
          return [[...document.querySelectorAll('#hand .card')].indexOf(el),
                  style.outlineStyle, parseFloat(style.outlineWidth)];
        }"""
    )
    assert focused[0] == to
    assert focused[1] != "none" and focused[2] >= 2, "the focused card shows no focus ring"


def hand_cards(table: Table, kind: str = "") -> list[int]:
    """The hand's cards in the page's order (``legal`` or ``illegal`` ones only)."""
    selector = "#hand .card" + (f".{kind}" if kind else "")
    return [
        int(c) for c in table.page.eval_on_selector_all(selector, "e => e.map(c => c.dataset.card)")
    ]


def garde_to_the_ecart(table: Table) -> None:
    """The player bids a garde and is asked for the écart (skips the rare deal that has
    none: a petit sec)."""
    serial = next_decision(table, "")
    if "Garde" not in table.page.locator("#prompt").inner_text():
        pytest.skip("the deal gave the player a petit sec (about 1 deal in 200)")
    click_option(table, ("Garde",))
    if next_decision(table, serial) == "over":
        pytest.skip("a bot speaking after the player held the petit sec: the deal is void")
    table.page.wait_for_selector("#ecart-done", timeout=STEP_MS)


def test_the_ecart_takes_only_the_card_clicked_and_says_why(table: Callable[..., Table]) -> None:
    t = table(4, lambda i, _: PassingBot(f"ecart-input/{i}"))
    page = t.page
    garde_to_the_ecart(t)
    ecart = last_view(t, lambda v: bool(v["decision"]) and v["decision"]["kind"] == "ecart")
    face = grey_over_playable(page)
    if face is None:
        pytest.skip("no grey card of this hand lies over a card that may go to the écart")
    page.mouse.click(face.x, face.y)
    page.wait_for_timeout(500)
    pending = t.game.policy.pending
    assert pending is not None and pending.ecart == [], (
        f"a click on the face of {face.grey} put {pending.ecart if pending else '?'} in the écart"
    )
    assert page.locator(".ecart-chosen .card").count() == 0
    why = page.locator("#why")
    assert why.is_visible()
    expected = ecart["decision"]["why"][str(face.grey)]
    assert why.inner_text() == expected
    if (KING_MASK >> face.grey) & 1:
        assert expected == "Un roi ne va jamais à l'écart."
    elif (OUDLER_MASK >> face.grey) & 1:
        assert expected == "Un bout (le 1, le 21, l'Excuse) ne va jamais à l'écart."
    else:
        assert SUIT_OF[face.grey] == TRUMP_SUIT and expected.startswith("Un atout ne va à l'écart")

    # The keyboard: Tab into the hand, arrows to a card allowed, Enter puts it aside.
    focus_hand(t)
    cards = hand_cards(t)
    allowed = hand_cards(t, "legal")
    move_focus(t, cards.index(allowed[0]))
    page.keyboard.press("Enter")
    page.wait_for_selector(f".ecart-chosen .card[data-card='{allowed[0]}']")
    page.wait_for_function(
        "(c) => !document.querySelector(`#hand .card[data-card='${c}']`)", arg=allowed[0]
    )
    assert t.game.policy.pending is not None
    assert t.game.policy.pending.ecart == [allowed[0]]
    # Enter on a grey card says why and puts nothing aside; the focus stayed in the hand.
    grey = hand_cards(t, "illegal")[0]
    move_focus(t, hand_cards(t).index(grey))
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    assert (
        page.locator("#why").inner_text()
        == last_view(
            t, lambda v: bool(v["decision"]) and v["decision"].get("chosen") == [allowed[0]]
        )["decision"]["why"][str(grey)]
    )
    assert t.game.policy.pending.ecart == [allowed[0]]
    # The rest of the écart from the keyboard too, then the whole écart is refused no more.
    while page.locator(".ecart-chosen .slot").count():
        before = page.locator(".ecart-chosen .card").count()
        move_focus(t, hand_cards(t).index(hand_cards(t, "legal")[0]))
        page.keyboard.press("Enter")
        page.wait_for_function(
            "(n) => document.querySelectorAll('.ecart-chosen .card').length > n", arg=before
        )
    page.wait_for_function("() => !document.querySelector('#ecart-done').disabled")
    grey = hand_cards(t, "illegal")[0]  # every card now: the écart is complete
    move_focus(t, hand_cards(t).index(grey))
    page.keyboard.press("Enter")
    page.wait_for_selector("#why:not([hidden])")
    assert "complet" in page.locator("#why").inner_text()
    page.click("#ecart-done")
    page.wait_for_selector("#prompt button[data-option]", timeout=STEP_MS)  # the lead
    peer = t.game.policy.peer
    assert peer is not None and peer.hand.phase is Phase.PLAY


LAGGING_VIEWS = """(() => {
  // Every message from the program reaches the page's script lag ms late, in order, as
  // on a slow machine or a busy program.
  const plain = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage");
  let due = 0;
  Object.defineProperty(WebSocket.prototype, "onmessage", {
    configurable: true,
    get() { return plain.get.call(this); },
    set(handler) {
      plain.set.call(this, (event) => {
        const data = event.data;
        due = Math.max(due, performance.now() + (window.lag || 0));
        setTimeout(() => handler({ data }), due - performance.now());
      });
    },
  });
})();"""
COUNTS = """([what, within]) => {
  // Every count of the elements ``what`` as the page changes them inside ``within``.
  const seen = (window.counts = window.counts || {})[what] = [];
  const note = () => {
    const n = document.querySelectorAll(what).length;
    if (seen.at(-1) !== n) seen.push(n);
  };
  note();
  new MutationObserver(note).observe(document.querySelector(within),
                                     { childList: true, subtree: true });
}"""


def test_cards_chosen_for_the_ecart_stay_chosen_while_the_views_lag(
    table: Callable[..., Table],
) -> None:
    """Two cards chosen in a row, faster than the program's views come back: the view
    that holds only the first must not put the second back into the hand. It did, under
    the player's next click: a click there chose a card already chosen (refused by the
    program), and the écart waited for a card that never came."""
    t = table(4, lambda i, _: PassingBot(f"ecart-lag/{i}"))
    page = t.page
    page.add_init_script(LAGGING_VIEWS)
    page.reload()
    page.wait_for_selector("#status", state="attached")
    garde_to_the_ecart(t)
    page.evaluate(COUNTS, [".ecart-chosen .card", "#prompt"])
    page.evaluate("() => { window.lag = 400; }")
    first, second = hand_cards(t, "legal")[:2]
    page.evaluate(
        """([a, b]) => {
          for (const c of [a, b]) document.querySelector(`#hand .card[data-card='${c}']`).click();
        }""",
        [first, second],
    )
    page.wait_for_function(
        "() => document.querySelector('.prompt-text').textContent.includes('2 sur')",
        timeout=STEP_MS,
    )
    # The views come in order: the one that says so is the last of these two choices.
    counts = page.evaluate("() => window.counts['.ecart-chosen .card']")
    assert counts == sorted(counts) and counts[-1] == 2, f"a card chosen went back: {counts}"
    assert first not in hand_cards(t) and second not in hand_cards(t)
    pending = t.game.policy.pending
    assert pending is not None and pending.ecart == [first, second]

    # An undo waits for the program, and the views that follow it are drawn again.
    page.evaluate("() => { window.lag = 0; }")
    page.click("#ecart-undo")
    page.wait_for_function(
        "(c) => document.querySelector(`#hand .card[data-card='${c}']`)", arg=second
    )
    assert page.locator(".ecart-chosen .card").count() == 1
    assert t.game.policy.pending is not None and t.game.policy.pending.ecart == [first]


def test_a_card_clicked_with_the_ecart_full_stays_in_the_hand(
    table: Callable[..., Table],
) -> None:
    """The sixth card chosen fills the écart at once on the page, before the program's
    view says so: a seventh click, at once, must leave its card in the hand and say why.
    It took the card out of the hand with nowhere to show it, until the program's refusal
    put it back."""
    t = table(4, lambda i, _: PassingBot(f"ecart-full/{i}"))
    page = t.page
    page.add_init_script(LAGGING_VIEWS)
    page.reload()
    page.wait_for_selector("#status", state="attached")
    garde_to_the_ecart(t)
    need = page.locator(".ecart-chosen > *").count()
    legal = hand_cards(t, "legal")
    if len(legal) <= need:
        pytest.skip("the deal leaves no card beyond the écart that may go into it")
    held = len(hand_cards(t))
    page.evaluate(COUNTS, ["#hand .card", "#hand"])
    page.evaluate("() => { window.lag = 400; }")
    clicked = legal[: need + 1]
    page.evaluate(
        """(cards) => {
          for (const c of cards) document.querySelector(`#hand .card[data-card='${c}']`).click();
        }""",
        clicked,
    )
    page.wait_for_selector("#ecart-done:not([disabled])", timeout=STEP_MS)
    counts = page.evaluate("() => window.counts['#hand .card']")
    assert min(counts) == held - need, f"the hand's cards went {counts}"
    assert page.locator("#why").inner_text(timeout=1000).startswith("Votre écart est complet")
    assert clicked[-1] in hand_cards(t)
    pending = t.game.policy.pending
    assert pending is not None and pending.ecart == clicked[:-1]


def play_reason(card: int, view: dict[str, Any]) -> str:
    """What the page must say of ``card`` in the trick of ``view`` (French)."""
    trick = [p["card"] for p in view["trick"]]
    led = next(SUIT_OF[c] for c in trick if c != EXCUSE)
    hand = view["hand"]
    if led != TRUMP_SUIT and any(SUIT_OF[c] == led for c in hand):
        symbol = "♠♥♦♣"[led]
        return f"Vous devez fournir à {SUITS_FR[led]} {symbol}."
    if SUIT_OF[card] == TRUMP_SUIT:
        high = max(RANK_OF[c] for c in trick if SUIT_OF[c] == TRUMP_SUIT)
        return f"Vous devez monter : jouez un atout plus fort que le {high}."
    if led == TRUMP_SUIT:
        return "Atout demandé : vous devez jouer un atout."
    return f"Vous n'avez pas de {SUITS_FR[led]} {'♠♥♦♣'[led]} : vous devez couper (jouer un atout)."


def test_a_grey_card_plays_nothing_and_says_why(table: Callable[..., Table]) -> None:
    t = table(4, lambda i, _: BotPolicy(f"grey/{i}"))
    page = t.page
    serial = ""
    face = None
    while face is None:
        serial = next_decision(t, serial)
        if serial == "over":
            pytest.skip("no grey card lay over a playable one in this whole deal")
        page.wait_for_function(
            "(s) => document.body.dataset.decision === s", arg=serial, timeout=STEP_MS
        )
        if page.locator("#prompt:not([hidden]) button.option[data-option]").count():
            click_option(t, ("Passe", "Non, jouer"))
            continue
        face = grey_over_playable(page)
        if face is None:
            click_card(page.locator("#hand .card.legal").first)
    view = last_view(t, lambda v: bool(v["decision"]) and str(v["decision"]["serial"]) == serial)
    page.mouse.click(face.x, face.y)
    page.wait_for_timeout(500)
    assert pending_serial(t) == int(serial), (
        f"a click on the face of the grey {face.grey} played a card (the {face.under} beneath?)"
    )
    assert page.locator(f"#hand .card[data-card='{face.under}']").count() == 1
    why = page.locator("#why")
    assert why.is_visible() and why.inner_text() == play_reason(face.grey, view)

    # A card played shows in the trick at once, before the table has it.
    legal = hand_cards(t, "legal")[0]
    at_once = page.evaluate(
        """(c) => {
          document.querySelector(`#hand .card[data-card='${c}']`).click();
          return [Boolean(document.querySelector(`#centre .played[data-card='${c}']`)),
                  Boolean(document.querySelector(`#hand .card[data-card='${c}']`)),
                  !document.querySelector('#why')];
        }""",
        legal,
    )
    assert at_once == [True, False, True]
    page.wait_for_function(
        "(s) => document.body.dataset.decision !== s", arg=serial, timeout=STEP_MS
    )

    # The keyboard: Tab into the hand, the arrows to a playable card, Enter plays it.
    while True:
        serial = next_decision(t, serial)
        if serial == "over":
            pytest.skip("the deal ended before a card could be played from the keyboard")
        page.wait_for_function(
            "(s) => document.body.dataset.decision === s", arg=serial, timeout=STEP_MS
        )
        if not page.locator("#prompt:not([hidden]) button.option[data-option]").count():
            break
        click_option(t, ("Non, jouer",))
    focus_hand(t)
    cards = hand_cards(t)
    chosen = hand_cards(t, "legal")[-1]
    move_focus(t, cards.index(chosen))
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(c) => !document.querySelector(`#hand .card[data-card='${c}']`)", arg=chosen
    )
    peer = t.game.policy.peer
    assert peer is not None

    def played() -> bool:
        state = peer.private_state()
        return state is not None and bool(state.played & (1 << chosen))

    for _ in range(200):
        if played():
            break
        page.wait_for_timeout(50)
    assert played(), "the card chosen from the keyboard was not played"


def settled(table: Table) -> None:
    """Wait until the page has drawn a frame since the last change (a resize is laid out
    in the frame after it: measured before, the hand still has its old width) and no card
    moves any more (a raise is a short transition)."""
    table.page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    table.page.wait_for_function("() => document.getAnimations().length === 0")


def test_the_focused_card_shows_and_covers_none_of_its_neighbours(
    table: Callable[..., Table],
) -> None:
    """The card the keyboard is on is ringed and may rise, but stays under the card after
    it, as in the fan of a hand: every other card shows as much of itself as before."""
    t = table(4, lambda i, _: PassingBot(f"focus/{i}"))
    page = t.page
    next_decision(t, "")
    if "Garde" not in page.locator("#prompt").inner_text():
        pytest.skip("the deal gave the player a petit sec (about 1 deal in 200)")
    click_option(t, ("Garde",))
    page.wait_for_selector("#ecart-done", timeout=STEP_MS)
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        settled(t)
        before = {s.key: s.side for s in shown(page, "#hand .card")}
        focus_hand(t)
        cards = hand_cards(t)
        target = next(c for c in hand_cards(t, "legal") if c != cards[-1])
        move_focus(t, cards.index(target))
        settled(t)
        after = {s.key: s.side for s in shown(page, "#hand .card")}
        page.screenshot(path=f"/tmp/focus-{width}.png")
        neighbour = cards[cards.index(target) + 1]
        assert after[str(neighbour)] >= before[str(neighbour)], (width, "the next card hidden")
        assert all(after[k] >= side for k, side in before.items()), (
            width,
            {k: (s, after.get(k)) for k, s in before.items() if after.get(k, 0) < s},
        )
