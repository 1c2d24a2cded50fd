"""Tensho's learned player: its features, computed from the deciding seat's ``Observation`` only,
and its reference-engine policy (``simcore.learned`` describes models and tables).

Features
--------
Every legal action gets ``len(FEATURES)`` integers, the terms the ``heuristic`` weighs
(``simcore.games.tensho.policies``, default weights), kept apart so that a model can weigh them
anew, and a few of their products with the stage of the round. For a capture of cards ``C``
(the played or turned card and the field cards it takes, or a claimed pair), a card left on the
field, or a card played (its resolution: the one the heuristic's ``play_gain`` takes, the first
of the best):

``heuristic``  1 for the action the heuristic takes, else 0
``win``        ``WIN`` (2**20) if the capture completes an instant-win yaku (every other term is
               then 0); its weight is fixed at ``MAX_WEIGHT`` (``FIXED``), so such a capture always
               outscores every other action
``own``        the change of the deciding seat's yaku outlook (tenths of a point)
``theirs``     the change of the opponent's yaku outlook
``chaff``      chaff cards of ``C``
``value``      card-value points of ``C``
``offer``      what the cards left on the field offer the opponent (the heuristic's ``offer``)
``leave``      1 if the card goes to the field
``points``     the worth of the non-instant yaku the pile completes now (tenths of a point)
``own_late``, ``theirs_late``, ``offer_late``
               ``own``, ``theirs``, ``offer`` times ``(draw pile - 6) // 12``'s stage:
               ``x * max(draw_size - 6, 0) // 12``
``chaff_even`` ``chaff`` when both piles' completed yaku are worth the same, else 0
``value_even`` ``value`` when they are worth the same and hold as many chaff cards, else 0

Then the position's own features, the same for every action of a decision (the search players'
value models read them; a centred learned model cannot):

``made_mine``, ``made_theirs``, ``made_lead``
               what the yaku of the round's set already complete in the seat's pile and in the
               opponent's are worth to the heuristic (tenths of a point), and the difference
``pile_mine``, ``pile_theirs``, ``hand_size``, ``field_size``
               the cards in each pile, in the hand and on the field
``dealer``     1 if the seat deals

An opening claim's "decline", banking or not, and the yaku set have every term 0 but
``heuristic``. The numba twin is ``simcore.games.tensho.features_nb``; ``state_nb`` implements
the round contract's ``learned_features_nb`` with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from simcore.games.tensho import enums as E
from simcore.games.tensho.policies import GamePolicy, HeuristicPolicy, Observation, _ids
from simcore.learned import MAX_WEIGHT, LearnedPlayer
from simcore.policies import PolicySpec, parse_policy
from simcore.rng import Stream

__all__ = ["FEATURES", "FIXED", "KINDS", "LearnedPolicy", "aux_table", "blocks", "kernel_rules", "features", "slot"]

FEATURES = ("heuristic", "win", "own", "theirs", "chaff", "value", "offer", "leave", "points", "own_late",
            "theirs_late", "offer_late", "chaff_even", "value_even",
            # the position's, the same for every action (the value models read them)
            "made_mine", "made_theirs", "made_lead", "pile_mine", "pile_theirs", "hand_size", "field_size", "dealer")
KINDS = ("yaku_set", "opening_claim", "bank_six", "play", "capture")
FIXED = {"win": MAX_WEIGHT}  # weights training does not fit: the same in every kind
WIN = 1 << 20
N_FEATURES = len(FEATURES)
F_HEURISTIC, F_WIN, F_OWN, F_THEIRS, F_CHAFF, F_VALUE, F_OFFER, F_LEAVE, F_POINTS = range(9)
F_OWN_LATE, F_THEIRS_LATE, F_OFFER_LATE, F_CHAFF_EVEN, F_VALUE_EVEN = range(9, 14)
F_POSITION = 14
LATE_FROM = 6  # draw-pile cards never turned
LATE_SPAN = 12
WIN_GAIN = 1 << 40  # the heuristic's gain of a capture that completes an instant-win yaku


def blocks(compiled: Any) -> tuple[str | None, ...]:
    """Block 0 holds yaku set 1's weights (also before the set is chosen), block 1 set 2's; a
    fixed set leaves the other block unused."""
    choice = int(compiled.params[E.P_YAKU_SET_CHOICE])
    if choice == E.SET_FIXED_1:
        return ("set1", None)
    if choice == E.SET_FIXED_2:
        return (None, "set2")
    return ("set1", "set2")


def kernel_rules(compiled: Any) -> Any:
    """The rules namedtuple of the general kernel (``state_nb.TenshoRules``)."""
    from simcore.games.tensho.state_nb import kernel_rules as rules

    return rules(compiled)

def aux_table(compiled: Any) -> np.ndarray:
    """int64[:]: the heuristic's tables at its default weights (``heuristic_nb.heuristic_tables``)."""
    from simcore.games.tensho.heuristic_nb import heuristic_tables

    return heuristic_tables(compiled, parse_policy("heuristic", "tensho"))


