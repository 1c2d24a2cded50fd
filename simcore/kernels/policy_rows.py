"""The seats' policies packed into the arrays the general kernel reads, once for every game.

Contract
--------
``policy_rows(specs, seats, basic_params, heuristic_tables, rollout_spec)`` returns

* ``params`` int64[seats + 1, N_PARAMS]: row ``seat`` is that seat's policy, one column each
  (``P_*`` below); the last row holds the defaults the rollouts play with (their ``P_BASIC``);
  seats beyond the specs are 0 (``random``; never asked);
* ``floats`` float64[seats, N_FLOATS]: a seat's real-valued parameters (``F_*`` below):
  ISMCTS's exploration constant, the search players' deviation threshold ``z``;
* ``tables`` int64[seats + 1, T]: the heuristic's tables (the game's ``heuristic_tables``) of
  each heuristic seat, 0 elsewhere, and in the last row those of the rollouts' heuristic
  (``simcore.learned.learned_rows`` adds a learned seat's table, a search seat's value table
  where its ``depth`` > 0, and a pimc seat's guide's learned table where its ``guide`` > 0, in
  the seat's row);
* ``log_table`` float64[most iterations + 1]: ``simcore.search.log_table``, the reference's
  own numbers;
* ``kinds`` a ``PolicyKinds``: for greedy, heuristic, pimc (with omniscient), ismcts and learned, True
  when a seat or a search seat's rollouts play it, None when none does; and ``evaluate``, True
  when a search seat reads a learned table: its value model (``depth``) or its guide (pimc's
  ``guide``). The general kernel compiles only the policies that are not None (numba leaves out
  a branch on an argument that is None), so that a first run of heuristic seats compiles no
  search player, and a first run of pimc against random no heuristic and no ISMCTS; each set of
  kinds is a kernel of its own in the numba cache.

A game declares as data which parameter of which policy it packs in ``P_BASIC`` (Tensho's
greedy: the yaku set it prefers); a search player's objective default is its game's, filled in by
``simcore.policies.parse_policy``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from simcore.errors import PolicyError
from simcore.kernels.policy_ids import (
    OBJECTIVE_IDS,
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_ISMCTS,
    POLICY_LEARNED,
    POLICY_OMNISCIENT,
    POLICY_PIMC,
    POLICY_RANDOM,
    ROLLOUT_IDS,
)
from simcore.policies import search_mask
from simcore.search import log_table

__all__ = ["F_C", "F_Z", "GENERAL_POLICIES", "N_FLOATS", "N_PARAMS", "P_BASIC", "P_BUDGET", "P_CONFIRM", "P_CRN",
           "P_DEPTH", "P_EXPAND", "P_GATE", "P_GUIDE", "P_INFER", "P_NORM", "P_OBJECTIVE", "P_OWN", "P_PAIRED", "P_POLICY", "P_RACE", "P_ROLLOUT", "P_SEARCH", "P_WIDEN", "SEARCHING", "PolicyArrays",
           "PolicyKinds", "policy_kinds", "policy_rows"]

P_POLICY = 0  # the policy id (``simcore.kernels.policy_ids``)
P_BUDGET = 1  # pimc and omniscient: worlds; ismcts: iterations
P_ROLLOUT = 2  # a search player's rollout policy id
P_OBJECTIVE = 3  # a search player's objective id
P_BASIC = 4  # the game's own parameter of a policy that does not search (e.g. Tensho greedy's yaku set)
P_CRN = 5  # pimc and omniscient: 1 if every option replays the same rollout draws in a world
P_NORM = 6  # ismcts: 1 if node means are divided by the largest |objective| met
P_CONFIRM = 7  # pimc, omniscient, ismcts with root=paired: worlds that confirm the best-looking action
P_OWN = 8  # ismcts: 1 if the tree holds the searcher's own decisions only
P_PAIRED = 9  # ismcts: 1 if every root action is tried in each world (root=paired)
P_EXPAND = 10  # ismcts: 1 if a node expands the rollout policy's action first (expand=rollout)
P_WIDEN = 11  # ismcts: a node below the root holds at most 1 + visits // widen children (0: no limit)
P_INFER = 12  # pimc, ismcts: draws of the hidden cards per world that inference picks from (0, 1: none)
P_DEPTH = 13  # pimc, ismcts: a rollout stops at the seat's P_DEPTH-th decision, scored by a value model (0: never)
P_RACE = 14  # pimc: confirming worlds played at a time, each block judged (0: all at once)
P_GUIDE = 15  # pimc: 1 if the learned table in the seat's row gives the base move (guide > 0)
P_GATE = 16  # pimc with guide: search only where the guide's best leads the next by less (0: always)
P_SEARCH = 17  # pimc: the bits (1 << kind code) of the decision kinds it searches (-1: every kind)
N_PARAMS = 18

F_C = 0  # ismcts: the exploration constant
F_Z = 1  # the search players' deviation threshold in standard errors
N_FLOATS = 2

SEARCHING = (POLICY_PIMC, POLICY_ISMCTS, POLICY_OMNISCIENT)
GENERAL_POLICIES = (POLICY_RANDOM, POLICY_GREEDY, POLICY_HEURISTIC, *SEARCHING)


class PolicyKinds(NamedTuple):
    """Which policies the general kernel compiles: True for each a seat or a rollout plays, None
    for the others (random is always compiled)."""

    greedy: bool | None
    heuristic: bool | None
    pimc: bool | None  # pimc and omniscient
    ismcts: bool | None
    learned: bool | None  # a seat plays the learned player
    evaluate: bool | None  # a search seat reads a learned table: its value model (depth) or its guide


ALL_KINDS_ENV = "FUDASIM_ALL_POLICY_KINDS"  # set (not "0"): every policy compiled into one kernel per game

PolicyArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, PolicyKinds]


def policy_kinds(params: np.ndarray) -> PolicyKinds:
    """The ``PolicyKinds`` of packed policy rows ``params`` (int64[seats + 1, N_PARAMS],
    ``policy_rows``): the seats' policies and, for each search seat, its rollout policy."""
    seats = params[:-1]
    played = {int(pid) for pid in seats[:, P_POLICY]}
    played |= {int(row[P_ROLLOUT]) for row in seats if int(row[P_POLICY]) in SEARCHING}
    every = os.environ.get(ALL_KINDS_ENV, "") not in ("", "0")
    evaluate = every or any(int(row[P_POLICY]) in SEARCHING and (row[P_DEPTH] > 0 or row[P_GUIDE] != 0)
                            for row in seats)

    def kind(*ids: int) -> bool | None:
        return True if every or played.intersection(ids) else None

    return PolicyKinds(kind(POLICY_GREEDY), kind(POLICY_HEURISTIC), kind(POLICY_PIMC, POLICY_OMNISCIENT),
                       kind(POLICY_ISMCTS), kind(POLICY_LEARNED), True if evaluate else None)


