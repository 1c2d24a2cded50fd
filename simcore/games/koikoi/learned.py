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
from simcore.learned import LearnedPlayer
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


class LearnedPolicy(LearnedPlayer):
    """The learned player in the reference engine (``simcore.learned.LearnedPlayer``)."""

    GAME, KINDS, HEURISTIC, FEATURES_OF = "koikoi", KINDS, HeuristicPolicy, staticmethod(features)

    def play(self, obs: Observation) -> int:
        return int(self.pick(obs, "play", ids_of(obs.hand)))

    def choose_capture(self, obs: Observation, card: int, options: list[int]) -> int:
        return int(self.pick(obs, "capture", list(options), card))

    def koikoi(self, obs: Observation) -> bool:
        return bool(self.pick(obs, "koikoi", [False, True]))

# Annotated so that the type checker verifies the class implements ``GamePolicy``.
_MAKE: Callable[[PolicySpec, Any, Stream], GamePolicy] = LearnedPolicy
