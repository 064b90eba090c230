"""The lobby: how the host learns who sits, and how each joiner learns the table it joined
(normative description: ``protocol/lobby.md``).

Why a step before the transcript: the set-up message (``protocol/table.md`` §4.1) lists the
seats' identity keys and names, so the host must collect them first, and a joiner cannot
build its :class:`~tarot_p2p.protocol.peer.Peer` before it has seen that message. Both
travel through the hub like everything else.

* A joiner sends one **join request** as soon as its link is up: the msgpack array
  ``[payload, signature]`` with ``payload`` the fixed-form map ``{"i": bin 32 identity
  key, "k": "join", "n": str name, "p": bin 32 seat proof, "t": bin 32 table id}`` and
  ``signature`` Ed25519 over ``JOIN_REQUEST_DOMAIN || payload``. The signature shows the
  sender holds the key it asks to sit with; the table id keeps a request from being
  replayed at another table; the seat proof (:func:`seat_proof`, an HMAC under the join
  secret of the table id and that key) shows it was given the join secret. A hub holds
  only the link key, which lets a link in (``wire.md`` §5.2) but makes no seat proof: a
  relay that sees Bob's request cannot make one for another key, so it cannot seat
  anyone at its own tables. Peers that already play ignore it (it is no envelope of the
  roster: unattributed).
* The host seats distinct identities in the order the hub relayed their requests (a
  name already taken, ignoring case, gets `` (2)``, `` (3)``... appended) and sends the
  set-up once every seat is taken. A seat holds only while its requests keep coming: a
  joiner that quits first sends a **leave request** (the same form, ``"k": "leave"``),
  and one whose requests stopped for :data:`LIVENESS` s is unseated too, so nobody who
  left before the start is dealt in. A repeat from a seated key only refreshes its seat
  (and its name, if it changed).
* A joiner takes the first set-up message (slot ``(0, 0)``, seat 0) whose signature
  verifies under roster key 0 and which seats its own key under its name (or that name
  with such a suffix). When the hub runs inside the host (its identity is the host's
  key), the join code's hub fingerprint must also be roster key 0's: only the host can
  then have sent it. With a standalone relay the joiner shows the host key's
  fingerprint, which the players can compare out of band.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.protocol.codec import (
    Bytes,
    DecodeError,
    Limits,
    Schema,
    Text,
    UInt,
    decode,
    encode,
    load_signed,
)
from tarot_p2p.protocol.envelope import SIGNATURE_DOMAIN
from tarot_p2p.protocol.errors import ProtocolError
from tarot_p2p.protocol.identity import fingerprint
from tarot_p2p.protocol.names import MAX_NAME, NameRefused, checked_name
from tarot_p2p.protocol.peer import Peer, read_setup
from tarot_p2p.rules.config import TableConfig

JOIN_REQUEST_DOMAIN = b"tarot-p2p/join-request/v2\x00"
V1_REQUEST_DOMAIN = b"tarot-p2p/join-request/v1\x00"
"""The domain of version-1 programs' requests: read only to tell the host who must update."""
TOLD_VERSIONS = 16
"""Players of another version the host is told about, at most (each key once)."""
SEAT_TAG = b"tarot-p2p/seat/v1\x00"
JOIN = "join"
LEAVE = "leave"
JOIN_AGAIN = 5.0
"""Seconds between two join requests of a joiner still waiting for the set-up."""
LIVENESS = 3 * JOIN_AGAIN
"""A seated joiner whose last join request is this old has left (two repeats lost)."""
_LIMITS = Limits(max_buffer_size=1024, max_str_len=256, max_bin_len=256, max_map_len=6)


class LobbyError(ValueError):
    """A lobby message that cannot be used (ignored by the receiver)."""


class ForeignHost(LobbyError):
    """A set-up signed by another key than the host's that the joiner requires."""


class OtherVersion(LobbyError):
    """A request or a set-up of another protocol version (``lobby.md`` §1.4): ``str()``
    says it for the player, naming who must update."""

    def __init__(self, words: str, version: int, identity: bytes = b"", name: str = "") -> None:
        super().__init__(words)
        self.version = version
        self.identity = identity
        self.name = name


def other_version_words(theirs: int) -> str:
    """What a joiner reads when the host's set-up is of protocol version ``theirs``."""
    who = "the host's program must be updated" if theirs < PROTOCOL_VERSION else "update it"
    return (
        f"this table is played with tarot-p2p protocol {theirs}; your program speaks "
        f"{PROTOCOL_VERSION}: {who}"
    )


@dataclass(frozen=True, slots=True)
class _Request:
    identity: bytes
    kind: str
    name: str
    proof: bytes
    table_id: bytes
    version: int


