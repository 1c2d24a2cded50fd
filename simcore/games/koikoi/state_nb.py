"""Numba state machine of a koi-koi round: the forward model of ``reference.RoundState`` in arrays,
and the round contract (``simcore.kernels.contract``) over it.

Contract
--------
A round is one ``int64[ST_SIZE]`` array (slots ``ST_*``; card sets are masks stored as
non-negative int64), so cloning a round is copying an array. The rules are one int64 array
``rt`` (``rule_table(compiled)``, slots ``R_*``), passed as an argument, never a global. ``ids``
is int64 scratch of at least 64 entries (shuffles); ``states`` a uint64 array of stream states,
four words per stream at an offset (``simcore.rng``).

The round steps exactly as the reference engine and pauses at the same decisions, whose legal
actions are stored as action keys (``(kind << 56) | payload``, kinds ``E.D_*``, the reference's
``decisions.action_key``) at ``st[ST_KEYS + i]``, ``i < st[ST_N]``, in the reference's order.
``new_round_nb`` deals a round to its first decision, ``apply_nb`` takes the action of an index
and steps to the next decision or the end, ``sample_hidden_nb`` is ``RoundState.sample_hidden``
(the same stream draws), ``random_choose_nb`` and ``policy_choose_nb`` decide as the reference's
random, greedy and heuristic policies (``scoring`` and ``policies``, twinned here). Nothing but
the contract's ``context_nb`` and ``new_state_nb`` allocates.

This module imports only numpy, numba and the kernels' helpers.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from simcore.games.koikoi import enums as E
from simcore.kernels import contract as C
from simcore.kernels.bits import PAYLOAD_MASK, key_of_nb, lowest_id, popcount, ubit_nb
from simcore.kernels.contract import implements
from simcore.kernels.internal import internal_nb
from simcore.kernels.pending_nb import pose_nb, pose_two_nb
from simcore.kernels.prepared import word_table
from simcore.kernels.rows_nb import write_outcome_nb
from simcore.rng import (
    DEAL_STREAM,
    round_hash_nb,
    shuffle_places_nb,
    shuffled_ids_nb,
    stream_init_hashed_nb,
    uniform_below_nb,
)

__all__ = ["KoikoiContext", "KoikoiRules", "kernel_rules", "rule_table"]

CAPTURE_WEIGHT = 100  # policies.CAPTURE_WEIGHT
H_KOIKOI_BELOW = 0  # the heuristic's table (policies.HEURISTIC_ORDER)
H_MIN_CARDS = 1
H_DANGER = 2
H_DENY = 3

# --- state slots -----------------------------------------------------------------------------
ST_ROUND = 0
ST_DEALER = 1
ST_MONTH = 2
ST_HAND = 3  # + seat
ST_PILE = 5  # + seat
ST_FIELD = 7
ST_DRAW_TOP = 8  # index of the draw pile's top card in ST_DRAW
ST_TURN = 9
ST_SEAT = 10
ST_CALLS = 11  # + seat
ST_LAST_CALLER = 13
ST_TURN_BITS = 14
ST_TURN_POINTS = 15
ST_REDEALS = 16
ST_FIELD_DEALT = 17
ST_HAND_DEALT = 18  # + seat
ST_DEALT_YAKU = 20  # + seat
ST_IN_PLAY = 22
ST_KIND = 23  # the pending decision's kind (-1: none)
ST_DSEAT = 24
ST_N = 25
ST_CARD = 26  # capture: the card
ST_SOURCE = 27  # capture: 0 played, 1 turned
ST_DONE = 28
ST_WINNER = 29
ST_REASON = 30
ST_SCORE = 31  # + seat
ST_PAYOFF = 33  # + seat
ST_YAKU = 35  # + seat: the yaku bits at the end
ST_POINTS = 37  # + seat: the yaku points at the end
ST_KEYS = 40
MAX_ACTIONS = 8
PENDING = (ST_KIND, ST_DSEAT, ST_N, ST_KEYS)  # where the pending decision is posed (pending_nb)
ST_DRAW = ST_KEYS + MAX_ACTIONS
ST_SIZE = ST_DRAW + E.DRAW_SIZE

# --- the rule table ``rt``: int64[R_SIZE] ------------------------------------------------------
R_PARAMS = 0  # [32]
R_MONTH = 32  # [64]
R_MONTH_MASK = 96  # [16]
R_CLASSES = 112  # [16]
R_CHAFF = 128
R_YAKU_VALUE = 129  # [16]
R_WEIGHT = 145  # [64]
R_SIZE = 209

SOURCE_PLAY = 0
SOURCE_DRAW = 1
DECK_MASK = (1 << E.DECK_SIZE) - 1


def rule_table(compiled) -> np.ndarray:
    """The rule table ``rt`` of a ``CompiledRules``: int64[R_SIZE] (slots ``R_*``; masks stored
    bit for bit as int64)."""
    return word_table(R_SIZE, [
        (R_PARAMS, compiled.params),
        (R_MONTH, compiled.month[:64]),
        (R_MONTH_MASK, compiled.month_mask),
        (R_CLASSES, compiled.classes),
        (R_CHAFF, np.array([compiled.chaff_mask], dtype=np.uint64)),
        (R_YAKU_VALUE, compiled.yaku_value),
        (R_WEIGHT, compiled.card_weight),
    ])


@nb.njit(inline="always", cache=True)
def param_nb(rt, index):
    return rt[R_PARAMS + index]


# --- yaku and scores (``scoring``) -------------------------------------------------------------


@internal_nb(cache=True, _nrt=False)
def pile_yaku_nb(pile, calls, month, rt):
    """``(bits, points)`` of ``pile`` for a seat with ``calls`` koi-koi calls in a round of
    ``month`` (``scoring.pile_yaku``)."""
    bits = np.int64(0)
    points = np.int64(0)
    brights = popcount(pile & rt[R_CLASSES + E.K_BRIGHTS])
    rain = (pile & rt[R_CLASSES + E.K_RAIN_MAN]) != 0
    bright = -1
    if brights == 5:
        bright = E.Y_FIVE_BRIGHTS
    elif brights == 4:
        bright = E.Y_RAINY_FOUR_BRIGHTS if rain else E.Y_FOUR_BRIGHTS
    elif brights == 3 and not rain:
        bright = E.Y_THREE_BRIGHTS
    if bright >= 0 and rt[R_YAKU_VALUE + bright] > 0:
        bits |= ubit_nb(bright)
        points += rt[R_YAKU_VALUE + bright]

    animals = popcount(pile & rt[R_CLASSES + E.K_ANIMALS])
    bdb_cards = rt[R_CLASSES + E.K_BOAR_DEER_BUTTERFLY]
    bdb = (pile & bdb_cards) == bdb_cards and rt[R_YAKU_VALUE + E.Y_BOAR_DEER_BUTTERFLY] > 0
    if bdb:
        extra = animals - 3 if param_nb(rt, E.P_BDB_EXTRA) == E.BDB_EXTRA_PER_ANIMAL else 0
        bits |= ubit_nb(E.Y_BOAR_DEER_BUTTERFLY)
        points += rt[R_YAKU_VALUE + E.Y_BOAR_DEER_BUTTERFLY] + extra
    if animals >= E.TANE_MIN and not (bdb and param_nb(rt, E.P_BDB_WITH_TANE) != E.STACKS):
        bits |= ubit_nb(E.Y_TANE)
        points += animals - E.TANE_MIN + 1

    rain_off = param_nb(rt, E.P_RAIN_OFF)
    rained = False
    if rain_off == E.RAIN_OFF_RAIN_MAN:
        rained = (pile & (rt[R_CLASSES + E.K_RAIN_MAN] | rt[R_CLASSES + E.K_LIGHTNING])) != 0
    elif rain_off == E.RAIN_OFF_ANY_WILLOW:
        rained = (pile & rt[R_CLASSES + E.K_WILLOW]) != 0
    raised = param_nb(rt, E.P_VIEWING_RAISE) == E.VIEWING_RAISE_AFTER_OWN and calls > 0
    sake = rt[R_CLASSES + E.K_SAKE_CUP]
    for bit in (E.Y_HANAMI, E.Y_TSUKIMI):
        cards = sake | rt[R_CLASSES + (E.K_CURTAIN if bit == E.Y_HANAMI else E.K_MOON)]
        if rt[R_YAKU_VALUE + bit] > 0 and not rained and (pile & cards) == cards:
            bits |= ubit_nb(bit)
            points += param_nb(rt, E.P_VIEWING_RAISED) if raised else rt[R_YAKU_VALUE + bit]

    ribbons = popcount(pile & rt[R_CLASSES + E.K_RIBBONS])
    per_ribbon = param_nb(rt, E.P_RIBBON_EXTRA) == 0
    red_cards = rt[R_CLASSES + E.K_RED_RIBBONS]
    blue_cards = rt[R_CLASSES + E.K_BLUE_RIBBONS]
    red = (pile & red_cards) == red_cards
    blue = (pile & blue_cards) == blue_cards
    both = red and blue and rt[R_YAKU_VALUE + E.Y_AKATAN_AOTAN] > 0
    ribbon_yaku = False
    if both:
        bits |= ubit_nb(E.Y_AKATAN_AOTAN)
        points += rt[R_YAKU_VALUE + E.Y_AKATAN_AOTAN] + (ribbons - 6 if per_ribbon else 0)
        ribbon_yaku = True
    alone = not both or param_nb(rt, E.P_RED_AND_BLUE) == E.STACKS
    for bit in (E.Y_AKATAN, E.Y_AOTAN):
        full = red if bit == E.Y_AKATAN else blue
        if full and alone and rt[R_YAKU_VALUE + bit] > 0:
            bits |= ubit_nb(bit)
            points += rt[R_YAKU_VALUE + bit] + (ribbons - 3 if per_ribbon else 0)
            ribbon_yaku = True
    if ribbons >= E.TAN_MIN and not (ribbon_yaku and param_nb(rt, E.P_RIBBONS_WITH_TAN) != E.STACKS):
        bits |= ubit_nb(E.Y_TAN)
        points += ribbons - E.TAN_MIN + 1

    chaff = popcount(pile & rt[R_CHAFF])
    if chaff >= E.KASU_MIN:
        bits |= ubit_nb(E.Y_KASU)
        points += chaff - E.KASU_MIN + 1

    month_cards = rt[R_MONTH_MASK + month]
    if rt[R_YAKU_VALUE + E.Y_TSUKIFUDA] > 0 and (pile & month_cards) == month_cards:
        bits |= ubit_nb(E.Y_TSUKIFUDA)
        points += rt[R_YAKU_VALUE + E.Y_TSUKIFUDA]
    return bits, points


@internal_nb(cache=True, _nrt=False)
def stop_score_nb(points, own, other, rt):
    """The round's points of a stop (``scoring.stop_score``)."""
    score = points
    if param_nb(rt, E.P_SEVEN_DOUBLE) == 0 and points >= 7:
        score *= 2
    bonus = param_nb(rt, E.P_KOIKOI_BONUS)
    if bonus == E.KOIKOI_BONUS_OPPONENT_DOUBLE:
        return score * 2 if other > 0 else score
    if bonus == E.KOIKOI_BONUS_OWN_ADD_THEN_MULTIPLY:
        return score + own if own <= 3 else score * (own - 2)
    if bonus == E.KOIKOI_BONUS_CALLS_PLUS_ONE:
        return score * (own + other + 1)
    if bonus == E.KOIKOI_BONUS_OWN_DOUBLE:
        return score * 2 if own > 0 else score
    if bonus == E.KOIKOI_BONUS_ANY_DOUBLE:
        return score * 2 if own + other > 0 else score
    return score


