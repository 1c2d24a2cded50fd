"""Dask scaling: a LocalCluster of N single-threaded workers against one, on one large run.

For each worker count (``--workers 1,2``) the benchmark runs the same run through the runner as
``fudasim run ... --scheduler local:N`` does (``RunConfig.scheduler``): the runner starts a
``LocalCluster`` of that many single-threaded worker processes, warms the workers (kernels
loaded from the numba cache) and leaves that out of the run's time, so each figure is the steady
state.  Optionally (``--local``) the same run is timed in this process with as many kernel
threads, the local runner's figure on the same cores.

It prints, per worker count: rounds/s end to end (shards written, committed and listed), the
task overhead per shard as a share of a shard's time, ``(N * wall - sum of shard times) / sum of
shard times`` in percent, a shard's time being what its task spent computing and writing it:
what the cluster spends beyond that (scheduling, result transfer, the client's manifest updates,
and workers idle at the start and end of the run), per unit of work; and how many tasks carried
the shards (``simcore.run.distributed.task_groups``). ``task_cpu_share`` is the CPU time the tasks'
threads got over their wall time: near 1 on idle cores, lower when other processes share them
(Dask's own threads, the client, or other users of the machine), and ``rounds_per_task_cpu_s``
the rounds per CPU second of the tasks: what one worker would reach on a core of its own, the
same for every worker count unless distributing the work makes it costlier, and a gauge of how
much the machine's speed drifted.

The machine's speed drifts by several percent from one minute to the next when others share
it, so the benchmark runs ``--repeat`` turns (3 by default), each running every worker count
once (alternating their order), and gives the speed-up as the median (and the range) of the
turns' own ratios, and each figure as the median over turns.  Every run must write
byte-identical shards (the same run metadata, so the same bytes); the last row says whether
they did.

With ``--floor`` each turn also runs, on clusters started as ``local:N`` starts them, the
run's tasks (as many shards per task as the run puts in each, ``simcore.run.distributed.task_groups``,
each shard as long as a shard on one worker) doing nothing but hash a buffer in memory (no
kernel, no file, a tiny result): ``floor_overhead_pct`` and ``floor_speedup`` are what Dask
itself costs, and lets two workers reach, on this machine.

Run with ``python -m benchmarks.distributed [--rounds 50000000] [--workers 1,2] [--repeat 3]
[--local] [--floor]``.  A turn of the defaults takes about a minute (two with ``--floor``); each
run's dataset is deleted once measured (``--keep`` keeps the last turn's): 50 M Tensho rounds
take about 1.5 GB.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from simcore.run.measure import Row, measured_code, print_rows, write_csv

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
        (wall and CPU time, summed over shards), ``warmup_seconds``, ``shards``, ``tasks``; and
        the shards' sha256 in shard order.
    """
    from simcore.run.runner import RunConfig, run

    config = RunConfig(rules=rules, rounds=rounds, seed=1, units_per_shard=shard_rounds, out=str(out),
                       overwrite=True, command=COMMAND)
    if local:
        config.threads = workers
    else:
        config.scheduler = f"local:{workers}"  # what ``--scheduler local:N`` runs
    summary = run(config)
    figures = {"seconds": summary.seconds, "task_seconds": summary.task_seconds,
               "task_cpu_seconds": summary.task_cpu_seconds,
               "warmup_seconds": summary.warmup_seconds, "shards": float(summary.shards_written),
               "tasks": float(summary.tasks)}
    return figures, _shards(out)


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


_FLOOR_BUFFER = b"\x00" * (1 << 20)


def floor_task(reps: int) -> tuple[float, float]:
    """The floor's task: hash a 1 MiB buffer ``reps`` times, nothing else (no file, no kernel).

    Returns its wall and thread CPU time, as a shard's task does.
    """
    began, began_cpu = time.perf_counter(), time.thread_time()
    for _ in range(reps):
        hashlib.sha256(_FLOOR_BUFFER).digest()
    return time.perf_counter() - began, time.thread_time() - began_cpu


