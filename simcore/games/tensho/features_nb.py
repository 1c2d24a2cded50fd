"""Numba twin of Tensho's learned-player features (``simcore.games.tensho.learned``).

``features_nb(kind, obs, keys, n, t, out)`` writes into ``out[i]`` (int64[>= n + 1, N_FEATURES];
the row after the last is scratch) the features of action ``i`` of ``keys[:n]`` at a decision of
``kind``, from the deciding seat's packed observation ``obs`` (``heuristic_nb``'s layout) and the
heuristic's tables ``t`` at its default weights (``heuristic_nb.heuristic_tables``). Every
number is computed with the heuristic's own functions and the same integer operations as the
Python twin, so both give the same rows. It draws nothing and allocates nothing.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.games.tensho.heuristic_nb import (
    DECLINE_PAYLOAD,
    KIND_BANK_SIX,
    KIND_CAPTURE,
    KIND_OPENING_CLAIM,
    KIND_PLAY,
    KIND_YAKU_SET,
    OBS_DEALER,
    OBS_FIELD,
    OBS_HAND,
    OBS_PILES,
    OBS_SEAT,
    OBS_YAKU_SET,
    PAYLOAD_MASK,
    T_CAPTURE_OPTIONAL,
    T_CARD_VALUE,
    T_CHAFF,
    T_CLAIM,
    T_HIGHEST_VALUE_FIRST,
    T_IN_SET,
    T_INSTANT,
    T_N_YAKU,
    T_RANK,
    T_RANK_MASK,
    T_SIX,
    T_TRIPLE_ALL,
    T_W_CHAFF,
    T_W_VALUE,
    T_YAKU_MASK,
    T_YAKU_SET,
    T_YAKU_WORTH,
    _classes,
    _offer,
    _outlook_of,
    _rank_yaku,
    _recover,
    decision_view,
)
from simcore.kernels.bits import lowest_id, popcount, table_sum
from simcore.kernels.internal import internal_nb
from simcore.kernels.learned_nb import clear_rows_nb, copy_row_nb

__all__ = ["N_FEATURES", "features_nb"]

N_FEATURES = 22
F_HEURISTIC, F_WIN, F_OWN, F_THEIRS, F_CHAFF, F_VALUE, F_OFFER, F_LEAVE, F_POINTS = range(9)
F_OWN_LATE, F_THEIRS_LATE, F_OFFER_LATE, F_CHAFF_EVEN, F_VALUE_EVEN = range(9, 14)
F_POSITION = 14  # the position's own features, the same for every action (``position_nb``)
LATE_FROM = 6
LATE_SPAN = 12
WIN_GAIN = np.int64(1) << np.int64(40)
WIN = 1 << 20  # the ``win`` feature of a capture that completes an instant-win yaku


@internal_nb(cache=True, _nrt=False)
def _done_worth(s, pile, t):
    """Tenths of a point: the worth of the set's non-instant yaku complete in ``pile``."""
    total = np.int64(0)
    rest = t[T_IN_SET + s] & ~t[T_INSTANT + s]
    while rest:
        i = lowest_id(rest)
        rest &= rest - 1
        mask = t[T_YAKU_MASK + i]
        if mask & pile == mask:
            total += t[T_YAKU_WORTH + s * 64 + i]
    return total


@internal_nb(cache=True, _nrt=False)
def _parts(s, q0, q1, opp_pile, unseen, hand0, field0, pile0, cover_hand0, cover_field0, hand1, field1, pile1,
           cover_hand1, cover_field1, same_rank, t):
    """The change of the deciding seat's and of the opponent's summed outlooks (the two halves
    of ``heuristic_nb._balance_change``)."""
    yaku = _rank_yaku(same_rank & (hand0 | field0), s, t)
    before = _classes(hand0, field0, cover_hand0, cover_field0, t)
    after = _classes(hand1, field1, cover_hand1, cover_field1, t)
    own = np.int64(0)
    theirs = np.int64(0)
    while yaku:
        i = lowest_id(yaku)
        yaku &= yaku - 1
        own += _outlook_of(0, i, s, q0, pile1, opp_pile, after, unseen, t)
        own -= _outlook_of(0, i, s, q0, pile0, opp_pile, before, unseen, t)
        theirs += _outlook_of(1, i, s, q1, opp_pile, pile1, after, unseen, t)
        theirs -= _outlook_of(1, i, s, q1, opp_pile, pile0, before, unseen, t)
    return own, theirs