@internal_nb(cache=True, _nrt=False)
def dealt_hand_nb(cards, rt):
    """``E.Y_TESHI``, ``E.Y_KUTTSUKI`` or -1 (``scoring.dealt_hand``)."""
    pairs = 0
    for m in range(1, 13):
        count = popcount(cards & rt[R_MONTH_MASK + m])
        if count == 4:
            return E.Y_TESHI
        if count == 2:
            pairs += 1
    return E.Y_KUTTSUKI if pairs == 4 else -1


@internal_nb(cache=True, _nrt=False)
def misdeal_nb(hand0, hand1, field, rt):
    """Whether the rules redeal this deal (``RoundState._misdeal``)."""
    for hand in (hand0, hand1):
        kind = dealt_hand_nb(hand, rt)
        if kind == E.Y_TESHI and param_nb(rt, E.P_TESHI) == E.DEALT_REDEAL:
            return True
        if kind == E.Y_KUTTSUKI and param_nb(rt, E.P_KUTTSUKI) == E.DEALT_REDEAL:
            return True
    kind = dealt_hand_nb(field, rt)
    if kind == E.Y_TESHI and param_nb(rt, E.P_FIELD_FOUR) == E.FIELD_REDEAL:
        return True
    return kind == E.Y_KUTTSUKI and param_nb(rt, E.P_FIELD_PAIRS) == E.FIELD_REDEAL


