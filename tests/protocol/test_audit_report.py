"""The offline audit: honest files pass, and each kind of damage is named where it happens.

Games are played in memory (``harness.py``) and saved as transcript files; the audit must
report exactly what the observers of the game saw, and every alteration — bytes nobody
signed, a torn or cut file, a record removed, moved or repeated, a message re-signed by a
cheating seat, a second file that forks — must stop it at the right record with the right
verdict and the right seat.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tarot_p2p.crypto.elgamal import Ciphertext
from tarot_p2p.crypto.group import point_to_bytes, scalar_from_bytes
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shares import prove_shares
from tarot_p2p.protocol.audit_render import render, render_comparison, to_json
from tarot_p2p.protocol.audit_report import (
    Agreement,
    Status,
    TranscriptReport,
    audit_file,
    compare,
)
from tarot_p2p.protocol.codec import decode
from tarot_p2p.protocol.envelope import SignedEnvelope, open_envelope, seal
from tarot_p2p.protocol.messages import Ecart, dump_body, load_body
from tarot_p2p.protocol.peer import CheatExposed, Dealt
from tarot_p2p.protocol.table import Phase
from tarot_p2p.protocol.transcript import HEADER_LEN, file_header
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import PETIT, mask_of
from tarot_p2p.rules.config import AllPass, GameEnd, TableConfig
from tarot_p2p.rules.deal import deal_pattern
from tarot_p2p.rules.scoring import Contract
from tarot_p2p.rules.sheet import LineKind
from tests.protocol.harness import (
    Bot,
    Table,
    make_table,
    one_deal,
    play_game,
    play_with_a_revoke,
    rig_deal,
    step,
)
from tests.protocol.table_vectors import NAME, VECTOR_DIR

FULL_DECK = (1 << 78) - 1


@dataclass
class Game:
    table: Table
    data: bytes

    @property
    def envelopes(self) -> list[SignedEnvelope]:
        return list(self.table.observer.transcript)

    def file(self, wires: list[bytes]) -> bytes:
        return transcript_file(self.table, wires)

    def find(self, kind: str, hand: int = 1, nth: int = 0) -> int:
        hits = [i for i, e in enumerate(self.envelopes) if e.kind == kind and e.hand == hand]
        return hits[nth]

    def forge(self, index: int, mutate: Callable[[dict[str, Any]], None]) -> bytes:
        """Record ``index`` with its body changed, validly re-signed by its own seat."""
        env = self.envelopes[index]
        body = dict(env.body)
        mutate(body)
        return seal(
            self.table.key_of(env.hand, env.seat),
            table_id=env.table_id,
            hand=env.hand,
            seq=env.seq,
            seat=env.seat,
            prev=env.prev,
            kind=env.kind,
            body=body,
        ).wire


def transcript_file(table: Table, wires: list[bytes]) -> bytes:
    o = table.observer
    return file_header(o.table_id, o.binding) + b"".join(
        len(w).to_bytes(4, "big") + w for w in wires
    )


def played(players: int, contract: Contract, seed: bytes, bot_seed: int = 1) -> Game:
    table = make_table(one_deal(players), seed=seed)
    play_game(table, Bot(contract=contract, seed=bot_seed))
    return Game(table, transcript_file(table, table.wires))


@pytest.fixture(scope="module")
def games() -> dict[int, Game]:
    return {
        3: played(3, Contract.GARDE_SANS, b"audit3"),
        4: played(4, Contract.GARDE, b"audit4"),
        5: played(5, Contract.PRISE, b"audit5"),
    }


@pytest.fixture(scope="module")
def game(games: dict[int, Game]) -> Game:
    return games[4]


# ---------------------------------------------------------------------- honest files


def test_the_stored_vector_passes() -> None:
    meta = json.loads((VECTOR_DIR / f"{NAME}.json").read_text(encoding="utf-8"))
    report = audit_file((VECTOR_DIR / f"{NAME}.tp2p").read_bytes())
    assert report.status is Status.VALID and report.exit_code == 0
    assert report.failure is None
    kinds = [line.split()[-1] for line in meta["messages"]]
    assert report.verified == report.records == len(kinds)
    assert report.head is not None and report.head.hex() == meta["final_digest"]
    assert report.sheet is not None and report.sheet.to_dict() == meta["sheet"]
    tally = report.tally
    assert tally.signatures == len(kinds)
    assert tally.key_proofs == kinds.count("key")
    assert tally.score_signatures == kinds.count("score") == 3
    assert tally.shuffle_proofs == kinds.count("shuffle") + kinds.count("ecart")
    assert tally.hands_audited == 1
    assert [m.name for m in report.members] == meta["names"]
    assert report.seating is not None and list(report.seating) == meta["seating"]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_played_game_passes_and_shows_what_the_players_saw(
    games: dict[int, Game], players: int
) -> None:
    g = games[players]
    report = audit_file(g.data)
    assert report.status is Status.VALID, render(report)
    assert report.verified == len(g.table.wires)
    observer = g.table.observer
    assert report.head == observer.transcript.head
    assert report.sheet is not None and observer.sheet is not None
    assert report.sheet.lines == observer.sheet.lines
    assert report.seating == observer.seating
    assert [h.number for h in report.hands] == [0, 1]
    deal = report.hands[1]
    engine = observer.hand.engine
    assert engine is not None
    assert (deal.taker, deal.contract, deal.dealer) == (engine.taker, engine.contract, 0)
    assert deal.hands is not None and deal.chien is not None
    together = deal.chien
    for cards in deal.hands:
        assert not together & cards
        together |= cards
    assert together == FULL_DECK
    # What the audit shows publicly is what each player was privately dealt.
    assert report.seating is not None
    for member, events in enumerate(g.table.events[:players]):
        dealt = [e.cards for e in events if isinstance(e, Dealt)]
        assert dealt == [deal.hands[report.seating.index(member)]]
    assert deal.scores == observer.sheet.lines[0].scores
    assert deal.signed_by == tuple(range(players))
    assert deal.offences == ()
    if players == 5:
        assert deal.called is not None
    tally = report.tally
    assert tally.key_proofs == 2 * players
    with_ecart = int(deal.contract is not None and deal.contract <= Contract.GARDE)
    assert tally.shuffle_proofs == 2 * players + with_ecart
    assert tally.hands_audited == 1 and tally.score_signatures == players
    text = render(report, "game.tp2p")
    assert text.startswith("game.tp2p: VALID")
    assert "Score sheet" in text and "offences found by the rules audit: none" in text
    json.dumps(to_json(report))


def test_a_revoke_is_named_with_its_player_and_penalised() -> None:
    table, cheater = play_with_a_revoke()
    assert cheater is not None and cheater.seat is not None, "the seed must allow a revoke"
    report = audit_file(transcript_file(table, table.wires))
    assert report.status is Status.VALID, render(report)
    offences = report.hands[1].offences
    assert offences and offences[0].seat == cheater.seat
    assert offences[0].rule in ("revoke", "must-trump", "must-overtrump")
    score = report.hands[1].score
    assert score is not None
    assert report.hands[1].scores == score.scores
    text = render(report)
    name = report.name(cheater.seat)
    assert f"    {name}: {offences[0].rule}" in text
    assert "penalty lose_hand: the first offender's side loses the hand" in text


def test_void_deals_are_agreed_lines_with_no_deal_shown() -> None:
    config = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=2)
    table = make_table(config, seed=b"passes")
    play_game(table, Bot(contract=0))
    report = audit_file(transcript_file(table, table.wires))
    assert report.status is Status.VALID, render(report)
    assert [h.number for h in report.hands] == [0, 1, 2]
    for number, h in enumerate(report.hands[1:], start=1):
        assert h.void is LineKind.ALL_PASS and h.hands is None
        assert h.dealer == number - 1 and h.scores == (0, 0, 0)
        assert h.signed_by == (0, 1, 2)
    assert report.sheet is not None
    assert [line.kind for line in report.sheet.lines] == [LineKind.ALL_PASS] * 2
    text = render(report)
    assert text.count("void deal (all pass)") == 2 and "not public" not in text


def test_a_misere_deal_is_played_out_and_audited() -> None:
    config = TableConfig(
        players=3, all_pass=AllPass.MISERE_DEAL, game_end=GameEnd.DEALS, game_length=1
    )
    table = make_table(config, seed=b"misere")
    play_game(table, Bot(contract=0))
    report = audit_file(transcript_file(table, table.wires))
    assert report.status is Status.VALID, render(report)
    deal = report.hands[1]
    assert deal.taker is None and deal.void is None and deal.hands is not None
    assert report.tally.hands_audited == 1 and deal.score is None
    assert report.sheet is not None and deal.scores == report.sheet.lines[0].scores
    assert "a misère deal, each for himself" in render(report)


def test_a_petit_sec_shows_the_hand_that_voided_the_deal() -> None:
    table = make_table(one_deal(4), seed=b"petit-sec")
    plain = [c for c in range(56) if c % 14 < 10][:17]

    def deck_for(dealer: int) -> list[int]:
        holder = (dealer + 1) % 4
        mine = iter([PETIT, *plain])
        rest = iter(c for c in range(78) if c != PETIT and c not in plain)
        return [
            next(mine) if dest == holder else next(rest)
            for dest in deal_pattern(table.config, dealer)
        ]

    rig_deal(table, deck_for)
    play_game(table, Bot())
    report = audit_file(transcript_file(table, table.wires))
    assert report.status is Status.VALID, render(report)
    deal = report.hands[1]
    assert deal.void is LineKind.PETIT_SEC and deal.hands is None
    assert deal.shown == ((1, mask_of([PETIT, *plain])),)
    assert f"shown by {report.name(1)}: 1S 2S" in render(report)


def test_a_lie_exposed_later_is_blamed_on_the_liar_with_both_records() -> None:
    """The taker shows a non-trump as a discarded trump; the defenders' shares open it."""
    table = make_table(one_deal(4), seed=b"tamper")
    bot = Bot(contract=Contract.GARDE, seed=11)
    while table.observer.hand.phase is not Phase.ECART:
        step(table, bot)
    hand = table.observer.hand
    taker_seat = hand.expected_sender()
    assert taker_seat is not None
    taker = table.peer_at(taker_seat)
    legal = [x.card for x in taker.legal_actions() if isinstance(x, a.Discard)]
    honest = taker.discard(sum(1 << c for c in legal[:6]))
    env = open_envelope(honest, table_id=taker.table_id, roster=None)
    msg = load_body("ecart", env.body)
    assert isinstance(msg, Ecart)
    trumps = tuple(sorted({*msg.trumps, next(j for j in msg.discard if j not in msg.trumps)}))
    x = scalar_from_bytes(decode(taker.export_secrets())["x"])  # type: ignore[index, arg-type]
    shown = [Ciphertext.from_bytes(msg.deck[66 * j : 66 * (j + 1)]) for j in trumps]
    shares, proof = prove_shares(
        x, shown, hand.context("ecart", taker_seat), DeterministicRandom(b"forger")
    )
    d = b"".join(point_to_bytes(p) for p in shares)
    lie = replace(msg, trumps=trumps, d=d, dproof=proof.to_bytes())
    fields = {"hand": env.hand, "seq": env.seq, "seat": taker_seat, "prev": env.prev}
    key = table.key_of(1, taker_seat)
    wire = seal(key, table_id=env.table_id, kind="ecart", body=dump_body(lie), **fields).wire
    table.observer.receive(wire)
    others = [p for p in table.peers if p is not taker]
    for p in others:
        p.receive(wire)
    with pytest.raises(CheatExposed):
        while (sender := table.observer.expected_sender()) is not None:
            try:
                out = table.peer_at(sender).next_message()
            except CheatExposed as exc:  # the last defender's own shares expose the taker
                out = exc.outgoing
            assert out is not None
            table.observer.receive(out)
            for p in others:
                if p.seat != sender:
                    p.receive(out)
    wires = [e.wire for e in table.observer.transcript]
    report = audit_file(transcript_file(table, wires))
    assert report.status is Status.VIOLATION and report.verified == len(wires)
    failure = report.failure
    assert failure is not None and failure.at is not None
    assert failure.blamed == taker_seat and failure.at.seat != taker_seat
    assert [e.record for e in failure.evidence] == [wires.index(wire) + 1, len(wires)]
    assert f"it exposes {report.who(taker_seat)}" in render(report)


