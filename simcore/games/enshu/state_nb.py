"""Numba state machine of an Enshu-bana round: ``reference.RoundState`` over two flat arrays.

Contract
--------
A round's state is a pair of arrays, ``si`` int64[N_SI] and ``sm`` uint64[N_SM] (slot indices
below), so that a clone is two array copies into preallocated buffers.  It steps through the
order of ``simcore.games.enshu.reference`` phase by phase (the same ``phase`` values, one
``P_*`` constant each) and pauses at each decision a seat takes, exactly where ``RoundState``
pauses: the pending decision's kind (the action-key kind codes ``KIND_*`` of the reference's
``action_key``), seat and legal actions (``si[I_KEYS:I_KEYS + si[I_PEND_N]]``, one int64 action
key each, in the reference's order) are in the state.  ``apply_nb(si, sm, rt, ws, index)``
takes the action at ``index`` and steps on to the next decision or the end
(``si[I_DONE] == 1``).  ``sample_hidden_nb`` is ``RoundState.sample_hidden`` draw for draw.

``rt`` is the tuple of packed rule tables ``(params, month, month_mask, card_points,
class_masks, yaku_masks, yaku_ints, teyaku_masks, teyaku_ints)`` of
``simcore.games.enshu.kernel_nb.pack_rules_nb``; ``ws`` the scratch tuple of ``new_workspace_nb``
(teyaku option arrays and an int64 card buffer).  Streams are 4-word xoshiro states at an offset
of a flat uint64 array (``simcore.rng``): the round's deal_nb and rules streams live in ``sm``; a
seat's decision stream is the caller's.

The random and greedy policies (``random_choose_nb``, ``greedy_choose_nb``) answer a pending
decision exactly as ``simcore.games.enshu.policies`` does, drawing the same words from the seat's
stream.  ``observe_nb`` packs what a seat may see into the heuristic's layout
(``heuristic_nb.pack_observation``); ``write_row_nb`` writes the finished round's row as
``RecordLayout.fill_row``.  Every function but the allocating ``new_workspace_nb`` runs without
numba's reference counting (``_nrt=False``, as ``kernel_nb``'s round).
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from simcore.games.enshu import enums as E
from simcore.games.enshu.features_nb import N_FEATURES, features_nb
from simcore.games.enshu.heuristic_nb import (
    OBS_ACTING_DEALER,
    OBS_ACTIVE,
    OBS_CARD,
    OBS_DEALER,
    OBS_DECLARED,
    OBS_DRAW_SIZE,
    OBS_DROPOUT_PASS,
    OBS_EXPOSED,
    OBS_FIELD,
    OBS_HAND,
    OBS_KOTSU,
    OBS_MATCH_POINTS,
    OBS_MIZU_KOTSU,
    OBS_MULTIPLIER,
    OBS_PILES,
    OBS_PLAYERS,
    OBS_ROUND_IN_MATCH,
    OBS_SCORES,
    OBS_SEAT,
    OBS_SEEN,
    OBS_SIZE,
    OBS_SOURCE,
    OBS_TURN,
    OBS_VARIANT,
    OBS_WINNER,
    heuristic_choose_nb,
)
from simcore.games.enshu.kernel_nb import (
    K_BRIGHT,
    K_ICP,
    K_STOPPING,
    K_WILLOW,
    O_INDEX,
    O_MONTH,
    O_THREE,
    T_BONUS,
    T_KIND,
    T_PATTERN,
    T_VALUE,
    TM_BONUS_MONTHS,
    Y_VALUE,
    best_capture_nb,
    completed_yaku_nb,
    greedy_gain_nb,
    greedy_play_nb,
    icp_four_nb,
    stopping_yaku_nb,
    teyaku_options_nb,
    triplet_bonus_earned_nb,
    yaku_bits_score_nb,
)
from simcore.hanafuda.capture_nb import CAPTURE_ALL, CAPTURE_NONE, capture_nb
from simcore.kernels import contract as C
from simcore.kernels.bits import (
    KIND_SHIFT,
    U0,
    U1,
    bit,
    key_of_nb,
    kth_id,
    lowest_id,
    mask_value,
    popcount,
)
from simcore.kernels.contract import implements
from simcore.kernels.internal import internal_nb
from simcore.kernels.pending_nb import pose_two_nb
from simcore.kernels.policy_ids import POLICY_HEURISTIC, POLICY_RANDOM
from simcore.kernels.rows_nb import write_outcome_nb
from simcore.rng import (
    DEAL_STREAM,
    RULES_STREAM,
    next_u64_nb,
    shuffle_places_nb,
    shuffled_ids_nb,
    stream_init_nb,
    uniform_below_nb,
)

MAX_SEATS = E.MAX_SEATS
DECK_SIZE = E.DECK_SIZE

# --- decision kinds: the action-key kind codes (key = kind << 56 | payload) --------------------
KIND_MIZU_KOTSU = 0
KIND_KOTSU = 1
KIND_JOIN = 2
KIND_FUKE = 3
KIND_DECLARE_TEYAKU = 4
KIND_PLAY = 5
KIND_CAPTURE = 6
NO_KIND = -1

# --- phases (``RoundState.phase``) ------------------------------------------------------------
P_MIZU = 0
P_DEAL = 1
P_KOTSU = 2
P_DROPOUT_START = 3
P_DROPOUT_PASS = 4
P_DROPOUT_ASK = 5
P_ACTING_DEALER = 6
P_TEYAKU_START = 7
P_TEYAKU = 8
P_TURNS_START = 9
P_TURN = 10
P_AFTER_PLAY = 11
P_AFTER_DRAW = 12
P_SCORE = 13
P_FUKE = 14
P_SETTLE = 15
P_FINISH = 16

MAX_ACTIONS = 24  # a hand (at most 10 cards here), three captures, or one group's options + none
MAX_OPTS = MAX_ACTIONS - 1
MAX_DECLARED = 4  # per seat: a stopping teyaku, group A and group B

# --- si: int64 slots ---------------------------------------------------------------------------
I_PHASE = 0
I_DONE = 1
I_DEALER = 2
I_ACTING = 3
I_ROUND_INDEX = 4
I_MATCH = 5
I_ROUND_IN_MATCH = 6
I_TURN = 7
I_MULTIPLIER = 8
I_PASSES = 9
I_REDEALS = 10
I_GATHERED = 11
I_WINNER = 12
I_MIZU_INDEX = 13
I_MIZU_COUNT = 14
I_KOTSU_INDEX = 15
I_POOL_LEN = 16
I_POOL_INDEX = 17
I_REMAINING = 18
I_JOINED_LEN = 19
I_TEYAKU_LEN = 20
I_TEYAKU_INDEX = 21
I_TEYAKU_DECIDES = 22
I_STOP_TEYAKU = 23  # teyaku index of the stopping teyaku (W), -1 none
I_SEAT = 24
I_FUKE_LEN = 25
I_FUKE_INDEX = 26
I_DRAW_START = 27
I_DRAW_LEN = 28
I_PEND_KIND = 29
I_PEND_SEAT = 30
I_PEND_N = 31
I_PEND_CARD = 32
I_PEND_SOURCE = 33  # 0 play, 1 draw
I_PEND_GROUP = 34
I_REASON = 35
I_C_WINNER = 36
I_FUKE = 37
I_SCORES_SET = 38  # 1 once the count of variant C made the scores public
I_COUNTED = 39
# per-seat blocks of MAX_SEATS
I_ACTIVE = 40
I_MIZU = I_ACTIVE + MAX_SEATS
I_KOTSU = I_MIZU + MAX_SEATS
I_N_DECLARED = I_KOTSU + MAX_SEATS
I_YAKU_POINTS = I_N_DECLARED + MAX_SEATS
I_TEYAKU_POINTS = I_YAKU_POINTS + MAX_SEATS
I_CARD_POINTS = I_TEYAKU_POINTS + MAX_SEATS
I_YAKU_MULT = I_CARD_POINTS + MAX_SEATS
I_SCORE = I_YAKU_MULT + MAX_SEATS
I_PAYOFF = I_SCORE + MAX_SEATS
I_SCORES = I_PAYOFF + MAX_SEATS  # ``RoundState.scores`` (variant C, after the count)
I_MATCH_POINTS = I_SCORES + MAX_SEATS  # the match totals the round starts from
I_POOL = I_MATCH_POINTS + MAX_SEATS
I_JOINED = I_POOL + MAX_SEATS
I_TEYAKU_SEATS = I_JOINED + MAX_SEATS
I_FUKE_SEATS = I_TEYAKU_SEATS + MAX_SEATS
# declared teyaku: seat s, slot d at s * MAX_DECLARED + d
I_DECL_INDEX = I_FUKE_SEATS + MAX_SEATS
I_DECL_MONTH = I_DECL_INDEX + MAX_SEATS * MAX_DECLARED
I_DECL_THREE = I_DECL_MONTH + MAX_SEATS * MAX_DECLARED
I_DRAW = I_DECL_THREE + MAX_SEATS * MAX_DECLARED  # the draw pile, top at I_DRAW + si[I_DRAW_START]
I_KEYS = I_DRAW + DECK_SIZE
PENDING = (I_PEND_KIND, I_PEND_SEAT, I_PEND_N, I_KEYS)  # where the pending decision is posed (pending_nb)
I_OPT_INDEX = I_KEYS + MAX_ACTIONS
I_OPT_MONTH = I_OPT_INDEX + MAX_OPTS
I_OPT_THREE = I_OPT_MONTH + MAX_OPTS
N_SI = I_OPT_THREE + MAX_OPTS

# --- sm: uint64 slots --------------------------------------------------------------------------
M_FIELD = 0
M_SET_ASIDE = 1
M_SEEN = 2
M_FIELD_DEALT = 3
M_IN_PLAY = 4
M_STOPPING = 5
M_SEED = 6
M_DEAL_STREAM = 8  # 4 words
M_RULES_STREAM = 12  # 4 words
M_HANDS = 16
M_PILES = M_HANDS + MAX_SEATS
M_EXPOSED = M_PILES + MAX_SEATS
M_HAND_DEALT = M_EXPOSED + MAX_SEATS
M_TEYAKU_DEALT = M_HAND_DEALT + MAX_SEATS
M_YAKU = M_TEYAKU_DEALT + MAX_SEATS
M_DECLARED = M_YAKU + MAX_SEATS  # teyaku bitset declared per seat
M_OPT_CARDS = M_DECLARED + MAX_SEATS
N_SM = M_OPT_CARDS + MAX_OPTS

# ws: (opt_ints int64[3, K], opt_cards uint64[K], cards int64[64])
WS_CARDS = 64


@internal_nb(cache=True)
def new_workspace_nb(n_teyaku):
    """The scratch ``ws`` of one thread: (int64[3, 2 * n_teyaku + 2] and uint64[2 * n_teyaku + 2]
    teyaku options, as ``kernel_nb.teyaku_options_nb`` fills them; int64[WS_CARDS] cards)."""
    size = 2 * n_teyaku + 2
    return (np.empty((3, size), dtype=np.int64), np.empty(size, dtype=np.uint64),
            np.empty(WS_CARDS, dtype=np.int64))


def new_state_arrays():
    """Fresh ``(si, sm)`` arrays for one state (Python-side helper for tests)."""
    return np.zeros(N_SI, dtype=np.int64), np.zeros(N_SM, dtype=np.uint64)


@internal_nb(cache=True, _nrt=False)
def draw_uniform_nb(states, at, n):
    """``Stream.uniform_below(n)`` on the stream at ``states[at:at + 4]`` (one call site)."""
    return uniform_below_nb(states, n, at)




@internal_nb(cache=True, _nrt=False)
def copy_state_nb(si, sm, to_si, to_sm):
    """Clone: copy the state ``(si, sm)`` into ``(to_si, to_sm)`` (element loops: a slice
    assignment between arrays needs the runtime for its overlap copy)."""
    for k in range(N_SI):
        to_si[k] = si[k]
    for k in range(N_SM):
        to_sm[k] = sm[k]


# --- setup ----------------------------------------------------------------------------------


@internal_nb(cache=True, _nrt=False)
def raises_allowed_nb(params):
    """(C) Whether mizu-kotsu and kotsu are played."""
    return params[E.P_PLAYERS] >= 4 or params[E.P_C_KOTSU_SMALL_GAMES] == 0


@nb.njit(inline="always", cache=True, _nrt=False)
def new_round_nb(si, sm, rt, ws, seed, round_index, dealer, match, round_in_match, match_points):
    """Set ``(si, sm)`` to the round's start and step to its first decision (``RoundState()``)."""
    params = rt[0]
    n = params[E.P_PLAYERS]
    si[:] = 0
    sm[:] = U0
    si[I_DEALER] = dealer
    si[I_ACTING] = dealer
    si[I_ROUND_INDEX] = round_index
    si[I_MATCH] = match
    si[I_ROUND_IN_MATCH] = round_in_match
    si[I_MULTIPLIER] = 1
    si[I_WINNER] = -1
    si[I_STOP_TEYAKU] = -1
    si[I_SEAT] = dealer
    si[I_REMAINING] = n
    si[I_PEND_KIND] = NO_KIND
    si[I_C_WINNER] = -1
    si[I_FUKE] = -1
    si[I_TEYAKU_DECIDES] = 1
    for s in range(n):
        si[I_ACTIVE + s] = 1
        si[I_MATCH_POINTS + s] = match_points[s]
    sm[M_SEED] = seed
    stream_init_nb(sm, seed, round_index, DEAL_STREAM, M_DEAL_STREAM)
    # the reference makes the rules stream when it first needs it: the same words
    stream_init_nb(sm, seed, round_index, RULES_STREAM, M_RULES_STREAM)
    if params[E.P_VARIANT] == E.VARIANT_C and raises_allowed_nb(params):
        si[I_PHASE] = P_MIZU
    else:
        si[I_PHASE] = P_DEAL
    advance_nb(si, sm, rt, ws)


