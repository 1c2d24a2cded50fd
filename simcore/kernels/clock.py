"""A cycle counter for numba code: how long a kernel spends in each seat's decisions.

``cycles_nb()`` reads the processor's time-stamp counter (LLVM's ``readcyclecounter``, the
``rdtsc`` instruction on x86-64): a few nanoseconds a read, so a kernel can time every decision
without changing what it decides. ``cycles_per_second()`` converts its counts to seconds
against ``time.perf_counter``. On processors without a counter that user code may read,
``HAS_COUNTER`` is False and callers do not read it (they report no time).
"""

from __future__ import annotations

import platform
import time

import numba as nb
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

__all__ = ["HAS_COUNTER", "cycles_nb", "cycles_per_second"]

# x86-64's time-stamp counter runs at a constant rate and may be read by user code; elsewhere
# LLVM's cycle counter may be a performance counter the kernel keeps from users.
HAS_COUNTER = platform.machine().lower() in ("x86_64", "amd64")


@intrinsic
def _read_counter(typingctx):
    def codegen(context, builder, signature, args):
        counter = builder.module.declare_intrinsic("llvm.readcyclecounter", fnty=ir.FunctionType(ir.IntType(64), []))
        return builder.call(counter, [])

    return types.int64(), codegen


@nb.njit(cache=True)
def cycles_nb():
    """The time-stamp counter (int64); only where ``HAS_COUNTER``."""
    return _read_counter()


def cycles_per_second(interval: float = 0.05) -> float:
    """The counter's rate, measured against ``time.perf_counter`` over ``interval`` seconds
    (0.0 without a counter)."""
    if not HAS_COUNTER:
        return 0.0
    cycles_nb()  # compiled or loaded before the interval starts
    c0, t0 = cycles_nb(), time.perf_counter()
    time.sleep(interval)
    c1, t1 = cycles_nb(), time.perf_counter()
    return (c1 - c0) / (t1 - t0) if t1 > t0 and c1 > c0 else 0.0
