"""The numba random streams against their pure-Python twins (guarantee 3 of docs/guarantees.md)."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from simcore.games.tensho import enums as E
from simcore.games.tensho.kernel_nb import DEAL_STATE, DECK_SIZE, shuffle_seen_nb
from simcore.rng import (
    BATCH_LIMIT,
    MASK64,
    Stream,
    batch_layout,
    draw_below_nb,
    next_u64_nb,
    shuffle_places_nb,
    stream_init_nb,
    uniform_below_nb,
)


@nb.njit(cache=True)
def _draws(seed, round_index, stream_id, bounds):
    state = np.empty(4, dtype=np.uint64)
    stream_init_nb(state, seed, round_index, stream_id)
    out = np.empty(bounds.size + 1, dtype=np.uint64)
    for k in range(bounds.size):
        out[k] = np.uint64(uniform_below_nb(state, bounds[k]))
    out[bounds.size] = next_u64_nb(state)  # where the stream stands afterwards
    return out


@nb.njit(cache=True)
def _register_draws(seed, round_index, stream_id, bounds):
    """``draw_below_nb`` on a state held in four words, the new state kept only when n >= 2 (the
    Tensho kernel draws only when there is a choice, with the same effect)."""
    state = np.empty(4, dtype=np.uint64)
    stream_init_nb(state, seed, round_index, stream_id)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    out = np.empty(bounds.size + 1, dtype=np.uint64)
    for k in range(bounds.size):
        value, t0, t1, t2, t3 = draw_below_nb(s0, s1, s2, s3, bounds[k])
        if bounds[k] >= 2:
            s0, s1, s2, s3 = t0, t1, t2, t3
        out[k] = np.uint64(value)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    out[bounds.size] = next_u64_nb(state)
    return out


@nb.njit(cache=True)
def _shuffle(state, n, stages):
    # Stream.shuffle_places from ``state`` over places stages[k] .. stages[k + 1] - 1, in turn
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    ids = np.arange(n)
    for k in range(stages.size - 1):
        s0, s1, s2, s3 = shuffle_places_nb(s0, s1, s2, s3, ids, n, stages[k], stages[k + 1])
    after = np.array([s0, s1, s2, s3])
    return ids, next_u64_nb(after)


@nb.njit(cache=True)
def _shuffle_seen(state):
    # the Tensho kernel's unrolled deal shuffle (places 0 .. SEEN_SLOTS - 1)
    states = np.zeros(16, dtype=np.uint64)
    states[4 * DEAL_STATE:4 * DEAL_STATE + 4] = state
    ids = np.empty(DECK_SIZE, dtype=np.int64)
    shuffle_seen_nb(states, ids)
    return ids, next_u64_nb(states, 4 * DEAL_STATE)


def _state(seed, round_index):
    return np.array(Stream(seed, round_index, 0).s, dtype=np.uint64)


def _python_shuffle(state, n, stages):
    stream = Stream(0, 0, 0)
    stream.s = [int(x) for x in state]
    ids = list(range(n))
    for start, stop in zip(stages[:-1], stages[1:], strict=True):
        stream.shuffle_places(ids, start, stop)
    return ids, stream


@pytest.mark.parametrize("seed, round_index, stream_id", [(0, 0, 0), (1, 7, 16), (2**64 - 1, 123456789, 17)])
@pytest.mark.slow
def test_bounded_draws_match_the_python_stream(seed, round_index, stream_id):
    # Bounds near 2**32 make Lemire's rejection step fire often; bound 1 draws nothing.
    rng = np.random.default_rng(seed % 1000)
    bounds = np.concatenate([rng.integers(1, 50, 200), rng.integers(2**31, 2**32 - 1, 200), [1, 1, 2]])
    got = _draws(np.uint64(seed), np.int64(round_index), np.int64(stream_id), bounds.astype(np.int64))
    stream = Stream(seed, round_index, stream_id)
    expected = [stream.uniform_below(int(n)) for n in bounds] + [stream.next_u64()]
    assert [int(x) for x in got] == expected


@pytest.mark.parametrize("seed, round_index, stream_id", [(0, 0, 0), (3, 9, 16), (2**64 - 1, 987654321, 17)])
@pytest.mark.slow
def test_register_draws_match_the_python_stream(seed, round_index, stream_id):
    # As above, including bounds 0 and 1 (value 0, state not kept) between real draws.
    rng = np.random.default_rng(seed % 1000 + 1)
    bounds = np.concatenate([rng.integers(0, 7, 300), rng.integers(2**31, 2**32 - 1, 200), [0, 1, 2]])
    got = _register_draws(np.uint64(seed), np.int64(round_index), np.int64(stream_id), bounds.astype(np.int64))
    stream = Stream(seed, round_index, stream_id)
    expected = [stream.uniform_below(int(n)) if n >= 1 else 0 for n in bounds] + [stream.next_u64()]
    assert [int(x) for x in got] == expected


@pytest.mark.parametrize("n, stages", [(45, [0, 33, 39]), (45, [0, 39]), (45, [0, 45]), (48, [0, 48]),
                                       (48, [0, 40, 47]), (14, [0, 3, 14]), (2, [0, 2]), (7, [0, 0])])
def test_shuffle_places_matches_the_python_stream(n, stages):
    # in one stage or several, the kernels' shuffle is the reference's, and leaves the same state
    for round_index in range(200):
        state = _state(5, round_index)
        ids, after = _shuffle(state, n, np.array(stages, dtype=np.int64))
        expected, stream = _python_shuffle(state, n, stages)
        assert ids.tolist() == expected
        assert int(after) == stream.next_u64()


@nb.njit(cache=True)
def _shuffle_within(state, cards, base, n):
    s0, s1, s2, s3 = shuffle_places_nb(state[0], state[1], state[2], state[3], cards, n, 0, n, base)
    return next_u64_nb(np.array([s0, s1, s2, s3]))


@pytest.mark.slow
def test_a_shuffle_at_an_offset_touches_only_its_cards():
    # Enshu-bana reshuffles its draw pile where it lies in the card array
    for round_index in range(50):
        state = _state(3, round_index)
        cards = np.arange(100, 170)
        after = _shuffle_within(state, cards, 20, 31)
        expected, stream = _python_shuffle(state, 31, [0, 31])
        assert cards[20:51].tolist() == [100 + 20 + x for x in expected]
        assert cards[:20].tolist() == list(range(100, 120)) and cards[51:].tolist() == list(range(151, 170))
        assert int(after) == stream.next_u64()


@pytest.mark.slow
def test_the_unrolled_deal_shuffle_matches_the_python_stream():
    for round_index in range(500):
        state = _state(11, round_index)
        ids, after = _shuffle_seen(state)
        expected, stream = _python_shuffle(state, DECK_SIZE, [0, E.SEEN_SLOTS])
        assert ids.tolist() == expected
        assert int(after) == stream.next_u64()


def _with_word(state, word):
    """``state`` with its second word replaced so that the next output is ``word``: xoshiro256**
    outputs rotl(s1 * 5, 7) * 9, which is invertible."""
    inverse9 = pow(9, -1, 1 << 64)
    inverse5 = pow(5, -1, 1 << 64)
    rotated = (word * inverse9) & MASK64
    s1 = ((((rotated >> 7) | (rotated << 57)) & MASK64) * inverse5) & MASK64
    out = state.copy()
    out[1] = s1
    return out


@pytest.mark.parametrize("places", [(0, 33), (33, 39)])
@pytest.mark.slow
def test_a_rejected_word_is_replaced_whole(places):
    # A first word of 0 leaves the low product 0, below 2**64 mod P for the first batch: the
    # batch is drawn from the next word, in both engines.  (Probability below 2**-32 otherwise.)
    start, stop = places
    first_batch = batch_layout(DECK_SIZE, start, stop)[0]
    assert (1 << 64) % first_batch[2] > 0
    for round_index in range(20):
        state = _with_word(_state(13, round_index), 0)
        probe = Stream(0, 0, 0)
        probe.s = [int(x) for x in state]
        assert probe.next_u64() == 0
        expected, stream = _python_shuffle(state, DECK_SIZE, [start, stop])
        assert stream.draws == len(batch_layout(DECK_SIZE, start, stop)) + 1
        next_word = stream.next_u64()
        ids, after = _shuffle(state, DECK_SIZE, np.array([start, stop], dtype=np.int64))
        assert ids.tolist() == expected
        assert int(after) == next_word
        if start == 0:  # the unrolled deal shuffle takes its slow path
            ids, after = _shuffle_seen(state)
            assert ids.tolist() == expected
            assert int(after) == next_word


def test_batch_layout():
    for n in (2, 7, 14, 45, 48, 64):
        for start, stop in ((0, n), (0, n // 2), (n // 3, n), (1, 1)):
            batches = batch_layout(n, start, stop)
            places = [p for first, end, _ in batches for p in range(first, end)]
            assert places == list(range(start, min(stop, n - 1)))
            for first, end, product in batches:
                ranges = [n - p for p in range(first, end)]
                assert product == np.prod(ranges, dtype=object) and product <= BATCH_LIMIT
                if end < min(stop, n - 1):  # each batch as long as the limit allows
                    assert product * (n - end) > BATCH_LIMIT
    # the Tensho deal: places 0..32, then 33..38, in 7 words (39 draws)
    assert len(batch_layout(45, 0, E.SEEN_SLOTS)) + len(batch_layout(45, E.SEEN_SLOTS, 39)) == 7


@pytest.mark.slow
def test_batched_draws_are_uniform_across_a_batch_boundary():
    # 14 ids: places 0..9 share a word, 10..12 the next.  The pair of cards at places 9 and 10
    # takes each of its 182 values equally often (chi-square, 181 degrees of freedom: mean 181,
    # standard deviation 19; 300 is beyond six of them).
    assert [b[:2] for b in batch_layout(14, 0, 14)] == [(0, 10), (10, 13)]
    counts = {}
    draws = 36400
    for r in range(draws):
        stream = Stream(17, r, 0)
        ids = list(range(14))
        stream.shuffle_places(ids, 0, 14)
        assert sorted(ids) == list(range(14))
        counts[(ids[9], ids[10])] = counts.get((ids[9], ids[10]), 0) + 1
    assert len(counts) == 14 * 13
    expected = draws / (14 * 13)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 300