# --- helpers ----------------------------------------------------------------------------------


@internal_nb(cache=True, _nrt=False)
def first_active_from_nb(si, start, n):
    seat = start
    for _ in range(n):
        if si[I_ACTIVE + seat] == 1:
            return seat
        seat = (seat + 1) % n
    return start


@internal_nb(cache=True, _nrt=False)
def declare_option_nb(si, sm, seat, index, month, three, cards):
    """``RoundState.declare``: record the option and expose its cards."""
    d = si[I_N_DECLARED + seat]
    si[I_DECL_INDEX + seat * MAX_DECLARED + d] = index
    si[I_DECL_MONTH + seat * MAX_DECLARED + d] = month
    si[I_DECL_THREE + seat * MAX_DECLARED + d] = three
    si[I_N_DECLARED + seat] = d + 1
    sm[M_DECLARED + seat] |= bit(index)
    sm[M_EXPOSED + seat] |= cards
    sm[M_SEEN] |= cards


@internal_nb(cache=True, _nrt=False)
def best_opt_nb(count, opt_ints, teyaku_ints):
    best = 0
    for k in range(1, count):
        if teyaku_ints[T_VALUE, opt_ints[O_INDEX, k]] > teyaku_ints[T_VALUE, opt_ints[O_INDEX, best]]:
            best = k
    return best


@internal_nb(cache=True, _nrt=False)
def gather_dropped_hands_nb(si, sm, rt):
    """Dropped hands go into the draw pile, which is reshuffled (or are set aside)."""
    params = rt[0]
    n = params[E.P_PLAYERS]
    si[I_GATHERED] = 1
    dealer = si[I_DEALER]
    # compact the draw pile to the start of its slots (nothing was drawn yet)
    start = si[I_DRAW_START]
    length = si[I_DRAW_LEN]
    for k in range(length):
        si[I_DRAW + k] = si[I_DRAW + start + k]
    si[I_DRAW_START] = 0
    added = 0
    aside = U0
    for k in range(n):
        seat = (dealer + k) % n
        if si[I_ACTIVE + seat] == 0:
            rest = sm[M_HANDS + seat]
            aside |= rest
            sm[M_HANDS + seat] = U0
            while rest:
                si[I_DRAW + length + added] = lowest_id(rest)
                rest &= rest - U1
                added += 1
    if added == 0:
        return
    if params[E.P_C_DROPPED_HANDS] == 1:
        sm[M_SET_ASIDE] = aside
    else:
        total = length + added
        si[I_DRAW_LEN] = total
        at = M_RULES_STREAM
        sm[at], sm[at + 1], sm[at + 2], sm[at + 3] = shuffle_places_nb(
            sm[at], sm[at + 1], sm[at + 2], sm[at + 3], si, total, 0, total, I_DRAW)


@internal_nb(cache=True, _nrt=False)
def deal_nb(si, sm, rt):
    """``RoundState.deal`` from the deal_nb stream (misdeals redeal)."""
    params, month_mask = rt[0], rt[2]
    class_masks = rt[4]
    n = params[E.P_PLAYERS]
    hand_size = params[E.P_HAND]
    field_size = params[E.P_FIELD]
    dealer = si[I_DEALER]
    icp = class_masks[K_ICP]
    at = M_DEAL_STREAM
    while True:
        for i in range(DECK_SIZE):
            si[I_DRAW + i] = i
        sm[at], sm[at + 1], sm[at + 2], sm[at + 3] = shuffle_places_nb(
            sm[at], sm[at + 1], sm[at + 2], sm[at + 3], si, DECK_SIZE, 0, DECK_SIZE, I_DRAW)
        field = U0
        for i in range(field_size):
            field |= bit(si[I_DRAW + i])
        for k in range(n):
            hand = U0
            begin = field_size + k * hand_size
            for i in range(begin, begin + hand_size):
                hand |= bit(si[I_DRAW + i])
            sm[M_HANDS + (dealer + k) % n] = hand
        misdeal = False
        for m in range(1, E.N_MONTHS + 1):
            on_field = popcount(field & month_mask[m])
            if params[E.P_MISDEAL_FIELD_FOUR] != 0 and on_field == 4:
                misdeal = True
            if params[E.P_MISDEAL_FIELD_ICP_THREE] != 0 and on_field >= 3 and (month_mask[m] & icp) != U0:
                misdeal = True
        if params[E.P_MISDEAL_HAND_ICP_FOUR] == E.HAND_FOUR_AT_DEAL:
            for s in range(n):
                if icp_four_nb(sm[M_HANDS + s], month_mask, icp):
                    misdeal = True
        if misdeal and si[I_REDEALS] < E.MAX_REDEALS:
            si[I_REDEALS] += 1
            continue
        break
    dealt = field_size + n * hand_size
    draw_len = DECK_SIZE - dealt
    for i in range(draw_len):
        si[I_DRAW + i] = si[I_DRAW + dealt + i]
    si[I_DRAW_START] = 0
    si[I_DRAW_LEN] = draw_len
    sm[M_FIELD] = field
    sm[M_FIELD_DEALT] = field
    for s in range(n):
        sm[M_HAND_DEALT + s] = sm[M_HANDS + s]
        sm[M_PILES + s] = U0
    sm[M_SET_ASIDE] = U0
    sm[M_SEEN] = field


