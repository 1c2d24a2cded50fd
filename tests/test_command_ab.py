"""benchmarks.command_ab: a fudasim command timed from a revision's tree and the working tree."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from benchmarks.command_ab import command, extract, main

ROOT = Path(__file__).resolve().parent.parent


def _is_git_checkout() -> bool:
    return shutil.which("git") is not None and subprocess.run(
        ["git", "rev-parse", "--verify", "HEAD"], cwd=ROOT, capture_output=True).returncode == 0


def test_out_becomes_the_runs_own_folder(tmp_path):
    line = command(["run", "tensho-ise", "--out", "{out}", "--rounds", "5"], tmp_path / "x")
    assert line[1:3] == ["-m", "cli.main"]
    assert line[3:] == ["run", "tensho-ise", "--out", str(tmp_path / "x"), "--rounds", "5"]


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--against", "HEAD"])
    assert exit_.value.code == 2 and "give the fudasim command after --" in capsys.readouterr().err


@pytest.mark.skipif(not _is_git_checkout(), reason="needs the project's git history")
def test_both_sides_run_the_command_and_a_ratio_is_printed(tmp_path, capsys):
    short = extract("HEAD", tmp_path)
    assert (tmp_path / "tree" / "cli" / "main.py").is_file() and short
    main(["--against", "HEAD", "--repeat", "1", "--", "rules", "list"])
    out = capsys.readouterr().out
    assert f"working tree / {short}:" in out and "median" in out


@pytest.mark.skipif(not _is_git_checkout(), reason="needs the project's git history")
def test_a_failing_command_stops_with_its_last_line():
    with pytest.raises(SystemExit, match="the command failed"):
        main(["--repeat", "1", "--", "run", "no-such-rules", "--out", "{out}"])


@pytest.mark.skipif(not _is_git_checkout(), reason="needs the project's git history")
def test_another_module_and_an_option_of_the_working_tree_alone(tmp_path, capsys):
    # the revision's side runs without --extra's arguments: an option it does not know would fail it
    line = command(["--out", "{out}", "--doc", "{out}/page.md"], tmp_path / "x", "benchmarks.findings")
    assert line[1:3] == ["-m", "benchmarks.findings"] and line[-1] == str(tmp_path / "x" / "page.md")
    main(["--against", "HEAD", "--repeat", "1", "--extra=--raw", "--", "rules", "show", "tensho-ise"])
    assert "working tree /" in capsys.readouterr().out
    with pytest.raises(SystemExit) as failed:  # the revision's side ran first and passed: the working tree's failed
        main(["--against", "HEAD", "--repeat", "1", "--extra=--no-such-option", "--", "rules", "list"])
    assert f"the command failed in {ROOT} " in str(failed.value)
