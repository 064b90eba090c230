"""Rewrite the crypto, shuffle and escrow test vectors (protocol/vectors/crypto_*.json,
shuffle_*.json and escrow_*.json) from fixed seeds.

Run from the repository root: ``python3 protocol/vectors/generate_crypto.py``.
tests/crypto/test_vectors.py, tests/crypto/test_shuffle_vectors.py and
tests/crypto/test_escrow_vectors.py recompute them and fail on any byte of difference.
"""

from __future__ import annotations

import json
from pathlib import Path

from tarot_p2p.crypto.escrow_vectors import escrow_vectors
from tarot_p2p.crypto.shuffle_vectors import shuffle_vectors
from tarot_p2p.crypto.vectors import crypto_vectors


def render(content: object) -> str:
    """The canonical file text: sorted keys, two-space indent, final newline."""
    return json.dumps(content, indent=2, sort_keys=True) + "\n"


def main() -> None:
    here = Path(__file__).parent
    for name, content in {**crypto_vectors(), **shuffle_vectors(), **escrow_vectors()}.items():
        (here / name).write_text(render(content), encoding="utf-8")
        print(f"wrote {here / name}")


if __name__ == "__main__":
    main()
