"""The verdict line: what an adapter prints, what the kit reads, and the offence our peer's
violation records name."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tarot_p2p.conformance.verdict import KINDS, Verdict, VerdictError, offence_of
from tarot_p2p.protocol.envelope import open_envelope, seal
from tests.protocol.harness import Bot, make_table, one_deal, play_game

verdicts = st.one_of(
    st.sampled_from([Verdict("finished"), Verdict("disconnected")]),
    st.builds(Verdict, st.just("absence"), st.integers(0, 15)),
    st.builds(Verdict, st.just("violation"), st.integers(0, 15), st.sampled_from(sorted(KINDS))),
)


@given(verdicts)
def test_every_verdict_reads_back_from_its_line(verdict: Verdict) -> None:
    assert Verdict.parse(verdict.line()) == verdict
    assert Verdict.parse(f"  {verdict.line()}\n") == verdict


@pytest.mark.parametrize(
    "line",
    [
        "finished",
        "verdict Finished",
        "verdict violation 1",
        "verdict violation one shuffle",
        "verdict violation 1 shuffle extra",
        "verdict violation 1 cheat",
        "verdict absence",
        "verdict disconnected 2",
        "",
    ],
)
def test_anything_else_is_no_verdict(line: str) -> None:
    with pytest.raises(VerdictError):
        Verdict.parse(line)


def test_the_offence_is_the_kind_signed_or_an_equivocation() -> None:
    table = make_table(one_deal(3), seed=b"verdict")
    play_game(table, Bot())
    table_id = table.observer.table_id
    envs = [open_envelope(w, table_id=table_id, roster=None) for w in table.wires]
    shuffle = next(e for e in envs if e.kind == "shuffle")
    score = next(e for e in envs if e.kind == "score")
    assert offence_of([shuffle.wire], table_id) == "shuffle"
    # An exposed lie: the earlier message first, then the one that opened it.
    assert offence_of([shuffle.wire, score.wire], table_id) == "shuffle"
    again = seal(
        table.key_of(score.hand, score.seat),
        table_id=table_id,
        hand=score.hand,
        seq=score.seq,
        seat=score.seat,
        prev=score.prev,
        kind="score",
        body={"scores": [0, 0, 0]},
    ).wire
    assert offence_of([score.wire, again], table_id) == "equivocation"
    with pytest.raises(ValueError):
        offence_of([b"junk"], table_id)
