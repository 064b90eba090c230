"""Generator of the table-protocol vectors: whole tables, as transcript files.

Run ``python -m tests.protocol.table_vectors`` to rewrite ``protocol/vectors/table_*``
after a deliberate change of the protocol. Every table is fully reproducible: fixed
identity keys, each member's randomness from ``DeterministicRandom`` with the label the
JSON file gives, deterministic Ed25519 signatures and bot choices.
``test_table_vectors.py`` regenerates them byte for byte and replays the stored files
through an observer.

For implementers: each ``NAME.tp2p`` is a transcript file (``wire.md`` §4.4) and
``NAME.json`` gives its identity seeds, the members' randomness labels, names,
configuration, table id, binding, each member's card of the seat draw, the drawn seating (the
member at each seat), every message (slot, sender, kind), the final digest and, for a
table whose game ended, the agreed score sheet (by seat); for a table that a cheat
stopped, the record at which the replay stops (numbered from 1), the seat blamed and the
records that prove it. A compatible peer accepts every record before it, reaches the same
digest, seating and scores, and stops there, blaming the same seat.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.crypto.elgamal import Ciphertext
from tarot_p2p.crypto.group import point_to_bytes, scalar_from_bytes
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shares import prove_shares
from tarot_p2p.protocol.codec import decode
from tarot_p2p.protocol.envelope import open_envelope, seal
from tarot_p2p.protocol.messages import Ecart, dump_body, load_body
from tarot_p2p.protocol.peer import CheatExposed, Peer
from tarot_p2p.protocol.table import HandMachine, Phase
from tarot_p2p.protocol.transcript import file_header
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import card_name
from tarot_p2p.rules.config import AllPass, FivePlayerMode, GameEnd, TableConfig
from tarot_p2p.rules.scoring import Contract
from tests.protocol.harness import Bot

VECTOR_DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors"


@dataclass(frozen=True, slots=True)
class Scenario:
    """One table: who sits, with which randomness, how the bots play, where it stops."""

    name: str
    config: TableConfig
    names: tuple[str, ...]
    rng_label: bytes
    """Member ``i``'s randomness is ``DeterministicRandom(rng_label % i)``."""
    bot: Bot
    cheat: bool = False
    """The taker shows a discarded suit card as a trump; a later message exposes him."""
    abandon: str = ""
    """Who of hand 1 stays silent, and when (see :func:`_goes_silent`). Every other seat
    claims it absent, the lowest of them sends the abandon, the others release its key
    and play on with its stand-in."""


def _one_deal(players: int, **options: Any) -> TableConfig:
    return TableConfig(players=players, game_end=GameEnd.DEALS, game_length=1, **options)


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "table_game_3",
        _one_deal(3),
        ("Ana", "Ben", "Cleo"),
        b"tarot-p2p vector seat %d",
        Bot(contract=Contract.GARDE, seed=2026),
    ),
    Scenario(
        "table_dead_hand_5",
        _one_deal(5, five_player_mode=FivePlayerMode.DEAD_HAND),
        ("Ana", "Ben", "Cleo", "Dan", "Eva"),
        b"tarot-p2p vector dead hand seat %d",
        Bot(contract=Contract.GARDE, seed=5),
    ),
    Scenario(
        "table_misere_deal_4",
        _one_deal(4, all_pass=AllPass.MISERE_DEAL),
        ("Ana", "Ben", "Cleo", "Dan"),
        b"tarot-p2p vector misere deal seat %d",
        Bot(contract=0, seed=4),
    ),
    Scenario(
        "table_abandon_4",
        _one_deal(4),
        ("Ana", "Ben", "Cleo", "Dan"),
        b"tarot-p2p vector abandon seat %d",
        Bot(contract=Contract.GARDE, seed=7),
        abandon="bidding",
    ),
    Scenario(
        "table_abandon_after_bid_4",
        _one_deal(4),
        ("Ana", "Ben", "Cleo", "Dan"),
        b"tarot-p2p vector abandon after bid seat %d",
        Bot(contract=Contract.GARDE, seed=9),
        abandon="after_bid",
    ),
    Scenario(
        "table_abandon_dead_5",
        _one_deal(5, five_player_mode=FivePlayerMode.DEAD_HAND),
        ("Ana", "Ben", "Cleo", "Dan", "Eva"),
        b"tarot-p2p vector abandon dead hand seat %d",
        Bot(contract=Contract.GARDE, seed=10),
        abandon="bidding",
    ),
    Scenario(
        "table_abandon_dead_seat_5",
        _one_deal(5, five_player_mode=FivePlayerMode.DEAD_HAND),
        ("Ana", "Ben", "Cleo", "Dan", "Eva"),
        b"tarot-p2p vector dead seat silent seat %d",
        Bot(contract=Contract.GARDE, seed=12),
        abandon="dead_seat",
    ),
    Scenario(
        "table_stand_in_4",
        _one_deal(4),
        ("Ana", "Ben", "Cleo", "Dan"),
        b"tarot-p2p vector stand-in seat %d",
        Bot(contract=Contract.GARDE, seed=8),
        abandon="play",
    ),
    Scenario(
        "table_cheat_exposed_4",
        _one_deal(4),
        ("Ana", "Ben", "Cleo", "Dan"),
        b"tarot-p2p vector cheat seat %d",
        Bot(contract=Contract.GARDE, seed=11),
        cheat=True,
    ),
)
TABLE_ID = hashlib.sha256(b"tarot-p2p vector table").digest()
NAME = SCENARIOS[0].name
"""The complete game (set-up, seat draw, one garde) that the audit tests read."""


