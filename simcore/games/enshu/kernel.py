"""The wrapper around the Enshu-bana kernel: it owns allocation, the kernel owns the loop.

``play_units`` has the contract of ``simcore.games.enshu.reference.play_units``: it normalises the
inputs to the exact dtypes of the kernel's single signature, takes the output matrices from
``simcore.record.output_matrices`` (fresh, or views of reusable buffers) and calls
``enshu_nb.play_units_nb``, which writes every cell of every row.
"""

from __future__ import annotations

import numpy as np

from simcore.games.enshu import enums as EE
from simcore.games.enshu.kernel_nb import play_units_nb
from simcore.kernels.policy_ids import POLICY_GREEDY, POLICY_RANDOM
from simcore.policies import PolicyError
from simcore.record import output_matrices
from simcore.rng import MASK64

__all__ = ["play_units", "policy_arrays"]


# kernel_args() positions of the uint64 scalars and of the arrays with their kernel dtypes
_ARG_DTYPES = (
    np.int32, np.int8, np.uint64, np.int32,  # params, month, month_mask, card_points
    None, None, None, None, None, None,  # bright, animal, ribbon, willow, junk, icp masks
    np.uint64, np.int32, np.int32, np.int32, np.int32, np.uint64, np.int32,  # yaku tables
    np.int32, np.int32, np.int32, np.int32, np.int32, np.uint64, np.uint64, np.uint64,  # teyaku tables
)


def policy_arrays(specs, players: int) -> np.ndarray:
    """``int32[players]`` policy ids (``EE.POLICY_*``) of the seats' policy specs."""
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
        raise ValueError(f"CompiledEnshu.kernel_args() gives {len(args)} arrays, the kernel takes {len(_ARG_DTYPES)}")
    return tuple(np.uint64(int(a)) if dtype is None else np.ascontiguousarray(a, dtype=dtype)
                 for a, dtype in zip(args, _ARG_DTYPES, strict=True))


def play_units(compiled, specs, seed: int, first_unit: int, n_units: int, rounds_per_match: int | None,
               out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Output matrices (int64[N_INT_COLUMNS, rows], uint64[N_MASK_COLUMNS, rows]) of ``n_units`` units.

    Parameters
    ----------
    compiled : CompiledEnshu
    specs : sequence of PolicySpec, one per seat
    rounds_per_match : None for independent rounds (unit ``u`` is round ``u``), else the match
        length (unit ``u`` is a match of rounds ``u * rounds_per_match ..``)
    out : optional reusable flat buffers from ``simcore.record.output_buffers`` (sized with
        ``EE.N_INT_COLUMNS`` and ``EE.N_MASK_COLUMNS``) with room for ``n_units * stride`` rows;
        they need no initialisation.
    """
    stride = 1 if rounds_per_match is None else int(rounds_per_match)
    if stride < 1:
        raise ValueError(f"rounds_per_match must be at least 1, got {rounds_per_match}")
    out_int, out_mask = output_matrices(n_units * stride, out, EE.N_INT_COLUMNS, EE.N_MASK_COLUMNS)
    policy_ids = policy_arrays(specs, compiled.players)
    play_units_nb(
        np.uint64(int(seed) & MASK64), np.int64(first_unit), np.int64(n_units),
        np.int64(0 if rounds_per_match is None else stride), policy_ids,
        *kernel_rule_args(compiled),
        out_int, out_mask,
    )
    return out_int, out_mask
