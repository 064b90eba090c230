"""Tampering: every forged or altered message is refused and blamed on the right seat.

A recorded honest game is replayed by a fresh observer (the ``audit`` path) with one
message replaced by a forgery signed by its seat's key — a seat that cheats — or by bytes
nobody signed. The observer must stop exactly there, naming the seat (or nobody) and
keeping the offending bytes as evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tarot_p2p.conformance.cheats import false_petit_sec
from tarot_p2p.crypto.group import point_to_bytes
from tarot_p2p.crypto.keys import key_context, make_key_share
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.protocol.envelope import SignedEnvelope, seal
from tarot_p2p.protocol.errors import LocalProtocolError, SeatViolation, UnattributedMessage
from tarot_p2p.protocol.messages import Ecart, Setup, dump_body, load_body
from tarot_p2p.protocol.peer import CheatExposed, Peer, replay_file
from tarot_p2p.protocol.table import Phase, binding
from tarot_p2p.protocol.transcript import TranscriptFileError, file_header, genesis_digest
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import TRUMP_MASK, cards_of, mask_of, trump
from tarot_p2p.rules.deal import deal_pattern
from tarot_p2p.rules.scoring import Contract
from tests.protocol.harness import (
    Bot,
    Table,
    lying_ecart,
    make_table,
    one_deal,
    play_game,
    play_with_a_revoke,
    rig_deal,
    rig_trumps_to_discard,
    step,
    until_poignee,
)


@pytest.fixture(scope="module")
def game() -> Table:
    table = make_table(one_deal(4), seed=b"tamper")
    play_game(table, Bot(contract=Contract.GARDE, seed=11))
    return table


def fresh_observer(table: Table) -> Peer:
    o = table.observer
    roster = [k.public_key() for k in table.keys]
    names = [f"P{i}" for i in range(table.config.seats)]
    return Peer(table.config, o.table_id, roster, names)


def envelopes(table: Table) -> list[SignedEnvelope]:
    return list(table.observer.transcript)


def find(table: Table, kind: str, hand: int = 1, nth: int = 0) -> int:
    hits = [i for i, e in enumerate(envelopes(table)) if e.kind == kind and e.hand == hand]
    return hits[nth]


def forge(
    table: Table, index: int, mutate: Callable[[dict[str, Any]], None], seat: int | None = None
) -> bytes:
    """Message ``index`` with its body changed by ``mutate``, re-signed by ``seat``'s key."""
    env = envelopes(table)[index]
    body = dict(env.body)
    mutate(body)
    signer = env.seat if seat is None else seat
    return seal(
        table.key_of(env.hand, signer),
        table_id=env.table_id,
        hand=env.hand,
        seq=env.seq,
        seat=signer,
        prev=env.prev,
        kind=env.kind,
        body=body,
    ).wire


def replay_until_refused(table: Table, index: int, wire: bytes) -> Exception:
    observer = fresh_observer(table)
    for w in table.wires[:index]:
        observer.receive(w)
    with pytest.raises((SeatViolation, UnattributedMessage)) as info:
        observer.receive(wire)
    return info.value


def test_honest_replay_accepts_everything(game: Table) -> None:
    observer = fresh_observer(game)
    for w in game.wires:
        observer.receive(w)
    assert observer.transcript.head == game.observer.transcript.head
    assert observer.table.sheet is not None
    assert observer.table.sheet.lines == game.observer.table.sheet.lines  # type: ignore[union-attr]


def blamed(exc: Exception, seat: int, wire: bytes, words: str) -> None:
    assert isinstance(exc, SeatViolation), exc
    assert exc.seat == seat
    assert wire in exc.evidence
    assert words in exc.reason, exc.reason


def swap_first_two(field: str, size: int) -> Callable[[dict[str, Any]], None]:
    def mutate(body: dict[str, Any]) -> None:
        data = body[field]
        body[field] = data[size : 2 * size] + data[:size] + data[2 * size :]

    return mutate


