"""Tensho's record layout: the dataset's columns (names, Arrow types, order) from the engines'
output matrices (``enums``' C_* and M_* rows). docs/dataset.md documents them; a test pins
the two against each other.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from simcore.dataset import END_REASON_TYPE
from simcore.dataset import shard_table as generic_shard_table
from simcore.games.tensho import enums as E
from simcore.record import ColumnStore, column_reader

__all__ = ["N_SEATS", "columns_from_matrices", "schema", "shard_table"]

N_SEATS = 2

# Column name, source matrix ("int" or "mask"), index, Arrow type.
_SCALAR_INT = [
    ("round", E.C_ROUND, pa.int64()),
    ("match", E.C_MATCH, pa.int64()),
    ("round_in_match", E.C_ROUND_IN_MATCH, pa.int16()),
    ("dealer", E.C_DEALER, pa.int8()),
    ("first_player", E.C_FIRST_PLAYER, pa.int8()),
    ("yaku_set", E.C_YAKU_SET, pa.int8()),
    ("winner", E.C_WINNER, pa.int8()),
    ("end_turn", E.C_END_TURN, pa.int8()),
    ("redeals", E.C_REDEALS, pa.int16()),
]
_SEAT_INT = [
    ("yaku_points", E.C_YAKU_POINTS, pa.int32()),
    ("card_points", E.C_CARD_POINTS, pa.int32()),
    ("chaff", E.C_CHAFF, pa.int16()),
    ("score", E.C_SCORE, pa.int32()),
    ("payoff", E.C_PAYOFF, pa.int32()),
    ("match_points", E.C_MATCH_POINTS, pa.int32()),
]
_SCALAR_MASK = [("field_dealt", E.M_FIELD_DEALT), ("opening_claim", E.M_OPENING_CLAIM)]
_SEAT_MASK = [("hand_dealt", E.M_HAND_DEALT), ("captured", E.M_CAPTURED), ("yaku", E.M_YAKU)]


def schema() -> pa.Schema:
    """The Arrow schema of a Tensho dataset."""
    fields = [pa.field(name, typ) for name, _, typ in _SCALAR_INT]
    fields.insert(7, pa.field("end_reason", END_REASON_TYPE))
    fields.append(pa.field("match_end", pa.bool_()))
    fields += [pa.field(name, pa.uint64()) for name, _ in _SCALAR_MASK]
    for name, _ in _SEAT_MASK:
        fields += [pa.field(f"{name}_{s}", pa.uint64()) for s in range(N_SEATS)]
    for name, _, typ in _SEAT_INT:
        fields += [pa.field(f"{name}_{s}", typ) for s in range(N_SEATS)]
    # No nulls ever: required columns spare Parquet its definition levels.
    return pa.schema([f.with_nullable(False) for f in fields])


def columns_from_matrices(ints: np.ndarray, masks: np.ndarray,
                          store: ColumnStore | None = None) -> dict[str, np.ndarray]:
    """Named per-round columns from the engines' output matrices (valid rows only, copied).

    Parameters
    ----------
    ints : int64[N_INT_COLUMNS, rows]
    masks : uint64[N_MASK_COLUMNS, rows]
    store : optional ``ColumnStore`` whose arrays are reused for the copies
    """
    column = column_reader(ints, masks, E.C_VALID, store)

    out: dict[str, np.ndarray] = {}
    for name, index, typ in _SCALAR_INT:
        out[name] = column(ints, index, typ.to_pandas_dtype())
    out["end_reason"] = column(ints, E.C_END_REASON, np.int8)
    out["match_end"] = column(ints, E.C_MATCH_END, np.bool_)
    for name, index in _SCALAR_MASK:
        out[name] = column(masks, index, np.uint64)
    for name, index in _SEAT_MASK:
        for s in range(N_SEATS):
            out[f"{name}_{s}"] = column(masks, index + s, np.uint64)
    for name, index, typ in _SEAT_INT:
        for s in range(N_SEATS):
            out[f"{name}_{s}"] = column(ints, index + s, typ.to_pandas_dtype())
    return out


def shard_table(columns: dict[str, np.ndarray], run_info: dict[str, Any], rules_text: str) -> pa.Table:
    """A Tensho shard's Arrow table, with the run metadata and rules text attached.

    ``columns`` are those of ``columns_from_matrices``: one array per column, in its schema dtype.
    """
    return generic_shard_table(columns, run_info, rules_text, schema(), E.END_REASONS)