def measure_floor(workers: int, shards: int, shard_seconds: float) -> dict[str, float]:
    """The tasks a run of ``shards`` shards has on ``workers`` workers, each shard about
    ``shard_seconds`` of ``floor_task``, on the cluster ``--scheduler local:N`` starts: what Dask
    itself costs on this machine.

    Returns the figures ``measure`` returns.
    """
    from distributed import as_completed

    from simcore.run.distributed import connect, task_groups

    began = time.perf_counter()
    floor_task(64)
    reps = max(1, round(shard_seconds / ((time.perf_counter() - began) / 64)))
    groups = task_groups(list(range(shards)), workers)
    connection = connect(f"local:{workers}")
    try:
        client = connection.client
        client.gather(client.map(floor_task, [1] * (2 * workers), pure=False))  # workers started and warm
        busy = cpu = 0.0
        began = time.perf_counter()
        tasks = client.map(floor_task, [reps * len(group) for group in groups], pure=False)
        for future in as_completed(tasks, loop=client.loop):
            seconds, cpu_seconds = future.result()
            future.release()
            busy, cpu = busy + seconds, cpu + cpu_seconds
        wall = time.perf_counter() - began
    finally:
        connection.close()
    return {"seconds": wall, "task_seconds": busy, "task_cpu_seconds": cpu, "warmup_seconds": 0.0,
            "shards": float(shards), "tasks": float(len(groups))}


