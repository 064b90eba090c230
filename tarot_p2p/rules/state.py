"""The hand state machine: one deal from the bidding to the score.

Theory of operation
-------------------
A :class:`State` is one position of one hand, seen by one observer. It moves only through
:meth:`State.apply_action`, which mutates it in place (for speed: copying a position per
move would dominate the cost of refereeing) and either applies the move completely or
raises :class:`IllegalAction` naming the rule broken and changes nothing. The actions are
those of :mod:`tarot_p2p.rules.actions`; the acting seat is always
:meth:`State.current_player` — the same code checks a peer's own moves and the others'.

Phases, in order (any may end the hand early):

1. ``BIDDING`` — from the dealer's right, every active seat speaks once: pass or a strictly
   higher contract. A player holding the petit sec (the petit is his only trump and he has
   no Excuse) must announce it (:class:`PetitSec`) when his turn to speak comes, instead of
   bidding; the deal is void. FFT says he must, so with his hand known it is his only legal
   action; when the engine cannot see his hand, not announcing it is an offence the audit
   finds. All pass: the deal is void (FFT) or, with ``AllPass.MISERE_DEAL``, played out
   each for himself, the chien set aside.
2. ``CALL`` — five players in called-king mode: the taker calls a king (a queen if he holds
   the four kings, a knight if he also holds the four queens, a jack after that). He may
   call his own card, and then plays alone, as when the called card is in the chien.
3. ``DISCARD`` — prise and garde: the chien is shown and taken; the taker discards as many
   cards, one :class:`Discard` per card. Never a king or an oudler; a trump only when the
   other cards he may discard are fewer than the discards still to make (FFT: "only if he
   cannot do otherwise"); discarded trumps are shown.
4. ``GO`` — the taker says "jeu" (:class:`Go`), announcing a chelem or not. An announced
   chelem gives him the first lead; otherwise the dealer's right leads.
5. ``PLAY`` — tricks. Before his first card a player may show a poignée and (variant)
   announce misères. Follow suit; void, trump; a trump in the trick, overtrump if able
   (even over a partner), else undertrump; trump led, overtrump if able; no trump, any
   card; the Excuse at any time; the Excuse led, the next card sets the suit.
6. ``DONE`` — terminal: :meth:`State.outcome` and :meth:`State.returns`.

Why one class
-------------
The phases share one position: the hands with their unknown counts, the pool, the chien
and écart, the trick, the taker, his partner, the announcements. Each phase's checks read
what the earlier ones left (a discard reads the contract and the chien, a play reads the
call, the poignées' window and the chelem announced), and every move must be applied
completely or not at all to that one position. Split into a class per phase, each would
either copy the position at every change of phase or reach into the others' fields, and
the all-or-nothing rule would be spread over several files. So the class stays whole, in
phase order, one section each (queries; moves, by phase; learning cards; the end; the
observation), and what does not need the position is already outside it: the actions and
their encoding (:mod:`.actions`), the deal (:mod:`.deal`), the score (:mod:`.scoring`) and
the audit (:mod:`.audit`). It is also the hot path of the strong bot's playouts
(``benchmarks/rules_bench.py``), where one object's attributes are the cheapest reads.

Imperfect information
---------------------
A peer does not see the other hands. Each seat's hand is held as the cards known to be in
it plus a number of unknown cards; ``pool`` holds the cards whose place this observer does
not know. A move by a seat whose hand is fully known is checked completely. A move by a
seat with unknown cards is checked only as far as public information allows:

* immediate: phase, turn and kind of move; bid order; card numbers; a played or shown card
  must be one this seat may still hold (in its known cards, or in the pool when it has
  unknown cards — never a card played, in another known hand, or in a known chien/écart);
  a poignée's size and that it holds only trumps and the Excuse; a discard shown must be a
  trump that is not an oudler; the called card's rank is a face card.
* deferred to the audit (:mod:`tarot_p2p.rules.audit`): revoke and every other duty of the
  play (follow, trump, overtrump), an écart with a king/oudler hidden or with trumps when
  other cards were available, the Excuse in a poignée while other trumps stay hidden, a
  false misère, a false or missing petit sec, calling a queen without the four kings.

The protocol tells the state what it learns: :meth:`State.reveal_hand` (cards of a hand,
e.g. shown, or the whole hand after a petit sec), :meth:`State.reveal_chien`,
:meth:`State.reveal_ecart`, :meth:`State.reveal_pile`. The chien must be known before the
taker's first discard in prise/garde (it is shown to everyone then); the écart, and in
garde sans/contre the chien, must be known before :meth:`State.outcome`. A peer applies
the other seats' moves in their public form (:func:`tarot_p2p.rules.actions.public_action`:
a discard other than a trump is hidden), so its :meth:`State.history` holds what it was
told; only a complete record (every hand, every discard) can be audited.

The petit sec must be announced at one's turn to speak rather than before the bidding:
nothing is lost (the deal is void either way) and no extra move per seat is needed.

Excuse (counted when the hand ends, see :meth:`State.outcome`): its owner's side keeps it
and owes the trick winner's side a half-point card; the debt is settled in the count even
when the owner's side never takes a trick (its Excuse is then worth 4 points, as FFT says
of a chelem made without it), so the two sides always hold 182 half-points. Played to the
last trick outside a chelem it goes to the opposing side (or, variant, to the trick
winner; in a misère deal, where there are no sides, to the trick winner). In a chelem it
is never lost: led to the last trick by the side that took every other trick, it wins it
(:attr:`Trick.winner` is its player), and the petit then counts au bout in the
penultimate trick as well as in the last.

Petit chelem (variant): detected, never announced: a side that took every trick but at
most three, without a chelem.

Two players (variant, seed 002, which gives only the layout): besides his 18-card hand,
each player has six piles of three cards, only the top card face up. A player may play
his hand or the top of any of his piles; the duties of the play (follow, trump,
overtrump) count both. When a top card is played the one under it is turned up: a state
that does not see it waits for :meth:`State.reveal_pile` before that player moves again.
Choices where the seed is silent: the chien is taken into the hand and the écart made from
the hand; the petit sec, poignées (10/13/15 trumps, as at four) and misères concern the
hand alone; the hand is scored once (``score_hand`` with two players).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import Final, NamedTuple, cast

from tarot_p2p.rules.actions import (
    BIDS,
    DISCARD,
    HIDDEN,
    PETIT_SEC,
    PLAY,
    Action,
    Bid,
    CallCard,
    Discard,
    Go,
    Misere,
    MisereKind,
    PetitSec,
    Play,
    Poignee,
)
from tarot_p2p.rules.cards import (
    BIT,
    DECK_SIZE,
    EXCUSE,
    EXCUSE_MASK,
    FULL_DECK,
    KING,
    KING_MASK,
    OUDLER_MASK,
    PETIT,
    RANK_OF,
    SUIT_MASK,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
    CardSet,
    card_name,
    cards_of,
    half_points_of,
)
from tarot_p2p.rules.config import AllPass, ExcuseLastTrick, TableConfig
from tarot_p2p.rules.deal import (
    PILES,
    active_seats,
    check_deal,
    check_seat,
    chien_size,
    dealt,
    hand_size,
)
from tarot_p2p.rules.scoring import (
    Contract,
    HandOutcome,
    RefereedOutcome,
    Side,
    score_misere_deal,
    score_refereed,
)
from tarot_p2p.rules.scoring import Poignee as PoigneeBonus


class Phase(enum.IntEnum):
    BIDDING = 0
    CALL = 1
    DISCARD = 2
    GO = 3
    PLAY = 4
    DONE = 5


# The phases as module globals, which the hot paths read faster than an enum's attributes.
_BIDDING: Final = Phase.BIDDING
_CALL: Final = Phase.CALL
_DISCARD: Final = Phase.DISCARD
_GO: Final = Phase.GO
_PLAYING: Final = Phase.PLAY
_DONE: Final = Phase.DONE


class Void(enum.StrEnum):
    """Why a deal ended without being played."""

    PETIT_SEC = "petit_sec"
    ALL_PASS = "all_pass"


TERMINAL: Final = -1
"""``current_player()`` of a finished hand."""

POIGNEE_THRESHOLDS: Final[dict[int, tuple[int, int, int]]] = {
    2: (10, 13, 15),
    3: (13, 15, 18),
    4: (10, 13, 15),
    5: (8, 10, 13),
}
"""Trumps to show for a simple, double, triple poignée, by number of active players. At two
players (no source gives them) the four-player values: the hand holds 18 cards as at four."""

FACE_MASK: Final[CardSet] = sum(1 << (s * 14 + r - 1) for s in range(4) for r in range(11, 15))
"""Jacks, knights, queens and kings."""

ABOVE: Final[tuple[CardSet, ...]] = tuple(
    (TRUMP_MASK & ~((2 << c) - 1)) if 56 <= c < 77 else 0 for c in range(DECK_SIZE)
)
"""For a trump, the trumps above it."""

_TRUMPS_OR_EXCUSE: Final = TRUMP_MASK | EXCUSE_MASK
_PETIT_MASK: Final = 1 << PETIT
_PLAIN: Final = FULL_DECK & ~(TRUMP_MASK | KING_MASK | OUDLER_MASK)
"""The cards the taker may discard freely: no trump, king nor oudler."""
_PLAIN_TRUMPS: Final = TRUMP_MASK & ~OUDLER_MASK
"""The trumps he may discard when he cannot do otherwise."""
_TRUMP_BITS: Final = TRUMP_MASK >> 56
"""The trumps in a mask shifted right by 56 (the Excuse is the bit above them)."""
_SHIFTED_EXCUSE: Final = EXCUSE_MASK >> 56


def _byte_table(actions: Sequence[Action], first: int) -> tuple[tuple[Action, ...], ...]:
    """For each byte ``b``, the actions of the cards ``first + i`` whose bit ``i`` is set
    in ``b``, lowest first; cards past the deck are left out. Each entry is its lowest
    card's action before the entry of the byte without that bit, made before it: one
    tuple a byte (made at import, ten times a lister)."""
    table: list[tuple[Action, ...]] = [()]
    for b in range(1, 256):
        low = b & -b
        card = first + low.bit_length() - 1
        rest = table[b ^ low]
        table.append((actions[card], *rest) if card < DECK_SIZE else rest)
    return tuple(table)


class _Lister:
    """Lists the actions of the cards of a mask, lowest card first (``actions[card]`` is a
    card's action).

    Why this shape: listing the legal cards is the engine's most frequent query (every move
    of every playout of the strong bot). Walking the bits costs a loop turn and a
    big-number operation per card; instead :attr:`all` cuts the mask into its ten bytes
    with one C call (``int.to_bytes``), each byte indexes a table of the tuple of its cards'
    actions (ten tables of 256 entries, made here), and the ten tuples are unpacked into
    the list in one expression. That took a third fewer instructions (callgrind) than the
    six chunks of 14 bits it replaced, cut from the big number with shifts and masks into
    tables filled on first use: each operation on a number of more than 64 bits allocates
    one. :attr:`tables` are those ten tables: the open play of :meth:`State.legal_actions`
    reads them directly, only the last three when the cards lie among the trumps and the
    Excuse (bytes 7 to 9), and the suit's own table (:data:`_SUIT_PLAYS`) when they lie in
    one suit (following a trick)."""

    __slots__ = ("all", "tables")

    def __init__(self, actions: Sequence[Action]) -> None:
        self.tables: Final = tuple(_byte_table(actions, 8 * k) for k in range(10))
        t0, t1, t2, t3, t4, t5, t6, t7, t8, t9 = self.tables

        def listed(mask: CardSet) -> list[Action]:
            b0, b1, b2, b3, b4, b5, b6, b7, b8, b9 = mask.to_bytes(10, "little")
            return [
                *t0[b0], *t1[b1], *t2[b2], *t3[b3], *t4[b4],
                *t5[b5], *t6[b6], *t7[b7], *t8[b8], *t9[b9],
            ]  # fmt: skip

        self.all: Final = listed


_PLAYS: Final = _Lister(PLAY)
_list_plays: Final = _PLAYS.all
_P0, _P1, _P2, _P3, _P4, _P5, _P6, _P7, _P8, _P9 = _PLAYS.tables
"""The tables of :data:`_PLAYS`, as module globals for the open play's listing written out
in :meth:`State.legal_actions` (a call less per card led or trumped)."""
_SUIT_PLAYS: Final = [cast(list[tuple[Play, ...] | None], [None] * (1 << 14)) for _ in range(4)]
"""By suit, by the pattern of the suit's 14 bits, the tuple of those cards' actions: filled
on first use (at most 2**14 patterns a suit), so that following a suit is one look-up."""


def _fill_suit(suit: int, part: int) -> tuple[Play, ...]:
    """The entry of ``part`` (not 0) in ``suit``'s table: the entry of its lower cards,
    filled first when missing, and its highest card's action (one tuple built per entry,
    which mattered: random hands keep meeting new patterns)."""
    top = part.bit_length() - 1
    lower = part ^ (1 << top)
    table = _SUIT_PLAYS[suit]
    head = (table[lower] or _fill_suit(suit, lower)) if lower else ()
    listed = table[part] = (*head, PLAY[suit * 14 + top])
    return listed


_SUIT_SHIFT: Final = (0, 14, 28, 42)
_list_discards: Final = _Lister(DISCARD).all
_PLAY_EXCUSE: Final = PLAY[EXCUSE]
_PLAY_OF: Final = PLAY.__getitem__


class IllegalAction(ValueError):
    """An action this position does not allow; ``rule`` names the rule broken."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule


class IncompleteInformation(ValueError):
    """The observer lacks cards it needs (a hidden hand, chien or écart not revealed yet)."""


@dataclass(frozen=True, slots=True)
class Game:
    """Static description of a hand under one table configuration."""

    config: TableConfig
    seats: int
    players: int
    hand_size: int
    chien_size: int
    tricks: int
    poignee_thresholds: tuple[int, int, int]
    called_king: bool
    piles: bool
    """Two-player variant: six piles of three in front of each player."""


@cache
def game_of(config: TableConfig) -> Game:
    """The :class:`Game` of ``config``."""
    n = config.active_players
    return Game(
        config=config,
        seats=config.seats,
        players=n,
        hand_size=hand_size(config),
        chien_size=chien_size(config),
        tricks=hand_size(config) + (PILES * 3 if n == 2 else 0),
        poignee_thresholds=POIGNEE_THRESHOLDS[n],
        called_king=n == 5,
        piles=n == 2,
    )


class _Seating(NamedTuple):
    """What a hand needs of its table and dealer, worked out once rather than per hand."""

    config: TableConfig
    game: Game
    order: tuple[int, ...]
    """The active seats in playing order."""
    next_seat: tuple[int, ...]
    """Each seat's next one (-1 for a seat sitting out)."""
    rotation: tuple[tuple[int, ...], ...]
    """From each seat, the active seats in playing order starting with it (empty for a seat
    sitting out): who played each card of a trick that seat led."""


_SEATINGS: Final[dict[tuple[int, int], _Seating]] = {}
_MAX_SEATINGS: Final = 1024


