"""The opening of a hand (``table.md`` §1.5): its keys, escrows and shuffles are built on
the hand's opening chain, which starts after the previous hand's first message, so that
they can be made while that hand is played; the deal and everything after it stay on the
transcript's chain."""

from __future__ import annotations

import hashlib

import pytest

from tarot_p2p.protocol.envelope import SignedEnvelope, open_envelope, seal
from tarot_p2p.protocol.errors import SeatViolation
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.table import Phase
from tarot_p2p.protocol.transcript import (
    EarlyInRound,
    TranscriptFileError,
    file_header,
    file_record,
    parse_file,
)
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.scoring import Contract
from tests.protocol.harness import Bot, Table, make_table, play_game, step

BOT = Bot(contract=Contract.GARDE, seed=3)
OPENING_KINDS = ("key", "escrow", "shuffle")


def two_deals(players: int = 4) -> TableConfig:
    return TableConfig(players=players, game_end=GameEnd.DEALS, game_length=2)


def link(prev: bytes, payload: bytes) -> bytes:
    return hashlib.sha256(
        b"tarot-p2p/transcript/v1/link\x00" + prev + hashlib.sha256(payload).digest()
    ).digest()


def expected_digests(envs: list[SignedEnvelope], genesis: bytes) -> list[bytes]:
    """What each record must carry as ``d``, rebuilt from ``wire.md`` §4.2 alone: the
    transcript's chain, the round's base in a parallel round, and in an opening the
    opening chain from the previous hand's first message."""
    heads = [genesis]
    for env in envs:
        heads.append(link(heads[-1], env.payload))
    out: list[bytes] = []
    opening: bytes | None = None
    for i, env in enumerate(envs):
        if env.seq == 0 and env.hand >= 1:
            first = next(j for j, e in enumerate(envs) if (e.hand, e.seq) == (env.hand - 1, 0))
            opening = hashlib.sha256(
                b"tarot-p2p/transcript/v1/opening\x00" + heads[first + 1]
            ).digest()
        chain = opening if env.hand >= 1 and env.kind in OPENING_KINDS else heads[i]
        # A parallel round's later messages carry what its first one carried.
        previous = envs[i - 1] if i else None
        same_round = (
            previous is not None
            and previous.hand == env.hand
            and previous.kind == env.kind
            and env.kind in ("key", "escrow", "shares", "score", "release")
        )
        out.append(out[-1] if same_round else chain)  # type: ignore[arg-type]
        if env.hand >= 1 and opening is not None:
            opening = link(opening, env.payload)
    return out


def test_a_game_carries_the_opening_chain_in_every_opening_and_the_transcript_after() -> None:
    table = make_table(two_deals(), seed=b"opening")
    play_game(table, BOT)
    envs = list(table.observer.transcript)
    assert table.observer.sheet is not None and len(table.observer.sheet.lines) == 2
    assert [e.prev for e in envs] == expected_digests(envs, table.observer.transcript.genesis)
    # The opening's digests are none of the transcript's: hand 2's keys do not say how
    # hand 1 ended, its deal does.
    heads = {table.observer.transcript.digest_after(i) for i in range(len(envs) + 1)}
    for hand in (1, 2):
        mine = [e for e in envs if e.hand == hand]
        assert all(e.prev not in heads for e in mine if e.kind in OPENING_KINDS)
        assert all(e.prev in heads for e in mine if e.kind not in OPENING_KINDS)


def test_each_opening_starts_after_the_first_message_of_the_hand_before() -> None:
    """Hand 2's keys can be made as soon as hand 1's first message is in: they carry the
    digest of the opening chain that starts there, whatever came after it in hand 1."""
    table = make_table(two_deals(), seed=b"opening start")
    play_game(table, BOT)
    transcript = table.observer.transcript
    envs = list(transcript)
    first_of_1 = next(i for i, e in enumerate(envs) if e.slot == (1, 0))
    start = hashlib.sha256(
        b"tarot-p2p/transcript/v1/opening\x00" + transcript.digest_after(first_of_1 + 1)
    ).digest()
    keys_of_2 = [e for e in envs if e.hand == 2 and e.kind == "key"]
    assert len(keys_of_2) == 4 and {e.prev for e in keys_of_2} == {start}
    assert transcript.position(start) == next(i for i, e in enumerate(envs) if e.slot == (2, 0))


def _to_phase(table: Table, hand: int, phase: Phase) -> None:
    while not (table.observer.hand.hand == hand and table.observer.hand.phase is phase):
        assert step(table, BOT)


def _resealed(table: Table, honest: bytes, prev: bytes) -> bytes:
    env = open_envelope(honest, table_id=table.observer.table_id, roster=None)
    return seal(
        table.key_of(env.hand, env.seat),
        table_id=env.table_id,
        hand=env.hand,
        seq=env.seq,
        seat=env.seat,
        prev=prev,
        kind=env.kind,
        body=env.body,
    ).wire


