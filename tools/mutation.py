"""Mutation testing of the security-critical modules, one module at a time (docs/mutation.md).

Why a wrapper around mutmut: mutmut reads one test selection from ``pyproject.toml``, and
the whole suite takes minutes, which every surviving mutant would pay again. Each module
here gets its own run, in its own folder under ``build/mutation/``, with only the tests
that concern it (the table ``[tool.tarot_p2p.mutation]`` of ``pyproject.toml``); the
settings common to all runs are mutmut's own ``[tool.mutmut]`` table. A folder keeps its
results, so running again only tests what changed.

    python tools/mutation.py run [MODULE ...]      mutate and test (all modules by default)
    python tools/mutation.py retest [MODULE ...]   test again every mutant not killed (after
                                                   tests were added: mutmut keeps results)
    python tools/mutation.py report [MODULE ...]   the score of each module
    python tools/mutation.py survivors [MODULE ...]  every surviving mutant, as a diff

``--only PATTERN`` (run, retest; repeatable) tests only the mutants whose names match
(mutmut's names, ``fnmatch`` patterns: ``'*ǁ_leave_round__mutmut_*'``): the functions a
stopped run had not reached, or the ones just given new tests.

MODULE is a path as in the table (``tarot_p2p/protocol/sync.py``) or a part of one
(``sync``). Runs are at low priority and test one mutant at a time (the machine is
shared); ``--jobs N`` tests N at once, for a machine left to the run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "mutation"
COPIED = ("tarot_p2p", "tests", "protocol", "clients")
"""What a run needs of the tree: the package, the tests, the vectors, the example clients."""
KILLED = {"killed", "timeout", "caught by type check"}
SURVIVED = {"survived", "no tests"}


def settings() -> tuple[str, dict[str, object], dict[str, list[str]]]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    return text, data["tool"]["mutmut"], data["tool"]["tarot_p2p"]["mutation"]["modules"]


def chosen(modules: dict[str, list[str]], names: list[str]) -> list[str]:
    if not names:
        return list(modules)
    out = []
    for name in names:
        found = [m for m in modules if name in m]
        if not found:
            sys.exit(f"no module in [tool.tarot_p2p.mutation.modules] matches {name!r}")
        out += [m for m in found if m not in out]
    return out


def folder(module: str) -> Path:
    return WORK / module.removesuffix(".py").replace("/", ".")


def toml_value(value: object) -> str:
    """A string, number, boolean or list of them in TOML (JSON's escapes are TOML's)."""
    return json.dumps(value)


def prepare(module: str, pyproject: str, shared: dict[str, object], tests: list[str]) -> Path:
    """The module's folder: a fresh copy of the tree (times kept, so mutmut redoes only
    what changed) and a ``pyproject.toml`` whose ``[tool.mutmut]`` names it and its tests."""
    where = folder(module)
    where.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in COPIED:
        shutil.rmtree(where / name, ignore_errors=True)
        shutil.copytree(ROOT / name, where / name, ignore=ignore)
    own = {**shared, "only_mutate": [module], "pytest_add_cli_args_test_selection": tests}
    table = "[tool.mutmut]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in own.items())
    text = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", lambda _: table + "\n", pyproject)
    (where / "pyproject.toml").write_text(text, encoding="utf-8")
    return where


def mutmut(where: Path, *args: str, capture: bool = False) -> str:
    """Run mutmut in ``where`` (no PYTHONPATH: the tests must import the mutated copy)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [str(Path(sys.executable).parent / "mutmut"), *args]
    done = subprocess.run(command, cwd=where, env=env, text=True, capture_output=capture)
    if done.returncode:
        sys.exit(f"mutmut {' '.join(args)} failed in {where}:\n{done.stdout or ''}")
    return done.stdout or ""


@dataclass
class Score:
    module: str
    statuses: dict[str, str]

    def count(self, kinds: set[str]) -> int:
        return sum(status in kinds for status in self.statuses.values())

    def line(self) -> str:
        killed, survived = self.count(KILLED), self.count(SURVIVED)
        no_tests = self.count({"no tests"})
        unsure = len(self.statuses) - killed - survived  # not checked yet, or suspicious
        score = f"{100 * killed / len(self.statuses):5.1f} %" if self.statuses else "    -"
        line = (
            f"{self.module:40} {len(self.statuses):5} {killed:7} {survived - no_tests:9}"
            f" {no_tests:9} {score}"
        )
        return line + (f"  ({unsure} not checked: run it again)" if unsure else "")


def score(module: str) -> Score | None:
    where = folder(module)
    if not (where / "mutants").is_dir():
        return None
    out = mutmut(where, "results", "--all", "true", capture=True)
    statuses = {}
    for line in out.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if name:
            statuses[name] = status
    return Score(module, statuses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["run", "retest", "report", "survivors"])
    parser.add_argument("modules", nargs="*", help="modules (or parts of their paths)")
    parser.add_argument(
        "--only", action="append", default=[], metavar="PATTERN", help="mutant names to test"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="mutants tested at once (default 1: a shared machine)"
    )
    options = parser.parse_args()
    pyproject, shared, modules = settings()
    names = chosen(modules, options.modules)
    if options.action in ("run", "retest"):
        os.nice(10)
        for module in names:
            again: list[str] = []
            if options.action == "retest":
                result = score(module)
                statuses = result.statuses if result else {}
                again = [n for n, s in statuses.items() if s not in KILLED]
                if options.only:
                    again = [n for n in again if any(fnmatch(n, p) for p in options.only)]
                if not again:
                    continue
            else:
                again = list(options.only)
            where = prepare(module, pyproject, shared, modules[module])
            start = time.monotonic()
            mutmut(where, "run", "--max-children", str(max(1, options.jobs)), *again)
            print(f"{module}: {time.monotonic() - start:.0f} s", flush=True)
    if options.action in ("run", "retest", "report"):
        print(f"{'module':40} {'total':>5} {'killed':>7} {'survived':>9} {'no tests':>9} score")
        for module in names:
            result = score(module)
            print(result.line() if result else f"{module:40} (not run yet)")
    if options.action == "survivors":
        for module in names:
            result = score(module)
            for name, status in sorted((result.statuses if result else {}).items()):
                if status in SURVIVED:
                    diff = mutmut(folder(module), "show", name, capture=True)
                    print(f"## {name} ({status})\n{diff}")


if __name__ == "__main__":
    main()
