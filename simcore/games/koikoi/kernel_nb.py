"""The fast koi-koi kernel: whole units (rounds or matches) of random and greedy seats, each round
a hand-written loop over local card masks.

Contract
--------
``play_units_nb(seed, first_unit, lo, hi, rounds_per_match, stride, greedy, rt, out_int,
out_mask)`` has the contract of the general kernel (``simcore.kernels.units_nb.play_units_nb``:
units ``first_unit + lo .. first_unit + hi - 1`` into rows ``lo * stride ..`` of the output
matrices, ``nogil``) for seats that play random (``greedy[seat] == 0``) or greedy (``1``);
``rt`` is the state machine's rule table (``state_nb.rule_table``). It writes the rows the
general kernel writes over ``state_nb`` and the reference engine writes, and consumes the random
streams (``simcore.rng``) in the same order: the deal stream for the shuffle and every redeal,
seat ``s``'s stream for each of its random choices (none for a forced one).

What makes it fast: the round lives in local variables (the seat to move and the other, swapped
every turn) instead of a state array; a choice costs one draw and
no list of legal actions; the yaku of a pile are computed only when the pile has grown (a turn
that captures nothing cannot make a yaku); nothing is allocated per round, and the round is
compiled without numba's reference counting (``_nrt=False``).

This module imports only numpy, numba and the kernels' helpers.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.games.koikoi import enums as E
from simcore.games.koikoi.state_nb import (
    CAPTURE_WEIGHT,
    R_CHAFF,
    R_CLASSES,
    R_MONTH,
    R_MONTH_MASK,
    R_WEIGHT,
    R_YAKU_VALUE,
    dealt_hand_nb,
    param_nb,
    pile_yaku_nb,
    stop_score_nb,
)
from simcore.kernels.bits import kth_id, lowest_id, popcount
from simcore.kernels.internal import internal_nb
from simcore.kernels.rows_nb import write_outcome_nb
from simcore.record import C_MATCH, C_MATCH_END, C_ROUND_IN_MATCH, C_VALID
from simcore.rng import (
    DEAL_STREAM,
    SEAT_STREAM_BASE,
    batch_layout,
    batch_steps_nb,
    round_hash_nb,
    shuffle_places_nb,
    stream_init_hashed_nb,
    uniform_below_nb,
)

__all__ = ["play_units_nb"]

ONE = np.int64(1)
# the batches of a deal's shuffle (every place of the deck)
_B0, _B1, _B2, _B3, _B4, _B5, _B6 = batch_layout(E.DECK_SIZE, 0, E.DECK_SIZE)
# A deck in month order (card ``4 * (m - 1) + k`` of month ``m``, as every shipped rule set has
# it) holds each month in a nibble of a card mask.
NIBBLE_ONES = np.int64(0x111111111111)
NIBBLE_5 = np.int64(0x555555555555)
NIBBLE_3 = np.int64(0x333333333333)
NIBBLE_4 = np.int64(0x444444444444)


def months_in_nibbles(month_mask: np.ndarray) -> bool:
    """Whether a deck's months (``CompiledRules.month_mask``) are the nibbles of a card mask."""
    return all(int(month_mask[m]) == 0xF << (4 * (m - 1)) for m in range(1, 13))


@nb.njit(inline="always", cache=True)
def ubit(card):
    return ONE << np.int64(card)


@nb.njit(inline="always", cache=True)
def has_all(pile, cards):
    return (pile & cards) == cards


@nb.njit(inline="always", cache=True)
def yaku_nb(pile, calls, month, rt):
    """``state_nb.pile_yaku_nb``: ``(bits, points)`` of ``pile``, ``(0, 0)`` without calling it
    when the pile lacks what every yaku needs (three brights, the cards of a set yaku, the
    counts of Tane, Tan or Kasu, the month's four cards), as most piles do in a round's first
    turns."""
    k = R_CLASSES
    sake = rt[k + E.K_SAKE_CUP]
    month_cards = rt[R_MONTH_MASK + month]
    maybe = ((popcount(pile & rt[k + E.K_BRIGHTS]) >= 3)
             | has_all(pile, rt[k + E.K_BOAR_DEER_BUTTERFLY])
             | (popcount(pile & rt[k + E.K_ANIMALS]) >= E.TANE_MIN)
             | (has_all(pile, sake | rt[k + E.K_CURTAIN]) | has_all(pile, sake | rt[k + E.K_MOON]))
             | has_all(pile, rt[k + E.K_RED_RIBBONS]) | has_all(pile, rt[k + E.K_BLUE_RIBBONS])
             | (popcount(pile & rt[k + E.K_RIBBONS]) >= E.TAN_MIN)
             | (popcount(pile & rt[R_CHAFF]) >= E.KASU_MIN)
             | has_all(pile, month_cards))
    if maybe:
        return pile_yaku_nb(pile, calls, month, rt)
    return np.int64(0), np.int64(0)


