"""Is this CPU's core shared?  Two loops of the same arithmetic, timed in alternation.

``chain`` runs one xorshift chain (each step waits for the one before: latency-bound, it uses
one ALU at a time); ``wide`` runs eight independent chains (throughput-bound: it keeps the
core's ALUs busy).  On a core of its own, ``wide`` takes about the same time per step as
``chain`` takes per step of one chain divided by the number of ALUs it can use, run after run.
When another hardware thread of the same physical core is busy (an SMT sibling, which on a
virtual machine may belong to another guest), ``chain`` barely changes but ``wide`` slows down,
by up to half.  The kernel is mostly throughput-bound, so its one-thread speed moves with that
other load; compare kernel figures only when this probe gave steady ``wide`` times around them.

Run with ``python -m benchmarks.core_probe [--repeat N] [--threads 2]``: it prints each run's
nanoseconds per step of both loops and their ratio; with ``--threads 2`` both loops run on
every thread at once (then ``wide`` near the one-thread figure means the threads have cores
of their own).
"""

from __future__ import annotations

import argparse
import time

import numba as nb
import numpy as np

STEPS = 20_000_000
WIDTH = 8


@nb.njit(cache=True, inline="always")
def _step(x):
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    return x


@nb.njit(cache=True)
def chain(seed, steps):
    """``steps`` xorshift64 steps of one state (each waits for the one before)."""
    x = np.uint64(seed)
    for _ in range(steps):
        x = _step(x)
    return x


@nb.njit(cache=True)
def wide(seed, steps):
    """``steps`` xorshift64 steps of each of eight states (independent chains); their xor."""
    a = np.uint64(seed)
    b = a + np.uint64(1)
    c = a + np.uint64(2)
    d = a + np.uint64(3)
    e = a + np.uint64(4)
    f = a + np.uint64(5)
    g = a + np.uint64(6)
    h = a + np.uint64(7)
    for _ in range(steps):
        a = _step(a)
        b = _step(b)
        c = _step(c)
        d = _step(d)
        e = _step(e)
        f = _step(f)
        g = _step(g)
        h = _step(h)
    return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h


@nb.njit(cache=True, parallel=True)
def _on_threads(kind, seed, steps, n_threads):
    out = np.empty(n_threads, dtype=np.uint64)
    for t in nb.prange(n_threads):
        out[t] = chain(seed + t, steps) if kind == 0 else wide(seed + t, steps)
    return out


def timed(kind: int, steps: int, threads: int) -> float:
    """Nanoseconds per step of one chain (``kind`` 0) or per step of all eight (1)."""
    start = time.perf_counter()
    if threads == 1:
        (chain if kind == 0 else wide)(1, steps)
    else:
        _on_threads(kind, 1, steps, threads)
    return (time.perf_counter() - start) / steps * 1e9


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.core_probe", description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=10, help="timed runs of each loop")
    parser.add_argument("--threads", type=int, default=1, help="threads running each loop at once")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.threads < 1:
        parser.error("--repeat and --threads must be at least 1")
    if args.threads > nb.config.NUMBA_NUM_THREADS:
        parser.error(f"--threads {args.threads}: numba has {nb.config.NUMBA_NUM_THREADS} thread(s) here")
    nb.set_num_threads(args.threads)
    for kind in (0, 1):  # compile (or load) and warm
        timed(kind, 1000, args.threads)
    print(f"ns per step, {args.threads} thread(s); chain: one xorshift chain, wide: eight at once")
    print(f"{'run':>4} {'chain':>8} {'wide':>8} {'wide / chain':>13}")
    for run in range(args.repeat):
        first = timed(0, STEPS, args.threads)
        second = timed(1, STEPS, args.threads)
        print(f"{run + 1:>4} {first:8.3f} {second:8.3f} {second / first:13.2f}")


if __name__ == "__main__":
    main()
