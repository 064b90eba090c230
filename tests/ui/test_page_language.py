"""The page speaks its browser's language unless the player chose one (``--lang``)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Game, default_bot, enter


@pytest.mark.parametrize(("given", "shown"), [(None, "fr"), ("en", "en")])
def test_the_page_follows_the_browser_unless_a_language_is_given(
    chromium: Any, monkeypatch: pytest.MonkeyPatch, given: str | None, shown: str
) -> None:
    monkeypatch.setenv("LC_ALL", "en_GB.UTF-8")  # the program's system speaks English
    game = Game(3, default_bot, lang=given)
    context = chromium.new_context(locale="fr-FR")  # the browser French
    try:
        page = context.new_page()
        enter(page, game.url)
        page.wait_for_function("() => document.title !== ''")
        page.wait_for_function(f"() => document.documentElement.lang === '{shown}'")
        page.wait_for_timeout(500)  # (a language switch would reconnect by now)
        assert page.evaluate("document.documentElement.lang") == shown
        assert page.title() == ("Tarot entre pairs" if shown == "fr" else "Peer-to-peer Tarot")
    finally:
        context.close()
        game.stop()
