"""The engines' output: two column-major matrices per batch of rows, and copying named columns
out of them. numpy only; each game's ``record`` module names its columns.

Both engines of a game write one row per round into ``int64[n_int, rows]`` and
``uint64[n_mask, rows]`` (each column contiguous); the game's layout says which row of the
matrices is which column of the dataset.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ColumnStore", "column_reader", "output_buffers", "output_matrices"]


class ColumnStore:
    """Reusable column arrays, so that a writer copying shard after shard faults in no new memory.

    Columns taken from a store stay valid until the next shard is taken from it: the writer
    takes, writes and summarises one shard at a time.
    """

    def __init__(self) -> None:
        self._arrays: dict[tuple, np.ndarray] = {}

    def take(self, key: tuple, dtype, rows: int) -> np.ndarray:
        """A reused ``dtype`` array of ``rows`` elements for the column ``key`` (contents undefined)."""
        dtype = np.dtype(dtype)
        array = self._arrays.get((key, dtype))
        if array is None or array.size < rows:
            array = np.empty(rows, dtype=dtype)
            self._arrays[(key, dtype)] = array
        return array[:rows]


def column_reader(ints: np.ndarray, masks: np.ndarray, valid_column: int, store: ColumnStore | None = None):
    """``column(matrix, index, dtype)``: a copied column of the valid rows of ``ints``/``masks``.

    Without ``store`` every column is a fresh array; with it, a reused one (see ``ColumnStore``).
    The copy is needed either way: the engines reuse their output buffers.
    """
    keep = ints[valid_column] == 1
    rows = None if keep.all() else np.flatnonzero(keep)  # matches may leave extra-round room unused
    n = ints.shape[1] if rows is None else len(rows)

    def column(matrix: np.ndarray, index: int, dtype) -> np.ndarray:
        values = matrix[index] if rows is None else matrix[index, rows]
        if store is None:
            return np.array(values, dtype=dtype, copy=True)
        out = store.take(("mask" if matrix is masks else "int", index), dtype, n)
        np.copyto(out, values, casting="unsafe")
        return out

    return column


def output_buffers(rows: int, n_int: int, n_mask: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat, reusable storage for the engines' output matrices of up to ``rows`` rows.

    Returns int64[n_int * rows] and uint64[n_mask * rows], uninitialised.
    """
    return np.empty(n_int * rows, dtype=np.int64), np.empty(n_mask * rows, dtype=np.uint64)


def output_matrices(rows: int, out: tuple[np.ndarray, np.ndarray] | None, n_int: int, n_mask: int):
    """C-contiguous ``int64[n_int, rows]`` and ``uint64[n_mask, rows]`` matrices (column-major rows).

    With ``out`` (from ``output_buffers``) they are views of its first cells, uninitialised;
    without, fresh zero-filled arrays.  ``n_int`` and ``n_mask`` are the game's row counts.
    """
    if out is None:
        return np.zeros((n_int, rows), dtype=np.int64), np.zeros((n_mask, rows), dtype=np.uint64)
    if out[0].size < n_int * rows or out[1].size < n_mask * rows:
        raise ValueError(f"output buffers hold fewer than {rows} rows")
    return out[0][: n_int * rows].reshape(n_int, rows), out[1][: n_mask * rows].reshape(n_mask, rows)