@internal_nb(cache=True, _nrt=False)
def take_gain_nb(pile, base, calls, month, taken, rt):
    """``GreedyPolicy.take_gain`` of ``taken`` for a pile whose yaku points are ``base``."""
    _, points = yaku_nb(pile | taken, calls, month, rt)
    gain = CAPTURE_WEIGHT * (points - base)
    while taken:
        gain += rt[R_WEIGHT + lowest_id(taken)]
        taken &= taken - 1
    return gain


@internal_nb(cache=True, _nrt=False)
def greedy_play_nb(hand, pile, calls, month, field, rt):
    """The greedy policy's card to play (``state_nb.policy_choose_nb`` on a play decision)."""
    _, base = yaku_nb(pile, calls, month, rt)
    best = -1
    best_gain = 0
    while hand:
        card = lowest_id(hand)
        hand &= hand - 1
        cb = ubit(card)
        matches = field & rt[R_MONTH_MASK + rt[R_MONTH + card]]
        count = popcount(matches)
        if count == 0:
            gain = -rt[R_WEIGHT + card]
        elif count == 2:
            first = matches & -matches
            a = take_gain_nb(pile, base, calls, month, cb | first, rt)
            b = take_gain_nb(pile, base, calls, month, cb | (matches & ~first), rt)
            gain = a if a >= b else b
        else:
            gain = take_gain_nb(pile, base, calls, month, cb | matches, rt)
        if best < 0 or gain > best_gain:
            best = card
            best_gain = gain
    return best


@internal_nb(cache=True, _nrt=False)
def greedy_capture_nb(pile, calls, month, cb, matches, rt):
    """The greedy policy's choice of two field cards: the lower card's index 0, else 1."""
    _, base = yaku_nb(pile, calls, month, rt)
    first = matches & -matches
    a = take_gain_nb(pile, base, calls, month, cb | first, rt)
    b = take_gain_nb(pile, base, calls, month, cb | (matches & ~first), rt)
    return 1 if b > a else 0


@nb.njit(inline="always", cache=True)
def dealt_hand_fast_nb(cards, nibbles, rt):
    """``state_nb.dealt_hand_nb``: with ``nibbles`` (``months_in_nibbles``) from the cards per
    month counted in the nibbles of one word, without a loop over the months."""
    if not nibbles:
        return dealt_hand_nb(cards, rt)
    x = cards - ((cards >> 1) & NIBBLE_5)
    x = (x & NIBBLE_3) + ((x >> 2) & NIBBLE_3)  # each nibble: its month's count, 0..4
    if x & NIBBLE_4:
        return E.Y_TESHI
    pairs = popcount((x >> 1) & ~x & ~(x >> 2) & NIBBLE_ONES)  # nibbles of 2 (binary 010)
    return E.Y_KUTTSUKI if pairs == 4 else -1


@nb.njit(inline="always", cache=True)
def misdeal_fast_nb(hand0, hand1, field, nibbles, rt):
    """``state_nb.misdeal_nb`` through ``dealt_hand_fast_nb``."""
    for i in range(2):
        kind = dealt_hand_fast_nb(hand0 if i == 0 else hand1, nibbles, rt)
        if kind == E.Y_TESHI and param_nb(rt, E.P_TESHI) == E.DEALT_REDEAL:
            return True
        if kind == E.Y_KUTTSUKI and param_nb(rt, E.P_KUTTSUKI) == E.DEALT_REDEAL:
            return True
    kind = dealt_hand_fast_nb(field, nibbles, rt)
    if kind == E.Y_TESHI and param_nb(rt, E.P_FIELD_FOUR) == E.FIELD_REDEAL:
        return True
    return kind == E.Y_KUTTSUKI and param_nb(rt, E.P_FIELD_PAIRS) == E.FIELD_REDEAL


@internal_nb(cache=True, _nrt=False)
def reshuffle_nb(s0, s1, s2, s3, ids):
    """``shuffle_deck_nb``'s rare path: the deck filled again and shuffled by ``shuffle_places_nb``
    from the state before the shuffle; returns the state after it."""
    for i in range(E.DECK_SIZE):
        ids[i] = i
    return shuffle_places_nb(s0, s1, s2, s3, ids, E.DECK_SIZE, 0, E.DECK_SIZE, 0)


