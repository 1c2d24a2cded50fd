"""The wrapper around the koi-koi kernel: the general kernel (``simcore.kernels.general`` over the
state machine of ``state_nb``) for every policy; the seats' policies cross as
``simcore.kernels.policy_rows`` packs them (``simcore.learned.learned_rows``: the learned player's too). Koi-koi has no fast kernel of its own
(docs/architecture.md: it is optional).
"""

from __future__ import annotations

import numpy as np

from simcore.games.koikoi import enums as E
from simcore.games.koikoi.state_nb import kernel_rules
from simcore.kernels.general import play_general, time_general

__all__ = ["BASIC_PARAMS", "play_units", "play_units_general", "time_decisions"]

# the parameter of a policy that does not search packed for the general kernel: none
BASIC_PARAMS: dict[str, str] = {}


def _general_args(compiled, specs) -> tuple:
    """The general kernel's rules and policy arrays (``simcore.kernels.policy_rows``)."""
    from simcore.games.koikoi.policies import heuristic_tables
    from simcore.learned import learned_rows, learned_table
    from simcore.policies import parse_policy

    arrays = learned_rows(specs, 2, BASIC_PARAMS, lambda spec: heuristic_tables(compiled, spec),
                          lambda name: parse_policy(name, "koikoi", recorded=True), "koi-koi",
                          lambda spec: learned_table("koikoi", compiled, spec))
    return kernel_rules(compiled), arrays


def play_units(compiled, specs, seed: int, first_unit: int, n_units: int, rounds_per_match: int | None,
               out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Output matrices (int64[N_INT_COLUMNS, rows], uint64[N_MASK_COLUMNS, rows]) of ``n_units``
    units, ``rows = n_units * stride`` (``stride``: 1, or ``rounds_per_match``); ``out``: optional
    reusable flat buffers from ``simcore.record.output_buffers``."""
    stride = 1 if rounds_per_match is None else rounds_per_match
    return play_general(_general_args, compiled, specs, seed, first_unit, n_units, rounds_per_match, stride,
                        E.N_INT_COLUMNS, E.N_MASK_COLUMNS, out)


# The general kernel is koi-koi's only kernel (the name the other games' wrappers give it).
play_units_general = play_units


def time_decisions(compiled, specs, seed: int, first_round: int, n_rounds: int, timed: bool) -> np.ndarray:
    """Each seat's decisions with two or more options over independent rounds ``first_round ..``
    of ``seed`` and (``timed``) the ticks its policy spent on them (``time_general``): int64[seats, 2]."""
    return time_general(_general_args, compiled, specs, seed, first_round, n_rounds, timed, E.N_INT_COLUMNS,
                        E.N_MASK_COLUMNS)
