"""Table configuration: player count, five-player mode, every rule variant, game length.

Why a single frozen object with a canonical encoding: all peers must play under the same
rules, and a signed record must say which rules it was played under. The configuration
is agreed before the first deal; its :meth:`TableConfig.digest` is bound into every
signed record. The defaults are the FFT's official rules; every other rule the sources
name is an explicit, off-by-default option (see ``docs/rules.md``).

Canonical encoding (normative): the ASCII text ``tarot-p2p/table-config/v2`` followed, for
each field in declaration order, by ``\\n<name>=<value>``; booleans are ``0``/``1``,
integers in decimal, enumerations by their value, tuples as comma-separated integers. The
digest is SHA-256 of those bytes.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
from dataclasses import dataclass
from typing import Any

MAX_BONUS = 10_000
"""Bound on every poignée and chelem value: with it every hand's scores fit the ``score``
message's 32-bit integers, whatever the variant."""
MAX_GAME_LENGTH = 1_000_000
"""Bound on ``game_length`` (rounds, deals or a points target)."""


CONFIG_HEADER = "tarot-p2p/table-config/v2"
"""First line of the canonical encoding. Version 2: the same fields as version 1's last
form, under the protocol with escrowed hand keys and the stand-in (``table.md`` §3);
version 1 tables are refused in words, never replayed under rules they were not played by."""
OLDER_HEADERS = frozenset({"tarot-p2p/table-config/v1"})


class OlderConfig(ValueError):
    """A table configuration of an older version: set up by an older program."""


class FivePlayerMode(enum.StrEnum):
    CALLED_KING = "called_king"
    """FFT: the taker calls a king; its holder is the secret partner."""
    DEAD_HAND = "dead_hand"
    """Seed 002: the dealer sits out and the other four play a four-player hand."""


class PoigneeBeneficiary(enum.StrEnum):
    WINNER = "winner"
    """FFT: the poignée bonus goes to the side that wins the hand."""
    ANNOUNCER = "announcer"
    """Table rule: it goes to the side that showed it, even if that side loses."""


class PetitAuBout(enum.StrEnum):
    MULTIPLIED = "multiplied"
    """FFT: 10 times the contract multiplier."""
    FIXED = "fixed"
    """Table rule: a fixed 10 whatever the contract."""


class ExcuseLastTrick(enum.StrEnum):
    CHANGES_SIDES = "changes_sides"
    """FFT (seeds 001, 002): the Excuse played to the last trick goes to the opposing side."""
    TO_TRICK_WINNER = "to_trick_winner"
    """Table reading: it goes to whoever wins the last trick."""


class AllPass(enum.StrEnum):
    REDEAL = "redeal"
    """FFT: the next dealer deals."""
    MISERE_DEAL = "misere_deal"
    """Seed 004 (unofficial): the hand is played out, each for himself, fewest points wins."""


class GameEnd(enum.StrEnum):
    DEALS = "deals"
    """An agreed number of deals (``game_length``)."""
    ROUNDS = "rounds"
    """An agreed number of rounds (``game_length``); each player deals once per round."""
    POINTS = "points"
    """Stop after the first deal where someone's total exceeds ``game_length`` (seed 002)."""


class Penalty(enum.StrEnum):
    LOSE_HAND = "lose_hand"
    """FFT-like: an offence found by the audit makes the offending side lose the hand."""
    REPORT_ONLY = "report_only"
    """The audit names the offence and the player; the score stands."""


class Abandon(enum.StrEnum):
    END = "end"
    """After a hand whose absent seat the stand-in played, the game ends: the sheet, signed,
    is final."""
    CONTINUE = "continue"
    """The game goes on: the absent player may come back; until then its stand-in plays each
    hand it misses."""