@nb.njit(inline="always", cache=True)
def _evens(s, pile, opp_pile, t):
    """Whether both piles' completed yaku are worth the same, and whether they also hold as many
    chaff cards (the same for every action of a decision): 0, 1 or 2."""
    if _done_worth(s, pile, t) != _done_worth(s, opp_pile, t):
        return 0
    return 2 if popcount(pile & t[T_CHAFF]) == popcount(opp_pile & t[T_CHAFF]) else 1


@internal_nb(cache=True, _nrt=False)
def _finish(out, row, evens, draw_size):
    late = max(draw_size - LATE_FROM, 0)
    out[row, F_OWN_LATE] = out[row, F_OWN] * late // LATE_SPAN
    out[row, F_THEIRS_LATE] = out[row, F_THEIRS] * late // LATE_SPAN
    out[row, F_OFFER_LATE] = out[row, F_OFFER] * late // LATE_SPAN
    if evens >= 1:
        out[row, F_CHAFF_EVEN] = out[row, F_CHAFF]
    if evens == 2:
        out[row, F_VALUE_EVEN] = out[row, F_VALUE]


@internal_nb(cache=True, _nrt=False)
def _take(out, row, card, taken, hand0, field0, pile0, cover_hand0, cover_field0, opp_pile, unseen, n_unseen,
          access, s, q0, q1, draw_size, done0, evens, t):
    """``learned._take`` into ``out[row]``; returns the heuristic's gain."""
    clear_rows_nb(out, row, row + 1)
    moved = taken
    if card >= 0:
        moved |= np.int64(1) << card
    hand = hand0 & ~moved
    field = field0 & ~taken
    pile = pile0 | moved
    instant = t[T_INSTANT + s]
    while instant:
        i = lowest_id(instant)
        instant &= instant - 1
        mask = t[T_YAKU_MASK + i]
        if mask & pile == mask:
            out[row, F_WIN] = WIN
            return WIN_GAIN
    rank_of = t[T_RANK + card] if card >= 0 else t[T_RANK + lowest_id(taken)]
    same_rank = t[T_RANK_MASK + rank_of]
    cover_hand = _recover(cover_hand0, hand, same_rank)
    cover_field = _recover(cover_field0, field, same_rank)
    own, theirs = _parts(s, q0, q1, opp_pile, unseen, hand0, field0, pile0, cover_hand0, cover_field0, hand, field,
                         pile, cover_hand, cover_field, same_rank, t)
    chaff = popcount(moved & t[T_CHAFF])
    value = table_sum(moved, t, T_CARD_VALUE)
    offer = np.int64(0)
    if card != t[T_SIX]:
        left = field & same_rank
        while left:
            x = lowest_id(left)
            left &= left - 1
            offer += _offer(x, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen, access, s, q0,
                            q1, t)
    out[row, F_OWN] = own
    out[row, F_THEIRS] = theirs
    out[row, F_CHAFF] = chaff
    out[row, F_VALUE] = value
    out[row, F_OFFER] = offer
    out[row, F_POINTS] = _done_worth(s, pile, t) - done0
    _finish(out, row, evens, draw_size)
    return own - theirs + t[T_W_CHAFF] * chaff + t[T_W_VALUE] * value - offer


