"""Interleaved A/B of the first start: a git revision's cold ``fudasim run`` against the working tree's.

The first run on a new machine compiles the kernels (an empty numba cache).  Its time depends on
the machine's load, which drifts from minute to minute, so this alternates cold runs of the two
versions (A B, B A, ...) and reports each side's CPU time (user + system, which load inflates
less than wall time), wall time and peak memory (``ru_maxrss``), and their ratios.

The revision is checked out with ``git worktree`` into a temporary folder; every run gets a fresh
empty ``NUMBA_CACHE_DIR``.  Run with::

    python -m benchmarks.cold_start --against HEAD [--rules tensho-ise] [--pairs 3] [--policy 0=pimc]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cold_run(tree: Path, rules: str, rounds: int, scratch: Path, policies: list[str]) -> dict[str, float]:
    """One ``fudasim run`` from source tree ``tree`` with an empty numba cache: CPU, wall, peak."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=scratch))
    out = scratch / f"out-{time.monotonic_ns()}"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(tree)}
    command = [sys.executable, "-m", "cli.main", "run", rules, "--rounds", str(rounds), "-o", str(out),
               *[part for policy in policies for part in ("--policy", policy)]]
    began = time.perf_counter()
    child = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    error = child.stderr.read().decode() if child.stderr else ""
    if status != 0:
        raise SystemExit(f"cold run in {tree} failed: {error.strip().splitlines()[-1:]}")
    return {"cpu": usage.ru_utime + usage.ru_stime, "sys": usage.ru_stime, "wall": wall,
            "peak_mb": usage.ru_maxrss / 1024}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="HEAD", help="the revision to compare with (default HEAD)")
    parser.add_argument("--rules", default="tensho-ise")
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=3, help="cold runs of each side")
    parser.add_argument("--policy", action="append", default=[], help="as run's --policy (repeatable)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fudasim-cold-") as name:
        scratch = Path(name)
        base = scratch / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), args.against], cwd=ROOT, check=True)
        try:
            sides = {"A (" + args.against + ")": base, "B (working tree)": ROOT}
            results: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
            order = list(sides)
            for k in range(args.pairs):
                for name in order if k % 2 == 0 else order[::-1]:
                    result = cold_run(sides[name], args.rules, args.rounds, scratch, args.policy)
                    results[name].append(result)
                    print(f"{name}: cpu {result['cpu']:.1f} s (sys {result['sys']:.1f}), wall "
                          f"{result['wall']:.1f} s, peak {result['peak_mb']:.0f} MB", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False)
    a, b = (results[name] for name in order)
    print(f"\n{args.rules} {' '.join(args.policy)}, {args.rounds} rounds, {args.pairs} cold runs a side (medians)")
    for key, label in (("cpu", "CPU s"), ("wall", "wall s"), ("peak_mb", "peak MB")):
        ma = statistics.median(r[key] for r in a)
        mb = statistics.median(r[key] for r in b)
        print(f"  {label:8} A {ma:8.1f}   B {mb:8.1f}   B/A {mb / ma:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
