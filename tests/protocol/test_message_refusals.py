"""Every message body's schema at its edges (``protocol/table.md`` §2), and the registry.

Why here: the schemas are the first check a peer's body meets, and everything after them
trusts the lengths they fix. Each bound of the table is tried at its edge and one past it,
so a bound moved by one, or dropped, fails a test. The registry (``_register``) runs when
the module is imported, which in a mutation run is before any mutant exists
(``docs/mutation.md``): ``test_the_registry_built_afresh_reads_and_writes_every_type``
builds a second copy of the module inside the test, so the code that fills it is the code
under test.
"""

from __future__ import annotations

import importlib.util
from types import ModuleType
from typing import Any

import pytest

from tarot_p2p.protocol import messages as m
from tarot_p2p.protocol.codec import SchemaError

KINDS = (
    "table",
    "key",
    "escrow",
    "complaint",
    "release",
    "shuffle",
    "shares",
    "action",
    "petit_sec",
    "ecart",
    "poignee",
    "play",
    "score",
    "abandon",
)
"""The kinds of table.md §2, in its order."""


def b(n: int) -> bytes:
    return bytes(n)


def valid(kind: str) -> dict[str, Any]:
    """A body of ``kind`` that its schema accepts, every field at its smallest."""
    bodies: dict[str, dict[str, Any]] = {
        "table": {"config": b(1), "roster": [b(32)] * 3, "names": ["a"] * 3},
        "key": {"y": b(33), "pok": b(64), "e": b(33)},
        "escrow": {"escrow": b(163)},
        "complaint": {"owner": 0, "e": b(32)},
        "release": {"a": b(32)},
        "shuffle": {"deck": b(78 * 66), "proof": b(1)},
        "shares": {"d": b(0), "proof": b(64)},
        "action": {"action": []},
        "petit_sec": {"d": b(0), "proof": b(64)},
        "ecart": {
            "deck": b(18 * 66),
            "proof": b(1),
            "discard": [0, 1, 2],
            "trumps": [],
            "d": b(0),
            "dproof": b(0),
        },
        "poignee": {"slots": [0], "d": b(0), "proof": b(64)},
        "play": {"slot": 0, "d": b(33), "proof": b(64)},
        "score": {"scores": [0, 0, 0]},
        "abandon": {"seat": 0, "claims": [b(64)] * 2},
    }
    return bodies[kind]


EDGES: list[tuple[str, str, list[object], list[object]]] = [
    # kind, key, values taken (at the edges), values refused (one past them, or wrong type)
    ("table", "config", [b(4096)], [b(0), b(4097), "x"]),
    ("table", "roster", [[b(32)] * 5], [[b(32)] * 2, [b(32)] * 6, [b(31)] * 3, [b(33)] * 3]),
    ("table", "names", [["é" * 64] * 3, ["a"] * 5], [["a" * 65] * 3, ["a"] * 2, ["a"] * 6]),
    ("key", "y", [], [b(32), b(34)]),
    ("key", "pok", [], [b(63), b(65)]),
    ("key", "e", [], [b(32), b(34)]),
    ("escrow", "escrow", [b(293)], [b(162), b(294)]),
    ("complaint", "owner", [4], [5, -1, True]),
    ("complaint", "e", [], [b(31), b(33)]),
    ("release", "a", [], [b(31), b(33)]),
    ("shuffle", "deck", [b(3 * 66), b(78 * 66)], [b(3 * 66 - 1), b(78 * 66 + 1)]),
    ("shuffle", "proof", [b(1 << 18)], [b(0), b((1 << 18) + 1)]),
    ("shares", "d", [b(33 * 108)], [b(33 * 108 + 1)]),
    ("shares", "proof", [], [b(63), b(65)]),
    ("petit_sec", "d", [b(33 * 108)], [b(33 * 108 + 1)]),
    ("petit_sec", "proof", [], [b(63), b(65)]),
    ("action", "action", [[65535] * 32], [[0] * 33, [65536], [-1]]),
    ("ecart", "deck", [b(30 * 66)], [b(18 * 66 - 1), b(30 * 66 + 1)]),
    ("ecart", "proof", [b(1 << 18)], [b(0), b((1 << 18) + 1)]),
    ("ecart", "discard", [[29] * 6], [[0, 1], [0] * 7, [30, 0, 1]]),
    ("ecart", "trumps", [[29] * 6], [[0] * 7, [30]]),
    ("ecart", "d", [b(198)], [b(199)]),
    ("ecart", "dproof", [b(64)], [b(65)]),
    ("poignee", "slots", [[107] * 30], [[], [0] * 31, [108]]),
    ("poignee", "d", [b(33 * 108)], [b(33 * 108 + 1)]),
    ("poignee", "proof", [], [b(63), b(65)]),
    ("play", "slot", [107], [108, -1]),
    ("play", "d", [], [b(32), b(34)]),
    ("play", "proof", [], [b(63), b(65)]),
    ("score", "scores", [[0] * 5], [[0] * 2, [0] * 6]),
    ("abandon", "seat", [], [-1, "0"]),
    ("abandon", "claims", [[b(64)] * 4], [[b(64)], [b(64)] * 5, [b(63)] * 2, [b(65)] * 2]),
]