@dataclass(frozen=True, slots=True)
class _RequestV1:
    identity: bytes
    kind: str
    name: str
    table_id: bytes


_REQUEST_V1 = Schema(
    _RequestV1,
    {
        "identity": ("i", Bytes(32)),
        "kind": ("k", Text(8)),
        "name": ("n", Text(MAX_NAME)),
        "table_id": ("t", Bytes(32)),
    },
)
_REQUEST = Schema(
    _Request,
    {
        "identity": ("i", Bytes(32)),
        "kind": ("k", Text(8)),
        "name": ("n", Text(MAX_NAME)),
        "proof": ("p", Bytes(32)),
        "table_id": ("t", Bytes(32)),
        "version": ("v", UInt(0xFFFF)),
    },
)


@dataclass(frozen=True, slots=True)
class LobbyRequest:
    identity: Ed25519PublicKey
    kind: str
    """:data:`JOIN` or :data:`LEAVE`."""
    name: str
    """The name asked for, normalised (a leave request's, which nobody reads, as sent)."""


def clean_name(name: str) -> str:
    """A player name as the table stores it (``lobby.md`` §1, §1.2): normalised, 1 to 64
    characters, none that a terminal obeys or that hides text. Raises
    :class:`~tarot_p2p.protocol.names.NameRefused` (a ``ValueError``) saying why."""
    return checked_name(name)


def seat_proof(secret: bytes, table_id: bytes, identity: bytes) -> bytes:
    """The proof that the holder of ``identity`` (raw key) was given the join ``secret`` of
    ``table_id`` (``lobby.md`` §1). Bound to the key: seeing one joiner's proof, a relay
    still cannot make one for a key of its own."""
    return hmac.new(secret, SEAT_TAG + table_id + identity, hashlib.sha256).digest()


def _request(
    identity: Ed25519PrivateKey, kind: str, name: str, table_id: bytes, secret: bytes
) -> bytes:
    raw = identity.public_key().public_bytes_raw()
    payload = encode(
        {
            "i": raw,
            "k": kind,
            "n": clean_name(name),
            "p": seat_proof(secret, table_id, raw),
            "t": table_id,
            "v": PROTOCOL_VERSION,
        }
    )
    return encode([payload, identity.sign(JOIN_REQUEST_DOMAIN + payload)])


def join_request(identity: Ed25519PrivateKey, name: str, table_id: bytes, secret: bytes) -> bytes:
    """A join request for ``table_id`` whose join secret is ``secret`` (the long code's)."""
    return _request(identity, JOIN, name, table_id, secret)


def leave_request(identity: Ed25519PrivateKey, name: str, table_id: bytes, secret: bytes) -> bytes:
    """What a joiner sends when it quits before the set-up, so its seat is freed at once."""
    return _request(identity, LEAVE, name, table_id, secret)


def _verified(identity: bytes, signature: bytes, signed: bytes) -> Ed25519PublicKey:
    """The key ``identity`` (raw), once ``signature`` over ``signed`` verifies under it."""
    try:
        key = Ed25519PublicKey.from_public_bytes(identity)
        key.verify(signature, signed)
    except (InvalidSignature, ValueError):
        raise LobbyError("join request: bad signature") from None
    return key


def _version_1(wire: bytes, table_id: bytes) -> None:
    """Raise :class:`OtherVersion` if ``wire`` is a version-1 program's join request for
    ``table_id`` (its form: no seat proof, no version, the v1 domain), validly signed."""
    try:
        payload, signature, old = load_signed(wire, _LIMITS, _REQUEST_V1, "join request")
    except DecodeError:
        return
    if old.kind == JOIN and old.table_id == table_id:
        _verified(old.identity, signature, V1_REQUEST_DOMAIN + payload)
        raise OtherVersion("protocol 1", 1, old.identity, old.name)


