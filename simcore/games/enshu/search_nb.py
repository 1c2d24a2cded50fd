"""Numba search players and the general round kernel of Enshu-bana (every policy, every seat).

Contract
--------
``play_units_general_nb`` plays units like ``kernel_nb.play_units_nb`` (same output matrices,
same rows for random and greedy seats) through the state machine of
``simcore.games.enshu.state_nb``, asking each seat's policy at every pause:

* ``seat_params`` int64[MAX_SEATS, N_SEAT_PARAMS]: per seat the policy id (``POLICY_*``), the
  budget (``pimc`` worlds, ``ismcts`` iterations), the rollout policy id and the objective id
  (``simcore.kernels.policy_ids``); ``seat_c`` float64[MAX_SEATS]: ``ismcts``' ``c``;
* ``log_table`` float64[>= max iterations + 1]: ``LOG[n] = numpy.log(n)`` (the same table the
  reference search reads);
* ``htables`` int64[MAX_SEATS + 1, T_SIZE]: each heuristic seat's tables
  (``heuristic_nb.heuristic_tables``), row ``MAX_SEATS`` those of the default heuristic (what a
  rollout with ``rollout=heuristic`` plays);
* ``rt`` the packed rule tables (``kernel_nb.pack_rules_nb``).

The search players follow ``simcore.search`` step for step (issue 20's contract, section 2):
they draw only from their seat's stream, in the same order, with the same tie rules, and
rollouts play every seat with a fresh rollout policy drawing from that same stream (a random or
greedy rollout plays its turns in one loop, ``turns_fast``, with the state machine's draws and
choices).  ``omniscient`` (measurement only) is ``pimc`` whose worlds are copies of the real
position.  Each parallel block allocates its scratch (state copies, the search tree) once.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from simcore.games.enshu import enums as EE
from simcore.games.enshu.heuristic_nb import heuristic_choose_nb
from simcore.games.enshu.kernel_nb import K_STOPPING, greedy_gain, greedy_play, stopping_yaku
from simcore.games.enshu.state_nb import (
    I_ACTIVE,
    I_DONE,
    I_DRAW,
    I_DRAW_LEN,
    I_DRAW_START,
    I_KEYS,
    I_PAYOFF,
    I_PEND_KIND,
    I_PEND_N,
    I_PEND_SEAT,
    I_PHASE,
    I_SEAT,
    I_TURN,
    I_WINNER,
    KIND_PLAY,
    M_FIELD,
    M_HANDS,
    M_PILES,
    M_SEEN,
    M_STOPPING,
    MAX_ACTIONS,
    N_SI,
    N_SM,
    NO_KIND,
    P_SCORE,
    advance_nb,
    apply_nb,
    copy_state_nb,
    draw_uniform_nb,
    greedy_choose_nb,
    new_round_nb,
    new_workspace_nb,
    observe_nb,
    random_choose_nb,
    sample_hidden_nb,
    write_row_nb,
)
from simcore.kernels.bits import bit, kth_id, lowest_id, popcount
from simcore.kernels.policy_ids import (
    OBJECTIVE_WIN,
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_OMNISCIENT,
    POLICY_PIMC,
    POLICY_RANDOM,
)
from simcore.rng import SEAT_STREAM_BASE, stream_init_nb

U0 = np.uint64(0)
U1 = np.uint64(1)

MAX_SEATS = EE.MAX_SEATS

# seat_params columns
SP_POLICY = 0
SP_BUDGET = 1
SP_ROLLOUT = 2
SP_OBJECTIVE = 3
N_SEAT_PARAMS = 4

# ISMCTS tree: int64[N_NODE_FIELDS, max nodes]
N_KEY = 0
N_SEAT = 1
N_VISITS = 2
N_TOTAL = 3
N_AVAIL = 4
N_FIRST = 5
N_LAST = 6
N_NEXT = 7
N_NODE_FIELDS = 8
MAX_PATH = 512  # decisions of one round, with room to spare


@nb.njit(cache=True, _nrt=False)
def heuristic_choose_state_nb(si, sm, rt, ws, htables, row, obs):
    """The heuristic's answer to the pending decision (``heuristic_nb.heuristic_choose_nb`` on the
    deciding seat's packed observation, with the tables of ``htables[row]``)."""
    n = si[I_PEND_N]
    observe_nb(si, sm, rt, si[I_PEND_SEAT], obs)
    return heuristic_choose_nb(si[I_PEND_KIND], obs, si[I_KEYS:I_KEYS + n], n, htables[row])


