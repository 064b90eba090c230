"""Where the human at a seat plays: a page in the browser (the default) or the terminal.

Why a module: ``host`` and ``join`` offer the same choice and fall back the same way.
The page is served by the player's own peer (:mod:`tarot_p2p.ui`); when this machine has
no browser to open it in, the terminal prompts take over, and say so.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Awaitable, Callable
from typing import Any

from tarot_p2p.cli.rule_options import word
from tarot_p2p.cli.terminal import TerminalPolicy
from tarot_p2p.seat.runner import Policy
from tarot_p2p.ui.i18n import LANGUAGES
from tarot_p2p.ui.policy import BrowserPolicy, browser_available, play_in_browser


def add_ui_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--ui",
        type=word,
        choices=("browser", "terminal"),
        default="browser",
        help="play in a page of your browser (at this terminal when no browser can be "
        "opened), or at this terminal",
    )
    p.add_argument(
        "--lang", type=word, choices=LANGUAGES, help="the page's language (default: the browser's)"
    )


def human_policy(args: argparse.Namespace) -> Policy:
    """The policy for the player at this seat, as ``--ui`` and this machine allow."""
    if args.ui == "browser":
        if browser_available():
            return BrowserPolicy(args.lang)
        print("no browser can be opened here: playing at the terminal", flush=True)
    return TerminalPolicy()


def with_page(
    policy: Policy, main: Callable[..., Awaitable[int]], *, when_admitted: bool = False
) -> Callable[..., Awaitable[Any]]:
    """``main`` itself, or ``main`` run while the policy's page is served and opened (once
    ``main`` sets the policy's ``admitted`` if ``when_admitted``: a joiner's code accepted)."""
    if isinstance(policy, BrowserPolicy):
        return functools.partial(play_in_browser, policy, main, when_admitted=when_admitted)
    return main
