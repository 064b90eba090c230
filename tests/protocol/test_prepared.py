"""The next hand's opening made while a hand is played (``table.md`` §1.6): every seat
makes its key, escrow and shuffle of hand ``H + 1`` during hand ``H``, the others keep
them early, and when hand ``H`` ends only the deal is left."""

from __future__ import annotations

import pytest

from tarot_p2p.crypto.escrow import Escrow, SealedPiece, escrow_context, make_escrow
from tarot_p2p.crypto.group import ORDER
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.envelope import SignedEnvelope, open_envelope, seal
from tarot_p2p.protocol.errors import SeatViolation
from tarot_p2p.protocol.peer import CheatExposed, Peer, replay_file
from tarot_p2p.protocol.table import Phase
from tarot_p2p.protocol.transcript import EarlyInRound, file_header, file_record
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.scoring import Contract
from tests.protocol.harness import Bot, Table, deliver, make_table, step

BOT = Bot(contract=Contract.GARDE, seed=3)
OPENING = ("key", "escrow", "shuffle")


def deals(n: int, players: int = 4) -> TableConfig:
    return TableConfig(players=players, game_end=GameEnd.DEALS, game_length=n)


def play_preparing(table: Table, restarted: Peer | None = None) -> list[bytes]:
    """Play the game with every seat sending at once whatever it may, its next hand's
    opening included (``prepare``); returns every message in the order sent. A
    ``restarted`` seat first sends again what it made ahead, as the runner does."""
    receivers = [*table.peers, table.observer]
    inbox: dict[int, list[bytes]] = {id(r): [] for r in receivers}
    sent: list[bytes] = []
    stuck = 0
    again = [] if restarted is None else [(restarted, w) for w in restarted.pending]
    while table.observer.expected_sender() is not None:
        outgoing, again = again, []
        for peer in table.peers:
            outgoing += [(peer, wire) for wire in peer.prepare()]
            if peer.my_turn():
                wire = peer.next_message()
                outgoing.append((peer, wire if wire is not None else BOT.choose(peer)))
        stuck = 0 if outgoing else stuck + 1
        assert stuck < 3, "nobody may speak, yet the game is not over"
        for sender, wire in outgoing:
            sent.append(wire)
            for r in receivers:
                if r is not sender:
                    inbox[id(r)].append(wire)
        for r in receivers:
            deliver(r, inbox[id(r)])
    return sent


def records(peer: Peer) -> list[bytes]:
    return [e.wire for e in peer.transcript]


def _env(table: Table, wire: bytes):  # type: ignore[no-untyped-def]
    return open_envelope(wire, table_id=table.observer.table_id, roster=None)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_next_opening_is_made_during_the_hand_and_only_the_deal_is_left(
    players: int,
) -> None:
    table = make_table(deals(2, players), seed=b"prepared%d" % players)
    sent = play_preparing(table)
    reference = records(table.observer)
    assert all(records(p) == reference for p in table.peers)
    assert table.observer.sheet is not None and len(table.observer.sheet.lines) == 2
    envs = [_env(table, w) for w in sent]
    last_score = max(i for i, e in enumerate(envs) if e.hand == 1 and e.kind == "score")
    ahead = [e for e in envs[:last_score] if e.hand == 2]
    # Hand 2's whole opening went out before hand 1's last score...
    assert sorted(e.kind for e in ahead) == sorted(OPENING * players)
    # ...and is the opening of hand 2 in the transcript, as it was sent.
    opening = [e for e in table.observer.transcript if e.hand == 2 and e.kind in OPENING]
    assert [e.wire for e in opening] == sorted(
        (e.wire for e in ahead), key=lambda w: _env(table, w).seq
    )
    # After hand 1's last score the next message sent is a share of hand 2's deal.
    after = envs[last_score + 1 :]
    assert after and after[0].hand == 2 and after[0].kind == "shares"
    assert all(e.kind not in OPENING for e in after)
    # Hand 2 is not prepared by anyone ahead of time beyond the game: no hand 3 message.
    assert all(e.hand <= 2 for e in envs)
    # An auditor replays the transcript file as any other.
    data = file_header(table.observer.table_id, table.observer.binding) + b"".join(
        file_record(e) for e in table.observer.transcript
    )
    replay = replay_file(data)
    assert replay.error is None and replay.accepted == len(reference)


