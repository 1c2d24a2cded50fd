"""Tensho throughput benchmarks; ``fudasim bench`` prints the same figures.

Every figure is measured in one run so that ratios are comparable on a shared, noisy machine:

* kernel rounds/s with 1 thread and with all threads, for random and greedy policies and both
  yaku sets (warm: compilation excluded and reported apart; output buffers reused as in a run),
  the best and the median of ``--repeat`` runs: many short runs rather than a few long ones,
  because on a machine whose cores are shared the best run is the one that was not disturbed;
* the reference engine's rounds/s on the same rounds, and the kernel's speed-up over it
  (the rows are checked identical while at it);
* end-to-end ``fudasim run`` rounds/s including Parquet writing;
* peak memory (max RSS) of a long run, in a child process;
* first-call compile time (empty cache) and warm start-up time of ``fudasim run --rounds 1000``;
* Enshu-bana's kernel rounds/s per variant, its reference engine and speed-up
  (``benchmarks.enshu_bench``), with metrics prefixed ``enshu_``.

Output: an aligned table on stdout, and with ``-o/--out FILE`` (or ``--csv FILE``) the same rows as CSV
(``metric,policies,yaku_set,threads,value,unit``).  Rerun with ``python -m benchmarks.tensho_bench``.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np

from simcore.games.tensho import enums as E
from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.kernel import play_units as kernel_play_units
from simcore.games.tensho.record import columns_from_matrices
from simcore.games.tensho.reference import play_units as reference_play_units
from simcore.policies import parse_policy
from simcore.record import output_buffers
from simcore.rules import load_rules

ROWS: list[dict[str, Any]] = []


def record(metric: str, value: float, unit: str, policies: str = "", yaku_set: str = "", threads: str = "") -> None:
    ROWS.append({"metric": metric, "policies": policies, "yaku_set": yaku_set, "threads": threads,
                 "value": value, "unit": unit})


def kernel_rates(play_units, compiled, specs, buffers, rounds: int, thread_counts: tuple[int, ...],
                 repeat: int) -> tuple[dict[int, float], dict[int, float]]:
    """Best and median rounds/s of ``repeat`` runs of a game's kernel wrapper ``play_units``
    (into ``buffers``, room for ``rounds`` rows) per thread count, the counts' runs interleaved
    (in turn order A B, B A, ...) so that a ratio between them sees the machine's drift on both
    sides.  The best run is the kernel's speed when the machine let it run undisturbed; the
    median shows how much other load took.  Leaves numba on one thread."""
    play_units(compiled, specs, 1, 0, min(rounds, 1000), None, out=buffers)  # warm
    rates: dict[int, list[float]] = {threads: [] for threads in thread_counts}
    for attempt in range(repeat):
        for threads in thread_counts if attempt % 2 == 0 else thread_counts[::-1]:
            numba.set_num_threads(threads)
            start = time.perf_counter()
            play_units(compiled, specs, 1, attempt * rounds, rounds, None, out=buffers)
            rates[threads].append(rounds / (time.perf_counter() - start))
    numba.set_num_threads(1)
    return ({threads: max(r) for threads, r in rates.items()},
            {threads: float(np.median(r)) for threads, r in rates.items()})


# Runs a command and prints its peak RSS.  A small process of its own, because a child's
# ru_maxrss counts what it held before exec, i.e. the RSS of the process that forked it: from
# the benchmark itself (hundreds of MiB of buffers) that would be reported instead.
_LAUNCHER = ("import os, subprocess, sys\n"
             "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
             "_, status, usage = os.wait4(p.pid, 0)\n"
             "print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)\n")


def child(command: list[str], env: dict[str, str] | None = None) -> tuple[float, int]:
    """Wall time and the child's own peak RSS in KiB (through ``_LAUNCHER``)."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", _LAUNCHER, *command], env=env, check=True,
                            capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    code, peak = (int(x) for x in result.stdout.split())
    if code != 0:
        raise subprocess.CalledProcessError(code, command)
    return elapsed, peak


def measured_code() -> str:
    """One line naming what was measured: the ``simcore`` package imported (its version, engine
    version and directory: an installed copy and a working tree can differ), numba's version,
    thread count and target CPU, and whether the kernels use ``pdep``."""
    import llvmlite.binding as llvm

    import simcore
    from simcore.kernels.bits import FAST_PDEP

    cpu = numba.config.CPU_NAME or llvm.get_host_cpu_name()
    return (f"simcore {simcore.__version__} (engine {simcore.ENGINE_VERSION}) from "
            f"{Path(simcore.__file__).resolve().parent}; numba {numba.__version__}, "
            f"{numba.config.NUMBA_NUM_THREADS} threads, CPU {cpu}, pdep {'yes' if FAST_PDEP else 'no'}")


