"""A relay's tables: made on a host's request, kept on disk, forgotten when unused.

Why: a standalone relay serves many tables at once, each a :class:`~.hub.Hub` under the
relay's one identity. Hosts create them (hello ``create``, ``wire.md`` §5.0): the host draws
the table id and the join secret and gives the relay only the table's *link key*, which
admits links but seats nobody (the host seats only joiners that prove the secret itself,
``lobby.md`` §1), so a relay cannot take its own tables' seats. The relay keeps what routes
in its profile (``relay.json``, owner-only): table ids, link keys, the host key that made
each (to answer a host that asks again for its own table after a lost answer), so a relay
that was stopped or crashed serves the same tables again and the players reconnect by
themselves.

Bounded, because anyone may knock (``wire.md`` §5.5): tables are made only for the hosts
the relay's access rule lets in (:mod:`.access`: anyone, its password, or its list of
host keys); one source address may have ``SourceLimits.tables`` tables at once and the
relay ``max_tables``; each table's backlog is ``RELAY_BACKLOG`` bytes. A table with no
member connected for ``forget_after`` seconds of the relay's running time is forgotten:
20 minutes, longer than a seat's reconnection window (15 minutes: a player whose link
broke keeps trying that long, so every program still trying to come back finds its
table), short enough that a table made and left by a stranger holds its place for
minutes, not a day. The time a relay was stopped does not count (a restart is no
idleness) and does not refresh a table either: it keeps the idle time it had, so tables
nobody uses do not fill a relay across restarts.

``relay.json``: ``{"port": int, "saved": unix time, "tables": [{"table_id": hex,
"link_key": hex, "host": hex, "seen": unix time a member was last connected, "by": source
address}]}``. Files of earlier relays, which made the join secret themselves and kept it
(``"secret": hex`` instead of ``"link_key"`` and ``"host"``; or, before many tables, one
``{"table_id", "secret", "port"}``), are read: the link key is made from the secret, which
is then forgotten (the next save writes no secret), so a relay's tables survive an upgrade.
"""

from __future__ import annotations

import hmac
import json
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.files.atomic import write_private_atomic
from tarot_p2p.net.access import RelayAccess
from tarot_p2p.net.address import Address
from tarot_p2p.net.hello import Created, CreateHello
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.joincode import LINK_KEY_LEN, SECRET_LEN, TABLE_ID_LEN, link_key
from tarot_p2p.net.limits import DEFAULT_LIMITS, Refusal, SourceLimits
from tarot_p2p.protocol.identity import identity_bytes

RELAY_FILE = "relay.json"
MAX_TABLES = 64
FORGET_AFTER = 20 * 60.0
RELAY_BACKLOG = 8 << 20
"""Bytes of messages a relay's table keeps for members that connect late or again (a
whole game is well under 1 MiB; past this, members fetch from each other, ``wire.md``
§7.2): 64 tables hold at most 512 MiB."""


class RelayFileError(ValueError):
    """``relay.json`` cannot be read (the message says what to do)."""


