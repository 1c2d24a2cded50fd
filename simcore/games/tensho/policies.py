"""Tensho's policies in the reference engine, and the observation they decide from.

A policy sees only a ``TenshoObservation`` (DESIGN.md invariant 6): its own hand, the field,
both capture piles, every card seen face up, the draw pile's size and the match state -- never
the opponent's hand, the draw order or the dead cards.  The kernels implement the same policies
(``simcore.games.tensho.kernel_nb``) and must decide identically.

Built-in policies
-----------------
``random``
    Every decision is uniform over its legal options, drawn from the seat's own stream
    (DESIGN.md "uniform random policy"):

    * yaku set (``tensho.yaku_set_choice = dealer_policy``): ``1 + uniform(2)``;
    * opening claim, for each eligible field triple in ascending rank: ``uniform(2) == 0``
      declines, otherwise ``uniform(k)`` picks one of the ``k`` pairs (3 for a triple, 6 for four
      cards), pairs listed in lexicographic order of ascending ids;
    * banking the 6 of clubs (``tensho.six_in_hand = bank_at_deal``): ``uniform(2) == 1`` banks;
    * the card to play: ``uniform(n)`` over the hand in ascending id order;
    * a capture choice: ``uniform(m)`` over the options (field cards in ascending id order; when
      ``tensho.capture_mandatory = false`` a trailing "leave it on the field" option is added).

    A forced decision (a single option) draws nothing.

``greedy``
    Deterministic, one-ply.  The gain of moving cards ``C`` into its own pile ``P`` is
    ``1_000_000`` if ``P | C`` holds an instant-win yaku of the round's set, otherwise
    ``100 * (points(P | C) - points(P)) + sum over incomplete yaku y of weight(y) * |C & y - P|
    + 10 * value(C) + 10 * chaff(C)``, where ``weight(y) = 12 * points(y) / |y|`` (an instant yaku
    counts as 300 points) and ``value`` is the card-value table in force.  Leaving a card ``c`` on
    the field gains ``-(10 * value(c) + sum of weight(y) over the set's yaku containing c)``.  It
    plays the hand card whose best resolution gains most, takes the capture option that gains most,
    always claims the best pair of a field triple and always banks the 6 of clubs.  Ties go to the
    lowest card id (the first option).  Parameter ``yaku_set`` (1 or 2, default 1) is its choice of
    yaku set when the dealer's policy chooses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from simcore.errors import PolicyError
from simcore.games.tensho import enums as E
from simcore.policies import PolicySpec
from simcore.rng import Stream

if TYPE_CHECKING:
    from simcore.search import SearchPolicy

__all__ = ["GreedyPolicy", "RandomPolicy", "TenshoObservation", "TenshoPolicy", "make_policy"]


@dataclass(frozen=True)
class TenshoObservation:
    """What the deciding seat may see (DESIGN.md invariant 6)."""

    seat: int
    dealer: int
    yaku_set: int  # 0 before the set is chosen
    round_in_match: int
    match_points: tuple[int, ...]  # per seat
    hand: int  # own hand mask
    field: int
    piles: tuple[int, int]
    seen: int  # every card that has been face up this round
    draw_size: int
    turn: int


class TenshoPolicy(Protocol):
    """The decisions the reference engine asks a Tensho policy for, each from an observation."""

    name: str

    def choose_yaku_set(self, obs: TenshoObservation) -> int:
        """The yaku set (1 or 2), when ``tensho.yaku_set_choice`` leaves it to the dealer's policy."""
        ...

    def opening_claim(self, obs: TenshoObservation, rank: int,
                      pairs: list[tuple[int, int]]) -> tuple[int, int] | None:
        """One of ``pairs`` (card ids) of the field cards of ``rank`` to claim, or None to decline."""
        ...

    def bank_six(self, obs: TenshoObservation) -> bool:
        """Whether to bank the 6 of clubs dealt into the hand (``tensho.six_in_hand = bank_at_deal``)."""
        ...

    def play(self, obs: TenshoObservation) -> int:
        """The id of the hand card to play."""
        ...

    def choose_capture(self, obs: TenshoObservation, card: int, options: list[int],
                       allow_decline: bool) -> int | None:
        """Pick one of ``options`` (field-card masks), or None to leave ``card`` on the field."""
        ...


