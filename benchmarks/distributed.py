"""Dask scaling: a LocalCluster of N single-threaded workers against one, on one large run.

For each worker count (``--workers 1,2``) the benchmark starts the ``LocalCluster`` that
``--scheduler local:N`` starts (``simcore.distributed.session``: that many single-threaded worker
processes, its scheduler's settings) and runs the same run on it through the runner
(``RunConfig.scheduler``): the workers are warmed first (kernels loaded from the numba cache),
which the runner leaves out of the run's time, so each figure is the steady state.  Optionally
(``--local``) the same run is timed in this process with as many kernel threads, the local
runner's figure on the same cores.

It prints, per worker count: rounds/s end to end (shards written, committed and listed), the
speed-up over one worker, and the task overhead per shard as a share of a shard's time,
``(N * wall - sum of task times) / sum of task times``: what the cluster spends beyond the
tasks' own work (scheduling, result transfer, the client's manifest updates, and workers idle
at the end of the run), per unit of work.  ``task_cpu_share`` is the CPU time the tasks'
threads got over their wall time: near 1 on idle cores, lower when other processes share them
(then no speed-up can be expected), and ``rounds_per_task_cpu_s`` the rounds per CPU second
of the tasks: what one worker would reach on a core of its own, and the same for every worker
count unless distributing the work makes it costlier.  Every run must write byte-identical shards (the
same run metadata, so the same bytes); the last row says whether they did.

Run with ``python -m benchmarks.distributed [--rounds 50000000] [--workers 1,2] [--local]``.
Each run's dataset is deleted once measured (``--keep`` keeps them): 50 M Tensho rounds take
about 1.5 GB.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.common import Row, measured_code, print_rows, write_csv

__all__ = ["main", "measure"]

COMMAND = "benchmarks.distributed"  # every run's recorded command line: identical shard bytes


def _shards(out: Path) -> list[str]:
    from simcore.dataset import read_manifest

    return [entry["sha256"] for entry in read_manifest(out)["shard_files"]]


def measure(rules: str, rounds: int, shard_rounds: int | None, workers: int, out: Path,
            local: bool = False) -> tuple[dict[str, float], list[str]]:
    """One run of ``rounds`` on a LocalCluster of ``workers`` single-threaded workers (or, with
    ``local``, in this process on ``workers`` kernel threads).

    Returns
    -------
    (dict, list of str)
        ``seconds`` (the run, warm-up excluded), ``task_seconds`` and ``task_cpu_seconds``
        (wall and CPU time, summed over tasks), ``warmup_seconds``, ``shards``; and the shards'
        sha256 in shard order.
    """
    from simcore.distributed import session
    from simcore.runner import RunConfig, run

    config = RunConfig(rules=rules, rounds=rounds, seed=1, units_per_shard=shard_rounds, out=str(out),
                       overwrite=True, command=COMMAND)
    if local:
        config.threads = workers
        summary = run(config)
    else:
        with session(f"local:{workers}") as address:  # the cluster --scheduler local:N starts
            config.scheduler = address
            summary = run(config)
    figures = {"seconds": summary.seconds, "task_seconds": summary.task_seconds,
               "task_cpu_seconds": summary.task_cpu_seconds,
               "warmup_seconds": summary.warmup_seconds, "shards": float(summary.shards_written)}
    return figures, _shards(out)


def main(argv: Sequence[str] | None = None) -> None:
    """Measure and print the table (and ``--csv FILE``)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.distributed", description=__doc__.split("\n")[0])
    parser.add_argument("--rules", default="tensho-ise")
    parser.add_argument("--rounds", type=int, default=50_000_000, help="rounds per run (default 50,000,000)")
    parser.add_argument("--shard-rounds", type=int, default=None, help="rounds per shard (default: the runner's)")
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated (default 1,2)")
    parser.add_argument("--local", action="store_true", help="also time the local runner on as many threads")
    parser.add_argument("--out-dir", type=Path, default=None, help="where the datasets go (default: a temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the datasets")
    parser.add_argument("--csv", type=Path, default=None, help="also write the rows as CSV")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    counts = [int(n) for n in args.workers.split(",")]
    base = args.out_dir or Path(tempfile.mkdtemp(prefix="fudasim-dask-bench-"))
    print(measured_code())
    print(f"{args.rules}: {args.rounds:,} rounds per run, shards of {args.shard_rounds or 'default'} rounds; "
          f"LocalCluster workers {counts}", flush=True)
    from simcore.rules import load_rules

    game = load_rules(args.rules).game
    rows: list[Row] = []
    hashes: dict[str, list[str]] = {}
    rates: dict[int, float] = {}
    cases = [(n, False) for n in counts] + ([(n, True) for n in counts] if args.local else [])
    for workers, local in cases:
        name = f"{'local' if local else 'dask'}-{workers}"
        out = base / name
        began = time.perf_counter()
        figures, hashes[name] = measure(args.rules, args.rounds, args.shard_rounds, workers, out, local)
        print(f"measured {name} in {time.perf_counter() - began:.1f} s", file=sys.stderr, flush=True)
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)
        rate = args.rounds / figures["seconds"]
        label = f"{workers}"
        if local:
            rows.append(Row("local_rounds_per_s", rate, "rounds/s", game, "random-random", args.rules, label))
            continue
        rates[workers] = rate
        rows.append(Row("dask_rounds_per_s", rate, "rounds/s", game, "random-random", args.rules, label))
        busy = figures["task_seconds"]
        overhead = (workers * figures["seconds"] - busy) / busy if busy > 0 else float("nan")
        rows.append(Row("task_overhead_share", overhead, "x", game, "random-random", args.rules, label))
        rows.append(Row("task_seconds_per_shard", busy / max(figures["shards"], 1), "s", game, "random-random",
                        args.rules, label))
        rows.append(Row("task_cpu_share", figures["task_cpu_seconds"] / busy if busy > 0 else float("nan"), "x",
                        game, "random-random", args.rules, label))
        cpu = figures["task_cpu_seconds"]
        rows.append(Row("rounds_per_task_cpu_s", args.rounds / cpu if cpu > 0 else float("nan"), "rounds/s", game,
                        "random-random", args.rules, label))
        rows.append(Row("warmup_seconds", figures["warmup_seconds"], "s", game, "random-random", args.rules,
                        label))
    if 1 in rates:
        for workers, rate in rates.items():
            if workers != 1:
                rows.append(Row("dask_speedup", rate / rates[1], "x", game, "random-random", args.rules,
                                f"{workers}/1"))
    identical = len({tuple(h) for h in hashes.values()}) == 1
    rows.append(Row("identical_shards", 1.0 if identical else 0.0, "bool", game, "random-random", args.rules))
    print_rows(rows)
    if args.csv is not None:
        write_csv(rows, args.csv)
    if not args.keep and args.out_dir is None:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
