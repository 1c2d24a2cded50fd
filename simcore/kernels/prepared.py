"""The arguments a kernel call prepares from a run's compiled rules and policies, kept between
calls: ``prepared(build, compiled, specs)``.

A kernel call is cheap to dispatch (about 2 us) but its Python wrapper converted the rule tables
and the seats' policies into contiguous arrays on every call (about 10 us more): nothing next to a
row shard of 2**18 rounds, but a tenth of a summary run's chunk of a few thousand.  The arrays
depend only on the compiled rules and the policy specs, which a run never changes, so they are
built once per pair of objects.  Entries hold the objects themselves, so an ``id`` is never
reused while its entry lives; only the last few pairs are kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

__all__ = ["prepared", "word_table"]

T = TypeVar("T")
KEEP = 16

_entries: OrderedDict[tuple, tuple[Any, tuple, Any]] = OrderedDict()


def prepared(build: Callable[[Any, Sequence[Any]], T], compiled: Any, specs: Sequence[Any]) -> T:
    """``build(compiled, specs)``, computed once for these very objects (the result must not be
    changed by its users)."""
    specs = tuple(specs)
    key = (build, id(compiled), tuple(id(spec) for spec in specs))
    entry = _entries.get(key)
    if entry is not None and entry[0] is compiled and all(a is b for a, b in zip(entry[1], specs, strict=True)):
        return entry[2]
    value = build(compiled, specs)
    _entries[key] = (compiled, specs, value)
    while len(_entries) > KEEP:
        _entries.popitem(last=False)
    return value


def word_table(size: int, parts: Sequence[tuple[int, Any]]) -> np.ndarray:
    """One int64[size] table of a kernel's constants (a game's rule table): each ``(at, values)``
    of ``parts`` flattened into the slots from ``at`` on, uint64 masks stored bit for bit."""
    table = np.zeros(size, dtype=np.int64)
    for at, values in parts:
        flat = np.asarray(values).ravel()
        table[at:at + flat.size] = flat.view(np.int64) if flat.dtype == np.uint64 else flat
    return table
