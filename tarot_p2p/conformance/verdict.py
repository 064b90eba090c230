"""The verdict line an implementation under test prints when it stops
(``protocol/conformance.md`` §2), read by the kit and written by our own adapter.

Why a line of text: the kit runs any program, in any language, and the one thing every
program can do is print. The line says how the game ended for that peer in the terms of the
spec — finished, a violation naming the signing seat and what it signed, or an absence —
so the kit can hold it against what the scenario did.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tarot_p2p.protocol.codec import DecodeError
from tarot_p2p.protocol.envelope import open_envelope
from tarot_p2p.protocol.errors import ProtocolError
from tarot_p2p.seat.runner import Outcome

EQUIVOCATION = "equivocation"
"""The offence named when the evidence holds two messages of one seat for one slot."""
KINDS = frozenset(
    {
        "table",
        "key",
        "escrow",
        "complaint",
        "release",
        "shuffle",
        "shares",
        "action",
        "petit_sec",
        "ecart",
        "poignee",
        "play",
        "score",
        "abandon",
        EQUIVOCATION,
    }
)
"""What a violation may name: the kind of the message the offender signed (``table.md``
§2), or an equivocation (``wire.md`` §4.3)."""

_LINE = re.compile(
    r"verdict (?:(finished)|(disconnected)|absence (\d{1,2})|violation (\d{1,2}) ([a-z_]+))"
)


class VerdictError(ValueError):
    """A line that is not a verdict."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """``end`` is ``finished``, ``violation``, ``absence`` or ``disconnected``; ``seat`` the
    seat named (violation, absence); ``offence`` what the violation's seat signed."""

    end: str
    seat: int | None = None
    offence: str | None = None

    def line(self) -> str:
        """The verdict as the program prints it."""
        if self.end == "violation":
            return f"verdict violation {self.seat} {self.offence}"
        if self.end == "absence":
            return f"verdict absence {self.seat}"
        return f"verdict {self.end}"

    def __str__(self) -> str:
        return self.line().removeprefix("verdict ")

    @classmethod
    def parse(cls, text: str) -> Verdict:
        """The verdict of one line (surrounding white space ignored); raises
        :class:`VerdictError` for anything else."""
        found = _LINE.fullmatch(text.strip())
        if found is None:
            raise VerdictError(f"not a verdict line: {text.strip()[:80]!r}")
        finished, disconnected, absent, seat, offence = found.groups()
        if finished or disconnected:
            return cls(finished or disconnected)
        if absent is not None:
            return cls("absence", int(absent))
        if offence not in KINDS:
            raise VerdictError(f"{offence!r} is not a message kind nor {EQUIVOCATION!r}")
        return cls("violation", int(seat), offence)


def offence_of(evidence: Sequence[bytes], table_id: bytes) -> str:
    """What the offender signed, from the evidence the violation keeps: ``equivocation``
    when two messages share a slot, else the kind of the first (the offending message, or
    the earlier one a later opening proved false)."""
    slots: set[tuple[int, int]] = set()
    kinds: list[str] = []
    for wire in evidence:
        try:
            env = open_envelope(wire, table_id=table_id, roster=None)
        except (ProtocolError, DecodeError):
            continue
        if env.slot in slots:
            return EQUIVOCATION
        slots.add(env.slot)
        kinds.append(env.kind)
    if not kinds:
        raise ValueError("the evidence holds no message")
    return kinds[0]


def verdict_of(outcome: Outcome, table_id: bytes) -> Verdict:
    """How one of our seats' games ended, as the verdict line says it."""
    abort = outcome.abort
    if abort is None:
        return Verdict("finished")
    if abort.kind == "violation":
        return Verdict("violation", abort.seat, offence_of(abort.evidence, table_id))
    if abort.kind == "absence":
        return Verdict("absence", abort.seat)
    return Verdict("disconnected")