@internal_nb(cache=True, _nrt=False, forceinline=True)
def resolve_nb(si, sm, params, month, month_mask, seat, card, source):
    """``RoundState.resolve``: a played or turned card against the field (may pause at a capture).

    Inlined by LLVM (typed once, not in each of its two callers), and given only the arrays it
    reads: a call's arguments are every array's fields, so a call with the whole rule tuple costs
    more than the resolution itself."""
    cb = bit(card)
    sm[M_SEEN] |= cb
    kind, matches = capture_nb(sm[M_FIELD], card, month, month_mask, params[E.P_CAPTURE_THREE] == 0)
    if kind == CAPTURE_NONE:
        sm[M_FIELD] |= cb
        return
    if kind == CAPTURE_ALL:
        take_nb(si, sm, seat, card, matches)
        return
    sm[M_IN_PLAY] = cb
    si[I_PEND_KIND] = KIND_CAPTURE
    si[I_PEND_SEAT] = seat
    si[I_PEND_CARD] = card
    si[I_PEND_SOURCE] = source
    k = 0
    rest = matches
    while rest:
        x = lowest_id(rest)
        rest &= rest - U1
        si[I_KEYS + k] = key_of_nb(KIND_CAPTURE, bit(x))
        k += 1
    si[I_PEND_N] = k


@internal_nb(cache=True, _nrt=False)
def take_nb(si, sm, seat, card, taken):
    sm[M_IN_PLAY] = U0
    sm[M_FIELD] &= ~taken
    sm[M_PILES + seat] |= bit(card) | taken


@internal_nb(cache=True, _nrt=False)
def stop_nb(si, sm, seat, bits):
    si[I_WINNER] = seat
    sm[M_STOPPING] = bits
    si[I_PHASE] = P_SCORE


# --- scoring -------------------------------------------------------------------------------


@internal_nb(cache=True, _nrt=False)
def tally_nb(si, sm, rt, seat):
    """``RoundState.tally``: yaku, card, yaku and teyaku points into the count; returns the
    multiplier yaku as (count, sum, product, max)."""
    params, month_mask, card_points = rt[0], rt[2], rt[3]
    yaku_masks, yaku_ints, teyaku_masks, teyaku_ints = rt[5], rt[6], rt[7], rt[8]
    pile = sm[M_PILES + seat]
    bits = completed_yaku_nb(pile, yaku_masks)
    n_declared = si[I_N_DECLARED + seat]
    upgrade_months = U0
    if params[E.P_TRIPLET_UPGRADE] == 1:
        in_four_three = params[E.P_C_TRIPLET_BONUS_IN_FOUR_THREE] == 0
        for d in range(n_declared):
            slot = seat * MAX_DECLARED + d
            pattern = teyaku_ints[T_PATTERN, si[I_DECL_INDEX + slot]]
            if pattern == E.PATTERN_TRIPLET:
                upgrade_months |= bit(si[I_DECL_MONTH + slot])
            elif pattern == E.PATTERN_FOUR_THREE and in_four_three:
                upgrade_months |= bit(si[I_DECL_THREE + slot])
    yaku_points, n_mult, mult_sum, mult_product, mult_max = yaku_bits_score_nb(bits, upgrade_months, yaku_ints)
    teyaku_points = 0
    all_four = params[E.P_C_TRIPLET_BONUS_CONDITION] == 1
    hand_dealt = sm[M_HAND_DEALT + seat]
    for d in range(n_declared):
        slot = seat * MAX_DECLARED + d
        index = si[I_DECL_INDEX + slot]
        if teyaku_ints[T_KIND, index] != E.TEYAKU_STOP:
            teyaku_points += teyaku_ints[T_VALUE, index]
        bonus = teyaku_ints[T_BONUS, index]
        pattern = teyaku_ints[T_PATTERN, index]
        m = 0
        if pattern == E.PATTERN_TRIPLET:
            m = si[I_DECL_MONTH + slot]
        elif pattern == E.PATTERN_FOUR_THREE:
            m = si[I_DECL_THREE + slot]
        if bonus != 0 and m != 0 and ((teyaku_masks[TM_BONUS_MONTHS, index] >> np.uint64(m)) & U1) != U0:
            if triplet_bonus_earned_nb(pile, month_mask[m], hand_dealt, all_four):
                teyaku_points += bonus
    sm[M_YAKU + seat] = bits
    si[I_CARD_POINTS + seat] = mask_value(pile, card_points)
    si[I_YAKU_POINTS + seat] = yaku_points
    si[I_TEYAKU_POINTS + seat] = teyaku_points
    return n_mult, mult_sum, mult_product, mult_max


@internal_nb(cache=True, _nrt=False)
def top_score_nb(si, params, start):
    """``RoundState.top_score`` over ``si[I_SCORE:]``."""
    n = params[E.P_PLAYERS]
    reverse = params[E.P_VARIANT] != E.VARIANT_W and params[E.P_TIE_ORDER] == 1
    best = -1
    for k in range(n):
        seat = (start - k) % n if reverse else (start + k) % n
        if si[I_ACTIVE + seat] == 0:
            continue
        if best < 0 or si[I_SCORE + seat] > si[I_SCORE + best]:
            best = seat
    return best


@internal_nb(cache=True, _nrt=False)
def phase_score_nb(si, sm, rt):
    """``RoundState._phase_score``."""
    params = rt[0]
    yaku_ints, teyaku_ints = rt[6], rt[8]
    n = params[E.P_PLAYERS]
    variant = params[E.P_VARIANT]
    if si[I_STOP_TEYAKU] >= 0:
        reason = E.END_TEYAKU_STOP
    elif sm[M_STOPPING] != U0:
        reason = E.END_UCHIKIRI
    else:
        reason = E.END_SCORE
    for s in range(n):
        si[I_YAKU_MULT + s] = 1
        si[I_SCORE + s] = 0
        si[I_PAYOFF + s] = 0
        si[I_YAKU_POINTS + s] = 0
        si[I_TEYAKU_POINTS + s] = 0
        si[I_CARD_POINTS + s] = 0
        sm[M_YAKU + s] = U0
    n_active = 0
    for s in range(n):
        if si[I_ACTIVE + s] == 1:
            n_active += 1
            n_mult, mult_sum, mult_product, mult_max = tally_nb(si, sm, rt, s)
            if variant == E.VARIANT_S:
                if params[E.P_S_COMBINATION] == 2:
                    si[I_YAKU_MULT + s] = mult_sum if n_mult > 0 else 1
                else:
                    si[I_YAKU_MULT + s] = mult_product
            elif variant == E.VARIANT_C and n_mult > 0:
                si[I_YAKU_MULT + s] = mult_product if params[E.P_C_UCHIKIRI_COMBO] == 0 else mult_max
    si[I_REASON] = reason
    si[I_C_WINNER] = si[I_WINNER]
    si[I_COUNTED] = 1
    si[I_PHASE] = P_FINISH
    dealer = si[I_DEALER]
    if variant == E.VARIANT_W:
        stake = params[E.P_W_STAKE]
        if reason == E.END_SCORE:
            top = 0
            for s in range(n):
                total = si[I_CARD_POINTS + s] + si[I_YAKU_POINTS + s] + si[I_TEYAKU_POINTS + s]
                si[I_SCORE + s] = total
                if s == 0 or total > top:
                    top = total
            n_tied = 0
            winner = -1
            for k in range(n):
                seat = (dealer + k) % n
                si[I_PAYOFF + seat] = -stake
                if si[I_SCORE + seat] == top:
                    if winner < 0:
                        winner = seat
                    n_tied += 1
            if params[E.P_W_TIE] == 0 or n_tied == 1:
                si[I_PAYOFF + winner] = stake * (n - 1)
            else:
                won = stake * (n - n_tied)
                k_tied = 0
                for k in range(n):
                    seat = (dealer + k) % n
                    if si[I_SCORE + seat] == top:
                        si[I_PAYOFF + seat] = won // n_tied + (1 if k_tied < won % n_tied else 0)
                        k_tied += 1
            si[I_C_WINNER] = winner
        else:
            if reason == E.END_TEYAKU_STOP:
                stakes = np.int64(teyaku_ints[T_VALUE, si[I_STOP_TEYAKU]])
            else:
                combo = params[E.P_W_UCHIKIRI_COMBO]
                stakes = np.int64(0 if combo == E.COMBO_SUM else 1)
                first = True
                rest = sm[M_STOPPING]
                while rest:
                    i = lowest_id(rest)
                    rest &= rest - U1
                    value = yaku_ints[Y_VALUE, i]
                    if combo == E.COMBO_SUM:
                        stakes += value
                    elif combo == E.COMBO_MAX:
                        if first or value > stakes:
                            stakes = value
                    else:
                        stakes *= value
                    first = False
            per_loser = (stakes + params[E.P_W_UCHIKIRI_PAYMENT]) * stake
            for s in range(n):
                si[I_PAYOFF + s] = -per_loser
            si[I_PAYOFF + si[I_C_WINNER]] = per_loser * (n - 1)
    elif variant == E.VARIANT_S:
        combination = params[E.P_S_COMBINATION]
        for s in range(n):
            cards = si[I_CARD_POINTS + s]
            own = si[I_YAKU_POINTS + s] + si[I_TEYAKU_POINTS + s]
            factor = si[I_YAKU_MULT + s]
            if combination == 1:
                score = cards * factor + own
            else:
                score = (cards + own) * factor
            si[I_SCORE + s] = score
            si[I_PAYOFF + s] = score
        si[I_C_WINNER] = top_score_nb(si, params, dealer)
    else:
        zero_sum = params[E.P_C_SCORE_FORMULA] == 1
        own_total = 0
        for s in range(n):
            if si[I_ACTIVE + s] == 1:
                own_total += si[I_YAKU_POINTS + s] + si[I_TEYAKU_POINTS + s]
        multiplier = si[I_MULTIPLIER]
        for s in range(n):
            if si[I_ACTIVE + s] == 0:
                continue
            own = si[I_YAKU_POINTS + s] + si[I_TEYAKU_POINTS + s]
            base = si[I_CARD_POINTS + s] - (own_total - own)
            if zero_sum:
                base += (n_active - 1) * own
            si[I_SCORE + s] = base * multiplier * si[I_YAKU_MULT + s]
        if reason != E.END_UCHIKIRI:
            si[I_C_WINNER] = top_score_nb(si, params, si[I_ACTING])
        for s in range(n):
            si[I_SCORES + s] = si[I_SCORE + s]
        si[I_SCORES_SET] = 1
        si[I_WINNER] = si[I_C_WINNER]
        si[I_PHASE] = P_SETTLE
        if reason != E.END_UCHIKIRI or params[E.P_C_FUKE_ON_UCHIKIRI] == 1:
            acting = si[I_ACTING]
            k_fuke = 0
            for k in range(n):
                seat = (acting + k) % n
                if si[I_ACTIVE + seat] == 1:
                    si[I_FUKE_SEATS + k_fuke] = seat
                    k_fuke += 1
            si[I_FUKE_LEN] = k_fuke
            si[I_FUKE_INDEX] = 0
            si[I_PHASE] = P_FUKE