def policy_rows(specs: Sequence[Any], seats: int, basic_params: Mapping[str, str],
                heuristic_tables: Callable[[Any], np.ndarray], rollout_spec: Callable[[str], Any],
                game_title: str, kinds: Mapping[str, int] | None = None) -> PolicyArrays:
    """``(params, floats, tables, log_table, kinds)`` of the seats' policy specs (module docstring).

    Parameters
    ----------
    specs : sequence of PolicySpec, one per seat (at most ``seats``)
    seats : the game's most seats (the arrays' rows, whatever the table's size)
    basic_params : policy name -> the name of its parameter packed in ``P_BASIC``
    heuristic_tables : spec -> int64[T], the heuristic's tables of a heuristic spec
    rollout_spec : policy name -> the spec a rollout plays (a recorded text of that name alone)
    game_title : the game's name in errors
    kinds : the game's decision kinds, name -> code (``simcore.policies.decision_kinds``), for
        pimc's ``search``

    Raises ``PolicyError`` for a policy (or rollout policy) the general kernel does not play.
    """
    if len(specs) > seats:
        raise ValueError(f"{len(specs)} policies for a game of at most {seats} seats")
    params = np.zeros((seats + 1, N_PARAMS), dtype=np.int64)
    floats = np.zeros((seats, N_FLOATS), dtype=np.float64)
    heuristic = rollout_spec("heuristic")
    default_table = np.asarray(heuristic_tables(heuristic), dtype=np.int64)
    tables = np.zeros((seats + 1, default_table.size), dtype=np.int64)
    tables[seats] = default_table
    iterations = 1
    for seat, spec in enumerate(specs):
        pid = spec.policy_id
        if pid not in GENERAL_POLICIES:
            raise PolicyError(f"policy {spec.name}: the {game_title} kernel does not implement it")
        params[seat, P_POLICY] = pid
        basic = basic_params.get(spec.name)
        if basic is not None:
            params[seat, P_BASIC] = int(spec.params[basic])
        if pid == POLICY_HEURISTIC:
            tables[seat] = heuristic_tables(spec)
        if pid in SEARCHING:
            rollout = spec.params["rollout"]
            if rollout not in ROLLOUT_IDS:
                raise PolicyError(f"policy {spec.name}: the {game_title} kernel does not implement "
                                  f"rollout={rollout}")
            params[seat, P_ROLLOUT] = ROLLOUT_IDS[rollout]
            params[seat, P_OBJECTIVE] = OBJECTIVE_IDS[spec.params["objective"]]
            budget = int(spec.params["iterations" if pid == POLICY_ISMCTS else "worlds"])
            params[seat, P_BUDGET] = budget
            floats[seat, F_Z] = float(spec.params["z"])
            params[seat, P_CONFIRM] = int(spec.params["confirm"])
            params[seat, P_INFER] = int(spec.params.get("infer", 0))
            params[seat, P_DEPTH] = int(spec.params.get("depth", 0))
            params[seat, P_RACE] = int(spec.params.get("race", 0))
            params[seat, P_GUIDE] = int(int(spec.params.get("guide", 0)) > 0)
            params[seat, P_GATE] = int(spec.params.get("gate", 0))
            params[seat, P_SEARCH] = search_mask(spec, kinds or {}) if pid == POLICY_PIMC else -1
            if pid == POLICY_ISMCTS:
                floats[seat, F_C] = float(spec.params["c"])
                params[seat, P_NORM] = int(spec.params["norm"])
                params[seat, P_OWN] = int(spec.params["tree"] == "own")
                params[seat, P_PAIRED] = int(spec.params["root"] == "paired")
                params[seat, P_EXPAND] = int(spec.params["expand"] == "rollout")
                params[seat, P_WIDEN] = int(spec.params["widen"])
                iterations = max(iterations, budget + 2 * params[seat, P_CONFIRM])
            else:
                params[seat, P_CRN] = int(spec.params["crn"])
    # The rollouts play each policy with its defaults: greedy's packed parameter included. One
    # row holds them, so at most one rollout policy may have a packed parameter.
    packed = [name for name in basic_params if name in ROLLOUT_IDS]
    if len(packed) > 1:
        raise ValueError(f"rollout policies {packed} each pack a parameter; the kernel keeps one")
    for name in packed:
        params[seats, P_BASIC] = int(rollout_spec(name).params[basic_params[name]])
    return params, floats, tables, log_table(iterations), policy_kinds(params)
