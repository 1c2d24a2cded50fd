"""The choice of a policy that does not search, written once over the round contract's three
stubs (``simcore.kernels.contract``: ``random_choice_nb``, ``greedy_choice_nb``,
``heuristic_choice_nb``), for the search players, their rollouts and the learned player's
self-play."""

from __future__ import annotations

import numba as nb

from simcore.kernels import contract as C
from simcore.kernels.policy_ids import POLICY_GREEDY, POLICY_HEURISTIC

__all__ = ["basic_choice_nb"]


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
