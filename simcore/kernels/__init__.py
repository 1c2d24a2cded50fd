"""Numba code every game's kernel shares: bit helpers, two-lane uint64 pairs, policy ids.

Importing it defers the optimisation of the functions only numba calls to the kernels that call
them (``simcore.kernels.linking``), before any of them compiles or loads from numba's cache.
"""

from simcore.kernels.linking import install

install()
