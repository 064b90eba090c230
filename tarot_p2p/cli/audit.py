"""``tarot-p2p audit FILE [FILE ...]``: verify saved game transcripts offline.

Every signature, the digest chain, every proof, every rule and every score of each file
is checked again by the protocol's own observer (:mod:`tarot_p2p.protocol.audit_report`);
several files of one table must also tell one history. This module only reads the files
and prints; ``docs/audit.md`` explains the report and the exit status:

0 every file verified and holds a complete game, and the files agree;
1 a seat signed a message the protocol refuses, or equivocated across files (named);
2 a file could not be read, or bad usage;
3 a file holds bytes nobody signed (corrupt), or the files are of different tables;
4 every record verified but the game is not over (who was to speak is named);
5 a torn tail: the file ends inside a record (a crash while writing);
8 a table of another version of the protocol, which this program does not check;
70 the verifier itself failed on a file (a bug: its validity is unknown; please report it).

With several files the most serious verdict wins (1, then 3, 5, 4); 2 and 70 before all.

--stats instead computes fairness statistics over many games (files, or folders of .tp2p
files): where every card went, oudlers and trumps per hand, the seat draw, each against
what fair shuffles give, with a heat map of card by place (--svg, default fairness.svg in
the current folder). Its exit status: 0 no sign of bias; 6 a test finds
the deals biased; 7 too few deals to test; 2 no file found, or the picture cannot be
written; 70 as above.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tarot_p2p.cli.audit_stats import PICTURE, run_stats
from tarot_p2p.protocol.audit_render import (
    comparison_json,
    headline,
    render,
    render_comparison,
    to_json,
)
from tarot_p2p.protocol.audit_report import (
    EXIT_CODES,
    TranscriptReport,
    audit_file,
    compare,
    worst,
)
from tarot_p2p.protocol.names import for_terminal

UNREADABLE = 2
VERIFIER_BUG = 70
"""EX_SOFTWARE: no verdict could be reached, which must never pass for one."""


DESCRIPTION = (
    "Check saved game transcripts (the .tp2p files in your profile's tables folder) "
    "without anyone's help: every signature, every shuffle and card proof, every rule and "
    "every score. With several files of one table it also checks that they tell the same "
    "story. --stats measures, over many games, whether the deals look fair. The exit status "
    "says what was found: 0 all valid, 1 a player proven to have cheated, 2 a file that "
    "cannot be read, 3 damaged bytes nobody signed, 4 a game not over, 5 a file cut short "
    "by a crash, 8 a table of another version of tarot-p2p; with --stats, 0 no sign of "
    "bias, 6 biased, 7 too few deals."
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="verify saved game transcripts: signatures, proofs, rules, scores",
        description=DESCRIPTION,
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="transcript files (.tp2p); with --stats, folders too",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the report as JSON")
    output.add_argument("--quiet", action="store_true", help="print one verdict line per file")
    parser.add_argument(
        "--stats",
        action="store_true",
        help="fairness statistics over many games instead of one report per file",
    )
    parser.add_argument(
        "--svg",
        type=Path,
        metavar="PATH",
        help=f"with --stats: where to write the heat map (default: {PICTURE})",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.stats:
        return run_stats(args)
    if args.svg is not None:
        print(
            "tarot-p2p audit: --svg goes with --stats (the heat map of many games)", file=sys.stderr
        )
        return UNREADABLE
    labels: list[str] = []
    reports: list[TranscriptReport] = []
    unreadable: list[tuple[str, str]] = []
    for name in args.files:
        try:
            data = Path(name).read_bytes()
        except OSError as exc:
            unreadable.append((name, exc.strerror or str(exc)))
            continue
        try:
            report = audit_file(data)
        except Exception as exc:  # a verifier bug: say so plainly, never as a verdict
            print(
                f"tarot-p2p audit: internal error on {name}: {type(exc).__name__}: {exc} "
                "(the file's validity is unknown; please report this bug)",
                file=sys.stderr,
            )
            return VERIFIER_BUG
        labels.append(name)
        reports.append(report)
    comparison = compare(reports) if len(reports) > 1 else None
    statuses = [r.status for r in reports]
    if comparison is not None:
        statuses.append(comparison.status)
    code = UNREADABLE if unreadable else EXIT_CODES[worst(statuses)]
    if args.json:
        document: dict[str, Any] = {
            "exit_code": code,
            "files": [{"path": n, **to_json(r)} for n, r in zip(labels, reports, strict=True)],
            "unreadable": [{"path": n, "error": e} for n, e in unreadable],
            "comparison": None if comparison is None else comparison_json(comparison),
        }
        # ASCII only: the names in a transcript are anyone's, and JSON escapes only C0
        # controls, while a bidi override or a line separator would reach the terminal.
        json.dump(document, sys.stdout, indent=1, ensure_ascii=True)
        sys.stdout.write("\n")
        return code
    for name, error in unreadable:
        print(f"tarot-p2p audit: cannot read {for_terminal(name)}: {error}", file=sys.stderr)
    for i, (name, report) in enumerate(zip(labels, reports, strict=True)):
        if args.quiet:
            print(f"{for_terminal(name)}: {headline(report)}")
        else:
            print(("\n" if i else "") + render(report, name))
    if comparison is not None:
        print(("" if args.quiet else "\n") + render_comparison(comparison, labels, reports))
    return code