# --- the round ---------------------------------------------------------------------------------


@internal_nb(cache=True, _nrt=False)
def new_round_nb(st, seed, round_index, dealer, month, rt, ids, states):
    """Set ``st`` to round ``round_index`` dealt by ``dealer`` at its first decision (or ended,
    after a scoring dealt hand). ``states`` needs room for one stream at offset 0."""
    for i in range(ST_SIZE):
        st[i] = 0
    st[ST_ROUND] = round_index
    st[ST_DEALER] = dealer
    st[ST_MONTH] = month
    st[ST_LAST_CALLER] = -1
    st[ST_WINNER] = -1
    st[ST_REASON] = -1
    st[ST_KIND] = -1
    stream_init_hashed_nb(states, round_hash_nb(seed, round_index), DEAL_STREAM, 0)
    s0, s1, s2, s3 = states[0], states[1], states[2], states[3]
    redeals = 0
    while True:
        for i in range(E.DECK_SIZE):
            ids[i] = i
        s0, s1, s2, s3 = shuffle_places_nb(s0, s1, s2, s3, ids, E.DECK_SIZE, 0, E.DECK_SIZE, 0)
        hand_d = np.int64(0)
        hand_o = np.int64(0)
        field = np.int64(0)
        for i in range(8):
            hand_d |= ubit_nb(ids[i])
            hand_o |= ubit_nb(ids[8 + i])
            field |= ubit_nb(ids[16 + i])
        if not misdeal_nb(hand_d, hand_o, field, rt) or redeals >= E.MAX_REDEALS:
            break
        redeals += 1
    for i in range(E.DRAW_SIZE):
        st[ST_DRAW + i] = ids[24 + i]
    st[ST_HAND + dealer] = hand_d
    st[ST_HAND + 1 - dealer] = hand_o
    st[ST_FIELD] = field
    st[ST_REDEALS] = redeals
    st[ST_FIELD_DEALT] = field
    st[ST_HAND_DEALT + dealer] = hand_d
    st[ST_HAND_DEALT + 1 - dealer] = hand_o
    start_nb(st, rt)


@internal_nb(cache=True, _nrt=False)
def start_nb(st, rt):
    """The dealt hands that score (``RoundState._deal``'s end), else the first turn."""
    dealer = st[ST_DEALER]
    holders = 0
    holder = np.int64(-1)  # int64 from the start (see exhausted_nb)
    for i in range(2):
        seat = dealer if i == 0 else 1 - dealer
        kind = dealt_hand_nb(st[ST_HAND + seat], rt)
        if kind < 0:
            continue
        option = E.P_TESHI if kind == E.Y_TESHI else E.P_KUTTSUKI
        if param_nb(rt, option) == E.DEALT_SCORE and rt[R_YAKU_VALUE + kind] > 0:
            st[ST_DEALT_YAKU + seat] = ubit_nb(kind)
            holders += 1
            if holder < 0:
                holder = seat
    if holders == 2:
        finish_nb(st, np.int64(-1), E.END_TEYAKU_DRAW, np.int64(0), np.int64(0), rt)
    elif holders == 1:
        worth = rt[R_YAKU_VALUE + lowest_id(st[ST_DEALT_YAKU + holder])]
        finish_nb(st, holder, E.END_TEYAKU, worth if holder == 0 else 0, worth if holder == 1 else 0, rt)
    else:
        next_turn_nb(st, rt)


