"""The hanafuda capture step in numba (``simcore.hanafuda.capture``'s twin).

Contract
--------
``month`` is int8[64] (each card id's month, 0 outside the deck) and ``month_mask`` uint64[13]
(each month's cards), as ``simcore.hanafuda.month_arrays`` builds them. Nothing allocates.
"""

from __future__ import annotations

import numba as nb

from simcore.kernels.bits import popcount

__all__ = ["CAPTURE_ALL", "CAPTURE_CHOOSE", "CAPTURE_NONE", "capture_nb", "matches_nb"]

CAPTURE_NONE = 0
CAPTURE_ALL = 1
CAPTURE_CHOOSE = 2


@nb.njit(inline="always", cache=True)
def matches_nb(field, card, month, month_mask):
    """The field cards of ``card``'s month (uint64 mask)."""
    return field & month_mask[month[card]]


@nb.njit(inline="always", cache=True)
def capture_nb(field, card, month, month_mask, take_three):
    """``(kind, matches)`` of ``card`` set against ``field`` (``simcore.hanafuda.capture``)."""
    matches = field & month_mask[month[card]]
    count = popcount(matches)
    if count == 0:
        return CAPTURE_NONE, matches
    if count == 1 or (count == 3 and take_three):
        return CAPTURE_ALL, matches
    return CAPTURE_CHOOSE, matches
