"""How quickly the browser table answers: command to first card, and click to answer.

Runs ``tarot-p2p host --bots 3 --deals 1`` as a player would (a separate process; its
browser opening is a no-op, the page is opened by a headless Chromium driven by
Playwright instead, already running as a player's browser would be), then plays the
whole deal by clicking the first legal choice, and reports:

* first card: from starting the command to the first card of the player's hand drawn in
  the page (imports, key generation, crypto tables, seating the bots, the seat draw,
  shuffles and the deal included: everything a player waits through), read on the page's
  own clock (``Date.now()`` when the card enters the page, against the same system
  clock's reading when the command started);
* first card noticed: the same, when Playwright saw it. Playwright polls the page from
  another process, which the host's work keeps busy as the deal ends: it noticed the card
  40 to 300 ms after the page drew it (stop 30), which no player waits through. Figures
  before stop 30 were this one;
* the host's processor time (all its threads) until then (with ``--first-card``, the host
  stops at the first card): on a machine that other programs keep busy, the wall-clock
  figures depend on them, this one much less;
* click latency: from a click on a card or a button to the page's next drawing (the
  peer's signed, proven message built and applied in between), per click: median, 90th
  percentile, maximum; the écart's card picks are counted apart (they change the page
  only).

Each run uses a new profile (a player's very first game). The shuffle's tables are kept
in the user's cache folder, shared by every profile of the machine: ``--cold`` gives each
run an empty cache folder (the very first run on a machine, which has no tables yet).
The package is byte-compiled first, as an installation does (``pip`` writes the ``.pyc``
files); ``--no-bytecode`` removes the package's ``.pyc`` files and keeps
them from being written, so that the package is compiled at every start (what this
project's sandbox does with ``PYTHONDONTWRITEBYTECODE``); the dependencies keep theirs.

``--first-card`` stops each run at the first card (no clicks), so that ``--runs N`` gives
the first card's best and median quickly.

Goals (issue 20): first card within 1.5 s, a click answered under 100 ms.

Usage: ``python benchmarks/ui_bench.py [--players 4] [--runs N] [--first-card] [--cold]
[--no-bytecode] [--json]`` (needs Playwright and ``/usr/bin/chromium``). Wall-clock on a
shared machine: compare only runs made back to back, and read the best as the cost.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
WATCH = """
window.__clicks = [];
let clickAt = null;
let kind = "";
document.addEventListener("click", (e) => {
  const target = e.target.closest("#hand .card.legal, #prompt button.option");
  if (!target) return;
  clickAt = performance.now();
  kind = document.getElementById("ecart-done") && target.classList.contains("card")
    ? "ecart" : "decision";
}, true);
document.addEventListener("DOMContentLoaded", () => {
  const seen = new MutationObserver(() => {
    if (document.querySelector("#hand .card")) {
      window.__firstCard = Date.now();
      seen.disconnect();
    }
  });
  seen.observe(document.body, { childList: true, subtree: true });
  new MutationObserver(() => {
    if (clickAt === null) return;
    window.__clicks.push([kind, performance.now() - clickAt]);
    clickAt = null;
  }).observe(document.getElementById("hand"), { childList: true });
});
"""
ECART_NEXT = """() => {
  const done = document.getElementById("ecart-done");
  return !done || !done.disabled || document.querySelector("#hand .card.legal") !== null;
}"""
BIDS = ("Prise", "Garde", "Garde sans", "Garde contre")
NEXT = """(last) => {
  if (!document.querySelector('#over[hidden]')) return 'over';
  const d = document.body.dataset.decision;
  return d && d !== last ? d : null;
}"""


def play(page: Page) -> None:
    """Click the first legal choice of every question until the game is over."""
    serial = ""
    while True:
        serial = str(page.wait_for_function(NEXT, arg=serial, timeout=120_000).json_value())
        if serial == "over":
            return
        if page.locator("#ecart-done").count():
            while True:
                # The button is enabled by a drawing of its own, after the last pick's:
                # wait for it or for a card still to pick, not for a card that is not
                # coming (the last pick done, the button not yet drawn enabled).
                page.wait_for_function(ECART_NEXT)
                if page.locator("#ecart-done").is_enabled():
                    break
                chosen = page.locator(".ecart-chosen .card").count()
                page.locator("#hand .card.legal").first.click(position={"x": 8, "y": 40})
                page.wait_for_function(
                    "(n) => document.querySelectorAll('.ecart-chosen .card').length > n",
                    arg=chosen,
                )
            page.click("#ecart-done")
        elif page.locator("#prompt:not([hidden]) button.option[data-option]").count():
            buttons = page.locator("#prompt button.option[data-option]")
            labels = [text.strip() for text in buttons.all_inner_texts()]
            # Take when possible (so that a deal is played, écart included), else the first.
            bid = next((labels.index(b) for b in BIDS if b in labels), 0)
            buttons.nth(bid).click()
        else:
            page.locator("#hand .card.legal").first.click(position={"x": 8, "y": 40})


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


PACKAGE = Path(__file__).resolve().parent.parent / "tarot_p2p"


def child_env(cold: bool, bytecode: bool) -> dict[str, str]:
    """The host's environment: no browser to open (Playwright's page is the browser), a
    new cache folder with ``cold``, no ``.pyc`` files to read without ``bytecode``."""
    env = dict(os.environ, BROWSER="true")
    if cold:
        env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="tarot-ui-bench-cache-")
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def forget_bytecode() -> None:
    """Remove the package's ``.pyc`` files (its dependencies keep theirs, as installed)."""
    for folder in PACKAGE.rglob("__pycache__"):
        shutil.rmtree(folder)


