"""Deliberately wrong adapters, so that the kit's checks are seen to fail.

    python3 tests/conformance/lax_peer.py MODE CODE FOLDER

Both play exactly as our adapter does (``clients/conformance_peer.py``), then lie:
``finished`` says the game finished whatever happened (a peer that checks nothing);
``wrong-seat`` names, for a violation, the seat after the one our peer named.
"""

from __future__ import annotations

import sys
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients"))

import conformance_peer

from tarot_p2p.conformance.verdict import Verdict, verdict_of
from tarot_p2p.net.joincode import JoinCode


def main() -> int:
    mode, text, folder = sys.argv[1:4]
    code = JoinCode.decode(text)
    outcome = trio.run(conformance_peer.play, code, Path(folder))
    verdict = verdict_of(outcome, code.table_id)
    if mode == "finished":
        verdict = Verdict("finished")
    elif verdict.seat is not None and outcome.peer is not None:
        verdict = Verdict(
            verdict.end, (verdict.seat + 1) % outcome.peer.config.seats, verdict.offence
        )
    print(verdict.line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
