"""The learned player in numba, written once over the round contract (``simcore.kernels.contract``)
for every game: its choice (``learned_choose_nb``), its rollouts, and the self-play that labels
positions with search for ``fudasim train`` (``collect_nb``).

Contract
--------
A learned player's **table** is one int64 array (``simcore.learned.learned_table`` builds it;
the general kernel carries it in the seat's row of the policy tables):

* ``table[L_MAGIC]`` is ``MAGIC``; ``table[L_FEATURES]`` the game's feature count F;
  ``table[L_SLOTS]`` the rows of weights; ``table[L_AUX]`` and ``table[L_AUX_SIZE]`` where the
  game's auxiliary tables start and how long they are;
* ``table[L_WEIGHTS + slot * F + f]``: the integer weight of feature ``f`` in row ``slot``;
* ``table[L_BIAS]``: 0, or (a value model's table, ``simcore.learned.value_table``) where one
  bias a row starts; ``table[L_UNIT]`` its unit (0: not a value table);
* ``table[L_TREES]``: 0, or where the trees start (``simcore.models.Tree``): at
  ``T = table[L_TREES]``, ``table[T + 2 * slot]`` is where row ``slot``'s trees start and
  ``table[T + 2 * slot + 1]`` how many it has; each tree is its node count, then two integers a
  node: its threshold (a leaf: its value), then its feature plus one (a leaf: 0), its left child
  and its right child, ``NODE_BITS`` bits each (``simcore.learned``'s ``_node``; two integers,
  not four, so that a forest of 300 trees of 63 leaves a kind reads half the memory).

At a decision the game's ``learned_features_nb`` gives every legal action's integer features
from the deciding seat's observation and the row ``slot`` of weights; each action scores
``sum_f weight[slot, f] * feature[action, f]`` plus the leaf each of the row's trees reaches
(int64; the model files bound weights and leaves and the games bound features so that no sum
overflows), and the player takes the highest score, ties to the lowest index. It draws nothing.
A value table's estimate of a position (``value_nb``) is the highest score plus the row's bias,
in ``table[L_UNIT]`` points an objective point. The reference engine computes the same integers in
Python (``simcore.learned.choose``), so both engines decide identically.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.kernels import contract as C
from simcore.kernels.choice_nb import basic_choice_nb, objective_nb
from simcore.kernels.internal import internal_nb
from simcore.kernels.policy_ids import POLICY_LEARNED
from simcore.rng import round_hash_nb, stream_init_hashed_nb, uniform_below_nb

__all__ = ["L_AUX", "L_AUX_SIZE", "L_BIAS", "L_FEATURES", "L_MAGIC", "L_SLOTS", "L_TREES", "L_UNIT", "L_WEIGHTS", "MAGIC", "NODE_BITS", "NODE_FIELD",
           "clear_rows_nb", "collect_nb", "copy_row_nb", "hidden_check_nb", "learned_choose_nb", "learned_rollout_nb",
           "ranked_nb", "value_nb"]

MAGIC = 0x4C524E31  # "LRN1"
L_MAGIC = 0
L_FEATURES = 1
L_SLOTS = 2
L_AUX = 3
L_AUX_SIZE = 4
L_TREES = 5
L_BIAS = 6
L_UNIT = 7
L_WEIGHTS = 8
NODE_BITS = 20  # a tree node's feature plus one, left and right child: this many bits each
NODE_FIELD = (1 << NODE_BITS) - 1

# the streams of a labelled round (``collect_nb``): the behaviour's exploration and the teacher's worlds
EXPLORE_STREAM = 900
TEACHER_STREAM = 901


@internal_nb(cache=True, _nrt=False)
def clear_rows_nb(out, lo, hi):
    """Zero rows ``lo .. hi - 1`` of a decision's feature rows ``out`` (int64[rows, features])."""
    for row in range(lo, hi):
        for f in range(out.shape[1]):
            out[row, f] = 0


@internal_nb(cache=True, _nrt=False)
def copy_row_nb(out, src, dst):
    """Copy feature row ``src`` of ``out`` onto row ``dst``."""
    for f in range(out.shape[1]):
        out[dst, f] = out[src, f]