@pytest.mark.parametrize(
    ("kind", "nth", "mutate", "words"),
    [
        ("shuffle", 2, swap_first_two("deck", 66), "shuffle"),
        ("shares", 1, swap_first_two("d", 33), "deal"),
        ("key", 3, lambda b: b.update(pok=bytes(32) + b["pok"][32:]), "key share"),
        ("score", 2, lambda b: b.update(scores=[b["scores"][0] + 1, *b["scores"][1:]]), "score"),
        ("play", 5, lambda b: b.update(slot=9), "not an unplayed card"),  # a chien slot
        ("action", 0, lambda b: b.update(action=[7, 0]), "in the clear"),
        ("action", 1, lambda b: b.update(action=[1, 9]), "action"),
        ("ecart", 0, lambda b: b.update(discard=[0, 0, 1, 2, 3, 4]), "écart"),
        ("shares", 0, lambda b: b.update(extra=1), "unknown keys"),
    ],
)
def test_forged_message_is_blamed_on_its_signer(
    game: Table, kind: str, nth: int, mutate: Callable[[dict[str, Any]], None], words: str
) -> None:
    index = find(game, kind, nth=nth)
    wire = forge(game, index, mutate)
    exc = replay_until_refused(game, index, wire)
    blamed(exc, envelopes(game)[index].seat, wire, words)


def test_message_out_of_turn_is_blamed_on_its_signer(game: Table) -> None:
    index = find(game, "shares")
    intruder = (envelopes(game)[index].seat + 1) % 4
    wire = forge(game, index, lambda b: None, seat=intruder)
    exc = replay_until_refused(game, index, wire)
    blamed(exc, intruder, wire, "out of turn")


def test_altered_bytes_blame_nobody(game: Table) -> None:
    index = find(game, "play")
    original = game.wires[index]
    wire = original[:-1] + bytes([original[-1] ^ 1])
    exc = replay_until_refused(game, index, wire)
    assert isinstance(exc, UnattributedMessage)


def test_own_illegal_choice_is_a_local_error() -> None:
    table = make_table(one_deal(3), seed=b"local")
    bot = Bot(contract=Contract.PRISE)
    while table.peers[0].hand.phase is not Phase.BIDDING or table.peers[0].hand.hand == 0:
        step(table, bot)
    sender = table.peers[0].expected_sender()
    assert sender is not None
    peer = table.peer_at(sender)
    head = peer.transcript.head
    with pytest.raises(LocalProtocolError):
        peer.act(a.PLAY[0])
    other = table.peer_at((sender + 1) % 3)
    assert other.next_message() is None
    assert peer.transcript.head == head


def test_an_ecart_naming_no_card_is_a_local_error() -> None:
    table = make_table(one_deal(4), seed=b"tamper")
    bot = Bot(contract=Contract.GARDE, seed=11)
    while table.observer.hand.phase is not Phase.ECART:
        step(table, bot)
    sender = table.observer.expected_sender()
    assert sender is not None
    taker = table.peer_at(sender)
    head = taker.transcript.head
    legal = [x.card for x in taker.legal_actions() if isinstance(x, a.Discard)]
    five = sum(1 << c for c in legal[:5])
    for beyond in (a.HIDDEN, 100):  # bits past the deck: a client's bug, not a crash
        with pytest.raises(LocalProtocolError):
            taker.discard(five | 1 << beyond)
    assert taker.transcript.head == head


def test_false_trump_in_the_ecart_is_exposed_and_blamed_on_the_taker() -> None:
    table = make_table(one_deal(4), seed=b"tamper")
    taker, wire = lying_ecart(table)
    taker_seat = taker.seat
    others = [p for p in (*table.peers, table.observer) if p is not taker]
    for p in others:
        p.receive(wire)
    # The defenders open the taker's kept cards and the "trumps"; the last one exposes him.
    exposed: list[CheatExposed] = []
    while True:
        sender = others[0].expected_sender()
        if sender is None:
            break
        try:
            out = table.peer_at(sender).next_message()
        except CheatExposed as exc:
            exposed.append(exc)
            out = exc.outgoing
        assert out is not None
        for p in others:
            if p.seat != sender:
                try:
                    p.receive(out)
                except CheatExposed as exc:
                    exposed.append(exc)
    assert len(exposed) == len(others)
    for exc in exposed:
        assert exc.seat == taker_seat and "ecart-shown" in exc.reason
        assert exc.evidence[0] == wire


def transcript_file(table: Table, wires: list[bytes]) -> bytes:
    o = table.observer
    records = b"".join(len(w).to_bytes(4, "big") + w for w in wires)
    return file_header(o.table_id, o.binding) + records


def test_saved_transcript_replays_to_the_same_sheet(game: Table) -> None:
    replay = replay_file(transcript_file(game, game.wires) + b"\x00\x00")
    assert replay.error is None and replay.accepted == len(game.wires)
    assert replay.torn_tail == 2
    sheet = replay.observer.table.sheet
    assert sheet is not None and game.observer.table.sheet is not None
    assert sheet.lines == game.observer.table.sheet.lines


