"""After-the-fact audit of a complete hand record.

Why a second, independent check: during a networked hand a peer cannot see the others'
cards, so a revoke, an illegal écart or a false announcement can pass unnoticed (see
:mod:`tarot_p2p.rules.state`). Once every card is known the whole record is replayed here.
The legality of each move is judged by deliberately simple code — Python sets and plain
comparisons, written apart from the engine's bitmask fast path — so that a bug in one is
unlikely to be repeated in the other. The turn order, the public checks and the count of
the hand come from the engine, run as an observer that sees no hand.

Every offence is reported with the player who made it. The first offender (in the order
of the record) is set as ``offender`` in the :class:`HandOutcome`, and the score follows
``config.penalty`` (:func:`tarot_p2p.rules.scoring.score_hand`). A void deal (false petit
sec) and the misère deal have no contract to lose: their offences are reported and the
score is left as it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from tarot_p2p.rules.actions import (
    HIDDEN,
    Action,
    Bid,
    CallCard,
    Discard,
    Misere,
    MisereKind,
    PetitSec,
    Play,
    Poignee,
    public_action,
)
from tarot_p2p.rules.cards import CardSet, card_name, cards_of
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import Piles, active_seats, check_deal
from tarot_p2p.rules.scoring import Contract, HandOutcome, score_hand
from tarot_p2p.rules.state import IllegalAction, Phase, State, Void, from_hands

_EXCUSE = 77
_PETIT = 56
_TWENTY_ONE = 76


@dataclass(frozen=True)
class Offence:
    seat: int
    rule: str
    """Short name: revoke, must-trump, must-overtrump, ecart-king-oudler, ecart-trump,
    ecart-trump-unshown, ..."""
    detail: str
    action_index: int
    """Index in the record's action list of the move at fault."""


@dataclass(frozen=True)
class HandRecord:
    """Everything needed to replay a hand: the deal and every action, in order."""

    config: TableConfig
    dealer: int
    hands: tuple[CardSet, ...]
    chien: CardSet
    actions: tuple[Action, ...]
    piles: Piles = ()
    """Two players: each seat's piles, from the bottom card up."""
    unshown_discards: CardSet = 0
    """Discards the taker did not show (a networked peer sees them only at the end). The rules
    say discarded trumps are shown, so a trump here is an offence."""


@dataclass(frozen=True)
class AuditReport:
    offences: tuple[Offence, ...]
    void: Void | None
    outcome: HandOutcome | None
    """With ``offender`` set to the first offender; ``None`` for void and misère deals."""
    returns: tuple[int, ...]
    """Scores per seat after the penalty."""
    complete: bool
    """False when the record stops before the end of the hand (nothing is scored)."""


class InvalidRecord(ValueError):
    """The record breaks a rule every peer checks at once: no honest peer accepted it."""


def _is_trump(c: int) -> bool:
    return 56 <= c <= 76


