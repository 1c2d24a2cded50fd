"""Numba code every game's kernel shares: bit helpers, two-lane uint64 pairs, policy ids.

Importing it defers the optimisation of the functions only numba calls to the kernels that call
them (``simcore.kernels.linking``), before any of them compiles or loads from numba's cache, and
makes numba's cache safe to write from several processes at once (``simcore.kernels.cache_lock``).
"""

from simcore.kernels import cache_lock
from simcore.kernels.linking import install

install()
cache_lock.install()