@internal_nb(cache=True, _nrt=False)
def next_turn_nb(st, rt):
    """Begin the next turn (``RoundState.next_turn``), or end the round exhausted."""
    if st[ST_TURN] == E.TURNS:
        exhausted_nb(st, rt)
        return
    st[ST_TURN] += 1
    seat = st[ST_DEALER] if st[ST_TURN] % 2 == 1 else 1 - st[ST_DEALER]
    st[ST_SEAT] = seat
    bits, points = pile_yaku_nb(st[ST_PILE + seat], st[ST_CALLS + seat], st[ST_MONTH], rt)
    st[ST_TURN_BITS] = bits
    st[ST_TURN_POINTS] = points
    hand = st[ST_HAND + seat]
    set_play_keys_nb(st, hand)
    st[ST_KIND] = E.D_PLAY
    st[ST_DSEAT] = seat


@internal_nb(cache=True, _nrt=False)
def resolve_nb(st, seat, card, source, rt):
    """Resolve a played or turned card against the field; False when ``seat`` must first choose
    which of two field cards it takes (a pending capture decision)."""
    cb = ubit_nb(card)
    matches = st[ST_FIELD] & rt[R_MONTH_MASK + rt[R_MONTH + card]]
    count = popcount(matches)
    if count == 0:
        st[ST_FIELD] |= cb
        return True
    if count != 2:
        st[ST_FIELD] &= ~matches
        st[ST_PILE + seat] |= cb | matches
        return True
    first = lowest_id(matches)
    st[ST_KEYS] = key_of_nb(E.D_CAPTURE, ubit_nb(first))
    st[ST_KEYS + 1] = key_of_nb(E.D_CAPTURE, matches & ~ubit_nb(first))
    st[ST_IN_PLAY] = cb
    pose_nb(st, PENDING, E.D_CAPTURE, seat, 2)
    st[ST_CARD] = card
    st[ST_SOURCE] = source
    return False


@internal_nb(cache=True, _nrt=False)
def after_play_nb(st, rt):
    top = st[ST_DRAW_TOP]
    drawn = st[ST_DRAW + top]
    st[ST_DRAW_TOP] = top + 1
    if resolve_nb(st, st[ST_SEAT], drawn, np.int64(SOURCE_DRAW), rt):
        after_draw_nb(st, rt)


@internal_nb(cache=True, _nrt=False)
def koikoi_allowed_nb(st, seat, rt):
    if st[ST_HAND + seat] == 0 and param_nb(rt, E.P_LAST_TURN) == 0:
        return False
    limit = param_nb(rt, E.P_KOIKOI_LIMIT)
    if limit == E.LIMIT_ONCE_PER_SEAT:
        return st[ST_CALLS + seat] == 0
    if limit == E.LIMIT_ONCE_PER_TABLE:
        return st[ST_CALLS] + st[ST_CALLS + 1] == 0
    return True


@internal_nb(cache=True, _nrt=False)
def after_draw_nb(st, rt):
    seat = st[ST_SEAT]
    bits, points = pile_yaku_nb(st[ST_PILE + seat], st[ST_CALLS + seat], st[ST_MONTH], rt)
    if param_nb(rt, E.P_KOIKOI_TRIGGER) == E.TRIGGER_POINTS_RISE:
        rose = points > st[ST_TURN_POINTS]
    else:
        rose = (bits & ~st[ST_TURN_BITS]) != 0
    if not rose:
        next_turn_nb(st, rt)
        return
    if koikoi_allowed_nb(st, seat, rt):
        pose_two_nb(st, PENDING, E.D_KOIKOI, seat, 0)
        return
    finish_stop_nb(st, seat, E.END_FORCED_STOP, rt)


@internal_nb(cache=True, _nrt=False)
def finish_stop_nb(st, seat, reason, rt):
    _, points = pile_yaku_nb(st[ST_PILE + seat], st[ST_CALLS + seat], st[ST_MONTH], rt)
    score = stop_score_nb(points, st[ST_CALLS + seat], st[ST_CALLS + 1 - seat], rt)
    finish_nb(st, seat, reason, score if seat == 0 else 0, score if seat == 1 else 0, rt)


@internal_nb(cache=True, _nrt=False)
def exhausted_nb(st, rt):
    rule = param_nb(rt, E.P_EXHAUSTED)
    score0 = np.int64(0)  # int64 from the start: a local first typed as a constant would
    score1 = np.int64(0)  # compile finish_nb once more for that constant
    winner = np.int64(-1)
    if rule == E.EXHAUSTED_DEALER_POINTS:
        winner = st[ST_DEALER]
        if winner == 0:
            score0 = param_nb(rt, E.P_DEALER_PRIORITY)
        else:
            score1 = param_nb(rt, E.P_DEALER_PRIORITY)
    elif rule == E.EXHAUSTED_HIGHEST_YAKU:
        _, points0 = pile_yaku_nb(st[ST_PILE], st[ST_CALLS], st[ST_MONTH], rt)
        _, points1 = pile_yaku_nb(st[ST_PILE + 1], st[ST_CALLS + 1], st[ST_MONTH], rt)
        if points0 > points1:
            winner = np.int64(0)
            score0 = np.int64(stop_score_nb(points0, st[ST_CALLS], st[ST_CALLS + 1], rt))
        elif points1 > points0:
            winner = np.int64(1)
            score1 = np.int64(stop_score_nb(points1, st[ST_CALLS + 1], st[ST_CALLS], rt))
    finish_nb(st, winner, E.END_EXHAUSTED, score0, score1, rt)


