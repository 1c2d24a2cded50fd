"""The Enshu-bana per-round record: Parquet schema and columns from the engines' output matrices.

Shards are written with ``simcore.dataset.write_shard`` like Tensho's; this module names the
Enshu-bana columns (layout in ``simcore.games.enshu.enums``, documented in ``docs/enshu.md``).
Per-seat columns carry the seat as a suffix, ``_0`` .. ``_{players-1}`` (at most ``_4``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from simcore.dataset import shard_table as generic_shard_table
from simcore.games.enshu import enums as EE
from simcore.record import ColumnStore, column_reader

__all__ = ["schema", "columns_from_matrices", "shard_table", "bit_tables"]

# Column name, int64 matrix index, Arrow type.
_SCALAR_INT = [
    ("round", EE.C_ROUND, pa.int64()),
    ("match", EE.C_MATCH, pa.int64()),
    ("round_in_match", EE.C_ROUND_IN_MATCH, pa.int16()),
    ("dealer", EE.C_DEALER, pa.int8()),
    ("first_player", EE.C_FIRST_PLAYER, pa.int8()),
    ("players", EE.C_PLAYERS, pa.int8()),
    ("winner", EE.C_WINNER, pa.int8()),
    ("end_turn", EE.C_END_TURN, pa.int8()),
    ("redeals", EE.C_REDEALS, pa.int16()),
    ("multiplier", EE.C_MULTIPLIER, pa.int32()),
    ("field_brights", EE.C_FIELD_BRIGHTS, pa.int8()),
    ("mizu_kotsu_count", EE.C_MIZU_KOTSU_COUNT, pa.int8()),
    ("kotsu_count", EE.C_KOTSU_COUNT, pa.int8()),
    ("dropout_passes", EE.C_DROPOUT_PASSES, pa.int16()),
    ("fuke", EE.C_FUKE, pa.int8()),
]
_SEAT_BOOL = [("active", EE.C_ACTIVE), ("mizu_kotsu", EE.C_MIZU_KOTSU), ("kotsu", EE.C_KOTSU)]
_SEAT_INT = [
    ("yaku_points", EE.C_YAKU_POINTS, pa.int32()),
    ("teyaku_points", EE.C_TEYAKU_POINTS, pa.int32()),
    ("card_points", EE.C_CARD_POINTS, pa.int32()),
    ("yaku_multiplier", EE.C_YAKU_MULTIPLIER, pa.int32()),
    ("score", EE.C_SCORE, pa.int64()),
    ("payoff", EE.C_PAYOFF, pa.int64()),
    ("match_points", EE.C_MATCH_POINTS, pa.int64()),
]
_SCALAR_MASK = [
    ("field_dealt", EE.M_FIELD_DEALT),
    ("stopping_yaku", EE.M_STOPPING_YAKU),
    ("stopping_teyaku", EE.M_STOPPING_TEYAKU),
]
_SEAT_MASK = [
    ("hand_dealt", EE.M_HAND_DEALT),
    ("captured", EE.M_CAPTURED),
    ("yaku", EE.M_YAKU),
    ("teyaku_dealt", EE.M_TEYAKU_DEALT),
    ("teyaku_declared", EE.M_TEYAKU_DECLARED),
    ("exposed", EE.M_EXPOSED),
]

END_REASON_TYPE = pa.dictionary(pa.int8(), pa.string())


def _check_players(players: int) -> None:
    if not 1 <= players <= EE.MAX_SEATS:
        raise ValueError(f"players must be 1..{EE.MAX_SEATS}, got {players}")


def schema(players: int = EE.MAX_SEATS) -> pa.Schema:
    """The Arrow schema of an Enshu-bana dataset with ``players`` seats."""
    _check_players(players)
    fields = [pa.field(name, typ) for name, _, typ in _SCALAR_INT]
    fields.insert(7, pa.field("end_reason", END_REASON_TYPE))
    fields.append(pa.field("match_end", pa.bool_()))
    fields += [pa.field(name, pa.uint64()) for name, _ in _SCALAR_MASK]
    for name, _ in _SEAT_BOOL:
        fields += [pa.field(f"{name}_{s}", pa.bool_()) for s in range(players)]
    for name, _ in _SEAT_MASK:
        fields += [pa.field(f"{name}_{s}", pa.uint64()) for s in range(players)]
    for name, _, typ in _SEAT_INT:
        fields += [pa.field(f"{name}_{s}", typ) for s in range(players)]
    # No nulls ever: required columns spare Parquet its definition levels.
    return pa.schema([f.with_nullable(False) for f in fields])


def columns_from_matrices(ints: np.ndarray, masks: np.ndarray, players: int = EE.MAX_SEATS,
                          store: ColumnStore | None = None) -> dict[str, np.ndarray]:
    """Named per-round columns from the engines' output matrices (valid rows only, copied).

    Parameters
    ----------
    ints : int64[N_INT_COLUMNS, rows]
    masks : uint64[N_MASK_COLUMNS, rows]
        Column-major, as the engines fill them (``simcore.record.output_matrices``).
    players : int
        Seats to name (the rule set's player count).
    store : ColumnStore, optional
        Reused arrays for the copies (the runner's writer passes one).
    """
    _check_players(players)
    column = column_reader(ints, masks, EE.C_VALID, store)
    out: dict[str, np.ndarray] = {}
    for name, index, typ in _SCALAR_INT:
        out[name] = column(ints, index, typ.to_pandas_dtype())
    out["end_reason"] = column(ints, EE.C_END_REASON, np.int8)
    out["match_end"] = column(ints, EE.C_MATCH_END, np.bool_)
    for name, index in _SCALAR_MASK:
        out[name] = column(masks, index, np.uint64)
    for name, index in _SEAT_BOOL:
        for s in range(players):
            out[f"{name}_{s}"] = column(ints, index + s, np.bool_)
    for name, index in _SEAT_MASK:
        for s in range(players):
            out[f"{name}_{s}"] = column(masks, index + s, np.uint64)
    for name, index, typ in _SEAT_INT:
        for s in range(players):
            out[f"{name}_{s}"] = column(ints, index + s, typ.to_pandas_dtype())
    return out


def bit_tables(rules) -> dict[str, list[str]]:
    """Yaku and teyaku keys in bit order, for the run metadata (reading without the rules file)."""
    return {"yaku": [y.key for y in rules.yaku], "teyaku": [t.key for t in rules.teyaku]}


def shard_table(columns: dict[str, np.ndarray], run_info: dict[str, Any], rules_text: str,
                players: int = EE.MAX_SEATS) -> pa.Table:
    """An Arrow table with the run metadata and rules text in its key-value metadata.

    ``columns`` are those of ``columns_from_matrices``: one array per column, in its schema dtype.
    """
    return generic_shard_table(columns, run_info, rules_text, schema(players), EE.END_REASONS)