def test_nothing_is_made_ahead_before_the_cards_are_dealt_nor_on_the_last_deal() -> None:
    table = make_table(deals(2), seed=b"not yet")
    while not (table.observer.hand.hand == 1 and table.observer.hand.phase is Phase.DEAL):
        assert step(table, BOT)
    assert all(p.prepare() == [] for p in table.peers)  # hand 1's own deal goes first
    assert not any(p.may_prepare for p in table.peers)  # (a runner asks before its thread)
    while table.observer.hand.phase is not Phase.BIDDING:
        assert step(table, BOT)
    assert all(p.may_prepare for p in table.peers)
    assert all(p.prepare() != [] for p in table.peers)  # the keys of hand 2
    last = make_table(deals(1), seed=b"last deal")
    while last.observer.hand.phase is not Phase.BIDDING:
        assert step(last, BOT)
    assert all(p.prepare() == [] for p in last.peers)  # no hand after this one


def _to_bidding_of_1(table: Table) -> None:
    while not (table.observer.hand.hand == 1 and table.observer.hand.phase is Phase.BIDDING):
        assert step(table, BOT)


def _file(peer: Peer) -> bytes:
    return file_header(peer.table_id, peer.binding) + b"".join(
        file_record(e) for e in peer.transcript
    )


def test_a_seat_that_stops_after_making_its_next_key_sends_the_same_one_again() -> None:
    """The key made ahead and its secrets are saved (table.md §7: ``w``, ``nx``, ``ne``):
    taken back from its files, the seat holds that key to send again, never makes a second
    one, and opens its cards of hand 2 with the key share it was made with."""
    table = make_table(deals(2), seed=b"prepared resume")
    _to_bidding_of_1(table)
    peer = table.peer_at(1)
    made = peer.prepare()
    assert [_env(table, w).kind for w in made] == ["key"]
    member = peer.member
    assert member is not None
    back = Peer.resume(
        _file(peer), peer.export_secrets(), identity=table.keys[member], rng=table.rngs[member]
    )
    assert back.pending == tuple(made)
    assert back.prepare() == []  # its key is made: nothing more before the others' keys
    table.peers[member] = back
    play_preparing(table, restarted=back)
    hand2 = [e for e in back.transcript if e.hand == 2 and e.kind == "key"]
    assert hand2[back.seat].wire == made[0]  # the key it made ahead, not another
    assert records(back) == records(table.observer)
    assert back.dealt is not None and back.secret_lost is None


def test_a_seat_showing_one_version_ahead_and_another_in_the_hand_is_caught() -> None:
    """Our escrow of hand 2 rests on the keys we took ahead: a seat whose key in the hand
    is another than the one it showed us signed two versions of its slot."""
    table = make_table(deals(2), seed=b"prepared equivocation")
    _to_bidding_of_1(table)
    keys = {p.seat: p.prepare() for p in table.peers}
    me = table.peer_at(0)
    for seat in (1, 2, 3):
        with pytest.raises(EarlyInRound):
            me.receive(keys[seat][0])
    assert [_env(table, w).kind for w in me.prepare()] == ["escrow"]
    shown = _env(table, keys[2][0])
    second = seal(
        table.key_of(2, 2),
        table_id=shown.table_id,
        hand=2,
        seq=shown.seq,
        seat=2,
        prev=shown.prev,
        kind="key",
        body={**shown.body, "pok": bytes(64)},
    )
    while me.hand.hand == 1:
        assert step(table, BOT)
    assert len([e for e in me.transcript if e.hand == 2]) == 1  # its own key, at once
    me.receive(keys[1][0])
    with pytest.raises(SeatViolation, match="equivocation") as caught:
        me.receive(second.wire)
    assert caught.value.seat == 2 and caught.value.evidence == (shown.wire, second.wire)


