"""Enshu-bana policies: the observation contract and the reference random and greedy policies.

A policy sees only an ``Observation`` (guarantee 6 of docs/guarantees.md): its own hand, the field,
every capture pile, the cards exposed by declared teyaku that are still in their holders' hands,
every card seen face up, the draw pile's size, the multiplier, who is active and who declared
kotsu and mizu-kotsu, and the match state -- never another hand's hidden cards or the draw order.
Policies are chosen with ``simcore.policies.PolicySpec`` (``random``, ``greedy``, ``heuristic``).

Decision hooks (docs/enshu.md#decisions-and-the-random-policy), each called only when the seat has a
real choice:

* ``mizu_kotsu(obs) -> bool`` (C), ``kotsu(obs) -> bool`` (C), ``join(obs) -> bool`` (C, 4-5
  players; ``True`` joins), ``fuke(obs) -> bool`` (C);
* ``declare_teyaku(obs, group, options) -> TeyakuOption | None``: expose one of the qualifying
  teyaku of a group, or none (W: Triplet; S: Four-Three and Triplet; C: groups A and B);
* ``play(obs) -> card id``;
* ``choose_capture(obs, card, options) -> mask``: which field card(s) the played or turned
  card takes (``options`` are single-card masks in ascending id order).

``random`` (docs/policies.md#random), drawing from its seat's own stream:

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

``heuristic`` is deterministic (no draws) and decides from the observation alone, as a club
player would; its weights are the parameters of ``HEURISTIC_PARAMS`` (``heuristic:k=v,...``),
all integers, and every quantity is an integer computed in a fixed order (its numba twin,
``simcore.games.enshu.heuristic_nb``, computes the same).  Values are in milli-points.

* *unknown* cards: those it has not seen (not in its hand, the field, a pile, or exposed);
* a yaku's *worth*: a points yaku its value less the values of the yaku it supersedes; a
  round-stopping yaku ``value * stop_worth`` (stakes in W, the score's multiplier in C); a
  multiplier (S) ``(value - 1) * stop_worth``;
* the *chance* (per mille) that seat ``s`` completes yaku ``y``: 1000 if its pile holds ``y``;
  0 if another seat's pile holds a card of it; otherwise the product, over the cards ``s``
  lacks (ascending id, ``p = p * q // 1000``), of ``q`` = ``chance_field`` for a card on the
  field, ``chance_hand`` for a card in ``s``'s own hand (ours, or exposed by ``s``), ``2 *
  chance_unseen // active seats`` for an unknown card, and 100 for a card in another hand;
* the *gain* of moving cards ``C`` into its pile: ``10 * card_weight`` per card point, plus for
  each yaku touching ``C`` and not yet complete ``worth * (chance after - chance before) *
  yaku_weight // 100``, plus, for each active opponent lacking it, ``worth * their chance *
  deny_weight // 100`` (the capture kills it);
* the *offer* of a card left on the field: ``risk * best // 1000`` where ``risk`` is 1000 if an
  opponent holds an exposed card of its month, 0 if no card of its month is unknown, otherwise
  ``(1000 - stay) * field_risk // 100`` (at most 1000) with ``stay`` the chance that none of the
  ``u`` unknown cards of the month is among the ``reach`` cards the opponents hold or draw
  before its next turn (``stay = stay * (U - reach - i) // (U - i)`` for ``i < u``, ``U`` the
  unknown cards, ``reach = min(U, U - draw pile + active seats - 1)``); ``best`` is the most an
  opponent gains (card points and yaku chances, as above, without denial) by taking the card
  together with one of the unknown or exposed cards of its month, averaged over those;
* a capture is *safe* when no card of its month is unknown or exposed in another hand: no one
  else can ever take it, so its gain counts only ``safe_delay`` per mille (it can wait);
* plays the hand card of highest value (ties: the lowest id): a card that matches nothing is
  worth minus its offer; one that takes one card (or three) its gain; one that matches two the
  best over the two of the gain less the offer of the card left; a capture choice takes the
  option of highest gain less the offer of what it leaves (ties: the first);
* *strength* of a hand: its card points, plus for each hand card the points of the best field
  card it matches, plus 50 for each month of which it holds three or more cards;
* never declares mizu-kotsu (a blind raise has no edge for an average hand and gives up the
  dropout); declares kotsu when its strength is at least ``kotsu_strength``; joins dropout pass
  ``k`` when its strength is at least ``join_strength + join_step * (k - 1)``;
* declares the highest-valued teyaku of a group (ties: the first), except, in C, a group-B
  teyaku worth less than ``teyaku_b_min`` (declaring would forbid Fuke);
* declares Fuke when it is not the round winner and the winner's score is positive (it would
  pay it).

Its parameters and their defaults (tuned against ``greedy`` with the reference engine on W 2p,
S 3p, C 3p and C 5p): ``card_weight=100``, ``yaku_weight=100``, ``deny_weight=60`` (percent);
``stop_worth=100`` (points per unit); ``chance_hand=700``, ``chance_field=500``,
``chance_unseen=400`` (per mille); ``field_risk=100`` (percent); ``safe_delay=300`` (per mille);
``kotsu_strength=50``, ``join_strength=80``, ``join_step=20`` (hand strength);
``teyaku_b_min=0`` (points: every group-B teyaku is declared).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from simcore.cards import ids_of
from simcore.games.enshu import enums as E
from simcore.games.enshu.compile import TeyakuOption, teyaku_options
from simcore.games.enshu.decisions import action_key, ask_policy
from simcore.games.enshu.heuristic_params import (
    HEURISTIC_DEFAULTS,
    HEURISTIC_OTHER_CHANCE,
    HEURISTIC_PARAMS,
    HEURISTIC_TRIPLE_STRENGTH,
)
from simcore.hanafuda import CAPTURE_ALL, CAPTURE_NONE, capture
from simcore.policies import PolicySpec, first_best
from simcore.rng import Stream
from simcore.search import PolicyMaker

__all__ = [
    "Observation",
    "RandomPolicy",
    "GreedyPolicy",
    "HeuristicPolicy",
    "HEURISTIC_PARAMS",
    "HEURISTIC_DEFAULTS",
    "GamePolicy",
    "make_policy",
    "GREEDY_KOTSU_POINTS",
    "GREEDY_JOIN_POINTS",
]

GREEDY_KOTSU_POINTS = E.GREEDY_KOTSU_POINTS
GREEDY_JOIN_POINTS = E.GREEDY_JOIN_POINTS


@dataclass(frozen=True)
class Observation:
    """What the deciding seat may see (guarantee 6 of docs/guarantees.md)."""

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


class GamePolicy(Protocol):
    """The decision hooks the reference engine calls (docs/enshu.md#decisions-and-the-random-policy;
    see the module docstring)."""

    name: str

    def mizu_kotsu(self, obs: Observation) -> bool:
        """Whether to declare mizu-kotsu (variant C)."""
        ...

    def kotsu(self, obs: Observation) -> bool:
        """Whether to declare kotsu (variant C)."""
        ...

    def join(self, obs: Observation) -> bool:
        """Whether to join the round in dropout pass ``obs.dropout_pass`` (C, 4-5 players)."""
        ...

    def fuke(self, obs: Observation) -> bool:
        """Whether to declare Fuke (variant C)."""
        ...

    def declare_teyaku(self, obs: Observation, group: str,
                       options: list[TeyakuOption]) -> TeyakuOption | None:
        """One of the qualifying teyaku ``options`` of ``group`` to expose, or None."""
        ...

    def play(self, obs: Observation) -> int:
        """The id of the hand card to play."""
        ...

    def choose_capture(self, obs: Observation, card: int, options: list[int]) -> int:
        """Which of ``options`` (single-card field masks) the played or turned ``card`` takes."""
        ...


class RandomPolicy:
    """The uniform random policy; draws from its seat's stream."""

    name = "random"

    def __init__(self, spec: PolicySpec, compiled, stream: Stream) -> None:
        self.stream = stream

    def _yes(self) -> bool:
        return self.stream.uniform_below(2) == 1

    def mizu_kotsu(self, obs: Observation) -> bool:
        return self._yes()

    def kotsu(self, obs: Observation) -> bool:
        return self._yes()

    def join(self, obs: Observation) -> bool:
        return self._yes()

    def fuke(self, obs: Observation) -> bool:
        return self._yes()

    def declare_teyaku(self, obs: Observation, group: str, options: list[TeyakuOption]):
        if not self._yes():
            return None
        return options[self.stream.uniform_below(len(options))]

    def play(self, obs: Observation) -> int:
        hand = ids_of(obs.hand)
        return hand[self.stream.uniform_below(len(hand))]

    def choose_capture(self, obs: Observation, card: int, options: list[int]) -> int:
        return options[self.stream.uniform_below(len(options))]


