"""A real ``tarot-p2p relay`` under attack while a real game plays through it.

The scenario of ``benchmarks/relay_load.py``, kept short: the relay, a host and two bots
as separate programs, a second host waiting in its lobby, and strangers connecting from
127.0.0.2 to 127.0.0.9 (silent sockets, create floods, members and claims at their own
tables, half handshakes, guessers of the waiting host's code). The game finishes, every
honest connection from 127.0.0.1 gets in, the strangers hold hundreds of connections and
are refused by the per-address limits, and the waiting host says once that its code is
being tried.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.relay_load import run


@pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads the relay's memory from /proc"
)
async def test_a_game_through_a_relay_under_attack_finishes_and_players_get_in(
    tmp_path: Path,
) -> None:
    # (a probe every 0.2 s: a deal that everybody passes ends the game in under 2 s)
    report = await run(tmp_path, sources=8, deals=1, probe_every=0.2, kill_after=None, limit=120)
    assert report.game_finished, report
    assert report.honest_tried >= 3 and report.honest_got_in == report.honest_tried, report
    assert report.hostile_held_max >= 200  # the attack was real: hundreds held at once
    assert report.relay_closed > 100  # its silent sockets closed, at once or at a deadline
    assert report.stranger_tables <= 8 * 4  # four tables an address, however many asked
    assert report.victim_told_guessed <= 1  # one line, however many guesses
