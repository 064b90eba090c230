"""Generator of the lobby vector ``protocol/vectors/lobby_join.json`` (``lobby.md``).

Run ``python -m tests.protocol.lobby_vectors`` to rewrite it after a deliberate change;
``test_lobby_vectors.py`` recomputes it byte for byte and checks it without our code.
Ed25519 signatures are deterministic, so every byte is reproducible.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.meet.lobby import JOIN_REQUEST_DOMAIN, Seating, join_request, leave_request
from tarot_p2p.protocol.codec import decode, encode

VECTOR_DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
TABLE_ID = hashlib.sha256(b"tarot-p2p vector table").digest()
CHOICES = ("  Spec \t Peer\u00a0", "ana", "Léa\u2003Martin")
"""What three joiners typed: loose white space, a name the host holds in another case, a
name with a non-ASCII space inside."""
LEAVER = 1
"""The joiner who leaves once every seat is taken (the one seated as 'ana (2)')."""
SLOPPY = "  Sloppy   Joe "
"""A joiner that did not normalise its name before signing the request."""


def seed(label: str) -> bytes:
    return hashlib.sha256(b"tarot-p2p vector lobby " + label.encode()).digest()


FOLDED_HOST = "Stra\u00dfe"
FOLDED = ("STRASSE", "Filou", "\ufb01lou", "strasse")
"""Names equal to a taken one only under full case folding (CaseFolding.txt status F:
\u00df is "ss", the ligature \ufb01 is "fi"), which the host makes unique (lobby.md §2)."""


def folded_seating() -> dict[str, Any]:
    """The host's seating of names that only full case folding finds taken."""
    host = Ed25519PrivateKey.from_private_bytes(seed("folding host"))
    seating = Seating(len(FOLDED) + 1, host.public_key(), FOLDED_HOST)
    seated = []
    for i, choice in enumerate(FOLDED):
        key = Ed25519PrivateKey.from_private_bytes(seed(f"folding joiner {i}"))
        seat = seating.offer(join_request(key, choice, TABLE_ID), TABLE_ID, float(i))
        assert seat is not None
        seated.append({"typed": choice, "seated_as": seat.name})
    return {"host_name": FOLDED_HOST, "requests": seated, "roster_names": list(seating.names)}


def build() -> dict[str, Any]:
    host = Ed25519PrivateKey.from_private_bytes(seed("host"))
    seating = Seating(5, host.public_key(), " Ana ")
    requests = []
    for i, choice in enumerate((*CHOICES, SLOPPY)):
        key = Ed25519PrivateKey.from_private_bytes(seed(f"joiner {i}"))
        if choice is SLOPPY:  # signed as typed: the host normalises it all the same
            body = {"i": key.public_key().public_bytes_raw(), "k": "join", "n": SLOPPY}
            raw = encode({**body, "t": TABLE_ID})
            wire = encode([raw, key.sign(JOIN_REQUEST_DOMAIN + raw)])
        else:
            wire = join_request(key, choice, TABLE_ID)
        payload, signature = decode(wire)  # type: ignore[misc]
        seated = seating.offer(wire, TABLE_ID, float(i))
        assert seated is not None
        requests.append(
            {
                "identity_seed": seed(f"joiner {i}").hex(),
                "identity_public": key.public_key().public_bytes_raw().hex(),
                "typed": choice,
                "name": decode(payload)["n"],  # type: ignore[arg-type, call-overload, index]
                "payload": payload.hex(),  # type: ignore[union-attr]
                "signature_input": (JOIN_REQUEST_DOMAIN + payload).hex(),  # type: ignore[operator]
                "signature": signature.hex(),  # type: ignore[union-attr]
                "wire": wire.hex(),
                "seated_as": seated.name,
            }
        )
    roster = list(seating.names)
    leaver = Ed25519PrivateKey.from_private_bytes(seed(f"joiner {LEAVER}"))
    wire = leave_request(leaver, requests[LEAVER]["name"], TABLE_ID)
    payload, signature = decode(wire)  # type: ignore[misc]
    left = seating.offer(wire, TABLE_ID, float(len(requests)))
    assert left is not None and left.kind == "left"
    leave = {
        "identity_seed": seed(f"joiner {LEAVER}").hex(),
        "payload": payload.hex(),  # type: ignore[union-attr]
        "signature_input": (JOIN_REQUEST_DOMAIN + payload).hex(),  # type: ignore[operator]
        "signature": signature.hex(),  # type: ignore[union-attr]
        "wire": wire.hex(),
    }
    return {
        "description": "Join requests (protocol/lobby.md §1) and the host's seating (§2). "
        "name = normalise(typed) (the last joiner signed its name as typed: the host seats it "
        "normalised all the same); payload = fixed-form msgpack {i, k: 'join', n: name, t}; "
        "signature = Ed25519(identity_seed, 'tarot-p2p/join-request/v1' 0x00 || payload); "
        "wire = msgpack [bin payload, bin signature]; seated_as = the name the host puts in "
        "the set-up, in relay order after the host, named 'Ana' (typed ' Ana '). Then "
        "the second joiner sends a leave request (§1.1: the same form, k: 'leave'): the host "
        "unseats it and the joiners after it move up (roster_after_leave). 'folding': "
        "another table, whose host is 'Stra\u00dfe', seats names that full case folding "
        "(str.casefold) finds taken: each made unique by the smallest free ' (k)'.",
        "table_id": TABLE_ID.hex(),
        "host_name": seating.names[0],
        "requests": requests,
        "roster_names": roster,
        "leave": leave,
        "roster_after_leave": list(seating.names),
        "folding": folded_seating(),
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    path = VECTOR_DIR / "lobby_join.json"
    path.write_text(render(build()), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
