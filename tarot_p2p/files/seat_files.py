"""Where one seat keeps one table, and what its score sheet file holds.

Apart from the runner that writes them because the history, the profile and the audit
read the same files without driving a seat.

The transcript is the record; the score sheet file is what the runner derived from it
when it last wrote it. A program killed between the two (the game's last record landed,
the sheet not rewritten yet) leaves a sheet that says "unfinished" forever. So whoever
reads a table's files mends the sheet first (:func:`mend_sheet`): a game that ended is
recorded as ended whatever moment its program was killed.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tarot_p2p.files.atomic import write_json_atomic
from tarot_p2p.protocol.envelope import open_envelope
from tarot_p2p.protocol.errors import ProtocolError
from tarot_p2p.protocol.peer import Peer, replay_file
from tarot_p2p.protocol.transcript import TranscriptFileError, read_frames


@dataclass(frozen=True, slots=True)
class SeatFiles:
    """Where one seat keeps one table: transcript, score sheet, aborted-hand record."""

    directory: Path

    @classmethod
    def for_table(cls, data_dir: Path, table_id: bytes, identity: bytes) -> SeatFiles:
        """``data_dir/<table id>-<our key>/``: several seats may share a data directory."""
        return cls(data_dir / f"{table_id[:8].hex()}-{identity[:4].hex()}")

    @property
    def transcript(self) -> Path:
        return self.directory / "transcript.tp2p"

    @property
    def sheet(self) -> Path:
        return self.directory / "sheet.json"

    @property
    def abort(self) -> Path:
        return self.directory / "aborted.json"

    @property
    def secrets(self) -> Path:
        """This seat's secrets of the current hand (to resume after a crash): private."""
        return self.directory / "secrets.bin"


def sheet_document(peer: Peer, files: SeatFiles, seat: int | None = None) -> dict[str, Any]:
    """What ``sheet.json`` holds: the agreed sheet and the transcript it rests on
    (``seat``: ours, when ``peer`` is an observer replaying our transcript)."""
    sheet = peer.sheet
    return {
        "table_id": peer.table_id.hex(),
        "config": peer.config.canonical_bytes().decode("ascii"),
        "seat": peer.seat if seat is None else seat,
        "transcript": str(files.transcript),
        "messages": len(peer.transcript),
        "head": peer.transcript.head.hex(),
        "finished": peer.expected_sender() is None,
        "sheet": sheet.to_dict() if sheet is not None else None,
    }


log = logging.getLogger(__name__)


def mend_sheet(files: SeatFiles) -> bool:
    """Rewrite ``sheet.json`` from the transcript when the transcript holds a game's end
    that the sheet does not (``True``: it was rewritten).

    Cheap when there is nothing to mend: only a sheet that says unfinished, resting on
    fewer records than the file holds, whose last record is a score signature (a game
    ends with one), costs a replay of the transcript (every proof checked); the sheet is
    rewritten only when that replay accepts every record and the game is over."""
    try:
        document = json.loads(files.sheet.read_text(encoding="utf-8"))
        data = files.transcript.read_bytes()
        frames = read_frames(data)
        if not isinstance(document, dict) or document.get("finished") is not False:
            return False
        seat = document["seat"]
        if not frames.records or len(frames.records) <= int(document["messages"]):
            return False
        last = open_envelope(frames.records[-1], table_id=frames.table_id, roster=None)
        if last.kind != "score":
            return False
        replay = replay_file(data)
    except (OSError, ValueError, KeyError, TypeError, ProtocolError, TranscriptFileError):
        return False
    observer = replay.observer
    if replay.error is not None or observer.expected_sender() is not None:
        return False
    if not isinstance(seat, int):
        return False
    try:
        write_json_atomic(files.sheet, sheet_document(observer, files, seat))
    except OSError as exc:
        log.info("could not mend %s: %s", files.sheet, exc)
        return False
    log.info("%s: the transcript holds the game's end; its sheet now says so", files.directory)
    return True
