"""Threads for the kernels: a unit range split into spans, each played by a ``nogil`` kernel call
on a thread of a pool, so the kernels need no numba ``parallel=True`` (whose compilation took
several seconds and hundreds of megabytes of the first start).

A kernel called here plays units ``first_unit + lo .. first_unit + hi - 1`` into rows
``lo * stride ..`` of shared output matrices; spans never overlap, and a unit's row depends only
on the unit (guarantee 1 of docs/guarantees.md), so the rows are the same for any number of threads.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numba

from simcore.kernels.stack import roomy

__all__ = ["SLOW_SPANS_PER_THREAD", "SPANS_PER_THREAD", "in_threads", "spans"]

SPANS_PER_THREAD = 4  # more spans than threads: a slow span does not hold the others up
# The general kernel's units are slow (a search round takes milliseconds): a call waits for its
# last span, so its spans are many and short; handing one out costs microseconds.
SLOW_SPANS_PER_THREAD = 32
MIN_SPAN_UNITS = 64  # below this a span costs more to hand out than it saves

_pools: dict[int, ThreadPoolExecutor] = {}


def spans(n_units: int, threads: int, min_span: int = MIN_SPAN_UNITS,
          per_thread: int = SPANS_PER_THREAD) -> list[tuple[int, int]]:
    """``[(lo, hi), ...]`` covering ``0 .. n_units`` in order: ``per_thread`` per thread, none
    shorter than ``min_span`` units (one span when there is no work to share)."""
    count = max(1, min(threads * per_thread, n_units // min_span))
    return [(k * n_units // count, (k + 1) * n_units // count) for k in range(count)]


def _pool(threads: int) -> ThreadPoolExecutor:
    pool = _pools.get(threads)
    if pool is None:
        pool = _pools[threads] = ThreadPoolExecutor(threads, thread_name_prefix="fudasim-kernel")
    return pool


def in_threads(play: Callable[[int, int], None], n_units: int, min_span: int = MIN_SPAN_UNITS,
               per_thread: int = SPANS_PER_THREAD) -> None:
    """Call ``play(lo, hi)`` over spans of ``0 .. n_units`` on ``numba.get_num_threads()``
    threads (``--threads``); the first exception of any span is raised here.  ``min_span``: the
    fewest units worth a span of their own (1 for the general kernel, whose units are slow), and
    ``per_thread`` spans a thread at most (``SLOW_SPANS_PER_THREAD`` for it)."""
    threads = numba.get_num_threads()
    # the first call compiles the kernel: give numba's compiler room (simcore/kernels/stack.py)
    if threads <= 1:
        roomy(play, 0, n_units)  # one call: spans would only share out work among threads
        return
    # the head span alone first: a first call compiles the kernel (and types the game's overloads)
    # on one thread, before the pool's threads call it; numba typing the same kernel from two
    # threads at once has failed to unify a stub's function type with itself
    head = min(min_span, n_units)
    roomy(play, 0, head)
    if head == n_units:
        return
    parts = [(head + lo, head + hi) for lo, hi in spans(n_units - head, threads, min_span, per_thread)]
    if len(parts) == 1:
        roomy(play, *parts[0])
        return
    for future in [_pool(threads).submit(roomy, play, lo, hi) for lo, hi in parts]:
        future.result()