@nb.njit(inline="always", cache=True)
def aux_of(table):
    """The game's auxiliary tables inside a learned table."""
    return table[table[L_AUX]:table[L_AUX] + table[L_AUX_SIZE]]


@nb.njit(inline="always", cache=True)
def score_nb(table, slot, features, i):
    """Action ``i``'s score: row ``slot`` of the weights times its features."""
    n_features = table[L_FEATURES]
    base = L_WEIGHTS + slot * n_features
    total = np.int64(0)
    for f in range(n_features):
        total += table[base + f] * features[i, f]
    return total


@nb.njit(inline="always", cache=True)
def heuristic_index_nb(features, n):
    """The heuristic's action: the first whose feature 0 is 1 (none: the first)."""
    h = 0
    for i in range(n - 1, -1, -1):
        if features[i, 0] == 1:
            h = i
    return h


@nb.njit(inline="always", cache=True)
def total_nb(table, slot, features, i, h):
    """Action ``i``'s score with the leaves it reaches in row ``slot``'s trees (``h``: the
    heuristic's action, which the relative features are measured from)."""
    n_features = table[L_FEATURES]
    total = score_nb(table, slot, features, i)
    if table[L_TREES] == 0:
        return total
    at = table[table[L_TREES] + 2 * slot]
    for _ in range(table[table[L_TREES] + 2 * slot + 1]):
        node = at + 1
        while True:
            packed = table[node + 1]
            f = (packed & NODE_FIELD) - 1
            if f < 0:
                break
            x = features[i, f] if f < n_features else features[i, f - n_features] - features[h, f - n_features]
            child = (packed >> NODE_BITS) & NODE_FIELD if x <= table[node] else packed >> (2 * NODE_BITS)
            node = at + 1 + 2 * child
        total += table[node]
        at += 1 + 2 * table[at]
    return total


@nb.njit(inline="always", cache=True)
def ranked_nb(table, slot, features, n):
    """The action of the highest ``total_nb`` (ties: the lowest index), that score, and how far
    it leads the highest of the other actions' (0 where one scores as high; one action: 0), as
    ``simcore.learned.ranked``."""
    h = heuristic_index_nb(features, n)
    best = 0
    best_score = np.int64(0)
    second = np.int64(0)
    for i in range(n):
        total = total_nb(table, slot, features, i, h)
        if i == 0 or total > best_score:
            if i > 0:
                second = best_score
            best = i
            best_score = total
        elif i == 1 or total > second:
            second = total
    return best, best_score, best_score - second if n > 1 else np.int64(0)


@nb.njit(inline="always", cache=True)
def best_nb(table, slot, features, n):
    """The action of the highest ``total_nb`` (ties: the lowest index) and that score."""
    best, score, _ = ranked_nb(table, slot, features, n)
    return best, score


@internal_nb(cache=True, _nrt=False)
def tree_choice_nb(table, slot, features, n):
    """``learned_choose_nb``'s choice where the weight row ``slot`` has trees."""
    return best_nb(table, slot, features, n)[0]


@internal_nb(cache=True, _nrt=False)
def learned_choose_nb(ctx, state, table):
    """The index of the action the learned player of ``table`` takes at ``state``'s pending
    decision (module docstring); no draw."""
    n = C.n_actions_nb(ctx, state)
    if n == 1:
        return 0
    features, slot = C.learned_features_nb(ctx, state, aux_of(table))
    if table[L_TREES] != 0 and table[table[L_TREES] + 2 * slot + 1] > 0:
        return tree_choice_nb(table, slot, features, n)
    best = 0
    best_score = score_nb(table, slot, features, 0)
    for i in range(1, n):
        s = score_nb(table, slot, features, i)
        if s > best_score:
            best = i
            best_score = s
    return best


@internal_nb(cache=True, _nrt=False)
def value_nb(ctx, state, table):
    """The value table ``table``'s estimate of ``state`` for the seat to act (module docstring):
    the highest action score plus the row's bias, in ``table[L_UNIT]`` points an objective point."""
    features, slot = C.learned_features_nb(ctx, state, aux_of(table))
    return best_nb(table, slot, features, C.n_actions_nb(ctx, state))[1] + table[table[L_BIAS] + slot]


