"""The general kernel's unit and match loop, written once over the round contract
(``simcore.kernels.contract``) for every game: each round played through the game's state
machine, every decision asked of the seat's policy (as ``simcore.kernels.search_nb.decide_once_nb``).

Contract
--------
``play_units_nb(rules, seed, first_unit, lo, hi, rounds_per_match, stride, params, floats, tables,
log_table, greedy, heuristic, pimc, ismcts, learned, evaluate, out_int, out_mask, spent)`` plays units
``first_unit + lo .. first_unit + hi - 1``
into rows ``lo * stride ..`` of the output matrices (int64[n_int, rows], uint64[n_mask, rows]); it is
``nogil``, so the thread pool (``simcore.kernels.threads``) plays spans of a run side by side.
``spent`` int64[0, 2] for a run; int64[seats, 1] adds to column 0 each seat's decisions with two
or more options, int64[seats, 2] also, in column 1, the cycles of ``simcore.kernels.clock`` its
policy spent on them (the tournament's time per decision; the same decisions as without).

* ``rounds_per_match == 0``: independent rounds; unit ``u`` is round ``u``, dealt by seat
  ``u % seats``, in row ``u`` (``stride`` 1).
* else unit ``u`` is a match of at least ``rounds_per_match`` rounds, ``stride`` rows apart:
  round ``k`` of it is the run's round ``u * stride + k``; the first dealer is ``u % seats`` and
  each round's winner decides the next (``next_dealer_nb``); after ``rounds_per_match`` rounds
  the match goes on, up to ``stride`` rounds, only while several seats share the lead; it ends
  sooner where the game says so (``match_over_nb``). Rows the match does not reach are marked
  unused.

Seat ``s``'s decision stream is ``(seed, round, SEAT_STREAM_BASE + s)`` at ``4 * s`` of the
streams array. The policy arrays are ``simcore.kernels.policy_rows``', and ``greedy`` ..
``evaluate`` the fields of its ``PolicyKinds`` (numba compiles the kernel once for each game's
rules type and set of policy kinds: only the policies the seats play); ``rules`` is the game's
rules namedtuple (``contract.context_nb``).

Its compile time is the first run's wait (docs/performance.md, "First start").  ``play_units_nb``,
the function Python calls, only allocates (which needs numba's reference counting) and hands over
to ``play_span_nb``, which runs without it (counting references in the rounds' loops cost a
quarter of the heuristic's speed); every function below it is compiled for numba callers only,
so LLVM optimises the whole kernel once, in ``play_units_nb`` (``simcore.kernels.linking``).  The
rounds, the decisions and the search players are written into or inlined in ``play_span_nb``.
The kinds are its own arguments and its body tests them itself: numba drops the branch of a
policy whose kind is None before it inlines the policy, so the search players it does not play
are never translated.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.kernels import contract as C
from simcore.kernels.choice_nb import basic_choice_nb
from simcore.kernels.clock import cycles_nb
from simcore.kernels.internal import internal_nb
from simcore.kernels.learned_nb import learned_choose_nb
from simcore.kernels.policy_ids import POLICY_ISMCTS, POLICY_LEARNED, POLICY_OMNISCIENT, POLICY_PIMC
from simcore.kernels.policy_rows import P_BASIC, P_POLICY
from simcore.kernels.search_nb import ismcts_seat_nb, new_scratch_nb, pimc_seat_nb
from simcore.rng import SEAT_STREAM_BASE, round_hash_nb, stream_init_hashed_nb

__all__ = ["play_units_nb"]


@nb.njit(inline="always", cache=True)
def shared_lead(points, seats):
    """Whether several seats share the most match points."""
    top = points[0]
    count = 1
    for s in range(1, seats):
        if points[s] > top:
            top = points[s]
            count = 1
        elif points[s] == top:
            count += 1
    return count > 1


@nb.njit(cache=True, nogil=True)
def play_units_nb(rules, seed, first_unit, lo, hi, rounds_per_match, stride, params, floats, tables, log_table,
                  greedy, heuristic, pimc, ismcts, learned, evaluate, out_int, out_mask, spent):
    """Play units ``first_unit + lo .. first_unit + hi - 1`` into rows ``lo * stride ..``
    (module docstring)."""
    ctx = C.context_nb(rules, seed)
    scratch = new_scratch_nb(ctx, params)
    state = C.new_state_nb(ctx)
    streams = np.zeros(4 * params.shape[0], dtype=np.uint64)
    points = np.zeros(params.shape[0], dtype=np.int64)
    play_span_nb(ctx, scratch, state, streams, points, first_unit, lo, hi, rounds_per_match, stride, params, floats,
                 tables, log_table, greedy, heuristic, pimc, ismcts, learned, evaluate, out_int, out_mask, spent)


@internal_nb(cache=True, _nrt=False)
def play_span_nb(ctx, scratch, state, streams, points, first_unit, lo, hi, rounds_per_match, stride, params, floats,
                 tables, log_table, greedy, heuristic, pimc, ismcts, learned, evaluate, out_int, out_mask, spent):
    """``play_units_nb``'s loop, in the context ``ctx`` with the search scratch ``scratch``, the
    state ``state``, the seats' streams ``streams`` and match points ``points`` it allocated."""
    seats = C.n_seats_nb(ctx)
    independent = rounds_per_match == 0
    n_rounds = 1 if independent else stride
    counting = spent.shape[0] > 0
    timed = spent.shape[1] > 1
    inferring = scratch.past_seat.size > 1  # a search seat infers: keep the round's past decisions
    for i in range(lo, hi):
        unit = first_unit + i
        for s in range(points.size):
            points[s] = 0
        dealer = unit % seats
        last_row = i * stride
        for k in range(n_rounds):
            if k >= rounds_per_match and not independent and not shared_lead(points, seats):
                break
            row = i * stride + k
            round_index = unit if independent else unit * stride + k
            h = round_hash_nb(ctx.seed, round_index)
            for s in range(seats):
                stream_init_hashed_nb(streams, h, SEAT_STREAM_BASE + s, 4 * s)
            C.start_round_nb(ctx, state, unit, k, round_index, independent, dealer, points)
            scratch.n_past[0] = 0
            while not C.done_nb(ctx, state):
                seat = C.to_act_nb(ctx, state)
                several = counting and C.n_actions_nb(ctx, state) > 1
                began = cycles_nb() if timed and several else 0
                # search_nb.decide_once_nb's choice, written out here: numba drops the branch of
                # a policy whose kind is None (an argument) before it inlines the search
                policy_id = params[seat, P_POLICY]
                if pimc is not None and (policy_id == POLICY_PIMC or policy_id == POLICY_OMNISCIENT):
                    index = pimc_seat_nb(ctx, state, seat, policy_id, params, floats, tables, streams, scratch,
                                         greedy, heuristic, evaluate)
                elif ismcts is not None and policy_id == POLICY_ISMCTS:
                    index = ismcts_seat_nb(ctx, state, seat, params, floats, tables, log_table, streams, scratch,
                                           greedy, heuristic, evaluate)
                elif learned is not None and policy_id == POLICY_LEARNED:
                    index = learned_choose_nb(ctx, state, tables[seat])
                else:
                    index = basic_choice_nb(ctx, state, policy_id, params[seat, P_BASIC], tables[seat], streams,
                                            4 * seat, greedy, heuristic)
                if several:
                    spent[seat, 0] += 1
                    if timed:
                        spent[seat, 1] += cycles_nb() - began
                n_past = scratch.n_past[0]
                if inferring and n_past < C.MAX_HISTORY and C.n_actions_nb(ctx, state) > 1:
                    C.save_past_nb(ctx, state, scratch.history, n_past)
                    scratch.past_seat[n_past] = seat
                    scratch.past_key[n_past] = C.action_key_nb(ctx, state, index)
                    scratch.n_past[0] = n_past + 1
                C.apply_nb(ctx, state, index)
            C.write_row_nb(ctx, state, out_int, out_mask, row)
            C.add_match_points_nb(ctx, state, points)
            C.write_match_nb(ctx, out_int, row, unit, k, points)
            last_row = row
            winner = C.winner_nb(ctx, state)
            if winner >= 0:
                dealer = C.next_dealer_nb(ctx, dealer, winner)
            if not independent and C.match_over_nb(ctx, points):
                break
        C.end_match_nb(ctx, out_int, last_row)
        for row in range(last_row + 1, (i + 1) * stride):
            C.unused_row_nb(ctx, out_int, row)
