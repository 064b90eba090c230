"""Score of one hand, from its outcome to one integer per seat.

Theory of operation. A hand is summarised by a :class:`HandOutcome`: who took, which
contract, how many half-points and oudlers the attack ended with (after every Excuse rule),
and the bonuses (petit au bout, poignées, chelem, the variants). :func:`explain_hand`
turns it into the *hand score*, signed from the attack's point of view — what each
defender pays the attack (negative: what each defender receives) — in the FFT order:

1. 25 + |difference|, the half point going to the side that wins the contract;
2. times the contract multiplier (1, 2, 4, 6);
3. plus or minus the petit au bout, 10 times the multiplier, with its own sign;
4. plus the poignées, never multiplied, to the side that wins (or the announcer's side);
5. plus the chelem bonus, never multiplied.

The hand score is then shared out per seat (:func:`score_hand`): the taker takes it
``defenders`` times (or twice, with a partner taking it once, at five), each defender pays it
once, so every hand sums to zero. Misère announcements (a variant) are personal transfers
added on top.

Why integers only: every peer computes the same numbers and signs them; a float rounding
difference would split the table. Points are counted in half-points (182 in the deck); the
only rounding in Tarot — the half point of the difference — is done with integer arithmetic.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final, NamedTuple

from tarot_p2p.rules.cards import TOTAL_HALF_POINTS
from tarot_p2p.rules.config import (
    AllPass,
    FivePlayerMode,
    Penalty,
    PetitAuBout,
    PoigneeBeneficiary,
    TableConfig,
)


class Contract(enum.IntEnum):
    """Bids in increasing order; the value is the bid's rank, not its multiplier."""

    PRISE = 1
    GARDE = 2
    GARDE_SANS = 3
    GARDE_CONTRE = 4


MULTIPLIER: Final[dict[Contract, int]] = {
    Contract.PRISE: 1,
    Contract.GARDE: 2,
    Contract.GARDE_SANS: 4,
    Contract.GARDE_CONTRE: 6,
}


class Side(enum.IntEnum):
    ATTACK = 0
    """The taker, and the called partner at five."""
    DEFENCE = 1


BASE: Final = 25
"""What every contract is worth before the difference is added."""
PETIT_AU_BOUT: Final = 10
MISERE: Final = 10
"""What a misère announcer receives from every other player (variant)."""
PETIT_CHELEM_VALUES: Final = (300, 150, -150)
"""Announced and made, made unannounced, announced and failed (seed 004 variant)."""

_THRESHOLDS: Final = (56, 51, 41, 36)
_ATTACK: Final = Side.ATTACK
_DEFENCE: Final = Side.DEFENCE
_LOSE_HAND: Final = Penalty.LOSE_HAND
_MULTIPLIED: Final = PetitAuBout.MULTIPLIED
_ANNOUNCER: Final = PoigneeBeneficiary.ANNOUNCER
"""Enum members read by the score as module globals: in this Python an enum class's
attribute costs about a thousand instructions (callgrind), and the score ends every
playout of the strong bot."""
_INT: Final = frozenset((int,))
_INT_OR_NONE: Final = frozenset((int, type(None)))


def threshold(oudlers: int) -> int:
    """Points the attack needs with ``oudlers`` oudlers in its cards (FFT)."""
    if not 0 <= oudlers <= 3:
        raise ValueError(f"oudlers must be 0..3, not {oudlers}")
    return _THRESHOLDS[oudlers]


@dataclass(frozen=True)
class Poignee:
    """A poignée shown by a player of ``side``; ``level`` 1 simple, 2 double, 3 triple."""

    side: Side
    level: int

    def __post_init__(self) -> None:
        if not isinstance(self.side, Side):
            raise ValueError(f"poignée side must be a Side, not {self.side!r}")
        if self.level not in (1, 2, 3):
            raise ValueError(f"poignée level must be 1, 2 or 3, not {self.level!r}")


