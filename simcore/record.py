"""The engines' output: two column-major matrices per batch of rows, and copying named columns
out of them. numpy only; each game's ``record`` module names its columns.

Both engines of a game write one row per round into ``int64[n_int, rows]`` and
``uint64[n_mask, rows]`` (each column contiguous); the game's layout says which row of the
matrices is which column of the dataset.

The first ``CORE_INT_COLUMNS`` rows of the int64 matrix are the same in every game (``C_*``
below): where the round sits in its run, who dealt and led it, who won and how it ended, and
whether the row holds a round. A game numbers its own rows from ``CORE_INT_COLUMNS``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CORE_INT_COLUMNS", "C_DEALER", "C_END_REASON", "C_END_TURN", "C_FIRST_PLAYER", "C_MATCH", "C_MATCH_END",
           "C_REDEALS", "C_ROUND", "C_ROUND_IN_MATCH", "C_VALID", "C_WINNER", "ColumnStore", "column_reader", "output_buffers", "output_matrices", "padded_rows", "played", "whole",
           "PADDING_ROWS"]


# The int64 matrix's rows every game has.
C_ROUND = 0  # the round's index in the run
C_MATCH = 1  # its match (its round index when rounds are independent)
C_ROUND_IN_MATCH = 2
C_DEALER = 3
C_FIRST_PLAYER = 4  # the seat that plays first
C_WINNER = 5  # the game says what a winner is, and its codes for none
C_END_REASON = 6  # an index into the game's ``END_REASONS``
C_END_TURN = 7
C_REDEALS = 8
C_MATCH_END = 9  # 1 on a match's last round (every round when rounds are independent)
C_VALID = 10  # 1 on a row that holds a round
CORE_INT_COLUMNS = 11


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


def padded_rows(rows: int) -> int:
    """The row stride of the engines' matrices for ``rows`` rows: more than ``rows``, and an odd
    multiple of 8 rows (64 bytes, a cache line).

    With a stride that is a multiple of 4 KiB (any power-of-two row count from 512 up), every
    column of a row falls in the same set of the processor's caches, and an engine writing (or a
    summary reading) a row of tens of columns evicts its own lines before it has used them; an
    odd number of cache lines puts the columns of a row in different sets.  More than ``rows``,
    so that the matrices the engines return are never contiguous views and numba sees one array
    layout whatever the row count.
    """
    stride = -(-rows // 8) * 8
    if (stride // 8) % 2 == 0:
        stride += 8
    if stride == rows:
        stride += 16
    return stride


PADDING_ROWS = 16  # padded_rows(rows) - rows is at most this


def output_buffers(rows: int, n_int: int, n_mask: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat, reusable storage for the engines' output matrices of up to ``rows`` rows.

    Returns int64[n_int * (rows + PADDING_ROWS)] and uint64[n_mask * (rows + PADDING_ROWS)],
    uninitialised.
    """
    size = rows + PADDING_ROWS
    return np.empty(n_int * size, dtype=np.int64), np.empty(n_mask * size, dtype=np.uint64)


def output_matrices(rows: int, out: tuple[np.ndarray, np.ndarray] | None, n_int: int, n_mask: int):
    """The matrices an engine writes ``rows`` rows into: C-contiguous ``int64[n_int, padded_rows(rows)]``
    and ``uint64[n_mask, padded_rows(rows)]`` (column-major rows; the columns past ``rows`` are
    padding, see ``padded_rows``).  Engines return ``played(ints, masks, rows)``.

    With ``out`` (from ``output_buffers``) they are views of its first cells, uninitialised;
    without, fresh zero-filled arrays.  ``n_int`` and ``n_mask`` are the game's row counts.
    """
    stride = padded_rows(rows)
    if out is None:
        return np.zeros((n_int, stride), dtype=np.int64), np.zeros((n_mask, stride), dtype=np.uint64)
    if out[0].size < n_int * stride or out[1].size < n_mask * stride:
        raise ValueError(f"output buffers hold fewer than {rows} rows")
    return out[0][: n_int * stride].reshape(n_int, stride), out[1][: n_mask * stride].reshape(n_mask, stride)


def played(ints: np.ndarray, masks: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``rows`` rows of matrices from ``output_matrices``: ``int64[n_int, rows]`` and
    ``uint64[n_mask, rows]`` views (each column contiguous; the matrices are not)."""
    return ints[:, :rows], masks[:, :rows]


def whole(matrix: np.ndarray) -> np.ndarray:
    """The C-contiguous padded matrix behind a ``played`` view (int64 or uint64[columns, rows]),
    or ``matrix`` itself if it is C-contiguous: numba indexes a C-contiguous array faster than a strided view (a third
    faster for the summary's count), and compiles one layout.  Rows past the view's are padding
    or stale: read only the view's."""
    if matrix.ndim != 2 or matrix.strides[1] != matrix.itemsize or matrix.strides[0] % matrix.itemsize:
        raise ValueError("not a view of an engine's output matrix")
    if matrix.flags.c_contiguous:
        return matrix
    columns = matrix.strides[0] // matrix.itemsize
    return np.lib.stride_tricks.as_strided(matrix, shape=(matrix.shape[0], columns), strides=matrix.strides)
