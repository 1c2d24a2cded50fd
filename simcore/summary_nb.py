"""The summary run's kernel: one pass over the engines' output matrices, adding every count the
report needs into preallocated int64 arrays (``simcore.summary_shard`` allocates and names them).

Contract: ``ints`` is int64[n_int, rows] and ``masks`` uint64[n_mask, rows] exactly as the
engines fill them; ``columns`` (int64) gives the matrix row of each column the summary reads
(``-1`` where the game has no such column, see ``simcore.summary_layout.COLUMN_SLOTS``); every output array is added
to, never reset, so several blocks of one shard accumulate into the same arrays.  A value outside
a histogram's window is not counted but flagged in ``overflow`` (the caller counts that column
again in numpy).  This module imports only numpy, numba, ``simcore.kernels.bits`` and the constants of
``simcore.summary_layout``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.kernels.bits import lowest_id
from simcore.summary_layout import HISTOGRAM_BINS, HISTOGRAM_OFFSET, MAX_YAKU_SETS, SCALARS

__all__ = ["summarise_block_nb"]

_CONV = SCALARS.index("conv_seat0_wins")  # the first convergence running total
U0 = np.uint64(0)
U1 = np.uint64(1)


@nb.njit(cache=True, nogil=True)
def summarise_block_nb(ints, masks, columns, seat_columns, stop_codes, stop_mode, stop_allowed, checkpoints,
                       scalars, seat_counts, advantage, reasons, yaku_seat, yaku_any, stopping, yaku_sets,
                       seat_yaku_sets, scores, payoffs, end_turns, rounds_per_match, match_seat_wins,
                       convergence, overflow, lo, hi):
    """Add rows ``lo .. hi - 1`` of a block to the summary arrays (a range that starts at a unit's
    first row, so that a match is never split).

    Parameters
    ----------
    ints : int64[n_int, rows]
    masks : uint64[n_mask, rows]
    columns : int64[len(COLUMN_SLOTS)]
        Matrix row per slot (``stopping_yaku`` a row of ``masks``), ``-1`` if absent.
    seat_columns : int64[len(SEAT_SLOTS), seats]
        Matrix row of each seat's column (``yaku`` a row of ``masks``), ``-1`` if absent.
    stop_codes : int64[k]
        End-reason codes that stop a round at once (``-1`` for a reason the game lacks).
    stop_mode : int
        0: count the winner's every yaku; 1: only the bits ``stop_allowed[yaku_set]``; 2: only
        ``stop_allowed[0]``; 3: the ``stopping_yaku`` column.
    stop_allowed : uint64[MAX_YAKU_SETS]
    checkpoints : int64[c]
        Ascending counts of the range's valid rows after which the convergence totals are taken.
    scalars : int64[len(SCALARS)]
    seat_counts : int64[3, seats]
        Rounds played, wins, draws of each seat.
    advantage : int64[seats + 1]
        Over the rounds the dealer played: [0] the dealer won; [k] a non-dealer won with ``k``
        other seats playing.
    reasons : int64[64]
    yaku_seat : int64[seats, 64]
    yaku_any : int64[1, 64]
    stopping : int64[k, 64]
    yaku_sets : int64[MAX_YAKU_SETS]
    seat_yaku_sets : int64[seats, MAX_YAKU_SETS]
    scores, payoffs : int64[seats, HISTOGRAM_BINS]
    end_turns, rounds_per_match : int64[1, HISTOGRAM_BINS]
    match_seat_wins : int64[seats]
    convergence : int64[5, c]
        Written (not added): the block's running totals at each checkpoint.
    overflow : int64[4]
        Set to 1 when a value of scores, payoffs, end_turn or rounds per match fell outside the window.
    lo, hi : int
        The rows to count.
    """
    seats = seat_columns.shape[1]
    valid_row, winner_row, dealer_row, reason_row = columns[0], columns[1], columns[2], columns[3]
    turn_row, set_row, match_row, in_match_row, end_row, stop_row = (columns[4], columns[5], columns[6],
                                                                     columns[7], columns[8], columns[9])
    has_active = seat_columns[2, 0] >= 0
    has_yaku = seat_columns[3, 0] >= 0
    has_payoff = seat_columns[1, 0] >= 0
    has_matches = end_row >= 0 and seat_columns[4, 0] >= 0 and match_row >= 0 and in_match_row >= 0
    current_match = np.int64(-1)
    current_dealer = np.int64(-1)
    checkpoint = 0
    count = 0
    for row in range(lo, hi):
        if valid_row >= 0 and ints[valid_row, row] != 1:
            continue
        count += 1
        winner = ints[winner_row, row]
        drawn = winner < 0
        active_count = 0
        any_yaku = np.uint64(0)
        yaku_set = ints[set_row, row] if set_row >= 0 else np.int64(-1)
        for seat in range(seats):
            present = True
            if has_active:
                present = ints[seat_columns[2, seat], row] != 0
            if not present:
                continue
            active_count += 1
            seat_counts[0, seat] += 1
            # the histograms, in the same pass (reading the row once)
            position = ints[seat_columns[0, seat], row] + 4096
            if 0 <= position < 8192:
                scores[seat, position] += 1
            else:
                overflow[0] = 1
            if has_payoff:
                position = ints[seat_columns[1, seat], row] + 4096
                if 0 <= position < 8192:
                    payoffs[seat, position] += 1
                else:
                    overflow[1] = 1
            if drawn:
                seat_counts[2, seat] += 1
            if has_yaku:
                mask = masks[seat_columns[3, seat], row]
                any_yaku |= mask
                while mask != U0:
                    yaku_seat[seat, lowest_id(mask)] += 1
                    mask &= mask - U1
            if 0 <= yaku_set < MAX_YAKU_SETS:
                seat_yaku_sets[seat, yaku_set] += 1
        if winner >= 0 and winner < seats:
            seat_counts[1, winner] += 1
        if turn_row >= 0:
            position = ints[turn_row, row] + 4096
            if 0 <= position < 8192:
                end_turns[0, position] += 1
            else:
                overflow[2] = 1
        while any_yaku != U0:
            yaku_any[0, lowest_id(any_yaku)] += 1
            any_yaku &= any_yaku - U1
        scalars[0] += 1
        dealer_won = False
        dealer_played = False
        if dealer_row >= 0:
            dealer = ints[dealer_row, row]
            dealer_played = True
            if has_active:
                dealer_played = ints[seat_columns[2, dealer], row] != 0
            dealer_won = winner == dealer
            other_won = winner >= 0 and not dealer_won
            others = active_count - (1 if dealer_played else 0)
            if dealer_played:
                scalars[1] += 1
                if drawn:
                    scalars[3] += 1
                if dealer_won:
                    advantage[0] += 1
                elif other_won:
                    advantage[max(others, 1)] += 1
            if dealer_won:
                scalars[2] += 1
            scalars[4] += others
            if other_won:
                scalars[5] += 1
            if drawn:
                scalars[6] += others
        if reason_row >= 0:
            code = ints[reason_row, row]
            reasons[code] += 1
            if has_yaku and winner >= 0:
                for k in range(stop_codes.shape[0]):
                    if stop_codes[k] >= 0 and code == stop_codes[k]:
                        if stop_mode == 3:
                            held = masks[stop_row, row]
                        else:
                            held = masks[seat_columns[3, winner], row]
                            if stop_mode == 1:
                                held &= stop_allowed[yaku_set] if 0 <= yaku_set < MAX_YAKU_SETS else np.uint64(0)
                            elif stop_mode == 2:
                                held &= stop_allowed[0]
                        while held != U0:
                            stopping[k, lowest_id(held)] += 1
                            held &= held - U1
        if 0 <= yaku_set < MAX_YAKU_SETS:
            yaku_sets[yaku_set] += 1
        if has_matches:
            if ints[in_match_row, row] == 0:
                current_match = ints[match_row, row]
                current_dealer = ints[dealer_row, row] if dealer_row >= 0 else np.int64(-1)
            if ints[end_row, row] != 0:
                best = ints[seat_columns[4, 0], row]
                leader = 0
                leaders = 1
                for seat in range(1, seats):
                    points = ints[seat_columns[4, seat], row]
                    if points > best:
                        best, leader, leaders = points, seat, 1
                    elif points == best:
                        leaders += 1
                match_winner = leader if leaders == 1 else -1
                length = ints[in_match_row, row] + 1 + 4096
                if 0 <= length < 8192:
                    rounds_per_match[0, length] += 1
                else:
                    overflow[3] = 1
                scalars[7] += 1
                if match_winner < 0:
                    scalars[8] += 1
                else:
                    match_seat_wins[match_winner] += 1
                if ints[match_row, row] == current_match:
                    scalars[9] += 1
                    if match_winner == current_dealer:
                        scalars[10] += 1
                    if match_winner < 0:
                        scalars[11] += 1
                    current_match = np.int64(-1)
                else:
                    scalars[12] += 1
        if winner == 0:
            scalars[_CONV] += 1
        if (not has_active) or ints[seat_columns[2, 0], row] != 0:
            scalars[_CONV + 1] += 1
        if dealer_won:
            scalars[_CONV + 2] += 1
        if dealer_played:
            scalars[_CONV + 3] += 1
        if drawn:
            scalars[_CONV + 4] += 1
        while checkpoint < checkpoints.shape[0] and checkpoints[checkpoint] == count:
            for k in range(5):
                convergence[k, checkpoint] = scalars[_CONV + k]
            checkpoint += 1


# The kernels write the window out as literals (4096, 8192): keep them in step.
assert HISTOGRAM_OFFSET == 4096 and HISTOGRAM_BINS == 8192
