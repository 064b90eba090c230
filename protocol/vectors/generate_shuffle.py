"""Rewrite the shuffle test vectors (protocol/vectors/shuffle_*.json) from fixed seeds.

Run from the repository root: ``python3 protocol/vectors/generate_shuffle.py``.
tests/crypto/test_shuffle_vectors.py recomputes them and fails on any byte of difference.
"""

from __future__ import annotations

import json
from pathlib import Path

from tarot_p2p.crypto.shuffle_vectors import shuffle_vectors


def render(content: object) -> str:
    """The canonical file text: sorted keys, two-space indent, final newline."""
    return json.dumps(content, indent=2, sort_keys=True) + "\n"


def main() -> None:
    here = Path(__file__).parent
    for name, content in shuffle_vectors().items():
        (here / name).write_text(render(content), encoding="utf-8")
        print(f"wrote {here / name}")


if __name__ == "__main__":
    main()
