"""Enshu-bana's learned player: its features, computed from the deciding seat's ``Observation``
only, and its reference-engine policy (``simcore.learned`` describes models and tables).

Features
--------
Every legal action gets ``len(FEATURES)`` integers: the terms the ``heuristic``
(``simcore.games.enshu.policies``, default weights) weighs, kept apart, and a few of their
products with the stage of the round. A card played is described by its resolution the
heuristic's ``_play_value`` takes (the first of the best); a capture choice by its option.

``heuristic``    1 for the action the heuristic takes, else 0
``yes``          a yes/no decision's "yes" (mizu-kotsu, kotsu, join, Fuke): 1
``strength``     ... and the hand's strength (the heuristic's)
``pass``         ... and the dropout pass (join)
``kotsu_seen``   ... and how many other seats declared kotsu
``teyaku``       a teyaku declared: its value (declaring none: 0)
``cards``        card points captured
``own``          the deciding seat's yaku progress: the sum over the yaku the capture touches
                 of worth times the change of its chance (per mille)
``deny``         the opponents' yaku it kills: the sum of worth times their chance
``offer``        what the cards left on the field offer the others (the heuristic's ``_offer``)
``leave``        1 if the card goes to the field
``safe``         1 if nobody else can take a card of the month (the heuristic delays it)
``safe_own``     ``own`` of a safe capture, else 0
``own_late``, ``deny_late``, ``offer_late``
                 ``own``, ``deny``, ``offer`` times ``min(draw pile, 24) // 24``'s stage:
                 ``x * min(draw_size, 24) // 24``

The position after a card is played or a capture chosen (0 for the other decisions), for trees
(``fudasim train --fit trees``) to weigh: a play takes every match where it takes all, else the
match of most card points (the lowest id on a tie). For each of the first ``POSITION_YAKU`` yaku
of the rules, how many of its cards are

``y{i}_mine``          in the seat's pile after the action
``y{i}_opponents``     in the other seats' piles
``y{i}_opponent_most`` in the other seat's pile that holds most of them
``y{i}_field``         on the field after the action
``y{i}_hand``          in the seat's hand after it
``y{i}_unseen``        where the seat cannot see them

and ``captured_points`` (the card points the action takes), ``matches`` (field cards of the
card's month before it), ``leaves`` (1: the card goes to the field), ``draw`` (the draw pile's
size), ``hand`` and ``field`` (their sizes after it), ``month_unseen``, ``month_hand`` and
``month_field`` (cards of the card's month unseen, in hand and on the field after it), ``card``
and ``month``.

Every feature is clamped to ``-MAX_FEATURE .. MAX_FEATURE`` (``simcore.learned``). The numba
twin is ``simcore.games.enshu.features_nb``; ``state_nb`` implements the round contract's
``learned_features_nb`` with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from simcore.cards import ids_of
from simcore.games.enshu import enums as E
from simcore.games.enshu.compile import TeyakuOption
from simcore.games.enshu.policies import GamePolicy, HeuristicPolicy, Observation
from simcore.learned import MAX_FEATURE, LearnedPlayer
from simcore.policies import PolicySpec, parse_policy
from simcore.rng import Stream

__all__ = ["FEATURES", "FIXED", "KINDS", "TRAIN_OBJECTIVE", "LearnedPolicy", "aux_table", "blocks", "kernel_rules",
           "features"]

# What ``fudasim train`` labels by without --objective: the payoff, as when the shipped models
# were trained (the search players' default then), so that their recorded commands make them again
TRAIN_OBJECTIVE = "score"
POSITION_YAKU = 12
PER_YAKU = ("mine", "opponents", "opponent_most", "field", "hand", "unseen")
AFTER = ("captured_points", "matches", "leaves", "draw", "hand", "field", "month_unseen", "month_hand", "month_field",
         "card", "month")
FEATURES = ("heuristic", "yes", "strength", "pass", "kotsu_seen", "teyaku", "cards", "own", "deny", "offer", "leave",
            "safe", "safe_own", "own_late", "deny_late", "offer_late",
            *(f"y{i}_{name}" for i in range(POSITION_YAKU) for name in PER_YAKU), *AFTER)
KINDS = ("mizu_kotsu", "kotsu", "join", "fuke", "declare_teyaku", "play", "capture")
FIXED: dict[str, int] = {}  # weights training does not fit
N_FEATURES = len(FEATURES)
(F_HEURISTIC, F_YES, F_STRENGTH, F_PASS, F_KOTSU_SEEN, F_TEYAKU, F_CARDS, F_OWN, F_DENY, F_OFFER, F_LEAVE, F_SAFE,
 F_SAFE_OWN, F_OWN_LATE, F_DENY_LATE, F_OFFER_LATE) = range(16)
F_POSITION = 16
F_AFTER = F_POSITION + POSITION_YAKU * len(PER_YAKU)
LATE_SPAN = 24


def blocks(compiled: Any) -> tuple[str | None, ...]:
    """One block: the variant and player count, e.g. ``w2`` or ``c5``."""
    variant = E.VARIANTS[int(compiled.params[E.P_VARIANT])].lower()
    return (f"{variant}{int(compiled.params[E.P_PLAYERS])}",)


def kernel_rules(compiled: Any) -> Any:
    """The rules namedtuple of the general kernel (``state_nb.EnshuRules``)."""
    from simcore.games.enshu.kernel import rule_tables
    from simcore.games.enshu.state_nb import EnshuRules

    return EnshuRules(*rule_tables(compiled))

def aux_table(compiled: Any) -> np.ndarray:
    """int64[:]: the heuristic's tables at its default weights (``heuristic_nb.heuristic_tables``)."""
    from simcore.games.enshu.heuristic_nb import heuristic_tables

    return heuristic_tables(compiled, parse_policy("heuristic", "enshu"))


