"""A player's game history: every table of a profile, in one SQLite database.

Theory of operation. The table folders of a profile already hold everything about a game
(transcript, agreed score sheet, record of the last stop), but one folder per table:
listing a player's games, or totalling a partner's scores over a year, would mean opening
them all. The database (``history.db`` in the profile folder) is an index of those
files, never their only copy: what a row says is what :mod:`.game_record` reads from a
folder, and ``history --rebuild`` (:func:`rebuild`) reads every folder again.

* **Idempotent writes.** Every save upserts the whole game in one transaction, keyed by
  (table id, my key) and deal number: a resumed or re-run game never counts twice. A
  seat taken back after a crash replays its past hands without their audits, so a save
  never erases a deal's detail that an earlier save knew.
* **A history never stops a game.** :class:`HistoryWriter` catches every failure (locked,
  read-only, missing folder, damaged file) and warns once. A damaged file is moved aside
  (``history.db.damaged-<time>``) at the next open and a fresh one started; the lost
  games come back with ``history --rebuild``.
* **Explicit migrations.** ``schema_version`` holds the version; ``MIGRATIONS[i]``
  brings version ``i`` to ``i + 1`` in one transaction. The journal is a WAL, so a reader
  (``tarot-p2p history``) never blocks a game that writes.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tarot_p2p.files.game_record import (
    Deal,
    DealDetail,
    DealWatcher,
    Game,
    Player,
    RecordError,
    Result,
    Stop,
    details_from_audit,
    read_table,
)
from tarot_p2p.files.seat_files import SeatFiles, mend_sheet
from tarot_p2p.protocol.peer import Peer, PeerEvent
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.sheet import LineKind

log = logging.getLogger(__name__)

BUSY_SECONDS: Final = 2.0
"""How long a write waits for another writer (two games of one profile at once) before
giving up."""
DAMAGED_CODES: Final = frozenset({11, 26})
"""SQLITE_CORRUPT and SQLITE_NOTADB: the file is not a usable database (other errors —
locked, read-only, disk full — leave it alone)."""


class HistoryError(Exception):
    """The database cannot be used as it is (message written for the player)."""


MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        table_id TEXT NOT NULL,
        my_key TEXT NOT NULL,
        folder TEXT NOT NULL,
        config TEXT NOT NULL,
        first_dealer INTEGER NOT NULL,
        result TEXT NOT NULL,
        named TEXT,
        transcript TEXT NOT NULL,
        transcript_sha256 TEXT NOT NULL,
        messages INTEGER NOT NULL,
        started REAL NOT NULL,
        ended REAL,
        UNIQUE (table_id, my_key)
    );
    CREATE TABLE players (
        game INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        me INTEGER NOT NULL,
        PRIMARY KEY (game, seat)
    );
    CREATE TABLE deals (
        game INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        dealer INTEGER NOT NULL,
        kind TEXT NOT NULL,
        note TEXT NOT NULL,
        contract TEXT,
        taker INTEGER,
        partner INTEGER,
        made INTEGER,
        absent INTEGER,
        PRIMARY KEY (game, number)
    );
    CREATE TABLE scores (
        game INTEGER NOT NULL,
        number INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        score INTEGER NOT NULL,
        PRIMARY KEY (game, number, seat),
        FOREIGN KEY (game, number) REFERENCES deals (game, number) ON DELETE CASCADE
    );
    CREATE TABLE stops (
        game INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        accepted INTEGER NOT NULL,
        kind TEXT NOT NULL,
        hand INTEGER NOT NULL,
        named TEXT,
        reason TEXT NOT NULL,
        attributed INTEGER NOT NULL,
        PRIMARY KEY (game, accepted, kind)
    );
    CREATE INDEX games_started ON games (started);
    """,
)
"""``MIGRATIONS[i]`` brings the schema from version ``i`` to ``i + 1``."""
SCHEMA_VERSION: Final = len(MIGRATIONS)


class _Damaged(Exception):
    """The file is not a usable database (unlike a locked or read-only one)."""


def _connect(path: Path) -> sqlite3.Connection:
    """Open, check and migrate; raises :class:`_Damaged`, ``sqlite3.Error`` (locked,
    read-only, no such folder...) or :class:`HistoryError` (a newer schema)."""
    conn = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise _Damaged(problems[0])
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        _migrate(conn)
    except sqlite3.Error as exc:
        conn.close()
        if getattr(exc, "sqlite_errorcode", None) in DAMAGED_CODES:
            raise _Damaged(str(exc)) from None
        raise
    except BaseException:
        conn.close()
        raise
    return conn