def test_tampered_transcript_fails_at_the_forged_record(game: Table) -> None:
    index = find(game, "score", nth=1)
    wires = list(game.wires)
    wires[index] = forge(game, index, lambda b: b.update(scores=[0] * 4))
    replay = replay_file(transcript_file(game, wires) + b"\x00")
    assert replay.accepted == index
    assert isinstance(replay.error, SeatViolation)
    assert replay.error.seat == envelopes(game)[index].seat
    # What the audit then shows: the table as it stood before the forged record, and the
    # file's torn tail (a byte after the last record) still counted.
    assert replay.observer.transcript.head == game.observer.transcript.digest_after(index)
    assert replay.torn_tail == 1


def test_aborted_transcript_names_who_was_to_speak(game: Table) -> None:
    index = find(game, "play", nth=10)
    replay = replay_file(transcript_file(game, game.wires[:index]))
    assert replay.error is None
    assert replay.observer.expected_sender() == envelopes(game)[index].seat


def test_file_without_set_up_is_unusable(game: Table) -> None:
    with pytest.raises(TranscriptFileError):
        replay_file(transcript_file(game, game.wires[1:]))


def test_set_up_with_unusable_names_is_refused() -> None:
    key = Ed25519PrivateKey.from_private_bytes(bytes(32))
    keys = tuple(
        Ed25519PrivateKey.from_private_bytes(bytes([i]) * 32).public_key().public_bytes_raw()
        for i in range(3)
    )
    setup = Setup(one_deal(3).canonical_bytes(), keys, ("Ana", " ana", "Ben"))
    table_id, bound = bytes(32), binding(setup)
    wire = seal(
        key,
        table_id=table_id,
        hand=0,
        seq=0,
        seat=0,
        prev=genesis_digest(table_id, bound),
        kind="table",
        body=dump_body(setup),
    ).wire
    data = file_header(table_id, bound) + len(wire).to_bytes(4, "big") + wire
    with pytest.raises(TranscriptFileError, match="names must differ"):
        replay_file(data)


def test_revoke_passes_the_public_checks_and_is_penalised_by_the_audit() -> None:
    table, cheater = play_with_a_revoke()
    assert cheater is not None, "the seed must give a chance to revoke"
    audit = table.observer.hand.audit
    assert audit is not None and audit.offences
    assert audit.offences[0].seat == cheater.seat
    assert audit.outcome is not None and audit.outcome.offender == cheater.seat
    heads = {p.transcript.head for p in (*table.peers, table.observer)}
    assert len(heads) == 1
    sheet = table.observer.table.sheet
    assert sheet is not None and sheet.lines[0].scores == audit.returns


def test_two_messages_for_one_slot_are_equivocation(game: Table) -> None:
    index = find(game, "play", nth=3)
    observer = fresh_observer(game)
    for w in game.wires[: index + 1]:
        observer.receive(w)
    other = forge(game, index, lambda b: b.update(slot=9))
    with pytest.raises(SeatViolation) as info:
        observer.receive(other)
    assert info.value.seat == envelopes(game)[index].seat
    assert "equivocation" in info.value.reason
    assert game.wires[index] in info.value.evidence and other in info.value.evidence


def test_false_petit_sec_is_blamed_on_its_sender() -> None:
    table = make_table(one_deal(4), seed=b"petit")
    bot = Bot()
    while table.observer.hand.phase is not Phase.BIDDING:
        step(table, bot)
    seat = table.observer.expected_sender()
    assert seat is not None
    liar = table.peer_at(seat)
    assert a.PETIT_SEC not in liar.legal_actions()
    with pytest.raises(LocalProtocolError):
        liar.act(a.PETIT_SEC)
    wire = false_petit_sec(liar, table.key_of(1, seat), DeterministicRandom(b"liar"))
    with pytest.raises(SeatViolation) as info:
        table.observer.receive(wire)
    assert info.value.seat == seat and "petit" in info.value.reason


FUZZ_KINDS = ("key", "shuffle", "shares", "action", "play", "score")

values = st.one_of(
    st.binary(max_size=80),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.lists(st.integers(min_value=0, max_value=200), max_size=8),
    st.text(max_size=8),
    st.none(),
)


