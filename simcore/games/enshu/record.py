"""The Enshu-bana per-round record: Parquet schema and columns from the engines' output matrices.

Shards are written with ``simcore.dataset.write_shard`` like Tensho's; this module names the
Enshu-bana columns (layout in ``simcore.games.enshu.enums``, documented in ``docs/enshu.md``).
Per-seat columns carry the seat as a suffix, ``_0`` .. ``_{players-1}`` (at most ``_4``).
"""

from __future__ import annotations

import pyarrow as pa

from simcore.games.enshu import enums as E
from simcore.record import C_END_TURN, C_REDEALS, C_WINNER
from simcore.record_layout import layout_of

__all__ = ["LAYOUT", "bit_tables"]

# Column name, matrix row, Arrow type (docs/enshu.md documents them).
LAYOUT = layout_of(
    E,
    scalar_int=(
        ("players", E.C_PLAYERS, pa.int8()),
        ("winner", C_WINNER, pa.int8()),
        ("end_turn", C_END_TURN, pa.int8()),
        ("redeals", C_REDEALS, pa.int16()),
        ("multiplier", E.C_MULTIPLIER, pa.int32()),
        ("field_brights", E.C_FIELD_BRIGHTS, pa.int8()),
        ("mizu_kotsu_count", E.C_MIZU_KOTSU_COUNT, pa.int8()),
        ("kotsu_count", E.C_KOTSU_COUNT, pa.int8()),
        ("dropout_passes", E.C_DROPOUT_PASSES, pa.int16()),
        ("fuke", E.C_FUKE, pa.int8()),
    ),
    scalar_mask=(
        ("field_dealt", E.M_FIELD_DEALT),
        ("stopping_yaku", E.M_STOPPING_YAKU),
        ("stopping_teyaku", E.M_STOPPING_TEYAKU),
    ),
    seat_int=(
        ("yaku_points", E.C_YAKU_POINTS, pa.int32()),
        ("teyaku_points", E.C_TEYAKU_POINTS, pa.int32()),
        ("card_points", E.C_CARD_POINTS, pa.int32()),
        ("yaku_multiplier", E.C_YAKU_MULTIPLIER, pa.int32()),
        ("score", E.C_SCORE, pa.int64()),
        ("payoff", E.C_PAYOFF, pa.int64()),
        ("match_points", E.C_MATCH_POINTS, pa.int64()),
    ),
    seat_mask=(
        ("hand_dealt", E.M_HAND_DEALT),
        ("captured", E.M_CAPTURED),
        ("yaku", E.M_YAKU),
        ("teyaku_dealt", E.M_TEYAKU_DEALT),
        ("teyaku_declared", E.M_TEYAKU_DECLARED),
        ("exposed", E.M_EXPOSED),
    ),
    seat_bool=(("active", E.C_ACTIVE), ("mizu_kotsu", E.C_MIZU_KOTSU), ("kotsu", E.C_KOTSU)),
    end_reason_at=7, max_seats=E.MAX_SEATS,
)


def bit_tables(rules) -> dict[str, list[str]]:
    """Yaku and teyaku keys in bit order, for the run metadata (reading without the rules file)."""
    return {"yaku": [y.key for y in rules.yaku], "teyaku": [t.key for t in rules.teyaku]}
