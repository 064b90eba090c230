"""How the player's own browser gets into the page, and nobody else's.

Why: the page drives a seat that holds secret cards and signs moves, and a secret given
to the browser on its command line can be read by every user of the machine (``ps``,
``/proc/*/cmdline``). So, Jupyter's way, the program writes a small page, the *entry
file*, into a folder only its user can read (0600 in a 0700 folder of the profile) and
opens the browser on that file's path. The entry file sends the browser on to the page's
address with a one-time *key* in the address's fragment (after ``#``), which a browser
never sends to a server. The page found there posts the key to the server, which
exchanges it for the *session*: an HttpOnly, SameSite=Strict cookie. The browser then
lands on the page's plain address, with no key in it.

The key works once: when it is used, the server writes a fresh one into the entry file,
so the file opens the page again, in another browser too. The address with the key is
also printed to the player's terminal, for a browser that cannot read the profile's
folder (one installed as a snap cannot) or runs on another computer with the port
forwarded; it too works once.

A table keeps its page's port and session (``page.json`` in the table's folder, 0600).
The same command run again, after a stop or a crash, listens on that port and knows that
session, so a tab still open comes back by itself. But while the program is down, anyone
on the machine may listen on its port, and a browser sends a cookie to whoever answers
at its address (the port is part of it). So a tab that lost its program does not send its
cookie again until the program answering has proved it is its own: the page holds a
*proof key* (derived from the session, given over the WebSocket, never stored) and asks
``/alive`` with a fresh nonce and no cookie; only a program that knows the session
answers with the nonce's HMAC under that key. When the port is taken the page moves to
another one with a new session: whoever held the port may have seen the old cookie.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from tarot_p2p.files.atomic import write_private_atomic

PAGE_FILE: Final = "page.json"
"""A table's page memory, in the table's folder."""
ENTRY_FOLDER: Final = "page"
"""The folder of the entry files, in the profile."""


def new_secret() -> str:
    """A key or a session: 192 random bits, in characters safe in a URL and a cookie."""
    return secrets.token_urlsafe(24)


def proof_key(session: str) -> bytes:
    """The key a page checks its program with (see the module docstring)."""
    return hmac.new(session.encode("ascii"), b"tarot-p2p page proof", hashlib.sha256).digest()


def alive_proof(session: str, nonce: str) -> str:
    """What the program answers to a page's ``/alive`` question: the nonce's HMAC under
    the proof key, in hex (the page computes the same with the Web Crypto API)."""
    return hmac.new(proof_key(session), nonce.encode("ascii"), hashlib.sha256).hexdigest()


def same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison (``given`` comes from anyone who can reach the port)."""
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("ascii"))


@dataclass(frozen=True)
class PageMemory:
    """What a table keeps of its page across runs of its program."""

    port: int
    session: str

    @classmethod
    def load(cls, table: Path) -> PageMemory | None:
        """The memory kept in the folder ``table``; ``None`` when there is none or it is
        damaged (the page then starts afresh: a new port, a new session)."""
        try:
            data = json.loads((table / PAGE_FILE).read_text())
            port, session = data["port"], data["session"]
        except (OSError, ValueError, TypeError, KeyError):
            return None
        if type(port) is not int or not 0 < port < 65536 or not isinstance(session, str):
            return None
        if not session.isascii() or len(session) < 16:
            return None
        return cls(port, session)

    def save(self, table: Path) -> None:
        text = json.dumps({"port": self.port, "session": self.session}, sort_keys=True)
        write_private_atomic(table / PAGE_FILE, (text + "\n").encode())


def private_folder(folder: Path) -> Path:
    """``folder``, made if needed and readable by its owner only (0700)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)  # also when it was made before, with another mode
    return folder


class EntryFile:
    """The entry file of a page listening on ``port``, and its one-time key."""

    def __init__(self, folder: Path, port: int) -> None:
        self.path = private_folder(folder) / f"page-{port}.html"
        self.port = port
        self.key = new_secret()
        self._write()

    @property
    def address(self) -> str:
        """What the browser is opened on: the file's path, no secret in it."""
        return self.path.as_uri()

    @property
    def keyed_address(self) -> str:
        """The page's address with the key: for the player's eyes only (the terminal)."""
        return f"http://127.0.0.1:{self.port}/#k={self.key}"

    def use(self, key: str) -> bool:
        """True once for the current key, which is then replaced in the file."""
        if not same_secret(key, self.key):
            return False
        self.key = new_secret()
        self._write()
        return True

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)

    def _write(self) -> None:
        target = self.keyed_address
        page = (
            "<!doctype html>\n"
            '<html><head><meta charset="utf-8">\n'
            '<meta name="referrer" content="no-referrer">\n'
            f'<meta http-equiv="refresh" content="0; url={target}">\n'
            "<title>Tarot</title></head>\n"
            f'<body><p><a href="{target}">Tarot</a></p></body></html>\n'
        )
        # Not forced to the disk: its key is good for one opening of this run only, and
        # each run writes a new file; the two fsyncs held up the page's first request
        # (on the event loop) and, before it, the page's address.
        write_private_atomic(self.path, page.encode(), durable=False)
