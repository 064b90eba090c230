"""A human at a terminal as a :class:`~tarot_p2p.seat.runner.Policy`: plain prompts.

Why so plain: it is the smallest client that lets a person play a networked game, for
those who prefer a terminal or have no browser. It tells the same story as the page
(:mod:`tarot_p2p.ui.view` computes the partner and the score detail for both): the
contract and taker above every question, who played which card in each trick, the last
trick on demand (``l``), the partner as soon as this seat may know him, suit symbols
(in colour on a colour terminal), cards typed by name (``KH``, ``K♥``, ``T21``, ``EX``)
as well as by number, the écart in one line with a confirmation. Input is read in a
worker thread so the connection keeps being served while the player thinks; what the
table says meanwhile (a countdown, a player coming back, the tricks told again after a
restart) goes on lines of its own below the question, which is then asked again, so the
player never types after a line that is not the question.

The other players chose their names: each name, and each line of the story that holds one,
is escaped (:func:`~tarot_p2p.protocol.names.for_terminal`) before it is printed, so the
only escape sequences this module prints are its own colours.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, Final

import trio

from tarot_p2p.protocol.names import for_terminal
from tarot_p2p.protocol.peer import Dealt, Peer, PeerEvent
from tarot_p2p.protocol.table import ChienShown, EngineAction, HandEnded, Phase, SeatsDrawn
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import (
    EXCUSE,
    RANK_OF,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
    Card,
    CardSet,
    card_name,
    mask_of,
    parse_card,
)
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.rules.state import IllegalAction, State
from tarot_p2p.seat.runner import Decision, Ecart
from tarot_p2p.ui.i18n import Words
from tarot_p2p.ui.view import (
    CONTRACT_KEYS,
    Notice,
    Story,
    action_label,
    hand_order,
    notice_text,
    partner_text,
    sorted_cards,
    trick_seats,
)

SYMBOLS: Final = ("♠", "♥", "♦", "♣")
_FACES: Final = {11: "J", 12: "C", 13: "Q", 14: "K"}
_RED: Final = "\x1b[31m"
_RESET: Final = "\x1b[0m"
TELL_EVERY: Final = 15.0
"""Seconds of waiting between two repeats of the same notice."""


def card_text(c: Card, colour: bool = False) -> str:
    """``K♥``, ``10♠``, ``T21``, ``Excuse``; hearts and diamonds red when ``colour``."""
    if c == EXCUSE:
        return "Excuse"
    if SUIT_OF[c] == TRUMP_SUIT:
        return f"T{RANK_OF[c]}"
    rank = RANK_OF[c]
    text = f"{_FACES.get(rank, str(rank))}{SYMBOLS[SUIT_OF[c]]}"
    return f"{_RED}{text}{_RESET}" if colour and SUIT_OF[c] in (1, 2) else text


def describe_hand(cards: CardSet, colour: bool = False) -> str:
    """The cards grouped by suit (colours alternating), then trumps and the Excuse."""
    groups: dict[int, list[str]] = {}
    for c in sorted_cards(cards):
        groups.setdefault(SUIT_OF[c] if c != EXCUSE else TRUMP_SUIT, []).append(
            card_text(c, colour)
        )
    return "  ".join(" ".join(g) for g in groups.values()) or "(none)"


def read_card(token: str) -> Card:
    """A card typed by name: ``KH``, ``kh``, ``K♥``, ``10S``, ``T21``, ``EX``, ``Excuse``."""
    text = token.strip().upper()
    for letter, symbol in zip("SHDC", SYMBOLS, strict=True):
        text = text.replace(symbol, letter)
    if text == "EXCUSE":
        text = "EX"
    return parse_card(text)


def _write(text: str) -> None:
    """``text`` at the terminal, the line left open for the player's answer."""
    sys.stdout.write(text)
    sys.stdout.flush()


def _colour_terminal() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


_READING: list[int] = [0]
"""Threads blocked reading a line of the player's (see :meth:`TerminalPolicy._read`)."""