def main(argv: Sequence[str] | None = None) -> None:
    """Measure and print the table (and ``--csv FILE``)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.distributed", description=__doc__.split("\n")[0])
    parser.add_argument("--rules", default="tensho-ise")
    parser.add_argument("--rounds", type=int, default=50_000_000, help="rounds per run (default 50,000,000)")
    parser.add_argument("--shard-rounds", type=int, default=None, help="rounds per shard (default: the runner's)")
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated (default 1,2)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="turns: each runs every worker count once, in alternating order (default 3)")
    parser.add_argument("--local", action="store_true", help="also time the local runner on as many threads")
    parser.add_argument("--floor", action="store_true",
                        help="also run the run's tasks doing nothing but hash a buffer: Dask's own cost")
    parser.add_argument("--out-dir", type=Path, default=None, help="where the datasets go (default: a temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the datasets (of the last turn)")
    parser.add_argument("--csv", type=Path, default=None, help="also write the rows as CSV")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    counts = [int(n) for n in args.workers.split(",")]
    base = args.out_dir or Path(tempfile.mkdtemp(prefix="fudasim-dask-bench-"))
    print(measured_code())
    print(f"{args.rules}: {args.rounds:,} rounds per run, shards of {args.shard_rounds or 'default'} rounds; "
          f"LocalCluster workers {counts}, {args.repeat} turns", flush=True)
    from simcore.rules import load_rules

    game = load_rules(args.rules).game
    hashes: dict[str, list[str]] = {}
    kinds = ["dask"] + (["local"] if args.local else [])
    turns: list[dict[tuple[int, str], dict[str, float]]] = []
    for turn in range(max(1, args.repeat)):
        measured: dict[tuple[int, str], dict[str, float]] = {}
        cases = [(n, kind) for kind in kinds for n in counts]
        for workers, kind in cases if turn % 2 == 0 else cases[::-1]:
            name = f"{kind}-{workers}"
            out = base / name
            began = time.perf_counter()
            figures, hashes[f"{name}-{turn}"] = measure(args.rules, args.rounds, args.shard_rounds, workers, out,
                                                        kind == "local")
            if not (args.keep and turn == args.repeat - 1):
                shutil.rmtree(out, ignore_errors=True)
            measured[(workers, kind)] = figures
            _report(turn, name, figures, workers, args.rounds, kind != "local", began)
        if args.floor:
            # the run's tasks, each shard as long as the run's shards on one worker
            shape = measured[(min(counts), "dask")]
            shard_seconds = shape["task_seconds"] / max(shape["shards"], 1)
            for workers in counts if turn % 2 == 0 else counts[::-1]:
                began = time.perf_counter()
                figures = measure_floor(workers, int(shape["shards"]), shard_seconds)
                measured[(workers, "floor")] = figures
                _report(turn, f"floor-{workers}", figures, workers, 0, True, began)
        turns.append(measured)
    rows = _rows(turns, counts, args, game)
    identical = len({tuple(h) for h in hashes.values()}) == 1
    rows.append(Row("identical_shards", 1.0 if identical else 0.0, "bool", game, "random-random", args.rules))
    print_rows(rows)
    if args.csv is not None:
        write_csv(rows, args.csv)
    if not args.keep and args.out_dir is None:
        shutil.rmtree(base, ignore_errors=True)


def _report(turn: int, name: str, figures: dict[str, float], workers: int, rounds: int, tasks: bool,
            began: float) -> None:
    line = f"turn {turn + 1}: {name}" + (f" {rounds / figures['seconds']:,.0f} rounds/s" if rounds else "")
    if tasks and figures["task_seconds"] > 0:
        line += f", task overhead {100 * _overhead(figures, workers):.2f}%"
    print(f"{line} (measured in {time.perf_counter() - began:.1f} s)", file=sys.stderr, flush=True)


def _overhead(figures: dict[str, float], workers: int) -> float:
    """``(N * wall - sum of shard times) / sum of shard times``."""
    busy = figures["task_seconds"]
    return (workers * figures["seconds"] - busy) / busy if busy > 0 else float("nan")


def _rows(turns: list[dict[tuple[int, str], dict[str, float]]], counts: list[int], args: argparse.Namespace,
          game: str) -> list[Row]:
    """The table: per worker count the median over turns (and the spread where it decides)."""
    def row(metric: str, value: float, unit: str, threads: str) -> Row:
        return Row(metric, value, unit, game, "random-random", args.rules, threads)

    def cpu_share(runs: list[dict[str, float]]) -> float:
        return _median([f["task_cpu_seconds"] / f["task_seconds"] for f in runs if f["task_seconds"] > 0]
                       or [float("nan")])

    floor = bool(turns) and all((n, "floor") in turn for turn in turns for n in counts)
    rows: list[Row] = []
    for workers in counts:
        label = str(workers)
        runs = [turn[(workers, "dask")] for turn in turns]
        rows.append(row("dask_rounds_per_s", _median([args.rounds / f["seconds"] for f in runs]), "rounds/s", label))
        overheads = [100 * _overhead(f, workers) for f in runs]
        rows.append(row("task_overhead_pct", _median(overheads), "%", label))
        rows.append(row("task_overhead_pct_max", max(overheads), "%", label))
        rows.append(row("tasks", _median([f.get("tasks", float("nan")) for f in runs]), "tasks", label))
        rows.append(row("task_seconds_per_shard", _median([f["task_seconds"] / max(f["shards"], 1) for f in runs]),
                        "s", label))
        rows.append(row("task_cpu_share", cpu_share(runs), "x", label))
        rows.append(row("rounds_per_task_cpu_s", _median([args.rounds / f["task_cpu_seconds"] for f in runs
                                                          if f["task_cpu_seconds"] > 0] or [float("nan")]),
                        "rounds/s", label))
        rows.append(row("warmup_seconds", max(f["warmup_seconds"] for f in runs), "s", label))
        if args.local:
            rows.append(row("local_rounds_per_s", _median([args.rounds / turn[(workers, "local")]["seconds"]
                                                           for turn in turns]), "rounds/s", label))
        if floor:
            floors = [turn[(workers, "floor")] for turn in turns]
            rows.append(row("floor_overhead_pct", _median([100 * _overhead(f, workers) for f in floors]), "%",
                            label))
            rows.append(row("floor_task_cpu_share", cpu_share(floors), "x", label))
    if 1 in counts:
        for workers in counts:
            if workers != 1:
                # the speed-up within each turn (its two runs minutes apart, not a whole run apart)
                label = f"{workers}/1"
                ratios = [turn[(1, "dask")]["seconds"] / turn[(workers, "dask")]["seconds"] for turn in turns]
                rows.append(row("dask_speedup", _median(ratios), "x", label))
                rows.append(row("dask_speedup_min", min(ratios), "x", label))
                rows.append(row("dask_speedup_max", max(ratios), "x", label))
                if floor:
                    rows.append(row("floor_speedup", _median([turn[(1, "floor")]["seconds"]
                                                              / turn[(workers, "floor")]["seconds"]
                                                              for turn in turns]), "x", label))
    return rows


if __name__ == "__main__":
    main()
