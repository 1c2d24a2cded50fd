"""How long a run may be, and what a long run holds in memory.

Every count of rounds is bounded by the 64-bit round index and refused beyond it in one line;
the shards of a run are planned one at a time, so a run stopped early, resumed or verified holds
what was written, never a list of every shard it plans.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

import fudasim
from cli.main import main
from simcore import dataset as ds
from simcore.run import runner
from simcore.run.runner import MAX_ROUNDS, RunConfig, RunError, run, shards_to_do

TOO_MANY = 99_999_999_999_999_999_999  # the review's typo: beyond the 64-bit round index
ROOT = Path(__file__).resolve().parents[1]


def one_error_line(result) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("fudasim: error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


def invoke(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


class Planned(AssertionError):
    """A count beyond the bound got past planning."""


@pytest.fixture
def never_written(monkeypatch):
    """A run that got past its checks fails here, before its shards are planned: were the bound
    lost, the test fails instead of planning 10**14 shards (which took 24 GB)."""

    def refuse(*_, **__):
        raise Planned("the run was accepted and its output prepared")

    monkeypatch.setattr(runner, "_prepare_out", refuse)


def bound(flag: str, count: int, most: int = MAX_ROUNDS) -> str:
    return f"{flag} {count}: must be 1..{most:,} "


EXTRA_ROUND = ["--option", "tensho.match_tie=extra_round"]


@pytest.mark.parametrize(("command", "expected"), [
    (["run", "tensho-ise", "--rounds", TOO_MANY], bound("--rounds", TOO_MANY)),
    (["run", "tensho-ise", "--rounds", MAX_ROUNDS + 1, "--summary"],
     bound("--rounds", MAX_ROUNDS + 1)),
    (["run", "enshu-c", "--rounds", MAX_ROUNDS + 1], bound("--rounds", MAX_ROUNDS + 1)),
    (["run", "tensho-ise", "--matches", MAX_ROUNDS // 12 + 1, "--rounds-per-match", 12],
     bound("--matches", MAX_ROUNDS // 12 + 1, MAX_ROUNDS // 12)),
    # a tied match may go on for as many rounds again: each match takes 24 round indices
    (["run", "tensho-ise", "--matches", MAX_ROUNDS // 24 + 1, "--rounds-per-match", 12,
      *EXTRA_ROUND], bound("--matches", MAX_ROUNDS // 24 + 1, MAX_ROUNDS // 24)),
    (["run", "tensho-ise", "--rounds-per-match", 1001, "--matches", 5],
     "--rounds-per-match 1001: must be 1..1000"),
    (["tournament", "tensho-ise", "--policies", "random,greedy", "--deals", TOO_MANY],
     bound("--deals", TOO_MANY)),
    (["skill", "tensho-ise", "--policies", "random,greedy", "--deals", TOO_MANY],
     bound("--deals", TOO_MANY)),
    (["sweep", "tensho-ise", "--vary", "tensho.card_values=T1_ise,T3_hanafuda", "--rounds",
      TOO_MANY], bound("--rounds", TOO_MANY)),
])
def test_a_count_beyond_the_round_index_is_refused_in_one_line(tmp_path, never_written, command,
                                                               expected):
    out = tmp_path / "out"
    line = one_error_line(invoke(*command, "--out", out))
    assert expected in line, line
    assert not out.exists()  # refused before anything is written


def test_the_python_api_refuses_the_same_counts(tmp_path, never_written):
    with pytest.raises(RunError, match=rf"--rounds {MAX_ROUNDS + 1}: must be 1\.\.{MAX_ROUNDS:,}"):
        fudasim.run(rounds=MAX_ROUNDS + 1, out=tmp_path / "a")
    with pytest.raises(RunError, match=r"--matches .*: must be 1\.\."):
        fudasim.run(matches=TOO_MANY, out=tmp_path / "b")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_the_longest_run_is_planned_without_listing_its_shards():
    plan, *_ = runner.plan_run(RunConfig(rounds=MAX_ROUNDS, units_per_shard=1))
    assert plan["units"] == plan["shards"] == MAX_ROUNDS and plan["rounds"] == MAX_ROUNDS
    count, todo = shards_to_do(plan, {0: {}, 2: {}})
    assert count == MAX_ROUNDS - 2
    assert not isinstance(todo, (list, tuple, set, dict))
    assert [next(todo) for _ in range(3)] == [1, 3, 4]


class Stop(Exception):
    """Raised by the test in place of a Ctrl-C once a few shards are committed."""


@pytest.fixture
def stop_after(monkeypatch):
    """``stop_after(n)``: the run raises ``Stop`` once ``n`` more shards are committed."""
    committed = []
    limit = [0]
    commit = runner.ManifestWriter.commit

    def counted(self, index, entry):
        commit(self, index, entry)
        committed.append(index)
        if len(committed) >= limit[0]:
            raise Stop(f"stopped after {len(committed)} shards")

    monkeypatch.setattr(runner.ManifestWriter, "commit", counted)

    def arm(n: int) -> None:
        committed.clear()
        limit[0] = n

    return arm


def _peak_of_stopped_run(config: RunConfig, stop_after) -> int:
    """Peak traced memory (bytes) of ``config`` run until it is stopped after 3 shards."""
    stop_after(3)
    tracemalloc.start()
    try:
        with pytest.raises(Stop):
            run(config)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("summary", [False, True])
def test_a_run_stopped_early_and_resumed_holds_no_more_for_a_longer_plan(tmp_path, stop_after,
                                                                         summary):
    # one round a shard: the plans have 1,000 and 1,000,000 shards; listing the longer one alone
    # would take about 36 MB
    size = dict(engine="reference", units_per_shard=1, seed=5, summary=summary)
    stop_after(1)
    with pytest.raises(Stop):  # modules imported and rules compiled before anything is measured
        run(RunConfig(rounds=10, out=str(tmp_path / "warm"), **size))
    peaks = {}
    for rounds in (1_000, 1_000_000):
        out = str(tmp_path / f"r{rounds}")
        first = _peak_of_stopped_run(RunConfig(rounds=rounds, out=out, **size), stop_after)
        again = _peak_of_stopped_run(RunConfig(rounds=rounds, out=out, resume=True, **size),
                                     stop_after)
        peaks[rounds] = max(first, again)
        check = ds.check_dataset(out)
        assert check.problems[0][1].startswith("the run is not complete: ")
        incomplete = check.problems[0][1].replace(",", "")
        assert incomplete.endswith(f" of {rounds} shards present and intact")
        assert len(check.good_shards()) >= 6
    assert peaks[1_000_000] < peaks[1_000] + 4 * 2**20, peaks


def test_verify_and_readers_of_a_run_planning_every_round_index_walk_only_its_shards(tmp_path,
                                                                                     stop_after):
    out = tmp_path / "long"
    stop_after(2)
    with pytest.raises(Stop):
        run(RunConfig(rounds=5_000, units_per_shard=1, engine="reference", out=str(out)))
    manifest = json.loads((out / ds.RUN_FILE).read_text())
    manifest.update(units=MAX_ROUNDS, shards=MAX_ROUNDS, rounds=MAX_ROUNDS)
    (out / ds.RUN_FILE).write_text(json.dumps(manifest))

    def hung(*_):
        raise AssertionError("the check walked every planned shard")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)  # a guard against looping over 2**63 shards, not a measure of speed
    try:
        result = invoke("verify", out)
        line = one_error_line(invoke("report", out))
        complete = invoke("verify", _finished_copy(out, tmp_path / "done"))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert result.exit_code == 1
    assert f"of {MAX_ROUNDS:,} shards present and intact" in result.output
    assert "the run is not complete" in line
    # a finished run whose manifest claims more shards than it lists and holds: the first
    # missing ones are named, the others counted
    assert complete.exit_code == 1
    listed = {entry["shard"] for entry in manifest["shard_files"]}
    first = [index for index in range(ds.MISSING_LINES + len(listed)) if index not in listed]
    named = [line for line in complete.output.splitlines() if line.endswith(": missing")]
    assert named == [f"part-{index:06d}.parquet: missing" for index in first[:ds.MISSING_LINES]]
    others = MAX_ROUNDS - len(listed) - ds.MISSING_LINES
    assert f"{others:,} more shards missing (the run has shards 0..{MAX_ROUNDS - 1:,})" in (
        complete.output)


def _finished_copy(source: Path, target: Path) -> Path:
    """A copy of ``source`` whose manifest says the run finished."""
    import shutil

    shutil.copytree(source, target)
    manifest = json.loads((target / ds.RUN_FILE).read_text())
    manifest["complete"] = True
    (target / ds.RUN_FILE).write_text(json.dumps(manifest))
    for path in target.glob(".part-*"):
        path.unlink()
    return target


LONGEST = textwrap.dedent("""
    import json, sys
    from simcore.run import runner
    from simcore.run.runner import MAX_ROUNDS, RunConfig, run

    class Stop(Exception):
        pass

    commit = runner.ManifestWriter.commit
    committed = []

    def counted(self, index, entry):
        commit(self, index, entry)
        committed.append(index)
        if len(committed) == 2:
            raise Stop

    runner.ManifestWriter.commit = counted
    tied = {"tensho.match_tie": "extra_round"}
    for summary in (False, True):
        for size in (dict(rounds=MAX_ROUNDS),
                     dict(matches=MAX_ROUNDS // 24, rounds_per_match=12, options=tied)):
            committed.clear()
            out = f"{sys.argv[1]}/{summary}-{len(size)}"
            try:
                run(RunConfig(out=out, units_per_shard=1, engine="reference", summary=summary,
                              **size))
            except Stop:
                pass
            manifest = json.load(open(f"{out}/_run.json"))
            print(json.dumps([manifest["shards"], len(manifest["shard_files"])]))
""")


def _limit_memory() -> None:
    # were the shards listed, the child would fail here instead of taking the machine's memory
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def test_the_longest_runs_start_writing_shards_at_once(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-W", "error", "-c", LONGEST, str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=600, preexec_fn=_limit_memory)
    assert done.returncode == 0, done.stderr[-3000:]
    planned = [json.loads(line) for line in done.stdout.splitlines()]
    assert planned == [[MAX_ROUNDS, 2], [MAX_ROUNDS // 24, 2]] * 2
