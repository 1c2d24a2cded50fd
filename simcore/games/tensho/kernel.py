"""The wrapper around the Tensho kernel: it owns allocation, the kernel owns the loop.

``play_units`` normalises the inputs to the exact dtypes of the kernel's single signature,
allocates the zero-filled output matrices and calls ``tensho_nb.play_units_nb``.
"""

from __future__ import annotations

import numpy as np

from simcore.games.tensho import enums as E
from simcore.games.tensho.kernel_nb import play_units_nb
from simcore.kernels.policy_ids import POLICY_GREEDY, POLICY_RANDOM
from simcore.policies import PolicyError
from simcore.record import output_matrices

__all__ = ["play_units", "policy_arrays"]


N_POLICY_PARAMS = 4  # width of the kernel's policy-parameter rows
GREEDY_PARAM_YAKU_SET = 0  # greedy's row: its preferred yaku set
KERNEL_POLICIES = (POLICY_RANDOM, POLICY_GREEDY)


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

    stride = 1 if rounds_per_match is None else unit_layout(compiled, rounds_per_match)
    out_int, out_mask = output_matrices(n_units * stride, out, E.N_INT_COLUMNS, E.N_MASK_COLUMNS)
    policy_ids, policy_params = policy_arrays(specs)
    (params, rank, rank_mask, deal_order, yaku_mask, yaku_points, yaku_in_set, yaku_instant,
     supersedes, greedy_weight, card_value, chaff_mask) = compiled.kernel_args()
    play_units_nb(
        np.uint64(seed), np.int64(first_unit), np.int64(n_units),
        np.int64(0 if rounds_per_match is None else rounds_per_match), np.int64(stride),
        policy_ids, policy_params,
        np.ascontiguousarray(params, dtype=np.int32), np.ascontiguousarray(rank, dtype=np.int8),
        np.ascontiguousarray(rank_mask, dtype=np.uint64), np.ascontiguousarray(deal_order, dtype=np.int8),
        np.ascontiguousarray(yaku_mask, dtype=np.uint64), np.ascontiguousarray(yaku_points, dtype=np.int32),
        np.ascontiguousarray(yaku_in_set, dtype=np.uint64), np.ascontiguousarray(yaku_instant, dtype=np.uint64),
        np.ascontiguousarray(supersedes, dtype=np.uint64), np.ascontiguousarray(greedy_weight, dtype=np.int32),
        np.ascontiguousarray(card_value, dtype=np.int32), np.uint64(chaff_mask),
        out_int, out_mask,
    )
    return out_int, out_mask
