"""Numba kernel for Tensho: deal and play whole units (rounds or matches) over uint64 card masks.

Contract
--------
``play_units_nb`` takes the compiled rule arrays of ``simcore.games.tensho.compile.CompiledRules``
(``kernel_args()`` order), the policies of the two seats (``int32[2]`` ids, ``int32[2, 4]``
parameters), and two preallocated column-major output matrices: ``out_int``
int64[N_INT_COLUMNS, n_units * stride] and ``out_mask`` uint64[N_MASK_COLUMNS, n_units * stride]
(column indices in ``enums``).  Unit ``first_unit + i`` writes rows ``i * stride ..``: every
cell of a played row, and ``C_VALID = 0`` in rows a match leaves unused, so the caller may pass
uninitialised (reused) buffers.
Nothing is allocated in the kernel: the caller passes each thread's scratch (``new_scratch``
allocates it, ``fill_card_tables_nb`` fills its tables for the rules; the ``*_AT`` offsets
below).  The round and the greedy gain are compiled without numba's reference-counting runtime
(``_nrt=False``): they allocate nothing and take no slices, and otherwise every call would
increment and decrement the reference counts of its two dozen array arguments with atomic
operations (an eighth of the round's time).

The kernel mirrors ``simcore.games.tensho.reference`` step by step and consumes the random streams
(``simcore.rng``) in exactly the same order, so both engines produce identical rows.
This module imports only numpy, numba and the int constants of ``enums``.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import types
from numba.extending import overload

from simcore.games.tensho import enums as E
from simcore.kernels.bits import (
    FAST_PDEP,
    U0,
    U1,
    _pdep64,
    _pext64,
    bit,
    kth_bit,
    lowest_id,
    mask_value,
    popcount,
    slot,
)
from simcore.kernels.internal import internal_nb
from simcore.kernels.pair import bounded_products, lane, pair, with_lane, xoshiro_pair
from simcore.kernels.rows_nb import write_outcome_nb
from simcore.record import C_MATCH, C_MATCH_END, C_ROUND_IN_MATCH, C_VALID
from simcore.rng import (
    DEAL_STREAM,
    RULES_STREAM,
    SEAT_STREAM_BASE,
    batch_layout,
    batch_steps_nb,
    draw_below_nb,
    next_u64_nb,
    round_hash_nb,
    shuffle_places_nb,
    stream_init_hashed_nb,
    uniform_below_nb,
)

U32 = np.uint64(32)
LOW32 = np.uint64(0xFFFFFFFF)

DECK_SIZE = 45
HAND_SIZE = 6
SHUFFLED_POSITIONS = 39  # places the reference engine shuffles (docs/tensho.md#a-round: 39..44 are dead)
TURNED_DRAWS = 12  # draw-pile cards a round can turn: each seat's six turns
INSTANT_GAIN = E.GREEDY_INSTANT_GAIN
# Scratch layout (one allocation per parallel block): ``states`` holds the streams' xoshiro
# words, four per stream at offset ``4 * stream slot`` (selected by offset, never sliced: a
# slice is an array view whose reference counting costs two atomic operations), ``ids`` holds
# the shuffled deck, the draw pile and the candidate pairs of an opening claim.
DEAL_STATE = 0
RULES_STATE = 1
SEAT0_STATE = 2
DRAW_AT = DECK_SIZE
FIRST_DRAW_SLOT = 9 + 2 * HAND_SIZE  # the canonical slot of the draw pile's top card
PAIR_A_AT = DRAW_AT + 18
PAIR_B_AT = PAIR_A_AT + 6
IDS_SCRATCH = PAIR_B_AT + 6
# Per-block tables (``fill_card_tables_nb``): value planes, supersession and points by yaku, then
# what the turns read (the same-rank masks, the yaku masks, the instant-win yaku of each set and
# the card values) and room for a card's capture options.  The random turns, compiled apart,
# take these as one array instead of ten: each array argument is seven words on the stack.
N_VALUE_PLANES = 32
VALUE_PLANES_AT = 0
SUPERSEDES_AT = VALUE_PLANES_AT + N_VALUE_PLANES
POINTS_AT = SUPERSEDES_AT + 65
SAME_RANK_AT = POINTS_AT + 2 * 65
YAKU_MASK_AT = SAME_RANK_AT + 64
INSTANT_AT = YAKU_MASK_AT + 64
CARD_VALUE_AT = INSTANT_AT + 2
OPTS_AT = CARD_VALUE_AT + 64
RANK_NIBBLES_AT = OPTS_AT + 4  # the two masks of ``rank_counts_pdep_nb`` (see fill_card_tables_nb)
TABLES_SIZE = RANK_NIBBLES_AT + 2
# The batches of the deal's draws for the places a round can show (``simcore.rng.batch_layout``),
# one ``batch_steps_nb`` each in ``shuffle_seen_nb``: the unpacking fails at import if their number
# ever changes.
_B0, _B1, _B2, _B3, _B4, _B5 = batch_layout(DECK_SIZE, 0, E.SEEN_SLOTS)
SETTLE_STEPS = 4  # completed yaku per scoring step taken without a branch

_ = next_u64_nb  # re-exported for benchmarks that time the raw generator


def new_scratch() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One thread's scratch for ``play_units_nb``: ``(states, ids, hand, pile, tables)``
    (uint64[16], int64[IDS_SCRATCH], uint64[2], uint64[2], uint64[TABLES_SIZE]),
    uninitialised (the kernel writes each word before it reads it; ``fill_card_tables_nb``
    fills ``tables`` for the rules)."""
    return (np.empty(16, dtype=np.uint64), np.empty(IDS_SCRATCH, dtype=np.int64),
            np.empty(2, dtype=np.uint64), np.empty(2, dtype=np.uint64),
            np.empty(TABLES_SIZE, dtype=np.uint64))


