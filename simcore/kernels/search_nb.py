"""The search players in numba, written once over the round contract (``simcore.kernels.contract``)
for every game: PIMC (``omniscient`` is PIMC whose worlds are the real position), single-observer
ISMCTS, their rollouts, and the choice of a seat's action by its policy (``decide_nb``).

Contract
--------
They follow the reference search (``simcore.search``) step for step, so a game's general kernel
writes the reference engine's rows: a search player draws only from its seat's stream (at
``4 * seat`` of ``streams``), in the reference's order, with its tie rules; its rollouts play
every seat with the rollout policy, all drawing from that same stream.

Policy arrays (``simcore.kernels.policy_rows`` packs them): ``params`` int64[seats + 1,
N_PARAMS], row ``seat`` the seat's policy (columns ``P_*``), the last row the rollout policies'
defaults; ``c`` float64[seats], ISMCTS's exploration constant; ``tables`` int64[seats + 1, T],
the heuristic's tables of each heuristic seat and, in the last row, of the rollouts' heuristic;
``log_table`` float64[>= iterations + 1], ``simcore.search.log_table`` (the reference's own
numbers). ``Scratch`` is one kernel thread's: ``new_scratch_nb``.

``greedy``, ``heuristic``, ``pimc``, ``ismcts`` and ``learned`` are the fields of ``policy_rows``'
``PolicyKinds``, passed as arguments of their own: True when some seat (or rollout) plays that
policy, None when none does. numba drops a branch on ``x is not None`` when ``x`` is a None
argument before it types it, so a kernel compiles only the policies its seats play (see
``choice_nb.basic_choice_nb``).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba as nb
import numpy as np

from simcore.kernels import contract as C
from simcore.kernels.choice_nb import basic_choice_nb
from simcore.kernels.learned_nb import learned_choose_nb
from simcore.kernels.policy_ids import (
    OBJECTIVE_WIN,
    POLICY_ISMCTS,
    POLICY_LEARNED,
    POLICY_OMNISCIENT,
    POLICY_PIMC,
    POLICY_RANDOM,
)
from simcore.kernels.policy_rows import P_BASIC, P_BUDGET, P_OBJECTIVE, P_POLICY, P_ROLLOUT

__all__ = ["Scratch", "basic_choice_nb", "decide_nb", "decide_once_nb", "ismcts_nb", "new_scratch_nb", "pimc_nb",
           "rollout_nb"]

# the ISMCTS tree: int64[T_ROWS, nodes], a node a column
T_KEY = 0  # the action key that leads to the node
T_SEAT = 1  # the seat that took it
T_VISITS = 2
T_TOTAL = 3  # the sum of the seat's objective over the node's visits
T_AVAIL = 4  # how often the node's action was available at its parent
T_FIRST = 5  # first child (-1: none)
T_NEXT = 6  # next sibling (-1: none)
T_LAST = 7  # last child (-1: none)
T_ROWS = 8

Scratch = namedtuple("Scratch", ["world", "x", "totals", "tree", "path"])


@nb.njit(cache=True)
def new_scratch_nb(ctx, params):
    """One kernel thread's search scratch: two states of ``ctx``'s game (a sampled world and a
    copy to play out), int64[MAX_ACTIONS] totals, a tree with room for the largest ISMCTS seat of
    ``params`` (one node an iteration, and the root) and a path."""
    nodes = 2
    for seat in range(params.shape[0] - 1):
        if params[seat, P_POLICY] == POLICY_ISMCTS:
            nodes = max(nodes, params[seat, P_BUDGET] + 2)
    return Scratch(C.new_state_nb(ctx), C.new_state_nb(ctx), np.zeros(C.MAX_ACTIONS, dtype=np.int64),
                   np.zeros((T_ROWS, nodes), dtype=np.int64), np.zeros(C.MAX_PATH, dtype=np.int64))


@nb.njit(cache=True, _nrt=False)
def rollout_nb(ctx, x, rollout_id, param, table, streams, at, greedy, heuristic):
    """Play ``x`` to its end with ``rollout_id`` in every seat (its game parameter ``param``, its
    heuristic tables ``table``), drawing from the stream at ``at``."""
    while not C.done_nb(ctx, x):
        if C.rollout_turns_nb(ctx, x, rollout_id, streams, at):
            continue
        index = basic_choice_nb(ctx, x, rollout_id, param, table, streams, at, greedy, heuristic)
        C.apply_nb(ctx, x, index)


@nb.njit(inline="always", cache=True)
def objective_nb(ctx, x, seat, objective):
    """What the ended round ``x`` counts for ``seat``: the sign of its payoff (``OBJECTIVE_WIN``)
    or the payoff."""
    payoff = C.payoff_nb(ctx, x, seat)
    if objective == OBJECTIVE_WIN:
        return np.int64(1) if payoff > 0 else (np.int64(-1) if payoff < 0 else np.int64(0))
    return np.int64(payoff)


@nb.njit(cache=True, _nrt=False)
def pimc_nb(ctx, state, seat, worlds, rollout_id, objective, omniscient, param, table, streams, at, scratch, greedy,
            heuristic):
    """PIMC at ``state``'s pending decision: each action played out in ``worlds`` sampled worlds
    (``omniscient``: the real position, no world dealt); the action of the largest total (ties: the
    rollout policy's own choice when it is not random, which draws nothing, else the lowest index)."""
    n = C.n_actions_nb(ctx, state)
    if n == 1:
        return 0
    world, x, totals = scratch.world, scratch.x, scratch.totals
    for i in range(n):
        totals[i] = 0
    for _ in range(worlds):
        if omniscient:
            C.copy_state_nb(ctx, state, world)
        else:
            C.sample_hidden_nb(ctx, state, seat, streams, at, world)
        for i in range(n):
            C.copy_state_nb(ctx, world, x)
            C.apply_nb(ctx, x, i)
            rollout_nb(ctx, x, rollout_id, param, table, streams, at, greedy, heuristic)
            totals[i] += objective_nb(ctx, x, seat, objective)
    best = 0
    if rollout_id != POLICY_RANDOM:
        best = basic_choice_nb(ctx, state, rollout_id, param, table, streams, at, greedy, heuristic)
    for i in range(n):
        if totals[i] > totals[best]:
            best = i
    return best


@nb.njit(inline="always", cache=True)
def find_child(tree, node, key):
    """The child of ``node`` reached by action ``key`` (-1: none)."""
    child = tree[T_FIRST, node]
    while child >= 0:
        if tree[T_KEY, child] == key:
            return child
        child = tree[T_NEXT, child]
    return -1


@nb.njit(inline="always", cache=True)
def key_index(ctx, state, key):
    """The index of the pending decision's action ``key`` (-1: not legal here)."""
    for i in range(C.n_actions_nb(ctx, state)):
        if C.action_key_nb(ctx, state, i) == key:
            return i
    return -1


@nb.njit(cache=True, _nrt=False)
def ismcts_nb(ctx, state, seat, iterations, c, rollout_id, objective, param, table, log_table, streams, at,
              scratch, greedy, heuristic):
    """Single-observer ISMCTS at ``state``'s pending decision: ``iterations`` determinizations,
    availability-corrected UCB with constant ``c``; the root action whose child has the most
    visits (ties: the earliest created)."""
    n = C.n_actions_nb(ctx, state)
    if n == 1:
        return 0
    world, tree, path = scratch.world, scratch.tree, scratch.path
    tree[T_FIRST, 0] = -1
    tree[T_LAST, 0] = -1
    tree[T_NEXT, 0] = -1
    n_nodes = 1
    for _ in range(iterations):
        C.sample_hidden_nb(ctx, state, seat, streams, at, world)
        node = 0
        depth = 0
        missing = -1
        while not C.done_nb(ctx, world):
            m = C.n_actions_nb(ctx, world)
            missing = -1
            for i in range(m):
                if find_child(tree, node, C.action_key_nb(ctx, world, i)) < 0:
                    missing = i
                    break
            if missing >= 0:
                break
            best = -1
            best_value = 0.0
            child = tree[T_FIRST, node]
            while child >= 0:
                if key_index(ctx, world, tree[T_KEY, child]) >= 0:
                    tree[T_AVAIL, child] += 1
                    visits = tree[T_VISITS, child]
                    value = tree[T_TOTAL, child] / visits + c * math.sqrt(log_table[tree[T_AVAIL, child]] / visits)
                    if best < 0 or value > best_value:
                        best = child
                        best_value = value
                child = tree[T_NEXT, child]
            C.apply_nb(ctx, world, key_index(ctx, world, tree[T_KEY, best]))
            node = best
            path[depth] = best
            depth += 1
        if not C.done_nb(ctx, world):
            new = n_nodes
            n_nodes += 1
            tree[T_KEY, new] = C.action_key_nb(ctx, world, missing)
            tree[T_SEAT, new] = C.to_act_nb(ctx, world)
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
            C.apply_nb(ctx, world, missing)
            path[depth] = new
            depth += 1
        rollout_nb(ctx, world, rollout_id, param, table, streams, at, greedy, heuristic)
        for d in range(depth):
            p = path[d]
            tree[T_VISITS, p] += 1
            tree[T_TOTAL, p] += objective_nb(ctx, world, tree[T_SEAT, p], objective)
    best = -1
    child = tree[T_FIRST, 0]
    while child >= 0:
        if best < 0 or tree[T_VISITS, child] > tree[T_VISITS, best]:
            best = child
        child = tree[T_NEXT, child]
    index = key_index(ctx, state, tree[T_KEY, best])
    return index if index >= 0 else 0


@nb.njit(cache=True, _nrt=False)
def decide_nb(ctx, state, params, c, tables, log_table, streams, scratch, greedy, heuristic, pimc, ismcts,
              learned):
    """The index of the action the pending decision's seat takes, by its policy (``params[seat]``);
    a policy whose kind argument is None is not compiled (module docstring)."""
    seat = C.to_act_nb(ctx, state)
    policy_id = params[seat, P_POLICY]
    at = 4 * seat
    rollout = params.shape[0] - 1  # the row of the rollout policies' defaults
    if pimc is not None and (policy_id == POLICY_PIMC or policy_id == POLICY_OMNISCIENT):
        return pimc_nb(ctx, state, seat, params[seat, P_BUDGET], params[seat, P_ROLLOUT], params[seat, P_OBJECTIVE],
                       policy_id == POLICY_OMNISCIENT, params[rollout, P_BASIC], tables[rollout], streams, at,
                       scratch, greedy, heuristic)
    if ismcts is not None and policy_id == POLICY_ISMCTS:
        return ismcts_nb(ctx, state, seat, params[seat, P_BUDGET], c[seat], params[seat, P_ROLLOUT],
                         params[seat, P_OBJECTIVE], params[rollout, P_BASIC], tables[rollout], log_table, streams,
                         at, scratch, greedy, heuristic)
    if learned is not None and policy_id == POLICY_LEARNED:
        return learned_choose_nb(ctx, state, tables[seat])
    return basic_choice_nb(ctx, state, policy_id, params[seat, P_BASIC], tables[seat], streams, at, greedy,
                           heuristic)


@nb.njit(cache=True)
def decide_once_nb(rules, seed, state, params, c, tables, log_table, streams, kinds):
    """``decide_nb`` at ``state``'s pending decision from outside a kernel (tests, one decision
    asked from Python): a context of ``rules`` and ``seed`` and search scratch made for the call;
    ``streams`` uint64[4 * (seats + 1)] holds seat ``s``'s stream at ``4 * s`` and is advanced;
    ``kinds`` a ``simcore.kernels.policy_rows.PolicyKinds`` naming every policy the call may meet."""
    ctx = C.context_nb(rules, seed)
    greedy, heuristic, pimc, ismcts, learned = kinds
    return decide_nb(ctx, state, params, c, tables, log_table, streams, new_scratch_nb(ctx, params), greedy,
                     heuristic, pimc, ismcts, learned)
