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

Learned evaluation, ``depth`` D (pimc and ismcts; ismcts with ``tree=own``)
    With D > 0 a rollout stops at ``s``'s D-th decision of the searched decision's kind (its
    actions' keys' ``bits.KIND_SHIFT``: D plays ahead where a play is searched) with two or more
    actions after the position it starts from. There the value model of the rules and objective
    (``value``: its version; ``simcore.learned.value_table``) scores the position for ``s``: its
    learned player's highest action score plus the decision kind's bias, an integer in the
    model's ``unit`` points an objective point; a rollout that ends first counts its objective
    times ``unit``. Every total is then in those points; ``z`` and ``norm`` do not depend on the
    scale.

PIMC (Long, Sturtevant, Buro & Furtak 2010), ``worlds`` W, ``crn``, ``z``, ``confirm`` K, ``race`` R
    At a decision with legal actions ``A`` (one action: taken without a draw), the *base* action
    ``b`` is the one the rollout policy itself would take in the real position when it is
    ``greedy`` or ``heuristic`` (which draw nothing), else the first. *Playing out* worlds: for
    each world deal ``world = state.sample_hidden(s, S)``; for each action ``i`` played, in
    ``A``'s order (with ``crn``, after setting ``S`` back to where the deal left it, so every
    action's rollout replays the same draws), play ``A[i]`` on a copy of the world, roll out, and
    take the objective ``v[i]``; then add ``v[i] - v[b]`` to ``gain[i]`` and its square to
    ``square[i]``.

    First every action is played out in W worlds. Without ``confirm`` (K = 0): take the action
    of the largest gain among those that pass ``deviates`` (a positive gain of at least ``z``
    standard errors of the paired differences; ``z = 0``: any positive gain), ties to the lowest
    index; if none passes, ``b``. With K > 0 (screening, then confirming): the action ``j`` of
    the largest positive gain (ties to the lowest index; none: take ``b`` at once) is played out
    against ``b`` alone (both, in index order) in K more worlds, and taken if its gain over all
    W + K worlds passes ``deviates``, else ``b``. Most of the worlds go to the one action that
    may replace ``b``, and a decision where nothing looks better than ``b`` costs W worlds.
    With ``race`` R > 0 the K worlds are played R at a time (the same worlds, in the same order),
    and after each block but the last ``j`` is given up (``b``) if its gain over all worlds so
    far is not positive, or taken if that gain passes ``deviates`` with ``2 z``.

    Every action meets the same worlds (common random numbers across the options), so the gains
    are paired world by world; with ``z > 0`` the search leaves the rollout policy's move only
    for an option that is measurably better, not for one that looks better by chance.

Guided PIMC, ``guide`` V, ``gate`` G, ``guides``
    With V > 0 the base action ``b`` is the choice, in the real position, of the learned player
    playing the guide model of version V (each case's newest guide model at or below it, shipped
    or in ``guides``; ``simcore.learned.guide_table``), which draws nothing. Where G > 0 and that choice's score leads the
    highest of the other actions' by G or more (``simcore.learned.ranked``, in the model's score
    units), it is taken without a search and nothing is drawn; elsewhere PIMC runs as above
    around it. The rollouts still play the ``rollout`` policy. A guided seat reads no value
    model (``depth`` 0).