def _ids(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class RandomPolicy:
    """The uniform random policy; draws from its seat's stream."""

    name = "random"

    def __init__(self, spec: PolicySpec, compiled, stream: Stream) -> None:
        self.stream = stream

    def choose_yaku_set(self, obs: TenshoObservation) -> int:
        return 1 + self.stream.uniform_below(2)

    def opening_claim(self, obs: TenshoObservation, rank: int, pairs: list[tuple[int, int]]):
        if self.stream.uniform_below(2) == 0:
            return None
        return pairs[self.stream.uniform_below(len(pairs))]

    def bank_six(self, obs: TenshoObservation) -> bool:
        return self.stream.uniform_below(2) == 1

    def play(self, obs: TenshoObservation) -> int:
        hand = _ids(obs.hand)
        return hand[self.stream.uniform_below(len(hand))]

    def choose_capture(self, obs: TenshoObservation, card: int, options: list[int], allow_decline: bool):
        """Pick one of ``options`` (field-card masks), or None to leave ``card`` on the field."""
        count = len(options) + (1 if allow_decline else 0)
        pick = self.stream.uniform_below(count)
        return options[pick] if pick < len(options) else None


class GreedyPolicy:
    """The one-ply greedy policy (see the module docstring for its exact definition)."""

    name = "greedy"
    INSTANT_GAIN = E.GREEDY_INSTANT_GAIN

    def __init__(self, spec: PolicySpec, compiled, stream: Stream | None = None) -> None:
        self.compiled = compiled
        self.preferred_set = spec.params.get("yaku_set", 1)
        c = compiled
        self.yaku_masks = [int(m) for m in c.yaku_mask]
        self.card_value = [int(v) for v in c.card_value]
        self.chaff = int(c.chaff_mask)
        self.rank = [int(r) for r in c.rank]
        self.rank_mask = [int(m) for m in c.rank_mask]
        self.six = int(c.params[E.P_SIX_CARD])
        self.highest_value_first = int(c.params[E.P_DOUBLE_MATCH]) == 1
        self.triple_all = int(c.params[E.P_TRIPLE_MATCH]) == 0
        self.capture_optional = int(c.params[E.P_CAPTURE_MANDATORY]) == 1
        self.supersedes = [int(m) for m in c.supersedes]
        self._tables = {}
        for yaku_set in (1, 2):
            s = yaku_set - 1
            members = [i for i in range(len(self.yaku_masks)) if (int(c.yaku_in_set[s]) >> i) & 1]
            self._tables[yaku_set] = (members, int(c.yaku_instant[s]), [int(p) for p in c.yaku_points[s]],
                                      [int(w) for w in c.greedy_weight[s]])

    def _set_tables(self, yaku_set: int):
        """(member yaku indices, instant bitset, points, greedy weights) of a yaku set."""
        return self._tables[yaku_set]

    def _points(self, pile: int, members, points) -> int:
        """Yaku points of a pile after supersession (non-instant yaku)."""
        completed = 0
        for i in members:
            if self.yaku_masks[i] & pile == self.yaku_masks[i]:
                completed |= 1 << i
        cancelled = 0
        for i in _ids(completed):
            cancelled |= self.supersedes[i]
        final = completed & ~cancelled
        return sum(points[i] for i in _ids(final))

    def gain(self, pile: int, captured: int, yaku_set: int) -> int:
        """The greedy gain of moving the cards of mask ``captured`` into ``pile`` under ``yaku_set`` (module docstring)."""
        members, instant, points, weights = self._set_tables(yaku_set)
        new = pile | captured
        for i in _ids(instant):
            if self.yaku_masks[i] & new == self.yaku_masks[i]:
                return self.INSTANT_GAIN
        g = 100 * (self._points(new, members, points) - self._points(pile, members, points))
        for i in members:
            mask = self.yaku_masks[i]
            if mask & pile != mask:
                g += weights[i] * (captured & mask & ~pile).bit_count()
        for card in _ids(captured):
            g += 10 * self.card_value[card]
        g += 10 * (captured & self.chaff).bit_count()
        return g

    def placement_gain(self, card: int, yaku_set: int) -> int:
        """The greedy gain of leaving ``card`` on the field under ``yaku_set`` (negative; module docstring)."""
        members, _, _, weights = self._set_tables(yaku_set)
        g = 10 * self.card_value[card]
        for i in members:
            if (self.yaku_masks[i] >> card) & 1:
                g += weights[i]
        return -g

    def capture_options(self, card: int, field: int) -> list[int]:
        """The capture masks a card could take (empty: it goes to the field)."""
        matches = field & self.rank_mask[self.rank[card]]
        n = matches.bit_count()
        if n == 0:
            return []
        if n == 2 and self.highest_value_first:
            return [_highest_value(matches, self.card_value)]
        if n >= 3 and self.triple_all:
            return [matches]
        return [1 << i for i in _ids(matches)]

    def _best_resolution(self, obs: TenshoObservation, card: int) -> int:
        pile = obs.piles[obs.seat]
        if card == self.six:
            return self.gain(pile, 1 << card, obs.yaku_set)
        options = self.capture_options(card, obs.field)
        if not options:
            return self.placement_gain(card, obs.yaku_set)
        best = max(self.gain(pile, (1 << card) | option, obs.yaku_set) for option in options)
        if self.capture_optional:
            best = max(best, self.placement_gain(card, obs.yaku_set))
        return best

    def choose_yaku_set(self, obs: TenshoObservation) -> int:
        return self.preferred_set

    def opening_claim(self, obs: TenshoObservation, rank: int, pairs: list[tuple[int, int]]):
        pile = obs.piles[obs.seat]
        best, best_gain = None, None
        for pair in pairs:
            g = self.gain(pile, (1 << pair[0]) | (1 << pair[1]), obs.yaku_set)
            if best_gain is None or g > best_gain:
                best, best_gain = pair, g
        return best

    def bank_six(self, obs: TenshoObservation) -> bool:
        return True

    def play(self, obs: TenshoObservation) -> int:
        best, best_gain = -1, None
        for card in _ids(obs.hand):
            g = self._best_resolution(obs, card)
            if best_gain is None or g > best_gain:
                best, best_gain = card, g
        return best

    def choose_capture(self, obs: TenshoObservation, card: int, options: list[int], allow_decline: bool):
        pile = obs.piles[obs.seat]
        best, best_gain = options[0], None
        for option in options:
            g = self.gain(pile, (1 << card) | option, obs.yaku_set)
            if best_gain is None or g > best_gain:
                best, best_gain = option, g
        assert best_gain is not None  # ``options`` is never empty
        if allow_decline and self.placement_gain(card, obs.yaku_set) > best_gain:
            return None
        return best


def _highest_value(matches: int, card_value) -> int:
    """The single-card mask of the highest-valued card in ``matches`` (ties: lowest id)."""
    best, best_value = 0, -1
    for card in _ids(matches):
        if card_value[card] > best_value:
            best, best_value = 1 << card, card_value[card]
    return best


def make_policy(spec: PolicySpec, compiled, stream: Stream) -> TenshoPolicy | SearchPolicy:
    """The reference engine's policy object for ``spec``, drawing from its seat's ``stream``."""
    if spec.name in ("pimc", "ismcts", "omniscient"):
        from simcore.games.tensho.reference import action_key, ask_policy
        from simcore.search import make_search_policy

        return make_search_policy("tensho", spec, compiled, stream, make_policy, ask_policy, action_key)
    if spec.name == "random":
        return RandomPolicy(spec, compiled, stream)
    if spec.name == "greedy":
        return GreedyPolicy(spec, compiled, stream)
    raise PolicyError(f"unknown policy {spec.name!r}")