# ---------------------------------------------------------------------- damaged files


def test_a_flipped_byte_in_a_signed_record_blames_nobody(game: Game) -> None:
    index = game.find("play", nth=7)
    wires = list(game.table.wires)
    wire = wires[index]
    wires[index] = wire[:40] + bytes([wire[40] ^ 0x10]) + wire[41:]
    report = audit_file(game.file(wires))
    assert report.status is Status.CORRUPT and report.exit_code == 3
    failure = report.failure
    assert failure is not None and failure.at is not None
    assert failure.at.record == index + 1 and failure.blamed is None
    assert report.verified == index
    assert f"record {index + 1} at byte" in render(report)


def test_a_torn_tail_is_reported_and_what_precedes_verified(game: Game) -> None:
    report = audit_file(game.data[:-50])
    assert report.status is Status.TORN_TAIL and report.exit_code == 5
    assert report.verified == len(game.table.wires) - 1
    assert report.torn_tail == len(game.table.wires[-1]) + 4 - 50
    failure = report.failure
    assert failure is not None and failure.expected is not None
    last = game.envelopes[-1]
    assert failure.expected[:2] == (last.seat, ("score",))


def test_a_game_cut_short_names_who_was_to_speak(game: Game) -> None:
    index = game.find("play", nth=10)
    report = audit_file(game.file(game.table.wires[:index]))
    assert report.status is Status.INCOMPLETE and report.exit_code == 4
    failure = report.failure
    assert failure is not None and failure.expected is not None
    seat, kinds, hand, phase = failure.expected
    assert (seat, hand, phase) == (game.envelopes[index].seat, 1, "play")
    assert "play" in kinds
    assert report.hands[1].hands is None  # the deal was never fully opened
    assert f"{report.who(seat)} was to send" in render(report)


