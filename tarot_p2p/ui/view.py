"""What the page shows, computed from this seat's peer: a JSON-able dictionary.

Why one function builds it all: the page must never receive another seat's hidden cards,
so everything it gets comes from the rules engine's observation *for this seat*
(``State.observation``), the public hand machine (open cards, the names, the phase) and
the agreed score sheet; nothing reads another seat's cards, so nothing can leak them.
The words are chosen here too (:mod:`.i18n`); the page's script only places them.

:class:`Story` remembers what an observation forgets: the lines of the table's log, the
result of the last deal (the hand machine moves on to the next deal as soon as the
scores are signed), and when the partner became known.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from tarot_p2p.protocol.peer import Dealt, Peer, PeerEvent
from tarot_p2p.protocol.table import (
    ROUND_TYPE,
    ChienShown,
    EngineAction,
    HandEnded,
    Phase,
    SeatsDrawn,
)
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.audit import AuditReport
from tarot_p2p.rules.cards import (
    EXCUSE,
    KING_MASK,
    RANK_OF,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
    Card,
    CardSet,
    cards_of,
)
from tarot_p2p.rules.scoring import Side, explain_hand
from tarot_p2p.rules.sheet import SCORED, LineKind, ScoreSheet
from tarot_p2p.rules.state import IllegalAction, Observation, State, game_of
from tarot_p2p.rules.state import Phase as Step
from tarot_p2p.ui.chart import COLOURS, totals_chart
from tarot_p2p.ui.i18n import Words

LOG_LINES: Final = 14
CONTRACT_KEYS: Final = ("pass", "prise", "garde", "garde_sans", "garde_contre")
_SUIT_ORDER: Final = (0, 1, 3, 2)
"""Spades, hearts, clubs, diamonds: black and red alternate along the hand."""


def hand_order(c: Card) -> tuple[int, int]:
    """Sort key of a hand: suits with colours alternating, then trumps, the Excuse last."""
    suit = SUIT_OF[c]
    if suit == TRUMP_SUIT:
        return (4, RANK_OF[c])
    if c == EXCUSE:
        return (5, 0)
    return (_SUIT_ORDER.index(suit), RANK_OF[c])


def sorted_cards(cards: CardSet) -> list[Card]:
    return sorted(cards_of(cards), key=hand_order)


TURN_KEYS: Final = {Phase.BIDDING: "turn_bid", Phase.CALL: "turn_call", Phase.ECART: "turn_ecart"}
"""What another seat is awaited for, by phase ("Alice to bid."); else ``turn_of`` (to play)."""


@dataclass(slots=True)
class Pending:
    """A decision the page is asked for. ``serial`` tells a click on the current question
    from a late click on an earlier one; ``ecart`` holds the cards chosen so far."""

    serial: int
    actions: list[a.Action]
    ecart_size: int = 0
    ecart: list[Card] = field(default_factory=list)
    trial: State | None = None
    """For the écart: the engine with the chosen discards applied (its legal actions are
    the cards still allowed)."""
    clicks: int = 0
    """For the écart: how many of the pages' choices and undos were taken in. A page that
    has sent more shows its own choices already, and waits for the view that holds them:
    an older view in flight would put a card chosen back into the hand, under the
    player's next click."""

    @property
    def kind(self) -> str:
        if self.ecart_size:
            return "ecart"
        first = self.actions[0] if self.actions else None
        if isinstance(first, a.Bid | a.PetitSec):
            return "bid"
        if isinstance(first, a.CallCard):
            return "call"
        if isinstance(first, a.Go):
            return "go"
        return "play"

    def ecart_choices(self) -> CardSet:
        """Cards that may be added to the écart now."""
        if self.trial is None or len(self.ecart) >= self.ecart_size:
            return 0
        out = 0
        for act in self.trial.legal_actions():
            if isinstance(act, a.Discard):
                out |= 1 << act.card
        return out


@dataclass(frozen=True, slots=True)
class Notice:
    """A status the runner reports (a player slow, reconnecting, back); ``left``: the
    seconds before the others may claim the awaited seat absent (``None``: no claim)."""

    kind: str
    seat: int | None
    name: str | None
    seconds: float
    left: float | None = None


