"""Tensho's policies in the reference engine, and the observation they decide from.

A policy sees only a ``Observation`` (guarantee 6 of docs/guarantees.md): its own hand, the field,
both capture piles, every card seen face up, the draw pile's size and the match state -- never
the opponent's hand, the draw order or the dead cards.  The kernels implement the same policies
(``simcore.games.tensho.kernel_nb``) and must decide identically.

Built-in policies
-----------------
``random``
    Every decision is uniform over its legal options, drawn from the seat's own stream
    (docs/policies.md#random):

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

``heuristic``
    Deterministic (it never draws from its stream); a club player's rules, weighing each action
    by the change it makes to an integer evaluation (worths in tenths of a point, chances per
    mille, every division rounding down, so that the kernel's twin
    ``simcore.games.tensho.heuristic_nb`` decides identically).

    *Yaku outlook.* Each yaku of the round's set is worth its points less those of the set's
    yaku it supersedes (``10 x points``; an instant win counts ``instant`` points).  For each
    seat, a yaku of which the other seat holds a card is dead (0); otherwise its outlook is its
    worth times the chance of every card it still lacks, by where the card is as the deciding
    seat sees it: in its hand with a card of its rank on the field (``*_hand_match``) or without
    (``*_hand``), on the field with a card of its rank in its hand (``*_field_match``) or without
    (``*_field``), or unseen (``*_unseen``, scaled by the share of unseen cards still to come into
    play: the opponent's hand and the draw-pile cards still to be turned, of all unseen).  The 6
    of clubs in its hand is certain for it and lost to the opponent; stuck on the field it is
    lost to both.  ``mine_*`` chances apply to its own yaku, ``theirs_*`` to the opponent's.  The
    chances are applied class by class (in the order above), each ``chance * q // 1000``.  The
    *balance* of a position is the sum of its own outlooks less the opponent's: capturing a card
    the opponent needs kills its yaku (denial), and holding back such a card keeps it unlikely.

    *Gain of a capture* of cards ``C`` (the played or turned card and the field cards it takes,
    or a claimed pair): ``WIN`` if the pile then holds an instant-win yaku; otherwise the change
    of balance, plus ``chaff`` per chaff card of ``C`` and ``value`` per card-value point of
    ``C``, less the *offer* of each field card of that rank left behind.  *Gain of leaving* a card
    on the field: the change of balance less its offer.  The *offer* of a card ``x`` on the
    field is the chance that the opponent holds or turns a card of its rank (``k`` unseen cards
    of the rank, the opponent's hand plus one turned card drawn from all unseen cards: ``1 -
    C(U - k, a) / C(U, a)``, per mille) times what ``x`` is worth -- its chaff and value weights,
    the opponent's outlook gain from holding it and the deciding seat's outlook of the yaku with
    ``x`` it would lose -- times ``risk`` per mille.

    Decisions: it plays the hand card whose best resolution gains most (ties: lowest id); takes
    the capture option that gains most, and declines an optional capture only if leaving gains
    more; claims the best pair of a field triple if its gain is at least ``claim``; never banks
    the 6 of clubs (banking costs a turn's draw, and a 6 in hand is safe and completes an instant
    win the moment it is played); picks the yaku set ``yaku_set``.  Parameters and defaults:
    ``HEURISTIC_PARAMS``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import comb
from typing import Any, Protocol

from simcore.games.tensho import enums as E
from simcore.games.tensho.decisions import action_key, ask_policy
from simcore.policies import PolicySpec, first_best
from simcore.rng import Stream
from simcore.search import PolicyMaker

__all__ = ["HEURISTIC_PARAMS", "GreedyPolicy", "HeuristicPolicy", "RandomPolicy", "Observation", "GamePolicy",
           "make_policy"]


@dataclass(frozen=True)
class Observation:
    """What the deciding seat may see (guarantee 6 of docs/guarantees.md)."""

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


class GamePolicy(Protocol):
    """The decisions the reference engine asks a Tensho policy for, each from an observation."""

    name: str

    def choose_yaku_set(self, obs: Observation) -> int:
        """The yaku set (1 or 2), when ``tensho.yaku_set_choice`` leaves it to the dealer's policy."""
        ...

    def opening_claim(self, obs: Observation, rank: int,
                      pairs: list[tuple[int, int]]) -> tuple[int, int] | None:
        """One of ``pairs`` (card ids) of the field cards of ``rank`` to claim, or None to decline."""
        ...

    def bank_six(self, obs: Observation) -> bool:
        """Whether to bank the 6 of clubs dealt into the hand (``tensho.six_in_hand = bank_at_deal``)."""
        ...

    def play(self, obs: Observation) -> int:
        """The id of the hand card to play."""
        ...

    def choose_capture(self, obs: Observation, card: int, options: list[int],
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

    def choose_yaku_set(self, obs: Observation) -> int:
        return 1 + self.stream.uniform_below(2)

    def opening_claim(self, obs: Observation, rank: int, pairs: list[tuple[int, int]]):
        if self.stream.uniform_below(2) == 0:
            return None
        return pairs[self.stream.uniform_below(len(pairs))]

    def bank_six(self, obs: Observation) -> bool:
        return self.stream.uniform_below(2) == 1

    def play(self, obs: Observation) -> int:
        hand = _ids(obs.hand)
        return hand[self.stream.uniform_below(len(hand))]

    def choose_capture(self, obs: Observation, card: int, options: list[int], allow_decline: bool):
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

    def _best_resolution(self, obs: Observation, card: int) -> int:
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

    def choose_yaku_set(self, obs: Observation) -> int:
        return self.preferred_set

    def opening_claim(self, obs: Observation, rank: int, pairs: list[tuple[int, int]]):
        pile = obs.piles[obs.seat]
        return first_best(pairs, lambda pair: self.gain(pile, (1 << pair[0]) | (1 << pair[1]), obs.yaku_set),
                          None)[0]

    def bank_six(self, obs: Observation) -> bool:
        return True

    def play(self, obs: Observation) -> int:
        return first_best(_ids(obs.hand), lambda card: self._best_resolution(obs, card), -1)[0]

    def choose_capture(self, obs: Observation, card: int, options: list[int], allow_decline: bool):
        pile = obs.piles[obs.seat]
        best, best_gain = first_best(options, lambda option: self.gain(pile, (1 << card) | option, obs.yaku_set),
                                     options[0])
        assert best_gain is not None  # ``options`` is never empty
        if allow_decline and self.placement_gain(card, obs.yaku_set) > best_gain:
            return None
        return best


# The heuristic's parameters: name -> (default, help). Weights are in tenths of a point, chances
# in per mille (module docstring, ``heuristic``).
HEURISTIC_PARAMS: dict[str, tuple[int, str]] = {
    "yaku_set": (1, "the yaku set it picks when the dealer's policy chooses (tensho.yaku_set_choice)"),
    "chaff": (240, "worth of a chaff card, tenths of a point"),
    "value": (3, "worth of one card-value point, tenths of a point"),
    "instant": (400, "points an instant-win yaku counts for while incomplete"),
    "risk": (1600, "per-mille weight of what a card left on the field offers the opponent"),
    "claim": (0, "least gain (tenths of a point) for which it claims a pair of a field triple"),
    "mine_hand_match": (850, "per-mille chance it captures a card it holds whose rank is on the field"),
    "mine_hand": (450, "per-mille chance it captures a card it holds whose rank is not on the field"),
    "mine_field_match": (850, "per-mille chance it captures a field card whose rank it holds"),
    "mine_field": (175, "per-mille chance it captures a field card whose rank it does not hold"),
    "mine_unseen": (450, "per-mille chance it captures an unseen card that still comes into play"),
    "theirs_hand_match": (100, "per-mille chance the opponent gets a card it holds whose rank is on the field"),
    "theirs_hand": (250, "per-mille chance the opponent gets a card it holds whose rank is not on the field"),
    "theirs_field_match": (250, "per-mille chance the opponent gets a field card whose rank it holds"),
    "theirs_field": (275, "per-mille chance the opponent gets a field card whose rank it does not hold"),
    "theirs_unseen": (500, "per-mille chance the opponent gets an unseen card that still comes into play"),
}
_CHANCES = (("mine_hand_match", "mine_hand", "mine_field_match", "mine_field", "mine_unseen"),
            ("theirs_hand_match", "theirs_hand", "theirs_field_match", "theirs_field", "theirs_unseen"))
# Where a card a yaku still lacks is, seen from the deciding seat (index into the chances).
_HAND_MATCH, _HAND, _FIELD_MATCH, _FIELD, _UNSEEN, _SIX_IN_HAND, _SIX_ON_FIELD = range(7)
_WIN_GAIN = 1 << 40  # a capture that completes an instant-win yaku
_UNUSED_DRAW = 6  # draw-pile cards never turned (docs/tensho.md#a-round, step 4)


def _hold_probability(unseen: int, access: int, k: int) -> int:
    """Per mille, rounded down: the chance that ``access`` of ``unseen`` hidden cards, taken at
    random, include at least one of ``k`` given ones."""
    if unseen <= 0 or access <= 0 or k <= 0:
        return 0
    access, k = min(access, unseen), min(k, unseen)
    return 1000 - (1000 * comb(unseen - k, access)) // comb(unseen, access)


@dataclass
class _Outlook:
    """What the heuristic reads off one observation before it weighs the actions."""

    hand: int  # own hand, with the card a capture decision is about
    field: int
    pile: int
    opp_pile: int
    unseen: int
    n_unseen: int
    live: int  # per mille of the unseen cards that still come into play
    access: int  # hidden cards the opponent can still capture with before its next choice
    set_index: int


class HeuristicPolicy:
    """A club player's rules (see the module docstring for the exact definition); deterministic."""

    name = "heuristic"

    def __init__(self, spec: PolicySpec, compiled, stream: Stream | None = None) -> None:
        p = {name: int(spec.params.get(name, default)) for name, (default, _) in HEURISTIC_PARAMS.items()}
        self.params = p
        c = compiled
        self.rank = [int(r) for r in c.rank]
        self.rank_mask = [int(m) for m in c.rank_mask]
        self.card_value = [int(v) for v in c.card_value]
        self.chaff = int(c.chaff_mask)
        self.six = int(c.params[E.P_SIX_CARD])
        self.highest_value_first = int(c.params[E.P_DOUBLE_MATCH]) == 1
        self.triple_all = int(c.params[E.P_TRIPLE_MATCH]) == 0
        self.capture_optional = int(c.params[E.P_CAPTURE_MANDATORY]) == 1
        self.dead = int(c.rules.deal_dead)
        self.deck = sum(1 << card for card, r in enumerate(self.rank) if r > 0)
        self.yaku_masks = [int(m) for m in c.yaku_mask]
        self.members = [_ids(int(c.yaku_in_set[s])) for s in range(2)]
        self.instant = [int(c.yaku_instant[s]) for s in range(2)]
        self.worth = [[0] * len(self.yaku_masks) for _ in range(2)]
        for s in range(2):
            for i in self.members[s]:
                if (self.instant[s] >> i) & 1:
                    self.worth[s][i] = 10 * p["instant"]
                else:
                    cancelled = int(c.supersedes[i]) & int(c.yaku_in_set[s]) & ~self.instant[s]
                    lost = sum(int(c.yaku_points[s][j]) for j in _ids(cancelled))
                    self.worth[s][i] = 10 * max(0, int(c.yaku_points[s][i]) - lost)
        self.chances = [[p[name] for name in _CHANCES[side]] + [1000 if side == 0 else 0, 0] for side in range(2)]

    # --- what the observation says --------------------------------------------------------------

    def outlook(self, obs: Observation, card: int = -1) -> _Outlook:
        """The sets and counts the decision at ``obs`` is weighed with (``card``: the card a
        capture decision is about, counted in the hand)."""
        hand = obs.hand | (1 << card if card >= 0 else 0)
        pile, opp_pile = obs.piles[obs.seat], obs.piles[1 - obs.seat]
        unseen = self.deck & ~(hand | obs.field | pile | opp_pile)
        n_unseen = unseen.bit_count()
        opp_hand = max(0, n_unseen - obs.draw_size - self.dead)
        still_played = opp_hand + max(0, obs.draw_size - _UNUSED_DRAW)
        live = 1000 * still_played // n_unseen if n_unseen else 0
        return _Outlook(hand, obs.field, pile, opp_pile, unseen, n_unseen, live,
                        min(opp_hand + 1, n_unseen, 7), max(obs.yaku_set, 1) - 1)

    def where(self, card: int, hand: int, field: int) -> int:
        """The class of a card a yaku lacks: in hand or on the field, with or without a card of
        its rank across, unseen, or the 6 of clubs held or stuck."""
        if card == self.six:
            if (hand >> card) & 1:
                return _SIX_IN_HAND
            return _SIX_ON_FIELD if (field >> card) & 1 else _UNSEEN
        same_rank = self.rank_mask[self.rank[card]]
        if (hand >> card) & 1:
            return _HAND_MATCH if field & same_rank else _HAND
        if (field >> card) & 1:
            return _FIELD_MATCH if hand & same_rank else _FIELD
        return _UNSEEN

    def outlook_of(self, side: int, i: int, look: _Outlook, hand: int, field: int, own: int, other: int) -> int:
        """Tenths of a point yaku ``i`` is expected to bring ``side`` (0 the deciding seat, 1 the
        opponent, whose pile is ``own``): its worth times the chance of each card it lacks, the
        chances applied class by class (``where``, in class order)."""
        mask = self.yaku_masks[i]
        if mask & other:
            return 0
        counts = [0] * len(self.chances[side])
        for card in _ids(mask & ~own):
            counts[self.where(card, hand, field)] += 1
        chance = 1000
        for where, count in enumerate(counts):
            q = self.chances[side][where]
            if where == _UNSEEN:
                q = q * look.live // 1000
            for _ in range(count):
                chance = chance * q // 1000
        return self.worth[look.set_index][i] * chance // 1000

    def balance(self, look: _Outlook, hand: int, field: int, pile: int) -> int:
        """The deciding seat's yaku outlook less the opponent's, with its own hand, the field and
        its pile as given (the opponent's pile as observed)."""
        total = 0
        for i in self.members[look.set_index]:
            total += self.outlook_of(0, i, look, hand, field, pile, look.opp_pile)
            total -= self.outlook_of(1, i, look, hand, field, look.opp_pile, pile)
        return total

    def offer(self, look: _Outlook, card: int, hand: int, field: int, pile: int) -> int:
        """What leaving ``card`` on the field (in the position given) is expected to cost: the
        chance the opponent can capture it (it holds or turns one of the unseen cards of its
        rank) times its worth to the opponent and to the deciding seat."""
        k = (look.unseen & self.rank_mask[self.rank[card]]).bit_count()
        chance = _hold_probability(look.n_unseen, look.access, k)
        if chance == 0:
            return 0
        p = self.params
        worth = p["chaff"] * ((self.chaff >> card) & 1) + p["value"] * self.card_value[card]
        s = look.set_index
        for i in self.members[s]:
            if (self.yaku_masks[i] >> card) & 1:
                gained = self.outlook_of(1, i, look, hand, field & ~(1 << card), look.opp_pile | (1 << card), pile)
                worth += gained - self.outlook_of(1, i, look, hand, field, look.opp_pile, pile)
                worth += self.outlook_of(0, i, look, hand, field, pile, look.opp_pile)
        return chance * worth // 1000 * p["risk"] // 1000

    # --- the gain of each kind of move ------------------------------------------------------------

    def take_gain(self, look: _Outlook, card: int, taken: int) -> int:
        """The gain of capturing ``card`` (from the hand; -1 for none, as in an opening claim) with
        the field cards ``taken``."""
        moved = taken | (1 << card if card >= 0 else 0)
        hand = look.hand & ~moved
        field = look.field & ~taken
        pile = look.pile | moved
        for i in _ids(self.instant[look.set_index]):
            if self.yaku_masks[i] & pile == self.yaku_masks[i]:
                return _WIN_GAIN
        p = self.params
        gain = self.balance(look, hand, field, pile) - self.balance(look, look.hand, look.field, look.pile)
        gain += p["chaff"] * (moved & self.chaff).bit_count()
        gain += p["value"] * sum(self.card_value[x] for x in _ids(moved))
        if card != self.six:
            rank_of = self.rank[card] if card >= 0 else self.rank[_ids(taken)[0]]
            for x in _ids(field & self.rank_mask[rank_of]):
                gain -= self.offer(look, x, hand, field, pile)
        return gain

    def leave_gain(self, look: _Outlook, card: int) -> int:
        """The gain of putting ``card`` (from the hand) on the field."""
        hand = look.hand & ~(1 << card)
        field = look.field | (1 << card)
        gain = self.balance(look, hand, field, look.pile) - self.balance(look, look.hand, look.field, look.pile)
        return gain - self.offer(look, card, hand, field, look.pile)

    def options(self, card: int, field: int) -> list[int]:
        """The capture masks ``card`` could take from ``field`` under the rules (empty: none)."""
        matches = field & self.rank_mask[self.rank[card]]
        n = matches.bit_count()
        if n == 0:
            return []
        if n == 2 and self.highest_value_first:
            return [_highest_value(matches, self.card_value)]
        if n >= 3 and self.triple_all:
            return [matches]
        return [1 << x for x in _ids(matches)]

    def play_gain(self, look: _Outlook, card: int) -> int:
        """The gain of playing ``card``: its best resolution against the field."""
        if card == self.six:
            return self.take_gain(look, card, 0)
        options = self.options(card, look.field)
        if not options:
            return self.leave_gain(look, card)
        best = max(self.take_gain(look, card, option) for option in options)
        if self.capture_optional:
            best = max(best, self.leave_gain(look, card))
        return best

    # --- the decisions --------------------------------------------------------------------------

    def choose_yaku_set(self, obs: Observation) -> int:
        return self.params["yaku_set"]

    def opening_claim(self, obs: Observation, rank: int, pairs: list[tuple[int, int]]):
        look = self.outlook(obs)
        best, best_gain = first_best(pairs, lambda pair: self.take_gain(look, -1, (1 << pair[0]) | (1 << pair[1])),
                                     pairs[0])
        assert best_gain is not None  # ``pairs`` is never empty
        return best if best_gain >= self.params["claim"] else None

    def bank_six(self, obs: Observation) -> bool:
        return False

    def play(self, obs: Observation) -> int:
        look = self.outlook(obs)
        return first_best(_ids(obs.hand), lambda card: self.play_gain(look, card), -1)[0]

    def choose_capture(self, obs: Observation, card: int, options: list[int], allow_decline: bool):
        look = self.outlook(obs, card)
        best, best_gain = first_best(options, lambda option: self.take_gain(look, card, option), options[0])
        assert best_gain is not None  # ``options`` is never empty
        if allow_decline and self.leave_gain(look, card) > best_gain:
            return None
        return best


def _highest_value(matches: int, card_value) -> int:
    """The single-card mask of the highest-valued card in ``matches`` (ties: lowest id)."""
    best, best_value = 0, -1
    for card in _ids(matches):
        if card_value[card] > best_value:
            best, best_value = 1 << card, card_value[card]
    return best


# The reference engine's policy object for a spec, drawing from its seat's stream:
# ``make_policy(spec, compiled, stream)`` (the search players come from ``simcore.search``).
# Annotated so that the type checker verifies every class implements ``GamePolicy``.
BASIC_POLICIES: dict[str, Callable[[PolicySpec, Any, Stream], GamePolicy]] = {
    "random": RandomPolicy, "greedy": GreedyPolicy, "heuristic": HeuristicPolicy}
make_policy = PolicyMaker("tensho", BASIC_POLICIES, ask_policy, action_key)
