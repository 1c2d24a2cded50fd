"""Koi-koi's record layout: the dataset's columns (names, Arrow types, order) from the engines'
output matrices (``enums``' C_* and M_* rows). docs/koikoi.md#dataset-columns documents them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from simcore.games.koikoi import enums as E
from simcore.record import ColumnStore
from simcore.record_layout import RecordLayout

__all__ = ["LAYOUT", "N_SEATS", "columns_from_matrices", "schema", "shard_table"]

N_SEATS = 2

# Column name, matrix row, Arrow type.
LAYOUT = RecordLayout(
    scalar_int=(
        ("round", E.C_ROUND, pa.int64()),
        ("match", E.C_MATCH, pa.int64()),
        ("round_in_match", E.C_ROUND_IN_MATCH, pa.int16()),
        ("dealer", E.C_DEALER, pa.int8()),
        ("first_player", E.C_FIRST_PLAYER, pa.int8()),
        ("winner", E.C_WINNER, pa.int8()),
        ("end_turn", E.C_END_TURN, pa.int8()),
        ("exhausted", E.C_EXHAUSTED, pa.bool_()),
        ("last_koikoi", E.C_LAST_KOIKOI, pa.int8()),
        ("redeals", E.C_REDEALS, pa.int16()),
    ),
    scalar_mask=(("field_dealt", E.M_FIELD_DEALT),),
    seat_int=(
        ("yaku_points", E.C_YAKU_POINTS, pa.int32()),
        ("koikoi", E.C_KOIKOI, pa.int8()),
        ("score", E.C_SCORE, pa.int32()),
        ("payoff", E.C_PAYOFF, pa.int32()),
        ("match_points", E.C_MATCH_POINTS, pa.int32()),
    ),
    seat_mask=(("hand_dealt", E.M_HAND_DEALT), ("captured", E.M_CAPTURED), ("yaku", E.M_YAKU)),
    seat_bool=(),
    end_reason=E.C_END_REASON, end_reason_at=6, end_reasons=E.END_REASONS, match_end=E.C_MATCH_END,
    valid=E.C_VALID, max_seats=N_SEATS,
)


def schema() -> pa.Schema:
    """The Arrow schema of a koi-koi dataset."""
    return LAYOUT.schema(N_SEATS)


def columns_from_matrices(ints: np.ndarray, masks: np.ndarray,
                          store: ColumnStore | None = None) -> dict[str, np.ndarray]:
    """Named per-round columns from the engines' output matrices (valid rows only, copied).

    Parameters
    ----------
    ints : int64[N_INT_COLUMNS, rows]
    masks : uint64[N_MASK_COLUMNS, rows]
    store : optional ``ColumnStore`` whose arrays are reused for the copies
    """
    return LAYOUT.columns(ints, masks, N_SEATS, store)


def shard_table(columns: dict[str, np.ndarray], run_info: dict[str, Any], rules_text: str) -> pa.Table:
    """A koi-koi shard's Arrow table, with the run metadata and rules text attached.

    ``columns`` are those of ``columns_from_matrices``: one array per column, in its schema dtype.
    """
    return LAYOUT.table(columns, run_info, rules_text, N_SEATS)