WHAT_KEYS: Final = {
    Phase.BIDDING: "what_bid",
    Phase.CALL: "what_call",
    Phase.ECART: "what_ecart",
    Phase.PLAY: "what_play",
}
"""What a seat is awaited for, by phase ("to bid"); a computed message is its program's."""


def what_words(w: Words, phase: Phase | None, mine: bool) -> str:
    """What the awaited seat has to do, in words ("bid", "answer (your program)")."""
    if phase is None:
        return w("what_speak")
    key = WHAT_KEYS.get(phase, "what_answer")
    return w(key + "_you" if key == "what_answer" and mine else key)


def action_label(words: Words, peer: Peer, act: a.Action) -> str:
    """How a choice reads on its button (or in the log)."""
    if isinstance(act, a.Bid):
        return words(CONTRACT_KEYS[act.contract])
    if isinstance(act, a.PetitSec):
        return words("petit_sec")
    if isinstance(act, a.CallCard):
        return words("call", card=words.card(act.card))
    if isinstance(act, a.Go):
        if act.petit_chelem:
            return words("go_petit_chelem")
        return words("go_chelem" if act.chelem else "go")
    if isinstance(act, a.Poignee):
        n = act.cards.bit_count()
        thresholds = game_of(peer.config).poignee_thresholds
        level = thresholds.index(n) + 1 if n in thresholds else 1
        return words("poignee", level=words(f"poignee_{level}"), n=n)
    if isinstance(act, a.Misere):
        return words("misere_trump" if act.kind is a.MisereKind.TRUMP else "misere_head")
    if isinstance(act, a.Play):
        return words.card(act.card)
    return words.card(act.card) if act.card != a.HIDDEN else "?"