def _clamp(x: int) -> int:
    return max(-MAX_FEATURE, min(MAX_FEATURE, x))


class _Terms:
    """The features of one action, before the heuristic indicator, and the heuristic's value."""

    __slots__ = ("row", "value")

    def __init__(self, row: list[int], value: int) -> None:
        self.row = row
        self.value = value


def _gain(h: HeuristicPolicy, captured: int, field: int, hand: int) -> tuple[int, int, int, int]:
    """``HeuristicPolicy._gain`` term by term: (card points, own progress, denial, its gain)."""
    obs = h.obs
    assert obs is not None
    me, w = obs.seat, h.w
    pile = h.piles[me]
    cards = 0
    g = 0
    for card in ids_of(captured):
        cards += h.card_points[card]
        g += h.card_points[card] * 10 * w["card_weight"]
    own = deny = 0
    for y, mask in enumerate(h.yaku_mask):
        if not mask & captured or mask & pile == mask:
            continue
        worth = h.worth[y]
        before = h._prob(me, mask, pile, field, hand)
        after = h._prob(me, mask, pile | captured, field, hand)
        own += worth * (after - before)
        g += worth * (after - before) * w["yaku_weight"] // 100
        for o in range(obs.players):
            if o == me or not obs.active[o]:
                continue
            opile = h.piles[o]
            if mask & opile == mask:
                continue
            p = h._prob(o, mask, opile, field, hand)
            deny += worth * p
            g += worth * p * w["deny_weight"] // 100
    return cards, own, deny, g


def _finish(obs: Observation, row: list[int]) -> list[int]:
    stage = min(obs.draw_size, LATE_SPAN)
    row[F_OWN_LATE] = row[F_OWN] * stage // LATE_SPAN
    row[F_DENY_LATE] = row[F_DENY] * stage // LATE_SPAN
    row[F_OFFER_LATE] = row[F_OFFER] * stage // LATE_SPAN
    return [_clamp(x) for x in row]


