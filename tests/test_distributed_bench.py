"""benchmarks.distributed's table: each turn's own speed-up, medians over turns, overhead in percent.

The runs themselves need a cluster and a minute each; the table is built from their figures
here, with figures chosen so that a ratio of medians and a median of ratios differ.
"""

from __future__ import annotations

import argparse

import pytest

from benchmarks.distributed import _overhead, _rows, floor_task


def _figures(seconds: float, task_seconds: float, task_cpu_seconds: float, shards: int = 10) -> dict[str, float]:
    return {"seconds": seconds, "task_seconds": task_seconds, "task_cpu_seconds": task_cpu_seconds,
            "warmup_seconds": 0.5, "shards": float(shards)}


def _table(turns, counts=(1, 2)) -> dict[tuple[str, str], float]:
    args = argparse.Namespace(rounds=1_000_000, rules="tensho-ise", local=False, floor=False)
    return {(row.metric, row.threads): row.value for row in _rows(turns, list(counts), args, "tensho")}


def test_the_overhead_is_the_workers_time_beyond_their_tasks():
    # two workers for 10 s, tasks 19 s in all: 1 s beyond 19 s of work
    assert _overhead(_figures(10.0, 19.0, 18.0), 2) == pytest.approx(1 / 19)
    assert _overhead(_figures(10.0, 10.0, 9.0), 1) == 0.0


def test_the_speed_up_is_the_median_of_each_turns_own_ratio():
    # the machine slowed down in the second turn: each turn's ratio is 2.0, 1.9 and 1.8, while
    # the median of one worker's runs over the median of two workers' runs would give 1.0 / 0.55
    turns = [
        {(1, "dask"): _figures(1.0, 1.0, 1.0), (2, "dask"): _figures(0.5, 0.99, 0.9)},
        {(1, "dask"): _figures(2.0, 2.0, 2.0), (2, "dask"): _figures(2.0 / 1.9, 2.0, 1.8)},
        {(1, "dask"): _figures(0.9, 0.9, 0.9), (2, "dask"): _figures(0.5, 0.98, 0.9)},
    ]
    table = _table(turns)
    assert table[("dask_speedup", "2/1")] == pytest.approx(1.9)
    assert table[("dask_speedup_min", "2/1")] == pytest.approx(1.8)
    assert table[("dask_speedup_max", "2/1")] == pytest.approx(2.0)
    assert table[("dask_rounds_per_s", "1")] == pytest.approx(1_000_000 / 1.0)
    # overhead in percent: 1.0/0.99 - 1, 2.0/1.9*2/2.0 - 1 and 1.0/0.98 - 1; the median is the middle one
    overheads = sorted(100 * (2 * turn[(2, "dask")]["seconds"] / turn[(2, "dask")]["task_seconds"] - 1) for turn in turns)
    assert table[("task_overhead_pct", "2")] == pytest.approx(overheads[1])
    assert table[("task_overhead_pct_max", "2")] == pytest.approx(overheads[2])
    assert table[("task_cpu_share", "1")] == pytest.approx(1.0)
    assert table[("task_seconds_per_shard", "2")] == pytest.approx(0.099)


def test_without_one_worker_there_is_no_speed_up():
    turns = [{(2, "dask"): _figures(0.5, 0.99, 0.9), (3, "dask"): _figures(0.4, 1.1, 1.0)}]
    table = _table(turns, counts=(2, 3))
    assert not [key for key in table if key[0].startswith("dask_speedup")]
    assert ("dask_rounds_per_s", "3") in table


def test_the_floor_rows_come_from_the_floor_runs_of_every_turn():
    turns = [
        {(1, "dask"): _figures(1.0, 1.0, 1.0), (2, "dask"): _figures(0.55, 1.0, 0.9),
         (1, "floor"): _figures(1.0, 0.99, 0.95), (2, "floor"): _figures(0.6, 1.1, 1.0)},
        {(1, "dask"): _figures(1.0, 1.0, 1.0), (2, "dask"): _figures(0.55, 1.0, 0.9),
         (1, "floor"): _figures(1.2, 1.19, 1.1), (2, "floor"): _figures(0.6, 1.1, 1.0)},
    ]
    table = _table(turns)
    assert table[("floor_speedup", "2/1")] == pytest.approx((1.0 / 0.6 + 1.2 / 0.6) / 2)
    assert table[("floor_overhead_pct", "2")] == pytest.approx(100 * (1.2 / 1.1 - 1))
    assert table[("floor_task_cpu_share", "2")] == pytest.approx(1.0 / 1.1)
    # a turn without its floor runs: no floor row at all rather than a median of some turns
    del turns[1][(2, "floor")]
    assert not [key for key in _table(turns) if key[0].startswith("floor")]


def test_the_floor_task_reports_its_wall_and_cpu_time():
    seconds, cpu_seconds = floor_task(3)
    assert 0 < cpu_seconds <= seconds * 1.05 + 1e-3
