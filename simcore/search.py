"""The search players of the reference engine: ``pimc`` and ``ismcts``, for every game.

Both play a position forward through the game's forward model (``simcore.reference.forward``):
they never look at a card their seat cannot see, because every position they search is a world dealt
by ``state.sample_hidden(seat, stream)``, which keeps what the seat has seen and deals the rest anew
(guarantee 6 of docs/guarantees.md). They draw only from their seat's stream ``S`` (guarantee 1), in
the order given here, and each game's kernel draws identically, so both engines write the same rows.

Rollout
    Once the searched move is made, the ``rollout`` policy (``random``, ``greedy`` or
    ``heuristic``) plays every seat of the world to the end of the round: a policy object of
    that kind per seat, all drawing from ``S``, each decision answered through the game's
    ``ask_policy``.

Objective
    A finished world counts for seat ``s`` ``sign(payoff[s])`` (``objective=win``: +1, 0 or -1)
    or ``payoff[s]`` (``objective=score``). Totals are integers, so both engines add exactly.

PIMC (Long, Sturtevant, Buro & Furtak 2010), ``worlds`` W
    At a decision with legal actions ``A`` (one action: taken without a draw): for each world
    ``w = 0 .. W-1`` deal ``world = state.sample_hidden(s, S)``; for each action ``i`` in
    ``A``'s order play ``A[i]`` on a copy of the world, roll out, and add the objective to
    ``total[i]``. Take the action of the largest total; ties go to the action the rollout policy
    itself would take in the real position when it is ``greedy`` or ``heuristic`` (which draw
    nothing), else to the first. Every action meets the same worlds (common random numbers
    across the options); with few worlds many totals tie, and the rollout policy's choice is
    the better default than the first action.

ISMCTS (single observer: Cowling, Powley & Whitehouse 2012), ``iterations`` N, ``c``
    A tree of the seat's information sets: a node is the sequence of actions taken from the
    decision (the seat's own and the others', each known by its action key, see each game's
    ``action_key``), with per node the seat that took its action, its visits, the sum of that
    seat's objective over them, and its availability (how often it could have been chosen).
    Each iteration deals one world, then

    * selects: while the world's pending decision has a child for every legal action, each of
      those children gains one availability and the one maximising
      ``total / visits + c * sqrt(LOG[avail] / visits)`` is taken (ties: the earliest made);
    * expands the first legal action (in the decision's order) without a child;
    * rolls out, and adds the objective of the seat of each node on the path to that node.

    The action whose child was visited most is taken (ties: the earliest made). ``LOG`` is
    ``log_table``: one float64 table computed by numpy, read by both engines, so the two
    compute each bound with the same operations on the same numbers.

``omniscient`` (for measurement only), ``worlds`` W
    ``pimc`` in the real position: each of its W worlds is ``state.clone()``, so it sees every
    hidden card (the upper bound of the skill measures; it breaks guarantee 6 of docs/guarantees.md
    on purpose, plays only where a seat names it, and every run and report with it says so).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from simcore.errors import PolicyError
from simcore.policies import PolicySpec, parse_policy

__all__ = ["IsmctsPolicy", "OmniscientPolicy", "PimcPolicy", "SEARCH_POLICIES", "SearchPolicy", "log_table", "make_search_policy", "objective"]

SEARCH_POLICIES = ("pimc", "ismcts", "omniscient")


def log_table(n: int) -> np.ndarray:
    """``float64[n + 1]`` with ``log(k)`` at ``k >= 1`` (0 at 0), as numpy computes it."""
    return np.log(np.maximum(np.arange(n + 1, dtype=np.float64), 1.0))


def objective(returns: list[float], seat: int, kind: str) -> int:
    """The integer a finished round counts for ``seat``: its payoff's sign (``win``) or the payoff."""
    payoff = int(returns[seat])
    if kind == "win":
        return (payoff > 0) - (payoff < 0)
    return payoff