def _seating(config: TableConfig, dealer: int) -> _Seating:
    """The :class:`_Seating` of ``config`` and ``dealer`` (which must be a seat).

    Looked up by the identity of the configuration, not by its value: hashing a
    ``TableConfig`` (a dataclass's hash, written in Python, over its sixteen fields) cost
    about a microsecond, twice per hand, and a hand is set up at every playout of the strong
    bot. Each entry holds its configuration alive, so no other object can take the ``id``
    it is filed under while the entry lives; the memo is emptied if it ever grows large (a
    program making a new configuration per hand)."""
    seating = _SEATINGS.get((id(config), dealer))
    if seating is not None and type(dealer) is int:
        return seating  # (a float or other number equal to a seat is checked again)
    order = active_seats(config, dealer)
    nxt = [-1] * config.seats
    rotation: list[tuple[int, ...]] = [()] * config.seats
    for i, s in enumerate(order):
        nxt[s] = order[(i + 1) % len(order)]
        rotation[s] = order[i:] + order[:i]
    if len(_SEATINGS) >= _MAX_SEATINGS:
        _SEATINGS.clear()
    seating = _SEATINGS[id(config), dealer] = _Seating(
        config, game_of(config), order, tuple(nxt), tuple(rotation)
    )
    return seating


class Trick(NamedTuple):
    """A finished trick (a named tuple, made by :attr:`State.tricks` when asked for)."""

    leader: int
    cards: tuple[int, ...]
    """In playing order, starting with the leader's card."""
    winner: int
    """Who takes the trick: never the Excuse's player, except when the Excuse, led to the
    last trick by a side that took every other trick, wins it."""


_BID_CONTRACT: Final = itemgetter(1)
"""A bid's contract, read in C (no lambda call per bid)."""
_CONTRACT_OF: Final = {int(c): c for c in Contract}
"""Each contract by its number: a dict look-up, not the enum's Python-level call."""
_OutcomeFields = tuple[
    Contract, int, int | None, int, int, Side | None, tuple[PoigneeBonus, ...], bool,
    Side | None, Side | None, tuple[int, ...], None, int | None, bool,
]  # fmt: skip
"""The fields of a :class:`HandOutcome`, in order (see :meth:`State._outcome_fields`)."""
_new_tuple: Final = tuple.__new__
"""Makes a :class:`Trick` without the named tuple's own ``__new__``, a Python-level call."""
_ATTACK: Final = Side.ATTACK
_DEFENCE: Final = Side.DEFENCE
_SIDES: Final = (_ATTACK, _DEFENCE)
_GARDE: Final = Contract.GARDE
_GARDE_SANS: Final = Contract.GARDE_SANS
"""Enum members read in the count as module globals: in this Python an enum class's
attribute costs about a thousand instructions (callgrind), as much as the rest of a line."""
_BITS: Final = list(BIT)


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seat may see of a position (computed on demand, never stored)."""

    seat: int
    players: int
    """Active players (four at five with a dead hand)."""
    phase: Phase
    dealer: int
    current_player: int
    hand: CardSet
    """This seat's own cards (those known to this state)."""
    hand_sizes: tuple[int, ...]
    bids: tuple[tuple[int, int], ...]
    """(seat, contract or 0 for a pass), in speaking order."""
    taker: int | None
    contract: Contract | None
    called_card: int | None
    partner: int | None
    """The partner's seat, once this seat knows it (``None`` otherwise or when alone)."""
    partner_known: bool
    """True once this seat knows who the partner is, or that the taker plays alone."""
    chien: CardSet | None
    """The chien when it was shown (prise, garde), else ``None``."""
    ecart: CardSet
    """The whole écart for the taker; the discarded trumps (shown) for the others."""
    chelem_announced: bool
    petit_chelem_announced: bool
    poignees: tuple[tuple[int, CardSet], ...]
    miseres: tuple[tuple[int, MisereKind], ...]
    tricks: tuple[Trick, ...]
    trick_leader: int | None
    trick: tuple[int, ...]
    trick_seats: tuple[int, ...]
    """Who played each card of ``trick``."""
    played: CardSet
    void: Void | None
    tops: tuple[CardSet, ...] = ()
    """Two players: the face-up top cards of each seat's piles (public)."""
    pile_sizes: tuple[tuple[int, ...], ...] = ()
    """Two players: the number of cards left in each pile, per seat."""