def test_a_badly_sealed_piece_of_the_next_hand_holds_back_the_shuffle_made_ahead() -> None:
    """Sending its shuffle, a seat accepts the escrow pieces sealed to it: made ahead, it
    would give up its complaint. Seat 1's escrow of hand 2, made ahead, seals seat 0's
    piece wrong: seat 0 makes no shuffle ahead, and in hand 2 it complains, naming seat 1
    (``crypto.md`` §10.5)."""
    table = make_table(deals(2, players=3), seed=b"bad piece ahead")
    cheater, holder = table.peer_at(1), table.peer_at(0)
    receivers = [*table.peers, table.observer]
    inbox: dict[int, list[bytes]] = {id(r): [] for r in receivers}
    exposed: list[CheatExposed] = []
    made_ahead: list[str] = []
    forged: set[bytes] = set()
    for _ in range(400):
        outgoing = []
        for peer in table.peers:
            for wire in peer.prepare():
                env = _env(table, wire)
                if peer is holder:
                    made_ahead.append(env.kind)
                if peer is cheater and env.kind == "escrow":
                    wire = badly_sealed_ahead(table, cheater, env, holder.seat or 0)
                    forged.add(wire)
                outgoing.append((peer, wire))
            if peer.my_turn():
                try:
                    wire = peer.next_message()
                except CheatExposed as exc:
                    exposed.append(exc)
                    wire = exc.outgoing
                outgoing.append((peer, wire if wire is not None else BOT.choose(peer)))
        for sender, wire in outgoing:
            for r in receivers:
                if r is not sender:
                    inbox[id(r)].append(wire)
        for r in receivers:
            # The cheater keeps its own honest version: the others get the forged one.
            box = inbox[id(r)] = [w for w in inbox[id(r)] if r is not cheater or w not in forged]
            try:
                deliver(r, box)  # what it keeps early stays in its box
            except CheatExposed as exc:
                exposed.append(exc)
        if exposed or table.observer.expected_sender() is None:
            break
    assert "escrow" in made_ahead and "shuffle" not in made_ahead
    assert exposed and all(exc.seat == cheater.seat for exc in exposed)


def badly_sealed_ahead(table: Table, cheater: Peer, env: SignedEnvelope, holder: int) -> bytes:
    """``env``, the cheater's escrow of the next hand made ahead, again with the piece of
    ``holder`` sealed wrong (its commitments still add up)."""
    prep = cheater._next
    ahead = cheater._ahead
    assert prep is not None and ahead is not None and cheater.seat is not None
    ctx = escrow_context(table.observer.table_id, env.hand, cheater.seat)
    honest = make_escrow(ahead.x, ctx, prep.machine.escrow_keys, DeterministicRandom(b"bad"))
    at = [s for s in range(table.config.seats) if s != cheater.seat].index(holder)
    pieces = list(honest.pieces)
    pieces[at] = SealedPiece(pieces[at].commitment, (pieces[at].sealed + 1) % ORDER)
    body = m.dump_body(m.Escrow(Escrow(honest.r, tuple(pieces)).to_bytes()))
    return seal(
        table.key_of(env.hand, env.seat), table_id=env.table_id, hand=env.hand, seq=env.seq,
        seat=env.seat, prev=env.prev, kind="escrow", body=body,
    ).wire  # fmt: skip


def test_a_seat_whose_files_predate_its_next_key_makes_nothing_more_of_that_hand() -> None:
    """A restored backup: the seat's secrets were saved before it made its key of hand 2,
    which the others hold. Taken back from those files, and given that key again by the
    table, the seat makes no second key (a second version of a signed slot) and no escrow
    or shuffle with a secret it no longer has: nothing more of hand 2 ahead of time."""
    table = make_table(deals(2), seed=b"lost ahead")
    _to_bidding_of_1(table)
    peer = table.peer_at(1)
    member = peer.member
    assert member is not None
    before = peer.export_secrets()
    keys = {p.member: p.prepare() for p in table.peers}
    assert all(len(k) == 1 and _env(table, k[0]).kind == "key" for k in keys.values())
    back = Peer.resume(_file(peer), before, identity=table.keys[member], rng=table.rngs[member])
    deliver(back, [w for k in keys.values() for w in k])
    assert back.prepare() == []
    assert back.pending == tuple(keys[member])  # its own key, kept for its slot
