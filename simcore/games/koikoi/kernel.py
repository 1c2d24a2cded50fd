"""The wrapper around the koi-koi kernels: ``kernel_nb.play_units_nb`` (the fast kernel) when every
seat plays random or greedy, else the general kernel (``simcore.kernels.general`` over the state
machine of ``state_nb``), which writes the same rows for random and greedy seats; the seats'
policies cross to it as ``simcore.kernels.policy_rows`` packs them
(``simcore.learned.learned_rows``: the learned player's too).
"""

from __future__ import annotations

import numpy as np

from simcore.games.koikoi import enums as E
from simcore.games.koikoi.kernel_nb import months_in_nibbles, play_units_nb
from simcore.games.koikoi.state_nb import kernel_rules, rule_table
from simcore.kernels.general import GeneralKernel
from simcore.kernels.policy_ids import POLICY_GREEDY, POLICY_RANDOM
from simcore.kernels.prepared import prepared
from simcore.kernels.threads import in_threads
from simcore.record import output_matrices, played
from simcore.rng import MASK64

__all__ = ["BASIC_PARAMS", "play_units", "play_units_general", "time_decisions"]

# the parameter of a policy that does not search packed for the general kernel: none
BASIC_PARAMS: dict[str, str] = {}
KERNEL_POLICIES = (POLICY_RANDOM, POLICY_GREEDY)  # the fast kernel's


def _fast_args(compiled, specs) -> tuple:
    """The fast kernel's seats (``int64[2]``: 1 for greedy, 0 for random), whether the deck's
    months are nibbles (``kernel_nb.months_in_nibbles``) and the rule table."""
    greedy = np.ascontiguousarray([int(spec.policy_id == POLICY_GREEDY) for spec in specs], dtype=np.int64)
    return greedy, np.bool_(months_in_nibbles(compiled.month_mask)), rule_table(compiled)


def _general_args(compiled, specs) -> tuple:
    """The general kernel's rules and policy arrays (``simcore.kernels.policy_rows``)."""
    from simcore.games.koikoi.policies import heuristic_tables
    from simcore.learned import game_policy_rows

    arrays = game_policy_rows("koikoi", "koi-koi", compiled, specs, 2, BASIC_PARAMS, heuristic_tables)
    return kernel_rules(compiled), arrays


def play_units(compiled, specs, seed: int, first_unit: int, n_units: int, rounds_per_match: int | None,
               out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Output matrices (int64[N_INT_COLUMNS, rows], uint64[N_MASK_COLUMNS, rows]) of ``n_units``
    units, ``rows = n_units * stride`` (``stride``: 1, or ``rounds_per_match``); ``out``: optional
    reusable flat buffers from ``simcore.record.output_buffers``. The fast kernel plays random
    and greedy seats, the general kernel every other policy."""
    if len(specs) != 2 or any(spec.policy_id not in KERNEL_POLICIES for spec in specs):
        return play_units_general(compiled, specs, seed, first_unit, n_units, rounds_per_match, out)
    stride = 1 if rounds_per_match is None else rounds_per_match
    out_int, out_mask = output_matrices(n_units * stride, out, E.N_INT_COLUMNS, E.N_MASK_COLUMNS)
    greedy, nibbles, rt = prepared(_fast_args, compiled, specs)
    matches = np.int64(0 if rounds_per_match is None else rounds_per_match)
    in_threads(lambda lo, hi: play_units_nb(np.uint64(int(seed) & MASK64), np.int64(first_unit), np.int64(lo),
                                            np.int64(hi), matches, np.int64(stride), greedy, nibbles, rt,
                                            out_int, out_mask), n_units)
    return played(out_int, out_mask, n_units * stride)


GENERAL = GeneralKernel(_general_args, E.N_INT_COLUMNS, E.N_MASK_COLUMNS)
play_units_general = GENERAL.play_units  # every policy, through the general kernel
time_decisions = GENERAL.time_decisions
