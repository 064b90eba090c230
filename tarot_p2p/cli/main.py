"""Entry point of the ``tarot-p2p`` command: one sub-command per module of this package.

Each command module exposes ``register(subparsers)``, which adds its parser and sets
``func`` (``args -> exit code``) as the parser default.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tarot_p2p.cli.errors import INTERRUPTED, explain, leaf, report_unexpected
from tarot_p2p.cli.terminal import reading

COMMAND_MODULES: tuple[str, ...] = (
    "score",
    "relay",
    "play",
    "host",
    "join",
    "resume",
    "history",
    "bot",
    "demo",
    "audit",
    "conformance",
)
"""Modules of ``tarot_p2p.cli`` that provide sub-commands, in the order ``--help`` lists them."""


UNSAID_DEFAULTS = (None, False, argparse.SUPPRESS)
"""Defaults that mean "not given" (a switch off, an option left out): not shown."""


class PlayerHelp(argparse.HelpFormatter):
    """``--help`` as players read it: an option with a default says it once, always in the
    same words, ``(default: X)``; a help text that already says its default in that form
    (one that is not a plain value, like the system's language) is left as it is."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "(default: " in text or any(action.default is v for v in UNSAID_DEFAULTS):
            return text
        return f"{text} (default: %(default)s)"


class CommandParser(argparse.ArgumentParser):
    """The parser of ``tarot-p2p`` and of each command (the sub-parsers take the class of
    their parent), so that every --help is written by :class:`PlayerHelp`."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", PlayerHelp)
        super().__init__(**kwargs)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``only`` a command's name, that command alone.

    Why ``only``: each command's module imports what it runs, and all of them together
    take a noticeable part of a second to import; a player who types ``host`` waits for
    the host's modules, not for the audit's or the conformance kit's. Without a command
    (``--help``, a typo) every command is there to be listed."""
    parser = CommandParser(
        prog="tarot-p2p",
        description="Serverless French Tarot: mental-poker deal, FFT rules, signed scores.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES if only is None else (only,):
        importlib.import_module(f"tarot_p2p.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; whatever goes wrong, the player reads a sentence, not a traceback."""
    words = list(sys.argv[1:] if argv is None else argv)
    args: argparse.Namespace | None = None
    try:
        command = words[0] if words and words[0] in COMMAND_MODULES else None
        args = build_parser(command).parse_args(words)
        code: int = args.func(args)
        sys.stdout.flush()
        if reading():  # the game went on without the player, who was typing nothing
            sys.stderr.flush()
            os._exit(code)
        return code
    except BrokenPipeError:
        # The reader of our output went away (``tarot-p2p play | head``): nothing more to
        # say to it, and Python must not fail again flushing at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:
        return _stopped(exc, words, args)
    except BaseException as exc:
        if leaf(exc, (KeyboardInterrupt,)) is None:
            raise  # SystemExit from --help or a usage error
        return _stopped(exc, words, args)


def _stopped(exc: BaseException, words: list[str], args: argparse.Namespace | None) -> int:
    explained = explain(exc)
    if explained is None:
        profile = getattr(args, "profile", None)
        return report_unexpected(exc, words, profile if isinstance(profile, Path) else None)
    message, code = explained
    print(f"\n{message}" if code == INTERRUPTED else f"error: {message}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