@nb.njit(cache=True, _nrt=False)
def policy_choose_nb(policy_id, si, sm, rt, ws, streams, at, htables, row, obs):
    """The answer of a non-search policy (random, greedy, heuristic) to the pending decision."""
    if policy_id == POLICY_RANDOM:
        return random_choose_nb(si, sm, streams, at)
    if policy_id == POLICY_GREEDY:
        return greedy_choose_nb(si, sm, rt, ws)
    return heuristic_choose_state_nb(si, sm, rt, ws, htables, row, obs)


@nb.njit(cache=True, _nrt=False)
def resolve_fast(sm, seat, card, policy_id, streams, at, capture_three_all, month, month_mask, yaku_masks,
                 yaku_ints, card_points, stopping):
    """``state_nb.resolve`` with the capture choice taken at once by random or greedy."""
    cb = bit(card)
    sm[M_SEEN] |= cb
    field = sm[M_FIELD]
    matches = field & month_mask[month[card]]
    count = popcount(matches)
    if count == 0:
        sm[M_FIELD] = field | cb
        return
    if count == 1 or (count == 3 and capture_three_all):
        taken = matches
    elif policy_id == POLICY_RANDOM:
        taken = bit(kth_id(matches, draw_uniform_nb(streams, at, count)))
    else:
        pile = sm[M_PILES + seat]
        taken = U0
        best_gain = 0
        options = matches
        while options:
            x = lowest_id(options)
            options &= options - U1
            g = greedy_gain(pile, cb | bit(x), yaku_masks, yaku_ints, card_points, stopping)
            if taken == U0 or g > best_gain:
                taken = bit(x)
                best_gain = g
    sm[M_FIELD] = field & ~taken
    sm[M_PILES + seat] |= cb | taken


@nb.njit(cache=True, _nrt=False)
def turns_fast(si, sm, rt, ws, policy_id, streams, at):
    """From a pending ``play``, the turns of a random or greedy rollout played in one loop, the
    draws and choices exactly those of ``random_choose_nb`` / ``greedy_choose_nb`` through
    ``apply_nb``; then the state machine scores the round."""
    params, month, month_mask, card_points, class_masks = rt[0], rt[1], rt[2], rt[3], rt[4]
    yaku_masks, yaku_ints = rt[5], rt[6]
    n = params[EE.P_PLAYERS]
    capture_three_all = params[EE.P_CAPTURE_THREE] == 0
    each_capture = params[EE.P_UCHIKIRI_CHECK] == 1
    stopping_mask = class_masks[K_STOPPING]
    seat = si[I_PEND_SEAT]
    si[I_PEND_KIND] = NO_KIND
    while True:
        hand = sm[M_HANDS + seat]
        if policy_id == POLICY_RANDOM:
            card = kth_id(hand, draw_uniform_nb(streams, at, popcount(hand)))
        else:
            card = greedy_play(hand, sm[M_FIELD], sm[M_PILES + seat], not capture_three_all, month, month_mask,
                               yaku_masks, yaku_ints, card_points, stopping_mask)
        sm[M_HANDS + seat] = hand & ~bit(card)
        resolve_fast(sm, seat, card, policy_id, streams, at, capture_three_all, month, month_mask, yaku_masks,
                     yaku_ints, card_points, stopping_mask)
        if each_capture:
            bits = stopping_yaku(sm[M_PILES + seat], yaku_masks, stopping_mask)
            if bits != U0:
                si[I_WINNER] = seat
                sm[M_STOPPING] = bits
                si[I_PHASE] = P_SCORE
                break
        if si[I_DRAW_LEN] > 0:
            card = si[I_DRAW + si[I_DRAW_START]]
            si[I_DRAW_START] += 1
            si[I_DRAW_LEN] -= 1
            resolve_fast(sm, seat, card, policy_id, streams, at, capture_three_all, month, month_mask, yaku_masks,
                         yaku_ints, card_points, stopping_mask)
        bits = stopping_yaku(sm[M_PILES + seat], yaku_masks, stopping_mask)
        if bits != U0:
            si[I_WINNER] = seat
            sm[M_STOPPING] = bits
            si[I_PHASE] = P_SCORE
            break
        seat = (seat + 1) % n
        while si[I_ACTIVE + seat] == 0:
            seat = (seat + 1) % n
        si[I_SEAT] = seat
        any_cards = False
        for s in range(n):
            if si[I_ACTIVE + s] == 1 and sm[M_HANDS + s] != U0:
                any_cards = True
        if not any_cards:
            si[I_PHASE] = P_SCORE
            break
        si[I_TURN] += 1
    si[I_SEAT] = seat
    advance_nb(si, sm, rt, ws)


