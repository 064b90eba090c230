"""One table folder read as one game: who played, under which rules, every deal, how it ended.

Why apart from the database (:mod:`.history`): what a game is comes from the table
folder's files alone — the set-up record of the transcript (rules, names, identity keys),
the agreed score sheet, the record of the last stop, the transcript's SHA-256 — and one
function reads them (:func:`read_table`), for the runner's saves and for ``history
--rebuild`` alike, so the two cannot disagree.

A sheet line holds scores and a note, not the contract and its fate as data; those come
from each hand's rules audit: seen live by the runner's peer (:class:`DealWatcher`), or
recomputed from the transcript by the offline audit (:func:`details_from_audit`).

Seats index a game's players, dealers, scores and details as the score sheet's columns do;
whatever a player reads names them.
"""

from __future__ import annotations

import enum
import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from tarot_p2p.files.seat_files import SeatFiles, mend_sheet
from tarot_p2p.protocol.errors import ProtocolError
from tarot_p2p.protocol.identity import fingerprint
from tarot_p2p.protocol.peer import Peer, PeerEvent, read_setup
from tarot_p2p.protocol.table import HandEnded
from tarot_p2p.protocol.transcript import TranscriptFileError, read_frames
from tarot_p2p.rules.config import (
    Abandon,
    AllPass,
    ExcuseLastTrick,
    FivePlayerMode,
    GameEnd,
    Penalty,
    PetitAuBout,
    PoigneeBeneficiary,
    TableConfig,
)
from tarot_p2p.rules.scoring import HandOutcome, explain_hand
from tarot_p2p.rules.sheet import LineKind, ScoreSheet

if TYPE_CHECKING:  # (the audit is imported by what runs it: a host's start needs none)
    from tarot_p2p.protocol.audit_report import TranscriptReport

log = logging.getLogger(__name__)


class RecordError(Exception):
    """A table folder holds no usable game yet, or damaged files (message for the player)."""


class Result(enum.StrEnum):
    UNFINISHED = "unfinished"
    """Still being played, or its program stopped without a record (killed)."""
    FINISHED = "finished"
    ABANDONED = "abandoned"
    """Ended by a player's abandon (the table's rule says an abandon ends the game)."""
    ABORTED = "aborted"
    """Stopped by a silence, a lost link (both can be resumed) or a proven violation."""


@dataclass(frozen=True, slots=True)
class DealDetail:
    """What a sheet line does not hold as data: the contract and its fate, or who left."""

    contract: str | None = None
    """``prise``, ``garde``, ``garde_sans``, ``garde_contre``; ``None``: no contract (a
    void deal, a misère deal) or not known."""
    taker: int | None = None
    partner: int | None = None
    """The called partner at five (``None`` when the taker played alone)."""
    made: bool | None = None
    """The contract as played, before any penalty (the sheet's "made by" / "failed by")."""
    absent: int | None = None
    """The seat whose abandon ended the deal."""

    def merged(self, known: DealDetail) -> DealDetail:
        """These details, completed by ``known`` where they are missing."""
        values = {
            f.name: getattr(self, f.name)
            if getattr(self, f.name) is not None
            else getattr(known, f.name)
            for f in fields(self)
        }
        return DealDetail(**values)


def detail_of(config: TableConfig, outcome: HandOutcome | None) -> DealDetail:
    """The details of an audited hand (``None``: the all-pass misère deal, no contract)."""
    if outcome is None:
        return DealDetail()
    return DealDetail(
        contract=outcome.contract.name.lower(),
        taker=outcome.taker,
        partner=outcome.partner,
        made=explain_hand(config, outcome).made,
    )


class DealWatcher:
    """Keeps each deal's details as the runner's peer sees them go by.

    The rules audit of a hand exists only while that hand is the peer's current one (it
    is replaced as soon as the last score line is in), so it is read after every message."""

    def __init__(self) -> None:
        self.details: dict[int, DealDetail] = {}

    def observe(self, peer: Peer, events: Sequence[PeerEvent]) -> None:
        hand = peer.hand
        if hand.hand > 0 and hand.audit is not None and hand.hand not in self.details:
            self.details[hand.hand] = detail_of(peer.config, hand.audit.outcome)
        for event in events:
            if isinstance(event, HandEnded) and event.absent is not None:
                known = self.details.get(event.hand, DealDetail())
                self.details[event.hand] = replace(known, absent=event.absent)


def details_from_audit(report: TranscriptReport) -> dict[int, DealDetail]:
    """Each deal's details as the offline audit of the transcript recomputes them."""
    config = report.config
    details: dict[int, DealDetail] = {}
    if config is None:
        return details
    for hand in report.hands:
        if hand.number == 0:
            continue
        found = detail_of(config, hand.outcome) if hand.outcome is not None else DealDetail()
        details[hand.number] = replace(found, absent=hand.abandoned)
    return details


@dataclass(frozen=True, slots=True)
class Player:
    name: str
    fingerprint: str
    """Hex of the identity key's fingerprint, as ``join`` shows it."""
    me: bool