class _Search:
    """What both search players share: the game's hooks, the seat's stream, rollouts."""

    searches = True

    def __init__(self, game: str, spec: PolicySpec, compiled: Any, stream: Any,
                 make_policy: Callable[[PolicySpec, Any, Any], Any],
                 ask_policy: Callable[[Any, Any, Any], Any],
                 action_key: Callable[[Any, Any], int]) -> None:
        self.name = spec.name
        self.stream = stream
        self.objective = str(spec.params["objective"])
        self.rollout_name = str(spec.params["rollout"])
        rollout = make_policy(parse_policy(self.rollout_name, game), compiled, stream)
        self.rollout_policy = rollout
        self.ask_policy = ask_policy
        self.action_key = action_key

    def rollout(self, world: Any) -> None:
        """Play ``world`` to its end with the rollout policy in every seat (draws from the stream)."""
        while True:
            decision = world.decision()
            if decision is None:
                return
            world.apply(self.ask_policy(self.rollout_policy, world, decision))

    def score(self, world: Any, seat: int) -> int:
        """The objective of finished ``world`` for ``seat``."""
        return objective(world.returns(), seat, self.objective)


class PimcPolicy(_Search):
    """Determinized Monte Carlo (module docstring): the option with the best total over worlds."""

    def __init__(self, game: str, spec: PolicySpec, compiled: Any, stream: Any, make_policy: Callable,
                 ask_policy: Callable, action_key: Callable) -> None:
        super().__init__(game, spec, compiled, stream, make_policy, ask_policy, action_key)
        self.worlds = int(spec.params["worlds"])

    def world(self, state: Any, seat: int) -> Any:
        """A world to search: the hidden cards dealt anew from the stream."""
        return state.sample_hidden(seat, self.stream)

    def decide(self, state: Any, decision: Any) -> Any:
        """The action to take at ``decision`` of ``state`` (the seat's own decision)."""
        actions = decision.actions
        if len(actions) == 1:
            return actions[0]
        seat = decision.seat
        totals = [0] * len(actions)
        for _ in range(self.worlds):
            world = self.world(state, seat)
            for i, action in enumerate(actions):
                copy = world.clone()
                copy.apply(action)
                self.rollout(copy)
                totals[i] += self.score(copy, seat)
        best = 0
        if self.rollout_name != "random":  # ties go to the rollout policy's own choice (no draw)
            best = list(actions).index(self.ask_policy(self.rollout_policy, state, decision))
        for i in range(len(actions)):
            if totals[i] > totals[best]:
                best = i
        return actions[best]


class OmniscientPolicy(PimcPolicy):
    """``pimc`` whose every world is the real position (for measurement only): the same draws
    and rollouts, with ``state.clone()`` where ``pimc`` deals ``state.sample_hidden(seat, S)``."""

    def world(self, state: Any, seat: int) -> Any:
        """The real position: every card where it really is."""
        return state.clone()


class _Node:
    """A node of the ISMCTS tree: the action (by key) that leads to it and its statistics."""

    __slots__ = ("avail", "by_key", "children", "key", "seat", "total", "visits")

    def __init__(self, key: int, seat: int) -> None:
        self.key = key
        self.seat = seat
        self.visits = 0
        self.total = 0
        self.avail = 1
        self.children: list[_Node] = []
        self.by_key: dict[int, _Node] = {}

    def add(self, key: int, seat: int) -> _Node:
        """A new child for the action of ``key`` taken by ``seat``."""
        child = _Node(key, seat)
        self.children.append(child)
        self.by_key[key] = child
        return child


