"""Where the human at a seat plays: a page in the browser (the default) or the terminal.

Why a module: ``host``, ``join`` and ``resume`` offer the same choice and show the page
the same way. The page is served by the player's own peer (:mod:`tarot_p2p.ui`); its
address is always printed, and the browser opened on it unless ``--no-open`` or no
graphical browser can be opened here (the program then says so). Its entry file goes
into the profile, and a table keeps its page's port and session there, so that the
same command run again serves the same page address (:mod:`tarot_p2p.ui.entry`).
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tarot_p2p.cli.rule_options import word
from tarot_p2p.cli.terminal import TerminalPolicy
from tarot_p2p.files.profile import Profile
from tarot_p2p.seat.runner import Policy
from tarot_p2p.ui.entry import ENTRY_FOLDER
from tarot_p2p.ui.i18n import LANGUAGES
from tarot_p2p.ui.policy import BrowserPolicy, play_in_browser


def add_ui_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--ui",
        type=word,
        choices=("browser", "terminal"),
        default="browser",
        help="play in a page of your browser, or at this terminal",
    )
    p.add_argument(
        "--no-open",
        action="store_true",
        help="do not open the browser: only print the page's address, to open yourself",
    )
    p.add_argument(
        "--lang", type=word, choices=LANGUAGES, help="the page's language (default: the browser's)"
    )


def human_policy(args: argparse.Namespace) -> Policy:
    """The policy for the player at this seat, as ``--ui`` says."""
    if args.ui == "browser":
        return BrowserPolicy(args.lang)
    return TerminalPolicy()


def with_page(
    policy: Policy,
    main: Callable[..., Awaitable[int]],
    args: argparse.Namespace,
    profile: Profile,
    table: Path | None,
    *,
    when_admitted: bool = False,
) -> Callable[..., Awaitable[Any]]:
    """``main`` itself, or ``main`` run while the policy's page is served and shown (opened
    once ``main`` sets the policy's ``admitted`` if ``when_admitted``: a joiner's code
    accepted). ``table``: the folder of the table this run takes up, when known before it
    starts (the same command run again), whose page it serves again."""
    if not isinstance(policy, BrowserPolicy):
        return main
    policy.server.prepare(profile.root / ENTRY_FOLDER, table)
    return functools.partial(
        play_in_browser, policy, main, open_page=not args.no_open, when_admitted=when_admitted
    )


def remember_page(policy: Policy, table: Path) -> None:
    """Keep the page's port and session with the table in the folder ``table``."""
    if isinstance(policy, BrowserPolicy):
        policy.server.remember(table)