@pytest.mark.parametrize("kind", ["removed", "swapped"])
def test_a_record_removed_or_moved_breaks_the_chain(game: Game, kind: str) -> None:
    index = game.find("shares", nth=2)
    wires = list(game.table.wires)
    if kind == "removed":
        del wires[index]
    else:
        wires[index], wires[index + 1] = wires[index + 1], wires[index]
    report = audit_file(game.file(wires))
    assert report.status is Status.CORRUPT
    failure = report.failure
    assert failure is not None and failure.at is not None
    assert failure.at.record == index + 1 and "chain break" in failure.reason
    assert failure.blamed is None
    assert (
        failure.at.seat
        == open_envelope(wires[index], table_id=game.table.observer.table_id, roster=None).seat
    )


def test_a_repeated_record_is_a_defect_of_the_file(game: Game) -> None:
    index = game.find("key")
    wires = list(game.table.wires)
    wires.insert(index + 1, wires[index])
    report = audit_file(game.file(wires))
    assert report.status is Status.CORRUPT
    assert report.failure is not None and report.failure.at is not None
    assert report.failure.at.record == index + 2 and "repeats" in report.failure.reason


def test_an_impossible_record_length_stops_there(game: Game) -> None:
    index = 30
    wires = game.table.wires
    offset = HEADER_LEN + sum(4 + len(w) for w in wires[:index])
    data = bytearray(game.data)
    data[offset : offset + 4] = b"\xff\xff\xff\xff"
    report = audit_file(bytes(data))
    assert report.status is Status.CORRUPT and report.verified == index
    assert report.failure is not None and report.failure.at is not None
    assert report.failure.at.record == index + 1 and report.failure.at.offset == offset


