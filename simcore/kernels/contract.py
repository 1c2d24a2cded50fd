"""The numba round contract: what a game's numba state machine provides, so that the search
players, the rollouts and the unit and match loop (``simcore.kernels.search_nb``,
``simcore.kernels.units_nb``) are written once for every game.

Contract
--------
Every function below is a stub: calling it from Python raises. A game implements each one for
its own **context type** with ``numba.extending.overload``, in its ``state_nb.py``
(``implements(stub, ContextClass)`` below), and the generic kernels, compiled with
``cache=True``, call the stubs; numba picks the game's implementation by the context's type and
compiles the generic kernel once per game, and the on-disk cache holds each game's compiled
kernel across processes. (Passing the game's functions as arguments, or closing over them,
compiles again in every process.)

A game's numba side has three kinds of object:

* **rules**: a ``collections.namedtuple`` of the arrays (and uint64 scalars) its compiled rules
  lower to, built by the game's Python wrapper once per run; its class names the game.
* **context** (``ctx``): a namedtuple of one kernel thread, made in the kernel by
  ``context_nb(rules, seed)``: the rules, the run's seed and the scratch the state machine
  needs (e.g. an observation buffer). Only the game reads its fields.
* **state**: whatever the game keeps a round in (one array, or a tuple of arrays), made by
  ``new_state_nb(ctx)``; a copy is ``copy_state_nb`` into a state of the same context. The
  generic code never looks inside a state.

A state pauses at each decision a seat takes: ``to_act_nb`` is the seat, ``n_actions_nb`` the
number of legal actions (at most ``MAX_ACTIONS``), ``action_key_nb`` each action's int64 key
(the reference engine's ``action_key``, in the reference's order), ``apply_nb`` takes the action
at an index and steps on to the next decision or to the end (``done_nb``).

Streams are 4-word xoshiro states at an offset of a flat uint64 array (``simcore.rng``): seat
``s``'s decision stream is at ``4 * s``. The policies that do not search (``random_choice_nb``,
``greedy_choice_nb``, ``heuristic_choice_nb``: one stub each, so that a kernel compiles only the
ones its seats play) draw only from the deciding seat's stream, exactly as the game's
reference policies do; ``sample_hidden_nb`` deals the cards ``seat`` cannot see, drawing from
the stream at ``at``, exactly as the reference state's ``sample_hidden``.

Every stub but ``context_nb``, ``new_state_nb`` and ``new_history_nb`` must run without numba's reference counting
(``jit_options={"_nrt": False}`` on the overload; ``implements`` sets it). A stub with a default
(``match_over_nb``: a match never ends early; ``start_points_nb``: 0; ``rehand_nb``: a search
player infers nothing from the other seats' play) needs implementing only by
a game that differs. ``implements_match_rows`` implements the stubs that only write the match
columns, and ``implements_flat_state`` those that only read a state kept in one int64 array.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
from numba.core import types
from numba.extending import overload

from simcore.kernels.internal import INTERNAL_OPTIONS
from simcore.record import C_MATCH, C_MATCH_END, C_ROUND_IN_MATCH, C_VALID

__all__ = [
    "MAX_ACTIONS",
    "MAX_PATH",
    "action_key_nb",
    "add_match_points_nb",
    "apply_nb",
    "context_nb",
    "copy_state_nb",
    "default",
    "done_nb",
    "end_match_nb",
    "greedy_choice_nb",
    "heuristic_choice_nb",
    "implements",
    "implements_flat_state",
    "implements_match_rows",
    "learned_features_nb",
    "load_implementations",
    "match_over_nb",
    "n_actions_nb",
    "n_seats_nb",
    "new_state_nb",
    "next_dealer_nb",
    "payoff_nb",
    "new_history_nb",
    "random_choice_nb",
    "rehand_nb",
    "rollout_turns_nb",
    "sample_hidden_nb",
    "save_past_nb",
    "start_points_nb",
    "start_round_nb",
    "to_act_nb",
    "unused_row_nb",
    "winner_nb",
    "write_match_nb",
    "write_row_nb",
]

MAX_ACTIONS = 64  # legal actions of one decision, in every game (a card of a 48-card deck, at most)
MAX_PATH = 1024  # decisions of one round, in every game, with room to spare
MAX_HISTORY = 256  # a round's decisions of two or more actions that a search player's inference reads


def _stub(name: str) -> Any:
    raise NotImplementedError(f"{name} is a numba round-contract stub: call it from a kernel")


# --- the context and the state ----------------------------------------------------------------

def context_nb(rules: Any, seed: Any) -> Any:
    """The context of one kernel thread for ``rules`` (the game's rules namedtuple) and the run's
    ``seed`` (uint64): the rules, the seed and the game's scratch. May allocate."""
    return _stub("context_nb")


def new_state_nb(ctx: Any) -> Any:
    """A fresh state of ``ctx``'s game (its contents undefined until ``start_round_nb`` or
    ``copy_state_nb``). May allocate."""
    return _stub("new_state_nb")


def copy_state_nb(ctx: Any, src: Any, dst: Any) -> None:
    """Copy the state ``src`` into ``dst``."""
    _stub("copy_state_nb")


def n_seats_nb(ctx: Any) -> Any:
    """The number of seats at the table (int64), 1 .. the game's most."""
    return _stub("n_seats_nb")


# --- a round ----------------------------------------------------------------------------------

def start_round_nb(ctx: Any, state: Any, unit: Any, round_in_match: Any, round_index: Any,
                   independent: Any, dealer: Any, points: Any) -> None:
    """Set ``state`` to the start of round ``round_index`` (the run's global round number, which
    names the round's streams) and step to its first decision. ``unit`` is the match (or the
    independent round), ``round_in_match`` the round's place in it (0 for independent rounds),
    ``independent`` true for independent rounds, ``dealer`` the dealing seat and ``points``
    int64[>= seats] each seat's match points before the round."""
    _stub("start_round_nb")


def done_nb(ctx: Any, state: Any) -> Any:
    """Whether the round has ended (scored)."""
    return _stub("done_nb")


def to_act_nb(ctx: Any, state: Any) -> Any:
    """The seat of the pending decision (int64)."""
    return _stub("to_act_nb")


def n_actions_nb(ctx: Any, state: Any) -> Any:
    """The number of legal actions of the pending decision (int64, 1 .. ``MAX_ACTIONS``)."""
    return _stub("n_actions_nb")


def action_key_nb(ctx: Any, state: Any, index: Any) -> Any:
    """The int64 key of the pending decision's action ``index`` (the reference's ``action_key``):
    equal keys are the same action in every world a seat cannot tell apart."""
    return _stub("action_key_nb")


def apply_nb(ctx: Any, state: Any, index: Any) -> None:
    """Take the pending decision's action ``index`` and step on to the next decision or the end."""
    _stub("apply_nb")


def payoff_nb(ctx: Any, state: Any, seat: Any) -> Any:
    """The ended round's payoff to ``seat`` (int64; the row's payoff column)."""
    return _stub("payoff_nb")


def sample_hidden_nb(ctx: Any, state: Any, seat: Any, streams: Any, at: Any, out: Any) -> None:
    """Write into ``out`` a world ``seat`` cannot tell from ``state``: the cards it cannot see
    dealt anew from the stream at ``streams[at:at + 4]``, as the reference's ``sample_hidden``."""
    _stub("sample_hidden_nb")


def new_history_nb(ctx: Any, n: Any) -> Any:
    """Room for ``n`` past states of ``ctx``'s game (``save_past_nb``, ``rehand_nb``). May
    allocate."""
    return _stub("new_history_nb")


def save_past_nb(ctx: Any, state: Any, history: Any, k: Any) -> None:
    """Keep a copy of ``state`` (paused at a decision) in slot ``k`` of ``history``."""
    _stub("save_past_nb")


def rehand_nb(ctx: Any, history: Any, k: Any, now: Any, world: Any, seat: Any, out: Any) -> Any:
    """The past decision in slot ``k`` of ``history`` as it was in ``world``, for a search player
    of ``seat`` that infers from the other seats' play: write into ``out`` that past state with
    the cards ``seat`` could not see then dealt as ``world`` deals the ones it cannot see ``now``
    (a hand then: the cards its seat has played from it since, which everyone saw, and its cards
    in ``world``), the decision's legal actions listed afresh where they depend on them, exactly
    as the reference's ``rehand``. True if the decision is one whose action ``seat`` saw taken
    (a card played, a capture chosen), so that the seat may compare it with what a model of the
    deciding seat would have done there; false for the others (nothing written then). Default:
    false, a game whose search players infer nothing (``default``)."""
    return _stub("rehand_nb")


def random_choice_nb(ctx: Any, state: Any, streams: Any, at: Any) -> Any:
    """The action index the random policy takes at the pending decision, drawing from the stream
    at ``streams[at:at + 4]``."""
    return _stub("random_choice_nb")


def greedy_choice_nb(ctx: Any, state: Any, param: Any) -> Any:
    """The action index the greedy policy takes at the pending decision; ``param`` is its packed
    game parameter (``simcore.kernels.policy_rows.P_BASIC``)."""
    return _stub("greedy_choice_nb")


def heuristic_choice_nb(ctx: Any, state: Any, table: Any) -> Any:
    """The action index the heuristic takes at the pending decision; ``table`` int64[:] is its
    tables."""
    return _stub("heuristic_choice_nb")


def rollout_turns_nb(ctx: Any, state: Any, rollout_id: Any, streams: Any, at: Any) -> Any:
    """A rollout's shortcut: play on from the pending decision with ``rollout_id`` in every seat,
    drawing from the stream at ``at``, exactly as the choice stubs and ``apply_nb`` would, as
    far as the game can do it faster; true if it moved the state, false to decide one action
    the ordinary way. A game with no shortcut returns false."""
    return _stub("rollout_turns_nb")


# --- the learned player ----------------------------------------------------------------------

def learned_features_nb(ctx: Any, state: Any, aux: Any) -> Any:
    """The learned player's view of the pending decision: ``(features, slot)``.

    ``features`` is int64[n_actions, F], a view of scratch the context holds: row ``i`` the
    game's F integer features of taking action ``i`` (the decision's order), computed from the
    deciding seat's observation alone and ``aux`` (int64[:], the tables the game's
    ``learned.aux_table`` builds, carried in the learned player's table); ``slot`` (int64) is the
    row of model weights the decision uses: ``block * len(KINDS) + kind``, ``block`` the index in
    the game's ``learned.blocks``. The game's Python twin ``learned.features`` gives the same
    numbers from its ``Observation`` (``simcore.learned``)."""
    return _stub("learned_features_nb")


# --- rows and matches -------------------------------------------------------------------------

def write_row_nb(ctx: Any, state: Any, out_int: Any, out_mask: Any, row: Any) -> None:
    """Write the ended round into column ``row`` of the output matrices (every column but the
    match columns of ``write_match_nb``), as ``RecordLayout.fill_row`` writes a reference round."""
    _stub("write_row_nb")


def winner_nb(ctx: Any, state: Any) -> Any:
    """The ended round's winner for match play (int64, -1: nobody)."""
    return _stub("winner_nb")


def add_match_points_nb(ctx: Any, state: Any, points: Any) -> None:
    """Add the ended round to the seats' match points ``points`` (int64[>= seats])."""
    _stub("add_match_points_nb")


def next_dealer_nb(ctx: Any, dealer: Any, winner: Any) -> Any:
    """The next round's dealer after a round that ``winner`` (>= 0) won under ``dealer``."""
    return _stub("next_dealer_nb")


def write_match_nb(ctx: Any, out_int: Any, row: Any, unit: Any, round_in_match: Any, points: Any) -> None:
    """Write the match columns of ``row``: the match, the round in it, the points after the round,
    and "not the match's last round" (``end_match_nb`` marks the last)."""
    _stub("write_match_nb")


def end_match_nb(ctx: Any, out_int: Any, row: Any) -> None:
    """Mark ``row`` as its match's last round."""
    _stub("end_match_nb")


def unused_row_nb(ctx: Any, out_int: Any, row: Any) -> None:
    """Mark ``row`` as holding no round (a match that ended before its last reserved row)."""
    _stub("unused_row_nb")


def start_points_nb(ctx: Any) -> Any:
    """The match points every seat starts a match with (int64), which the match loop's ``points``
    count from. Default: 0 (``default``)."""
    return _stub("start_points_nb")


def match_over_nb(ctx: Any, points: Any) -> Any:
    """Whether the match ends now, before its last round, at the seats' match points ``points``
    (int64[>= seats], after the round just played). Default: never (``default``)."""
    return _stub("match_over_nb")


# --- implementing the contract ----------------------------------------------------------------

def is_context(numba_type: Any, context_class: type) -> bool:
    """Whether ``numba_type`` is the numba type of an instance of the namedtuple ``context_class``."""
    return isinstance(numba_type, types.BaseNamedTuple) and numba_type.instance_class is context_class


@functools.cache
def load_implementations() -> None:
    """Import every registered game's numba state machine (``simcore.games.<name>.state_nb``), so
    that all implementations of the stubs are registered before a generic kernel is typed.

    A game's module imported while numba types a kernel (a nested compile refreshes numba's
    typing context) changes a stub's type in the middle of the typing, and numba then fails to
    unify the stub with itself ("Cannot unify Function(context_nb) and Function(context_nb)").
    Every Python entry to a generic kernel calls this first."""
    from simcore.registry import REGISTRY

    for package in REGISTRY.values():
        importlib.import_module(f"{package}.state_nb")


# stub -> the context classes that implement it (a default serves every other context)
IMPLEMENTED: dict[Callable[..., Any], set[type]] = {}


def implements(stub: Callable[..., Any], context_class: type, nrt: bool = False,
               inline: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: ``impl`` implements ``stub`` for contexts (or, for ``context_nb``, rules) of
    ``context_class``. ``impl`` is a plain function with the stub's signature, compiled into the
    generic kernels; ``nrt`` lets it allocate (``context_nb``, ``new_state_nb``).

    ``inline`` (the default): ``impl`` is inlined into the generic kernel at numba's IR level, as
    a stub that does a few instructions' work should be (a call passes the context's every array,
    seven words or more each).  numba compiles an inlined overload in full as well, to type it,
    and throws that away: a stub whose implementation calls much (a round's steps, a policy) is
    better ``inline=False``, a function of its own that the kernels call, compiled once and kept
    in the on-disk cache.  A function of its own that returns an array (a view of the context's
    scratch, as ``learned_features_nb`` does) needs ``nrt``: the caller releases what it gets, and
    without a reference taken in the callee that frees the context's memory."""

    def register(impl: Callable[..., Any]) -> Callable[..., Any]:
        IMPLEMENTED.setdefault(stub, set()).add(context_class)

        # a function of its own is called by the kernels only: compiled without the wrappers Python
        # calls through (simcore.kernels.internal), and so optimised in the kernel (kernels.linking)
        options: dict[str, Any] = ({"_nrt": nrt} if inline else
                                   {"_nrt": nrt, "cache": True, **INTERNAL_OPTIONS})

        @overload(stub, jit_options=options, strict=False, inline="always" if inline else "never")
        def typer(first: Any, *rest: Any) -> Any:
            if is_context(first, context_class):
                return impl
            return None

        return impl

    return register


def implements_flat_state(context_class: type, size: int, seats: int, done: int, seat: int, n_actions: int,
                          keys: int, payoff: int) -> None:
    """Implement the state's stubs for a game whose state is one int64 array of ``size`` words
    and whose table has ``seats`` seats: ``new_state_nb``, ``copy_state_nb``, ``new_history_nb``
    and ``save_past_nb`` (a history is int64[n, size]), ``n_seats_nb``,
    and ``done_nb``, ``to_act_nb``, ``n_actions_nb``, ``action_key_nb`` and ``payoff_nb`` from
    these offsets: a nonzero flag once the round is over, the deciding seat, the number of legal
    actions, their keys from ``keys`` on and each seat's payoff from ``payoff`` on."""
    n_seats = np.int64(seats)

    @implements(new_state_nb, context_class, nrt=True)
    def _new_state(ctx: Any) -> Any:
        return np.zeros(size, dtype=np.int64)

    @implements(new_history_nb, context_class, nrt=True)
    def _new_history(ctx: Any, n: Any) -> Any:
        return np.zeros((n, size), dtype=np.int64)

    @implements(save_past_nb, context_class)
    def _save_past(ctx: Any, state: Any, history: Any, k: Any) -> None:
        for j in range(size):
            history[k, j] = state[j]

    @implements(copy_state_nb, context_class)
    def _copy_state(ctx: Any, src: Any, dst: Any) -> None:
        for j in range(size):
            dst[j] = src[j]

    @implements(n_seats_nb, context_class)
    def _n_seats(ctx: Any) -> Any:
        return n_seats

    @implements(done_nb, context_class)
    def _done(ctx: Any, state: Any) -> Any:
        return state[done] != 0

    @implements(to_act_nb, context_class)
    def _to_act(ctx: Any, state: Any) -> Any:
        return state[seat]

    @implements(n_actions_nb, context_class)
    def _n_actions(ctx: Any, state: Any) -> Any:
        return state[n_actions]

    @implements(action_key_nb, context_class)
    def _action_key(ctx: Any, state: Any, index: Any) -> Any:
        return state[keys + index]

    @implements(payoff_nb, context_class)
    def _payoff(ctx: Any, state: Any, seat: Any) -> Any:
        return state[payoff + seat]


def implements_match_rows(context_class: type, seats: int, match_points: int) -> None:
    """Implement ``write_match_nb``, ``end_match_nb`` and ``unused_row_nb`` for a game: they write
    the rows every game's int64 output matrix has (``simcore.record``: the match, the round in
    it, the match's-last-round flag, the valid-row flag) and each of its at most ``seats``
    seats' match points from row ``match_points`` on (``start_points_nb`` plus the points the
    loop counts)."""
    match, round_in_match, match_end, valid = C_MATCH, C_ROUND_IN_MATCH, C_MATCH_END, C_VALID

    @implements(write_match_nb, context_class)
    def _write_match(ctx: Any, out_int: Any, row: Any, unit: Any, round_in: Any, points: Any) -> None:
        start = start_points_nb(ctx)
        out_int[match, row] = unit
        out_int[round_in_match, row] = round_in
        out_int[match_end, row] = 0
        for s in range(seats):
            out_int[match_points + s, row] = start + points[s]

    @implements(end_match_nb, context_class)
    def _end_match(ctx: Any, out_int: Any, row: Any) -> None:
        out_int[match_end, row] = 1

    @implements(unused_row_nb, context_class)
    def _unused_row(ctx: Any, out_int: Any, row: Any) -> None:
        out_int[valid, row] = 0


def default(stub: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: ``impl`` implements ``stub`` for every context whose game does not implement
    it (``implements``), so that adding a stub with a default changes no game."""

    def register(impl: Callable[..., Any]) -> Callable[..., Any]:
        @overload(stub, jit_options={"_nrt": False}, strict=False, inline="always")
        def typer(first: Any, *rest: Any) -> Any:
            if isinstance(first, types.BaseNamedTuple) and first.instance_class not in IMPLEMENTED.get(stub, set()):
                return impl
            return None

        return impl

    return register


@default(match_over_nb)
def _never_over(ctx: Any, points: Any) -> Any:
    return False


@default(start_points_nb)
def _no_start_points(ctx: Any) -> Any:
    return np.int64(0)


@default(rehand_nb)
def _nothing_seen(ctx: Any, history: Any, k: Any, now: Any, world: Any, seat: Any, out: Any) -> Any:
    return False