@internal_nb(cache=True, _nrt=False)
def finish_nb(st, winner, reason, score0, score1, rt):
    """Score the ended round (``RoundState._finish``)."""
    st[ST_KIND] = -1
    st[ST_N] = 0
    for seat in range(2):
        bits, points = pile_yaku_nb(st[ST_PILE + seat], st[ST_CALLS + seat], st[ST_MONTH], rt)
        st[ST_YAKU + seat] = bits | st[ST_DEALT_YAKU + seat]
        st[ST_POINTS + seat] = points
    st[ST_SCORE] = score0
    st[ST_SCORE + 1] = score1
    st[ST_PAYOFF] = score0
    st[ST_PAYOFF + 1] = score1
    if winner >= 0 and param_nb(rt, E.P_SCORING) == E.SCORING_ZERO_SUM:
        st[ST_PAYOFF + 1 - winner] = -(score0 if winner == 0 else score1)
    st[ST_WINNER] = winner
    st[ST_REASON] = reason
    st[ST_DONE] = 1


@internal_nb(cache=True, _nrt=False)
def apply_nb(st, index, rt):
    """Take action ``index`` of the pending decision and step to the next decision (or the end)."""
    kind = st[ST_KIND]
    seat = st[ST_DSEAT]
    payload = st[ST_KEYS + index] & PAYLOAD_MASK
    st[ST_KIND] = -1
    if kind == E.D_PLAY:
        st[ST_HAND + seat] &= ~ubit_nb(payload)
        if resolve_nb(st, seat, payload, np.int64(SOURCE_PLAY), rt):
            after_play_nb(st, rt)
    elif kind == E.D_CAPTURE:
        cb = ubit_nb(st[ST_CARD])
        st[ST_IN_PLAY] = 0
        st[ST_FIELD] &= ~payload
        st[ST_PILE + seat] |= cb | payload
        if st[ST_SOURCE] == SOURCE_PLAY:
            after_play_nb(st, rt)
        else:
            after_draw_nb(st, rt)
    elif payload == 0:
        finish_stop_nb(st, seat, E.END_STOP, rt)
    else:
        st[ST_CALLS + seat] += 1
        st[ST_LAST_CALLER] = seat
        next_turn_nb(st, rt)


@internal_nb(cache=True, _nrt=False)
def set_play_keys_nb(st, hand):
    """List a play of each card of ``hand`` as the pending decision's actions (lowest id first),
    and their number."""
    n = 0
    while hand:
        st[ST_KEYS + n] = key_of_nb(E.D_PLAY, lowest_id(hand))
        hand &= hand - 1
        n += 1
    st[ST_N] = n


@internal_nb(cache=True, _nrt=False)
def sample_hidden_nb(src, dst, seat, states, at, ids):
    """``RoundState.sample_hidden``: ``dst`` becomes a copy of ``src`` in which the other hand
    and the draw pile are shuffled (ascending ids, every place but the last) from the stream at
    ``states[at:at + 4]`` and dealt back, the hand first."""
    for i in range(ST_SIZE):
        dst[i] = src[i]
    opponent = 1 - seat
    top = src[ST_DRAW_TOP]
    unseen = src[ST_HAND + opponent]
    for i in range(top, E.DRAW_SIZE):
        unseen |= ubit_nb(src[ST_DRAW + i])
    shuffled_ids_nb(unseen, ids, states, at)
    n_hand = popcount(src[ST_HAND + opponent])
    hand = np.int64(0)
    for i in range(n_hand):
        hand |= ubit_nb(ids[i])
    for i in range(top, E.DRAW_SIZE):
        dst[ST_DRAW + i] = ids[n_hand + i - top]
    dst[ST_HAND + opponent] = hand
    dst[ST_HAND_DEALT + opponent] = 0
    if src[ST_KIND] == E.D_PLAY and src[ST_DSEAT] == opponent:
        set_play_keys_nb(dst, hand)


# --- the reference's policies, decision by decision ---------------------------------------------


@internal_nb(cache=True, _nrt=False)
def random_choose_nb(st, states, at):
    """The uniform random policy's choice (``policies.RandomPolicy``).  A called function, not
    ``inline="always"``: inlined through the random choice stub into
    ``choice_nb.basic_choice_nb``'s inlined body, numba drew from the wrong array (the golden rows
    of koi-koi random play changed)."""
    return uniform_below_nb(states, st[ST_N], at)


@internal_nb(cache=True, _nrt=False)
def points_of_nb(st, seat, pile, rt):
    _, points = pile_yaku_nb(pile, st[ST_CALLS + seat], st[ST_MONTH], rt)
    return points


@internal_nb(cache=True, _nrt=False)
def threatens_nb(st, seat, card, threat, rt):
    """Whether ``card`` in the opponent's pile would raise its yaku points above ``threat``, the
    points its pile holds now (``points_of_nb``, worked out once a decision by the caller)."""
    opponent = 1 - seat
    return points_of_nb(st, opponent, st[ST_PILE + opponent] | ubit_nb(card), rt) > threat


