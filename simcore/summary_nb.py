"""The summary run's kernel: passes over the engines' output matrices, adding every count the
report needs into preallocated int64 arrays (``simcore.run.summary_shard`` allocates and names them).

Contract: ``ints`` is int64[n_int, rows] and ``masks`` uint64[n_mask, rows] exactly as the
engines return them; ``columns`` (int64) gives the matrix row of each column the summary reads
(``-1`` where the game has no such column, see ``simcore.summary_layout.COLUMN_SLOTS``); every
output array is added to, never reset, so several chunks of one shard accumulate into the same
arrays.  A value outside a histogram's window is not counted in it but listed in ``spill``
(the caller adds the listed values); once ``spill`` is full, further ones only flag their kind
in ``overflow`` (the caller then counts that column again in numpy).

Speed: counting costs about 13 ns a Tensho row (under a tenth of the kernel's time to play
it).  The per-row work is kept branch-light: who won, who dealt and who played go into one
joint count per row, from which the per-seat, dealer and convergence counts are derived once per
call; each seat's score and payoff histograms and yaku are counted in a pass of their own; a
seat's first yaku bit is counted without a branch (bin 64 for none); a yaku two seats hold is
the rare case ``yaku_any`` corrects for.

This module imports only numpy, numba, ``simcore.kernels.bits`` and the constants of
``simcore.summary_layout``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.kernels.bits import U0, U1, lowest_id
from simcore.kernels.internal import internal_nb
from simcore.summary_layout import HISTOGRAM_BINS, HISTOGRAM_OFFSET, MAX_YAKU_SETS, SCALARS

__all__ = ["summarise_block_nb"]

_CONV = SCALARS.index("conv_seat0_wins")  # the first convergence running total


@nb.njit(cache=True, nogil=True)
def summarise_block_nb(ints, masks, columns, seat_columns, stop_codes, stop_mode, stop_allowed, checkpoints,
                       scalars, seat_counts, advantage, reasons, yaku_seat, yaku_any, stopping, yaku_sets,
                       seat_yaku_sets, scores, payoffs, end_turns, rounds_per_match, match_seat_wins,
                       convergence, overflow, spill, lo, hi):
    """Add rows ``lo .. hi - 1`` of a chunk to the summary arrays (a range that starts at a unit's
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
        Written (not added): the running totals (``scalars``' convergence cells) at each checkpoint.
    overflow : int64[5]
        ``[kind]`` set to 1 when a value of kind 0 (scores), 1 (payoffs), 2 (end_turn) or 3
        (rounds per match) fell outside the window and ``spill`` was full; ``[4]`` the entries
        of ``spill`` used (added to, so a caller starts it at 0).
    spill : int64[capacity, 3]
        Values outside the window, as rows (kind, seat, value).
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
    # Who won, who dealt and who played, counted jointly: one cell per row, from which the
    # per-seat, dealer and convergence counts are derived (``_outcome_counts``).
    n_dealer = seats + 1  # a seat, or none (no dealer column)
    n_active = (1 << seats) if has_active else 1  # the seats that played, as bits
    joint = np.zeros((seats + 2) * n_dealer * n_active, dtype=np.int64)  # winner: draw, a seat, other
    # Each seat's yaku by bit, 64 for none (a row's first bit is counted without a branch).
    seat_yaku = np.zeros((seats, 65), dtype=np.int64)
    shared = np.zeros(64, dtype=np.int64)  # per bit: rows' seats beyond the first holding it
    round_sets = np.zeros(MAX_YAKU_SETS, dtype=np.int64)
    start = np.zeros(5, dtype=np.int64)
    for k in range(5):
        start[k] = scalars[_CONV + k]
    all_seats = (1 << seats) - 1
    stop_bits = U0  # the end reasons that stop a round at once, as bits
    for k in range(stop_codes.shape[0]):
        if 0 <= stop_codes[k] < 64:
            stop_bits |= U1 << np.uint64(stop_codes[k])
    current_match = np.int64(-1)
    current_dealer = np.int64(-1)
    checkpoint = 0
    count = 0
    for row in range(lo, hi):
        if valid_row >= 0 and ints[valid_row, row] != 1:
            continue
        count += 1
        winner = ints[winner_row, row]
        yaku_set = ints[set_row, row] if set_row >= 0 else np.int64(-1)
        played = 0
        seen = U0
        repeated = U0
        for seat in range(seats):
            if has_active:
                if ints[seat_columns[2, seat], row] == 0:
                    continue
                played |= 1 << seat
            if has_yaku:
                mask = masks[seat_columns[3, seat], row]
                repeated |= seen & mask
                seen |= mask
            if has_active and 0 <= yaku_set < MAX_YAKU_SETS:
                seat_yaku_sets[seat, yaku_set] += 1
        if repeated != U0:  # a yaku more than one seat holds: yaku_any counts it once
            present = played if has_active else all_seats
            while repeated != U0:
                bit = lowest_id(repeated)
                holders = 0
                for seat in range(seats):
                    if (present >> seat) & 1 and (masks[seat_columns[3, seat], row] >> np.uint64(bit)) & U1:
                        holders += 1
                shared[bit] += holders - 1
                repeated &= repeated - U1
        code = 0 if winner < 0 else (winner + 1 if winner < seats else seats + 1)
        dealt = seats
        if dealer_row >= 0:
            dealer = ints[dealer_row, row]
            if 0 <= dealer < seats:
                dealt = dealer
        joint[(code * n_dealer + dealt) * n_active + played] += 1
        if turn_row >= 0:
            position = ints[turn_row, row] + 4096
            if 0 <= position < 8192:
                end_turns[0, position] += 1
            else:
                _spill(overflow, spill, 2, 0, position - 4096)
        if reason_row >= 0:
            reason = ints[reason_row, row]
            reasons[reason] += 1
            if has_yaku and winner >= 0 and 0 <= reason < 64 and (stop_bits >> np.uint64(reason)) & U1:
                for k in range(stop_codes.shape[0]):
                    if stop_codes[k] >= 0 and reason == stop_codes[k]:
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
            round_sets[yaku_set] += 1
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
                    _spill(overflow, spill, 3, 0, length - 4096)
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
        while checkpoint < checkpoints.shape[0] and checkpoints[checkpoint] == count:
            totals = _outcome_counts(joint, seats, n_dealer, has_active, scalars, seat_counts, advantage, False)
            for k in range(5):
                convergence[k, checkpoint] = start[k] + totals[k]
            checkpoint += 1
    # Each seat's histograms and yaku in a pass of its own over the same rows: tight loops over a
    # few contiguous columns run faster than the same work inside the row loop above.  The score
    # and payoff blocks are written out twice on purpose: one helper pass per column (called per
    # seat and kind) measured 15-18% slower for the whole count.
    for seat in range(seats):
        score_col = ints[seat_columns[0, seat]]
        payoff_col = ints[seat_columns[1, seat]] if has_payoff else ints[0]
        active_col = ints[seat_columns[2, seat]] if has_active else ints[0]
        valid_col = ints[valid_row] if valid_row >= 0 else ints[0]
        yaku_col = masks[seat_columns[3, seat]] if has_yaku else masks[0]
        sc = scores[seat]
        pc = payoffs[seat]
        yk = seat_yaku[seat]
        for row in range(lo, hi):
            if valid_row >= 0 and valid_col[row] != 1:
                continue
            if has_active and active_col[row] == 0:
                continue
            position = score_col[row] + 4096
            if 0 <= position < 8192:
                sc[position] += 1
            else:
                _spill(overflow, spill, 0, seat, position - 4096)
            if has_payoff:
                position = payoff_col[row] + 4096
                if 0 <= position < 8192:
                    pc[position] += 1
                else:
                    _spill(overflow, spill, 1, seat, position - 4096)
            if has_yaku:
                mask = yaku_col[row]
                yk[lowest_id(mask)] += 1
                mask &= mask - U1
                while mask != U0:
                    yk[lowest_id(mask)] += 1
                    mask &= mask - U1
    totals = _outcome_counts(joint, seats, n_dealer, has_active, scalars, seat_counts, advantage, True)
    for k in range(5):
        scalars[_CONV + k] = start[k] + totals[k]
    for seat in range(seats):
        for bit in range(64):
            yaku_seat[seat, bit] += seat_yaku[seat, bit]
    for bit in range(64):
        held = -shared[bit]
        for seat in range(seats):
            held += seat_yaku[seat, bit]
        yaku_any[0, bit] += held
    for yaku_set in range(MAX_YAKU_SETS):
        yaku_sets[yaku_set] += round_sets[yaku_set]
        if not has_active:  # every seat played every round
            for seat in range(seats):
                seat_yaku_sets[seat, yaku_set] += round_sets[yaku_set]


@internal_nb(cache=True, nogil=True)
def _spill(overflow, spill, kind, seat, value):
    """List a value outside the histograms' window in ``spill``, or flag its kind if it is full."""
    used = overflow[4]
    if used < spill.shape[0]:
        spill[used, 0] = kind
        spill[used, 1] = seat
        spill[used, 2] = value
        overflow[4] = used + 1
    else:
        overflow[kind] = 1


@internal_nb(cache=True, nogil=True)
def _outcome_counts(joint, seats, n_dealer, has_active, scalars, seat_counts, advantage, add):
    """The five convergence totals (seat 0 won, seat 0 played, the dealer won, the dealer played,
    a draw) of ``joint``'s rows; with ``add``, also add their per-seat and dealer counts to
    ``scalars``, ``seat_counts`` and ``advantage``.

    ``joint[(winner_code * n_dealer + dealer) * n_active + played]``: winner_code 0 for a draw,
    ``s + 1`` for seat ``s``, ``seats + 1`` for anything else; dealer ``seats`` when there is
    none; ``played`` the bits of the seats that played (0 when every seat plays every round).
    """
    n_active = joint.shape[0] // ((seats + 2) * n_dealer)
    totals = np.zeros(5, dtype=np.int64)
    for cell in range(joint.shape[0]):
        n = joint[cell]
        if n == 0:
            continue
        played = cell % n_active
        dealer = (cell // n_active) % n_dealer
        winner = cell // (n_active * n_dealer) - 1
        if winner > seats - 1:
            winner = seats  # not a seat, not a draw
        present = played if has_active else (1 << seats) - 1
        drawn = winner < 0
        if winner == 0:
            totals[0] += n
        if present & 1:
            totals[1] += n
        has_dealer = dealer < seats
        dealer_played = has_dealer and ((present >> dealer) & 1) == 1
        dealer_won = has_dealer and winner == dealer
        if dealer_won:
            totals[2] += n
        if dealer_played:
            totals[3] += n
        if drawn:
            totals[4] += n
        if not add:
            continue
        active_count = 0
        for seat in range(seats):
            if (present >> seat) & 1:
                active_count += 1
                seat_counts[0, seat] += n
                if drawn:
                    seat_counts[2, seat] += n
        if 0 <= winner < seats:
            seat_counts[1, winner] += n
        scalars[0] += n
        if has_dealer:
            other_won = winner >= 0 and not dealer_won
            others = active_count - (1 if dealer_played else 0)
            if dealer_played:
                scalars[1] += n
                if drawn:
                    scalars[3] += n
                if dealer_won:
                    advantage[0] += n
                elif other_won:
                    advantage[max(others, 1)] += n
            if dealer_won:
                scalars[2] += n
            scalars[4] += others * n
            if other_won:
                scalars[5] += n
            if drawn:
                scalars[6] += others * n
    return totals


# The kernels write the window out as literals (4096, 8192): keep them in step.
assert HISTOGRAM_OFFSET == 4096 and HISTOGRAM_BINS == 8192
