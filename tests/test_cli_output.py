"""What the commands print, as a new user reads it: the run summary (match lines, names never
cut), a report's INCOMPLETE notice on lines of its own, the convergence table's ``*`` explained,
the engine named alike for a run and a tournament, ``skill -o``, replay's singular and plural,
output piped into ``head``, and SIGTERM giving the ``--resume`` hint Ctrl-C gives."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from analysis.report import build_report
from analysis.tournament import build_tournament_report
from cli.main import _summary_text, main
from simcore.dataset import read_manifest
from simcore.run.runner import RunSummary

ROOT = Path(__file__).resolve().parents[1]


def _ok(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--no-progress"] if args[0] in ("run", "tournament", "skill")
                                else list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def places(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("output")
    _ok("run", "--rounds", "3000", "--shard-rounds", "1000", "--policy", "0=greedy", "-o", str(base / "run"))
    _ok("tournament", "--policies", "random,greedy", "--deals", "100", "-o", str(base / "t"))
    return base


def test_a_match_run_summary_has_the_match_outcomes_the_report_has(tmp_path):
    for extra in ([], ["--summary"]):
        out = tmp_path / f"m{len(extra)}"
        printed = _ok("run", "--matches", "300", "--rounds-per-match", "4", "--policy", "1=greedy", "-o", str(out),
                      *extra)
        table = build_report(out).table("match_outcomes").frame.set_index("who")
        matches = int(table.loc["seat 0", "matches"])
        assert matches == 300
        lines = {line.split("  ")[0]: line.split() for line in printed.splitlines()}
        header = printed.splitlines().index(next(line for line in printed.splitlines() if line.startswith("match winner")))
        block = printed.splitlines()[header + 1:header + 4]
        for seat, line in enumerate(block[:2]):
            assert line.startswith(f"seat {seat} (")
            assert int(line.split()[-2].replace(",", "")) == round(table.loc[f"seat {seat}", "win_rate"] * matches)
        assert block[2].startswith("no winner (drawn match)")
        assert int(block[2].split()[-2].replace(",", "")) == round(table.loc["seat 0", "draw_rate"] * matches)
        assert lines  # the rest of the summary is there too


def test_the_run_summary_never_cuts_a_name():
    yaku = ["sokuyaku Boar, Butterflies, Rain Man", "akatan Poetry Ribbons"]
    policies = ["pimc:rollout=heuristic,worlds=64", "random"]
    summary = RunSummary(out=Path("/nonexistent/run"), end_reason_names=("score", "uchikiri"), yaku_names=yaku,
                         policies=policies, rounds=100, units=100, shards_written=1, seconds=1.0,
                         dealer_rounds=100, dealer_wins=40, draws=10)
    summary.wins[:] = [60, 30]
    summary.seat_rounds[:] = [100, 100]
    summary.end_reasons[:] = [70, 30]
    summary.yaku_counts[:] = np.array([[12, 3], [0, 5]])
    text = _summary_text(summary)
    assert "sokuyaku Boar, Butterflies, Rain Man  " in text and "…" not in text
    row = next(line for line in text.splitlines() if line.startswith("seat 0 ("))
    assert row.split() == ["seat", "0", "(pimc:rollout=heuristic,worlds=64)", "60", "60.00%"]
    widths = {len(line) for line in text.splitlines()[3:9] if line.strip()}
    assert len(widths) == 1  # the winner table's rows line up


def test_the_incomplete_notice_stands_above_the_title(places, tmp_path):
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    for path in (places / "run").iterdir():
        if path.name != "part-000001.parquet" and path.is_file():
            (damaged / path.name).write_bytes(path.read_bytes())
    for args in (["report", str(damaged)], ["compare", str(places / "run"), str(damaged)]):
        lines = _ok(*args, "--allow-incomplete").splitlines()
        title = next(k for k, line in enumerate(lines) if line.startswith(f"fudasim {args[0]}: "))
        assert lines[0].startswith("INCOMPLETE: ") and all(line.startswith("  ") for line in lines[1:title - 1])
        assert lines[title - 1] == ""  # a blank line between the notice and the title
        assert "INCOMPLETE" not in lines[title]
        assert " ".join(lines[:title]).count("INCOMPLETE") == 1


def test_the_convergence_star_is_explained(places):
    text = _ok("report", str(places / "run"))
    section = text[text.index("How the estimates converge"):]
    section = section[:section.index("\n\n")]
    assert re.search(r"[\d\]]\*", section)  # the first rows are marked (after the value or its bounds)...
    assert "* marks an estimate that rests on fewer than 30 rounds" in " ".join(section.split())  # ...and explained


def test_a_run_and_a_tournament_name_their_engine_alike(places):
    run = build_report(places / "run").table("run").frame.set_index("item")["value"]["engine"]
    tournament = build_tournament_report(places / "t").table("tournament").frame.set_index("item")["value"]["engine"]
    version = read_manifest(places / "run")["engine_version"]
    assert run == tournament == f"numba kernel, engine version {version}"


def test_skill_writes_its_report_where_o_says(places, tmp_path):
    target = tmp_path / "skill.html"
    printed = _ok("skill", str(places / "t"), "--format", "html", "-o", str(target))
    assert printed.strip() == f"wrote {target}"
    assert target.read_text().startswith("<!DOCTYPE html>")
    again = CliRunner().invoke(main, ["skill", str(places / "t"), "--format", "html", "-o", str(target)])
    assert again.exit_code == 2 and "already exists" in again.output


def test_replay_says_one_bright_not_one_brights():
    traces = [_ok("replay", "enshu-c", "--seed", "0", "--round", str(k)) for k in range(12)]
    lines = [line for trace in traces for line in trace.splitlines() if line.startswith("Field multiplier")]
    assert any("(1 Bright on the field" in line for line in lines), lines
    assert not any("(1 Brights" in line for line in lines)
    assert any("(0 Brights on the field" in line for line in lines)


def _fudasim(*args: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "cli.main", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


@pytest.mark.parametrize("args", [["report", "{run}"], ["report", "{run}", "--format", "csv", "-o", "-"],
                                  ["rules", "show", "tensho-ise"], ["verify", "{run}"]])
def test_output_into_a_closed_pipe_ends_quietly(places, args):
    with _fudasim(*(arg.replace("{run}", str(places / "run")) for arg in args)) as process:
        process.stdout.close()  # the reader is gone before the first line, as `| head -0` leaves it
        stderr = process.stderr.read()
    assert process.returncode != 0 and stderr == "", stderr


def test_sigterm_stops_a_run_as_ctrl_c_does_and_says_how_to_resume(tmp_path):
    out = tmp_path / "run"
    process = _fudasim("run", "--engine", "reference", "--rounds", "100000", "--shard-rounds", "200",
                       "--no-progress", "-o", str(out))
    while not list(out.glob("part-*.parquet")) and process.poll() is None:
        time.sleep(0.1)  # until the run is under way
    assert process.poll() is None, process.stderr.read()
    process.send_signal(signal.SIGTERM)
    with process:
        _, stderr = process.communicate(timeout=300)
    assert process.returncode == 143, stderr
    assert stderr.strip() == ("fudasim: terminated; the shards written so far are complete. Finish with the same "
                              "command and --resume.")
    result = CliRunner().invoke(main, ["verify", str(out)])
    assert result.exit_code == 1 and "the run is not complete" in result.output, \
        result.output
    assert re.search(r"\d+ of 500 shards present and intact", result.output), result.output
