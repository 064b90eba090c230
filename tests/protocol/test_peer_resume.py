"""Resuming: a seat rebuilt mid-game from its transcript file and its exported secrets
goes on exactly as if it had never stopped.

Each test plays a game twice with the same seeds: once straight through, once with one
seat "crashing" at a chosen point and replaced by ``Peer.resume(file, secrets)`` with its
random source in the same state. Every later message, including the resumed seat's own
(its shares, its écart, its cards), must be byte for byte the same.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from tarot_p2p.protocol.codec import decode, encode
from tarot_p2p.protocol.peer import Peer, SecretLost, secrets_cover
from tarot_p2p.protocol.table import Phase
from tarot_p2p.protocol.transcript import file_header
from tarot_p2p.rules.actions import Bid
from tarot_p2p.rules.scoring import Contract
from tests.protocol.harness import Bot, Table, make_table, one_deal, play_game, step

SEED = b"resume"
BOT = Bot(contract=Contract.GARDE, seed=4)

Crash = Callable[[Table], int | None]
"""Given the table before a step, the seat to crash now (its current index), or None."""


def transcript_file(table: Table) -> bytes:
    o = table.observer
    return file_header(o.table_id, o.binding) + b"".join(
        len(w).to_bytes(4, "big") + w for w in table.wires
    )


def crash_and_resume(table: Table, seat: int) -> Peer:
    """Replace the peer at ``seat`` by one rebuilt from the file and its secrets."""
    old = table.peer_at(seat)
    member = old.member
    assert member is not None
    secrets = old.export_secrets()
    rng = copy.deepcopy(table.rngs[member])
    new = Peer.resume(transcript_file(table), secrets, identity=table.keys[member], rng=rng)
    table.peers[member], table.rngs[member] = new, rng
    return new


def played(crashes: list[Crash]) -> tuple[Table, list[int]]:
    """The game, with each crash (in order) resuming a seat once when it fires."""
    table = make_table(one_deal(4), seed=SEED)
    resumed: list[int] = []
    pending = list(crashes)
    while True:
        seat = pending[0](table) if pending else None
        if seat is not None:
            new = crash_and_resume(table, seat)
            assert new.transcript.head == table.observer.transcript.head
            assert new.seat == seat
            resumed.append(seat)
            pending.pop(0)
        if not step(table, BOT):
            assert not pending, "every crash point must be reached"
            return table, resumed


@pytest.fixture(scope="module")
def straight() -> Table:
    table = make_table(one_deal(4), seed=SEED)
    play_game(table, BOT)
    return table


def in_phase(phase: Phase, hand: int = 1, who: str = "sender") -> Crash:
    def crash(table: Table) -> int | None:
        h = table.observer.hand
        if h.hand != hand or h.phase is not phase:
            return None
        if who == "taker":
            assert h.engine is not None
            return h.engine.taker
        return h.expected_sender()

    return crash


def mid_play(tricks: int) -> Crash:
    def crash(table: Table) -> int | None:
        h = table.observer.hand
        if h.hand != 1 or h.phase is not Phase.PLAY or h.engine is None:
            return None
        return h.expected_sender() if len(h.engine.tricks) == tricks else None

    return crash


def test_resumed_seats_finish_the_game_identically(straight: Table) -> None:
    # One game, eight crashes: in the draw, the shuffle, the deal, the bidding, the taker
    # before and after his écart, the play and the final reveal.
    crashes = [
        in_phase(Phase.DRAW, hand=0),
        in_phase(Phase.SHUFFLE),
        in_phase(Phase.DEAL),
        in_phase(Phase.BIDDING),
        in_phase(Phase.ECART),
        in_phase(Phase.ECART_SHARES, who="taker"),
        mid_play(3),
        in_phase(Phase.REVEAL, who="taker"),
    ]
    table, resumed = played(crashes)
    assert len(resumed) == len(crashes)
    assert table.wires == straight.wires
    for seat in set(resumed):
        assert table.peer_at(seat).dealt == straight.peer_at(seat).dealt
    sheets = {p.sheet.lines for p in table.peers if p.sheet is not None}
    assert straight.observer.sheet is not None
    assert sheets == {straight.observer.sheet.lines}


def test_secrets_blob_is_small_and_versioned() -> None:
    table = make_table(one_deal(4), seed=SEED)
    while table.observer.hand.phase is not Phase.ECART_SHARES:
        step(table, BOT)
    h = table.observer.hand
    assert h.engine is not None and h.engine.taker is not None
    blob = table.peer_at(h.engine.taker).export_secrets()
    fields = decode(blob)
    assert isinstance(fields, dict)
    assert sorted(fields) == ["e", "h", "m", "ne", "nx", "p", "t", "v", "w", "x"]
    assert fields["v"] == 4 and fields["w"] == [] and fields["nx"] == fields["ne"] == b""
    assert fields["h"] == 1 and fields["t"] == h.table_id
    assert isinstance(fields["x"], bytes) and len(fields["x"]) == 32
    assert isinstance(fields["e"], bytes) and len(fields["e"]) == 32
    assert sorted(fields["p"]) == list(range(24))  # type: ignore[arg-type]
    assert encode(fields) == blob, "the blob is in the fixed msgpack form"


def test_secrets_of_another_hand_or_seat_are_refused() -> None:
    table = make_table(one_deal(4), seed=SEED)
    while table.observer.hand.phase is not Phase.DRAW:
        step(table, BOT)
    stale = {p.member: p.export_secrets() for p in table.peers}  # hand 0's key shares
    while table.observer.hand.phase is not Phase.BIDDING:
        step(table, BOT)
    data = transcript_file(table)
    for member, peer in enumerate(table.peers[:2]):
        rng = copy.deepcopy(table.rngs[member])
        # Secrets older than the file's own key of hand 1 (a backup put back): the seat
        # resumes, knows it cannot sign anything more in hand 1, and says so in words.
        behind = Peer.resume(data, stale[member], identity=table.keys[member], rng=rng)
        lost = behind.secret_lost
        assert lost is not None and (lost.hand, lost.kind) == (1, "key")
        assert behind.my_cards() == 0
        with pytest.raises(SecretLost, match="our own key of hand 1 is lost"):
            behind.act(Bid(Contract.PRISE))
        other = table.peers[(member + 1) % 4].export_secrets()
        with pytest.raises(ValueError, match=r"not seat \d+'s key"):
            Peer.resume(data, other, identity=table.keys[member], rng=rng)
        fresh = peer.export_secrets()
        assert Peer.resume(data, fresh, identity=table.keys[member], rng=rng).my_cards()
    with pytest.raises(ValueError, match="unreadable"):
        Peer.resume(data, b"\xc1", identity=table.keys[0], rng=table.rngs[0])


def test_a_taker_given_back_its_ecart_without_the_permutation_knows_it_cannot_go_on() -> None:
    """The taker's files put back from before its écart (a backup): the écart comes back
    from the others, and its re-shuffle's permutation is in no file. The peer accepts the
    record (its own signed copy) and says it can sign nothing more in this hand, where it
    used to fail on an assertion as it took the record."""
    table = make_table(one_deal(4), seed=SEED)
    while table.observer.hand.phase is not Phase.ECART:
        step(table, BOT)
    engine = table.observer.hand.engine
    assert engine is not None and engine.taker is not None
    taker = table.peer_at(engine.taker)
    member = taker.member
    assert member is not None
    backup = (transcript_file(table), taker.export_secrets(), len(table.wires))
    while table.observer.hand.phase is Phase.ECART:
        step(table, BOT)
    rng = copy.deepcopy(table.rngs[member])
    behind = Peer.resume(backup[0], backup[1], identity=table.keys[member], rng=rng)
    assert behind.secret_lost is None and behind.my_turn()
    for wire in table.wires[backup[2] :]:
        behind.receive(wire)
    lost = behind.secret_lost
    assert lost is not None and (lost.hand, lost.kind) == (1, "ecart")
    assert behind.transcript.head == table.observer.transcript.head
    with pytest.raises(SecretLost, match="our own ecart of hand 1"):
        behind.act(Bid(Contract.PRISE))  # whatever it would sign next in this hand


def test_a_blob_covers_another_that_lacks_only_messages_it_keeps() -> None:
    """secrets_cover (table.md §7): an earlier blob still listing messages made ahead that
    the transcript took since serves as well; one missing a message made ahead, or with
    other secrets, does not."""
    table = make_table(one_deal(4), seed=SEED)
    while table.observer.hand.hand == 0 or table.observer.hand.phase is not Phase.SHUFFLE:
        step(table, BOT)
    peer = table.peer_at(2)
    current = peer.export_secrets()
    fields = decode(current)
    assert isinstance(fields, dict) and fields["w"] == []
    older = encode({**fields, "w": [b"\x01" * 40]})  # a message taken in since
    assert secrets_cover(older, current) and secrets_cover(current, current)
    assert secrets_cover(older, older), "the same messages made ahead, kept in both"
    assert not secrets_cover(current, older), "a message made ahead would be lost"
    assert not secrets_cover(encode({**fields, "x": b"\x02" * 32}), current)
    assert not secrets_cover(encode({**fields, "h": 2}), current)
    assert not secrets_cover(b"", current)
