"""Numba twin of Enshu-bana's learned-player features (``simcore.games.enshu.learned``).

``features_nb(kind, obs, keys, n, t, out)`` writes into ``out[i]`` (int64[>= n, N_FEATURES]) the
features of action ``i`` of ``keys[:n]`` at a decision of ``kind``, from the deciding seat's
packed observation ``obs`` (``heuristic_nb``'s layout) and the heuristic's tables ``t`` at its
default weights (``heuristic_nb.heuristic_tables``). It uses the heuristic's own functions and
the same integer operations as the Python twin, so both give the same rows; it draws nothing
and allocates nothing.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.games.enshu import enums as E
from simcore.games.enshu.heuristic_nb import (
    KIND_DECLARE_TEYAKU,
    KIND_FUKE,
    KIND_JOIN,
    KIND_KOTSU,
    KIND_MIZU_KOTSU,
    KIND_PLAY,
    OBS_ACTIVE,
    OBS_DRAW_SIZE,
    OBS_DROPOUT_PASS,
    OBS_FIELD,
    OBS_HAND,
    OBS_KOTSU,
    OBS_PILES,
    OBS_PLAYERS,
    OBS_SCORES,
    OBS_SEAT,
    OBS_WINNER,
    PAYLOAD_MASK,
    T_CAPTURE_ALL,
    T_CARD_POINTS,
    T_CARD_WEIGHT,
    T_DENY_WEIGHT,
    T_JOIN_STEP,
    T_JOIN_STRENGTH,
    T_KOTSU_STRENGTH,
    T_MONTH,
    T_MONTH_MASK,
    T_N_YAKU,
    T_SAFE_DELAY,
    T_TEYAKU_B_MIN,
    T_TEYAKU_GROUP,
    T_TEYAKU_VALUE,
    T_VARIANT,
    T_YAKU_MASK,
    T_YAKU_WEIGHT,
    T_YAKU_WORTH,
    _offer,
    _prob,
    _safe,
    _strength,
    _yaku_of,
    card_points_nb,
    decision_view,
)
from simcore.kernels.bits import lowest_id, popcount
from simcore.kernels.internal import internal_nb
from simcore.kernels.learned_nb import clear_rows_nb, copy_row_nb

__all__ = ["N_FEATURES", "features_nb"]

(F_HEURISTIC, F_YES, F_STRENGTH, F_PASS, F_KOTSU_SEEN, F_TEYAKU, F_CARDS, F_OWN, F_DENY, F_OFFER, F_LEAVE, F_SAFE,
 F_SAFE_OWN, F_OWN_LATE, F_DENY_LATE, F_OFFER_LATE) = range(16)
# The position after a card is played or a capture chosen (``learned``'s docstring): per yaku
# slot, the cards of the yaku in each place, then the capture and the card's month.
F_POSITION = 16
POSITION_YAKU = 12  # yaku slots
Y_MINE, Y_OPPONENTS, Y_OPPONENT_MOST, Y_FIELD, Y_HAND, Y_UNSEEN = range(6)
PER_YAKU = 6
F_AFTER = F_POSITION + POSITION_YAKU * PER_YAKU
(A_CAPTURED_POINTS, A_MATCHES, A_LEAVES, A_DRAW, A_HAND, A_FIELD, A_MONTH_UNSEEN, A_MONTH_HAND, A_MONTH_FIELD, A_CARD,
 A_MONTH) = range(F_AFTER, F_AFTER + 11)
N_FEATURES = F_AFTER + 11
LATE_SPAN = 24
MAX_FEATURE = (1 << 31) - 1


@nb.njit(inline="always", cache=True)
def _clamp(x):
    return max(-MAX_FEATURE, min(MAX_FEATURE, x))


@internal_nb(cache=True, _nrt=False)
def _finish(out, row, draw_size):
    stage = min(draw_size, LATE_SPAN)
    out[row, F_OWN_LATE] = out[row, F_OWN] * stage // LATE_SPAN
    out[row, F_DENY_LATE] = out[row, F_DENY] * stage // LATE_SPAN
    out[row, F_OFFER_LATE] = out[row, F_OFFER] * stage // LATE_SPAN
    for f in range(N_FEATURES):
        out[row, f] = _clamp(out[row, f])


@internal_nb(cache=True, _nrt=False)
def _capture(out, row, captured, left, field, hand, safe, obs, t, me, pile_me, all_piles, unknown, opp_exposed,
             unseen_chance, risks):
    """``learned._capture`` into ``out[row]``; returns the heuristic's value."""
    clear_rows_nb(out, row, row + 1)
    pile = pile_me
    cards = card_points_nb(captured, t)
    g = cards * 10 * t[T_CARD_WEIGHT]
    own = np.int64(0)
    deny = np.int64(0)
    ys = _yaku_of(captured, t)
    while ys:
        y = lowest_id(ys)
        ys &= ys - 1
        mask = t[T_YAKU_MASK + y]
        if mask & pile == mask:
            continue
        worth = t[T_YAKU_WORTH + y]
        before = _prob(me, mask, pile, field, hand, obs, t, me, all_piles, unknown, unseen_chance)
        after = _prob(me, mask, pile | captured, field, hand, obs, t, me, all_piles, unknown, unseen_chance)
        own += worth * (after - before)
        g += worth * (after - before) * t[T_YAKU_WEIGHT] // 100
        for o in range(obs[OBS_PLAYERS]):
            if o == me or not obs[OBS_ACTIVE + o]:
                continue
            opile = obs[OBS_PILES + o]
            if mask & opile == mask:
                continue
            p = _prob(o, mask, opile, field, hand, obs, t, me, all_piles, unknown, unseen_chance)
            deny += worth * p
            g += worth * p * t[T_DENY_WEIGHT] // 100
    if safe:
        g = g * t[T_SAFE_DELAY] // 1000
    after_field = field & ~captured
    offer = np.int64(0)
    while left:
        x = lowest_id(left)
        left &= left - 1
        offer += _offer(x, after_field, hand, obs, t, me, pile_me, all_piles, unknown, opp_exposed, unseen_chance,
                        risks)
    out[row, F_CARDS] = cards
    out[row, F_OWN] = own
    out[row, F_DENY] = deny
    out[row, F_OFFER] = offer
    if safe:
        out[row, F_SAFE] = 1
        out[row, F_SAFE_OWN] = own
    _finish(out, row, obs[OBS_DRAW_SIZE])
    return g - offer


