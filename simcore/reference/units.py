"""The reference engine's unit loop, the same for every game: units played one by one by the
game's ``play_unit`` and written row by row into the output matrices its record layout names."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from simcore.record import output_matrices, played
from simcore.record_layout import RecordLayout

__all__ = ["play_units"]


def play_units(layout: RecordLayout, play_unit: Callable[..., list[Any]], stride: int, compiled: Any,
               specs: Sequence[Any], seed: int, first_unit: int, n_units: int, rounds_per_match: int | None,
               out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Play units ``first_unit .. first_unit + n_units - 1`` with ``play_unit(compiled, specs,
    seed, unit, rounds_per_match)`` (a list of round results) into output matrices.

    Returns ``(ints, masks)``: column-major int64[n_int, n_units * stride] and
    uint64[n_mask, n_units * stride]; unit ``i``'s rounds fill rows ``i * stride`` on, and
    ``valid`` marks the rows played (a match that ends early leaves its last rows zero).
    ``out``: optional reusable flat buffers (``simcore.record.output_buffers``).
    """
    ints, masks = output_matrices(n_units * stride, out, layout.n_int, layout.n_mask)
    ints.fill(0)
    masks.fill(0)
    for i in range(n_units):
        for k, result in enumerate(play_unit(compiled, specs, seed, first_unit + i, rounds_per_match)):
            layout.fill_row(ints, masks, i * stride + k, result)
    return played(ints, masks, n_units * stride)