def test_the_edge_table_names_every_key_of_every_kind() -> None:
    """A field of a body that this file never tries at its edges would be unguarded."""
    assert sorted(m._SCHEMAS) == sorted(KINDS)
    for kind in KINDS:
        tried = {key for k, key, _, _ in EDGES if k == kind}
        assert tried == set(valid(kind)), kind


@pytest.mark.parametrize("kind", KINDS)
def test_the_smallest_body_of_each_kind_is_read_and_written_back(kind: str) -> None:
    message = m.load_body(kind, valid(kind))
    assert m.type_of(message) == kind
    assert m.dump_body(message) == valid(kind)


@pytest.mark.parametrize(
    ("kind", "key", "taken", "refused"), EDGES, ids=[f"{k}.{f}" for k, f, _, _ in EDGES]
)
def test_each_bound_holds_at_its_edge(
    kind: str, key: str, taken: list[object], refused: list[object]
) -> None:
    for value in taken:
        m.load_body(kind, {**valid(kind), key: value})
    for value in refused:
        with pytest.raises(SchemaError, match=rf"^{kind}\.{key}\b"):
            m.load_body(kind, {**valid(kind), key: value})


@pytest.mark.parametrize("kind", KINDS)
def test_a_key_missing_or_added_is_refused_in_words_naming_the_kind(kind: str) -> None:
    body = valid(kind)
    first = next(iter(body))
    missing = {k: v for k, v in body.items() if k != first}
    with pytest.raises(SchemaError, match=rf"^{kind}: missing keys \['{first}'\]"):
        m.load_body(kind, missing)
    with pytest.raises(SchemaError, match=rf"^{kind}: .*unknown keys \['z'\]"):
        m.load_body(kind, {**body, "z": 0})
    with pytest.raises(SchemaError, match=rf"^{kind}: expected a map"):
        m.load_body(kind, [])


@pytest.mark.parametrize("name", ["move", "", "Table", "_register"])
def test_an_unknown_kind_is_refused_in_words_naming_it(name: str) -> None:
    with pytest.raises(SchemaError, match=rf"^unknown message type {name!r}$"):
        m.load_body(name, {})


def fresh_messages() -> ModuleType:
    """A second copy of ``messages``, its registry filled now (not at the first import),
    and kept out of ``sys.modules``: the copy under the module's own name, so that a
    mutation run's mutant of ``_register`` is the one that fills it."""
    spec = importlib.util.spec_from_file_location(m.__name__, m.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module is not m
    return module


def test_the_registry_built_afresh_reads_and_writes_every_type() -> None:
    fresh = fresh_messages()
    assert sorted(fresh._SCHEMAS) == sorted(KINDS)
    for kind in KINDS:
        message = fresh.load_body(kind, valid(kind))
        assert type(message).__module__ == m.__name__
        assert type(message) is not type(m.load_body(kind, valid(kind)))
        assert fresh.type_of(message) == kind
        assert fresh.dump_body(message) == valid(kind)
        with pytest.raises(SchemaError, match=rf"^{kind}: expected a map"):
            fresh.load_body(kind, None)
