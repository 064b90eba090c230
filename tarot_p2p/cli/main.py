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

from tarot_p2p.cli.errors import INTERRUPTED, explain, leaf, report_unexpected

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tarot-p2p",
        description="Serverless French Tarot: mental-poker deal, FFT rules, signed scores.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"tarot_p2p.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; whatever goes wrong, the player reads a sentence, not a traceback."""
    words = list(sys.argv[1:] if argv is None else argv)
    args: argparse.Namespace | None = None
    try:
        args = build_parser().parse_args(words)
        code: int = args.func(args)
        sys.stdout.flush()
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