def compile_package() -> None:
    """Write the package's ``.pyc`` files, as ``pip install`` does."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(PACKAGE)],
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    )


def bench(
    players: int, *, first_card_only: bool = False, cold: bool = False, bytecode: bool = True
) -> dict[str, Any]:
    data = Path(tempfile.mkdtemp(prefix="tarot-ui-bench-"))
    env = child_env(cold, bytecode)
    command = [sys.executable, "-m", "tarot_p2p", "host", "--players", str(players),
               "--bots", str(players - 1), "--deals", "1", "--listen", "127.0.0.1",
               "--profile", str(data), "--lang", "en"]  # fmt: skip
    clicks: list[list[Any]] = []
    game_s: float | None = None
    with sync_playwright() as p:
        started = time.perf_counter()
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        browser_s = time.perf_counter() - started
        context = browser.new_context(viewport={"width": 1360, "height": 860}, bypass_csp=True)
        context.add_init_script(WATCH)
        page = context.new_page()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        start_wall = time.time()
        host = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
        try:
            assert host.stdout is not None
            url = ""
            for line in host.stdout:
                if line.startswith("your table: "):
                    url = line.split(": ", 1)[1].strip()
                    break
            if not url:
                raise RuntimeError("the host printed no page address")
            url_s = time.perf_counter() - start
            page.goto(url)
            page.wait_for_selector("#hand .card", timeout=120_000)
            noticed_s = time.perf_counter() - start
            first_card_s = page.evaluate("window.__firstCard") / 1000 - start_wall
            if not first_card_only:
                play(page)
                game_s = time.perf_counter() - start
                clicks = page.evaluate("window.__clicks")
                page.click("#leave")
                host.wait(60)
        finally:
            if host.poll() is None:  # stopped as Ctrl-C does (it stops what it started)
                host.send_signal(signal.SIGINT)
                try:
                    host.wait(10)
                except subprocess.TimeoutExpired:
                    host.kill()
            host.wait()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        browser.close()
    cpu_s = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    decisions = [ms for kind, ms in clicks if kind == "decision"]
    ecart = [ms for kind, ms in clicks if kind == "ecart"]
    result: dict[str, Any] = {
        "players": players,
        "cold_cache": cold,
        "bytecode": bytecode,
        "browser_start_s": round(browser_s, 3),
        "page_address_s": round(url_s, 3),
        "first_card_s": round(first_card_s, 3),
        "first_card_noticed_s": round(noticed_s, 3),
        "host_cpu_s": round(cpu_s, 3),
    }
    if game_s is not None:
        result.update(
            {
                "game_s": round(game_s, 3),
                "clicks": len(decisions),
                "click_median_ms": round(statistics.median(decisions), 1),
                "click_p90_ms": round(percentile(decisions, 0.9), 1),
                "click_max_ms": round(max(decisions), 1),
                "ecart_clicks": len(ecart),
                "ecart_click_median_ms": round(statistics.median(ecart), 1) if ecart else None,
            }
        )
    return result


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Best and median of the timed figures over the runs, and every run."""
    out: dict[str, Any] = {"runs": runs}
    timed = ("page_address_s", "first_card_s", "first_card_noticed_s", "host_cpu_s", "game_s")
    for key in (*timed, "click_median_ms"):
        values = [r[key] for r in runs if r.get(key) is not None]
        if values:
            out[key] = {"best": min(values), "median": round(statistics.median(values), 3)}
    out["goals"] = {"first_card_s": 1.5, "click_ms": 100.0}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, choices=(3, 4, 5), default=4)
    parser.add_argument("--runs", type=int, default=1, help="how many times (a new profile each)")
    parser.add_argument(
        "--first-card", action="store_true", help="stop each run at the first card (no clicks)"
    )
    parser.add_argument(
        "--cold", action="store_true", help="an empty cache folder each run (no shuffle tables)"
    )
    parser.add_argument(
        "--no-bytecode", action="store_true", help="compile the sources at every start (no .pyc)"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args()
    bytecode = not args.no_bytecode
    if bytecode:
        compile_package()
    else:
        forget_bytecode()
    runs = [
        bench(args.players, first_card_only=args.first_card, cold=args.cold, bytecode=bytecode)
        for _ in range(args.runs)
    ]
    results = summary(runs)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    how = ", ".join(
        [f"{args.runs} run(s), a new profile each"]
        + (["no tables cache (first run on this machine)"] if args.cold else [])
        + ([] if bytecode else ["no bytecode"])
    )
    print(f"browser table, {args.players} players (host --bots {args.players - 1}); {how}:")
    last = runs[-1]
    print(f"  headless Chromium started in     {last['browser_start_s']:.2f} s (before)")
    for key, label in (("page_address_s", "page address printed after"),
                       ("first_card_s", "first card shown after"),
                       ("first_card_noticed_s", "and noticed by Playwright after"),
                       ("host_cpu_s", "host's processor time"),
                       ("game_s", "whole deal played by clicks in")):  # fmt: skip
        if key in results:
            figures = results[key]
            print(f"  {label:<32} {figures['best']:.2f} s best, {figures['median']:.2f} s median")
    print("  (goal: the first card within 1.5 s)")
    if "clicks" in last:
        print(
            f"  click to answer ({last['clicks']} clicks, last run): median "
            f"{last['click_median_ms']:.0f} ms, p90 {last['click_p90_ms']:.0f} ms, "
            f"max {last['click_max_ms']:.0f} ms (goal < 100 ms)"
        )
        if last["ecart_clicks"]:
            print(
                f"  écart picks ({last['ecart_clicks']}): median "
                f"{last['ecart_click_median_ms']:.0f} ms"
            )


if __name__ == "__main__":
    main()
