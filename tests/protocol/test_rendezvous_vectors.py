"""The rendezvous vector is recomputed byte for byte, and its HMAC and AEAD steps are
checked with ``hmac`` and ChaCha20-Poly1305 given SPAKE2's key (recomputed by the library
from the recorded messages and the fixed randomness)."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from itertools import count

import msgpack
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from spake2 import SPAKE2_A, SPAKE2_B

from tarot_p2p.meet.words import WORDS
from tests.protocol.rendezvous_vectors import ED25519_ORDER, FILE, build, render, stream
from tests.protocol.wire_vectors import VECTOR_DIR


def load() -> dict[str, object]:
    data: dict[str, object] = json.loads((VECTOR_DIR / FILE).read_text(encoding="utf-8"))
    return data


def test_the_vector_is_reproduced_exactly() -> None:
    assert (VECTOR_DIR / FILE).read_text(encoding="utf-8") == render(build())


def test_the_word_list_is_the_one_in_the_vector() -> None:
    assert hashlib.sha256("\n".join(WORDS).encode()).hexdigest() == load()["words_sha256"]


def test_the_exchange_independently() -> None:
    vector = load()
    plain = bytes.fromhex(vector["invitation"]["plaintext"])  # type: ignore[index]
    assert msgpack.unpackb(plain) == {
        "c": vector["invitation"]["code"],  # type: ignore[index]
        "h": bytes.fromhex(vector["invitation"]["host_key"]),  # type: ignore[index]
    }
    for case in vector["cases"]:  # type: ignore[attr-defined]
        m1, m2, m3, m4 = (msgpack.unpackb(bytes.fromhex(m)) for m in case["messages"])
        assert m1["k"] == m2["k"] == "pake" and m3["k"] == "confirm"
        a, b = m1["m"], m2["m"]
        host = SPAKE2_B(
            vector["host_password"].encode(),  # type: ignore[attr-defined]
            idA=vector["id_a"].encode(),  # type: ignore[attr-defined]
            idB=vector["id_b"].encode(),  # type: ignore[attr-defined]
            entropy_f=stream(case["host_entropy_label"]),
        )
        assert host.start() == b
        key = host.finish(a)
        expected = hmac.new(key, b"tarot-p2p/rendezvous/v1/joiner\x00" + a + b, "sha256").digest()
        right = hmac.compare_digest(expected, m3["x"])
        assert right is case["host_accepts"]
        if not right:
            assert m4 == {"k": "refused"}
            continue
        seal = hmac.new(key, b"tarot-p2p/rendezvous/v1/host\x00" + a + b, "sha256").digest()
        assert m4["k"] == "table"
        assert ChaCha20Poly1305(seal).decrypt(bytes(12), m4["x"], b"") == plain


def spec_stream(label: str, calls: list[int]) -> Callable[[int], bytes]:
    """rendezvous.md §6's stream, written from the text; logs the size of each call."""
    blocks = (hashlib.sha256(label.encode() + k.to_bytes(4, "big")).digest() for k in count())

    def entropy(size: int) -> bytes:
        calls.append(size)
        return b"".join(next(blocks) for _ in range(-(-size // 32)))[:size]

    return entropy


def test_the_randomness_is_the_one_the_text_describes() -> None:
    """Each side draws once, 64 bytes from counter 0, and its secret scalar is those bytes
    as a big-endian integer mod L; the vector's messages follow from those scalars."""
    vector = load()
    for case in vector["cases"]:  # type: ignore[attr-defined]
        for side, cls, password, at in (
            ("joiner", SPAKE2_A, case["joiner_password"], 0),
            ("host", SPAKE2_B, vector["host_password"], 1),  # type: ignore[index]
        ):
            calls: list[int] = []
            spake = cls(
                password.encode(),
                idA=vector["id_a"].encode(),  # type: ignore[attr-defined]
                idB=vector["id_b"].encode(),  # type: ignore[attr-defined]
                entropy_f=spec_stream(case[f"{side}_entropy_label"], calls),
            )
            message = spake.start()
            assert calls == [64]
            label = case[f"{side}_entropy_label"].encode()
            drawn = b"".join(hashlib.sha256(label + bytes([0, 0, 0, k])).digest() for k in (0, 1))
            scalar = int.from_bytes(drawn, "big") % ED25519_ORDER
            assert spake.xy_scalar == scalar == int(case[f"{side}_scalar"], 16)
            assert msgpack.unpackb(bytes.fromhex(case["messages"][at]))["m"] == message
