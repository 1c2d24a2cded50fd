"""The wrapper around the koi-koi kernel: it owns allocation, the kernel owns the loop.

``play_units`` has the contract of ``simcore.games.koikoi.reference.play_units``: it takes the
output matrices from ``simcore.record.output_matrices`` (fresh, or views of reusable buffers) and
calls the general kernel (``simcore.kernels.units_nb.play_units_nb`` over the state machine of
``state_nb``) for every policy; the seats' policies cross as ``simcore.kernels.policy_rows``
packs them. Koi-koi has no fast kernel of its own (docs/architecture.md: it is optional).
"""

from __future__ import annotations

import numpy as np

from simcore.games.koikoi import enums as E
from simcore.games.koikoi.state_nb import kernel_rules
from simcore.kernels.policy_rows import policy_rows
from simcore.kernels.prepared import prepared
from simcore.kernels.threads import in_threads
from simcore.kernels.units_nb import play_units_nb
from simcore.record import output_matrices, played

__all__ = ["BASIC_PARAMS", "play_units", "play_units_general"]

# the parameter of a policy that does not search packed for the general kernel: none
BASIC_PARAMS: dict[str, str] = {}


def _general_args(compiled, specs) -> tuple:
    """The general kernel's rules and policy arrays (``simcore.kernels.policy_rows``)."""
    from simcore.games.koikoi.policies import heuristic_tables
    from simcore.policies import parse_policy

    arrays = policy_rows(specs, 2, BASIC_PARAMS, lambda spec: heuristic_tables(compiled, spec),
                         lambda name: parse_policy(name, "koikoi"), "koi-koi")
    return kernel_rules(compiled), arrays


def play_units(compiled, specs, seed: int, first_unit: int, n_units: int, rounds_per_match: int | None,
               out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Output matrices (int64[N_INT_COLUMNS, rows], uint64[N_MASK_COLUMNS, rows]) of ``n_units``
    units, ``rows = n_units * stride`` (``stride``: 1, or ``rounds_per_match``).

    Parameters
    ----------
    compiled : CompiledRules
    specs : sequence of PolicySpec, one per seat
    rounds_per_match : None for independent rounds, else the match length
    out : optional reusable flat buffers from ``simcore.record.output_buffers`` with room for
        ``n_units * stride`` rows.
    """
    stride = 1 if rounds_per_match is None else rounds_per_match
    out_int, out_mask = output_matrices(n_units * stride, out, E.N_INT_COLUMNS, E.N_MASK_COLUMNS)
    rules, (params, c, tables, logs) = prepared(_general_args, compiled, specs)
    in_threads(lambda lo, hi: play_units_nb(
        rules, np.uint64(seed), np.int64(first_unit), np.int64(lo), np.int64(hi),
        np.int64(0 if rounds_per_match is None else rounds_per_match), np.int64(stride),
        params, c, tables, logs, out_int, out_mask), n_units, min_span=1)
    return played(out_int, out_mask, n_units * stride)


# The general kernel is koi-koi's only kernel (the name the other games' wrappers give it).
play_units_general = play_units