@internal_nb(cache=True, _nrt=False)
def _play(out, row, scratch, card, obs, t, me, pile_me, all_piles, unknown, opp_exposed, unseen_chance, risks):
    """``learned._play`` into ``out[row]`` (``scratch``: a spare row); returns the value."""
    field = obs[OBS_FIELD]
    hand = obs[OBS_HAND]
    b = np.int64(1) << card
    month = t[T_MONTH + card]
    matches = field & t[T_MONTH_MASK + month]
    k = popcount(matches)
    if k == 0:
        clear_rows_nb(out, row, row + 1)
        offer = _offer(card, field | b, hand & ~b, obs, t, me, pile_me, all_piles, unknown, opp_exposed,
                       unseen_chance, risks)
        out[row, F_OFFER] = offer
        out[row, F_LEAVE] = 1
        _finish(out, row, obs[OBS_DRAW_SIZE])
        return -offer
    safe = _safe(month, t, unknown, opp_exposed)
    if k == 1 or (k == 3 and t[T_CAPTURE_ALL]):
        return _capture(out, row, b | matches, np.int64(0), field, hand, safe, obs, t, me, pile_me, all_piles,
                        unknown, opp_exposed, unseen_chance, risks)
    best = np.int64(0)
    first = True
    rest = matches
    while rest:
        x = lowest_id(rest)
        rest &= rest - 1
        xb = np.int64(1) << x
        v = _capture(out, scratch, b | xb, matches & ~xb, field, hand & ~b, safe, obs, t, me, pile_me, all_piles,
                     unknown, opp_exposed, unseen_chance, risks)
        if first or v > best:
            best = v
            first = False
            copy_row_nb(out, scratch, row)
    return best


@internal_nb(cache=True, _nrt=False)
def _yes_row(out, row, obs, t):
    out[row, F_YES] = 1
    out[row, F_STRENGTH] = _clamp(_strength(obs, t))
    out[row, F_PASS] = obs[OBS_DROPOUT_PASS]
    seen = np.int64(0)
    for s in range(obs[OBS_PLAYERS]):
        if s != obs[OBS_SEAT] and obs[OBS_KOTSU + s]:
            seen += 1
    out[row, F_KOTSU_SEEN] = seen