@dataclass(frozen=True)
class HandOutcome:
    """Everything the score of a played hand depends on (seats are ``0..players-1``)."""

    contract: Contract
    taker: int
    partner: int | None
    """Called partner's seat at five players; ``None`` when the taker is alone or not at five."""
    attack_half_points: int
    """0..182: the attack's cards, with the chien or écart as the contract says, after every
    Excuse rule (exchange card, Excuse on the last trick, chelem)."""
    attack_oudlers: int
    petit_au_bout: Side | None = None
    poignees: tuple[Poignee, ...] = ()
    chelem_announced: bool = False
    chelem: Side | None = None
    """Side that took every trick (Excuse rules applied)."""
    petit_chelem: Side | None = None
    """Variant: side that took every trick but at most three (``None`` when it took them all)."""
    miseres: tuple[int, ...] = ()
    """Variant: one entry per misère announced; a seat may announce both kinds (two entries)."""
    offender: int | None = None
    """Seat named by the after-the-fact audit; what it costs follows ``config.penalty``."""
    dead: int | None = None
    """Seat sitting out (five players, dead-hand mode); it scores 0."""
    petit_chelem_announced: bool = False
    """Variant: the taker announced a petit chelem (exclusive with ``chelem_announced``)."""

    def __post_init__(self) -> None:
        if not isinstance(self.contract, Contract):
            raise ValueError(f"contract must be a Contract, not {self.contract!r}")
        # Integers only (not bool, not float): a float here would make every score a float.
        numbers = (self.taker, self.attack_half_points, self.attack_oudlers, *self.miseres)
        optional = (self.partner, self.offender, self.dead)
        if not set(map(type, numbers)) <= _INT or not set(map(type, optional)) <= _INT_OR_NONE:
            raise ValueError("seats, half-points and oudlers are integers")
        if not 0 <= self.attack_half_points <= TOTAL_HALF_POINTS:
            raise ValueError(
                f"attack half-points must be 0..{TOTAL_HALF_POINTS}, not {self.attack_half_points}"
            )
        if not 0 <= self.attack_oudlers <= 3:
            raise ValueError(f"attack oudlers must be 0..3, not {self.attack_oudlers}")
        # Each oudler is worth 4.5 points, or 4 for an Excuse kept by a side with no trick.
        low, high = 8 * self.attack_oudlers, TOTAL_HALF_POINTS - 8 * (3 - self.attack_oudlers)
        if not low <= self.attack_half_points <= high:
            raise ValueError(
                f"{_points(self.attack_half_points)} points cannot hold "
                f"{self.attack_oudlers} oudlers for the attack and leave the others to the defence"
            )
        for name in ("petit_au_bout", "chelem", "petit_chelem"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, Side):
                raise ValueError(f"{name} must be a Side or None, not {value!r}")
        for p in self.poignees:
            if not isinstance(p, Poignee):
                raise ValueError(f"poignees must hold Poignee objects, not {p!r}")
        if self.partner is not None and self.partner == self.taker:
            raise ValueError("the taker cannot be his own partner (leave partner None when alone)")
        if self.chelem is not None and self.petit_chelem is not None:
            raise ValueError("a hand has a chelem or a petit chelem, not both")
        if self.chelem_announced and self.petit_chelem_announced:
            raise ValueError("the taker announces a chelem or a petit chelem, not both")
        made = self.attack_half_points >= 2 * threshold(self.attack_oudlers)
        if self.chelem is Side.ATTACK and not made:
            raise ValueError("an attack that took every trick cannot have failed its contract")
        if self.chelem is Side.DEFENCE and made:
            raise ValueError("a defence that took every trick cannot let the contract be made")


class RefereedOutcome(NamedTuple):
    """The fields of a :class:`HandOutcome`, same names, order and defaults, as a named
    tuple made without the checks.

    Only for the engine's count of a hand it refereed itself (:meth:`State.returns`), which
    is consistent by construction: the tests check that it scores as the checked outcome
    :meth:`State.outcome` gives, and that its fields are the outcome's. Why: at the end of
    every playout of the strong bot the checks, and a frozen dataclass's field-by-field
    construction (or filling its ``__dict__``), cost more than the score itself; a named
    tuple is one C-level construction."""

    contract: Contract
    taker: int
    partner: int | None
    attack_half_points: int
    attack_oudlers: int
    petit_au_bout: Side | None = None
    poignees: tuple[Poignee, ...] = ()
    chelem_announced: bool = False
    chelem: Side | None = None
    petit_chelem: Side | None = None
    miseres: tuple[int, ...] = ()
    offender: int | None = None
    dead: int | None = None
    petit_chelem_announced: bool = False


