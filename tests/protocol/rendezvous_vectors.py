"""Generator of ``protocol/vectors/rendezvous_exchange.json`` (``rendezvous.md`` §6).

Run ``python -m tests.protocol.rendezvous_vectors`` to rewrite it after a deliberate change;
``test_rendezvous_vectors.py`` recomputes it on every run and checks the confirmation, the
sealing key and the sealed invitation with ``hmac`` and plain ChaCha20-Poly1305. SPAKE2's
randomness comes from a fixed stream (SHA-256 of a label and a counter), so every byte of
the exchange is reproducible.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable

from tarot_p2p.meet.rendezvous import HOST_ID, JOINER_ID, HostExchange, Invitation, JoinerExchange
from tarot_p2p.meet.words import WORDS, ShortCode
from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.protocol.identity import fingerprint, identity_bytes
from tests.protocol.wire_vectors import TABLE_ID, VECTOR_DIR, identity

FILE = "rendezvous_exchange.json"


def stream(label: str) -> Callable[[int], bytes]:
    """Deterministic bytes: SHA-256(label || counter) blocks, for SPAKE2's ``entropy_f``."""
    counter = 0

    def entropy(count: int) -> bytes:
        nonlocal counter
        out = b""
        while len(out) < count:
            out += hashlib.sha256(label.encode() + counter.to_bytes(4, "big")).digest()
            counter += 1
        return out[:count]

    return entropy


def build() -> dict[str, object]:
    host, relay = identity("host"), identity("relay")
    code = ShortCode(7, "guitar", "orbit")
    long = JoinCode(
        "relay.example.org", 7770, TABLE_ID, fingerprint(relay.public_key()),
        hashlib.sha256(b"join secret").digest()[:16], True,
    )  # fmt: skip
    invitation = Invitation(long, identity_bytes(host.public_key()))
    cases = []
    for label, typed in (("right code", code), ("wrong code", ShortCode(7, "guitar", "otter"))):
        joiner = JoinerExchange(typed, stream(f"joiner {label}"))
        hosting = HostExchange(code, invitation, stream(f"host {label}"))
        m1 = joiner.start()
        m2 = hosting.answer(m1)
        m3 = joiner.read_reply(m2)
        m4, right = hosting.finish(m3)
        cases.append(
            {
                "label": label,
                "joiner_password": typed.text(),
                "joiner_entropy_label": f"joiner {label}",
                "host_entropy_label": f"host {label}",
                "messages": [m.hex() for m in (m1, m2, m3, m4)],
                "host_accepts": right,
            }
        )
    return {
        "description": "The short code's exchange (protocol/rendezvous.md): SPAKE2 (python-spake2 "
        "0.9 defaults, Ed25519 group, joiner side A, host side B) with randomness from "
        "SHA-256(label || u32 counter) blocks, then the confirmation and the sealed invitation.",
        "id_a": JOINER_ID.decode(),
        "id_b": HOST_ID.decode(),
        "host_password": code.text(),
        "invitation": {
            "code": long.encode(),
            "host_key": invitation.host_key.hex(),
            "plaintext": invitation.to_bytes().hex(),
        },
        "cases": cases,
        "words_sha256": hashlib.sha256("\n".join(WORDS).encode()).hexdigest(),
    }


def render(data: dict[str, object]) -> str:
    return json.dumps(data, indent=2) + "\n"


def main() -> int:
    (VECTOR_DIR / FILE).write_text(render(build()), encoding="utf-8")
    print(f"wrote {VECTOR_DIR / FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
