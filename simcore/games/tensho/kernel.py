"""The wrapper around the Tensho kernels: it owns allocation, the kernels own the loop.

``play_units`` normalises the inputs to the exact dtypes of a kernel's single signature,
allocates the output matrices (and each thread's scratch) and calls ``kernel_nb.play_units_nb``
(the fast kernel) when every seat plays random or greedy, else
``simcore.kernels.units_nb.play_units_nb`` (the general kernel, which plays every policy through
the state machine of ``state_nb``).
"""

from __future__ import annotations

import threading

import numpy as np

from simcore.games.tensho import enums as E
from simcore.games.tensho.kernel_nb import (
    fill_card_tables_nb,
    new_scratch,
    play_units_nb,
    table_views,
)
from simcore.games.tensho.state_nb import kernel_rules
from simcore.kernels.general import FastKernel, GeneralKernel
from simcore.kernels.policy_ids import (
    POLICY_GREEDY,
    POLICY_RANDOM,
)
from simcore.policies import PolicyError

__all__ = ["BASIC_PARAMS", "play_units", "play_units_general", "policy_arrays", "time_decisions"]


N_POLICY_PARAMS = 4  # width of the kernel's policy-parameter rows
GREEDY_PARAM_YAKU_SET = 0  # greedy's row: its preferred yaku set
KERNEL_POLICIES = (POLICY_RANDOM, POLICY_GREEDY)
# the parameter of a policy that does not search packed for the general kernel (``P_BASIC``)
BASIC_PARAMS = {"greedy": "yaku_set"}


def policy_arrays(specs) -> tuple[np.ndarray, np.ndarray]:
    """``int32[2]`` policy ids and ``int32[2, 4]`` parameter rows of the seats' policy specs.

    Raises ``PolicyError`` for a policy this kernel does not implement (the runner refuses it
    before a run starts; this guards every other caller).
    """
    rows = []
    for spec in specs:
        if spec.policy_id not in KERNEL_POLICIES:
            raise PolicyError(f"policy {spec.name}: the Tensho kernel does not implement it")
        row = [0] * N_POLICY_PARAMS
        if spec.policy_id == POLICY_GREEDY:
            row[GREEDY_PARAM_YAKU_SET] = int(spec.params["yaku_set"])
        rows.append(row)
    ids = np.ascontiguousarray([spec.policy_id for spec in specs], dtype=np.int32)
    return ids, np.ascontiguousarray(rows, dtype=np.int32)


def _fast_kernel_args(compiled, specs) -> tuple:
    """The fast kernel's arguments after the unit range and before the output matrices."""
    policy_ids, policy_params = policy_arrays(specs)
    (params, rank, rank_mask, deal_order, yaku_mask, yaku_points, yaku_in_set, yaku_instant,
     supersedes, greedy_weight, card_value, chaff_mask) = compiled.kernel_args()
    return (
        policy_ids, policy_params,
        np.ascontiguousarray(params, dtype=np.int32), np.ascontiguousarray(rank, dtype=np.int8),
        np.ascontiguousarray(rank_mask, dtype=np.uint64), np.ascontiguousarray(deal_order, dtype=np.int8),
        np.ascontiguousarray(yaku_mask, dtype=np.uint64), np.ascontiguousarray(yaku_points, dtype=np.int32),
        np.ascontiguousarray(yaku_in_set, dtype=np.uint64), np.ascontiguousarray(yaku_instant, dtype=np.uint64),
        np.ascontiguousarray(supersedes, dtype=np.uint64), np.ascontiguousarray(greedy_weight, dtype=np.int32),
        np.ascontiguousarray(card_value, dtype=np.int32), np.uint64(chaff_mask),
    )


_thread = threading.local()  # each thread's scratch for the fast kernel (``kernel_nb.new_scratch``)


def _with_scratch(args: tuple) -> tuple:
    """The fast kernel's arguments from ``policy_ids`` to ``n_planes`` for ``_fast_kernel_args``'
    ``args``: this thread's scratch, its tables filled for these rules (the kernel writes into
    its scratch, so each thread has its own; a thread plays one span at a time)."""
    (policy_ids, policy_params, params, rank, rank_mask, deal_order, yaku_mask, yaku_points,
     yaku_in_set, yaku_instant, supersedes, greedy_weight, card_value, chaff_mask) = args
    scratch = getattr(_thread, "scratch", None)
    if scratch is None:
        scratch = _thread.scratch = new_scratch()
    states, ids, hand, pile, tables = scratch
    n_planes = fill_card_tables_nb(rank, rank_mask, card_value, supersedes, yaku_points, yaku_mask,
                                   yaku_instant, tables)
    padded, same_rank, opts = table_views(tables, yaku_mask.size)
    return (policy_ids, policy_params, params, rank, rank_mask, deal_order, padded, yaku_points,
            yaku_in_set, yaku_instant, supersedes, greedy_weight, card_value, chaff_mask,
            states, ids, opts, hand, pile, same_rank, tables, np.int64(n_planes))


def _plays_fast(compiled, specs) -> bool:
    """Whether the fast kernel plays these seats: random or greedy."""
    return all(spec.policy_id in KERNEL_POLICIES for spec in specs)


def _launch(args, seed, first_unit, lo, hi, matches, stride, out_int, out_mask) -> None:
    play_units_nb(seed, first_unit, lo, hi, matches, stride, *_with_scratch(args), out_int, out_mask)


def _general_args(compiled, specs) -> tuple:
    """The general kernel's rules and policy arrays (``simcore.kernels.policy_rows``)."""
    from simcore.games.tensho.heuristic_nb import heuristic_tables
    from simcore.learned import game_policy_rows

    arrays = game_policy_rows("tensho", "Tensho", compiled, specs, 2, BASIC_PARAMS, heuristic_tables)
    return kernel_rules(compiled), arrays


def _stride(compiled, rounds_per_match: int | None) -> int:
    """Rows a unit reserves: a match's rounds and the room for extra rounds (``unit_layout``)."""
    from simcore.games.tensho.reference import unit_layout

    return 1 if rounds_per_match is None else unit_layout(compiled, rounds_per_match)


GENERAL = GeneralKernel(_general_args, E.N_INT_COLUMNS, E.N_MASK_COLUMNS, _stride,
                        FastKernel(_plays_fast, _fast_kernel_args, _launch))
play_units = GENERAL.play_units  # the fast kernel where it plays the seats, else the general kernel
play_units_general = GENERAL.play_units_general  # every policy, through the general kernel
time_decisions = GENERAL.time_decisions
