"""Numba general round kernel for Tensho: every policy, the search players included.

Contract
--------
``play_units_general_nb`` plays units (independent rounds or matches, as
``kernel_nb.play_units_nb``) through the state machine of ``state_nb``, asking each seat's
policy at each decision: ``random`` and ``greedy`` exactly as the reference policies (the same
stream draws), ``heuristic`` through ``heuristic_nb.heuristic_choose_nb``, ``pimc`` and
``ismcts`` as ``simcore.search`` defines them (section 2 of the search contract): both draw only
from their seat's stream, sample worlds with ``state_nb.sample_hidden_nb`` and play them out
with their rollout policy, every seat of a rollout drawing from the searching seat's stream.
``omniscient`` (measurement only) is ``pimc`` whose every world is the real position; the game
offers it on the reference engine only, so only direct callers of the wrapper reach it here.

Arguments: ``policy_ids`` int32[2]; ``policy_params`` int64[2, N_PARAMS] (``PARAM_*``);
``policy_c`` float64[2] (ISMCTS's exploration constant); ``heuristic_tables``
int64[3, heuristic_nb.T_SIZE]: ``heuristic_tables(compiled, spec)`` of seat 0, of seat 1 and of
the rollouts' heuristic (its defaults); ``log_tables`` float64[2, L]: row ``seat`` holds
``simcore.search.log_table(iterations)`` of an ISMCTS seat (the very numbers the reference
reads), zero-padded; ``rt`` int64[state_nb.R_SIZE], ``state_nb.rule_table(compiled)``; the rule
arrays in ``CompiledTensho.kernel_args()`` order; the output
matrices as ``play_units_nb``'s.  Each parallel block allocates its scratch once.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from simcore.games.tensho import enums as E
from simcore.games.tensho import heuristic_nb as H
from simcore.games.tensho import state_nb as S
from simcore.kernels.policy_ids import (
    OBJECTIVE_WIN,
    POLICY_GREEDY,
    POLICY_ISMCTS,
    POLICY_OMNISCIENT,
    POLICY_PIMC,
    POLICY_RANDOM,
)
from simcore.rng import SEAT_STREAM_BASE, round_hash_nb, stream_init_hashed_nb

PARAM_YAKU_SET = 0  # greedy: the yaku set it prefers
PARAM_BUDGET = 1  # pimc: worlds; ismcts: iterations
PARAM_ROLLOUT = 2  # search: the rollout policy's id
PARAM_OBJECTIVE = 3  # search: OBJECTIVE_WIN or OBJECTIVE_SCORE
N_PARAMS = 4
ROLLOUT_TABLE = 2  # the row of ``heuristic_tables`` the rollouts' heuristic reads
MAX_PATH = 64  # decisions of a round, more than enough
# the tree's rows (``ismcts_nb``)
T_KEY = 0
T_SEAT = 1
T_VISITS = 2
T_TOTAL = 3
T_AVAIL = 4
T_FIRST = 5
T_NEXT = 6
T_LAST = 7
T_ROWS = 8


@nb.njit(cache=True, _nrt=False)
def observe_nb(st, seat, obs):
    """Pack ``seat``'s observation of ``st`` into ``obs`` (int64[>= OBS_SIZE], the layout of
    ``heuristic_nb.pack_observation``; ``OBS_CARD`` is the card of a pending capture, else -1)."""
    obs[H.OBS_SEAT] = seat
    obs[H.OBS_DEALER] = st[S.ST_DEALER]
    obs[H.OBS_YAKU_SET] = st[S.ST_YAKU_SET]
    obs[H.OBS_ROUND_IN_MATCH] = st[S.ST_ROUND_IN_MATCH]
    obs[H.OBS_MATCH_POINTS] = st[S.ST_MATCH_POINTS]
    obs[H.OBS_MATCH_POINTS + 1] = st[S.ST_MATCH_POINTS + 1]
    obs[H.OBS_HAND] = st[S.ST_HAND + seat]
    obs[H.OBS_FIELD] = st[S.ST_FIELD]
    obs[H.OBS_PILES] = st[S.ST_PILE]
    obs[H.OBS_PILES + 1] = st[S.ST_PILE + 1]
    obs[H.OBS_SEEN] = st[S.ST_SEEN]
    obs[H.OBS_DRAW_SIZE] = S.DRAW_SIZE - st[S.ST_DRAW_TOP]
    obs[H.OBS_TURN] = st[S.ST_TURN]
    obs[H.OBS_CARD] = st[S.ST_CARD] if st[S.ST_KIND] == S.K_CAPTURE else -1


@nb.njit(cache=True)
def heuristic_index_nb(st, table, obs):
    """The heuristic policy's choice at ``st``'s pending decision (``heuristic_nb``), deciding
    from the deciding seat's packed observation only; ``table`` its ``heuristic_tables``.

    Compiled with reference counting, unlike its callers: compiled without it, this call to
    ``heuristic_choose_nb`` measured 2.7 instead of 1.1 microseconds (numba 0.68)."""
    observe_nb(st, st[S.ST_DSEAT], obs)
    n = st[S.ST_N]
    return H.heuristic_choose_nb(st[S.ST_KIND], obs, st[S.ST_KEYS:S.ST_KEYS + S.MAX_ACTIONS], n, table)


@nb.njit(inline="always", cache=True)
def basic_index_nb(st, policy_id, preferred_set, table, obs, states, at, rules):
    """The choice of a policy that does not search (random, greedy or heuristic) at ``st``'s
    pending decision; random draws from the stream at ``states[at:]``."""
    if policy_id == POLICY_RANDOM:
        return S.random_index_nb(st, states, at)
    if policy_id == POLICY_GREEDY:
        return S.greedy_index_nb(st, preferred_set, rules)
    return heuristic_index_nb(st, table, obs)


@nb.njit(cache=True, _nrt=False)
def rollout_nb(x, rollout_id, table, obs, states, at, seed, rt, rules, ids, dstates):
    """Play ``x`` to its end with ``rollout_id`` in every seat (greedy with its default set 1)."""
    while x[S.ST_DONE] == 0:
        index = basic_index_nb(x, rollout_id, np.int64(1), table, obs, states, at, rules)
        S.apply_nb(x, index, seed, rt, ids, dstates)


@nb.njit(inline="always", cache=True)
def objective_nb(x, seat, objective):
    """The searching objective of the ended round ``x`` for ``seat``."""
    payoff = x[S.ST_PAYOFF + seat]
    if objective == OBJECTIVE_WIN:
        return 1 if payoff > 0 else (-1 if payoff < 0 else 0)
    return payoff


@nb.njit(cache=True, _nrt=False)
def pimc_index_nb(st, worlds, rollout_id, objective, table, obs, states, at, seed, rt, rules, ids, dstates,
                  world, x, totals, omniscient):
    """PIMC at ``st``'s pending decision: each action played out in ``worlds`` sampled worlds;
    the action of the largest total (ties: the rollout policy's own choice when it is greedy or
    heuristic, else the lowest index).  ``omniscient`` (the measurement
    policy): every world is the real position, a copy of ``st``, and no world is dealt."""
    n = st[S.ST_N]
    if n == 1:
        return 0
    seat = st[S.ST_DSEAT]
    for i in range(n):
        totals[i] = 0
    for _ in range(worlds):
        if omniscient:
            for j in range(S.ST_SIZE):
                world[j] = st[j]
        else:
            S.sample_hidden_nb(st, world, seat, states, at, rt, ids)
        for i in range(n):
            for j in range(S.ST_SIZE):
                x[j] = world[j]
            S.apply_nb(x, i, seed, rt, ids, dstates)
            rollout_nb(x, rollout_id, table, obs, states, at, seed, rt, rules, ids, dstates)
            totals[i] += objective_nb(x, seat, objective)
    best = 0
    if rollout_id != POLICY_RANDOM:  # ties go to the rollout policy's own choice (it draws nothing)
        best = basic_index_nb(st, rollout_id, np.int64(1), table, obs, states, at, rules)
    for i in range(n):
        if totals[i] > totals[best]:
            best = i
    return best


@nb.njit(inline="always", cache=True)
def find_child(tree, node, key):
    """The child of ``node`` with action ``key`` (-1: none)."""
    child = tree[T_FIRST, node]
    while child >= 0:
        if tree[T_KEY, child] == key:
            return child
        child = tree[T_NEXT, child]
    return -1


@nb.njit(cache=True, _nrt=False)
def ismcts_index_nb(st, iterations, c, rollout_id, objective, table, obs, states, at, seed, rt, rules, ids,
                    dstates, world, tree, path, log_table):
    """Single-observer ISMCTS at ``st``'s pending decision (the search contract's section 2):
    ``iterations`` determinizations, availability-corrected UCB with constant ``c``; the root
    action whose child has the most visits (ties: the earliest created)."""
    n = st[S.ST_N]
    if n == 1:
        return 0
    seat = st[S.ST_DSEAT]
    tree[T_FIRST, 0] = -1
    tree[T_LAST, 0] = -1
    n_nodes = 1
    for _ in range(iterations):
        S.sample_hidden_nb(st, world, seat, states, at, rt, ids)
        node = 0
        depth = 0
        mover = -1
        while world[S.ST_DONE] == 0:
            m = world[S.ST_N]
            mover = world[S.ST_DSEAT]
            missing = False
            for i in range(m):
                if find_child(tree, node, world[S.ST_KEYS + i]) < 0:
                    missing = True
                    break
            if missing:
                break
            best = -1
            best_value = 0.0
            child = tree[T_FIRST, node]
            while child >= 0:
                key = tree[T_KEY, child]
                available = False
                for i in range(m):
                    if world[S.ST_KEYS + i] == key:
                        available = True
                        break
                if available:
                    tree[T_AVAIL, child] += 1
                    visits = tree[T_VISITS, child]
                    value = tree[T_TOTAL, child] / visits + c * math.sqrt(log_table[tree[T_AVAIL, child]] / visits)
                    if best < 0 or value > best_value:
                        best = child
                        best_value = value
                child = tree[T_NEXT, child]
            key = tree[T_KEY, best]
            index = 0
            for i in range(m):
                if world[S.ST_KEYS + i] == key:
                    index = i
                    break
            S.apply_nb(world, index, seed, rt, ids, dstates)
            node = best
            path[depth] = best
            depth += 1
        if world[S.ST_DONE] == 0:
            m = world[S.ST_N]
            index = 0
            for i in range(m):
                if find_child(tree, node, world[S.ST_KEYS + i]) < 0:
                    index = i
                    break
            new = n_nodes
            n_nodes += 1
            tree[T_KEY, new] = world[S.ST_KEYS + index]
            tree[T_SEAT, new] = mover
            tree[T_VISITS, new] = 0
            tree[T_TOTAL, new] = 0
            tree[T_AVAIL, new] = 1
            tree[T_FIRST, new] = -1
            tree[T_LAST, new] = -1
            tree[T_NEXT, new] = -1
            if tree[T_LAST, node] < 0:
                tree[T_FIRST, node] = new
            else:
                tree[T_NEXT, tree[T_LAST, node]] = new
            tree[T_LAST, node] = new
            S.apply_nb(world, index, seed, rt, ids, dstates)
            path[depth] = new
            depth += 1
        rollout_nb(world, rollout_id, table, obs, states, at, seed, rt, rules, ids, dstates)
        for d in range(depth):
            p = path[d]
            tree[T_VISITS, p] += 1
            tree[T_TOTAL, p] += objective_nb(world, tree[T_SEAT, p], objective)
    best = -1
    child = tree[T_FIRST, 0]
    while child >= 0:
        if best < 0 or tree[T_VISITS, child] > tree[T_VISITS, best]:
            best = child
        child = tree[T_NEXT, child]
    key = tree[T_KEY, best]
    for i in range(n):
        if st[S.ST_KEYS + i] == key:
            return i
    return 0


@nb.njit(cache=True, _nrt=False)
def decide_nb(st, policy_ids, policy_params, policy_c, heuristic_tables, log_tables, states, seed, rt, rules,
              ids, dstates, world, x, totals, tree, path, obs):
    """The index of the action the pending decision's seat takes, by its policy."""
    seat = st[S.ST_DSEAT]
    policy_id = np.int64(policy_ids[seat])
    at = 4 * seat
    if policy_id == POLICY_PIMC or policy_id == POLICY_OMNISCIENT:
        return pimc_index_nb(st, policy_params[seat, PARAM_BUDGET], policy_params[seat, PARAM_ROLLOUT],
                             policy_params[seat, PARAM_OBJECTIVE], heuristic_tables[ROLLOUT_TABLE], obs, states,
                             at, seed, rt, rules, ids, dstates, world, x, totals,
                             policy_id == POLICY_OMNISCIENT)
    if policy_id == POLICY_ISMCTS:
        return ismcts_index_nb(st, policy_params[seat, PARAM_BUDGET], policy_c[seat],
                               policy_params[seat, PARAM_ROLLOUT], policy_params[seat, PARAM_OBJECTIVE],
                               heuristic_tables[ROLLOUT_TABLE], obs, states, at, seed, rt, rules, ids, dstates,
                               world, tree, path, log_tables[seat])
    return basic_index_nb(st, policy_id, policy_params[seat, PARAM_YAKU_SET], heuristic_tables[seat], obs,
                          states, at, rules)


