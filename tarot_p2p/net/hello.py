"""The hello frame: the first frame of every TCP connection to a hub says what it is for.

Why: one listening port serves several things. A relay holds many tables, so the hub must
know which table's Noise handshake follows before it starts (``table``); hosts ask a relay
for a new table (``create``); and short codes meet at rendezvous channels (``claim`` by the
host, ``open`` by a joiner, :mod:`.channels`). The hub answers with exactly one frame:
what was asked for, or an error whose reason is a short ASCII word (``REASONS`` says each
in plain words for the player), and closes the connection after an error.

Normative: ``protocol/wire.md`` §5.0. Everything here is in the clear: the hello names a
table id and a channel, which are not secrets, and a ``create`` names the table's link key,
which lets a link in but seats nobody (``wire.md`` §8); the join secret never reaches a hub
(only the host and its joiners hold it), the game travels only inside Noise, the short
code's password only inside SPAKE2 (``rendezvous.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import trio

from tarot_p2p.net.framing import ConnectionClosed, FramedStream, LinkError, keep_alive
from tarot_p2p.net.noise import MAX_MESSAGE
from tarot_p2p.protocol.codec import (
    Bytes,
    DecodeError,
    Limits,
    Schema,
    Text,
    UInt,
    Value,
    decode,
    encode,
)

MAX_HELLO = 512
"""Bytes of a hello or of its answer (both are small maps)."""
MAX_CHANNEL = 9999
"""Rendezvous channels are 1 to 9999: the number a short code starts with."""
_LIMITS = Limits(
    max_buffer_size=MAX_HELLO, max_str_len=300, max_bin_len=64, max_array_len=0, max_map_len=8
)

REASONS = {
    "no-table": "this table is not on that relay any more: ask the host for a new code",
    "not-a-relay": "that address is a player's own table, not a relay: "
    "give the address of a relay (tarot-p2p relay) with --relay",
    "full": "that relay is full (it holds as many tables as it can): try again in a few "
    "minutes, or use another relay",
    "no-channel": "that code is not known there: check it with the host "
    "(codes look like 7-guitar-orbit)",
    "busy": "too many people are using that code at once: try again in a minute",
    "bad-hello": "that address does not speak the tarot-p2p protocol of this version",
    "too-many": "your address already holds as many tables or codes at that relay as it "
    "allows one address: finish or leave one of them, or wait a few minutes",
    "password": "that relay makes tables only for hosts who give its password: ask the "
    "person who runs it for the password",
    "not-allowed": "that relay makes tables only for the hosts its operator lets in: send "
    "your key's fingerprint to the person who runs it",
    "clock": "the clock of this computer and the relay's differ by more than 10 minutes: "
    "set this computer's date and time right, then try again",
    "tries": "too many wrong codes were tried from your address: check the code with the "
    "host, then try again in a few minutes",
    "no-host": "that relay gives codes only to the host of a table there: "
    "make the table first (tarot-p2p host --relay ADDRESS)",
}
"""Every reason a hub may give, in the words the player reads."""


class HelloError(LinkError):
    """A hello or an answer that is not one of the forms of ``wire.md`` §5.0."""


class HubRefused(LinkError):
    """The hub answered the hello with an error; ``str()`` says it for the player (in
    ``words`` when the caller knows better ones, with the next step to take)."""

    def __init__(self, reason: str, words: str | None = None) -> None:
        super().__init__(words or REASONS.get(reason, f"the hub refused the connection ({reason})"))
        self.reason = reason


@dataclass(frozen=True, slots=True)
class TableHello:
    """The Noise XX handshake for this table follows."""

    table_id: bytes


@dataclass(frozen=True, slots=True)
class CreateHello:
    """A relay is asked to hold the table ``table_id`` (drawn by the host) whose links prove
    ``link_key``, by the host whose identity key is ``host``, at ``time`` (Unix seconds)
    with a fresh ``nonce``: ``signature`` by that key and ``proof`` under the relay's
    password (:mod:`.access`) say who asks and that it may. The join secret is not here:
    the relay never learns it."""

    time: int
    nonce: bytes
    host: bytes
    table_id: bytes
    link_key: bytes
    signature: bytes
    proof: bytes


@dataclass(frozen=True, slots=True)
class ClaimHello:
    """A host asks for a rendezvous channel: ``channel`` if free (0: the lowest free)."""

    channel: int


@dataclass(frozen=True, slots=True)
class OpenHello:
    """A joiner asks to talk to the claimer of ``channel``."""

    channel: int


Hello = TableHello | CreateHello | ClaimHello | OpenHello


@dataclass(frozen=True, slots=True)
class Ok:
    pass


@dataclass(frozen=True, slots=True)
class Created:
    """A relay holds the table: its id, the relay's identity key (for the code's
    fingerprint) and the address the relay gives out (``host:port``, ``wire.md`` §5.0)."""

    table_id: bytes
    identity: bytes
    address: str


@dataclass(frozen=True, slots=True)
class Claimed:
    channel: int


@dataclass(frozen=True, slots=True)
class Refused:
    reason: str


Answer = Ok | Created | Claimed | Refused

_CHANNEL = UInt(MAX_CHANNEL, 1)
_SCHEMAS: dict[str, Schema[object]] = {
    "table": Schema(TableHello, {"table_id": ("t", Bytes(32))}),
    "create": Schema(
        CreateHello,
        {
            "time": ("n", UInt(2**64 - 1)),
            "nonce": ("r", Bytes(16)),
            "host": ("h", Bytes(32)),
            "table_id": ("t", Bytes(32)),
            "link_key": ("l", Bytes(16)),
            "signature": ("g", Bytes(64)),
            "proof": ("w", Bytes(32)),
        },
    ),
    "claim": Schema(ClaimHello, {"channel": ("c", UInt(MAX_CHANNEL))}),
    "open": Schema(OpenHello, {"channel": ("c", _CHANNEL)}),
    "ok": Schema(Ok, {}),
    "created": Schema(
        Created,
        {
            "table_id": ("t", Bytes(32)),
            "identity": ("i", Bytes(32)),
            "address": ("a", Text(261)),
        },
    ),
    "claimed": Schema(Claimed, {"channel": ("c", _CHANNEL)}),
    "error": Schema(Refused, {"reason": ("e", Text(32))}),
}
_KINDS: dict[type, str] = {
    TableHello: "table",
    CreateHello: "create",
    ClaimHello: "claim",
    OpenHello: "open",
    Ok: "ok",
    Created: "created",
    Claimed: "claimed",
    Refused: "error",
}


def encode_frame(value: Hello | Answer) -> bytes:
    """The fixed form of a hello or an answer: its fields and ``"k"``, the kind."""
    kind = _KINDS[type(value)]
    return encode({**_SCHEMAS[kind].dump(value), "k": kind})


def _load(data: bytes, kinds: tuple[str, ...]) -> object:
    try:
        value: Value = decode(data, _LIMITS)
        if not isinstance(value, dict) or value.get("k") not in kinds:
            raise HelloError(f"expected one of {', '.join(kinds)}")
        kind = value.pop("k")
        assert isinstance(kind, str)
        return _SCHEMAS[kind].load(value, kind)
    except DecodeError as exc:
        raise HelloError(f"bad hello: {exc}") from exc


def read_hello(data: bytes) -> Hello:
    hello = _load(data, ("table", "create", "claim", "open"))
    assert isinstance(hello, TableHello | CreateHello | ClaimHello | OpenHello)
    return hello


def read_answer(data: bytes) -> Answer:
    answer = _load(data, ("ok", "created", "claimed", "error"))
    assert isinstance(answer, Ok | Created | Claimed | Refused)
    return answer


async def knock(framed: FramedStream, hello: Hello) -> Answer:
    """Say ``hello`` and return the hub's answer; raises :class:`HubRefused` on an error
    answer. The caller bounds the wait with its cancel scope."""
    await framed.send_frame(encode_frame(hello))
    try:
        answer = read_answer(await framed.receive_frame())
    except ConnectionClosed as exc:
        raise LinkError(f"the hub closed the connection: {exc}") from exc
    if isinstance(answer, Refused):
        raise HubRefused(answer.reason)
    return answer


async def dial(
    host: str, port: int, hello: Hello, timeout: float, *, local_address: str | None = None
) -> tuple[FramedStream, Answer]:
    """A new TCP connection to ``host:port`` that said ``hello``, and the hub's answer
    (``local_address``: the address of this machine to connect from)."""
    with trio.fail_after(timeout):
        stream = await trio.open_tcp_stream(host, port, local_address=local_address)
        keep_alive(stream)
        framed = FramedStream(stream, MAX_MESSAGE)
        try:
            return framed, await knock(framed, hello)
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise
