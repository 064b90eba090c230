"""Entry point of the ``tarot-p2p`` command: one sub-command per module of this package.

Each command module exposes ``register(subparsers)``, which adds its parser and sets
``func`` (``args -> exit code``) as the parser default.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

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
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