@nb.njit(cache=True, _nrt=False)
def rollout_nb(si, sm, rt, ws, rollout_id, streams, at, htables, obs):
    """Play the round to its end, every seat with the rollout policy drawing from one stream
    (the turns of a random or greedy rollout in one loop: ``turns_fast``)."""
    while si[I_DONE] == 0:
        if si[I_PEND_KIND] == KIND_PLAY and rollout_id != POLICY_HEURISTIC:
            turns_fast(si, sm, rt, ws, rollout_id, streams, at)
            continue
        if rollout_id == POLICY_RANDOM:  # called apart: a call with every table costs more than the draw
            index = random_choose_nb(si, sm, streams, at)
        else:
            index = policy_choose_nb(rollout_id, si, sm, rt, ws, streams, at, htables, MAX_SEATS, obs)
        apply_nb(si, sm, rt, ws, index)


@nb.njit(cache=True, _nrt=False)
def objective_nb(si, seat, objective):
    """A finished round's worth to ``seat``: the sign of its payoff (win) or the payoff (score)."""
    payoff = si[I_PAYOFF + seat]
    if objective == OBJECTIVE_WIN:
        return np.int64(1) if payoff > 0 else (np.int64(-1) if payoff < 0 else np.int64(0))
    return payoff


@nb.njit(cache=True, _nrt=False)
def pimc_choose_nb(si, sm, rt, ws, seat, worlds, rollout_id, objective, omniscient, streams, at, htables, sb):
    """Determinized Monte Carlo (``simcore.search`` PIMC): the index of the best action.
    ``omniscient`` (measurement only): every world is the real position, not a sample."""
    n_actions = si[I_PEND_N]
    if n_actions == 1:
        return 0
    world_si, world_sm, x_si, x_sm, totals, obs = sb[0], sb[1], sb[2], sb[3], sb[4], sb[7]
    for i in range(n_actions):
        totals[i] = 0
    for _ in range(worlds):
        if omniscient:
            copy_state_nb(si, sm, world_si, world_sm)
        else:
            sample_hidden_nb(si, sm, rt, ws, seat, streams, at, world_si, world_sm)
        for i in range(n_actions):
            copy_state_nb(world_si, world_sm, x_si, x_sm)
            apply_nb(x_si, x_sm, rt, ws, i)
            rollout_nb(x_si, x_sm, rt, ws, rollout_id, streams, at, htables, obs)
            totals[i] += objective_nb(x_si, seat, objective)
    best = 0
    if rollout_id != POLICY_RANDOM:  # ties go to the rollout policy's own choice (it draws nothing)
        best = policy_choose_nb(rollout_id, si, sm, rt, ws, streams, at, htables, MAX_SEATS, obs)
    for i in range(n_actions):
        if totals[i] > totals[best]:
            best = i
    return best


@nb.njit(cache=True, _nrt=False)
def find_child(nodes, node, key):
    child = nodes[N_FIRST, node]
    while child >= 0:
        if nodes[N_KEY, child] == key:
            return child
        child = nodes[N_NEXT, child]
    return -1


@nb.njit(cache=True, _nrt=False)
def key_index(si, key):
    for i in range(si[I_PEND_N]):
        if si[I_KEYS + i] == key:
            return i
    return -1