def slot(obs: Observation, kind: int) -> int:
    """The weight row of a decision of ``kind`` (index in ``KINDS``)."""
    return (max(obs.yaku_set, 1) - 1) * len(KINDS) + kind


class _Terms:
    """The features of one action, before the heuristic indicator."""

    __slots__ = ("gain", "row")

    def __init__(self, row: list[int], gain: int) -> None:
        self.row = row
        self.gain = gain


def _done_worth(h: HeuristicPolicy, s: int, pile: int) -> int:
    """Tenths of a point: the worth of the non-instant yaku of set ``s`` complete in ``pile``."""
    total = 0
    for i in h.members[s]:
        mask = h.yaku_masks[i]
        if not (h.instant[s] >> i) & 1 and mask & pile == mask:
            total += h.worth[s][i]
    return total


def _outlooks(h: HeuristicPolicy, look: Any, hand: int, field: int, pile: int) -> tuple[int, int]:
    """The deciding seat's and the opponent's summed yaku outlooks in the position given."""
    own = theirs = 0
    for i in h.members[look.set_index]:
        own += h.outlook_of(0, i, look, hand, field, pile, look.opp_pile)
        theirs += h.outlook_of(1, i, look, hand, field, look.opp_pile, pile)
    return own, theirs


def _finish(h: HeuristicPolicy, look: Any, obs: Observation, row: list[int]) -> list[int]:
    """Fill the stage and tie-break products of ``row``."""
    late = max(obs.draw_size - LATE_FROM, 0)
    row[F_OWN_LATE] = row[F_OWN] * late // LATE_SPAN
    row[F_THEIRS_LATE] = row[F_THEIRS] * late // LATE_SPAN
    row[F_OFFER_LATE] = row[F_OFFER] * late // LATE_SPAN
    s = look.set_index
    if _done_worth(h, s, look.pile) == _done_worth(h, s, look.opp_pile):
        row[F_CHAFF_EVEN] = row[F_CHAFF]
        if (look.pile & h.chaff).bit_count() == (look.opp_pile & h.chaff).bit_count():
            row[F_VALUE_EVEN] = row[F_VALUE]
    return row


