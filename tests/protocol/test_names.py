"""Names are text (``lobby.md`` §1.2, §1.3): the rule refuses what a terminal obeys or what
hides text, with a reason a player reads; anything printed from another player is escaped;
look-alike names share a key."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tarot_p2p.protocol.names import (
    REFUSED,
    NameRefused,
    checked_name,
    for_terminal,
    look_alike,
)
from tarot_p2p.protocol.table import TableMachine
from tarot_p2p.rules.config import TableConfig

ATTACKS = {
    "Bob\x1b[2J": ("a control character", "\\x1b"),  # clears the screen
    "\x1b]0;pwned\x07Eve": ("a control character", "\\x1b"),  # sets the window's title
    "Eve\x07": ("a control character", "\\x07"),  # BEL
    "Al\x08\x08ice": ("a control character", "\\x08"),  # backspaces
    "Eve\u202egnp.exe": ("an invisible formatting character", "\\u202e RIGHT-TO-LEFT OVERRIDE"),
    "Ali\u200bce": ("an invisible formatting character", "\\u200b ZERO WIDTH SPACE"),
}
"""The names of issue 17's attack, with what the reason says about each."""


def safe(text: str) -> bool:
    """Nothing in ``text`` that a terminal obeys or that hides text."""
    return all(unicodedata.category(c) not in REFUSED for c in text)


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_each_attack_name_is_refused_with_a_reason_in_words(name: str) -> None:
    what, shown = ATTACKS[name]
    with pytest.raises(NameRefused) as refused:
        checked_name(name)
    reason = str(refused.value)
    assert f"holds {what} ({shown})" in reason
    assert f'the name "{for_terminal(name)}"' in reason
    assert reason.endswith("Choose a name of letters, digits, spaces and punctuation.")
    assert safe(reason)  # the reason itself can be printed


def test_bytes_a_terminal_sent_that_are_not_utf8_are_refused() -> None:
    """Python reads such bytes of the command line as lone surrogates (``surrogateescape``):
    refused with the reason, never a crash when the name is encoded or printed."""
    with pytest.raises(NameRefused, match=r"bytes that are not text \(\\udcff\)"):
        checked_name("Bob\udcff")
    assert for_terminal("Bob\udcff") == "Bob\\udcff"
    for_terminal("Bob\udcff").encode("utf-8")


def test_private_use_and_unassigned_are_refused() -> None:
    with pytest.raises(NameRefused, match="a private-use character"):
        checked_name("Bob\ue000")
    with pytest.raises(NameRefused, match="a character this program does not know"):
        checked_name("Bob\u0378")


def test_white_space_is_normalised_before_the_rule_and_nfc_applies() -> None:
    assert checked_name(" Ali\tce\u2028 ") == "Ali ce"
    assert checked_name("Chloe\u0301") == "Chlo\u00e9" == checked_name("Chlo\u00e9")
    assert checked_name("\uff22\uff4f\uff42") == "\uff22\uff4f\uff42"  # no compatibility form
    with pytest.raises(NameRefused, match="1 to 64 characters, not 65"):
        checked_name("x" * 65)
    with pytest.raises(NameRefused, match="not 0"):
        checked_name(" \n ")


@given(st.text(max_size=80))
def test_for_terminal_leaves_nothing_a_terminal_obeys(text: str) -> None:
    shown = for_terminal(text)
    assert safe(shown)
    assert for_terminal(shown) == shown  # idempotent: escaping twice changes nothing
    if safe(text):
        assert shown == text


def test_for_terminal_shows_each_escape_visibly() -> None:
    assert for_terminal("a\x1b[2Jb\nc") == "a\\x1b[2Jb\\x0ac"
    assert for_terminal("\u202e\U000e0001") == "\\u202e\\U000e0001"
    assert for_terminal("L\u00e9a \u674e \\u202e") == "L\u00e9a \u674e \\u202e"


@given(st.text(max_size=20))
def test_a_name_the_rule_accepts_is_printed_as_it_is(text: str) -> None:
    try:
        name = checked_name(text)
    except NameRefused:
        return
    assert for_terminal(name) == name and look_alike(name) == look_alike(look_alike(name))


def test_look_alike_keys() -> None:
    alike = ("Alice", "ALICE", "\uff21\uff4c\uff49\uff43\uff45", "Ali\u200bce", "  alice ")
    assert {look_alike(name) for name in alike} == {"alice"}
    assert look_alike("Stra\u00dfe") == look_alike("STRASSE")
    assert look_alike("Alice") != look_alike("\u0410lice")  # Cyrillic: not by this key
    assert look_alike("Alice") != look_alike("Alicia")


@pytest.mark.parametrize(
    "names",
    [
        ("Stra\u00dfe", "STRASSE", "Bob"),  # full case folding: \u00df is "ss"
        ("\ufb01lou", "FILOU", "Bob"),  # the ligature folds to "fi"
        ("Ana", " ana\u3000", "Bob"),  # trimmed first (IDEOGRAPHIC SPACE is Zs)
        ("Ana", "\u2003", "Bob"),  # EM SPACE alone: empty once trimmed
    ],
)
def test_a_setup_whose_names_are_equal_once_trimmed_and_folded_is_refused(
    names: tuple[str, str, str],
) -> None:
    """table.md §4.1: trim (str.strip) then full case folding (str.casefold)."""
    config = TableConfig(players=3)
    with pytest.raises(ValueError):
        TableMachine(config, bytes(32), [bytes([i]) * 32 for i in range(3)], list(names))
    TableMachine(config, bytes(32), [bytes([i]) * 32 for i in range(3)], ["Ana", "Bea", "Bob"])