@nb.njit(cache=True, _nrt=False)
def ismcts_choose_nb(si, sm, rt, ws, seat, iterations, c, rollout_id, objective, streams, at, htables,
                     log_table, sb):
    """Single-observer ISMCTS (``simcore.search`` ISMCTS): the index of the chosen action."""
    n_actions = si[I_PEND_N]
    if n_actions == 1:
        return 0
    world_si, world_sm, nodes, path, obs = sb[0], sb[1], sb[5], sb[6], sb[7]
    n_nodes = 1
    nodes[N_FIRST, 0] = -1
    nodes[N_LAST, 0] = -1
    nodes[N_NEXT, 0] = -1
    for _ in range(iterations):
        sample_hidden_nb(si, sm, rt, ws, seat, streams, at, world_si, world_sm)
        node = 0
        path_len = 0
        missing = -1
        while world_si[I_DONE] == 0:
            n_keys = world_si[I_PEND_N]
            missing = -1
            for i in range(n_keys):
                if find_child(nodes, node, world_si[I_KEYS + i]) < 0:
                    missing = i
                    break
            if missing >= 0:
                break
            best = -1
            best_value = 0.0
            child = nodes[N_FIRST, node]
            while child >= 0:
                if key_index(world_si, nodes[N_KEY, child]) >= 0:
                    nodes[N_AVAIL, child] += 1
                    visits = nodes[N_VISITS, child]
                    value = nodes[N_TOTAL, child] / visits + c * math.sqrt(log_table[nodes[N_AVAIL, child]] / visits)
                    if best < 0 or value > best_value:
                        best = child
                        best_value = value
                child = nodes[N_NEXT, child]
            apply_nb(world_si, world_sm, rt, ws, key_index(world_si, nodes[N_KEY, best]))
            node = best
            path[path_len] = best
            path_len += 1
        if world_si[I_DONE] == 0:
            mover = world_si[I_PEND_SEAT]
            child = n_nodes
            n_nodes += 1
            nodes[N_KEY, child] = world_si[I_KEYS + missing]
            nodes[N_SEAT, child] = mover
            nodes[N_VISITS, child] = 0
            nodes[N_TOTAL, child] = 0
            nodes[N_AVAIL, child] = 1
            nodes[N_FIRST, child] = -1
            nodes[N_LAST, child] = -1
            nodes[N_NEXT, child] = -1
            if nodes[N_LAST, node] < 0:
                nodes[N_FIRST, node] = child
            else:
                nodes[N_NEXT, nodes[N_LAST, node]] = child
            nodes[N_LAST, node] = child
            apply_nb(world_si, world_sm, rt, ws, missing)
            path[path_len] = child
            path_len += 1
        rollout_nb(world_si, world_sm, rt, ws, rollout_id, streams, at, htables, obs)
        for k in range(path_len):
            n = path[k]
            nodes[N_VISITS, n] += 1
            nodes[N_TOTAL, n] += objective_nb(world_si, nodes[N_SEAT, n], objective)
    best = -1
    child = nodes[N_FIRST, 0]
    while child >= 0:
        if best < 0 or nodes[N_VISITS, child] > nodes[N_VISITS, best]:
            best = child
        child = nodes[N_NEXT, child]
    return key_index(si, nodes[N_KEY, best])


@nb.njit(cache=True, _nrt=False, inline="always")  # one call site; a level fewer to compile
def choose_nb(si, sm, rt, ws, seat_params, seat_c, log_table, htables, streams, sb):
    """The pending decision's answer by its seat's policy (an action index)."""
    seat = si[I_PEND_SEAT]
    policy_id = seat_params[seat, SP_POLICY]
    at = 4 * seat
    if policy_id <= POLICY_HEURISTIC:
        return policy_choose_nb(policy_id, si, sm, rt, ws, streams, at, htables, seat, sb[7])
    if policy_id == POLICY_PIMC or policy_id == POLICY_OMNISCIENT:
        return pimc_choose_nb(si, sm, rt, ws, seat, seat_params[seat, SP_BUDGET], seat_params[seat, SP_ROLLOUT],
                              seat_params[seat, SP_OBJECTIVE], policy_id == POLICY_OMNISCIENT, streams, at,
                              htables, sb)
    return ismcts_choose_nb(si, sm, rt, ws, seat, seat_params[seat, SP_BUDGET], seat_c[seat],
                            seat_params[seat, SP_ROLLOUT], seat_params[seat, SP_OBJECTIVE], streams, at, htables,
                            log_table, sb)


