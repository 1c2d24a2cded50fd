"""Numba twin of Tensho's ``heuristic`` policy (``simcore.games.tensho.policies.HeuristicPolicy``).

Contract
--------
``heuristic_choose_nb(kind, obs, keys, n, tables) -> index`` decides one decision of the
heuristic policy and returns the index of the chosen action in ``keys[:n]``:

* ``kind`` is the decision's kind code (``KIND_*``: yaku_set 0, opening_claim 1, bank_six 2,
  play 3, capture 4);
* ``obs`` is int64[OBS_SIZE], the deciding seat's observation packed by ``pack_observation``
  (slots ``OBS_*``; card sets are masks, all below 2**45, stored as int64). At a capture
  decision ``OBS_CARD`` is the played or turned card being resolved, which is in no other slot
  (not in the hand: the reference engine's observation is taken after the card left it);
  at every other decision it is -1;
* ``keys`` is int64[>= n]: the action keys ``(kind << 56) | payload`` of the legal actions in
  the reference engine's legal order (``tensho_action_key``);
* ``tables`` is int64[T_SIZE], built once per run by ``heuristic_tables(compiled, spec)``: the
  policy's weights and the rule arrays it reads.

It draws nothing and allocates nothing; every quantity is an integer, computed with the same
operations in the same order as the reference policy, so both engines decide identically.
The observation layout only ever grows: new slots are added at the end.
This module imports only math, numpy, numba and the shared bit helpers (``heuristic_tables``
reads the game's enums and the policy's defaults when it is called).
"""

from __future__ import annotations

from math import comb
from typing import Any

import numba as nb
import numpy as np

from simcore.kernels.bits import KIND_SHIFT, PAYLOAD_MASK, lowest_id, popcount, table_sum
from simcore.kernels.internal import internal_nb

__all__ = [
    "KIND_BANK_SIX",
    "KIND_CAPTURE",
    "KIND_OPENING_CLAIM",
    "KIND_PLAY",
    "KIND_YAKU_SET",
    "OBS_CARD",
    "OBS_DEALER",
    "OBS_DRAW_SIZE",
    "OBS_FIELD",
    "OBS_HAND",
    "OBS_MATCH_POINTS",
    "OBS_PILES",
    "OBS_ROUND_IN_MATCH",
    "OBS_SEAT",
    "OBS_SEEN",
    "OBS_SIZE",
    "OBS_TURN",
    "OBS_YAKU_SET",
    "DECLINE_PAYLOAD",
    "heuristic_choose_nb",
    "heuristic_tables",
    "hold_probability",
    "pack_observation",
    "tensho_action_key",
]

# --- decision kinds and action keys (spec: key = (kind << 56) | payload) ---------------------
KIND_YAKU_SET = 0
KIND_OPENING_CLAIM = 1
KIND_BANK_SIX = 2
KIND_PLAY = 3
KIND_CAPTURE = 4
DECLINE_PAYLOAD = 1 << 50  # a capture decision's "leave the card on the field"

# --- the packed observation: int64[OBS_SIZE] ---------------------------------------------------
OBS_SEAT = 0  # the deciding seat
OBS_DEALER = 1
OBS_YAKU_SET = 2  # 0 before the set is chosen
OBS_ROUND_IN_MATCH = 3
OBS_MATCH_POINTS = 4  # + seat (2 slots)
OBS_HAND = 6  # own hand mask
OBS_FIELD = 7
OBS_PILES = 8  # + seat (2 slots): capture pile masks
OBS_SEEN = 10  # every card face up this round
OBS_DRAW_SIZE = 11
OBS_TURN = 12
OBS_CARD = 13  # the played or turned card a capture decision is about; -1 at other decisions
OBS_SIZE = 14