@nb.njit(inline="always", cache=True)
def shuffle_deck_nb(s0, s1, s2, s3, ids):
    """Fill ``ids[:DECK_SIZE]`` with the card ids and shuffle them as ``Stream.shuffle_places``
    does: one ``batch_steps_nb`` a batch, unrolled, and only if a batch's word was rejected
    (probability below 2**-32 each) the whole shuffle again (``reshuffle_nb``); returns the
    state after it."""
    for i in range(E.DECK_SIZE):
        ids[i] = i
    x0, x1, x2, x3, r0 = batch_steps_nb(s0, s1, s2, s3, ids, E.DECK_SIZE, _B0[0], _B0[1], _B0[2])
    x0, x1, x2, x3, r1 = batch_steps_nb(x0, x1, x2, x3, ids, E.DECK_SIZE, _B1[0], _B1[1], _B1[2])
    x0, x1, x2, x3, r2 = batch_steps_nb(x0, x1, x2, x3, ids, E.DECK_SIZE, _B2[0], _B2[1], _B2[2])
    x0, x1, x2, x3, r3 = batch_steps_nb(x0, x1, x2, x3, ids, E.DECK_SIZE, _B3[0], _B3[1], _B3[2])
    x0, x1, x2, x3, r4 = batch_steps_nb(x0, x1, x2, x3, ids, E.DECK_SIZE, _B4[0], _B4[1], _B4[2])
    x0, x1, x2, x3, r5 = batch_steps_nb(x0, x1, x2, x3, ids, E.DECK_SIZE, _B5[0], _B5[1], _B5[2])
    x0, x1, x2, x3, r6 = batch_steps_nb(x0, x1, x2, x3, ids, E.DECK_SIZE, _B6[0], _B6[1], _B6[2])
    if r0 | r1 | r2 | r3 | r4 | r5 | r6:
        return reshuffle_nb(s0, s1, s2, s3, ids)
    return x0, x1, x2, x3


