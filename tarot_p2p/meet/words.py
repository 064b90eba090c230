"""Short codes a person reads aloud: ``7-guitar-orbit``, a channel and two words.

Why: the long join code (136 characters) breaks in chat apps and cannot be said over the
phone. A short code names a rendezvous channel at a hub and a password; the PAKE run over
that channel (:mod:`.rendezvous`) hands the joiner the long code. Two words out of 256
are 16 bits: few, but every wrong try is an online guess the host counts and answers by
dropping the channel after ``MAX_FAILURES`` (``protocol/rendezvous.md`` §2).

The list (``protocol/rendezvous.md`` §2 prints it) holds common, short English words, no
two sharing their first three letters, so a word is known by its start and typos are
easy to correct.
"""

from __future__ import annotations

import difflib
import re
import secrets
from dataclasses import dataclass

from tarot_p2p.net.hello import MAX_CHANNEL

WORDS: tuple[str, ...] = (
    "acid",
    "actor",
    "agent",
    "album",
    "angle",
    "apron",
    "arena",
    "atlas",
    "audio",
    "avenue",
    "baby",
    "badge",
    "baker",
    "barn",
    "bath",
    "begin",
    "berry",
    "bird",
    "black",
    "board",
    "bone",
    "border",
    "bottle",
    "brain",
    "brick",
    "brush",
    "buddy",
    "bulb",
    "burger",
    "cabin",
    "cake",
    "camel",
    "castle",
    "cedar",
    "cement",
    "chair",
    "choir",
    "cinema",
    "citrus",
    "clever",
    "clock",
    "coach",
    "coffee",
    "cold",
    "cook",
    "cotton",
    "crab",
    "crisp",
    "cycle",
    "dance",
    "dawn",
    "deer",
    "desert",
    "dice",
    "dish",
    "doll",
    "door",
    "dragon",
    "duck",
    "dust",
    "earth",
    "edge",
    "elbow",
    "eleven",
    "enjoy",
    "essay",
    "exit",
    "extra",
    "fairy",
    "family",
    "father",
    "fiber",
    "field",
    "finger",
    "flag",
    "fluid",
    "focus",
    "forest",
    "frame",
    "frog",
    "funnel",
    "gadget",
    "game",
    "gate",
    "giant",
    "ginger",
    "glove",
    "gold",
    "grape",
    "grid",
    "guitar",
    "habit",
    "half",
    "happy",
    "hawk",
    "head",
    "hill",
    "hippo",
    "hockey",
    "hood",
    "hotel",
    "human",
    "idea",
    "index",
    "insect",
    "item",
    "jaguar",
    "jeans",
    "jewel",
    "judge",
    "jump",
    "jury",
    "keen",
    "kick",
    "kite",
    "knee",
    "label",
    "lake",
    "land",
    "lava",
    "layer",
    "lemon",
    "level",
    "light",
    "lime",
    "list",
    "lizard",
    "lock",
    "loud",
    "lucky",
    "lunch",
    "mail",
    "maple",
    "mask",
    "medal",
    "menu",
    "middle",
    "mind",
    "model",
    "money",
    "moss",
    "movie",
    "mule",
    "nail",
    "narrow",
    "navy",
    "needle",
    "nerve",
    "nickel",
    "noble",
    "noodle",
    "note",
    "number",
    "nylon",
    "ocean",
    "olive",
    "onion",
    "orbit",
    "order",
    "otter",
    "oven",
    "oxygen",
    "paddle",
    "paint",
    "paper",
    "pasta",
    "pause",
    "pencil",
    "person",
    "piano",
    "pine",
    "pirate",
    "planet",
    "poem",
    "pond",
    "poppy",
    "prize",
    "puddle",
    "puppy",
    "puzzle",
    "quick",
    "rabbit",
    "rail",
    "raven",
    "ready",
    "reef",
    "rent",
    "rhino",
    "ribbon",
    "ring",
    "road",
    "rocket",
    "rose",
    "royal",
    "ruler",
    "rural",
    "safari",
    "salad",
    "satin",
    "season",
    "seed",
    "seven",
    "shield",
    "siren",
    "skate",
    "slice",
    "smile",
    "snow",
    "sofa",
    "song",
    "space",
    "spoon",
    "stable",
    "stone",
    "sugar",
    "surf",
    "swim",
    "table",
    "talent",
    "tape",
    "taxi",
    "tennis",
    "text",
    "ticket",
    "tiny",
    "today",
    "tongue",
    "topic",
    "track",
    "truck",
    "tuna",
    "twelve",
    "type",
    "under",
    "upper",
    "usual",
    "valley",
    "velvet",
    "verb",
    "video",
    "visit",
    "vivid",
    "voice",
    "voyage",
    "wall",
    "wash",
    "wave",
    "wheat",
    "wide",
    "window",
    "wolf",
    "wood",
    "wrist",
    "year",
    "yoga",
    "zebra",
)
INDEX = {word: i for i, word in enumerate(WORDS)}
EXAMPLE = "7-guitar-orbit"
_SEPARATORS = re.compile(r"[\s.\-]+")


class ShortCodeError(ValueError):
    """Text that is not a short code (the message says what a code looks like)."""


@dataclass(frozen=True, slots=True)
class ShortCode:
    channel: int
    first: str
    second: str

    def __post_init__(self) -> None:
        if not 1 <= self.channel <= MAX_CHANNEL:
            raise ShortCodeError(f"the number of a code is 1 to {MAX_CHANNEL}")
        if self.first not in INDEX or self.second not in INDEX:
            raise ShortCodeError("a code's words come from the code word list")

    @classmethod
    def random(cls, channel: int) -> ShortCode:
        return cls(channel, secrets.choice(WORDS), secrets.choice(WORDS))

    def text(self) -> str:
        """The normal form, also the PAKE password (``rendezvous.md`` §2)."""
        return f"{self.channel}-{self.first}-{self.second}"

    def password(self) -> bytes:
        return self.text().encode("ascii")


def is_short_code(text: str) -> bool:
    """Whether ``text`` is meant as a short code (a long one starts with ``tp2p``)."""
    return not text.strip().lower().startswith("tp2p")


def _word(part: str) -> str:
    if part in INDEX:
        return part
    close = difflib.get_close_matches(part, WORDS, n=1, cutoff=0.6)
    hint = f": did you mean {close[0]!r}?" if close else "; check the code with the host."
    raise ShortCodeError(f"{part!r} is not one of the code words{hint}")


def parse(text: str) -> ShortCode:
    """A short code as typed: any letter case; spaces, dots and dashes all separate."""
    parts = [p for p in _SEPARATORS.split(text.strip().lower()) if p]
    shape = f"a code is a number and two words, like {EXAMPLE}"
    if len(parts) != 3:
        raise ShortCodeError(
            f"{text.strip()!r} is not a code: {shape} (or the long code, which starts with "
            "tp2p1-: copy the whole long code)"
        )
    number, first, second = parts
    if not number.isdigit() or not 1 <= int(number) <= MAX_CHANNEL:
        if first.isdigit() or second.isdigit():
            raise ShortCodeError(f"the number comes first: {shape}")
        raise ShortCodeError(f"{number!r} is not the number of a code: {shape}")
    return ShortCode(int(number), _word(first), _word(second))