def _migrate(conn: sqlite3.Connection) -> None:
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    version = 0 if row is None else int(row[0])
    if version > SCHEMA_VERSION:
        raise HistoryError(
            "your game history was written by a newer tarot-p2p; update tarot-p2p to use it"
        )
    for number in range(version, SCHEMA_VERSION):
        with _transaction(conn):
            for statement in MIGRATIONS[number].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("DELETE FROM schema_version")
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (number + 1,))


@contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def open_history(path: Path, notify: Callable[[str], None]) -> sqlite3.Connection:
    """The database at ``path``, created if missing. A damaged one is moved aside (with
    its journal files) and a fresh one started; ``notify`` tells the player so."""
    try:
        return _connect(path)
    except _Damaged as exc:
        log.info("damaged game history %s: %s", path, exc)
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    for suffix in ("", "-wal", "-shm"):
        source = path.with_name(path.name + suffix)
        if source.exists():
            source.replace(aside.with_name(aside.name + suffix))
    notify(
        f"your game history was damaged: it is kept as {aside} and a new one is started. "
        "To get your past games back, run: tarot-p2p history --rebuild"
    )
    return _connect(path)


def store_game(conn: sqlite3.Connection, game: Game, started: float, ended: float) -> None:
    """Insert or update ``game`` and all its lines, in one transaction. ``started`` is
    kept from an earlier save when that one is earlier; ``ended`` is only kept for a game
    that is over or stopped."""
    finished = None if game.result is Result.UNFINISHED else ended
    with _transaction(conn):
        (game_id,) = conn.execute(
            """
            INSERT INTO games (table_id, my_key, folder, config, first_dealer, result, named,
                               transcript, transcript_sha256, messages, started, ended)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (table_id, my_key) DO UPDATE SET
                folder = excluded.folder, config = excluded.config,
                first_dealer = excluded.first_dealer, result = excluded.result,
                named = excluded.named, transcript = excluded.transcript,
                transcript_sha256 = excluded.transcript_sha256,
                messages = excluded.messages, started = MIN(started, excluded.started),
                ended = excluded.ended
            RETURNING id
            """,
            (
                game.table_id,
                game.my_key,
                game.folder,
                game.config.canonical_bytes().decode("ascii"),
                game.first_dealer,
                game.result.value,
                game.named,
                game.transcript,
                game.transcript_sha256,
                game.messages,
                started,
                finished,
            ),
        ).fetchone()
        conn.executemany(
            "INSERT OR REPLACE INTO players (game, seat, name, fingerprint, me) "
            "VALUES (?, ?, ?, ?, ?)",
            [(game_id, s, p.name, p.fingerprint, p.me) for s, p in enumerate(game.players)],
        )
        for deal in game.deals:
            d = deal.detail
            conn.execute(
                """
                INSERT INTO deals (game, number, dealer, kind, note, contract, taker, partner,
                                   made, absent)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (game, number) DO UPDATE SET
                    dealer = excluded.dealer, kind = excluded.kind, note = excluded.note,
                    contract = COALESCE(excluded.contract, contract),
                    taker = COALESCE(excluded.taker, taker),
                    partner = COALESCE(excluded.partner, partner),
                    made = COALESCE(excluded.made, made),
                    absent = COALESCE(excluded.absent, absent)
                """,
                (
                    *(game_id, deal.number, deal.dealer, deal.kind.value, deal.note),
                    *(d.contract, d.taker, d.partner, d.made, d.absent),
                ),
            )
            conn.executemany(
                "INSERT OR REPLACE INTO scores (game, number, seat, score) VALUES (?, ?, ?, ?)",
                [(game_id, deal.number, s, score) for s, score in enumerate(deal.scores)],
            )
        conn.executemany(
            "INSERT OR IGNORE INTO stops (game, accepted, kind, hand, named, reason, attributed)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (game_id, s.accepted, s.kind, s.hand, s.named, s.reason, s.attributed)
                for s in game.stops
            ],
        )


