"""Enshu-bana's decisions as both engines name them: an action's int64 key, and asking a policy
object for its answer to a decision (the reference engine and the search players share both)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from simcore.kernels.bits import KIND_SHIFT
from simcore.reference.forward import Decision

if TYPE_CHECKING:  # the reference engine imports this module
    from simcore.games.enshu.reference import RoundState

__all__ = ["ACTION_KINDS", "action_key", "ask_policy"]


ACTION_KINDS = {"mizu_kotsu": 0, "kotsu": 1, "join": 2, "fuke": 3, "declare_teyaku": 4, "play": 5, "capture": 6}


def action_key(decision: Decision, action: Any) -> int:
    """The int64 key of ``action`` at ``decision``: ``kind << 56 | payload`` (both engines).

    Payloads: 1 or 0 for a yes/no decision; a teyaku option as ``(index + 1) | month << 8 |
    three_month << 16`` (0 declares none); the card played; the capture's field-card mask.
    """
    kind = ACTION_KINDS[decision.kind]
    if decision.kind == "declare_teyaku":
        payload = 0 if action is None else (action.index + 1) | (action.month << 8) | (action.three_month << 16)
    else:
        payload = int(action)
    return (kind << KIND_SHIFT) | payload


def ask_policy(policy, state: RoundState, decision: Decision) -> Any:
    """Answer ``decision`` with the policy object's method for its kind (``simcore.games.enshu.policies``).

    Parameters
    ----------
    policy : the deciding seat's policy object (``mizu_kotsu``, ``kotsu``, ``join``,
        ``declare_teyaku``, ``play``, ``choose_capture``, ``fuke``)
    state : the round, paused at ``decision``
    decision : the pending decision

    Returns
    -------
    The action: a bool (yes/no kinds), a ``TeyakuOption`` or None, a card id, or a field-card
    mask.  A search player (``simcore.search``) is handed the state instead, which it only
    samples worlds from.  The method is called with the seat's observation and the same other arguments as
    the closed round loop called it with, so the seat's stream is drawn from identically.
    """
    if getattr(policy, "searches", False):
        return policy.decide(state, decision)
    obs = state.observe(decision.seat)
    kind = decision.kind
    if kind == "play":
        return int(policy.play(obs))
    if kind == "capture":
        return policy.choose_capture(obs, decision.info["card"], list(decision.actions))
    if kind == "declare_teyaku":
        return policy.declare_teyaku(obs, decision.info["group"], list(decision.info["options"]))
    if kind == "join":
        return bool(policy.join(obs))
    if kind == "kotsu":
        return bool(policy.kotsu(obs))
    if kind == "mizu_kotsu":
        return bool(policy.mizu_kotsu(obs))
    return bool(policy.fuke(obs))
