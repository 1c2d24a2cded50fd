"""Tensho's record layout: the dataset's columns (names, Arrow types, order) from the engines'
output matrices (``enums``' C_* and M_* rows). docs/dataset.md documents them; a test pins
the two against each other.
"""

from __future__ import annotations

import pyarrow as pa

from simcore.games.tensho import enums as E
from simcore.record import C_END_TURN, C_REDEALS, C_WINNER
from simcore.record_layout import layout_of

__all__ = ["LAYOUT", "N_SEATS"]

N_SEATS = 2

# Column name, matrix row, Arrow type (docs/dataset.md documents them).
LAYOUT = layout_of(
    E,
    scalar_int=(
        ("yaku_set", E.C_YAKU_SET, pa.int8()),
        ("winner", C_WINNER, pa.int8()),
        ("end_turn", C_END_TURN, pa.int8()),
        ("redeals", C_REDEALS, pa.int16()),
    ),
    scalar_mask=(("field_dealt", E.M_FIELD_DEALT), ("opening_claim", E.M_OPENING_CLAIM)),
    seat_int=(
        ("yaku_points", E.C_YAKU_POINTS, pa.int32()),
        ("card_points", E.C_CARD_POINTS, pa.int32()),
        ("chaff", E.C_CHAFF, pa.int16()),
        ("score", E.C_SCORE, pa.int32()),
        ("payoff", E.C_PAYOFF, pa.int32()),
        ("match_points", E.C_MATCH_POINTS, pa.int32()),
    ),
    seat_mask=(("hand_dealt", E.M_HAND_DEALT), ("captured", E.M_CAPTURED), ("yaku", E.M_YAKU)),
    seat_bool=(),
    end_reason_at=7, max_seats=N_SEATS,
)