# --- the tables: int64[T_SIZE] -------------------------------------------------------------------
T_N_YAKU = 0
T_SIX = 1  # id of the 6 of clubs
T_CAPTURE_OPTIONAL = 2  # 1: tensho.capture_mandatory = false
T_HIGHEST_VALUE_FIRST = 3  # 1: tensho.double_match = highest_value_first
T_TRIPLE_ALL = 4  # 1: tensho.triple_match = all
T_DECK = 5  # mask of every card id
T_CHAFF = 6  # chaff mask
T_DEAD = 7  # dead cards of a deal
T_UNUSED_DRAW = 8  # draw-pile cards never turned
T_W_CHAFF = 9
T_W_VALUE = 10
T_W_RISK = 11
T_CLAIM = 12
T_YAKU_SET = 13
T_Q = 16  # [side 2][class 8]: per-mille chances (classes CLASS_*)
T_RANK = 32  # [64]
T_RANK_MASK = 96  # [16]
T_CARD_VALUE = 112  # [64]
T_CARD_YAKU = 176  # [set 2][64]: bitset of the set's yaku that hold the card
T_YAKU_MASK = 304  # [64]
T_YAKU_WORTH = 368  # [set 2][64]: tenths of a point a completed yaku is worth
T_INSTANT = 496  # [set 2]: bitset of instant-win yaku
T_IN_SET = 498  # [set 2]: bitset of the set's yaku
T_HOLD = 512  # [unseen 0..45][access 0..7][k 0..4]: per mille (hold_probability)
HOLD_N, HOLD_A, HOLD_K = 46, 8, 5
# [side 2][hand_match 5][hand 5][field_match 5][field 5]: per mille, the chance of a yaku's
# missing cards of the first four classes (the chain of ``HeuristicPolicy.outlook_of``).
T_CHANCE = T_HOLD + HOLD_N * HOLD_A * HOLD_K
T_SIZE = T_CHANCE + 2 * 625

# Classes of a card a yaku still lacks, from the deciding seat's view of where it is.
CLASS_HAND_MATCH = 0  # in the decider's hand, a field card of its rank waiting
CLASS_HAND = 1  # in the decider's hand, nothing of its rank on the field
CLASS_FIELD_MATCH = 2  # on the field, the decider holds a card of its rank
CLASS_FIELD = 3  # on the field, the decider holds nothing of its rank
CLASS_UNSEEN = 4  # not seen by the decider (the other hand, the draw pile, the dead cards)
CLASS_SIX_IN_HAND = 5  # the 6 of clubs in the decider's hand: certain for it, lost to the other
CLASS_SIX_ON_FIELD = 6  # the 6 of clubs stuck on the field: nobody gets it
N_CLASSES = 8

# A capture that completes an instant-win yaku gains this (every other gain is far smaller).
WIN_GAIN = 1 << 40

# The policy's parameters (``PolicySupport(params=...)`` of the game) in the order of T_Q's
# classes 0..4, for the deciding seat ("mine") and the other ("theirs").
Q_PARAMS = (
    ("mine_hand_match", "mine_hand", "mine_field_match", "mine_field", "mine_unseen"),
    ("theirs_hand_match", "theirs_hand", "theirs_field_match", "theirs_field", "theirs_unseen"),
)


def tensho_action_key(decision: Any, action: Any) -> int:
    """The int64 key (spec section 1) of ``action`` at reference ``decision`` (a
    ``simcore.reference.forward.Decision``): ``(kind << 56) | payload``."""
    kind = decision.kind
    if kind == "yaku_set":
        return (KIND_YAKU_SET << KIND_SHIFT) | int(action)
    if kind == "opening_claim":
        payload = 0 if action is None else (1 << int(action[0])) | (1 << int(action[1]))
        return (KIND_OPENING_CLAIM << KIND_SHIFT) | payload
    if kind == "bank_six":
        return (KIND_BANK_SIX << KIND_SHIFT) | int(bool(action))
    if kind == "play":
        return (KIND_PLAY << KIND_SHIFT) | int(action)
    if kind == "capture":
        return (KIND_CAPTURE << KIND_SHIFT) | (DECLINE_PAYLOAD if action is None else int(action))
    raise ValueError(f"unknown Tensho decision kind {kind!r}")


def kind_code(kind: str) -> int:
    """The kind code of a reference decision kind."""
    return {"yaku_set": KIND_YAKU_SET, "opening_claim": KIND_OPENING_CLAIM, "bank_six": KIND_BANK_SIX,
            "play": KIND_PLAY, "capture": KIND_CAPTURE}[kind]


