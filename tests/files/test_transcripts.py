from __future__ import annotations

from pathlib import Path

import pytest

from tarot_p2p.files.transcripts import TranscriptStore
from tarot_p2p.protocol.transcript import Transcript, file_record, parse_file
from tests.protocol.test_transcript import BINDING, ROSTER, TABLE, msg


def test_store_survives_a_torn_write(tmp_path: Path) -> None:
    path = tmp_path / "table.tp2p"
    live = Transcript(TABLE, BINDING)
    with TranscriptStore.create(path, TABLE, BINDING) as store:
        for seat, slot in enumerate([(0, 0), (0, 1)]):
            env = msg(live, seat, slot)
            live.append(env)
            store.append(env)
        third = msg(live, 2, (0, 2))
        live.append(third)
        store.append_batch([third])
    assert parse_file(path.read_bytes(), ROSTER).transcript.head == live.head

    # A crash in the middle of writing a fourth record leaves a torn tail.
    fourth = msg(live, 0, (1, 0))
    with path.open("ab") as handle:
        handle.write(file_record(fourth)[:7])
    torn = parse_file(path.read_bytes(), ROSTER)
    assert torn.torn_tail == 7 and torn.transcript.head == live.head

    store, resumed = TranscriptStore.resume(path, ROSTER)
    with store:
        assert resumed.head == live.head and len(resumed) == 3
        resumed.append(fourth)
        store.append(fourth)
    reread = parse_file(path.read_bytes(), ROSTER)
    assert reread.transcript.head == resumed.head and not reread.torn_tail


def test_create_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "table.tp2p"
    TranscriptStore.create(path, TABLE, BINDING).close()
    with pytest.raises(FileExistsError):
        TranscriptStore.create(path, TABLE, BINDING)