@nb.njit(cache=True, _nrt=False)
def play_round_general_nb(st, seed, round_index, dealer, alternate_index, round_in_match, points0, points1,
                          policy_ids, policy_params, policy_c, heuristic_tables, log_tables, rt, rules, states,
                          ids, dstates, world, x, totals, tree, path, obs):
    """Play one round to its end in ``st`` (the seats' streams in ``states[0:8]``)."""
    h = round_hash_nb(seed, round_index)
    stream_init_hashed_nb(states, h, SEAT_STREAM_BASE, 0)
    stream_init_hashed_nb(states, h, SEAT_STREAM_BASE + 1, 4)
    S.new_round_nb(st, seed, round_index, dealer, alternate_index, round_in_match, points0, points1, rt,
                   ids, dstates)
    while st[S.ST_DONE] == 0:
        index = decide_nb(st, policy_ids, policy_params, policy_c, heuristic_tables, log_tables, states, seed,
                          rt, rules, ids, dstates, world, x, totals, tree, path, obs)
        S.apply_nb(st, index, seed, rt, ids, dstates)


@nb.njit(cache=True)
def play_block_general_nb(seed, first_unit, lo, hi, rounds_per_match, stride, policy_ids, policy_params,
                          policy_c, heuristic_tables, log_tables, rt, rules, out_int, out_mask):
    """Units ``first_unit + lo .. first_unit + hi - 1`` into rows ``lo * stride ..`` (the unit
    loop of ``kernel_nb.play_block_nb``)."""
    params = rules[0]
    st = np.zeros(S.ST_SIZE, dtype=np.int64)
    world = np.zeros(S.ST_SIZE, dtype=np.int64)
    x = np.zeros(S.ST_SIZE, dtype=np.int64)
    ids = np.zeros(S.IDS_SIZE, dtype=np.int64)
    states = np.zeros(8, dtype=np.uint64)
    dstates = np.zeros(4, dtype=np.uint64)
    totals = np.zeros(S.MAX_ACTIONS, dtype=np.int64)
    n_tree = 2
    for seat in range(2):
        if policy_ids[seat] == POLICY_ISMCTS:
            n_tree = max(n_tree, policy_params[seat, PARAM_BUDGET] + 2)
    tree = np.zeros((T_ROWS, n_tree), dtype=np.int64)
    path = np.zeros(MAX_PATH, dtype=np.int64)
    obs = np.zeros(64, dtype=np.int64)
    by_wins = params[E.P_MATCH_SCORING] == 0
    independent = rounds_per_match == 0
    n_rounds = 1 if independent else stride
    for i in range(lo, hi):
        unit = first_unit + i
        points0 = np.int64(0)  # typed, not a literal: one signature for the round's callees
        points1 = np.int64(0)
        dealer = unit % 2
        last_row = i * stride
        for k in range(n_rounds):
            if k >= rounds_per_match and points0 != points1 and not independent:
                break
            row = i * stride + k
            round_index = unit if independent else unit * stride + k
            alternate_index = unit if independent else k
            play_round_general_nb(st, seed, round_index, dealer, alternate_index, k, points0, points1,
                                  policy_ids, policy_params, policy_c, heuristic_tables, log_tables, rt, rules,
                                  states, ids, dstates, world, x, totals, tree, path, obs)
            S.write_row_nb(st, out_int, out_mask, row, rt)
            winner = st[S.ST_WINNER]
            if by_wins:
                if winner == 0:
                    points0 += 1
                elif winner == 1:
                    points1 += 1
            else:
                points0 += st[S.ST_SCORE]
                points1 += st[S.ST_SCORE + 1]
            out_int[E.C_MATCH, row] = unit
            out_int[E.C_ROUND_IN_MATCH, row] = k
            out_int[E.C_MATCH_END, row] = 0
            out_int[E.C_MATCH_POINTS, row] = points0
            out_int[E.C_MATCH_POINTS + 1, row] = points1
            last_row = row
            if winner >= 0:
                dealer = winner
        out_int[E.C_MATCH_END, last_row] = 1
        for row in range(last_row + 1, (i + 1) * stride):
            out_int[E.C_VALID, row] = 0


@nb.njit(cache=True, nogil=True)
def play_units_general_nb(seed, first_unit, lo, hi, rounds_per_match, stride, policy_ids, policy_params,
                          policy_c, heuristic_tables, log_tables, rt, params, rank, rank_mask, deal_order, yaku_mask,
                          yaku_points, yaku_in_set, yaku_instant, supersedes, greedy_weight, card_value,
                          chaff_mask, out_int, out_mask):
    """Play units ``first_unit + lo .. first_unit + hi - 1`` (``rounds_per_match == 0``:
    independent rounds) into rows ``lo * stride ..``; ``nogil``, so the thread pool
    (``simcore.kernels.threads``) plays spans of a run side by side."""
    rules = (params, rank, rank_mask, deal_order, yaku_mask, yaku_points, yaku_in_set, yaku_instant,
             supersedes, greedy_weight, card_value, chaff_mask)
    play_block_general_nb(seed, first_unit, lo, hi, rounds_per_match, stride, policy_ids, policy_params,
                          policy_c, heuristic_tables, log_tables, rt, rules, out_int, out_mask)