class GreedyPolicy:
    """The one-ply greedy policy (see the module docstring for its exact definition)."""

    name = "greedy"
    STOP_GAIN = E.GREEDY_STOP_GAIN

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
        self.capture_one = int(c.params[E.P_CAPTURE_THREE]) == 1
        self.stopping = [i for i, k in enumerate(self.yaku_kind) if k == E.YAKU_UCHIKIRI]

    def _points(self, pile: int) -> int:
        completed = 0
        for i, mask in enumerate(self.yaku_mask):
            if mask & pile == mask:
                completed |= 1 << i
        cancelled = 0
        for i in ids_of(completed):
            cancelled |= self.supersedes[i]
        return sum(self.yaku_value[i] for i in ids_of(completed & ~cancelled)
                   if self.yaku_kind[i] == E.YAKU_POINTS)

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
        outcome = capture(field, card, not self.capture_one)
        if outcome.kind == CAPTURE_NONE:
            return []
        return [outcome.matches] if outcome.kind == CAPTURE_ALL else list(outcome.options)

    def _best_resolution(self, obs: Observation, card: int) -> int:
        pile = obs.piles[obs.seat]
        options = self._capture_options(card, obs.field)
        if not options:
            return self.placement_gain(card)
        return max(self.gain(pile, (1 << card) | option) for option in options)

    def _hand_points(self, obs: Observation) -> int:
        return sum(self.card_points[x] for x in ids_of(obs.hand))

    def mizu_kotsu(self, obs: Observation) -> bool:
        return False

    def kotsu(self, obs: Observation) -> bool:
        return self._hand_points(obs) >= GREEDY_KOTSU_POINTS

    def join(self, obs: Observation) -> bool:
        if self._hand_points(obs) >= GREEDY_JOIN_POINTS * max(obs.dropout_pass, 1):
            return True
        return obs.dropout_pass <= 1 and bool(teyaku_options(self.compiled, obs.hand, None))

    def fuke(self, obs: Observation) -> bool:
        return obs.winner != obs.seat and obs.winner >= 0 and obs.scores[obs.winner] > 0

    def declare_teyaku(self, obs: Observation, group: str, options: list[TeyakuOption]):
        best = options[0]
        for option in options[1:]:
            if option.value > best.value:
                best = option
        return best

    def play(self, obs: Observation) -> int:
        return first_best(ids_of(obs.hand), lambda card: self._best_resolution(obs, card), -1)[0]

    def choose_capture(self, obs: Observation, card: int, options: list[int]) -> int:
        pile = obs.piles[obs.seat]
        return first_best(options, lambda option: self.gain(pile, (1 << card) | option), options[0])[0]


