"""Where one seat keeps one table, and what its score sheet file holds.

Apart from the runner that writes them because the history, the profile and the audit
read the same files without driving a seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tarot_p2p.protocol.peer import Peer


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


def sheet_document(peer: Peer, files: SeatFiles) -> dict[str, Any]:
    """What ``sheet.json`` holds: the agreed sheet and the transcript it rests on."""
    sheet = peer.sheet
    return {
        "table_id": peer.table_id.hex(),
        "config": peer.config.canonical_bytes().decode("ascii"),
        "seat": peer.seat,
        "transcript": str(files.transcript),
        "messages": len(peer.transcript),
        "head": peer.transcript.head.hex(),
        "finished": peer.expected_sender() is None,
        "sheet": sheet.to_dict() if sheet is not None else None,
    }
