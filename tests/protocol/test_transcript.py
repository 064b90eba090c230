from __future__ import annotations

import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.protocol.envelope import SignedEnvelope, seal
from tarot_p2p.protocol.errors import SeatViolation, UnattributedMessage
from tarot_p2p.protocol.transcript import (
    GENESIS_TAG,
    LINK_TAG,
    Transcript,
    TranscriptFileError,
    TranscriptGap,
    Verdict,
    file_header,
    file_record,
    genesis_digest,
    parse_file,
)

TABLE = bytes(range(32))
BINDING = hashlib.sha256(b"config").digest()
KEYS = [Ed25519PrivateKey.from_private_bytes(bytes([i + 1]) * 32) for i in range(3)]
ROSTER = {seat: key.public_key() for seat, key in enumerate(KEYS)}


def msg(
    t: Transcript, seat: int, slot: tuple[int, int], body: object = 0, prev: bytes | None = None
) -> SignedEnvelope:
    return seal(
        KEYS[seat],
        table_id=TABLE,
        hand=slot[0],
        seq=slot[1],
        seat=seat,
        prev=t.head if prev is None else prev,
        kind="move",
        body={"x": body},
    )


def played(n: int = 4) -> Transcript:
    """Seats 0,1,2,0,... speak in turn; hand 0 has 2 messages, then hand 1."""
    t = Transcript(TABLE, BINDING)
    slots = [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (2, 0)]
    for i in range(n):
        t.append(msg(t, i % 3, slots[i], body=i))
    return t


def test_digests_follow_the_spec() -> None:
    t = Transcript(TABLE, BINDING)
    assert t.head == hashlib.sha256(GENESIS_TAG + TABLE + BINDING).digest()
    env = msg(t, 0, (0, 0))
    head = t.append(env)
    expected = hashlib.sha256(
        LINK_TAG + t.digest_after(0) + hashlib.sha256(env.payload).digest()
    ).digest()
    assert head == expected == t.head
    assert list(t) == [env] and len(t) == 1


def test_genesis_binds_table_and_configuration() -> None:
    assert genesis_digest(TABLE, BINDING) != genesis_digest(TABLE, bytes(32))
    assert genesis_digest(TABLE, BINDING) != genesis_digest(bytes(32), BINDING)
    with pytest.raises(ValueError):
        genesis_digest(TABLE, b"short")


def test_duplicate_is_recognised() -> None:
    t = played()
    assert t.classify(list(t)[1]) is Verdict.DUPLICATE


def test_equivocation_keeps_both_messages() -> None:
    t = played()
    first = list(t)[1]
    other = seal(
        KEYS[1],
        table_id=TABLE,
        hand=0,
        seq=1,
        seat=1,
        prev=first.prev,
        kind="move",
        body={"x": "something else"},
    )
    with pytest.raises(SeatViolation, match="equivocation") as info:
        t.classify(other)
    assert info.value.seat == 1
    assert info.value.evidence == (first.wire, other.wire)


def test_slot_taken_by_another_seat_is_a_fork() -> None:
    t = played()
    intruder = seal(
        KEYS[2], table_id=TABLE, hand=0, seq=1, seat=2, prev=list(t)[1].prev, kind="move", body={}
    )
    with pytest.raises(SeatViolation, match="fork") as info:
        t.classify(intruder)
    assert info.value.seat == 2


def test_message_on_an_older_head_is_a_fork() -> None:
    t = played()
    stale = msg(t, 1, (1, 2), prev=t.digest_after(2))
    with pytest.raises(SeatViolation, match="fork: message") as info:
        t.classify(stale)
    assert info.value.seat == 1 and info.value.evidence == (stale.wire,)


def test_unknown_history_is_a_gap_not_an_accusation() -> None:
    t = played()
    lost = msg(t, 1, (1, 3), prev=b"\x42" * 32)
    with pytest.raises(TranscriptGap):
        t.classify(lost)


@pytest.mark.parametrize("slot", [(1, 1), (1, 4), (3, 0), (2, 1), (0, 5)])
def test_wrong_slot_on_our_head(slot: tuple[int, int]) -> None:
    t = played()  # last slot (1, 1): successors are (1, 2) and (2, 0)
    if slot == (1, 1):
        with pytest.raises(SeatViolation):  # filled by seat 0: equivocation
            t.classify(msg(t, 0, slot))
        return
    with pytest.raises(SeatViolation, match="does not follow"):
        t.classify(msg(t, 1, slot))