class RelayTables:
    def __init__(
        self,
        identity: Ed25519PrivateKey,
        path: Path,
        address: Address,
        *,
        max_tables: int = MAX_TABLES,
        forget_after: float = FORGET_AFTER,
        limits: SourceLimits = DEFAULT_LIMITS,
        access: RelayAccess | None = None,
    ) -> None:
        self.identity = identity
        self.path = path
        self.address = address
        """What the relay gives out in its answers (its public address, or its own)."""
        self.max_tables = max_tables
        self.forget_after = forget_after
        self.limits = limits
        self.access = access if access is not None else RelayAccess()
        self.port: int | None = None
        """The port of the last run (kept for a relay listening on any free port)."""
        self.hubs: dict[bytes, Hub] = {}
        self.makers: dict[bytes, str] = {}
        """The source address that made each table."""
        self.hosts: dict[bytes, bytes] = {}
        """The host identity key that made each table (empty: read from an older file)."""

    def _hub(self, table_id: bytes, key: bytes) -> Hub:
        if len(table_id) != TABLE_ID_LEN or len(key) != LINK_KEY_LEN:
            raise ValueError("bad table id or link key length")
        return Hub(self.identity, table_id, None, key=key, max_backlog=RELAY_BACKLOG)

    @staticmethod
    def _row_key(row: dict[str, object]) -> bytes:
        """A row's link key; an older relay's row holds the join secret instead."""
        if "link_key" in row:
            return bytes.fromhex(str(row["link_key"]))
        secret = bytes.fromhex(str(row["secret"]))
        if len(secret) != SECRET_LEN:
            raise ValueError("bad secret length")
        return link_key(secret)

    def load(self, now: float | None = None) -> None:
        """The tables kept on disk (none when there is no file), less those that had been
        unused for ``forget_after`` when the file was saved."""
        now = time.time() if now is None else now
        try:
            kept = json.loads(self.path.read_text())
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            raise RelayFileError(
                f"{self.path} cannot be read ({exc}): move it away to start with no table"
            ) from None
        try:
            rows = kept.get("tables", [kept])
            self.port = kept.get("port")
            saved = float(kept.get("saved", now))
            for row in rows:
                hub = self._hub(bytes.fromhex(row["table_id"]), self._row_key(row))
                idle = max(0.0, saved - float(row.get("seen", saved)))
                if idle >= self.forget_after:
                    continue
                hub.seen = now - idle
                self.hubs[hub.table_id] = hub
                self.makers[hub.table_id] = str(row.get("by", ""))
                self.hosts[hub.table_id] = bytes.fromhex(str(row.get("host", "")))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RelayFileError(
                f"{self.path} is damaged ({exc}): move it away to start with no table"
            ) from None

    def save(self, now: float | None = None) -> None:
        now = time.time() if now is None else now
        rows = [
            {
                "table_id": hub.table_id.hex(),
                "link_key": hub.link_key.hex(),
                "host": self.hosts.get(table_id, b"").hex(),
                "seen": now if hub.connected else hub.seen,
                "by": self.makers.get(table_id, ""),
            }
            for table_id, hub in self.hubs.items()
        ]
        document = {"port": self.port, "saved": now, "tables": rows}
        write_private_atomic(self.path, (json.dumps(document, indent=2) + "\n").encode())

    def lookup(self, table_id: bytes) -> Hub | None:
        return self.hubs.get(table_id)

    def sweep(self, now: float | None = None) -> list[bytes]:
        """Forget the tables unused for ``forget_after``; their ids."""
        now = time.time() if now is None else now
        gone = [
            t
            for t, hub in self.hubs.items()
            if not hub.connected and now - hub.seen >= self.forget_after
        ]
        for table_id in gone:
            del self.hubs[table_id]
            self.makers.pop(table_id, None)
            self.hosts.pop(table_id, None)
        return gone

    def create(self, hello: CreateHello, source: str) -> Created:
        """Hold the table of ``hello`` for its host at ``source`` (raises
        :class:`~.limits.Refusal`: the access rule's reasons, ``too-many`` past the
        source's share, ``full`` at ``max_tables``, ``bad-hello`` for a table id held for
        another host or link key).

        A host that asks again for a table it made (the same id, host key and link key:
        its answer was lost) is answered again, whatever its source holds: that costs the
        relay nothing new."""
        self.sweep()
        created = Created(
            hello.table_id, identity_bytes(self.identity.public_key()), self.address.text()
        )
        held_hub = self.hubs.get(hello.table_id)
        if held_hub is not None:
            self.access.check(hello)
            same_key = hmac.compare_digest(held_hub.link_key, hello.link_key)
            if same_key and self.hosts.get(hello.table_id) == hello.host:
                return created
            raise Refusal("bad-hello", "create hello: that table id is held for another host")
        held = sum(maker == source for maker in self.makers.values())
        if held >= self.limits.tables:  # (before the access check: it costs no signature)
            raise Refusal("too-many", f"{source} has {held} tables")
        self.access.check(hello)
        if len(self.hubs) >= self.max_tables:
            raise Refusal("full", f"{self.max_tables} tables")
        hub = self._hub(hello.table_id, hello.link_key)
        self.hubs[hub.table_id] = hub
        self.makers[hub.table_id] = source
        self.hosts[hub.table_id] = hello.host
        self.save()
        return created
