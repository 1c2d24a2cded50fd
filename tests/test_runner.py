"""Reproducible and safe runs (guarantees 1, 7 and 8 of docs/guarantees.md)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numba
import pandas as pd
import pyarrow.parquet as pq
import pytest

from simcore import ENGINE_VERSION
from simcore.dataset import read_dataset, read_run_info
from simcore.run.runner import RunConfig, RunError, run


def play(out: Path, **kwargs) -> pd.DataFrame:
    config = RunConfig(out=str(out), **kwargs)
    run(config)
    return read_dataset(out)


@pytest.mark.slow
def test_same_seed_same_rows_with_one_or_two_threads_and_any_shard_size(tmp_path):
    base = dict(rounds=20_000, seed=42, policies=("random", "greedy"))
    one_thread = play(tmp_path / "t1", threads=1, **base)
    two_threads = play(tmp_path / "t2", threads=min(2, numba.config.NUMBA_NUM_THREADS), **base)
    small_shards = play(tmp_path / "s", units_per_shard=777, **base)
    pd.testing.assert_frame_equal(one_thread, two_threads)
    pd.testing.assert_frame_equal(one_thread, small_shards)
    assert len(one_thread) == 20_000
    assert one_thread["round"].tolist() == list(range(20_000))
    assert len(list((tmp_path / "s").glob("part-*.parquet"))) == -(-20_000 // 777)


@pytest.mark.slow
def test_reference_engine_writes_the_same_dataset_as_the_kernel(tmp_path):
    base = dict(rounds=600, seed=9, policies=("greedy", "random"), units_per_shard=250)
    kernel = play(tmp_path / "k", **base)
    reference = play(tmp_path / "r", engine="reference", **base)
    pd.testing.assert_frame_equal(kernel, reference)


def test_match_play_rows_are_the_same_for_any_thread_count(tmp_path):
    base = dict(matches=300, rounds_per_match=6, seed=4, options={"tensho.match_tie": "extra_round"})
    one = play(tmp_path / "a", threads=1, **base)
    two = play(tmp_path / "b", threads=min(2, numba.config.NUMBA_NUM_THREADS), units_per_shard=37, **base)
    pd.testing.assert_frame_equal(one, two)
    per_match = one.groupby("match").size()
    assert per_match.min() >= 6 and per_match.max() <= 12
    assert one.groupby("match")["match_end"].sum().eq(1).all()


def test_every_shard_carries_the_run_metadata(tmp_path):
    play(tmp_path / "d", rounds=1000, seed=3, units_per_shard=400, options={"tensho.triple_match": "one"})
    shards = sorted((tmp_path / "d").glob("part-*.parquet"))
    assert len(shards) == 3
    for index, shard in enumerate(shards):
        metadata = pq.read_schema(shard).metadata
        info = json.loads(metadata[b"fudasim.run"])
        assert info["seed"] == 3
        assert info["options"]["tensho.triple_match"] == "one"
        assert info["shard"] == index
        assert info["engine_version"]
        assert len(info["yaku"]) == 31 and info["yaku"][0]["key"] == "Y01"
        assert metadata[b"fudasim.rules"].decode().startswith("# Tensho")
        rounds = pq.read_table(shard, columns=["round"])["round"].to_pylist()
        assert rounds[0] == info["first_round"] and rounds[-1] == info["last_round"]
    assert read_run_info(tmp_path / "d")["complete"] is True


def test_an_existing_output_is_refused_without_overwrite(tmp_path):
    out = tmp_path / "d"
    first = play(out, rounds=500, seed=1)
    with pytest.raises(RunError, match="already exists"):
        run(RunConfig(out=str(out), rounds=500, seed=2))
    pd.testing.assert_frame_equal(read_dataset(out), first)  # untouched
    second = play(out, rounds=500, seed=2, overwrite=True)
    assert not second.equals(first)


def test_overwrite_refuses_to_delete_foreign_files(tmp_path):
    out = tmp_path / "d"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="notes.txt"):
        run(RunConfig(out=str(out), rounds=100, overwrite=True))
    assert (out / "notes.txt").read_text() == "mine"


def test_resume_refuses_a_different_plan(tmp_path):
    out = tmp_path / "d"
    play(out, rounds=500, seed=1)
    with pytest.raises(RunError, match="different seed"):
        run(RunConfig(out=str(out), rounds=500, seed=2, resume=True))
    with pytest.raises(RunError, match="no run to resume"):
        run(RunConfig(out=str(tmp_path / "empty"), rounds=5, resume=True))


def test_resume_refuses_a_run_of_another_engine_version(tmp_path):
    # engine 2 deals differently from engine 1: finishing an engine-1 run would mix the two
    out = tmp_path / "d"
    play(out, rounds=500, seed=1)
    run_file = out / "_run.json"
    stored = json.loads(run_file.read_text())
    stored["engine_version"] = "1"
    run_file.write_text(json.dumps(stored))
    before = sorted(p.name for p in out.iterdir())
    with pytest.raises(RunError, match=re.escape(f"different engine_version: '1' then, '{ENGINE_VERSION}' now")):
        run(RunConfig(out=str(out), rounds=500, seed=1, resume=True))
    assert sorted(p.name for p in out.iterdir()) == before


@pytest.mark.parametrize(("rules", "rounds", "per_shard"), [
    ("tensho-ise", 1_000_000, 20_000),
    ("enshu-c", 300_000, 5_000),  # a slower kernel: smaller shards, so the kill lands part-way
])
@pytest.mark.slow
def test_a_killed_run_leaves_complete_shards_and_resume_completes_it_exactly(tmp_path, rules, rounds, per_shard):
    command = [sys.executable, "-m", "cli.main", "run", rules, "--rounds", str(rounds), "--seed", "77",
               "--shard-rounds", str(per_shard), "--threads", "1", "--no-progress"]
    out = tmp_path / "killed"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    process = subprocess.Popen([*command, "--out", str(out)], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while len(list(out.glob("part-*.parquet"))) < 3 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    written = sorted(out.glob("part-*.parquet"))
    assert 3 <= len(written) < rounds // per_shard, "the run was not interrupted part-way"
    for shard in written:  # every shard present is complete and readable
        assert pq.read_metadata(shard).num_rows == per_shard
    assert read_run_info(out)["complete"] is False

    resumed = subprocess.run([*command, "--out", str(out), "--resume"], env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert "already present" in resumed.stdout
    assert not [p for p in out.iterdir() if ".tmp-" in p.name]
    assert read_run_info(out)["complete"] is True

    uninterrupted = tmp_path / "whole"
    whole = subprocess.run([*command, "--out", str(uninterrupted)], env=env, capture_output=True, text=True)
    assert whole.returncode == 0, whole.stderr
    columns = ["round", "dealer", "winner", "end_reason", "captured_0", "captured_1", "yaku_0", "hand_dealt_1"]
    pd.testing.assert_frame_equal(read_dataset(out, columns), read_dataset(uninterrupted, columns))


def test_the_summary_counts_each_seat_and_the_dealer_over_the_rounds_they_played(tmp_path):
    """Enshu-bana C with five players: two seats sit each round out, the dealer among them in
    about two rounds of five; the summary's shares are over the rounds played, also after a
    resume that reads the shards already present."""
    config = dict(rules="enshu-c", options={"enshu.players": "5"}, rounds=3000, units_per_shard=1000)
    summary = run(RunConfig(**config, out=str(tmp_path / "a")))
    rows = read_dataset(tmp_path / "a")
    active = rows[[f"active_{seat}" for seat in range(5)]].to_numpy(dtype=bool)
    dealer_active = active[range(len(rows)), rows["dealer"].to_numpy()]
    assert summary.seat_rounds.tolist() == active.sum(axis=0).tolist()
    assert summary.dealer_rounds == int(dealer_active.sum()) < len(rows)
    assert summary.dealer_wins == int((rows["winner"] == rows["dealer"]).sum())
    (tmp_path / "a" / "part-000001.parquet").unlink()
    resumed = run(RunConfig(**config, out=str(tmp_path / "a"), resume=True))
    assert (resumed.seat_rounds.tolist(), resumed.dealer_rounds, resumed.rounds) == \
        (summary.seat_rounds.tolist(), summary.dealer_rounds, 3000)
