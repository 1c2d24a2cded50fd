"""Throughput benchmarks of every registered game: ``fudasim bench`` prints these figures.

Every figure is measured in one run so that ratios are comparable on a shared, noisy machine.
For each game of ``simcore.games.known_games()`` (or those chosen), over the game's bench cases
(``simcore.bench``: Tensho's two yaku sets, Enshu-bana's variants and player counts, each with
random and with greedy seats):

* kernel rounds/s with 1 thread and with all threads, the best and the median of ``repeat``
  runs (warm: compilation excluded and reported apart; output buffers reused as in a run): many
  short runs rather than a few long ones, because on a machine whose cores are shared the best
  run is the one that was not disturbed; the two thread counts' runs interleaved;
* thread scaling by the best runs and by the medians;
* the reference engine's rounds/s on the same rounds, and the kernel's speed-up over it (the
  rows are checked identical while at it);

then, for each game that names a run (``RunCase``), in child processes:

* end-to-end ``fudasim run`` rounds/s including Parquet writing;
* peak memory (max RSS) of a long run and of a run ten times shorter (it must not grow);
* warm start-up time of ``fudasim run RULES --rounds 1000`` and, unless skipped, its cold start
  (empty numba cache: the kernel compiles once).

Every row names its game (``game`` column) and case (``case``: the yaku set, or the variant and
player count). ``measure`` returns the rows; ``bench`` prints them after a line naming what was
measured, and writes them as CSV. The command line is ``fudasim bench`` (``python -m cli.main
bench`` in a checkout, or ``python -m benchmarks.throughput``).
"""

from __future__ import annotations

import functools
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from simcore.bench import BenchCase, RunCase, bench_cases, bench_run_case
from simcore.games import Game, get_game, known_game_names
from simcore.policies import parse_policy
from simcore.rules import load_rules
from simcore.run.measure import (
    Row,
    child,
    child_environment,
    fudasim_command,
    kernel_rates,
    measured_code,
    numba_threads,
    print_rows,
    write_csv,
)

__all__ = ["QUICK", "BenchConfig", "bench", "kernel_figures", "measure", "run_figures"]


