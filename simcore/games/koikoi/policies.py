"""Koi-koi's policies in the reference engine, and the observation they decide from.

A policy sees only an ``Observation`` (guarantee 6 of docs/guarantees.md): its own hand, the
field, both capture piles, the koi-koi calls, the draw pile's size and the match state -- never
the opponent's hand or the draw order. The kernel implements the same policies
(``simcore.games.koikoi.state_nb``) and must decide identically.

Built-in policies
-----------------
``random``
    Every decision uniform over its legal options, drawn from the seat's own stream: the card to
    play ``uniform(n)`` over the hand in ascending id order; a choice between two field cards
    ``uniform(2)`` (ascending ids); koi-koi ``uniform(2) == 1``, else stop. A decision with one
    option draws nothing.

``greedy``
    Deterministic, one ply. The gain of moving cards ``C`` into its pile ``P`` is ``100 x
    (points(P | C) - points(P)) + weight(C)`` (``points``: ``scoring.pile_yaku``; ``weight``:
    ``CompiledRules.card_weight`` summed); leaving a card on the field gains ``-weight(card)``.
    It plays the hand card whose best resolution gains most, takes the field card that gains
    most, and always stops (it takes the points it has). Ties go to the first option.

``heuristic``
    Deterministic; greedy's gains with denial, and a rule for the decision that matters most,
    koi-koi or stop. A card *threatens* when adding it to the opponent's pile would raise the
    opponent's yaku points. A capture gains greedy's gain plus ``deny`` for each threatening
    card it takes; leaving a card on the field gains ``-weight(card)``, less ``deny`` if it
    threatens. It calls koi-koi only if it still holds ``min_cards`` cards or more, the points a
    stop would score now are below ``koikoi_below``, and fewer than ``danger`` cards outside both
    piles threaten (the opponent is far from a new yaku); otherwise it stops. Parameters and
    defaults: ``HEURISTIC_PARAMS``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from simcore.cards import ids_of
from simcore.games.koikoi.compile import CompiledRules
from simcore.games.koikoi.decisions import action_key, ask_policy
from simcore.games.koikoi.scoring import pile_yaku, stop_score
from simcore.hanafuda import month_mask, month_of
from simcore.policies import PolicySpec, first_best
from simcore.rng import Stream
from simcore.search import PolicyMaker

__all__ = ["HEURISTIC_PARAMS", "GamePolicy", "GreedyPolicy", "HeuristicPolicy", "Observation", "RandomPolicy",
           "heuristic_tables", "make_policy"]

CAPTURE_WEIGHT = 100  # the gain of one yaku point

# name -> (default, help): the heuristic's parameters (``Game.policies`` declares them)
HEURISTIC_PARAMS: dict[str, tuple[int, str]] = {
    "koikoi_below": (4, "call koi-koi only while a stop would score fewer points than this"),
    "min_cards": (3, "call koi-koi only while holding at least this many cards"),
    "danger": (3, "stop when this many cards outside both piles would raise the opponent's yaku"),
    "deny": (40, "the gain of taking (or the cost of leaving) a card that would raise the opponent's yaku"),
}
HEURISTIC_ORDER = tuple(HEURISTIC_PARAMS)  # the order of ``heuristic_tables``


@dataclass(frozen=True)
class Observation:
    """What the deciding seat may see (guarantee 6 of docs/guarantees.md)."""

    seat: int
    dealer: int
    round_in_match: int
    match_points: tuple[int, ...]  # per seat
    month: int  # the round's month (Tsuki-fuda)
    hand: int  # own hand mask
    field: int
    piles: tuple[int, int]
    calls: tuple[int, int]  # each seat's koi-koi calls
    draw_size: int
    turn: int


class GamePolicy(Protocol):
    """The decisions the reference engine asks a koi-koi policy for, each from an observation."""

    name: str

    def play(self, obs: Observation) -> int:
        """The id of the hand card to play."""
        ...

    def choose_capture(self, obs: Observation, card: int, options: list[int]) -> int:
        """One of ``options`` (single field-card masks): the field card ``card`` takes."""
        ...

    def koikoi(self, obs: Observation) -> bool:
        """True to call koi-koi, False to stop."""
        ...


class RandomPolicy:
    """The uniform random policy; draws from its seat's stream."""

    name = "random"

    def __init__(self, spec: PolicySpec, compiled: CompiledRules, stream: Stream) -> None:
        self.stream = stream

    def play(self, obs: Observation) -> int:
        """A hand card, uniformly."""
        hand = ids_of(obs.hand)
        return hand[self.stream.uniform_below(len(hand))]

    def choose_capture(self, obs: Observation, card: int, options: list[int]) -> int:
        """One of the options, uniformly."""
        return options[self.stream.uniform_below(len(options))]

    def koikoi(self, obs: Observation) -> bool:
        """Koi-koi with probability 1/2."""
        return self.stream.uniform_below(2) == 1