@internal_nb(cache=True, _nrt=False)
def _leave(out, row, card, hand0, field0, pile, cover_hand0, cover_field0, opp_pile, unseen, n_unseen, access, s,
           q0, q1, draw_size, done0, evens, t):
    """``learned._leave`` into ``out[row]``; returns the heuristic's gain."""
    clear_rows_nb(out, row, row + 1)
    bit = np.int64(1) << card
    hand = hand0 & ~bit
    field = field0 | bit
    same_rank = t[T_RANK_MASK + t[T_RANK + card]]
    cover_hand = _recover(cover_hand0, hand, same_rank)
    cover_field = _recover(cover_field0, field, same_rank)
    own, theirs = _parts(s, q0, q1, opp_pile, unseen, hand0, field0, pile, cover_hand0, cover_field0, hand, field,
                         pile, cover_hand, cover_field, same_rank, t)
    offer = _offer(card, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen, access, s, q0, q1, t)
    out[row, F_OWN] = own
    out[row, F_THEIRS] = theirs
    out[row, F_OFFER] = offer
    out[row, F_LEAVE] = 1
    _finish(out, row, evens, draw_size)
    return own - theirs - offer


@internal_nb(cache=True, _nrt=False)
def _play(out, row, scratch, card, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen, access,
          s, q0, q1, draw_size, done0, evens, t):
    """``learned._play`` into ``out[row]`` (``scratch``: a spare row); returns the gain."""
    if card == t[T_SIX]:
        return _take(out, row, card, np.int64(0), hand, field, pile, cover_hand, cover_field, opp_pile, unseen,
                     n_unseen, access, s, q0, q1, draw_size, done0, evens, t)
    matches = field & t[T_RANK_MASK + t[T_RANK + card]]
    n = popcount(matches)
    if n == 0:
        return _leave(out, row, card, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen,
                      access, s, q0, q1, draw_size, done0, evens, t)
    if n == 2 and t[T_HIGHEST_VALUE_FIRST]:
        best_card, best_value = -1, -1
        rest = matches
        while rest:
            x = lowest_id(rest)
            rest &= rest - 1
            if t[T_CARD_VALUE + x] > best_value:
                best_card, best_value = x, t[T_CARD_VALUE + x]
        best = _take(out, row, card, np.int64(1) << best_card, hand, field, pile, cover_hand, cover_field, opp_pile,
                     unseen, n_unseen, access, s, q0, q1, draw_size, done0, evens, t)
    elif n >= 3 and t[T_TRIPLE_ALL]:
        best = _take(out, row, card, matches, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen,
                     access, s, q0, q1, draw_size, done0, evens, t)
    else:
        first = True
        best = np.int64(0)
        rest = matches
        while rest:
            x = lowest_id(rest)
            rest &= rest - 1
            g = _take(out, scratch, card, np.int64(1) << x, hand, field, pile, cover_hand, cover_field, opp_pile,
                      unseen, n_unseen, access, s, q0, q1, draw_size, done0, evens, t)
            if first or g > best:
                best = g
                first = False
                copy_row_nb(out, scratch, row)
    if t[T_CAPTURE_OPTIONAL]:
        g = _leave(out, scratch, card, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen, access,
                   s, q0, q1, draw_size, done0, evens, t)
        if g > best:
            best = g
            copy_row_nb(out, scratch, row)
    return best


@internal_nb(cache=True, _nrt=False)
def features_nb(kind, obs, keys, n, t, out):
    """The features of every action ``keys[:n]`` of a decision of ``kind`` into ``out[:n]``
    (module docstring): the action's own, then the position's (``position_nb``)."""
    option_features_nb(kind, obs, keys, n, t, out)
    position_nb(obs, n, t, out)


@nb.njit(inline="always", cache=True)
def made_nb(pile, s, t):
    """What the yaku of set ``s`` complete in ``pile`` are worth to the heuristic (tenths of a point)."""
    total = np.int64(0)
    for i in range(t[T_N_YAKU]):
        mask = t[T_YAKU_MASK + i]
        if (t[T_IN_SET + s] >> i) & 1 and pile & mask == mask:
            total += t[T_YAKU_WORTH + s * 64 + i]
    return total


