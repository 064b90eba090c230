from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.net.handshake import HandshakeRejected, Initiator, Responder
from tarot_p2p.net.joincode import JoinCode, link_key
from tarot_p2p.net.noise import MAX_NONCE, CipherState, HandshakeState, NoiseError
from tarot_p2p.protocol.identity import fingerprint

VECTOR = json.loads((Path(__file__).parent / "noise_vector_cacophony.json").read_text())


def vector_key(name: str) -> X25519PrivateKey:
    return X25519PrivateKey.from_private_bytes(bytes.fromhex(VECTOR[name]))


def test_published_cacophony_vector() -> None:
    initiator = HandshakeState(
        initiator=True,
        prologue=bytes.fromhex(VECTOR["init_prologue"]),
        static=vector_key("init_static"),
        ephemeral=vector_key("init_ephemeral"),
    )
    responder = HandshakeState(
        initiator=False,
        prologue=bytes.fromhex(VECTOR["resp_prologue"]),
        static=vector_key("resp_static"),
        ephemeral=vector_key("resp_ephemeral"),
    )
    hashes = []
    for index, message in enumerate(VECTOR["messages"]):
        payload = bytes.fromhex(message["payload"])
        writer, reader = (initiator, responder) if index % 2 == 0 else (responder, initiator)
        if index < 3:
            ciphertext = writer.write_message(payload)
            assert reader.read_message(ciphertext) == payload
            hashes.append(writer.handshake_hash)
        else:
            assert writer.result is not None and reader.result is not None
            ciphertext = writer.result[0].encrypt_with_ad(b"", payload)
            assert reader.result[1].decrypt_with_ad(b"", ciphertext) == payload
        assert ciphertext.hex() == message["ciphertext"]
    assert initiator.handshake_hash == responder.handshake_hash
    # Every ciphertext above depends on the full chain of h and ck. The vector's recorded
    # "handshake_hash" is the value of h after the second message in this entry of the file.
    assert hashes[1].hex() == VECTOR["handshake_hash"]


def test_handshake_messages_out_of_turn() -> None:
    state = HandshakeState(initiator=False, prologue=b"", static=X25519PrivateKey.generate())
    with pytest.raises(NoiseError):
        state.write_message(b"")
    with pytest.raises(NoiseError, match="truncated"):
        state.read_message(b"short")


def test_nonce_exhaustion_and_bad_tag() -> None:
    sender, receiver = CipherState(b"\x01" * 32), CipherState(b"\x01" * 32)
    ciphertext = sender.encrypt_with_ad(b"ad", b"hello")
    with pytest.raises(NoiseError, match="tag"):
        receiver.decrypt_with_ad(b"other ad", ciphertext)
    assert receiver.decrypt_with_ad(b"ad", ciphertext) == b"hello"
    with pytest.raises(NoiseError, match="tag"):  # replay: the nonce has moved on
        receiver.decrypt_with_ad(b"ad", ciphertext)
    sender.nonce = MAX_NONCE
    with pytest.raises(NoiseError, match="exhausted"):
        sender.encrypt_with_ad(b"", b"x")


HUB = Ed25519PrivateKey.from_private_bytes(b"\x0a" * 32)
PEER = Ed25519PrivateKey.from_private_bytes(b"\x0b" * 32)
TABLE = bytes(range(32))
SECRET = b"\x5a" * 16
LINK = link_key(SECRET)


def code(**changes: object) -> JoinCode:
    fields: dict[str, object] = {
        "host": "127.0.0.1",
        "port": 1,
        "table_id": TABLE,
        "hub_fingerprint": fingerprint(HUB.public_key()),
        "secret": SECRET,
    }
    fields.update(changes)
    return JoinCode(**fields)  # type: ignore[arg-type]


def run(initiator: Initiator, responder: Responder) -> None:
    responder.read_message1(initiator.message1())
    initiator.read_message2(responder.message2())
    message3, peer_session = initiator.message3()
    hub_session = responder.read_message3(message3)
    assert peer_session.handshake_hash == hub_session.handshake_hash
    assert peer_session.remote_identity.public_bytes_raw() == HUB.public_key().public_bytes_raw()
    assert hub_session.remote_identity.public_bytes_raw() == PEER.public_key().public_bytes_raw()
    ciphertext = peer_session.send.encrypt_with_ad(b"", b"ping")
    assert hub_session.receive.decrypt_with_ad(b"", ciphertext) == b"ping"


def test_identity_bound_handshake() -> None:
    run(Initiator(PEER, code()), Responder(HUB, TABLE, LINK))


def test_wrong_join_secret_is_rejected_by_the_hub() -> None:
    with pytest.raises(HandshakeRejected, match="join proof"):
        run(Initiator(PEER, code(secret=b"\x00" * 16)), Responder(HUB, TABLE, LINK))