def _take(h: HeuristicPolicy, look: Any, obs: Observation, card: int, taken: int) -> _Terms:
    """Capturing ``card`` (-1: none, an opening claim) with the field cards ``taken``
    (``HeuristicPolicy.take_gain``, term by term)."""
    row = [0] * N_FEATURES
    moved = taken | (1 << card if card >= 0 else 0)
    hand = look.hand & ~moved
    field = look.field & ~taken
    pile = look.pile | moved
    s = look.set_index
    for i in _ids(h.instant[s]):
        if h.yaku_masks[i] & pile == h.yaku_masks[i]:
            row[F_WIN] = WIN
            return _Terms(row, WIN_GAIN)
    own1, theirs1 = _outlooks(h, look, hand, field, pile)
    own0, theirs0 = _outlooks(h, look, look.hand, look.field, look.pile)
    row[F_OWN] = own1 - own0
    row[F_THEIRS] = theirs1 - theirs0
    row[F_CHAFF] = (moved & h.chaff).bit_count()
    row[F_VALUE] = sum(h.card_value[x] for x in _ids(moved))
    offer = 0
    if card != h.six:
        rank_of = h.rank[card] if card >= 0 else h.rank[_ids(taken)[0]]
        for x in _ids(field & h.rank_mask[rank_of]):
            offer += h.offer(look, x, hand, field, pile)
    row[F_OFFER] = offer
    row[F_POINTS] = _done_worth(h, s, pile) - _done_worth(h, s, look.pile)
    p = h.params
    gain = row[F_OWN] - row[F_THEIRS] + p["chaff"] * row[F_CHAFF] + p["value"] * row[F_VALUE] - offer
    return _Terms(_finish(h, look, obs, row), gain)


def _leave(h: HeuristicPolicy, look: Any, obs: Observation, card: int) -> _Terms:
    """Putting ``card`` from the hand on the field (``HeuristicPolicy.leave_gain``, term by term)."""
    row = [0] * N_FEATURES
    bit = 1 << card
    hand = look.hand & ~bit
    field = look.field | bit
    own1, theirs1 = _outlooks(h, look, hand, field, look.pile)
    own0, theirs0 = _outlooks(h, look, look.hand, look.field, look.pile)
    row[F_OWN] = own1 - own0
    row[F_THEIRS] = theirs1 - theirs0
    row[F_OFFER] = h.offer(look, card, hand, field, look.pile)
    row[F_LEAVE] = 1
    return _Terms(_finish(h, look, obs, row), row[F_OWN] - row[F_THEIRS] - row[F_OFFER])


def _play(h: HeuristicPolicy, look: Any, obs: Observation, card: int) -> _Terms:
    """Playing ``card``: the resolution ``HeuristicPolicy.play_gain`` takes (the first best)."""
    if card == h.six:
        return _take(h, look, obs, card, 0)
    options = h.options(card, look.field)
    if not options:
        return _leave(h, look, obs, card)
    best = _take(h, look, obs, card, options[0])
    for option in options[1:]:
        terms = _take(h, look, obs, card, option)
        if terms.gain > best.gain:
            best = terms
    if h.capture_optional:
        leave = _leave(h, look, obs, card)
        if leave.gain > best.gain:
            best = leave
    return best


def _zero() -> list[int]:
    return [0] * N_FEATURES


def features(h: HeuristicPolicy, obs: Observation, kind: str, actions: list[Any], card: int = -1) -> list[list[int]]:
    """The features (module docstring) of every action of a decision of ``kind``, in the
    kernel's order: ``actions`` are the reference's, ``card`` the card a capture is about.
    ``h`` is the heuristic at its default weights. Each row: the action's own features, then
    the position's (``_position``)."""
    rows = _option_features(h, obs, kind, actions, card)
    position = _position(h, obs)
    for row in rows:
        row[F_POSITION:] = position
    return rows


def _made(h: HeuristicPolicy, pile: int, s: int) -> int:
    """What the yaku of set ``s`` complete in ``pile`` are worth to the heuristic (tenths of a point)."""
    return sum(h.worth[s][i] for i in h.members[s] if pile & h.yaku_masks[i] == h.yaku_masks[i])


