"""Enshu-bana throughput benchmarks: the numba kernel against the reference engine.

Every figure is measured in one run so that ratios are comparable on a shared, noisy machine:

* kernel rounds/s with 1 thread and with all threads, for random and greedy seats, for each
  variant (W, S and C with 3 players, and C with 5 players, which adds the dropout phase)
  (warm: compilation excluded; output buffers reused as in a run; best of ``repeat``);
* the reference engine's rounds/s on the same rounds, and the kernel's speed-up over it
  (the rows are checked identical while at it);
* with ``--compile``, the kernel's first-call time in a child process with an empty numba cache.

Rows have the keys of ``benchmarks.tensho_bench`` (``metric, policies, yaku_set, threads,
value, unit``); ``yaku_set`` holds the variant and player count (``C 5p``).  ``measure`` returns
them; ``main`` prints an aligned table and with ``--csv FILE`` writes them as CSV.  Rerun with
``python -m benchmarks.enshu_bench``.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from benchmarks.tensho_bench import kernel_rates
from simcore.games.enshu import enums as EE
from simcore.games.enshu.kernel import play_units as kernel_play_units
from simcore.games.enshu.record import columns_from_matrices
from simcore.games.enshu.reference import play_units as reference_play_units
from simcore.games.enshu.rules import compile_enshu
from simcore.policies import parse_policy
from simcore.record import output_buffers
from simcore.rules.loader import load_rules

__all__ = ["CASES", "measure", "cold_compile_seconds", "main"]

# (rule set, players): each variant at its default player count, and C with the dropout phase
CASES = [("enshu-w", 3), ("enshu-s", 3), ("enshu-c", 3), ("enshu-c", 5)]
POLICIES = ("random", "greedy")


def _row(metric: str, value: float, unit: str, policies: str = "", case: str = "", threads: str = "") -> dict:
    return {"metric": metric, "policies": policies, "yaku_set": case, "threads": threads, "value": value,
            "unit": unit}


def measure(rounds: int = 200_000, repeat: int = 3, reference_rounds: int | None = None,
            cases: list[tuple[str, int]] | None = None) -> list[dict]:
    """Kernel and reference rounds/s per variant, policy and thread count, as table rows.

    Parameters
    ----------
    rounds : kernel rounds per measurement with random seats (greedy seats play half)
    repeat : measurements per figure (the best is kept)
    reference_rounds : rounds the reference engine plays per case (default ``rounds // 200``,
        at least 100 and at most 2,000)
    cases : (rule set, players) pairs, default ``CASES``
    """
    if reference_rounds is None:
        reference_rounds = min(2_000, max(100, rounds // 200))
    all_threads = numba.config.NUMBA_NUM_THREADS
    rows: list[dict] = []
    try:
        for rules_name, players in cases or CASES:
            compiled = compile_enshu(load_rules(rules_name, {"enshu.players": players}))
            case = f"{compiled.rules.variant} {players}p"
            for policy in POLICIES:
                specs = [parse_policy(policy)] * players
                label = "-".join([policy] * players)
                n = rounds if policy == "random" else max(1_000, rounds // 2)
                buffers = output_buffers(n, EE.N_INT_COLUMNS, EE.N_MASK_COLUMNS)
                rates, _ = kernel_rates(kernel_play_units, compiled, specs, buffers, n,
                                        tuple(sorted({1, all_threads})), repeat)
                del buffers
                rows.append(_row("kernel_rounds_per_s", rates[1], "rounds/s", label, case, "1"))
                if all_threads > 1:
                    rows.append(_row("kernel_rounds_per_s", rates[all_threads], "rounds/s", label, case,
                                     str(all_threads)))
                    rows.append(_row("thread_scaling", rates[all_threads] / rates[1], "x", label, case,
                                     f"{all_threads}/1"))
                start = time.perf_counter()
                reference = reference_play_units(compiled, specs, 1, 0, reference_rounds, None)
                reference_rate = reference_rounds / (time.perf_counter() - start)
                kernel = kernel_play_units(compiled, specs, 1, 0, reference_rounds, None)
                a = columns_from_matrices(*reference, players)
                b = columns_from_matrices(*kernel, players)
                identical = all(np.array_equal(a[k], b[k]) for k in a)
                rows.append(_row("reference_rounds_per_s", reference_rate, "rounds/s", label, case, "1"))
                rows.append(_row("kernel_speedup_over_reference", rates[1] / reference_rate, "x", label, case, "1"))
                rows.append(_row("kernel_rows_equal_reference", float(identical), "bool", label, case, "1"))
    finally:
        numba.set_num_threads(all_threads)
    return rows


_COLD_SCRIPT = """
import time
from simcore.games.enshu.kernel import play_units
from simcore.policies import parse_policy
from simcore.games.enshu.rules import compile_enshu
from simcore.rules.loader import load_rules
compiled = compile_enshu(load_rules("enshu-c"))
start = time.perf_counter()
play_units(compiled, [parse_policy("random")] * compiled.players, 1, 0, 10, None)
print(time.perf_counter() - start)
"""


def cold_compile_seconds() -> float:
    """The kernel's first call with an empty numba cache (compilation), in a child process."""
    with tempfile.TemporaryDirectory(prefix="fudasim-enshu-bench-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
        result = subprocess.run([sys.executable, "-c", _COLD_SCRIPT], check=True, capture_output=True, text=True,
                                env=env)
    return float(result.stdout.split()[-1])


def print_rows(rows: list[dict]) -> None:
    print(f"{'metric':<34}{'policies':<36}{'variant':<10}{'threads':<10}{'value':>14} unit")
    for row in rows:
        value = row["value"]
        shown = f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"
        print(f"{row['metric']:<34}{row['policies']:<36}{row['yaku_set']:<10}{row['threads']:<10}{shown:>14} "
              f"{row['unit']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.enshu_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200_000, help="kernel rounds per measurement (random seats)")
    parser.add_argument("--reference-rounds", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--compile", action="store_true", help="also time a cold compile (empty numba cache)")
    parser.add_argument("--csv", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.reference_rounds, args.repeat = 20_000, 100, 1
    rows = measure(args.rounds, args.repeat, args.reference_rounds)
    if args.compile:
        rows.append(_row("cold_compile_s", cold_compile_seconds(), "s", "random", "C 3p", "1"))
    print_rows(rows)
    if args.csv:
        with open(args.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