@internal_nb(cache=True, _nrt=False)
def phase_settle_nb(si, sm, rt):
    """``RoundState._phase_settle`` (variant C)."""
    params = rt[0]
    n = params[E.P_PLAYERS]
    if si[I_FUKE] >= 0:
        si[I_REASON] = E.END_FUKE
        si[I_C_WINNER] = -1
        for s in range(n):
            si[I_SCORE + s] = 0
    else:
        winner = si[I_C_WINNER]
        paid = si[I_SCORE + winner]
        if params[E.P_C_NEGATIVE_SCORE] == 0 and paid < 0:
            paid = 0
        n_active = 0
        for s in range(n):
            if si[I_ACTIVE + s] == 1:
                si[I_PAYOFF + s] = -paid
                n_active += 1
        si[I_PAYOFF + winner] = paid * (n_active - 1)
    si[I_PHASE] = P_FINISH


# --- the phases -------------------------------------------------------------------------------
# ``advance_nb`` steps through them; the teyaku decisions, the next turn and the round's end are
# written apart, so that ``sample_hidden_nb`` and ``turns_fast_nb`` (which go on from the teyaku
# phase, and from the scoring) use only those, not the whole of ``advance_nb``.  Each is typed
# once and inlined by LLVM (``forceinline``) where numba's own inlining typed it again in every
# caller (simcore.kernels.linking: the kernel optimises them all together).


@internal_nb(cache=True, _nrt=False, forceinline=True)
def teyaku_phase_nb(si, sm, rt, ws):
    """``P_TEYAKU``: the next seat (and group) with a teyaku to declare is asked, or declares its
    best option when the seats do not decide; after the last, ``P_TURNS_START``."""
    month_mask, class_masks = rt[2], rt[4]
    teyaku_masks, teyaku_ints = rt[7], rt[8]
    opt_ints, opt_cards = ws[0], ws[1]
    junk_only = rt[0][E.P_C_EXPOSURE] == 1
    while si[I_TEYAKU_INDEX] < 2 * si[I_TEYAKU_LEN]:
        index = si[I_TEYAKU_INDEX]
        seat = si[I_TEYAKU_SEATS + (index >> 1)]
        group = index & 1
        count = teyaku_options_nb(sm[M_HANDS + seat], np.int64(group), np.int64(0), month_mask, class_masks,
                                  junk_only, teyaku_masks, teyaku_ints, opt_ints, opt_cards)
        if count > 0:
            if si[I_TEYAKU_DECIDES] == 1:
                si[I_PEND_KIND] = KIND_DECLARE_TEYAKU
                si[I_PEND_SEAT] = seat
                si[I_PEND_GROUP] = group
                for k in range(count):
                    si[I_OPT_INDEX + k] = opt_ints[O_INDEX, k]
                    si[I_OPT_MONTH + k] = opt_ints[O_MONTH, k]
                    si[I_OPT_THREE + k] = opt_ints[O_THREE, k]
                    sm[M_OPT_CARDS + k] = opt_cards[k]
                    si[I_KEYS + k] = key_of_nb(
                        KIND_DECLARE_TEYAKU,
                        (opt_ints[O_INDEX, k] + 1) | (opt_ints[O_MONTH, k] << 8)
                        | (opt_ints[O_THREE, k] << 16))
                si[I_KEYS + count] = key_of_nb(KIND_DECLARE_TEYAKU, 0)
                si[I_PEND_N] = count + 1
                return
            chosen = best_opt_nb(count, opt_ints, teyaku_ints)
            declare_option_nb(si, sm, seat, opt_ints[O_INDEX, chosen], opt_ints[O_MONTH, chosen],
                              opt_ints[O_THREE, chosen], opt_cards[chosen])
        si[I_TEYAKU_INDEX] += 1
    si[I_PHASE] = P_TURNS_START


@internal_nb(cache=True, forceinline=True)
def turn_phase_nb(si, sm, n):
    """``P_TURN``: the seat to move is asked for its card, or, when no active seat holds a card,
    ``P_SCORE``."""
    any_cards = False
    for s in range(n):
        if si[I_ACTIVE + s] == 1 and sm[M_HANDS + s] != U0:
            any_cards = True
    if not any_cards:
        si[I_PHASE] = P_SCORE
        return
    si[I_TURN] += 1
    seat = si[I_SEAT]
    si[I_PEND_KIND] = KIND_PLAY
    si[I_PEND_SEAT] = seat
    set_play_keys_nb(si, sm[M_HANDS + seat])


@internal_nb(cache=True, _nrt=False, forceinline=True)
def round_end_nb(si, sm, rt):
    """``P_SCORE`` and the phases after it, until a fuke decision or the end."""
    card_points, class_masks = rt[3], rt[4]
    while si[I_PEND_KIND] == NO_KIND and si[I_DONE] == 0:
        phase = si[I_PHASE]
        if phase == P_SCORE:
            phase_score_nb(si, sm, rt)
        elif phase == P_FUKE:
            willow = class_masks[K_WILLOW]
            asked = False
            while si[I_FUKE_INDEX] < si[I_FUKE_LEN]:
                seat = si[I_FUKE_SEATS + si[I_FUKE_INDEX]]
                if si[I_N_DECLARED + seat] == 0 and mask_value(sm[M_PILES + seat] & ~willow,
                                                               card_points) <= E.FUKE_LIMIT:
                    pose_two_nb(si, PENDING, KIND_FUKE, seat, 0)
                    asked = True
                    break
                si[I_FUKE_INDEX] += 1
            if not asked:
                si[I_PHASE] = P_SETTLE
        elif phase == P_SETTLE:
            phase_settle_nb(si, sm, rt)
        else:
            si[I_DONE] = 1


