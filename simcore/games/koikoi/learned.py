"""Koi-koi's learned player: its features, computed from the deciding seat's ``Observation``
only, and its reference-engine policy (``simcore.learned`` describes models and tables).

Features
--------
For now two per action: ``heuristic``, 1 for the action the ``heuristic`` takes (default
weights), and ``koikoi``, 1 for calling koi-koi. A model over them can follow the heuristic, or
call koi-koi more or less often than it does; the terms the heuristic weighs (its capture gains
and denial) are the next features to add. The kernel's ``learned_features_nb`` (``state_nb``)
computes the same numbers with the heuristic's numba twin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from simcore.cards import ids_of
from simcore.games.koikoi.policies import GamePolicy, HeuristicPolicy, Observation, heuristic_tables
from simcore.kernels.prepared import prepared
from simcore.learned import choose, learned_table, table_weights
from simcore.policies import PolicySpec, parse_policy
from simcore.rng import Stream

__all__ = ["FEATURES", "FIXED", "KINDS", "LearnedPolicy", "aux_table", "blocks", "features", "kernel_rules"]

FEATURES = ("heuristic", "koikoi")
KINDS = ("play", "capture", "koikoi")  # the kernel's decision codes (enums.D_*), in order
FIXED: dict[str, int] = {}  # weights training does not fit


def blocks(compiled: Any) -> tuple[str | None, ...]:
    """One block: ``base``."""
    return ("base",)


def kernel_rules(compiled: Any) -> Any:
    """The rules namedtuple of the general kernel (``state_nb.KoikoiRules``)."""
    from simcore.games.koikoi.state_nb import kernel_rules as rules

    return rules(compiled)


def aux_table(compiled: Any) -> np.ndarray:
    """int64[:]: the heuristic's tables at its default weights (``policies.heuristic_tables``)."""
    return heuristic_tables(compiled, parse_policy("heuristic", "koikoi"))


def features(h: HeuristicPolicy, obs: Observation, kind: str, actions: list[Any], card: int = -1) -> list[list[int]]:
    """The features (module docstring) of every action of a decision of ``kind``, in the
    kernel's order (koi-koi: ``[False, True]``); ``h`` is the heuristic at its default weights."""
    rows = [[0] * len(FEATURES) for _ in actions]
    if kind == "play":
        picked: Any = h.play(obs)
    elif kind == "capture":
        picked = h.choose_capture(obs, card, list(actions))
    else:
        picked = bool(h.koikoi(obs))
        rows[1][1] = 1
    rows[list(actions).index(picked)][0] = 1
    return rows


def _parts(compiled: Any, specs: Any) -> tuple[list[list[int]], HeuristicPolicy]:
    """The weight rows of a learned seat and the heuristic its features use (kept between rounds)."""
    return (table_weights(learned_table("koikoi", compiled, specs[0])),
            HeuristicPolicy(parse_policy("heuristic", "koikoi"), compiled))


class LearnedPolicy:
    """The learned player in the reference engine: each decision from the seat's observation
    (the kernel's ``learned_features_nb`` computes the same features)."""

    name = "learned"

    def __init__(self, spec: PolicySpec, compiled: Any, stream: Stream | None = None) -> None:
        self.weights, self.heuristic = prepared(_parts, compiled, [spec])

    def _pick(self, obs: Observation, kind: str, actions: list[Any], card: int = -1) -> Any:
        rows = features(self.heuristic, obs, kind, actions, card)
        return actions[choose(self.weights, rows, KINDS.index(kind))]

    def play(self, obs: Observation) -> int:
        return int(self._pick(obs, "play", ids_of(obs.hand)))

    def choose_capture(self, obs: Observation, card: int, options: list[int]) -> int:
        return int(self._pick(obs, "capture", list(options), card))

    def koikoi(self, obs: Observation) -> bool:
        return bool(self._pick(obs, "koikoi", [False, True]))


# Annotated so that the type checker verifies the class implements ``GamePolicy``.
_MAKE: Callable[[PolicySpec, Any, Stream], GamePolicy] = LearnedPolicy
