"""The code type-checks: mypy, with the settings of ``[tool.mypy]`` in pyproject.toml.

mypy runs as CI runs it (``python -m mypy`` from the project root, which checks the ``files``
the configuration lists: simcore, cli, analysis, benchmarks), with its cache in a temporary
directory so that a stale cache can neither hide nor invent an error. Any error fails the test
and its message lists mypy's report.

The second test shows that the protocol annotation does its job: a game object assigned to
``GAME: Game`` that lacks a member of the ``Game`` protocol is an error, so every registered game
(``simcore/games/<name>/game.py``) is checked against the protocol by the first test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


def run_mypy(cache_dir: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    """``python -m mypy`` from the project root with its configuration (and ``targets``, if given)."""
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               "--cache-dir", str(cache_dir), "--no-color-output", "--no-error-summary", *targets]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_mypy_reports_no_error(cache_dir: Path) -> None:
    result = run_mypy(cache_dir)
    assert result.returncode == 0, f"mypy found errors:\n{result.stdout}{result.stderr}"


@pytest.mark.slow
def test_a_game_missing_a_protocol_member_is_an_error(cache_dir: Path, tmp_path: Path) -> None:
    # Tensho's game module with one method renamed: mypy must name the member it now lacks.
    source = (ROOT / "simcore" / "games" / "tensho" / "game.py").read_text(encoding="utf-8")
    assert source.count("def describe_rules(") == 1
    module = tmp_path / "renamed_member.py"
    module.write_text(source.replace("def describe_rules(", "def describe_the_rules("), encoding="utf-8")
    result = run_mypy(cache_dir, str(module))
    assert result.returncode == 1, f"mypy accepted a game that breaks the protocol:\n{result.stdout}{result.stderr}"
    errors = [line for line in result.stdout.splitlines() if ": error: " in line]
    assert len(errors) == 1 and 'variable has type "Game"' in errors[0], result.stdout
    assert "missing following \"Game\" protocol member" in result.stdout, result.stdout
    assert "describe_rules" in result.stdout, result.stdout
