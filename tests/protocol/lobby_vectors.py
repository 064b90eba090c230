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

from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.meet.lobby import (
    JOIN_REQUEST_DOMAIN,
    SEAT_TAG,
    Seating,
    join_request,
    leave_request,
    seat_proof,
)
from tarot_p2p.net.joincode import link_key
from tarot_p2p.protocol.codec import decode, encode

VECTOR_DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
TABLE_ID = hashlib.sha256(b"tarot-p2p vector table").digest()
SECRET = hashlib.sha256(b"tarot-p2p vector join secret").digest()[:16]
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
    seating = Seating(len(FOLDED) + 1, host.public_key(), FOLDED_HOST, SECRET)
    seated = []
    for i, choice in enumerate(FOLDED):
        key = Ed25519PrivateKey.from_private_bytes(seed(f"folding joiner {i}"))
        seat = seating.offer(join_request(key, choice, TABLE_ID, SECRET), TABLE_ID, float(i))
        assert seat is not None
        seated.append({"typed": choice, "seated_as": seat.name})
    return {"host_name": FOLDED_HOST, "requests": seated, "roster_names": list(seating.names)}


def build() -> dict[str, Any]:
    host = Ed25519PrivateKey.from_private_bytes(seed("host"))
    seating = Seating(5, host.public_key(), " Ana ", SECRET)
    requests = []
    for i, choice in enumerate((*CHOICES, SLOPPY)):
        key = Ed25519PrivateKey.from_private_bytes(seed(f"joiner {i}"))
        identity = key.public_key().public_bytes_raw()
        if choice is SLOPPY:  # signed as typed: the host normalises it all the same
            proof = seat_proof(SECRET, TABLE_ID, identity)
            body = {"i": identity, "k": "join", "n": SLOPPY, "p": proof, "v": PROTOCOL_VERSION}
            raw = encode({**body, "t": TABLE_ID})
            wire = encode([raw, key.sign(JOIN_REQUEST_DOMAIN + raw)])
        else:
            wire = join_request(key, choice, TABLE_ID, SECRET)
        payload, signature = decode(wire)  # type: ignore[misc]
        seated = seating.offer(wire, TABLE_ID, float(i))
        assert seated is not None
        requests.append(
            {
                "identity_seed": seed(f"joiner {i}").hex(),
                "identity_public": identity.hex(),
                "typed": choice,
                "seat_proof_input": (SEAT_TAG + TABLE_ID + identity).hex(),
                "seat_proof": seat_proof(SECRET, TABLE_ID, identity).hex(),
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
    wire = leave_request(leaver, requests[LEAVER]["name"], TABLE_ID, SECRET)
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
        "normalised all the same); seat_proof = HMAC-SHA256(join_secret, "
        "'tarot-p2p/seat/v1' 0x00 || table_id || identity_public); payload = fixed-form "
        "msgpack {i, k: 'join', n: name, p: seat_proof, t, v: 2, the protocol version}; "
        "signature = Ed25519(identity_seed, 'tarot-p2p/join-request/v2' 0x00 || payload); "
        "wire = msgpack [bin payload, bin signature]; seated_as = the name the host puts in "
        "the set-up, in relay order after the host, named 'Ana' (typed ' Ana '). Then "
        "the second joiner sends a leave request (§1.1: the same form, k: 'leave'): the host "
        "unseats it and the joiners after it move up (roster_after_leave). 'refused': "
        "validly signed requests a host seats nobody for (seat proofs not made with the "
        "join secret: what a relay holding only the link key can send). 'folding': "
        "another table (same table id and join secret), whose host is 'Stra\u00dfe', seats "
        "names that full case folding (str.casefold) finds taken: each made unique by the "
        "smallest free ' (k)'.",
        "table_id": TABLE_ID.hex(),
        "join_secret": SECRET.hex(),
        "link_key": link_key(SECRET).hex(),
        "host_name": seating.names[0],
        "requests": requests,
        "roster_names": roster,
        "leave": leave,
        "roster_after_leave": list(seating.names),
        "refused": refused(seating),
        "folding": folded_seating(),
    }


def refused(seating: Seating) -> list[dict[str, Any]]:
    """Requests from a relay's sybil (lobby.md §4): a seat proof under the link key, and a
    real joiner's proof copied under another key. Each is signed by its own key."""
    sybil = Ed25519PrivateKey.from_private_bytes(seed("sybil"))
    identity = sybil.public_key().public_bytes_raw()
    first = Ed25519PrivateKey.from_private_bytes(seed("joiner 0")).public_key()
    proofs = {
        "a seat proof made with the link key instead of the join secret": seat_proof(
            link_key(SECRET), TABLE_ID, identity
        ),
        "the first joiner's seat proof under another key": seat_proof(
            SECRET, TABLE_ID, first.public_bytes_raw()
        ),
    }
    cases = []
    for why, proof in proofs.items():
        payload = encode(
            {
                "i": identity,
                "k": "join",
                "n": "Sybil",
                "p": proof,
                "t": TABLE_ID,
                "v": PROTOCOL_VERSION,
            }
        )
        wire = encode([payload, sybil.sign(JOIN_REQUEST_DOMAIN + payload)])
        assert seating.offer(wire, TABLE_ID, 0.0) is None
        cases.append({"why": why, "identity_seed": seed("sybil").hex(), "wire": wire.hex()})
    return cases


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    path = VECTOR_DIR / "lobby_join.json"
    path.write_text(render(build()), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
