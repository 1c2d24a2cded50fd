"""The wrapper around the Tensho kernels: it owns allocation, the kernels own the loop.

``play_units`` normalises the inputs to the exact dtypes of a kernel's single signature,
allocates the output matrices and calls ``kernel_nb.play_units_nb`` (the fast kernel) when every
seat plays random or greedy, else ``search_nb.play_units_general_nb`` (the general kernel, which
plays every policy through the state machine of ``state_nb``).
"""

from __future__ import annotations

import numpy as np

from simcore.games.tensho import enums as E
from simcore.games.tensho.kernel_nb import play_units_nb
from simcore.kernels.policy_ids import (
    OBJECTIVE_IDS,
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_ISMCTS,
    POLICY_OMNISCIENT,
    POLICY_PIMC,
    POLICY_RANDOM,
    ROLLOUT_IDS,
)
from simcore.kernels.prepared import prepared
from simcore.kernels.threads import in_threads
from simcore.policies import PolicyError
from simcore.record import output_matrices, played

__all__ = ["general_policy_arrays", "heuristic_table_rows", "log_tables", "play_units", "play_units_general",
           "policy_arrays"]


N_POLICY_PARAMS = 4  # width of the kernel's policy-parameter rows
GREEDY_PARAM_YAKU_SET = 0  # greedy's row: its preferred yaku set
KERNEL_POLICIES = (POLICY_RANDOM, POLICY_GREEDY)
GENERAL_POLICIES = (POLICY_RANDOM, POLICY_GREEDY, POLICY_HEURISTIC, POLICY_PIMC, POLICY_ISMCTS, POLICY_OMNISCIENT)
SEARCHING = (POLICY_PIMC, POLICY_ISMCTS, POLICY_OMNISCIENT)


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