def identity_seed(member: int) -> bytes:
    return hashlib.sha256(b"tarot-p2p vector identity %d" % member).digest()


def _lying_ecart(taker: Peer, keys: list[Ed25519PrivateKey]) -> bytes:
    """The taker's écart with one discarded suit card listed among the shown trumps."""
    legal = [x.card for x in taker.legal_actions() if isinstance(x, a.Discard)]
    size = len(taker.hand.chien_slots)
    wire = taker.discard(sum(1 << c for c in legal[:size]))
    env = open_envelope(wire, table_id=TABLE_ID, roster=None)
    honest = load_body("ecart", env.body)
    assert isinstance(honest, Ecart)
    lie = next(j for j in honest.discard if j not in honest.trumps)
    trumps = tuple(sorted({*honest.trumps, lie}))
    x = scalar_from_bytes(decode(taker.export_secrets())["x"])  # type: ignore[index, arg-type]
    shown = [Ciphertext.from_bytes(honest.deck[66 * j : 66 * (j + 1)]) for j in trumps]
    ctx = taker.hand.context("ecart", env.seat)
    shares, proof = prove_shares(x, shown, ctx, DeterministicRandom(b"tarot-p2p vector liar"))
    forged = dataclasses.replace(
        honest, trumps=trumps, d=b"".join(map(point_to_bytes, shares)), dproof=proof.to_bytes()
    )
    assert taker.member is not None
    return seal(
        keys[taker.member],
        table_id=TABLE_ID,
        hand=env.hand,
        seq=env.seq,
        seat=env.seat,
        prev=env.prev,
        kind="ecart",
        body=dump_body(forged),
    ).wire


def _goes_silent(kind: str, hand: HandMachine, sender: int) -> bool:
    """Whether ``sender``, expected now in hand 1, is the one that stays silent:
    ``"bidding"`` the first bidder; ``"after_bid"`` the first bidder after a contract was
    bid; ``"play"`` the expected player once ten cards are played; ``"dead_seat"`` the
    dealer sitting out a five-seat hand, at its DEAL turn (it speaks in every round)."""
    if hand.hand != 1:
        return False
    bids = [x for _, x in hand.history if isinstance(x, a.Bid) and x.contract]
    played = sum(isinstance(x, a.Play) for _, x in hand.history)
    return {
        "bidding": hand.phase is Phase.BIDDING,
        "after_bid": hand.phase is Phase.BIDDING and bool(bids),
        "play": hand.phase is Phase.PLAY and played >= 10,
        "dead_seat": hand.phase is Phase.DEAL and sender == hand.dealer,
    }[kind]