Outcome = HandOutcome | RefereedOutcome
"""What the score reads: a checked outcome, or the engine's own count."""


@dataclass(frozen=True)
class HandScore:
    """The hand score step by step, as a score counter would write it down."""

    threshold: int
    difference: int
    """Signed whole points from the attack's side; the half point went to the winning side."""
    made: bool
    """The contract as played (before any penalty)."""
    attack_wins: bool
    """After the penalty: the offending side loses the hand."""
    base: int
    """(25 + |difference|) × multiplier, signed for the attack; 25 × multiplier when the
    penalty gives the hand to the side that had lost it."""
    petit_au_bout: int
    poignees: int
    chelem: int
    """Chelem and petit chelem bonuses, including the defence's."""
    hand_score: int
    """Sum of the above: what each defender pays the attack (negative: receives)."""
    miseres: tuple[int, ...]
    """Misère transfers per seat (zeros without the variant)."""
    scores: tuple[int, ...]
    """Final score per seat; sums to zero."""


def score_hand(config: TableConfig, outcome: HandOutcome) -> tuple[int, ...]:
    """One score per seat (``config.players`` entries) for a played hand; sums to zero.

    The steps are computed but not kept in a :class:`HandScore`: this is the end of every
    playout of the strong bot, where nobody reads them."""
    _check_against_table(config, outcome)
    return _steps(config, outcome)[-1]


def score_refereed(config: TableConfig, outcome: RefereedOutcome) -> tuple[int, ...]:
    """:func:`score_hand` without checking ``outcome`` against the table: only for the
    outcome of a hand the engine refereed under ``config`` itself (:meth:`State.returns`),
    which is consistent with it by construction; the tests
    check that the checked outcome scores the same. Why: the checks cost about a tenth of
    the count that ends every playout of the strong bot."""
    return _steps(config, outcome)[-1]


def explain_hand(config: TableConfig, outcome: HandOutcome) -> HandScore:
    """The score of a hand with every step of its computation (see the module docstring)."""
    _check_against_table(config, outcome)
    return HandScore(*_steps(config, outcome))


def _steps(
    config: TableConfig, outcome: Outcome
) -> tuple[int, int, bool, bool, int, int, int, int, int, tuple[int, ...], tuple[int, ...]]:
    """The fields of the hand's :class:`HandScore`, in order (``outcome`` checked against
    ``config`` already)."""
    mult = MULTIPLIER[outcome.contract]
    need = _THRESHOLDS[outcome.attack_oudlers]  # (0..3: checked, or counted by the engine)
    diff_half = outcome.attack_half_points - 2 * need
    made = diff_half >= 0
    # The half point goes to the side that wins the contract: 41.5 for 41 is +1, 40.5 is -1.
    difference = (diff_half + 1) // 2 if made else -((1 - diff_half) // 2)

    offending: Side | None = None
    if outcome.offender is not None and config.penalty is _LOSE_HAND:
        attackers = (outcome.taker, outcome.partner)
        offending = _ATTACK if outcome.offender in attackers else _DEFENCE
    attack_wins = made if offending is None else offending is _DEFENCE
    sign = 1 if attack_wins else -1

    # A side that wins only because the other side offended wins "juste" (difference 0): the
    # offence never turns a heavy fall into a big win, and more points never score less.
    margin = abs(difference) if attack_wins == made else 0
    base = sign * (BASE + margin) * mult

    petit = 0
    if outcome.petit_au_bout is not None:
        value = PETIT_AU_BOUT * (mult if config.petit_au_bout is _MULTIPLIED else 1)
        petit = _paid(outcome.petit_au_bout, value, offending)

    poignees = 0
    if outcome.poignees:
        winner = _ATTACK if attack_wins else _DEFENCE
        to_announcer = config.poignee_beneficiary is _ANNOUNCER
        for p in outcome.poignees:
            side = p.side if to_announcer else winner
            poignees += _paid(side, config.poignee_values[p.level - 1], offending)

    chelem = 0
    for side, amount in _slam_bonuses(config, outcome):
        chelem += _paid(side, amount, offending)
    hand_score = base + petit + poignees + chelem

    shares = _shares(config, outcome)
    miseres = _misere_transfers(config, outcome, offending)
    scores = tuple([share * hand_score + m for share, m in zip(shares, miseres, strict=True)])
    assert sum(scores) == 0
    return (
        need,
        difference,
        made,
        attack_wins,
        base,
        petit,
        poignees,
        chelem,
        hand_score,
        miseres,
        scores,
    )


