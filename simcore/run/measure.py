"""What the throughput benchmarks share: the row record, kernel timing, child-process timing, the
line naming what was measured, and the table and CSV they print.

Nothing here holds state between calls: a measurement returns its rows, the caller collects them.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

import numba
import numpy as np

__all__ = ["Row", "child", "child_environment", "fudasim_command", "kernel_rates", "measured_code", "numba_threads",
           "print_rows", "write_csv"]

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Row:
    """One figure of a benchmark run: a line of the table and of the CSV.

    Parameters
    ----------
    metric : str
        What was measured (``kernel_rounds_per_s``, ``peak_rss_mib``, ...).
    value : float
        The figure, in ``unit``.
    unit : str
        ``rounds/s``, ``x`` (a ratio), ``%``, ``bool`` (1.0 or 0.0), ``MiB`` or ``s``.
    game : str
        The registered game measured (empty for a figure of no game).
    policies : str
        The seats' policies, joined by ``-``.
    case : str
        The game's case: Tensho's yaku set (``fixed_1``), Enshu-bana's variant and players (``C 5p``).
    threads : str
        Kernel threads, a ratio of thread counts (``2/1``), or the rounds of a memory run.
    """

    metric: str
    value: float
    unit: str
    game: str = ""
    policies: str = ""
    case: str = ""
    threads: str = ""


def numba_threads() -> int:
    """The threads numba was started with (``NUMBA_NUM_THREADS``): the "all threads" measured."""
    return int(numba.config.NUMBA_NUM_THREADS)


# The CSV's column order (the table's too): labels first, then the figure.
COLUMNS = ("metric", "game", "policies", "case", "threads", "value", "unit")


def kernel_rates(play_units: Callable[..., Any], compiled: Any, specs: Sequence[Any], buffers: Any, rounds: int,
                 thread_counts: tuple[int, ...], repeat: int) -> tuple[dict[int, float], dict[int, float]]:
    """Best and median rounds/s of ``repeat`` kernel runs per thread count, the counts interleaved.

    The counts' runs alternate (in turn order A B, B A, ...) so that a ratio between them sees
    the machine's drift on both sides. The best run is the kernel's speed when the machine let
    it run undisturbed; the median shows how much other load took. An untimed warm-up comes
    first. Leaves numba on one thread.

    Parameters
    ----------
    play_units : callable
        A game's kernel wrapper, ``play_units(compiled, specs, seed, first_unit, n_units,
        rounds_per_match, out=buffers)``.
    compiled : object
        The game's compiled rules.
    specs : sequence of PolicySpec
        One policy per seat.
    buffers : tuple of ndarray
        Reusable output storage with room for ``rounds`` rows (as in a run).
    rounds : int
        Rounds per timed run.
    thread_counts : tuple of int
        The numba thread counts measured.
    repeat : int
        Timed runs per thread count.

    Returns
    -------
    best, median : dict of int to float
        Rounds/s per thread count.
    """
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
    """Run ``command`` in a child process; its wall time and its own peak RSS.

    Parameters
    ----------
    command : list of str
        The command and its arguments.
    env : dict of str to str, optional
        The child's environment (default: this process's).

    Returns
    -------
    seconds : float
        Wall time, start-up included.
    peak_kib : int
        The child's maximum resident set size in KiB.
    """
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", _LAUNCHER, *command], env=env, check=True,
                            capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    code, peak = (int(x) for x in result.stdout.split())
    if code != 0:
        raise subprocess.CalledProcessError(code, command)
    return elapsed, peak


def child_environment(**extra: str) -> dict[str, str]:
    """This process's environment, with this checkout first on ``PYTHONPATH`` (so that a child
    measures the same code as the parent), and ``extra`` set."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, PYTHONPATH=path, **extra)


def fudasim_command(*args: str) -> list[str]:
    """``fudasim ARGS`` run from this checkout (``python -m cli.main ARGS``)."""
    return [sys.executable, "-m", "cli.main", *args]


def measured_code() -> str:
    """One line naming what was measured.

    Returns
    -------
    str
        The ``simcore`` package imported (its version, engine version and directory: an
        installed copy and a working tree can differ), numba's version, thread count and target
        CPU, and whether the kernels use ``pdep``.
    """
    import llvmlite.binding as llvm

    import simcore
    from simcore.kernels.bits import FAST_PDEP

    cpu = numba.config.CPU_NAME or llvm.get_host_cpu_name()
    return (f"simcore {simcore.__version__} (engine {simcore.ENGINE_VERSION}) from "
            f"{Path(simcore.__file__).resolve().parent}; numba {numba.__version__}, "
            f"{numba_threads()} threads, CPU {cpu}, pdep {'yes' if FAST_PDEP else 'no'}")


def _shown(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"


def print_rows(rows: Sequence[Row], file: TextIO | None = None) -> None:
    """Print ``rows`` as an aligned table, one figure a line.

    Parameters
    ----------
    rows : sequence of Row
        The figures, in the order measured.
    file : text stream, optional
        Where to print (default: stdout).
    """
    labels = [c for c in COLUMNS if c not in ("value", "unit")]
    widths = {c: max([len(c), *(len(getattr(row, c)) for row in rows)]) + 2 for c in labels}
    value_width = max([len("value"), *(len(_shown(row.value)) for row in rows)])
    print("".join(f"{c:<{widths[c]}}" for c in labels) + f"{'value':>{value_width}} unit", file=file)
    for row in rows:
        print("".join(f"{getattr(row, c):<{widths[c]}}" for c in labels)
              + f"{_shown(row.value):>{value_width}} {row.unit}", file=file)


def write_csv(rows: Sequence[Row], path: Path) -> None:
    """Write ``rows`` as CSV with the columns ``metric,game,policies,case,threads,value,unit``.

    Parameters
    ----------
    rows : sequence of Row
        The figures.
    path : Path
        The file written (replaced if it exists).
    """
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(COLUMNS))
        writer.writeheader()
        writer.writerows(asdict(row) for row in rows)