def reading() -> bool:
    """Whether a thread is still blocked reading the player's next line: the program must
    then leave with ``os._exit``, since Python cannot finish while a thread holds the
    standard input's lock (it aborts: "could not acquire lock for <stdin>")."""
    return _READING[0] > 0


class _Line:
    """A line the player is typing: ``text`` once ``done`` (``None``: end of input)."""

    def __init__(self) -> None:
        self.done = trio.Event()
        self.text: str | None = None
        self.error: BaseException | None = None


class TerminalPolicy:
    """Asks the player at the terminal; tells what the other seats do."""

    def __init__(
        self,
        ask: Callable[[str], str] = input,
        say: Callable[[str], None] = print,
        colour: bool | None = None,
        write: Callable[[str], None] | None = None,
    ) -> None:
        self._ask = ask
        self._print = say
        self._write = write or (_write if say is print else say)
        """Shows a question's prompt again, the line left open (a test's ``say`` gets it
        as a line)."""
        self._prompt: str | None = None
        """The prompt of the question whose answer is being read."""
        self._at_prompt = False
        """Whether the prompt is the last thing shown: the player's line is open after it."""
        self._said = 0
        """Lines said so far (to know whether a status or a move was told during a read)."""
        self.colour = _colour_terminal() if colour is None else colour
        self.words = Words("en")
        self.story = Story(self.words)
        self._tricks_told = (0, 0)
        """(hand, number of its tricks already told)."""
        self._partner_told: tuple[int, str] | None = None
        self._last_notice: tuple[str, int | None, float] | None = None
        self._hand_shown: tuple[int, CardSet] | None = None
        """(hand, the cards last printed as ours): not printed again while unchanged."""
        self._line: _Line | None = None
        """The line being read, if a read is under way (see :meth:`_read`)."""

    def _card(self, c: Card) -> str:
        return card_text(c, self.colour)

    def _say(self, text: str) -> None:
        """A line for the player; below the prompt, not after it, when it is open."""
        if self._at_prompt:
            self._at_prompt = False
            self._print("")
        self._print(text)
        self._said += 1

    def _ask_again(self, said_before: int) -> None:
        """After lines told while the player's answer is read: the question's prompt again,
        so that the last line on the screen is the one the player answers."""
        if self._prompt is not None and self._said > said_before and not self._at_prompt:
            self._write(self._prompt)
            self._at_prompt = True

    async def _read(self, prompt: str) -> str:
        """The next line the player types.

        Read in a thread of its own, left behind on cancel: a thread blocked in
        ``input()`` cannot be interrupted. A question may be withdrawn so (the others
        stood our seat in while the player was away, or Ctrl-C): the line is then still
        being read, and the next question takes it, since the player answers whatever
        was printed last; a second ``input()`` would race the first for the line."""
        line = self._line
        if line is None:
            line = self._line = _Line()
            token = trio.lowlevel.current_trio_token()
            ask = self._ask

            def read() -> None:
                try:
                    line.text = ask(prompt)
                except EOFError:
                    line.text = None
                except BaseException as exc:  # given to the task that waits for the line
                    line.error = exc
                finally:
                    _READING[0] -= 1
                with contextlib.suppress(trio.RunFinishedError):  # the program ended
                    trio.from_thread.run_sync(line.done.set, trio_token=token)

            _READING[0] += 1
            trio.lowlevel.start_thread_soon(read, lambda _: None)
        else:  # the line under way answers this question: show its prompt
            if self._at_prompt:
                self._print("")
            self._write(prompt)
        self._at_prompt = True
        self._prompt = prompt
        try:
            await line.done.wait()
        finally:
            self._prompt = None
        self._at_prompt = False  # answered: the player's Enter ended the line
        self._line = None
        if line.error is not None:
            raise line.error
        if line.text is None:
            raise KeyboardInterrupt
        return line.text

    async def _choose(
        self, peer: Peer, title: str, options: Sequence[str], cards: dict[Card, int]
    ) -> int:
        """The index of the option chosen by number, by card name or by its words."""
        self._say(title)
        for i, text in enumerate(options, 1):
            self._say(f"  {i:2d}. {text}")
        numbers = f"1-{len(options)}" if len(options) > 1 else "1"
        while True:
            reply = (await self._read(f"choice [{numbers}, l: last trick]: ")).strip()
            if reply.isdigit() and 1 <= int(reply) <= len(options):
                return int(reply) - 1
            if reply.lower() in ("l", "last"):
                self._say(self._last_trick(peer))
                continue
            by_words = [i for i, text in enumerate(options) if text.casefold() == reply.casefold()]
            if by_words:
                return by_words[0]
            try:
                card = read_card(reply)
            except ValueError:
                card = -1
            if card in cards:
                return cards[card]
            self._say(
                f"type a number from 1 to {len(options)}"
                + (", or a card such as KH or T21" if cards else "")
            )

    # ------------------------------------------------------------------ decisions

    async def decide(self, peer: Peer, refused: str | None) -> Decision:
        if refused:
            self._say(f"refused: {for_terminal(refused)}")
        state = peer.private_state()
        seat = peer.seat
        assert state is not None and seat is not None
        obs = state.observation(seat)
        self._say(f"\n{self._header(peer, state)}")
        if self._hand_shown != (peer.hand.hand, obs.hand):
            self._hand_shown = (peer.hand.hand, obs.hand)
            self._say(f"Your hand: {describe_hand(obs.hand, self.colour)}")
        if peer.hand.phase is Phase.ECART:
            return await self._ecart(peer, state)
        if obs.trick:
            played = ", ".join(
                f"{_name(peer, s)} {self._card(c)}"
                for s, c in zip(obs.trick_seats, obs.trick, strict=True)
            )
            self._say(f"Trick so far: {played}")
        # The cards in the order the hand is shown in (announcements first).
        legal = sorted(
            peer.legal_actions(),
            key=lambda act: hand_order(act.card) if isinstance(act, a.Play) else (-1, 0),
        )
        cards = {act.card: i for i, act in enumerate(legal) if isinstance(act, a.Play | a.CallCard)}
        labels = [self._label(peer, act) for act in legal]
        pick = await self._choose(peer, "Your move:", labels, cards)
        return legal[pick]

    def _label(self, peer: Peer, act: a.Action) -> str:
        if isinstance(act, a.Play):
            return self._card(act.card)
        if isinstance(act, a.CallCard):
            return f"call {self._card(act.card)}"
        if isinstance(act, a.Poignee):
            shown = " ".join(self._card(c) for c in sorted_cards(act.cards))
            return f"{for_terminal(action_label(self.words, peer, act))}: {shown}"
        return for_terminal(action_label(self.words, peer, act))

    def _header(self, peer: Peer, state: State) -> str:
        """Deal, contract and taker, king called and partner: always above a question."""
        seat = peer.seat
        assert seat is not None
        obs = state.observation(seat)
        parts = [f"Deal {peer.hand.hand}", f"{_name(peer, peer.hand.dealer)} deals"]
        if obs.taker is not None and obs.contract is not None:
            parts.append(f"{_name(peer, obs.taker)}: {self.words(CONTRACT_KEYS[obs.contract])}")
        if obs.called_card is not None:
            parts.append(f"king called {self._card(obs.called_card)}")
            parts.append(
                for_terminal(partner_text(self.words, peer, obs))
                if obs.partner_known
                else "partner unknown"
            )
        return "— " + " · ".join(parts) + " —"

    async def _ecart(self, peer: Peer, state: State) -> Ecart:
        """The écart typed in one line (numbers or names), checked, then confirmed."""
        size = chien_size(peer.config)
        legal = mask_of(act.card for act in state.legal_actions() if isinstance(act, a.Discard))
        allowed = sorted_cards(legal)  # plain cards first, then the trumps allowed
        self._say(
            f"Écart: put {size} cards aside. No king and no oudler; a trump only when you have "
            "nothing else to put aside, and it is shown to everyone."
        )
        self._say("  " + "  ".join(f"{i}.{self._card(c)}" for i, c in enumerate(allowed, 1)))
        while True:
            reply = await self._read(f"écart, {size} cards (numbers or names, e.g. 1 2 3 4 5 6): ")
            chosen = self._read_ecart(reply, allowed, size)
            if isinstance(chosen, str):
                self._say(chosen)
                continue
            problem = _try_ecart(state, chosen)
            if problem:
                self._say(problem)
                continue
            shown = " ".join(self._card(c) for c in sorted_cards(mask_of(chosen)))
            answer = await self._read(f"put aside {shown}? [y/n]: ")
            if answer.strip().lower() in ("y", "yes", "o", "oui"):
                return Ecart(mask_of(chosen))

    def _read_ecart(self, reply: str, allowed: list[Card], size: int) -> list[Card] | str:
        """The cards typed, or what is wrong with them in plain words."""
        chosen: list[Card] = []
        for token in reply.replace(",", " ").split():
            if token.isdigit():
                if not 1 <= int(token) <= len(allowed):
                    return f"{token} is not a number from the list (1 to {len(allowed)})"
                chosen.append(allowed[int(token) - 1])
                continue
            try:
                chosen.append(read_card(token))
            except ValueError:
                return f"{token} is not a card (type KH, K♥, 10S, T5... or a number)"
        if len(set(chosen)) != len(chosen):
            return "a card is named twice"
        if len(chosen) != size:
            return f"type {size} cards, not {len(chosen)}"
        return chosen

    # ------------------------------------------------------------------ what happens

    async def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        said = self._said
        self._observe(peer, events)
        if peer.hand.abandoned != peer.seat:  # else the stand-in answers: the question goes
            self._ask_again(said)

    def _observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        stood = len(self.story.stood_in)
        self.story.record(peer, events)
        if len(self.story.stood_in) > stood:  # a seat's hand goes to the stand-in
            self._say(for_terminal(self.story.log[-1]))
        stand_in = peer.hand.abandoned == peer.seat  # then our moves are its, told too
        for event in events:
            if isinstance(event, SeatsDrawn):
                drawn = dict(event.draws)
                order = ", ".join(
                    f"{for_terminal(peer.table.setup.names[m])} ({card_name(drawn[m])})"
                    for m in event.seating
                )
                first = _name(peer, 0)
                self._say(
                    f"Seats drawn, in playing order (each player drew a trump, the lowest "
                    f"deals): {order}. {first} deals first."
                )
            elif isinstance(event, Dealt):
                self._hand_shown = (peer.hand.hand, event.cards)
                cards = describe_hand(event.cards, self.colour)
                self._say(f"\nDeal {peer.hand.hand}. Your cards: {cards}")
            elif isinstance(event, ChienShown):
                self._say(f"Chien: {describe_hand(event.cards, self.colour)}")
            elif isinstance(event, EngineAction) and (event.seat != peer.seat or stand_in):
                self._tell(peer, event.seat, event.action)
            elif isinstance(event, HandEnded):
                self._tell_result()
                if peer.sheet is not None and not peer.sheet.is_over:  # else the end says it
                    self._say(f"\n{peer.sheet.render(for_terminal)}\n")
        self._tell_tricks(peer)
        self._tell_partner()

    def _tell(self, peer: Peer, seat: int, act: a.Action) -> None:
        name = _name(peer, seat)
        if isinstance(act, a.Discard):
            if act.card != a.HIDDEN:
                self._say(f"{name} puts aside {self._card(act.card)} (a trump, shown)")
        elif isinstance(act, a.Play):
            self._say(f"{name} plays {self._card(act.card)}")
        elif act != a.Go(False):  # the lead without an announcement says nothing new
            self._say(f"{name}: {self._label(peer, act)}")

    def _tell_result(self) -> None:
        """The score detail of the deal just agreed (the page's panel, as lines)."""
        result = self.story.result
        if result is None:
            return
        if "stand_in" in result:
            self._say(f"\n{for_terminal(result['stand_in_title'])}")
            self._say(for_terminal(result["stand_in"]))
        self._say(f"\nDeal {result['hand']}: {for_terminal(result['title'])}")
        for row in result["rows"]:
            self._say(f"  {row['label']}: {for_terminal(row['value'])}")
        scores = ", ".join(
            f"{for_terminal(p['name'])} {'+' if p['score'] > 0 else ''}{p['score']}"
            for p in result["players"]
        )
        self._say(f"  Scores: {scores}")

    def _trick_line(self, peer: Peer, number: int) -> str:
        view_trick = self._tricks(peer)[number - 1]
        cards = ", ".join(f"{_name(peer, s)} {self._card(c)}" for s, c in view_trick[1])
        return f"Trick {number}: {cards} — {_name(peer, view_trick[0])} takes it"

    def _tricks(self, peer: Peer) -> list[tuple[int, list[tuple[int, Card]]]]:
        engine = peer.hand.engine
        if engine is None:
            return []
        return [
            (t.winner, list(zip(trick_seats(engine, t.leader, len(t.cards)), t.cards, strict=True)))
            for t in engine.tricks
        ]

    def _last_trick(self, peer: Peer) -> str:
        tricks = self._tricks(peer)
        return self._trick_line(peer, len(tricks)) if tricks else "no trick played yet"

    def _tell_tricks(self, peer: Peer) -> None:
        """One line per finished trick: who played which card, who takes it."""
        hand, told = self._tricks_told
        if hand != peer.hand.hand:
            told = 0
        count = len(self._tricks(peer))
        for number in range(told + 1, count + 1):
            self._say(self._trick_line(peer, number))
        self._tricks_told = (peer.hand.hand, count)

    def _tell_partner(self) -> None:
        news = self.story.partner_news
        if news is not None and news != self._partner_told:
            self._partner_told = news
            self._say(for_terminal(news[1]))

    async def notice(self, peer: Peer, notice: Any) -> None:
        """A status of the table (a player slow to answer, reconnecting, back), told once
        and then every :data:`TELL_EVERY` seconds of waiting while it lasts."""
        left = getattr(notice, "left", None)
        over = left is not None and left <= 0  # the time is up: new words, told at once
        key = (f"{notice.kind}{' over' if over else ''}", notice.seat)
        seconds = float(notice.seconds)
        last = self._last_notice
        if last is not None and last[:2] == key and seconds - last[2] < TELL_EVERY:
            return
        self._last_notice = (*key, seconds)
        self.story.take_notice(
            Notice(
                str(notice.kind), notice.seat, notice.name, seconds, getattr(notice, "left", None)
            ),
            peer.hand.hand,
        )
        text = notice_text(self.words, peer, self.story)
        if text:
            said = self._said
            self._say(for_terminal(text))
            self._ask_again(said)


def _name(peer: Peer, seat: int) -> str:
    """The player at ``seat``, escaped for the terminal (another player chose it)."""
    return for_terminal(peer.names[seat])


def _try_ecart(state: State, chosen: list[Card]) -> str | None:
    """What the rules say against this écart (``None``: it is legal). Plain cards first,
    then trumps: the order the rule allows them in."""
    trial = state.clone()
    for card in sorted(chosen, key=lambda c: ((TRUMP_MASK >> c) & 1, c)):
        try:
            trial.apply_action(a.DISCARD[card])
        except IllegalAction as exc:
            return _ECART_RULES.get(exc.rule, f"{card_name(card)}: not allowed in the écart")
    return None


_ECART_RULES: Final = {
    "ecart-king-oudler": "no king and no oudler in the écart",
    "ecart-trump": "a trump goes to the écart only when nothing else can: put plain cards first",
    "discard": "a card you do not hold cannot go to the écart",
}
