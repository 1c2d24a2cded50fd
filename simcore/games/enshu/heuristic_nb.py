"""The Enshu-bana ``heuristic`` policy as pure numba functions (the reference's twin).

Contract
--------
``heuristic_choose_nb(kind, obs, keys, n, tables) -> index`` decides exactly as
``simcore.games.enshu.policies.HeuristicPolicy`` (its docstring and the module docstring of
``simcore.games.enshu.policies`` define the rules):

* ``kind``: the decision kind's code (``KIND_*``: the action-key kinds of issue 20's contract);
* ``obs``: int64[OBS_SIZE], the deciding seat's observation in the layout of the ``OBS_*``
  constants below (``pack_observation`` builds it from an ``Observation``); card masks are
  stored as int64 (card ids are below 48, so every mask is non-negative);
* ``keys``: int64[>= n], the action keys of the legal actions in the reference's order
  (``simcore.games.enshu.reference.action_key``), ``n`` of them;
* ``tables``: int64[...] built once per run by ``heuristic_tables(compiled, spec)``: the
  policy's weights and the rule arrays it reads, at the offsets of the ``T_*`` constants.

It returns the index in ``keys`` of the chosen action.  It never draws a random number and
allocates nothing; all arithmetic is int64 and every division is of non-negative numbers, in
the same order as the reference, so both engines agree exactly.

The observation layout is shared with the kernel's ``observe`` (it writes these slots); slots
are only ever added at the end.
Besides numpy and numba it imports only integer constants (``enums``, the policy's fixed
numbers), the bit helpers of ``simcore.kernels.bits``, and, when building tables, the
parameter defaults of ``simcore.games.enshu.policies``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.games.enshu import enums as E
from simcore.games.enshu.heuristic_params import (
    HEURISTIC_DEFAULTS,
    HEURISTIC_OTHER_CHANCE,
    HEURISTIC_TRIPLE_STRENGTH,
)
from simcore.kernels.bits import PAYLOAD_MASK, lowest_id, popcount
from simcore.kernels.internal import internal_nb

__all__ = [
    "KIND_CODES",
    "as_int64",
    "card_points_nb",
    "OBS_SIZE",
    "heuristic_choose_nb",
    "heuristic_tables",
    "pack_observation",
]

# --- action keys (issue 20 contract, section 1; simcore.games.enshu.reference.ACTION_KINDS) ----
KIND_MIZU_KOTSU = 0
KIND_KOTSU = 1
KIND_JOIN = 2
KIND_FUKE = 3
KIND_DECLARE_TEYAKU = 4
KIND_PLAY = 5
KIND_CAPTURE = 6
KIND_CODES = {"mizu_kotsu": KIND_MIZU_KOTSU, "kotsu": KIND_KOTSU, "join": KIND_JOIN, "fuke": KIND_FUKE,
              "declare_teyaku": KIND_DECLARE_TEYAKU, "play": KIND_PLAY, "capture": KIND_CAPTURE}

# --- the packed observation: int64[OBS_SIZE] ----------------------------------------------------
MAX_SEATS = E.MAX_SEATS
OBS_SEAT = 0  # the deciding seat
OBS_PLAYERS = 1
OBS_VARIANT = 2  # E.VARIANT_*
OBS_DEALER = 3
OBS_ACTING_DEALER = 4
OBS_ROUND_IN_MATCH = 5
OBS_MULTIPLIER = 6
OBS_HAND = 7  # card mask of the seat's own hand
OBS_FIELD = 8  # card mask
OBS_SEEN = 9  # card mask of every card seen face up (Observation.seen)
OBS_DRAW_SIZE = 10
OBS_TURN = 11
OBS_DROPOUT_PASS = 12
OBS_WINNER = 13  # known at the Fuke decision, else -1
OBS_CARD = 14  # the played or turned card awaiting a capture choice, else -1
OBS_SOURCE = 15  # of OBS_CARD: 0 played, 1 turned, -1 none
OBS_ACTIVE = 16  # + seat: 1 if the seat plays the round
OBS_MATCH_POINTS = OBS_ACTIVE + MAX_SEATS  # + seat
OBS_PILES = OBS_MATCH_POINTS + MAX_SEATS  # + seat: capture pile masks
OBS_EXPOSED = OBS_PILES + MAX_SEATS  # + seat: exposed teyaku cards still in that hand
OBS_DECLARED = OBS_EXPOSED + MAX_SEATS  # + seat: teyaku bitset declared
OBS_MIZU_KOTSU = OBS_DECLARED + MAX_SEATS  # + seat: 0/1
OBS_KOTSU = OBS_MIZU_KOTSU + MAX_SEATS  # + seat: 0/1
OBS_SCORES = OBS_KOTSU + MAX_SEATS  # + seat: the round's scores at the Fuke decision, else 0
OBS_SIZE = OBS_SCORES + MAX_SEATS

SOURCES = {"play": 0, "draw": 1}


def pack_observation(obs, card: int = -1, source: str | None = None) -> np.ndarray:
    """The observation ``obs`` (an ``Observation``) as int64[OBS_SIZE] in the ``OBS_*`` layout.

    Parameters
    ----------
    obs : Observation
    card : the card awaiting a capture choice (a ``capture`` decision's ``info["card"]``), or -1
    source : that card's ``info["source"]`` (``"play"`` or ``"draw"``), or None

    Returns
    -------
    np.ndarray
        int64[OBS_SIZE]; per-seat slots of seats beyond ``obs.players`` are 0.
    """
    out = np.zeros(OBS_SIZE, dtype=np.int64)
    out[OBS_SEAT] = obs.seat
    out[OBS_PLAYERS] = obs.players
    out[OBS_VARIANT] = E.VARIANTS.index(obs.variant)
    out[OBS_DEALER] = obs.dealer
    out[OBS_ACTING_DEALER] = obs.acting_dealer
    out[OBS_ROUND_IN_MATCH] = obs.round_in_match
    out[OBS_MULTIPLIER] = obs.multiplier
    out[OBS_HAND] = obs.hand
    out[OBS_FIELD] = obs.field
    out[OBS_SEEN] = obs.seen
    out[OBS_DRAW_SIZE] = obs.draw_size
    out[OBS_TURN] = obs.turn
    out[OBS_DROPOUT_PASS] = obs.dropout_pass
    out[OBS_WINNER] = obs.winner
    out[OBS_CARD] = card
    out[OBS_SOURCE] = -1 if source is None else SOURCES[source]
    for s in range(obs.players):
        out[OBS_ACTIVE + s] = int(obs.active[s])
        out[OBS_MATCH_POINTS + s] = obs.match_points[s] if s < len(obs.match_points) else 0
        out[OBS_PILES + s] = obs.piles[s]
        out[OBS_EXPOSED + s] = obs.exposed[s]
        out[OBS_DECLARED + s] = as_int64(obs.declared[s])  # a teyaku bitset: bit 63 is the sign
        out[OBS_MIZU_KOTSU + s] = int(obs.mizu_kotsu[s])
        out[OBS_KOTSU + s] = int(obs.kotsu[s])
        out[OBS_SCORES + s] = obs.scores[s] if s < len(obs.scores) else 0
    return out


# --- the tables: int64 --------------------------------------------------------------------------
# weights (the policy's parameters, simcore.games.enshu.heuristic_params.HEURISTIC_PARAMS order)
T_CARD_WEIGHT = 0
T_YAKU_WEIGHT = 1
T_DENY_WEIGHT = 2
T_STOP_WORTH = 3
T_CHANCE_HAND = 4
T_CHANCE_FIELD = 5
T_CHANCE_UNSEEN = 6
T_FIELD_RISK = 7
T_SAFE_DELAY = 8
T_KOTSU_STRENGTH = 9
T_JOIN_STRENGTH = 10
T_JOIN_STEP = 11
T_TEYAKU_B_MIN = 12
N_WEIGHTS = 16
# rules
T_VARIANT = 16
T_N_YAKU = 17
T_N_TEYAKU = 18
T_CAPTURE_ALL = 19  # 1: three matches are all taken
T_DECK = 20  # mask of the deck
T_CARD_POINTS = 24  # + card id (64)
T_MONTH = T_CARD_POINTS + 64  # + card id (64)
T_MONTH_MASK = T_MONTH + 64  # + month (13)
T_YAKU_MASK = T_MONTH_MASK + 16  # + yaku (64)
T_YAKU_WORTH = T_YAKU_MASK + E.MAX_YAKU  # + yaku (64)
T_TEYAKU_VALUE = T_YAKU_WORTH + E.MAX_YAKU  # + teyaku (64)
T_TEYAKU_GROUP = T_TEYAKU_VALUE + E.MAX_TEYAKU  # + teyaku (64)
T_CARD_YAKU = T_TEYAKU_GROUP + E.MAX_TEYAKU  # + card id (64): bitset of the yaku holding the card
T_SIZE = T_CARD_YAKU + 64

# one definition of the heuristic's fixed numbers (module docstring of the policies)
OTHER_CHANCE = HEURISTIC_OTHER_CHANCE
TRIPLE_STRENGTH = HEURISTIC_TRIPLE_STRENGTH


def as_int64(value: int) -> int:
    """A 64-bit pattern (a uint64 bitset) as the int64 with the same bits."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >> 63 else value


def yaku_worth(compiled, stop_worth: int) -> list[int]:
    """Each yaku's worth in points for the heuristic (``HeuristicPolicy``).

    A points-kind yaku is worth its value less the values of the yaku it supersedes (so that
    completing Sokuyaku over Shishibo and Shishichu is worth what it adds); a round-stopping
    yaku ``value * stop_worth`` (stakes in W, the score's multiplier in C); a multiplier
    (variant S) ``(value - 1) * stop_worth``.
    """
    values = [int(v) for v in compiled.yaku_value]
    out = []
    for i, kind in enumerate(int(k) for k in compiled.yaku_kind):
        if kind == E.YAKU_POINTS:
            worth = values[i]
            cancelled = int(compiled.supersedes[i])
            for j in range(len(values)):
                if (cancelled >> j) & 1:
                    worth -= values[j]
            out.append(max(worth, 0))
        elif kind == E.YAKU_UCHIKIRI:
            out.append(values[i] * stop_worth)
        else:
            out.append(max(values[i] - 1, 0) * stop_worth)
    return out


WEIGHT_SLOTS = {
    "card_weight": T_CARD_WEIGHT, "yaku_weight": T_YAKU_WEIGHT, "deny_weight": T_DENY_WEIGHT,
    "stop_worth": T_STOP_WORTH, "chance_hand": T_CHANCE_HAND, "chance_field": T_CHANCE_FIELD,
    "chance_unseen": T_CHANCE_UNSEEN, "field_risk": T_FIELD_RISK, "safe_delay": T_SAFE_DELAY,
    "kotsu_strength": T_KOTSU_STRENGTH, "join_strength": T_JOIN_STRENGTH, "join_step": T_JOIN_STEP,
    "teyaku_b_min": T_TEYAKU_B_MIN,
}


def heuristic_weights(spec) -> dict[str, int]:
    """The heuristic's weights: ``spec``'s parameters over the documented defaults."""
    weights = dict(HEURISTIC_DEFAULTS)
    params = getattr(spec, "params", None) or {}
    for name in weights:
        if name in params:
            weights[name] = int(params[name])
    return weights


def heuristic_tables(compiled, spec) -> np.ndarray:
    """int64[T_SIZE]: the heuristic's weights (from ``spec``, a ``PolicySpec``) and the rule
    arrays of ``compiled`` (a ``CompiledRules``) it reads, at the ``T_*`` offsets."""
    weights = heuristic_weights(spec)
    t = np.zeros(T_SIZE, dtype=np.int64)
    for name, slot in WEIGHT_SLOTS.items():
        t[slot] = weights[name]
    p = compiled.params
    t[T_VARIANT] = int(p[E.P_VARIANT])
    t[T_N_YAKU] = len(compiled.yaku_mask)
    t[T_N_TEYAKU] = compiled.n_teyaku
    t[T_CAPTURE_ALL] = int(int(p[E.P_CAPTURE_THREE]) == 0)
    t[T_DECK] = (1 << E.DECK_SIZE) - 1
    for c in range(64):
        t[T_CARD_POINTS + c] = int(compiled.card_points[c])
        t[T_MONTH + c] = int(compiled.month[c])
    for m in range(13):
        t[T_MONTH_MASK + m] = int(compiled.month_mask[m])
    for i, worth in enumerate(yaku_worth(compiled, weights["stop_worth"])):
        t[T_YAKU_MASK + i] = int(compiled.yaku_mask[i])
        t[T_YAKU_WORTH + i] = worth
    for c in range(64):
        bits = 0
        for i in range(len(compiled.yaku_mask)):
            if (int(compiled.yaku_mask[i]) >> c) & 1:
                bits |= 1 << i
        t[T_CARD_YAKU + c] = as_int64(bits)  # a yaku bitset: bit 63 is the sign
    for i in range(compiled.n_teyaku):
        t[T_TEYAKU_VALUE + i] = int(compiled.teyaku_value[i])
        t[T_TEYAKU_GROUP + i] = int(compiled.teyaku_group[i])
    return t


# --- the decision ---------------------------------------------------------------------------------
# Each helper mirrors the HeuristicPolicy method of the same name; ``pile_me`` is the deciding
# seat's pile as the policy sees it (with a card awaiting its capture choice already in it).


@nb.njit(inline="always", cache=True, _nrt=False)
def _pile(obs, s, me, pile_me):
    if s == me:
        return pile_me
    return obs[OBS_PILES + s]


@internal_nb(cache=True, _nrt=False)
def _chance(seat, card, field, hand, obs, t, me, unknown, unseen_chance):
    b = np.int64(1) << card
    if field & b:
        return t[T_CHANCE_FIELD]
    if obs[OBS_EXPOSED + seat] & b:
        return t[T_CHANCE_HAND]
    if hand & b:
        if seat == me:
            return t[T_CHANCE_HAND]
        return np.int64(OTHER_CHANCE)
    if unknown & b:
        return unseen_chance
    return np.int64(OTHER_CHANCE)


@internal_nb(cache=True, _nrt=False)
def _prob(seat, mask, pile, field, hand, obs, t, me, all_piles, unknown, unseen_chance):
    p = np.int64(1000)
    missing = mask & ~pile
    if missing & all_piles:
        return np.int64(0)
    while missing and p:
        card = lowest_id(missing)
        missing &= missing - 1
        p = p * _chance(seat, card, field, hand, obs, t, me, unknown, unseen_chance) // 1000
    return p


@nb.njit(inline="always", cache=True, _nrt=False)
def _yaku_of(captured, t):
    """Bitset of the yaku holding a card of ``captured``."""
    ys = np.int64(0)
    rest = captured
    while rest:
        ys |= t[T_CARD_YAKU + lowest_id(rest)]
        rest &= rest - 1
    return ys


@nb.njit(inline="always", cache=True)
def card_points_nb(cards, t):
    """The card points of the cards of mask ``cards`` (the learned features' terms too)."""
    total = np.int64(0)
    rest = cards
    while rest:
        x = lowest_id(rest)
        rest &= rest - 1
        total += t[T_CARD_POINTS + x]
    return total


@internal_nb(cache=True, _nrt=False)
def _card_value(captured, t):
    return card_points_nb(captured, t) * 10 * t[T_CARD_WEIGHT]


@internal_nb(cache=True, _nrt=False)
def _gain(captured, field, hand, obs, t, me, pile_me, all_piles, unknown, unseen_chance):
    pile = pile_me
    g = _card_value(captured, t)
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
        g += worth * (after - before) * t[T_YAKU_WEIGHT] // 100
        for o in range(obs[OBS_PLAYERS]):
            if o == me or not obs[OBS_ACTIVE + o]:
                continue
            opile = obs[OBS_PILES + o]
            if mask & opile == mask:
                continue
            g += worth * _prob(o, mask, opile, field, hand, obs, t, me, all_piles, unknown,
                               unseen_chance) * t[T_DENY_WEIGHT] // 100
    return g


@internal_nb(cache=True, _nrt=False)
def _n_active(obs):
    k = np.int64(0)
    for s in range(obs[OBS_PLAYERS]):
        if obs[OBS_ACTIVE + s]:
            k += 1
    return k


@internal_nb(cache=True, _nrt=False)
def _risk_table(obs, t, unknown, n_active):
    """The risk of ``HeuristicPolicy._risk`` for 1, 2, 3 and 4 unknown cards of a month,
    11 bits each (it depends on the month only through that count): computed once a decision."""
    total = popcount(unknown)
    hidden = max(total - obs[OBS_DRAW_SIZE], 0)
    reach = min(total, hidden + n_active - 1)
    stay = np.int64(1000)
    packed = np.int64(0)
    for i in range(4):
        if stay > 0:
            if total - reach - i <= 0:
                stay = np.int64(0)
            else:
                stay = stay * (total - reach - i) // (total - i)
        packed |= min(np.int64(1000), (1000 - stay) * t[T_FIELD_RISK] // 100) << (11 * i)
    return packed


@nb.njit(inline="always", cache=True, _nrt=False)
def _risk(month_cards, risks, unknown, opp_exposed):
    if opp_exposed & month_cards:
        return np.int64(1000)
    u = popcount(unknown & month_cards)
    if u == 0:
        return np.int64(0)
    return (risks >> (11 * (u - 1))) & 0x7FF


@internal_nb(cache=True, _nrt=False)
def _offer(card, field, hand, obs, t, me, pile_me, all_piles, unknown, opp_exposed, unseen_chance, risks):
    """``HeuristicPolicy._offer``.  The reference sums ``_take_value`` over the takers; here
    the same integer terms are summed yaku by yaku, so that a yaku's chance before the take is
    computed once (integer sums do not depend on their order)."""
    month_cards = t[T_MONTH_MASK + t[T_MONTH + card]]
    risk = _risk(month_cards, risks, unknown, opp_exposed)
    if risk == 0:
        return np.int64(0)
    b = np.int64(1) << card
    card_value = _card_value(b, t)
    yaku_of_card = t[T_CARD_YAKU + card]
    best = np.int64(0)
    for o in range(obs[OBS_PLAYERS]):
        if o == me or not obs[OBS_ACTIVE + o]:
            continue
        takers = (unknown | obs[OBS_EXPOSED + o]) & month_cards
        k = popcount(takers)
        if k == 0:
            continue
        opile = obs[OBS_PILES + o]
        total = k * card_value + _card_value(takers, t)
        ys = yaku_of_card | _yaku_of(takers, t)
        while ys:
            y = lowest_id(ys)
            ys &= ys - 1
            mask = t[T_YAKU_MASK + y]
            if mask & opile == mask or mask & ~opile & all_piles:
                continue  # complete, or dead: every term is 0
            worth = t[T_YAKU_WORTH + y]
            before = _prob(o, mask, opile, field, hand, obs, t, me, all_piles, unknown, unseen_chance)
            with_card = (yaku_of_card >> y) & 1
            after_card = np.int64(0)
            if with_card:
                after_card = _prob(o, mask, opile | b, field, hand, obs, t, me, all_piles, unknown, unseen_chance)
            rest = takers
            while rest:
                x = lowest_id(rest)
                rest &= rest - 1
                xb = np.int64(1) << x
                if mask & xb:
                    after = _prob(o, mask, opile | b | xb, field, hand, obs, t, me, all_piles, unknown,
                                  unseen_chance)
                    total += worth * (after - before) * t[T_YAKU_WEIGHT] // 100
                elif with_card:
                    total += worth * (after_card - before) * t[T_YAKU_WEIGHT] // 100
        best = max(best, total // k)
    return risk * best // 1000


@internal_nb(cache=True, _nrt=False)
def _safe(month, t, unknown, opp_exposed):
    cards = t[T_MONTH_MASK + month]
    return not (unknown & cards) and not (opp_exposed & cards)


@internal_nb(cache=True, _nrt=False)
def _capture_value(captured, left, field, hand, safe, obs, t, me, pile_me, all_piles, unknown, opp_exposed,
                   unseen_chance, risks):
    g = _gain(captured, field, hand, obs, t, me, pile_me, all_piles, unknown, unseen_chance)
    if safe:
        g = g * t[T_SAFE_DELAY] // 1000
    after = field & ~captured
    while left:
        x = lowest_id(left)
        left &= left - 1
        g -= _offer(x, after, hand, obs, t, me, pile_me, all_piles, unknown, opp_exposed, unseen_chance, risks)
    return g


@internal_nb(cache=True, _nrt=False)
def _play_value(card, obs, t, me, pile_me, all_piles, unknown, opp_exposed, unseen_chance, risks):
    field = obs[OBS_FIELD]
    hand = obs[OBS_HAND]
    b = np.int64(1) << card
    month = t[T_MONTH + card]
    matches = field & t[T_MONTH_MASK + month]
    k = popcount(matches)
    if k == 0:
        return -_offer(card, field | b, hand & ~b, obs, t, me, pile_me, all_piles, unknown, opp_exposed,
                       unseen_chance, risks)
    safe = _safe(month, t, unknown, opp_exposed)
    if k == 1 or (k == 3 and t[T_CAPTURE_ALL]):
        g = _gain(b | matches, field, hand, obs, t, me, pile_me, all_piles, unknown, unseen_chance)
        if safe:
            return g * t[T_SAFE_DELAY] // 1000
        return g
    best = np.int64(0)
    first = True
    rest = matches
    while rest:
        x = lowest_id(rest)
        rest &= rest - 1
        xb = np.int64(1) << x
        v = _capture_value(b | xb, matches & ~xb, field, hand & ~b, safe, obs, t, me, pile_me, all_piles, unknown,
                           opp_exposed, unseen_chance, risks)
        if first or v > best:
            best = v
            first = False
    return best


@internal_nb(cache=True, _nrt=False)
def _strength(obs, t):
    s = np.int64(0)
    hand = obs[OBS_HAND]
    field = obs[OBS_FIELD]
    rest = hand
    while rest:
        card = lowest_id(rest)
        rest &= rest - 1
        s += t[T_CARD_POINTS + card]
        best = np.int64(0)
        matches = field & t[T_MONTH_MASK + t[T_MONTH + card]]
        while matches:
            x = lowest_id(matches)
            matches &= matches - 1
            best = max(best, t[T_CARD_POINTS + x])
        s += best
    for m in range(1, 13):
        if popcount(hand & t[T_MONTH_MASK + m]) >= 3:
            s += TRIPLE_STRENGTH
    return s


@nb.njit(inline="always", cache=True)
def _yes_no(keys, n, yes):
    want = np.int64(1) if yes else np.int64(0)
    for i in range(n):
        if keys[i] & PAYLOAD_MASK == want:
            return i
    return 0


@nb.njit(inline="always", cache=True)
def decision_view(kind, obs, t):
    """What the heuristic (and the learned player's features) reads of a play or capture decision
    of ``kind`` from the seat's observation ``obs`` int64[OBS_SIZE] and ``tables`` ``t``: the seat,
    the card being placed (-1: none), the seat's pile with that card, every seat's pile, the cards
    it cannot know, the opponents' exposed cards, the chance weight of an unseen card and the
    packed risk table (``_risk_table``)."""
    me = obs[OBS_SEAT]
    pile_me = obs[OBS_PILES + me]
    card = obs[OBS_CARD]
    if kind == KIND_CAPTURE and card >= 0:
        pile_me |= np.int64(1) << card
    known = obs[OBS_SEEN] | obs[OBS_HAND] | obs[OBS_FIELD]
    opp_exposed = np.int64(0)
    all_piles = np.int64(0)
    n_active = np.int64(0)
    for s in range(obs[OBS_PLAYERS]):
        all_piles |= _pile(obs, s, me, pile_me)
        known |= _pile(obs, s, me, pile_me) | obs[OBS_EXPOSED + s]
        if s != me:
            opp_exposed |= obs[OBS_EXPOSED + s]
        if obs[OBS_ACTIVE + s]:
            n_active += 1
    unknown = t[T_DECK] & ~known
    unseen_chance = t[T_CHANCE_UNSEEN] * 2 // max(n_active, 1)
    risks = _risk_table(obs, t, unknown, n_active)
    return me, card, pile_me, all_piles, unknown, opp_exposed, unseen_chance, risks


@internal_nb(cache=True, _nrt=False)
def heuristic_choose_nb(kind, obs, keys, n, tables):
    """The index in ``keys[:n]`` of the heuristic's action (module docstring).

    Parameters
    ----------
    kind : int, the decision kind (``KIND_*``)
    obs : int64[OBS_SIZE], the deciding seat's packed observation
    keys : int64[>= n], the legal actions' keys in the reference's order
    n : int, the number of legal actions
    tables : int64[T_SIZE], from ``heuristic_tables``

    Returns
    -------
    int
        The index of the chosen action.
    """
    t = tables
    if kind == KIND_MIZU_KOTSU:
        return _yes_no(keys, n, False)
    if kind == KIND_KOTSU:
        return _yes_no(keys, n, _strength(obs, t) >= t[T_KOTSU_STRENGTH])
    if kind == KIND_JOIN:
        need = t[T_JOIN_STRENGTH] + t[T_JOIN_STEP] * (max(obs[OBS_DROPOUT_PASS], 1) - 1)
        return _yes_no(keys, n, _strength(obs, t) >= need)
    if kind == KIND_FUKE:
        winner = obs[OBS_WINNER]
        return _yes_no(keys, n, winner != obs[OBS_SEAT] and winner >= 0 and obs[OBS_SCORES + winner] > 0)
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
            if best < 0 or value > best_value:
                best = i
                best_value = value
        if best < 0:
            return decline
        group = t[T_TEYAKU_GROUP + (keys[best] & 0xFF) - 1]
        if group == 1 and t[T_VARIANT] == E.VARIANT_C and best_value < t[T_TEYAKU_B_MIN]:
            return decline
        return best
    me, card, pile_me, all_piles, unknown, opp_exposed, unseen_chance, risks = decision_view(kind, obs, t)
    best = 0
    best_value = np.int64(0)
    if kind == KIND_PLAY:
        for i in range(n):
            v = _play_value(keys[i] & PAYLOAD_MASK, obs, t, me, pile_me, all_piles, unknown, opp_exposed,
                            unseen_chance, risks)
            if i == 0 or v > best_value:
                best = i
                best_value = v
        return best
    # capture
    matches = np.int64(0)
    for i in range(n):
        matches |= keys[i] & PAYLOAD_MASK
    safe = _safe(t[T_MONTH + card], t, unknown, opp_exposed)
    for i in range(n):
        option = keys[i] & PAYLOAD_MASK
        v = _capture_value(option, matches & ~option, obs[OBS_FIELD], obs[OBS_HAND], safe, obs, t, me, pile_me,
                           all_piles, unknown, opp_exposed, unseen_chance, risks)
        if i == 0 or v > best_value:
            best = i
            best_value = v
    return best