def pack_observation(obs: Any, card: int = -1) -> np.ndarray:
    """A ``Observation`` as int64[OBS_SIZE] (slots ``OBS_*``); ``card`` is the card a
    capture decision is about (-1 at every other decision)."""
    out = np.zeros(OBS_SIZE, dtype=np.int64)
    out[OBS_SEAT] = obs.seat
    out[OBS_DEALER] = obs.dealer
    out[OBS_YAKU_SET] = obs.yaku_set
    out[OBS_ROUND_IN_MATCH] = obs.round_in_match
    out[OBS_MATCH_POINTS] = obs.match_points[0]
    out[OBS_MATCH_POINTS + 1] = obs.match_points[1]
    out[OBS_HAND] = obs.hand
    out[OBS_FIELD] = obs.field
    out[OBS_PILES] = obs.piles[0]
    out[OBS_PILES + 1] = obs.piles[1]
    out[OBS_SEEN] = obs.seen
    out[OBS_DRAW_SIZE] = obs.draw_size
    out[OBS_TURN] = obs.turn
    out[OBS_CARD] = card
    return out


def hold_probability(unseen: int, access: int, k: int) -> int:
    """Per mille, rounded down: the chance that ``access`` cards taken at random from ``unseen``
    hidden cards include at least one of ``k`` given ones (0 when there is nothing to draw)."""
    if unseen <= 0 or access <= 0 or k <= 0:
        return 0
    access = min(access, unseen)
    k = min(k, unseen)
    return 1000 - (1000 * comb(unseen - k, access)) // comb(unseen, access)


