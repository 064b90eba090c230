"""The transcript's checks at their edges: parallel rounds, a file's loose ``prev``, framing.

Why a second file: ``test_transcript.py`` shows each verdict once; these tests pin what a
mutation run of ``protocol/transcript.py`` found unguarded (``docs/mutation.md``): that a
message of a parallel round is placed on the round's base and a later one is kept as
early (not blamed), that a file's reader takes a ``prev`` back to its hand's start and no
further, where the framing stops (a header alone, a record of 1 byte and of exactly
``MAX_RECORD_LEN``, a record torn a few bytes short), and the evidence and words each
refusal carries (a peer's log and an accusation are all that is left of a refusal).
Everything goes through the public API; the messages are built here, in each test.
"""

from __future__ import annotations

import pytest

from tarot_p2p.protocol.envelope import seal
from tarot_p2p.protocol.errors import SeatViolation, UnattributedMessage
from tarot_p2p.protocol.transcript import (
    FILE_MAGIC,
    HEADER_LEN,
    MAX_RECORD_LEN,
    EarlyInRound,
    RoundSlots,
    Transcript,
    TranscriptFileError,
    TranscriptGap,
    Verdict,
    file_header,
    file_record,
    genesis_digest,
    link_digest,
    opening_digest,
    parse_file,
    read_frames,
)
from tests.protocol.test_transcript import BINDING, KEYS, ROSTER, TABLE, msg, played

HEADER = file_header(TABLE, BINDING)


def in_round() -> Transcript:
    """Hand 0 of two messages, then hand 1's first, then a round of seqs 1 to 3 on the
    digest after those three (as the table opens one, ``table.md`` §1.4)."""
    t = played(3)
    t.round = RoundSlots(base=3, hand=1, seqs=range(1, 4))
    return t


def test_a_round_takes_each_message_on_its_base_in_seat_order() -> None:
    t = in_round()
    base = t.digest_after(3)
    assert t.expected_prev == base
    for seq, seat in ((1, 1), (2, 2), (3, 0)):
        env = msg(t, seat, (1, seq), prev=base)
        assert t.classify(env) is Verdict.NEXT
        t.append(env)
        assert t.expected_prev == base != t.head
    with pytest.raises(SeatViolation, match="fork: message"):
        t.classify(msg(t, 1, (1, 4)))  # the head is not the round's base


def test_a_later_message_of_the_round_is_early_not_blamed() -> None:
    t = in_round()
    base = t.digest_after(3)
    early = msg(t, 2, (1, 2), prev=base)
    with pytest.raises(EarlyInRound) as info:
        t.classify(early)
    gap = info.value
    assert gap.reason == "message (1, 2) of this round came early" == str(gap)
    assert gap.raw == early.wire and gap.prev == base


@pytest.mark.parametrize("slot", [(1, 4), (1, 5), (2, 1), (0, 3)])
def test_a_slot_outside_the_round_on_its_base_is_blamed(slot: tuple[int, int]) -> None:
    t = in_round()
    wrong = msg(t, 1, slot, prev=t.digest_after(3))
    with pytest.raises(SeatViolation, match="does not follow") as info:
        t.classify(wrong)
    assert info.value.seat == 1 and info.value.evidence == (wrong.wire,)


def test_a_loose_reader_takes_a_prev_back_to_its_hands_start_and_no_further() -> None:
    t = played(4)  # slots (0, 0), (0, 1), (1, 0), (1, 1): hand 1 starts after 2 messages
    t.strict = False
    at_start = msg(t, 2, (1, 2), prev=t.digest_after(2))
    assert t.classify(at_start) is Verdict.NEXT
    assert t.classify(msg(t, 2, (1, 2), prev=t.digest_after(3))) is Verdict.NEXT
    before = msg(t, 2, (1, 2), prev=t.digest_after(1))
    with pytest.raises(SeatViolation, match=r"fork: message \(1, 2\) built on message 1"):
        t.classify(before)
    # The first message of a hand has no start of its own: only the head will do.
    with pytest.raises(SeatViolation, match=r"fork: message \(2, 0\) built on message 3"):
        t.classify(msg(t, 2, (2, 0), prev=t.digest_after(3)))
    assert t.classify(msg(t, 2, (2, 0))) is Verdict.NEXT
    t.strict = True
    with pytest.raises(SeatViolation, match="fork: message"):
        t.classify(at_start)


def test_a_file_holding_a_round_is_read() -> None:
    """Messages of a round carry the round's base as ``prev``: a file's reader, which knows
    no rounds, must take them (and the table's replay checks the base)."""
    t = in_round()
    base = t.digest_after(3)
    for seq, seat in ((1, 1), (2, 2), (3, 0)):
        t.append(msg(t, seat, (1, seq), prev=base))
    t.round = None
    t.append(msg(t, 1, (2, 0)))
    data = HEADER + b"".join(file_record(e) for e in t)
    parsed = parse_file(data, ROSTER)
    assert parsed.transcript.head == t.head and len(parsed.transcript) == 7
    assert parsed.transcript.strict is False


