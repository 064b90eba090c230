"""Rendering of an audit (:mod:`.audit_report`): readable text for people, JSON for tools.

Why apart from the audit: the verdicts are protocol facts that callers (the ``audit`` and
``demo`` commands, tests) act on; how they are worded is presentation and changes for
other reasons. Both views name players as the report does: in hand 0 by their place in
the set-up (members), from hand 1 on by their drawn seat.

A transcript is anyone's file, written by any version: the text view escapes every name and
every reason it prints (:func:`~tarot_p2p.protocol.names.for_terminal`), so a name that holds
what a terminal obeys is shown, never obeyed. The JSON view keeps them as they are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, Final

from tarot_p2p.protocol.audit_report import (
    Agreement,
    Comparison,
    Failure,
    HandSummary,
    RecordRef,
    Status,
    TranscriptReport,
)
from tarot_p2p.protocol.names import for_terminal
from tarot_p2p.protocol.table import Phase
from tarot_p2p.protocol.wording import count_of
from tarot_p2p.rules.cards import CardSet, card_name, cards_of
from tarot_p2p.rules.config import GameEnd, Penalty, TableConfig
from tarot_p2p.rules.scoring import Contract

CONTRACT_NAMES: Final[dict[Contract, str]] = {
    Contract.PRISE: "prise",
    Contract.GARDE: "garde",
    Contract.GARDE_SANS: "garde sans",
    Contract.GARDE_CONTRE: "garde contre",
}
PENALTIES: Final[dict[Penalty, str]] = {
    Penalty.LOSE_HAND: "the first offender's side loses the hand",
    Penalty.REPORT_ONLY: "reported only, the score stands",
}


def _cards(mask: CardSet) -> str:
    return " ".join(card_name(c) for c in cards_of(mask)) or "-"


def _points(half: int) -> str:
    return f"{half // 2}.5" if half % 2 else str(half // 2)


def _signed_score(score: int) -> str:
    return f"+{score}" if score > 0 else str(score)


_HEADLINES: Final[dict[Status, str]] = {
    Status.VALID: "VALID: a complete game; every record verified",
    Status.INCOMPLETE: "INCOMPLETE: every record verified, but the game is not over",
    Status.TORN_TAIL: "TORN TAIL: the file ends inside a record; what precedes verified",
    Status.CORRUPT: "CORRUPT: a damaged file, or bytes nobody signed",
    Status.OTHER_VERSION: "OTHER VERSION: a table of another version of tarot-p2p, not checked",
    Status.VIOLATION: "VIOLATION: a seat signed a message the protocol refuses",
}


def headline(report: TranscriptReport) -> str:
    """One line: the verdict and, on failure, where and who."""
    line = _HEADLINES[report.status]
    failure = report.failure
    if failure is None:
        return line
    return f"{line} — {_failure_line(report, failure)}"


def _describe(report: TranscriptReport, ref: RecordRef) -> str:
    parts = [f"record {ref.record}" if ref.record is not None else "a record not in this file"]
    if ref.offset is not None:
        parts.append(f"at byte {ref.offset}")
    if ref.slot is not None:
        parts.append(f"slot {ref.slot[0]}.{ref.slot[1]}")
    if ref.kind is not None:
        parts.append(f"'{for_terminal(ref.kind)}'")
    if ref.seat is not None:
        sender = for_terminal(report.who(ref.seat, ref.slot[0] if ref.slot else 1))
        parts.append(f"signed by {sender}" if ref.signed else f"claiming to come from {sender}")
    return " ".join(parts)


def _hand_of(failure: Failure) -> int:
    """The hand of the record that failed: it says how its sender index is numbered."""
    return failure.at.slot[0] if failure.at is not None and failure.at.slot else 1


def _failure_line(report: TranscriptReport, failure: Failure) -> str:
    out = []
    at = failure.at
    if at is not None:
        out.append(_describe(report, at) + ":")
    if failure.blamed is not None and (at is None or failure.blamed != at.seat):
        out.append(f"it exposes {for_terminal(report.who(failure.blamed, _hand_of(failure)))}:")
    if failure.status is not Status.INCOMPLETE:  # (its headline says it already)
        out.append(for_terminal(failure.reason))
    if failure.expected is not None:
        seat, kinds, hand, phase = failure.expected
        awaited = (
            f"{for_terminal(report.who(seat, hand))} was to send {' or '.join(kinds)} "
            f"(hand {hand}, phase {phase})"
        )
        out.append(f"; {awaited}" if out else awaited)
    return " ".join(out).replace(" ;", ";")


def _config_lines(config: TableConfig) -> list[str]:
    fields = _config_fields(config)
    defaults = _config_fields(TableConfig(players=config.players))
    length = {
        GameEnd.DEALS: count_of(config.game_length, "deal"),
        GameEnd.ROUNDS: count_of(config.game_length, "round"),
        GameEnd.POINTS: f"until a total above {config.game_length}",
    }[config.game_end]
    variants = [
        f"{k}={v}"
        for k, v in fields.items()
        if v != defaults[k] and k not in ("game_end", "game_length")
    ]
    return [
        f"Rules     config digest {config.digest().hex()}",
        f"          {config.players} players; game: {length}; penalty {config.penalty.value}",
        f"          variants: {', '.join(variants) if variants else 'none (FFT defaults)'}",
    ]


def _config_fields(config: TableConfig) -> dict[str, str]:
    lines = config.canonical_bytes().decode("ascii").split("\n")[1:]
    return dict(line.split("=", 1) for line in lines)


def _hand_lines(report: TranscriptReport, h: HandSummary) -> list[str]:
    def name(index: int, hand: int = 1) -> str:
        return for_terminal(report.name(index, hand))

    span = f"records {h.first_record}-{h.last_record}"
    if h.number == 0:
        out = [f"Hand 0 — set-up and seat draw ({span})"]
        if h.draws:
            draws = ", ".join(f"{name(m, 0)} {card_name(c)}" for m, c in h.draws)
            out.append(f"  draws: {draws}")
        if report.seating is not None:
            order = [name(seat) for seat in range(len(report.seating))]
            out.append(
                f"  playing order, lowest card first ({order[0]} deals hand 1): {', '.join(order)}"
            )
        return out
    title = f"Hand {h.number} — dealer {name(h.dealer) if h.dealer is not None else '?'}"
    if h.void is not None:
        title += f"; void deal ({h.void.value.replace('_', ' ')})"
    elif h.taker is None and h.hands is not None:
        title += "; everybody passed: a misère deal, each for himself"
    elif h.taker is not None and h.contract is not None:
        title += f"; {name(h.taker)} takes a {CONTRACT_NAMES[h.contract]}"
        if h.called is not None:
            partner = name(h.partner) if h.partner is not None else "nobody: alone"
            title += f", calls {card_name(h.called)} (partner {partner})"
    if h.abandoned is not None:
        title += (
            f"; {name(h.abandoned)} was silent past the forfeit time: every other player "
            f"signed the claim, and the stand-in played {name(h.abandoned)}'s hand"
        )
    out = [f"{title} ({span})"]
    if h.phase != Phase.DONE.value:
        out.append(f"  stopped in phase {h.phase}")
    if h.by_elimination:
        hidden = "écart" if h.contract is not None and h.contract <= Contract.GARDE else "chien"
        out.append(
            f"  the final opening never came: the {hidden} is known by elimination (the cards "
            "not seen during the hand), and the hand is audited with it"
        )
    for seat, cards in h.shown:
        out.append(f"  shown by {name(seat)}: {_cards(cards)}")
    if h.hands is not None:
        out.append("  deal:")
        width = max(len("chien"), *(len(for_terminal(m.name)) for m in report.members))
        for seat, cards in enumerate(h.hands):
            out.append(f"    {name(seat).ljust(width)}  {_cards(cards)}")
        out.append(f"    {'chien'.ljust(width)}  {_cards(h.chien or 0)}")
        if h.ecart is not None:
            out.append(f"    {'écart'.ljust(width)}  {_cards(h.ecart)}")
    elif h.void is None:
        out.append("  deal: not public (the hand did not reach its final opening)")
    if h.score is not None and h.outcome is not None:
        s, outcome = h.score, h.outcome
        oudlers = count_of(outcome.attack_oudlers, "oudler")
        verdict = f"made by {s.difference}" if s.made else f"failed by {-s.difference}"
        penalty = "" if s.attack_wins == s.made else ", reversed by the penalty"
        out.append(
            f"  result: the attack has {_points(outcome.attack_half_points)} points with {oudlers} "
            f"(needs {s.threshold}): {verdict}{penalty}; hand score {_signed_score(s.hand_score)}"
        )
    if h.hands is not None:
        if h.offences:
            assert report.config is not None
            out.append(
                f"  offences found by the rules audit (penalty {report.config.penalty.value}: "
                f"{PENALTIES[report.config.penalty]}):"
            )
            for o in h.offences:
                move = o.action_index + 1
                detail = for_terminal(o.detail)
                out.append(f"    {name(o.seat)}: {o.rule} — {detail} (move {move})")
        else:
            out.append("  offences found by the rules audit: none")
    if h.scores is not None:
        line = ", ".join(f"{name(s)} {_signed_score(v)}" for s, v in enumerate(h.scores))
        out.append(f"  agreed scores, signed by {count_of(len(h.signed_by), 'player')}: {line}")
    elif h.signed_by:
        out.append(f"  score line signed so far by: {', '.join(name(s) for s in h.signed_by)}")
    return out


def _member_lines(report: TranscriptReport) -> list[str]:
    """The players in join order, with their turn to deal first (from the seat each drew)
    and the identity key each signs with (the join code's fingerprint is the first 16 bytes
    of a hash of it, ``wire.md`` §6)."""
    if not report.members:
        return []
    names = [for_terminal(m.name) for m in report.members]
    width = max(map(len, names))
    seats = report.seating
    out: list[str] = []
    for m, name in zip(report.members, names, strict=True):
        seat = f"{_ordinal(seats.index(m.member) + 1)} to deal" if seats is not None else "no seat"
        label = "Players   " if not out else "          "
        out.append(f"{label}{name.ljust(width)}  {seat}  identity key {m.key.hex()}")
    return out


def render(report: TranscriptReport, label: str = "transcript") -> str:
    """A readable report of :func:`audit_file`'s findings."""
    out = [f"{for_terminal(label)}: {headline(report)}"]
    if report.table_id is not None and report.binding is not None:
        out.append(f"Table     {report.table_id.hex()}")
        out.append(f"Binding   {report.binding.hex()}")
    out.append(
        f"File      {report.size} bytes, {report.records} records, {report.verified} verified"
        + (f", {report.torn_tail} bytes torn off the end" if report.torn_tail else "")
    )
    if report.head is not None and report.verified:
        out.append(f"Digest    {report.head.hex()} (after record {report.verified})")
    if report.config is not None:
        out.extend(_config_lines(report.config))
    out.extend(_member_lines(report))
    for h in report.hands:
        out.append("")
        out.extend(_hand_lines(report, h))
    if report.sheet is not None and report.sheet.lines:
        out.extend(["", "Score sheet", report.sheet.render(for_terminal)])
    failure = report.failure
    if failure is not None and failure.evidence:
        out.extend(
            [
                "",
                "Evidence (signed records: anyone can check them with the set-up's identity keys):",
            ]
        )
        for ref in failure.evidence:
            digest = hashlib.sha256(ref.wire).hexdigest()
            out.append(f"  {_describe(report, ref)}, wire SHA-256 {digest}")
    t = report.tally
    if not report.verified:
        return "\n".join(out)
    out.extend(
        [
            "",
            f"Verified  {count_of(t.signatures, 'signature')} (every verified record), "
            f"{count_of(t.score_signatures, 'score signature')} among them",
            f"          {count_of(t.key_proofs, 'key proof')}, "
            f"{count_of(t.shuffle_proofs, 'shuffle proof')}, "
            f"{count_of(t.share_proofs, 'share proof')} "
            f"({count_of(t.decryption_shares, 'decryption share')})",
            f"          {count_of(t.cards_opened, 'masked card')} opened, "
            f"{count_of(t.moves, 'move')} checked by the rules engine, "
            f"{count_of(t.hands_audited, 'hand')} audited after the fact",
        ]
    )
    return "\n".join(out)


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 5th (a table has at most five places)."""
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th') }"


def render_comparison(
    comparison: Comparison, labels: Sequence[str], reports: Sequence[TranscriptReport]
) -> str:
    """The verdict of :func:`compare`, with the evidence of a fork."""
    if comparison.files is None:
        return f"Files agree: {for_terminal(comparison.reason)}"
    i, j = comparison.files
    verdict = "agree" if comparison.agreement is Agreement.SAME else "DISAGREE"
    first, second = for_terminal(labels[i]), for_terminal(labels[j])
    out = [f"Files {verdict} ({first} and {second}): {for_terminal(comparison.reason)}"]
    for label, ref in zip((first, second), comparison.evidence, strict=False):
        digest = hashlib.sha256(ref.wire).hexdigest()
        out.append(f"  {label}: {_describe(reports[i], ref)}, wire SHA-256 {digest}")
    return "\n".join(out)


# ---------------------------------------------------------------------- JSON


def to_json(report: TranscriptReport) -> dict[str, Any]:
    """A JSON-able view of the report (plain types; cards by name, bytes in hex)."""
    config = report.config
    return {
        "status": report.status.value,
        "exit_code": report.exit_code,
        "failure": None if report.failure is None else _failure_json(report, report.failure),
        "size": report.size,
        "records": report.records,
        "verified": report.verified,
        "torn_tail": report.torn_tail,
        "table_id": _hex(report.table_id),
        "binding": _hex(report.binding),
        "head": _hex(report.head),
        "config": None
        if config is None
        else {"digest": config.digest().hex(), "fields": _config_fields(config)},
        "members": [
            {"member": m.member, "name": m.name, "key": m.key.hex()} for m in report.members
        ],
        "seating": None if report.seating is None else list(report.seating),
        "hands": [_hand_json(h) for h in report.hands],
        "sheet": None if report.sheet is None else report.sheet.to_dict(),
        "tally": asdict(report.tally),
    }


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    return {
        "agreement": comparison.agreement.value,
        "status": comparison.status.value,
        "reason": comparison.reason,
        "files": None if comparison.files is None else list(comparison.files),
        "record": comparison.record,
        "blamed": comparison.blamed,
        "evidence": [_ref_json(r) for r in comparison.evidence],
    }


def _hex(data: bytes | None) -> str | None:
    return None if data is None else data.hex()


def _names(mask: CardSet | None) -> list[str] | None:
    return None if mask is None else [card_name(c) for c in cards_of(mask)]


def _ref_json(ref: RecordRef) -> dict[str, Any]:
    return {
        "record": ref.record,
        "offset": ref.offset,
        "slot": None if ref.slot is None else list(ref.slot),
        "seat": ref.seat,
        "kind": ref.kind,
        "wire": ref.wire.hex(),
    }


def _failure_json(report: TranscriptReport, failure: Failure) -> dict[str, Any]:
    expected = None
    if failure.expected is not None:
        seat, kinds, hand, phase = failure.expected
        expected = {"seat": seat, "name": report.name(seat, hand), "kinds": list(kinds)}
        expected.update(hand=hand, phase=phase)
    return {
        "status": failure.status.value,
        "reason": failure.reason,
        "at": None if failure.at is None else _ref_json(failure.at),
        "blamed": failure.blamed,
        "blamed_name": None
        if failure.blamed is None
        else report.name(failure.blamed, _hand_of(failure)),
        "evidence": [_ref_json(r) for r in failure.evidence],
        "expected": expected,
    }


def _hand_json(h: HandSummary) -> dict[str, Any]:
    score = h.score
    return {
        "number": h.number,
        "records": [h.first_record, h.last_record],
        "phase": h.phase,
        "dealer": h.dealer,
        "draws": [{"seat": s, "card": card_name(c)} for s, c in h.draws],
        "contract": None if h.contract is None else CONTRACT_NAMES[h.contract],
        "taker": h.taker,
        "partner": h.partner,
        "called": None if h.called is None else card_name(h.called),
        "void": None if h.void is None else h.void.value,
        "abandoned": h.abandoned,
        "deal": None
        if h.hands is None
        else {"hands": [_names(m) for m in h.hands], "chien": _names(h.chien)},
        "ecart": _names(h.ecart),
        "by_elimination": h.by_elimination,
        "shown": [{"seat": s, "cards": _names(m)} for s, m in h.shown],
        "offences": [
            {"seat": o.seat, "rule": o.rule, "detail": o.detail, "move": o.action_index + 1}
            for o in h.offences
        ],
        "score": None
        if score is None
        else {
            "threshold": score.threshold,
            "difference": score.difference,
            "made": score.made,
            "attack_wins": score.attack_wins,
            "hand_score": score.hand_score,
        },
        "scores": None if h.scores is None else list(h.scores),
        "signed_by": list(h.signed_by),
    }
