"""``Peer.resume`` refuses secrets and identities that are not the file's, in words.

Why: a seat taken back with another table's secrets, or another member's, would sign with
keys the others do not expect (blamed for it), or as another seat. A mutation run of
``protocol/peer.py`` found these checks reached by no test of its selection
(``docs/mutation.md``): each is tried here alone, with the value next to it accepted.
"""

from __future__ import annotations

import pytest

from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.protocol.codec import decode, encode
from tarot_p2p.protocol.envelope import SignedEnvelope, open_envelope, seal
from tarot_p2p.protocol.peer import SECRETS_VERSION, Peer
from tarot_p2p.protocol.table import Phase
from tarot_p2p.protocol.transcript import file_header, file_record
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.scoring import Contract
from tests.protocol.harness import Bot, Table, deliver, make_table, one_deal, step
from tests.protocol.test_abandon import seq_of

BOT = Bot(contract=Contract.GARDE, seed=5)


def at_keys(seed: bytes) -> Table:
    """A table of 3 just past hand 1's key round: every seat has made and sent its key."""
    table = make_table(one_deal(3), seed=seed)
    while not (table.observer.hand.hand == 1 and table.observer.hand.phase is Phase.ESCROW):
        step(table, BOT)
    return table


def file_of(peer: Peer) -> bytes:
    return file_header(peer.table_id, peer.binding) + b"".join(
        file_record(e) for e in peer.transcript
    )


def resume(table: Table, member: int, secrets: bytes | None, data: bytes | None = None) -> Peer:
    return Peer.resume(
        file_of(table.peers[member]) if data is None else data,
        secrets,
        identity=table.keys[member],
        rng=DeterministicRandom(b"resumed"),
    )


def with_field(secrets: bytes, key: str, value: object) -> bytes:
    fields = decode(secrets)
    assert isinstance(fields, dict) and key in fields
    return encode({**fields, key: value})


def test_the_seats_own_secrets_are_taken_back() -> None:
    table = at_keys(b"resume refusals")
    for member in range(3):
        back = resume(table, member, table.peers[member].export_secrets())
        assert back.member == member and back.transcript.head == table.observer.transcript.head


def test_without_secrets_the_member_is_found_by_its_identity() -> None:
    table = make_table(one_deal(3), seed=b"resume refusals")
    step(table, BOT)  # the set-up only: nobody has saved secrets yet
    data = file_of(table.observer)
    for member in range(3):
        assert resume(table, member, None, data).member == member
    stranger = make_table(one_deal(3), seed=b"another table").keys[1]
    with pytest.raises(ValueError, match=r"^this identity has no seat at this table$"):
        Peer.resume(data, None, identity=stranger, rng=DeterministicRandom(b"x"))


@pytest.mark.parametrize(
    ("key", "value"),
    [("t", bytes(32)), ("v", SECRETS_VERSION + 1), ("v", SECRETS_VERSION - 1)],
)
def test_secrets_of_another_table_or_version_are_refused_in_words(key: str, value: object) -> None:
    table = at_keys(b"resume refusals")
    secrets = with_field(table.peers[1].export_secrets(), key, value)
    with pytest.raises(ValueError, match=r"^the secrets are not of this version or of this table$"):
        resume(table, 1, secrets)


def test_secrets_of_a_member_past_the_roster_are_refused_in_words() -> None:
    table = at_keys(b"resume refusals")
    secrets = with_field(table.peers[2].export_secrets(), "m", 3)
    with pytest.raises(ValueError, match=r"^member 3 is not in the roster$"):
        resume(table, 2, secrets)


def test_unreadable_secrets_are_refused_naming_the_field() -> None:
    table = at_keys(b"resume refusals")
    secrets = with_field(table.peers[0].export_secrets(), "t", bytes(31))
    with pytest.raises(ValueError, match=r"^unreadable secrets: secrets\.t: "):
        resume(table, 0, secrets)


def made_ahead(seed: bytes) -> tuple[Table, list[bytes]]:
    """A table of 3 playing the first of two deals, hand 1 dealt, every seat having made
    its key of hand 2 ahead (``table.md`` §1.6): its secrets, and its escrow key's, are in
    its blob (``nx``, ``ne``); the messages made ahead, sent to nobody yet."""
    table = make_table(TableConfig(players=3, game_end=GameEnd.DEALS, game_length=2), seed=seed)
    while not (table.observer.hand.hand == 1 and table.observer.hand.phase is Phase.BIDDING):
        step(table, BOT)
    made = [wire for peer in table.peers for wire in peer.prepare()]
    assert made, "the next hand's keys made ahead"
    return table, made


def test_a_seat_resumed_takes_back_its_next_hands_secrets_and_uses_them() -> None:
    """Resumed in hand 1 with the secrets of its key of hand 2 made ahead, a seat keeps
    them, and signs hand 2 with them: the key it sent ahead is its own."""
    table, made = made_ahead(b"resume ahead")
    for member in range(3):
        secrets = table.peers[member].export_secrets()
        fields = decode(secrets)
        assert isinstance(fields, dict) and len(fields["nx"]) == len(fields["ne"]) == 32
        assert resume(table, member, secrets).export_secrets() == secrets
    ahead = decode(table.peers[1].export_secrets())
    assert isinstance(ahead, dict)
    table.peers[1] = resume(table, 1, table.peers[1].export_secrets())
    while table.observer.hand.hand < 2:
        assert step(table, BOT)
    for receiver in (*table.peers, table.observer):  # as a hub relays them, late
        deliver(receiver, list(made))
    while table.observer.hand.phase is not Phase.ESCROW:
        assert step(table, BOT)
    now = decode(table.peers[1].export_secrets())
    assert isinstance(now, dict) and (now["h"], now["x"], now["e"]) == (2, ahead["nx"], ahead["ne"])
    assert table.peers[1].secret_lost is None