def load_games(conn: sqlite3.Connection) -> list[Game]:
    """Every game of the database, the most recently started first."""
    games = []
    rows = conn.execute(
        "SELECT id, table_id, folder, config, first_dealer, result, named, transcript, "
        "transcript_sha256, messages, started, ended FROM games ORDER BY started DESC, id DESC"
    ).fetchall()
    for row in rows:
        game_id = row[0]
        players = tuple(
            Player(name, key, bool(me))
            for name, key, me in conn.execute(
                "SELECT name, fingerprint, me FROM players WHERE game = ? ORDER BY seat",
                (game_id,),
            )
        )
        scores: dict[int, list[int]] = {}
        for number, score in conn.execute(
            "SELECT number, score FROM scores WHERE game = ? ORDER BY number, seat", (game_id,)
        ):
            scores.setdefault(number, []).append(score)
        deals = tuple(
            Deal(
                number,
                dealer,
                LineKind(kind),
                tuple(scores.get(number, ())),
                note,
                DealDetail(contract, taker, partner, None if made is None else bool(made), absent),
            )
            for number, dealer, kind, note, contract, taker, partner, made, absent in conn.execute(
                "SELECT number, dealer, kind, note, contract, taker, partner, made, absent "
                "FROM deals WHERE game = ? ORDER BY number",
                (game_id,),
            )
        )
        stops = tuple(
            Stop(hand, kind, named, reason, bool(attributed), accepted)
            for hand, kind, named, reason, attributed, accepted in conn.execute(
                "SELECT hand, kind, named, reason, attributed, accepted FROM stops "
                "WHERE game = ? ORDER BY accepted",
                (game_id,),
            )
        )
        games.append(
            Game(
                table_id=row[1],
                folder=row[2],
                config=TableConfig.from_canonical_bytes(row[3].encode("ascii"), older=True),
                players=players,
                first_dealer=row[4],
                deals=deals,
                result=Result(row[5]),
                named=row[6],
                transcript=row[7],
                transcript_sha256=row[8],
                messages=row[9],
                stops=stops,
                started=row[10],
                ended=row[11],
            )
        )
    return games


class HistoryWriter:
    """What the runner calls after every message and every saved sheet.

    It never raises: the history is a convenience, the game is what matters. The first
    failure is logged as a warning for the player; the next ones only for the log."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.watcher = DealWatcher()
        self._warned = False

    def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        try:
            self.watcher.observe(peer, events)
        except Exception as exc:  # never let the history stop a game (see the class doc)
            self._failed(exc)

    def save(self, directory: Path) -> None:
        """Record the table kept in ``directory`` as its files stand now."""
        try:
            game = read_table(directory, self.watcher.details)
            with closing(open_history(self.path, log.warning)) as conn:
                now = time.time()
                store_game(conn, game, now, now)
        except Exception as exc:  # never let the history stop a game (see the class doc)
            self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        if self._warned:
            log.info("could not write the game history: %s", reason)
            return
        self._warned = True
        log.warning("could not write your game history (%s); the game goes on", reason)


def mend_unfinished(conn: sqlite3.Connection, tables: Path) -> list[str]:
    """Read again the folders of the games the database says are unfinished whose files
    hold the game's end (their program was killed as the last record landed, before the
    sheet and this database were written); returns their folders.

    Cheap for a game still being played or stopped: :func:`~.seat_files.mend_sheet` only
    replays a transcript that ends with a score signature the sheet does not hold."""
    mended = []
    rows = conn.execute("SELECT folder FROM games WHERE result = ?", (Result.UNFINISHED.value,))
    for (folder,) in rows.fetchall():
        directory = tables / folder
        files = SeatFiles(directory)
        if not mend_sheet(files):
            continue
        try:
            details = audited_details(files)
            game = read_table(directory, details)
            times = [p.stat().st_mtime for p in directory.iterdir()]
        except (RecordError, OSError) as exc:
            log.info("could not read %s again: %s", directory, exc)
            continue
        store_game(conn, game, min(times), max(times))
        mended.append(folder)
    return mended


def audited_details(files: SeatFiles) -> dict[int, DealDetail]:
    """Each deal's details as the offline audit of the seat's transcript finds them.

    The audit's module is imported here, not with this one: it takes a noticeable part of
    the time a host waits for his first card, and only mending or rebuilding the history
    runs it."""
    from tarot_p2p.protocol.audit_report import audit_file

    return details_from_audit(audit_file(files.transcript.read_bytes()))


@dataclass(slots=True)
class Rebuilt:
    recorded: list[str] = field(default_factory=list)
    """Folders whose game is now in the database."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(folder, why) for folders with nothing usable."""


def rebuild(
    path: Path,
    tables: Path,
    progress: Callable[[str], None],
    notify: Callable[[str], None],
) -> Rebuilt:
    """Read every table folder in ``tables`` again into the database at ``path``.

    Each deal's details are recomputed by the offline audit of the transcript, which
    checks every proof (seconds per deal); ``progress`` is told each folder."""
    done = Rebuilt()
    folders = sorted(p for p in tables.iterdir() if p.is_dir()) if tables.is_dir() else []
    with closing(open_history(path, notify)) as conn:
        for i, folder in enumerate(folders, 1):
            files = SeatFiles(folder)
            if not files.transcript.exists():
                continue
            progress(f"reading table {folder.name} ({i} of {len(folders)})")
            try:
                details = audited_details(files)
                game = read_table(folder, details)
            except (RecordError, OSError) as exc:
                reason = exc.strerror if isinstance(exc, OSError) else str(exc)
                done.skipped.append((folder.name, str(reason)))
                continue
            times = [p.stat().st_mtime for p in folder.iterdir()]
            store_game(conn, game, min(times), max(times))
            done.recorded.append(folder.name)
    return done