@pytest.fixture(scope="module")
def positioned(game: Table) -> dict[str, tuple[Peer, int]]:
    """For each fuzzed kind, an observer that has accepted everything before one such
    message (the checks of these kinds all run before the state changes)."""
    out = {}
    for kind in FUZZ_KINDS:
        index = find(game, kind, nth=1)
        observer = fresh_observer(game)
        for w in game.wires[:index]:
            observer.receive(w)
        out[kind] = (observer, index)
    return out


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(kind=st.sampled_from(FUZZ_KINDS), key_pick=st.integers(0, 7), value=values)
def test_any_forged_body_is_refused_with_a_protocol_error(
    game: Table, positioned: dict[str, tuple[Peer, int]], kind: str, key_pick: int, value: object
) -> None:
    observer, index = positioned[kind]
    body = envelopes(game)[index].body
    keys = sorted(body)
    key = keys[key_pick % len(keys)] if key_pick < 6 else "junk"
    if key != "junk" and body[key] == value:
        return
    wire = forge(game, index, lambda b: b.__setitem__(key, value))
    with pytest.raises(SeatViolation) as info:
        observer.receive(wire)
    assert info.value.seat == envelopes(game)[index].seat
    assert observer.transcript.head == game.observer.transcript.digest_after(index)


def test_a_relayed_duplicate_is_ignored(game: Table) -> None:
    observer = fresh_observer(game)
    for w in game.wires[:40]:
        observer.receive(w)
    head = observer.transcript.head
    assert envelopes(game)[5].hand == 0, "a set-up message, signed by member index"
    for index in (5, 20, 39):
        assert observer.receive(game.wires[index]) == []
    assert observer.transcript.head == head


def test_after_the_draw_a_member_index_is_not_a_sender(game: Table) -> None:
    # Re-sign a hand-1 message with the key of the member whose index is the sender
    # named in it: checked against the seat's key, the signature fails (nobody blamed).
    seating = game.observer.seating
    assert seating is not None
    index = next(
        i for i, e in enumerate(envelopes(game)) if e.hand == 1 and seating[e.seat] != e.seat
    )
    env = envelopes(game)[index]
    wire = seal(
        game.keys[env.seat],
        table_id=env.table_id,
        hand=env.hand,
        seq=env.seq,
        seat=env.seat,
        prev=env.prev,
        kind=env.kind,
        body=env.body,
    ).wire
    exc = replay_until_refused(game, index, wire)
    assert isinstance(exc, UnattributedMessage) and "signature" in str(exc)


def test_a_message_of_a_kind_the_phase_does_not_expect_is_refused(game: Table) -> None:
    """The expected sender of the score round sends a valid, well-proven key share instead
    of its score line: the kind is refused for the phase (were it not, the key handler
    would take it and the round would move on without that seat's score)."""
    index = find(game, "score")
    env = envelopes(game)[index]
    _, share = make_key_share(
        key_context(env.table_id, env.hand, env.seat), DeterministicRandom(b"stray key")
    )
    wire = seal(
        game.key_of(env.hand, env.seat),
        table_id=env.table_id,
        hand=env.hand,
        seq=env.seq,
        seat=env.seat,
        prev=env.prev,
        kind="key",
        body={
            "y": point_to_bytes(share.y),
            "pok": share.proof.to_bytes(),
            "e": point_to_bytes(share.y),
        },
    ).wire
    exc = replay_until_refused(game, index, wire)
    assert isinstance(exc, SeatViolation) and exc.seat == env.seat
    assert "'key' is not expected in phase" in exc.reason


def test_any_valid_poignee_may_be_shown_and_nothing_else() -> None:
    """``act`` takes any poignée the rules accept, not only the one ``legal_actions``
    lists (a player chooses which ten of his eleven trumps to show), and refuses, as a
    local error that signs nothing, one naming a card he does not hold, of the wrong size,
    or with a card that is no trump."""
    table = make_table(one_deal(4), seed=b"any poignee")
    shown = [trump(n) for n in range(2, 13)]  # eleven trumps, the Petit not among them
    plain = [c for c in range(56) if c % 14 < 10][:7]

    def deck_for(dealer: int) -> list[int]:
        holder = (dealer + 1) % 4
        mine = iter(shown + plain)
        rest = iter(c for c in range(78) if c not in shown and c not in plain)
        return [
            next(mine) if dest == holder else next(rest)
            for dest in deal_pattern(table.config, dealer)
        ]

    rig_deal(table, deck_for)
    bot = Bot(contract=Contract.GARDE, seed=2)
    peer, offers = until_poignee(table, bot)
    listed = {frozenset(cards_of(x.cards)) for x in offers}
    other_ten = next(
        ten for i in range(11) if (ten := frozenset(shown[:i] + shown[i + 1 :])) not in listed
    )
    head = peer.transcript.head
    stranger = next(c for c in cards_of(TRUMP_MASK) if c not in shown)
    for cards in (
        [*sorted(other_ten)[1:], stranger],  # a trump he does not hold
        sorted(other_ten)[1:],  # nine
        [*sorted(other_ten)[1:], plain[0]],  # a plain card among them
    ):
        with pytest.raises(LocalProtocolError, match="is not a legal action now"):
            peer.act(a.Poignee(mask_of(cards)))
        assert peer.transcript.head == head
    wire = peer.act(a.Poignee(mask_of(other_ten)))
    for other in (*table.peers, table.observer):
        if other is not peer:
            other.receive(wire)
    assert table.observer.transcript.head != head