def _paid(side: Side, amount: int, offending: Side | None) -> int:
    """``amount`` paid to ``side``, in the attack's sign; nothing the offender would gain."""
    if side is offending:
        return 0
    return amount if side is _ATTACK else -amount


def _slam_bonuses(config: TableConfig, outcome: Outcome) -> list[tuple[Side, int]]:
    """Chelem and petit chelem bonuses as (side paid, amount); one slam bonus per side.

    Where the sources are silent: an announced petit chelem fulfilled by a full chelem earns
    the better of the two bonuses; a chelem announced and missed costs its failure value even
    when a petit chelem was made; the defence's petit chelem pays like its chelem, with the
    made-unannounced value.
    """
    if not (
        outcome.chelem_announced
        or outcome.petit_chelem_announced
        or outcome.chelem is not None
        or outcome.petit_chelem is not None
    ):
        return []  # the common case, at the end of every playout
    made_announced, made_silent, failed = config.chelem_values
    p_announced, p_silent, p_failed = PETIT_CHELEM_VALUES
    bonuses: list[tuple[Side, int]] = []
    if outcome.chelem is _ATTACK:
        if outcome.chelem_announced:
            bonuses.append((_ATTACK, made_announced))
        elif outcome.petit_chelem_announced:
            bonuses.append((_ATTACK, max(p_announced, made_silent)))
        else:
            bonuses.append((_ATTACK, made_silent))
    elif outcome.chelem_announced:
        bonuses.append((_DEFENCE, -failed))
    elif outcome.petit_chelem is _ATTACK:
        bonuses.append((_ATTACK, p_announced if outcome.petit_chelem_announced else p_silent))
    elif outcome.petit_chelem_announced:
        bonuses.append((_DEFENCE, -p_failed))
    if outcome.chelem is _DEFENCE:
        bonuses.append((_DEFENCE, made_silent))
    elif outcome.petit_chelem is _DEFENCE:
        bonuses.append((_DEFENCE, p_silent))
    return bonuses


def _check_against_table(config: TableConfig, outcome: HandOutcome) -> None:
    """What :class:`HandOutcome` cannot check alone: seats in range, roles, variants played."""
    seats = config.players

    def check(name: str, seat: int) -> None:
        if not 0 <= seat < seats:
            raise ValueError(f"{name} seat must be 0..{seats - 1}, not {seat}")
        if seat == outcome.dead:
            raise ValueError(f"{name} seat {seat} is the dead hand, which does not play")

    dead_mode = seats == 5 and config.five_player_mode is FivePlayerMode.DEAD_HAND
    if dead_mode:
        if outcome.dead is None:
            raise ValueError("five players with a dead hand: the dead seat must be given")
        if not 0 <= outcome.dead < seats:
            raise ValueError(f"dead seat must be 0..{seats - 1}, not {outcome.dead}")
    elif outcome.dead is not None:
        raise ValueError("a dead seat exists only at five players in dead-hand mode")
    check("taker", outcome.taker)
    if outcome.partner is not None:
        if seats != 5 or dead_mode:
            raise ValueError("a partner is called only at five players (called-king mode)")
        check("partner", outcome.partner)
    if outcome.offender is not None:
        check("offender", outcome.offender)
    if outcome.miseres and not config.misere:
        raise ValueError("misère is a variant this table does not play")
    if not config.petit_chelem and (
        outcome.petit_chelem is not None or outcome.petit_chelem_announced
    ):
        raise ValueError("petit chelem is a variant this table does not play")
    for seat in outcome.miseres:
        check("misère announcer", seat)
    for seat in sorted(set(outcome.miseres)) if outcome.miseres else ():
        if outcome.miseres.count(seat) > 2:
            raise ValueError(f"seat {seat} announced more than two misères (atout and tête)")
    if outcome.poignees and len(outcome.poignees) > config.active_players:
        raise ValueError("more poignées than players")


