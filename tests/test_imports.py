"""Imports read top-down: no import circle, no import against the layers of docs/architecture.md,
and no game named outside its own package.

Every import statement counts, those inside functions included; only imports under
``if TYPE_CHECKING:`` (annotations, never run) are left out. An import of a package's submodule
(``from analysis import tables``) is an arrow to the submodule; any other name imported from a
package is an arrow to the package's ``__init__``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from simcore.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("simcore", "cli", "analysis", "benchmarks", "fudasim")

# The layers of docs/architecture.md, top first: a module may import its own layer and those
# below it. The first prefix that matches a module names its layer.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("benchmarks",),
    ("cli", "fudasim"),
    ("analysis",),
    ("simcore.run", "simcore.play"),
    ("simcore.games",),
    ("simcore",),
)
# The game packages: none imports another, and nothing outside them imports one.
GAMES_PACKAGE = "simcore.games"
# Micro-benchmarks of one game's kernels (instruction counts, branch misses, report scaling of
# its columns): they measure that game's internals by design.
ONE_GAME_BENCHMARKS = {"benchmarks.branches", "benchmarks.instructions", "benchmarks.report_scale",
                       "benchmarks.koikoi_bench"}  # koi-koi's kernels beside Tensho's


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            found[module_name(path)] = path
    return found


def _type_checking_only(tree: ast.Module) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:``."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            hidden |= {id(n) for statement in node.body for n in ast.walk(statement)}
    return hidden


def imports(known: dict[str, Path]) -> dict[str, dict[str, int]]:
    """module -> {imported module: line} for every run-time import of a project module."""
    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, int]] = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hidden = _type_checking_only(tree)
        arrows = graph.setdefault(name, {})
        for node in ast.walk(tree):
            if id(node) in hidden:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                    base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                           for alias in node.names]
            for target in targets:
                if target.split(".")[0] not in PACKAGES:
                    continue
                resolved = resolve(target)
                if resolved is not None and resolved != name:
                    arrows.setdefault(resolved, node.lineno)
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layer(module: str) -> int:
    for level, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return level
    raise AssertionError(f"{module} is in no layer of LAYERS")


def game_of_module(module: str) -> str | None:
    """The registered game package a module belongs to (``simcore.games.<game>``), else None
    (``simcore.games.base`` and ``simcore.games.parts`` are the protocol's, shared by every game)."""
    for package in REGISTRY.values():
        if module == package or module.startswith(package + "."):
            return package
    return None


@pytest.fixture(scope="module")
def graph() -> dict[str, dict[str, int]]:
    return imports(modules())


def test_there_is_no_import_circle(graph):
    found = circles(graph)
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_no_import_runs_against_the_layers(graph):
    upward = [f"{source} (line {line}) imports {target}"
              for source, targets in graph.items() for target, line in targets.items()
              if layer(target) < layer(source)]
    assert not upward, "imports against the layers of docs/architecture.md:\n" + "\n".join(upward)


def test_no_game_package_is_imported_from_outside_it(graph):
    leaks = [f"{source} (line {line}) imports {target}"
             for source, targets in graph.items() for target, line in targets.items()
             if game_of_module(target) is not None and game_of_module(target) != game_of_module(source)
             and source not in ONE_GAME_BENCHMARKS]
    assert not leaks, "a game reached other than through the registry:\n" + "\n".join(leaks)


def test_the_checks_see_what_they_look_for():
    """The graph builder finds a circle, a function-level import and a game import when they are there."""
    fake = {"simcore.a": {"simcore.b": 1}, "simcore.b": {"simcore.a": 3}, "simcore.c": {}}
    assert circles(fake) == [["simcore.a", "simcore.b"]]
    assert layer("simcore.games.tensho.reference") < layer("simcore.cards")
    assert layer("cli.main") < layer("analysis.report")
    assert game_of_module("simcore.games.enshu.state_nb") == "simcore.games.enshu"
    assert game_of_module("simcore.games") is None
    graph = imports(modules())
    # a function-level import is counted (the registry's game loading is by name, not an import)
    assert "simcore.registry" in graph["simcore.policies"]


def _docstrings(tree: ast.Module) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def test_no_game_is_named_outside_its_package():
    """The core, the command line, analysis and the Python API ask the registry and the ``Game``
    protocol: no string names a game (``"tensho"``) or one of its options (``"enshu.players"``)."""
    from simcore.registry import REGISTRY

    leaks = []
    for name, path in modules().items():
        if name.startswith((GAMES_PACKAGE + ".", "benchmarks")) or name == "simcore.registry":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                if node.value in REGISTRY or node.value.startswith(tuple(f"{game}." for game in REGISTRY)):
                    leaks.append(f"{name} (line {node.lineno}): {node.value!r}")
    assert not leaks, "game names outside the game packages:\n" + "\n".join(leaks)
