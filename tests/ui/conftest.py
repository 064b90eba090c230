"""A real headless Chromium (Debian's ``chromium``, driven by Playwright) against a real
in-process game: the page's player is the host, every other seat a house bot, all over
the real hub. Without Playwright or Chromium the page tests skip, saying why."""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.cli.house_bots import bot_names, host_with_house_bots
from tarot_p2p.cli.join import warm_up_crypto
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.seat.runner import Outcome, Policy, Timeouts
from tarot_p2p.ui.policy import BrowserPolicy

CHROMIUM = os.environ.get("TAROT_P2P_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


class Game:
    """A game running in its own thread (trio there, Playwright's loop here)."""

    def __init__(
        self,
        players: int,
        bot: Callable[[int, BrowserPolicy], Policy],
        lang: str | None = "fr",
        deals: int = 1,
        trick_pause: float = 0.0,
    ) -> None:
        # No pause after each trick (the player's page's default) unless a test looks at
        # it: the tests answer as soon as they are asked.
        self.policy = BrowserPolicy(lang, trick_pause)
        self.players = players
        self.deals = deals
        self.bot = bot
        self.url = ""
        self.ready = threading.Event()
        self.outcome: Outcome | None = None
        self.peer: Peer | None = None
        self.error: BaseException | None = None
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._data = tempfile.TemporaryDirectory(prefix="tarot-ui-test-")
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self.ready.wait(30):
            raise RuntimeError("the page server did not start")

    def _run(self) -> None:
        try:
            trio.run(self._main)
        except BaseException as exc:
            self.error = exc
        finally:
            self.ready.set()

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        config = TableConfig(players=self.players, game_end=GameEnd.DEALS, game_length=self.deals)
        with trio.CancelScope() as scope:
            self._scope = scope
            async with trio.open_nursery() as nursery:
                self.url = await nursery.start(self.policy.server.serve)
                self.ready.set()
                await warm_up_crypto()
                peer, outcome, _ = await host_with_house_bots(
                    self.policy,
                    "Moi",
                    config,
                    bot_names(self.players - 1, "Moi"),
                    lambda i: self.bot(i, self.policy),
                    Path(self._data.name),
                    Timeouts(message=60, decision=120),
                )
                self.peer, self.outcome = peer, outcome
                await self.policy.left.wait()
                nursery.cancel_scope.cancel()

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``await fn(*args)`` in the game's trio thread."""
        assert self._token is not None
        return trio.from_thread.run(fn, *args, trio_token=self._token)

    def stop(self) -> None:
        if self._token is not None and self._scope is not None and self._thread.is_alive():
            with contextlib.suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(self._scope.cancel, trio_token=self._token)
        self._thread.join(30)
        self._data.cleanup()


def enter(page: Any, address: str) -> None:
    """Open the page as the program has the browser do: its entry file, which leads on to
    the table's plain address once its one-time key is exchanged for the cookie."""
    page.goto(address)
    page.wait_for_url(re.compile(r"^http://127\.0\.0\.1:\d+/$"))
    page.wait_for_selector("#status", state="attached")  # not the door page: the table's


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed (pip install -e '.[test]')")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (.ci/run installs Debian's chromium package)")
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        except Exception as exc:  # a browser that cannot start here is not the page's fault
            pytest.skip(f"Chromium at {CHROMIUM} does not start: {exc}")
        yield browser
        browser.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[FAILED] = report.failed
    return report


FAILED = pytest.StashKey[bool]()


class Table:
    """The page of one game, with every view the page received."""

    def __init__(self, page: Any, game: Game) -> None:
        self.page = page
        self.game = game
        self.views: list[dict[str, Any]] = []
        page.on("websocket", self._watch)

    def _watch(self, ws: Any) -> None:
        def frame(payload: str | bytes) -> None:
            message = json.loads(payload)
            if message.get("type") == "view" and message.get("view"):
                self.views.append(message["view"])

        ws.on("framereceived", frame)


@pytest.fixture
def table(
    chromium: Any, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[..., Table]]:
    """``table(players, bot, trick_pause)``: a game and its page, screenshot kept if the test
    fails."""
    made: list[Table] = []

    def make(
        players: int,
        bot: Callable[[int, BrowserPolicy], Policy] = default_bot,
        trick_pause: float = 0.0,
    ) -> Table:
        game = Game(players, bot, trick_pause=trick_pause)
        page = chromium.new_page(viewport={"width": 1360, "height": 860})
        t = Table(page, game)
        made.append(t)
        enter(page, game.url)
        return t

    yield make
    for t in made:
        if request.node.stash.get(FAILED, False):
            shot = tmp_path / f"{request.node.name}.png"
            t.page.screenshot(path=str(shot))
            print(f"\nscreenshot of the page: {shot}")
        t.page.close()
        t.game.stop()


def default_bot(i: int, policy: BrowserPolicy) -> Policy:
    return BotPolicy(f"ui/{i}")
