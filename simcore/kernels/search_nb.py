"""The search players in numba, written once over the round contract (``simcore.kernels.contract``)
for every game: PIMC (``omniscient`` is PIMC whose worlds are the real position), single-observer
ISMCTS, their rollouts, and the choice of a seat's action by its policy (``decide_once_nb``).

Contract
--------
They follow the reference search (``simcore.search``) step for step, so a game's general kernel
writes the reference engine's rows: a search player draws only from its seat's stream (at
``4 * seat`` of ``streams``), in the reference's order, with its tie rules; its rollouts play
every seat with the rollout policy, all drawing from that same stream.

Policy arrays (``simcore.kernels.policy_rows`` packs them): ``params`` int64[seats + 1,
N_PARAMS], row ``seat`` the seat's policy (columns ``P_*``), the last row the rollout policies'
defaults; ``floats`` float64[seats, N_FLOATS], a seat's real parameters (columns ``F_*``: ISMCTS's
exploration constant, PIMC's threshold ``z``); ``tables`` int64[seats + 1, T],
the heuristic's tables of each heuristic seat, the value table of each search seat with
``depth`` (``P_DEPTH`` > 0: ``playout_nb``) and, in the last row, the rollouts' heuristic's;
``log_table`` float64[>= iterations + 1], ``simcore.search.log_table`` (the reference's own
numbers). ``Scratch`` is one kernel thread's: ``new_scratch_nb``.

``greedy``, ``heuristic``, ``pimc``, ``ismcts``, ``learned`` and ``evaluate`` are the fields of
``policy_rows``' ``PolicyKinds``, passed as arguments of their own: True when some seat (or
rollout) plays that policy, None when none does; ``evaluate`` is True where a search seat has
``depth`` (its rollouts end in a value model's estimate) or pimc's ``guide`` (a learned player
gives its base move), and the search functions take only it.
numba drops a branch on ``x is not None`` when ``x`` is a None argument before it types it, so a
kernel compiles only the policies its seats play (see ``choice_nb.basic_choice_nb``).

Every function here but ``descend_nb`` and ``world_nb`` (each called from two places or more) is inlined into its caller
(``inline="always"``): the general kernel (``units_nb.play_span_nb``) holds the search it plays
in one compiled function (``units_nb``'s module docstring; made functions of their own, the
search players compiled no faster, ``benchmarks.cold_start``).  A function that calls an inlined
one from two places calls it from one loop instead, so that it is compiled once.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba as nb
import numpy as np

from simcore.kernels import contract as C
from simcore.kernels.bits import KIND_SHIFT
from simcore.kernels.choice_nb import basic_choice_nb, objective_nb
from simcore.kernels.internal import internal_nb
from simcore.kernels.learned_nb import (
    L_UNIT,
    aux_of,
    learned_choose_nb,
    ranked_nb,
    value_nb,
)
from simcore.kernels.policy_ids import (
    POLICY_ISMCTS,
    POLICY_LEARNED,
    POLICY_OMNISCIENT,
    POLICY_PIMC,
    POLICY_RANDOM,
)
from simcore.kernels.policy_rows import (
    F_C,
    F_Z,
    P_BASIC,
    P_BUDGET,
    P_CONFIRM,
    P_CRN,
    P_DEPTH,
    P_EXPAND,
    P_GATE,
    P_GUIDE,
    P_INFER,
    P_NORM,
    P_OBJECTIVE,
    P_OWN,
    P_PAIRED,
    P_POLICY,
    P_RACE,
    P_ROLLOUT,
    P_SEARCH,
    P_WIDEN,
)

__all__ = ["Scratch", "basic_choice_nb", "decide_once_nb", "descend_nb", "deviates_nb", "disagreements_nb", "guide_nb", "ismcts_nb", "ismcts_seat_nb",
           "new_scratch_nb", "outscores_nb", "paired_worlds_nb", "pimc_nb", "playout_nb", "pimc_seat_nb", "pimc_worlds_nb", "screened_nb",
           "world_nb"]

# the ISMCTS tree: int64[T_ROWS, nodes], a node a column
T_KEY = 0  # the action key that leads to the node
T_SEAT = 1  # the seat that took it
T_VISITS = 2
T_TOTAL = 3  # the sum of the seat's objective over the node's visits
T_AVAIL = 4  # how often the node's action was available at its parent
T_FIRST = 5  # first child (-1: none)
T_NEXT = 6  # next sibling (-1: none)
T_LAST = 7  # last child (-1: none)
T_SQUARES = 8  # the sum of the squares of the seat's objective over the node's visits
T_ROWS = 9

Scratch = namedtuple("Scratch", ["world", "x", "totals", "squares", "values", "saved", "tree", "path", "history",
                                 "past_seat", "past_key", "n_past", "past", "drawn"])


@internal_nb(cache=True)
def new_scratch_nb(ctx, params):
    """One kernel thread's search scratch: two states of ``ctx``'s game (a sampled world and a
    copy to play out), int64[MAX_ACTIONS] totals, squares and values, uint64[4] for a saved
    stream, a tree with room for the largest ISMCTS seat of ``params`` (one node an iteration,
    the root and, with ``root=paired``, the root's children) and a path; and for inference
    (``world_nb``) the round's past decisions (``C.MAX_HISTORY`` where a seat infers, else one):
    their states, seats and the keys of the actions taken, their number (``n_past[0]``, which
    the unit loop keeps, ``units_nb``), and two more states (a past decision as a world deals it;
    a world drawn)."""
    nodes = 2
    past = 1
    for seat in range(params.shape[0] - 1):
        if params[seat, P_POLICY] == POLICY_ISMCTS:
            nodes = max(nodes, params[seat, P_BUDGET] + 2 * params[seat, P_CONFIRM] + 2 + C.MAX_ACTIONS)
        if params[seat, P_INFER] > 1:
            past = C.MAX_HISTORY
    return Scratch(C.new_state_nb(ctx), C.new_state_nb(ctx), np.zeros(C.MAX_ACTIONS, dtype=np.int64),
                   np.zeros(C.MAX_ACTIONS, dtype=np.int64), np.zeros(C.MAX_ACTIONS, dtype=np.int64),
                   np.zeros(4, dtype=np.uint64), np.zeros((T_ROWS, nodes), dtype=np.int64),
                   np.zeros(C.MAX_PATH, dtype=np.int64), C.new_history_nb(ctx, past), np.zeros(past, dtype=np.int64),
                   np.zeros(past, dtype=np.int64), np.zeros(1, dtype=np.int64), C.new_state_nb(ctx),
                   C.new_state_nb(ctx))


@nb.njit(inline="always", cache=True, _nrt=False)
def disagreements_nb(ctx, state, seat, world, limit, rollout_id, param, table, streams, at, scratch, greedy,
                     heuristic):
    """How many of the round's past decisions of the seats other than ``seat`` that ``seat`` saw
    taken the rollout policy, deciding for that seat in ``world`` (``C.rehand_nb``), would have
    taken otherwise; counting stops at ``limit``."""
    count = 0
    for k in range(scratch.n_past[0]):
        if count >= limit:
            break
        if scratch.past_seat[k] == seat:
            continue
        if not C.rehand_nb(ctx, scratch.history, k, state, world, seat, scratch.past):
            continue
        index = basic_choice_nb(ctx, scratch.past, rollout_id, param, table, streams, at, greedy, heuristic)
        if C.action_key_nb(ctx, scratch.past, index) != scratch.past_key[k]:
            count += 1
    return count


@internal_nb(cache=True, _nrt=False)
def world_nb(ctx, state, seat, infer, rollout_id, param, table, streams, at, scratch, greedy, heuristic):
    """Deal a world ``seat`` cannot tell from ``state`` into ``scratch.world``
    (``C.sample_hidden_nb``). With inference (``infer`` > 1; the rollout policy greedy or
    heuristic, which draw nothing): up to ``infer`` worlds are drawn, and the first in which the
    rollout policy would have taken every action the other seats were seen to take this round
    is kept, else the first of the fewest disagreements (``disagreements_nb``)."""
    C.sample_hidden_nb(ctx, state, seat, streams, at, scratch.world)
    if infer <= 1 or scratch.n_past[0] == 0:
        return
    fewest = disagreements_nb(ctx, state, seat, scratch.world, np.int64(C.MAX_HISTORY + 1), rollout_id, param,
                              table, streams, at, scratch, greedy, heuristic)
    for _ in range(infer - 1):
        if fewest == 0:
            break
        C.sample_hidden_nb(ctx, state, seat, streams, at, scratch.drawn)
        count = disagreements_nb(ctx, state, seat, scratch.drawn, fewest, rollout_id, param, table, streams, at,
                                 scratch, greedy, heuristic)
        if count < fewest:
            fewest = count
            C.copy_state_nb(ctx, scratch.drawn, scratch.world)


@nb.njit(inline="always", cache=True, _nrt=False)
def playout_nb(ctx, x, seat, cut, kind, vtable, objective, rollout_id, param, table, streams, at, greedy, heuristic,
               evaluate):
    """Play ``x`` on with ``rollout_id`` in every seat (its game parameter ``param``, its
    heuristic tables ``table``, drawing from the stream at ``at``) and return what it is worth to
    ``seat``: its objective at the round's end; with ``cut`` > 0 (``evaluate`` not None), in
    ``vtable[L_UNIT]`` points an objective point, the rollout stopping at ``seat``'s ``cut``-th
    decision of ``kind`` (the searched decision's, ``kind_nb``) with two or more actions, where
    the value table ``vtable`` scores it (``learned_nb.value_nb``). One loop, so that the
    rollout policy's choice is inlined once."""
    count = 0
    while not C.done_nb(ctx, x):
        if evaluate is not None and cut > 0:
            if C.to_act_nb(ctx, x) == seat and C.n_actions_nb(ctx, x) >= 2 and kind_nb(ctx, x) == kind:
                count += 1
                if count >= cut:
                    return value_nb(ctx, x, vtable)
        elif C.rollout_turns_nb(ctx, x, rollout_id, streams, at):  # a shortcut that may pass the cut
            continue
        C.apply_nb(ctx, x, basic_choice_nb(ctx, x, rollout_id, param, table, streams, at, greedy, heuristic))
    if evaluate is not None and cut > 0:
        return objective_nb(ctx, x, seat, objective) * vtable[L_UNIT]
    return objective_nb(ctx, x, seat, objective)


@nb.njit(inline="always", cache=True)
def kind_nb(ctx, state):
    """The kind of ``state``'s pending decision: its actions' keys' (``bits.KIND_SHIFT``)."""
    return C.action_key_nb(ctx, state, 0) >> KIND_SHIFT


@internal_nb(cache=True)
def deviates_nb(gain, squares, worlds, z):
    """Whether an option whose objective minus the base option's sums to ``gain`` (and its
    square to ``squares``) over ``worlds`` paired worlds beats the base by ``z`` standard errors:
    ``gain > 0`` and ``gain^2 (n - 1) >= z^2 (n squares - gain^2)``, in float64 operations the
    reference engine repeats one for one (``simcore.search.deviates``)."""
    if gain <= 0:
        return False
    g = np.float64(gain)
    n = np.float64(worlds)
    return g * g * (n - 1.0) >= z * z * (n * np.float64(squares) - g * g)


@nb.njit(inline="always", cache=True, _nrt=False)
def screened_nb(totals, squares, n, base, confirm, worlds, z):
    """The screening worlds' choice (``pimc_nb``, ``ismcts_nb`` with paired roots): the option of
    the largest gain over the base (ties: the lowest index) that is positive (with ``confirm``)
    or ``deviates_nb`` by ``z`` (without), else the base."""
    best = base
    for i in range(n):
        if totals[i] > totals[best] and (confirm > 0 or deviates_nb(totals[i], squares[i], worlds, z)):
            best = np.int64(i)
    return best


@nb.njit(inline="always", cache=True, _nrt=False)
def pimc_worlds_nb(ctx, state, seat, n, worlds, only, base, rollout_id, objective, omniscient, crn, infer, cut, param,
                   table, vtable, streams, at, scratch, greedy, heuristic, evaluate):
    """Deal ``worlds`` worlds (``omniscient``: copies of the real position) and play the options
    of ``state``'s pending decision out in each, in index order: every option, or (``only`` >= 0)
    the base option and ``only``; ``infer``: ``world_nb``'s; with ``crn`` each option's rollout
    starts from the stream as the deal left it; ``cut``, ``vtable``: ``playout_nb``'s. Leaves in
    ``scratch.totals`` and ``scratch.squares`` each played option's sum of objective minus the
    base option's over the worlds, and of its square."""
    world, x, totals, squares, values, saved = (scratch.world, scratch.x, scratch.totals, scratch.squares,
                                                scratch.values, scratch.saved)
    kind = kind_nb(ctx, state)
    for i in range(n):
        totals[i] = 0
        squares[i] = 0
    for _ in range(worlds):
        if omniscient:
            C.copy_state_nb(ctx, state, world)
        else:
            world_nb(ctx, state, seat, infer, rollout_id, param, table, streams, at, scratch, greedy, heuristic)
        if crn:
            for k in range(4):
                saved[k] = streams[at + k]
        for i in range(n):
            if only >= 0 and i != only and i != base:
                continue
            if crn:
                for k in range(4):
                    streams[at + k] = saved[k]
            C.copy_state_nb(ctx, world, x)
            C.apply_nb(ctx, x, i)
            values[i] = playout_nb(ctx, x, seat, cut, kind, vtable, objective, rollout_id, param, table, streams,
                                   at, greedy, heuristic, evaluate)
        for i in range(n):
            if only >= 0 and i != only and i != base:
                continue
            d = values[i] - values[base]
            totals[i] += d
            squares[i] += d * d


@internal_nb(cache=True, _nrt=False)
def guide_nb(ctx, state, table):
    """The choice of the learned player of ``table`` at ``state``'s pending decision (as
    ``learned_nb.learned_choose_nb``: the first of the highest score) and how far its score
    leads the highest of the other actions' (``learned_nb.ranked_nb``); no draw."""
    features, slot = C.learned_features_nb(ctx, state, aux_of(table))
    best, _, lead = ranked_nb(table, slot, features, C.n_actions_nb(ctx, state))
    return np.int64(best), lead


@nb.njit(inline="always", cache=True, _nrt=False)
def pimc_nb(ctx, state, seat, worlds, rollout_id, objective, omniscient, crn, z, confirm, race, infer, cut, param,
            table, vtable, streams, at, scratch, greedy, heuristic, evaluate, guide, gate, search):
    """PIMC at ``state``'s pending decision (``simcore.search``'s module docstring): the base
    action is the rollout policy's own choice when it is not random (which draws nothing), else
    the first. Without ``confirm``: every action played out in ``worlds`` worlds, and the action
    of the largest paired gain over the base that ``deviates_nb`` by ``z`` (ties: the lowest
    index), else the base. With ``confirm``: the action of the largest positive gain over those
    worlds (ties: the lowest index), if any, is played against the base in ``confirm`` more
    worlds and taken if its gain over all ``worlds + confirm`` ``deviates_nb`` by ``z``;
    otherwise the base. ``race`` > 0: the confirming worlds are played ``race`` at a time, and
    after each block but the last the action is given up if its gain over all worlds so far is
    not positive, or taken if that gain deviates by ``2 z``. ``infer``: how a world is dealt
    (``world_nb``); ``cut`` > 0: rollouts stop early (``playout_nb``). ``guide`` != 0 (with
    ``evaluate`` not None): the base action is the choice of the learned player whose table is
    ``vtable`` (``guide_nb``), taken without a search where it leads the next action by ``gate``
    > 0 or more. ``search`` != -1: a decision whose kind's bit (``1 << kind_nb``) it lacks takes
    the base action without a search."""
    n = C.n_actions_nb(ctx, state)
    if n == 1:
        return 0
    totals, squares = scratch.totals, scratch.squares
    base = np.int64(0)
    if evaluate is not None and guide != 0:
        base, lead = guide_nb(ctx, state, vtable)
        if gate > 0 and lead >= gate:
            return base
    elif rollout_id != POLICY_RANDOM:
        base = basic_choice_nb(ctx, state, rollout_id, param, table, streams, at, greedy, heuristic)
    if search != -1 and not (search >> kind_nb(ctx, state)) & 1:
        return base
    best = base
    gain = np.int64(0)
    square = np.int64(0)
    count = worlds
    only = np.int64(-1)
    played = np.int64(0)  # confirming worlds played
    # the worlds, then (confirm) the best-looking option against the base, in blocks with race:
    # one call site, so that the inlined pimc_worlds_nb is compiled once
    while True:
        pimc_worlds_nb(ctx, state, seat, n, count, only, base, rollout_id, objective, omniscient, crn, infer, cut,
                       param, table, vtable, streams, at, scratch, greedy, heuristic, evaluate)
        if only >= 0:
            gain += totals[best]
            square += squares[best]
            played += count
            if played >= confirm:
                break
            if gain <= 0:
                return base
            if deviates_nb(gain, square, worlds + played, 2.0 * z):
                return best
        else:
            best = screened_nb(totals, squares, n, base, confirm, worlds, z)
            if confirm == 0 or best == base:
                return best
            gain, square = totals[best], squares[best]
            only = best
        count = confirm - played if race <= 0 else min(race, confirm - played)
    return best if deviates_nb(gain, square, worlds + confirm, z) else base


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


@internal_nb(cache=True, _nrt=False)
def descend_nb(ctx, world, seat, node, depth, n_nodes, scale, c, norm, own, expand, widen, rollout_id, objective,
               cut, kind, param, table, vtable, log_table, streams, at, scratch, greedy, heuristic, evaluate):
    """One ISMCTS iteration in ``world`` from tree node ``node`` (the path to it, ``depth`` nodes,
    in ``scratch.path``): select while every legal action has a child (``widen`` > 0: or, at a
    node other than the root with a legal child, while the node has ``1 + visits // widen``
    children or more), expand one that has none (``expand``: the rollout policy's action if it
    has none, else the first; otherwise the first), roll out, and add each path node's seat's
    objective to it (``cut`` > 0, with ``own``: ``playout_nb``'s value for ``seat``, whose every
    node is). Returns the tree's new node count, the new ``scale`` (``ismcts_nb``) and what the
    world is worth to ``seat``."""
    tree, path = scratch.tree, scratch.path
    missing = -1
    while True:
        if own:  # the other seats' decisions: the rollout policy takes them
            others_nb(ctx, world, seat, rollout_id, param, table, streams, at, greedy, heuristic)
        if C.done_nb(ctx, world):
            break
        m = C.n_actions_nb(ctx, world)
        missing = -1
        legal = 0
        for i in range(m):
            if find_child(tree, node, C.action_key_nb(ctx, world, i)) < 0:
                if missing < 0:
                    missing = i
            else:
                legal += 1
        if missing >= 0 and widen > 0 and node > 0 and legal > 0:
            # progressive widening: a node below the root holds 1 + visits // widen children
            children = 0
            child = tree[T_FIRST, node]
            while child >= 0:
                children += 1
                child = tree[T_NEXT, child]
            if children >= 1 + tree[T_VISITS, node] // widen:
                missing = -1
        if missing >= 0:
            if expand:  # the rollout policy's own action first (a random rollout draws here)
                mine = basic_choice_nb(ctx, world, rollout_id, param, table, streams, at, greedy, heuristic)
                if find_child(tree, node, C.action_key_nb(ctx, world, mine)) < 0:
                    missing = mine
            break
        best = -1
        best_value = 0.0
        child = tree[T_FIRST, node]
        while child >= 0:
            if key_index(ctx, world, tree[T_KEY, child]) >= 0:
                tree[T_AVAIL, child] += 1
                visits = tree[T_VISITS, child]
                value = (tree[T_TOTAL, child] / visits / scale
                         + c * math.sqrt(log_table[tree[T_AVAIL, child]] / visits))
                if best < 0 or value > best_value:
                    best = child
                    best_value = value
            child = tree[T_NEXT, child]
        C.apply_nb(ctx, world, key_index(ctx, world, tree[T_KEY, best]))
        node = best
        path[depth] = best
        depth += 1
    if not C.done_nb(ctx, world):
        new = add_child_nb(tree, n_nodes, node, C.action_key_nb(ctx, world, missing), C.to_act_nb(ctx, world))
        n_nodes += 1
        C.apply_nb(ctx, world, missing)
        path[depth] = new
        depth += 1
    value = playout_nb(ctx, world, seat, cut, kind, vtable, objective, rollout_id, param, table, streams, at, greedy,
                       heuristic, evaluate)
    for d in range(depth):
        p = path[d]
        tree[T_VISITS, p] += 1
        got = value if evaluate is not None and cut > 0 else objective_nb(ctx, world, tree[T_SEAT, p], objective)
        tree[T_TOTAL, p] += got
        tree[T_SQUARES, p] += got * got
        if norm and abs(got) > scale:
            scale = np.float64(abs(got))
    return n_nodes, scale, value


@nb.njit(inline="always", cache=True, _nrt=False)
def paired_worlds_nb(ctx, state, seat, n, worlds, only, base, n_nodes, scale, c, norm, own, expand, widen, infer,
                     rollout_id, objective, cut, param, table, vtable, log_table, streams, at, scratch, greedy,
                     heuristic, evaluate):
    """``root=paired``: deal ``worlds`` worlds; in each, take every root action (or, ``only`` >= 0,
    the base and ``only``), in index order, in a copy of the world and descend below its child
    (the root's child ``1 + i``). Leaves in ``scratch.totals`` and ``scratch.squares`` each
    played action's sum of objective minus the base action's over the worlds, and of its
    square; returns the tree's node count and ``scale``."""
    world, x, path = scratch.world, scratch.x, scratch.path
    totals, squares, values = scratch.totals, scratch.squares, scratch.values
    for i in range(n):
        totals[i] = 0
        squares[i] = 0
    for _ in range(worlds):
        world_nb(ctx, state, seat, infer, rollout_id, param, table, streams, at, scratch, greedy, heuristic)
        for i in range(n):
            if only >= 0 and i != only and i != base:
                continue
            C.copy_state_nb(ctx, world, x)
            C.apply_nb(ctx, x, i)
            path[0] = 1 + i
            n_nodes, scale, values[i] = descend_nb(ctx, x, seat, np.int64(1 + i), np.int64(1), n_nodes, scale, c,
                                                   norm, own, expand, widen, rollout_id, objective, cut,
                                                   kind_nb(ctx, state), param, table, vtable, log_table, streams, at,
                                                   scratch, greedy, heuristic, evaluate)
        for i in range(n):
            if only >= 0 and i != only and i != base:
                continue
            d = values[i] - values[base]
            totals[i] += d
            squares[i] += d * d
    return n_nodes, scale


@nb.njit(inline="always", cache=True)
def add_child_nb(tree, new, node, key, seat):
    """Make column ``new`` of the tree the last child of ``node``: action ``key`` taken by ``seat``."""
    tree[T_KEY, new] = key
    tree[T_SEAT, new] = seat
    tree[T_VISITS, new] = 0
    tree[T_TOTAL, new] = 0
    tree[T_SQUARES, new] = 0
    tree[T_AVAIL, new] = 1
    tree[T_FIRST, new] = -1
    tree[T_LAST, new] = -1
    tree[T_NEXT, new] = -1
    if tree[T_LAST, node] < 0:
        tree[T_FIRST, node] = new
    else:
        tree[T_NEXT, tree[T_LAST, node]] = new
    tree[T_LAST, node] = new
    return new


@nb.njit(inline="always", cache=True, _nrt=False)
def ismcts_nb(ctx, state, seat, iterations, c, norm, z, own, paired, confirm, expand, widen, infer, rollout_id,
              objective, cut, param, table, vtable, log_table, streams, at, scratch, greedy, heuristic, evaluate):
    """Single-observer ISMCTS at ``state``'s pending decision: ``iterations`` determinizations,
    availability-corrected UCB with constant ``c`` (``norm``: a node's mean divided by the largest
    |objective| met so far, at least 1; ``own``: the tree holds only ``seat``'s decisions, the
    other seats' taken by the rollout policy as the descent meets them; ``expand``: a node
    expands the rollout policy's action first; ``widen``: a node below the root widens with its
    visits; see ``descend_nb``).

    Without ``paired``: one world an iteration, from the root; the root action whose child has
    the most visits (ties: the earliest created), unless ``z > 0``, the rollout policy is not
    random and that child's mean does not beat the rollout policy's own action's by ``z``
    standard errors (``outscores_nb``): then the rollout policy's action. With ``paired``: one
    world per ``n`` iterations (``iterations // n`` worlds, at least one), in which every root
    action is taken in turn and the descent goes on below it; the root action is then chosen
    from the paired gains over the base action as ``pimc_nb`` chooses, ``confirm`` included.
    ``infer``: how a world is dealt (``world_nb``); ``cut`` > 0 (with ``own``): rollouts stop
    early (``playout_nb``)."""
    n = C.n_actions_nb(ctx, state)
    if n == 1:
        return 0
    world, tree = scratch.world, scratch.tree
    totals, squares = scratch.totals, scratch.squares
    tree[T_FIRST, 0] = -1
    tree[T_LAST, 0] = -1
    tree[T_NEXT, 0] = -1
    n_nodes = np.int64(1)
    scale = np.float64(1.0)
    if paired:
        base = np.int64(0)
        if rollout_id != POLICY_RANDOM:
            base = basic_choice_nb(ctx, state, rollout_id, param, table, streams, at, greedy, heuristic)
        for i in range(n):
            add_child_nb(tree, n_nodes, 0, C.action_key_nb(ctx, state, i), seat)
            n_nodes += 1
        worlds = max(1, iterations // n)
        best = base
        gain = np.int64(0)
        square = np.int64(0)
        count = worlds
        only = np.int64(-1)
        for confirming in range(2):  # as pimc_nb: one call site of the inlined paired_worlds_nb
            n_nodes, scale = paired_worlds_nb(ctx, state, seat, n, count, only, base, n_nodes, scale, c, norm, own,
                                              expand, widen, infer, rollout_id, objective, cut, param, table, vtable,
                                              log_table, streams, at, scratch, greedy, heuristic, evaluate)
            if confirming:
                break
            best = screened_nb(totals, squares, n, base, confirm, worlds, z)
            if confirm == 0 or best == base:
                return best
            gain, square = totals[best], squares[best]
            count = confirm
            only = best
        return best if deviates_nb(gain + totals[best], square + squares[best], worlds + confirm, z) else base
    for _ in range(iterations):
        world_nb(ctx, state, seat, infer, rollout_id, param, table, streams, at, scratch, greedy, heuristic)
        n_nodes, scale, _ = descend_nb(ctx, world, seat, np.int64(0), np.int64(0), n_nodes, scale, c, norm, own,
                                       expand, widen, rollout_id, objective, cut, kind_nb(ctx, state), param, table,
                                       vtable, log_table, streams, at, scratch, greedy, heuristic, evaluate)
    best = np.int64(-1)
    child = tree[T_FIRST, 0]
    while child >= 0:
        if best < 0 or tree[T_VISITS, child] > tree[T_VISITS, best]:
            best = child
        child = tree[T_NEXT, child]
    if z > 0.0 and rollout_id != POLICY_RANDOM:
        base = find_child(tree, 0, own_key_nb(ctx, state, rollout_id, param, table, streams, at, greedy, heuristic))
        if base >= 0 and base != best and not outscores_nb(
                tree[T_TOTAL, best], tree[T_SQUARES, best], tree[T_VISITS, best],
                tree[T_TOTAL, base], tree[T_SQUARES, base], tree[T_VISITS, base], z):
            best = base
    index = key_index(ctx, state, tree[T_KEY, best])
    return index if index >= 0 else 0


@nb.njit(inline="always", cache=True, _nrt=False)
def others_nb(ctx, world, seat, rollout_id, param, table, streams, at, greedy, heuristic):
    """Play ``world`` on with the rollout policy while a seat other than ``seat`` decides."""
    while not C.done_nb(ctx, world) and C.to_act_nb(ctx, world) != seat:
        index = basic_choice_nb(ctx, world, rollout_id, param, table, streams, at, greedy, heuristic)
        C.apply_nb(ctx, world, index)


@nb.njit(inline="always", cache=True, _nrt=False)
def own_key_nb(ctx, state, rollout_id, param, table, streams, at, greedy, heuristic):
    """The key of the action the rollout policy takes at ``state``'s decision (greedy and
    heuristic draw nothing)."""
    index = basic_choice_nb(ctx, state, rollout_id, param, table, streams, at, greedy, heuristic)
    return C.action_key_nb(ctx, state, index)


@internal_nb(cache=True)
def outscores_nb(total, squares, visits, base_total, base_squares, base_visits, z):
    """Whether a node's mean objective beats the base node's by ``z`` standard errors of the
    difference of the two means (each from its own visits, at least 2), in float64 operations
    the reference engine repeats one for one (``simcore.search.outscores``)."""
    if visits < 2 or base_visits < 2:
        return False
    n1 = np.float64(visits)
    m1 = np.float64(total) / n1
    v1 = (np.float64(squares) - np.float64(total) * m1) / (n1 - 1.0)
    n0 = np.float64(base_visits)
    m0 = np.float64(base_total) / n0
    v0 = (np.float64(base_squares) - np.float64(base_total) * m0) / (n0 - 1.0)
    d = m1 - m0
    if d <= 0.0:
        return False
    return d * d >= z * z * (v1 / n1 + v0 / n0)


@nb.njit(inline="always", cache=True)
def pimc_seat_nb(ctx, state, seat, policy_id, params, floats, tables, streams, scratch, greedy, heuristic, evaluate):
    """``pimc_nb`` (or omniscient) with the parameters of ``seat``'s row of the policy arrays (its
    row of the tables: its value table where it has ``depth``)."""
    rollout = params.shape[0] - 1  # the row of the rollout policies' defaults
    return pimc_nb(ctx, state, seat, params[seat, P_BUDGET], params[seat, P_ROLLOUT], params[seat, P_OBJECTIVE],
                   policy_id == POLICY_OMNISCIENT, params[seat, P_CRN], floats[seat, F_Z], params[seat, P_CONFIRM],
                   params[seat, P_RACE], params[seat, P_INFER], params[seat, P_DEPTH], params[rollout, P_BASIC],
                   tables[rollout], tables[seat], streams, 4 * seat, scratch, greedy, heuristic, evaluate,
                   params[seat, P_GUIDE], params[seat, P_GATE], params[seat, P_SEARCH])


@nb.njit(inline="always", cache=True)
def ismcts_seat_nb(ctx, state, seat, params, floats, tables, log_table, streams, scratch, greedy, heuristic, evaluate):
    """``ismcts_nb`` with the parameters of ``seat``'s row of the policy arrays."""
    rollout = params.shape[0] - 1
    return ismcts_nb(ctx, state, seat, params[seat, P_BUDGET], floats[seat, F_C], params[seat, P_NORM],
                     floats[seat, F_Z], params[seat, P_OWN], params[seat, P_PAIRED], params[seat, P_CONFIRM],
                     params[seat, P_EXPAND], params[seat, P_WIDEN], params[seat, P_INFER], params[seat, P_ROLLOUT],
                     params[seat, P_OBJECTIVE], params[seat, P_DEPTH],
                     params[rollout, P_BASIC], tables[rollout], tables[seat],
                     log_table, streams, 4 * seat, scratch, greedy, heuristic, evaluate)


@nb.njit(cache=True)
def decide_once_nb(rules, seed, state, params, floats, tables, log_table, streams, greedy, heuristic, pimc, ismcts,
                   learned, evaluate):
    """The index of the action ``state``'s pending decision's seat takes by its policy
    (``params[seat]``), from outside a kernel (tests, one decision asked from Python): a context
    of ``rules`` and ``seed`` and search scratch made for the call; ``streams`` uint64[4 * (seats
    + 1)] holds seat ``s``'s stream at ``4 * s`` and is advanced; ``greedy`` .. ``evaluate`` the
    fields of a ``simcore.kernels.policy_rows.PolicyKinds`` naming every policy the call may meet.
    The same choice as ``units_nb.play_units_nb``'s (which writes it out in its own body, as
    here: numba drops a branch of a policy whose kind is None before it inlines the search)."""
    ctx = C.context_nb(rules, seed)
    scratch = new_scratch_nb(ctx, params)
    seat = C.to_act_nb(ctx, state)
    policy_id = params[seat, P_POLICY]
    if pimc is not None and (policy_id == POLICY_PIMC or policy_id == POLICY_OMNISCIENT):
        return pimc_seat_nb(ctx, state, seat, policy_id, params, floats, tables, streams, scratch, greedy, heuristic,
                            evaluate)
    if ismcts is not None and policy_id == POLICY_ISMCTS:
        return ismcts_seat_nb(ctx, state, seat, params, floats, tables, log_table, streams, scratch, greedy, heuristic,
                              evaluate)
    if learned is not None and policy_id == POLICY_LEARNED:
        return learned_choose_nb(ctx, state, tables[seat])
    return basic_choice_nb(ctx, state, policy_id, params[seat, P_BASIC], tables[seat], streams, 4 * seat, greedy,
                           heuristic)
