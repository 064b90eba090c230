"""The scenarios of the conformance kit: honest games, then one cheat each.

A scenario says how big the table is, where the implementation under test sits, what the
kit's seats bid, and when and how one kit seat cheats: a *stage* function the kit calls
before each message of a kit seat, which either lets the seat play on (``None``) or
returns the :class:`Move` the cheat makes. The move carries what the implementation must
conclude, stated from the spec:

* a message the implementation can pin on its signer is a **violation** by that seat,
  named by the index the spec names senders by (the member index in hand 0, the drawn
  seat after, ``table.md`` §5), with the kind of message it signed, or ``equivocation``
  for two messages of one slot (``wire.md`` §4.3); the implementation passes the evidence
  on (``wire.md`` §7.5) and builds nothing on it;
* bytes nobody provably signed are **ignored** (``wire.md`` §3.3): the game finishes;
* an offence hidden while the cards are (``table.md`` §5.1: an illegal écart) is found by
  the audit at the end of the hand and **scored** with the penalty (``game.md`` §5): the
  game finishes and every seat signs the penalised line.

Cheats are made as early as the rules let them: the set-up's key shares and shuffles,
the first deal's shares, its first bid, its first card. A cheat that needs a moment — a
card to play, a petit sec not held — waits for a deal that gives it, and a scenario plays
several deals to find one. The audit games choose their deal instead (:mod:`.deals`,
through the escrow), so that the hand's winner is known whatever the implementation
plays and only the audit changes the score line.

In a leave game (``leaves``) a kit seat goes silent mid-hand: the implementation must take
part in the abandon, the release of its key and the stand-in's play (``table.md``
§3.1–3.2); a cheat of the release round (a wrong piece) needs such a game.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass

from tarot_p2p.crypto.randomness import RandomSource
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.table import HandMachine, Phase
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import EXCUSE, KING_MASK, OUDLER_MASK, TRUMP_MASK, cards_of, mask_of
from tarot_p2p.rules.config import FORFEIT_LIMITS, GameEnd, TableConfig
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.rules.state import game_of

from . import cheats
from .deals import DealPlan, kit_taker, master_of_trumps, revoker, trump_wall
from .seats import KitSeats
from .verdict import EQUIVOCATION, Verdict

FINISHED = Verdict("finished")
ARRIVAL = "arrival"
AUDIT = "audit"


@dataclass(frozen=True, slots=True)
class Move:
    """What a cheating kit seat does at one step.

    ``wires`` go to the implementation, in order. ``delivered`` is the message the kit's
    own seats take in the cheat's slot (the cheater's peer holds it already): for a cheat
    the table plays on with, the cheat itself; for one that stops the table, the honest
    version the cheater shows the kit's seats instead (``None``: the kit makes it, the
    seat's honest message). ``replaces``: the cheat takes the slot of the seat about to
    speak (``False``: it is sent on top, as an intruder's, and that seat still speaks).
    ``offence`` is the message nothing may be built on; ``evidence`` what the
    implementation must pass on. ``audited``: the hand whose audit must name ``expected``'s
    cheater, with the cheater's seat."""

    wires: tuple[bytes, ...]
    expected: Verdict
    offence: bytes | None = None
    evidence: tuple[bytes, ...] = ()
    delivered: bytes | None = None
    audited: tuple[HandMachine, int] | None = None
    replaces: bool = True
    split: bool = True
    """For a cheat that stops the table: sent to the implementation alone (a split view),
    or (``False``) to every seat, when the implementation's own next message must show
    it (a complaint of a badly sealed escrow piece)."""

    @property
    def stops(self) -> bool:
        """Whether the table stops here (a violation) or plays on."""
        return self.expected.end != "finished"


Stage = Callable[[KitSeats, Peer, RandomSource], Move | None]
"""Called with the kit's seats, the kit peer about to speak and a random source."""
Leave = Callable[[KitSeats, Peer], bool]
"""Called with the kit's seats and the kit peer about to speak: whether it leaves now."""


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    summary: str
    """What happens, in plain words (``--list``)."""
    expects: str
    """What the implementation must conclude, in words (before the cheater is known)."""
    players: int
    stage: Stage | None = None
    member: int = 1
    """The implementation's place in the roster (the kit's host is member 0)."""
    bid: Contract | None = None
    """What the first kit seat to bid bids (``None``: the kit passes)."""
    deals: int = 1
    """Deals the game lasts: enough for the cheat to find a deal that allows it."""
    plan: DealPlan | None = None
    """How the kit chooses each deal (``deals.py``); ``None``: the deals are random."""
    found_by: str = ARRIVAL
    """What of the implementation's own finds the cheat: its checks of each message as it
    arrives (:data:`ARRIVAL`: signatures, proofs, turns, the rules' public checks) or the
    end-of-hand audit (:data:`AUDIT`); unused for an honest game."""
    leaves: Leave | None = None
    """When a kit seat leaves the table mid-hand (``None``: nobody leaves): called with the
    kit seat about to speak, it says whether that seat goes silent instead, for good. The
    table then plays with the shortest forfeit time (``table.md`` §3.1)."""
    min_players: int = 3
    """The smallest table the game can be played at (``--players`` below it plays it at
    this size)."""

    @property
    def sized(self) -> bool:
        """Whether the game is one of a set, one per table size (the honest games, the
        leave games, the audit games on chosen deals): ``--players`` keeps the one of its
        size, never plays it at another."""
        return self.stage is None or self.plan is not None

    def size(self, players: int | None = None) -> int:
        """The table's size when ``--players`` asks for ``players`` (``None``: its own)."""
        if players is None or self.sized:
            return self.players
        return max(players, self.min_players)

    def config(self, players: int | None = None) -> TableConfig:
        forfeit = {} if self.leaves is None else {"forfeit_after": FORFEIT_LIMITS[0]}
        return TableConfig(
            players=self.size(players),
            game_end=GameEnd.DEALS,
            game_length=self.deals,
            **forfeit,  # type: ignore[arg-type]
        )


def _violation(peer: Peer, wire: bytes, offence: str) -> Move:
    return Move((wire,), Verdict("violation", peer.seat, offence), wire, (wire,))


def _at(peer: Peer, phase: Phase, *, hand: int | None = None) -> bool:
    """``peer`` is to speak in ``phase`` of ``hand`` (any deal when ``None``)."""
    current = peer.hand
    in_hand = current.hand >= 1 if hand is None else current.hand == hand
    return in_hand and current.phase is phase


def _last_member(peer: Peer) -> bool:
    return peer.seat == peer.config.seats - 1


def _can_play(peer: Peer) -> bool:
    return any(isinstance(x, a.Play) for x in peer.legal_actions())


def bad_shuffle(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    if not (_at(peer, Phase.SHUFFLE, hand=0) and _last_member(peer)):
        return None
    return _violation(peer, cheats.bad_shuffle(peer, seats.key(peer), rng), "shuffle")


def duplicated_card(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    if not _at(peer, Phase.SHUFFLE):
        return None
    return _violation(peer, cheats.duplicated_card(peer, seats.key(peer), rng), "shuffle")


def wrong_share(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    if not (_at(peer, Phase.DRAW, hand=0) or _at(peer, Phase.DEAL)):
        return None
    return _violation(peer, cheats.wrong_shares(peer, seats.key(peer), rng), "shares")


def card_not_held(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    if not (_at(peer, Phase.PLAY) and _can_play(peer)):
        return None
    slot = peer.hand.holding[seats.iut_seat()][0]
    return _violation(peer, cheats.unheld_card(peer, seats.key(peer), rng, slot), "play")


def out_of_turn(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    """Another kit seat sends its deal shares while ``peer`` is the one expected."""
    if not _at(peer, Phase.DEAL):
        return None
    intruder = seats.others(peer)[0]
    wire = cheats.round_shares(intruder, seats.key(intruder), rng)
    return dataclasses.replace(_violation(intruder, wire, "shares"), replaces=False)


def equivocation(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    """Two well-proven key shares for one slot: the first is taken, the second betrays."""
    if not _at(peer, Phase.KEYS):
        return None
    second = cheats.key_share(peer, seats.key(peer), rng)
    first = peer.next_message()
    assert first is not None
    expected = Verdict("violation", peer.seat, EQUIVOCATION)
    return Move((first, second), expected, second, (first, second), delivered=first)


def replay(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    """The seat's shuffle of the seat draw relayed again as it was (a duplicate, to be
    ignored), then its key share of the draw signed again as its key share of the deal."""
    if not _at(peer, Phase.KEYS):
        return None
    own = [e for e in peer.transcript if e.hand == 0 and e.seat == peer.member]
    old_key = next(e for e in own if e.kind == "key")
    old_shuffle = next(e for e in own if e.kind == "shuffle")
    wire = cheats.replayed(peer, seats.key(peer), old_key)
    expected = Verdict("violation", peer.seat, "key")
    return Move((old_shuffle.wire, wire), expected, wire, (wire,))


def forged_sender(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    """Another kit seat signs a key share in ``peer``'s name, with its own key."""
    if not _at(peer, Phase.KEYS):
        return None
    forger = seats.others(peer)[0]
    wire = cheats.key_share(forger, seats.key(forger), rng, seat=peer.seat)
    return Move((wire,), FINISHED, wire)


def rogue_key(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    if not (_at(peer, Phase.KEYS, hand=0) and _last_member(peer)):
        return None
    return _violation(peer, cheats.rogue_key(peer, seats.key(peer), rng), "key")


def false_petit_sec(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    legal = peer.legal_actions()
    if not _at(peer, Phase.BIDDING) or a.PETIT_SEC in legal or a.PASS not in legal:
        return None
    return _violation(peer, cheats.false_petit_sec(peer, seats.key(peer), rng), "petit_sec")


def false_poignee(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    if not (_at(peer, Phase.PLAY) and _can_play(peer)):
        return None
    wire = cheats.false_poignee(peer, seats.key(peer), rng)
    return None if wire is None else _violation(peer, wire, "poignee")


def illegal_ecart(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    """The taker puts a king aside (or, holding none, a trump he did not have to): both
    hidden from the rules until the hand's cards are opened."""
    if not _at(peer, Phase.ECART):
        return None
    hand, state = peer.hand, peer.private_state()
    assert state is not None and peer.seat is not None
    held = peer.my_cards() | mask_of(hand.cards[s] for s in hand.chien_slots)
    kings = held & KING_MASK
    trumps = held & TRUMP_MASK & ~OUDLER_MASK
    wrong = kings & -kings if kings else trumps & -trumps
    if not wrong:
        return None
    trial = state.clone()
    cards = wrong
    for _ in range(chien_size(peer.config) - 1):
        choice = next(
            x
            for x in trial.legal_actions()
            if isinstance(x, a.Discard) and not (wrong >> x.card) & 1
        )
        trial.apply_action(choice)
        cards |= 1 << choice.card
    wire = cheats.cheat_discard(peer, cards)
    return Move((wire,), FINISHED, delivered=wire, audited=(hand, peer.seat))


def excuse_poignee(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    """The kit's taker, before his first card, shows a poignée of the Excuse and his
    lowest trumps while he holds more trumps than he shows: the public checks pass (trumps
    and the Excuse, a threshold's count), the audit finds ``poignee-excuse``."""
    state, seat = peer.private_state(), peer.seat
    if not (_at(peer, Phase.PLAY) and _can_play(peer)) or state is None or seat is None:
        return None
    if state.taker != seat or state.played_by[seat]:
        return None
    held = peer.my_cards()
    trumps = sorted(cards_of(held & TRUMP_MASK))
    size = game_of(peer.config).poignee_thresholds[0]
    if not (held >> EXCUSE) & 1 or len(trumps) < size:
        return None
    hand = peer.hand
    wire = cheats.cheat_poignee(peer, mask_of([EXCUSE, *trumps[: size - 1]]))
    return Move((wire,), FINISHED, delivered=wire, audited=(hand, seat))


def bad_escrow_sum(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    if not _at(peer, Phase.ESCROW):
        return None
    return _violation(peer, cheats.bad_escrow_sum(peer, seats.key(peer), rng), "escrow")


def badly_sealed_piece(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    """A kit seat seals the implementation's piece of its escrow wrong. Every seat takes
    the escrow (its commitments are right); only the implementation can open its piece,
    so it must complain at its shuffle turn, and the complaint blames the owner."""
    if not _at(peer, Phase.ESCROW):
        return None
    wire = cheats.badly_sealed_piece(peer, seats.key(peer), rng, seats.iut_seat())
    expected = Verdict("violation", peer.seat, "escrow")
    # Everyone holds the escrow: the proof the implementation sends is its own complaint.
    return Move((wire,), expected, delivered=wire, split=False)


def false_complaint(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    """At its shuffle turn, a kit seat complains of a piece that was sealed right."""
    seat = peer.seat
    if not _at(peer, Phase.SHUFFLE) or seat is None or not peer.hand.may_complain(seat):
        return None
    return _violation(peer, cheats.false_complaint(peer, seats.key(peer)), "complaint")


def wrong_score_line(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    if not _at(peer, Phase.SCORE):
        return None
    return _violation(peer, cheats.wrong_score(peer, seats.key(peer)), "score")


def mid_hand(seats: KitSeats, peer: Peer) -> bool:
    """A kit seat leaves at its turn to play, once it has played a card of the hand."""
    state, seat = peer.private_state(), peer.seat
    if not (_at(peer, Phase.PLAY) and _can_play(peer)) or state is None or seat is None:
        return False
    return bool(state.played_by[seat])


def before_two_releasers(seats: KitSeats, peer: Peer) -> bool:
    """As :func:`mid_hand`, where two kit seats release their pieces one after the other
    (the RELEASE round goes by seat, the silent one left out): a kit seat's wrong piece can
    then reach the implementation alone, another kit seat speaking next (``conformance.md``
    §1 step 5). At four seats, not every kit seat leaves so; at five, any does."""
    if not mid_hand(seats, peer):
        return False
    iut = seats.iut_seat()
    releasers = [s for s in range(peer.config.seats) if s != peer.seat]
    return any(iut not in pair for pair in itertools.pairwise(releasers))


def wrong_release(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    """In the RELEASE round after a kit seat left, another sends a value that is not its
    piece of the silent seat's escrow (``crypto.md`` §10.6)."""
    if not _at(peer, Phase.RELEASE):
        return None
    return _violation(peer, cheats.wrong_release(peer, seats.key(peer), rng), "release")


def revoke(seats: KitSeats, peer: Peer, rng: RandomSource) -> Move | None:
    """The kit's revoker (:func:`~.deals.revoker`) plays, at its first card of the chosen
    deal, a card the rules forbid: a trump, when it holds one it may not play, else a
    suit card (not following, or not trumping). Hidden while the cards are; the audit finds
    it (``revoke``, ``must-trump``) and the defence, which won the hand, loses it."""
    state, seat = peer.private_state(), peer.seat
    if not (_at(peer, Phase.PLAY) and _can_play(peer)) or state is None or seat is None:
        return None
    hand = peer.hand
    if state.taker != kit_taker(seats, hand) or seat != revoker(seats, hand):
        return None
    illegal = peer.my_cards() & ~state.legal_play_mask() & ~(1 << EXCUSE)
    if not illegal:
        return None
    trumps = illegal & TRUMP_MASK
    card = max(cards_of(trumps)) if trumps else min(cards_of(illegal))
    wire = cheats.cheat_play(peer, card)
    return Move((wire,), FINISHED, delivered=wire, audited=(hand, seat))


def _refused(kind: str) -> str:
    return f"violation by the cheater: {kind}"


def _audit_games(name: str, what: str, loser: str, stage: Stage, plan: DealPlan) -> list[Scenario]:
    """One audit game a table size: the kit deals by ``plan`` so that the cheat wins the
    hand as played, the taker bids a garde, and ``what`` happens (said after "at N, ");
    only the end-of-hand audit turns the line against ``loser``'s side."""
    return [
        Scenario(
            f"{name}-{n}",
            f"at {n}, {what}",
            f"finished, with the audit's line: {loser} loses the hand",
            n,
            stage,
            bid=Contract.GARDE,
            deals=2,
            plan=plan,
            found_by=AUDIT,
        )
        for n in (3, 4, 5)
    ]


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "honest-3",
        "an honest game of one deal at three; the kit takes a garde when it can",
        "finished",
        3,
        bid=Contract.GARDE,
    ),
    Scenario(
        "honest-4",
        "an honest game of one deal at four; the implementation joins last",
        "finished",
        4,
        member=3,
        bid=Contract.GARDE,
    ),
    Scenario(
        "honest-5",
        "an honest game of one deal at five (a king is called); the implementation sits third",
        "finished",
        5,
        member=2,
        bid=Contract.GARDE,
    ),
    Scenario(
        "bad-shuffle",
        "the last player of the seat draw sends a shuffle that is not the one its proof proves",
        _refused("shuffle"),
        4,
        bad_shuffle,
    ),
    Scenario(
        "duplicated-card",
        "a player's shuffle of the first deal holds one card twice and lacks another",
        _refused("shuffle"),
        3,
        duplicated_card,
    ),
    Scenario(
        "wrong-share",
        "a player's decryption shares of the seat draw are swapped: real shares, wrong cards",
        _refused("shares"),
        3,
        wrong_share,
        member=2,
    ),
    Scenario(
        "card-not-held",
        "a player plays a card from the implementation's hand",
        _refused("play"),
        3,
        card_not_held,
        bid=Contract.GARDE_SANS,
        deals=4,
    ),
    Scenario(
        "out-of-turn",
        "a player sends its deal shares while another player is expected",
        _refused("shares"),
        3,
        out_of_turn,
    ),
    Scenario(
        "equivocation",
        "a player signs two different key shares for the same place in the game",
        _refused(EQUIVOCATION),
        3,
        equivocation,
    ),
    Scenario(
        "replay",
        "a player's old shuffle is relayed again (to ignore), then its key share of the "
        "seat draw is signed again for the first deal",
        _refused("key"),
        3,
        replay,
    ),
    Scenario(
        "forged-sender",
        "a player signs a key share in another player's name; the real one follows",
        "finished (the forgery is ignored)",
        3,
        forged_sender,
    ),
    Scenario(
        "rogue-key",
        "the last player of the seat draw picks its key to cancel the others' keys",
        _refused("key"),
        3,
        rogue_key,
    ),
    Scenario(
        "false-petit-sec",
        "a player announces a petit sec it does not hold",
        _refused("petit_sec"),
        3,
        false_petit_sec,
        deals=4,
    ),
    Scenario(
        "false-poignee",
        "a player shows a poignée with cards that are not trumps",
        _refused("poignee"),
        3,
        false_poignee,
        bid=Contract.GARDE_SANS,
        deals=4,
    ),
    *_audit_games(
        "illegal-ecart",
        "the kit deals its taker the Excuse and the highest trumps and a king in the chien; "
        "he takes a garde and puts the king in the écart, hidden, then wins",
        "the taker",
        illegal_ecart,
        master_of_trumps,
    ),
    *_audit_games(
        "false-poignee-excuse",
        "the kit's taker, dealt the Excuse and the highest trumps, shows a poignée with the "
        "Excuse while holding trumps he does not show, then wins",
        "the taker",
        excuse_poignee,
        master_of_trumps,
    ),
    *_audit_games(
        "revoke",
        "the kit deals one of its defenders every high trump, so the defence wins every "
        "trick it must; another defender revokes at its first card",
        "the defence",
        revoke,
        trump_wall,
    ),
    *(
        Scenario(
            f"leaves-{n}",
            f"at {n}, one of the kit's players leaves mid-hand (silent at its turn to play): "
            "the others claim its absence, release its key and its stand-in plays its cards",
            "finished, the hand played out by the stand-in",
            n,
            member=(1, 3, 2)[n - 3],
            bid=Contract.GARDE,
            deals=2,
            leaves=mid_hand,
        )
        for n in (3, 4, 5)
    ),
    Scenario(
        "wrong-release",
        "one of the kit's players leaves mid-hand; in the release of its key another sends "
        "a value that is not its piece",
        _refused("release"),
        4,
        wrong_release,
        member=2,
        bid=Contract.GARDE,
        deals=2,
        leaves=before_two_releasers,
        min_players=4,
    ),
    Scenario(
        "bad-escrow",
        "a player's escrow of its key share does not add up to that key share",
        _refused("escrow"),
        3,
        bad_escrow_sum,
    ),
    Scenario(
        "badly-sealed-piece",
        "a player seals the implementation's piece of its escrow wrong (the others' right)",
        "violation by the owner: escrow, after the implementation's complaint",
        3,
        badly_sealed_piece,
    ),
    Scenario(
        "false-complaint",
        "a player complains, in place of its shuffle, of an escrow piece sealed right",
        _refused("complaint"),
        3,
        false_complaint,
    ),
    Scenario(
        "wrong-score-line",
        "a player signs a score line that moves ten points to itself",
        _refused("score"),
        3,
        wrong_score_line,
        deals=4,
    ),
)
"""Every scenario, in the order the kit plays them."""


def by_name(names: list[str] | None) -> list[Scenario]:
    """The scenarios named (all when ``None``); raises ``KeyError`` naming an unknown one."""
    if not names:
        return list(SCENARIOS)
    known = {s.name: s for s in SCENARIOS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise KeyError(", ".join(unknown))
    return [known[n] for n in names]
