"""The wrapper around the Enshu-bana kernel: it owns allocation, the kernel owns the loop.

``play_units`` has the contract of ``simcore.games.enshu.reference.play_units``: it normalises the
inputs to the exact dtypes of the kernel's single signature, takes the output matrices from
``simcore.record.output_matrices`` (fresh, or views of reusable buffers) and calls
``enshu_nb.play_units_nb``, which writes every cell of every row.  A run with any seat playing
``heuristic``, ``pimc`` or ``ismcts`` goes to the general kernel
(``simcore.kernels.units_nb.play_units_nb`` over the state machine of ``state_nb``), which writes
the same rows as the fast kernel for random and greedy seats; the seats' policies cross as
``simcore.kernels.policy_rows`` packs them.
"""

from __future__ import annotations

import numpy as np

from simcore.games.enshu import enums as E
from simcore.games.enshu.kernel_nb import pack_rules_nb, play_units_nb
from simcore.games.enshu.state_nb import MAX_ACTIONS, EnshuRules
from simcore.kernels.general import FastKernel, GeneralKernel
from simcore.kernels.policy_ids import (
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_ISMCTS,
    POLICY_LEARNED,
    POLICY_OMNISCIENT,
    POLICY_PIMC,
    POLICY_RANDOM,
)
from simcore.policies import PolicyError

__all__ = ["play_units", "play_units_general", "policy_arrays", "time_decisions"]


# kernel_args() positions of the uint64 scalars and of the arrays with their kernel dtypes
_ARG_DTYPES = (
    np.int32, np.int8, np.uint64, np.int32,  # params, month, month_mask, card_points
    None, None, None, None, None, None,  # bright, animal, ribbon, willow, junk, icp masks
    np.uint64, np.int32, np.int32, np.int32, np.int32, np.uint64, np.int32,  # yaku tables
    np.int32, np.int32, np.int32, np.int32, np.int32, np.uint64, np.uint64, np.uint64,  # teyaku tables
)


def policy_arrays(specs, players: int) -> np.ndarray:
    """``int32[players]`` policy ids (``E.POLICY_*``) of the seats' policy specs."""
    if len(specs) != players:
        raise ValueError(f"{players} players need {players} policies, got {len(specs)}")
    for spec in specs:
        if spec.policy_id not in (POLICY_RANDOM, POLICY_GREEDY):
            raise PolicyError(f"policy {spec.name}: the Enshu-bana kernel does not implement it")
    return np.ascontiguousarray([spec.policy_id for spec in specs], dtype=np.int32)


def kernel_rule_args(compiled) -> tuple:
    """``compiled.kernel_args()`` in the kernel's exact dtypes."""
    args = compiled.kernel_args()
    if len(args) != len(_ARG_DTYPES):
        raise ValueError(f"CompiledRules.kernel_args() gives {len(args)} arrays, the kernel takes {len(_ARG_DTYPES)}")
    return tuple(np.uint64(int(a)) if dtype is None else np.ascontiguousarray(a, dtype=dtype)
                 for a, dtype in zip(args, _ARG_DTYPES, strict=True))


SEARCH_POLICIES = (POLICY_HEURISTIC, POLICY_PIMC, POLICY_ISMCTS, POLICY_OMNISCIENT,
                   POLICY_LEARNED)  # the general kernel's


def rule_tables(compiled) -> tuple:
    """The packed rule tables ``rt`` of the state machine (``state_nb``): ``(params, month,
    month_mask, card_points, class_masks, yaku_masks, yaku_ints, teyaku_masks, teyaku_ints)``."""
    args = kernel_rule_args(compiled)
    # kernel_rule_args order: params, month, month_mask, card_points, six class masks, yaku, teyaku tables
    return (args[0], args[1], args[2], args[3], *pack_rules_nb(*args[4:]))


def _general_args(compiled, specs) -> tuple:
    """The general kernel's rules and policy arrays (``simcore.kernels.policy_rows``)."""
    from simcore.games.enshu.heuristic_nb import heuristic_tables
    from simcore.learned import game_policy_rows

    if len(specs) != compiled.players:
        raise ValueError(f"{compiled.players} players need {compiled.players} policies, got {len(specs)}")
    # a pending decision keeps its actions in the state: a hand, or one group's options and "none"
    groups = np.asarray(compiled.teyaku_group)
    most_options = 2 * max([int((groups == g).sum()) for g in (0, 1)] + [0]) + 1
    if int(compiled.params[E.P_HAND]) > MAX_ACTIONS or most_options > MAX_ACTIONS:
        raise ValueError(f"the Enshu-bana general kernel holds at most {MAX_ACTIONS} actions per decision; these "
                         f"rules may ask {max(int(compiled.params[E.P_HAND]), most_options)}")
    arrays = game_policy_rows("enshu", "Enshu-bana", compiled, specs, E.MAX_SEATS, {}, heuristic_tables)
    return EnshuRules(*rule_tables(compiled)), arrays


def _stride(rounds_per_match: int | None) -> int:
    stride = 1 if rounds_per_match is None else int(rounds_per_match)
    if stride < 1:
        raise ValueError(f"rounds_per_match must be at least 1, got {rounds_per_match}")
    return stride


def _fast_kernel_args(compiled, specs) -> tuple:
    """The fast kernel's seat policies and rule arrays."""
    return policy_arrays(specs, compiled.players), kernel_rule_args(compiled)


def _plays_fast(compiled, specs) -> bool:
    """Whether the fast kernel plays these seats: none searches (``policy_arrays`` refuses a
    count of seats other than the players')."""
    return not (len(specs) == compiled.players and any(spec.policy_id in SEARCH_POLICIES for spec in specs))


def _launch(args, seed, first_unit, lo, hi, matches, stride, out_int, out_mask) -> None:
    policy_ids, rules = args
    play_units_nb(seed, first_unit, lo, hi, matches, policy_ids, *rules, out_int, out_mask)


GENERAL = GeneralKernel(_general_args, E.N_INT_COLUMNS, E.N_MASK_COLUMNS, lambda compiled, rounds: _stride(rounds),
                        FastKernel(_plays_fast, _fast_kernel_args, _launch))
play_units = GENERAL.play_units  # the fast kernel where it plays the seats, else the general kernel
play_units_general = GENERAL.play_units_general  # every policy, through the general kernel
time_decisions = GENERAL.time_decisions