def heuristic_tables(compiled: Any, spec: Any) -> np.ndarray:
    """The heuristic's tables for one run: int64[T_SIZE] (slots ``T_*``), from the compiled
    rules (``CompiledRules``) and the seat's ``PolicySpec`` (its parameters; defaults filled)."""
    from simcore.games.tensho import enums as E
    from simcore.games.tensho.policies import HEURISTIC_PARAMS

    params = {name: int(spec.params.get(name, default)) for name, (default, _) in HEURISTIC_PARAMS.items()}
    t = np.zeros(T_SIZE, dtype=np.int64)
    c = compiled
    n_yaku = len(c.yaku_mask)
    if n_yaku > 64:
        raise ValueError("the heuristic handles at most 64 yaku")
    t[T_N_YAKU] = n_yaku
    t[T_SIX] = int(c.params[E.P_SIX_CARD])
    t[T_CAPTURE_OPTIONAL] = int(int(c.params[E.P_CAPTURE_MANDATORY]) == 1)
    t[T_HIGHEST_VALUE_FIRST] = int(int(c.params[E.P_DOUBLE_MATCH]) == 1)
    t[T_TRIPLE_ALL] = int(int(c.params[E.P_TRIPLE_MATCH]) == 0)
    rank = [int(r) for r in c.rank]
    deck = 0
    for card, r in enumerate(rank):
        if r > 0:
            deck |= 1 << card
    t[T_DECK] = deck
    t[T_CHAFF] = int(c.chaff_mask)
    t[T_DEAD] = int(c.rules.deal_dead)  # Tensho always deals 6 dead cards and turns 12 of 18 draws
    t[T_UNUSED_DRAW] = 6
    t[T_W_CHAFF] = int(params.get("chaff", 0))
    t[T_W_VALUE] = int(params.get("value", 0))
    t[T_W_RISK] = int(params.get("risk", 0))
    t[T_CLAIM] = int(params.get("claim", 0))
    t[T_YAKU_SET] = int(params.get("yaku_set", 1))
    for side in range(2):
        for cls, name in enumerate(Q_PARAMS[side]):
            t[T_Q + side * N_CLASSES + cls] = int(params.get(name, 0))
        t[T_Q + side * N_CLASSES + CLASS_SIX_IN_HAND] = 1000 if side == 0 else 0
        t[T_Q + side * N_CLASSES + CLASS_SIX_ON_FIELD] = 0
    for card in range(64):
        t[T_RANK + card] = rank[card] if card < len(rank) else 0
        t[T_CARD_VALUE + card] = int(c.card_value[card]) if card < len(c.card_value) else 0
    for r in range(min(16, len(c.rank_mask))):
        t[T_RANK_MASK + r] = int(c.rank_mask[r])
    worth = yaku_worth(compiled, int(params.get("instant", 0)))
    for s in range(2):
        in_set = int(c.yaku_in_set[s])
        t[T_IN_SET + s] = in_set
        t[T_INSTANT + s] = int(c.yaku_instant[s])
        for i in range(n_yaku):
            mask = int(c.yaku_mask[i])
            t[T_YAKU_MASK + i] = mask
            t[T_YAKU_WORTH + s * 64 + i] = worth[s][i]
            if (in_set >> i) & 1:
                for card in range(64):
                    if (mask >> card) & 1:
                        t[T_CARD_YAKU + s * 64 + card] |= 1 << i
    for side in range(2):
        for index in range(625):
            counts = (index // 125, index // 25 % 5, index // 5 % 5, index % 5)
            chance = 1000
            for cls, count in enumerate(counts):
                for _ in range(count):
                    chance = chance * int(t[T_Q + side * N_CLASSES + cls]) // 1000
            t[T_CHANCE + side * 625 + index] = chance
    for unseen in range(HOLD_N):
        for access in range(HOLD_A):
            for k in range(HOLD_K):
                t[T_HOLD + (unseen * HOLD_A + access) * HOLD_K + k] = hold_probability(unseen, access, k)
    return t


def yaku_worth(compiled: Any, instant_points: int) -> list[list[int]]:
    """Per yaku set (``[set - 1][yaku index]``), in tenths of a point, what completing each yaku
    of the set is worth to the heuristic: ``10 * instant_points`` for an instant win, otherwise
    its points less those of the set's yaku it supersedes (never below 0); 0 outside the set."""
    c = compiled
    n_yaku = len(c.yaku_mask)
    out = []
    for s in range(2):
        in_set, instant = int(c.yaku_in_set[s]), int(c.yaku_instant[s])
        row = []
        for i in range(n_yaku):
            if not (in_set >> i) & 1:
                row.append(0)
            elif (instant >> i) & 1:
                row.append(10 * instant_points)
            else:
                cancelled = int(c.supersedes[i]) & in_set & ~instant
                lost = sum(int(c.yaku_points[s][j]) for j in range(n_yaku) if (cancelled >> j) & 1)
                row.append(10 * max(0, int(c.yaku_points[s][i]) - lost))
        out.append(row)
    return out



# --- the decision ------------------------------------------------------------------------------
# Each function mirrors the method of ``HeuristicPolicy`` of the same name; ``t`` is the tables.
# A position is (hand, field, piles) with the covers of hand and field: the union of the rank
# masks of the ranks each holds, from which every card's class follows in a few bit operations.
# A move changes cards of one rank only, so its covers are updated for that rank alone.
# The helpers compiled apart are called with int64 values, never with bare constants: numba
# compiles a called function again for every new combination of constant arguments (and for a
# local still typed as its first constant while type inference runs), each a second or more.


@nb.njit(inline="always", cache=True)
def _cover(mask, t):
    """The cards of every rank ``mask`` holds a card of."""
    cover = np.int64(0)
    for r in range(1, 13):
        same_rank = t[T_RANK_MASK + r]
        if mask & same_rank:
            cover |= same_rank
    return cover


@nb.njit(inline="always", cache=True)
def _recover(cover, mask, same_rank):
    """``_cover(mask)`` from the cover of a mask that differed from ``mask`` in ``same_rank`` only."""
    cover &= ~same_rank
    if mask & same_rank:
        cover |= same_rank
    return cover


@nb.njit(inline="always", cache=True)
def _classes(hand, field, cover_hand, cover_field, t):
    """The cards of a position by class: (hand_match, hand, field_match, field, six_held,
    six_stuck) masks, the first four without the 6 of clubs."""
    six = 1 << t[T_SIX]
    return (hand & cover_field & ~six, hand & ~cover_field & ~six, field & cover_hand & ~six,
            field & ~cover_hand & ~six, hand & six, field & six)


@nb.njit(inline="always", cache=True)
def _outlook_of(side, i, s, q_unseen, own, other, classes, unseen, t):
    """``HeuristicPolicy.outlook_of``: tenths of a point yaku ``i`` is expected to bring ``side``
    (``classes`` from ``_classes``)."""
    mask = t[T_YAKU_MASK + i]
    if mask & other:
        return 0
    missing = mask & ~own
    hand_match, hand_only, field_match, field_only, six_held, six_stuck = classes
    chance = t[T_CHANCE + side * 625 + ((popcount(missing & hand_match) * 5 + popcount(missing & hand_only)) * 5
                                        + popcount(missing & field_match)) * 5 + popcount(missing & field_only)]
    for _ in range(popcount(missing & unseen)):
        chance = chance * q_unseen // 1000
    if missing & six_held:
        chance = chance * t[T_Q + side * N_CLASSES + CLASS_SIX_IN_HAND] // 1000
    elif missing & six_stuck:
        chance = chance * t[T_Q + side * N_CLASSES + CLASS_SIX_ON_FIELD] // 1000
    return t[T_YAKU_WORTH + s * 64 + i] * chance // 1000


@nb.njit(inline="always", cache=True)
def _rank_yaku(rank_cards, s, t):
    """The set's yaku that hold a card of ``rank_cards`` (a mask of one rank's cards)."""
    bits = 0
    while rank_cards:
        card = lowest_id(rank_cards)
        rank_cards &= rank_cards - 1
        bits |= t[T_CARD_YAKU + s * 64 + card]
    return bits


@internal_nb(cache=True, _nrt=False)
def _balance_change(s, q0, q1, opp_pile, unseen, hand0, field0, pile0, cover_hand0, cover_field0,
                    hand1, field1, pile1, cover_hand1, cover_field1, same_rank, t):
    """``balance(after) - balance(before)`` of ``HeuristicPolicy``, summed over the yaku that
    can change: a move changes the place or class of cards of its rank (``same_rank``) in the
    hand or on the field only (an unseen card's class does not depend on the covers), so every
    yaku without such a card has the same outlook before and after."""
    yaku = _rank_yaku(same_rank & (hand0 | field0), s, t)
    before = _classes(hand0, field0, cover_hand0, cover_field0, t)
    after = _classes(hand1, field1, cover_hand1, cover_field1, t)
    total = 0
    while yaku:
        i = lowest_id(yaku)
        yaku &= yaku - 1
        total += _outlook_of(0, i, s, q0, pile1, opp_pile, after, unseen, t)
        total -= _outlook_of(1, i, s, q1, opp_pile, pile1, after, unseen, t)
        total -= _outlook_of(0, i, s, q0, pile0, opp_pile, before, unseen, t)
        total += _outlook_of(1, i, s, q1, opp_pile, pile0, before, unseen, t)
    return total


@internal_nb(cache=True, _nrt=False)
def _offer(card, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen, access, s, q0, q1, t):
    """``HeuristicPolicy.offer``: the expected cost of leaving ``card`` on the field."""
    same_rank = t[T_RANK_MASK + t[T_RANK + card]]
    k = popcount(unseen & same_rank)
    chance = t[T_HOLD + (n_unseen * HOLD_A + access) * HOLD_K + k]
    if chance == 0:
        return 0
    worth = t[T_W_CHAFF] * ((t[T_CHAFF] >> card) & 1) + t[T_W_VALUE] * t[T_CARD_VALUE + card]
    yaku = t[T_CARD_YAKU + s * 64 + card]
    bit = 1 << card
    taken_field = field & ~bit
    now = _classes(hand, field, cover_hand, cover_field, t)
    taken = _classes(hand, taken_field, cover_hand, _recover(cover_field, taken_field, same_rank), t)
    while yaku:
        i = lowest_id(yaku)
        yaku &= yaku - 1
        gained = _outlook_of(1, i, s, q1, opp_pile | bit, pile, taken, unseen, t)
        worth += gained - _outlook_of(1, i, s, q1, opp_pile, pile, now, unseen, t)
        worth += _outlook_of(0, i, s, q0, pile, opp_pile, now, unseen, t)
    return chance * worth // 1000 * t[T_W_RISK] // 1000


@internal_nb(cache=True, _nrt=False)
def _take_gain(card, taken, hand0, field0, pile0, cover_hand0, cover_field0, opp_pile, unseen, n_unseen,
               access, s, q0, q1, t):
    """``HeuristicPolicy.take_gain``: capturing ``card`` (-1: none) with the field cards ``taken``."""
    moved = taken
    if card >= 0:
        moved |= 1 << card
    hand = hand0 & ~moved
    field = field0 & ~taken
    pile = pile0 | moved
    instant = t[T_INSTANT + s]
    while instant:
        i = lowest_id(instant)
        instant &= instant - 1
        mask = t[T_YAKU_MASK + i]
        if mask & pile == mask:
            return WIN_GAIN
    rank_of = t[T_RANK + card] if card >= 0 else t[T_RANK + lowest_id(taken)]
    same_rank = t[T_RANK_MASK + rank_of]
    cover_hand = _recover(cover_hand0, hand, same_rank)
    cover_field = _recover(cover_field0, field, same_rank)
    gain = _balance_change(s, q0, q1, opp_pile, unseen, hand0, field0, pile0, cover_hand0, cover_field0,
                           hand, field, pile, cover_hand, cover_field, same_rank, t)
    gain += t[T_W_CHAFF] * popcount(moved & t[T_CHAFF])
    value = table_sum(moved, t, T_CARD_VALUE)
    gain += t[T_W_VALUE] * value
    if card != t[T_SIX]:
        left = field & same_rank
        while left:
            x = lowest_id(left)
            left &= left - 1
            gain -= _offer(x, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen, access, s,
                           q0, q1, t)
    return gain


@internal_nb(cache=True, _nrt=False)
def _leave_gain(card, hand0, field0, pile, cover_hand0, cover_field0, opp_pile, unseen, n_unseen, access, s,
                q0, q1, t):
    """``HeuristicPolicy.leave_gain``: putting ``card`` from the hand on the field."""
    bit = 1 << card
    hand = hand0 & ~bit
    field = field0 | bit
    same_rank = t[T_RANK_MASK + t[T_RANK + card]]
    cover_hand = _recover(cover_hand0, hand, same_rank)
    cover_field = _recover(cover_field0, field, same_rank)
    gain = _balance_change(s, q0, q1, opp_pile, unseen, hand0, field0, pile, cover_hand0, cover_field0,
                           hand, field, pile, cover_hand, cover_field, same_rank, t)
    return gain - _offer(card, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen, access,
                         s, q0, q1, t)


@internal_nb(cache=True, _nrt=False)
def _play_gain(card, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen, access, s, q0, q1,
               t):
    """``HeuristicPolicy.play_gain``: the best resolution of playing ``card``."""
    if card == t[T_SIX]:
        return _take_gain(card, np.int64(0), hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen,
                          access, s, q0, q1, t)
    matches = field & t[T_RANK_MASK + t[T_RANK + card]]
    n = popcount(matches)
    if n == 0:
        return _leave_gain(card, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen, access,
                           s, q0, q1, t)
    if n == 2 and t[T_HIGHEST_VALUE_FIRST]:
        best_card, best_value = -1, -1
        rest = matches
        while rest:
            x = lowest_id(rest)
            rest &= rest - 1
            if t[T_CARD_VALUE + x] > best_value:
                best_card, best_value = x, t[T_CARD_VALUE + x]
        best = _take_gain(card, 1 << best_card, hand, field, pile, cover_hand, cover_field, opp_pile, unseen,
                          n_unseen, access, s, q0, q1, t)
    elif n >= 3 and t[T_TRIPLE_ALL]:
        best = _take_gain(card, matches, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen,
                          access, s, q0, q1, t)
    else:
        best = -WIN_GAIN * 4
        rest = matches
        while rest:
            x = lowest_id(rest)
            rest &= rest - 1
            g = _take_gain(card, 1 << x, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen,
                           access, s, q0, q1, t)
            if g > best:
                best = g
    if t[T_CAPTURE_OPTIONAL]:
        g = _leave_gain(card, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen, access, s,
                        q0, q1, t)
        if g > best:
            best = g
    return best


@nb.njit(inline="always", cache=True)
def decision_view(kind, obs, t):
    """What the heuristic (and the learned player's features) reads of a decision of ``kind`` from
    the seat's observation ``obs`` int64[OBS_SIZE] and ``tables`` ``t``: the card being placed
    (-1: none), the hand with that card, the field, the seat's and the opponent's piles, the unseen
    cards and their count, the draw pile's size, how many unseen cards the opponent can reach, the
    yaku set's index, the chance weights of an unseen card (``q0``, ``q1``) and the cover of the
    hand and the field."""
    card = obs[OBS_CARD] if kind == KIND_CAPTURE else -1
    hand = obs[OBS_HAND]
    if card >= 0:
        hand |= np.int64(1) << card
    field = obs[OBS_FIELD]
    seat = obs[OBS_SEAT]
    pile = obs[OBS_PILES + seat]
    opp_pile = obs[OBS_PILES + 1 - seat]
    unseen = t[T_DECK] & ~(hand | field | pile | opp_pile)
    n_unseen = popcount(unseen)
    draw_size = obs[OBS_DRAW_SIZE]
    opp_hand = max(0, n_unseen - draw_size - t[T_DEAD])
    still_played = opp_hand + max(0, draw_size - t[T_UNUSED_DRAW])
    live = 1000 * still_played // n_unseen if n_unseen else 0
    access = min(opp_hand + 1, n_unseen, HOLD_A - 1)
    s = max(obs[OBS_YAKU_SET], 1) - 1
    q0 = t[T_Q + CLASS_UNSEEN] * live // 1000
    q1 = t[T_Q + N_CLASSES + CLASS_UNSEEN] * live // 1000
    return (card, hand, field, pile, opp_pile, unseen, n_unseen, draw_size, access, s, q0, q1, _cover(hand, t),
            _cover(field, t))


@internal_nb(cache=True, _nrt=False)
def heuristic_choose_nb(kind, obs, keys, n, tables):
    """The index in ``keys[:n]`` of the heuristic's action (module docstring: the contract).

    ``kind`` int (``KIND_*``), ``obs`` int64[OBS_SIZE], ``keys`` int64[>= n], ``tables``
    int64[T_SIZE]; returns an int in ``0 .. n - 1``.
    """
    t = tables
    if n <= 1:
        return 0
    if kind == KIND_YAKU_SET or kind == KIND_BANK_SIX:
        wanted = t[T_YAKU_SET] if kind == KIND_YAKU_SET else 0  # it never banks the 6 of clubs
        for j in range(n):
            if keys[j] & PAYLOAD_MASK == wanted:
                return j
        return 0
    (card, hand, field, pile, opp_pile, unseen, n_unseen, draw_size, access, s, q0, q1, cover_hand,
     cover_field) = decision_view(kind, obs, t)
    best_index = 0
    if kind == KIND_PLAY:
        best = 0
        for j in range(n):
            g = _play_gain(keys[j] & PAYLOAD_MASK, hand, field, pile, cover_hand, cover_field, opp_pile, unseen,
                           n_unseen, access, s, q0, q1, t)
            if j == 0 or g > best:
                best_index, best = j, g
        return best_index
    if kind == KIND_CAPTURE:
        best = 0
        found = False
        decline = -1
        for j in range(n):
            payload = keys[j] & PAYLOAD_MASK
            if payload == DECLINE_PAYLOAD:
                decline = j
                continue
            g = _take_gain(card, payload, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen,
                           access, s, q0, q1, t)
            if not found or g > best:
                best_index, best, found = j, g, True
        if decline >= 0:
            if not found or _leave_gain(card, hand, field, pile, cover_hand, cover_field, opp_pile, unseen,
                                        n_unseen, access, s, q0, q1, t) > best:
                return decline
        return best_index
    # KIND_OPENING_CLAIM: keys are "decline" (payload 0) and the pairs
    best = 0
    found = False
    decline = 0
    for j in range(n):
        payload = keys[j] & PAYLOAD_MASK
        if payload == 0:
            decline = j
            continue
        g = _take_gain(np.int64(-1), payload, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen, access,
                       s, q0, q1, t)
        if not found or g > best:
            best_index, best, found = j, g, True
    if found and best >= t[T_CLAIM]:
        return best_index
    return decline
