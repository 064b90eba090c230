"""Every script of ``benchmarks/`` runs to its end and prints its figures as JSON.

Why: the benchmarks are how speed is reported, and nothing else runs them. Three of them
had stopped working unnoticed when the code under them changed (a renamed option of the
score counter, a new argument of ``host_table``, a bot to kill mid-game that a faster game
had already let go), so each runs here once at the smallest size that still goes through
all of its code. No figure is judged: speed is never asserted in tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

SMALLEST: dict[str, str] = {
    "bot_tournament": "--players 3 --deals 2 --levels easy --pairs easy-club club-strong "
    "--think 0.01",
    "chaos_bench": "--hands 2",
    "crypto_bench": "--quick",
    "fairness_bench": "--hands 10 --per-table 5",
    "game_bench": "--players 3 --deals 1",
    "hand_bench": "--players 3",
    "latency_bench": "--players 3 --deals 1 --delay-ms 5",
    "net_bench": "--messages 50",
    "relay_load": "--sources 2",
    "rules_bench": "--hands 30 --repeat 1",
    "scoring_bench": "--quick",
    "shuffle_bench": "--runs 2",
    "sync_amplification_bench": "--deals 1 --every 0.5",
    "ui_bench": "--runs 1",
}
"""Arguments for the smallest run of each script that goes through all of its code."""

HELPERS = {"delay_proxy"}
"""Scripts that measure nothing themselves (a tool another benchmark starts)."""


def scripts() -> list[str]:
    return sorted(p.stem for p in BENCHMARKS.glob("*.py") if p.stem not in HELPERS)


def test_every_benchmark_has_a_smallest_run() -> None:
    assert scripts() == sorted(SMALLEST)


@pytest.mark.parametrize("name", scripts())
def test_benchmark_runs(name: str, tmp_path: Path) -> None:
    if name == "ui_bench" and not Path("/usr/bin/chromium").exists():
        pytest.skip("no Chromium at /usr/bin/chromium (.ci/run installs Debian's chromium package)")
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / f"{name}.py"), *SMALLEST[name].split(), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout)
    assert isinstance(figures, dict) and figures
    if name == "relay_load":  # the bot it kills is killed while its game is played
        assert figures["bot_restarted"] and figures["game_finished"]
