"""The vector table of ``protocol/README.md`` names every file of ``protocol/vectors/``,
each once, with a generator and a test that exist.

Why: an implementer learns from that table which vectors to reproduce; a file it does not
list (``wire_sync.json`` once was) is a vector nobody outside knows to check.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = ROOT / "protocol"
VECTORS = PROTOCOL / "vectors"


def vector_rows() -> list[tuple[list[str], list[str], list[str]]]:
    """(files, generators, tests) of each row of the README's vector table."""
    text = (PROTOCOL / "README.md").read_text(encoding="utf-8")
    section = text.split("## Test vectors", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = line.split(" | ")
        if not line.startswith("| `") or len(cells) != 4:
            continue
        files, _, generator, tests = (re.findall(r"`([^`]+)`", cell) for cell in cells)
        rows.append((files, generator, [t for t in tests if t.endswith(".py")]))
    return rows


def where(path: str) -> Path:
    """A path of the table: ``vectors/...`` is under ``protocol/``, the rest under the root."""
    return PROTOCOL / path if path.startswith("vectors/") else ROOT / path


def test_every_vector_file_is_listed_once() -> None:
    rows = vector_rows()
    assert len(rows) >= 10
    listed = [name for files, _, _ in rows for name in files]
    generators = {Path(g).name for _, gens, _ in rows for g in gens if g.startswith("vectors/")}
    present = sorted(p.name for p in VECTORS.iterdir() if p.is_file() and p.name not in generators)
    assert sorted(listed) == present


def test_every_row_names_a_generator_and_a_test_that_exist() -> None:
    for files, generators, tests in vector_rows():
        assert len(generators) == 1 and tests, files
        assert where(generators[0]).is_file(), generators[0]
        for test in tests:
            assert (ROOT / test).is_file(), test