def test_positions_and_the_binding_are_kept() -> None:
    t = played(4)
    assert t.binding == BINDING and t.table_id == TABLE
    for count in range(5):
        assert t.position(t.digest_after(count)) == count
    assert t.position(bytes(32)) is None


def test_a_gap_keeps_the_message_and_the_history_it_names() -> None:
    t = played()
    lost = msg(t, 1, (1, 3), prev=b"\x42" * 32)
    with pytest.raises(TranscriptGap) as info:
        t.classify(lost)
    assert type(info.value) is TranscriptGap
    assert info.value.reason == "message (1, 3) built on an unknown history"
    assert info.value.raw == lost.wire and info.value.prev == b"\x42" * 32


def test_another_tables_message_is_kept_for_the_log_unblamed() -> None:
    t = played()
    other = Transcript(bytes(32), BINDING)
    foreign = seal(
        KEYS[0], table_id=bytes(32), hand=0, seq=0, seat=0, prev=other.head, kind="m", body={}
    )
    with pytest.raises(UnattributedMessage) as info:
        t.classify(foreign)
    assert info.value.reason == "message for another table" and info.value.raw == foreign.wire


def test_a_slot_of_another_seat_keeps_the_intruder_as_evidence() -> None:
    t = played()
    intruder = msg(t, 2, (0, 1), prev=list(t)[1].prev)
    with pytest.raises(SeatViolation, match="already holds a message of seat 1") as info:
        t.classify(intruder)
    assert info.value.evidence == (intruder.wire,)


def test_a_filled_slot_on_a_history_we_do_not_hold_blames_nobody() -> None:
    """Another seat's message for a slot we filled, built on a history we never had: the
    silent seat's message sent after the one the others' abandon overtook, or one on a
    made-up history. No proof against anyone (``wire.md`` §4.3): kept for the log."""
    t = played()
    stray = msg(t, 2, (0, 1), prev=bytes(32))
    with pytest.raises(UnattributedMessage) as info:
        t.classify(stray)
    assert info.value.reason == (
        "message (0, 1) built on a history we do not hold, for a slot we have filled"
    )
    assert info.value.raw == stray.wire


def test_the_message_at_a_slot_is_found_by_its_slot() -> None:
    t = played()
    held = list(t)
    assert [t.at(e.slot) for e in held] == held
    assert t.at((1, 2)) is None and t.at((5, 0)) is None


def test_append_refuses_a_duplicate_in_words() -> None:
    t = played()
    with pytest.raises(ValueError, match=r"^message \(0, 0\) is already in the transcript$"):
        t.append(next(iter(t)))


def test_a_genesis_of_wrong_lengths_is_refused_in_words() -> None:
    for table_id, binding in ((TABLE[:31], BINDING), (TABLE, BINDING + b"\x00")):
        with pytest.raises(ValueError, match=r"^table_id and binding must be 32 bytes each$"):
            genesis_digest(table_id, binding)


# --- the opening chain (table.md §1.5, §1.6) ----------------------------------------------


def _opening_points(t: Transcript, hand: int) -> list[bytes]:
    """The opening chain of ``hand`` as ``transcript.py``'s docstring defines it, rebuilt
    here from the messages: ``o_0`` after the previous hand's first message, then each of
    the hand's payloads linked on."""
    envs = list(t)
    first = next(i for i, e in enumerate(envs) if e.slot == (hand - 1, 0))
    points = [opening_digest(t.digest_after(first + 1))]
    for env in envs:
        if env.hand == hand:
            points.append(link_digest(points[-1], env.payload))
    return points


def test_an_opening_chain_point_is_placed_before_the_slot_it_is_the_base_of() -> None:
    t = played(5)  # (0, 0), (0, 1), then hand 1 from message 2: (1, 0), (1, 1), (1, 2)
    points = _opening_points(t, 1)
    assert points[0] == opening_digest(t.digest_after(1)) == t.opening_start(1)
    assert [t.position(p) for p in points] == [2, 3, 4, 5]
    # The next hand's start, before it has any message: after all of ours.
    assert t.position(t.opening_start(2) or b"") == 5
    # The opening digests are none of the transcript's.
    assert not set(points) & {t.digest_after(i) for i in range(6)}


def test_no_opening_chain_starts_before_a_hand_has_a_first_message() -> None:
    t = Transcript(TABLE, BINDING)
    assert t.opening_start(0) is None and t.opening_start(1) is None
    t.opening = 1
    with pytest.raises(ValueError, match=r"^hand 1 cannot open here$"):
        t.expected_prev  # noqa: B018 (a property that raises)
    t.opening = None
    t.append(msg(t, 0, (0, 0)))
    assert t.opening_start(1) == opening_digest(t.head) and t.opening_start(2) is None


