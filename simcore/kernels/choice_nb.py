"""The choice of a policy that does not search, written once over the round contract's three
stubs (``simcore.kernels.contract``: ``random_choice_nb``, ``greedy_choice_nb``,
``heuristic_choice_nb``), for the search players, their rollouts and the learned player's
self-play."""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.kernels import contract as C
from simcore.kernels.policy_ids import (
    OBJECTIVE_MARGIN,
    OBJECTIVE_WIN,
    POLICY_GREEDY,
    POLICY_HEURISTIC,
)

__all__ = ["basic_choice_nb", "objective_nb"]


@nb.njit(inline="always", cache=True)
def objective_nb(ctx, x, seat, objective):
    """What the ended round ``x`` counts for ``seat`` (``policy_ids.OBJECTIVE_IDS``): the sign of
    its payoff (``OBJECTIVE_WIN``), the payoff (``OBJECTIVE_SCORE``), or the sum over the other
    seats of its payoff minus theirs (``OBJECTIVE_MARGIN``); ``search.objective`` in Python."""
    payoff = C.payoff_nb(ctx, x, seat)
    if objective == OBJECTIVE_WIN:
        return np.int64(1) if payoff > 0 else (np.int64(-1) if payoff < 0 else np.int64(0))
    if objective == OBJECTIVE_MARGIN:
        margin = np.int64(0)
        for other in range(C.n_seats_nb(ctx)):
            if other != seat:
                margin += np.int64(payoff) - np.int64(C.payoff_nb(ctx, x, other))
        return margin
    return np.int64(payoff)


@nb.njit(inline="always", cache=True)
def basic_choice_nb(ctx, state, policy_id, param, table, streams, at, greedy, heuristic):
    """The action index a policy that does not search (``POLICY_RANDOM``, ``POLICY_GREEDY`` or
    ``POLICY_HEURISTIC``) takes at the pending decision, drawing (random) from the stream at
    ``streams[at:at + 4]``; ``param`` is the policy's packed game parameter
    (``policy_rows.P_BASIC``) and ``table`` int64[:] the heuristic's tables.  With ``greedy``
    (``heuristic``) None that policy is not compiled: inlined here, its branch is dropped where
    the caller's argument is None."""
    if greedy is not None and policy_id == POLICY_GREEDY:
        return C.greedy_choice_nb(ctx, state, param)
    if heuristic is not None and policy_id == POLICY_HEURISTIC:
        return C.heuristic_choice_nb(ctx, state, table)
    return C.random_choice_nb(ctx, state, streams, at)