def _shares(config: TableConfig, outcome: Outcome) -> list[int]:
    """How many times each seat takes the hand score (defenders -1, the dead hand 0)."""
    seats = config.players
    shares = [-1] * seats
    if outcome.dead is not None:
        # (the dead seat is given exactly in dead-hand mode: checked, or the engine's count)
        shares[outcome.dead] = 0
        seats -= 1
    if seats == 2:
        shares[outcome.taker] = 1  # the two-player variant is counted once
    elif outcome.partner is not None:
        shares[outcome.taker] = 2
        shares[outcome.partner] = 1
    else:
        shares[outcome.taker] = seats - 1
    return shares


def _misere_transfers(
    config: TableConfig, outcome: Outcome, offending: Side | None
) -> tuple[int, ...]:
    """10 to each announcer from every other active player; an offender's own misère is void."""
    if not outcome.miseres:
        return (0,) * config.players  # the common case, at the end of every playout
    active = [s for s in range(config.players) if s != outcome.dead]
    transfers = [0] * config.players
    for seat in outcome.miseres:
        if offending is not None and seat == outcome.offender:
            continue
        for other in active:
            if other != seat:
                transfers[other] -= MISERE
                transfers[seat] += MISERE
    return tuple(transfers)


def score_misere_deal(
    config: TableConfig, half_points_by_seat: tuple[int, ...], dead: int | None
) -> tuple[int, ...]:
    """Scores of the all-pass misère deal (seed 004 variant): each for himself, fewest wins.

    The seed says only that each player tries to take as few points as possible. Rule chosen:
    every pair of players settles the difference of their points, the one with more paying
    the one with fewer, the half point going to the one with fewer (as the half point goes
    to the winner in a normal hand). Equal points settle nothing. Zero-sum by construction,
    independent of seat order, and on the same scale as a normal hand.
    """
    if config.all_pass is not AllPass.MISERE_DEAL:
        raise ValueError("the misère deal is a variant this table does not play")
    seats = config.players
    if len(half_points_by_seat) != seats:
        raise ValueError(f"expected {seats} half-point counts, got {len(half_points_by_seat)}")
    dead_mode = seats == 5 and config.five_player_mode is FivePlayerMode.DEAD_HAND
    if dead_mode != (dead is not None):
        raise ValueError("a dead seat is given exactly at five players in dead-hand mode")
    if dead is not None:
        if not 0 <= dead < seats:
            raise ValueError(f"dead seat must be 0..{seats - 1}, not {dead}")
        if half_points_by_seat[dead] != 0:
            raise ValueError("the dead hand takes no trick and cannot hold points")
    if any(not 0 <= hp <= TOTAL_HALF_POINTS for hp in half_points_by_seat):
        raise ValueError(f"half-points must be 0..{TOTAL_HALF_POINTS} per seat")
    if sum(half_points_by_seat) > TOTAL_HALF_POINTS:
        raise ValueError(f"the seats hold more than {TOTAL_HALF_POINTS} half-points together")
    active = [s for s in range(seats) if s != dead]
    scores = [0] * seats
    for i in active:
        for j in active:
            if i < j:
                gap = half_points_by_seat[j] - half_points_by_seat[i]
                paid = (abs(gap) + 1) // 2
                if gap < 0:
                    paid = -paid
                scores[i] += paid
                scores[j] -= paid
    return tuple(scores)


def _points(half_points: int) -> str:
    """Half-points as a human reads them: 83 -> '41.5'."""
    return f"{half_points // 2}.5" if half_points % 2 else str(half_points // 2)