@internal_nb(cache=True, _nrt=False)
def learned_rollout_nb(ctx, x, table):
    """Play ``x`` to its end with the learned player of ``table`` in every seat."""
    while not C.done_nb(ctx, x):
        C.apply_nb(ctx, x, learned_choose_nb(ctx, x, table))


@internal_nb(cache=True, _nrt=False)
def basic_rollout_nb(ctx, x, policy_id, table, streams, at):
    """Play ``x`` to its end with the ``choice_nb.basic_choice_nb`` of ``policy_id`` (tables
    ``table``) in every seat, as ``search_nb.playout_nb`` does."""
    while not C.done_nb(ctx, x):
        if C.rollout_turns_nb(ctx, x, policy_id, streams, at):
            continue
        C.apply_nb(ctx, x, basic_choice_nb(ctx, x, policy_id, np.int64(0), table, streams, at, True, True))


@internal_nb(cache=True, _nrt=False)
def _choose(ctx, state, policy_id, table, heuristic_table, streams):
    """The behaviour's choice: the learned player of ``table``, or the ``choice_nb.basic_choice_nb``
    of ``policy_id`` with the heuristic's tables."""
    if policy_id == POLICY_LEARNED:
        return learned_choose_nb(ctx, state, table)
    return basic_choice_nb(ctx, state, policy_id, np.int64(0), heuristic_table, streams, 0, True, True)


@internal_nb(cache=True, _nrt=False)
def _label_round_nb(ctx, state, world, x, streams, totals, points, seed, round_index, row, end, behaviour_id,
                    rollout_id, table, heuristic_table, worlds, truth, objective, explore_permille, label_permille,
                    out_features, out_q, out_slot, out_decision):
    """One round of ``collect_nb``, its rows from ``row`` (below ``end``); returns the row after them."""
    n_features = out_features.shape[1]
    h = round_hash_nb(seed, round_index)
    stream_init_hashed_nb(streams, h, EXPLORE_STREAM, 0)
    stream_init_hashed_nb(streams, h, TEACHER_STREAM, 4)
    C.start_round_nb(ctx, state, round_index, 0, round_index, True, round_index % C.n_seats_nb(ctx), points)
    decision = 0
    while not C.done_nb(ctx, state):
        n = C.n_actions_nb(ctx, state)
        if n >= 2 and row + n <= end and uniform_below_nb(streams, 1000, 0) < label_permille:
            seat = C.to_act_nb(ctx, state)
            features, slot = C.learned_features_nb(ctx, state, aux_of(table))
            for i in range(n):
                for f in range(n_features):
                    out_features[row + i, f] = features[i, f]
                out_slot[row + i] = slot
                out_decision[row + i] = decision
                totals[i] = 0
            for _ in range(worlds):
                if truth:
                    C.copy_state_nb(ctx, state, world)
                else:
                    C.sample_hidden_nb(ctx, state, seat, streams, 4, world)
                for i in range(n):
                    C.copy_state_nb(ctx, world, x)
                    C.apply_nb(ctx, x, i)
                    if rollout_id == POLICY_LEARNED:
                        learned_rollout_nb(ctx, x, table)
                    else:
                        basic_rollout_nb(ctx, x, rollout_id, heuristic_table, streams, 4)
                    totals[i] += objective_nb(ctx, x, seat, objective)
            for i in range(n):
                out_q[row + i] = totals[i]
            row += n
        decision += 1
        if n >= 2 and uniform_below_nb(streams, 1000, 0) < explore_permille:
            index = uniform_below_nb(streams, n, 0)
        else:
            index = _choose(ctx, state, behaviour_id, table, heuristic_table, streams)
        C.apply_nb(ctx, state, index)
    return row