Searched kinds, ``search`` S
    With S other than ``all`` (decision kinds joined by ``+``, each game's ``decisions.ACTION_KINDS``),
    a decision of a kind S does not name takes the base action ``b`` at once (the guide's, else the
    rollout policy's own, else the first), without a search and without a draw.

ISMCTS (single observer: Cowling, Powley & Whitehouse 2012), ``iterations`` N, ``c``
    A tree of the seat's information sets: a node is the sequence of actions taken from the
    decision (the seat's own and the others', each known by its action key, see each game's
    ``action_key``), with per node the seat that took its action, its visits, the sum of that
    seat's objective over them (and of its square), and its availability (how often it could
    have been chosen). With ``tree=own`` the tree holds the seat's own actions only: wherever the
    descent meets another seat's decision, the rollout policy takes it (as in a rollout) and the
    descent goes on, so the other seats decide from their own view of each world rather than as
    tree nodes shared across worlds. Each iteration deals one world, then

    * selects: while the world's pending decision has a child for every legal action, each of
      those children gains one availability and the one maximising
      ``total / visits / scale + c * sqrt(LOG[avail] / visits)`` is taken (ties: the earliest
      made); ``scale`` is 1, or with ``norm`` the largest |objective| added to a node so far
      (at least 1), which puts every mean in ``-1 .. 1`` whatever the objective;
    * with ``widen`` k > 0, at a node other than the root that has a child for some legal
      action, selects as above among those children (without expanding) while the node has
      ``1 + visits // k`` children or more (progressive widening: a node's later visits follow
      its first moves until its visits earn it another child);
    * expands a legal action without a child: with ``expand=rollout`` the action the rollout
      policy takes in the world (asked there, so a ``random`` rollout draws from ``S``) if it
      has none, else (and with ``expand=first``) the first in the decision's order;
    * rolls out, and adds the objective of the seat of each node on the path to that node.

    With ``root=paired`` the root's children are made first, one per legal action in order,
    and the iterations come in worlds: each of ``max(1, N // n)`` worlds (n actions) is dealt
    once, and in a copy of it each root action in turn is taken and the iteration goes on below
    its child as above. The root action is then chosen from the paired gains over the base
    action ``b`` (the rollout policy's own when it is ``greedy`` or ``heuristic``, else the
    first) exactly as ``pimc`` without ``confirm`` chooses: the root comparisons are paired world
    by world, the tree improves the seat's own later decisions below each; with ``confirm`` K,
    the action that looked best is then played against ``b`` in K more worlds (both taken in
    each, in index order, the iterations going on below them) and judged on all, as ``pimc``.

    Otherwise the action whose child was visited most is taken (ties: the earliest made), except with
    ``z > 0`` and a ``greedy`` or ``heuristic`` rollout: then the action the rollout policy itself
    would take in the real position (it draws nothing) is kept unless the most visited child's
    mean beats its child's by ``z`` standard errors of the difference (``outscores``; each child
    with two visits or more). ``LOG`` is
    ``log_table``: one float64 table computed by numpy, read by both engines, so the two
    compute each bound with the same operations on the same numbers.

Inference, ``infer`` T (pimc and ismcts; T > 1, a ``greedy`` or ``heuristic`` rollout)
    Each world is drawn up to T times: the first draw in which the rollout policy, put in the
    place of each other seat at each of its decisions of this round that ``s`` saw taken (a card
    played, a capture chosen: ``past.rehand(state, world, s)`` gives that past decision as the
    world deals it, its seat's hand then being the cards it has played since and its hand in the
    world), would have taken the action the seat took is searched; if none of the T draws agrees
    with every one, the first with the fewest disagreements (counting stops once a draw has as
    many as the best before it). The past decisions are those of two or more actions, at most
    ``MAX_HISTORY``, which the round's loop tells the policy of (``watch``); the rollout policy
    draws nothing, so inference draws only the worlds.

``omniscient`` (for measurement only), ``worlds`` W
    ``pimc`` in the real position: each of its W worlds is ``state.clone()``, so it sees every
    hidden card (the upper bound of the skill measures; it breaks guarantee 6 of docs/guarantees.md
    on purpose, plays only where a seat names it, and every run and report with it says so).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from simcore.errors import PolicyError
from simcore.kernels.bits import KIND_SHIFT
from simcore.policies import PolicySpec, decision_kinds, parse_policy, search_mask
from simcore.registry import REGISTRY

__all__ = ["IsmctsPolicy", "OmniscientPolicy", "PimcPolicy", "SEARCH_POLICIES", "SearchPolicy", "deviates",
           "log_table", "make_search_policy", "objective", "outscores", "screened"]

SEARCH_POLICIES = ("pimc", "ismcts", "omniscient")
MAX_HISTORY = 256  # the kernel's too (simcore.kernels.contract.MAX_HISTORY)


def log_table(n: int) -> np.ndarray:
    """``float64[n + 1]`` with ``log(k)`` at ``k >= 1`` (0 at 0), as numpy computes it."""
    return np.log(np.maximum(np.arange(n + 1, dtype=np.float64), 1.0))