@pytest.mark.parametrize(
    ("kind", "nth", "mutate", "words"),
    [
        ("score", 2, lambda b: b.update(scores=[b["scores"][0] + 1, *b["scores"][1:]]), "score"),
        (
            "shuffle",
            1,
            lambda b: b.update(deck=b["deck"][66:132] + b["deck"][:66] + b["deck"][132:]),
            "shuffle",
        ),
    ],
)
def test_a_false_message_re_signed_by_a_seat_is_blamed_on_it(
    game: Game, kind: str, nth: int, mutate: Callable[[dict[str, Any]], None], words: str
) -> None:
    index = game.find(kind, nth=nth)
    wires = list(game.table.wires)
    wires[index] = game.forge(index, mutate)
    report = audit_file(game.file(wires))
    assert report.status is Status.VIOLATION and report.exit_code == 1
    failure = report.failure
    assert failure is not None and failure.at is not None
    seat = game.envelopes[index].seat
    assert failure.blamed == seat and failure.at.record == index + 1
    assert failure.at.kind == kind and words in failure.reason
    assert [e.record for e in failure.evidence] == [index + 1]
    assert failure.evidence[0].wire == wires[index]
    assert f"signed by {report.who(seat)}: {failure.reason}" in render(report)


def test_a_header_without_records_waits_for_the_set_up(game: Game) -> None:
    report = audit_file(game.data[:HEADER_LEN])
    assert report.status is Status.INCOMPLETE
    assert report.failure is not None and report.failure.expected is not None
    assert report.failure.expected[:2] == (0, ("table",))


def test_a_set_up_that_does_not_match_the_header_is_corrupt(game: Game) -> None:
    data = bytearray(game.data)
    data[HEADER_LEN - 1] ^= 1  # the binding's last byte
    report = audit_file(bytes(data))
    assert report.status is Status.CORRUPT and report.verified == 0
    assert report.failure is not None and report.failure.at is not None
    assert report.failure.at.record == 1 and "binding" in report.failure.reason


