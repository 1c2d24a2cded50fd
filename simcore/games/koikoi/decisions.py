"""Koi-koi's decisions as both engines name them: an action's int64 key, and asking a policy object
for its answer to a decision (the reference engine and the search players share both)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from simcore.games.koikoi import enums as E
from simcore.kernels.bits import KIND_SHIFT
from simcore.reference.forward import Decision

if TYPE_CHECKING:  # the reference engine imports this module
    from simcore.games.koikoi.reference import RoundState

__all__ = ["ACTION_KINDS", "action_key", "ask_policy"]


ACTION_KINDS = {"play": E.D_PLAY, "capture": E.D_CAPTURE, "koikoi": E.D_KOIKOI}


def action_key(decision: Decision, action: Any) -> int:
    """The int64 key of ``action`` at ``decision``: ``kind << 56 | payload`` (both engines).

    Payloads: the card played; the mask of the field card taken; 0 to stop, 1 to call koi-koi.
    """
    return (ACTION_KINDS[decision.kind] << KIND_SHIFT) | int(action)


def ask_policy(policy, state: RoundState, decision: Decision) -> Any:
    """Answer ``decision`` with the policy object's method for its kind; a search player
    (``simcore.search``) is handed the state, which it only samples worlds from."""
    if getattr(policy, "searches", False):
        return policy.decide(state, decision)
    obs = state.observe(decision.seat)
    if decision.kind == "play":
        return policy.play(obs)
    if decision.kind == "capture":
        return policy.choose_capture(obs, decision.info["card"], list(decision.actions))
    return bool(policy.koikoi(obs))
