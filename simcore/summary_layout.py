"""What a summary shard counts, by name: the slots the counting pass reads, its output cells,
its histogram window and the report's convergence checkpoints. numpy only, so that reading a
summary run (``analysis``) needs no numba.
"""

from __future__ import annotations

import numpy as np

__all__ = ["COLUMN_SLOTS", "SEAT_SLOTS", "HISTOGRAM_OFFSET", "HISTOGRAM_BINS", "MAX_YAKU_SETS", "SCALARS",
           "CONVERGENCE_FLAGS", "PAIR_FIELDS", "CONVERGENCE_POINTS", "checkpoints"]

# Slots of the ``columns`` argument (matrix rows of single columns).
COLUMN_SLOTS = ("valid", "winner", "dealer", "end_reason", "end_turn", "yaku_set", "match", "round_in_match",
                "match_end", "stopping_yaku")
# Rows of the ``seat_columns`` argument (one matrix row per seat).
SEAT_SLOTS = ("score", "payoff", "active", "yaku", "match_points")
HISTOGRAM_OFFSET = 1 << 12  # histograms count values -4096 .. 4095 in place (written out below)
HISTOGRAM_BINS = 2 * HISTOGRAM_OFFSET
MAX_YAKU_SETS = 16
# Cells of the ``scalars`` output.
SCALARS = ("rounds", "dealer_rounds", "dealer_wins", "dealer_draws", "non_dealer_rounds", "non_dealer_wins",
           "non_dealer_draws", "matches", "match_draws", "first_dealer_matches", "first_dealer_wins",
           "first_dealer_draws", "unpaired_ends", "conv_seat0_wins", "conv_seat0_rounds", "conv_dealer_wins",
           "conv_dealer_rounds", "conv_draws")
CONVERGENCE_FLAGS = ("seat0_wins", "seat0_rounds", "dealer_wins", "dealer_rounds", "draws")
PAIR_FIELDS = ("n", "x", "xx", "y", "yy", "d", "dd")
CONVERGENCE_POINTS = 60


def checkpoints(total_rows: int, points: int = CONVERGENCE_POINTS) -> np.ndarray:
    """The report's convergence checkpoints (int64, ascending) for a run of ``total_rows`` rows:
    roughly evenly spaced on a log scale from 10 (or fewer), with the 1-2-5 steps and the end."""
    if total_rows <= 0:
        return np.zeros(0, dtype=np.int64)
    start = min(10, total_rows)
    # Below 2**63 before the cast: the float nearest a count close to 2**63 - 1 is 2**63, which
    # int64 cannot hold (the count itself is added exactly below).
    spaced = np.minimum(np.round(np.geomspace(start, total_rows, points)), np.nextafter(2.0**63, 0))
    grid = spaced.astype(np.int64)
    # Also the 1-2-5 steps, so that a printed table can show round numbers of rounds.
    steps = np.array([m * 10**d for d in range(19) for m in (1, 2, 5)], dtype=np.int64)
    grid = np.unique(np.concatenate([grid, steps[steps >= start], [total_rows]]))
    return grid[(grid >= 1) & (grid <= total_rows)]