class GreedyPolicy:
    """The one-ply greedy policy (module docstring)."""

    name = "greedy"

    def __init__(self, spec: PolicySpec, compiled: CompiledRules, stream: Stream | None = None) -> None:
        self.c = compiled
        self.weight = [int(w) for w in compiled.card_weight]

    def points(self, obs: Observation, seat: int, pile: int) -> int:
        """The yaku points of ``pile`` as ``seat``'s (its calls, the round's month)."""
        return pile_yaku(self.c, pile, obs.calls[seat], obs.month)[1]

    def take_gain(self, obs: Observation, taken: int) -> int:
        """The gain of moving the cards ``taken`` into its own pile."""
        pile = obs.piles[obs.seat]
        rise = self.points(obs, obs.seat, pile | taken) - self.points(obs, obs.seat, pile)
        return CAPTURE_WEIGHT * rise + sum(self.weight[x] for x in ids_of(taken))

    def leave_gain(self, obs: Observation, card: int) -> int:
        """The gain of leaving ``card`` on the field."""
        return -self.weight[card]

    def resolution_gain(self, obs: Observation, card: int) -> int:
        """The gain of the best resolution of ``card`` set against the field."""
        matches = obs.field & month_mask(month_of(card))
        count = matches.bit_count()
        if count == 0:
            return self.leave_gain(obs, card)
        if count == 2:
            return max(self.take_gain(obs, (1 << card) | (1 << x)) for x in ids_of(matches))
        return self.take_gain(obs, (1 << card) | matches)

    def play(self, obs: Observation) -> int:
        """The hand card whose best resolution gains most (ties: the lowest id)."""
        return first_best(ids_of(obs.hand), lambda card: self.resolution_gain(obs, card), -1)[0]

    def choose_capture(self, obs: Observation, card: int, options: list[int]) -> int:
        """The field card whose capture gains most (ties: the lowest id)."""
        return first_best(options, lambda option: self.take_gain(obs, (1 << card) | option), -1)[0]

    def koikoi(self, obs: Observation) -> bool:
        """Always stop."""
        return False


class HeuristicPolicy(GreedyPolicy):
    """Greedy's gains with denial, and a koi-koi rule (module docstring)."""

    name = "heuristic"

    def __init__(self, spec: PolicySpec, compiled: CompiledRules, stream: Stream | None = None) -> None:
        super().__init__(spec, compiled, stream)
        self.koikoi_below, self.min_cards, self.danger, self.deny = (int(spec.params[k]) for k in HEURISTIC_ORDER)

    def threatens(self, obs: Observation, card: int) -> bool:
        """Whether ``card`` in the opponent's pile would raise its yaku points."""
        opponent = 1 - obs.seat
        pile = obs.piles[opponent]
        return self.points(obs, opponent, pile | (1 << card)) > self.points(obs, opponent, pile)

    def take_gain(self, obs: Observation, taken: int) -> int:
        """Greedy's gain plus ``deny`` per threatening card taken."""
        denied = sum(1 for x in ids_of(taken) if self.threatens(obs, x))
        return super().take_gain(obs, taken) + self.deny * denied

    def leave_gain(self, obs: Observation, card: int) -> int:
        """Greedy's, less ``deny`` for a threatening card."""
        return super().leave_gain(obs, card) - (self.deny if self.threatens(obs, card) else 0)

    def koikoi(self, obs: Observation) -> bool:
        """Koi-koi only with cards to play, a small score now and a distant opponent."""
        seat = obs.seat
        if obs.hand.bit_count() < self.min_cards:
            return False
        points = self.points(obs, seat, obs.piles[seat])
        if stop_score(self.c, points, obs.calls[seat], obs.calls[1 - seat]) >= self.koikoi_below:
            return False
        return self.near(obs) < self.danger

    def outside(self, obs: Observation) -> int:
        """The cards outside both piles (in a hand, on the field or in the draw pile)."""
        return ((1 << self.c.rules.deck.size) - 1) & ~(obs.piles[0] | obs.piles[1])

    def near(self, obs: Observation) -> int:
        """How many cards outside both piles would raise the opponent's yaku points."""
        return sum(1 for x in ids_of(self.outside(obs)) if self.threatens(obs, x))


def heuristic_tables(compiled: CompiledRules, spec: PolicySpec) -> np.ndarray:
    """The heuristic's parameters as the kernel reads them: int64[4], in ``HEURISTIC_ORDER``."""
    return np.array([int(spec.params[k]) for k in HEURISTIC_ORDER], dtype=np.int64)


# The reference engine's policy object for a spec, drawing from its seat's stream:
# ``make_policy(spec, compiled, stream)`` (the search players come from ``simcore.search``).
# Annotated so that the type checker verifies every class implements ``GamePolicy``.
BASIC_POLICIES: dict[str, Callable[[PolicySpec, Any, Stream], GamePolicy]] = {
    "random": RandomPolicy, "greedy": GreedyPolicy, "heuristic": HeuristicPolicy}
make_policy = PolicyMaker("koikoi", BASIC_POLICIES, ask_policy, action_key)