@internal_nb(cache=True, _nrt=False)
def take_gain_nb(st, seat, taken, deny, own, threat, rt):
    """``GreedyPolicy.take_gain`` (``deny`` 0) or ``HeuristicPolicy.take_gain``; ``own`` and
    ``threat`` are the points of ``seat``'s pile and of its opponent's (``points_of_nb``; the
    latter read only with ``deny``), the same at every option of a decision."""
    gain = CAPTURE_WEIGHT * (points_of_nb(st, seat, st[ST_PILE + seat] | taken, rt) - own)
    rest = taken
    while rest:
        x = lowest_id(rest)
        rest &= rest - 1
        gain += rt[R_WEIGHT + x]
        if deny != 0 and threatens_nb(st, seat, x, threat, rt):
            gain += deny
    return gain


@internal_nb(cache=True, _nrt=False)
def leave_gain_nb(st, seat, card, deny, threat, rt):
    gain = -rt[R_WEIGHT + card]
    if deny != 0 and threatens_nb(st, seat, card, threat, rt):
        gain -= deny
    return gain


@internal_nb(cache=True, _nrt=False)
def resolution_gain_nb(st, seat, card, deny, own, threat, rt):
    matches = st[ST_FIELD] & rt[R_MONTH_MASK + rt[R_MONTH + card]]
    count = popcount(matches)
    cb = ubit_nb(card)
    if count == 0:
        return leave_gain_nb(st, seat, card, deny, threat, rt)
    if count == 2:
        first = lowest_id(matches)
        a = take_gain_nb(st, seat, cb | ubit_nb(first), deny, own, threat, rt)
        b = take_gain_nb(st, seat, cb | (matches & ~ubit_nb(first)), deny, own, threat, rt)
        return a if a >= b else b
    return take_gain_nb(st, seat, cb | matches, deny, own, threat, rt)


@internal_nb(cache=True, _nrt=False)
def pile_points_nb(st, seat, rt):
    """The points of the yaku in ``seat``'s pile (``points_of_nb``)."""
    return points_of_nb(st, seat, st[ST_PILE + seat], rt)


@internal_nb(cache=True, _nrt=False)
def heuristic_koikoi_nb(st, seat, table, rt):
    """``HeuristicPolicy.koikoi``: 1 to call koi-koi, 0 to stop."""
    if popcount(st[ST_HAND + seat]) < table[H_MIN_CARDS]:
        return 0
    points = points_of_nb(st, seat, st[ST_PILE + seat], rt)
    if stop_score_nb(points, st[ST_CALLS + seat], st[ST_CALLS + 1 - seat], rt) >= table[H_KOIKOI_BELOW]:
        return 0
    return 1 if near_nb(st, seat, rt) < table[H_DANGER] else 0


@internal_nb(cache=True, _nrt=False)
def near_nb(st, seat, rt):
    """``HeuristicPolicy.near``: the cards outside both piles that would raise the opponent's yaku."""
    outside = np.int64(DECK_MASK) & ~(st[ST_PILE] | st[ST_PILE + 1])
    threat = pile_points_nb(st, 1 - seat, rt)
    near = 0
    while outside:
        x = lowest_id(outside)
        outside &= outside - 1
        if threatens_nb(st, seat, x, threat, rt):
            near += 1
    return near


@internal_nb(cache=True, _nrt=False)
def policy_choose_nb(st, heuristic, table, rt):
    """The greedy (``heuristic`` false) or heuristic policy's choice, an action index."""
    seat = st[ST_DSEAT]
    if st[ST_KIND] == E.D_KOIKOI:
        return heuristic_koikoi_nb(st, seat, table, rt) if heuristic else 0
    return best_gain_nb(st, table[H_DENY] if heuristic else 0, rt)


@internal_nb(cache=True, _nrt=False)
def greedy_choose_nb(st, rt):
    """The greedy policy's choice, an action index (``policy_choose_nb`` with ``heuristic``
    false, without the heuristic's tables)."""
    if st[ST_KIND] == E.D_KOIKOI:
        return 0
    return best_gain_nb(st, np.int64(0), rt)


@internal_nb(cache=True, _nrt=False)
def best_gain_nb(st, deny, rt):
    """The action of the largest gain (ties: the earliest) at a play or take decision, the
    opponent's yaku denied at weight ``deny`` (0: greedy)."""
    kind = st[ST_KIND]
    seat = st[ST_DSEAT]
    own = pile_points_nb(st, seat, rt)
    threat = pile_points_nb(st, 1 - seat, rt) if deny != 0 else np.int64(0)
    best = 0
    best_gain = 0
    for i in range(st[ST_N]):
        payload = st[ST_KEYS + i] & PAYLOAD_MASK
        if kind == E.D_PLAY:
            gain = resolution_gain_nb(st, seat, payload, deny, own, threat, rt)
        else:
            gain = take_gain_nb(st, seat, ubit_nb(st[ST_CARD]) | payload, deny, own, threat, rt)
        if i == 0 or gain > best_gain:
            best = i
            best_gain = gain
    return best


