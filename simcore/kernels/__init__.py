"""Numba code every game's kernel shares: bit helpers, two-lane uint64 pairs, policy ids."""
