"""Interleaved A/B of the first start: a git revision's cold ``fudasim run`` against the working tree's.

The first run on a new machine compiles the kernels (an empty numba cache).  Its time depends on
the machine's load, which drifts from minute to minute, so this alternates cold runs of the two
versions (A B, B A, ...) and reports each side's wall time (what a user waits, from the command
to its summary), the seconds the run itself says it spent compiling, CPU time (user + system,
which load inflates less than wall time) and peak memory (``ru_maxrss``), and their ratios.

``--case`` (repeatable) picks runs a user makes first (``CASES``; ``--case all`` for every one)
or another first command (``COMMANDS``: a first tournament of four policies, ``fudasim compile``),
else ``--rules``, ``--rounds`` and ``--policy`` describe one run.  The revision is checked out
with ``git worktree`` into a temporary folder; every run gets a fresh empty ``NUMBA_CACHE_DIR``.
Run with::

    nice -n 10 python -m benchmarks.cold_start --against main --case all [--pairs 2]
    python -m benchmarks.cold_start --against HEAD [--rules tensho-ise] [--policy 0=pimc]
    python -m benchmarks.cold_start --against REV --case tournament --pairs 2
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# a user's first runs: name -> fudasim run arguments
CASES: dict[str, list[str]] = {
    "tensho": ["tensho-ise", "--rounds", "1000000"],
    "tensho-heuristic": ["tensho-ise", "--rounds", "100000", "--policy", "0=heuristic"],
    "tensho-pimc": ["tensho-ise", "--rounds", "100", "--policy", "0=pimc"],
    "enshu": ["enshu-c", "--rounds", "100000"],
    "enshu-heuristic": ["enshu-c", "--rounds", "10000", "--policy", "0=heuristic"],
    "enshu-pimc": ["enshu-c", "--rounds", "10", "--policy", "0=pimc"],
    "koikoi": ["koikoi", "--rounds", "100000"],
    "koikoi-heuristic": ["koikoi", "--rounds", "100000", "--policy", "0=heuristic"],
}

# other first commands: name -> fudasim arguments (not in --case all: each takes minutes)
COMMANDS: dict[str, list[str]] = {
    "tournament": ["tournament", "enshu-c", "--policies", "heuristic,learned,pimc,ismcts", "--deals", "4",
                   "--no-progress"],
    "compile": ["compile"],
}

COMPILED = re.compile(r"after ([0-9.]+) s compiling")


def cold_run(tree: Path, arguments: list[str], scratch: Path) -> dict[str, float]:
    """One ``fudasim`` command (``fudasim run`` unless ``arguments`` start with another command)
    from source tree ``tree`` with an empty numba cache: wall, the compile the run reports, CPU
    (of the command and the processes it waited for), peak."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=scratch))
    out = scratch / f"out-{time.monotonic_ns()}"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(tree)}
    if arguments[0] in {case[0] for case in COMMANDS.values()}:
        words = [*arguments, *(["-o", str(out)] if arguments[0] != "compile" else [])]
    else:
        words = ["run", *arguments, "-o", str(out)]
    command = [sys.executable, "-m", "cli.main", *words]
    logs = scratch / f"log-{time.monotonic_ns()}"
    began = time.perf_counter()
    with open(f"{logs}.out", "wb") as stdout, open(f"{logs}.err", "wb") as stderr:
        child = subprocess.Popen(command, cwd=tree, env=env, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    if status != 0:
        error = Path(f"{logs}.err").read_text().strip().splitlines()[-1:]
        raise SystemExit(f"cold run in {tree} failed: {error}")
    said = COMPILED.search(Path(f"{logs}.out").read_text())
    return {"wall": wall, "compile": float(said.group(1)) if said else 0.0,
            "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="HEAD", help="the revision to compare with (default HEAD)")
    parser.add_argument("--case", action="append", default=[], choices=[*CASES, *COMMANDS, "all"],
                        help="a user's first run or command (repeatable; all: every first run)")
    parser.add_argument("--rules", default="tensho-ise")
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=3, help="cold runs of each side")
    parser.add_argument("--policy", action="append", default=[], help="as run's --policy (repeatable)")
    args = parser.parse_args(argv)
    if "all" in args.case:
        cases = dict(CASES)
    elif args.case:
        cases = {name: {**CASES, **COMMANDS}[name] for name in args.case}
    else:
        one = [args.rules, "--rounds", str(args.rounds), *[p for policy in args.policy for p in ("--policy", policy)]]
        cases = {" ".join(one): one}
    with tempfile.TemporaryDirectory(prefix="fudasim-cold-") as name:
        scratch = Path(name)
        base = scratch / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), args.against], cwd=ROOT, check=True)
        revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=base, check=True, text=True,
                                  capture_output=True).stdout.strip()
        try:
            sides = {f"A {args.against} ({revision})": base, "B working tree": ROOT}
            order = list(sides)
            results: dict[tuple[str, str], list[dict[str, float]]] = {(case, side): [] for case in cases
                                                                     for side in sides}
            for k in range(args.pairs):
                for case, arguments in cases.items():
                    for side in order if k % 2 == 0 else order[::-1]:
                        result = cold_run(sides[side], arguments, scratch)
                        results[case, side].append(result)
                        print(f"{case:18} {side}: wall {result['wall']:.1f} s (compiling {result['compile']:.1f} s), "
                              f"cpu {result['cpu']:.1f} s, peak {result['peak_mb']:.0f} MB", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False)
    print(f"\nmedians of {args.pairs} cold runs a side, alternated; A = {order[0][2:]}, B = the working tree")
    print(f"{'case':18} {'wall A':>7} {'wall B':>7} {'B/A':>6}   {'compile A':>9} {'compile B':>9}   "
          f"{'cpu A':>6} {'cpu B':>6} {'B/A':>6}   {'peak MB A':>9} {'B':>5}")
    for case in cases:
        a, b = (results[case, side] for side in order)
        m = {key: (statistics.median(r[key] for r in a), statistics.median(r[key] for r in b))
             for key in ("wall", "compile", "cpu", "peak_mb")}
        print(f"{case:18} {m['wall'][0]:7.1f} {m['wall'][1]:7.1f} {m['wall'][1] / m['wall'][0]:6.3f}   "
              f"{m['compile'][0]:9.1f} {m['compile'][1]:9.1f}   {m['cpu'][0]:6.1f} {m['cpu'][1]:6.1f} "
              f"{m['cpu'][1] / m['cpu'][0]:6.3f}   {m['peak_mb'][0]:9.0f} {m['peak_mb'][1]:5.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
