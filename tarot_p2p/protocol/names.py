"""Names are text: what a player's name may hold, how it is written before it is signed,
when two names look alike, and how any text another player chose is printed on a terminal
(``protocol/lobby.md`` §1, §1.2, §1.3, §5.3).

Why this matters: a terminal obeys some of the characters it prints. ESC starts a command
(clear the screen, move the cursor, set the window's title), BEL rings, BS steps back over
what was printed, a bidi override shows the text after it reversed, a zero-width space makes
two different names look the same. A name is chosen by another player and printed by the
host's lobby lines, every seat's table description and score sheet, ``history`` and
``audit``: without a rule, a name can clear the screen and print a fake "Alice joined;
everyone is seated".

Theory of operation. Three functions, one set of characters (:data:`REFUSED`, by Unicode
general category: control Cc, format Cf — bidi overrides and isolates, zero-width
characters —, private use Co, surrogates Cs, unassigned Cn, line and paragraph separators
Zl, Zp):

* :func:`checked_name` is the rule a name obeys: :func:`normalise` it (NFC, white space
  runs to one space, none at the ends), 1 to :data:`MAX_NAME` characters, none of
  :data:`REFUSED`; else :class:`NameRefused` says why in words a player understands. The
  host applies it to every join request, each program to its own player's name and its
  bots' before anything is sent.
* :func:`for_terminal` makes any text safe to print, whatever wrote it (an older version,
  another program, a forger, a transcript kept from before the rule): every character of
  :data:`REFUSED` is shown as a visible escape (``\\x1b``, ``\\u202e``), never obeyed.
  Everything a terminal prints from another player goes through it.
* :func:`look_alike` is the key under which two names read the same to a person (the LAN
  list warns when two tables' names share it).

Why in the protocol layer: the lobby (net) refuses by this rule, the audit (protocol) prints
names read from transcripts, and the programs (cli) check and print; the protocol layer is
the lowest all of them may import. The score sheet (rules) takes :func:`for_terminal` as a
parameter of its rendering.

Unicode versions: the categories are those of this interpreter's Unicode data, version
14.0.0 (:data:`UNICODE_REFERENCE`) or later (``requires-python >= 3.11``). Later data only
assigns code points the reference calls unassigned, so a program on a later Python refuses
a subset of what the reference refuses (a rare change of category aside): ``lobby.md`` §1.2
says how a program with other Unicode data behaves.
"""

from __future__ import annotations

import unicodedata
from typing import Final

MAX_NAME: Final = 64
"""A normalised name has 1 to this many characters (code points)."""
UNICODE_REFERENCE: Final = "14.0.0"
"""The Unicode version of the reference's rule (``unicodedata.unidata_version`` of
Python 3.11); ``lobby.md`` §1.2 and the name vectors are stated in it."""
REFUSED: Final = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
"""The general categories no name holds and no terminal is given raw."""

_WHAT: Final = {
    "Cc": ("a control character", ", which a terminal obeys instead of showing it"),
    "Cf": ("an invisible formatting character", ", which can reverse or hide the text around it"),
    "Co": ("a private-use character", ", which every computer shows differently"),
    "Cs": ("bytes that are not text", ", as a terminal not set to UTF-8 sends them"),
    "Cn": (
        "a character this program does not know",
        f", not in Unicode {unicodedata.unidata_version}",
    ),
}
"""What each refused category is and does, for the player who chose the name (``Zl`` and
``Zp`` are white space: :func:`normalise` has made them spaces before the rule applies)."""


class NameRefused(ValueError):
    """A name the rule refuses; ``str()`` says why, for the player who chose it."""


def normalise(name: str) -> str:
    """``lobby.md`` §1: Unicode NFC, then every run of white space (``str.split``) made one
    space, none at the ends. Why NFC: "Chloé" typed with one ``é`` or with ``e`` and a
    combining accent is the same name, the same bytes in the set-up's binding, and the host
    sees that it is taken."""
    return " ".join(unicodedata.normalize("NFC", name).split())


def _escape(c: str) -> str:
    point = ord(c)
    if point < 0x100:
        return f"\\x{point:02x}"
    if point < 0x10000:
        return f"\\u{point:04x}"
    return f"\\U{point:08x}"


def for_terminal(text: str) -> str:
    """``text`` safe to print on a terminal: each character of :data:`REFUSED` shown as a
    visible escape (``\\x1b``, ``\\u202e``, ``\\U000e0001``), everything else as it is.

    Use it on anything another player chose (names, reasons, notes) before it is printed,
    whatever program wrote it. It is idempotent (its output holds no refused character) and
    not reversible: a name may spell ``\\u202e`` with a real backslash, which is then only
    text. Line breaks are escaped too, so a name never starts a line of its own."""
    if all(unicodedata.category(c) not in REFUSED for c in text):
        return text
    return "".join(_escape(c) if unicodedata.category(c) in REFUSED else c for c in text)


def checked_name(name: str) -> str:
    """``name`` as a table holds it (:func:`normalise`), when the rule of ``lobby.md`` §1.2
    allows it; :class:`NameRefused` with the reason in plain words otherwise."""
    text = normalise(name)
    if not 0 < len(text) <= MAX_NAME:
        raise NameRefused(f"a player name has 1 to {MAX_NAME} characters, not {len(text)}")
    for c in text:
        category = unicodedata.category(c)
        if category in REFUSED:
            what, effect = _WHAT[category]
            label = unicodedata.name(c, "")
            shown = _escape(c) + (f" {label}" if label else "")
            raise NameRefused(
                f'the name "{for_terminal(text)}" holds {what} ({shown}){effect}. '
                "Choose a name of letters, digits, spaces and punctuation."
            )
    return text


def look_alike(name: str) -> str:
    """The key under which names read the same to a person (``lobby.md`` §5.3): what the
    rule refuses removed, then Unicode's compatibility caseless match (D146: NFD, case
    folding, NFKD, case folding, NFKD; here NFKC last, which compares alike), white space
    runs made one space. "Alice", "ALICE", "Ａｌｉｃｅ" and "Ali\\u200bce" share one key.
    Confusables across scripts (a Cyrillic "а") do not: that needs Unicode's confusable
    tables, which this rule does not use."""
    kept = "".join(c for c in name if unicodedata.category(c) not in REFUSED)
    nfd = unicodedata.normalize("NFD", kept).casefold()
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKD", nfd).casefold())
    return " ".join(folded.split())