@pytest.mark.parametrize(
    ("key", "value"),
    [("nx", b""), ("ne", b""), ("nx", bytes(32)), ("ne", bytes(32)), ("nx", b"\xff" * 32)],
    ids=["no-x", "no-e", "zero-x", "zero-e", "x-past-the-order"],
)
def test_damaged_secrets_of_the_next_hand_are_refused_in_words(key: str, value: bytes) -> None:
    """One of the two missing, zero, or no scalar: a seat that resumed with them would sign
    hand 2's key with a secret it does not hold, or make another one."""
    table, _ = made_ahead(b"resume ahead")
    secrets = with_field(table.peers[1].export_secrets(), key, value)
    with pytest.raises(ValueError, match=r"^the saved secrets of the next hand are invalid$"):
        resume(table, 1, secrets)


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("x", b"", "the saved key share is missing or invalid"),
        ("x", bytes(32), "the saved key share is missing or invalid"),
        ("x", (1).to_bytes(32, "big"), "the saved key share is not the one in the transcript"),
        ("e", b"", "the saved escrow key is missing or invalid"),
        ("e", bytes(32), "the saved escrow key is missing or invalid"),
        ("e", (1).to_bytes(32, "big"), "the saved escrow key is not the one in the transcript"),
    ],
    ids=["no-x", "zero-x", "another-x", "no-e", "zero-e", "another-e"],
)
def test_damaged_secrets_of_the_hand_are_refused_in_words(
    key: str, value: bytes, words: str
) -> None:
    """The secret of the seat's own key (or escrow key), read back as its key comes by in
    the file: missing, zero, or not the one the key was made from. A seat resumed with it
    would sign shares no one can check, or could not open what is sealed to it."""
    table = at_keys(b"resume refusals")
    secrets = with_field(table.peers[2].export_secrets(), key, value)
    with pytest.raises(ValueError, match=rf"^{words}$"):
        resume(table, 2, secrets)


def test_a_taker_whose_saved_ecart_permutation_is_not_one_is_refused_in_words() -> None:
    """The taker's re-shuffle of its écart (``p``) read back as its écart comes by in the
    file: a list that is not a permutation of its positions cannot undo it."""
    table = make_table(one_deal(3), seed=b"resume refusals")
    while not any(e.kind == "ecart" for e in table.observer.transcript):
        assert step(table, BOT)
    engine = table.observer.hand.engine
    assert engine is not None and engine.taker is not None
    taker = table.peer_at(engine.taker)
    member = taker.member
    assert member is not None
    fields = decode(taker.export_secrets())
    assert isinstance(fields, dict) and sorted(fields["p"]) == list(range(len(fields["p"])))
    for perm in ([0] * len(fields["p"]), fields["p"][:-1]):
        with pytest.raises(
            ValueError, match=r"^the saved écart permutation does not fit this écart$"
        ):
            resume(table, member, encode({**fields, "p": perm}))


def test_a_resumed_seat_keeps_only_its_own_messages_still_to_come() -> None:
    """Saved messages made ahead (``w``) are taken back only when they are the seat's own
    and their slots are still to come, this hand or the next: the message for the very
    next slot above all (made on the round's base, saved, sent; the program stopped
    before its slot came), which made anew would be a second version of a signed slot.
    A message of another seat, one whose slot the file already holds, and one two hands
    ahead are dropped."""
    table = make_table(one_deal(3), seed=b"resume next slot")
    while not (table.observer.hand.hand == 1 and table.observer.hand.phase is Phase.KEYS):
        step(table, BOT)
    made: dict[int, SignedEnvelope] = {}
    saved: dict[int, bytes] = {}
    for member, peer in enumerate(table.peers):
        wire = peer.next_message()
        assert wire is not None and peer.seat is not None  # every seat's key, on the base
        made[member] = open_envelope(
            wire, table_id=peer.table_id, roster={peer.seat: table.keys[member].public_key()}
        )
        saved[member] = peer.export_secrets()
    by_seq = sorted(made, key=lambda member: made[member].seq)
    first, nxt, last = by_seq
    table.observer.receive(made[first].wire)
    data = file_of(table.observer)  # the file of a seat that stopped here
    own = made[nxt]
    assert own.seq == seq_of(table.observer)  # its slot is the next one
    fields = decode(saved[nxt])
    assert isinstance(fields, dict) and fields["w"] == [own.wire]
    earlier = next(e for e in table.observer.transcript if e.seat == own.seat)
    two_ahead = seal(
        table.keys[nxt], table_id=own.table_id, hand=own.hand + 2, seq=0, seat=own.seat,
        prev=own.prev, kind=own.kind, body=own.body,
    ).wire  # fmt: skip
    blob = encode({**fields, "w": [own.wire, made[last].wire, earlier.wire, two_ahead]})
    back = resume(table, nxt, blob, data)
    # Its own message came back as it was, and its slot had come: taken in at once.
    assert [e.wire for e in back.transcript] == [
        *(e.wire for e in table.observer.transcript),
        own.wire,
    ]
    assert back.pending == (), "another seat's, an earlier and a too early message are kept"


def test_a_saved_message_made_ahead_that_does_not_verify_is_refused_in_words() -> None:
    table = at_keys(b"resume bad pending")
    blob = with_field(table.peers[1].export_secrets(), "w", [b"\x01" * 40])
    with pytest.raises(ValueError, match=r"^a saved message made ahead does not verify$"):
        resume(table, 1, blob)
