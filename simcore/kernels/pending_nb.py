"""Posing a decision in a game's numba state: the pending decision's kind, its deciding seat, its
number of actions and their keys (``bits.key_of_nb``), kept by every game's state machine at
offsets of its own (``pending``: a tuple of four, the kind's, the seat's, the number's and the
first key's).  Both helpers compile into their caller as if written there."""

from __future__ import annotations

import numba as nb

from simcore.kernels.bits import key_of_nb

__all__ = ["pose_nb", "pose_two_nb"]


@nb.njit(inline="always", cache=True)
def pose_nb(state, pending, kind, seat, n):
    """Pose a decision of ``kind`` to ``seat`` among ``n`` actions, whose keys the caller writes
    from ``state[pending[3]]`` on."""
    state[pending[0]] = kind
    state[pending[1]] = seat
    state[pending[2]] = n


@nb.njit(inline="always", cache=True)
def pose_two_nb(state, pending, kind, seat, first):
    """Pose a two-way decision of ``kind`` to ``seat``: its actions are the payloads ``first`` and
    ``first + 1`` (no and yes, or two numbered choices)."""
    pose_nb(state, pending, kind, seat, 2)
    state[pending[3]] = key_of_nb(kind, first)
    state[pending[3] + 1] = key_of_nb(kind, first + 1)
