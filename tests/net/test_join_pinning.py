"""``join`` and ``bot`` pin the host named by the join code (when the hub runs in the host):
a set-up sent by anyone else through the hub is not taken, even when it comes first.

A real ``bot`` process, a real hub on loopback, a member holding the code who forges a
set-up seating the victim at its own table.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import trio

from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.meet.lobby import read_lobby_request
from tarot_p2p.net.link import connect
from tarot_p2p.protocol.envelope import open_envelope
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.transcript import read_frames
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.seat.session import host_table, join_table
from tests.net.test_game import SECRET, TABLE_ID, identity, tcp_hub

ROOT = str(Path(__file__).resolve().parents[2])


def first_record(profile: Path) -> bytes | None:
    for path in profile.glob("tables/*/transcript.tp2p"):
        records = read_frames(path.read_bytes()).records
        if records:
            return records[0]
    return None


async def test_a_forged_set_up_from_another_member_is_not_taken(tmp_path: Path) -> None:
    host, rogue, other = (identity("pin", i) for i in range(3))
    config = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=1)
    profile = tmp_path / "victim"
    async with tcp_hub(host) as (hub, _, code):
        thief = await connect(code, rogue)
        command = [sys.executable, "-m", "tarot_p2p", "bot", code.encode(), "--name", "Victim"]
        command += ["--profile", str(profile), "--lobby-timeout", "60"]
        env = {"PYTHONPATH": ROOT, "PATH": "/usr/bin:/bin"}
        async with trio.open_nursery() as nursery:
            process = await nursery.start(
                lambda task_status: trio.run_process(
                    command, stdout=subprocess.DEVNULL, env=env, check=False,
                    task_status=task_status,
                )
            )  # fmt: skip
            try:
                with trio.fail_after(60):
                    while True:  # the victim's join request, as every member sees it
                        try:
                            victim = read_lobby_request(await thief.receive(), TABLE_ID, SECRET)
                            break
                        except ValueError:
                            continue
                # The thief seats the victim at a table of its own making, signed by it.
                names = ["Thief", victim.name, "Other"]
                roster = [rogue.public_key(), victim.identity, other.public_key()]
                forged = Peer(
                    config, TABLE_ID, roster, names,
                    seat=0, identity=rogue, rng=DeterministicRandom(b"thief"),
                ).next_message()  # fmt: skip
                assert forged is not None
                await thief.send(forged)
                # Then the real host seats the victim and another player.
                nursery.start_soon(
                    join_table, await connect(code, other), other, "Other", TABLE_ID, SECRET
                )
                link = hub.local_link()
                seated = await host_table(link, host, "Host", config, TABLE_ID, SECRET, timeout=60)
                setup = seated.next_message()
                assert setup is not None
                await link.send(setup)
                with trio.fail_after(60):
                    while (record := first_record(profile)) is None:
                        await trio.sleep(0.05)
                taken = open_envelope(record, table_id=TABLE_ID, roster=None)
                assert taken.body["roster"][0] == host.public_key().public_bytes_raw()  # type: ignore[index]
            finally:
                process.kill()
                nursery.cancel_scope.cancel()