def test_what_a_peer_tells_of_the_table_and_its_own_cards() -> None:
    """The accessors the seat's driver and the page read: who the others are, whose key
    is whose, which kinds the table expects, the cards a seat holds and has seen (an
    observer none), every one checked against the table's own state."""
    table = make_table(one_deal(3), seed=b"accessors")
    bot = Bot(contract=Contract.PRISE)
    while not (table.observer.hand.hand == 1 and table.observer.hand.phase is Phase.BIDDING):
        step(table, bot)
    for member, peer in enumerate(table.peers):
        assert peer.other_members() == [m for m in range(3) if m != member]
        for other, key in enumerate(table.keys):
            assert peer.member_of(key.public_key()) == other
    stranger = Ed25519PrivateKey.from_private_bytes(bytes(32)).public_key()
    assert table.observer.member_of(stranger) is None
    assert table.observer.expected_types() == ("action", "petit_sec")
    assert table.observer.my_cards() == 0 and table.observer.private_cards() == 0
    dealt = 0
    for peer in table.peers:
        held = peer.my_cards()
        assert bin(held).count("1") == 24 and peer.private_cards() == held
        assert not dealt & held
        dealt |= held
    play_game(table, bot)
    assert table.observer.expected_sender() is None and table.observer.expected_types() == ()
    for peer in table.peers:
        assert peer.my_cards() == 0 and bin(peer.private_cards()).count("1") >= 24


def test_a_taker_made_to_discard_trumps_shows_every_one() -> None:
    """A garde whose taker holds the four kings and fourteen trumps and finds six trumps
    in the chien: his six discards are trumps, and his écart shows each of them, with its
    shares, to every peer (``table.md`` §2 ``ecart``); the audit finds nothing hidden."""
    table = make_table(one_deal(4), seed=b"trumps shown")
    rig_trumps_to_discard(table)
    play_game(table, Bot(contract=Contract.GARDE))
    hand = table.observer.hand
    assert hand.audit is not None and hand.audit.offences == ()
    (ecart,) = [e for e in table.observer.transcript if e.hand == 1 and e.kind == "ecart"]
    shown = load_body("ecart", ecart.body)
    assert isinstance(shown, Ecart) and len(shown.trumps) == len(shown.discard) == 6
    assert hand.record().unshown_discards == 0
    heads = {p.transcript.head for p in (*table.peers, table.observer)}
    assert heads == {table.observer.transcript.head}


def test_a_hand_0_violation_seen_after_the_draw_names_the_seat_drawn() -> None:
    """Hand 0 is signed by member index, every later hand by seat: a second version of a
    member's hand-0 message, met once the seats are drawn, names the seat that member
    drew (not the innocent player now sitting at the member's index), and says which
    member of the set-up signed it, with both versions as evidence."""
    table = make_table(one_deal(4), seed=b"by seat")
    bot = Bot()
    while table.observer.hand.hand == 0:
        step(table, bot)
    seating = table.observer.seating
    assert seating is not None
    member = next(m for m in range(4) if seating.index(m) != m)
    first = next(e for e in table.observer.transcript if e.hand == 0 and e.seat == member)
    body = dict(first.body)
    key = next(k for k, v in body.items() if isinstance(v, bytes))
    body[key] = bytes(len(body[key]))  # another version of the same slot
    twin = seal(
        table.keys[member], table_id=first.table_id, hand=0, seq=first.seq, seat=member,
        prev=first.prev, kind=first.kind, body=body,
    ).wire  # fmt: skip
    with pytest.raises(SeatViolation) as info:
        table.observer.receive(twin)
    assert info.value.seat == seating.index(member)
    assert info.value.reason == (
        f"equivocation: two messages for slot (0, {first.seq}) (member {member} of the set-up)"
    )
    assert info.value.evidence == (first.wire, twin)