@dataclass(frozen=True, slots=True)
class Deal:
    number: int
    dealer: int
    kind: LineKind
    scores: tuple[int, ...]
    note: str
    detail: DealDetail = DealDetail()


@dataclass(frozen=True, slots=True)
class Stop:
    """A record of a stopped hand (``aborted.json``), with the player it names."""

    hand: int
    kind: str
    """``absence``, ``disconnected`` or ``violation``."""
    named: str | None
    reason: str
    attributed: bool
    accepted: int
    """Messages in the transcript when it stopped."""


@dataclass(frozen=True, slots=True)
class Game:
    """One table as this player sat at it. Seats index ``players``, ``dealer``,
    ``scores`` and the details, as the score sheet's columns do."""

    table_id: str
    folder: str
    config: TableConfig
    players: tuple[Player, ...]
    first_dealer: int
    deals: tuple[Deal, ...]
    result: Result
    named: str | None
    """The player the end names: who abandoned, was silent, or broke the rules."""
    transcript: str
    transcript_sha256: str
    messages: int
    stops: tuple[Stop, ...] = ()
    started: float | None = None
    ended: float | None = None
    """Unix times; ``ended`` is ``None`` while the game is unfinished."""

    @property
    def me(self) -> int:
        return next(i for i, p in enumerate(self.players) if p.me)

    @property
    def my_key(self) -> str:
        return self.players[self.me].fingerprint

    @property
    def rules(self) -> str:
        return rules_summary(self.config)

    def sheet(self) -> ScoreSheet:
        """The score sheet rebuilt from the deals (checked as the runner's was)."""
        names = [p.name for p in self.players]
        sheet = ScoreSheet(self.config, names, self.first_dealer)
        for deal in self.deals:
            if deal.kind is LineKind.HAND:
                sheet.add_hand(deal.scores, deal.note)
            elif deal.kind is LineKind.ABANDON:
                # The seat is only documentation there: the line's scores say it all.
                absent = deal.detail.absent
                seat = absent if absent is not None else deal.scores.index(min(deal.scores))
                sheet.add_abandon(seat, deal.scores, deal.note)
            else:
                sheet.add_void(deal.kind, deal.note)
        return sheet


def rules_summary(config: TableConfig) -> str:
    """The table's rules in a few words: the length, and what differs from the FFT's."""
    default = TableConfig(players=config.players)
    length = config.game_length
    plural = "" if length == 1 else "s"
    parts = [f"{config.players} players"]
    if config.players == 5:
        dead = config.five_player_mode is FivePlayerMode.DEAD_HAND
        parts.append("dead hand" if dead else "called king")
    parts.append(
        {
            GameEnd.DEALS: f"{length} deal{plural}",
            GameEnd.ROUNDS: f"{length} round{plural}",
            GameEnd.POINTS: f"to {length} points",
        }[config.game_end]
    )
    if config.misere:
        parts.append("misère")
    if config.petit_chelem:
        parts.append("petit chelem")
    if config.all_pass is AllPass.MISERE_DEAL:
        parts.append("misère deal when all pass")
    if config.poignee_values != default.poignee_values:
        parts.append("poignées " + "/".join(str(v) for v in config.poignee_values))
    if config.poignee_beneficiary is PoigneeBeneficiary.ANNOUNCER:
        parts.append("poignées to the announcer")
    if config.petit_au_bout is PetitAuBout.FIXED:
        parts.append("petit au bout not multiplied")
    if config.chelem_values != default.chelem_values:
        parts.append("chelem " + "/".join(str(v) for v in config.chelem_values))
    if config.excuse_last_trick is ExcuseLastTrick.TO_TRICK_WINNER:
        parts.append("Excuse led last goes to the trick")
    if config.penalty is Penalty.REPORT_ONLY:
        parts.append("offences reported, not scored")
    if config.abandon is Abandon.CONTINUE:
        parts.append("play goes on after an abandon")
    return ", ".join(parts)