def _position(h: HeuristicPolicy, obs: Observation) -> list[int]:
    """The position's features (``features_nb.position_nb``): what the yaku already in the
    seat's pile and in the opponent's are worth, the difference, both piles' sizes, the hand's
    and the field's, and whether the seat deals."""
    s = max(obs.yaku_set, 1) - 1
    pile, opp_pile = obs.piles[obs.seat], obs.piles[1 - obs.seat]
    mine, theirs = _made(h, pile, s), _made(h, opp_pile, s)
    return [mine, theirs, mine - theirs, bin(pile).count("1"), bin(opp_pile).count("1"), bin(obs.hand).count("1"),
            bin(obs.field).count("1"), int(obs.dealer == obs.seat)]


def _option_features(h: HeuristicPolicy, obs: Observation, kind: str, actions: list[Any],
                     card: int = -1) -> list[list[int]]:
    """Every action's own features (the columns before ``F_POSITION``)."""
    if kind == "yaku_set":
        rows = [_zero() for _ in actions]
        rows[list(actions).index(h.params["yaku_set"])][F_HEURISTIC] = 1
        return rows
    if kind == "bank_six":
        rows = [_zero() for _ in actions]
        rows[list(actions).index(False)][F_HEURISTIC] = 1  # it never banks
        return rows
    if kind == "play":
        look = h.outlook(obs)
        terms = [_play(h, look, obs, c) for c in actions]
        pick = 0
        for i, t in enumerate(terms):
            if t.gain > terms[pick].gain:
                pick = i
    elif kind == "capture":
        look = h.outlook(obs, card)
        terms = [_leave(h, look, obs, card) if a is None else _take(h, look, obs, card, a) for a in actions]
        pick = -1
        decline = -1
        for i, a in enumerate(actions):
            if a is None:
                decline = i
            elif pick < 0 or terms[i].gain > terms[pick].gain:
                pick = i
        if decline >= 0 and (pick < 0 or terms[decline].gain > terms[pick].gain):
            pick = decline
    else:  # opening claim: "decline" (None) and the pairs
        look = h.outlook(obs)
        terms = [_Terms(_zero(), 0) if a is None else _take(h, look, obs, -1, (1 << a[0]) | (1 << a[1]))
                 for a in actions]
        pick = -1
        decline = 0
        for i, a in enumerate(actions):
            if a is None:
                decline = i
            elif pick < 0 or terms[i].gain > terms[pick].gain:
                pick = i
        if pick < 0 or terms[pick].gain < h.params["claim"]:
            pick = decline
    rows = [t.row for t in terms]
    rows[pick][F_HEURISTIC] = 1
    return rows


class LearnedPolicy(LearnedPlayer):
    """The learned player in the reference engine (``simcore.learned.LearnedPlayer``); its weight
    row is its yaku set's (``slot``)."""

    GAME, KINDS, HEURISTIC, FEATURES_OF = "tensho", KINDS, HeuristicPolicy, staticmethod(features)

    def slot(self, obs: Observation, kind: str) -> int:
        """The weight row of a decision of ``kind`` in the round's yaku set."""
        return slot(obs, KINDS.index(kind))

    def choose_yaku_set(self, obs: Observation) -> int:
        return int(self.pick(obs, "yaku_set", [1, 2]))

    def opening_claim(self, obs: Observation, rank: int, pairs: list[tuple[int, int]]) -> tuple[int, int] | None:
        picked: tuple[int, int] | None = self.pick(obs, "opening_claim", [None, *pairs])
        return picked

    def bank_six(self, obs: Observation) -> bool:
        return bool(self.pick(obs, "bank_six", [False, True]))

    def play(self, obs: Observation) -> int:
        return int(self.pick(obs, "play", _ids(obs.hand)))

    def choose_capture(self, obs: Observation, card: int, options: list[int], allow_decline: bool) -> int | None:
        actions: list[int | None] = list(options) + ([None] if allow_decline else [])
        picked: int | None = self.pick(obs, "capture", actions, card)
        return picked

# Annotated so that the type checker verifies the class implements ``GamePolicy``.
_MAKE: Callable[[PolicySpec, Any, Stream], GamePolicy] = LearnedPolicy
