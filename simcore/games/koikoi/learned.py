"""Koi-koi's learned player: its features, computed from the deciding seat's ``Observation``
only, and its reference-engine policy (``simcore.learned`` describes models and tables).

Features
--------
Every legal action gets ``len(FEATURES)`` integers: the terms the ``heuristic`` weighs
(``simcore.games.koikoi.policies``, default weights), kept apart so that a model can weigh them
anew, and what a koi-koi call is worth knowing. For a capture of cards ``C`` (the played or
drawn card and the field cards it takes), a card left on the field, or a card played (its
resolution: the heuristic's, the first of the best):

``heuristic``   1 for the action the heuristic takes, else 0
``rise``        the rise of the deciding seat's yaku points (``points``) if it takes ``C``
``weight``      the greedy card weight of ``C``; minus the card's weight if it is left
``denied``      cards of ``C`` that would raise the opponent's yaku points (the heuristic's *threat*)
``exposed``     1 if the card left on the field threatens

A koi-koi decision's stop has every term 0 but ``heuristic``; its call has:

``koikoi``       1
``k_score``      the points a stop would score now (``scoring.stop_score``)
``k_hand``       the cards still in the seat's hand
``k_near``       cards outside both piles that threaten (the heuristic's ``danger`` count)
``k_mine``       cards outside both piles that would raise the seat's own yaku points
``k_opponent``   the opponent's yaku points now
``k_score_hand`` ``k_score`` times ``k_hand``
``k_calls``      the seat's own koi-koi calls so far

The numba twin is ``learned_features_state_nb`` (``simcore.games.koikoi.state_nb``), which
implements the round contract's ``learned_features_nb``.

Cases
-----
A model is trained for one set of round rules: ``koikoi`` (the ``koikoi`` rule file's),
``kkj`` (``koikoi-kkj``'s), or, for other rules, ``r`` and eight hex digits of a digest of the
rule table without the match options (rounds, starting points, early end, who deals after an
exhausted round), so that a model never plays rules it was not trained for.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from simcore.cards import ids_of
from simcore.games.koikoi import enums as E
from simcore.games.koikoi.policies import GamePolicy, HeuristicPolicy, Observation, heuristic_tables
from simcore.games.koikoi.scoring import stop_score
from simcore.hanafuda import month_mask, month_of
from simcore.learned import LearnedPlayer
from simcore.policies import PolicySpec, parse_policy
from simcore.rng import Stream

__all__ = ["FEATURES", "FIXED", "KINDS", "LearnedPolicy", "aux_table", "blocks", "case_of", "features",
           "kernel_rules"]

FEATURES = ("heuristic", "rise", "weight", "denied", "exposed", "koikoi", "k_score", "k_hand", "k_near", "k_mine",
            "k_opponent", "k_score_hand", "k_calls")
KINDS = ("play", "capture", "koikoi")  # the kernel's decision codes (enums.D_*), in order
FIXED: dict[str, int] = {}  # weights training does not fit
MATCH_PARAMS = (E.P_EXHAUSTED_DEALER, E.P_EARLY_END, E.P_START_POINTS, E.P_ROUNDS)  # not a round's rules
NAMED_CASES = (("koikoi", "koikoi"), ("koikoi-kkj", "kkj"))  # shipped rule file -> its case


def _digest(compiled: Any) -> str:
    """Hex digest of the compiled rules without the match options."""
    params = np.array(compiled.params, dtype=np.int64)
    params[list(MATCH_PARAMS)] = 0
    h = hashlib.sha256(params.tobytes())
    for part in (compiled.month, compiled.month_mask, compiled.classes, np.array([compiled.chaff_mask]),
                 compiled.yaku_value, compiled.card_weight):
        h.update(np.ascontiguousarray(part).tobytes())
    return h.hexdigest()


@cache
def _named() -> dict[str, str]:
    """Digest -> case of the shipped rule files that have a name of their own."""
    from simcore.games.koikoi.compile import compile_rules
    from simcore.rules import load_rules

    return {_digest(compile_rules(load_rules(name))): case for name, case in NAMED_CASES}


def case_of(compiled: Any) -> str:
    """The case of a model for these rules (module docstring)."""
    digest = _digest(compiled)
    return _named().get(digest, f"r{digest[:8]}")


def blocks(compiled: Any) -> tuple[str | None, ...]:
    """One block: the rules' case (``case_of``)."""
    return (case_of(compiled),)


