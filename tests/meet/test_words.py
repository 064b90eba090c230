"""Short codes: the word list's promises, and parsing as people type."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tarot_p2p.meet.words import WORDS, ShortCode, ShortCodeError, is_short_code, parse
from tarot_p2p.net.hello import MAX_CHANNEL


def test_the_list_has_256_short_words_told_apart_by_their_first_three_letters() -> None:
    assert len(WORDS) == 256 and len(set(WORDS)) == 256
    assert len({w[:3] for w in WORDS}) == 256
    assert all(w.isascii() and w.isalpha() and w.islower() and 4 <= len(w) <= 6 for w in WORDS)


@pytest.mark.parametrize(
    "typed",
    [
        "7-guitar-orbit",
        "7 guitar orbit",
        "7.Guitar.ORBIT",
        "  7 - guitar . orbit\n",
        "007-guitar-orbit",
    ],
)
def test_case_and_separators_do_not_matter(typed: str) -> None:
    assert parse(typed) == ShortCode(7, "guitar", "orbit")
    assert parse(typed).text() == "7-guitar-orbit"


@given(
    st.integers(1, MAX_CHANNEL),
    st.sampled_from(WORDS),
    st.sampled_from(WORDS),
    st.sampled_from(["-", " ", ".", " - ", ".."]),
    st.booleans(),
)
def test_round_trip(channel: int, first: str, second: str, sep: str, upper: bool) -> None:
    code = ShortCode(channel, first, second)
    text = sep.join([str(channel), first, second])
    assert parse(text.upper() if upper else text) == code
    assert parse(code.text()) == code and code.password() == code.text().encode()


def test_a_typo_gets_a_suggestion() -> None:
    with pytest.raises(ShortCodeError, match="did you mean 'guitar'"):
        parse("7-gitar-orbit")
    with pytest.raises(ShortCodeError, match="did you mean 'orbit'"):
        parse("7-guitar-orbti")


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("", "like 7-guitar-orbit"),
        ("guitar-orbit", "like 7-guitar-orbit"),
        ("7-guitar", "like 7-guitar-orbit"),
        ("7-guitar-orbit-extra", "like 7-guitar-orbit"),
        ("guitar-7-orbit", "the number comes first"),
        ("0-guitar-orbit", "not the number"),
        ("10000-guitar-orbit", "not the number"),
        ("7-xqzw-orbit", "check the code with the host"),
    ],
)
def test_what_is_wrong_is_said_in_words(typed: str, says: str) -> None:
    with pytest.raises(ShortCodeError, match=says):
        parse(typed)


def test_short_and_long_codes_are_told_apart() -> None:
    assert is_short_code("7-guitar-orbit") and is_short_code("7 gitar")
    assert not is_short_code("tp2p1-abcdef") and not is_short_code(" TP2P1-ABC")


def test_random_codes_use_the_channel_and_listed_words() -> None:
    codes = {ShortCode.random(42) for _ in range(50)}
    assert all(c.channel == 42 and c.first in WORDS and c.second in WORDS for c in codes)
    assert len(codes) > 1