@nb.njit(cache=True, _nrt=False)
def play_round_nb(seed, round_index, dealer, month, greedy, nibbles, rt, ids, u, out_int, out_mask,
                  row):
    """Deal and play one round and write its row (all but the match columns); returns
    ``(winner, payoff of seat 0, payoff of seat 1)``."""
    # --- the deal (state_nb.new_round_nb) ---
    h = round_hash_nb(seed, round_index)
    stream_init_hashed_nb(u, h, DEAL_STREAM, 8)
    s0, s1, s2, s3 = u[8], u[9], u[10], u[11]
    redeals = np.int64(0)  # int64 from the start: a literal 0 would compile write_outcome_nb twice
    while True:
        s0, s1, s2, s3 = shuffle_deck_nb(s0, s1, s2, s3, ids)
        hand_d = np.int64(0)
        hand_o = np.int64(0)
        field = np.int64(0)
        for i in range(8):
            hand_d |= ubit(ids[i])
            hand_o |= ubit(ids[8 + i])
            field |= ubit(ids[16 + i])
        if not misdeal_fast_nb(hand_d, hand_o, field, nibbles, rt) or redeals >= E.MAX_REDEALS:
            break
        redeals += 1
    field_dealt = field

    # --- dealt hands that score (state_nb.start_nb) ---
    dealt_d = np.int64(0)
    dealt_o = np.int64(0)
    holders = 0
    holder = -1
    for i in range(2):
        kind = dealt_hand_fast_nb(hand_d if i == 0 else hand_o, nibbles, rt)
        if kind < 0:
            continue
        option = E.P_TESHI if kind == E.Y_TESHI else E.P_KUTTSUKI
        if param_nb(rt, option) == E.DEALT_SCORE and rt[R_YAKU_VALUE + kind] > 0:
            if i == 0:
                dealt_d = ubit(kind)
            else:
                dealt_o = ubit(kind)
            holders += 1
            if holder < 0:
                holder = dealer if i == 0 else 1 - dealer

    # the seat to move (c) and the other (o): hands, piles, calls, kept yaku; swapped every turn
    # (seat s's decision stream stays at u[4 * s:]: eight more words swapped did not pay)
    hc = hand_d
    ho = hand_o
    pc = np.int64(0)
    po = np.int64(0)
    cc = np.int64(0)
    co = np.int64(0)
    seat = dealer
    greedy_c = greedy[dealer]
    greedy_o = greedy[1 - dealer]
    stream_init_hashed_nb(u, h, SEAT_STREAM_BASE, 0)
    stream_init_hashed_nb(u, h, SEAT_STREAM_BASE + 1, 4)
    # the yaku of each pile with its seat's calls, kept while the pile and the calls stay
    bits_c, points_c = yaku_nb(np.int64(0), np.int64(0), month, rt)
    bits_o = bits_c
    points_o = points_c
    trigger_points = param_nb(rt, E.P_KOIKOI_TRIGGER) == E.TRIGGER_POINTS_RISE
    last_turn_call = param_nb(rt, E.P_LAST_TURN) != 0
    limit = param_nb(rt, E.P_KOIKOI_LIMIT)
    top = 24
    turn = 0
    last_caller = -1
    winner = -1
    reason = E.END_EXHAUSTED
    score_c = np.int64(0)  # the points of the round to the seat that ended it (c)
    if holders == 2:
        reason = E.END_TEYAKU_DRAW
    elif holders == 1:
        winner = holder
        reason = E.END_TEYAKU
        score_c = rt[R_YAKU_VALUE + lowest_id(dealt_d if holder == dealer else dealt_o)]
    else:
        while turn < E.TURNS:
            turn += 1
            turn_bits = bits_c
            turn_points = points_c
            grew = False
            # the card played
            if greedy_c:
                card = greedy_play_nb(hc, pc, cc, month, field, rt)
            else:
                k = uniform_below_nb(u, popcount(hc), 4 * seat)  # no draw for a forced card
                card = kth_id(np.uint64(hc), k)
            hc &= ~ubit(card)
            # the card played, then the card turned, against the field (state_nb.resolve_nb)
            for step in range(2):
                if step == 1:
                    card = ids[top]
                    top += 1
                cb = ubit(card)
                if nibbles:  # the card's month: its nibble
                    matches = field & (np.int64(0xF) << (card & ~np.int64(3)))
                else:
                    matches = field & rt[R_MONTH_MASK + rt[R_MONTH + card]]
                count = popcount(matches)
                if count == 2:
                    first = matches & -matches
                    if greedy_c:
                        pick = greedy_capture_nb(pc, cc, month, cb, matches, rt)
                    else:
                        pick = uniform_below_nb(u, 2, 4 * seat)
                    matches = first if pick == 0 else matches & ~first
                # without a branch: no match leaves the card on the field, else it takes
                taken = (cb | matches) & -np.int64(count != 0)
                field = (field | cb) ^ taken
                pc |= taken
                grew |= count != 0
            # a yaku made or grown (state_nb.after_draw_nb)
            if grew:
                bits_c, points_c = yaku_nb(pc, cc, month, rt)
                if trigger_points:
                    rose = points_c > turn_points
                else:
                    rose = (bits_c & ~turn_bits) != 0
                if rose:
                    allowed = hc != 0 or last_turn_call
                    if allowed and limit == E.LIMIT_ONCE_PER_SEAT:
                        allowed = cc == 0
                    elif allowed and limit == E.LIMIT_ONCE_PER_TABLE:
                        allowed = cc + co == 0
                    if not allowed:
                        winner = seat
                        reason = E.END_FORCED_STOP
                        break
                    call = 0
                    if not greedy_c:
                        call = uniform_below_nb(u, 2, 4 * seat)
                    if call == 0:
                        winner = seat
                        reason = E.END_STOP
                        break
                    cc += 1
                    last_caller = seat
                    bits_c, points_c = yaku_nb(pc, cc, month, rt)
            # the other seat moves
            seat = 1 - seat
            hc, ho = ho, hc
            pc, po = po, pc
            cc, co = co, cc
            bits_c, bits_o = bits_o, bits_c
            points_c, points_o = points_o, points_c
            greedy_c, greedy_o = greedy_o, greedy_c
        if winner >= 0:
            score_c = stop_score_nb(points_c, cc, co, rt)
    if seat != 0:  # seat 0's values in the c variables
        pc, po = po, pc
        cc, co = co, cc
        bits_c, bits_o = bits_o, bits_c
        points_c, points_o = points_o, points_c
    score0 = np.int64(0)
    score1 = np.int64(0)
    if reason == E.END_EXHAUSTED:  # state_nb.exhausted_nb
        rule = param_nb(rt, E.P_EXHAUSTED)
        if rule == E.EXHAUSTED_DEALER_POINTS:
            winner = dealer
            if winner == 0:
                score0 = param_nb(rt, E.P_DEALER_PRIORITY)
            else:
                score1 = param_nb(rt, E.P_DEALER_PRIORITY)
        elif rule == E.EXHAUSTED_HIGHEST_YAKU:
            if points_c > points_o:
                winner = 0
                score0 = stop_score_nb(points_c, cc, co, rt)
            elif points_o > points_c:
                winner = 1
                score1 = stop_score_nb(points_o, co, cc, rt)
    elif winner == 0:
        score0 = score_c
    elif winner == 1:
        score1 = score_c

    # --- the row (state_nb.finish_nb, write_row_nb) ---
    payoff0 = score0
    payoff1 = score1
    if winner >= 0 and param_nb(rt, E.P_SCORING) == E.SCORING_ZERO_SUM:
        if winner == 0:
            payoff1 = -score0
        else:
            payoff0 = -score1
    bits0, yaku_points0, bits1, yaku_points1 = bits_c, points_c, bits_o, points_o
    if dealer == 0:
        dealt0, dealt1, hand0, hand1 = dealt_d, dealt_o, hand_d, hand_o
    else:
        dealt0, dealt1, hand0, hand1 = dealt_o, dealt_d, hand_o, hand_d
    write_outcome_nb(out_int, row, round_index, dealer, dealer, winner, reason, turn, redeals)
    out_int[E.C_EXHAUSTED, row] = 1 if reason == E.END_EXHAUSTED else 0
    out_int[E.C_LAST_KOIKOI, row] = last_caller
    out_mask[E.M_FIELD_DEALT, row] = np.uint64(field_dealt)
    out_int[E.C_YAKU_POINTS, row] = yaku_points0
    out_int[E.C_YAKU_POINTS + 1, row] = yaku_points1
    out_int[E.C_SCORE, row] = score0
    out_int[E.C_SCORE + 1, row] = score1
    out_int[E.C_PAYOFF, row] = payoff0
    out_int[E.C_PAYOFF + 1, row] = payoff1
    out_int[E.C_KOIKOI, row] = cc
    out_int[E.C_KOIKOI + 1, row] = co
    out_mask[E.M_HAND_DEALT, row] = np.uint64(hand0)
    out_mask[E.M_HAND_DEALT + 1, row] = np.uint64(hand1)
    out_mask[E.M_CAPTURED, row] = np.uint64(pc)
    out_mask[E.M_CAPTURED + 1, row] = np.uint64(po)
    out_mask[E.M_YAKU, row] = np.uint64(bits0 | dealt0)
    out_mask[E.M_YAKU + 1, row] = np.uint64(bits1 | dealt1)
    return winner, payoff0, payoff1