def read_table(directory: Path, details: Mapping[int, DealDetail]) -> Game:
    """The game kept in a table folder, with ``details`` by deal number.

    Raises :class:`RecordError` for a folder with no game yet (no set-up record; no score
    sheet, which the runner writes once the seats are drawn or when it stops) or with
    damaged files."""
    files = SeatFiles(directory)
    mend_sheet(files)  # a program killed as the game's last record landed
    try:
        data = files.transcript.read_bytes()
        frames = read_frames(data)
        if not frames.records:
            raise RecordError("the game had not started")
        config, keys, setup_names = read_setup(frames.records[0], frames.table_id)
        document = json.loads(files.sheet.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        missing = "transcript" if exc.filename == str(files.transcript) else "score sheet"
        raise RecordError(f"it has no {missing}: the game never really started") from None
    except OSError as exc:
        raise RecordError(f"cannot read {exc.filename}: {exc.strerror}") from None
    except (TranscriptFileError, ProtocolError, ValueError) as exc:
        raise RecordError(f"the table's files are damaged ({exc})") from None
    table_id = frames.table_id.hex()
    try:
        if document["table_id"] != table_id or document["config"] != (
            config.canonical_bytes().decode("ascii")
        ):
            raise RecordError("the score sheet is not the transcript's")
        me = int(document["seat"])
        sheet = document["sheet"]
        names = tuple(setup_names) if sheet is None else tuple(sheet["players"])
        first_dealer = 0 if sheet is None else int(sheet["first_dealer"])
        lines = () if sheet is None else tuple(sheet["lines"])
        members = {name: i for i, name in enumerate(setup_names)}
        players = tuple(
            Player(name, fingerprint(keys[members[name]]).hex(), seat == me)
            for seat, name in enumerate(names)
        )
        deals = tuple(
            Deal(
                number=int(line["number"]),
                dealer=int(line["dealer"]),
                kind=LineKind(line["kind"]),
                scores=tuple(int(s) for s in line["scores"]),
                note=str(line["note"]),
                detail=details.get(int(line["number"]), DealDetail()),
            )
            for line in lines
        )
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise RecordError(f"the score sheet is damaged ({exc!r})") from None
    if not 0 <= me < len(players):
        raise RecordError("the score sheet does not say which player you are")
    stop = _read_stop(files, names if sheet is not None else (), setup_names)
    game = Game(
        table_id=table_id,
        folder=directory.name,
        config=config,
        players=players,
        first_dealer=first_dealer,
        deals=deals,
        result=Result.UNFINISHED,
        named=None,
        transcript=str(files.transcript.resolve()),
        transcript_sha256=hashlib.sha256(data).hexdigest(),
        messages=len(frames.records),
        stops=() if stop is None else (stop,),
    )
    try:
        over = game.sheet().is_over
    except ValueError as exc:
        raise RecordError(f"the score sheet is damaged ({exc})") from None
    return _with_result(game, over, stop)


def _read_stop(
    files: SeatFiles, seat_names: Sequence[str], member_names: Sequence[str]
) -> Stop | None:
    """The stop record, if any: its seat is a member index in hand 0, a seat later."""
    try:
        record = json.loads(files.abort.read_text(encoding="utf-8"))
        hand = int(record["hand"])
        seat = record["seat"]
        names = seat_names if hand > 0 else member_names
        named = names[int(seat)] if seat is not None and 0 <= int(seat) < len(names) else None
        return Stop(
            hand,
            str(record["kind"]),
            named,
            str(record["reason"]),
            bool(record["attributed"]),
            int(record["accepted"]),
        )
    except FileNotFoundError:
        return None
    except (OSError, KeyError, TypeError, ValueError) as exc:
        log.info("ignored a damaged stop record in %s: %s", files.directory, exc)
        return None


def _with_result(game: Game, over: bool, stop: Stop | None) -> Game:
    """How the game stands: over (played out, or ended by an abandon), stopped (the
    stop record is the last word: nothing was accepted after it), or unfinished."""
    if over:
        last = game.deals[-1] if game.deals else None
        if (
            last is not None
            and last.kind is LineKind.ABANDON
            and game.config.abandon is Abandon.END
        ):
            absent = last.detail.absent
            named = game.players[absent].name if absent is not None else None
            return replace(game, result=Result.ABANDONED, named=named)
        return replace(game, result=Result.FINISHED)
    if stop is not None and stop.accepted >= game.messages:
        return replace(game, result=Result.ABORTED, named=stop.named)
    return game


@dataclass(slots=True)
class PlayerTotals:
    """One identity over every game of the history (named as in its latest game)."""

    name: str
    fingerprint: str
    me: bool
    games: int = 0
    deals: int = 0
    total: int = 0
    contracts: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Contract -> (taken, made), for the deals this player took."""

    @property
    def taken(self) -> int:
        return sum(taken for taken, _ in self.contracts.values())

    @property
    def made(self) -> int:
        return sum(made for _, made in self.contracts.values())

    @property
    def mean(self) -> float:
        """Points per deal played (void deals count: they were dealt)."""
        return self.total / self.deals if self.deals else 0.0


def player_totals(games: Sequence[Game]) -> list[PlayerTotals]:
    """Totals per identity over ``games`` (the most recent first, as :func:`load_games`
    gives them), the players met most often first."""
    found: dict[str, PlayerTotals] = {}
    for game in games:
        totals = game.sheet().totals
        for seat, player in enumerate(game.players):
            row = found.setdefault(
                player.fingerprint, PlayerTotals(player.name, player.fingerprint, player.me)
            )
            row.me = row.me or player.me  # this profile may have had several keys
            row.games += 1
            row.deals += len(game.deals)
            row.total += totals[seat]
            for deal in game.deals:
                detail = deal.detail
                if detail.taker != seat or detail.contract is None:
                    continue
                taken, made = row.contracts.get(detail.contract, (0, 0))
                row.contracts[detail.contract] = (taken + 1, made + bool(detail.made))
    return sorted(found.values(), key=lambda r: (not r.me, -r.games, r.name.casefold()))
