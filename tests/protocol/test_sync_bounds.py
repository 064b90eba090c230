"""What a sync request costs the peer that answers it, and what early messages cost to keep.

A member may send sync requests over and over (or a relay replay them): each one must
cause a bounded answer, in records and in bytes, and only the records the requester
lacks. Envelopes kept while waiting for the ones they build on are bounded likewise, the
oldest going first. These bounds are what keeps a flood from turning into memory or
bandwidth spent by every honest peer.
"""

from __future__ import annotations

import hashlib

from tarot_p2p.protocol.envelope import SignedEnvelope, seal
from tarot_p2p.protocol.sync import (
    MAX_ANSWER_BYTES,
    MAX_ANSWER_RECORDS,
    REPEAT_BURST,
    REPEAT_RATE,
    SPLIT_CONTEXT,
    AnswerBudget,
    EarlyMessages,
    SyncRequest,
    answer,
    answer_span,
)
from tarot_p2p.protocol.transcript import Transcript
from tests.protocol.wire_vectors import BINDING, TABLE_ID, identity

KEY = identity("seat 0")


def a_transcript(count: int, size: int = 8) -> tuple[Transcript, list[SignedEnvelope]]:
    """``count`` records of seat 0 in hand 0, each carrying ``size`` bytes (the envelope
    does not read its body: any kind will do here)."""
    transcript = Transcript(TABLE_ID, BINDING)
    envs = []
    for seq in range(count):
        env = seal(
            KEY, table_id=TABLE_ID, hand=0, seq=seq, seat=0, prev=transcript.head,
            kind="chat", body={"data": (b"%d" % seq).ljust(size, b"x")},
        )  # fmt: skip
        transcript.append(env)
        envs.append(env)
    return transcript, envs


def request(transcript: Transcript, count: int, member: int = 1) -> SyncRequest:
    return SyncRequest(member, count, transcript.digest_after(count))


def test_an_answer_holds_the_records_after_the_requesters_and_no_more() -> None:
    transcript, envs = a_transcript(5)
    assert answer(transcript, request(transcript, 2)) == [e.wire for e in envs[2:]]
    assert answer(transcript, request(transcript, 0)) == [e.wire for e in envs]
    assert answer(transcript, request(transcript, 5)) == []  # up to date
    assert answer(transcript, SyncRequest(1, 6, b"\x00" * 32)) == []  # ahead of us


def test_a_split_view_gets_the_records_before_the_point_too() -> None:
    transcript, envs = a_transcript(SPLIT_CONTEXT + 4)
    other_head = hashlib.sha256(b"another history").digest()
    count = SPLIT_CONTEXT + 2
    got = answer(transcript, SyncRequest(1, count, other_head))
    assert got == [e.wire for e in envs[count - SPLIT_CONTEXT :]]
    # Same length, another head: the last records are sent again for the requester to see.
    full = len(envs)
    assert answer(transcript, SyncRequest(1, full, other_head)) == [
        e.wire for e in envs[full - SPLIT_CONTEXT :]
    ]
    # Near the start: from the first record, never before it.
    assert answer(transcript, SyncRequest(1, 3, other_head)) == [e.wire for e in envs]


def test_an_answer_is_bounded_in_records() -> None:
    transcript, envs = a_transcript(MAX_ANSWER_RECORDS + 6)
    got = answer(transcript, request(transcript, 0))
    assert got == [e.wire for e in envs[:MAX_ANSWER_RECORDS]]


def test_an_answer_is_bounded_in_bytes_but_holds_at_least_one_record() -> None:
    size = MAX_ANSWER_BYTES // 5
    transcript, envs = a_transcript(8, size=size)
    got = answer(transcript, request(transcript, 1))
    assert got == [e.wire for e in envs[1:5]]  # four of about a fifth of the bound each
    assert sum(map(len, got)) <= MAX_ANSWER_BYTES < sum(map(len, got)) + len(envs[5].wire)
    huge, [only] = a_transcript(1, size=MAX_ANSWER_BYTES + 10)
    assert answer(huge, request(huge, 0)) == [only.wire]  # over the bound, yet sent alone


def test_records_that_fill_the_byte_bound_exactly_are_all_sent() -> None:
    probe = len(a_transcript(1, size=200_000)[1][0].wire) - 200_000  # the envelope's overhead
    size = MAX_ANSWER_BYTES // 2 - probe
    transcript, envs = a_transcript(3, size=size)
    assert len(envs[0].wire) + len(envs[1].wire) == MAX_ANSWER_BYTES
    assert answer(transcript, request(transcript, 0)) == [envs[0].wire, envs[1].wire]


def test_early_messages_come_out_in_order_once_their_digest_is_reached() -> None:
    early = EarlyMessages()
    early.keep(b"a", b"first")
    early.keep(b"b", b"other")
    early.keep(b"a", b"second")
    early.keep(b"a", b"first")  # the same again: kept once
    assert len(early) == 3
    assert list(early) == [b"first", b"other", b"second"]  # all of them, oldest first
    assert early.ready(b"a") == [b"first", b"second"]
    assert early.ready(b"a") == [] and len(early) == 1
    assert early.ready(b"b") == [b"other"] and len(early) == 0


