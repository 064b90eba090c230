"""Deliberately wrong adapters, so that the kit's checks are seen to fail.

    python3 tests/conformance/lax_peer.py MODE CODE FOLDER

Each plays exactly as our adapter does (``clients/conformance_peer.py``), then lies:
``finished`` says the game finished whatever happened (a peer that checks nothing);
``wrong-seat`` names, for a violation, the seat after the one our peer named;
``keeps-evidence`` gives the right verdict but never passes a received message on (the
evidence ``wire.md`` §7.5 asks for).
"""

from __future__ import annotations

import sys
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients"))

import conformance_peer

from tarot_p2p.conformance.verdict import Verdict, verdict_of
from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.net.link import MessageLink


class KeepsEvidence:
    """A link that sends our own messages only: nothing it received goes out again."""

    def __init__(self, inner: MessageLink) -> None:
        self.inner = inner
        self.heard: set[bytes] = set()

    async def send(self, message: bytes) -> None:
        if message not in self.heard:
            await self.inner.send(message)

    async def receive(self) -> bytes:
        message = await self.inner.receive()
        self.heard.add(message)
        return message

    async def aclose(self) -> None:
        await self.inner.aclose()


def main() -> int:
    mode, text, folder = sys.argv[1:4]
    code = JoinCode.decode(text)
    if mode == "keeps-evidence":
        dial = conformance_peer.connect

        async def connect(code: JoinCode, identity: Ed25519PrivateKey) -> MessageLink:
            return KeepsEvidence(await dial(code, identity))

        conformance_peer.connect = connect
    outcome = trio.run(conformance_peer.play, code, Path(folder))
    verdict = verdict_of(outcome, code.table_id)
    if mode == "finished":
        verdict = Verdict("finished")
    elif mode == "wrong-seat" and verdict.seat is not None and outcome.peer is not None:
        verdict = Verdict(
            verdict.end, (verdict.seat + 1) % outcome.peer.config.seats, verdict.offence
        )
    print(verdict.line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