@nb.njit(cache=True, nogil=True)
def collect_nb(rules, seed, first_round, lo, hi, behaviour_id, rollout_id, table, heuristic_table, worlds, truth,
               objective, explore_permille, label_permille, cap, out_features, out_q, out_slot, out_decision,
               out_count):
    """Self-play rounds ``first_round + lo .. first_round + hi - 1`` labelled by search.

    Every seat plays the behaviour policy (``behaviour_id``: ``POLICY_LEARNED``, the learned player
    of ``table``, or ``POLICY_HEURISTIC`` with ``heuristic_table``), taking a uniformly random action
    instead with ``explore_permille`` per mille. A decision with two or more actions is labelled
    with ``label_permille`` per mille: its actions' features (``learned_features_nb``, the deciding
    seat's view, with the auxiliary tables of ``table``) and each action's total objective over
    ``worlds`` worlds the seat cannot tell apart (``truth``: the real position, every time), the
    action played in each world and the round finished by ``rollout_id`` (learned or heuristic,
    as the behaviour) in every seat
    (common random numbers: every action meets the same worlds). Round ``r`` writes at most
    ``cap`` rows from row ``r * cap``: ``out_features`` int64[rows, F], ``out_q``
    int64[rows] the totals, ``out_slot`` int64[rows] and ``out_decision`` int64[rows] (the
    decision's number in its round); ``out_count[r]`` is how many it wrote. Every round is
    dealt by seat ``round % seats`` with no match points; its draws come from streams of
    ``(seed, round)`` only, so a round's rows do not depend on threads.
    """
    ctx = C.context_nb(rules, seed)
    state = C.new_state_nb(ctx)
    world = C.new_state_nb(ctx)
    x = C.new_state_nb(ctx)
    streams = np.zeros(8, dtype=np.uint64)
    points = np.zeros(C.MAX_ACTIONS, dtype=np.int64)
    totals = np.zeros(C.MAX_ACTIONS, dtype=np.int64)
    for r in range(lo, hi):
        start = r * cap
        row = _label_round_nb(ctx, state, world, x, streams, totals, points, seed, first_round + r, start,
                              start + cap, behaviour_id, rollout_id, table, heuristic_table, worlds, truth, objective,
                              explore_permille, label_permille, out_features, out_q, out_slot, out_decision)
        out_count[r] = row - start


@nb.njit(cache=True)
def hidden_check_nb(rules, seed, round_index, table, heuristic_table, worlds, scratch):
    """Guarantee 6 for the learned player in the kernel, over the contract: play round
    ``round_index`` with the heuristic in every seat and, at every decision with two or more
    actions, deal ``worlds`` worlds the deciding seat cannot tell apart (``sample_hidden_nb``)
    and compare its features, weight row and choice there with the real position's.
    ``scratch`` int64[>= MAX_ACTIONS, F]. Returns ``(decisions checked, differences found)``."""
    ctx = C.context_nb(rules, seed)
    state = C.new_state_nb(ctx)
    world = C.new_state_nb(ctx)
    streams = np.zeros(8, dtype=np.uint64)
    points = np.zeros(C.MAX_ACTIONS, dtype=np.int64)
    stream_init_hashed_nb(streams, round_hash_nb(seed, round_index), TEACHER_STREAM + 1, 4)
    C.start_round_nb(ctx, state, round_index, 0, round_index, True, round_index % C.n_seats_nb(ctx), points)
    checked = 0
    differences = 0
    while not C.done_nb(ctx, state):
        n = C.n_actions_nb(ctx, state)
        if n >= 2:
            seat = C.to_act_nb(ctx, state)
            features, slot = C.learned_features_nb(ctx, state, aux_of(table))
            for i in range(n):
                for f in range(features.shape[1]):
                    scratch[i, f] = features[i, f]
            choice = learned_choose_nb(ctx, state, table)
            for _ in range(worlds):
                C.sample_hidden_nb(ctx, state, seat, streams, 4, world)
                other, other_slot = C.learned_features_nb(ctx, world, aux_of(table))
                same = other_slot == slot and C.n_actions_nb(ctx, world) == n
                for i in range(n):
                    for f in range(features.shape[1]):
                        if other[i, f] != scratch[i, f]:
                            same = False
                if not same or learned_choose_nb(ctx, world, table) != choice:
                    differences += 1
            checked += 1
        C.apply_nb(ctx, state, C.heuristic_choice_nb(ctx, state, heuristic_table))
    return checked, differences