@nb.njit(cache=True, nogil=True)
def play_units_nb(seed, first_unit, lo, hi, rounds_per_match, stride, greedy, nibbles, rt, out_int,
                  out_mask):
    """Play units ``first_unit + lo .. first_unit + hi - 1`` into rows ``lo * stride ..``
    (module docstring; the unit and match loop of ``simcore.kernels.units_nb``)."""
    ids = np.zeros(64, dtype=np.int64)  # the deck
    u = np.zeros(12, dtype=np.uint64)  # seat 0's stream at 0, seat 1's at 4, the deal stream at 8
    independent = rounds_per_match == 0
    n_rounds = 1 if independent else stride
    start = param_nb(rt, E.P_START_POINTS)
    early_end = param_nb(rt, E.P_EARLY_END) == 1
    switch_on_draw = param_nb(rt, E.P_EXHAUSTED_DEALER) == 1
    for i in range(lo, hi):
        unit = first_unit + i
        points0 = np.int64(0)
        points1 = np.int64(0)
        dealer = unit % 2
        last_row = i * stride
        for k in range(n_rounds):
            if k >= rounds_per_match and not independent and points0 != points1:
                break
            row = i * stride + k
            round_index = unit if independent else unit * stride + k
            month = 1 + k % 12  # reference.round_month
            winner, payoff0, payoff1 = play_round_nb(seed, round_index, dealer, month, greedy, nibbles, rt,
                                                     ids, u, out_int, out_mask, row)
            points0 += payoff0
            points1 += payoff1
            out_int[C_MATCH, row] = unit
            out_int[C_ROUND_IN_MATCH, row] = k
            out_int[C_MATCH_END, row] = 0
            out_int[E.C_MATCH_POINTS, row] = start + points0
            out_int[E.C_MATCH_POINTS + 1, row] = start + points1
            last_row = row
            if winner < 0 and switch_on_draw:
                winner = 1 - dealer
            if winner >= 0:
                dealer = winner
            if not independent and early_end and (start + points0 <= 0 or start + points1 <= 0):
                break
        out_int[C_MATCH_END, last_row] = 1
        for row in range(last_row + 1, (i + 1) * stride):
            out_int[C_VALID, row] = 0
