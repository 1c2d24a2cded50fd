"""Tensho's decisions as both engines name them: an action's int64 key, and asking a policy object
for its answer to a decision (the reference engine and the search players share both)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from simcore.kernels.bits import KIND_SHIFT
from simcore.reference.forward import Decision

if TYPE_CHECKING:  # the reference engine imports this module
    from simcore.games.tensho.reference import RoundState

__all__ = ["ACTION_KINDS", "DECLINE_CAPTURE_KEY", "action_key", "ask_policy"]


ACTION_KINDS = {"yaku_set": 0, "opening_claim": 1, "bank_six": 2, "play": 3, "capture": 4}
DECLINE_CAPTURE_KEY = 1 << 50  # the payload of "leave the card on the field"


def action_key(decision: Decision, action: Any) -> int:
    """The int64 key of ``action`` at ``decision``: ``kind << 56 | payload`` (both engines).

    Payloads: the yaku set (1 or 2); an opening claim's pair as a card mask (0 declines); the
    6 of clubs banked (1) or not (0); the card played; the capture's field-card mask
    (``DECLINE_CAPTURE_KEY`` leaves the card on the field).
    """
    kind = ACTION_KINDS[decision.kind]
    if decision.kind == "opening_claim":
        payload = 0 if action is None else (1 << action[0]) | (1 << action[1])
    elif decision.kind == "capture":
        payload = DECLINE_CAPTURE_KEY if action is None else int(action)
    else:
        payload = int(action)
    return (kind << KIND_SHIFT) | payload


def ask_policy(policy, state: RoundState, decision: Decision) -> Any:
    """Answer ``decision`` with the policy object's method for its kind (``simcore.policies``);
    a search player (``simcore.search``) is handed the state, which it only samples worlds from."""
    if getattr(policy, "searches", False):
        return policy.decide(state, decision)
    obs = state.observe(decision.seat)
    info = decision.info
    if decision.kind == "play":
        return policy.play(obs)
    if decision.kind == "capture":
        return policy.choose_capture(obs, info["card"], list(info["options"]), info["allow_decline"])
    if decision.kind == "opening_claim":
        return policy.opening_claim(obs, info["rank"], list(info["pairs"]))
    if decision.kind == "bank_six":
        return bool(policy.bank_six(obs))
    return int(policy.choose_yaku_set(obs))