@internal_nb(cache=True, _nrt=False)
def _position(out, row, kind, payload, obs, t, me, card, pile_me, unknown):
    """The position features of action ``row`` (``payload``: the card played, or the capture's
    cards): the capture a play makes (every match where it takes all, else the match of most
    points, the lowest id on a tie) and the places of every yaku's cards after it."""
    field = obs[OBS_FIELD]
    hand = obs[OBS_HAND]
    if kind == KIND_PLAY:
        card = payload
    cb = np.int64(1) << card
    month_mask = t[T_MONTH_MASK + t[T_MONTH + card]]
    matches = field & month_mask
    k = popcount(matches)
    leaves = 0
    if kind == KIND_PLAY:
        hand &= ~cb
        if k == 0:
            captured = np.int64(0)
            leaves = 1
        elif k == 1 or (k == 3 and t[T_CAPTURE_ALL] == 1):
            captured = cb | matches
        else:
            best = -1
            rest = matches
            while rest:
                x = lowest_id(rest)
                rest &= rest - 1
                if best < 0 or t[T_CARD_POINTS + x] > t[T_CARD_POINTS + best]:
                    best = x
            captured = cb | (np.int64(1) << best)
    else:
        captured = payload | cb
    pile = pile_me | captured
    field_after = field & ~captured
    if leaves:
        field_after |= cb
    opponents = np.int64(0)
    for s in range(obs[OBS_PLAYERS]):
        if s != me:
            opponents |= obs[OBS_PILES + s]
    for y in range(min(t[T_N_YAKU], POSITION_YAKU)):
        mask = t[T_YAKU_MASK + y]
        at = F_POSITION + y * PER_YAKU
        most = 0
        for s in range(obs[OBS_PLAYERS]):
            if s != me:
                most = max(most, popcount(obs[OBS_PILES + s] & mask))
        out[row, at + Y_MINE] = popcount(pile & mask)
        out[row, at + Y_OPPONENTS] = popcount(opponents & mask)
        out[row, at + Y_OPPONENT_MOST] = most
        out[row, at + Y_FIELD] = popcount(field_after & mask)
        out[row, at + Y_HAND] = popcount(hand & mask)
        out[row, at + Y_UNSEEN] = popcount(unknown & mask)
    out[row, A_CAPTURED_POINTS] = card_points_nb(captured, t)
    out[row, A_MATCHES] = k
    out[row, A_LEAVES] = leaves
    out[row, A_DRAW] = obs[OBS_DRAW_SIZE]
    out[row, A_HAND] = popcount(hand)
    out[row, A_FIELD] = popcount(field_after)
    out[row, A_MONTH_UNSEEN] = popcount(unknown & month_mask)
    out[row, A_MONTH_HAND] = popcount(hand & month_mask)
    out[row, A_MONTH_FIELD] = popcount(field_after & month_mask)
    out[row, A_CARD] = card
    out[row, A_MONTH] = t[T_MONTH + card]


@internal_nb(cache=True, _nrt=False)
def features_nb(kind, obs, keys, n, t, out):
    """The features of every action ``keys[:n]`` of a decision of ``kind`` into ``out[:n]``
    (module docstring)."""
    scratch = n
    clear_rows_nb(out, np.int64(0), n)  # np.int64, not a literal 0: the same compiled version as the calls for one row
    if kind == KIND_MIZU_KOTSU or kind == KIND_KOTSU or kind == KIND_JOIN or kind == KIND_FUKE:
        _yes_row(out, 1, obs, t)
        if kind == KIND_MIZU_KOTSU:
            yes = False
        elif kind == KIND_KOTSU:
            yes = _strength(obs, t) >= t[T_KOTSU_STRENGTH]
        elif kind == KIND_JOIN:
            yes = _strength(obs, t) >= t[T_JOIN_STRENGTH] + t[T_JOIN_STEP] * (max(obs[OBS_DROPOUT_PASS], 1) - 1)
        else:
            winner = obs[OBS_WINNER]
            yes = winner != obs[OBS_SEAT] and winner >= 0 and obs[OBS_SCORES + winner] > 0
        out[1 if yes else 0, F_HEURISTIC] = 1
        return
    if kind == KIND_DECLARE_TEYAKU:
        best = -1
        best_value = np.int64(0)
        decline = n - 1
        for i in range(n):
            payload = keys[i] & PAYLOAD_MASK
            if payload == 0:
                decline = i
                continue
            value = t[T_TEYAKU_VALUE + (payload & 0xFF) - 1]
            out[i, F_TEYAKU] = _clamp(value)
            if best < 0 or value > best_value:
                best = i
                best_value = value
        pick = best
        if best < 0:
            pick = decline
        elif (t[T_TEYAKU_GROUP + (keys[best] & 0xFF) - 1] == 1 and t[T_VARIANT] == E.VARIANT_C
              and best_value < t[T_TEYAKU_B_MIN]):
            pick = decline
        out[pick, F_HEURISTIC] = 1
        return
    me, card, pile_me, all_piles, unknown, opp_exposed, unseen_chance, risks = decision_view(kind, obs, t)
    pick = 0
    top = np.int64(0)
    if kind == KIND_PLAY:
        for i in range(n):
            v = _play(out, i, scratch, keys[i] & PAYLOAD_MASK, obs, t, me, pile_me, all_piles, unknown, opp_exposed,
                      unseen_chance, risks)
            _position(out, i, kind, keys[i] & PAYLOAD_MASK, obs, t, me, card, pile_me, unknown)
            if i == 0 or v > top:
                pick, top = i, v
    else:
        matches = np.int64(0)
        for i in range(n):
            matches |= keys[i] & PAYLOAD_MASK
        safe = _safe(t[T_MONTH + card], t, unknown, opp_exposed)
        for i in range(n):
            option = keys[i] & PAYLOAD_MASK
            v = _capture(out, i, option, matches & ~option, obs[OBS_FIELD], obs[OBS_HAND], safe, obs, t, me, pile_me,
                         all_piles, unknown, opp_exposed, unseen_chance, risks)
            _position(out, i, kind, option, obs, t, me, card, pile_me, unknown)
            if i == 0 or v > top:
                pick, top = i, v
    out[pick, F_HEURISTIC] = 1
