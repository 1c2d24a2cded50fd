"""benchmarks.kernel_ab's extraction of a revision's engine under another package name."""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.kernel_ab import extract, main
from simcore.rng import Stream

ROOT = Path(__file__).resolve().parent.parent


def _is_git_checkout() -> bool:
    return shutil.which("git") is not None and subprocess.run(
        ["git", "rev-parse", "--verify", "HEAD"], cwd=ROOT, capture_output=True).returncode == 0


pytestmark = pytest.mark.skipif(not _is_git_checkout(), reason="needs the project's git history")


def test_a_revision_is_extracted_as_a_package_of_its_own(tmp_path):
    short, package = extract("HEAD", ROOT, tmp_path)
    assert package == f"simcore_{short}"
    sources = list((tmp_path / package).rglob("*.py"))
    assert sources and not any(re.search(rb"(from|import) simcore\b", p.read_bytes()) for p in sources)
    sys.path.insert(0, str(tmp_path))
    try:
        rng = importlib.import_module(f"{package}.rng")
        assert rng.__file__.startswith(str(tmp_path))
        # HEAD's streams (the benchmark compares kernels, never different random streams by accident)
        assert rng.Stream(7, 3, 16).uniform_below(45) == Stream(7, 3, 16).uniform_below(45)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]


def test_an_unknown_revision_is_a_usage_error(capsys):
    assert main(["--against", "no-such-revision-anywhere"]) == 2
    assert "--against no-such-revision-anywhere" in capsys.readouterr().err


def test_an_option_without_a_value_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--option", "enshu.players"])
    assert exit_info.value.code == 2
    assert "--option enshu.players: not KEY=VALUE" in capsys.readouterr().err
