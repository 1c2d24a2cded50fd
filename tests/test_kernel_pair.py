"""The two-lane vector helpers of the Tensho kernel (``simcore.kernels.pair``) against the
pure-Python stream, and the lane-by-lane draw of ``tensho_nb.hand_draws`` against the seat-by-seat
draws of ``random_hand_card``."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from simcore.games.tensho import kernel_nb as T
from simcore.kernels.pair import bounded_products, lane, pair, with_lane, xoshiro_pair
from simcore.rng import Stream


@nb.njit(cache=False)
def _steps(a, b, bounds_a, bounds_b, out):
    s0, s1, s2, s3 = pair(a[0], b[0]), pair(a[1], b[1]), pair(a[2], b[2]), pair(a[3], b[3])
    for i in range(out.shape[0]):
        words, s0, s1, s2, s3 = xoshiro_pair(s0, s1, s2, s3)
        products = bounded_products(words, pair(bounds_a[i], bounds_b[i]))
        out[i, 0] = lane(words, 0)
        out[i, 1] = lane(words, 1)
        out[i, 2] = lane(products, 0)
        out[i, 3] = lane(products, 1)


@pytest.mark.slow
def test_both_lanes_step_like_two_streams():
    a, b = Stream(7, 3, 16), Stream(7, 3, 17)
    n = 200
    rng = np.random.default_rng(5)
    bounds_a = rng.integers(1, 1 << 32, n, dtype=np.uint64)
    bounds_b = rng.integers(1, 46, n, dtype=np.uint64)
    out = np.zeros((n, 4), dtype=np.uint64)
    _steps(np.array(a.s, dtype=np.uint64), np.array(b.s, dtype=np.uint64), bounds_a, bounds_b, out)
    for i in range(n):
        word_a, word_b = a.next_u64(), b.next_u64()
        assert (int(out[i, 0]), int(out[i, 1])) == (word_a, word_b), i
        assert int(out[i, 2]) == (word_a >> 32) * int(bounds_a[i]), i
        assert int(out[i, 3]) == (word_b >> 32) * int(bounds_b[i]), i


@nb.njit(cache=False)
def _lanes(x, y, z):
    v = pair(x, y)
    return lane(v, 0), lane(v, 1), lane(with_lane(v, 0, z), 0), lane(with_lane(v, 1, z), 1), lane(with_lane(v, 1, z), 0)


def test_lane_reads_and_replaces_one_lane():
    x, y, z = np.uint64(1 << 63 | 5), np.uint64(9), np.uint64(12345)
    assert [int(v) for v in _lanes(x, y, z)] == [int(x), int(y), int(z), int(z), int(x)]


@nb.njit(cache=False)
def _hand_draws(a, b, nc, no):
    v0, v1, v2, v3 = pair(a[0], b[0]), pair(a[1], b[1]), pair(a[2], b[2]), pair(a[3], b[3])
    kc, ko, v0, v1, v2, v3 = T.hand_draws_nb(nc, no, v0, v1, v2, v3)
    after = np.empty(8, dtype=np.uint64)
    for i, v in enumerate((v0, v1, v2, v3)):
        after[i] = lane(v, 0)
        after[4 + i] = lane(v, 1)
    return kc, ko, after


def python_hand_draw(stream: Stream, n: int) -> int:
    return stream.uniform_below(n) if n >= 2 else 0


@pytest.mark.slow
def test_hand_draws_equal_seat_by_seat_draws():
    """Every pair of hand sizes a pass can see, a banked six's unequal hands and empty hands
    among them, over many streams: the draws and both streams' states afterwards."""
    for round_index in range(300):
        for nc in range(-1, 7):
            for no in (nc - 1, nc, nc + 1):
                a, b = Stream(3, round_index, 16), Stream(3, round_index, 17)
                kc, ko, after = _hand_draws(np.array(a.s, dtype=np.uint64), np.array(b.s, dtype=np.uint64), nc, no)
                assert (kc, ko) == (python_hand_draw(a, nc), python_hand_draw(b, no)), (round_index, nc, no)
                assert [int(w) for w in after] == a.s + b.s, (round_index, nc, no)


def state_with_first_word(word: int, others: tuple[int, int, int]) -> list[int]:
    """xoshiro256** words whose first output is ``word``: the output is ``rotl(s1 * 5, 7) * 9``,
    and 5 and 9 are invertible modulo 2**64."""
    m = (1 << 64) - 1
    x = word * pow(9, -1, 1 << 64) & m
    x = ((x >> 7) | (x << 57)) & m
    return [others[0], x * pow(5, -1, 1 << 64) & m, others[1], others[2]]


OTHERS = (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB)


def test_hand_draws_take_the_rejection_path_exactly():
    """A word whose high half is 0 leaves a low product below any bound: Lemire's method must
    test it, and for a bound of 5 reject it (threshold 2**32 mod 5 = 1) and draw again.  The
    lane-by-lane path must consume the stream exactly so, in either lane."""
    for word, bound in ((0x00000000_DEADBEEF, 5), (0x00000000_00000001, 6), (1 << 32, 3)):
        for lane_index in (0, 1):
            rejecting = Stream(1, 2, 16)
            rejecting.s = state_with_first_word(word, OTHERS)
            assert rejecting.next_u64() == word
            rejecting.s = state_with_first_word(word, OTHERS)
            drawn_before = rejecting.draws
            plain = Stream(4, 5, 17)
            a, b = (rejecting, plain) if lane_index == 0 else (plain, rejecting)
            kc, ko, after = _hand_draws(np.array(a.s, dtype=np.uint64), np.array(b.s, dtype=np.uint64),
                                        bound, bound)
            assert (kc, ko) == (a.uniform_below(bound), b.uniform_below(bound)), (hex(word), lane_index)
            assert [int(w) for w in after] == a.s + b.s, (hex(word), lane_index)
            if word >> 32 == 0 and bound == 5:
                assert rejecting.draws - drawn_before == 2  # the rejection really happened
