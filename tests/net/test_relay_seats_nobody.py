"""A relay that tries to take the seats of its own tables (issue 17, item 3).

The host draws the table id and the join secret; the relay is given the link key only
(``wire.md`` §5.0). With it the relay can open links to its tables (or use its own hub in
process), see every joiner's request and send requests of its own, but the host seats only
requests whose seat proof is made with the join secret (``lobby.md`` §1, §2). Here a relay
(real :class:`RelayTables` behind a real door, over loopback TCP) reads what it keeps on
disk and sends sybils named like the real joiners, with every proof it can make: under the
link key, and copied from a real joiner's request. None is seated; the real joiners sit.
"""

from __future__ import annotations

import json
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli.host import new_relay_table
from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.meet.lobby import JOIN_REQUEST_DOMAIN, LobbyChange, join_request, seat_proof
from tarot_p2p.net.address import Address
from tarot_p2p.net.framing import FramedStream
from tarot_p2p.net.handshake import Initiator
from tarot_p2p.net.hello import TableHello, knock
from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.net.link import DEFAULT_CONFIG, Link, MessageLink, connect
from tarot_p2p.net.noise import MAX_MESSAGE
from tarot_p2p.protocol.codec import decode, encode
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.seat.session import host_table, join_table
from tests.net.test_relay import HOST, running_relay

CONFIG = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=1)
BOB, CAROL = (Ed25519PrivateKey.from_private_bytes(bytes([0x60 + i]) * 32) for i in range(2))
SYBILS = [Ed25519PrivateKey.from_private_bytes(bytes([0x70 + i]) * 32) for i in range(3)]


async def link_with_key(code: JoinCode, identity: Ed25519PrivateKey, key: bytes) -> Link:
    """A link to the relay's table made with the link key alone, as the relay can."""
    stream = await trio.open_tcp_stream(code.host, code.port)
    framed = FramedStream(stream, MAX_MESSAGE)
    initiator = Initiator(identity, code, key=key)
    await knock(framed, TableHello(code.table_id))
    await framed.send_frame(initiator.message1())
    initiator.read_message2(await framed.receive_frame())
    message3, session = initiator.message3()
    await framed.send_frame(message3)
    return Link(framed, session, DEFAULT_CONFIG)


def forged(sybil: Ed25519PrivateKey, name: str, table_id: bytes, proof: bytes) -> bytes:
    raw = sybil.public_key().public_bytes_raw()
    payload = encode(
        {"i": raw, "k": "join", "n": name, "p": proof, "t": table_id, "v": PROTOCOL_VERSION}
    )
    return encode([payload, sybil.sign(JOIN_REQUEST_DOMAIN + payload)])


async def test_a_relay_cannot_seat_anyone_at_its_own_tables(tmp_path: Path) -> None:
    async with running_relay(tmp_path) as (tables, port):
        code = await new_relay_table(Address("127.0.0.1", port), HOST)
        # What the relay keeps: routing data and the link key, never the join secret.
        kept = (tmp_path / "relay.json").read_text()
        assert code.secret.hex() not in kept and "secret" not in kept
        (row,) = json.loads(kept)["tables"]
        key = bytes.fromhex(row["link_key"])
        assert row["table_id"] == code.table_id.hex()
        t = code.table_id
        # Sybils over TCP (the link key lets them in) and in the relay's own process.
        sybil_links: list[MessageLink] = [await link_with_key(code, s, key) for s in SYBILS[:2]]
        sybil_links.append(tables.hubs[t].local_link())
        changes: list[LobbyChange] = []
        copied: list[bytes] = []
        seated_at: dict[str, int | None] = {}

        async def flood(link: MessageLink, sybil: Ed25519PrivateKey, name: str) -> None:
            raw = sybil.public_key().public_bytes_raw()
            while True:
                await link.send(join_request(sybil, name, t, key))  # a proof under the link key
                await link.send(forged(sybil, name, t, seat_proof(key, t, raw)))
                for proof in copied:  # a real joiner's proof, under the sybil's key
                    await link.send(forged(sybil, name, t, proof))
                await trio.sleep(0.05)

        async def watch(link: MessageLink) -> None:
            while True:  # every request the relay sees, as it relays them
                wire = await link.receive()
                try:
                    payload, _ = decode(wire)  # type: ignore[misc]
                    proof = decode(payload)["p"]  # type: ignore[arg-type, call-overload, index]
                except (ValueError, KeyError, TypeError):
                    continue
                if isinstance(proof, bytes) and proof not in copied:
                    copied.append(proof)

        async def joiner(key: Ed25519PrivateKey, name: str) -> None:
            link = await connect(code, key)
            _, offer = await join_table(link, key, name, t, code.secret, timeout=60)
            seated_at[name] = offer.index

        with trio.fail_after(60):
            async with trio.open_nursery() as attack:
                for link, sybil, name in zip(
                    sybil_links, SYBILS, ["Bob", "Carol", "Host"], strict=True
                ):
                    attack.start_soon(flood, link, sybil, name)
                attack.start_soon(watch, sybil_links[0])
                host_link = await connect(code, HOST)
                async with trio.open_nursery() as players:
                    await trio.sleep(0.5)  # the sybils ask first
                    players.start_soon(joiner, BOB, "Bob")
                    await trio.sleep(0.5)
                    players.start_soon(joiner, CAROL, "Carol")
                    peer = await host_table(
                        host_link, HOST, "Host", CONFIG, t, code.secret, on_change=changes.append
                    )
                    setup = peer.next_message()
                    assert setup is not None
                    await host_link.send(setup)
                attack.cancel_scope.cancel()
        assert copied, "the relay saw the real joiners' proofs and replayed them"
        assert [(c.kind, c.name) for c in changes] == [("joined", "Bob"), ("joined", "Carol")]
        assert list(peer.names) == ["Host", "Bob", "Carol"]
        assert [peer.member_of(k.public_key()) for k in (HOST, BOB, CAROL)] == [0, 1, 2]
        assert all(peer.member_of(s.public_key()) is None for s in SYBILS)
        assert seated_at == {"Bob": 1, "Carol": 2}
