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


ED25519_ORDER = 2**252 + 27742317777372353535851937790883648493
"""L, the order of the Ed25519 group python-spake2 works in."""


def stream(label: str) -> Callable[[int], bytes]:
    """Deterministic bytes, for SPAKE2's ``entropy_f``: block ``k`` is SHA-256(UTF-8 label ||
    u32 big-endian k); the counter starts at 0 and runs on across calls; a call takes the
    next whole blocks and drops what it does not use of the last one (``rendezvous.md`` §6)."""
    counter = 0

    def entropy(count: int) -> bytes:
        nonlocal counter
        out = b""
        while len(out) < count:
            out += hashlib.sha256(label.encode() + counter.to_bytes(4, "big")).digest()
            counter += 1
        return out[:count]

    return entropy


def secret_scalar(label: str) -> int:
    """The side's SPAKE2 secret: python-spake2 0.9 draws it once, as 64 bytes read as a
    big-endian integer reduced mod L, so it is blocks 0 and 1 of the label's stream."""
    return int.from_bytes(stream(label)(64), "big") % ED25519_ORDER


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
                "joiner_scalar": secret_scalar(f"joiner {label}").to_bytes(32, "big").hex(),
                "host_scalar": secret_scalar(f"host {label}").to_bytes(32, "big").hex(),
                "messages": [m.hex() for m in (m1, m2, m3, m4)],
                "host_accepts": right,
            }
        )
    return {
        "description": "The short code's exchange (protocol/rendezvous.md): SPAKE2 (python-spake2 "
        "0.9 defaults, Ed25519 group, joiner side A, host side B) with randomness from "
        "one stream per side and case: block k = SHA-256(UTF-8 label || u32 big-endian k), k "
        "from 0, running on across calls, a call taking the next whole blocks and dropping "
        "the unused end of the last; each side calls it once for 64 bytes, its secret scalar "
        "being those bytes as a big-endian integer mod L (given as 32 bytes big-endian); "
        "then the confirmation and the sealed invitation.",
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
