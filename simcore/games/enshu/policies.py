"""Enshu-bana policies: the observation contract and the reference random and greedy policies.

A policy sees only an ``EnshuObservation`` (DESIGN.md invariant 6): its own hand, the field,
every capture pile, the cards exposed by declared teyaku that are still in their holders' hands,
every card seen face up, the draw pile's size, the multiplier, who is active and who declared
kotsu and mizu-kotsu, and the match state -- never another hand's hidden cards or the draw order.
Policies are chosen with ``simcore.policies.PolicySpec`` (``random``, ``greedy``).

Decision hooks (RULES.md 3.4), each called only when the seat has a real choice:

* ``mizu_kotsu(obs) -> bool`` (C), ``kotsu(obs) -> bool`` (C), ``join(obs) -> bool`` (C, 4-5
  players; ``True`` joins), ``fuke(obs) -> bool`` (C);
* ``declare_teyaku(obs, group, options) -> TeyakuOption | None``: expose one of the qualifying
  teyaku of a group, or none (W: Triplet; S: Four-Three and Triplet; C: groups A and B);
* ``play(obs) -> card id``;
* ``choose_capture(obs, card, options) -> mask``: which field card(s) the played or turned
  card takes (``options`` are single-card masks in ascending id order).

``random`` (DESIGN.md "uniform random policy"), drawing from its seat's own stream:

* a yes/no decision (mizu-kotsu, kotsu, join, Fuke): ``uniform(2) == 1`` is yes;
* a teyaku group: ``uniform(2) == 1`` declares, then ``uniform(k)`` picks one of the ``k``
  qualifying options in the engine's order (no draw when ``k == 1``);
* the card to play: ``uniform(n)`` over the hand in ascending id order;
* a capture choice: ``uniform(m)`` over the options.

``greedy`` is deterministic (no draws):

* gain of moving cards ``C`` into its pile ``P``: ``1_000_000`` if ``P | C`` completes a
  round-stopping yaku, otherwise ``100 * (points(P | C) - points(P)) + sum over incomplete yaku
  y of weight(y) * |C & y - P| + 10 * card_points(C)``, where ``points`` are the points-kind
  yaku after supersession and ``weight(y) = 12 * worth(y) / |y|`` (``worth`` = the points, or
  100 per unit of a multiplier or stake); leaving card ``c`` on the field gains
  ``-(10 * card_points(c) + sum of weight(y) over the yaku containing c)``;
* plays the hand card whose best resolution gains most, takes the capture that gains most
  (ties: the lowest card id);
* never declares mizu-kotsu; declares kotsu when its hand holds at least 60 card points; in
  dropout pass ``k`` joins when its hand holds at least ``30 * k`` card points or qualifies for
  a teyaku on the first pass;
* always declares a teyaku when one qualifies, the highest-valued (ties: the first option);
* declares Fuke when it is not the round winner and the winner's score is positive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from simcore.cards import ids_of
from simcore.games.enshu import enums as EE
from simcore.games.enshu.rules import TeyakuOption, teyaku_options
from simcore.policies import PolicyError, PolicySpec
from simcore.rng import Stream

if TYPE_CHECKING:
    from simcore.search import SearchPolicy

__all__ = [
    "EnshuObservation",
    "EnshuRandomPolicy",
    "EnshuGreedyPolicy",
    "EnshuPolicy",
    "make_enshu_policy",
    "GREEDY_KOTSU_POINTS",
    "GREEDY_JOIN_POINTS",
]

GREEDY_KOTSU_POINTS = EE.GREEDY_KOTSU_POINTS
GREEDY_JOIN_POINTS = EE.GREEDY_JOIN_POINTS


@dataclass(frozen=True)
class EnshuObservation:
    """What the deciding seat may see (DESIGN.md invariant 6)."""

    seat: int
    players: int
    variant: str
    dealer: int
    acting_dealer: int
    active: tuple[bool, ...]
    round_in_match: int
    match_points: tuple[int, ...]
    multiplier: int
    hand: int
    field: int
    piles: tuple[int, ...]
    exposed: tuple[int, ...]  # exposed cards still in each seat's hand
    seen: int
    draw_size: int
    turn: int
    declared: tuple[int, ...]  # teyaku bitset declared by each seat
    mizu_kotsu: tuple[bool, ...]
    kotsu: tuple[bool, ...]
    dropout_pass: int = 0  # 1, 2, ... during the dropout phase
    scores: tuple[int, ...] = ()  # known at the Fuke decision
    winner: int = -1  # known at the Fuke decision


class EnshuPolicy(Protocol):
    """The decision hooks the reference engine calls (RULES.md 3.4; see the module docstring)."""

    name: str

    def mizu_kotsu(self, obs: EnshuObservation) -> bool:
        """Whether to declare mizu-kotsu (variant C)."""
        ...

    def kotsu(self, obs: EnshuObservation) -> bool:
        """Whether to declare kotsu (variant C)."""
        ...

    def join(self, obs: EnshuObservation) -> bool:
        """Whether to join the round in dropout pass ``obs.dropout_pass`` (C, 4-5 players)."""
        ...

    def fuke(self, obs: EnshuObservation) -> bool:
        """Whether to declare Fuke (variant C)."""
        ...

    def declare_teyaku(self, obs: EnshuObservation, group: str,
                       options: list[TeyakuOption]) -> TeyakuOption | None:
        """One of the qualifying teyaku ``options`` of ``group`` to expose, or None."""
        ...

    def play(self, obs: EnshuObservation) -> int:
        """The id of the hand card to play."""
        ...

    def choose_capture(self, obs: EnshuObservation, card: int, options: list[int]) -> int:
        """Which of ``options`` (single-card field masks) the played or turned ``card`` takes."""
        ...


class EnshuRandomPolicy:
    """The uniform random policy; draws from its seat's stream."""

    name = "random"

    def __init__(self, spec: PolicySpec, compiled, stream: Stream) -> None:
        self.stream = stream

    def _yes(self) -> bool:
        return self.stream.uniform_below(2) == 1

    def mizu_kotsu(self, obs: EnshuObservation) -> bool:
        return self._yes()

    def kotsu(self, obs: EnshuObservation) -> bool:
        return self._yes()

    def join(self, obs: EnshuObservation) -> bool:
        return self._yes()

    def fuke(self, obs: EnshuObservation) -> bool:
        return self._yes()

    def declare_teyaku(self, obs: EnshuObservation, group: str, options: list[TeyakuOption]):
        if not self._yes():
            return None
        return options[self.stream.uniform_below(len(options))]

    def play(self, obs: EnshuObservation) -> int:
        hand = ids_of(obs.hand)
        return hand[self.stream.uniform_below(len(hand))]

    def choose_capture(self, obs: EnshuObservation, card: int, options: list[int]) -> int:
        return options[self.stream.uniform_below(len(options))]