@internal_nb(cache=True, _nrt=False)
def advance_nb(si, sm, rt, ws):
    """``RoundState._advance``: the rules' own steps until a decision or the end."""
    params, month, month_mask, class_masks = rt[0], rt[1], rt[2], rt[4]
    yaku_masks, teyaku_masks, teyaku_ints = rt[5], rt[7], rt[8]
    opt_ints, opt_cards = ws[0], ws[1]
    n = params[E.P_PLAYERS]
    variant = params[E.P_VARIANT]
    junk_only = params[E.P_C_EXPOSURE] == 1
    while si[I_PEND_KIND] == NO_KIND and si[I_DONE] == 0:
        phase = si[I_PHASE]
        if phase == P_MIZU:
            if si[I_MIZU_INDEX] < n and si[I_MIZU_COUNT] < E.MAX_MIZU_KOTSU:
                pose_two_nb(si, PENDING, KIND_MIZU_KOTSU, (si[I_DEALER] + si[I_MIZU_INDEX]) % n, 0)
            else:
                si[I_PHASE] = P_DEAL
        elif phase == P_DEAL:
            deal_nb(si, sm, rt)
            if variant != E.VARIANT_C:
                si[I_PHASE] = P_TEYAKU_START
                continue
            mizu_total = 0
            for s in range(n):
                si[I_ACTIVE + s] = 1
                si[I_KOTSU + s] = 0
                mizu_total += si[I_MIZU + s]
            si[I_PASSES] = 0
            si[I_MULTIPLIER] = 1 + popcount(sm[M_FIELD] & class_masks[K_BRIGHT]) + mizu_total
            si[I_KOTSU_INDEX] = 0
            si[I_PHASE] = P_KOTSU if raises_allowed_nb(params) else P_DROPOUT_START
        elif phase == P_KOTSU:
            if si[I_KOTSU_INDEX] < n:
                pose_two_nb(si, PENDING, KIND_KOTSU, (si[I_DEALER] + si[I_KOTSU_INDEX]) % n, 0)
            else:
                si[I_PHASE] = P_DROPOUT_START
        elif phase == P_DROPOUT_START:
            if n >= 4:
                for k in range(n):
                    si[I_POOL + k] = (si[I_DEALER] + k) % n
                si[I_POOL_LEN] = n
                si[I_REMAINING] = n
                si[I_PHASE] = P_DROPOUT_PASS
            else:
                si[I_PHASE] = P_ACTING_DEALER
        elif phase == P_DROPOUT_PASS:
            si[I_PASSES] += 1
            si[I_JOINED_LEN] = 0
            si[I_POOL_INDEX] = 0
            si[I_PHASE] = P_DROPOUT_ASK
        elif phase == P_DROPOUT_ASK:
            asked = False
            while si[I_POOL_INDEX] < si[I_POOL_LEN]:
                seat = si[I_POOL + si[I_POOL_INDEX]]
                if si[I_REMAINING] == 3 or si[I_MIZU + seat] == 1:
                    si[I_JOINED + si[I_JOINED_LEN]] = seat
                    si[I_JOINED_LEN] += 1
                    si[I_POOL_INDEX] += 1
                    continue
                pose_two_nb(si, PENDING, KIND_JOIN, seat, 0)
                asked = True
                break
            if asked:
                continue
            joined = si[I_JOINED_LEN]
            if joined <= 3:
                si[I_PHASE] = P_ACTING_DEALER
                continue
            if si[I_PASSES] >= params[E.P_C_DROPOUT_PASS_CAP]:
                for q in range(joined - 1, -1, -1):
                    if si[I_REMAINING] == 3:
                        break
                    seat = si[I_JOINED + q]
                    if si[I_MIZU + seat] == 0:
                        si[I_ACTIVE + seat] = 0
                        si[I_REMAINING] -= 1
                si[I_PHASE] = P_ACTING_DEALER
                continue
            si[I_MULTIPLIER] += 1
            for q in range(joined):
                si[I_POOL + q] = si[I_JOINED + q]
            si[I_POOL_LEN] = joined
            si[I_PHASE] = P_DROPOUT_PASS
        elif phase == P_ACTING_DEALER:
            si[I_ACTING] = first_active_from_nb(si, si[I_DEALER], n)
            if params[E.P_MISDEAL_HAND_ICP_FOUR] == E.HAND_FOUR_AT_TEYAKU and si[I_REDEALS] < E.MAX_REDEALS:
                four = False
                for s in range(n):
                    if si[I_ACTIVE + s] == 1 and icp_four_nb(sm[M_HANDS + s], month_mask, class_masks[K_ICP]):
                        four = True
                if four:
                    si[I_REDEALS] += 1
                    si[I_PHASE] = P_DEAL
                    continue
            gather_dropped_hands_nb(si, sm, rt)
            si[I_PHASE] = P_TEYAKU_START
        elif phase == P_TEYAKU_START:
            for s in range(n):
                count = teyaku_options_nb(sm[M_HAND_DEALT + s], np.int64(-1), np.int64(-1), month_mask, class_masks,
                                       junk_only, teyaku_masks, teyaku_ints, opt_ints, opt_cards)
                qualifying = U0
                for k in range(count):
                    qualifying |= bit(opt_ints[O_INDEX, k])
                sm[M_TEYAKU_DEALT + s] = qualifying
            si[I_PHASE] = P_TURNS_START
            start_seats = -1
            decides = 1
            if variant == E.VARIANT_W:
                # every stopping teyaku is exposed; the best (earliest on equal values) ends the round
                best_value = 0
                best_seat = -1
                dealer = si[I_DEALER]
                for k in range(n):
                    seat = (dealer + k) % n
                    count = teyaku_options_nb(sm[M_HANDS + seat], np.int64(-1), np.int64(1), month_mask, class_masks,
                                           junk_only, teyaku_masks, teyaku_ints, opt_ints, opt_cards)
                    if count == 0:
                        continue
                    chosen = best_opt_nb(count, opt_ints, teyaku_ints)
                    declare_option_nb(si, sm, seat, opt_ints[O_INDEX, chosen], opt_ints[O_MONTH, chosen],
                                   opt_ints[O_THREE, chosen], opt_cards[chosen])
                    value = teyaku_ints[T_VALUE, opt_ints[O_INDEX, chosen]]
                    if best_seat < 0 or value > best_value:
                        best_value = value
                        best_seat = seat
                        si[I_STOP_TEYAKU] = opt_ints[O_INDEX, chosen]
                si[I_WINNER] = best_seat
                if best_seat >= 0:
                    si[I_PHASE] = P_SCORE
                    continue
                mode = params[E.P_W_TRIPLET_DECLARE]
                if mode != 2:
                    start_seats = dealer
                    decides = 1 if mode == 0 else 0
            elif variant == E.VARIANT_S:
                if params[E.P_S_TEYAKU] == 0:
                    start_seats = si[I_DEALER]
            else:
                start_seats = si[I_ACTING]
            if start_seats >= 0:
                k_seats = 0
                for k in range(n):
                    seat = (start_seats + k) % n
                    if si[I_ACTIVE + seat] == 1:
                        si[I_TEYAKU_SEATS + k_seats] = seat
                        k_seats += 1
                si[I_TEYAKU_LEN] = k_seats
                si[I_TEYAKU_INDEX] = 0
                si[I_TEYAKU_DECIDES] = decides
                si[I_PHASE] = P_TEYAKU
        elif phase == P_TEYAKU:
            teyaku_phase_nb(si, sm, rt, ws)
        elif phase == P_TURNS_START:
            si[I_SEAT] = si[I_ACTING]
            si[I_PHASE] = P_TURN
        elif phase == P_TURN:
            turn_phase_nb(si, sm, n)
        elif phase == P_AFTER_PLAY:
            seat = si[I_SEAT]
            if params[E.P_UCHIKIRI_CHECK] == 1:
                bits = stopping_yaku_nb(sm[M_PILES + seat], yaku_masks, class_masks[K_STOPPING])
                if bits != U0:
                    stop_nb(si, sm, seat, bits)
                    continue
            si[I_PHASE] = P_AFTER_DRAW
            if si[I_DRAW_LEN] > 0:
                card = si[I_DRAW + si[I_DRAW_START]]
                si[I_DRAW_START] += 1
                si[I_DRAW_LEN] -= 1
                resolve_nb(si, sm, params, month, month_mask, seat, card, np.int64(1))
        elif phase == P_AFTER_DRAW:
            seat = si[I_SEAT]
            bits = stopping_yaku_nb(sm[M_PILES + seat], yaku_masks, class_masks[K_STOPPING])
            if bits != U0:
                stop_nb(si, sm, seat, bits)
                continue
            seat = (seat + 1) % n
            while si[I_ACTIVE + seat] == 0:
                seat = (seat + 1) % n
            si[I_SEAT] = seat
            si[I_PHASE] = P_TURN
        else:  # P_SCORE and after
            round_end_nb(si, sm, rt)


@internal_nb(cache=True, _nrt=False)
def set_play_keys_nb(si, hand):
    k = 0
    rest = hand
    while rest:
        x = lowest_id(rest)
        rest &= rest - U1
        si[I_KEYS + k] = key_of_nb(KIND_PLAY, x)
        k += 1
    si[I_PEND_N] = k


@nb.njit(cache=True, _nrt=False, inline="always")
def apply_action_nb(si, sm, params, month, month_mask, index):
    """The pending decision's action ``index`` taken (the steps after it are ``advance_nb``'s)."""
    kind = si[I_PEND_KIND]
    seat = si[I_PEND_SEAT]
    si[I_PEND_KIND] = NO_KIND
    if kind == KIND_MIZU_KOTSU:
        if index == 1:
            si[I_MIZU + seat] = 1
            si[I_MIZU_COUNT] += 1
        si[I_MIZU_INDEX] += 1
    elif kind == KIND_KOTSU:
        si[I_KOTSU + seat] = index
        if index == 1:
            si[I_MULTIPLIER] += 1
        si[I_KOTSU_INDEX] += 1
    elif kind == KIND_JOIN:
        if index == 1:
            si[I_JOINED + si[I_JOINED_LEN]] = seat
            si[I_JOINED_LEN] += 1
        else:
            si[I_ACTIVE + seat] = 0
            si[I_REMAINING] -= 1
        si[I_POOL_INDEX] += 1
    elif kind == KIND_DECLARE_TEYAKU:
        if index < si[I_PEND_N] - 1:
            declare_option_nb(si, sm, seat, si[I_OPT_INDEX + index], si[I_OPT_MONTH + index],
                           si[I_OPT_THREE + index], sm[M_OPT_CARDS + index])
        si[I_TEYAKU_INDEX] += 1
    elif kind == KIND_PLAY:
        card = si[I_KEYS + index] & 0xFF
        sm[M_HANDS + seat] &= ~bit(card)
        si[I_PHASE] = P_AFTER_PLAY
        resolve_nb(si, sm, params, month, month_mask, seat, card, np.int64(0))
    elif kind == KIND_CAPTURE:
        taken = np.uint64(si[I_KEYS + index] & ((np.int64(1) << KIND_SHIFT) - 1))
        take_nb(si, sm, seat, si[I_PEND_CARD], taken)
    else:  # fuke
        if index == 1:
            si[I_FUKE] = seat
            si[I_PHASE] = P_SETTLE
        else:
            si[I_FUKE_INDEX] += 1


