"""The page's words and card drawings."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from tarot_p2p.rules.cards import DECK_SIZE, EXCUSE, parse_card
from tarot_p2p.ui.cards import back_svg, card_svg
from tarot_p2p.ui.i18n import TABLES, Words, system_language
from tarot_p2p.ui.view import hand_order, sorted_cards


def test_both_languages_have_every_word() -> None:
    assert set(TABLES["fr"]) == set(TABLES["en"])


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LC_ALL": "fr_BE.UTF-8", "LANG": "en_GB.UTF-8"}, "fr"),
        ({"LC_ALL": "C.UTF-8", "LANG": "fr_FR.UTF-8"}, "en"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_french_by_default_on_a_french_system(environ: dict[str, str], lang: str) -> None:
    assert system_language(environ) == lang


def test_card_names() -> None:
    fr, en = Words("fr"), Words("en")
    assert fr.card(parse_card("KH")) == "Roi de cœur"
    assert en.card(parse_card("CS")) == "Knight of spades"
    assert fr.card(parse_card("T21")) == "21 d'atout"
    assert en.card(EXCUSE) == "Excuse"
    assert fr.clock(62.9) == "1:02"
    with pytest.raises(ValueError, match="language"):
        Words("de")


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_card_is_a_well_formed_svg(lang: str) -> None:
    words = Words(lang)
    for card in range(DECK_SIZE):
        root = ET.fromstring(card_svg(card, lang))
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert root.get("aria-label") == words.card(card)
    ET.fromstring(back_svg())
    red = card_svg(parse_card("7H"), lang)
    black = card_svg(parse_card("7S"), lang)
    assert "#c0182b" in red and "#c0182b" not in black
    assert ">12<" in card_svg(parse_card("T12"), lang)  # trumps are numbered


def test_hand_sorted_suits_alternating_then_trumps_then_excuse() -> None:
    names = ["EX", "T1", "2D", "KS", "1H", "T21", "QC", "1S"]
    hand = sum(1 << parse_card(n) for n in names)
    order = [parse_card(n) for n in ["1S", "KS", "1H", "QC", "2D", "T1", "T21", "EX"]]
    assert sorted_cards(hand) == order
    assert hand_order(EXCUSE) > hand_order(parse_card("T21"))


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_counts_are_singular_for_one(lang: str) -> None:
    """No "1 deals", no "donne(s)": every count word with a singular form uses it."""
    words = Words(lang)
    counted = [k for k in TABLES[lang] if f"{k}_one" in TABLES[lang]]
    assert {"trust_hands", "waiting_more"} <= set(counted)
    for key in counted:
        one, two = words.count(key, 1), words.count(key, 2)
        assert "(s)" not in one + two and one != two
    assert words.count("trust_hands", 1).startswith("1 don" if lang == "fr" else "1 deal:")


JARGON = re.compile(
    r"\b(peers?|pairs?|envelopes?|enveloppes?|digests?|nonces?|slots?|payloads?|serials?|"
    r"hash|sockets?|websockets?|sessions?|json)\b",
    re.IGNORECASE,
)
"""A program's words, not a player's ("your peer" is the player's own program)."""


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_page_speaks_without_developer_words(lang: str) -> None:
    """Only the title says what the program is (peer-to-peer, "entre pairs")."""
    spoken = {k: v for k, v in TABLES[lang].items() if k != "title" and JARGON.search(v)}
    assert spoken == {}
