"""Numba state machine of a Tensho round: the forward model of ``reference.RoundState`` in arrays.

Contract
--------
A round is one ``int64[ST_SIZE]`` array (the slots ``ST_*`` below; card sets are masks stored
as non-negative int64), so cloning a round is copying an array into another.  The rules are
one int64 array ``rt`` (``rule_table(compiled)``, slots ``R_*``), passed as an argument, never
a global: one array instead of a dozen keeps each call's arguments few (a numba call passes
every array as seven or nine words).  Only ``greedy_choose_nb`` takes the tuple ``rules`` of
``CompiledRules.kernel_args()``, for the greedy gain functions of ``kernel_nb``.  ``ids`` is int64 scratch of at
least ``IDS_SIZE`` entries (shuffles); ``states`` a uint64 array of stream states, four words
per stream at an offset (``simcore.rng``).

The round steps exactly as the reference engine and pauses at the same decisions, whose legal
actions are stored as action keys (``(kind << 56) | payload``, kinds ``K_*``) at
``st[ST_KEYS + i]``, ``i < st[ST_N]``, in the reference's order.  ``new_round_nb`` deals a
round to its first decision, ``apply_nb`` takes the action of an index and steps to the next
decision or the end, ``sample_hidden_nb`` is ``RoundState.sample_hidden`` (the same stream
draws), ``random_choose_nb`` and ``greedy_choose_nb`` decide as the reference's random and greedy
policies.  Nothing here allocates.

This module imports only numpy, numba and the kernels' helpers.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from simcore.games.tensho import enums as E
from simcore.games.tensho import heuristic_nb as H
from simcore.games.tensho.features_nb import N_FEATURES, features_nb
from simcore.games.tensho.kernel_nb import greedy_gain_nb, greedy_placement_nb
from simcore.kernels import contract as C
from simcore.kernels.bits import PAYLOAD_MASK, key_of_nb, lowest_id, popcount, ubit_nb
from simcore.kernels.contract import implements
from simcore.kernels.internal import internal_nb
from simcore.kernels.pending_nb import pose_nb, pose_two_nb
from simcore.kernels.prepared import word_table
from simcore.kernels.rows_nb import write_outcome_nb
from simcore.rng import (
    DEAL_STREAM,
    RULES_STREAM,
    next_u64_nb,
    round_hash_nb,
    shuffle_places_nb,
    shuffled_ids_nb,
    stream_init_hashed_nb,
    uniform_below_nb,
)

# --- action keys ---------------------------------------------------------------------------
K_YAKU_SET = 0
K_OPENING_CLAIM = 1
K_BANK_SIX = 2
K_PLAY = 3
K_CAPTURE = 4
DECLINE = 1 << 50  # the payload of "leave the played card on the field"

# --- state slots -----------------------------------------------------------------------------
ST_ROUND = 0
ST_DEALER = 1
ST_ALTERNATE = 2
ST_ROUND_IN_MATCH = 3
ST_MATCH_POINTS = 4  # + seat
ST_YAKU_SET = 6
ST_HAND = 7  # + seat
ST_PILE = 9  # + seat
ST_FIELD = 11
ST_SEEN = 12
ST_DEAD = 13
ST_DRAW_TOP = 14  # index of the draw pile's top card in ST_DRAW; 18: empty
ST_TURN = 15
ST_REDEALS = 16
ST_FIELD_DEALT = 17
ST_HAND_DEALT = 18  # + seat
ST_CLAIMED = 20
ST_FIRST = 21
ST_SEAT = 22
ST_WINNER = 23
ST_REASON = 24
ST_IN_PLAY = 25
ST_KIND = 26  # the pending decision's kind (-1: none)
ST_DSEAT = 27  # the pending decision's seat
ST_N = 28  # its number of actions
ST_CARD = 29  # capture: the card; opening claim: the rank; bank_six: the index in (dealer, other)
ST_SOURCE = 30  # capture: 0 played, 1 turned
ST_ALLOW_DECLINE = 31
ST_DONE = 32  # 1 once the round is scored
ST_SCORE = 33  # + seat
ST_PAYOFF = 35  # + seat
ST_OWN_DEAL = 37  # 1: deal from ST_DEAL_SEED (a world sampled before the deal), 0: from the run's seed
ST_DEAL_SEED = 38
ST_KEYS = 40
MAX_ACTIONS = 8
PENDING = (ST_KIND, ST_DSEAT, ST_N, ST_KEYS)  # where the pending decision is posed (pending_nb)
ST_DRAW = ST_KEYS + MAX_ACTIONS
DRAW_SIZE = 18
ST_SIZE = ST_DRAW + DRAW_SIZE

# --- the rule table ``rt``: int64[R_SIZE] ------------------------------------------------------
R_PARAMS = 0  # [32]: ``params`` (``E.P_*``)
R_RANK = 32  # [64]
R_RANK_MASK = 96  # [16]
R_DEAL_ORDER = 112  # [64]
R_YAKU_MASK = 176  # [64]
R_YAKU_POINTS = 240  # [set 2][64]
R_IN_SET = 368  # [2]
R_INSTANT = 370  # [2]
R_SUPERSEDES = 372  # [64]
R_CARD_VALUE = 436  # [64]
R_CHAFF = 500
R_SIZE = 501

DECK_SIZE = 45
SHUFFLED_POSITIONS = 39
IDS_SIZE = 64

# phases of the round's continuation (where ``advance_nb`` resumes)
PH_OPENING = 0
PH_AFTER_OPENING = 1
PH_BANK = 2
PH_START_TURNS = 3
PH_NEXT_TURN = 4
PH_AFTER_PLAY = 5
PH_AFTER_DRAW = 6
PH_FINISH = 7

SOURCE_PLAY = 0
SOURCE_DRAW = 1


def rule_table(compiled) -> np.ndarray:
    """The rule table ``rt`` of a ``CompiledRules``: int64[R_SIZE] (slots ``R_*``; masks and
    yaku bitsets stored bit for bit as int64)."""
    return word_table(R_SIZE, [
        (R_PARAMS, compiled.params),
        (R_RANK, compiled.rank[:64]),
        (R_RANK_MASK, compiled.rank_mask[:16]),
        (R_DEAL_ORDER, compiled.deal_order),
        (R_YAKU_MASK, compiled.yaku_mask),
        *((R_YAKU_POINTS + 64 * s, compiled.yaku_points[s]) for s in range(2)),
        (R_IN_SET, compiled.yaku_in_set),
        (R_INSTANT, compiled.yaku_instant),
        (R_SUPERSEDES, compiled.supersedes),
        (R_CARD_VALUE, compiled.card_value[:64]),
        (R_CHAFF, np.array([compiled.chaff_mask], dtype=np.uint64)),
    ])


@nb.njit(inline="always", cache=True)
def has_instant_nb(st, seat, rt):
    """Whether ``seat``'s pile holds an instant-win yaku of the round's set."""
    pile = st[ST_PILE + seat]
    rest = rt[R_INSTANT + st[ST_YAKU_SET] - 1]
    while rest:
        m = rt[R_YAKU_MASK + lowest_id(rest)]
        rest &= rest - 1
        if (m & pile) == m:
            return True
    return False


@internal_nb(cache=True, _nrt=False)
def new_round_nb(st, seed, round_index, dealer, alternate_index, round_in_match, points0, points1, rt,
                 ids, states):
    """Set ``st`` to round ``round_index`` dealt by ``dealer`` at its first decision.

    ``states`` needs room for one stream at offset 0 (the rules' stream of a random yaku set).
    """
    for i in range(ST_SIZE):
        st[i] = 0
    st[ST_ROUND] = round_index
    st[ST_DEALER] = dealer
    st[ST_ALTERNATE] = alternate_index
    st[ST_ROUND_IN_MATCH] = round_in_match
    st[ST_MATCH_POINTS] = points0
    st[ST_MATCH_POINTS + 1] = points1
    st[ST_DRAW_TOP] = DRAW_SIZE
    st[ST_FIRST] = dealer
    st[ST_SEAT] = dealer
    st[ST_WINNER] = -1
    st[ST_REASON] = -1
    st[ST_KIND] = -1
    choice = rt[R_PARAMS + E.P_YAKU_SET_CHOICE]
    if choice == E.SET_FIXED_1:
        set_chosen_nb(st, np.int64(1), seed, rt, ids, states)
    elif choice == E.SET_FIXED_2:
        set_chosen_nb(st, np.int64(2), seed, rt, ids, states)
    elif choice == E.SET_RANDOM:
        stream_init_hashed_nb(states, round_hash_nb(seed, round_index), RULES_STREAM, 0)
        set_chosen_nb(st, np.int64(1 + uniform_below_nb(states, 2, 0)), seed, rt, ids, states)
    elif choice == E.SET_ALTERNATE:
        set_chosen_nb(st, np.int64(1 + alternate_index % 2), seed, rt, ids, states)
    else:
        pose_two_nb(st, PENDING, K_YAKU_SET, dealer, 1)


@internal_nb(cache=True, _nrt=False)
def set_chosen_nb(st, yaku_set, seed, rt, ids, states):
    """The yaku set is fixed: deal (and redeal), the six on the field, then the opening claims."""
    st[ST_YAKU_SET] = yaku_set
    dealer = st[ST_DEALER]
    deal_seed = seed if st[ST_OWN_DEAL] == 0 else np.uint64(st[ST_DEAL_SEED])
    h = round_hash_nb(deal_seed, st[ST_ROUND])
    stream_init_hashed_nb(states, h, DEAL_STREAM, 0)
    s0, s1, s2, s3 = states[0], states[1], states[2], states[3]
    redeals = 0
    base = IDS_SIZE - DECK_SIZE  # the shuffled deck at the end of ``ids``
    while True:
        for i in range(DECK_SIZE):
            ids[base + i] = i
        s0, s1, s2, s3 = shuffle_places_nb(s0, s1, s2, s3, ids, DECK_SIZE, 0, E.SEEN_SLOTS, base)
        s0, s1, s2, s3 = shuffle_places_nb(s0, s1, s2, s3, ids, DECK_SIZE, E.SEEN_SLOTS, SHUFFLED_POSITIONS,
                                           base)
        field = np.int64(0)
        for i in range(9):
            field |= ubit_nb(ids[base + rt[R_DEAL_ORDER + i]])
        four = False
        for r in range(1, 13):
            if popcount(field & rt[R_RANK_MASK + r]) == 4:
                four = True
        if four and rt[R_PARAMS + E.P_FIELD_FOUR] == E.FIELD_FOUR_REDEAL and redeals < E.MAX_REDEALS:
            redeals += 1
            continue
        break
    hand_d = np.int64(0)
    hand_o = np.int64(0)
    for i in range(9, 15):
        hand_d |= ubit_nb(ids[base + rt[R_DEAL_ORDER + i]])
    for i in range(15, 21):
        hand_o |= ubit_nb(ids[base + rt[R_DEAL_ORDER + i]])
    for i in range(DRAW_SIZE):
        st[ST_DRAW + i] = ids[base + rt[R_DEAL_ORDER + 21 + i]]
    dead = np.int64(0)
    for i in range(39, 45):
        dead |= ubit_nb(ids[base + rt[R_DEAL_ORDER + i]])
    st[ST_HAND + dealer] = hand_d
    st[ST_HAND + 1 - dealer] = hand_o
    st[ST_FIELD] = field
    st[ST_DEAD] = dead
    st[ST_DRAW_TOP] = 0
    st[ST_SEEN] = field
    st[ST_REDEALS] = redeals
    st[ST_FIELD_DEALT] = field
    st[ST_HAND_DEALT] = st[ST_HAND]
    st[ST_HAND_DEALT + 1] = st[ST_HAND + 1]
    six = ubit_nb(rt[R_PARAMS + E.P_SIX_CARD])
    if rt[R_PARAMS + E.P_SIX_ON_FIELD] == 1 and (field & six):
        st[ST_FIELD] = field & ~six
        st[ST_PILE + dealer] |= six
    advance_nb(st, np.int64(PH_OPENING), np.int64(1), rt)


@internal_nb(cache=True, _nrt=False)
def resolve_nb(st, seat, card, source, rt):
    """Resolve a played or turned card against the field; False when ``seat`` must first choose
    what it takes (a pending ``capture`` decision)."""
    cb = ubit_nb(card)
    st[ST_SEEN] |= cb
    if card == rt[R_PARAMS + E.P_SIX_CARD]:
        st[ST_PILE + seat] |= cb
        return True
    field = st[ST_FIELD]
    matches = field & rt[R_RANK_MASK + rt[R_RANK + card]]
    n = popcount(matches)
    if n == 0:
        st[ST_FIELD] = field | cb
        return True
    at = ST_KEYS
    if n == 1:
        st[at] = matches
        count = 1
    elif n == 2 and rt[R_PARAMS + E.P_DOUBLE_MATCH] == 1:
        best = np.int64(0)
        best_value = -1
        rest = matches
        while rest:
            x = lowest_id(rest)
            rest &= rest - 1
            if rt[R_CARD_VALUE + x] > best_value:
                best = ubit_nb(x)
                best_value = rt[R_CARD_VALUE + x]
        st[at] = best
        count = 1
    elif n >= 3 and rt[R_PARAMS + E.P_TRIPLE_MATCH] == 0:
        st[at] = matches
        count = 1
    else:
        count = 0
        rest = matches
        while rest:
            x = lowest_id(rest)
            rest &= rest - 1
            st[at + count] = ubit_nb(x)
            count += 1
    allow_decline = rt[R_PARAMS + E.P_CAPTURE_MANDATORY] == 1 and source == SOURCE_PLAY
    if count == 1 and not allow_decline:
        taken = st[at]
        st[ST_FIELD] = field & ~taken
        st[ST_PILE + seat] |= cb | taken
        return True
    for i in range(count):
        st[at + i] = key_of_nb(K_CAPTURE, st[at + i])
    if allow_decline:
        st[at + count] = key_of_nb(K_CAPTURE, DECLINE)
        count += 1
    st[ST_IN_PLAY] = cb
    pose_nb(st, PENDING, K_CAPTURE, seat, count)
    st[ST_CARD] = card
    st[ST_SOURCE] = source
    st[ST_ALLOW_DECLINE] = 1 if allow_decline else 0
    return False


@internal_nb(cache=True, _nrt=False)
def advance_nb(st, phase, arg, rt):
    """Step the round from ``phase`` (``PH_*``; ``arg``: the rank or bank index it resumes at)
    through every step the rules take by themselves, to the next decision or the scored end."""
    dealer = st[ST_DEALER]
    other = 1 - dealer
    six = ubit_nb(rt[R_PARAMS + E.P_SIX_CARD])
    while True:
        if phase == PH_OPENING:
            found = False
            for r in range(arg, 13):
                on_field = st[ST_FIELD] & rt[R_RANK_MASK + r]
                count = popcount(on_field)
                if count == 3 or (count == 4 and rt[R_PARAMS + E.P_FIELD_FOUR] == E.FIELD_FOUR_OPENING):
                    st[ST_KIND] = K_OPENING_CLAIM
                    st[ST_DSEAT] = dealer
                    st[ST_CARD] = r
                    st[ST_KEYS] = key_of_nb(K_OPENING_CLAIM, 0)
                    n = 1
                    ids0 = on_field
                    while ids0:
                        a = lowest_id(ids0)
                        ids0 &= ids0 - 1
                        ids1 = ids0
                        while ids1:
                            b = lowest_id(ids1)
                            ids1 &= ids1 - 1
                            st[ST_KEYS + n] = key_of_nb(K_OPENING_CLAIM, ubit_nb(a) | ubit_nb(b))
                            n += 1
                    st[ST_N] = n
                    found = True
                    break
            if found:
                return
            phase = PH_AFTER_OPENING
        elif phase == PH_AFTER_OPENING:
            st[ST_FIRST] = other if st[ST_CLAIMED] != 0 else dealer
            if has_instant_nb(st, dealer, rt):
                st[ST_WINNER] = dealer
                st[ST_REASON] = E.END_INSTANT_WIN
            if st[ST_WINNER] < 0 and rt[R_PARAMS + E.P_SIX_IN_HAND] == 1:
                phase = PH_BANK
                arg = 0
            else:
                phase = PH_START_TURNS
        elif phase == PH_BANK:
            for i in range(arg, 2):
                seat = dealer if i == 0 else other
                if st[ST_HAND + seat] & six:
                    pose_two_nb(st, PENDING, K_BANK_SIX, seat, 0)
                    st[ST_CARD] = i
                    return
            for i in range(2):
                seat = dealer if i == 0 else other
                if st[ST_WINNER] < 0 and has_instant_nb(st, seat, rt):
                    st[ST_WINNER] = seat
                    st[ST_REASON] = E.END_INSTANT_WIN
            phase = PH_START_TURNS
        elif phase == PH_START_TURNS:
            st[ST_SEAT] = st[ST_FIRST]
            phase = PH_NEXT_TURN
        elif phase == PH_NEXT_TURN:
            if st[ST_WINNER] >= 0 or (st[ST_HAND] | st[ST_HAND + 1]) == 0:
                phase = PH_FINISH
                continue
            seat = st[ST_SEAT]
            if st[ST_HAND + seat] == 0:
                seat = 1 - seat
                st[ST_SEAT] = seat
            st[ST_TURN] += 1
            hand = st[ST_HAND + seat]
            set_play_keys_nb(st, hand)
            st[ST_KIND] = K_PLAY
            st[ST_DSEAT] = seat
            return
        elif phase == PH_AFTER_PLAY:
            seat = st[ST_SEAT]
            if rt[R_PARAMS + E.P_INSTANT_CHECK] == 0 and has_instant_nb(st, seat, rt):
                st[ST_WINNER] = seat
                st[ST_REASON] = E.END_INSTANT_WIN
                phase = PH_FINISH
                continue
            top = st[ST_DRAW_TOP]
            drawn = st[ST_DRAW + top]
            st[ST_DRAW_TOP] = top + 1
            if not resolve_nb(st, seat, drawn, np.int64(SOURCE_DRAW), rt):
                return
            phase = PH_AFTER_DRAW
        elif phase == PH_AFTER_DRAW:
            seat = st[ST_SEAT]
            if has_instant_nb(st, seat, rt):
                st[ST_WINNER] = seat
                st[ST_REASON] = E.END_INSTANT_WIN
                phase = PH_FINISH
                continue
            st[ST_SEAT] = 1 - seat
            phase = PH_NEXT_TURN
        else:
            finish_nb(st, rt)
            return


@internal_nb(cache=True, _nrt=False)
def pile_yaku_nb(st, rt):
    """``(yaku0, points0, yaku1, points1)``: both piles' completed yaku of the round's set after
    supersession (a completed yaku cancels those it supersedes), and their points."""
    s = st[ST_YAKU_SET] - 1
    pile0 = st[ST_PILE]
    pile1 = st[ST_PILE + 1]
    done0 = np.int64(0)
    done1 = np.int64(0)
    rest = rt[R_IN_SET + s]
    while rest:
        i = lowest_id(rest)
        rest &= rest - 1
        m = rt[R_YAKU_MASK + i]
        if (m & pile0) == m:
            done0 |= ubit_nb(i)
        if (m & pile1) == m:
            done1 |= ubit_nb(i)
    cancel0 = np.int64(0)
    cancel1 = np.int64(0)
    rest = done0 | done1
    while rest:
        i = lowest_id(rest)
        rest &= rest - 1
        if (done0 >> i) & 1:
            cancel0 |= rt[R_SUPERSEDES + i]
        if (done1 >> i) & 1:
            cancel1 |= rt[R_SUPERSEDES + i]
    yaku0 = done0 & ~cancel0
    yaku1 = done1 & ~cancel1
    points0 = 0
    rest = yaku0
    while rest:
        points0 += rt[R_YAKU_POINTS + 64 * s + lowest_id(rest)]
        rest &= rest - 1
    points1 = 0
    rest = yaku1
    while rest:
        points1 += rt[R_YAKU_POINTS + 64 * s + lowest_id(rest)]
        rest &= rest - 1
    return yaku0, points0, yaku1, points1


@nb.njit(inline="always", cache=True)
def pile_value_nb(pile, rt):
    total = 0
    while pile:
        total += rt[R_CARD_VALUE + lowest_id(pile)]
        pile &= pile - 1
    return total


@internal_nb(cache=True, _nrt=False)
def finish_nb(st, rt):
    """Score the ended round: ``ST_WINNER``, ``ST_REASON``, ``ST_SCORE``, ``ST_PAYOFF``, ``ST_DONE``."""
    st[ST_KIND] = -1
    st[ST_N] = 0
    winner = st[ST_WINNER]
    reason = st[ST_REASON]
    dealer = st[ST_DEALER]
    if reason == E.END_INSTANT_WIN:
        score0 = rt[R_PARAMS + E.P_INSTANT_WIN_SCORE] if winner == 0 else 0
        score1 = rt[R_PARAMS + E.P_INSTANT_WIN_SCORE] if winner == 1 else 0
    else:
        _, points0, _, points1 = pile_yaku_nb(st, rt)
        chaff0 = popcount(st[ST_PILE] & rt[R_CHAFF])
        chaff1 = popcount(st[ST_PILE + 1] & rt[R_CHAFF])
        value0 = pile_value_nb(st[ST_PILE], rt)
        value1 = pile_value_nb(st[ST_PILE + 1], rt)
        score0 = points0
        score1 = points1
        if points0 != points1:
            winner = 0 if points0 > points1 else 1
            reason = E.END_YAKU
        elif not (rt[R_PARAMS + E.P_NO_YAKU_TIEBREAK] == 1 and points0 == 0) and chaff0 != chaff1:
            winner = 0 if chaff0 > chaff1 else 1
            reason = E.END_CHAFF
        elif value0 != value1:
            winner = 0 if value0 > value1 else 1
            reason = E.END_CARD_VALUE
        elif rt[R_PARAMS + E.P_FINAL_TIE] == 1:
            winner = dealer
            reason = E.END_FINAL_TIE_RULE
        elif rt[R_PARAMS + E.P_FINAL_TIE] == 2:
            winner = 1 - dealer
            reason = E.END_FINAL_TIE_RULE
        else:
            winner = -1
            reason = E.END_DRAW
    if rt[R_PARAMS + E.P_MATCH_SCORING] == 0:
        payoff0 = 0
        if winner == 0:
            payoff0 = 1
        elif winner == 1:
            payoff0 = -1
    else:
        payoff0 = score0 - score1
    st[ST_WINNER] = winner
    st[ST_REASON] = reason
    st[ST_SCORE] = score0
    st[ST_SCORE + 1] = score1
    st[ST_PAYOFF] = payoff0
    st[ST_PAYOFF + 1] = -payoff0
    st[ST_DONE] = 1


@internal_nb(cache=True, _nrt=False)
def apply_nb(st, index, seed, rt, ids, states):
    """Take action ``index`` of the pending decision and step to the next decision (or the end)."""
    kind = st[ST_KIND]
    seat = st[ST_DSEAT]
    payload = st[ST_KEYS + index] & PAYLOAD_MASK
    st[ST_KIND] = -1
    if kind == K_PLAY:
        st[ST_HAND + seat] &= ~ubit_nb(payload)
        if resolve_nb(st, seat, payload, np.int64(SOURCE_PLAY), rt):
            advance_nb(st, np.int64(PH_AFTER_PLAY), np.int64(0), rt)
    elif kind == K_CAPTURE:
        card = st[ST_CARD]
        cb = ubit_nb(card)
        st[ST_IN_PLAY] = 0
        if payload == DECLINE:
            st[ST_FIELD] |= cb
        else:
            st[ST_FIELD] &= ~payload
            st[ST_PILE + seat] |= cb | payload
        advance_nb(st, np.int64(PH_AFTER_PLAY if st[ST_SOURCE] == SOURCE_PLAY else PH_AFTER_DRAW), np.int64(0), rt)
    elif kind == K_OPENING_CLAIM:
        r = st[ST_CARD]
        if payload != 0:
            st[ST_FIELD] &= ~payload
            st[ST_CLAIMED] |= payload
            st[ST_PILE + st[ST_DEALER]] |= payload
            if rt[R_PARAMS + E.P_OPENING_SCOPE] == 1:
                advance_nb(st, np.int64(PH_AFTER_OPENING), np.int64(0), rt)
                return
        advance_nb(st, np.int64(PH_OPENING), np.int64(r + 1), rt)
    elif kind == K_BANK_SIX:
        if payload == 1:
            six = ubit_nb(rt[R_PARAMS + E.P_SIX_CARD])
            st[ST_HAND + seat] &= ~six
            st[ST_SEEN] |= six
            st[ST_PILE + seat] |= six
        advance_nb(st, np.int64(PH_BANK), np.int64(st[ST_CARD] + 1), rt)
    else:
        set_chosen_nb(st, np.int64(payload), seed, rt, ids, states)


@internal_nb(cache=True, _nrt=False)
def set_play_keys_nb(st, hand):
    """List a play of each card of ``hand`` as the pending decision's actions (lowest id first),
    and their number."""
    n = 0
    while hand:
        st[ST_KEYS + n] = key_of_nb(K_PLAY, lowest_id(hand))
        hand &= hand - 1
        n += 1
    st[ST_N] = n


@internal_nb(cache=True, _nrt=False)
def sample_hidden_nb(src, dst, seat, states, at, rt, ids):
    """``RoundState.sample_hidden``: ``dst`` becomes a copy of ``src`` in which the cards
    ``seat`` has not seen (the other hand, the draw pile and the dead cards) are shuffled from
    the stream at ``states[at:at + 4]`` and dealt back, each place keeping its size."""
    for i in range(ST_SIZE):
        dst[i] = src[i]
    opponent = 1 - seat
    top = src[ST_DRAW_TOP]
    unseen = src[ST_HAND + opponent] | src[ST_DEAD]
    for i in range(top, DRAW_SIZE):
        unseen |= ubit_nb(src[ST_DRAW + i])
    n = shuffled_ids_nb(unseen, ids, states, at)
    n_hand = popcount(src[ST_HAND + opponent])
    hand = np.int64(0)
    for i in range(n_hand):
        hand |= ubit_nb(ids[i])
    k = n_hand
    for i in range(top, DRAW_SIZE):
        dst[ST_DRAW + i] = ids[k]
        k += 1
    dead = np.int64(0)
    for i in range(k, n):
        dead |= ubit_nb(ids[i])
    dst[ST_HAND + opponent] = hand
    dst[ST_DEAD] = dead
    dst[ST_HAND_DEALT + opponent] = 0
    if src[ST_YAKU_SET] == 0:  # before the deal: the world deals its own cards (the reference's deal_seed)
        dst[ST_DEAL_SEED] = np.int64(next_u64_nb(states, at))
        dst[ST_OWN_DEAL] = 1
    if src[ST_KIND] >= 0 and src[ST_DSEAT] == opponent:
        if src[ST_KIND] == K_PLAY:
            set_play_keys_nb(dst, hand)
        elif src[ST_KIND] == K_BANK_SIX:
            dst[ST_KIND] = -1
            advance_nb(dst, np.int64(PH_BANK), np.int64(src[ST_CARD]), rt)


# --- the reference's random and greedy policies, decision by decision ------------------------


@internal_nb(cache=True, _nrt=False)
def random_choose_nb(st, states, at):
    """The uniform random policy's choice (``policies.RandomPolicy``), drawn from the stream at
    ``states[at:at + 4]``: an opening claim declines when the first draw is 0, else picks a pair;
    every other decision is uniform over its actions (one action: no draw)."""
    n = st[ST_N]
    if st[ST_KIND] == K_OPENING_CLAIM:
        if uniform_below_nb(states, 2, at) == 0:
            return 0
        return 1 + uniform_below_nb(states, n - 1, at)
    return uniform_below_nb(states, n, at)


@internal_nb(cache=True, _nrt=False)
def greedy_choose_nb(st, preferred_set, rules):
    """The greedy policy's choice (``policies.GreedyPolicy``); ``preferred_set`` its parameter."""
    (params, rank, rank_mask, _, yaku_mask, yaku_points, yaku_in_set, yaku_instant, supersedes,
     greedy_weight, card_value, chaff_mask) = rules
    kind = st[ST_KIND]
    n = st[ST_N]
    seat = st[ST_DSEAT]
    if kind == K_YAKU_SET:
        return preferred_set - 1
    if kind == K_BANK_SIX:
        return 1
    s = st[ST_YAKU_SET] - 1
    pile = np.uint64(st[ST_PILE + seat])
    if kind == K_OPENING_CLAIM:
        pick = 1
        best = 0
        for k in range(1, n):
            g = greedy_gain_nb(pile, np.uint64(st[ST_KEYS + k] & PAYLOAD_MASK), s, yaku_mask, yaku_points,
                            yaku_in_set, yaku_instant, supersedes, greedy_weight, card_value, chaff_mask)
            if k == 1 or g > best:
                pick = k
                best = g
        return pick
    if kind == K_CAPTURE:
        card = st[ST_CARD]
        cb = np.uint64(1) << np.uint64(card)
        allow = st[ST_ALLOW_DECLINE] == 1
        n_opts = n - 1 if allow else n
        pick = 0
        best = 0
        for k in range(n_opts):
            g = greedy_gain_nb(pile, cb | np.uint64(st[ST_KEYS + k] & PAYLOAD_MASK), s, yaku_mask, yaku_points,
                            yaku_in_set, yaku_instant, supersedes, greedy_weight, card_value, chaff_mask)
            if k == 0 or g > best:
                pick = k
                best = g
        if allow and greedy_placement_nb(card, s, yaku_mask, yaku_in_set, greedy_weight, card_value) > best:
            return n - 1
        return pick
    # play: the hand card whose best resolution gains most
    six = params[E.P_SIX_CARD]
    hvf = params[E.P_DOUBLE_MATCH] == 1
    triple_all = params[E.P_TRIPLE_MATCH] == 0
    optional = params[E.P_CAPTURE_MANDATORY] == 1
    field = np.uint64(st[ST_FIELD])
    pick = 0
    best = 0
    for k in range(n):
        c = st[ST_KEYS + k] & PAYLOAD_MASK
        cb = np.uint64(1) << np.uint64(c)
        if c == six:
            g = greedy_gain_nb(pile, cb, s, yaku_mask, yaku_points, yaku_in_set, yaku_instant, supersedes,
                            greedy_weight, card_value, chaff_mask)
        else:
            matches = field & rank_mask[rank[c]]
            m = popcount(matches)
            if m == 0:
                g = greedy_placement_nb(c, s, yaku_mask, yaku_in_set, greedy_weight, card_value)
            else:
                if m == 1 or (m >= 3 and triple_all):
                    g = greedy_gain_nb(pile, cb | matches, s, yaku_mask, yaku_points, yaku_in_set, yaku_instant,
                                    supersedes, greedy_weight, card_value, chaff_mask)
                elif m == 2 and hvf:
                    hb = np.uint64(0)
                    hv = -1
                    rest = matches
                    while rest:
                        x = lowest_id(rest)
                        rest &= rest - np.uint64(1)
                        if card_value[x] > hv:
                            hb = np.uint64(1) << np.uint64(x)
                            hv = card_value[x]
                    g = greedy_gain_nb(pile, cb | hb, s, yaku_mask, yaku_points, yaku_in_set, yaku_instant,
                                    supersedes, greedy_weight, card_value, chaff_mask)
                else:
                    g = 0
                    first = True
                    rest = matches
                    while rest:
                        x = lowest_id(rest)
                        rest &= rest - np.uint64(1)
                        gk = greedy_gain_nb(pile, cb | (np.uint64(1) << np.uint64(x)), s, yaku_mask, yaku_points,
                                         yaku_in_set, yaku_instant, supersedes, greedy_weight, card_value,
                                         chaff_mask)
                        if first or gk > g:
                            g = gk
                            first = False
                if optional:
                    gp = greedy_placement_nb(c, s, yaku_mask, yaku_in_set, greedy_weight, card_value)
                    if gp > g:
                        g = gp
        if k == 0 or g > best:
            pick = k
            best = g
    return pick


@internal_nb(cache=True, _nrt=False)
def write_row_nb(st, out_int, out_mask, row, rt):
    """Write the scored round ``st`` into ``row`` of the output matrices (all but the match
    columns), as ``kernel_nb.finish_round_nb`` does."""
    yaku0, points0, yaku1, points1 = pile_yaku_nb(st, rt)
    write_outcome_nb(out_int, row, st[ST_ROUND], st[ST_DEALER], st[ST_FIRST], st[ST_WINNER], st[ST_REASON],
                     st[ST_TURN], st[ST_REDEALS])
    out_int[E.C_YAKU_SET, row] = st[ST_YAKU_SET]
    out_int[E.C_YAKU_POINTS, row] = points0
    out_int[E.C_YAKU_POINTS + 1, row] = points1
    for seat in range(2):
        pile = st[ST_PILE + seat]
        out_int[E.C_CARD_POINTS + seat, row] = pile_value_nb(pile, rt)
        out_int[E.C_CHAFF + seat, row] = popcount(pile & rt[R_CHAFF])
        out_int[E.C_SCORE + seat, row] = st[ST_SCORE + seat]
        out_int[E.C_PAYOFF + seat, row] = st[ST_PAYOFF + seat]
        out_mask[E.M_HAND_DEALT + seat, row] = np.uint64(st[ST_HAND_DEALT + seat])
        out_mask[E.M_CAPTURED + seat, row] = np.uint64(pile)
    out_mask[E.M_FIELD_DEALT, row] = np.uint64(st[ST_FIELD_DEALT])
    out_mask[E.M_OPENING_CLAIM, row] = np.uint64(st[ST_CLAIMED])
    out_mask[E.M_YAKU, row] = np.uint64(yaku0)
    out_mask[E.M_YAKU + 1, row] = np.uint64(yaku1)


# --- the numba round contract (``simcore.kernels.contract``) ---------------------------------

# The rules as the general kernel takes them: the rule table and the arrays of
# ``CompiledRules.kernel_args()`` (greedy's gain functions read those).
TenshoRules = namedtuple("TenshoRules", ["rt", "params", "rank", "rank_mask", "deal_order", "yaku_mask",
                                         "yaku_points", "yaku_in_set", "yaku_instant", "supersedes",
                                         "greedy_weight", "card_value", "chaff_mask"])
# One kernel thread's context: the seed, the rules, shuffle and deal-stream scratch, an observation,
# the learned player's features (a row per action and a spare one).
TenshoContext = namedtuple("TenshoContext", ["seed", "rt", "rules", "ids", "dstates", "obs", "features"])
OBS_BUFFER = 64  # the heuristic's packed observation, with room to spare


def kernel_rules(compiled) -> TenshoRules:
    """The ``TenshoRules`` of a ``CompiledRules``, in the kernel's exact dtypes."""
    (params, rank, rank_mask, deal_order, yaku_mask, yaku_points, yaku_in_set, yaku_instant, supersedes,
     greedy_weight, card_value, chaff_mask) = compiled.kernel_args()
    return TenshoRules(
        rule_table(compiled), np.ascontiguousarray(params, dtype=np.int32), np.ascontiguousarray(rank, dtype=np.int8),
        np.ascontiguousarray(rank_mask, dtype=np.uint64), np.ascontiguousarray(deal_order, dtype=np.int8),
        np.ascontiguousarray(yaku_mask, dtype=np.uint64), np.ascontiguousarray(yaku_points, dtype=np.int32),
        np.ascontiguousarray(yaku_in_set, dtype=np.uint64), np.ascontiguousarray(yaku_instant, dtype=np.uint64),
        np.ascontiguousarray(supersedes, dtype=np.uint64), np.ascontiguousarray(greedy_weight, dtype=np.int32),
        np.ascontiguousarray(card_value, dtype=np.int32), np.uint64(chaff_mask))


@internal_nb(cache=True, _nrt=False)
def observe_nb(st, seat, obs):
    """Pack ``seat``'s observation of ``st`` into ``obs`` (int64[>= OBS_SIZE], the layout of
    ``heuristic_nb.pack_observation``; ``OBS_CARD`` is the card of a pending capture, else -1)."""
    obs[H.OBS_SEAT] = seat
    obs[H.OBS_DEALER] = st[ST_DEALER]
    obs[H.OBS_YAKU_SET] = st[ST_YAKU_SET]
    obs[H.OBS_ROUND_IN_MATCH] = st[ST_ROUND_IN_MATCH]
    obs[H.OBS_MATCH_POINTS] = st[ST_MATCH_POINTS]
    obs[H.OBS_MATCH_POINTS + 1] = st[ST_MATCH_POINTS + 1]
    obs[H.OBS_HAND] = st[ST_HAND + seat]
    obs[H.OBS_FIELD] = st[ST_FIELD]
    obs[H.OBS_PILES] = st[ST_PILE]
    obs[H.OBS_PILES + 1] = st[ST_PILE + 1]
    obs[H.OBS_SEEN] = st[ST_SEEN]
    obs[H.OBS_DRAW_SIZE] = DRAW_SIZE - st[ST_DRAW_TOP]
    obs[H.OBS_TURN] = st[ST_TURN]
    obs[H.OBS_CARD] = st[ST_CARD] if st[ST_KIND] == K_CAPTURE else -1


@internal_nb(cache=True)
def heuristic_choose_state_nb(st, table, obs):
    """The heuristic policy's choice at ``st``'s pending decision (``heuristic_nb``), deciding
    from the deciding seat's packed observation only; ``table`` its ``heuristic_tables``.

    Compiled with reference counting, unlike its callers: compiled without it, this call to
    ``heuristic_choose_nb`` measured 2.7 instead of 1.1 microseconds (numba 0.68)."""
    observe_nb(st, st[ST_DSEAT], obs)
    n = st[ST_N]
    return H.heuristic_choose_nb(st[ST_KIND], obs, st[ST_KEYS:ST_KEYS + MAX_ACTIONS], n, table)


@implements(C.context_nb, TenshoRules, nrt=True)
def _context(rules, seed):
    greedy = (rules.params, rules.rank, rules.rank_mask, rules.deal_order, rules.yaku_mask, rules.yaku_points,
              rules.yaku_in_set, rules.yaku_instant, rules.supersedes, rules.greedy_weight, rules.card_value,
              rules.chaff_mask)
    return TenshoContext(seed, rules.rt, greedy, np.zeros(IDS_SIZE, dtype=np.int64), np.zeros(4, dtype=np.uint64),
                         np.zeros(OBS_BUFFER, dtype=np.int64), np.zeros((MAX_ACTIONS + 1, N_FEATURES), dtype=np.int64))


@implements(C.start_round_nb, TenshoContext)
def _start_round(ctx, state, unit, round_in_match, round_index, independent, dealer, points):
    alternate_index = unit if independent else round_in_match
    new_round_nb(state, ctx.seed, round_index, dealer, alternate_index, round_in_match, points[0], points[1],
                 ctx.rt, ctx.ids, ctx.dstates)


C.implements_flat_state(TenshoContext, ST_SIZE, 2, ST_DONE, ST_DSEAT, ST_N, ST_KEYS, ST_PAYOFF)
C.implements_match_rows(TenshoContext, 2, E.C_MATCH_POINTS)


@implements(C.apply_nb, TenshoContext)
def _apply(ctx, state, index):
    apply_nb(state, index, ctx.seed, ctx.rt, ctx.ids, ctx.dstates)


@implements(C.sample_hidden_nb, TenshoContext)
def _sample_hidden(ctx, state, seat, streams, at, out):
    sample_hidden_nb(state, out, seat, streams, at, ctx.rt, ctx.ids)


@implements(C.rehand_nb, TenshoContext, inline=False)
def _rehand(ctx, history, k, now, world, seat, out):
    # a card played or a capture chosen: the other seat's hand then is the cards it has played
    # since (seen by all) and its hand in ``world``; the draw pile below what has been turned
    # since and the dead cards are ``world``'s (RoundState.rehand)
    kind = history[k, ST_KIND]
    if kind != K_PLAY and kind != K_CAPTURE:
        return False
    for j in range(ST_SIZE):
        out[j] = history[k, j]
    opponent = 1 - seat
    hand = (history[k, ST_HAND + opponent] & ~now[ST_HAND + opponent]) | world[ST_HAND + opponent]
    out[ST_HAND + opponent] = hand
    out[ST_HAND_DEALT + opponent] = 0
    out[ST_DEAD] = world[ST_DEAD]
    for i in range(now[ST_DRAW_TOP], DRAW_SIZE):
        out[ST_DRAW + i] = world[ST_DRAW + i]
    if kind == K_PLAY and out[ST_DSEAT] == opponent:
        set_play_keys_nb(out, hand)
    return True


@implements(C.random_choice_nb, TenshoContext)
def _random_choice(ctx, state, streams, at):
    return random_choose_nb(state, streams, at)


@implements(C.greedy_choice_nb, TenshoContext)
def _greedy_choice(ctx, state, param):
    return greedy_choose_nb(state, param, ctx.rules)


@implements(C.heuristic_choice_nb, TenshoContext)
def _heuristic_choice(ctx, state, table):
    return heuristic_choose_state_nb(state, table, ctx.obs)


@implements(C.rollout_turns_nb, TenshoContext)
def _rollout_turns(ctx, state, rollout_id, streams, at):
    return False


@implements(C.learned_features_nb, TenshoContext)
def _learned_features(ctx, state, aux):
    observe_nb(state, state[ST_DSEAT], ctx.obs)
    n = state[ST_N]
    kind = state[ST_KIND]
    features_nb(kind, ctx.obs, state[ST_KEYS:ST_KEYS + MAX_ACTIONS], n, aux, ctx.features)
    return ctx.features[:n], (max(ctx.obs[H.OBS_YAKU_SET], 1) - 1) * 5 + kind


@implements(C.write_row_nb, TenshoContext)
def _write_row(ctx, state, out_int, out_mask, row):
    write_row_nb(state, out_int, out_mask, row, ctx.rt)


@implements(C.winner_nb, TenshoContext)
def _winner(ctx, state):
    return state[ST_WINNER]


@implements(C.add_match_points_nb, TenshoContext)
def _add_match_points(ctx, state, points):
    if ctx.rt[R_PARAMS + E.P_MATCH_SCORING] == 0:  # by wins
        winner = state[ST_WINNER]
        if winner >= 0:
            points[winner] += 1
    else:
        points[0] += state[ST_SCORE]
        points[1] += state[ST_SCORE + 1]


@implements(C.next_dealer_nb, TenshoContext)
def _next_dealer(ctx, dealer, winner):
    return winner
