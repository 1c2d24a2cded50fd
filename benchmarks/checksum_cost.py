"""What checking the shards' checksums costs a reader: sha256 of every shard against reading it.

``fudasim report``, ``compare``, ``rescore`` and ``fudasim.load`` hash every shard they read and
compare it with the manifest (docs/dataset.md).  This measures, on one dataset, the seconds of

* ``sha256``: hashing every shard (``simcore.dataset.file_digest``, what the readers do);
* ``read_table``: decoding every shard whole (what ``fudasim.load`` reads);
* ``report``: ``fudasim report``'s tables from a dataset opened without the checksums;

each the median of ``--repeat`` turns, the files in the page cache (one untimed turn first).
Output is CSV on standard output, one line per measurement, stable for scripts::

    benchmark,rounds,shards,bytes,seconds,mb_per_s,share_of_report

``share_of_report`` is the measurement's seconds over the report's.  The dataset is a fresh
``fudasim run tensho-ise`` (default shard size) unless ``--dir`` names one.

Usage::

    python -m benchmarks.checksum_cost --rounds 1048576 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["measure", "main"]


def _median_seconds(work: Callable[[], object], repeat: int) -> float:
    work()  # untimed: the files in the page cache, the modules imported
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(directory: Path, repeat: int) -> list[dict[str, Any]]:
    """The rows of the table for the dataset in ``directory`` (see the module's docstring)."""
    import pyarrow.parquet as pq

    from analysis import build_report
    from analysis.reader import open_run
    from simcore.dataset import file_digest, read_manifest

    manifest = read_manifest(directory)
    shards = [directory / entry["file"] for entry in manifest["shard_files"]]
    size = sum(path.stat().st_size for path in shards)
    rounds = sum(int(entry["rows"]) for entry in manifest["shard_files"])

    def hash_all() -> None:
        for path in shards:
            file_digest(path)

    def read_all() -> None:
        for path in shards:
            pq.read_table(path)

    def report() -> None:
        build_report(open_run(directory, checksums=False))

    seconds = {"sha256": _median_seconds(hash_all, repeat),
               "read_table": _median_seconds(read_all, repeat),
               "report": _median_seconds(report, repeat)}
    return [{"benchmark": name, "rounds": rounds, "shards": len(shards), "bytes": size,
             "seconds": value, "mb_per_s": size / value / 1e6 if value > 0 else float("inf"),
             "share_of_report": value / seconds["report"]} for name, value in seconds.items()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1 << 20,
                        help="rounds of the dataset made to measure")
    parser.add_argument("--shard-rounds", type=int, default=None,
                        help="rounds per shard (default: fudasim's)")
    parser.add_argument("--engine", default="kernel", choices=("kernel", "reference"))
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed turns per measurement (median)")
    parser.add_argument("--dir", type=Path, default=None,
                        help="measure this dataset instead of a fresh one")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="fudasim-checksum-cost-") as scratch:
        directory = args.dir
        if directory is None:
            import fudasim

            directory = Path(scratch) / "dataset"
            fudasim.run("tensho-ise", rounds=args.rounds, shard_rounds=args.shard_rounds,
                        engine=args.engine, out=directory, seed=1)
        rows = measure(directory, max(1, args.repeat))
        info = json.loads((directory / "_run.json").read_text())
        first = rows[0]
        print(f"# {directory}: {info.get('rules_name')}, {first['rounds']:,} rounds, "
              f"{first['shards']} shards, {first['bytes'] / 2**20:.1f} MiB", file=sys.stderr)
        print("benchmark,rounds,shards,bytes,seconds,mb_per_s,share_of_report")
        for row in rows:
            print(f"{row['benchmark']},{row['rounds']},{row['shards']},{row['bytes']},"
                  f"{row['seconds']:.6f},{row['mb_per_s']:.0f},{row['share_of_report']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
