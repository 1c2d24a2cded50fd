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
from simcore.kernels.general import FastKernel, GeneralKernel
from simcore.kernels.policy_ids import POLICY_GREEDY, POLICY_RANDOM

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


def _plays_fast(compiled, specs) -> bool:
    """Whether the fast kernel plays these seats: two, random or greedy."""
    return len(specs) == 2 and all(spec.policy_id in KERNEL_POLICIES for spec in specs)


def _launch(args, seed, first_unit, lo, hi, matches, stride, out_int, out_mask) -> None:
    greedy, nibbles, rt = args
    play_units_nb(seed, first_unit, lo, hi, matches, stride, greedy, nibbles, rt, out_int, out_mask)


GENERAL = GeneralKernel(_general_args, E.N_INT_COLUMNS, E.N_MASK_COLUMNS,
                        fast=FastKernel(_plays_fast, _fast_args, _launch))
play_units = GENERAL.play_units  # the fast kernel where it plays the seats, else the general kernel
play_units_general = GENERAL.play_units_general  # every policy, through the general kernel
time_decisions = GENERAL.time_decisions