class IsmctsPolicy(_Search):
    """Single-observer information-set MCTS (module docstring)."""

    def __init__(self, game: str, spec: PolicySpec, compiled: Any, stream: Any, make_policy: Callable,
                 ask_policy: Callable, action_key: Callable) -> None:
        super().__init__(game, spec, compiled, stream, make_policy, ask_policy, action_key)
        self.iterations = int(spec.params["iterations"])
        self.c = float(spec.params["c"])
        self.log = [float(v) for v in log_table(self.iterations)]

    def _select(self, node: _Node, world: Any, keys: list[int]) -> _Node:
        """Count availability of ``node``'s children legal in ``world`` and pick the best bound."""
        best, best_value = None, 0.0
        legal = set(keys)
        for child in node.children:
            if child.key not in legal:
                continue
            child.avail += 1
            value = child.total / child.visits + self.c * math.sqrt(self.log[child.avail] / child.visits)
            if best is None or value > best_value:
                best, best_value = child, value
        assert best is not None
        return best

    def decide(self, state: Any, decision: Any) -> Any:
        """The action to take at ``decision`` of ``state`` (the seat's own decision)."""
        actions = decision.actions
        if len(actions) == 1:
            return actions[0]
        seat = decision.seat
        root = _Node(-1, seat)
        for _ in range(self.iterations):
            world = state.sample_hidden(seat, self.stream)
            node, path = root, []
            while True:
                pending = world.decision()
                if pending is None:
                    break
                keys = [self.action_key(pending, a) for a in pending.actions]
                untried = next((i for i, k in enumerate(keys) if k not in node.by_key), -1)
                if untried >= 0:
                    node = node.add(keys[untried], pending.seat)
                    world.apply(pending.actions[untried])
                    path.append(node)
                    break
                node = self._select(node, world, keys)
                world.apply(pending.actions[keys.index(node.key)])
                path.append(node)
            self.rollout(world)
            returns = world.returns()
            for visited in path:
                visited.visits += 1
                visited.total += objective(returns, visited.seat, self.objective)
        best = root.children[0]
        for child in root.children[1:]:
            if child.visits > best.visits:
                best = child
        for action in actions:
            if self.action_key(decision, action) == best.key:
                return action
        raise AssertionError("the most visited root action is not legal")  # pragma: no cover


SearchPolicy = PimcPolicy | IsmctsPolicy | OmniscientPolicy


def make_search_policy(game: str, spec: PolicySpec, compiled: Any, stream: Any, make_policy: Callable,
                       ask_policy: Callable, action_key: Callable) -> SearchPolicy:
    """The reference engine's ``pimc`` or ``ismcts`` player for ``game``, drawing from ``stream``.

    ``make_policy`` builds the rollout policy, ``ask_policy`` asks a policy object a decision,
    ``action_key`` names an action by its int key (each game's reference engine gives all three).
    """
    return SEARCH_CLASSES[spec.name](game, spec, compiled, stream, make_policy, ask_policy, action_key)


SEARCH_CLASSES: dict[str, type[PimcPolicy] | type[IsmctsPolicy]] = {
    "pimc": PimcPolicy, "ismcts": IsmctsPolicy, "omniscient": OmniscientPolicy}


class PolicyMaker:
    """A game's ``make_policy(spec, compiled, stream)``: its own policy class for a policy that
    does not search (``basic``: name -> class taking ``(spec, compiled, stream)``), else the
    search player of this module over the game's ``ask_policy`` and ``action_key``, its rollouts
    made by this same function. One factory for every game: a new search policy is a class here.
    """

    def __init__(self, game: str, basic: Mapping[str, Callable[[PolicySpec, Any, Any], Any]], ask_policy: Callable,
                 action_key: Callable) -> None:
        self.game = game
        self.basic = dict(basic)
        self.ask_policy = ask_policy
        self.action_key = action_key

    def __call__(self, spec: PolicySpec, compiled: Any, stream: Any) -> Any:
        """The reference engine's policy object for ``spec``, drawing from its seat's ``stream``."""
        search = SEARCH_CLASSES.get(spec.name)
        if search is not None:
            return search(self.game, spec, compiled, stream, self, self.ask_policy, self.action_key)
        make = self.basic.get(spec.name)
        if make is None:
            raise PolicyError(f"unknown policy {spec.name!r}")
        return make(spec, compiled, stream)