class State:
    """One position of one hand (see the module docstring)."""

    __slots__ = (
        "_bids",
        "_calls",
        "_cards",
        "_first_leader",
        "_hand_end",
        "_known_play",
        "_lead_suit",
        "_legal_cache",
        "_miseres",
        "_open_play",
        "_order",
        "_pile_game",
        "_played_before",
        "_players",
        "_poignees",
        "_rotation",
        "_speaker",
        "_top_bid",
        "_trick_leader",
        "_winners",
        "_won",
        "called",
        "chelem_announced",
        "chien",
        "chien_known",
        "config",
        "contract",
        "current",
        "dealer",
        "discards_left",
        "ecart",
        "ecart_hidden",
        "game",
        "hands",
        "hidden",
        "next_seat",
        "petit_chelem_announced",
        "phase",
        "piles",
        "played",
        "pool",
        "taker",
        "taker_pool",
        "tops",
        "void",
    )

    def __init__(
        self,
        config: TableConfig,
        dealer: int,
        hands: Sequence[CardSet | None],
        chien: CardSet | None,
        piles: Sequence[Sequence[Sequence[int | None]]] = (),
    ) -> None:
        """Prefer :func:`new_hand` and :func:`from_hands`, which validate the deal."""
        _, game, self._order, self.next_seat, self._rotation = _seating(config, dealer)
        self.config = config
        self.game = game
        self.dealer = dealer
        if None in hands:
            self.hands = [h or 0 for h in hands]
            self.hidden = [
                (game.hand_size if s in self._order else 0) if h is None else 0
                for s, h in enumerate(hands)
            ]
        else:
            self.hands = list(hands)  # type: ignore[arg-type]  # (no None in it here)
            self.hidden = [0] * game.seats
        self.chien_known = chien is not None
        self.chien = chien or 0
        known = self.chien
        for h in self.hands:
            known |= h
        # Two players: piles from the bottom card up, -1 for a card this state does not see.
        self.piles = []
        self.tops = [0] * game.seats
        if piles:
            self.piles = [[[-1 if c is None else c for c in p] for p in ps] for ps in piles]
            for seat, ps in enumerate(self.piles):
                for p in ps:
                    for c in p:
                        if c >= 0:
                            known |= 1 << c
                    self.tops[seat] |= 1 << p[-1]
        self.pool = FULL_DECK & ~known
        self.taker_pool = 0
        self.ecart = 0
        self.ecart_hidden = 0
        self.phase = _BIDDING
        self._speaker = 0
        self.current = self._order[0]
        self._bids: list[tuple[int, int]] = []
        # The highest contract bid so far (0: only passes), kept rather than recomputed
        # from the bids at every turn to speak.
        self._top_bid = 0
        self.contract: Contract | None = None
        self.taker: int | None = None
        self.called: int | None = None
        self.discards_left = 0
        self.chelem_announced = False
        self.petit_chelem_announced = False
        self._poignees: list[tuple[int, CardSet]] = []
        self._miseres: list[tuple[int, MisereKind]] = []
        # The play is kept as the cards in the order played and the winner of each trick
        # (with the first leader, that says who played each card): the least written at
        # every card. The tricks, who played what and the history are worked out from them
        # when asked for (:attr:`tricks`, :attr:`played_by`, :meth:`history`), which the
        # engine itself does only to count a hand.
        self._cards: list[int] = []
        self._winners: list[int] = []
        self._first_leader = self._trick_leader = self._order[0]
        # Where the last trick ends in ``_cards``.
        self._hand_end = game.tricks * game.players
        self._lead_suit = -1
        self._players = game.players
        self._pile_game = game.piles
        self.played = 0
        # The cards of the tricks each seat took, and those played before the current
        # trick: kept as the tricks end so that counting a hand reads four masks instead of
        # going through the tricks again (the count ends every playout of the strong bot).
        self._won = [0] * game.seats
        self._played_before = 0
        self.void: Void | None = None
        # The moves other than cards, each with the number of cards played before it.
        self._calls: list[tuple[int, Action]] = []
        # The legal cards of the current player once listed (0: not yet), so that
        # apply_action checks a listed card with one bit test.
        self._legal_cache = 0
        self._open_play = self._known_play = False

    # ------------------------------------------------------------------ queries

    def current_player(self) -> int:
        return TERMINAL if self.phase is _DONE else self.current

    def is_terminal(self) -> bool:
        return self.phase is _DONE

    def history(self) -> list[Action]:
        """The actions applied so far, in order (replayable on a fresh state): the moves
        other than cards with, between them, the cards played (as the canonical
        :data:`PLAY` actions, equal to those applied)."""
        out: list[Action] = []
        cards = self._cards
        done = 0
        for at, action in self._calls:
            out += map(_PLAY_OF, cards[done:at])
            done = at
            out.append(action)
        out += map(_PLAY_OF, cards[done:])
        return out

    @property
    def tricks(self) -> list[Trick]:
        """The finished tricks, in order (a new list at each call, built from the cards
        played and the winners: see ``__init__``)."""
        cards = self._cards
        n = self._players
        out = []
        leader = self._first_leader
        for start, winner in zip(range(0, len(cards), n), self._winners, strict=False):
            out.append(_new_tuple(Trick, (leader, tuple(cards[start : start + n]), winner)))
            leader = winner
        return out

    @property
    def played_by(self) -> list[CardSet]:
        """The cards each seat played so far (a new list at each call, built from the cards
        played and the winners: see ``__init__``)."""
        out = [0] * self.game.seats
        cards = self._cards
        n = self._players
        rotation = self._rotation
        for start, leader in zip(
            range(0, len(cards), n), (self._first_leader, *self._winners), strict=False
        ):
            for s, c in zip(rotation[leader], cards[start : start + n], strict=False):
                out[s] |= 1 << c
        return out

    def _player_of(self, card: int) -> int:
        """Who played ``card``, which was played."""
        i = self._cards.index(card)
        t, k = divmod(i, self._players)
        return self._rotation[self._winners[t - 1] if t else self._first_leader][k]

    def _holder(self, card: int) -> int | None:
        """Who holds (as far as this state knows) or played ``card``; ``None``: nobody
        known to."""
        if self.played >> card & 1:
            return self._player_of(card)
        return next((s for s in self._order if self.hands[s] >> card & 1), None)

    def _trick_cards(self) -> list[int]:
        """The cards of the current trick, in playing order."""
        return self._cards[len(self._winners) * self._players :]

    def clone(self) -> State:
        """An independent copy, to try moves on without touching this position (a peer
        checking its own écart or poignée first). The containers are copied, the
        immutable values (cards, tuples, the configuration) shared."""
        other = State.__new__(State)
        for name in State.__slots__:
            value = getattr(self, name)
            setattr(other, name, list(value) if isinstance(value, list) else value)
        other.piles = [[list(pile) for pile in piles] for piles in self.piles]
        return other

    def is_known(self, seat: int) -> bool:
        """True when this state sees every card of ``seat``'s hand."""
        return self.hidden[seat] == 0

    def partner(self) -> int | None:
        """The called partner's seat once known to this state (``None``: unknown or alone)."""
        c = self.called
        if c is None:
            return None
        holder = self._holder(c)
        return None if holder == self.taker else holder

    def legal_actions(self) -> list[Action]:
        """Every legal action of the current player, in a deterministic order.

        Requires the current player's hand to be known. In the play phase, before a
        player's first card, one canonical poignée per level is listed (the lowest trumps,
        the Excuse only when it must stand in); :meth:`apply_action` accepts any valid one.
        """
        if self._open_play:
            # The rules of the card play, as in _legal_mask, with each case listed from the
            # fewest tables (following a suit, one look-up) and no announcement to add.
            # The lead and the trumps are listed here as in _Lister and _trumps_to_play, a
            # call less each (a card in two is led or trumped).
            h = self.hands[self.current]
            suit = self._lead_suit
            if suit < 0:
                self._legal_cache = h
                b0, b1, b2, b3, b4, b5, b6, b7, b8, b9 = h.to_bytes(10, "little")
                return [
                    *_P0[b0], *_P1[b1], *_P2[b2], *_P3[b3], *_P4[b4],
                    *_P5[b5], *_P6[b6], *_P7[b7], *_P8[b8], *_P9[b9],
                ]  # fmt: skip
            if suit != TRUMP_SUIT:
                follow = h & SUIT_MASK[suit]
                if follow:
                    part = follow >> _SUIT_SHIFT[suit]
                    cards = _SUIT_PLAYS[suit][part] or _fill_suit(suit, part)
                    if h >= EXCUSE_MASK:  # (the Excuse is the highest card: no number made)
                        self._legal_cache = follow | EXCUSE_MASK
                        return [*cards, _PLAY_EXCUSE]
                    self._legal_cache = follow
                    return [*cards]
            held = h >> 56
            trumps = held & _TRUMP_BITS
            if trumps:
                above = ((self.played ^ self._played_before) >> 56 & _TRUMP_BITS).bit_length()
                held = (trumps >> above << above or trumps) | (held & _SHIFTED_EXCUSE)
                self._legal_cache = held << 56
                return [*_P7[held & 255], *_P8[held >> 8 & 255], *_P9[held >> 16]]
            self._legal_cache = h
            return _list_plays(h)
        seat = self.current
        phase = self.phase
        if phase is _BIDDING:
            if not self.hidden[seat] and _is_petit_sec(self.hands[seat]):
                return [PETIT_SEC]
            return [BIDS[0], *BIDS[self._top_bid + 1 :]]
        if phase is _PLAYING and not self.hidden[seat]:
            if self._pile_game and self.pending_piles(seat):
                raise IncompleteInformation("a pile card turned up must be revealed first")
            mask = self._legal_mask()
            # Announcements come before one's first card, so never after the first trick
            # (during the first, the seat to play has played none).
            if self._winners or self.taker is None:
                return _list_plays(mask)
            return [*self._announcements(seat), *_list_plays(mask)]
        if self._pile_game and phase is _PLAYING and self.pending_piles(seat):
            raise IncompleteInformation("a pile card turned up must be revealed first")
        if phase is _DONE:
            return []
        if self.hidden[seat] and phase is not _GO:
            raise IncompleteInformation(f"seat {seat}'s hand is not known to this state")
        if phase is _CALL:
            return [CallCard(c) for c in cards_of(_callable(self.hands[seat]))]
        if phase is _DISCARD:
            return _list_discards(self._discardable())
        if self.config.petit_chelem:
            return [Go(False), Go(True), Go(False, True)]
        return [Go(False), Go(True)]

    def legal_play_mask(self) -> CardSet:
        """Cards the current player may play (play phase, known hand): the fast path."""
        if self.phase is not _PLAYING or self.hidden[self.current]:
            raise IncompleteInformation("no known hand to play from")
        return self._legal_mask()

    def _legal_mask(self) -> CardSet:
        """The current player's legal cards, kept for apply_action unless a card may come
        from a pile (two players: playing a pile's top card turns the next one up, which
        apply_action's shortcut for listed cards does not do)."""
        if self._legal_cache:
            return self._legal_cache
        seat = self.current
        h = self.hands[seat] | self.tops[seat] if self._pile_game else self.hands[seat]
        suit = self._lead_suit
        if suit < 0:
            mask = h
        else:
            follow = h & SUIT_MASK[suit] if suit != TRUMP_SUIT else 0
            if follow:
                mask = follow | (h & EXCUSE_MASK)
            elif h & TRUMP_MASK:
                in_trick = self.played ^ self._played_before
                mask = _trumps_to_play(h >> 56, in_trick >> 56) << 56
            else:
                mask = h
        if not self._pile_game:
            self._legal_cache = mask
        return mask

    def _announcements(self, seat: int) -> list[Action]:
        out: list[Action] = []
        h = self.hands[seat]
        if not any(s == seat for s, _ in self._poignees):
            trumps = h & TRUMP_MASK
            t = trumps.bit_count()
            for need in self.game.poignee_thresholds:
                if t >= need:
                    out.append(Poignee(_lowest(trumps, need)))
                elif t + 1 == need and h & EXCUSE_MASK:
                    out.append(Poignee(trumps | EXCUSE_MASK))
        if self.config.misere:
            done = {k for s, k in self._miseres if s == seat}
            for kind in MisereKind:
                if kind not in done and _misere_holds(kind, h):
                    out.append(Misere(kind))
        return out

    def _discardable(self) -> CardSet:
        h = self.hands[self.current]
        plain = h & _PLAIN
        if plain.bit_count() >= self.discards_left:
            return plain
        return plain | (h & _PLAIN_TRUMPS)

    # ------------------------------------------------------------------ moves

    def apply_action(self, action: Action) -> None:
        """Apply ``action`` for the current player, or raise :class:`IllegalAction`."""
        phase = self.phase
        if phase is _PLAYING and type(action) is Play:
            # A card: the engine's most frequent move, written out here rather than in a
            # method of its own (one call less per card of every playout).
            # A card listed as legal (legal_actions, legal_play_mask) is checked with one
            # bit test; any other goes through every check in _take_played. The action
            # being the interned PLAY[card] says that card is a card number (an int of
            # 0..77), in one look-up instead of checking its type and range.
            seat = self.current
            card = action.card
            try:
                interned = PLAY[card] is action
            except (TypeError, IndexError):
                interned = False
            if interned and self._legal_cache & (bit := _BITS[card]):
                self.hands[seat] ^= bit
            else:
                bit = self._take_played(seat, card)
            self.played |= bit
            self._legal_cache = 0
            cards = self._cards
            cards.append(card)
            if self._lead_suit < 0 and card != EXCUSE:
                self._lead_suit = SUIT_OF[card]  # the Excuse led, the next card sets the suit
            # The trick is complete when its leader would play next.
            nxt = self.next_seat[seat]
            leader = self._trick_leader
            if nxt != leader:
                self.current = nxt
                return
            # It goes to its winner, who leads next (written out here too: once a trick).
            end = len(cards)
            start = end - self._players
            played = self.played
            taken = played ^ self._played_before
            last = end == self._hand_end
            if last and cards[start] == EXCUSE and self._excuse_closes_chelem():
                winner = leader
            else:
                # The highest trump, else the highest card of the suit led: read from the
                # trick's cards once it is complete rather than compared card by card.
                best = (taken & TRUMP_MASK or taken & SUIT_MASK[self._lead_suit]).bit_length() - 1
                winner = self._rotation[leader][cards.index(best, start) - start]
            self._winners.append(winner)
            self._won[winner] |= taken
            self._played_before = played
            self._open_play = self._known_play
            self._lead_suit = -1
            self._trick_leader = self.current = winner
            if last:
                self.phase = _DONE
                self._open_play = False
            return
        if phase is _DONE:
            raise IllegalAction("hand-over", "the hand is over")
        elif phase is _BIDDING and type(action) is Bid:
            self._bid(action.contract)
        elif phase is _BIDDING and type(action) is PetitSec:
            self._petit_sec()
        elif phase is _CALL and type(action) is CallCard:
            self._call(action.card)
        elif phase is _DISCARD and type(action) is Discard:
            self._discard(action.card)
        elif phase is _GO and type(action) is Go:
            self._go(action.chelem, action.petit_chelem)
        elif phase is _PLAYING and type(action) is Poignee:
            self._poignee(action.cards)
        elif phase is _PLAYING and type(action) is Misere:
            self._misere(action.kind)
        else:
            raise IllegalAction("wrong-phase", f"{action} is not a move of the {phase.name} phase")
        self._calls.append((len(self._cards), action))

    def _bid(self, contract: int) -> None:
        seat = self.current
        if type(contract) is not int or not 0 <= contract <= 4:
            raise IllegalAction("bid", f"no contract {contract!r}")
        if not self.hidden[seat] and _is_petit_sec(self.hands[seat]):
            raise IllegalAction("petit-sec", "a player holding the petit sec must announce it")
        top = self._top_bid
        if contract and contract <= top:
            raise IllegalAction("bid-order", "a bid must be higher than the bids before it")
        self._bids.append((seat, contract))
        if contract:
            self._top_bid = contract
        self._speaker += 1
        if self._speaker < len(self._order):
            self.current = self._order[self._speaker]
            return
        if top == 0 and contract == 0:
            if self.config.all_pass is AllPass.MISERE_DEAL:
                self._start_play(self._order[0])
            else:
                self._end_void(Void.ALL_PASS)
            return
        best = max(self._bids, key=_BID_CONTRACT)
        self.taker, self.contract = best[0], _CONTRACT_OF[best[1]]
        self.current = self.taker
        if self.game.called_king:
            self.phase = _CALL
        else:
            self._after_call()

    def _petit_sec(self) -> None:
        seat = self.current
        if not self.hidden[seat] and not _is_petit_sec(self.hands[seat]):
            raise IllegalAction("petit-sec", "the hand does not hold the petit sec")
        self._bids.append((seat, -1))
        self._end_void(Void.PETIT_SEC)

    def _end_void(self, why: Void) -> None:
        self.void = why
        self.phase = _DONE

    def _call(self, card: int) -> None:
        seat = self.current
        if type(card) is not int or not 0 <= card < 56 or RANK_OF[card] < 11:
            raise IllegalAction("call", "the taker calls a king, queen, knight or jack")
        if not self.hidden[seat] and not (_callable(self.hands[seat]) >> card) & 1:
            raise IllegalAction(
                "call",
                "a king must be called, or a lower rank only when holding the four of each above",
            )
        self.called = card
        self._after_call()

    def _after_call(self) -> None:
        taker = self.taker
        assert taker is not None and self.contract is not None
        if self.contract <= _GARDE:
            if not self.chien_known:
                # The taker takes the chien; its cards become known when it is revealed.
                self.hidden[taker] += self.game.chien_size
            else:
                self.hands[taker] |= self.chien
            self.discards_left = self.game.chien_size
            self.phase = _DISCARD
        else:
            self.phase = _GO

    def _discard(self, card: int) -> None:
        seat = self.current
        if type(card) is not int or not 0 <= card <= HIDDEN:
            raise IllegalAction("card", f"no card {card!r}")
        bit = 1 << card
        if not self.chien_known:
            raise IncompleteInformation("the chien must be revealed before the écart")
        if card == HIDDEN:
            if not self.hidden[seat]:
                raise IllegalAction("discard", "the taker's own state must name the card discarded")
            if self.hands[seat]:
                # A hidden card leaves the hand: the known cards may be among the discards.
                self.taker_pool |= self.hands[seat]
                self.hidden[seat] += self.hands[seat].bit_count()
                self.hands[seat] = 0
            self.hidden[seat] -= 1
            self.ecart_hidden += 1
        elif not self.hidden[seat]:
            if not (self._discardable() >> card) & 1:
                if not (self.hands[seat] >> card) & 1:
                    raise IllegalAction("discard", f"{card_name(card)} is not in the taker's hand")
                if bit & (KING_MASK | OUDLER_MASK):
                    raise IllegalAction("ecart-king-oudler", "no king nor oudler in the écart")
                raise IllegalAction(
                    "ecart-trump", "a trump may be discarded only when nothing else can be"
                )
            self.hands[seat] ^= bit
            self.ecart |= bit
        else:
            if not bit & TRUMP_MASK or bit & OUDLER_MASK:
                raise IllegalAction("ecart-shown", "only trumps other than oudlers are shown")
            self._take_from(seat, card)
            self.ecart |= bit
        self.discards_left -= 1
        self._legal_cache = 0
        if not self.discards_left:
            self.phase = _GO

    def _take_from(self, seat: int, card: int) -> None:
        """Remove ``card`` from ``seat``'s hand, which must be able to hold it."""
        bit = 1 << card
        if self.hands[seat] & bit:
            self.hands[seat] ^= bit
            return
        if self.hidden[seat] and (self.pool | (self.taker_pool if seat == self.taker else 0)) & bit:
            self.hidden[seat] -= 1
            self.pool &= ~bit
            self.taker_pool &= ~bit
            return
        raise IllegalAction("card-not-held", f"{card_name(card)} cannot be in seat {seat}'s hand")

    def _go(self, chelem: bool, petit_chelem: bool) -> None:
        if type(chelem) is not bool or type(petit_chelem) is not bool:
            raise IllegalAction("go", "a chelem is announced or not")
        if petit_chelem and (chelem or not self.config.petit_chelem):
            raise IllegalAction("go", "a petit chelem is announced alone, and only as a variant")
        assert self.taker is not None
        self.chelem_announced = chelem
        self.petit_chelem_announced = petit_chelem
        self._start_play(self.taker if chelem else self._order[0])

    def _start_play(self, leader: int) -> None:
        self.phase = _PLAYING
        # The play phase of a position whose every hand is known, without piles: the
        # shortest path of legal_actions once no announcement may be made (from the second
        # trick; at once in a misère deal). It stays so (a hand is never hidden again once
        # the play starts) until the hand ends.
        self._known_play = not self._pile_game and not any(self.hidden)
        self._open_play = self._known_play and self.taker is None
        self._first_leader = self._trick_leader = leader
        self.current = leader
        self._legal_cache = 0

    def _check_announce_window(self) -> None:
        """Before the seat to play has played a card (so during the first trick)."""
        if self._winners:
            raise IllegalAction("announce-late", "announcements are made before one's first card")
        if self.taker is None:
            raise IllegalAction("announce-misere-deal", "no announcements in a misère deal")

    def _poignee(self, cards: CardSet) -> None:
        seat = self.current
        self._check_announce_window()
        if any(s == seat for s, _ in self._poignees):
            raise IllegalAction("poignee-twice", "one poignée per player")
        if type(cards) is not int or cards & ~_TRUMPS_OR_EXCUSE or cards <= 0:
            raise IllegalAction("poignee-cards", "a poignée shows trumps (and maybe the Excuse)")
        if cards.bit_count() not in self.game.poignee_thresholds:
            sizes = "/".join(map(str, self.game.poignee_thresholds))
            raise IllegalAction("poignee-size", f"a poignée shows exactly {sizes} trumps")
        h = self.hands[seat]
        if not self.hidden[seat]:
            if cards & ~h:
                raise IllegalAction("poignee-not-held", "a poignée shows cards of one's hand")
            if cards & EXCUSE_MASK and h & TRUMP_MASK & ~cards:
                raise IllegalAction(
                    "poignee-excuse",
                    "the Excuse stands in a poignée only with no other trump hidden",
                )
        else:
            for c in cards_of(cards & ~h):
                self._check_may_hold(seat, c)
            new = cards & ~h
            if new.bit_count() > self.hidden[seat]:
                raise IllegalAction("poignee-not-held", "more cards shown than the hand can hold")
            self.hidden[seat] -= new.bit_count()
            self.hands[seat] |= new
            self.pool &= ~new
            self.taker_pool &= ~new
        self._poignees.append((seat, cards))

    def _check_may_hold(self, seat: int, card: int) -> None:
        bit = 1 << card
        if self.hands[seat] & bit:
            return
        if self.hidden[seat] and (self.pool | (self.taker_pool if seat == self.taker else 0)) & bit:
            return
        raise IllegalAction("card-not-held", f"{card_name(card)} cannot be in seat {seat}'s hand")

    def _misere(self, kind: MisereKind) -> None:
        seat = self.current
        if not self.config.misere:
            raise IllegalAction("misere-off", "this table does not play misères")
        self._check_announce_window()
        if not isinstance(kind, MisereKind):
            raise IllegalAction("misere", f"no misère {kind!r}")
        if (seat, kind) in self._miseres:
            raise IllegalAction("misere-twice", "each misère is announced once")
        if not self.hidden[seat] and not _misere_holds(kind, self.hands[seat]):
            raise IllegalAction("misere-false", f"the hand does not qualify for {Misere(kind)}")
        self._miseres.append((seat, kind))

    def _take_played(self, seat: int, card: int) -> CardSet:
        """The played ``card`` leaves ``seat``'s hand or piles, checked as far as this state
        can (a card not listed as legal: two players, a hand this state does not fully see,
        or an illegal card); returns its bit."""
        if type(card) is not int or not 0 <= card < DECK_SIZE:
            raise IllegalAction("card", f"no card {card!r}")
        bit = 1 << card
        if self._pile_game and self.pending_piles(seat):
            raise IncompleteInformation("a pile card turned up must be revealed first")
        if not self.hidden[seat]:
            if not self._legal_mask() & bit:
                raise self._play_error(seat, card)
            if self.tops[seat] & bit:
                self._turn_up(seat, card)
            else:
                self.hands[seat] ^= bit
        elif self.tops[seat] & bit:
            self._turn_up(seat, card)
        else:
            self._take_from(seat, card)
        return bit

    def _excuse_closes_chelem(self) -> bool:
        """The Excuse, led to the last trick, wins it when its side took every other trick
        (FFT: in a chelem the Excuse wins the last trick); there are no sides in a misère
        deal."""
        if self.taker is None:
            return False
        side = self._side(self._trick_leader)
        return all(self._side(w) is side for w in self._winners)

    def _turn_up(self, seat: int, card: int) -> None:
        """``card`` leaves the top of one of ``seat``'s piles: the next card shows."""
        for pile in self.piles[seat]:
            if pile and pile[-1] == card:
                pile.pop()
                self.tops[seat] ^= 1 << card
                if pile and pile[-1] >= 0:
                    self.tops[seat] |= 1 << pile[-1]
                return
        raise AssertionError("a top card is on a pile")

    def pending_piles(self, seat: int) -> list[int]:
        """Piles of ``seat`` whose top card is turned up but not yet known to this state
        (the protocol must :meth:`reveal_pile` them before ``seat`` plays)."""
        if not self.piles:
            return []
        return [i for i, p in enumerate(self.piles[seat]) if p and p[-1] < 0]

    def reveal_pile(self, seat: int, pile: int, card: int) -> None:
        """The card now on top of ``seat``'s ``pile`` became known (it was turned up)."""
        check_seat(self.config, seat)
        if not self.piles or not 0 <= pile < len(self.piles[seat]):
            raise IllegalAction("reveal", f"seat {seat} has no pile {pile!r}")
        stack = self.piles[seat][pile]
        if not stack or stack[-1] >= 0:
            if stack and stack[-1] == card:
                return
            raise IllegalAction("reveal", "that pile has no unknown top card")
        if type(card) is not int or not 0 <= card < DECK_SIZE or not (self.pool >> card) & 1:
            raise IllegalAction("reveal", f"card {card!r} cannot be on that pile")
        stack[-1] = card
        self.pool &= ~(1 << card)
        self.tops[seat] |= 1 << card
        self._legal_cache = 0

    def _play_error(self, seat: int, card: int) -> IllegalAction:
        h = self.hands[seat] | self.tops[seat]
        if type(card) is not int or not 0 <= card < DECK_SIZE:
            return IllegalAction("card", f"no card {card!r}")
        if not (h >> card) & 1:
            return IllegalAction("card-not-held", f"{card_name(card)} is not in seat {seat}'s hand")
        suit = self._lead_suit
        if suit != TRUMP_SUIT and h & SUIT_MASK[suit]:
            return IllegalAction("follow-suit", "a player must follow the suit led")
        if SUIT_OF[card] == TRUMP_SUIT:
            return IllegalAction("overtrump", "a player must overtrump when he can")
        return IllegalAction("must-trump", "a player void in the suit led must trump")

    # ------------------------------------------------------------------ learning cards

    def reveal_hand(self, seat: int, cards: CardSet) -> None:
        """The protocol learnt that ``cards`` are in ``seat``'s hand (e.g. it was shown)."""
        check_seat(self.config, seat)
        if type(cards) is not int or cards < 0 or cards & ~FULL_DECK:
            raise IllegalAction("reveal", f"not a card set: {cards!r}")
        new = cards & ~self.hands[seat]
        for c in cards_of(new):
            self._check_may_hold(seat, c)
        if new.bit_count() > self.hidden[seat]:
            raise IllegalAction("reveal", f"seat {seat}'s hand cannot hold that many more cards")
        self.hidden[seat] -= new.bit_count()
        self.hands[seat] |= new
        self.pool &= ~new
        self.taker_pool &= ~new
        self._legal_cache = 0

    def reveal_chien(self, cards: CardSet) -> None:
        """The chien became known (shown in prise/garde, opened at the end otherwise)."""
        if self.chien_known:
            if cards != self.chien:
                raise IllegalAction("reveal", "that is not the chien this state knows")
            return
        if type(cards) is not int or cards < 0 or cards & ~FULL_DECK:
            raise IllegalAction("reveal", f"not a card set: {cards!r}")
        if cards.bit_count() != self.game.chien_size or cards & ~self.pool:
            raise IllegalAction("reveal", "the chien must be unlocated cards, of the chien's size")
        self.chien, self.chien_known = cards, True
        self.pool &= ~cards
        taker = self.taker
        # In prise/garde the taker already holds it (no discard is made before it is shown).
        if taker is not None and self.contract is not None and self.contract <= Contract.GARDE:
            self.hands[taker] |= cards
            self.hidden[taker] -= self.game.chien_size
            self._legal_cache = 0

    def reveal_ecart(self, cards: CardSet) -> None:
        """The whole écart became known (at the end of the hand)."""
        if self.phase in (_BIDDING, _CALL, _DISCARD):
            raise IncompleteInformation("the écart is not made yet")
        if type(cards) is not int or cards < 0 or cards & ~FULL_DECK:
            raise IllegalAction("reveal", f"not a card set: {cards!r}")
        if not self.ecart_hidden:
            if cards != self.ecart:
                raise IllegalAction("reveal", "that is not the écart this state knows")
            return
        new = cards & ~self.ecart
        if (
            cards & self.ecart != self.ecart
            or cards.bit_count() != self.game.chien_size
            or new & ~(self.pool | self.taker_pool)
        ):
            raise IllegalAction("reveal", "not an écart consistent with the hand so far")
        self.ecart = cards
        self.ecart_hidden = 0
        self.pool &= ~new
        self.taker_pool &= ~new

    # ------------------------------------------------------------------ the end

    def outcome(self) -> HandOutcome | None:
        """The result of a played hand, for :func:`score_hand`; ``None`` for a void deal or
        a misère deal (see :meth:`half_points`)."""
        fields = self._outcome_fields()
        return None if fields is None else HandOutcome(*fields)

    def _outcome_fields(self) -> _OutcomeFields | None:
        """The fields of :meth:`outcome`, in the order of :class:`HandOutcome`'s (and
        :class:`RefereedOutcome`'s): positional values, which :meth:`returns` makes its
        outcome of in one C call (keywords to a Python-level constructor cost about ten
        thousand instructions)."""
        if self.phase is not _DONE:
            raise IncompleteInformation("the hand is not over")
        if self.void is not None or self.taker is None:
            return None
        assert self.contract is not None
        partner = self.partner()
        piles, adjust, chelem, excuse_closed = self._piles(partner)
        attack = piles[0]
        taker = self.taker

        def side(seat: int) -> Side:
            return _ATTACK if seat in (taker, partner) else _DEFENCE

        cards, n, winners = self._cards, self._players, self._winners
        petit_au_bout: Side | None = None
        if PETIT in cards[-n:]:
            petit_au_bout = side(winners[-1])
        elif excuse_closed and PETIT in cards[-2 * n : -n]:
            petit_au_bout = side(winners[-2])
        petit_chelem: Side | None = None
        if self.config.petit_chelem and chelem is None:
            for s in _SIDES:
                if sum(side(w) is s for w in winners) >= self.game.tricks - 3:
                    petit_chelem = s
        return (
            self.contract,
            taker,
            partner,
            half_points_of(attack) + adjust[0],
            (attack & OUDLER_MASK).bit_count(),
            petit_au_bout,
            tuple(
                PoigneeBonus(side(s), self.game.poignee_thresholds.index(c.bit_count()) + 1)
                for s, c in self._poignees
            )
            if self._poignees
            else (),
            self.chelem_announced,
            chelem,
            petit_chelem,
            tuple(sorted(s for s, _ in self._miseres)) if self._miseres else (),
            None,
            self.dealer if self.game.seats > self.game.players else None,
            self.petit_chelem_announced,
        )

    def _side(self, seat: int) -> Side:
        return _ATTACK if seat == self.taker or seat == self.partner() else _DEFENCE

    def _piles(self, partner: int | None) -> tuple[list[CardSet], list[int], Side | None, bool]:
        """Cards and half-point adjustments of each party (sides, or seats in a misère
        deal), the chelem side, and whether the Excuse closed a chelem; ``partner`` is
        :meth:`partner`, which the caller needs too."""
        misere_deal = self.taker is None
        if not misere_deal and not self.chien_known:
            raise IncompleteInformation("the chien must be revealed to count the hand")
        if self.ecart_hidden:
            raise IncompleteInformation("the écart must be revealed to count the hand")
        # Read from the cards each seat took (kept as the play went), not from the tricks:
        # the count ends every playout of the strong bot.
        won = self._won
        # Who played the Excuse (-1 when it was not played: set aside in the chien).
        excuse_by = self._player_of(EXCUSE) if self.played & EXCUSE_MASK else -1
        if misere_deal:
            piles = [m & ~EXCUSE_MASK for m in won]
            chelem = None
            # The parties are the seats: the Excuse's player, and who took its trick.
            owner = excuse_by
            w = next((s for s, cards in enumerate(won) if cards & EXCUSE_MASK), -1)
        else:
            taker = self.taker
            assert taker is not None
            attack = won[taker]
            if partner is not None:
                attack |= won[partner]
            # Every card played is in a trick taken by one side or the other.
            defence = self.played & ~attack
            chelem = None if attack and defence else _SIDES[not attack]
            piles = [attack & ~EXCUSE_MASK, defence & ~EXCUSE_MASK]
            owner = int(excuse_by != taker and excuse_by != partner)
            w = int(not attack & EXCUSE_MASK)
        adjust = [0] * len(piles)
        n = self._players
        last = self._cards[-n:]
        # The last trick's leader is the one before's winner: the Excuse led takes it.
        excuse_closed = last[0] == EXCUSE and self._winners[-1] == self._winners[-2]
        if self.played & EXCUSE_MASK:
            if chelem is not None or EXCUSE not in last:
                piles[owner] |= EXCUSE_MASK
                if w != owner:
                    adjust[owner] -= 1
                    adjust[w] += 1
            elif self.config.excuse_last_trick is ExcuseLastTrick.TO_TRICK_WINNER or misere_deal:
                piles[w] |= EXCUSE_MASK
            else:
                piles[1 - owner] |= EXCUSE_MASK
        if not misere_deal:
            assert self.contract is not None
            if self.contract <= _GARDE:
                piles[0] |= self.ecart
            else:
                piles[0 if self.contract is _GARDE_SANS else 1] |= self.chien
        return piles, adjust, chelem, excuse_closed

    def half_points(self) -> tuple[int, ...]:
        """Half-points of each party once the hand is counted: (attack, defence) for a
        contract — the chien or écart included as the contract says — or one entry per
        seat in a misère deal (the chien set aside)."""
        if self.phase is not _DONE or self.void is not None:
            raise IncompleteInformation("not a finished, played hand")
        piles, adjust, _, _ = self._piles(self.partner())
        return tuple(half_points_of(p) + a for p, a in zip(piles, adjust, strict=True))

    def returns(self) -> tuple[int, ...]:
        """Score of each seat for this hand (zeros for a void deal); sums to zero."""
        if self.phase is not _DONE:
            raise IncompleteInformation("the hand is not over")
        if self.void is not None:
            return (0,) * self.game.seats
        if self.taker is None:
            dead = self.dealer if self.game.seats > self.game.players else None
            return score_misere_deal(self.config, self.half_points(), dead)
        fields = self._outcome_fields()
        assert fields is not None
        return score_refereed(self.config, _new_tuple(RefereedOutcome, fields))

    # ------------------------------------------------------------------ observation

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may see now (only the cards this state knows of its hand)."""
        check_seat(self.config, seat)
        taker = self.taker
        called = self.called
        partner: int | None = None
        partner_known = False
        if called is not None:
            bit = 1 << called
            holder = self.partner()
            public = bool(self.played & bit) or (
                self.chien_known
                and self.contract is not None
                and self.contract <= Contract.GARDE
                and bool(self.chien & bit)
            )
            mine = self._holder(called) == seat
            if public or (seat == taker and mine):
                partner, partner_known = holder, True
            elif seat != taker and mine:
                partner, partner_known = seat, True
            elif public:
                partner_known = True
        ecart = self.ecart if seat == taker else self.ecart & TRUMP_MASK
        shown_chien = (
            self.chien
            if self.chien_known
            and self.contract is not None
            and self.contract <= Contract.GARDE
            and self.phase > _CALL
            else None
        )
        trick = self._trick_cards()
        trick_seats = self._rotation[self._trick_leader][: len(trick)]
        return Observation(
            seat=seat,
            players=self.game.players,
            phase=self.phase,
            dealer=self.dealer,
            current_player=self.current_player(),
            hand=self.hands[seat],
            hand_sizes=tuple(
                self.hands[s].bit_count() + self.hidden[s] for s in range(self.game.seats)
            ),
            bids=tuple((s, c) for s, c in self._bids if c >= 0),
            taker=taker,
            contract=self.contract,
            called_card=called,
            partner=partner,
            partner_known=partner_known,
            chien=shown_chien,
            ecart=ecart,
            chelem_announced=self.chelem_announced,
            petit_chelem_announced=self.petit_chelem_announced,
            poignees=tuple(self._poignees),
            miseres=tuple(self._miseres),
            tricks=tuple(self.tricks),
            trick_leader=self._trick_leader if self.phase is _PLAYING else None,
            trick=tuple(trick),
            trick_seats=trick_seats,
            tops=tuple(self.tops) if self.piles else (),
            pile_sizes=tuple(tuple(len(p) for p in ps) for ps in self.piles),
            played=self.played,
            void=self.void,
        )


def _lowest(mask: CardSet, k: int) -> CardSet:
    out = 0
    for _ in range(k):
        low = mask & -mask
        out |= low
        mask ^= low
    return out


def _trumps_to_play(held: int, in_trick: int) -> int:
    """Of a player's trumps and Excuse ``held``, those he may play to a trick holding the
    cards ``in_trick`` that he cannot follow or that was led with a trump: the trumps above
    every trump in it (the bits above its highest trump), or any when he cannot overtrump,
    and the Excuse. Both sets and the answer are masks shifted right by 56 (trump ``n`` is
    bit ``n - 1``, the Excuse bit 21): small numbers, where each operation on a whole
    mask of 78 bits would allocate one."""
    trumps = held & _TRUMP_BITS
    above = (in_trick & _TRUMP_BITS).bit_length()
    return (trumps >> above << above or trumps) | (held & _SHIFTED_EXCUSE)


def _is_petit_sec(hand: CardSet) -> bool:
    return hand & _TRUMPS_OR_EXCUSE == _PETIT_MASK


def _misere_holds(kind: MisereKind, hand: CardSet) -> bool:
    if kind is MisereKind.TRUMP:
        return not hand & _TRUMPS_OR_EXCUSE  # the Excuse counts as a trump here (seed 000)
    return not hand & (FACE_MASK | OUDLER_MASK)


def _callable(hand: CardSet) -> CardSet:
    """Cards the taker may call: the kings, then each lower rank while he holds all four of
    every rank above it."""
    out = 0
    for rank in range(KING, 10, -1):
        rank_mask = sum(1 << (s * 14 + rank - 1) for s in range(4))
        out |= rank_mask
        if hand & rank_mask != rank_mask:
            break
    return out


def new_hand(config: TableConfig, dealer: int, deck_order: Sequence[int]) -> State:
    """A fully known hand dealt from ``deck_order`` with the normative pattern."""
    return State(config, dealer, *dealt(config, dealer, deck_order))


def from_hands(
    config: TableConfig,
    dealer: int,
    hands: Sequence[CardSet | None],
    chien: CardSet | None,
    piles: Sequence[Sequence[Sequence[int | None]]] = (),
) -> State:
    """A hand from its hands, chien and (two players) piles; ``None`` for a hand, the chien
    or a pile card this observer does not see (imperfect information, see the module
    docstring). Piles list each seat's six piles from the bottom card up; their top cards
    are face up, so always known."""
    game = game_of(config)
    check_seat(config, dealer)
    if len(hands) != game.seats:
        raise ValueError(f"expected {game.seats} hands, got {len(hands)}")
    pile_cards = _check_piles(game, piles)
    full = all(c is not None for c in pile_cards)
    if full and all(h is not None for h in hands) and chien is not None:
        known = tuple(tuple(tuple(c for c in p if c is not None) for p in ps) for ps in piles)
        check_deal(config, dealer, tuple(h for h in hands if h is not None), chien, known)
        return State(config, dealer, hands, chien, piles)
    order = active_seats(config, dealer)
    seen = 0
    for c in pile_cards:
        if c is not None:
            if seen >> c & 1:
                raise ValueError("a pile card is given twice")
            seen |= 1 << c
    for seat, h in enumerate(hands):
        if h is None:
            if seat not in order:
                raise ValueError(f"seat {seat} sits out: its hand is empty, not unknown")
            continue
        want = game.hand_size if seat in order else 0
        if type(h) is not int or h < 0 or h & ~FULL_DECK or h.bit_count() != want:
            raise ValueError(f"seat {seat} must hold {want} cards")
        if seen & h:
            raise ValueError("a card is in two hands")
        seen |= h
    if chien is not None:
        if type(chien) is not int or chien < 0 or chien & ~FULL_DECK:
            raise ValueError("bad chien")
        if chien.bit_count() != game.chien_size or seen & chien:
            raise ValueError(f"the chien must hold {game.chien_size} cards dealt nowhere else")
    return State(config, dealer, hands, chien, piles)


def _check_piles(game: Game, piles: Sequence[Sequence[Sequence[int | None]]]) -> list[int | None]:
    """The pile cards, after checking the piles' shape (none but at two players)."""
    if not game.piles:
        if piles:
            raise ValueError("piles exist only in the two-player variant")
        return []
    if len(piles) != 2 or any(len(ps) != PILES or any(len(p) != 3 for p in ps) for ps in piles):
        raise ValueError(f"two players: each has {PILES} piles of three cards")
    out: list[int | None] = []
    for ps in piles:
        for p in ps:
            if p[-1] is None:
                raise ValueError("the top card of a pile is face up: it must be given")
            for c in p:
                if c is not None and (type(c) is not int or not 0 <= c < DECK_SIZE):
                    raise ValueError(f"no card {c!r}")
                out.append(c)
    return out
