"""``tarot-p2p resume``: take your seat back at an unfinished table.

Your program stopped (the computer slept, the connection dropped for good, the window was
closed): the table is kept in your profile. This command finds it and plays on, as the
host or as a player, from where the game stood; the others see you come back. Running
the same ``join`` command again, or ``host`` again, does the same.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from tarot_p2p.cli.errors import tell
from tarot_p2p.cli.player import add_ui_options
from tarot_p2p.files.profile import Profile, ProfileError, TableState
from tarot_p2p.net.joincode import JoinCode, JoinCodeError

DESCRIPTION = (
    "Take your seat back at an unfinished table (your computer slept, the connection "
    "dropped for good, the window was closed): it finds the table in your profile and plays "
    "on from where the game stood, as the host or as a player. --list shows your unfinished "
    "tables."
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "resume",
        help="take your seat back at an unfinished table",
        description=DESCRIPTION,
    )
    p.add_argument(
        "table",
        nargs="?",
        help="which table: the start of its name in --list (default: the last one played)",
    )
    p.add_argument("--list", action="store_true", help="list your unfinished tables and stop")
    p.add_argument("--profile", type=Path, default=None, help="your profile folder")
    add_ui_options(p)
    p.set_defaults(func=run)


def describe(state: TableState) -> str:
    ticket = state.ticket
    assert ticket is not None
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(state.modified))
    role = "you host it" if ticket.role == "host" else "you joined it"
    started = f"{state.records} messages" if state.records else "not started yet"
    return f"{state.files.directory.name}  {role} as {ticket.name}, last played {when}, {started}"


def run(args: argparse.Namespace) -> int:
    # Imported here: ``main`` imports every command module, this one included.
    from tarot_p2p.cli.main import build_parser

    try:
        profile = Profile(args.profile)
        tables = profile.unfinished(profile.identity())
    except ProfileError as exc:
        return tell(exc)
    if not tables:
        print(
            "You have no unfinished table. Start one with: tarot-p2p host, "
            "or join one with: tarot-p2p join CODE",
            file=sys.stderr,
        )
        return 1
    if args.list:
        for state in tables:
            print(describe(state))
        return 0
    chosen = tables[0]
    if args.table:
        matches = [t for t in tables if t.files.directory.name.startswith(args.table)]
        if len(matches) != 1:
            what = "no" if not matches else "more than one"
            print(
                f"error: {what} unfinished table starts with {args.table!r}; "
                "see them with: tarot-p2p resume --list",
                file=sys.stderr,
            )
            return 2
        chosen = matches[0]
    ticket = chosen.ticket
    assert ticket is not None
    print(f"taking your seat back: {describe(chosen)}", flush=True)
    common = ["--name", ticket.name, "--ui", args.ui]
    if args.profile is not None:
        common += ["--profile", str(args.profile)]
    if args.lang:
        common += ["--lang", args.lang]
    if args.no_open:
        common.append("--no-open")
    if ticket.role == "host":
        argv = ["host", "--table", chosen.files.directory.name, *common]
    else:
        try:
            join_code = JoinCode.decode(ticket.code)
        except JoinCodeError as exc:
            print(f"error: the table's ticket is damaged ({exc})", file=sys.stderr)
            return 2
        if ticket.relay and not join_code.relay:
            join_code = replace(join_code, relay=True)  # a ticket saved before codes said so
        argv = ["join", join_code.encode(), *common]
        if ticket.host_key:
            argv += ["--host-key", ticket.host_key]
    again = build_parser().parse_args(argv)
    code: int = again.func(again)
    return code