# --- heuristic -----------------------------------------------------------------------------------

class HeuristicPolicy:
    """A club player's rules (module docstring); deterministic, it never draws from its stream.

    The numba twin ``simcore.games.enshu.heuristic_nb.heuristic_choose_nb`` takes the same
    decisions: every quantity below is an integer computed in the same order.
    """

    name = "heuristic"

    def __init__(self, spec: PolicySpec, compiled, stream: Stream | None = None) -> None:
        from simcore.games.enshu.heuristic_nb import heuristic_weights, yaku_worth

        c = compiled
        self.compiled = c
        self.w = heuristic_weights(spec)
        self.variant = int(c.params[E.P_VARIANT])
        self.capture_all = int(c.params[E.P_CAPTURE_THREE]) == 0
        self.card_points = [int(v) for v in c.card_points]
        self.month = [int(m) for m in c.month]
        self.month_mask = [int(m) for m in c.month_mask]
        self.yaku_mask = [int(m) for m in c.yaku_mask]
        self.worth = yaku_worth(c, self.w["stop_worth"])
        self.deck = (1 << E.DECK_SIZE) - 1
        # per decision (set by _look)
        self.obs: Observation | None = None
        self.unknown = 0
        self.opp_exposed = 0
        self.unseen_chance = 0
        self.piles: list[int] = []
        self.all_piles = 0

    # --- the position -------------------------------------------------------------------------

    def _look(self, obs: Observation, in_play: int = -1) -> None:
        """Derive what every evaluation reads: unknown cards, the chance of an unseen card."""
        self.obs = obs
        piles = list(obs.piles)
        if in_play >= 0:
            piles[obs.seat] |= 1 << in_play  # it is ours whatever we take with it
        self.piles = piles
        self.all_piles = 0
        for pile in piles:
            self.all_piles |= pile
        known = obs.seen | obs.hand | obs.field
        opp_exposed = 0
        for s in range(obs.players):
            known |= piles[s] | obs.exposed[s]
            if s != obs.seat:
                opp_exposed |= obs.exposed[s]
        self.unknown = self.deck & ~known
        self.opp_exposed = opp_exposed
        n_active = max(sum(1 for a in obs.active if a), 1)
        self.unseen_chance = self.w["chance_unseen"] * 2 // n_active

    def _chance(self, seat: int, card: int, field: int, hand: int) -> int:
        """Per mille: the chance ``seat`` gets ``card`` (in no pile) into its pile."""
        obs = self.obs
        assert obs is not None
        b = 1 << card
        if field & b:
            return self.w["chance_field"]
        if obs.exposed[seat] & b:
            return self.w["chance_hand"]
        if hand & b:
            return self.w["chance_hand"] if seat == obs.seat else HEURISTIC_OTHER_CHANCE
        if self.unknown & b:
            return self.unseen_chance
        return HEURISTIC_OTHER_CHANCE

    def _prob(self, seat: int, mask: int, pile: int, field: int, hand: int) -> int:
        """Per mille: the chance ``seat`` with ``pile`` completes the yaku of ``mask``."""
        p = 1000
        missing = mask & ~pile
        if missing & self.all_piles:
            return 0  # another seat holds a card of it
        while missing and p:
            card = (missing & -missing).bit_length() - 1
            missing &= missing - 1
            p = p * self._chance(seat, card, field, hand) // 1000
        return p

    def _gain(self, captured: int, field: int, hand: int) -> int:
        """Milli-points: what moving ``captured`` into our pile is worth (card points, yaku
        progress weighted by its chance, the opponents' yaku it kills).  ``field`` and ``hand``
        are those before the move."""
        obs = self.obs
        assert obs is not None
        me, w = obs.seat, self.w
        pile = self.piles[me]
        g = 0
        rest = captured
        while rest:
            card = (rest & -rest).bit_length() - 1
            rest &= rest - 1
            g += self.card_points[card] * 10 * w["card_weight"]
        for y, mask in enumerate(self.yaku_mask):
            if not mask & captured or mask & pile == mask:
                continue
            worth = self.worth[y]
            before = self._prob(me, mask, pile, field, hand)
            after = self._prob(me, mask, pile | captured, field, hand)
            g += worth * (after - before) * w["yaku_weight"] // 100
            for o in range(obs.players):
                if o == me or not obs.active[o]:
                    continue
                opile = self.piles[o]
                if mask & opile == mask:
                    continue
                g += worth * self._prob(o, mask, opile, field, hand) * w["deny_weight"] // 100
        return g

    def _take_value(self, seat: int, captured: int, field: int, hand: int) -> int:
        """Milli-points: what moving ``captured`` into ``seat``'s pile is worth to ``seat``
        (card points and yaku progress weighted by its chance; no denial)."""
        w = self.w
        pile = self.piles[seat]
        v = 0
        rest = captured
        while rest:
            card = (rest & -rest).bit_length() - 1
            rest &= rest - 1
            v += self.card_points[card] * 10 * w["card_weight"]
        for y, mask in enumerate(self.yaku_mask):
            if not mask & captured or mask & pile == mask:
                continue
            before = self._prob(seat, mask, pile, field, hand)
            after = self._prob(seat, mask, pile | captured, field, hand)
            v += self.worth[y] * (after - before) * w["yaku_weight"] // 100
        return v

    def _risk(self, month_cards: int) -> int:
        """Per mille: the chance another seat takes a card of ``month_cards`` left on the field
        before our next turn (certain if one holds an exposed card of the month; else the chance
        that their hidden cards and next draws hold one of the unseen cards of the month, scaled
        by ``field_risk`` percent)."""
        obs = self.obs
        assert obs is not None
        if self.opp_exposed & month_cards:
            return 1000
        u = (self.unknown & month_cards).bit_count()
        if u == 0:
            return 0
        total = self.unknown.bit_count()
        hidden = max(total - obs.draw_size, 0)
        n_active = sum(1 for a in obs.active if a)
        reach = min(total, hidden + n_active - 1)
        stay = 1000
        for i in range(u):
            if total - reach - i <= 0:
                stay = 0
                break
            stay = stay * (total - reach - i) // (total - i)
        return min(1000, (1000 - stay) * self.w["field_risk"] // 100)

    def _offer(self, card: int, field: int, hand: int) -> int:
        """Milli-points: the cost of ``card`` lying on ``field`` (it is on it) for the others to
        take: ``_risk`` times the most one of them gains by taking it, with the mean of the
        cards of its month they might take it with."""
        obs = self.obs
        assert obs is not None
        month_cards = self.month_mask[self.month[card]]
        risk = self._risk(month_cards)
        if risk == 0:
            return 0
        b = 1 << card
        best = 0
        for o in range(obs.players):
            if o == obs.seat or not obs.active[o]:
                continue
            takers = (self.unknown | obs.exposed[o]) & month_cards
            k = takers.bit_count()
            if k == 0:
                continue
            total = 0
            while takers:
                y = (takers & -takers).bit_length() - 1
                takers &= takers - 1
                total += self._take_value(o, b | (1 << y), field, hand)
            best = max(best, total // k)
        return risk * best // 1000

    def _safe(self, month: int) -> bool:
        """Whether no other seat can hold or draw a card of ``month``."""
        cards = self.month_mask[month]
        return not (self.unknown & cards) and not (self.opp_exposed & cards)

    def _play_value(self, card: int) -> int:
        """Milli-points of playing hand card ``card`` and resolving it at its best."""
        obs = self.obs
        assert obs is not None
        field, hand = obs.field, obs.hand
        b = 1 << card
        month = self.month[card]
        matches = field & self.month_mask[month]
        k = matches.bit_count()
        if k == 0:
            return -self._offer(card, field | b, hand & ~b)
        safe = self._safe(month)
        if k == 1 or (k == 3 and self.capture_all):
            g = self._gain(b | matches, field, hand)
            return g * self.w["safe_delay"] // 1000 if safe else g
        best = None
        rest = matches
        while rest:
            x = (rest & -rest).bit_length() - 1
            rest &= rest - 1
            v = self._capture_value(b | (1 << x), matches & ~(1 << x), field, hand & ~b, safe)
            if best is None or v > best:
                best = v
        assert best is not None
        return best

    def _capture_value(self, captured: int, left: int, field: int, hand: int, safe: bool) -> int:
        """Milli-points: the gain of ``captured`` less the offer of the ``left`` field cards."""
        g = self._gain(captured, field, hand)
        if safe:
            g = g * self.w["safe_delay"] // 1000
        after = field & ~captured
        while left:
            x = (left & -left).bit_length() - 1
            left &= left - 1
            g -= self._offer(x, after, hand)
        return g

    def _strength(self, obs: Observation) -> int:
        """Hand strength: its card points, the best field card each hand card matches, and
        ``HEURISTIC_TRIPLE_STRENGTH`` per month of which it holds three or more."""
        s = 0
        hand = obs.hand
        rest = hand
        while rest:
            card = (rest & -rest).bit_length() - 1
            rest &= rest - 1
            s += self.card_points[card]
            best = 0
            matches = obs.field & self.month_mask[self.month[card]]
            while matches:
                x = (matches & -matches).bit_length() - 1
                matches &= matches - 1
                best = max(best, self.card_points[x])
            s += best
        for m in range(1, 13):
            if (hand & self.month_mask[m]).bit_count() >= 3:
                s += HEURISTIC_TRIPLE_STRENGTH
        return s

    # --- the decisions ------------------------------------------------------------------------

    def mizu_kotsu(self, obs: Observation) -> bool:
        return False

    def kotsu(self, obs: Observation) -> bool:
        return self._strength(obs) >= self.w["kotsu_strength"]

    def join(self, obs: Observation) -> bool:
        need = self.w["join_strength"] + self.w["join_step"] * (max(obs.dropout_pass, 1) - 1)
        return self._strength(obs) >= need

    def fuke(self, obs: Observation) -> bool:
        return obs.winner != obs.seat and obs.winner >= 0 and obs.scores[obs.winner] > 0

    def declare_teyaku(self, obs: Observation, group: str, options: list[TeyakuOption]):
        best = options[0]
        for option in options[1:]:
            if option.value > best.value:
                best = option
        if group == "B" and self.variant == E.VARIANT_C and best.value < self.w["teyaku_b_min"]:
            return None
        return best

    def play(self, obs: Observation) -> int:
        self._look(obs)
        best, best_value = -1, None
        for card in ids_of(obs.hand):
            v = self._play_value(card)
            if best_value is None or v > best_value:
                best, best_value = card, v
        return best

    def choose_capture(self, obs: Observation, card: int, options: list[int]) -> int:
        self._look(obs, card)
        matches = 0
        for option in options:
            matches |= option
        safe = self._safe(self.month[card])
        best, best_value = options[0], None
        for option in options:
            v = self._capture_value(option, matches & ~option, obs.field, obs.hand, safe)
            if best_value is None or v > best_value:
                best, best_value = option, v
        return best


# The reference engine's policy object for a spec, drawing from its seat's stream:
# ``make_policy(spec, compiled, stream)`` (the search players come from ``simcore.search``).
# Annotated so that the type checker verifies every class implements ``GamePolicy``.
BASIC_POLICIES: dict[str, Callable[[PolicySpec, Any, Stream], GamePolicy]] = {
    "random": RandomPolicy, "greedy": GreedyPolicy, "heuristic": HeuristicPolicy}
make_policy = PolicyMaker("enshu", BASIC_POLICIES, ask_policy, action_key)
