"""The checked-in crypto vectors are exactly what the code computes, and verify from bytes."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from tarot_p2p.crypto.elgamal import Ciphertext
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import point_from_bytes
from tarot_p2p.crypto.keys import KeyShare, joint_key
from tarot_p2p.crypto.shares import recover_card, verify_shares
from tarot_p2p.crypto.sigma import CompactProof
from tarot_p2p.crypto.vectors import crypto_vectors

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("generate_crypto", VECTORS / "generate_crypto.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_files_match_recomputation_byte_for_byte() -> None:
    """Every vector file, recomputed inside the test (not when the module is imported): it
    compares the code as it is when the test runs, which a mutation run changes after the
    import (docs/mutation.md)."""
    computed = crypto_vectors()
    assert sorted(computed) == sorted(p.name for p in VECTORS.glob("crypto_*.json"))
    render = _generator().render
    stale = [n for n in computed if (VECTORS / n).read_bytes() != render(computed[n]).encode()]
    assert stale == []


def _load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def _ctx(data: dict[str, Any]) -> ProofContext:
    ctx = ProofContext(
        table_id=bytes.fromhex(data["table_id"]),
        hand=data["hand"],
        phase=data["phase"],
        seat=data["seat"],
        version=data["version"],
    )
    assert ctx.encode().hex() == data["encoding"]
    return ctx


def test_key_vectors_verify_from_bytes() -> None:
    v = _load("crypto_key_shares.json")
    shares = [KeyShare.from_bytes(bytes.fromhex(s["key_share"])) for s in v["seats"]]
    joint = joint_key(bytes.fromhex(v["table_id"]), v["hand"], shares)
    assert joint.format().hex() == v["joint_key"]


def test_share_and_opening_vectors_verify_from_bytes() -> None:
    v = _load("crypto_decryption_shares.json")
    for case in v["cases"]:
        cts = [Ciphertext.from_bytes(bytes.fromhex(c)) for c in case["ciphertexts"]]
        shares = [point_from_bytes(bytes.fromhex(s)) for s in case["shares"]]
        proof = CompactProof.from_bytes(bytes.fromhex(case["proof"]))
        verify_shares(
            point_from_bytes(bytes.fromhex(case["y"])), cts, shares, proof, _ctx(case["context"])
        )
    o = _load("crypto_opening.json")
    keys = _load("crypto_key_shares.json")["seats"]
    ct = Ciphertext.from_bytes(bytes.fromhex(o["ciphertext"]))
    opened = []
    for entry in o["published"]:
        share = point_from_bytes(bytes.fromhex(entry["share"]))
        y = point_from_bytes(bytes.fromhex(keys[entry["seat"]]["y"]))
        proof = CompactProof.from_bytes(bytes.fromhex(entry["proof"]))
        verify_shares(y, [ct], [share], proof, _ctx(entry["context"]))
        opened.append(share)
    assert recover_card(ct, opened) == o["card"]
    private = point_from_bytes(bytes.fromhex(o["owner_private_share"]))
    others = [s for e, s in zip(o["published"], opened, strict=True) if e["seat"] != o["owner"]]
    assert recover_card(ct, [*others, private]) == o["card"]