def _capture(h: HeuristicPolicy, obs: Observation, captured: int, left: int, field: int, hand: int,
             safe: bool) -> _Terms:
    """``HeuristicPolicy._capture_value`` (or, with nothing ``left``, the gain of a capture of
    every match), term by term."""
    row = [0] * N_FEATURES
    cards, own, deny, g = _gain(h, captured, field, hand)
    if safe:
        g = g * h.w["safe_delay"] // 1000
    after = field & ~captured
    offer = 0
    for x in ids_of(left):
        offer += h._offer(x, after, hand)
    row[F_CARDS], row[F_OWN], row[F_DENY], row[F_OFFER] = cards, own, deny, offer
    if safe:
        row[F_SAFE], row[F_SAFE_OWN] = 1, own
    return _Terms(_finish(obs, row), g - offer)


def _play(h: HeuristicPolicy, obs: Observation, card: int) -> _Terms:
    """Playing ``card``: ``HeuristicPolicy._play_value`` term by term."""
    field, hand = obs.field, obs.hand
    b = 1 << card
    month = h.month[card]
    matches = field & h.month_mask[month]
    k = matches.bit_count()
    if k == 0:
        row = [0] * N_FEATURES
        offer = h._offer(card, field | b, hand & ~b)
        row[F_OFFER], row[F_LEAVE] = offer, 1
        return _Terms(_finish(obs, row), -offer)
    safe = h._safe(month)
    if k == 1 or (k == 3 and h.capture_all):
        return _capture(h, obs, b | matches, 0, field, hand, safe)
    best: _Terms | None = None
    for x in ids_of(matches):
        terms = _capture(h, obs, b | (1 << x), matches & ~(1 << x), field, hand & ~b, safe)
        if best is None or terms.value > best.value:
            best = terms
    assert best is not None
    return best


def _position(h: HeuristicPolicy, obs: Observation, row: list[int], kind: str, payload: int, card: int) -> None:
    """The position features (module docstring) of an action into ``row``: ``payload`` is the
    card played or the capture's cards, ``card`` the card a capture is about; ``h`` has looked
    at ``obs`` (its piles hold a captured card, its ``unknown`` the cards the seat cannot see)."""
    me = obs.seat
    hand, field = obs.hand, obs.field
    if kind == "play":
        card = payload
    cb = 1 << card
    month_mask = h.month_mask[h.month[card]]
    matches = field & month_mask
    k = matches.bit_count()
    leaves = 0
    if kind == "play":
        hand &= ~cb
        if k == 0:
            captured, leaves = 0, 1
        elif k == 1 or (k == 3 and h.capture_all):
            captured = cb | matches
        else:
            best = -1
            for x in ids_of(matches):
                if best < 0 or h.card_points[x] > h.card_points[best]:
                    best = x
            captured = cb | (1 << best)
    else:
        captured = payload | cb
    pile = h.piles[me] | captured
    field_after = (field & ~captured) | (cb if leaves else 0)
    others = [obs.piles[s] for s in range(obs.players) if s != me]
    opponents = 0
    for other in others:
        opponents |= other
    for y, mask in enumerate(h.yaku_mask[:POSITION_YAKU]):
        at = F_POSITION + y * len(PER_YAKU)
        row[at:at + len(PER_YAKU)] = [(pile & mask).bit_count(), (opponents & mask).bit_count(),
                                      max([(other & mask).bit_count() for other in others], default=0),
                                      (field_after & mask).bit_count(), (hand & mask).bit_count(),
                                      (h.unknown & mask).bit_count()]
    row[F_AFTER:F_AFTER + len(AFTER)] = [sum(h.card_points[x] for x in ids_of(captured)), k, leaves, obs.draw_size,
                                         hand.bit_count(), field_after.bit_count(),
                                         (h.unknown & month_mask).bit_count(), (hand & month_mask).bit_count(),
                                         (field_after & month_mask).bit_count(), card, h.month[card]]