def test_a_key_built_on_the_end_of_the_hand_before_is_a_fork() -> None:
    """What protocol 3 sent: hand 2's first key on the head after hand 1's last score."""
    table = make_table(two_deals(), seed=b"opening fork")
    _to_phase(table, 2, Phase.KEYS)
    sender = table.peer_at(0)
    honest = sender.next_message()
    assert honest is not None
    transcript = table.observer.transcript
    assert transcript.expected_prev != transcript.head
    wrong = _resealed(table, honest, transcript.head)
    with pytest.raises(SeatViolation, match="fork") as fork:
        table.observer.receive(wrong)
    assert fork.value.seat == 0
    table.observer.receive(honest)  # the honest one still fits


def test_a_shuffle_built_on_the_transcript_instead_of_the_opening_is_a_fork() -> None:
    table = make_table(two_deals(3), seed=b"shuffle fork")
    _to_phase(table, 2, Phase.SHUFFLE)
    assert step(table, BOT)  # seat 0's shuffle, on the opening chain
    shuffler = table.peer_at(1)
    honest = shuffler.next_message()
    assert honest is not None
    transcript = table.observer.transcript
    wrong = _resealed(table, honest, transcript.head)
    with pytest.raises(SeatViolation, match="fork"):
        table.observer.receive(wrong)
    table.observer.receive(honest)


def test_the_deal_is_built_on_the_transcript_not_on_the_opening() -> None:
    """The cards are opened only on a history that says how the hand before ended."""
    table = make_table(two_deals(3), seed=b"deal chain")
    _to_phase(table, 2, Phase.DEAL)
    transcript = table.observer.transcript
    assert transcript.opening is None and transcript.expected_prev == transcript.head
    sender = table.peer_at(0)
    honest = sender.next_message()
    assert honest is not None
    envs = list(transcript)
    # On the opening chain's last point (what the shuffles were built on): a fork.
    last_shuffle = envs[-1]
    assert last_shuffle.kind == "shuffle"
    on_opening = link(last_shuffle.prev, last_shuffle.payload)
    with pytest.raises(SeatViolation, match="fork"):
        table.observer.receive(_resealed(table, honest, on_opening))
    table.observer.receive(honest)


def test_the_next_hands_keys_before_this_hand_is_over_are_kept_not_blamed() -> None:
    """A seat that saw every score of hand 1 sends its key of hand 2 at once; a seat still
    waiting for the last score keeps it, then takes it when its hand 1 is over."""
    table = make_table(two_deals(), seed=b"opening early")
    _to_phase(table, 2, Phase.KEYS)
    observer = table.observer
    envs = list(observer.transcript)
    assert envs[-1].kind == "score"
    behind = Peer(
        table.config,
        observer.table_id,
        [k.public_key() for k in table.keys],
        [f"P{i}" for i in range(4)],
    )
    for env in envs[:-1]:
        behind.receive(env.wire)
    assert behind.hand.hand == 1 and behind.hand.phase is Phase.SCORE
    key = table.peer_at(0).next_message()
    assert key is not None
    with pytest.raises(EarlyInRound):
        behind.receive(key)
    assert len(behind.transcript) == len(envs) - 1  # kept aside, nothing taken
    behind.receive(envs[-1].wire)
    assert behind.hand.hand == 2
    behind.receive(key)
    observer.receive(key)
    assert behind.transcript.head == observer.transcript.head


def _file(peer: Peer, envs: list[SignedEnvelope]) -> bytes:
    transcript = peer.transcript
    return file_header(transcript.table_id, transcript.binding) + b"".join(
        file_record(e) for e in envs
    )


def test_a_file_reader_without_the_rules_accepts_openings_and_refuses_older_history() -> None:
    """wire.md §4.4: a reader that does not run the table rules takes a digest of the
    hand's own history on either chain, and refuses one of the hand before."""
    table = make_table(two_deals(3), seed=b"opening file")
    play_game(table, BOT)
    envs = list(table.observer.transcript)
    parsed = parse_file(_file(table.observer, envs))
    assert parsed.transcript.head == table.observer.transcript.head
    second = next(i for i, e in enumerate(envs) if e.slot == (2, 0))
    # Hand 2's first key on a digest of hand 1's history (after its first message): no
    # digest of hand 2's own history, nor of its opening chain.
    stale = _resealed(table, envs[second].wire, table.observer.transcript.digest_after(second - 3))
    forged = [*envs[:second], open_envelope(stale, table_id=envs[0].table_id, roster=None)]
    with pytest.raises(TranscriptFileError, match="fork"):
        parse_file(_file(table.observer, forged))
