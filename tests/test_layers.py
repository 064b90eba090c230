"""The package's shape, read from its imports (``docs/architecture.md``).

Every ``import`` of a ``tarot_p2p`` module, at the top of a file or inside a function, is an
edge. A package may import only packages of a lower rank, and no module may reach itself
by following edges: a circle means two modules that cannot be read, tested or moved apart.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import tarot_p2p

ROOT = Path(tarot_p2p.__file__).parent

RANK = {
    "rules": 0,
    "crypto": 1,
    "protocol": 2,
    "files": 3,
    "net": 4,
    "meet": 5,
    "seat": 6,
    "ui": 7,
    "conformance": 7,
    "cli": 8,
}
"""Each package of ``tarot_p2p``, lowest first: one may import those ranked below it."""

ONLY = {"bots": {"rules"}}
"""Packages that stand beside the ladder: bots are policies over the rules alone."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> Iterator[tuple[str, int]]:
    """The ``tarot_p2p`` modules ``path`` imports, with the line of each import."""
    package = module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else None
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("tarot_p2p."):
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = (package or module_name(path)).split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target.startswith("tarot_p2p."):
                # ``from tarot_p2p.x import y`` may name a module y of package x.
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    yield (
                        (
                            sub
                            if (ROOT.parent / sub.replace(".", "/")).with_suffix(".py").exists()
                            else target
                        ),
                        node.lineno,
                    )


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        edges[module_name(path)] = {name for name, _ in imports(path)}
    return edges


def package_of(module: str) -> str:
    return module.split(".")[1] if module.count(".") else ""


def test_every_package_has_a_rank() -> None:
    packages = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(RANK) | set(ONLY)


def test_no_package_imports_one_above_it() -> None:
    wrong = []
    for path in sorted(ROOT.rglob("*.py")):
        source = package_of(module_name(path))
        if source not in RANK and source not in ONLY:
            continue  # tarot_p2p/__main__.py, the entry point
        for target, line in imports(path):
            dest = package_of(target)
            if dest == source:
                continue
            allowed = (
                dest in ONLY[source]
                if source in ONLY
                else (dest in ONLY or RANK[dest] < RANK[source])
            )
            if not allowed:
                wrong.append(f"{path.relative_to(ROOT.parent)}:{line} imports {target}")
    assert wrong == []


def find_circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every circle met by a depth-first walk of ``edges`` (modules to what they import)."""
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(module: str, trail: list[str]) -> None:
        state[module] = 1
        for target in sorted(edges.get(module, ())):
            if target not in edges:
                continue
            if state.get(target) == 1:
                circles.append([*trail[trail.index(target) :], target])
            elif target not in state:
                visit(target, [*trail, target])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    return circles


def test_no_import_circle_between_modules() -> None:
    assert find_circles(graph()) == []


def test_the_checks_see_what_they_look_for() -> None:
    """The walk finds a circle, and the reader of imports finds imports inside functions."""
    assert find_circles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    runner = ROOT / "seat" / "runner.py"
    assert any(name == "tarot_p2p.files.history" for name, _ in imports(runner))
