"""``internal_nb``: ``numba.njit`` for a function that only numba code calls.

numba compiles, with every function, a wrapper that lets Python call it (converting each argument
and the result) and a C wrapper; for a function whose callers are all compiled, both are wasted
compile time (measured: about a tenth of the CPU time of a first run's compile of Enshu-bana's
heuristic kernel, ``benchmarks.cold_start``; docs/performance.md). ``internal_nb(**options)`` compiles without them; called from Python,
such a function raises ``TypeError`` (without the wrapper the call would crash the process);
``python_entry(function)`` is a function Python can call that calls it (for tests that check a
kernel's parts one by one).  Without the wrappers a function is also optimised only in the kernel
that calls it (``simcore.kernels.linking``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba as nb
from numba.core.registry import CPUDispatcher

__all__ = ["INTERNAL_OPTIONS", "InternalDispatcher", "internal_nb", "python_entry"]

# numba options that compile a function without its Python and C wrappers
INTERNAL_OPTIONS: dict[str, Any] = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


class InternalDispatcher(CPUDispatcher):
    """A dispatcher compiled without the wrappers Python calls through: compiled callers only."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{self.py_func.__module__}.{self.py_func.__qualname__} is compiled for numba callers "
                        "only (simcore.kernels.internal): call it from a numba function, or through "
                        "simcore.kernels.internal.python_entry")


def internal_nb(**options: Any) -> Callable[[Callable[..., Any]], InternalDispatcher]:
    """``numba.njit(**options)`` without the Python and C wrappers (module docstring)."""

    def decorate(function: Callable[..., Any]) -> InternalDispatcher:
        dispatcher = nb.njit(**INTERNAL_OPTIONS, **options)(function)
        dispatcher.__class__ = InternalDispatcher
        return dispatcher

    return decorate


def python_entry(function: InternalDispatcher) -> Any:
    """A function Python can call, compiled when first called, that calls ``function`` with its
    arguments and returns what it returns (``function`` compiled for numba callers only)."""

    @nb.njit
    def entry(*args: Any) -> Any:
        return function(*args)

    return entry