class EnshuGreedyPolicy:
    """The one-ply greedy policy (see the module docstring for its exact definition)."""

    name = "greedy"
    STOP_GAIN = EE.GREEDY_STOP_GAIN

    def __init__(self, spec: PolicySpec, compiled, stream: Stream | None = None) -> None:
        c = compiled
        self.compiled = c
        self.yaku_mask = [int(m) for m in c.yaku_mask]
        self.yaku_kind = [int(k) for k in c.yaku_kind]
        self.yaku_value = [int(v) for v in c.yaku_value]
        self.weight = [int(w) for w in c.greedy_weight]
        self.supersedes = [int(s) for s in c.supersedes]
        self.card_points = [int(v) for v in c.card_points]
        self.month = [int(m) for m in c.month]
        self.month_mask = [int(m) for m in c.month_mask]
        self.capture_one = int(c.params[EE.P_CAPTURE_THREE]) == 1
        self.stopping = [i for i, k in enumerate(self.yaku_kind) if k == EE.YAKU_UCHIKIRI]

    def _points(self, pile: int) -> int:
        completed = 0
        for i, mask in enumerate(self.yaku_mask):
            if mask & pile == mask:
                completed |= 1 << i
        cancelled = 0
        for i in ids_of(completed):
            cancelled |= self.supersedes[i]
        return sum(self.yaku_value[i] for i in ids_of(completed & ~cancelled)
                   if self.yaku_kind[i] == EE.YAKU_POINTS)

    def gain(self, pile: int, captured: int) -> int:
        """The greedy gain of moving the cards of mask ``captured`` into the pile ``pile`` (module docstring)."""
        new = pile | captured
        for i in self.stopping:
            mask = self.yaku_mask[i]
            if mask & new == mask:
                return self.STOP_GAIN
        g = 100 * (self._points(new) - self._points(pile))
        for i, mask in enumerate(self.yaku_mask):
            if mask & pile != mask:
                g += self.weight[i] * (captured & mask & ~pile).bit_count()
        g += 10 * sum(self.card_points[x] for x in ids_of(captured))
        return g

    def placement_gain(self, card: int) -> int:
        """The greedy gain of leaving ``card`` on the field (negative; module docstring)."""
        g = 10 * self.card_points[card]
        for i, mask in enumerate(self.yaku_mask):
            if (mask >> card) & 1:
                g += self.weight[i]
        return -g

    def _capture_options(self, card: int, field: int) -> list[int]:
        matches = field & self.month_mask[self.month[card]]
        n = matches.bit_count()
        if n == 0:
            return []
        if n == 3 and not self.capture_one:
            return [matches]
        return [1 << x for x in ids_of(matches)]

    def _best_resolution(self, obs: EnshuObservation, card: int) -> int:
        pile = obs.piles[obs.seat]
        options = self._capture_options(card, obs.field)
        if not options:
            return self.placement_gain(card)
        return max(self.gain(pile, (1 << card) | option) for option in options)

    def _hand_points(self, obs: EnshuObservation) -> int:
        return sum(self.card_points[x] for x in ids_of(obs.hand))

    def mizu_kotsu(self, obs: EnshuObservation) -> bool:
        return False

    def kotsu(self, obs: EnshuObservation) -> bool:
        return self._hand_points(obs) >= GREEDY_KOTSU_POINTS

    def join(self, obs: EnshuObservation) -> bool:
        if self._hand_points(obs) >= GREEDY_JOIN_POINTS * max(obs.dropout_pass, 1):
            return True
        return obs.dropout_pass <= 1 and bool(teyaku_options(self.compiled, obs.hand, None))

    def fuke(self, obs: EnshuObservation) -> bool:
        return obs.winner != obs.seat and obs.winner >= 0 and obs.scores[obs.winner] > 0

    def declare_teyaku(self, obs: EnshuObservation, group: str, options: list[TeyakuOption]):
        best = options[0]
        for option in options[1:]:
            if option.value > best.value:
                best = option
        return best

    def play(self, obs: EnshuObservation) -> int:
        best, best_gain = -1, None
        for card in ids_of(obs.hand):
            g = self._best_resolution(obs, card)
            if best_gain is None or g > best_gain:
                best, best_gain = card, g
        return best

    def choose_capture(self, obs: EnshuObservation, card: int, options: list[int]) -> int:
        pile = obs.piles[obs.seat]
        best, best_gain = options[0], None
        for option in options:
            g = self.gain(pile, (1 << card) | option)
            if best_gain is None or g > best_gain:
                best, best_gain = option, g
        return best


def make_enshu_policy(spec: PolicySpec, compiled, stream: Stream) -> EnshuPolicy | SearchPolicy:
    """The reference engine's policy object for ``spec``, drawing from its seat's ``stream``."""
    if spec.name in ("pimc", "ismcts"):
        from simcore.games.enshu.reference import action_key, ask_policy
        from simcore.search import make_search_policy

        return make_search_policy("enshu", spec, compiled, stream, make_enshu_policy, ask_policy, action_key)
    if spec.name == "random":
        return EnshuRandomPolicy(spec, compiled, stream)
    if spec.name == "greedy":
        return EnshuGreedyPolicy(spec, compiled, stream)
    raise PolicyError(f"unknown policy {spec.name!r}")