def deviates(gain: int, squares: int, worlds: int, z: float) -> bool:
    """Whether an option whose objective minus the base option's sums to ``gain`` (its square to
    ``squares``) over ``worlds`` paired worlds beats the base by ``z`` standard errors: ``gain >
    0`` and ``gain^2 (n - 1) >= z^2 (n squares - gain^2)``, in the float64 operations of the
    kernel's ``deviates_nb``, one for one, so both engines decide alike."""
    if gain <= 0:
        return False
    g = float(gain)
    n = float(worlds)
    return g * g * (n - 1.0) >= z * z * (n * float(squares) - g * g)


def screened(gains: list[int], squares: list[int], base: int, confirm: int, worlds: int, z: float) -> int:
    """The screening worlds' choice (``pimc``, ``ismcts`` with paired roots; the kernel's
    ``screened_nb``): the option of the largest gain over the base (ties: the lowest index) that
    is positive (with ``confirm``) or ``deviates`` by ``z`` (without), else the base."""
    best = base
    for i in range(len(gains)):
        if gains[i] > gains[best] and (confirm > 0 or deviates(gains[i], squares[i], worlds, z)):
            best = i
    return best


def outscores(total: int, squares: int, visits: int, base_total: int, base_squares: int, base_visits: int,
              z: float) -> bool:
    """Whether a node's mean objective beats the base node's by ``z`` standard errors of the
    difference of the two means (each from its own visits, at least 2), in the float64
    operations of the kernel's ``outscores_nb``, one for one."""
    if visits < 2 or base_visits < 2:
        return False
    n1 = float(visits)
    m1 = float(total) / n1
    v1 = (float(squares) - float(total) * m1) / (n1 - 1.0)
    n0 = float(base_visits)
    m0 = float(base_total) / n0
    v0 = (float(base_squares) - float(base_total) * m0) / (n0 - 1.0)
    d = m1 - m0
    if d <= 0.0:
        return False
    return d * d >= z * z * (v1 / n1 + v0 / n0)