def _yes_row(h: HeuristicPolicy, obs: Observation) -> list[int]:
    row = [0] * N_FEATURES
    row[F_YES] = 1
    row[F_STRENGTH] = h._strength(obs)
    row[F_PASS] = obs.dropout_pass
    row[F_KOTSU_SEEN] = sum(1 for s in range(obs.players) if s != obs.seat and obs.kotsu[s])
    return [_clamp(x) for x in row]


def features(h: HeuristicPolicy, obs: Observation, kind: str, actions: list[Any], card: int = -1,
             group: str = "") -> list[list[int]]:
    """The features (module docstring) of every action of a decision of ``kind``, in the
    kernel's order: ``actions`` are the reference's (yes/no: ``[False, True]``), ``card`` the
    card a capture is about, ``group`` a teyaku decision's group. ``h`` is the heuristic at its
    default weights."""
    if kind in ("mizu_kotsu", "kotsu", "join", "fuke"):
        rows = [[0] * N_FEATURES, _yes_row(h, obs)]
        yes = {"mizu_kotsu": h.mizu_kotsu, "kotsu": h.kotsu, "join": h.join, "fuke": h.fuke}[kind](obs)
        rows[1 if yes else 0][F_HEURISTIC] = 1
        return rows
    if kind == "declare_teyaku":
        rows = [[0] * N_FEATURES for _ in actions]
        options = [a for a in actions if a is not None]
        for i, a in enumerate(actions):
            if a is not None:
                rows[i][F_TEYAKU] = _clamp(int(a.value))
        picked = h.declare_teyaku(obs, group, options)
        rows[actions.index(picked)][F_HEURISTIC] = 1
        return rows
    if kind == "play":
        h._look(obs)
        terms = [_play(h, obs, c) for c in actions]
    else:
        h._look(obs, card)
        matches = 0
        for option in actions:
            matches |= option
        safe = h._safe(h.month[card])
        terms = [_capture(h, obs, option, matches & ~option, obs.field, obs.hand, safe) for option in actions]
    pick = 0
    for i, t in enumerate(terms):
        if t.value > terms[pick].value:
            pick = i
    rows = [t.row for t in terms]
    for row, action in zip(rows, actions, strict=True):
        _position(h, obs, row, kind, int(action), card)
    rows[pick][F_HEURISTIC] = 1
    return rows


class LearnedPolicy(LearnedPlayer):
    """The learned player in the reference engine (``simcore.learned.LearnedPlayer``)."""

    GAME, KINDS, HEURISTIC, FEATURES_OF = "enshu", KINDS, HeuristicPolicy, staticmethod(features)

    def mizu_kotsu(self, obs: Observation) -> bool:
        return bool(self.pick(obs, "mizu_kotsu", [False, True]))

    def kotsu(self, obs: Observation) -> bool:
        return bool(self.pick(obs, "kotsu", [False, True]))

    def join(self, obs: Observation) -> bool:
        return bool(self.pick(obs, "join", [False, True]))

    def fuke(self, obs: Observation) -> bool:
        return bool(self.pick(obs, "fuke", [False, True]))

    def declare_teyaku(self, obs: Observation, group: str, options: list[TeyakuOption]) -> TeyakuOption | None:
        picked: TeyakuOption | None = self.pick(obs, "declare_teyaku", [*options, None], -1, group)
        return picked

    def play(self, obs: Observation) -> int:
        return int(self.pick(obs, "play", ids_of(obs.hand)))

    def choose_capture(self, obs: Observation, card: int, options: list[int]) -> int:
        return int(self.pick(obs, "capture", list(options), card))

# Annotated so that the type checker verifies the class implements ``GamePolicy``.
_MAKE: Callable[[PolicySpec, Any, Stream], GamePolicy] = LearnedPolicy