@internal_nb(cache=True, _nrt=False)
def write_row_nb(st, out_int, out_mask, row):
    """Write the scored round ``st`` into ``row`` of the output matrices (all but the match
    columns), as ``RecordLayout.fill_row``."""
    write_outcome_nb(out_int, row, st[ST_ROUND], st[ST_DEALER], st[ST_DEALER], st[ST_WINNER], st[ST_REASON],
                     st[ST_TURN], st[ST_REDEALS])
    out_int[E.C_EXHAUSTED, row] = 1 if st[ST_REASON] == E.END_EXHAUSTED else 0
    out_int[E.C_LAST_KOIKOI, row] = st[ST_LAST_CALLER]
    out_mask[E.M_FIELD_DEALT, row] = np.uint64(st[ST_FIELD_DEALT])
    for seat in range(2):
        out_int[E.C_YAKU_POINTS + seat, row] = st[ST_POINTS + seat]
        out_int[E.C_SCORE + seat, row] = st[ST_SCORE + seat]
        out_int[E.C_PAYOFF + seat, row] = st[ST_PAYOFF + seat]
        out_int[E.C_KOIKOI + seat, row] = st[ST_CALLS + seat]
        out_mask[E.M_HAND_DEALT + seat, row] = np.uint64(st[ST_HAND_DEALT + seat])
        out_mask[E.M_CAPTURED + seat, row] = np.uint64(st[ST_PILE + seat])
        out_mask[E.M_YAKU + seat, row] = np.uint64(st[ST_YAKU + seat])


# --- the numba round contract (``simcore.kernels.contract``) ---------------------------------

# The rules as the general kernel takes them: the rule table.
KoikoiRules = namedtuple("KoikoiRules", ["rt"])
# One kernel thread's context: the seed, the rule table, shuffle and deal-stream scratch, the
# learned player's features (a row per action).
KoikoiContext = namedtuple("KoikoiContext", ["seed", "rt", "ids", "dstates", "features"])
N_FEATURES = 13  # learned.FEATURES, in order:
(F_HEURISTIC, F_RISE, F_WEIGHT, F_DENIED, F_EXPOSED, F_KOIKOI, F_K_SCORE, F_K_HAND, F_K_NEAR, F_K_MINE,
 F_K_OPPONENT, F_K_SCORE_HAND, F_K_CALLS) = range(N_FEATURES)


def kernel_rules(compiled) -> KoikoiRules:
    """The ``KoikoiRules`` of a ``CompiledRules``."""
    return KoikoiRules(rule_table(compiled))


@implements(C.context_nb, KoikoiRules, nrt=True)
def _context(rules, seed):
    return KoikoiContext(seed, rules.rt, np.zeros(64, dtype=np.int64), np.zeros(4, dtype=np.uint64),
                         np.zeros((MAX_ACTIONS, N_FEATURES), dtype=np.int64))


@implements(C.start_round_nb, KoikoiContext)
def _start_round(ctx, state, unit, round_in_match, round_index, independent, dealer, points):
    month = 1 + round_in_match % 12  # reference.round_month (an independent round: 0)
    new_round_nb(state, ctx.seed, round_index, dealer, month, ctx.rt, ctx.ids, ctx.dstates)


C.implements_flat_state(KoikoiContext, ST_SIZE, 2, ST_DONE, ST_DSEAT, ST_N, ST_KEYS, ST_PAYOFF)
C.implements_match_rows(KoikoiContext, 2, E.C_MATCH_POINTS)


@implements(C.apply_nb, KoikoiContext)
def _apply(ctx, state, index):
    apply_nb(state, index, ctx.rt)


@implements(C.rehand_nb, KoikoiContext, inline=False)
def _rehand(ctx, history, k, now, world, seat, out):
    # a card played, a capture chosen or a koi-koi call (all seen by both seats): the other seat's
    # hand then is the cards it has played since and its hand in ``world``; the draw pile below
    # what has been turned since is ``world``'s (RoundState.rehand)
    for j in range(ST_SIZE):
        out[j] = history[k, j]
    opponent = 1 - seat
    hand = (history[k, ST_HAND + opponent] & ~now[ST_HAND + opponent]) | world[ST_HAND + opponent]
    out[ST_HAND + opponent] = hand
    out[ST_HAND_DEALT + opponent] = 0
    for i in range(now[ST_DRAW_TOP], E.DRAW_SIZE):
        out[ST_DRAW + i] = world[ST_DRAW + i]
    if out[ST_KIND] == E.D_PLAY and out[ST_DSEAT] == opponent:
        set_play_keys_nb(out, hand)
    return True


@implements(C.sample_hidden_nb, KoikoiContext)
def _sample_hidden(ctx, state, seat, streams, at, out):
    sample_hidden_nb(state, out, seat, streams, at, ctx.ids)


@implements(C.random_choice_nb, KoikoiContext)
def _random_choice(ctx, state, streams, at):
    return random_choose_nb(state, streams, at)


@implements(C.greedy_choice_nb, KoikoiContext)
def _greedy_choice(ctx, state, param):
    return greedy_choose_nb(state, ctx.rt)


@implements(C.heuristic_choice_nb, KoikoiContext)
def _heuristic_choice(ctx, state, table):
    return policy_choose_nb(state, True, table, ctx.rt)