@internal_nb(cache=True, _nrt=False)
def position_nb(obs, n, t, out):
    """The position's features into columns ``F_POSITION ..`` of ``out[:n]``: what the yaku
    already in the seat's pile and in the opponent's are worth, the difference, both piles'
    sizes, the hand's and the field's, and whether the seat deals (``learned._position``)."""
    seat = obs[OBS_SEAT]
    s = max(obs[OBS_YAKU_SET], 1) - 1
    pile = obs[OBS_PILES + seat]
    opp_pile = obs[OBS_PILES + 1 - seat]
    mine = made_nb(pile, s, t)
    theirs = made_nb(opp_pile, s, t)
    dealer = np.int64(1) if obs[OBS_DEALER] == seat else np.int64(0)
    for i in range(n):
        out[i, F_POSITION] = mine
        out[i, F_POSITION + 1] = theirs
        out[i, F_POSITION + 2] = mine - theirs
        out[i, F_POSITION + 3] = popcount(pile)
        out[i, F_POSITION + 4] = popcount(opp_pile)
        out[i, F_POSITION + 5] = popcount(obs[OBS_HAND])
        out[i, F_POSITION + 6] = popcount(obs[OBS_FIELD])
        out[i, F_POSITION + 7] = dealer


@internal_nb(cache=True, _nrt=False)
def option_features_nb(kind, obs, keys, n, t, out):
    """Every action's own features into ``out[:n]`` (the columns before ``F_POSITION``)."""
    scratch = n
    clear_rows_nb(out, np.int64(0), n)  # np.int64, not a literal 0: the same compiled version as the calls for one row
    if kind == KIND_YAKU_SET or kind == KIND_BANK_SIX:
        wanted = t[T_YAKU_SET] if kind == KIND_YAKU_SET else 0
        for j in range(n):
            if keys[j] & PAYLOAD_MASK == wanted:
                out[j, F_HEURISTIC] = 1
                break
        return
    (card, hand, field, pile, opp_pile, unseen, n_unseen, draw_size, access, s, q0, q1, cover_hand,
     cover_field) = decision_view(kind, obs, t)
    done0 = _done_worth(s, pile, t)
    evens = _evens(s, pile, opp_pile, t)
    pick = -1
    if kind == KIND_PLAY:
        best = np.int64(0)
        for j in range(n):
            g = _play(out, j, scratch, keys[j] & PAYLOAD_MASK, hand, field, pile, cover_hand, cover_field, opp_pile,
                      unseen, n_unseen, access, s, q0, q1, draw_size, done0, evens, t)
            if j == 0 or g > best:
                pick, best = j, g
    elif kind == KIND_CAPTURE:
        best = np.int64(0)
        decline = -1
        decline_gain = np.int64(0)
        for j in range(n):
            payload = keys[j] & PAYLOAD_MASK
            if payload == DECLINE_PAYLOAD:
                decline = j
                decline_gain = _leave(out, j, card, hand, field, pile, cover_hand, cover_field, opp_pile, unseen,
                                      n_unseen, access, s, q0, q1, draw_size, done0, evens, t)
                continue
            g = _take(out, j, card, payload, hand, field, pile, cover_hand, cover_field, opp_pile, unseen, n_unseen,
                      access, s, q0, q1, draw_size, done0, evens, t)
            if pick < 0 or g > best:
                pick, best = j, g
        if decline >= 0 and (pick < 0 or decline_gain > best):
            pick = decline
    elif kind == KIND_OPENING_CLAIM:
        best = np.int64(0)
        decline = 0
        for j in range(n):
            payload = keys[j] & PAYLOAD_MASK
            if payload == 0:
                decline = j
                continue
            g = _take(out, j, np.int64(-1), payload, hand, field, pile, cover_hand, cover_field, opp_pile, unseen,
                      n_unseen, access, s, q0, q1, draw_size, done0, evens, t)
            if pick < 0 or g > best:
                pick, best = j, g
        if pick < 0 or best < t[T_CLAIM]:
            pick = decline
    if pick >= 0:
        out[pick, F_HEURISTIC] = 1
