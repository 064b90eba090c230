"""Our own peer under the conformance kit: it joins, plays as a bot and prints its verdict.

Why it is here: it is the adapter ``protocol/conformance.md`` asks of an implementation,
written for ours, and the kit's self-test runs it:

    tarot-p2p conformance --peer "python3 clients/conformance_peer.py {code} {dir}"

An adapter for another implementation does the same three things: join the table of the
join code, keeping its files in the folder; play any legal moves; print one verdict line
as its last line when its game stops.

    python3 clients/conformance_peer.py CODE FOLDER
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import trio

from tarot_p2p.cli.bot import BotPolicy
from tarot_p2p.conformance.verdict import verdict_of
from tarot_p2p.files.profile import Profile
from tarot_p2p.files.tables_cache import load_tables
from tarot_p2p.net.joincode import JoinCode, JoinCodeError
from tarot_p2p.net.link import connect
from tarot_p2p.seat.runner import Outcome
from tarot_p2p.seat.session import join_table, play_seat


async def play(code: JoinCode, folder: Path) -> Outcome:
    """Sit at the table of ``code`` as an easy bot and play until the game stops."""
    profile = Profile(folder)
    identity = profile.identity()
    await trio.to_thread.run_sync(load_tables)  # the shuffle's tables, before we sit
    link = await connect(code, identity)
    try:
        peer, _ = await join_table(
            link,
            identity,
            "Conformance",
            code.table_id,
            code.secret,
            hub_fingerprint=code.hub_fingerprint,
        )
        return await play_seat(peer, link, BotPolicy(level="easy"), profile.tables, identity)
    finally:
        with trio.CancelScope(shield=True):
            await link.aclose()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("code", help="the join code the kit gives")
    parser.add_argument("folder", type=Path, help="an empty folder for this seat's files")
    args = parser.parse_args(argv)
    try:
        code = JoinCode.decode(args.code)
    except JoinCodeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    outcome = trio.run(play, code, args.folder)
    print(verdict_of(outcome, code.table_id).line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
