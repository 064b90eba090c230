"""The checked-in shuffle vectors are exactly what the code computes, and verify from bytes."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tarot_p2p.crypto.elgamal import Ciphertext
from tarot_p2p.crypto.errors import ProofError
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import point_from_bytes
from tarot_p2p.crypto.shuffle import ShuffleProof, verify_shuffle
from tarot_p2p.crypto.shuffle_vectors import shuffle_vectors

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"


def _render(content: object) -> bytes:
    spec = importlib.util.spec_from_file_location("generate_crypto", VECTORS / "generate_crypto.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text: str = module.render(content)
    return text.encode("utf-8")


def test_files_match_recomputation_byte_for_byte() -> None:
    """Every vector file, recomputed inside the test (not when the module is imported): it
    compares the code as it is when the test runs, which a mutation run changes after the
    import (docs/mutation.md)."""
    computed = shuffle_vectors()
    assert sorted(computed) == sorted(p.name for p in VECTORS.glob("shuffle_*.json"))
    stale = [n for n in sorted(computed) if (VECTORS / n).read_bytes() != _render(computed[n])]
    assert stale == []


def _load(name: str) -> dict[str, Any]:
    content: dict[str, Any] = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    return content


@pytest.mark.parametrize("name", ["shuffle_4.json", "shuffle_78.json"])
def test_vector_verifies_from_its_bytes(name: str) -> None:
    v = _load(name)
    c = v["context"]
    ctx = ProofContext(bytes.fromhex(c["table_id"]), c["hand"], c["phase"], c["seat"], c["version"])
    assert ctx.encode().hex() == c["encoding"]
    y = point_from_bytes(bytes.fromhex(v["y"]))
    deck_in = [Ciphertext.from_bytes(bytes.fromhex(h)) for h in v["deck_in"]]
    deck_out = [Ciphertext.from_bytes(bytes.fromhex(h)) for h in v["deck_out"]]
    proof = ShuffleProof.from_bytes(bytes.fromhex(v["proof"]), v["n"])
    verify_shuffle(y, deck_in, deck_out, proof, ctx)
    with pytest.raises(ProofError):
        verify_shuffle(y, deck_in, deck_out[::-1], proof, ctx)
