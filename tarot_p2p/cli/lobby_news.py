"""What the host reads while the table fills up: who sat down, who left, who is awaited.

Why apart from the lobby (:mod:`tarot_p2p.meet.lobby`): the net layer says what changed;
how to say it to a player is the programs' business, in plain words and names.
"""

from __future__ import annotations

from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.meet.lobby import LobbyChange
from tarot_p2p.protocol.names import for_terminal


def waiting_for(missing: int) -> str:
    """``waiting for 2 more players``, or that the table is complete."""
    if missing == 0:
        return "everyone is seated; the game starts"
    return f"waiting for {missing} more player{'s' if missing != 1 else ''}"


def lobby_news(change: LobbyChange) -> str:
    """One line for the host about ``change``. The name is the joiner's choice: escaped for
    the terminal here, whatever the lobby let through."""
    name = for_terminal(change.name)
    if change.kind == "other-version":
        return (
            f"{name} cannot sit: their program speaks tarot-p2p protocol {change.version}, "
            f"and this table is played with protocol {PROTOCOL_VERSION}; "
            + (
                "they must update it"
                if (change.version or 0) < PROTOCOL_VERSION
                else "update this program"
            )
            + f"; {waiting_for(change.missing)}"
        )
    if change.kind == "joined":
        what = f"{name} joined"
    elif change.kind == "renamed":
        what = f"a player already seated now goes by {name}"
    elif change.kind == "left":
        what = f"{name} left the table before it started"
    else:
        what = f"{name} stopped answering and left the table before it started"
    return f"{what}; {waiting_for(change.missing)}"