@nb.njit(inline="always", cache=True, _nrt=False)
def apply_nb(si, sm, rt, ws, index):
    """Take the pending decision's action ``index`` (reference order) and step on."""
    apply_action_nb(si, sm, rt[0], rt[1], rt[2], index)
    advance_nb(si, sm, rt, ws)


# --- sample_hidden ----------------------------------------------------------------------------


@nb.njit(inline="always", cache=True, _nrt=False)
def sample_hidden_nb(si, sm, rt, ws, seat, streams, at, out_si, out_sm):
    """``RoundState.sample_hidden(seat, stream)`` into ``(out_si, out_sm)``; draws from the stream
    at ``streams[at:at + 4]`` exactly as the reference does."""
    params = rt[0]
    n = params[E.P_PLAYERS]
    cards = ws[2]
    copy_state_nb(si, sm, out_si, out_sm)
    own_former = U0
    if si[I_GATHERED] == 1 and si[I_ACTIVE + seat] == 0:
        own_former = sm[M_HAND_DEALT + seat]
    hidden_union = U0
    for s in range(n):
        if s != seat:
            hidden_union |= sm[M_HANDS + s] & ~sm[M_EXPOSED + s]
    hidden_union |= sm[M_SET_ASIDE] & ~own_former
    draw_start = si[I_DRAW_START]
    draw_len = si[I_DRAW_LEN]
    hidden_draw = 0
    for k in range(draw_len):
        card = si[I_DRAW + draw_start + k]
        if ((own_former >> np.uint64(card)) & U1) == U0:
            hidden_union |= bit(card)
            hidden_draw += 1
    n_unseen = shuffled_ids_nb(hidden_union, cards, streams, at)
    pos = 0
    for s in range(n):
        if s == seat:
            continue
        hidden = sm[M_HANDS + s] & ~sm[M_EXPOSED + s]
        size = popcount(hidden)
        hand = sm[M_HANDS + s] & ~hidden
        for k in range(size):
            hand |= bit(cards[pos + k])
        pos += size
        out_sm[M_HANDS + s] = hand
    # the new draw pile, top first, at the start of its slots
    for k in range(hidden_draw):
        out_si[I_DRAW + k] = cards[pos + k]
    pos += hidden_draw
    new_len = hidden_draw
    if hidden_draw < draw_len:
        for k in range(draw_len):
            card = si[I_DRAW + draw_start + k]
            if ((own_former >> np.uint64(card)) & U1) != U0:
                out_si[I_DRAW + new_len] = card
                new_len += 1
        streams[at], streams[at + 1], streams[at + 2], streams[at + 3] = shuffle_places_nb(
            streams[at], streams[at + 1], streams[at + 2], streams[at + 3], out_si, new_len, 0, new_len - 1, I_DRAW)
    out_si[I_DRAW_START] = 0
    out_si[I_DRAW_LEN] = new_len
    aside = sm[M_SET_ASIDE] & own_former
    for k in range(pos, n_unseen):
        aside |= bit(cards[k])
    out_sm[M_SET_ASIDE] = aside
    for s in range(n):
        if s != seat:
            out_sm[M_HAND_DEALT + s] = sm[M_HAND_DEALT + s] & sm[M_EXPOSED + s]
            out_sm[M_TEYAKU_DEALT + s] = sm[M_TEYAKU_DEALT + s] & sm[M_DECLARED + s]
    round_index = si[I_ROUND_INDEX]
    deal_seed = next_u64_nb(streams, at)
    stream_init_nb(out_sm, deal_seed, round_index, DEAL_STREAM, M_DEAL_STREAM)
    rules_seed = next_u64_nb(streams, at)
    stream_init_nb(out_sm, rules_seed, round_index, RULES_STREAM, M_RULES_STREAM)
    kind = si[I_PEND_KIND]
    pend_seat = si[I_PEND_SEAT]
    if kind != NO_KIND and pend_seat != seat and out_sm[M_HANDS + pend_seat] != sm[M_HANDS + pend_seat]:
        if kind == KIND_PLAY:
            set_play_keys_nb(out_si, out_sm[M_HANDS + pend_seat])
        elif kind == KIND_DECLARE_TEYAKU:
            # advance_nb from the teyaku phase: its decisions, then the first turn (every active
            # seat holds its cards until the turns begin, so the first turn is a decision)
            out_si[I_PEND_KIND] = NO_KIND
            teyaku_phase_nb(out_si, out_sm, rt, ws)
            if out_si[I_PEND_KIND] == NO_KIND:
                out_si[I_SEAT] = out_si[I_ACTING]
                out_si[I_PHASE] = P_TURN
                turn_phase_nb(out_si, out_sm, n)


# --- the observation ---------------------------------------------------------------------------


@internal_nb(cache=True, _nrt=False)
def observe_nb(si, sm, rt, seat, obs):
    """``pack_observation(state.observe(seat), card, source)`` into ``obs`` (int64[OBS_SIZE]):
    what ``seat`` may see, with the card awaiting a pending capture choice (else -1)."""
    params = rt[0]
    n = params[E.P_PLAYERS]
    for k in range(OBS_SIZE):
        obs[k] = 0
    obs[OBS_SEAT] = seat
    obs[OBS_PLAYERS] = n
    obs[OBS_VARIANT] = params[E.P_VARIANT]
    obs[OBS_DEALER] = si[I_DEALER]
    obs[OBS_ACTING_DEALER] = si[I_ACTING]
    obs[OBS_ROUND_IN_MATCH] = si[I_ROUND_IN_MATCH]
    obs[OBS_MULTIPLIER] = si[I_MULTIPLIER]
    obs[OBS_HAND] = np.int64(sm[M_HANDS + seat])
    obs[OBS_FIELD] = np.int64(sm[M_FIELD])
    obs[OBS_SEEN] = np.int64(sm[M_SEEN])
    obs[OBS_DRAW_SIZE] = si[I_DRAW_LEN]
    obs[OBS_TURN] = si[I_TURN]
    obs[OBS_DROPOUT_PASS] = si[I_PASSES]
    obs[OBS_WINNER] = si[I_WINNER]
    if si[I_PEND_KIND] == KIND_CAPTURE:
        obs[OBS_CARD] = si[I_PEND_CARD]
        obs[OBS_SOURCE] = si[I_PEND_SOURCE]
    else:
        obs[OBS_CARD] = -1
        obs[OBS_SOURCE] = -1
    for s in range(n):
        obs[OBS_ACTIVE + s] = si[I_ACTIVE + s]
        obs[OBS_MATCH_POINTS + s] = si[I_MATCH_POINTS + s]
        obs[OBS_PILES + s] = np.int64(sm[M_PILES + s])
        obs[OBS_EXPOSED + s] = np.int64(sm[M_EXPOSED + s] & sm[M_HANDS + s])
        obs[OBS_DECLARED + s] = np.int64(sm[M_DECLARED + s])
        obs[OBS_MIZU_KOTSU + s] = si[I_MIZU + s]
        obs[OBS_KOTSU + s] = si[I_KOTSU + s]
        obs[OBS_SCORES + s] = si[I_SCORES + s] if si[I_SCORES_SET] == 1 else 0


# --- the random and greedy policies ----------------------------------------------------------


@internal_nb(cache=True, _nrt=False)
def random_choose_nb(si, sm, streams, at):
    """``RandomPolicy``'s answer to the pending decision, as an action index."""
    kind = si[I_PEND_KIND]
    count = si[I_PEND_N]
    if kind == KIND_DECLARE_TEYAKU:
        if draw_uniform_nb(streams, at, np.int64(2)) != 1:  # int64: one compilation of it
            return count - 1
        return draw_uniform_nb(streams, at, count - 1)
    if kind == KIND_PLAY or kind == KIND_CAPTURE:
        return draw_uniform_nb(streams, at, count)
    return draw_uniform_nb(streams, at, np.int64(2))


