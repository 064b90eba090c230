"""A player's profile: one identity kept across runs, and every table that player sat at.

Why it exists: a seat is its Ed25519 identity. A program that made a fresh key on every
run could never take its seat back after a crash, a reboot or a sleeping laptop; so the
key lives in the profile (``identity.key``, owner-only), and so do, per table, the files a
seat needs to go on (``tables/<table>-<key>/``: transcript, secrets blob, score sheet,
aborted-hand record, and ``table.json``, the ticket saying how to reach the table again).
The game history (``history.db``) indexes those tables.

The default profile is the platform's user data folder (``platformdirs``); ``--profile
DIR`` picks another, so two players can share one machine. The ticket holds the join
secret, so it is written owner-only like the key.

``profile.json`` keeps the player's settings across runs: ``{"relay": "host:port"}``, the
relay given once with ``--relay`` and used by later ``host`` and ``join`` runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.files.atomic import write_private_atomic
from tarot_p2p.files.seat_files import SeatFiles, mend_sheet
from tarot_p2p.protocol.transcript import TranscriptFileError, read_frames

APP_NAME = "tarot-p2p"
IDENTITY_FILE = "identity.key"
SETTINGS_FILE = "profile.json"
TICKET_FILE = "table.json"
HISTORY_FILE = "history.db"
ENDED_KINDS = frozenset({"violation"})
"""Aborted-hand kinds that end a table for good (a signed proof of cheating); an
absence or a lost link can be taken up again."""


class ProfileError(Exception):
    """The profile folder cannot be used (message written for the player)."""


def default_root() -> Path:
    return platformdirs.user_data_path(APP_NAME)


@dataclass(frozen=True, slots=True)
class Ticket:
    """How to get back to a table: ``role`` is ``host`` or ``join``; ``code`` the long join
    code (of the hub, or of the relay with ``relay``); the host's own hub also keeps the
    address it listened on (``listen``, ``port``), a host at a relay the relay's address as
    it dialed it; ``config`` the rules (hex of the canonical bytes), for a host
    that stopped before the set-up was sent."""

    role: str
    code: str
    name: str
    relay: bool = False
    host_key: str | None = None
    listen: str | None = None
    port: int | None = None
    config: str | None = None
    bots: tuple[str, ...] = ()
    """Names of the bots playing inside the host's program (their profiles are in the
    host's)."""
    short: str | None = None
    """The short code a joiner sat down with: the same command finds this table again
    once the host no longer answers to that code."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "code": self.code,
            "name": self.name,
            "relay": self.relay,
            "host_key": self.host_key,
            "listen": self.listen,
            "port": self.port,
            "config": self.config,
            "bots": list(self.bots),
            "short": self.short,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ticket:
        try:
            ticket = cls(
                role=str(data["role"]),
                code=str(data["code"]),
                name=str(data["name"]),
                relay=bool(data.get("relay", False)),
                host_key=data.get("host_key"),
                listen=data.get("listen"),
                port=data.get("port"),
                config=data.get("config"),
                bots=tuple(str(n) for n in data.get("bots", ())),
                short=data.get("short"),
            )
        except (KeyError, TypeError) as exc:
            raise ProfileError(f"a table ticket lacks {exc}") from None
        if ticket.role not in ("host", "join"):
            raise ProfileError(f"a table ticket has an unknown role {ticket.role!r}")
        return ticket


@dataclass(frozen=True, slots=True)
class TableState:
    """One table of the profile, as its files tell it."""

    files: SeatFiles
    ticket: Ticket | None
    records: int
    """Complete records in the transcript file (0: the game had not started)."""
    finished: bool
    ended: bool
    """Stopped for good (a violation was proven)."""
    modified: float

    @property
    def resumable(self) -> bool:
        return self.ticket is not None and not self.finished and not self.ended


class Profile:
    """A profile folder (created on first use, owner-only)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else default_root()

    @property
    def tables(self) -> Path:
        return self.root / "tables"

    @property
    def history(self) -> Path:
        """The game history (:mod:`.history`): an index of the tables, rebuilt from them."""
        return self.root / HISTORY_FILE

    def identity(self) -> Ed25519PrivateKey:
        """This player's key: read, or made and saved on first use."""
        path = self.root / IDENTITY_FILE
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
            if path.exists():
                raw = path.read_bytes()
                if len(raw) != 32:
                    raise ProfileError(
                        f"{path} is damaged (not a 32-byte key). Move it away to start with a "
                        "new identity; your unfinished tables will then be lost."
                    )
                return Ed25519PrivateKey.from_private_bytes(raw)
            key = Ed25519PrivateKey.generate()
            write_private_atomic(path, key.private_bytes_raw())
            return key
        except OSError as exc:
            raise ProfileError(
                f"cannot use the profile folder {self.root}: {exc.strerror}. "
                "Choose another with --profile DIR."
            ) from None

    def _settings(self) -> dict[str, Any]:
        try:
            settings = json.loads((self.root / SETTINGS_FILE).read_text())
        except (OSError, ValueError):
            return {}
        return settings if isinstance(settings, dict) else {}

    def relay(self) -> str | None:
        """The relay remembered (``host:port``), if any."""
        relay = self._settings().get("relay")
        return relay if isinstance(relay, str) else None

    def remember_relay(self, relay: str | None) -> None:
        """Keep ``relay`` for later runs (``None``: forget it)."""
        settings = self._settings()
        if settings.get("relay") == relay:
            return
        if relay is None:
            settings.pop("relay", None)
        else:
            settings["relay"] = relay
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
            text = json.dumps(settings, indent=2, sort_keys=True) + "\n"
            write_private_atomic(self.root / SETTINGS_FILE, text.encode())
        except OSError as exc:
            raise ProfileError(
                f"cannot write to the profile folder {self.root}: {exc.strerror}. "
                "Choose another with --profile DIR."
            ) from None

    def seat_files(self, table_id: bytes, identity: Ed25519PrivateKey) -> SeatFiles:
        me = identity.public_key().public_bytes_raw()
        return SeatFiles.for_table(self.tables, table_id, me)

    def save_ticket(self, files: SeatFiles, ticket: Ticket) -> None:
        files.directory.mkdir(parents=True, exist_ok=True)
        text = json.dumps(ticket.to_dict(), indent=2, sort_keys=True) + "\n"
        write_private_atomic(files.directory / TICKET_FILE, text.encode())

    def state(self, files: SeatFiles) -> TableState:
        """What the files of one table say (never raises for damaged files: a damaged
        table is reported as not resumable)."""
        directory = files.directory
        ticket: Ticket | None = None
        try:
            ticket = Ticket.from_dict(json.loads((directory / TICKET_FILE).read_text()))
        except (OSError, ValueError, ProfileError):
            ticket = None
        records = 0
        try:
            records = len(read_frames(files.transcript.read_bytes()).records)
        except (OSError, TranscriptFileError):
            records = 0
        finished = False
        mend_sheet(files)  # a program killed as the game's last record landed
        try:
            finished = bool(json.loads(files.sheet.read_text()).get("finished"))
        except (OSError, ValueError, AttributeError):
            finished = False
        ended = False
        try:
            ended = json.loads(files.abort.read_text()).get("kind") in ENDED_KINDS
        except (OSError, ValueError, AttributeError):
            ended = False
        try:
            modified = max(p.stat().st_mtime for p in directory.iterdir())
        except (OSError, ValueError):
            modified = 0.0
        return TableState(files, ticket, records, finished, ended, modified)

    def tables_of(self, identity: Ed25519PrivateKey) -> list[TableState]:
        """Every table this identity sat at, the most recent first."""
        me = identity.public_key().public_bytes_raw()[:4].hex()
        if not self.tables.is_dir():
            return []
        found = [
            self.state(SeatFiles(directory))
            for directory in sorted(self.tables.iterdir())
            if directory.is_dir() and directory.name.endswith(f"-{me}")
        ]
        return sorted(found, key=lambda s: -s.modified)

    def unfinished(self, identity: Ed25519PrivateKey) -> list[TableState]:
        """This identity's tables that can be taken up again, the most recent first."""
        return [state for state in self.tables_of(identity) if state.resumable]