def test_the_hub_checks_the_link_key_not_the_secret() -> None:
    """One rule for every hub (wire.md §5.2): the proof is made with the link key, so a hub
    that checked it with the join secret itself would refuse every honest peer."""
    with pytest.raises(HandshakeRejected, match="join proof"):
        run(Initiator(PEER, code()), Responder(HUB, TABLE, SECRET))


def test_hub_with_another_identity_is_rejected_by_the_peer() -> None:
    impostor = Ed25519PrivateKey.from_private_bytes(b"\x0c" * 32)
    with pytest.raises(HandshakeRejected, match="join code"):
        run(Initiator(PEER, code()), Responder(impostor, TABLE, LINK))


def test_identity_outside_the_allow_list_is_rejected() -> None:
    others = {Ed25519PrivateKey.generate().public_key().public_bytes_raw()}
    responder = Responder(HUB, TABLE, LINK, admit=lambda k: k.public_bytes_raw() in others)
    with pytest.raises(HandshakeRejected, match="not admitted"):
        run(Initiator(PEER, code()), responder)


def test_another_table_fails_the_handshake() -> None:
    with pytest.raises(NoiseError):
        run(Initiator(PEER, code(table_id=bytes(32))), Responder(HUB, TABLE, LINK))


def test_non_empty_first_payload_is_rejected() -> None:
    peer = HandshakeState(
        initiator=True,
        prologue=b"tarot-p2p/noise/v1\x00" + TABLE,
        static=X25519PrivateKey.generate(),
    )
    with pytest.raises(HandshakeRejected, match="empty"):
        Responder(HUB, TABLE, LINK).read_message1(peer.write_message(b"hello"))


def test_tampered_handshake_message() -> None:
    initiator, responder = Initiator(PEER, code()), Responder(HUB, TABLE, LINK)
    responder.read_message1(initiator.message1())
    message2 = bytearray(responder.message2())
    message2[40] ^= 1
    with pytest.raises(NoiseError):
        initiator.read_message2(bytes(message2))


def test_signature_from_a_replayed_session_does_not_verify() -> None:
    # Message 2 of one session fed into another session: the handshake hash differs.
    first = Responder(HUB, TABLE, LINK)
    first.read_message1(Initiator(PEER, code()).message1())
    stolen = first.message2()
    victim = Initiator(PEER, code())
    victim.message1()
    with pytest.raises(NoiseError):
        victim.read_message2(stolen)


@given(st.binary(max_size=300))
@settings(max_examples=200)
def test_hub_refuses_any_first_message_cleanly(message: bytes) -> None:
    try:
        Responder(HUB, TABLE, LINK).read_message1(message)
    except NoiseError:
        return
    assert len(message) == 32  # only a bare ephemeral key is a valid first message


@given(st.binary(max_size=300))
@settings(max_examples=200)
def test_hub_refuses_any_forged_third_message(message: bytes) -> None:
    initiator, responder = Initiator(PEER, code()), Responder(HUB, TABLE, LINK)
    responder.read_message1(initiator.message1())
    initiator.read_message2(responder.message2())
    with pytest.raises(NoiseError):
        responder.read_message3(message)


@given(st.binary(max_size=300))
@settings(max_examples=200)
def test_peer_refuses_any_forged_second_message(message: bytes) -> None:
    initiator = Initiator(PEER, code())
    initiator.message1()
    with pytest.raises(NoiseError):
        initiator.read_message2(message)


class ClaimsAnother:
    """An identity that claims ``shown``'s public key but can only sign with ``signer``:
    someone who knows a player's (public) identity and wants to pass for him."""

    def __init__(self, shown: Ed25519PrivateKey, signer: Ed25519PrivateKey) -> None:
        self._shown = shown
        self._signer = signer

    def public_key(self) -> object:
        return self._shown.public_key()

    def sign(self, data: bytes) -> bytes:
        return self._signer.sign(data)


def test_a_peer_claiming_an_identity_it_cannot_sign_for_is_rejected_by_the_hub() -> None:
    thief = Ed25519PrivateKey.from_private_bytes(b"\x0d" * 32)
    initiator = Initiator(ClaimsAnother(PEER, thief), code())  # type: ignore[arg-type]
    with pytest.raises(HandshakeRejected, match="identity signature"):
        run(initiator, Responder(HUB, TABLE, LINK))


def test_a_hub_claiming_an_identity_it_cannot_sign_for_is_rejected_by_the_peer() -> None:
    thief = Ed25519PrivateKey.from_private_bytes(b"\x0d" * 32)
    responder = Responder(ClaimsAnother(HUB, thief), TABLE, LINK)  # type: ignore[arg-type]
    with pytest.raises(HandshakeRejected, match="identity signature"):
        run(Initiator(PEER, code()), responder)