def play(
    scenario: Scenario, claims: list[bytes] | None = None
) -> tuple[Peer, HandMachine, list[bytes], CheatExposed | None]:
    """An observer's view, hand 0's machine, and every message of the table in order
    (the forfeit claims of an abandon, which are not messages, go to ``claims``)."""
    config = scenario.config
    keys = [Ed25519PrivateKey.from_private_bytes(identity_seed(i)) for i in range(config.seats)]
    roster = [k.public_key() for k in keys]
    peers = [
        Peer(
            config,
            TABLE_ID,
            roster,
            list(scenario.names),
            seat=i,
            identity=keys[i],
            rng=DeterministicRandom(scenario.rng_label % i),
        )
        for i in range(config.seats)
    ]
    observer = Peer(config, TABLE_ID, roster, list(scenario.names))
    hand0 = observer.hand
    wires: list[bytes] = []
    exposed: CheatExposed | None = None
    liar: Peer | None = None  # kept his honest écart: he is out of the story from then on

    def deliver(sender: Peer, wire: bytes) -> None:
        nonlocal exposed
        wires.append(wire)
        for other in (*peers, observer):
            if other is not sender and other is not liar:
                try:
                    other.receive(wire)
                except CheatExposed as exc:
                    exposed = exc

    while exposed is None and (sender := observer.expected_sender()) is not None:
        peer = next(p for p in peers if p.seat == sender)
        hand = observer.hand
        if scenario.abandon and liar is None and _goes_silent(scenario.abandon, hand, sender):
            liar = peer  # silent from now on
            present = [p for p in peers if p is not peer]
            speaker = next(p for p in present if p.seat == hand.present_speaker())
            for p in present:
                claim = p.forfeit_claim()
                assert claim is not None
                speaker.read_forfeit_claim(claim)
                if claims is not None:
                    claims.append(claim)
            wire = speaker.abandon()
            assert wire is not None
            deliver(speaker, wire)
            continue
        if scenario.cheat and peer.hand.phase is Phase.ECART:
            liar = peer
            deliver(peer, _lying_ecart(peer, keys))
            continue
        try:
            wire = peer.next_message() or scenario.bot.choose(peer)
        except CheatExposed as exc:  # our own shares expose the liar: still sent
            assert exc.outgoing is not None
            wire, exposed = exc.outgoing, exc
        deliver(peer, wire)
    return observer, hand0, wires, exposed


def build(scenario: Scenario) -> tuple[bytes, dict[str, Any]]:
    claims: list[bytes] = []
    first, hand0, wires, exposed = play(scenario, claims)
    data = file_header(TABLE_ID, first.binding) + b"".join(
        len(w).to_bytes(4, "big") + w for w in wires
    )
    envelopes = [open_envelope(w, table_id=TABLE_ID, roster=None) for w in wires]
    meta: dict[str, Any] = {
        "description": __doc__.split("\n\n")[2].replace("\n", " ").strip(),
        "identity_seeds": [identity_seed(i).hex() for i in range(scenario.config.seats)],
        "randomness": [
            (scenario.rng_label % i).decode("ascii") for i in range(scenario.config.seats)
        ],
        "names": list(scenario.names),
        "config": scenario.config.canonical_bytes().decode("ascii"),
        "table_id": TABLE_ID.hex(),
        "binding": first.binding.hex(),
        "draws": [[member, card_name(card)] for member, card in hand0.draws],
        "seating": list(first.seating or ()),
        "messages": [
            f"{e.hand}.{e.seq} {'member' if e.hand == 0 else 'seat'} {e.seat} {e.kind}"
            for e in envelopes
        ],
        "final_digest": first.transcript.head.hex(),
    }
    if claims:
        record = next(i for i, e in enumerate(envelopes) if e.kind == "abandon")
        meta["abandon"] = {
            "record": record + 1,
            "absent_seat": envelopes[record].body["seat"],
            "claims": [c.hex() for c in claims],
        }
    if exposed is not None:
        meta["stops_at"] = {
            "record": len(wires),
            "blamed_seat": exposed.seat,
            "reason": exposed.reason,
            "evidence_records": [wires.index(w) + 1 for w in exposed.evidence],
        }
    elif first.sheet is not None:
        meta["sheet"] = first.sheet.to_dict()
    return data, meta


def render(meta: dict[str, Any]) -> str:
    return json.dumps(meta, indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    for scenario in SCENARIOS:
        data, meta = build(scenario)
        (VECTOR_DIR / f"{scenario.name}.tp2p").write_bytes(data)
        (VECTOR_DIR / f"{scenario.name}.json").write_text(render(meta), encoding="utf-8")
        sys.stdout.write(f"wrote {scenario.name}.tp2p ({len(data)} bytes) and .json\n")


if __name__ == "__main__":
    main()