@internal_nb(cache=True, _nrt=False)
def take_terms_nb(st, seat, taken, own, threat, rt, out, i):
    """``learned._take``: the terms of taking ``taken`` into ``out[i]`` (``own``, ``threat``:
    ``take_gain_nb``'s)."""
    out[i, F_RISE] = points_of_nb(st, seat, st[ST_PILE + seat] | taken, rt) - own
    weight = 0
    denied = 0
    rest = taken
    while rest:
        x = lowest_id(rest)
        rest &= rest - 1
        weight += rt[R_WEIGHT + x]
        if threatens_nb(st, seat, x, threat, rt):
            denied += 1
    out[i, F_WEIGHT] = weight
    out[i, F_DENIED] = denied


@internal_nb(cache=True, _nrt=False)
def call_terms_nb(st, seat, rt, out, i):
    """``learned._call``: the terms of calling koi-koi into ``out[i]``."""
    opponent = 1 - seat
    pile = st[ST_PILE + seat]
    points = points_of_nb(st, seat, pile, rt)
    score = stop_score_nb(points, st[ST_CALLS + seat], st[ST_CALLS + opponent], rt)
    hand = popcount(st[ST_HAND + seat])
    outside = np.int64(DECK_MASK) & ~(st[ST_PILE] | st[ST_PILE + 1])
    mine = 0
    while outside:
        x = lowest_id(outside)
        outside &= outside - 1
        if points_of_nb(st, seat, pile | ubit_nb(x), rt) > points:
            mine += 1
    out[i, F_KOIKOI] = 1
    out[i, F_K_SCORE] = score
    out[i, F_K_HAND] = hand
    out[i, F_K_NEAR] = near_nb(st, seat, rt)
    out[i, F_K_MINE] = mine
    out[i, F_K_OPPONENT] = points_of_nb(st, opponent, st[ST_PILE + opponent], rt)
    out[i, F_K_SCORE_HAND] = score * hand
    out[i, F_K_CALLS] = st[ST_CALLS + seat]


@internal_nb(cache=True, _nrt=False)
def learned_features_state_nb(st, aux, rt, out):
    """``learned.features`` of the pending decision into ``out[:n]``, with the heuristic's numba
    twin (``aux`` its tables)."""
    pick = policy_choose_nb(st, True, aux, rt)
    kind = st[ST_KIND]
    seat = st[ST_DSEAT]
    deny = aux[H_DENY]
    own = pile_points_nb(st, seat, rt)
    threat = pile_points_nb(st, 1 - seat, rt)
    for i in range(st[ST_N]):
        for f in range(N_FEATURES):
            out[i, f] = 0
        payload = st[ST_KEYS + i] & PAYLOAD_MASK
        if kind == E.D_PLAY:
            card = payload
            cb = ubit_nb(card)
            matches = st[ST_FIELD] & rt[R_MONTH_MASK + rt[R_MONTH + card]]
            count = popcount(matches)
            if count == 0:
                out[i, F_WEIGHT] = -rt[R_WEIGHT + card]
                out[i, F_EXPOSED] = 1 if threatens_nb(st, seat, card, threat, rt) else 0
            elif count == 2:
                first = ubit_nb(lowest_id(matches))
                second = matches & ~first
                a = take_gain_nb(st, seat, cb | first, deny, own, threat, rt)
                b = take_gain_nb(st, seat, cb | second, deny, own, threat, rt)
                take_terms_nb(st, seat, cb | (first if a >= b else second), own, threat, rt, out, i)
            else:
                take_terms_nb(st, seat, cb | matches, own, threat, rt, out, i)
        elif kind == E.D_KOIKOI:
            if payload == 1:
                call_terms_nb(st, seat, rt, out, i)
        else:
            take_terms_nb(st, seat, ubit_nb(st[ST_CARD]) | payload, own, threat, rt, out, i)
        if i == pick:
            out[i, F_HEURISTIC] = 1


@implements(C.learned_features_nb, KoikoiContext)
def _learned_features(ctx, state, aux):
    learned_features_state_nb(state, aux, ctx.rt, ctx.features)
    return ctx.features[:state[ST_N]], state[ST_KIND]


@implements(C.rollout_turns_nb, KoikoiContext)
def _rollout_turns(ctx, state, rollout_id, streams, at):
    return False


@implements(C.write_row_nb, KoikoiContext)
def _write_row(ctx, state, out_int, out_mask, row):
    write_row_nb(state, out_int, out_mask, row)


@implements(C.winner_nb, KoikoiContext)
def _winner(ctx, state):
    # The seat that deals next: the winner; after a round nobody won, the other seat with
    # koikoi.exhausted_dealer = switch (-1: the dealer deals again; reference.next_dealer).
    winner = state[ST_WINNER]
    if winner < 0 and param_nb(ctx.rt, E.P_EXHAUSTED_DEALER) == 1:
        return 1 - state[ST_DEALER]
    return winner


@implements(C.add_match_points_nb, KoikoiContext)
def _add_match_points(ctx, state, points):
    points[0] += state[ST_PAYOFF]
    points[1] += state[ST_PAYOFF + 1]


@implements(C.next_dealer_nb, KoikoiContext)
def _next_dealer(ctx, dealer, winner):
    return winner


@implements(C.start_points_nb, KoikoiContext)
def _start_points(ctx):
    return param_nb(ctx.rt, E.P_START_POINTS)


@implements(C.match_over_nb, KoikoiContext)
def _match_over(ctx, points):
    start = param_nb(ctx.rt, E.P_START_POINTS)
    return param_nb(ctx.rt, E.P_EARLY_END) == 1 and (start + points[0] <= 0 or start + points[1] <= 0)
