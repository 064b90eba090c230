"""Who broke the protocol: us, an unidentifiable party, or a named seat.

Why three families (h11 style, refined for a relay that is untrusted):

* :class:`LocalProtocolError` — our own code misused the API (sealing with the wrong key,
  an unencodable body). A bug here, never evidence against anyone.
* :class:`UnattributedMessage` — bytes that arrived but that no seat provably sent:
  malformed, badly signed, or a replay from another table. Any hub member, the hub or
  anyone on the path could have produced them, so they are ignored (and logged) and
  blame no seat; the link stays up, because through the hub it carries every seat's
  messages and one bad member must not disconnect the table.
* :class:`SeatViolation` — a message validly signed by a seat that breaks the protocol
  (fork, equivocation, and later every rule or proof failure). It names the seat and keeps
  the signed message(s) as evidence that any third party can verify; the hand is aborted
  with this attribution.
"""

from __future__ import annotations


class ProtocolError(Exception):
    """Base of every protocol failure."""


class LocalProtocolError(ProtocolError):
    """We tried to do something the protocol forbids."""


class RemoteProtocolError(ProtocolError):
    """Something that arrived breaks the protocol."""


class UnattributedMessage(RemoteProtocolError):
    """Received bytes no seat can be held to; ``raw`` keeps them for the log."""

    def __init__(self, reason: str, raw: bytes) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


class SeatViolation(RemoteProtocolError):
    """A seat signed something that breaks the protocol.

    ``evidence`` holds the offending envelopes in their exact wire form (signature
    included), so anyone holding the roster can re-verify the accusation.
    """

    def __init__(self, seat: int, reason: str, evidence: tuple[bytes, ...]) -> None:
        super().__init__(f"seat {seat}: {reason}")
        self.seat = seat
        self.reason = reason
        self.evidence = evidence
