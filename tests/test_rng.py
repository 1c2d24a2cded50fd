"""The numba random streams against their pure-Python twins (DESIGN.md invariant 3)."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from simcore.rng import (
    Stream,
    draw_below_nb,
    next_u64_nb,
    shuffle_places_nb,
    shuffle_prefix_nb,
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
def _shuffle(seed, round_index, n, first, positions):
    # in two stages: places 0 .. first - 1, then first .. positions - 1
    state = np.empty(4, dtype=np.uint64)
    stream_init_nb(state, seed, round_index, 0)
    ids = np.empty(n, dtype=np.int64)
    shuffle_prefix_nb(state, ids, n, first)
    shuffle_places_nb(state, ids, n, first, positions)
    return ids, next_u64_nb(state)


@pytest.mark.parametrize("seed, round_index, stream_id", [(0, 0, 0), (1, 7, 16), (2**64 - 1, 123456789, 17)])
def test_bounded_draws_match_the_python_stream(seed, round_index, stream_id):
    # Bounds near 2**32 make Lemire's rejection step fire often; bound 1 draws nothing.
    rng = np.random.default_rng(seed % 1000)
    bounds = np.concatenate([rng.integers(1, 50, 200), rng.integers(2**31, 2**32 - 1, 200), [1, 1, 2]])
    got = _draws(np.uint64(seed), np.int64(round_index), np.int64(stream_id), bounds.astype(np.int64))
    stream = Stream(seed, round_index, stream_id)
    expected = [stream.uniform_below(int(n)) for n in bounds] + [stream.next_u64()]
    assert [int(x) for x in got] == expected


@pytest.mark.parametrize("seed, round_index, stream_id", [(0, 0, 0), (3, 9, 16), (2**64 - 1, 987654321, 17)])
def test_register_draws_match_the_python_stream(seed, round_index, stream_id):
    # As above, including bounds 0 and 1 (value 0, state not kept) between real draws.
    rng = np.random.default_rng(seed % 1000 + 1)
    bounds = np.concatenate([rng.integers(0, 7, 300), rng.integers(2**31, 2**32 - 1, 200), [0, 1, 2]])
    got = _register_draws(np.uint64(seed), np.int64(round_index), np.int64(stream_id), bounds.astype(np.int64))
    stream = Stream(seed, round_index, stream_id)
    expected = [stream.uniform_below(int(n)) if n >= 1 else 0 for n in bounds] + [stream.next_u64()]
    assert [int(x) for x in got] == expected


@pytest.mark.parametrize("n, first, positions",
                         [(45, 39, 39), (45, 33, 39), (45, 0, 33), (48, 47, 47), (48, 40, 48), (7, 0, 0)])
def test_shuffle_prefix_equals_a_loop_of_bounded_draws(n, first, positions):
    # a prefix shuffled in two stages is the prefix shuffled at once, and leaves the same state
    for round_index in range(200):
        ids, after = _shuffle(np.uint64(5), np.int64(round_index), n, first, positions)
        stream = Stream(5, round_index, 0)
        expected = list(range(n))
        for i in range(positions):
            j = i + stream.uniform_below(n - i)
            expected[i], expected[j] = expected[j], expected[i]
        assert ids.tolist() == expected
        assert int(after) == stream.next_u64()