FORFEIT_LIMITS = (30, 86_400)
"""Bounds of ``forfeit_after``, in seconds."""


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Everything the peers agree on before the first deal."""

    players: int = 4
    """2 (the two-player variant), 3, 4 or 5."""
    five_player_mode: FivePlayerMode = FivePlayerMode.CALLED_KING
    poignee_values: tuple[int, int, int] = (20, 30, 40)
    """Simple, double, triple poignée. FFT 20/30/40; the old variant is 20/40/60."""
    poignee_beneficiary: PoigneeBeneficiary = PoigneeBeneficiary.WINNER
    petit_au_bout: PetitAuBout = PetitAuBout.MULTIPLIED
    chelem_values: tuple[int, int, int] = (400, 200, -200)
    """Announced and made, made unannounced, announced and failed (FFT 400/200/-200)."""
    excuse_last_trick: ExcuseLastTrick = ExcuseLastTrick.CHANGES_SIDES
    misere: bool = False
    """Misère d'atout / de tête announcements (10 from each other player)."""
    all_pass: AllPass = AllPass.REDEAL
    petit_chelem: bool = False
    """Seed 004 (unofficial): all tricks but three, 300/150/-150."""
    penalty: Penalty = Penalty.LOSE_HAND
    game_end: GameEnd = GameEnd.ROUNDS
    game_length: int = 1
    forfeit_after: int = 300
    """Seconds a player may stay silent when it is his turn before the others may claim him
    absent (they must all agree) and let the stand-in finish his hand. Time for a human to
    come back after a dropped link."""
    abandon: Abandon = Abandon.END

    def __post_init__(self) -> None:
        if self.players not in (2, 3, 4, 5):
            raise ValueError(f"players must be 2, 3, 4 or 5, not {self.players}")
        if len(self.poignee_values) != 3 or len(self.chelem_values) != 3:
            raise ValueError("poignee_values and chelem_values hold three integers each")
        if not 1 <= self.game_length <= MAX_GAME_LENGTH:
            raise ValueError(f"game_length must be 1..{MAX_GAME_LENGTH}")
        if not FORFEIT_LIMITS[0] <= self.forfeit_after <= FORFEIT_LIMITS[1]:
            low, high = FORFEIT_LIMITS
            raise ValueError(f"forfeit_after must be {low}..{high} seconds")
        if any(not 0 <= v <= MAX_BONUS for v in self.poignee_values):
            raise ValueError(f"poignée values must be 0..{MAX_BONUS}")
        if any(not -MAX_BONUS <= v <= MAX_BONUS for v in self.chelem_values):
            raise ValueError(f"chelem values must be -{MAX_BONUS}..{MAX_BONUS}")
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(f.default, enum.Enum) and not isinstance(value, type(f.default)):
                raise ValueError(f"{f.name} must be a {type(f.default).__name__}, not {value!r}")
            if isinstance(f.default, bool) and not isinstance(value, bool):
                raise ValueError(f"{f.name} must be a bool, not {value!r}")

    @property
    def seats(self) -> int:
        """Number of seats at the table (five at five players, even with a dead hand)."""
        return self.players

    @property
    def active_players(self) -> int:
        """Players who hold cards in one hand (four when a fifth sits out as the dead hand)."""
        if self.players == 5 and self.five_player_mode is FivePlayerMode.DEAD_HAND:
            return 4
        return self.players

    def canonical_bytes(self) -> bytes:
        parts = [CONFIG_HEADER]
        for f in dataclasses.fields(self):
            parts.append(f"{f.name}={_encode_value(getattr(self, f.name))}")
        return "\n".join(parts).encode("ascii")

    def digest(self) -> bytes:
        return hashlib.sha256(self.canonical_bytes()).digest()

    @classmethod
    def from_canonical_bytes(cls, data: bytes, *, older: bool = False) -> TableConfig:
        """Parse the canonical encoding; rejects anything that does not re-encode identically.

        ``older``: also read a version 1 encoding (same fields), for what only shows a
        past game's rules (the history); a table to play or check is never read so."""
        try:
            text = data.decode("ascii")
        except UnicodeDecodeError:
            raise ValueError("table config is not ASCII") from None
        lines = text.split("\n")
        header = lines[0]
        if header in OLDER_HEADERS and older:
            lines[0] = CONFIG_HEADER
            data = "\n".join(lines).encode("ascii")
        elif header in OLDER_HEADERS:
            raise OlderConfig(
                "this table was set up by an older tarot-p2p (before escrowed hand keys and "
                "the stand-in): this version cannot check or continue it; an older release "
                "of tarot-p2p can"
            )
        if lines[0] != CONFIG_HEADER:
            raise ValueError(f"not a table config of this version ({CONFIG_HEADER})")
        fields = dataclasses.fields(cls)
        if len(lines) - 1 != len(fields):
            raise ValueError("table config has the wrong number of fields")
        kwargs: dict[str, Any] = {}
        for f, line in zip(fields, lines[1:], strict=True):
            name, sep, raw = line.partition("=")
            if not sep or name != f.name:
                raise ValueError(f"expected field {f.name!r}, got {line!r}")
            kwargs[f.name] = _decode_value(f.default, raw)
        config = cls(**kwargs)
        if config.canonical_bytes() != data:
            raise ValueError("table config is not in canonical form")
        return config


def _encode_value(v: object) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, enum.Enum):
        return str(v.value)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, tuple):
        return ",".join(str(x) for x in v)
    raise TypeError(f"cannot encode {v!r}")


def _decode_value(default: object, raw: str) -> object:
    try:
        if isinstance(default, bool):
            if raw not in ("0", "1"):
                raise ValueError
            return raw == "1"
        if isinstance(default, enum.Enum):
            return type(default)(raw)
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, tuple):
            return tuple(int(x) for x in raw.split(","))
    except ValueError:
        raise ValueError(f"bad table config value {raw!r}") from None
    raise TypeError(f"cannot decode field with default {default!r}")