@dataclass(frozen=True)
class BenchConfig:
    """The sizes and choices of a benchmark run (the defaults are ``fudasim bench``'s).

    Parameters
    ----------
    games : tuple of str
        Registered games to measure, in this order (empty: every registered game).
    rounds : int
        Kernel rounds per measurement (random Tensho seats; each case plays a share of it).
    reference_rounds : int
        Reference-engine rounds per case (each case plays a share of it).
    run_rounds : int
        Rounds of the end-to-end run (divided by the game's ``RunCase.rounds_divisor``).
    memory_rounds : int
        Rounds of the longer peak-memory run (the other plays a tenth).
    repeat : int
        Timed kernel runs per thread count.
    skip_compile : bool
        Leave out the cold start (a compile with an empty numba cache, minutes).
    runs : bool
        Measure the child-process figures (end to end, memory, start-up) at all.
    least_rounds, least_reference_rounds : int
        The fewest kernel and reference-engine rounds a case plays, whatever its share (fewer time
        too coarsely to mean much; a smoke test may lower them).
    policies : tuple of str
        Measure only the kernel cases whose ``policies`` label (``BenchCase.label``, e.g.
        ``learned-learned``) is one of these, and none of the child-process figures (empty: every
        case, and those figures as ``runs`` says).
    """

    games: tuple[str, ...] = ()
    rounds: int = 500_000
    reference_rounds: int = 2_000
    run_rounds: int = 10_000_000
    memory_rounds: int = 20_000_000
    repeat: int = 12
    skip_compile: bool = False
    runs: bool = True
    least_rounds: int = 1000
    least_reference_rounds: int = 50
    policies: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("rounds", "reference_rounds", "run_rounds", "memory_rounds", "repeat", "least_rounds",
                     "least_reference_rounds"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        unknown = [g for g in self.games if g not in known_game_names()]
        if unknown:
            raise ValueError(f"unknown game {unknown[0]!r} (known: {', '.join(known_game_names())})")
        if not self.policies:
            return
        labels = {case.label for name in (self.games or known_game_names()) for case in bench_cases(name)}
        missing = [p for p in self.policies if p not in labels]
        if missing:
            games = ", ".join(self.games) if self.games else "every game"
            raise ValueError(f"--policies {missing[0]}: no case of {games} has these seats "
                             f"(its cases: {', '.join(sorted(labels))})")


# ``--quick``: small sizes, for a smoke test; the search players' reference-engine cases (about a
# round a second) play 5 rounds, not ``least_reference_rounds``' 50
QUICK = {"rounds": 50_000, "reference_rounds": 200, "run_rounds": 200_000, "memory_rounds": 400_000, "repeat": 1,
         "least_reference_rounds": 5}


def kernel_figures(game: Game, case: BenchCase, config: BenchConfig) -> list[Row]:
    """The kernel's rates and scaling, the reference engine's rate and the speed-up, of one case.

    Parameters
    ----------
    game : Game
        The registered game.
    case : BenchCase
        Rules, options and policies.
    config : BenchConfig
        Sizes (``rounds``, ``reference_rounds``, ``repeat``).

    Returns
    -------
    list of Row
        ``kernel_rounds_per_s`` and ``kernel_rounds_per_s_median`` per thread count,
        ``thread_scaling`` and ``thread_scaling_median`` (with more than one thread),
        ``reference_rounds_per_s``, ``kernel_speedup_over_reference`` and
        ``kernel_rows_equal_reference`` (1.0 when every column of every row is identical).
    """
    compiled = game.compile(load_rules(case.rules, dict(case.options)))
    players = game.players(compiled)
    if len(case.policies) != players:
        raise ValueError(f"bench case {case.case!r}: {len(case.policies)} policies for {players} seats")
    specs = [parse_policy(policy, game.name) for policy in case.policies]
    label = case.label
    all_threads = numba_threads()

    def row(metric: str, value: float, unit: str, threads: str) -> Row:
        return Row(metric, float(value), unit, game.name, label, case.case, threads)

    rounds = max(config.least_rounds, config.rounds // case.rounds_divisor)
    kernel = functools.partial(game.play_units, "kernel")
    buffers = game.output_buffers(rounds)
    try:
        best, median = kernel_rates(kernel, compiled, specs, buffers, rounds, tuple(sorted({1, all_threads})),
                                    config.repeat)
    finally:
        numba.set_num_threads(all_threads)
    del buffers
    rows = [row("kernel_rounds_per_s", best[1], "rounds/s", "1"),
            row("kernel_rounds_per_s_median", median[1], "rounds/s", "1")]
    if all_threads > 1:
        scaled = f"{all_threads}/1"
        rows += [row("kernel_rounds_per_s", best[all_threads], "rounds/s", str(all_threads)),
                 row("kernel_rounds_per_s_median", median[all_threads], "rounds/s", str(all_threads)),
                 row("thread_scaling", best[all_threads] / best[1], "x", scaled),
                 row("thread_scaling_median", median[all_threads] / median[1], "x", scaled)]

    n = max(config.least_reference_rounds, config.reference_rounds // case.reference_divisor)
    start = time.perf_counter()
    reference = game.play_units("reference", compiled, specs, 1, 0, n, None)
    reference_rate = n / (time.perf_counter() - start)
    kernel_rows = game.play_units("kernel", compiled, specs, 1, 0, n, None)
    a, b = game.columns(*reference, players), game.columns(*kernel_rows, players)
    identical = a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    rows += [row("reference_rounds_per_s", reference_rate, "rounds/s", "1"),
             row("kernel_speedup_over_reference", best[1] / reference_rate, "x", "1"),
             row("kernel_rows_equal_reference", float(identical), "bool", "1")]
    return rows


def run_figures(game_name: str, run: RunCase, config: BenchConfig, workdir: Path) -> list[Row]:
    """End-to-end rate, peak memory, warm and cold start of ``fudasim run``, in child processes.

    Parameters
    ----------
    game_name : str
        The registered game the run plays (the ``game`` column).
    run : RunCase
        The rule set and labels.
    config : BenchConfig
        Sizes (``run_rounds``, ``memory_rounds``), ``skip_compile``.
    workdir : Path
        An empty directory for the runs' datasets and the cold numba cache.

    Returns
    -------
    list of Row
        ``end_to_end_rounds_per_s``, ``peak_rss_mib`` (two runs), ``warm_start_run_1000_rounds_s``
        and, unless ``skip_compile``, ``cold_start_run_1000_rounds_s`` and its
        ``cold_start_peak_rss_mib`` (the compile's memory).
    """
    all_threads = numba_threads()
    env = child_environment()

    def fudasim_run(rounds: int, name: str, run_env: dict[str, str] = env) -> tuple[float, int]:
        out = workdir / name
        result = child(fudasim_command("run", run.rules, "--rounds", str(rounds), "--out", str(out),
                                       "--no-progress"), run_env)
        shutil.rmtree(out, ignore_errors=True)
        return result

    def row(metric: str, value: float, unit: str, threads: str = "", labelled: bool = True) -> Row:
        return Row(metric, float(value), unit, game_name, run.policies if labelled else "",
                   run.case if labelled else "", threads)

    # A short run first, untimed: the child imports the package through PYTHONPATH and need not
    # find the parent's compilation in its cache (an installed copy whose cache predates its
    # source compiles afresh), and a compile inside the timed run would count as playing time.
    fudasim_run(1000, "prime")
    run_rounds = max(1, config.run_rounds // run.rounds_divisor)
    elapsed, _ = fudasim_run(run_rounds, "e2e")
    rows = [row("end_to_end_rounds_per_s", run_rounds / elapsed, "rounds/s", str(all_threads))]
    # Peak memory of a long run, and of a run ten times shorter: it must not grow with rounds.
    memory_rounds = max(1, config.memory_rounds // run.rounds_divisor)
    for rounds in (max(1, memory_rounds // 10), memory_rounds):
        _, peak = fudasim_run(rounds, f"m{rounds}")
        rows.append(row("peak_rss_mib", peak / 1024, "MiB", f"{rounds} rounds"))
    # Warm start-up: cached compilation.
    elapsed, _ = fudasim_run(1000, "warm")
    rows.append(row("warm_start_run_1000_rounds_s", elapsed, "s", labelled=False))
    # Cold start: an empty numba cache, so the kernel compiles once.
    if not config.skip_compile:
        cold_env = child_environment(NUMBA_CACHE_DIR=str(workdir / "numba-cache"))
        elapsed, peak = fudasim_run(1000, "cold", cold_env)
        rows.append(row("cold_start_run_1000_rounds_s", elapsed, "s", labelled=False))
        rows.append(row("cold_start_peak_rss_mib", peak / 1024, "MiB", labelled=False))
    return rows


def measure(config: BenchConfig, progress: Callable[[str], None] | None = None) -> list[Row]:
    """Every figure of a benchmark run: each game's kernel cases, then each game's run.

    Parameters
    ----------
    config : BenchConfig
        Games, sizes and what to skip.
    progress : callable, optional
        Called with a short note before each measurement (e.g. to print it).

    Returns
    -------
    list of Row
        In the order measured.
    """
    names = list(dict.fromkeys(config.games or known_game_names()))
    rows: list[Row] = []
    for name in names:
        game = get_game(name)
        for case in bench_cases(name):
            if config.policies and case.label not in config.policies:
                continue
            if progress:
                progress(f"{name} kernel: {case.case}, {case.label}")
            rows += kernel_figures(game, case, config)
    if config.runs and not config.policies:
        for name in names:
            run = bench_run_case(name)
            if run is None:
                continue
            if progress:
                progress(f"{name}: fudasim run {run.rules}")
            workdir = Path(tempfile.mkdtemp(prefix="fudasim-bench-"))
            try:
                rows += run_figures(name, run, config, workdir)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
    return rows


def bench(config: BenchConfig, out: Path | None = None,
          progress: Callable[[str], None] | None = None) -> list[Row]:
    """Measure, print the line naming what was measured and the table, and write the CSV.

    Parameters
    ----------
    config : BenchConfig
        Games, sizes and what to skip.
    out : Path, optional
        Also write the rows as CSV to this file.
    progress : callable, optional
        As for ``measure``.

    Returns
    -------
    list of Row
        The figures printed.
    """
    print(measured_code(), flush=True)
    rows = measure(config, progress)
    print_rows(rows)
    if out is not None:
        write_csv(rows, out)
    return rows