def fudasim_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli.main", *args]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fudasim bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=500_000, help="kernel rounds per measurement (random)")
    parser.add_argument("--reference-rounds", type=int, default=2_000)
    parser.add_argument("--run-rounds", type=int, default=10_000_000, help="rounds of the end-to-end run")
    parser.add_argument("--memory-rounds", type=int, default=20_000_000, help="rounds of the peak-memory run")
    parser.add_argument("--repeat", type=int, default=12, help="kernel measurements per figure")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--skip-compile", action="store_true", help="skip the cold-compile measurement")
    parser.add_argument("--skip-enshu", action="store_true", help="skip the Enshu-bana kernel figures")
    parser.add_argument("-o", "--out", "--csv", dest="csv", metavar="FILE", type=Path, default=None,
                        help="also write the rows as CSV to this file (-o/--out as every fudasim command that "
                             "writes a file; --csv is accepted too)")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.reference_rounds, args.run_rounds, args.memory_rounds, args.repeat = (
            50_000, 200, 200_000, 400_000, 1)
    all_threads = numba.config.NUMBA_NUM_THREADS

    # Kernel throughput, and the reference engine on the same rounds.
    for yaku_set in ("fixed_1", "fixed_2"):
        compiled = compile_rules(load_rules("tensho-ise", {"tensho.yaku_set_choice": yaku_set}))
        for policies in (("random", "random"), ("greedy", "greedy")):
            specs = [parse_policy(p) for p in policies]
            label = "-".join(policies)
            rounds = args.rounds if policies[0] == "random" else max(1000, args.rounds // 4)
            rates, medians = kernel_rates(kernel_play_units, compiled, specs, output_buffers(rounds, E.N_INT_COLUMNS, E.N_MASK_COLUMNS), rounds,
                                          tuple(sorted({1, all_threads})), args.repeat)
            record("kernel_rounds_per_s", rates[1], "rounds/s", label, yaku_set, "1")
            record("kernel_rounds_per_s_median", medians[1], "rounds/s", label, yaku_set, "1")
            if all_threads > 1:
                record("kernel_rounds_per_s", rates[all_threads], "rounds/s", label, yaku_set, str(all_threads))
                record("kernel_rounds_per_s_median", medians[all_threads], "rounds/s", label, yaku_set,
                       str(all_threads))
                record("thread_scaling", rates[all_threads] / rates[1], "x", label, yaku_set, f"{all_threads}/1")
                record("thread_scaling_median", medians[all_threads] / medians[1], "x", label, yaku_set,
                       f"{all_threads}/1")
            n = args.reference_rounds
            start = time.perf_counter()
            reference = reference_play_units(compiled, specs, 1, 0, n, None)
            reference_rate = n / (time.perf_counter() - start)
            kernel_rows = kernel_play_units(compiled, specs, 1, 0, n, None)
            a, b = columns_from_matrices(*reference), columns_from_matrices(*kernel_rows)
            identical = all(np.array_equal(a[k], b[k]) for k in a)
            record("reference_rounds_per_s", reference_rate, "rounds/s", label, yaku_set, "1")
            record("kernel_speedup_over_reference", rates[1] / reference_rate, "x", label, yaku_set, "1")
            record("kernel_rows_equal_reference", float(identical), "bool", label, yaku_set, "1")
    numba.set_num_threads(all_threads)

    # Enshu-bana's variants, next to Tensho's figures.
    if not args.skip_enshu:
        from benchmarks.enshu_bench import measure as measure_enshu

        enshu_rounds = max(1000, args.rounds // 10)
        for row in measure_enshu(enshu_rounds, args.repeat, max(50, args.reference_rounds // 4)):
            row = dict(row)
            row["metric"] = "enshu_" + row["metric"]
            ROWS.append(row)
        numba.set_num_threads(all_threads)

    workdir = Path(tempfile.mkdtemp(prefix="fudasim-bench-"))
    try:
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
        # End-to-end run with Parquet output.  A short run first, untimed: the child imports the
        # package through PYTHONPATH and need not find the compilation above in its cache (an
        # installed copy whose cache predates its source compiles afresh), and a compile inside
        # the timed run would be counted as playing time.
        child(fudasim_command("run", "--rounds", "1000", "--out", str(workdir / "prime"), "--no-progress"), env)
        shutil.rmtree(workdir / "prime")
        elapsed, _ = child(fudasim_command("run", "--rounds", str(args.run_rounds), "--out", str(workdir / "e2e"),
                                           "--no-progress"), env)
        record("end_to_end_rounds_per_s", args.run_rounds / elapsed, "rounds/s", "random-random", "fixed_1",
               str(all_threads))
        shutil.rmtree(workdir / "e2e")
        # Peak memory of a long run, and of a run ten times shorter: it must not grow with rounds.
        for rounds in (args.memory_rounds // 10, args.memory_rounds):
            _, peak = child(fudasim_command("run", "--rounds", str(rounds), "--out", str(workdir / f"m{rounds}"),
                                            "--no-progress"), env)
            record("peak_rss_mib", peak / 1024, "MiB", "random-random", "fixed_1", f"{rounds} rounds")
            shutil.rmtree(workdir / f"m{rounds}")
        # Warm start-up: cached compilation.
        elapsed, _ = child(fudasim_command("run", "--rounds", "1000", "--out", str(workdir / "warm"), "--no-progress"), env)
        record("warm_start_run_1000_rounds_s", elapsed, "s")
        # Cold start: empty numba cache, so the kernel compiles once.
        if not args.skip_compile:
            cold_env = dict(env, NUMBA_CACHE_DIR=str(workdir / "numba-cache"))
            elapsed, _ = child(fudasim_command("run", "--rounds", "1000", "--out", str(workdir / "cold"),
                                               "--no-progress"), cold_env)
            record("cold_start_run_1000_rounds_s", elapsed, "s")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    print(measured_code())
    print(f"{'metric':<41}{'policies':<28}{'set/case':<10}{'threads':<16}{'value':>12} unit")
    for row in ROWS:
        value = row["value"]
        shown = f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"
        print(f"{row['metric']:<41}{row['policies']:<28}{row['yaku_set']:<10}{row['threads']:<16}{shown:>12} {row['unit']}")
    if args.csv:
        with open(args.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(ROWS[0]))
            writer.writeheader()
            writer.writerows(ROWS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
