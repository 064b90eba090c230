"""The game messages: one frozen dataclass and one schema per envelope ``type``.

Why a single registry: a body is checked against exactly one schema, chosen by the
envelope's ``type``, before any other code looks at it; every length that the protocol
fixes is checked here, so the state machine only ever sees well-formed values. Lengths
that depend on the state (how many shares a ``shares`` message must hold) are the state
machine's to check. ``protocol/table.md`` §2 is the normative description of these bodies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeAlias

from tarot_p2p.protocol.codec import Bytes, Kind, ListOf, Schema, SchemaError, Text, UInt, Value

POINT: Final = 33
SCALAR: Final = 32
CIPHERTEXT: Final = 66
PROOF: Final = 64
"""A Schnorr or DLEQ proof in compact form ``c || z``."""
MAX_SEATS: Final = 5
MAX_TAKER: Final = 30
"""The taker's deck: hand and chien, 30 cards at three players, 24 at four, 18 at five."""
MAX_SLOTS: Final = 78 + MAX_TAKER
MAX_PROOF: Final = 1 << 18
"""Generous bound on one proof's bytes (a shuffle proof of 78 cards is far smaller)."""
MAX_SCORE: Final = 1 << 31

_SLOT = UInt(maximum=MAX_SLOTS - 1)
_ACTION = ListOf(UInt(maximum=(1 << 16) - 1), max_len=32)
_PROOF = Bytes(1, MAX_PROOF)
_DLEQ = Bytes(PROOF)
_SHARES = Bytes(0, POINT * MAX_SLOTS)


@dataclass(frozen=True, slots=True)
class Setup:
    """The table as created: the rules, the seats' identity keys and the players' names."""

    config: bytes
    roster: tuple[bytes, ...]
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Key:
    """A per-hand public key share ``y = x·G``, its Schnorr proof of knowledge of ``x``, and
    the sender's escrow key ``e = E_j`` of the hand (``crypto.md`` §10.1)."""

    y: bytes
    pok: bytes
    e: bytes


@dataclass(frozen=True, slots=True)
class Escrow:
    """The sender's key share split into pieces sealed to the other seats (crypto §10.2)."""

    escrow: bytes


@dataclass(frozen=True, slots=True)
class Complaint:
    """The sender's piece of ``owner``'s escrow is wrong: ``e`` is its escrow key (§10.5)."""

    owner: int
    e: bytes


@dataclass(frozen=True, slots=True)
class Release:
    """The sender's piece of the absent seat's key share, in the clear (§10.6)."""

    piece: bytes


@dataclass(frozen=True, slots=True)
class Shuffle:
    deck: bytes
    proof: bytes


@dataclass(frozen=True, slots=True)
class Shares:
    """Decryption shares for slots the state prescribes, in ascending slot order."""

    d: bytes
    proof: bytes


@dataclass(frozen=True, slots=True)
class PetitSec:
    """The sender's shares for all his dealt slots, opening his hand to void the deal."""

    d: bytes
    proof: bytes


@dataclass(frozen=True, slots=True)
class Act:
    """An engine action that reveals no hidden card: a bid, the call, "go", a misère."""

    action: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Ecart:
    """The taker's proven re-shuffle of hand + chien, the écart, and the trumps he shows."""

    deck: bytes
    proof: bytes
    discard: tuple[int, ...]
    trumps: tuple[int, ...]
    d: bytes
    dproof: bytes


@dataclass(frozen=True, slots=True)
class Poignee:
    slots: tuple[int, ...]
    d: bytes
    proof: bytes


@dataclass(frozen=True, slots=True)
class Play:
    slot: int
    d: bytes
    proof: bytes


@dataclass(frozen=True, slots=True)
class Score:
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Abandon:
    """``seat`` stayed silent past the forfeit time: ``claims`` are the signatures, in
    seat order, of every other seat's forfeit claim for this slot (``forfeit.py``)."""

    seat: int
    claims: tuple[bytes, ...]