@nb.njit(inline="always", cache=True, _nrt=False)
def greedy_choose_nb(si, sm, rt, ws):
    """``GreedyPolicy``'s answer to the pending decision, as an action index (no draws)."""
    params, month, month_mask, card_points, class_masks = rt[0], rt[1], rt[2], rt[3], rt[4]
    yaku_masks, yaku_ints, teyaku_masks, teyaku_ints = rt[5], rt[6], rt[7], rt[8]
    kind = si[I_PEND_KIND]
    seat = si[I_PEND_SEAT]
    hand = sm[M_HANDS + seat]
    if kind == KIND_MIZU_KOTSU:
        return 0
    if kind == KIND_KOTSU:
        return 1 if mask_value(hand, card_points) >= E.GREEDY_KOTSU_POINTS else 0
    if kind == KIND_JOIN:
        passes = si[I_PASSES]
        if mask_value(hand, card_points) >= E.GREEDY_JOIN_POINTS * max(passes, 1):
            return 1
        if passes <= 1:
            opt_ints, opt_cards = ws[0], ws[1]
            count = teyaku_options_nb(hand, np.int64(-1), np.int64(-1), month_mask, class_masks,
                                   params[E.P_C_EXPOSURE] == 1, teyaku_masks, teyaku_ints, opt_ints, opt_cards)
            if count > 0:
                return 1
        return 0
    if kind == KIND_FUKE:
        winner = si[I_WINNER]
        return 1 if winner != seat and winner >= 0 and si[I_SCORES + winner] > 0 else 0
    if kind == KIND_DECLARE_TEYAKU:
        best = 0
        for k in range(1, si[I_PEND_N] - 1):
            if teyaku_ints[T_VALUE, si[I_OPT_INDEX + k]] > teyaku_ints[T_VALUE, si[I_OPT_INDEX + best]]:
                best = k
        return best
    pile = sm[M_PILES + seat]
    stopping = class_masks[K_STOPPING]
    if kind == KIND_PLAY:
        card = greedy_play_nb(hand, sm[M_FIELD], pile, params[E.P_CAPTURE_THREE] == 1, month, month_mask,
                           yaku_masks, yaku_ints, card_points, stopping)
        for k in range(si[I_PEND_N]):
            if si[I_KEYS + k] & 0xFF == card:
                return k
        return 0
    # capture
    cb = bit(si[I_PEND_CARD])
    best = 0
    best_gain = 0
    mask_bits = (np.int64(1) << KIND_SHIFT) - 1
    for k in range(si[I_PEND_N]):
        option = np.uint64(si[I_KEYS + k] & mask_bits)
        g = greedy_gain_nb(pile, cb | option, yaku_masks, yaku_ints, card_points, stopping)
        if k == 0 or g > best_gain:
            best = k
            best_gain = g
    return best


# --- the row -------------------------------------------------------------------------------------


@nb.njit(inline="always", cache=True, _nrt=False)
def write_row_nb(si, sm, rt, out_int, out_mask, row):
    """Write the finished round into row ``row`` (all but the match columns), as ``RecordLayout.fill_row``."""
    params, class_masks = rt[0], rt[4]
    n = params[E.P_PLAYERS]
    mizu_total = 0
    kotsu_total = 0
    for s in range(n):
        mizu_total += si[I_MIZU + s]
        kotsu_total += si[I_KOTSU + s]
    write_outcome_nb(out_int, row, si[I_ROUND_INDEX], si[I_DEALER], si[I_ACTING], si[I_C_WINNER], si[I_REASON],
                     si[I_TURN], si[I_REDEALS])
    out_int[E.C_PLAYERS, row] = n
    out_int[E.C_MULTIPLIER, row] = si[I_MULTIPLIER]
    out_int[E.C_FIELD_BRIGHTS, row] = popcount(sm[M_FIELD_DEALT] & class_masks[K_BRIGHT])
    out_int[E.C_MIZU_KOTSU_COUNT, row] = mizu_total
    out_int[E.C_KOTSU_COUNT, row] = kotsu_total
    out_int[E.C_DROPOUT_PASSES, row] = si[I_PASSES]
    out_int[E.C_FUKE, row] = si[I_FUKE]
    out_mask[E.M_FIELD_DEALT, row] = sm[M_FIELD_DEALT]
    out_mask[E.M_STOPPING_YAKU, row] = sm[M_STOPPING]
    out_mask[E.M_STOPPING_TEYAKU, row] = bit(si[I_STOP_TEYAKU]) if si[I_STOP_TEYAKU] >= 0 else U0
    for s in range(MAX_SEATS):
        seated = s < n
        out_int[E.C_ACTIVE + s, row] = si[I_ACTIVE + s] if seated else 0
        out_int[E.C_MIZU_KOTSU + s, row] = si[I_MIZU + s] if seated else 0
        out_int[E.C_KOTSU + s, row] = si[I_KOTSU + s] if seated else 0
        out_int[E.C_YAKU_POINTS + s, row] = si[I_YAKU_POINTS + s] if seated else 0
        out_int[E.C_TEYAKU_POINTS + s, row] = si[I_TEYAKU_POINTS + s] if seated else 0
        out_int[E.C_CARD_POINTS + s, row] = si[I_CARD_POINTS + s] if seated else 0
        out_int[E.C_YAKU_MULTIPLIER + s, row] = si[I_YAKU_MULT + s] if seated else 0
        out_int[E.C_SCORE + s, row] = si[I_SCORE + s] if seated else 0
        out_int[E.C_PAYOFF + s, row] = si[I_PAYOFF + s] if seated else 0
        out_mask[E.M_HAND_DEALT + s, row] = sm[M_HAND_DEALT + s] if seated else U0
        out_mask[E.M_CAPTURED + s, row] = sm[M_PILES + s] if seated else U0
        out_mask[E.M_YAKU + s, row] = sm[M_YAKU + s] if seated else U0
        out_mask[E.M_TEYAKU_DEALT + s, row] = sm[M_TEYAKU_DEALT + s] if seated else U0
        out_mask[E.M_TEYAKU_DECLARED + s, row] = sm[M_DECLARED + s] if seated else U0
        out_mask[E.M_EXPOSED + s, row] = sm[M_EXPOSED + s] if seated else U0


# --- rollouts of random and greedy, a turn at a time -----------------------------------------


@internal_nb(cache=True, _nrt=False)
def resolve_fast_nb(sm, seat, card, policy_id, streams, at, capture_three_all, month, month_mask, yaku_masks,
                    yaku_ints, card_points, stopping):
    """``resolve_nb`` with the capture choice taken at once by random or greedy."""
    cb = bit(card)
    sm[M_SEEN] |= cb
    field = sm[M_FIELD]
    kind, matches = capture_nb(field, card, month, month_mask, capture_three_all)
    if kind == CAPTURE_NONE:
        sm[M_FIELD] = field | cb
        return
    if kind == CAPTURE_ALL:
        taken = matches
    elif policy_id == POLICY_RANDOM:
        taken = bit(kth_id(matches, draw_uniform_nb(streams, at, popcount(matches))))
    else:
        taken = best_capture_nb(sm[M_PILES + seat], cb, matches, yaku_masks, yaku_ints, card_points, stopping)[0]
    sm[M_FIELD] = field & ~taken
    sm[M_PILES + seat] |= cb | taken


@nb.njit(inline="always", cache=True, _nrt=False)
def turns_fast_nb(si, sm, rt, ws, policy_id, streams, at):
    """From a pending ``play``, the turns of a random or greedy rollout played in one loop, the
    draws and choices exactly those of ``random_choose_nb`` / ``greedy_choose_nb`` through
    ``apply_nb``; then the state machine scores the round."""
    params, month, month_mask, card_points, class_masks = rt[0], rt[1], rt[2], rt[3], rt[4]
    yaku_masks, yaku_ints = rt[5], rt[6]
    n = params[E.P_PLAYERS]
    capture_three_all = params[E.P_CAPTURE_THREE] == 0
    each_capture = params[E.P_UCHIKIRI_CHECK] == 1
    stopping_mask = class_masks[K_STOPPING]
    seat = si[I_PEND_SEAT]
    si[I_PEND_KIND] = NO_KIND
    while True:
        hand = sm[M_HANDS + seat]
        if policy_id == POLICY_RANDOM:
            card = kth_id(hand, draw_uniform_nb(streams, at, popcount(hand)))
        else:
            card = greedy_play_nb(hand, sm[M_FIELD], sm[M_PILES + seat], not capture_three_all, month, month_mask,
                               yaku_masks, yaku_ints, card_points, stopping_mask)
        sm[M_HANDS + seat] = hand & ~bit(card)
        resolve_fast_nb(sm, seat, card, policy_id, streams, at, capture_three_all, month, month_mask, yaku_masks,
                        yaku_ints, card_points, stopping_mask)
        if each_capture:
            bits = stopping_yaku_nb(sm[M_PILES + seat], yaku_masks, stopping_mask)
            if bits != U0:
                si[I_WINNER] = seat
                sm[M_STOPPING] = bits
                si[I_PHASE] = P_SCORE
                break
        if si[I_DRAW_LEN] > 0:
            card = si[I_DRAW + si[I_DRAW_START]]
            si[I_DRAW_START] += 1
            si[I_DRAW_LEN] -= 1
            resolve_fast_nb(sm, seat, card, policy_id, streams, at, capture_three_all, month, month_mask,
                            yaku_masks, yaku_ints, card_points, stopping_mask)
        bits = stopping_yaku_nb(sm[M_PILES + seat], yaku_masks, stopping_mask)
        if bits != U0:
            si[I_WINNER] = seat
            sm[M_STOPPING] = bits
            si[I_PHASE] = P_SCORE
            break
        seat = (seat + 1) % n
        while si[I_ACTIVE + seat] == 0:
            seat = (seat + 1) % n
        si[I_SEAT] = seat
        any_cards = False
        for s in range(n):
            if si[I_ACTIVE + s] == 1 and sm[M_HANDS + s] != U0:
                any_cards = True
        if not any_cards:
            si[I_PHASE] = P_SCORE
            break
        si[I_TURN] += 1
    si[I_SEAT] = seat
    round_end_nb(si, sm, rt)  # advance_nb from P_SCORE