def _suit(c: int) -> str:
    if c == _EXCUSE:
        return "excuse"
    return "trump" if _is_trump(c) else "SHDC"[c // 14]


def _is_king(c: int) -> bool:
    return c < 56 and c % 14 == 13


def _is_oudler(c: int) -> bool:
    return c in (_PETIT, _TWENTY_ONE, _EXCUSE)


def _is_face(c: int) -> bool:
    return c < 56 and c % 14 >= 10


def _play_offence(hand: set[int], trick: list[int], card: int) -> tuple[str, str] | None:
    """Why playing ``card`` from ``hand`` onto ``trick`` is illegal, or ``None``."""
    if card == _EXCUSE:
        return None
    led = [c for c in trick if c != _EXCUSE]
    if not led:
        return None
    suit = _suit(led[0])
    if _suit(card) == suit and suit != "trump":
        return None
    if suit != "trump" and any(_suit(c) == suit for c in hand):
        return "revoke", f"did not follow {suit} holding it"
    my_trumps = [c for c in hand if _is_trump(c)]
    if not my_trumps:
        return None
    if not _is_trump(card):
        return "must-trump", "did not trump while holding trumps"
    best = max((c for c in trick if _is_trump(c)), default=None)
    if best is not None and card < best and any(t > best for t in my_trumps):
        return "must-overtrump", f"played under {card_name(best)} while able to overtrump"
    return None


def _ecart_offences(
    taker_cards: set[int], ecart: list[int], unshown: CardSet
) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for c in ecart:
        if _is_king(c) or _is_oudler(c):
            out.append(("ecart-king-oudler", f"discarded {card_name(c)}"))
        elif _is_trump(c) and unshown >> c & 1:
            out.append(("ecart-trump-unshown", f"discarded {card_name(c)} without showing it"))
    eligible_plain = [
        c for c in taker_cards if not _is_trump(c) and not _is_king(c) and c != _EXCUSE
    ]
    trumps_allowed = max(0, len(ecart) - len(eligible_plain))
    trumps = [c for c in ecart if _is_trump(c) and not _is_oudler(c)]
    if len(trumps) > trumps_allowed:
        out.append(("ecart-trump", f"discarded {len(trumps)} trumps, {trumps_allowed} allowed"))
    return out


def _poignee_offence(
    config: TableConfig, hand: set[int], shown: list[int]
) -> tuple[str, str] | None:
    sizes = {2: (10, 13, 15), 3: (13, 15, 18), 4: (10, 13, 15), 5: (8, 10, 13)}[
        config.active_players
    ]
    if any(not _is_trump(c) and c != _EXCUSE for c in shown) or len(shown) not in sizes:
        return "poignee-false", "not a poignée"
    if _EXCUSE in shown and any(_is_trump(c) and c not in shown for c in hand):
        return "poignee-excuse", "showed the Excuse while holding trumps not shown"
    return None


def _misere_offence(kind: MisereKind, hand: set[int]) -> tuple[str, str] | None:
    if kind is MisereKind.TRUMP and any(_is_trump(c) or c == _EXCUSE for c in hand):
        return "misere-false", "announced misère d'atout holding a trump or the Excuse"
    if kind is MisereKind.HEAD and any(_is_face(c) or _is_oudler(c) for c in hand):
        return "misere-false", "announced misère de tête holding a face card or an oudler"
    return None


def _petit_sec(hand: set[int]) -> bool:
    return _EXCUSE not in hand and [c for c in hand if _is_trump(c)] == [_PETIT]


def _callable(hand: set[int], card: int) -> bool:
    if not card < 56 or card % 14 < 10:
        return False
    rank = card % 14
    return all(s * 14 + r in hand for r in range(rank + 1, 14) for s in range(4))


def _cards_used(action: Action) -> set[int]:
    if isinstance(action, Play | Discard) and action.card != HIDDEN:
        return {action.card}
    if isinstance(action, Poignee):
        return set(cards_of(action.cards))
    return set()


def audit_hand(record: HandRecord) -> AuditReport:
    """Replay ``record``, name every offence, and score the hand with the penalty applied.

    Raises :class:`InvalidRecord` when the record breaks a publicly checkable rule (a bid
    too low, a card played twice...) or has a player use a card he does not hold (the
    mental-poker deal binds every card to its holder, so no honest run can produce that),
    and ``ValueError`` for a malformed deal.
    """
    config = record.config
    check_deal(config, record.dealer, record.hands, record.chien, record.piles)
    seats = active_seats(config, record.dealer)
    observer = from_hands(
        config,
        record.dealer,
        [None if s in seats else 0 for s in range(config.seats)],
        record.chien,
        record.piles,
    )
    hands = {s: set(cards_of(record.hands[s])) for s in seats}
    # Two players: the piles, each from the bottom up; a player may play its top card.
    piles = {s: [list(p) for p in record.piles[s]] for s in seats} if record.piles else {}

    def available(seat: int) -> set[int]:
        return hands[seat] | {p[-1] for p in piles.get(seat, []) if p}

    offences: list[Offence] = []
    trick: list[int] = []
    ecart: list[int] = []
    played: set[int] = set()

    def offend(seat: int, found: tuple[str, str] | None, index: int) -> None:
        if found is not None:
            offences.append(Offence(seat, found[0], found[1], index))

    for i, action in enumerate(record.actions):
        seat = observer.current_player()
        used = _cards_used(action)
        if seat >= 0 and used - available(seat) - (
            set(cards_of(record.chien)) if isinstance(action, Discard) and not ecart else set()
        ):
            raise InvalidRecord(f"action {i} ({action}): seat {seat} does not hold those cards")
        if isinstance(action, Discard) and action.card == HIDDEN:
            raise InvalidRecord(f"action {i}: a complete record names every discarded card")
        if isinstance(action, PetitSec) and not _petit_sec(hands[seat]):
            offend(seat, ("petit-sec-false", "announced a petit sec not held"), i)
        elif isinstance(action, Bid) and _petit_sec(hands[seat]):
            offend(seat, ("petit-sec-hidden", "held the petit sec and did not announce it"), i)
        elif isinstance(action, CallCard) and not _callable(hands[seat], action.card):
            offend(seat, ("call", f"may not call {card_name(action.card)} with this hand"), i)
        elif isinstance(action, Discard):
            if not ecart:
                hands[seat] |= set(cards_of(record.chien))
            ecart.append(action.card)
        elif isinstance(action, Poignee):
            offend(seat, _poignee_offence(config, hands[seat], list(cards_of(action.cards))), i)
        elif isinstance(action, Misere):
            offend(seat, _misere_offence(action.kind, hands[seat]), i)
        elif isinstance(action, Play):
            if action.card in played:
                raise InvalidRecord(f"action {i}: {card_name(action.card)} was already played")
            offend(seat, _play_offence(available(seat), trick, action.card), i)
            if action.card in hands[seat]:
                hands[seat].discard(action.card)
            else:
                next(p for p in piles[seat] if p and p[-1] == action.card).pop()
            played.add(action.card)
            trick.append(action.card)
            if len(trick) == len(seats):
                trick = []
        try:
            observer.apply_action(public_action(action))
        except IllegalAction as e:
            raise InvalidRecord(f"action {i} ({action}): {e}") from None
        if isinstance(action, Discard) and observer.phase is not Phase.DISCARD:
            for found in _ecart_offences(hands[seat], ecart, record.unshown_discards):
                offend(seat, found, i)
            hands[seat] -= set(ecart)

    if not observer.is_terminal():
        return AuditReport(tuple(offences), None, None, (0,) * config.seats, complete=False)
    if observer.void is not None:
        return AuditReport(tuple(offences), observer.void, None, (0,) * config.seats, True)
    if observer.contract is not None and observer.contract <= Contract.GARDE:
        ecart_mask = 0
        for c in ecart:
            ecart_mask |= 1 << c
        try:
            observer.reveal_ecart(ecart_mask)
        except IllegalAction as e:
            raise InvalidRecord(f"écart: {e}") from None
    outcome = observer.outcome()
    if outcome is None:
        return AuditReport(tuple(offences), None, None, observer.returns(), True)
    if offences:
        outcome = dataclasses.replace(outcome, offender=offences[0].seat)
    return AuditReport(tuple(offences), None, outcome, score_hand(config, outcome), True)


def record_of(
    state: State, hands: Sequence[CardSet], chien: CardSet, piles: Piles = ()
) -> HandRecord:
    """The record of a hand played on ``state`` (dealt ``hands``, ``chien``, ``piles``)."""
    return HandRecord(
        state.config, state.dealer, tuple(hands), chien, tuple(state.history()), piles
    )
