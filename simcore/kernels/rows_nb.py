"""The cells of a round's row that every game writes alike, for every numba engine (each game's
fast kernel and its state machine's ``write_row_nb``): the rows ``simcore.record.C_*``.
"""

from __future__ import annotations

from simcore.kernels.internal import internal_nb
from simcore.record import (
    C_DEALER,
    C_END_REASON,
    C_END_TURN,
    C_FIRST_PLAYER,
    C_REDEALS,
    C_ROUND,
    C_VALID,
    C_WINNER,
)

__all__ = ["write_outcome_nb"]


@internal_nb(cache=True, _nrt=False)
def write_outcome_nb(out_int, row, round_index, dealer, first_player, winner, reason, turn, redeals):
    """Write where round ``round_index`` sits, who dealt and led it, who won and how it ended
    into ``row`` of ``out_int``, and mark the row valid (the match columns are the unit loop's)."""
    out_int[C_ROUND, row] = round_index
    out_int[C_DEALER, row] = dealer
    out_int[C_FIRST_PLAYER, row] = first_player
    out_int[C_WINNER, row] = winner
    out_int[C_END_REASON, row] = reason
    out_int[C_END_TURN, row] = turn
    out_int[C_REDEALS, row] = redeals
    out_int[C_VALID, row] = 1