def read_lobby_request(wire: bytes, table_id: bytes, secret: bytes | None) -> LobbyRequest:
    """Parse and verify a join or leave request for ``table_id`` (raises :class:`LobbyError`).

    ``secret``: the table's join secret, whose seat proof the request must carry; the host
    always gives it. ``None`` only where nothing is given for the request but what its key
    could read anyway (a member answering a seated key's request with the set-up record,
    ``lobby.md`` §3): the signature is still checked.

    A validly signed join request of another protocol version (a version-1 program's form
    included) raises :class:`OtherVersion`, naming its key and name (``lobby.md`` §1.4)."""
    try:
        payload, signature, request = load_signed(wire, _LIMITS, _REQUEST, "join request")
    except DecodeError as exc:
        _version_1(wire, table_id)
        raise LobbyError(str(exc)) from None
    if request.version != PROTOCOL_VERSION and request.table_id == table_id:
        _verified(request.identity, signature, JOIN_REQUEST_DOMAIN + payload)
        raise OtherVersion(
            f"protocol {request.version}", request.version, request.identity, request.name
        )
    if request.kind not in (JOIN, LEAVE) or request.table_id != table_id:
        raise LobbyError("not a lobby request for this table")
    if secret is not None and not hmac.compare_digest(
        request.proof, seat_proof(secret, table_id, request.identity)
    ):
        raise LobbyError("join request: the seat proof is not made with the join secret")
    key = _verified(request.identity, signature, JOIN_REQUEST_DOMAIN + payload)
    if request.kind == LEAVE:  # its name is not read (lobby.md §1.1)
        return LobbyRequest(key, LEAVE, request.name)
    try:
        return LobbyRequest(key, JOIN, clean_name(request.name))
    except NameRefused as exc:  # lobby.md §1.2: not seated, as any request it cannot use
        raise LobbyError(f"join request refused: {exc}") from None


class Seating:
    """The host's list of seats, filled from join requests in relay order and kept live.

    Why liveness: a joiner that quit before the table was full must not keep its seat, or
    the next joiner is refused and the game starts with a ghost. A seat holds while its
    join requests keep coming (one every :data:`JOIN_AGAIN` s): it is freed by the joiner's
    leave request, or once its last request is older than :data:`LIVENESS` s. Sans-IO: the
    caller passes the time (``now``) and asks when the next seat may fall silent.
    """

    def __init__(self, seats: int, host: Ed25519PublicKey, host_name: str, secret: bytes) -> None:
        self.seats = seats
        self._secret = secret
        """The join secret: only requests proving it seat anyone (``lobby.md`` §2)."""
        self._host = host
        self._host_name = clean_name(host_name)
        self._joiners: dict[bytes, _Seat] = {}
        """Seated joiners by raw identity key, in the order they were seated."""
        self._told: set[bytes] = set()
        """Keys of other versions' players the host was told about (each once)."""

    @property
    def keys(self) -> list[Ed25519PublicKey]:
        return [self._host, *(s.identity for s in self._joiners.values())]

    @property
    def names(self) -> list[str]:
        return [self._host_name, *(s.name for s in self._joiners.values())]

    @property
    def full(self) -> bool:
        return len(self._joiners) + 1 == self.seats

    def next_silence(self) -> float:
        """When the first seated joiner falls silent unless it asks again (``inf``: none)."""
        return min((s.heard + LIVENESS for s in self._joiners.values()), default=float("inf"))

    def offer(self, wire: bytes, table_id: bytes, now: float) -> LobbyChange | None:
        """Apply ``wire`` if it is a valid request for this table; the change it makes
        (``None``: nothing to show, e.g. a repeat, junk, or a full table)."""
        try:
            request = read_lobby_request(wire, table_id, self._secret)
        except OtherVersion as other:
            if other.identity in self._told or len(self._told) >= TOLD_VERSIONS:
                return None
            self._told.add(other.identity)
            return self._change("other-version", other.name, other.version)
        except LobbyError:
            return None
        raw = request.identity.public_bytes_raw()
        seat = self._joiners.get(raw)
        if request.kind == LEAVE:
            if seat is None:
                return None
            del self._joiners[raw]
            return self._change("left", seat.name)
        if raw == self._host.public_bytes_raw():
            return None
        if seat is not None:
            seat.heard = now
            if request.name == seat.asked:
                return None
            seat.asked, seat.name = request.name, self._unique(request.name, raw)
            return self._change("renamed", seat.name)
        if self.full:
            return None
        name = self._unique(request.name, raw)
        self._joiners[raw] = _Seat(request.identity, request.name, name, now)
        return self._change("joined", name)

    def expire(self, now: float) -> list[LobbyChange]:
        """Free the seats whose last request is older than :data:`LIVENESS` s at ``now``."""
        silent = [raw for raw, s in self._joiners.items() if now - s.heard >= LIVENESS]
        changes = []
        for raw in silent:
            seat = self._joiners.pop(raw)
            changes.append(self._change("silent", seat.name))
        return changes

    def _unique(self, name: str, raw: bytes) -> str:
        """``name``, or with the smallest free suffix when another seat holds it (any case)."""
        taken = {self._host_name.casefold()}
        taken |= {s.name.casefold() for k, s in self._joiners.items() if k != raw}
        unique, suffix = name, 2
        while unique.casefold() in taken:
            unique, suffix = f"{name[: MAX_NAME - 6]} ({suffix})", suffix + 1
        return unique

    def _change(self, kind: str, name: str, version: int | None = None) -> LobbyChange:
        missing = self.seats - 1 - len(self._joiners)
        return LobbyChange(kind, name, tuple(self.names), missing, version)