Message: TypeAlias = (
    Setup
    | Key
    | Escrow
    | Complaint
    | Release
    | Shuffle
    | Shares
    | PetitSec
    | Act
    | Ecart
    | Poignee
    | Play
    | Score
    | Abandon
)

_SCHEMAS: Final[dict[str, Schema[object]]] = {}
_TYPE_OF: Final[dict[type, str]] = {}


def _register(name: str, cls: type, fields: dict[str, tuple[str, Kind]]) -> None:
    _SCHEMAS[name] = Schema(cls, fields)
    _TYPE_OF[cls] = name


_register(
    "table",
    Setup,
    {
        "config": ("config", Bytes(1, 4096)),
        "roster": ("roster", ListOf(Bytes(32), max_len=MAX_SEATS, min_len=3)),
        "names": ("names", ListOf(Text(64), max_len=MAX_SEATS, min_len=3)),
    },
)
_register("key", Key, {"y": ("y", Bytes(POINT)), "pok": ("pok", _DLEQ), "e": ("e", Bytes(POINT))})
_register("escrow", Escrow, {"escrow": ("escrow", Bytes(POINT + 65 * 2, POINT + 65 * 4))})
_register(
    "complaint",
    Complaint,
    {"owner": ("owner", UInt(maximum=MAX_SEATS - 1)), "e": ("e", Bytes(SCALAR))},
)
_register("release", Release, {"piece": ("a", Bytes(SCALAR))})
_register(
    "shuffle",
    Shuffle,
    # 78 cards in a deal, one a member in the seat draw (its exact length is the state's)
    {"deck": ("deck", Bytes(CIPHERTEXT * 3, CIPHERTEXT * 78)), "proof": ("proof", _PROOF)},
)
_register("shares", Shares, {"d": ("d", _SHARES), "proof": ("proof", _DLEQ)})
_register("petit_sec", PetitSec, {"d": ("d", _SHARES), "proof": ("proof", _DLEQ)})
_register("action", Act, {"action": ("action", _ACTION)})
_register(
    "ecart",
    Ecart,
    {
        "deck": ("deck", Bytes(CIPHERTEXT * 18, CIPHERTEXT * MAX_TAKER)),
        "proof": ("proof", _PROOF),
        "discard": ("discard", ListOf(UInt(maximum=MAX_TAKER - 1), max_len=6, min_len=3)),
        "trumps": ("trumps", ListOf(UInt(maximum=MAX_TAKER - 1), max_len=6)),
        "d": ("d", Bytes(0, POINT * 6)),
        "dproof": ("dproof", Bytes(0, PROOF)),
    },
)
_register(
    "poignee",
    Poignee,
    {
        "slots": ("slots", ListOf(_SLOT, max_len=MAX_TAKER, min_len=1)),
        "d": ("d", _SHARES),
        "proof": ("proof", _DLEQ),
    },
)
_register(
    "play",
    Play,
    {"slot": ("slot", _SLOT), "d": ("d", Bytes(POINT)), "proof": ("proof", _DLEQ)},
)
_register(
    "score",
    Score,
    {
        "scores": (
            "scores",
            ListOf(UInt(maximum=MAX_SCORE, minimum=-MAX_SCORE), max_len=5, min_len=3),
        )
    },
)

_register(
    "abandon",
    Abandon,
    {
        "seat": ("seat", UInt(maximum=MAX_SEATS - 1)),
        "claims": ("claims", ListOf(Bytes(64), max_len=MAX_SEATS - 1, min_len=2)),
    },
)


def type_of(message: Message) -> str:
    """The envelope ``type`` string of a message."""
    return _TYPE_OF[type(message)]


def load_body(msg_type: str, body: Value) -> Message:
    """Check ``body`` against the schema of ``msg_type``; raises :class:`SchemaError`."""
    schema = _SCHEMAS.get(msg_type)
    if schema is None:
        raise SchemaError(f"unknown message type {msg_type!r}")
    message: Message = schema.load(body, msg_type)  # type: ignore[assignment]
    return message


def dump_body(message: Message) -> dict[str, object]:
    """The wire map of ``message`` (checked against its own schema)."""
    return _SCHEMAS[type_of(message)].dump(message)
