from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tarot_p2p.crypto.fiat_shamir import ProofContext, challenge
from tarot_p2p.crypto.group import ORDER

BASE = ProofContext(table_id=b"t", hand=1, phase="shares", seat=0)


@pytest.mark.parametrize(
    "change",
    [{"table_id": b"u"}, {"hand": 2}, {"phase": "play"}, {"seat": 1}, {"version": 6}],
)
def test_every_context_field_changes_the_challenge(change: dict[str, object]) -> None:
    other = dataclasses.replace(BASE, **change)  # type: ignore[arg-type]
    assert other.encode() != BASE.encode()
    assert challenge(b"l", other, b"x") != challenge(b"l", BASE, b"x")


@given(st.lists(st.binary(max_size=6), max_size=4), st.lists(st.binary(max_size=6), max_size=4))
def test_framing_separates_parts(a: list[bytes], b: list[bytes]) -> None:
    if a != b:
        assert challenge(b"l", BASE, *a) != challenge(b"l", BASE, *b)


def test_label_separates_and_result_in_range() -> None:
    c = challenge(b"a", BASE)
    assert c != challenge(b"b", BASE)
    assert 0 <= c < ORDER


@pytest.mark.parametrize(
    "fields",
    [
        {"hand": -1},
        {"hand": 1 << 32},
        {"seat": 256},
        {"seat": -1},
        {"phase": "é"},
        {"version": 1 << 16},
    ],
)
def test_out_of_range_context_rejected(fields: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        dataclasses.replace(BASE, **fields)  # type: ignore[arg-type]
