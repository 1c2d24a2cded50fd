"""Time ``fudasim report`` (and ``rescore``) on a large synthetic dataset; report peak memory.

The dataset is made by playing ``--base-rounds`` rounds with the reference engine once, tiling
them into shards of ``--shard-rows`` rows with fresh round indices, and writing as many shards
as ``--rounds`` needs (the deals repeat, which does not matter for timing).  Each measured
command runs in a child process so that its peak resident memory is its own.

Output is CSV on standard output, one line per measurement, stable for scripts::

    benchmark,rounds,shards,repeat,seconds,rounds_per_second,peak_rss_mib

Usage::

    python -m benchmarks.report_scale --rounds 100000000 --dir /scratch/big --keep
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

MEASURE_SNIPPET = """
import sys, time
sys.path.insert(0, {root!r})
kind, path = sys.argv[1], sys.argv[2]
start = time.perf_counter()
if kind == "report":
    from analysis import build_report, render
    render(build_report(path), "text")
elif kind == "report_html":
    from analysis import build_report, render
    render(build_report(path, figures=True), "html")
elif kind == "rescore":
    from analysis.rescore import rescore_run
    from analysis import render
    render(rescore_run(path, "T3_hanafuda"), "text")
print(time.perf_counter() - start)
"""


def build_dataset(directory: Path, rounds: int, base_rounds: int, shard_rows: int, seed: int) -> int:
    """Write a dataset of ``rounds`` rows from tiled reference rounds; returns the shard count."""
    from simcore import ENGINE_VERSION
    from simcore.dataset import RUN_FILE, write_shard
    from simcore.games.tensho.compile import compile_rules
    from simcore.games.tensho.record import LAYOUT
    from simcore.games.tensho.reference import play_units
    from simcore.policies import parse_policy
    from simcore.rules import load_rules

    rules = load_rules("tensho-ise")
    compiled = compile_rules(rules)
    ints, masks = play_units(compiled, [parse_policy("random"), parse_policy("random")], seed, 0, base_rounds, None)
    base = LAYOUT.columns(ints, masks, 2)
    repeats = -(-shard_rows // base_rounds)
    tiled = {name: np.tile(values, repeats)[:shard_rows] for name, values in base.items()}
    info = {
        "game": "tensho", "rules_name": rules.name, "rules_sha256": rules.sha256, "options": dict(rules.options),
        "seed": seed, "policies": ["random", "random"],
        "yaku": [{"bit": y.index, "key": y.key, "name": y.name, "english": y.english} for y in rules.yaku],
        "rounds_per_match": None, "engine": ENGINE_VERSION, "units": rounds, "rounds": rounds,
        "command": "benchmarks/report_scale.py (tiled synthetic dataset)",
    }
    directory.mkdir(parents=True, exist_ok=True)
    shards = -(-rounds // shard_rows)
    offsets = np.arange(shard_rows, dtype=np.int64)
    for index in range(shards):
        count = min(shard_rows, rounds - index * shard_rows)
        columns = {name: values[:count] for name, values in tiled.items()}
        columns["round"] = index * shard_rows + offsets[:count]
        columns["match"] = columns["round"]
        columns["dealer"] = (columns["round"] % 2).astype(np.int64)
        write_shard(directory, index, LAYOUT.table(columns, info, rules.text, 2))
    (directory / RUN_FILE).write_text(json.dumps(info, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return shards


def measure(kind: str, path: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of one analysis command in a fresh child process."""
    root = str(Path(__file__).resolve().parent.parent)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    completed = subprocess.run([sys.executable, "-c", MEASURE_SNIPPET.format(root=root), kind, str(path)],
                               check=True, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    seconds = float(completed.stdout.strip().splitlines()[-1])
    # ru_maxrss is the largest child so far (KiB on Linux): report it when this child set it.
    return seconds, max(after, before) / 1024.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10_000_000, help="rows in the synthetic dataset")
    parser.add_argument("--base-rounds", type=int, default=4000, help="rounds played by the reference engine")
    parser.add_argument("--shard-rows", type=int, default=1_000_000, help="rows per shard")
    parser.add_argument("--repeat", type=int, default=1, help="timed repetitions per benchmark")
    parser.add_argument("--benchmarks", default="report,rescore", help="comma list of report, report_html, rescore")
    parser.add_argument("--dir", type=Path, default=None, help="dataset directory (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep (and reuse) the dataset in --dir")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    temporary = None
    directory = args.dir
    if directory is None:
        temporary = tempfile.TemporaryDirectory(prefix="fudasim-report-scale-")
        directory = Path(temporary.name) / "dataset"
    try:
        existing = sorted(directory.glob("part-*.parquet")) if directory.exists() else []
        if existing and args.keep:
            import pyarrow.parquet as pq

            rows = sum(pq.ParquetFile(p).metadata.num_rows for p in existing)
            if rows != args.rounds:
                print(f"error: {directory} holds {rows} rows, not --rounds {args.rounds}", file=sys.stderr)
                return 2
            shards = len(existing)
            build_seconds = 0.0
        else:
            start = time.perf_counter()
            shards = build_dataset(directory, args.rounds, args.base_rounds, args.shard_rows, args.seed)
            build_seconds = time.perf_counter() - start
        size = sum(p.stat().st_size for p in directory.glob("part-*.parquet"))
        print(f"# dataset {directory}: {args.rounds} rounds, {shards} shards, {size / 2**20:.0f} MiB, "
              f"built in {build_seconds:.1f} s; cpus {os.cpu_count()}; pyarrow {pa.__version__}", file=sys.stderr)
        print("benchmark,rounds,shards,repeat,seconds,rounds_per_second,peak_rss_mib")
        for kind in [k.strip() for k in args.benchmarks.split(",") if k.strip()]:
            for repeat in range(args.repeat):
                seconds, peak = measure(kind, directory)
                print(f"{kind},{args.rounds},{shards},{repeat},{seconds:.2f},{args.rounds / seconds:.0f},{peak:.0f}",
                      flush=True)
    finally:
        if temporary is not None and not args.keep:
            temporary.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
