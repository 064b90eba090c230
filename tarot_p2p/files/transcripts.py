"""Append-only transcript files: nothing accepted is lost if the process dies.

Each accepted message is written as one record and flushed and ``fsync``-ed before the
peer acts on it (or once per batch, for callers that accept several messages at once). On
restart :meth:`TranscriptStore.resume` re-verifies the whole chain, cuts off a record torn
by a crash in mid-write, and continues after the last complete one. The byte format is
owned by :mod:`tarot_p2p.protocol.transcript`.

The calls block on the disk; from trio, run them with ``trio.to_thread.run_sync``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from tarot_p2p.protocol.envelope import Roster, SignedEnvelope
from tarot_p2p.protocol.transcript import (
    Transcript,
    file_header,
    file_record,
    parse_file,
    read_frames,
)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class TranscriptStore:
    """An open transcript file positioned at its end."""

    def __init__(self, path: Path, handle: BinaryIO) -> None:
        self.path = path
        self._handle = handle

    @classmethod
    def create(cls, path: Path, table_id: bytes, binding: bytes) -> TranscriptStore:
        """Start a new file (refuses to overwrite one) and make its header durable."""
        handle = open(path, "xb")  # noqa: SIM115 - owned by the returned store
        handle.write(file_header(table_id, binding))
        handle.flush()
        os.fsync(handle.fileno())
        _fsync_dir(path)
        return cls(path, handle)

    @classmethod
    def resume(cls, path: Path, roster: Roster | None = None) -> tuple[TranscriptStore, Transcript]:
        """Re-verify an existing file, drop a torn last record, and reopen it for appending."""
        data = path.read_bytes()
        parsed = parse_file(data, roster)
        handle = open(path, "r+b")  # noqa: SIM115 - owned by the returned store
        if parsed.torn_tail:
            handle.truncate(parsed.valid_length)
            os.fsync(handle.fileno())
        handle.seek(parsed.valid_length)
        return cls(path, handle), parsed.transcript

    def append(self, env: SignedEnvelope) -> None:
        self.append_batch((env,))

    def append_batch(self, envs: Iterable[SignedEnvelope], *, durable: bool = True) -> None:
        """Write records and make them durable before returning. With ``durable=False``
        they are only handed to the operating system (they survive the process dying, not
        the machine): for received messages, which :meth:`sync` makes durable before the
        next message that depends on them is sent (``wire.md`` §4.4)."""
        self._handle.write(b"".join(file_record(env) for env in envs))
        self._handle.flush()
        if durable:
            os.fsync(self._handle.fileno())

    def truncate(self, count: int) -> None:
        """Keep only the first ``count`` records (our own messages nobody took, dropped when
        the others' abandon took their slot), durably."""
        frames = read_frames(self.path.read_bytes())
        end = frames.offsets[count] if count < len(frames.records) else frames.end
        self._handle.truncate(end)
        self._handle.seek(end)
        os.fsync(self._handle.fileno())

    def sync(self) -> None:
        """Make every record written so far durable."""
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> TranscriptStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