def play_units(compiled, specs, seed: int, first_unit: int, n_units: int, rounds_per_match: int | None,
               out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Output matrices (int64[N_INT_COLUMNS, rows], uint64[N_MASK_COLUMNS, rows]) of ``n_units`` units.

    Parameters
    ----------
    compiled : CompiledTensho
    specs : sequence of PolicySpec, one per seat
    rounds_per_match : None for independent rounds, else the match length
    out : optional reusable flat buffers from ``simcore.record.output_buffers`` with room for
        ``n_units * stride`` rows; reusing them spares the page faults of fresh memory per chunk.
    """
    from simcore.games.tensho.reference import unit_layout

    if any(spec.policy_id not in KERNEL_POLICIES for spec in specs):
        return play_units_general(compiled, specs, seed, first_unit, n_units, rounds_per_match, out)
    stride = 1 if rounds_per_match is None else unit_layout(compiled, rounds_per_match)
    out_int, out_mask = output_matrices(n_units * stride, out, E.N_INT_COLUMNS, E.N_MASK_COLUMNS)
    arrays = (*prepared(_fast_kernel_args, compiled, specs), out_int, out_mask)
    matches = np.int64(0 if rounds_per_match is None else rounds_per_match)
    in_threads(lambda lo, hi: play_units_nb(np.uint64(seed), np.int64(first_unit), np.int64(lo), np.int64(hi),
                                            matches, np.int64(stride), *arrays), n_units)
    return played(out_int, out_mask, n_units * stride)


def log_tables(ids: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``float64[2, L]``: row ``seat`` is ``simcore.search.log_table(iterations)`` of an ISMCTS
    seat (the reference's own numbers), zero-padded; zeros for any other seat."""
    from simcore.games.tensho.search_nb import PARAM_BUDGET
    from simcore.search import log_table

    tables = [log_table(int(rows[s, PARAM_BUDGET])) if ids[s] == POLICY_ISMCTS else np.zeros(1)
              for s in range(len(ids))]
    out = np.zeros((len(ids), max(t.size for t in tables)), dtype=np.float64)
    for seat, table in enumerate(tables):
        out[seat, :table.size] = table
    return out


def heuristic_table_rows(compiled, specs) -> np.ndarray:
    """``int64[3, heuristic_nb.T_SIZE]``: the heuristic tables of seat 0 and seat 1 (zeros for a
    seat that plays no heuristic) and of a search seat's heuristic rollouts (the defaults, as
    ``simcore.search`` builds its rollout policy)."""
    from simcore.games.tensho.heuristic_nb import T_SIZE, heuristic_tables
    from simcore.policies import parse_policy

    out = np.zeros((3, T_SIZE), dtype=np.int64)
    for seat, spec in enumerate(specs):
        if spec.policy_id == POLICY_HEURISTIC:
            out[seat] = heuristic_tables(compiled, spec)
    if any(spec.policy_id in SEARCHING and spec.params["rollout"] == "heuristic"
           for spec in specs):
        out[2] = heuristic_tables(compiled, parse_policy("heuristic", "tensho"))
    return out


def general_policy_arrays(specs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The general kernel's policy arrays of the seats' specs: ``int32[2]`` ids, ``int64[2,
    search_nb.N_PARAMS]`` parameter rows and ``float64[2]`` ISMCTS constants.

    Raises ``PolicyError`` for a policy (or rollout policy) the kernel does not implement.
    """
    from simcore.games.tensho import search_nb

    rows = np.zeros((len(specs), search_nb.N_PARAMS), dtype=np.int64)
    c = np.zeros(len(specs), dtype=np.float64)
    for seat, spec in enumerate(specs):
        if spec.policy_id not in GENERAL_POLICIES:
            raise PolicyError(f"policy {spec.name}: the Tensho kernel does not implement it")
        if spec.policy_id == POLICY_GREEDY:
            rows[seat, search_nb.PARAM_YAKU_SET] = int(spec.params["yaku_set"])
        if spec.policy_id in SEARCHING:
            rollout = ROLLOUT_IDS[spec.params["rollout"]]
            if rollout not in GENERAL_POLICIES:
                raise PolicyError(f"policy {spec.name}: the Tensho kernel does not implement rollout="
                                  f"{spec.params['rollout']}")
            rows[seat, search_nb.PARAM_ROLLOUT] = rollout
            rows[seat, search_nb.PARAM_OBJECTIVE] = OBJECTIVE_IDS[spec.params.get("objective", "win")]
            budget = "iterations" if spec.policy_id == POLICY_ISMCTS else "worlds"
            rows[seat, search_nb.PARAM_BUDGET] = int(spec.params[budget])
            if spec.policy_id == POLICY_ISMCTS:
                c[seat] = float(spec.params["c"])
    ids = np.ascontiguousarray([spec.policy_id for spec in specs], dtype=np.int32)
    return ids, rows, c


def play_units_general(compiled, specs, seed: int, first_unit: int, n_units: int, rounds_per_match: int | None,
                       out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``play_units`` through the general kernel, whatever the seats' policies (same rows as
    the fast kernel for random and greedy seats): output matrices int64[N_INT_COLUMNS, rows] and
    uint64[N_MASK_COLUMNS, rows], as ``play_units`` returns them."""
    from simcore.games.tensho.reference import unit_layout
    from simcore.games.tensho.search_nb import play_units_general_nb
    from simcore.games.tensho.state_nb import rule_table

    stride = 1 if rounds_per_match is None else unit_layout(compiled, rounds_per_match)
    out_int, out_mask = output_matrices(n_units * stride, out, E.N_INT_COLUMNS, E.N_MASK_COLUMNS)
    ids, rows, c = general_policy_arrays(specs)
    tables = heuristic_table_rows(compiled, specs)
    (params, rank, rank_mask, deal_order, yaku_mask, yaku_points, yaku_in_set, yaku_instant,
     supersedes, greedy_weight, card_value, chaff_mask) = compiled.kernel_args()
    rules = (np.ascontiguousarray(params, dtype=np.int32), np.ascontiguousarray(rank, dtype=np.int8),
             np.ascontiguousarray(rank_mask, dtype=np.uint64), np.ascontiguousarray(deal_order, dtype=np.int8),
             np.ascontiguousarray(yaku_mask, dtype=np.uint64), np.ascontiguousarray(yaku_points, dtype=np.int32),
             np.ascontiguousarray(yaku_in_set, dtype=np.uint64), np.ascontiguousarray(yaku_instant, dtype=np.uint64),
             np.ascontiguousarray(supersedes, dtype=np.uint64), np.ascontiguousarray(greedy_weight, dtype=np.int32),
             np.ascontiguousarray(card_value, dtype=np.int32), np.uint64(chaff_mask))
    policy_tables = (ids, rows, c, tables, log_tables(ids, rows), rule_table(compiled))
    in_threads(lambda lo, hi: play_units_general_nb(
        np.uint64(seed), np.int64(first_unit), np.int64(lo), np.int64(hi),
        np.int64(0 if rounds_per_match is None else rounds_per_match), np.int64(stride),
        *policy_tables, *rules, out_int, out_mask), n_units, min_span=1)
    return played(out_int, out_mask, n_units * stride)