def test_the_next_hands_opening_on_its_chain_is_early_while_this_hand_goes_on() -> None:
    t = played(5)  # the last slot is (1, 2): neither its hand nor its seq plus one is 2
    start = t.opening_start(2)
    assert start is not None
    key = msg(t, 0, (2, 0), prev=start)
    with pytest.raises(EarlyInRound) as info:
        t.classify(key)
    assert info.value.reason == "message (2, 0) of the next hand came early" == str(info.value)
    assert info.value.raw == key.wire and info.value.prev == start
    # A later message of that opening, on a point of its chain we cannot have yet: early
    # too (a gap would ask the others for records that do not exist).
    later = msg(t, 1, (2, 1), prev=link_digest(start, key.payload))
    with pytest.raises(EarlyInRound, match=r"^message \(2, 1\) of the next hand came early$"):
        t.classify(later)
    # Once the table says the next message opens hand 2, the key is the next one.
    t.opening = 2
    assert t.expected_prev == start and t.classify(key) is Verdict.NEXT
    t.append(key)
    assert t.classify(later) is Verdict.NEXT


def test_a_loose_reader_takes_an_opening_on_its_own_hands_chain_only() -> None:
    t = played(5)
    t.strict = False
    start = t.opening_start(2)
    assert start is not None
    # A hand's first message on its opening chain's start, then the next on the next point.
    key = msg(t, 0, (2, 0), prev=start)
    assert t.classify(key) is Verdict.NEXT
    t.append(key)
    on_chain = link_digest(start, key.payload)
    assert t.classify(msg(t, 1, (2, 1), prev=on_chain)) is Verdict.NEXT
    # A point of hand 1's opening chain is history before hand 2: a fork.
    old = _opening_points(t, 1)[1]
    with pytest.raises(SeatViolation, match=r"^seat 1: fork: message \(2, 1\) built on message 3$"):
        t.classify(msg(t, 1, (2, 1), prev=old))


def test_includes_tells_which_messages_a_history_holds() -> None:
    t = played(5)  # messages 0 and 1 of hand 0, 2 to 4 of hand 1
    indexes = range(len(t) + 1)
    for count in range(len(t) + 1):
        assert [t.includes(t.digest_after(count), i) for i in indexes] == [
            i < count for i in indexes
        ]
    # A point of hand 1's opening chain: hand 0's first message, then hand 1's before it.
    point = _opening_points(t, 1)[1]
    assert [t.includes(point, i) for i in indexes] == [True, False, True, False, False, False]
    # The start of hand 2's opening: everything up to hand 1's first message, no further.
    start = t.opening_start(2) or b""
    assert [t.includes(start, i) for i in indexes] == [True, True, True, False, False, False]
    assert t.includes(bytes(32), 0) is None
    assert Transcript(TABLE, BINDING).includes(bytes(32), 0) is None


# --- the file's framing ------------------------------------------------------------------


def test_a_header_alone_is_an_empty_transcript() -> None:
    parsed = parse_file(HEADER)
    assert len(parsed.transcript) == 0 and parsed.transcript.head == genesis_digest(TABLE, BINDING)
    assert parsed.valid_length == HEADER_LEN and parsed.torn_tail == 0


def test_less_than_a_header_or_another_magic_is_not_a_transcript() -> None:
    for data in [HEADER[:cut] for cut in range(HEADER_LEN)] + [b"X" + HEADER[1:]]:
        with pytest.raises(TranscriptFileError, match=r"^not a tarot-p2p transcript file$"):
            read_frames(data)
    assert HEADER.startswith(FILE_MAGIC)


def test_record_lengths_from_one_to_the_maximum_are_framed() -> None:
    for length in (1, MAX_RECORD_LEN):
        frames = read_frames(HEADER + length.to_bytes(4, "big") + bytes(length))
        assert frames.records == (bytes(length),) and frames.offsets == (HEADER_LEN,)
        assert frames.bad_length is None and frames.torn_tail == 0
        assert frames.end == HEADER_LEN + 4 + length


@pytest.mark.parametrize("length", [0, MAX_RECORD_LEN + 1])
def test_a_bad_length_stops_the_reading_and_is_not_a_torn_tail(length: int) -> None:
    t = played(2)
    good = b"".join(file_record(e) for e in t)
    data = HEADER + good + length.to_bytes(4, "big") + bytes(7)
    frames = read_frames(data)
    assert frames.bad_length == (HEADER_LEN + len(good), length)
    assert frames.torn_tail == 0 and len(frames.records) == 2
    with pytest.raises(
        TranscriptFileError, match=rf"^record 2 at byte {HEADER_LEN + len(good)}: bad length"
    ):
        frames.refuse_bad_length()


@pytest.mark.parametrize("short", range(1, 9))
def test_a_record_a_few_bytes_short_is_torn(short: int) -> None:
    t = played(3)
    data = HEADER + b"".join(file_record(e) for e in t)
    frames = read_frames(data[:-short])
    assert len(frames.records) == 2
    assert frames.torn_tail == len(file_record(list(t)[2])) - short


def test_each_record_is_found_at_its_offset_and_refused_there() -> None:
    t = played(3)
    records = [file_record(e) for e in t]
    offsets = (HEADER_LEN, HEADER_LEN + len(records[0]), HEADER_LEN + len(records[0]) * 2)
    assert len({len(r) for r in records}) == 1
    assert read_frames(HEADER + b"".join(records)).offsets == offsets
    skipped = HEADER + records[0] + records[2]
    with pytest.raises(TranscriptFileError, match=rf"^record 1 at byte {offsets[1]}: "):
        parse_file(skipped)