@nb.njit(cache=True)
def new_search_buffers_nb(max_nodes, obs_size):
    """Scratch of one parallel block: (world si, world sm, copy si, copy sm, totals, tree, path, obs)."""
    return (np.empty(N_SI, dtype=np.int64), np.empty(N_SM, dtype=np.uint64),
            np.empty(N_SI, dtype=np.int64), np.empty(N_SM, dtype=np.uint64),
            np.empty(MAX_ACTIONS, dtype=np.int64), np.empty((N_NODE_FIELDS, max_nodes), dtype=np.int64),
            np.empty(MAX_PATH, dtype=np.int64), np.zeros(obs_size, dtype=np.int64))


@nb.njit(cache=True, _nrt=False, inline="always")  # one call site; a level fewer to compile
def play_round_general_nb(seed, round_index, dealer, match, round_in_match, match_points, seat_params, seat_c,
                          log_table, htables, rt, ws, si, sm, streams, sb, out_int, out_mask, row):
    """Play one round through the state machine and write its row (not the match columns)."""
    n = rt[0][EE.P_PLAYERS]
    for s in range(n):
        stream_init_nb(streams, seed, round_index, SEAT_STREAM_BASE + s, 4 * s)
    new_round_nb(si, sm, rt, ws, seed, round_index, dealer, match, round_in_match, match_points)
    while si[I_DONE] == 0:
        index = choose_nb(si, sm, rt, ws, seat_params, seat_c, log_table, htables, streams, sb)
        apply_nb(si, sm, rt, ws, index)
    write_row_nb(si, sm, rt, out_int, out_mask, row)


@nb.njit(cache=True, nogil=True)
def play_units_general_nb(seed, first_unit, lo, hi, rounds_per_match, seat_params, seat_c, log_table, htables,
                          obs_size, max_nodes, rt, out_int, out_mask):
    """Play units ``first_unit + lo .. first_unit + hi - 1`` (``rounds_per_match == 0``:
    independent rounds, else matches) into rows ``lo * stride ..``; ``nogil``, so the thread
    pool (``simcore.kernels.threads``) plays spans of a run side by side."""
    params = rt[0]
    n = params[EE.P_PLAYERS]
    n_teyaku = rt[8].shape[1]
    round_wins = params[EE.P_VARIANT] == EE.VARIANT_S and params[EE.P_S_MATCH_SCORING] == 1
    rotate = params[EE.P_NEXT_DEALER] == 1
    independent = rounds_per_match == 0
    stride = 1 if independent else rounds_per_match
    ws = new_workspace_nb(n_teyaku)
    sb = new_search_buffers_nb(max_nodes, obs_size)
    si = np.empty(N_SI, dtype=np.int64)
    sm = np.empty(N_SM, dtype=np.uint64)
    streams = np.empty(4 * MAX_SEATS, dtype=np.uint64)
    match_points = np.zeros(MAX_SEATS, dtype=np.int64)
    for i in range(lo, hi):
        unit = first_unit + i
        dealer = unit % n
        match_points[:] = 0
        for k in range(stride):
            row = i * stride + k
            round_index = unit if independent else unit * stride + k
            play_round_general_nb(seed, round_index, dealer, unit, 0 if independent else k, match_points,
                                  seat_params, seat_c, log_table, htables, rt, ws, si, sm, streams, sb,
                                  out_int, out_mask, row)
            winner = out_int[EE.C_WINNER, row]
            for s in range(n):
                if round_wins:
                    match_points[s] += 1 if winner == s else 0
                else:
                    match_points[s] += out_int[EE.C_PAYOFF + s, row]
            out_int[EE.C_MATCH, row] = unit
            out_int[EE.C_ROUND_IN_MATCH, row] = k
            out_int[EE.C_MATCH_END, row] = 1 if k == stride - 1 else 0
            for s in range(MAX_SEATS):
                out_int[EE.C_MATCH_POINTS + s, row] = match_points[s]
            if winner >= 0:
                dealer = (dealer + 1) % n if rotate else winner
