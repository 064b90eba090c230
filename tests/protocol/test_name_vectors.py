"""The name vectors are recomputed byte for byte, and checked from ``lobby.md`` alone (§1,
§1.2, §1.3, §5.3), with nothing of ours but the file."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from tarot_p2p.protocol.names import UNICODE_REFERENCE
from tests.protocol.name_vectors import VECTOR_DIR, build, render
from tests.protocol.test_lobby_vectors import WHITE

PATH = VECTOR_DIR / "lobby_names.json"
STORED: dict[str, Any] = json.loads(PATH.read_text(encoding="ascii"))

# lobby.md §1.2, the table of refused categories.
CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def normalise(name: str) -> str:
    nfc = unicodedata.normalize("NFC", name)
    return " ".join(p for p in re.split(f"[{re.escape(WHITE)}]+", nfc) if p)


def escaped(text: str) -> str:
    def one(c: str) -> str:
        if unicodedata.category(c) not in CATEGORIES:
            return c
        n = ord(c)
        return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"

    return "".join(map(one, text))


def caseless_key(name: str) -> str:
    """D146 (compatibility caseless match) on the name without its refused characters."""
    kept = "".join(c for c in name if unicodedata.category(c) not in CATEGORIES)
    step = unicodedata.normalize("NFD", kept).casefold()
    step = unicodedata.normalize("NFKD", step).casefold()
    return " ".join(unicodedata.normalize("NFKD", step).split())


def test_vector_is_reproduced_exactly() -> None:
    assert render(build()) == PATH.read_text(encoding="ascii")


def test_the_unicode_data_here_is_the_reference_or_later() -> None:
    """The rule's categories are read in this interpreter's data: never older than the
    reference's (``requires-python >= 3.11``), so it refuses nothing the reference accepts
    (lobby.md §1.2, "Unicode version")."""
    assert STORED["unicode_version"] == UNICODE_REFERENCE
    assert version(unicodedata.unidata_version) >= version(UNICODE_REFERENCE)


def test_names_independently() -> None:
    assert set(STORED["refused_categories"]) == CATEGORIES
    verdicts = {"accepted": 0, "length": 0, "character": 0}
    for case in STORED["names"]:
        text = normalise(case["typed"])
        if "name" in case:
            assert case["name"] == text and 0 < len(text) <= 64
            assert all(unicodedata.category(c) not in CATEGORIES for c in text)
            verdicts["accepted"] += 1
        elif "length" in case["refused"]:
            assert case["refused"]["length"] == len(text) and not 0 < len(text) <= 64
            verdicts["length"] += 1
        else:
            first = next(c for c in text if unicodedata.category(c) in CATEGORIES)
            assert case["refused"] == {
                "category": unicodedata.category(first),
                "code_point": f"U+{ord(first):04X}",
            }
            verdicts["character"] += 1
    assert all(verdicts.values())
    seen = {case["refused"].get("category") for case in STORED["names"] if "refused" in case}
    assert seen >= CATEGORIES - {"Cs", "Zl", "Zp"}  # Zl, Zp are white space; Cs no text


def test_shown_independently() -> None:
    for case in STORED["shown"]:
        assert case["shown"] == escaped(case["text"])
        assert all(unicodedata.category(c) not in CATEGORIES for c in case["shown"])


def test_look_alike_keys_independently() -> None:
    """Equal keys exactly when D146 says the names match; the stored key is that match's
    NFKC form (lobby.md §5.3: the reference ends with NFKC)."""
    for group in STORED["look_alike"]:
        for case in group:
            assert case["key"] == unicodedata.normalize("NFKC", caseless_key(case["name"]))
        for a in group:
            for b in group:
                assert (a["key"] == b["key"]) == (
                    caseless_key(a["name"]) == caseless_key(b["name"])
                )
    assert any(len({c["key"] for c in group}) > 1 for group in STORED["look_alike"])
