"""Koi-koi's record layout: the dataset's columns (names, Arrow types, order) from the engines'
output matrices (``enums``' C_* and M_* rows). docs/koikoi.md#dataset-columns documents them.
"""

from __future__ import annotations

import pyarrow as pa

from simcore.games.koikoi import enums as E
from simcore.record import C_END_TURN, C_REDEALS, C_WINNER
from simcore.record_layout import layout_of

__all__ = ["LAYOUT", "N_SEATS"]

N_SEATS = 2

# Column name, matrix row, Arrow type.
LAYOUT = layout_of(
    E,
    scalar_int=(
        ("winner", C_WINNER, pa.int8()),
        ("end_turn", C_END_TURN, pa.int8()),
        ("exhausted", E.C_EXHAUSTED, pa.bool_()),
        ("last_koikoi", E.C_LAST_KOIKOI, pa.int8()),
        ("redeals", C_REDEALS, pa.int16()),
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
    end_reason_at=6, max_seats=N_SEATS,
)

