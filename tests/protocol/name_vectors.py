"""Generator of the name vectors ``protocol/vectors/lobby_names.json`` (``lobby.md`` §1,
§1.2, §1.3, §5.3).

Run ``python -m tests.protocol.name_vectors`` to rewrite it after a deliberate change;
``test_name_vectors.py`` recomputes it byte for byte and checks it from ``lobby.md`` alone.

The file is ASCII (every other character as a JSON ``\\u`` escape), so that reading it in a
terminal shows the refused characters instead of obeying them. Every example's category is
the same in Unicode 14.0.0 and every later version (a noncharacter for "unassigned", a
Greek code point left empty since Unicode 1.1), so the file holds on any Python the package
supports. Surrogates (``Cs``) are left out: they cannot travel in UTF-8, nor portably in
JSON; ``test_names.py`` checks them.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path
from typing import Any

from tarot_p2p.protocol.names import (
    MAX_NAME,
    REFUSED,
    UNICODE_REFERENCE,
    NameRefused,
    checked_name,
    for_terminal,
    look_alike,
    normalise,
)

VECTOR_DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors"

ACCEPTED = (
    "Alice",
    "  L\u00e9a \t Martin ",  # white space runs, a tab among them (Cc, but white space)
    "Chloe\u0301",  # e + combining acute: NFC makes it one \u00e9
    "\u212bngstr\u00f6m",  # ANGSTROM SIGN: NFC makes it \u00c5
    "Zo\u00eb\u00a0(2)",  # a no-break space
    "Ali\u2028ce",  # LINE SEPARATOR (Zl) is white space: a space
    "Bob\u0085",  # NEXT LINE (Cc) is white space too: dropped at the end
    "O'Brien-Smith, Jr.",
    "\u674e\u5c0f\u9f8d",  # CJK
    "\uff22\uff4f\uff42",  # fullwidth letters: kept (no compatibility form)
    "\ufb01lou",  # a ligature: kept
    "\U0001f0a1 Ace",  # PLAYING CARD ACE OF SPADES (So)
    "x" * MAX_NAME,
)
REFUSED_NAMES = (
    "",
    " \t ",
    "x" * (MAX_NAME + 1),
    "Bob\x1b[2J",  # ESC [ 2 J: clears the screen
    "\x1b]0;pwned\x07Eve",  # OSC: sets the window's title, ended by BEL
    "Eve\x07",  # BEL
    "Al\x08\x08ice",  # backspaces
    "Bob\x7f",  # DEL
    "Bob\x9b2J",  # C1 CSI: the one-byte ESC [
    "Eve\u202egnp.exe",  # RIGHT-TO-LEFT OVERRIDE
    "Ali\u200bce",  # ZERO WIDTH SPACE
    "Ali\u2066ce\u2069",  # LEFT-TO-RIGHT ISOLATE ... POP DIRECTIONAL ISOLATE
    "Ann\u00ad",  # SOFT HYPHEN
    "\ufeffBob",  # ZERO WIDTH NO-BREAK SPACE (byte order mark)
    "Bob\U000e0041",  # TAG LATIN CAPITAL LETTER A
    "Bob\ue000",  # private use
    "Bob\U000f0000",  # private use, plane 15
    "Bob\u0378",  # unassigned
    "Bob\ufdd0",  # noncharacter
    "Bob\U0010ffff",  # noncharacter
)
SHOWN = (
    "Bob\x1b[2J",
    "\x1b]0;pwned\x07Eve",
    "a\nb",
    "Eve\u202egnp.exe",
    "Ali\u200bce",
    "\U000e0001x",
    "\x00\x85\u2029",
    "L\u00e9a \u674e",
    "back\\slash \\u202e",  # a real backslash: printed as it is
)
LOOK_ALIKE = (
    ("Alice", "ALICE", "\uff21\uff4c\uff49\uff43\uff45", "Ali\u200bce", " alice "),
    ("Stra\u00dfe", "STRASSE", "strasse"),
    ("Chlo\u00e9", "CHLOE\u0301"),
    ("\ufb01lou", "FILOU"),
    ("Alice", "\u0410lice"),  # Cyrillic A: not a look-alike by this key
)


def _point(c: str) -> str:
    return f"U+{ord(c):04X}"


def _verdict(typed: str) -> dict[str, Any]:
    """The rule's verdict (:func:`checked_name`), with what a refusal is about."""
    try:
        return {"name": checked_name(typed)}
    except NameRefused:
        text = normalise(typed)
    if not 0 < len(text) <= MAX_NAME:
        return {"refused": {"length": len(text)}}
    first = next(c for c in text if unicodedata.category(c) in REFUSED)
    return {"refused": {"category": unicodedata.category(first), "code_point": _point(first)}}


def build() -> dict[str, Any]:
    return {
        "description": "Names as typed and what the name rule makes of them (lobby.md §1, "
        "§1.2): 'name' is normalise(typed) (NFC, then white space runs made one space, none "
        "at the ends) when the rule allows it; 'refused' gives the length when it is not 1 "
        f"to {MAX_NAME} code points, else the General Category and code point of the first "
        "refused character of the normalised name. 'shown' is a text as a terminal prints "
        "it (§1.3). 'look_alike' gives names with their look-alike keys (§5.3): equal keys, "
        "look-alike names. Unicode categories of the version below.",
        "unicode_version": UNICODE_REFERENCE,
        "refused_categories": sorted(REFUSED),
        "names": [{"typed": typed, **_verdict(typed)} for typed in ACCEPTED + REFUSED_NAMES],
        "shown": [{"text": text, "shown": for_terminal(text)} for text in SHOWN],
        "look_alike": [
            [{"name": name, "key": look_alike(name)} for name in group] for group in LOOK_ALIKE
        ],
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=True) + "\n"


def main() -> int:
    path = VECTOR_DIR / "lobby_names.json"
    path.write_text(render(build()), encoding="ascii")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