@dataclass(slots=True)
class _Seat:
    identity: Ed25519PublicKey
    asked: str
    """The name its last request asked for (the seat's name may carry a suffix)."""
    name: str
    heard: float
    """When its last join request came."""


@dataclass(frozen=True, slots=True)
class LobbyChange:
    """What changed at the host's table before it started, for the host to show."""

    kind: str
    """"joined", "renamed", "left" (its leave request), "silent" (its requests stopped), or
    "other-version" (a program of another protocol version asked: seated nobody)."""
    name: str
    """The player's name at the table (after the change, for "renamed")."""
    names: tuple[str, ...]
    """Everyone seated now, the host first."""
    missing: int
    """How many seats are still free."""
    version: int | None = None
    """For "other-version": the protocol version the player's program speaks."""


@dataclass(frozen=True, slots=True)
class TableOffer:
    """A verified set-up message as a joiner sees it."""

    wire: bytes
    config: TableConfig
    roster: tuple[Ed25519PublicKey, ...]
    names: tuple[str, ...]
    index: int | None
    """Our position in the roster, ``None`` when the table is full without us."""


def _setup_version(wire: bytes, table_id: bytes, hub_fingerprint: bytes | None) -> None:
    """Raise :class:`OtherVersion` if ``wire`` is a set-up of this table (slot (0, 0), seat
    0, kind ``table``) of another protocol version, signed by its roster key 0 (and, when
    given, the host the join code names). The envelope's form and signature are the same in
    versions 1 and 2 (``wire.md`` §3), so a joiner can tell it before reading the body."""
    try:
        outer = decode(wire, _SETUP_PEEK)
        if not isinstance(outer, list) or len(outer) != 2:
            return
        payload, signature = outer
        if not isinstance(payload, bytes) or not isinstance(signature, bytes):
            return
        fields = decode(payload, _SETUP_PEEK)
        if not isinstance(fields, dict):
            return
        version, body = fields.get("v"), fields.get("b")
        roster = body.get("roster") if isinstance(body, dict) else None
        if not isinstance(roster, list) or not roster or not isinstance(roster[0], bytes):
            return
        host = Ed25519PublicKey.from_public_bytes(roster[0])
        host.verify(signature, SIGNATURE_DOMAIN + payload)
    except (DecodeError, ValueError, InvalidSignature):
        return
    header = (fields.get("t"), fields.get("h"), fields.get("q"), fields.get("s"), fields.get("k"))
    if header != (table_id, 0, 0, 0, "table") or not isinstance(version, int):
        return
    if version == PROTOCOL_VERSION:
        return
    if hub_fingerprint is not None and fingerprint(host) != hub_fingerprint:
        return
    raise OtherVersion(other_version_words(version), version)


_SETUP_PEEK = Limits(max_buffer_size=1 << 16, max_str_len=256, max_bin_len=1 << 16)


def read_table_offer(
    wire: bytes,
    table_id: bytes,
    me: Ed25519PublicKey,
    name: str,
    hub_fingerprint: bytes | None = None,
) -> TableOffer:
    """Check that ``wire`` is the host's set-up (raises :class:`LobbyError` otherwise).

    ``hub_fingerprint``: when given (the hub runs in the host), roster key 0 must match it.
    """
    _setup_version(wire, table_id, hub_fingerprint)
    try:
        config, keys, names = read_setup(wire, table_id)
        # The joiner builds its seat from this set-up and must then accept the very same
        # bytes, so run them through an observer now: signature under roster key 0, the
        # transcript's first slot and genesis digest, and a playable table (three to five
        # seats, one key and one usable name per seat). A signed but unusable set-up is
        # then refused here instead of failing later inside join_table.
        Peer(config, table_id, keys, names).receive(wire)
    except (ProtocolError, ValueError, IndexError) as exc:
        raise LobbyError(f"set-up: {exc}") from None
    roster = tuple(keys)
    if hub_fingerprint is not None and fingerprint(roster[0]) != hub_fingerprint:
        raise ForeignHost("set-up not signed by the host named in the join code")
    mine = me.public_bytes_raw()
    index = next((i for i, k in enumerate(roster) if k.public_bytes_raw() == mine), None)
    if index is not None:
        given = names[index]
        wanted = clean_name(name)
        if given != wanted and not re.fullmatch(
            re.escape(wanted[: MAX_NAME - 6]) + r" \(\d+\)", given
        ):
            raise LobbyError(f"the set-up seats our key under another name ({given!r})")
    return TableOffer(wire, config, roster, names, index)