def kernel_rules(compiled: Any) -> Any:
    """The rules namedtuple of the general kernel (``state_nb.KoikoiRules``)."""
    from simcore.games.koikoi.state_nb import kernel_rules as rules

    return rules(compiled)


def aux_table(compiled: Any) -> np.ndarray:
    """int64[:]: the heuristic's tables at its default weights (``policies.heuristic_tables``)."""
    return heuristic_tables(compiled, parse_policy("heuristic", "koikoi"))


N_FEATURES = len(FEATURES)
(F_HEURISTIC, F_RISE, F_WEIGHT, F_DENIED, F_EXPOSED, F_KOIKOI, F_K_SCORE, F_K_HAND, F_K_NEAR, F_K_MINE,
 F_K_OPPONENT, F_K_SCORE_HAND, F_K_CALLS) = range(N_FEATURES)


def _take(h: HeuristicPolicy, obs: Observation, taken: int, row: list[int]) -> None:
    """The terms of taking the cards ``taken`` into the deciding seat's pile."""
    pile = obs.piles[obs.seat]
    row[F_RISE] = h.points(obs, obs.seat, pile | taken) - h.points(obs, obs.seat, pile)
    row[F_WEIGHT] = sum(h.weight[x] for x in ids_of(taken))
    row[F_DENIED] = sum(1 for x in ids_of(taken) if h.threatens(obs, x))


def _resolution(h: HeuristicPolicy, obs: Observation, card: int, row: list[int]) -> None:
    """The terms of playing ``card``: its resolution the heuristic's (``resolution_gain``)."""
    matches = obs.field & month_mask(month_of(card))
    count = matches.bit_count()
    if count == 0:
        row[F_WEIGHT] = -h.weight[card]
        row[F_EXPOSED] = 1 if h.threatens(obs, card) else 0
    elif count == 2:
        first, second = ids_of(matches)
        a, b = (h.take_gain(obs, (1 << card) | (1 << x)) for x in (first, second))
        _take(h, obs, (1 << card) | (1 << (first if a >= b else second)), row)
    else:
        _take(h, obs, (1 << card) | matches, row)


def _call(h: HeuristicPolicy, obs: Observation, row: list[int]) -> None:
    """The terms of calling koi-koi."""
    seat, opponent = obs.seat, 1 - obs.seat
    points = h.points(obs, seat, obs.piles[seat])
    score = stop_score(h.c, points, obs.calls[seat], obs.calls[opponent])
    pile = obs.piles[seat]
    hand = obs.hand.bit_count()
    row[F_KOIKOI] = 1
    row[F_K_SCORE] = score
    row[F_K_HAND] = hand
    row[F_K_NEAR] = h.near(obs)
    row[F_K_MINE] = sum(1 for x in ids_of(h.outside(obs)) if h.points(obs, seat, pile | (1 << x)) > points)
    row[F_K_OPPONENT] = h.points(obs, opponent, obs.piles[opponent])
    row[F_K_SCORE_HAND] = score * hand
    row[F_K_CALLS] = obs.calls[seat]


def features(h: HeuristicPolicy, obs: Observation, kind: str, actions: list[Any], card: int = -1) -> list[list[int]]:
    """The features (module docstring) of every action of a decision of ``kind``, in the
    kernel's order (koi-koi: ``[False, True]``); ``h`` is the heuristic at its default weights."""
    rows = [[0] * N_FEATURES for _ in actions]
    if kind == "play":
        picked: Any = h.play(obs)
        for row, action in zip(rows, actions, strict=True):
            _resolution(h, obs, action, row)
    elif kind == "capture":
        picked = h.choose_capture(obs, card, list(actions))
        for row, action in zip(rows, actions, strict=True):
            _take(h, obs, (1 << card) | action, row)
    else:
        picked = bool(h.koikoi(obs))
        _call(h, obs, rows[1])
    rows[list(actions).index(picked)][F_HEURISTIC] = 1
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