@nb.njit(inline="always", cache=True, _nrt=False)
def heuristic_choose_state_nb(si, sm, rt, table, obs):
    """The heuristic's answer to the pending decision (``heuristic_nb.heuristic_choose_nb`` on the
    deciding seat's packed observation, with the tables ``table``)."""
    n = si[I_PEND_N]
    observe_nb(si, sm, rt, si[I_PEND_SEAT], obs)
    return heuristic_choose_nb(si[I_PEND_KIND], obs, si[I_KEYS:I_KEYS + n], n, table)


# --- the numba round contract (``simcore.kernels.contract``) ---------------------------------

# The rules as the general kernel takes them: the packed rule tables ``rt`` (``kernel.rule_tables``).
EnshuRules = namedtuple("EnshuRules", ["params", "month", "month_mask", "card_points", "class_masks",
                                       "yaku_masks", "yaku_ints", "teyaku_masks", "teyaku_ints"])
# One kernel thread's context: the seed, the rule tables, the teyaku workspace, an observation,
# the learned player's features (a row per action and a spare one).
EnshuContext = namedtuple("EnshuContext", ["seed", "rt", "ws", "obs", "features"])


@implements(C.context_nb, EnshuRules, nrt=True, inline=False)
def _context(rules, seed):
    rt = (rules.params, rules.month, rules.month_mask, rules.card_points, rules.class_masks, rules.yaku_masks,
          rules.yaku_ints, rules.teyaku_masks, rules.teyaku_ints)
    return EnshuContext(seed, rt, new_workspace_nb(rules.teyaku_ints.shape[1]), np.zeros(OBS_SIZE, dtype=np.int64),
                        np.zeros((MAX_ACTIONS + 1, N_FEATURES), dtype=np.int64))


@implements(C.new_state_nb, EnshuContext, nrt=True, inline=False)
def _new_state(ctx):
    return (np.zeros(N_SI, dtype=np.int64), np.zeros(N_SM, dtype=np.uint64))


@implements(C.copy_state_nb, EnshuContext)
def _copy_state(ctx, src, dst):
    copy_state_nb(src[0], src[1], dst[0], dst[1])


@implements(C.new_history_nb, EnshuContext, nrt=True, inline=False)
def _new_history(ctx, n):
    return (np.zeros((n, N_SI), dtype=np.int64), np.zeros((n, N_SM), dtype=np.uint64))


@implements(C.save_past_nb, EnshuContext)
def _save_past(ctx, state, history, k):
    si, sm = state
    for j in range(N_SI):
        history[0][k, j] = si[j]
    for j in range(N_SM):
        history[1][k, j] = sm[j]


@implements(C.rehand_nb, EnshuContext, inline=False)
def _rehand(ctx, history, k, now, world, seat, out):
    # a card played or a capture chosen, with no seat dropped out and no hands gathered since:
    # each other seat's hand then is the cards it has played since (seen by all) and its hand in
    # ``world``; the draw pile below what has been turned since and the set-aside cards are
    # ``world``'s (RoundState.rehand)
    hi, hm = history
    si, sm = now
    wi, wm = world
    oi, om = out
    kind = hi[k, I_PEND_KIND]
    if kind != KIND_PLAY and kind != KIND_CAPTURE:
        return False
    n = ctx.rt[0][E.P_PLAYERS]
    if hi[k, I_GATHERED] != si[I_GATHERED]:
        return False
    for s in range(n):
        if hi[k, I_ACTIVE + s] != si[I_ACTIVE + s]:
            return False
    for j in range(N_SI):
        oi[j] = hi[k, j]
    for j in range(N_SM):
        om[j] = hm[k, j]
    for s in range(n):
        if s != seat:
            om[M_HANDS + s] = (hm[k, M_HANDS + s] & ~sm[M_HANDS + s]) | wm[M_HANDS + s]
            om[M_HAND_DEALT + s] = wm[M_HAND_DEALT + s]
            om[M_TEYAKU_DEALT + s] = wm[M_TEYAKU_DEALT + s]
    turned = hi[k, I_DRAW_LEN] - si[I_DRAW_LEN]
    at = hi[k, I_DRAW_START] + turned
    for j in range(wi[I_DRAW_LEN]):
        oi[I_DRAW + at + j] = wi[I_DRAW + wi[I_DRAW_START] + j]
    om[M_SET_ASIDE] = wm[M_SET_ASIDE]
    pend_seat = hi[k, I_PEND_SEAT]
    if kind == KIND_PLAY and pend_seat != seat:
        set_play_keys_nb(oi, om[M_HANDS + pend_seat])
    return True


@implements(C.n_seats_nb, EnshuContext)
def _n_seats(ctx):
    return np.int64(ctx.rt[0][E.P_PLAYERS])


@implements(C.start_round_nb, EnshuContext, inline=False)
def _start_round(ctx, state, unit, round_in_match, round_index, independent, dealer, points):
    new_round_nb(state[0], state[1], ctx.rt, ctx.ws, ctx.seed, round_index, dealer, unit,
                 0 if independent else round_in_match, points)


@implements(C.done_nb, EnshuContext)
def _done(ctx, state):
    return state[0][I_DONE] != 0


@implements(C.to_act_nb, EnshuContext)
def _to_act(ctx, state):
    return state[0][I_PEND_SEAT]


@implements(C.n_actions_nb, EnshuContext)
def _n_actions(ctx, state):
    return state[0][I_PEND_N]


@implements(C.action_key_nb, EnshuContext)
def _action_key(ctx, state, index):
    return state[0][I_KEYS + index]


# The stubs that reach far into the state machine are compiled functions of their own
# (``inline=False``): inlining one compiles it in full first, only to inline it, and every such
# compilation optimises again the code of all it calls (``advance_nb`` and the heuristic).  Their
# bodies are inlined into them (``inline="always"``) rather than called, for the same reason.
@implements(C.apply_nb, EnshuContext, inline=False)
def _apply(ctx, state, index):
    apply_nb(state[0], state[1], ctx.rt, ctx.ws, index)


@implements(C.payoff_nb, EnshuContext)
def _payoff(ctx, state, seat):
    return state[0][I_PAYOFF + seat]


@implements(C.sample_hidden_nb, EnshuContext, inline=False)
def _sample_hidden(ctx, state, seat, streams, at, out):
    sample_hidden_nb(state[0], state[1], ctx.rt, ctx.ws, seat, streams, at, out[0], out[1])


@implements(C.random_choice_nb, EnshuContext)
def _random_choice(ctx, state, streams, at):
    return random_choose_nb(state[0], state[1], streams, at)


@implements(C.greedy_choice_nb, EnshuContext, inline=False)
def _greedy_choice(ctx, state, param):
    return greedy_choose_nb(state[0], state[1], ctx.rt, ctx.ws)


@implements(C.heuristic_choice_nb, EnshuContext, inline=False)
def _heuristic_choice(ctx, state, table):
    return heuristic_choose_state_nb(state[0], state[1], ctx.rt, table, ctx.obs)


@implements(C.rollout_turns_nb, EnshuContext, inline=False)
def _rollout_turns(ctx, state, rollout_id, streams, at):
    if state[0][I_PEND_KIND] == KIND_PLAY and rollout_id != POLICY_HEURISTIC:
        turns_fast_nb(state[0], state[1], ctx.rt, ctx.ws, rollout_id, streams, at)
        return True
    return False


@implements(C.learned_features_nb, EnshuContext, nrt=True, inline=False)
def _learned_features(ctx, state, aux):
    si = state[0]
    observe_nb(si, state[1], ctx.rt, si[I_PEND_SEAT], ctx.obs)
    n = si[I_PEND_N]
    kind = si[I_PEND_KIND]
    features_nb(kind, ctx.obs, si[I_KEYS:I_KEYS + n], n, aux, ctx.features)
    return ctx.features[:n], kind


@implements(C.write_row_nb, EnshuContext, inline=False)
def _write_row(ctx, state, out_int, out_mask, row):
    write_row_nb(state[0], state[1], ctx.rt, out_int, out_mask, row)


@implements(C.winner_nb, EnshuContext)
def _winner(ctx, state):
    return state[0][I_C_WINNER]


@implements(C.add_match_points_nb, EnshuContext)
def _add_match_points(ctx, state, points):
    params = ctx.rt[0]
    si = state[0]
    if params[E.P_VARIANT] == E.VARIANT_S and params[E.P_S_MATCH_SCORING] == 1:  # round wins
        winner = si[I_C_WINNER]
        if winner >= 0:
            points[winner] += 1
    else:
        for s in range(params[E.P_PLAYERS]):
            points[s] += si[I_PAYOFF + s]


@implements(C.next_dealer_nb, EnshuContext)
def _next_dealer(ctx, dealer, winner):
    if ctx.rt[0][E.P_NEXT_DEALER] == 1:  # the seat after the dealer, whoever won
        return (dealer + 1) % ctx.rt[0][E.P_PLAYERS]
    return winner


C.implements_match_rows(EnshuContext, MAX_SEATS, E.C_MATCH_POINTS)