def objective(returns: list[float], seat: int, kind: str) -> int:
    """The integer a finished round counts for ``seat``: its payoff's sign (``win``), the payoff
    (``score``), or the sum over the other seats of its payoff minus theirs (``margin``)."""
    payoff = int(returns[seat])
    if kind == "win":
        return (payoff > 0) - (payoff < 0)
    if kind == "margin":
        return sum(payoff - int(r) for other, r in enumerate(returns) if other != seat)
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
        # the rollout policy as a recorded text of its name alone stands for: never a default
        # that may change, so a dataset's search players roll out as they did
        rollout = make_policy(parse_policy(self.rollout_name, game, recorded=True), compiled, stream)
        self.rollout_policy = rollout
        self.ask_policy = ask_policy
        self.action_key = action_key
        self.infer = int(spec.params.get("infer", 0))
        self.past: list[tuple[Any, int, int]] = []  # (state, seat, action key) of the round's decisions
        self.cut = int(spec.params.get("depth", 0))
        self.unit = 1
        if self.cut > 0:  # the value model's player: the game's learned player with the value model's numbers
            player = importlib.import_module(f"{REGISTRY[game]}.learned").LearnedPolicy
            self.value_player = player(parse_policy("learned", game), compiled, stream)
            self.unit = self.value_player.use_value_model(compiled, spec)

    def watch(self, state: Any, decision: Any, action: Any) -> None:
        """The round's loop tells of each decision taken (before applying it): with inference,
        one of two or more actions is kept (module docstring)."""
        if self.infer > 1 and len(decision.actions) > 1 and len(self.past) < MAX_HISTORY:
            self.past.append((state.clone(), decision.seat, self.action_key(decision, action)))

    def world(self, state: Any, seat: int) -> Any:
        """A world to search: the hidden cards dealt anew from the stream, with inference drawn
        up to ``infer`` times (module docstring)."""
        world = state.sample_hidden(seat, self.stream)
        if self.infer <= 1 or not self.past:
            return world
        fewest = self.disagreements(state, seat, world, MAX_HISTORY + 1)
        for _ in range(self.infer - 1):
            if fewest == 0:
                break
            drawn = state.sample_hidden(seat, self.stream)
            count = self.disagreements(state, seat, drawn, fewest)
            if count < fewest:
                fewest, world = count, drawn
        return world

    def disagreements(self, state: Any, seat: int, world: Any, limit: int) -> int:
        """How many past decisions of the other seats that ``seat`` saw taken the rollout policy,
        in their place in ``world``, would have taken otherwise (counting stops at ``limit``)."""
        count = 0
        for past, who, key in self.past:
            if count >= limit:
                break
            if who == seat:
                continue
            then = past.rehand(state, world, seat)
            if then is None:
                continue
            decision = then.decision()
            if self.action_key(decision, self.ask_policy(self.rollout_policy, then, decision)) != key:
                count += 1
        return count

    def rollout(self, world: Any) -> None:
        """Play ``world`` to its end with the rollout policy in every seat (draws from the stream)."""
        while True:
            decision = world.decision()
            if decision is None:
                return
            world.apply(self.ask_policy(self.rollout_policy, world, decision))

    def playout(self, world: Any, seat: int, kind: int) -> int:
        """Play ``world`` on with the rollout policy and return what it is worth to ``seat``: its
        objective at the end; with ``depth``, in the value model's points, the rollout stopping at
        the seat's ``depth``-th decision of ``kind`` with two or more actions (module docstring)."""
        if self.cut == 0:
            self.rollout(world)
            return self.score(world, seat)
        count = 0
        while True:
            decision = world.decision()
            if decision is None:
                return self.score(world, seat) * self.unit
            if decision.seat == seat and len(decision.actions) >= 2 and self.kind(decision) == kind:
                count += 1
                if count >= self.cut:
                    self.ask_policy(self.value_player, world, decision)
                    return int(self.value_player.value)
            world.apply(self.ask_policy(self.rollout_policy, world, decision))

    def kind(self, decision: Any) -> int:
        """A decision's kind: its actions' keys' (``simcore.kernels.bits.KIND_SHIFT``)."""
        return int(self.action_key(decision, decision.actions[0])) >> KIND_SHIFT

    def score(self, world: Any, seat: int) -> int:
        """The objective of finished ``world`` for ``seat``."""
        return objective(world.returns(), seat, self.objective)


class PimcPolicy(_Search):
    """Determinized Monte Carlo (module docstring): the option with the best total over worlds."""

    def __init__(self, game: str, spec: PolicySpec, compiled: Any, stream: Any, make_policy: Callable,
                 ask_policy: Callable, action_key: Callable) -> None:
        super().__init__(game, spec, compiled, stream, make_policy, ask_policy, action_key)
        self.worlds = int(spec.params["worlds"])
        self.crn = bool(spec.params["crn"])
        self.z = float(spec.params["z"])
        self.confirm = int(spec.params["confirm"])
        self.race = int(spec.params.get("race", 0))
        self.gate = int(spec.params.get("gate", 0))
        self.search = search_mask(spec, decision_kinds(game))  # the kinds searched (-1: all)
        self.guide_player = None
        if int(spec.params.get("guide", 0)) > 0:  # the learned player whose choice is the base
            player = importlib.import_module(f"{REGISTRY[game]}.learned").LearnedPolicy
            self.guide_player = player(parse_policy("learned", game), compiled, stream)
            self.guide_player.use_guide_model(compiled, spec)

    def decide(self, state: Any, decision: Any) -> Any:
        """The action to take at ``decision`` of ``state`` (the seat's own decision)."""
        actions = decision.actions
        if len(actions) == 1:
            return actions[0]
        seat = decision.seat
        base = 0
        if self.guide_player is not None:  # the guide's choice, taken at once where it leads by gate
            base = list(actions).index(self.ask_policy(self.guide_player, state, decision))
            if self.gate > 0 and self.guide_player.lead >= self.gate:
                return actions[base]
        elif self.rollout_name != "random":  # the rollout policy's own choice (it draws nothing)
            base = list(actions).index(self.ask_policy(self.rollout_policy, state, decision))
        if self.search != -1 and not (self.search >> self.kind(decision)) & 1:
            return actions[base]
        gains, squares = self.play_out(state, seat, actions, self.worlds, None, base)
        best = screened(gains, squares, base, self.confirm, self.worlds, self.z)
        if self.confirm == 0 or best == base:
            return actions[best]
        gain, square = gains[best], squares[best]
        played = 0  # confirming worlds played, in blocks of race (0: all at once)
        while True:
            count = self.confirm - played if self.race <= 0 else min(self.race, self.confirm - played)
            gains, squares = self.play_out(state, seat, actions, count, best, base)
            gain, square, played = gain + gains[best], square + squares[best], played + count
            if played >= self.confirm:
                break
            if gain <= 0:
                return actions[base]
            if deviates(gain, square, self.worlds + played, 2.0 * self.z):
                return actions[best]
        return actions[best] if deviates(gain, square, self.worlds + self.confirm, self.z) else actions[base]

    def play_out(self, state: Any, seat: int, actions: Any, worlds: int, only: int | None,
                 base: int) -> tuple[list[int], list[int]]:
        """Each action's gain over the base action, and its square, summed over ``worlds`` new
        worlds: every action played out in each, or (``only``) the base and ``only``."""
        gains = [0] * len(actions)
        squares = [0] * len(actions)
        values = [0] * len(actions)
        played = [i for i in range(len(actions)) if only is None or i in (only, base)]
        kind = self.kind(state.decision())
        for _ in range(worlds):
            world = self.world(state, seat)
            saved = (list(self.stream.s), self.stream.draws)
            for i in played:
                if self.crn:
                    self.stream.s, self.stream.draws = list(saved[0]), saved[1]
                copy = world.clone()
                copy.apply(actions[i])
                values[i] = self.playout(copy, seat, kind)
            for i in played:
                d = values[i] - values[base]
                gains[i] += d
                squares[i] += d * d
        return gains, squares


