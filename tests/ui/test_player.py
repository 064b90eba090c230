"""``--ui``: the page when a graphical browser can show it, else the terminal."""

from __future__ import annotations

import functools
import webbrowser

import pytest

from tarot_p2p.cli.main import build_parser
from tarot_p2p.cli.player import human_policy, with_page
from tarot_p2p.cli.terminal import TerminalPolicy
from tarot_p2p.ui.policy import BrowserPolicy, browser_available, play_in_browser


def args(*argv: str) -> object:
    return build_parser().parse_args(["join", "tp2p1-x", *argv])


def test_the_page_by_default_in_the_systems_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSER", "firefox")
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    policy = human_policy(args("--lang", "en"))
    assert isinstance(policy, BrowserPolicy) and policy.words.lang == "en"
    wrapped = with_page(policy, test_the_page_by_default_in_the_systems_language)
    assert isinstance(wrapped, functools.partial) and wrapped.func is play_in_browser


@pytest.mark.parametrize("browser", ["lynx", "w3m", "www-browser"])
def test_a_text_browser_is_not_used(monkeypatch: pytest.MonkeyPatch, browser: str) -> None:
    monkeypatch.setenv("BROWSER", browser)
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    assert not browser_available()


def test_the_terminal_when_asked_or_without_a_browser(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert isinstance(human_policy(args("--ui", "terminal")), TerminalPolicy)
    assert capsys.readouterr().out == ""

    def nothing(using: str | None = None) -> webbrowser.BaseBrowser:
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "get", nothing)
    policy = human_policy(args())
    assert isinstance(policy, TerminalPolicy)
    assert "no browser can be opened here: playing at the terminal" in capsys.readouterr().out
    main = test_the_terminal_when_asked_or_without_a_browser
    assert with_page(policy, main) is main  # type: ignore[arg-type]