class Story:
    """What the page keeps between observations (see the module docstring)."""

    def __init__(self, words: Words) -> None:
        self.words = words
        self.log: deque[str] = deque(maxlen=LOG_LINES)
        self.result: dict[str, Any] | None = None
        """The last agreed deal's score panel."""
        self._audit: tuple[int, AuditReport, State] | None = None
        self._tricks_told = (0, 0)
        self.partner_news: tuple[int, str] | None = None
        """(deal, words) once this seat knows who the partner is (or that there is none)."""
        self.refused: str | None = None
        self.notice: Notice | None = None
        """The runner's last status notice, until a message comes."""
        self.coming_back: set[int] = set()
        """Seats that asked for the records they missed (reconnecting) since the last
        message: waiting for one of them says so."""
        self.stood_in: set[int] = set()
        """Hands whose absent seat the stand-in plays, once the log said so."""
        self.unheard: set[int] = set()
        """Hands in which the table told us our own messages were not getting through."""

    def take_notice(self, notice: Notice, hand: int | None = None) -> None:
        """Keep the runner's notice (in ``hand``); ``unheard`` and ``overtaken`` mean our
        messages of that hand were lost on the way, which its score panel then says."""
        if notice.kind == "back" and notice.seat is not None:
            self.coming_back.add(notice.seat)
        if notice.kind in ("unheard", "overtaken") and hand is not None:
            self.unheard.add(hand)
        self.notice = notice

    def record(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        """Take in the events of one accepted message (the table moves: the waiting is
        over)."""
        self.notice = None
        self.coming_back.clear()
        w = self.words
        names = peer.names
        hand = peer.hand
        for event in events:
            if isinstance(event, SeatsDrawn):
                self.log.append(w("seats_drawn", name=names[0]))
            elif isinstance(event, Dealt):
                self.log.append(f"— {w('deal')} {hand.hand} —")
            elif isinstance(event, ChienShown):
                cards = ", ".join(w.card(c) for c in sorted_cards(event.cards))
                self.log.append(w("chien_of", cards=cards))
            elif isinstance(event, EngineAction):
                self._tell_action(peer, event.seat, event.action)
            elif isinstance(event, HandEnded):
                self.result = self._result(peer, event)
                self.log.append(w("hand_agreed", hand=event.hand))
        engine = hand.engine
        if hand.audit is not None and engine is not None:
            self._audit = (hand.hand, hand.audit, engine)
        self._tell_stand_in(peer)
        self._tell_tricks(peer)
        self._tell_partner(peer)

    def _tell_stand_in(self, peer: Peer) -> None:
        """The first message after a seat was claimed absent: the log says the stand-in
        takes its hand."""
        hand = peer.hand
        absent = hand.abandoned
        if absent is None or hand.hand in self.stood_in:
            return
        self.stood_in.add(hand.hand)
        w = self.words
        if absent == peer.seat:
            self.log.append(w("stand_in_log_you"))
        else:
            self.log.append(w("stand_in_log", name=peer.names[absent]))

    def _tell_action(self, peer: Peer, seat: int, act: a.Action) -> None:
        w = self.words
        name = peer.names[seat]
        if isinstance(act, a.Bid):
            self.log.append(w("bid_of", name=name, bid=w(CONTRACT_KEYS[act.contract])))
        elif isinstance(act, a.PetitSec):
            self.log.append(w("petit_sec_of", name=name))
        elif isinstance(act, a.CallCard):
            self.log.append(w("called", card=w.card(act.card)))
        elif isinstance(act, a.Go) and act.chelem:
            self.log.append(w("chelem_announced", name=name))
        elif isinstance(act, a.Go) and act.petit_chelem:
            self.log.append(w("petit_chelem_announced", name=name))
        elif isinstance(act, a.Poignee):
            shown = ", ".join(
                w("excuse") if c == EXCUSE else str(RANK_OF[c]) for c in sorted_cards(act.cards)
            )
            self.log.append(w("poignee_of", name=name, cards=shown))
        elif isinstance(act, a.Misere):
            self.log.append(w("misere_of", name=name, kind=action_label(w, peer, act)))
        elif isinstance(act, a.Play):
            self.log.append(w("played", name=name, card=w.card(act.card)))

    def _tell_tricks(self, peer: Peer) -> None:
        engine = peer.hand.engine
        if engine is None:
            return
        hand, told = self._tricks_told
        if hand != peer.hand.hand:
            told = 0
        for number, trick in enumerate(engine.tricks[told:], told + 1):
            self.log.append(self.words("takes", name=peer.names[trick.winner], n=number))
        self._tricks_told = (peer.hand.hand, len(engine.tricks))

    def _tell_partner(self, peer: Peer) -> None:
        state = peer.private_state()
        news = self.partner_news
        if state is None or peer.seat is None or (news and news[0] == peer.hand.hand):
            return
        obs = state.observation(peer.seat)
        if obs.partner_known and obs.taker is not None and obs.called_card is not None:
            self.partner_news = (peer.hand.hand, partner_text(self.words, peer, obs))
            self.log.append(self.partner_news[1])

    def _result(self, peer: Peer, ended: HandEnded) -> dict[str, Any]:
        """The score panel of the deal that just ended."""
        w = self.words
        names = peer.names
        players = [{"name": names[s], "score": ended.scores[s]} for s in range(len(ended.scores))]
        panel: dict[str, Any] = {"hand": ended.hand, "rows": [], "players": players}
        if ended.absent is not None:
            # The hand was played out by the stand-in and scored as played: the whole
            # panel, and above it who was away, why, and what that means.
            panel["stand_in"] = self.stand_in_text(peer, ended)
            mine = ended.absent == peer.seat
            panel["stand_in_title"] = (
                w("abandon_title_you") if mine else w("abandon_title", name=names[ended.absent])
            )
        if ended.void is not None:
            key = "void_petit_sec" if ended.void is LineKind.PETIT_SEC else "void_all_pass"
            panel["title"] = w(key)
            return panel
        audit = self._audit[1] if self._audit and self._audit[0] == ended.hand else None
        outcome = audit.outcome if audit is not None else None
        if outcome is None:
            panel["title"] = w("misere_deal")
            return panel
        steps = explain_hand(peer.config, outcome)
        made = w("made_by" if steps.made else "failed_by", n=abs(steps.difference))
        contract = w(CONTRACT_KEYS[int(outcome.contract)])
        panel["title"] = f"{names[outcome.taker]} — {contract} — {made}"
        panel["made"] = steps.made
        half = outcome.attack_half_points
        comma = "," if w.lang == "fr" else "."
        points = f"{half // 2}{comma}5" if half % 2 else str(half // 2)

        bout = outcome.petit_au_bout
        petit = "0"  # nobody took it: a bare 0, as the poignées' and chelem's rows say
        if bout is not None:
            who = w("attack" if bout is Side.ATTACK else "defence")
            petit = f"{who} {_signed(steps.petit_au_bout)}"

        rows = [
            (w("score_contract"), contract),
            (w("score_taker"), names[outcome.taker]),
        ]
        if peer.config.players == 5:
            partner = outcome.partner
            rows.append(
                (
                    w("score_partner"),
                    names[partner] if partner is not None else w("alone_short"),
                )
            )
        rows += [
            (w("score_oudlers"), str(outcome.attack_oudlers)),
            (w("score_points"), points),
            (w("score_needed"), str(steps.threshold)),
            (w("score_result"), made),
            (w("score_base"), _signed(steps.base)),
            (w("score_petit"), petit),
            (w("score_poignees"), _signed(steps.poignees)),
            (w("score_chelem"), _signed(steps.chelem)),
        ]
        if any(steps.miseres):
            rows.append((w("score_miseres"), " ".join(_signed(m) for m in steps.miseres)))
        if outcome.offender is not None:
            rows.append((w("score_offence"), names[outcome.offender]))
        rows.append((w("score_hand"), _signed(steps.hand_score)))
        panel["rows"] = [{"label": k, "value": v} for k, v in rows]
        return panel

    def stand_in_text(self, peer: Peer, ended: HandEnded) -> str:
        """Why the absent seat's hand was played by the stand-in, in plain words: silent
        for the forfeit time at its turn to do what, or (ours) messages lost at the hub.

        What it was awaited for is the phase the abandon record interrupted, which the
        table keeps from the transcript: the same words whether this program followed the
        hand throughout or was started again after the abandon (its story then empty)."""
        w = self.words
        absent, hand = ended.absent, ended.hand
        assert absent is not None
        mine = absent == peer.seat
        values = {
            "time": w.duration(peer.config.forfeit_after),
            "what": what_words(w, ended.absent_in, mine),
        }
        if not mine:
            return w("stand_in_other", name=peer.names[absent], **values)
        return w("stand_in_you_unheard" if hand in self.unheard else "stand_in_you", **values)


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def partner_text(w: Words, peer: Peer, obs: Observation) -> str:
    assert obs.taker is not None and obs.called_card is not None
    names = peer.names
    if obs.partner is None:
        return w("alone_you") if obs.seat == obs.taker else w("alone", name=names[obs.taker])
    if obs.partner == obs.seat:
        return w("partner_you", taker=names[obs.taker], card=w.card(obs.called_card))
    return w("partner_is", name=names[obs.partner])


def sheet_view(words: Words, sheet: ScoreSheet | None) -> dict[str, Any] | None:
    if sheet is None:
        return None
    names = list(sheet.names)
    lines = [
        {
            "number": line.number,
            "dealer": names[line.dealer],
            "scores": [_signed(s) if line.kind in SCORED else "–" for s in line.scores],
            "note": line.note or line.kind.value.replace("_", " "),
        }
        for line in sheet.lines
    ]
    over = verdict(words, names, sheet.totals) if sheet.is_over else None
    return {
        "names": names,
        "colours": [COLOURS[i % len(COLOURS)] for i in range(len(names))],
        "lines": lines,
        "totals": [_signed(t) for t in sheet.totals],
        "chart": totals_chart(sheet, words) if sheet.lines else "",
        "over": over,
    }


def verdict(words: Words, names: Sequence[str], totals: Sequence[int]) -> str:
    """How the game ended, in plain words: one winner, several sharing the win, or nobody.

    Why not just list the best totals' names: when every player has the same total (a
    single deal everybody passed, or a draw) that list is the whole table, and "Winner:"
    followed by every name reads as nonsense to the players.
    """
    best = max(totals)
    top = [names[s] for s, total in enumerate(totals) if total == best]
    if len(top) == len(totals):
        return words("game_over_level")
    if len(top) == 1:
        return words("game_over", names=top[0])
    listed = f"{', '.join(top[:-1])} {words('and')} {top[-1]}"
    return words("game_over_shared", names=listed)


def trust_view(words: Words, peer: Peer) -> list[str]:
    """The table's trust state in plain words: what this peer has checked so far."""
    hand = peer.hand
    lines = []
    if len(peer.transcript):
        lines.append(words("trust_messages", n=len(peer.transcript)))
    shuffled = hand.hand > 0 and hand.phase not in (Phase.KEYS, Phase.SHUFFLE)
    if shuffled or (peer.sheet is not None and peer.sheet.lines):
        lines.append(words("trust_shuffle", n=peer.config.seats))
        lines.append(words("trust_cards"))
    if peer.sheet is not None and peer.sheet.lines:
        lines.append(words.count("trust_hands", len(peer.sheet.lines)))
    return lines or [words("trust_none")]


def _seat_cards(obs: Observation) -> list[dict[str, int]]:
    return [{"seat": s, "card": c} for s, c in zip(obs.trick_seats, obs.trick, strict=True)]


def trick_seats(state: State, leader: int, n: int) -> list[int]:
    """Who played each of the ``n`` cards of a trick led by ``leader``."""
    seats = [leader]
    while len(seats) < n:
        seats.append(state.next_seat[seats[-1]])
    return seats


def lobby_view(
    w: Words, join_command: str | None, seated: Sequence[str] = (), missing: int | None = None
) -> dict[str, Any]:
    """While the table fills up (no peer yet): what the others type to join, if known, and
    at the host who sits already and how many are awaited (it changes as players come and
    go)."""
    if missing is None:
        status = w("waiting_table")
    elif missing == 0:
        status = w("draw")  # the set-up is on its way: the seats are drawn next
    else:
        status = w.count("waiting_more", missing)
    return {
        "lobby": True,
        "lang": w.lang,
        "status": status,
        "join_help": w("join_help") if join_command else None,
        "join_command": join_command,
        "seated": w("seated", names=", ".join(seated)) if seated else None,
    }


def build_view(peer: Peer, story: Story, pending: Pending | None) -> dict[str, Any]:
    """Everything the page shows now, for this seat only."""
    w = story.words
    hand = peer.hand
    names = list(peer.names)
    me = peer.seat
    view: dict[str, Any] = {
        "lang": w.lang,
        "hand_number": hand.hand,
        "names": names,
        "me": me,
        "players": peer.config.seats,
        "log": list(story.log),
        "result": story.result,
        "sheet": sheet_view(w, peer.sheet),
        "trust": trust_view(w, peer),
        "notice": _notice_view(w, peer, story),
        "refused": w("refused", reason=story.refused) if story.refused else None,
        "hand": [],
        "decision": None,
        "over": peer.sheet is not None and peer.sheet.is_over,
    }
    state = peer.private_state()
    if hand.hand == 0 or me is None:
        view["status"] = w("draw")
        return view
    view["dealer"] = hand.dealer
    if state is None or hand.engine is None:
        view["status"] = w("dealing", hand=hand.hand)
        view["counts"] = [0] * len(names)
        return view
    obs = state.observation(me)
    view["hand"] = sorted_cards(obs.hand)
    view["counts"] = list(obs.hand_sizes)
    turn = hand.expected_sender() if hand.phase not in ROUND_TYPE else None
    view["turn"] = turn
    bids = {s: w(CONTRACT_KEYS[c]) for s, c in obs.bids}
    view["bids"] = {str(s): b for s, b in bids.items()}
    view["contract"] = _contract_view(w, peer, obs)
    # Once the taker has made the écart the chien is no longer on the table: its cards are
    # in his hand or put aside. He sees instead, until the first card, the écart lying in
    # front of him (the cards he just put aside, which count for him). The others keep the
    # chien in view until then, said to be the taker's now: a quick taker (a bot) makes his
    # écart at once, and this is their only chance to read which cards he took.
    made = obs.phase > Step.DISCARD
    gone = made and obs.taker == me
    view["chien"] = sorted_cards(obs.chien) if obs.chien is not None and not gone else None
    view["chien_caption"] = (
        w("chien_taken", name=names[obs.taker]) if made and obs.taker is not None else w("chien")
    )
    view["ecart_shown"] = sorted_cards(obs.ecart) if obs.taker != me else []
    view["ecart_mine"] = (
        sorted_cards(obs.ecart) if obs.taker == me and obs.chien is not None and made else []
    )
    view["poignees"] = [
        {"seat": s, "cards": sorted_cards(c), "text": poignee_text(w, c)} for s, c in obs.poignees
    ]
    view["trick"] = _seat_cards(obs)
    view["tricks"] = [
        {
            "number": i + 1,
            "winner": t.winner,
            "cards": [
                {"seat": s, "card": c}
                for s, c in zip(trick_seats(state, t.leader, len(t.cards)), t.cards, strict=True)
            ],
        }
        for i, t in enumerate(obs.tricks)
    ]
    if view["over"]:
        view["status"] = view["sheet"]["over"]
    elif turn is None:
        view["status"] = w("dealing", hand=hand.hand)
    elif turn != me or pending is None:
        view["status"] = w(TURN_KEYS.get(hand.phase, "turn_of"), name=names[turn])
    else:
        view["decision"] = _decision_view(w, peer, me, pending)
        view["status"] = w(f"short_{pending.kind}")
    if pending is not None and pending.kind == "ecart":
        view["hand"] = [c for c in view["hand"] if c not in pending.ecart]
    return view


def _contract_view(w: Words, peer: Peer, obs: Observation) -> dict[str, Any] | None:
    if obs.taker is None or obs.contract is None:
        return None
    names = peer.names
    out: dict[str, Any] = {
        "taker": obs.taker,
        "text": w("contract", name=names[obs.taker], contract=w(CONTRACT_KEYS[obs.contract])),
        "partner": obs.partner,
        "partner_text": None,
        "called": obs.called_card,
    }
    if obs.called_card is not None:
        out["called_text"] = w("called", card=w.card(obs.called_card))
        out["partner_text"] = (
            partner_text(w, peer, obs) if obs.partner_known else w("partner_unknown")
        )
    return out


def poignee_text(w: Words, cards: CardSet) -> str:
    """A poignée as the phone shows it under a seat: its trumps' numbers on a line ("1 4 5
    … 21 Excuse"), where fifteen small cards wrapped in a narrow seat made it taller than
    the trick, and pushed the trick under the screen's top edge."""
    return " ".join(w("excuse") if c == EXCUSE else str(RANK_OF[c]) for c in sorted_cards(cards))


def _decision_view(w: Words, peer: Peer, seat: int, pending: Pending) -> dict[str, Any]:
    kind = pending.kind
    out: dict[str, Any] = {"serial": pending.serial, "kind": kind, "options": [], "cards": {}}
    if kind == "ecart":
        choices = pending.ecart_choices()
        lines = [w("you_ecart", n=pending.ecart_size)]
        lines.append(w("ecart_chosen", k=len(pending.ecart), n=pending.ecart_size))
        if choices & TRUMP_MASK:
            lines.append(w("ecart_trumps"))
        out["prompt"] = " ".join(lines)
        out["chosen"] = list(pending.ecart)
        out["need"] = pending.ecart_size
        out["clicks"] = pending.clicks
        out["cards"] = {str(c): c for c in cards_of(choices)}
        out["why"] = why_not_discard(w, pending, seat)
        return out
    prompt_key = {"bid": "you_bid", "call": "you_call", "go": "you_go", "play": "you_play"}
    prompt = w(prompt_key[kind])
    for index, act in enumerate(pending.actions):
        if isinstance(act, a.Play):
            out["cards"][str(act.card)] = index
        else:
            option: dict[str, Any] = {"id": index, "label": action_label(w, peer, act)}
            if isinstance(act, a.CallCard):
                option["card"] = act.card
            if isinstance(act, a.Poignee):
                option["shows"] = sorted_cards(act.cards)
            out["options"].append(option)
    if kind == "play" and out["options"]:
        prompt += " " + w("you_announce")
    out["prompt"] = prompt
    state = peer.private_state()
    if kind == "play" and state is not None:
        out["why"] = why_not_play(w, state, seat)
    return out


PLAY_REFUSALS: Final = {
    "follow-suit": "why_follow",
    "must-trump": "why_must_trump",
    "overtrump": "why_overtrump",
}
"""The words for each rule of the play the engine names when it refuses a card."""


def why_not_play(w: Words, state: State, seat: int) -> dict[str, str]:
    """Why each card of the hand that may not be played now may not (card -> words).

    The engine says which rule a card breaks (it refuses the play, on a copy, and names
    the rule); the observation gives the words their facts: the suit led, the highest
    trump in the trick."""
    obs = state.observation(seat)
    led = next((SUIT_OF[c] for c in obs.trick if c != EXCUSE), None)
    high = max((RANK_OF[c] for c in obs.trick if SUIT_OF[c] == TRUMP_SUIT), default=0)
    suit = w.suit(led) if led is not None and led != TRUMP_SUIT else ""
    out = {}
    for c in cards_of(obs.hand & ~state.legal_play_mask()):
        try:
            state.clone().apply_action(a.PLAY[c])
        except IllegalAction as refusal:
            key = PLAY_REFUSALS.get(refusal.rule, "why_not_now")
            if key == "why_must_trump" and led == TRUMP_SUIT:
                key = "why_trump_led"
            out[str(c)] = w(key, suit=suit, n=high)
    return out


def why_not_discard(w: Words, pending: Pending, seat: int) -> dict[str, str]:
    """Why each card left in the hand may not go into the écart now (card -> words), as
    the engine refuses it on a copy of the écart made so far."""
    trial = pending.trial
    if trial is None:
        return {}
    hand = trial.observation(seat).hand
    if len(pending.ecart) >= pending.ecart_size:
        return {str(c): w("why_ecart_full") for c in cards_of(hand)}
    out = {}
    for c in cards_of(hand & ~pending.ecart_choices()):
        try:
            trial.clone().apply_action(a.DISCARD[c])
        except IllegalAction as refusal:
            key = "why_not_now"
            if refusal.rule == "ecart-trump":
                key = "why_ecart_trump"
            elif refusal.rule == "ecart-king-oudler":
                key = "why_ecart_king" if (KING_MASK >> c) & 1 else "why_ecart_oudler"
            out[str(c)] = w(key)
    return out


def notice_text(w: Words, peer: Peer, story: Story) -> str | None:
    """The runner's status notice in plain words ("Waiting for West (reconnecting,
    0:42)"), or ``None``: no notice, or of a kind this version does not know."""
    notice = story.notice
    if notice is None:
        return None
    name = notice.name
    if name is None and notice.seat is not None and notice.seat < len(peer.names):
        name = peer.names[notice.seat]
    key = f"notice_{notice.kind}"
    time = notice.seconds
    mine = notice.seat is not None and notice.seat == peer.seat
    if notice.kind in ("waiting", "turn") and notice.left is not None:
        # The countdown every seat sees alike, the awaited one first ("you have 0:25 to bid").
        key += "_left" if notice.kind == "waiting" and notice.left > 0 else ""
        key += "_over" if notice.left <= 0 else ""
        time = notice.left
    elif notice.kind == "turn":
        key = "notice_turn_plain"
    elif notice.kind == "waiting" and notice.seat in story.coming_back:
        key = "notice_waiting_back"
    elif notice.kind == "claimed" and mine:
        key = "notice_claimed_you"
    if key not in w.table:
        return None
    what = what_words(w, peer.hand.phase, mine)
    if notice.left is not None:
        time = math.ceil(time)  # a countdown shows 0:25 until 25 s are left, not 0:24
    return w(key, name=name or w("someone"), time=w.clock(time), what=what)


def notice_template(w: Words, peer: Peer, story: Story) -> str | None:
    """The countdown's words with ``{time}`` left in, for the page to tick each second."""
    notice = story.notice
    if notice is None or notice.left is None or notice.left <= 0:
        return None
    if notice.kind not in ("waiting", "turn"):
        return None
    key = "notice_waiting_left" if notice.kind == "waiting" else "notice_turn"
    name = notice.name or w("someone")
    mine = notice.seat is not None and notice.seat == peer.seat
    return w(key, name=name, time="{time}", what=what_words(w, peer.hand.phase, mine))


def _notice_view(w: Words, peer: Peer, story: Story) -> dict[str, Any] | None:
    text = notice_text(w, peer, story)
    notice = story.notice
    if notice is None or text is None:
        return None
    out: dict[str, Any] = {"kind": notice.kind, "text": text}
    template = notice_template(w, peer, story)
    if template is not None and notice.left is not None:
        out["template"] = template
        out["left"] = notice.left
    return out