def table_views(tables: np.ndarray, n_yaku: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The views of filled ``tables`` (uint64[TABLES_SIZE]) that ``play_units_nb`` takes:
    ``(yaku_mask, same_rank, opts)``, uint64 each.  The yaku masks are padded with empty ones to a multiple of eight, so that the
    vectorised test of which yaku a pile holds (``completed_yaku_raw_nb``) has no scalar
    remainder; every use masks the yaku by ``yaku_in_set``, which holds none of the padding."""
    return (tables[YAKU_MASK_AT:YAKU_MASK_AT + (n_yaku + 7) // 8 * 8],
            tables[SAME_RANK_AT:SAME_RANK_AT + 64], tables[OPTS_AT:OPTS_AT + 4])


@nb.njit(inline="always", cache=True)
def completed_yaku_raw_nb(p0, p1, set_index, yaku_mask, yaku_in_set):
    """The yaku of set ``set_index + 1`` whose cards piles ``p0`` and ``p1`` hold, before
    supersession: both piles in one pass."""
    done0 = U0
    done1 = U0
    not0 = ~p0
    not1 = ~p1
    for i in range(yaku_mask.size):  # every yaku, a loop the compiler vectorises
        m = yaku_mask[i]
        done0 |= np.uint64((m & not0) == U0) << np.uint64(i)
        done1 |= np.uint64((m & not1) == U0) << np.uint64(i)
    return done0 & yaku_in_set[set_index], done1 & yaku_in_set[set_index]


@nb.njit(inline="always", cache=True)
def completed_yaku_pair_nb(p0, p1, set_index, yaku_mask, yaku_in_set, supersedes):
    """The yaku of set ``set_index + 1`` that piles ``p0`` and ``p1`` complete, after
    supersession (a completed yaku cancels those it supersedes)."""
    done0, done1 = completed_yaku_raw_nb(p0, p1, set_index, yaku_mask, yaku_in_set)
    cancel0 = U0
    cancel1 = U0
    rest = done0 | done1
    while rest:
        i = lowest_id(rest)
        rest &= rest - U1
        cancel0 |= supersedes[i] & (U0 - ((done0 >> np.uint64(i)) & U1))
        cancel1 |= supersedes[i] & (U0 - ((done1 >> np.uint64(i)) & U1))
    return done0 & ~cancel0, done1 & ~cancel1


@nb.njit(inline="always", cache=True)
def yaku_bits_points_nb(bits, set_index, yaku_points):
    total = 0
    while bits:
        i = lowest_id(bits)
        bits &= bits - U1
        total += yaku_points[set_index, i]
    return total


@nb.njit(inline="always", cache=True)
def has_instant_nb(pile, set_index, yaku_mask, yaku_instant):
    rest = yaku_instant[set_index]
    while rest:
        i = lowest_id(rest)
        rest &= rest - U1
        if (yaku_mask[i] & pile) == yaku_mask[i]:
            return True
    return False


@nb.njit(inline="always", cache=True)
def has_instant_either_nb(p0, p1, set_index, yaku_mask, yaku_instant):
    """Whether pile ``p0`` or ``p1`` holds an instant-win yaku of set ``set_index + 1``: a loop
    over the set's instant-win yaku (one or two), without a branch on the piles."""
    rest = yaku_instant[set_index]
    found = False
    while rest:
        m = yaku_mask[lowest_id(rest)]
        rest &= rest - U1
        found |= ((m & ~p0) == U0) | ((m & ~p1) == U0)
    return found


@nb.njit(cache=True)
def fill_card_tables_nb(rank, rank_mask, card_value, supersedes, yaku_points, yaku_mask, yaku_instant,
                     tables):
    """Tables the round reads in its hot paths (filled once per parallel block), in ``tables``
    (uint64[TABLES_SIZE]):

    * ``tables[VALUE_PLANES_AT + b]``: the cards whose value has bit ``b`` set (card values are
      non-negative int32); ``pile_value_nb`` sums a mask's card values from them, one popcount per
      bit of the largest value instead of one step per card;
    * ``tables[SUPERSEDES_AT + i]`` and ``tables[POINTS_AT + 65 * s + i]``: ``supersedes[i]``
      and ``yaku_points[s, i]``, followed by a 0 at ``i = 64`` (the index of no yaku), so that
      ``settle_yaku_pair_nb`` can step through a fixed number of completed yaku without a branch;
    * from ``SAME_RANK_AT`` on, the copies the turns read through ``turn_tables_nb``: the mask of
      the cards of card ``c``'s rank, ``yaku_mask``, ``yaku_instant`` and the card values (as
      int64);
    * at ``RANK_NIBBLES_AT``, the two masks of ``rank_counts_pdep_nb``.

    Returns the number of value planes.
    """
    for b in range(N_VALUE_PLANES):
        tables[VALUE_PLANES_AT + b] = U0
    for i in range(64):
        tables[SAME_RANK_AT + i] = U0
        tables[YAKU_MASK_AT + i] = yaku_mask[i] if i < yaku_mask.size else U0
        tables[CARD_VALUE_AT + i] = U0
    for s in range(2):
        tables[INSTANT_AT + s] = yaku_instant[s]
    largest = 0
    for c in range(DECK_SIZE):
        tables[SAME_RANK_AT + c] = rank_mask[rank[c]]
        tables[CARD_VALUE_AT + c] = np.uint64(card_value[c])
        v = np.int64(card_value[c])
        largest = max(largest, v)
        for b in range(N_VALUE_PLANES):
            if (v >> b) & 1:
                tables[VALUE_PLANES_AT + b] |= bit(c)
    n_planes = 0
    while largest >> n_planes:
        n_planes += 1
    # rank_counts_pdep_nb's masks: the cards of ranks 1-12, and nibble r - 1 filled from its low bit
    # with as many bits as rank r has cards; 0 (no such layout) unless the card ids ascend by rank
    # and no rank has more than four cards
    gather = U0
    spread = U0
    fits = True
    last = 0
    for c in range(DECK_SIZE):
        r = np.int64(rank[c])
        if 1 <= r <= 12:
            fits &= r >= last
            last = r
            gather |= bit(c)
    for r in range(1, 13):
        n = popcount(rank_mask[r])
        fits &= n <= 4
        spread |= ((U1 << np.uint64(n)) - U1) << np.uint64(4 * (r - 1))
    tables[RANK_NIBBLES_AT] = gather
    tables[RANK_NIBBLES_AT + 1] = spread if fits else U0
    for i in range(65):
        known = i < supersedes.size
        tables[SUPERSEDES_AT + i] = supersedes[i] if known else U0
        for s in range(2):
            tables[POINTS_AT + 65 * s + i] = np.uint64(yaku_points[s, i]) if known else U0
    return n_planes


@nb.njit(inline="always", cache=True)
def turn_tables_nb(tables):
    """Views of the per-block ``tables`` that the turns read (see ``fill_card_tables_nb``):
    ``(same_rank, opts, yaku_mask, yaku_instant, card_value)``; ``opts`` is room for a card's
    capture options."""
    return (tables[SAME_RANK_AT:SAME_RANK_AT + 64], tables[OPTS_AT:OPTS_AT + 4],
            tables[YAKU_MASK_AT:YAKU_MASK_AT + 64], tables[INSTANT_AT:INSTANT_AT + 2],
            tables[CARD_VALUE_AT:CARD_VALUE_AT + 64].view(np.int64))


@nb.njit(inline="always", cache=True)
def pile_value_nb(mask, tables, n_planes):
    """The card value of ``mask``, equal to ``mask_value(mask, card_value)`` (see fill_card_tables_nb)."""
    total = 0
    for b in range(n_planes):
        total += popcount(mask & tables[VALUE_PLANES_AT + b]) << b
    return total


@nb.njit(inline="always", cache=True)
def settle_yaku_pair_nb(done0, done1, s, tables):
    """Two piles' completed yaku ``done0`` and ``done1`` (of set ``s + 1``) after supersession
    (a completed yaku cancels those it supersedes), and their points: ``(yaku0, points0, yaku1,
    points1)``.  The first ``SETTLE_STEPS`` completed yaku are taken without a branch (index 64,
    no yaku, reads the tables' zero), so the number completed is not a mispredicted loop exit; a
    loop takes any more, which is rare."""
    cancel0 = U0
    cancel1 = U0
    rest = done0 | done1
    for _ in range(SETTLE_STEPS):
        i = lowest_id(rest)
        rest &= rest - U1
        cancels = tables[slot(SUPERSEDES_AT + i)]
        cancel0 |= cancels & (U0 - ((done0 >> np.uint64(i & 63)) & U1))
        cancel1 |= cancels & (U0 - ((done1 >> np.uint64(i & 63)) & U1))
    while rest:
        i = lowest_id(rest)
        rest &= rest - U1
        cancels = tables[slot(SUPERSEDES_AT + i)]
        cancel0 |= cancels & (U0 - ((done0 >> np.uint64(i)) & U1))
        cancel1 |= cancels & (U0 - ((done1 >> np.uint64(i)) & U1))
    yaku0 = done0 & ~cancel0
    yaku1 = done1 & ~cancel1
    return yaku0, settled_points_nb(yaku0, s, tables), yaku1, settled_points_nb(yaku1, s, tables)


@nb.njit(inline="always", cache=True)
def settled_points_nb(bits, s, tables):
    """The points of the yaku ``bits`` in set ``s + 1`` (see ``settle_yaku_pair_nb``)."""
    total = 0
    for _ in range(SETTLE_STEPS):
        total += np.int64(tables[slot(POINTS_AT + 65 * s + lowest_id(bits))])
        bits &= bits - U1
    while bits:
        total += np.int64(tables[slot(POINTS_AT + 65 * s + lowest_id(bits))])
        bits &= bits - U1
    return total


# --- greedy ----------------------------------------------------------------------------------


@internal_nb(cache=True, _nrt=False)
def greedy_gain_nb(pile, captured, s, yaku_mask, yaku_points, yaku_in_set, yaku_instant, supersedes,
                greedy_weight, card_value, chaff_mask):
    new = pile | captured
    if has_instant_nb(new, s, yaku_mask, yaku_instant):
        return INSTANT_GAIN
    done_before, done_after = completed_yaku_pair_nb(pile, new, s, yaku_mask, yaku_in_set, supersedes)
    before = yaku_bits_points_nb(done_before, s, yaku_points)
    after = yaku_bits_points_nb(done_after, s, yaku_points)
    g = 100 * (after - before)
    rest = yaku_in_set[s]
    while rest:
        i = lowest_id(rest)
        rest &= rest - U1
        m = yaku_mask[i]
        if (m & pile) != m:
            g += greedy_weight[s, i] * popcount(captured & m & ~pile)
    g += 10 * mask_value(captured, card_value)
    g += 10 * popcount(captured & chaff_mask)
    return g


@nb.njit(inline="always", cache=True)
def greedy_placement_nb(card, s, yaku_mask, yaku_in_set, greedy_weight, card_value):
    g = 10 * card_value[card]
    b = bit(card)
    rest = yaku_in_set[s]
    while rest:
        i = lowest_id(rest)
        rest &= rest - U1
        if yaku_mask[i] & b:
            g += greedy_weight[s, i]
    return -g


@nb.njit(inline="always", cache=True)
def capture_options_nb(matches, opts, card_value, highest_value_first, triple_all):
    """Fill ``opts`` with the capture masks a card can take, given ``matches``, the field cards
    of its rank; returns their number (0: none)."""
    n = popcount(matches)
    if n == 0:
        return 0
    if n == 1:
        opts[0] = matches
        return 1
    if n == 2 and highest_value_first:
        best = U0
        best_value = -1
        rest = matches
        while rest:
            x = lowest_id(rest)
            rest &= rest - U1
            if card_value[x] > best_value:
                best = bit(x)
                best_value = card_value[x]
        opts[0] = best
        return 1
    if n >= 3 and triple_all:
        opts[0] = matches
        return 1
    count = 0
    rest = matches
    while rest:
        x = lowest_id(rest)
        rest &= rest - U1
        opts[count] = bit(x)
        count += 1
    return count


@internal_nb(cache=True, _nrt=False)
def greedy_take_nb(pile, card, n_opts, allow_decline, s, opts, yaku_mask, yaku_points, yaku_in_set,
                yaku_instant, supersedes, greedy_weight, card_value, chaff_mask):
    """What the greedy policy takes with ``card`` among ``opts[:n_opts]`` (0: it declines)."""
    cb = bit(card)
    taken = U0
    best_gain = 0
    for k in range(n_opts):
        g = greedy_gain_nb(pile, cb | opts[k], s, yaku_mask, yaku_points, yaku_in_set,
                        yaku_instant, supersedes, greedy_weight, card_value, chaff_mask)
        if k == 0 or g > best_gain:
            taken = opts[k]
            best_gain = g
    if allow_decline:
        if greedy_placement_nb(card, s, yaku_mask, yaku_in_set, greedy_weight, card_value) > best_gain:
            taken = U0
    return taken


def greedy_capture(greedy, pile, card, n_opts, allow_decline, s, opts, yaku_mask, yaku_instant,
                   card_value):
    """``greedy_take_nb`` with the arrays only the greedy policy reads in ``greedy``:
    ``(yaku_points, yaku_in_set, supersedes, greedy_weight, chaff_mask)``.  With ``greedy`` None
    (turns of random seats only) nothing of the greedy policy is compiled, and the random turns
    need not be passed those arrays.  Compiled code only (an overload per form)."""
    raise NotImplementedError("greedy_capture is for compiled code")


@overload(greedy_capture, jit_options={"cache": True})
def _greedy_capture(greedy, pile, card, n_opts, allow_decline, s, opts, yaku_mask, yaku_instant,
                    card_value):
    if isinstance(greedy, types.NoneType):
        def no_greedy_seat(greedy, pile, card, n_opts, allow_decline, s, opts, yaku_mask,
                           yaku_instant, card_value):
            return U0
        return no_greedy_seat

    def take(greedy, pile, card, n_opts, allow_decline, s, opts, yaku_mask, yaku_instant,
             card_value):
        yaku_points, yaku_in_set, supersedes, greedy_weight, chaff_mask = greedy
        return greedy_take_nb(pile, card, n_opts, allow_decline, s, opts, yaku_mask, yaku_points,
                           yaku_in_set, yaku_instant, supersedes, greedy_weight, card_value,
                           chaff_mask)
    return take


def stream_draw(st, n):
    """``draw_below_nb`` on a seat's stream state ``st``: ``(value, st)`` with ``st`` advanced.

    ``st`` is either the four xoshiro256** words ``(s0, s1, s2, s3)``, or ``(v0, v1, v2, v3,
    i)``: lane ``i`` of four word pairs (``simcore.kernels.pair``), the form the random turn loop
    keeps both seats' states in.  Compiled code only (an overload per form)."""
    raise NotImplementedError("stream_draw is for compiled code")


@overload(stream_draw, jit_options={"cache": True})
def _stream_draw(st, n):
    if isinstance(st, types.UniTuple) and st.count == 4:
        def words(st, n):
            k, s0, s1, s2, s3 = draw_below_nb(st[0], st[1], st[2], st[3], n)
            return k, (s0, s1, s2, s3)
        return words
    if isinstance(st, types.Tuple) and len(st) == 5:
        def lanes(st, n):
            v0, v1, v2, v3, i = st
            k, s0, s1, s2, s3 = draw_below_nb(lane(v0, i), lane(v1, i), lane(v2, i), lane(v3, i), n)
            return k, (with_lane(v0, i, s0), with_lane(v1, i, s1), with_lane(v2, i, s2),
                       with_lane(v3, i, s3), i)
        return lanes
    return None


@nb.njit(inline="always", cache=True)
def random_hand_card_nb(hand, st):
    """A random seat's hand card and its stream afterwards: a draw only when the hand holds two
    cards or more (a branch the processor predicts well: hands shrink by one a turn), and the
    k-th card found in a fixed number of steps."""
    k = 0
    if hand & (hand - U1):
        k, st = stream_draw(st, popcount(hand))
    return lowest_id(kth_bit(hand, k, HAND_SIZE - 1)), st


@nb.njit(inline="always", cache=True)
def play_turn_nb(card, hand, pile, random, checks, st, field, drawn, choice_counts, instant_cards,
              opts, six, triple_all, highest_value_first, capture_optional, check_each_capture, s,
              same_rank, yaku_mask, yaku_instant, card_value, greedy):
    """The rest of a turn of the seat holding ``hand`` and ``pile`` once it has chosen ``card``
    from its hand (``random``: its policy is random; ``st``: its stream, see ``stream_draw``;
    ``greedy``: see ``greedy_capture``): play ``card``, then turn ``drawn``, the top of the draw
    pile.  Returns ``(hand, pile, st, field, won)``; ``won``: an instant win ended the turn
    (``checks`` false: no instant-win check, ``won`` is false).

    A capture choice is a rare branch, taken when the count of field matches is one of
    ``choice_counts[phase]`` (bit n: n matches make a choice): two, three unless all three are
    taken, and any count for a played card when capturing is optional.
    """
    checked = pile
    won = False
    for phase in range(2):
        if phase == 0:
            hand &= ~bit(card)
            allow_decline = capture_optional
        else:
            card = drawn
            allow_decline = False
        # resolve the card against the field (the six matches nothing and goes to the pile)
        cb = bit(card)
        matches = field & same_rank[slot(card)]
        n = popcount(matches)
        if (choice_counts[phase] >> np.uint64(n)) & U1:
            # a choice (or the highest-value rule) decides what is taken; rare for a played or
            # turned card (two or more cards of one rank on the field were dealt there)
            n_opts = capture_options_nb(matches, opts, card_value, highest_value_first, triple_all)
            if n_opts == 1 and not allow_decline:
                taken = opts[0]
            elif random:
                pick, st = stream_draw(st, n_opts + (1 if allow_decline else 0))
                taken = opts[pick] if pick < n_opts else U0
            else:
                taken = greedy_capture(greedy, pile, card, n_opts, allow_decline, s, opts, yaku_mask,
                                       yaku_instant, card_value)
        else:
            taken = matches  # none, the only match, or all three
        # nothing taken: the card stays on the field (the six excepted); else it and ``taken``
        # go to the pile
        to_pile = U0 - np.uint64((taken != U0) | (card == six))
        field = (field & ~taken) | (cb & ~to_pile)
        pile |= (cb | taken) & to_pile
        # A pile holds no instant win at the start of a turn (every pile is checked whenever it
        # grows), so only a pile that took a card of some instant-win yaku since its last check
        # can hold one now.
        if checks and (phase == 1 or check_each_capture) and (pile & ~checked & instant_cards) != U0:
            checked = pile
            if has_instant_nb(pile, s, yaku_mask, yaku_instant):
                won = True
                break
    return hand, pile, st, field, won


@nb.njit(inline="always", cache=True)
def hand_draws_nb(nc, no, v0, v1, v2, v3):
    """Both random seats' hand-card draws of one pass of the turn loop, from their streams in
    lanes 0 and 1 of ``v0..v3``, for hands of ``nc`` and ``no`` cards: ``(kc, ko, v0, v1, v2,
    v3)``, as ``random_hand_card_nb`` would draw them seat by seat.  Usually one vector step of
    both generators; lane by lane when a hand holds fewer than two cards (no draw) or when
    Lemire's method must test for a rejection (probability about n / 2**32)."""
    words, n0, n1, n2, n3 = xoshiro_pair(v0, v1, v2, v3)
    products = bounded_products(words, pair(np.uint64(nc), np.uint64(no)))
    pc = lane(products, 0)
    po = lane(products, 1)
    if (nc >= 2) & (no >= 2) & ((pc & LOW32) >= np.uint64(nc)) & ((po & LOW32) >= np.uint64(no)):
        return np.int64(pc >> U32), np.int64(po >> U32), n0, n1, n2, n3
    kc = 0
    ko = 0
    if nc >= 2:
        kc, (v0, v1, v2, v3, _) = stream_draw((v0, v1, v2, v3, 0), nc)
    if no >= 2:
        ko, (v0, v1, v2, v3, _) = stream_draw((v0, v1, v2, v3, 1), no)
    return kc, ko, v0, v1, v2, v3


@nb.njit(forceinline=True, cache=True, _nrt=False)
def random_pass_nb(checks, hc, pc, ho, po, nc, no, vs, field, turn, ids, draw_at, choice_counts,
                instant_cards, six, triple_all, highest_value_first, capture_optional,
                check_each_capture, s, same_rank, opts, yaku_mask, yaku_instant, card_value):
    """One pass of ``random_turns_nb``: a turn of the seat that moves first (hand ``hc`` of ``nc``
    cards, pile ``pc``, stream in lane 0 of the four pairs ``vs``), then one of the other (lane
    1), each skipped when its hand is empty.  ``checks``: with the instant-win checks, ending
    the pass at a win; without them, the pass is played out.  Returns ``(hc, pc, ho, po, vs,
    field, turn, won_by)``, ``won_by`` 0 or 1 for the seat that won (-1: none).

    Its callers pass ``checks`` as a comparison (``won_by >= 0``, always false there; ``nc >= 0``,
    always true), not as a constant: numba then compiles it once, for a plain ``bool``, and LLVM,
    inlining it (``forceinline``), folds the comparison.

    The two seats' turns are written out twice on purpose: the same turns through one inlined
    helper gave identical rows and time but 67 instructions a round more (cachegrind)."""
    kc, ko, v0, v1, v2, v3 = hand_draws_nb(nc, no, vs[0], vs[1], vs[2], vs[3])
    if nc > 0:
        drawn = ids[slot(draw_at + turn)]
        turn += 1
        hc, pc, (v0, v1, v2, v3, _), field, won = play_turn_nb(
            lowest_id(kth_bit(hc, kc, HAND_SIZE - 1)), hc, pc, True, checks, (v0, v1, v2, v3, 0),
            field, drawn, choice_counts, instant_cards, opts, six, triple_all, highest_value_first,
            capture_optional, check_each_capture, s, same_rank, yaku_mask, yaku_instant, card_value,
            None)
        if won:
            return hc, pc, ho, po, (v0, v1, v2, v3), field, turn, 0
    if no > 0:
        drawn = ids[slot(draw_at + turn)]
        turn += 1
        ho, po, (v0, v1, v2, v3, _), field, won = play_turn_nb(
            lowest_id(kth_bit(ho, ko, HAND_SIZE - 1)), ho, po, True, checks, (v0, v1, v2, v3, 1),
            field, drawn, choice_counts, instant_cards, opts, six, triple_all, highest_value_first,
            capture_optional, check_each_capture, s, same_rank, yaku_mask, yaku_instant, card_value,
            None)
        if won:
            return hc, pc, ho, po, (v0, v1, v2, v3), field, turn, 1
    return hc, pc, ho, po, (v0, v1, v2, v3), field, turn, -1


@internal_nb(cache=True, _nrt=False)
def checked_pass_nb(hc, pc, ho, po, nc, no, vs, field, turn, ids, draw_at, tables, choice_counts,
                 instant_cards, six, triple_all, highest_value_first, capture_optional,
                 check_each_capture, s):
    """``random_pass_nb`` with the instant-win checks (rare: compiled apart)."""
    same_rank, opts, yaku_mask, yaku_instant, card_value = turn_tables_nb(tables)
    return random_pass_nb(nc >= 0, hc, pc, ho, po, nc, no, vs, field, turn, ids, draw_at, choice_counts,
                       instant_cards, six, triple_all, highest_value_first, capture_optional,
                       check_each_capture, s, same_rank, opts, yaku_mask, yaku_instant, card_value)


@internal_nb(cache=True, _nrt=False)
def random_turns_nb(hc, pc, ho, po, vs, field, ids, draw_at, tables, choice_counts, instant_cards, six,
                 triple_all, highest_value_first, capture_optional, check_each_capture, s):
    """The turns of a round whose seats both play at random, a pass at a time: a turn of the
    seat that moves first (``c``), then one of the other (``o``), each inlined, so nothing
    changes hands between turns; compiled apart from the round, so that the round's own code
    stays small.  The seats' streams are lanes 0 (``c``) and 1 (``o``) of the four pairs ``vs``,
    in vector registers, which leaves the general registers to the cards; a pass draws both
    seats' hand cards at once (a seat's stream serves only that seat, so drawing the second
    seat's card before the first seat's turn changes nothing).

    A pass is played without instant-win checks, and both piles are checked after it without a
    branch on their cards (a branch there, taken whenever a pile took a card of an instant-win
    yaku, was mispredicted a few times a round).  Piles only grow, so a pile that holds an
    instant win after the pass first held one during it: then the pass is played again from its
    start with the checks, which end it where the rules end the round.  Returns ``(hc, pc, ho,
    po, field, turns, won_by)``, ``won_by`` 0 or 1 for the seat that won instantly (-1: none).
    """
    turn = np.int64(0)  # not the literal 0: checked_pass_nb then compiles for one signature only
    won_by = -1
    # the hands' sizes, counted down a card a pass: the draws then do not wait for the hands
    nc = popcount(hc)
    no = popcount(ho)
    same_rank, opts, yaku_mask, yaku_instant, card_value = turn_tables_nb(tables)
    while (nc > 0) | (no > 0):
        before = (hc, pc, ho, po, vs, field, turn)
        hc, pc, ho, po, vs, field, turn, _ = random_pass_nb(
            won_by >= 0, hc, pc, ho, po, nc, no, vs, field, turn, ids, draw_at, choice_counts,
            instant_cards, six, triple_all, highest_value_first, capture_optional,
            check_each_capture, s, same_rank, opts, yaku_mask, yaku_instant, card_value)
        if has_instant_either_nb(pc, po, s, yaku_mask, yaku_instant):  # rare: replay the pass
            hc, pc, ho, po, vs, field, turn = before
            hc, pc, ho, po, vs, field, turn, won_by = checked_pass_nb(
                hc, pc, ho, po, nc, no, vs, field, turn, ids, draw_at, tables, choice_counts,
                instant_cards, six, triple_all, highest_value_first, capture_optional,
                check_each_capture, s)
            break
        nc -= 1
        no -= 1
    return hc, pc, ho, po, field, turn, won_by


@internal_nb(cache=True, _nrt=False)
def reshuffle_seen_nb(s0, s1, s2, s3, ids):
    """``shuffle_seen_nb``'s rare path: the deck filled again and shuffled by ``shuffle_places_nb``
    from the deal stream's state ``s0 .. s3`` before the shuffle; returns the state after it."""
    for i in range(DECK_SIZE):
        ids[i] = i
    return shuffle_places_nb(s0, s1, s2, s3, ids, DECK_SIZE, 0, E.SEEN_SLOTS)


@nb.njit(inline="always", cache=True)
def shuffle_seen_nb(states, ids):
    """Fill ``ids[:DECK_SIZE]`` with the card ids and shuffle places ``0 .. E.SEEN_SLOTS - 1``
    from the deal stream, as ``Stream.shuffle_places`` does: one ``batch_steps_nb`` a batch,
    unrolled, and only if a batch's word was rejected (probability below 2**-32 each) the whole
    shuffle again from the start (``reshuffle_seen_nb``)."""
    for i in range(DECK_SIZE):
        ids[i] = i
    at = 4 * DEAL_STATE
    s0 = states[at]
    s1 = states[at + 1]
    s2 = states[at + 2]
    s3 = states[at + 3]
    x0, x1, x2, x3, r0 = batch_steps_nb(s0, s1, s2, s3, ids, DECK_SIZE, _B0[0], _B0[1], _B0[2])
    x0, x1, x2, x3, r1 = batch_steps_nb(x0, x1, x2, x3, ids, DECK_SIZE, _B1[0], _B1[1], _B1[2])
    x0, x1, x2, x3, r2 = batch_steps_nb(x0, x1, x2, x3, ids, DECK_SIZE, _B2[0], _B2[1], _B2[2])
    x0, x1, x2, x3, r3 = batch_steps_nb(x0, x1, x2, x3, ids, DECK_SIZE, _B3[0], _B3[1], _B3[2])
    x0, x1, x2, x3, r4 = batch_steps_nb(x0, x1, x2, x3, ids, DECK_SIZE, _B4[0], _B4[1], _B4[2])
    x0, x1, x2, x3, r5 = batch_steps_nb(x0, x1, x2, x3, ids, DECK_SIZE, _B5[0], _B5[1], _B5[2])
    if r0 | r1 | r2 | r3 | r4 | r5:
        x0, x1, x2, x3 = reshuffle_seen_nb(s0, s1, s2, s3, ids)
    states[at] = x0
    states[at + 1] = x1
    states[at + 2] = x2
    states[at + 3] = x3


@nb.njit(inline="always", cache=True)
def shuffle_rest_nb(states, ids):
    """The rest of the reference engine's shuffle after ``shuffle_seen_nb``: places
    ``E.SEEN_SLOTS .. SHUFFLED_POSITIONS - 1`` (a call: needed only before a redeal, or in every
    deal with the physical deal procedure)."""
    at = 4 * DEAL_STATE
    states[at], states[at + 1], states[at + 2], states[at + 3] = shuffle_places_nb(
        states[at], states[at + 1], states[at + 2], states[at + 3], ids, DECK_SIZE, E.SEEN_SLOTS,
        SHUFFLED_POSITIONS)


@nb.njit(inline="always", cache=True)
def rank_counts_loop_nb(field, rank_mask, tables):
    """Whether ``field`` holds four cards of a rank, and the ranks of which it holds three or more
    (bit ``r`` for rank ``r``): one masked popcount a rank."""
    four = False
    claim_ranks = U0
    for r in range(1, 13):
        count = popcount(field & rank_mask[r])
        four |= count == 4
        claim_ranks |= np.uint64(count >= 3) << np.uint64(r)
    return four, claim_ranks


@nb.njit(inline="always", cache=True)
def rank_counts_pdep_nb(field, rank_mask, tables):
    """``rank_counts_loop_nb`` with all ranks counted at once where the deck allows it (see
    ``fill_card_tables_nb``): the field's cards gathered rank by rank into nibble ``r - 1``
    (``pext``, then ``pdep``), the nibbles' popcounts in two SWAR steps (a count is at most
    four), and one flag a nibble packed into rank bits (``pext``)."""
    spread = tables[RANK_NIBBLES_AT + 1]
    if spread == U0:  # a deck whose ranks do not fit (none shipped)
        return rank_counts_loop_nb(field, rank_mask, tables)
    x = _pdep64(_pext64(field, tables[RANK_NIBBLES_AT]), spread)
    x -= (x >> U1) & np.uint64(0x5555555555555555)
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    # a count n <= 4: n == 4 is the nibble's bit 2; n >= 3 is bit 2, or bits 0 and 1
    four = (x & np.uint64(0x4444444444444444)) != U0
    three = ((x >> np.uint64(2)) | (x & (x >> U1))) & np.uint64(0x1111111111111111)
    return four, _pext64(three, np.uint64(0x111111111111)) << U1


# the field's four-of-a-rank check and opening-claim ranks, once a deal
rank_counts = rank_counts_pdep_nb if FAST_PDEP else rank_counts_loop_nb


# --- one round -------------------------------------------------------------------------------


@nb.njit(inline="always", cache=True)
def dealt_cards_nb(ids, deal_order, direct, first, end):
    """The cards the shuffled deck ``ids`` deals to canonical slots ``first .. end - 1``: from
    the places ``deal_order`` gives, or (``direct``) from places ``first .. end - 1``."""
    cards = U0
    if direct:
        for i in range(first, end):
            cards |= bit(ids[slot(i)])
    else:
        for i in range(first, end):
            cards |= bit(ids[slot(deal_order[i])])
    return cards


@nb.njit(inline="always", cache=True)
def capture_choice_counts_nb(triple_all, capture_optional):
    """Per phase (played card, turned card), bit n set when n field matches make a choice."""
    choice_drawn = np.uint64(0b100) | (np.uint64(0xFFF8) if not triple_all else U0)
    return choice_drawn | (np.uint64(0xFFFE) if capture_optional else U0), choice_drawn


@nb.njit(inline="always", cache=True)
def instant_yaku_cards_nb(s, yaku_mask, yaku_instant):
    """The cards of the instant-win yaku of set ``s + 1``."""
    cards = U0
    rest = yaku_instant[s]
    while rest:
        cards |= yaku_mask[lowest_id(rest)]
        rest &= rest - U1
    return cards


@nb.njit(cache=True, _nrt=False, forceinline=True)
def finish_round_nb(round_index, dealer, first, yaku_set, redeals, field_dealt, claimed, hand_dealt0,
                    hand_dealt1, pile0, pile1, turn, winner, instant, params, yaku_mask, yaku_points,
                    yaku_in_set, supersedes, chaff_mask, tables, n_planes, out_int, out_mask, row):
    """Step 7 of a round, scoring, and its row (all but the match columns); returns
    ``(winner, score0, score1)``."""
    values_only = params[E.P_NO_YAKU_TIEBREAK] == 1
    final_tie = params[E.P_FINAL_TIE]
    other = 1 - dealer
    s = yaku_set - 1
    done0, done1 = completed_yaku_raw_nb(pile0, pile1, s, yaku_mask, yaku_in_set)
    yaku0, points0, yaku1, points1 = settle_yaku_pair_nb(done0, done1, s, tables)
    chaff0 = popcount(pile0 & chaff_mask)
    chaff1 = popcount(pile1 & chaff_mask)
    value0 = pile_value_nb(pile0, tables, n_planes)
    value1 = pile_value_nb(pile1, tables, n_planes)
    if instant:
        reason = E.END_INSTANT_WIN
        score0 = params[E.P_INSTANT_WIN_SCORE] if winner == 0 else 0
        score1 = params[E.P_INSTANT_WIN_SCORE] if winner == 1 else 0
    else:
        score0 = points0
        score1 = points1
        if points0 != points1:
            winner = 0 if points0 > points1 else 1
            reason = E.END_YAKU
        elif not (values_only and points0 == 0) and chaff0 != chaff1:
            winner = 0 if chaff0 > chaff1 else 1
            reason = E.END_CHAFF
        elif value0 != value1:
            winner = 0 if value0 > value1 else 1
            reason = E.END_CARD_VALUE
        elif final_tie == 1:
            winner = dealer
            reason = E.END_FINAL_TIE_RULE
        elif final_tie == 2:
            winner = other
            reason = E.END_FINAL_TIE_RULE
        else:
            winner = -1
            reason = E.END_DRAW
    if params[E.P_MATCH_SCORING] == 0:
        payoff0 = 0
        if winner == 0:
            payoff0 = 1
        elif winner == 1:
            payoff0 = -1
    else:
        payoff0 = score0 - score1

    write_outcome_nb(out_int, row, round_index, dealer, first, winner, reason, turn, redeals)
    out_int[E.C_YAKU_SET, row] = yaku_set
    out_int[E.C_YAKU_POINTS, row] = points0
    out_int[E.C_YAKU_POINTS + 1, row] = points1
    out_int[E.C_CARD_POINTS, row] = value0
    out_int[E.C_CARD_POINTS + 1, row] = value1
    out_int[E.C_CHAFF, row] = chaff0
    out_int[E.C_CHAFF + 1, row] = chaff1
    out_int[E.C_SCORE, row] = score0
    out_int[E.C_SCORE + 1, row] = score1
    out_int[E.C_PAYOFF, row] = payoff0
    out_int[E.C_PAYOFF + 1, row] = -payoff0
    out_mask[E.M_FIELD_DEALT, row] = field_dealt
    out_mask[E.M_OPENING_CLAIM, row] = claimed
    out_mask[E.M_HAND_DEALT, row] = hand_dealt0
    out_mask[E.M_HAND_DEALT + 1, row] = hand_dealt1
    out_mask[E.M_CAPTURED, row] = pile0
    out_mask[E.M_CAPTURED + 1, row] = pile1
    out_mask[E.M_YAKU, row] = yaku0
    out_mask[E.M_YAKU + 1, row] = yaku1
    return winner, score0, score1


# --- units -----------------------------------------------------------------------------------


@nb.njit(cache=True, _nrt=False, nogil=True)
def play_units_nb(seed, first_unit, lo, hi, rounds_per_match, stride, policy_ids, policy_params,
                  params, rank, rank_mask, deal_order, yaku_mask, yaku_points, yaku_in_set, yaku_instant,
                  supersedes, greedy_weight, card_value, chaff_mask,
                  states, ids, opts, hand, pile, same_rank, tables, n_planes, out_int, out_mask):
    """Play units ``first_unit + lo .. first_unit + hi - 1`` into rows ``lo * stride ..``
    (``rounds_per_match == 0``: independent rounds); threads call it on disjoint spans
    (``simcore.kernels.threads``), each with scratch of its own (module docstring).

    The round is written out here, in the loop over rounds, rather than called: one call per
    block instead of one per round spares passing two dozen arrays (seven words each) on the
    stack every round, and writing it here rather than inlining a round function spares numba
    copying the round's whole intermediate representation into this function (most of the
    first compile's time and memory).  It is called from Python, not from a jitted wrapper
    that allocates: numba compiles a caller with a copy of everything it calls, and the
    wrapper's copy of this function was a tenth of the first compile.
    """
    by_wins = params[E.P_MATCH_SCORING] == 0
    independent = rounds_per_match == 0
    n_rounds = 1 if independent else stride
    triple_all = params[E.P_TRIPLE_MATCH] == 0
    highest_value_first = params[E.P_DOUBLE_MATCH] == 1
    capture_optional = params[E.P_CAPTURE_MANDATORY] == 1
    check_each_capture = params[E.P_INSTANT_CHECK] == 0
    six = params[E.P_SIX_CARD]
    draw_at = FIRST_DRAW_SLOT if params[E.P_DIRECT_DEAL] == 1 else DRAW_AT  # see the deal below
    for i in range(lo, hi):
        unit = first_unit + i
        # Independent rounds are units of one round, dealt by seat unit % 2; a match is a
        # unit of up to ``stride`` rounds whose winner deals the next.
        points0 = 0
        points1 = 0
        dealer = unit % 2
        last_row = i * stride
        for k in range(n_rounds):
            if k >= rounds_per_match and points0 != points1 and not independent:
                break
            row = i * stride + k
            round_index = unit if independent else unit * stride + k
            alternate_index = unit if independent else k
            # --- the deal (steps 1-5) ---

            one_triple = params[E.P_OPENING_SCOPE] == 1
            field_four = params[E.P_FIELD_FOUR]
            six_to_dealer = params[E.P_SIX_ON_FIELD] == 1
            bank_at_deal = params[E.P_SIX_IN_HAND] == 1
            six_bit = bit(params[E.P_SIX_CARD])

            round_hash = round_hash_nb(seed, round_index)
            stream_init_hashed_nb(states, round_hash, SEAT_STREAM_BASE, 4 * (SEAT0_STATE))
            stream_init_hashed_nb(states, round_hash, SEAT_STREAM_BASE + 1, 4 * (SEAT0_STATE + 1))
            other = 1 - dealer

            # 1. the yaku set
            choice = params[E.P_YAKU_SET_CHOICE]
            if choice == E.SET_FIXED_1:
                yaku_set = 1
            elif choice == E.SET_FIXED_2:
                yaku_set = 2
            elif choice == E.SET_RANDOM:
                stream_init_hashed_nb(states, round_hash, RULES_STREAM, 4 * (RULES_STATE))
                yaku_set = 1 + uniform_below_nb(states, 2, 4 * (RULES_STATE))
            elif choice == E.SET_ALTERNATE:
                yaku_set = 1 + alternate_index % 2
            else:
                if policy_ids[dealer] == E.POLICY_RANDOM:
                    yaku_set = 1 + uniform_below_nb(states, 2, 4 * (SEAT0_STATE + dealer))
                else:
                    yaku_set = policy_params[dealer, 0]
            s = yaku_set - 1

            # 2. the deal.  The reference engine shuffles the deck's first SHUFFLED_POSITIONS places.
            # With canonical slots (``staged``) this shuffles only the places a round can show first
            # (E.SEEN_SLOTS: the draw pile's last six are never turned), and the rest of the reference's
            # draws only before a redeal, so that the next deal starts at the same word of the deal
            # stream.  The stream is not used after the deal.
            staged = params[E.P_STAGED_DEAL] == 1
            direct = params[E.P_DIRECT_DEAL] == 1
            stream_init_hashed_nb(states, round_hash, DEAL_STREAM, 4 * (DEAL_STATE))
            redeals = np.int64(0)  # int64 from the start: a literal 0 would compile finish_round_nb twice
            while True:
                shuffle_seen_nb(states, ids)
                if not staged:
                    shuffle_rest_nb(states, ids)
                field = dealt_cards_nb(ids, deal_order, direct, 0, 9)
                # four of a rank on the field; and the ranks with three or more, from which an opening
                # claim can take (a superset: the six may leave the field first)
                four, claim_ranks = rank_counts(field, rank_mask, tables)
                if four and field_four == E.FIELD_FOUR_REDEAL and redeals < E.MAX_REDEALS:
                    if staged:
                        shuffle_rest_nb(states, ids)
                    redeals += 1
                    continue
                break
            hand0 = dealt_cards_nb(ids, deal_order, direct, 9, 9 + HAND_SIZE)
            hand1 = dealt_cards_nb(ids, deal_order, direct, 9 + HAND_SIZE, FIRST_DRAW_SLOT)
            if not direct:  # the draw pile in turn order at ids[DRAW_AT:] (else at FIRST_DRAW_SLOT)
                for di in range(TURNED_DRAWS):
                    ids[DRAW_AT + di] = ids[slot(deal_order[FIRST_DRAW_SLOT + di])]
            hands = (hand0, hand1) if dealer == 0 else (hand1, hand0)
            pile[0] = U0
            pile[1] = U0
            hand[0] = hands[0]
            hand[1] = hands[1]
            field_dealt = field
            hand_dealt0 = hand[0]
            hand_dealt1 = hand[1]

            # 3.-4. six on the field, opening claims
            if six_to_dealer and (field & six_bit):
                field &= ~six_bit
                pile[dealer] |= six_bit
            # Opening claims, in ascending rank, from the ranks found with the four-of-a-rank check
            # (usually none: no loop over the twelve ranks here).  A claim takes cards of its own rank
            # only, so it changes no other rank's count.
            claimed = U0
            while claim_ranks:
                r = lowest_id(claim_ranks)
                claim_ranks &= claim_ranks - U1
                on_field = field & rank_mask[r]
                count = popcount(on_field)
                if not (count == 3 or (count == 4 and field_four == E.FIELD_FOUR_OPENING)):
                    continue
                n_pairs = 0
                ids0 = on_field
                while ids0:
                    a = lowest_id(ids0)
                    ids0 &= ids0 - U1
                    ids1 = ids0
                    while ids1:
                        b = lowest_id(ids1)
                        ids1 &= ids1 - U1
                        ids[PAIR_A_AT + n_pairs] = a
                        ids[PAIR_B_AT + n_pairs] = b
                        n_pairs += 1
                pick = -1
                if policy_ids[dealer] == E.POLICY_RANDOM:
                    if uniform_below_nb(states, 2, 4 * (SEAT0_STATE + dealer)) != 0:
                        pick = uniform_below_nb(states, n_pairs, 4 * (SEAT0_STATE + dealer))
                else:
                    best_gain = 0
                    for dk in range(n_pairs):
                        g = greedy_gain_nb(pile[dealer], bit(ids[PAIR_A_AT + dk]) | bit(ids[PAIR_B_AT + dk]), s, yaku_mask, yaku_points,
                                        yaku_in_set, yaku_instant, supersedes, greedy_weight, card_value, chaff_mask)
                        if pick < 0 or g > best_gain:
                            pick = dk
                            best_gain = g
                if pick < 0:
                    continue
                m = bit(ids[PAIR_A_AT + pick]) | bit(ids[PAIR_B_AT + pick])
                field &= ~m
                claimed |= m
                pile[dealer] |= m
                if one_triple:
                    break
            first = other if claimed else dealer
            winner = -1
            if has_instant_nb(pile[dealer], s, yaku_mask, yaku_instant):
                winner = dealer

            # 5. banking the six
            if winner < 0 and bank_at_deal:
                for q in range(2):
                    seat = dealer if q == 0 else other
                    if hand[seat] & six_bit:
                        if policy_ids[seat] == E.POLICY_RANDOM:
                            bank = uniform_below_nb(states, 2, 4 * (SEAT0_STATE + seat)) == 1
                        else:
                            bank = True
                        if bank:
                            hand[seat] &= ~six_bit
                            pile[seat] |= six_bit
                for q in range(2):
                    seat = dealer if q == 0 else other
                    if winner < 0 and has_instant_nb(pile[seat], s, yaku_mask, yaku_instant):
                        winner = seat
            s = yaku_set - 1
            instant = winner >= 0

            # 6. turns.  Each seat keeps its hand, pile, policy kind and stream state in locals
            # (registers).  When both seats play at random, the loop body plays a turn of the seat that
            # moves first, then one of the other (each inlined, with no greedy code), so nothing changes
            # hands between turns.  Otherwise the seat to move (``c``) and the other (``o``) exchange
            # their locals at the end of each turn.  A seat whose hand is empty (only after a banked
            # six) is skipped: the other plays on alone.
            choice_counts = capture_choice_counts_nb(triple_all, capture_optional)
            instant_cards = instant_yaku_cards_nb(s, yaku_mask, yaku_instant)
            turn = 0
            draw_position = 0
            cur = first
            oth = 1 - first
            hc = hand[cur]
            pc = pile[cur]
            ho = hand[oth]
            po = pile[oth]
            rc = policy_ids[cur] == E.POLICY_RANDOM
            ro = policy_ids[oth] == E.POLICY_RANDOM
            at = 4 * (SEAT0_STATE + cur)
            cs = (states[at], states[at + 1], states[at + 2], states[at + 3])
            at = 4 * (SEAT0_STATE + oth)
            ost = (states[at], states[at + 1], states[at + 2], states[at + 3])
            if rc and ro and winner < 0:
                hc, pc, ho, po, field, turn, won_by = random_turns_nb(
                    hc, pc, ho, po, (pair(cs[0], ost[0]), pair(cs[1], ost[1]), pair(cs[2], ost[2]), pair(cs[3], ost[3])),
                    field, ids, draw_at, tables, choice_counts, instant_cards, six, triple_all, highest_value_first,
                    capture_optional, check_each_capture, s)
                if won_by >= 0:
                    winner = cur if won_by == 0 else oth
                    instant = True
            else:
                while winner < 0 and (hc | ho) != U0:
                    if hc == U0:  # only after a banked six: the other seat plays on alone
                        cur, oth, hc, ho, pc, po, rc, ro, cs, ost = oth, cur, ho, hc, po, pc, ro, rc, ost, cs
                    turn += 1
                    if rc:
                        card, cs = random_hand_card_nb(hc, cs)
                    else:
                        card = -1
                        best_gain = 0
                        rest = hc
                        while rest:
                            c = lowest_id(rest)
                            rest &= rest - U1
                            if c == six:
                                g = greedy_gain_nb(pc, bit(c), s, yaku_mask, yaku_points, yaku_in_set,
                                                yaku_instant, supersedes, greedy_weight, card_value, chaff_mask)
                            else:
                                n_opts = capture_options_nb(field & same_rank[slot(c)], opts, card_value,
                                                         highest_value_first, triple_all)
                                if n_opts == 0:
                                    g = greedy_placement_nb(c, s, yaku_mask, yaku_in_set, greedy_weight, card_value)
                                else:
                                    g = 0
                                    for j in range(n_opts):
                                        gk = greedy_gain_nb(pc, bit(c) | opts[j], s, yaku_mask, yaku_points,
                                                         yaku_in_set, yaku_instant, supersedes, greedy_weight,
                                                         card_value, chaff_mask)
                                        if j == 0 or gk > g:
                                            g = gk
                                    if capture_optional:
                                        gp = greedy_placement_nb(c, s, yaku_mask, yaku_in_set, greedy_weight, card_value)
                                        if gp > g:
                                            g = gp
                            if card < 0 or g > best_gain:
                                card = c
                                best_gain = g
                    hc, pc, cs, field, won = play_turn_nb(
                        card, hc, pc, rc, True, cs, field, ids[slot(draw_at + draw_position)],
                        choice_counts, instant_cards, opts, six, triple_all, highest_value_first,
                        capture_optional, check_each_capture, s, same_rank, yaku_mask, yaku_instant,
                        card_value, (yaku_points, yaku_in_set, supersedes, greedy_weight, chaff_mask))
                    draw_position += 1
                    if won:
                        winner = cur
                        instant = True
                        break
                    cur, oth, hc, ho, pc, po, rc, ro, cs, ost = oth, cur, ho, hc, po, pc, ro, rc, ost, cs
            pile[cur] = pc
            pile[oth] = po
            winner, score0, score1 = finish_round_nb(round_index, dealer, first, yaku_set, redeals, field_dealt, claimed,
                                   hand_dealt0, hand_dealt1, pile[0], pile[1], turn, winner, instant, params,
                                   yaku_mask, yaku_points, yaku_in_set, supersedes, chaff_mask, tables,
                                   n_planes, out_int, out_mask, row)
            if by_wins:
                if winner == 0:
                    points0 += 1
                elif winner == 1:
                    points1 += 1
            else:
                points0 += score0
                points1 += score1
            out_int[C_MATCH, row] = unit
            out_int[C_ROUND_IN_MATCH, row] = k
            out_int[C_MATCH_END, row] = 0
            out_int[E.C_MATCH_POINTS, row] = points0
            out_int[E.C_MATCH_POINTS + 1, row] = points1
            last_row = row
            if winner >= 0:
                dealer = winner
        out_int[C_MATCH_END, last_row] = 1
        for row in range(last_row + 1, (i + 1) * stride):
            out_int[C_VALID, row] = 0  # room for extra rounds left unused
