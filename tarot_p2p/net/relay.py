"""A relay's tables: made on a host's request, kept on disk, forgotten when idle.

Why: a standalone relay serves many tables at once, each a :class:`~.hub.Hub` under the
relay's one identity. Hosts create them (hello ``create``, ``wire.md`` §5.0); the relay
keeps their ids and join secrets in its profile (``relay.json``, owner-only), so a relay
that was stopped or crashed serves the same tables again and the players reconnect by
themselves. Bounded: at most ``max_tables`` tables, and a table nobody was connected to
for ``forget_after`` seconds (24 h) is forgotten.

``relay.json``: ``{"port": int, "tables": [{"table_id": hex, "secret": hex, "seen":
unix time}]}``; the form before many tables, ``{"table_id", "secret", "port"}``, is read
as one table.
"""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.files.atomic import write_private_atomic
from tarot_p2p.net.address import Address
from tarot_p2p.net.door import RelayFull
from tarot_p2p.net.hello import Created
from tarot_p2p.net.hub import Hub
from tarot_p2p.net.joincode import SECRET_LEN, TABLE_ID_LEN
from tarot_p2p.protocol.identity import identity_bytes

RELAY_FILE = "relay.json"
MAX_TABLES = 64
FORGET_AFTER = 24 * 3600.0


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
    ) -> None:
        self.identity = identity
        self.path = path
        self.address = address
        """What the relay gives out in its answers (its public address, or its own)."""
        self.max_tables = max_tables
        self.forget_after = forget_after
        self.port: int | None = None
        """The port of the last run (kept for a relay listening on any free port)."""
        self.hubs: dict[bytes, Hub] = {}

    def load(self) -> None:
        """The tables kept on disk (none when there is no file)."""
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
            for row in rows:
                hub = Hub(
                    self.identity, bytes.fromhex(row["table_id"]), bytes.fromhex(row["secret"])
                )
                if len(hub.table_id) != TABLE_ID_LEN or len(hub.secret) != SECRET_LEN:
                    raise ValueError("bad table id or secret length")
                hub.seen = float(row.get("seen", time.time()))
                self.hubs[hub.table_id] = hub
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RelayFileError(
                f"{self.path} is damaged ({exc}): move it away to start with no table"
            ) from None

    def save(self) -> None:
        now = time.time()
        rows = [
            {
                "table_id": hub.table_id.hex(),
                "secret": hub.secret.hex(),
                "seen": now if hub.connected else hub.seen,
            }
            for hub in self.hubs.values()
        ]
        document = {"port": self.port, "tables": rows}
        write_private_atomic(self.path, (json.dumps(document, indent=2) + "\n").encode())

    def lookup(self, table_id: bytes) -> Hub | None:
        return self.hubs.get(table_id)

    def sweep(self, now: float | None = None) -> list[bytes]:
        """Forget the tables idle for ``forget_after``; their ids."""
        now = time.time() if now is None else now
        gone = [
            t
            for t, hub in self.hubs.items()
            if not hub.connected and now - hub.seen > self.forget_after
        ]
        for table_id in gone:
            del self.hubs[table_id]
        return gone

    def create(self) -> Created:
        """A new table (raises :class:`~.door.RelayFull` at ``max_tables``)."""
        self.sweep()
        if len(self.hubs) >= self.max_tables:
            raise RelayFull(f"{self.max_tables} tables")
        hub = Hub(self.identity, secrets.token_bytes(TABLE_ID_LEN), secrets.token_bytes(SECRET_LEN))
        self.hubs[hub.table_id] = hub
        self.save()
        return Created(
            hub.table_id,
            hub.secret,
            identity_bytes(self.identity.public_key()),
            self.address.text(),
        )
