"""``tarot-p2p audit --stats FILES|DIR``: fairness statistics over many saved games.

The files (and every ``.tp2p`` file under a folder) are audited as by ``tarot-p2p
audit``; only transcripts whose every record verifies count (a complete game, or one that
stopped, for its finished deals). Several files of one table — one per peer — are one
table: the longest copy that verifies is counted, the others are not verified again.
The deals and seat draws go to :func:`~tarot_p2p.protocol.fairness.fairness`; this module
only reads files, writes the heat map and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tarot_p2p.protocol import audit_render
from tarot_p2p.protocol.audit_report import Status, TranscriptReport, audit_file
from tarot_p2p.protocol.fairness import (
    DealSample,
    DrawSample,
    FairnessReport,
    Verdict,
    fairness,
    table_samples,
)
from tarot_p2p.protocol.fairness_render import headline, heat_map, render, to_json
from tarot_p2p.protocol.transcript import TranscriptFileError, read_frames
from tarot_p2p.protocol.wording import count_of

UNREADABLE: Final = 2
VERIFIER_BUG: Final = 70
EXIT_CODES: Final[dict[Verdict, int]] = {
    Verdict.NO_SIGN_OF_BIAS: 0,
    Verdict.BIASED: 6,
    Verdict.TOO_FEW: 7,
}
COUNTED: Final = (Status.VALID, Status.INCOMPLETE, Status.TORN_TAIL)
"""Verdicts under which every record of the file verified."""
PICTURE: Final = Path("fairness.svg")


@dataclass
class Survey:
    """What became of every file given."""

    counted: list[tuple[str, TranscriptReport]]
    skipped: list[tuple[str, str]]
    """(path, why) of every file that does not count."""


class VerifierBug(Exception):
    """The audit itself failed on a file: no verdict, so no statistics either."""


def transcript_paths(names: list[str]) -> tuple[list[Path], list[tuple[str, str]]]:
    """The files named, and every ``.tp2p`` file under the folders named (sorted)."""
    paths: list[Path] = []
    missing: list[tuple[str, str]] = []
    for name in names:
        path = Path(name)
        if path.is_dir():
            paths.extend(sorted(p for p in path.rglob("*.tp2p") if p.is_file()))
        elif path.exists():
            paths.append(path)
        else:
            missing.append((name, "no such file or folder"))
    return paths, missing


def survey(paths: list[Path]) -> Survey:
    """Audit the files, one table at a time (raises :class:`VerifierBug`)."""
    result = Survey([], [])
    tables: dict[object, list[tuple[Path, bytes]]] = defaultdict(list)
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError as exc:
            result.skipped.append((str(path), f"cannot be read: {exc.strerror or exc}"))
            continue
        try:
            frames = read_frames(data)
            key: object = (frames.table_id, frames.binding)
        except TranscriptFileError:
            key = path  # not a transcript's header: audited alone, it says why
        tables[key].append((path, data))
    for copies in tables.values():
        copies.sort(key=lambda item: len(item[1]), reverse=True)
        counted: str | None = None
        for path, data in copies:
            if counted is not None:
                reason = f"a copy of the table of {counted} (counted once; not verified again)"
                result.skipped.append((str(path), reason))
                continue
            try:
                report = audit_file(data)
            except Exception as exc:
                raise VerifierBug(f"{path}: {type(exc).__name__}: {exc}") from exc
            if report.status in COUNTED:
                counted = str(path)
                result.counted.append((counted, report))
            else:
                result.skipped.append((str(path), audit_render.headline(report)))
    return result


def run_stats(args: argparse.Namespace) -> int:
    paths, missing = transcript_paths(args.files)
    if not paths:
        print(
            "tarot-p2p audit --stats: no transcript (.tp2p) file found in "
            f"{', '.join(args.files)}; give the files or the folder where the games were saved",
            file=sys.stderr,
        )
        return UNREADABLE
    try:
        found = survey(paths)
    except VerifierBug as exc:
        print(
            f"tarot-p2p audit: internal error on {exc} (the file's validity is unknown; "
            "please report this bug)",
            file=sys.stderr,
        )
        return VERIFIER_BUG
    found.skipped[:0] = missing
    deals: list[DealSample] = []
    draws: list[DrawSample] = []
    void = unfinished = 0
    for _, report in found.counted:
        samples = table_samples(report)
        deals.extend(samples.deals)
        draws.extend([samples.draw] if samples.draw is not None else [])
        void += samples.void
        unfinished += samples.unfinished
    stats = fairness(deals, draws)
    picture: Path | None = args.svg or PICTURE
    svg = heat_map(stats)
    write_error = None
    if svg is None:
        picture = None
    else:
        assert picture is not None
        try:
            picture.write_text(svg, encoding="utf-8")
        except OSError as exc:
            write_error = f"cannot write the picture {picture}: {exc.strerror or exc}"
            picture = None
    code = EXIT_CODES[stats.verdict] if write_error is None else UNREADABLE
    if args.json:
        document: dict[str, Any] = {
            "exit_code": code,
            "counted": [
                {"path": path, "status": report.status.value} for path, report in found.counted
            ],
            "skipped": [{"path": path, "reason": why} for path, why in found.skipped],
            "deals_counted": len(deals),
            "deals_void": void,
            "deals_unfinished": unfinished,
            "picture": None if picture is None else str(picture),
            "picture_error": write_error,
            "statistics": to_json(stats),
        }
        json.dump(document, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    elif args.quiet:
        print(headline(stats))
    else:
        print(_summary(found, len(paths) + len(missing), void, unfinished, stats, picture))
    if write_error is not None:
        print(f"tarot-p2p audit --stats: {write_error}", file=sys.stderr)
    return code


def _summary(
    found: Survey,
    files: int,
    void: int,
    unfinished: int,
    stats: FairnessReport,
    picture: Path | None,
) -> str:
    complete = sum(r.status is Status.VALID for _, r in found.counted)
    tables = len(found.counted)
    deals = sum(x.deals for x in stats.layouts)
    out = [
        f"Fairness statistics over {count_of(files, 'transcript file')}",
        f"  counted: {count_of(tables, 'table')} ({complete} complete, "
        f"{tables - complete} stopped before the end), {count_of(deals, 'deal')} opened, "
        f"{count_of(sum(d.tables for d in stats.draws), 'seat draw')}",
    ]
    if void or unfinished:
        share = 100 * (void + unfinished) / (deals + void + unfinished)
        out.append(
            _indent(
                f"not counted: {count_of(void, 'void deal')} (everybody passed, or a petit sec) "
                f"and "
                f"{unfinished} that stopped before their cards were opened ({share:.0f} % "
                "of the deals): their cards were never shown, so nobody can count them. Deals "
                "nobody took tend to be weak ones, so when many are missing the oudlers and "
                "trumps lines lean slightly (a little more in the hands, less in the chien)."
            )
        )
    if found.skipped:
        out.append(f"  skipped {count_of(len(found.skipped), 'file')}:")
        out.extend(f"    {path}: {why}" for path, why in found.skipped)
    if picture is not None:
        out.append(f"  picture: heat map of card by place written to {picture}")
    return "\n".join(out) + "\n\n" + render(stats)


def _indent(text: str) -> str:
    return textwrap.fill(text, 92, initial_indent="  ", subsequent_indent="    ")
