"""Every public module, class and function of simcore, cli and analysis says what it is.

Public means a name without a leading underscore at module level, and a method without one of
such a class. The modules are read with ``ast`` (nothing is imported, so no kernel compiles).

Exempt:

- numba-compiled functions (``@nb.njit``, ``@internal_nb``, ``@intrinsic``, ...): a kernel module's docstring
  states the contract of its kernels (dtypes, shapes, what is allocated where), and its helpers
  are named for what they compute; they are read together with that docstring;
- the methods with which a class implements a protocol defined in these packages (``Game`` in
  ``simcore.games``, ``State`` in ``simcore.reference.forward``): the protocol documents them,
  and a second copy in every game would drift from it.

A public function that takes or returns NumPy arrays gives their dtype in its docstring
(numpydoc style: ``int64[n]``, ``uint64 mask``, ...), or in its class's docstring for a method.

``PENDING`` lists the gaps still open in the reference engines; an entry must be removed once
its docstring is written (the test fails while a listed gap is closed, so the list only shrinks).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("simcore", "cli", "analysis")
JIT_DECORATORS = {"njit", "jit", "intrinsic", "vectorize", "guvectorize", "generated_jit", "overload", "internal_nb"}
# (path, name): Tensho's round steps (its module docstring lists them in order of play).
PENDING = {
    *(("simcore/games/tensho/reference.py", f"RoundState.{name}")
      for name in ("label", "observe", "yaku_points", "has_instant", "capture",
                   "four_of_a_rank", "score")),
}
DTYPE = re.compile(r"\b(u?int(8|16|32|64)|float(32|64)|bool|uint64|dtype|mask)\b")


def modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def parsed() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8"), filename=str(path)) for path in modules()}


def decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def is_jitted(function: ast.FunctionDef) -> bool:
    return any(decorator_name(d) in JIT_DECORATORS for d in function.decorator_list)


def is_protocol(cls: ast.ClassDef) -> bool:
    return any(decorator_name(base) == "Protocol" for base in cls.bases)


def methods(cls: ast.ClassDef) -> list[ast.FunctionDef]:
    return [node for node in cls.body if isinstance(node, ast.FunctionDef)]


def protocols(trees: dict[Path, ast.Module]) -> dict[tuple[Path, str], set[str]]:
    """The method names of every protocol class defined in the packages, by module and class
    name (every game names its policy protocol ``GamePolicy``)."""
    found = {}
    for path, tree in trees.items():
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and is_protocol(node):
                found[(path, node.name)] = {m.name for m in methods(node)}
    return found


def mentions_arrays(function: ast.FunctionDef) -> bool:
    annotations = [a.annotation for a in (*function.args.posonlyargs, *function.args.args,
                                          *function.args.kwonlyargs) if a.annotation is not None]
    if function.returns is not None:
        annotations.append(function.returns)
    return any("ndarray" in ast.unparse(a) for a in annotations)


def problems() -> dict[tuple[str, str], str]:
    """What is missing, by (module path, qualified name)."""
    trees = parsed()
    protocol_members = protocols(trees)
    found: dict[tuple[str, str], str] = {}
    for path, tree in trees.items():
        where = path.relative_to(ROOT).as_posix()
        if not ast.get_docstring(tree):
            found[(where, "")] = f"{where}: no module docstring"
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) or node.name.startswith("_"):
                continue
            if isinstance(node, ast.FunctionDef) and is_jitted(node):
                continue
            doc = ast.get_docstring(node)
            if not doc:
                found[(where, node.name)] = f"{where}:{node.lineno}: {node.name} has no docstring"
            elif isinstance(node, ast.FunctionDef) and mentions_arrays(node) and not DTYPE.search(doc):
                found[(where, node.name)] = f"{where}:{node.lineno}: {node.name} takes or returns arrays; give their dtype"
            if not isinstance(node, ast.ClassDef):
                continue
            own = {m.name for m in methods(node)}
            implemented = set().union(*(members for key, members in protocol_members.items()
                                        if key != (path, node.name) and members <= own))
            for method in methods(node):
                if method.name.startswith("_") or method.name in implemented or is_jitted(method):
                    continue
                method_doc = ast.get_docstring(method)
                if not method_doc:
                    found[(where, f"{node.name}.{method.name}")] = (f"{where}:{method.lineno}: {node.name}.{method.name} "
                                                                    f"has no docstring")
                elif mentions_arrays(method) and not (DTYPE.search(method_doc) or DTYPE.search(doc or "")):
                    found[(where, f"{node.name}.{method.name}")] = (f"{where}:{method.lineno}: {node.name}.{method.name} "
                                                                    f"takes or returns arrays; give their dtype")
    return found


@pytest.mark.slow
def test_every_public_name_has_a_docstring() -> None:
    missing = [text for key, text in problems().items() if key not in PENDING]
    if missing:
        pytest.fail(f"{len(missing)} public names lack a docstring (or the dtype of their arrays):\n"
                    + "\n".join(missing), pytrace=False)


@pytest.mark.slow
def test_pending_gaps_are_still_open() -> None:
    closed = sorted(PENDING - set(problems()))
    if closed:
        pytest.fail("documented now; remove from PENDING: " + ", ".join(f"{p} {n}" for p, n in closed),
                    pytrace=False)


def test_the_check_finds_a_missing_docstring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "simcore").mkdir()
    (tmp_path / "simcore" / "example.py").write_text(
        '"""A module."""\n\n\n'
        "def documented(values: np.ndarray) -> None:\n    \"\"\"Count ``values`` (int64[n]).\"\"\"\n\n\n"
        "def undocumented() -> None:\n    pass\n\n\n"
        "def no_dtype(values: np.ndarray) -> None:\n    \"\"\"Count ``values``.\"\"\"\n\n\n"
        "def _private() -> None:\n    pass\n\n\n"
        "class Thing:\n    \"\"\"A thing.\"\"\"\n\n    def method(self) -> None:\n        pass\n",
        encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert sorted(problems()) == [("simcore/example.py", "Thing.method"), ("simcore/example.py", "no_dtype"),
                                  ("simcore/example.py", "undocumented")]