def test_first_message_must_be_slot_zero() -> None:
    t = Transcript(TABLE, BINDING)
    with pytest.raises(SeatViolation):
        t.classify(msg(t, 0, (0, 1)))
    assert t.classify(msg(t, 0, (0, 0))) is Verdict.NEXT


def test_both_successor_slots_are_accepted() -> None:
    t = played(2)
    assert t.classify(msg(t, 2, (0, 2))) is Verdict.NEXT
    assert t.classify(msg(t, 2, (1, 0))) is Verdict.NEXT


def test_append_refuses_duplicates() -> None:
    t = played()
    with pytest.raises(ValueError):
        t.append(next(iter(t)))


def test_other_table_refused() -> None:
    t = played()
    other = Transcript(bytes(32), BINDING)
    foreign = seal(
        KEYS[0], table_id=bytes(32), hand=0, seq=0, seat=0, prev=other.head, kind="move", body={}
    )
    with pytest.raises(UnattributedMessage):
        t.classify(foreign)


def file_bytes(t: Transcript) -> bytes:
    return file_header(TABLE, BINDING) + b"".join(file_record(e) for e in t)


def test_file_round_trip_with_and_without_roster() -> None:
    t = played(6)
    data = file_bytes(t)
    for roster in (None, ROSTER):
        parsed = parse_file(data, roster)
        assert parsed.torn_tail == 0 and parsed.valid_length == len(data)
        assert parsed.transcript.head == t.head
        assert [e.wire for e in parsed.transcript] == [e.wire for e in t]


@pytest.mark.parametrize("cut", [1, 3, 4, 10])
def test_torn_tail_is_reported(cut: int) -> None:
    t = played(6)
    full = file_bytes(t)
    last = len(file_record(list(t)[-1]))
    parsed = parse_file(full[: len(full) - last + cut])
    assert parsed.torn_tail == cut
    assert len(parsed.transcript) == 5
    assert parsed.transcript.head == t.digest_after(5)


def test_file_tampering_is_detected() -> None:
    t = played(6)
    data = bytearray(file_bytes(t))
    # Flip one byte inside the body of record 3: the chain (or signature) no longer holds.
    records = list(t)
    offset = len(file_header(TABLE, BINDING)) + sum(len(file_record(e)) for e in records[:3])
    data[offset + 4 + len(records[3].wire) // 2] ^= 0x01
    with pytest.raises(TranscriptFileError, match="record 3"):
        parse_file(bytes(data), ROSTER)


def test_file_with_wrong_roster_is_refused() -> None:
    t = played(3)
    wrong = {0: ROSTER[1], 1: ROSTER[0], 2: ROSTER[2]}
    with pytest.raises(TranscriptFileError, match="signature"):
        parse_file(file_bytes(t), wrong)


def test_file_header_and_reordering() -> None:
    t = played(3)
    with pytest.raises(TranscriptFileError):
        parse_file(b"not a transcript")
    bad_version = bytearray(file_bytes(t))
    bad_version[9] = 9
    with pytest.raises(TranscriptFileError, match="version"):
        parse_file(bytes(bad_version))
    e = list(t)
    swapped = file_header(TABLE, BINDING) + file_record(e[1]) + file_record(e[0])
    with pytest.raises(TranscriptFileError, match="record 0"):
        parse_file(swapped)
    doubled = file_header(TABLE, BINDING) + file_record(e[0]) + file_record(e[0])
    with pytest.raises(TranscriptFileError, match="duplicate"):
        parse_file(doubled)
    zero = file_header(TABLE, BINDING) + b"\x00\x00\x00\x00"
    with pytest.raises(TranscriptFileError, match="bad length"):
        parse_file(zero)


def test_file_read_without_roster_is_marked_unverified() -> None:
    t = played(2)
    assert all(e.verified for e in t)
    assert not any(e.verified for e in parse_file(file_bytes(t)).transcript)
    assert all(e.verified for e in parse_file(file_bytes(t), ROSTER).transcript)
