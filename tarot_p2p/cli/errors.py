"""What a player reads when a command stops on an error: one plain sentence, then the next
step to take, and the exit status.

Why one module: every command meets the same network and profile errors (a host that is
not there, a port already taken, a folder that cannot be written); each must be told the
same way wherever it happens, and nothing a developer reads (a traceback, an exception's
class name) may reach a player. Errors nobody foresaw are written in full to a log file
in the profile, and the player is told where it is (:func:`write_details`).
"""

from __future__ import annotations

import errno
import socket
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

import trio

from tarot_p2p.files.profile import ProfileError, default_root
from tarot_p2p.meet.lobby import LobbyError, OtherVersion
from tarot_p2p.meet.rendezvous import RendezvousError, WrongCode
from tarot_p2p.meet.words import EXAMPLE
from tarot_p2p.net.framing import LinkError
from tarot_p2p.net.hello import HubRefused
from tarot_p2p.net.joincode import JoinCodeError
from tarot_p2p.net.noise import NoiseError
from tarot_p2p.protocol.names import for_terminal
from tarot_p2p.seat.session import LobbyTimeout, TableFull
from tarot_p2p.ui.policy import LeftTable

NETWORK_ERRORS = (LinkError, NoiseError, OSError, trio.TooSlowError)
"""What a link that cannot be made or kept raises."""
INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as shells report it)."""
ERROR_LOG = "errors.log"
"""The file of the profile folder that keeps the details of unexpected errors."""

_KNOWN = (
    KeyboardInterrupt,
    LeftTable,
    TableFull,
    LobbyTimeout,
    ProfileError,
    JoinCodeError,
    LobbyError,
    RendezvousError,
    *NETWORK_ERRORS,
)


def leaf(exc: BaseException, kinds: tuple[type[BaseException], ...]) -> BaseException | None:
    """The first exception of ``kinds`` in ``exc`` (trio's nurseries wrap them in groups)."""
    if isinstance(exc, kinds):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = leaf(inner, kinds)
            if found is not None:
                return found
    return None


def explain(exc: BaseException, *, seated: bool = False) -> tuple[str, int] | None:
    """The message and exit status for an error a player can meet, ``None`` for any other
    (a bug). ``seated``: the command sits at a table (its Ctrl-C keeps the seat).

    The message is escaped for the terminal: an error may carry what another party wrote
    (a relay's refusal, a name in a set-up)."""
    explained = _explain(exc, seated)
    return None if explained is None else (for_terminal(explained[0]), explained[1])


def _explain(exc: BaseException, seated: bool) -> tuple[str, int] | None:
    found = leaf(exc, _KNOWN)
    if found is None:
        return None
    if isinstance(found, KeyboardInterrupt):
        if seated:
            return "left the table; run the same command again to take your seat back", 130
        return "stopped", INTERRUPTED
    if isinstance(found, LeftTable):
        return (
            "you left the table from the page before the game started, and the host was "
            "told. Run the same command again to sit down again.",
            INTERRUPTED,
        )
    if isinstance(found, TableFull):
        return f"{found}: this table is full. Ask the host to open a new table.", 3
    if isinstance(found, LobbyTimeout):
        return (
            f"{found}. Run the same command again to wait again, with --lobby-timeout "
            "SECONDS to wait longer.",
            1,
        )
    if isinstance(found, ProfileError):
        return str(found), 2
    if isinstance(found, JoinCodeError):
        return (
            f"this join code cannot be read ({found}). Type the short code the host reads "
            f"aloud (like {EXAMPLE}), or copy the whole long code, from tp2p to the end, and "
            "try again.",
            2,
        )
    if isinstance(found, WrongCode):
        return (
            "the host's program says this code is wrong. Check it with the host (codes look "
            f"like {EXAMPLE}) and try again.",
            2,
        )
    if isinstance(found, RendezvousError):
        return (
            "the exchange with the host's program failed: a message was changed on the way. "
            "Ask the host for a new code, or for the long code.",
            1,
        )
    if isinstance(found, HubRefused):
        return str(found), 1
    if isinstance(found, OtherVersion):
        return f"{found} (pip install --upgrade tarot-p2p), then join again.", 4
    if isinstance(found, LobbyError):
        return f"{found}. Check the command with --help.", 2
    if isinstance(found, socket.gaierror):
        return (
            "the table's address cannot be found on the network. Check your connection and "
            "that you copied the whole code, then run the same command again.",
            1,
        )
    if isinstance(found, OSError) and found.errno == errno.EADDRINUSE:
        return (
            "the port you chose is already in use on this computer (another program, or "
            "another table). Choose another one with --port, or leave --port out.",
            1,
        )
    if isinstance(found, OSError) and found.errno == errno.EADDRNOTAVAIL:
        return (
            "this computer has no such address to listen on. Leave --listen out, or give "
            "one of this computer's addresses.",
            1,
        )
    if isinstance(found, OSError) and found.filename is not None:
        return (
            f"cannot write or read {found.filename} ({found.strerror}). Check that the folder "
            "exists and is yours, or choose another one (--profile for your profile).",
            2,
        )
    reason = found.strerror if isinstance(found, OSError) and found.strerror else str(found)
    return (
        f"cannot reach the table ({reason or 'no answer'}). Check that the host's program is "
        "still running and that you have the code it printed, then run the same command again.",
        1,
    )


def tell(exc: Exception) -> int:
    """Print the message for ``exc``, an error raised for the player (its own words when
    :func:`explain` knows no better ones); the exit status."""
    message, code = explain(exc) or (for_terminal(str(exc)), 2)
    print(f"error: {message}", file=sys.stderr)
    return code


def write_details(exc: BaseException, argv: Sequence[str], profile: Path | None) -> Path | None:
    """Append the full story of an unexpected error to the profile's log file (or, when the
    profile cannot be written, to the system's temporary folder); where it went, or
    ``None`` when nowhere could be written."""
    text = f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} tarot-p2p {' '.join(argv)}\n" + "".join(
        traceback.format_exception(exc)
    )
    for folder in (profile or default_root(), Path(tempfile.gettempdir())):
        path = folder / ERROR_LOG
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as log:
                log.write(text)
            return path
        except OSError:
            continue
    return None


def report_unexpected(exc: BaseException, argv: Sequence[str], profile: Path | None) -> int:
    """Tell the player an unexpected error stopped the command, and where its details are."""
    path = write_details(exc, argv, profile)
    where = f"The details are in {path}" if path is not None else "No details could be saved"
    print(
        f"tarot-p2p stopped on a problem it did not expect. {where}: please send them to the "
        "developers with a word on what you were doing.",
        file=sys.stderr,
    )
    return 1