def test_early_messages_are_bounded_in_count_the_oldest_going_first() -> None:
    early = EarlyMessages(max_messages=3, max_bytes=1000)
    for k in range(5):
        early.keep(b"d", b"m%d" % k)
    assert len(early) == 3
    assert early.ready(b"d") == [b"m2", b"m3", b"m4"]


def test_early_messages_are_bounded_in_bytes_the_oldest_going_first() -> None:
    early = EarlyMessages(max_messages=100, max_bytes=10)
    early.keep(b"d", b"ab")
    early.keep(b"d", b"x" * 11)  # larger than the whole bound: never kept, costs nothing
    assert early.ready(b"d") == [b"ab"]
    for k in range(4):
        early.keep(b"d", b"%d" % k * 4)  # 4 bytes each: two fit
    assert early.ready(b"d") == [b"2222", b"3333"]
    # What was taken out no longer counts: the bound is free again.
    early.keep(b"e", b"y" * 10)
    assert early.ready(b"e") == [b"y" * 10]


def test_a_message_kept_twice_counts_its_bytes_once() -> None:
    early = EarlyMessages(max_messages=100, max_bytes=10)
    early.keep(b"d", b"aaaa")
    early.keep(b"d", b"aaaa")
    early.keep(b"d", b"bbbb")  # 8 bytes in all: both fit
    assert early.ready(b"d") == [b"aaaa", b"bbbb"]


def test_early_messages_keep_the_reference_bounds_of_the_spec() -> None:
    """wire.md §7.3: the reference keeps at most 256 messages and 8 MiB."""
    early = EarlyMessages()
    for k in range(257):
        early.keep(b"d", b"%d" % k)
    assert len(early) == 256 and early.ready(b"d")[0] == b"1"
    mib = 1 << 20
    for k in range(9):
        early.keep(b"e", bytes([k]) * mib)
    assert [m[0] for m in early.ready(b"e")] == list(range(1, 9))  # 8 MiB: the first went


def test_each_record_is_answered_to_a_member_once_for_free_then_from_its_budget() -> None:
    """wire.md §7.2: a member asking again and again costs a peer the transcript once,
    plus a burst, plus a rate; other members keep their own allowance."""
    transcript, envs = a_transcript(10, size=1000)
    budget = AnswerBudget(burst=2500, rate=1000)
    size = len(envs[0].wire)
    wrong = SyncRequest(1, 2, b"\x00" * 32)  # a wrong digest: everything from the start
    start, records = answer_span(transcript, wrong)
    assert start == 0 and len(records) == 10
    assert budget.grant(1, start, records, now=0.0) == records  # new to member 1
    again = budget.grant(1, start, records, now=0.0)
    assert again == records[: 2500 // size]  # repeats: the burst, cut in chain order
    assert budget.grant(1, start, records, now=0.1) == []  # nothing fits yet
    assert len(budget.grant(1, start, records, now=0.1 + 2 * size / 1000)) == 2  # refilled
    assert budget.grant(2, start, records, now=0.2) == records  # member 2: its own count
    # A member catching up is never slowed: each answer brings records new to it.
    long, _ = a_transcript(2 * MAX_ANSWER_RECORDS + 5)
    fresh = AnswerBudget(burst=0, rate=0)
    count = 0
    while count < len(long):
        start, records = answer_span(long, request(long, count))
        assert fresh.grant(3, start, records, now=0.0) == records
        count += len(records)


def test_the_answer_budget_keeps_the_reference_values_of_the_spec() -> None:
    """wire.md §7.2: burst 128 KiB, refilled at 8 KiB/s."""
    assert (REPEAT_BURST, REPEAT_RATE) == (128 << 10, 8 << 10)
    budget = AnswerBudget()
    assert (budget.burst, budget.rate) == (REPEAT_BURST, REPEAT_RATE)


def test_the_answer_budget_refills_with_time_only_and_spends_to_its_last_byte() -> None:
    """No refill without time passing (two requests in the same instant, or a clock set
    back), and a repeat exactly the size of what is left still goes."""
    _, envs = a_transcript(4, size=1000)
    size = len(envs[0].wire)
    records = [e.wire for e in envs]
    budget = AnswerBudget(burst=2 * size, rate=1000)
    assert budget.grant(1, 0, records, now=10.0) == records  # new: free
    assert budget.grant(1, 0, records, now=10.0) == records[:2]  # the burst, to its last byte
    assert budget.grant(1, 0, records, now=10.0) == []  # the same instant: nothing more
    assert budget.grant(1, 0, records, now=4.0) == []  # a clock set back: nothing more
    assert budget.grant(1, 0, records, now=4.0 + size / 1000) == records[:1]  # refilled
