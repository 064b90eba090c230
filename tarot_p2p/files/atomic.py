"""Files replaced whole or not at all: a crash leaves the old copy or the new one.

Every file a player keeps that is rewritten (the score sheet, the seat's secrets, the
profile, a relay's tables) goes through here, so there is one way to write it safely.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def write_atomic(path: Path, data: bytes, mode: int = 0o644, *, durable: bool = True) -> None:
    """Replace ``path`` by ``data`` so that a crash leaves the old or the new file, whole.

    ``durable=False``: a reader still sees the old file or the new one, whole, but the new
    one is not forced to the disk (no ``fsync``, each of which can take tens of
    milliseconds on a busy disk): for a file that is worth nothing after a crash."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        if durable:
            os.fsync(handle.fileno())
    os.replace(tmp, path)
    if not durable:
        return
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_json_atomic(path: Path, value: object) -> None:
    write_atomic(path, (json.dumps(value, indent=2, sort_keys=True) + "\n").encode())


def write_private_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    write_atomic(path, data, 0o600, durable=durable)