def test_a_flipped_byte_in_the_set_up_reads_as_a_bad_signature(game: Game) -> None:
    """wire.md §3.3: the set-up's signature is checked (under its own roster's first key)
    before its body is read, so a damaged configuration blames nobody."""
    wires = list(game.table.wires)
    setup = wires[0]
    at = setup.index(b"players=4") + len(b"players=")
    wires[0] = setup[:at] + b"7" + setup[at + 1 :]  # players=7: no such configuration
    report = audit_file(game.file(wires))
    assert report.status is Status.CORRUPT and report.verified == 0
    failure = report.failure
    assert failure is not None and failure.at is not None and failure.blamed is None
    assert failure.at.record == 1 and "nobody provably signed" in failure.reason
    assert "configuration" not in failure.reason


def test_a_set_up_its_host_signed_but_the_protocol_refuses_blames_the_host(game: Game) -> None:
    def bad_config(body: dict[str, Any]) -> None:
        body["config"] = body["config"].replace(b"players=4", b"players=7")

    wires = [game.forge(0, bad_config), *game.table.wires[1:]]
    report = audit_file(game.file(wires))
    assert report.status is Status.VIOLATION and report.exit_code == 1
    failure = report.failure
    assert failure is not None and failure.blamed == 0 and failure.at is not None
    assert failure.at.record == 1 and failure.at.signed
    assert [e.record for e in failure.evidence] == [1]
    assert "players" in failure.reason
    render(report)
    json.dumps(to_json(report))


@pytest.mark.parametrize("data", [b"", b"TP2PTRN", bytes(range(256)) * 3])
def test_garbage_is_reported_not_raised(data: bytes) -> None:
    report = audit_file(data)
    assert report.status is Status.CORRUPT and report.verified == 0
    assert "CORRUPT" in render(report)
    json.dumps(to_json(report))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(position=st.integers(min_value=0), change=st.integers(min_value=1, max_value=255))
def test_any_changed_byte_is_caught(games: dict[int, Game], position: int, change: int) -> None:
    data = bytearray(games[3].data)
    data[position % len(data)] ^= change
    report = audit_file(bytes(data))
    assert report.status is not Status.VALID


# ---------------------------------------------------------------------- several files


def test_prefixes_of_one_history_agree(game: Game) -> None:
    full = audit_file(game.data)
    cut = audit_file(game.file(game.table.wires[:50]))
    comparison = compare([cut, full, full])
    assert comparison.agreement is Agreement.SAME and comparison.status is Status.VALID


def test_two_valid_files_that_fork_expose_an_equivocation(games: dict[int, Game]) -> None:
    g = games[3]
    other = played(3, Contract.GARDE_SANS, b"audit3", bot_seed=2)
    reports = [audit_file(g.data), audit_file(other.data)]
    assert [r.status for r in reports] == [Status.VALID, Status.VALID]
    fork = next(
        i for i, (x, y) in enumerate(zip(g.table.wires, other.table.wires, strict=False)) if x != y
    )
    comparison = compare(reports)
    assert comparison.agreement is Agreement.FORK and comparison.status is Status.VIOLATION
    assert comparison.record == fork + 1
    assert comparison.blamed == g.envelopes[fork].seat == other.envelopes[fork].seat
    assert [e.wire for e in comparison.evidence] == [g.table.wires[fork], other.table.wires[fork]]
    text = render_comparison(comparison, ["a.tp2p", "b.tp2p"], reports)
    assert "DISAGREE" in text and "equivocation" in text and "a.tp2p: record" in text


def test_a_file_with_unsigned_bytes_diverges_without_blame(game: Game) -> None:
    wires = list(game.table.wires)
    wires[20] = wires[20][:40] + bytes([wires[20][40] ^ 1]) + wires[20][41:]
    comparison = compare([audit_file(game.data), audit_file(game.file(wires))])
    assert comparison.agreement is Agreement.DIVERGE and comparison.status is Status.CORRUPT
    assert comparison.record == 21 and comparison.blamed is None


def test_files_of_different_tables_do_not_agree(games: dict[int, Game]) -> None:
    reports: list[TranscriptReport] = [audit_file(games[3].data), audit_file(games[4].data)]
    comparison = compare(reports)
    assert comparison.agreement is Agreement.OTHER_TABLE and comparison.status is Status.CORRUPT
