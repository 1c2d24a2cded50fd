"""Numba kernel for Enshu-bana (variants W, S and C): deal and play whole units over uint64 masks.

Contract
--------
``play_units_nb`` takes the compiled rule arrays of ``simcore.games.enshu.compile.CompiledRules`` in
``kernel_args()`` order (dtypes: ``params`` int32, ``month`` int8, ``month_mask`` uint64,
``card_points`` int32, six uint64 scalars, yaku and teyaku tables int32 / uint64), the seats'
policy ids (``int32[players]``, ``E.POLICY_*``), and two preallocated column-major output
matrices: ``out_int`` int64[N_INT_COLUMNS, n_units * stride] and ``out_mask``
uint64[N_MASK_COLUMNS, n_units * stride] (column indices in ``enshu_enums``; ``stride`` is 1 or
the match length).  Unit ``first_unit + i`` writes rows ``i * stride ..``, every cell of them
(per-seat columns of seats beyond the player count are 0), so the caller may pass uninitialised,
reused buffers.  Nothing is allocated per round: the rule tables are packed once per call and
each parallel block allocates its scratch once.  The round and its helpers therefore run
without numba's reference counting (``_nrt=False``), which would otherwise count references on
every array argument and slice with atomic operations.

The kernel mirrors ``simcore.games.enshu.reference`` step by step (``docs/enshu.md`` gives the order)
and consumes the random streams (``simcore.rng``) in exactly the same order, so both engines
produce identical rows.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.games.enshu import enums as E
from simcore.hanafuda.capture_nb import CAPTURE_ALL, CAPTURE_NONE, capture_nb, matches_nb
from simcore.kernels.bits import U0, U1, bit, kth_id, lowest_id, mask_value, pop_lowest, popcount
from simcore.kernels.internal import internal_nb
from simcore.kernels.rows_nb import write_outcome_nb
from simcore.record import C_MATCH, C_MATCH_END, C_ROUND_IN_MATCH
from simcore.rng import (
    DEAL_STREAM,
    RULES_STREAM,
    SEAT_STREAM_BASE,
    shuffle_places_nb,
    stream_init_nb,
    uniform_below_nb,
)

DECK_SIZE = E.DECK_SIZE
MAX_SEATS = E.MAX_SEATS
STOP_GAIN = E.GREEDY_STOP_GAIN  # greedy: a round-stopping yaku (simcore.games.enshu.policies)
GREEDY_KOTSU_POINTS = E.GREEDY_KOTSU_POINTS
GREEDY_JOIN_POINTS = E.GREEDY_JOIN_POINTS

# --- packed rule tables (built once per call by ``play_units_nb``) ---------------------------
# class_masks: uint64[N_CLASSES]
K_BRIGHT = 0
K_ANIMAL = 1
K_RIBBON = 2
K_WILLOW = 3
K_JUNK = 4
K_ICP = 5
K_STOPPING = 6  # yaku bitset of the round-stopping (uchikiri) dekiyaku
N_CLASSES = 7
# yaku_masks: uint64[2, NY]
YM_MASK = 0
YM_SUPERSEDES = 1
# yaku_ints: int32[5, NY]
Y_KIND = 0
Y_VALUE = 1
Y_UPGRADED = 2
Y_MONTH = 3
Y_WEIGHT = 4
# teyaku_masks: uint64[3, NT]
TM_MONTHS = 0
TM_THREE_MONTHS = 1
TM_BONUS_MONTHS = 2
# teyaku_ints: int32[5, NT]
T_PATTERN = 0
T_GROUP = 1
T_KIND = 2
T_VALUE = 3
T_BONUS = 4

# --- per-block scratch ------------------------------------------------------------------------
# states: uint64[2 + MAX_SEATS, 4], one xoshiro state per stream
DEAL_STATE = 0
RULES_STATE = 1
SEAT0_STATE = 2
# cards: int64[CARDS_SCRATCH]: the shuffled deck, the draw pile (top first; room for dropped
# hands), and the dropout_nb pool and joiners
DRAW_AT = DECK_SIZE
POOL_AT = 2 * DECK_SIZE
JOINED_AT = POOL_AT + MAX_SEATS
CARDS_SCRATCH = JOINED_AT + MAX_SEATS
# seat_ints: int64[N_SEAT_INTS, MAX_SEATS]
S_ACTIVE = 0
S_MIZU = 1
S_KOTSU = 2
S_YAKU_POINTS = 3
S_TEYAKU_POINTS = 4
S_CARD_POINTS = 5
S_YAKU_MULTIPLIER = 6
S_SCORE = 7
S_PAYOFF = 8
S_N_DECLARED = 9
S_DECLARED_INDEX = 10  # two rows: the declared options' teyaku indices (a group each at most)
S_DECLARED_TRIPLET = 12  # two rows: the months of their triplets (0: none)
N_SEAT_INTS = 14
# seat_masks: uint64[N_SEAT_MASKS, MAX_SEATS]
SM_HAND = 0
SM_PILE = 1
SM_HAND_DEALT = 2
SM_YAKU = 3
SM_TEYAKU_DEALT = 4
SM_DECLARED = 5
SM_EXPOSED = 6
N_SEAT_MASKS = 7
# options: opt_ints int64[3, 2 * NT + 2] (teyaku index, month, three's month), opt_cards uint64[..]
# (a hand of at most 8 cards qualifies at most twice for one teyaku: two fours, two triplets, 4 + 4)
O_INDEX = 0
O_MONTH = 1
O_THREE = 2


@nb.njit(cache=True)
def draw_below_nb(state, n):
    """``uniform_below_nb`` behind one call (it is inline="always": expanded once here, not at every use)."""
    return uniform_below_nb(state, n)


@internal_nb(cache=True)
def draw_yes_nb(state):
    """A random yes/no decision: ``uniform(2) == 1`` is yes."""
    return draw_below_nb(state, np.int64(2)) == 1


# --- card and yaku arithmetic ---------------------------------------------------------------


@internal_nb(cache=True)
def completed_yaku_nb(pile, yaku_masks):
    """Bitset of the yaku contained in ``pile``, after supersession."""
    completed = U0
    for i in range(yaku_masks.shape[1]):
        m = yaku_masks[YM_MASK, i]
        if (m & pile) == m:
            completed |= bit(i)
    cancelled = U0
    rest = completed
    while rest:
        i = lowest_id(rest)
        rest &= rest - U1
        cancelled |= yaku_masks[YM_SUPERSEDES, i]
    return completed & ~cancelled


@internal_nb(cache=True)
def stopping_yaku_nb(pile, yaku_masks, stopping_mask):
    """The round-stopping yaku in ``pile`` after supersession (as ``completed_yaku_nb(pile) & stopping_mask``)."""
    rest = stopping_mask
    while rest:
        i = lowest_id(rest)
        rest &= rest - U1
        m = yaku_masks[YM_MASK, i]
        if (m & pile) == m:
            # supersession only removes yaku, so the full check is needed only when one is there
            return completed_yaku_nb(pile, yaku_masks) & stopping_mask
    return U0


@internal_nb(cache=True)
def points_yaku_value_nb(bits, yaku_ints):
    """Sum of the values of the points-kind yaku in ``bits`` (no upgrades: greedy's measure)."""
    total = 0
    while bits:
        i = lowest_id(bits)
        bits &= bits - U1
        if yaku_ints[Y_KIND, i] == E.YAKU_POINTS:
            total += yaku_ints[Y_VALUE, i]
    return total


@internal_nb(cache=True)
def icp_four_nb(hand, month_mask, icp):
    """True when ``hand`` holds all four cards of an I/C/P month."""
    for m in range(1, E.N_MONTHS + 1):
        mm = month_mask[m]
        if (mm & icp) != U0 and (hand & mm) == mm:
            return True
    return False


@internal_nb(cache=True)
def shuffle_cards_nb(cards, start, size, state):
    """Fisher-Yates over ``cards[start:start + size]``, as ``reference.enshu.shuffle_in_place``
    (``Stream.shuffle_places`` over every place)."""
    state[0], state[1], state[2], state[3] = shuffle_places_nb(
        state[0], state[1], state[2], state[3], cards, size, 0, size, start)


# --- teyaku -----------------------------------------------------------------------------------


@internal_nb(cache=True)
def teyaku_options_nb(hand, group, stops, month_mask, class_masks, junk_only, teyaku_masks, teyaku_ints,
                   opt_ints, opt_cards):
    """Fill the option arrays with the ways ``hand`` qualifies for a teyaku; returns their number.

    ``group``: -1 both, 0 A, 1 B; ``stops``: -1 any kind, 0 points teyaku only, 1 stopping only.
    Order as ``simcore.games.enshu.compile.teyaku_options``: file order, then months ascending.
    """
    count = 0
    junk = class_masks[K_JUNK]
    for i in range(teyaku_ints.shape[1]):
        if group >= 0 and teyaku_ints[T_GROUP, i] != group:
            continue
        is_stop = 1 if teyaku_ints[T_KIND, i] == E.TEYAKU_STOP else 0
        if stops >= 0 and is_stop != stops:
            continue
        pattern = teyaku_ints[T_PATTERN, i]
        months = teyaku_masks[TM_MONTHS, i]
        if pattern == E.PATTERN_FOUR_THREE:
            threes = teyaku_masks[TM_THREE_MONTHS, i]
            for m in range(1, E.N_MONTHS + 1):
                if popcount(hand & month_mask[m]) == 4 and ((months >> np.uint64(m)) & U1) != U0:
                    for t in range(1, E.N_MONTHS + 1):
                        if (t != m and popcount(hand & month_mask[t]) >= 3
                                and ((threes >> np.uint64(t)) & U1) != U0):
                            opt_ints[O_INDEX, count] = i
                            opt_ints[O_MONTH, count] = m
                            opt_ints[O_THREE, count] = t
                            opt_cards[count] = hand & (month_mask[m] | month_mask[t])
                            count += 1
        elif pattern == E.PATTERN_FOUR or pattern == E.PATTERN_TRIPLET:
            need = 4 if pattern == E.PATTERN_FOUR else 3
            for m in range(1, E.N_MONTHS + 1):
                if popcount(hand & month_mask[m]) == need and ((months >> np.uint64(m)) & U1) != U0:
                    opt_ints[O_INDEX, count] = i
                    opt_ints[O_MONTH, count] = m
                    opt_ints[O_THREE, count] = 0
                    opt_cards[count] = hand & month_mask[m]
                    count += 1
        else:
            if pattern == E.PATTERN_ALL_JUNK:
                single = U0
                lone_count = 0
            elif pattern == E.PATTERN_LONE_ANIMAL:
                single = class_masks[K_ANIMAL]
                lone_count = 1
            else:
                single = class_masks[K_RIBBON]
                lone_count = 1
            lone = hand & single
            if hand != U0 and popcount(lone) == lone_count and (hand & ~lone & ~junk) == U0:
                opt_ints[O_INDEX, count] = i
                opt_ints[O_MONTH, count] = 0
                opt_ints[O_THREE, count] = 0
                opt_cards[count] = (hand & junk) if junk_only else hand
                count += 1
    return count


@internal_nb(cache=True)
def best_option_nb(count, opt_ints, teyaku_ints):
    """Index (into the option arrays) of the highest-valued option; ties: the first."""
    best = 0
    for k in range(1, count):
        if teyaku_ints[T_VALUE, opt_ints[O_INDEX, k]] > teyaku_ints[T_VALUE, opt_ints[O_INDEX, best]]:
            best = k
    return best


@internal_nb(cache=True)
def declare_nb(seat, k, opt_ints, opt_cards, teyaku_ints, seat_ints, seat_masks):
    """Record option ``k`` as declared by ``seat`` (exposing its cards)."""
    index = opt_ints[O_INDEX, k]
    pattern = teyaku_ints[T_PATTERN, index]
    triplet = 0
    if pattern == E.PATTERN_TRIPLET:
        triplet = opt_ints[O_MONTH, k]
    elif pattern == E.PATTERN_FOUR_THREE:
        triplet = opt_ints[O_THREE, k]
    d = seat_ints[S_N_DECLARED, seat]
    seat_ints[S_DECLARED_INDEX + d, seat] = index
    seat_ints[S_DECLARED_TRIPLET + d, seat] = triplet
    seat_ints[S_N_DECLARED, seat] = d + 1
    seat_masks[SM_DECLARED, seat] |= bit(index)
    seat_masks[SM_EXPOSED, seat] |= opt_cards[k]


@internal_nb(cache=True)
def decide_teyaku_nb(seat, policy_decides, policy_id, state, month_mask, class_masks, junk_only,
                  teyaku_masks, teyaku_ints, opt_ints, opt_cards, seat_ints, seat_masks):
    """Group A, then group B: the seat declares one of the qualifying points teyaku, or none."""
    for group in range(2):
        count = teyaku_options_nb(seat_masks[SM_HAND, seat], group, np.int64(0), month_mask, class_masks, junk_only,
                               teyaku_masks, teyaku_ints, opt_ints, opt_cards)
        if count == 0:
            continue
        chosen = -1
        if policy_decides and policy_id == E.POLICY_RANDOM:
            if draw_yes_nb(state):
                chosen = draw_below_nb(state, count)
        else:
            chosen = best_option_nb(count, opt_ints, teyaku_ints)
        if chosen >= 0:
            declare_nb(seat, chosen, opt_ints, opt_cards, teyaku_ints, seat_ints, seat_masks)


# --- greedy -------------------------------------------------------------------------------------


@internal_nb(cache=True, _nrt=False)
def greedy_gain_nb(pile, captured, yaku_masks, yaku_ints, card_points, stopping):
    new = pile | captured
    rest = stopping
    while rest:
        i = lowest_id(rest)
        rest &= rest - U1
        m = yaku_masks[YM_MASK, i]
        if (m & new) == m:
            return STOP_GAIN
    g = 100 * (points_yaku_value_nb(completed_yaku_nb(new, yaku_masks), yaku_ints)
               - points_yaku_value_nb(completed_yaku_nb(pile, yaku_masks), yaku_ints))
    for i in range(yaku_masks.shape[1]):
        m = yaku_masks[YM_MASK, i]
        if (m & pile) != m:
            g += yaku_ints[Y_WEIGHT, i] * popcount(captured & m & ~pile)
    g += 10 * mask_value(captured, card_points)
    return g


@nb.njit(inline="always", cache=True, _nrt=False)
def best_capture_nb(pile, cb, options, yaku_masks, yaku_ints, card_points, stopping):
    """Of the field cards ``options``, the one the played or turned card (``cb``, a mask) captures
    with the greatest ``greedy_gain_nb`` (ties: the lowest id), as a mask, and that gain."""
    taken = U0
    best_gain = 0
    while options:
        x = lowest_id(options)
        options &= options - U1
        g = greedy_gain_nb(pile, cb | bit(x), yaku_masks, yaku_ints, card_points, stopping)
        if taken == U0 or g > best_gain:
            taken = bit(x)
            best_gain = g
    return taken, best_gain


@internal_nb(cache=True, _nrt=False)
def greedy_placement_nb(card, yaku_masks, yaku_ints, card_points):
    g = 10 * card_points[card]
    b = bit(card)
    for i in range(yaku_masks.shape[1]):
        if (yaku_masks[YM_MASK, i] & b) != U0:
            g += yaku_ints[Y_WEIGHT, i]
    return -g


@internal_nb(cache=True, _nrt=False)
def greedy_play_nb(hand, field, pile, capture_one, month, month_mask, yaku_masks, yaku_ints, card_points, stopping):
    """The hand card whose best resolution gains most (ties: the lowest id)."""
    best = -1
    best_gain = 0
    rest = hand
    while rest:
        card, rest = pop_lowest(rest)
        cb = bit(card)
        matches = matches_nb(field, card, month, month_mask)
        n_matches = popcount(matches)
        if n_matches == 0:
            g = greedy_placement_nb(card, yaku_masks, yaku_ints, card_points)
        elif n_matches == 3 and not capture_one:
            g = greedy_gain_nb(pile, cb | matches, yaku_masks, yaku_ints, card_points, stopping)
        else:
            g = best_capture_nb(pile, cb, matches, yaku_masks, yaku_ints, card_points, stopping)[1]
        if best < 0 or g > best_gain:
            best = card
            best_gain = g
    return best


# --- play -----------------------------------------------------------------------------------------


@internal_nb(cache=True, _nrt=False)
def resolve_nb(card, field, pile, policy_id, state, capture_three_all, month, month_mask, yaku_masks, yaku_ints,
            card_points, stopping):
    """Resolve a played or turned card against the field; returns (field, pile)."""
    cb = bit(card)
    kind, matches = capture_nb(field, card, month, month_mask, capture_three_all)
    if kind == CAPTURE_NONE:
        return field | cb, pile
    if kind == CAPTURE_ALL:
        taken = matches
    elif policy_id == E.POLICY_RANDOM:
        taken = bit(kth_id(matches, draw_below_nb(state, popcount(matches))))
    else:
        taken = best_capture_nb(pile, cb, matches, yaku_masks, yaku_ints, card_points, stopping)[0]
    return field & ~taken, pile | cb | taken


@internal_nb(cache=True, _nrt=False)
def dropout_nb(dealer, n, cap, multiplier, policy_ids, states, cards, seat_ints, seat_masks, card_points, month_mask,
            class_masks, junk_only, teyaku_masks, teyaku_ints, opt_ints, opt_cards):
    """The dropout_nb phase (4-5 players); returns (passes, multiplier).  See ``reference.enshu.RoundState._phase_dropout_pass``."""
    pool_size = n
    for k in range(n):
        cards[POOL_AT + k] = (dealer + k) % n
    remaining = n
    passes = 0
    while True:
        passes += 1
        n_joined = 0
        for q in range(pool_size):
            seat = cards[POOL_AT + q]
            if remaining == 3 or seat_ints[S_MIZU, seat] == 1:
                join = True
            elif policy_ids[seat] == E.POLICY_RANDOM:
                join = draw_yes_nb(states[SEAT0_STATE + seat])
            else:
                hand = seat_masks[SM_HAND, seat]
                join = mask_value(hand, card_points) >= GREEDY_JOIN_POINTS * max(passes, 1)
                if not join and passes <= 1:
                    join = teyaku_options_nb(hand, np.int64(-1), np.int64(-1), month_mask, class_masks, junk_only, teyaku_masks,
                                          teyaku_ints, opt_ints, opt_cards) > 0
            if join:
                cards[JOINED_AT + n_joined] = seat
                n_joined += 1
            else:
                seat_ints[S_ACTIVE, seat] = 0
                remaining -= 1
        if n_joined <= 3:
            break
        if passes >= cap:
            for q in range(n_joined - 1, -1, -1):
                if remaining == 3:
                    break
                seat = cards[JOINED_AT + q]
                if seat_ints[S_MIZU, seat] == 0:
                    seat_ints[S_ACTIVE, seat] = 0
                    remaining -= 1
            break
        multiplier += 1
        for q in range(n_joined):
            cards[POOL_AT + q] = cards[JOINED_AT + q]
        pool_size = n_joined
    return passes, multiplier


@nb.njit(inline="always", cache=True)
def yaku_bits_score_nb(bits, upgrade_months, yaku_ints):
    """The completed yaku ``bits`` of a pile scored: ``(points, n, sum, product, max)`` -- the
    points-kind yaku's points (a yaku whose month is in ``upgrade_months`` counts its upgraded
    value), and the count, sum, product and largest of the multiplier yaku's values."""
    yaku_points = 0
    n_mult = 0
    mult_sum = 0
    mult_product = 1
    mult_max = 0
    rest = bits
    while rest:
        i = lowest_id(rest)
        rest &= rest - U1
        value = yaku_ints[Y_VALUE, i]
        if yaku_ints[Y_KIND, i] == E.YAKU_POINTS:
            upgraded = yaku_ints[Y_UPGRADED, i]
            if upgraded != 0 and (upgrade_months & bit(yaku_ints[Y_MONTH, i])) != U0:
                yaku_points += upgraded
            else:
                yaku_points += value
        else:
            if n_mult == 0 or value > mult_max:
                mult_max = value
            n_mult += 1
            mult_sum += value
            mult_product *= value
    return yaku_points, n_mult, mult_sum, mult_product, mult_max


@nb.njit(inline="always", cache=True)
def triplet_bonus_earned_nb(pile, month_cards, hand_dealt, all_four):
    """Whether a declared triplet's bonus is earned: the pile holds the month's four cards
    (``all_four``), else every card of the month that was not dealt into the hand."""
    if all_four:
        return (pile & month_cards) == month_cards
    rest_of_month = month_cards & ~hand_dealt
    return rest_of_month != U0 and (pile & rest_of_month) == rest_of_month


@internal_nb(cache=True, _nrt=False)
def tally_nb(seat, params, month_mask, card_points, yaku_masks, yaku_ints, teyaku_masks, teyaku_ints,
          seat_ints, seat_masks):
    """Yaku bitset, card, yaku and teyaku points of a seat; returns its multiplier yaku combined
    as (count, sum, product, max)."""
    pile = seat_masks[SM_PILE, seat]
    bits = completed_yaku_nb(pile, yaku_masks)
    n_declared = seat_ints[S_N_DECLARED, seat]
    upgrade_months = U0
    if params[E.P_TRIPLET_UPGRADE] == 1:
        in_four_three = params[E.P_C_TRIPLET_BONUS_IN_FOUR_THREE] == 0
        for d in range(n_declared):
            pattern = teyaku_ints[T_PATTERN, seat_ints[S_DECLARED_INDEX + d, seat]]
            if pattern == E.PATTERN_TRIPLET or (pattern == E.PATTERN_FOUR_THREE and in_four_three):
                upgrade_months |= bit(seat_ints[S_DECLARED_TRIPLET + d, seat])
    yaku_points, n_mult, mult_sum, mult_product, mult_max = yaku_bits_score_nb(bits, upgrade_months, yaku_ints)
    teyaku_points = 0
    all_four = params[E.P_C_TRIPLET_BONUS_CONDITION] == 1
    hand_dealt = seat_masks[SM_HAND_DEALT, seat]
    for d in range(n_declared):
        index = seat_ints[S_DECLARED_INDEX + d, seat]
        if teyaku_ints[T_KIND, index] != E.TEYAKU_STOP:
            teyaku_points += teyaku_ints[T_VALUE, index]
        bonus = teyaku_ints[T_BONUS, index]
        m = seat_ints[S_DECLARED_TRIPLET + d, seat]
        if bonus != 0 and m != 0 and ((teyaku_masks[TM_BONUS_MONTHS, index] >> np.uint64(m)) & U1) != U0:
            if triplet_bonus_earned_nb(pile, month_mask[m], hand_dealt, all_four):
                teyaku_points += bonus
    seat_masks[SM_YAKU, seat] = bits
    seat_ints[S_CARD_POINTS, seat] = mask_value(pile, card_points)
    seat_ints[S_YAKU_POINTS, seat] = yaku_points
    seat_ints[S_TEYAKU_POINTS, seat] = teyaku_points
    return n_mult, mult_sum, mult_product, mult_max


@internal_nb(cache=True, _nrt=False)
def top_score_nb(start, n, reverse, seat_ints):
    """The highest score among active seats from ``start`` (in turn order, or reversed); ties: the first."""
    best = -1
    for k in range(n):
        seat = (start - k) % n if reverse else (start + k) % n
        if seat_ints[S_ACTIVE, seat] == 0:
            continue
        if best < 0 or seat_ints[S_SCORE, seat] > seat_ints[S_SCORE, best]:
            best = seat
    return best


# --- one round ------------------------------------------------------------------------------


@nb.njit(cache=True, _nrt=False)
def play_round_nb(seed, round_index, dealer, policy_ids, params, month, month_mask, card_points, class_masks,
                  yaku_masks, yaku_ints, teyaku_masks, teyaku_ints,
                  states, cards, seat_ints, seat_masks, opt_ints, opt_cards,
                  out_int, out_mask, row):
    """Play one round and write its row (all but the match columns); returns the winner (-1: void).

    The seats' payoffs are left in ``seat_ints[S_PAYOFF]`` for the match totals.
    """
    variant = params[E.P_VARIANT]
    n = params[E.P_PLAYERS]
    hand_size = params[E.P_HAND]
    field_size = params[E.P_FIELD]
    is_c = variant == E.VARIANT_C
    junk_only = params[E.P_C_EXPOSURE] == 1
    capture_three_all = params[E.P_CAPTURE_THREE] == 0
    stopping_mask = class_masks[K_STOPPING]
    icp = class_masks[K_ICP]
    raises = n >= 4 or params[E.P_C_KOTSU_SMALL_GAMES] == 0

    for s in range(n):
        stream_init_nb(states[SEAT0_STATE + s], seed, round_index, SEAT_STREAM_BASE + s)
    stream_init_nb(states[DEAL_STATE], seed, round_index, DEAL_STREAM)
    seat_ints[:, :] = 0
    seat_masks[:, :] = U0
    for s in range(n):
        seat_ints[S_ACTIVE, s] = 1
        seat_ints[S_YAKU_MULTIPLIER, s] = 1

    # 1. mizu-kotsu (C)
    mizu_count = 0
    if is_c and raises:
        for k in range(n):
            if mizu_count == E.MAX_MIZU_KOTSU:
                break
            seat = (dealer + k) % n
            if policy_ids[seat] == E.POLICY_RANDOM and draw_yes_nb(states[SEAT0_STATE + seat]):
                seat_ints[S_MIZU, seat] = 1
                mizu_count += 1

    # 2.-4. deal, misdeals, multiplier, kotsu, dropout_nb
    redeals = np.int64(0)  # int64 from the start: a literal 0 would compile write_outcome_nb twice
    multiplier = 1
    passes = 0
    kotsu_count = 0
    acting = dealer
    field = U0
    draw_size = 0
    while True:
        while True:
            for i in range(DECK_SIZE):
                cards[i] = i
            shuffle_cards_nb(cards, np.int64(0), np.int64(DECK_SIZE), states[DEAL_STATE])
            field = U0
            for i in range(field_size):
                field |= bit(cards[i])
            for k in range(n):
                hand = U0
                start = field_size + k * hand_size
                for i in range(start, start + hand_size):
                    hand |= bit(cards[i])
                seat_masks[SM_HAND, (dealer + k) % n] = hand
            misdeal = False
            for m in range(1, E.N_MONTHS + 1):
                on_field = popcount(field & month_mask[m])
                if params[E.P_MISDEAL_FIELD_FOUR] != 0 and on_field == 4:
                    misdeal = True
                if params[E.P_MISDEAL_FIELD_ICP_THREE] != 0 and on_field >= 3 and (month_mask[m] & icp) != U0:
                    misdeal = True
            if params[E.P_MISDEAL_HAND_ICP_FOUR] == E.HAND_FOUR_AT_DEAL:
                for s in range(n):
                    if icp_four_nb(seat_masks[SM_HAND, s], month_mask, icp):
                        misdeal = True
            if misdeal and redeals < E.MAX_REDEALS:
                redeals += 1
                continue
            break
        draw_size = DECK_SIZE - field_size - n * hand_size
        for i in range(draw_size):
            cards[DRAW_AT + i] = cards[field_size + n * hand_size + i]
        for s in range(n):
            seat_masks[SM_HAND_DEALT, s] = seat_masks[SM_HAND, s]
        if not is_c:
            break
        kotsu_count = 0
        for s in range(n):
            seat_ints[S_ACTIVE, s] = 1
            seat_ints[S_KOTSU, s] = 0
        multiplier = 1 + popcount(field & class_masks[K_BRIGHT]) + mizu_count
        if raises:
            for k in range(n):
                seat = (dealer + k) % n
                if policy_ids[seat] == E.POLICY_RANDOM:
                    yes = draw_yes_nb(states[SEAT0_STATE + seat])
                else:
                    yes = mask_value(seat_masks[SM_HAND, seat], card_points) >= GREEDY_KOTSU_POINTS
                if yes:
                    seat_ints[S_KOTSU, seat] = 1
                    kotsu_count += 1
                    multiplier += 1
        passes = 0
        if n >= 4:
            passes, multiplier = dropout_nb(dealer, n, params[E.P_C_DROPOUT_PASS_CAP], multiplier, policy_ids, states,
                                         cards, seat_ints, seat_masks, card_points, month_mask, class_masks, junk_only,
                                         teyaku_masks, teyaku_ints, opt_ints, opt_cards)
        acting = dealer
        while seat_ints[S_ACTIVE, acting] == 0:
            acting = (acting + 1) % n
        if params[E.P_MISDEAL_HAND_ICP_FOUR] == E.HAND_FOUR_AT_TEYAKU and redeals < E.MAX_REDEALS:
            four = False
            for s in range(n):
                if seat_ints[S_ACTIVE, s] == 1 and icp_four_nb(seat_masks[SM_HAND, s], month_mask, icp):
                    four = True
            if four:
                redeals += 1
                continue
        # the dropped hands, each ascending, in seat order from the dealer
        added = 0
        for k in range(n):
            seat = (dealer + k) % n
            if seat_ints[S_ACTIVE, seat] == 0:
                rest = seat_masks[SM_HAND, seat]
                seat_masks[SM_HAND, seat] = U0
                while rest:
                    cards[DRAW_AT + draw_size + added] = lowest_id(rest)
                    rest &= rest - U1
                    added += 1
        if added > 0 and params[E.P_C_DROPPED_HANDS] == 0:
            draw_size += added
            stream_init_nb(states[RULES_STATE], seed, round_index, RULES_STREAM)
            shuffle_cards_nb(cards, np.int64(DRAW_AT), draw_size, states[RULES_STATE])
        break
    field_dealt = field
    for s in range(n):
        qualifying = U0
        count = teyaku_options_nb(seat_masks[SM_HAND_DEALT, s], np.int64(-1), np.int64(-1), month_mask, class_masks, junk_only,
                               teyaku_masks, teyaku_ints, opt_ints, opt_cards)
        for k in range(count):
            qualifying |= bit(opt_ints[O_INDEX, k])
        seat_masks[SM_TEYAKU_DEALT, s] = qualifying

    # 5. teyaku
    stop_index = -1
    winner = -1
    decide = True
    policy_decides = True
    if variant == E.VARIANT_W:
        best_value = 0
        for k in range(n):
            seat = (dealer + k) % n
            count = teyaku_options_nb(seat_masks[SM_HAND, seat], np.int64(-1), np.int64(1), month_mask, class_masks, junk_only,
                                   teyaku_masks, teyaku_ints, opt_ints, opt_cards)
            if count == 0:
                continue
            chosen = best_option_nb(count, opt_ints, teyaku_ints)
            declare_nb(seat, chosen, opt_ints, opt_cards, teyaku_ints, seat_ints, seat_masks)
            value = teyaku_ints[T_VALUE, opt_ints[O_INDEX, chosen]]
            if stop_index < 0 or value > best_value:
                stop_index = opt_ints[O_INDEX, chosen]
                best_value = value
                winner = seat
        mode = params[E.P_W_TRIPLET_DECLARE]
        decide = stop_index < 0 and mode != 2
        policy_decides = mode == 0
    elif variant == E.VARIANT_S:
        decide = params[E.P_S_TEYAKU] == 0
    if decide:
        for k in range(n):
            seat = (acting + k) % n
            if seat_ints[S_ACTIVE, seat] == 1:
                decide_teyaku_nb(seat, policy_decides, policy_ids[seat], states[SEAT0_STATE + seat], month_mask,
                              class_masks, junk_only, teyaku_masks, teyaku_ints, opt_ints, opt_cards,
                              seat_ints, seat_masks)

    # 6. turns
    turn = 0
    stopping = U0
    if stop_index < 0:
        each_capture = params[E.P_UCHIKIRI_CHECK] == 1
        draw_position = 0
        seat = acting
        while True:
            any_cards = False
            for s in range(n):
                if seat_ints[S_ACTIVE, s] == 1 and seat_masks[SM_HAND, s] != U0:
                    any_cards = True
            if not any_cards:
                break
            turn += 1
            policy_id = policy_ids[seat]
            state = states[SEAT0_STATE + seat]
            hand = seat_masks[SM_HAND, seat]
            pile = seat_masks[SM_PILE, seat]
            if policy_id == E.POLICY_RANDOM:
                card = kth_id(hand, draw_below_nb(state, popcount(hand)))
            else:
                card = greedy_play_nb(hand, field, pile, not capture_three_all, month, month_mask, yaku_masks,
                                   yaku_ints, card_points, stopping_mask)
            seat_masks[SM_HAND, seat] = hand & ~bit(card)
            for phase in range(2):
                if phase == 1:
                    if draw_position >= draw_size:
                        break
                    card = cards[DRAW_AT + draw_position]
                    draw_position += 1
                field, pile = resolve_nb(card, field, pile, policy_id, state, capture_three_all, month, month_mask,
                                      yaku_masks, yaku_ints, card_points, stopping_mask)
                if phase == 0 and not each_capture:
                    continue
                stopping = stopping_yaku_nb(pile, yaku_masks, stopping_mask)
                if stopping != U0:
                    break
            seat_masks[SM_PILE, seat] = pile
            if stopping == U0:
                stopping = stopping_yaku_nb(pile, yaku_masks, stopping_mask)
            if stopping != U0:
                winner = seat
                break
            seat = (seat + 1) % n
            while seat_ints[S_ACTIVE, seat] == 0:
                seat = (seat + 1) % n
    if stop_index >= 0:
        reason = E.END_TEYAKU_STOP
    elif stopping != U0:
        reason = E.END_UCHIKIRI
    else:
        reason = E.END_SCORE

    # 7. score
    n_active = 0
    for s in range(n):
        if seat_ints[S_ACTIVE, s] == 1:
            n_active += 1
    fuke = -1
    for s in range(n):
        if seat_ints[S_ACTIVE, s] == 0:
            continue
        n_mult, mult_sum, mult_product, mult_max = tally_nb(s, params, month_mask, card_points, yaku_masks, yaku_ints,
                                                         teyaku_masks, teyaku_ints, seat_ints, seat_masks)
        if variant == E.VARIANT_S:
            if params[E.P_S_COMBINATION] == 2:
                seat_ints[S_YAKU_MULTIPLIER, s] = mult_sum if n_mult > 0 else 1
            else:
                seat_ints[S_YAKU_MULTIPLIER, s] = mult_product
        elif is_c and n_mult > 0:
            seat_ints[S_YAKU_MULTIPLIER, s] = mult_product if params[E.P_C_UCHIKIRI_COMBO] == 0 else mult_max
    if variant == E.VARIANT_W:
        stake = params[E.P_W_STAKE]
        if reason == E.END_SCORE:
            top = 0
            for s in range(n):
                total = (seat_ints[S_CARD_POINTS, s] + seat_ints[S_YAKU_POINTS, s]
                         + seat_ints[S_TEYAKU_POINTS, s])
                seat_ints[S_SCORE, s] = total
                if s == 0 or total > top:
                    top = total
            n_tied = 0
            winner = -1
            for k in range(n):
                seat = (dealer + k) % n
                seat_ints[S_PAYOFF, seat] = -stake
                if seat_ints[S_SCORE, seat] == top:
                    if winner < 0:
                        winner = seat
                    n_tied += 1
            if params[E.P_W_TIE] == 0 or n_tied == 1:
                seat_ints[S_PAYOFF, winner] = stake * (n - 1)
            else:
                won = stake * (n - n_tied)
                k_tied = 0
                for k in range(n):
                    seat = (dealer + k) % n
                    if seat_ints[S_SCORE, seat] == top:
                        seat_ints[S_PAYOFF, seat] = won // n_tied + (1 if k_tied < won % n_tied else 0)
                        k_tied += 1
        else:
            if reason == E.END_TEYAKU_STOP:
                stakes = teyaku_ints[T_VALUE, stop_index]
            else:
                combo = params[E.P_W_UCHIKIRI_COMBO]
                stakes = 0 if combo == E.COMBO_SUM else 1
                first = True
                rest = stopping
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
                seat_ints[S_PAYOFF, s] = -per_loser
            seat_ints[S_PAYOFF, winner] = per_loser * (n - 1)
    elif variant == E.VARIANT_S:
        combination = params[E.P_S_COMBINATION]
        for s in range(n):
            cards_points = seat_ints[S_CARD_POINTS, s]
            yaku_points = seat_ints[S_YAKU_POINTS, s] + seat_ints[S_TEYAKU_POINTS, s]
            factor = seat_ints[S_YAKU_MULTIPLIER, s]
            if combination == 1:
                score = cards_points * factor + yaku_points
            else:
                score = (cards_points + yaku_points) * factor
            seat_ints[S_SCORE, s] = score
            seat_ints[S_PAYOFF, s] = score
        winner = top_score_nb(dealer, n, params[E.P_TIE_ORDER] == 1, seat_ints)
    else:
        zero_sum = params[E.P_C_SCORE_FORMULA] == 1
        own_total = 0
        for s in range(n):
            if seat_ints[S_ACTIVE, s] == 1:
                own_total += seat_ints[S_YAKU_POINTS, s] + seat_ints[S_TEYAKU_POINTS, s]
        for s in range(n):
            if seat_ints[S_ACTIVE, s] == 0:
                continue
            own = seat_ints[S_YAKU_POINTS, s] + seat_ints[S_TEYAKU_POINTS, s]
            base = seat_ints[S_CARD_POINTS, s] - (own_total - own)
            if zero_sum:
                base += (n_active - 1) * own
            seat_ints[S_SCORE, s] = base * multiplier * seat_ints[S_YAKU_MULTIPLIER, s]
        if reason != E.END_UCHIKIRI:
            winner = top_score_nb(acting, n, params[E.P_TIE_ORDER] == 1, seat_ints)
        if reason != E.END_UCHIKIRI or params[E.P_C_FUKE_ON_UCHIKIRI] == 1:
            willow = class_masks[K_WILLOW]
            for k in range(n):
                seat = (acting + k) % n
                if seat_ints[S_ACTIVE, seat] == 0 or seat_ints[S_N_DECLARED, seat] > 0:
                    continue
                if mask_value(seat_masks[SM_PILE, seat] & ~willow, card_points) > E.FUKE_LIMIT:
                    continue
                if policy_ids[seat] == E.POLICY_RANDOM:
                    yes = draw_yes_nb(states[SEAT0_STATE + seat])
                else:
                    yes = winner != seat and winner >= 0 and seat_ints[S_SCORE, winner] > 0
                if yes:
                    fuke = seat
                    break
        if fuke >= 0:
            reason = E.END_FUKE
            winner = -1
            for s in range(n):
                seat_ints[S_SCORE, s] = 0
        else:
            paid = seat_ints[S_SCORE, winner]
            if params[E.P_C_NEGATIVE_SCORE] == 0 and paid < 0:
                paid = 0
            for s in range(n):
                if seat_ints[S_ACTIVE, s] == 1:
                    seat_ints[S_PAYOFF, s] = -paid
            seat_ints[S_PAYOFF, winner] = paid * (n_active - 1)

    # the row (every cell but the match columns, which the unit loop writes)
    mizu_total = 0
    for s in range(n):
        mizu_total += seat_ints[S_MIZU, s]
    write_outcome_nb(out_int, row, round_index, dealer, acting, winner, reason, turn, redeals)
    out_int[E.C_PLAYERS, row] = n
    out_int[E.C_MULTIPLIER, row] = multiplier
    out_int[E.C_FIELD_BRIGHTS, row] = popcount(field_dealt & class_masks[K_BRIGHT])
    out_int[E.C_MIZU_KOTSU_COUNT, row] = mizu_total
    out_int[E.C_KOTSU_COUNT, row] = kotsu_count
    out_int[E.C_DROPOUT_PASSES, row] = passes
    out_int[E.C_FUKE, row] = fuke
    out_mask[E.M_FIELD_DEALT, row] = field_dealt
    out_mask[E.M_STOPPING_YAKU, row] = stopping
    out_mask[E.M_STOPPING_TEYAKU, row] = bit(stop_index) if stop_index >= 0 else U0
    for s in range(MAX_SEATS):
        out_int[E.C_ACTIVE + s, row] = seat_ints[S_ACTIVE, s]
        out_int[E.C_MIZU_KOTSU + s, row] = seat_ints[S_MIZU, s]
        out_int[E.C_KOTSU + s, row] = seat_ints[S_KOTSU, s]
        out_int[E.C_YAKU_POINTS + s, row] = seat_ints[S_YAKU_POINTS, s]
        out_int[E.C_TEYAKU_POINTS + s, row] = seat_ints[S_TEYAKU_POINTS, s]
        out_int[E.C_CARD_POINTS + s, row] = seat_ints[S_CARD_POINTS, s]
        out_int[E.C_YAKU_MULTIPLIER + s, row] = seat_ints[S_YAKU_MULTIPLIER, s]
        out_int[E.C_SCORE + s, row] = seat_ints[S_SCORE, s]
        out_int[E.C_PAYOFF + s, row] = seat_ints[S_PAYOFF, s]
        out_mask[E.M_HAND_DEALT + s, row] = seat_masks[SM_HAND_DEALT, s]
        out_mask[E.M_CAPTURED + s, row] = seat_masks[SM_PILE, s]
        out_mask[E.M_YAKU + s, row] = seat_masks[SM_YAKU, s]
        out_mask[E.M_TEYAKU_DEALT + s, row] = seat_masks[SM_TEYAKU_DEALT, s]
        out_mask[E.M_TEYAKU_DECLARED + s, row] = seat_masks[SM_DECLARED, s]
        out_mask[E.M_EXPOSED + s, row] = seat_masks[SM_EXPOSED, s]
    return winner


# --- units -----------------------------------------------------------------------------------


@nb.njit(cache=True)
def pack_rules_nb(bright_mask, animal_mask, ribbon_mask, willow_mask, junk_mask, icp_mask,
                  yaku_mask, yaku_kind, yaku_value, yaku_upgraded, yaku_month, supersedes, greedy_weight,
                  teyaku_pattern, teyaku_group, teyaku_kind, teyaku_value, teyaku_bonus,
                  teyaku_months, teyaku_three_months, teyaku_bonus_months):
    """The rule tables packed into (class_masks, yaku_masks, yaku_ints, teyaku_masks, teyaku_ints)."""
    n_yaku = yaku_mask.shape[0]
    n_teyaku = teyaku_pattern.shape[0]
    class_masks = np.empty(N_CLASSES, dtype=np.uint64)
    class_masks[K_STOPPING] = U0
    class_masks[K_BRIGHT] = bright_mask
    class_masks[K_ANIMAL] = animal_mask
    class_masks[K_RIBBON] = ribbon_mask
    class_masks[K_WILLOW] = willow_mask
    class_masks[K_JUNK] = junk_mask
    class_masks[K_ICP] = icp_mask
    yaku_masks = np.empty((2, n_yaku), dtype=np.uint64)
    yaku_ints = np.empty((5, n_yaku), dtype=np.int32)
    for i in range(n_yaku):
        yaku_masks[YM_MASK, i] = yaku_mask[i]
        yaku_masks[YM_SUPERSEDES, i] = supersedes[i]
        yaku_ints[Y_KIND, i] = yaku_kind[i]
        yaku_ints[Y_VALUE, i] = yaku_value[i]
        yaku_ints[Y_UPGRADED, i] = yaku_upgraded[i]
        yaku_ints[Y_MONTH, i] = yaku_month[i]
        yaku_ints[Y_WEIGHT, i] = greedy_weight[i]
        if yaku_kind[i] == E.YAKU_UCHIKIRI:
            class_masks[K_STOPPING] |= bit(i)
    teyaku_masks = np.empty((3, n_teyaku), dtype=np.uint64)
    teyaku_ints = np.empty((5, n_teyaku), dtype=np.int32)
    for i in range(n_teyaku):
        teyaku_masks[TM_MONTHS, i] = teyaku_months[i]
        teyaku_masks[TM_THREE_MONTHS, i] = teyaku_three_months[i]
        teyaku_masks[TM_BONUS_MONTHS, i] = teyaku_bonus_months[i]
        teyaku_ints[T_PATTERN, i] = teyaku_pattern[i]
        teyaku_ints[T_GROUP, i] = teyaku_group[i]
        teyaku_ints[T_KIND, i] = teyaku_kind[i]
        teyaku_ints[T_VALUE, i] = teyaku_value[i]
        teyaku_ints[T_BONUS, i] = teyaku_bonus[i]

    return class_masks, yaku_masks, yaku_ints, teyaku_masks, teyaku_ints


@nb.njit(cache=True, nogil=True)
def play_units_nb(seed, first_unit, lo, hi, rounds_per_match, policy_ids,
                  params, month, month_mask, card_points,
                  bright_mask, animal_mask, ribbon_mask, willow_mask, junk_mask, icp_mask,
                  yaku_mask, yaku_kind, yaku_value, yaku_upgraded, yaku_month, supersedes, greedy_weight,
                  teyaku_pattern, teyaku_group, teyaku_kind, teyaku_value, teyaku_bonus,
                  teyaku_months, teyaku_three_months, teyaku_bonus_months,
                  out_int, out_mask):
    """Play units ``first_unit + lo .. first_unit + hi - 1`` into rows ``lo * stride ..``
    (``rounds_per_match == 0``: independent rounds, else matches); threads call it on disjoint
    spans (``simcore.kernels.threads``)."""
    # packed so that the round takes fewer than 30 arguments
    class_masks, yaku_masks, yaku_ints, teyaku_masks, teyaku_ints = pack_rules_nb(
        bright_mask, animal_mask, ribbon_mask, willow_mask, junk_mask, icp_mask,
        yaku_mask, yaku_kind, yaku_value, yaku_upgraded, yaku_month, supersedes, greedy_weight,
        teyaku_pattern, teyaku_group, teyaku_kind, teyaku_value, teyaku_bonus,
        teyaku_months, teyaku_three_months, teyaku_bonus_months)

    n = params[E.P_PLAYERS]
    n_teyaku = teyaku_ints.shape[1]
    round_wins = params[E.P_VARIANT] == E.VARIANT_S and params[E.P_S_MATCH_SCORING] == 1
    rotate = params[E.P_NEXT_DEALER] == 1
    independent = rounds_per_match == 0
    stride = 1 if independent else rounds_per_match
    if hi > lo:
        states = np.empty((SEAT0_STATE + MAX_SEATS, 4), dtype=np.uint64)
        cards = np.empty(CARDS_SCRATCH, dtype=np.int64)
        seat_ints = np.empty((N_SEAT_INTS, MAX_SEATS), dtype=np.int64)
        seat_masks = np.empty((N_SEAT_MASKS, MAX_SEATS), dtype=np.uint64)
        opt_ints = np.empty((3, 2 * n_teyaku + 2), dtype=np.int64)
        opt_cards = np.empty(2 * n_teyaku + 2, dtype=np.uint64)
        match_points = np.empty(MAX_SEATS, dtype=np.int64)
        for i in range(lo, hi):
            unit = first_unit + i
            dealer = unit % n
            match_points[:] = 0
            # one call site of the round, so that it is compiled once
            for k in range(stride):
                row = i * stride + k
                round_index = unit if independent else unit * stride + k
                winner = play_round_nb(seed, round_index, dealer, policy_ids, params, month, month_mask, card_points,
                                       class_masks, yaku_masks, yaku_ints, teyaku_masks, teyaku_ints,
                                       states, cards, seat_ints, seat_masks, opt_ints, opt_cards,
                                       out_int, out_mask, row)
                for s in range(n):
                    if round_wins:
                        match_points[s] += 1 if winner == s else 0
                    else:
                        match_points[s] += seat_ints[S_PAYOFF, s]
                out_int[C_MATCH, row] = unit
                out_int[C_ROUND_IN_MATCH, row] = k
                out_int[C_MATCH_END, row] = 1 if k == stride - 1 else 0
                for s in range(MAX_SEATS):
                    out_int[E.C_MATCH_POINTS + s, row] = match_points[s]
                if winner >= 0:
                    dealer = (dealer + 1) % n if rotate else winner