class OmniscientPolicy(PimcPolicy):
    """``pimc`` whose every world is the real position (for measurement only): the same draws
    and rollouts, with ``state.clone()`` where ``pimc`` deals ``state.sample_hidden(seat, S)``."""

    def world(self, state: Any, seat: int) -> Any:
        """The real position: every card where it really is."""
        return state.clone()


class _Node:
    """A node of the ISMCTS tree: the action (by key) that leads to it and its statistics."""

    __slots__ = ("avail", "by_key", "children", "key", "seat", "squares", "total", "visits")

    def __init__(self, key: int, seat: int) -> None:
        self.key = key
        self.seat = seat
        self.visits = 0
        self.total = 0
        self.squares = 0
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
        self.norm = bool(spec.params["norm"])
        self.z = float(spec.params["z"])
        self.own = spec.params["tree"] == "own"
        self.paired = spec.params["root"] == "paired"
        self.expand_rollout = spec.params["expand"] == "rollout"
        self.widen = int(spec.params["widen"])
        self.root: _Node | None = None
        self.root_kind = 0
        self.confirm = int(spec.params["confirm"]) if self.paired else 0
        self.scale = 1.0
        self.log = [float(v) for v in log_table(self.iterations + 2 * self.confirm)]

    def _select(self, node: _Node, world: Any, keys: list[int]) -> _Node:
        """Count availability of ``node``'s children legal in ``world`` and pick the best bound."""
        best, best_value = None, 0.0
        legal = set(keys)
        for child in node.children:
            if child.key not in legal:
                continue
            child.avail += 1
            value = child.total / child.visits / self.scale + self.c * math.sqrt(self.log[child.avail] / child.visits)
            if best is None or value > best_value:
                best, best_value = child, value
        assert best is not None
        return best

    def _descend(self, world: Any, seat: int, node: _Node, path: list[_Node]) -> int:
        """One iteration in ``world`` from ``node`` (reached by ``path``): select, expand, roll
        out, and add each path node's seat's objective to it (with ``depth``: the playout's value,
        every node being ``seat``'s); returns what the world is worth to ``seat``."""
        while True:
            pending = world.decision()
            if pending is None:
                break
            if self.own and pending.seat != seat:  # another seat: the rollout policy decides
                world.apply(self.ask_policy(self.rollout_policy, world, pending))
                continue
            keys = [self.action_key(pending, a) for a in pending.actions]
            untried = next((i for i, k in enumerate(keys) if k not in node.by_key), -1)
            if untried >= 0 and self.widen > 0 and node is not self.root and any(k in node.by_key for k in keys) \
                    and len(node.children) >= 1 + node.visits // self.widen:
                untried = -1  # progressive widening: select among the children it has
            if untried >= 0 and self.expand_rollout:  # the rollout policy's action first
                mine = list(pending.actions).index(self.ask_policy(self.rollout_policy, world, pending))
                if keys[mine] not in node.by_key:
                    untried = mine
            if untried >= 0:
                node = node.add(keys[untried], pending.seat)
                world.apply(pending.actions[untried])
                path.append(node)
                break
            node = self._select(node, world, keys)
            world.apply(pending.actions[keys.index(node.key)])
            path.append(node)
        value = self.playout(world, seat, self.root_kind)
        returns = world.returns() if self.cut == 0 else None
        for visited in path:
            visited.visits += 1
            got = value if returns is None else objective(returns, visited.seat, self.objective)
            visited.total += got
            visited.squares += got * got
            if self.norm and abs(got) > self.scale:
                self.scale = float(abs(got))
        return value

    def decide(self, state: Any, decision: Any) -> Any:
        """The action to take at ``decision`` of ``state`` (the seat's own decision)."""
        actions = decision.actions
        if len(actions) == 1:
            return actions[0]
        seat = decision.seat
        root = _Node(-1, seat)
        self.root = root
        self.root_kind = self.kind(decision)
        self.scale = 1.0
        if self.paired:
            return actions[self._decide_paired(state, decision, root)]
        for _ in range(self.iterations):
            self._descend(self.world(state, seat), seat, root, [])
        best = root.children[0]
        for child in root.children[1:]:
            if child.visits > best.visits:
                best = child
        if self.z > 0.0 and self.rollout_name != "random":
            base = root.by_key.get(self.action_key(decision, self.ask_policy(self.rollout_policy, state, decision)))
            if base is not None and base is not best and not outscores(
                    best.total, best.squares, best.visits, base.total, base.squares, base.visits, self.z):
                best = base
        for action in actions:
            if self.action_key(decision, action) == best.key:
                return action
        raise AssertionError("the most visited root action is not legal")  # pragma: no cover

    def _decide_paired(self, state: Any, decision: Any, root: _Node) -> int:
        """``root=paired``: every root action in each world, chosen by paired gains (module docstring)."""
        actions = decision.actions
        base = 0
        if self.rollout_name != "random":
            base = list(actions).index(self.ask_policy(self.rollout_policy, state, decision))
        children = [root.add(self.action_key(decision, action), decision.seat) for action in actions]
        worlds = max(1, self.iterations // len(actions))
        gains, squares = self._paired_worlds(state, decision, children, worlds, None, base)
        best = screened(gains, squares, base, self.confirm, worlds, self.z)
        if self.confirm == 0 or best == base:
            return best
        gain, square = gains[best], squares[best]
        gains, squares = self._paired_worlds(state, decision, children, self.confirm, best, base)
        return best if deviates(gain + gains[best], square + squares[best], worlds + self.confirm, self.z) else base

    def _paired_worlds(self, state: Any, decision: Any, children: list[_Node], worlds: int, only: int | None,
                       base: int) -> tuple[list[int], list[int]]:
        """Each root action's gain over the base action, and its square, summed over ``worlds``
        new worlds: every action (or, ``only``, the base and ``only``) taken in a copy of each
        world, the iteration going on below its child."""
        actions = decision.actions
        seat = decision.seat
        gains = [0] * len(actions)
        squares = [0] * len(actions)
        values = [0] * len(actions)
        played = [i for i in range(len(actions)) if only is None or i in (only, base)]
        for _ in range(worlds):
            world = self.world(state, seat)
            for i in played:
                copy = world.clone()
                copy.apply(actions[i])
                values[i] = self._descend(copy, seat, children[i], [children[i]])
            for i in played:
                d = values[i] - values[base]
                gains[i] += d
                squares[i] += d * d
        return gains, squares


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
