"""The shuffle's fixed-base tables, kept in the user's cache folder between runs.

Why: building them takes two to three seconds of processor time at every start of a
program (:func:`tarot_p2p.crypto.shuffle.precompute_tables`), which is most of the time a
player waits for his first card. They are public data, the same for everyone; the file
holds them in libsecp256k1's internal form, so it is named after the library's version.
It carries their SHA-256 (a damaged file is caught whole) and every table is spot-checked
against its base when read (:func:`~tarot_p2p.crypto.shuffle.import_tables`): a damaged
or foreign file is rebuilt, never used.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path

import coincurve
import platformdirs

from tarot_p2p.crypto.errors import GroupError
from tarot_p2p.crypto.shuffle import export_tables, import_tables
from tarot_p2p.files.atomic import write_atomic

log = logging.getLogger(__name__)
APP_NAME = "tarot-p2p"
MAGIC = b"TP2PTAB1"
"""File header, then the SHA-256 of the tables, then the tables."""


def cache_file(folder: Path | None = None) -> Path:
    folder = folder if folder is not None else platformdirs.user_cache_path(APP_NAME)
    # (the library's own version string: reading the installed packages' metadata
    # instead costs tens of milliseconds of imports and file reads at every start)
    return folder / f"shuffle-tables-v1-coincurve-{coincurve.__version__}.bin"


def read_tables(folder: Path | None = None) -> bool:
    """Take the tables from the cache when it holds good ones (``True``); ``False`` when
    there is none, or a damaged or foreign one. Blocks (a few tenths of a second, mostly
    reading and hashing, which leave other threads run): run it in a worker thread."""
    path = cache_file(folder)
    try:
        raw = memoryview(path.read_bytes())
        digest, data = raw[len(MAGIC) : len(MAGIC) + 32], raw[len(MAGIC) + 32 :]
        if raw[: len(MAGIC)] != MAGIC or hashlib.sha256(data).digest() != digest:
            raise ValueError("damaged (its digest does not match)")
        import_tables(data, digest=bytes(digest))
        return True
    except FileNotFoundError:
        pass
    except (OSError, ValueError, GroupError) as exc:
        log.info("tables cache %s not used: %s", path, exc)
    return False


def build_tables(folder: Path | None = None, between: Callable[[], None] | None = None) -> None:
    """Build the tables (about two seconds of processor time) and save them for next time
    (a cache that cannot be written is only logged). ``between``: see
    :func:`~tarot_p2p.crypto.shuffle.precompute_tables`."""
    path = cache_file(folder)
    data = export_tables(between)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, MAGIC + hashlib.sha256(data).digest() + data)
    except OSError as exc:
        log.info("tables cache %s not written: %s", path, exc)


def load_tables(folder: Path | None = None, between: Callable[[], None] | None = None) -> bool:
    """Make the tables ready: from the cache when it holds good ones (``True``), else
    built and saved for next time (``False``). Blocks: run it in a worker thread (then
    ``between``, called before each table is built, may stop it by raising)."""
    if read_tables(folder):
        return True
    build_tables(folder, between)
    return False


def main(argv: list[str]) -> None:
    """``python -m tarot_p2p.files.tables_cache [FOLDER]``: build and save the tables at
    the lowest priority, for a program that goes on meanwhile without them and reads them
    once this one is done (``tarot_p2p.cli.join.warm_up_meanwhile``): on a machine's first
    run the build then takes only processor time that nobody else wants."""
    if hasattr(os, "nice"):
        os.nice(19)
    build_tables(Path(argv[0]) if argv else None)


if __name__ == "__main__":
    main(sys.argv[1:])
