"""Counter-based random streams, shared bit for bit by the reference engine and the kernels.

A stream is identified by ``(seed, round, stream_id)`` (DESIGN.md invariants 1 and 2): its
xoshiro256** state is derived by SplitMix64 hashing of the three numbers, so the numbers a round
draws never depend on any other round, on thread count or on chunking.

Stream ids:

* ``DEAL_STREAM`` (0): the shuffle (and every reshuffle of a redeal) of a round;
* ``RULES_STREAM`` (1): random choices that the rules themselves make (e.g. a random yaku set);
* ``seat_stream(seat)`` (16 + seat): every decision of the policy sitting in ``seat``.

Each stream yields 64-bit words (xoshiro256**). ``uniform_below(n)`` draws an exactly uniform
integer in ``[0, n)`` from the high 32 bits of one word (Lemire's multiply-shift with rejection,
so it is unbiased); the kernel twin consumes the words identically.

Two implementations live here: ``Stream`` (pure Python, used by the reference engine) and the
``*_nb`` functions (numba, used by the kernels), which keep the state in a ``uint64[4]`` array.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = [
    "DEAL_STREAM",
    "RULES_STREAM",
    "SEAT_STREAM_BASE",
    "seat_stream",
    "Stream",
    "stream_init_nb",
    "round_hash_nb",
    "stream_init_hashed_nb",
    "next_u64_nb",
    "uniform_below_nb",
    "shuffle_places_nb",
    "shuffle_prefix_nb",
]

DEAL_STREAM = 0
RULES_STREAM = 1
SEAT_STREAM_BASE = 16

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB


def seat_stream(seat: int) -> int:
    return SEAT_STREAM_BASE + seat


# --- pure Python ---------------------------------------------------------------------------


def _mix(value: int) -> int:
    """SplitMix64: advance by the golden gamma and finalise."""
    z = (value + GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK64


def stream_state(seed: int, round_index: int, stream_id: int) -> list[int]:
    """The four xoshiro256** state words of stream ``(seed, round_index, stream_id)``."""
    h = _mix(seed & MASK64)
    h = _mix(h ^ (round_index & MASK64))
    h = _mix(h ^ (stream_id & MASK64))
    state = []
    x = h
    for _ in range(4):
        state.append(_mix(x))
        x = (x + GOLDEN) & MASK64
    return state


class Stream:
    """A pure-Python xoshiro256** stream; the reference engine's source of randomness."""

    __slots__ = ("s", "draws")

    def __init__(self, seed: int, round_index: int, stream_id: int) -> None:
        self.s = stream_state(seed, round_index, stream_id)
        self.draws = 0

    def next_u64(self) -> int:
        s0, s1, s2, s3 = self.s
        result = (_rotl((s1 * 5) & MASK64, 7) * 9) & MASK64
        t = (s1 << 17) & MASK64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = _rotl(s3, 45)
        self.s = [s0, s1, s2, s3]
        self.draws += 1
        return result

    def uniform_below(self, n: int) -> int:
        """An exactly uniform integer in ``[0, n)``, ``1 <= n < 2**32``."""
        if n == 1:
            return 0  # no draw: a forced choice consumes nothing (the kernel does the same)
        product = (self.next_u64() >> 32) * n
        low = product & 0xFFFFFFFF
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                product = (self.next_u64() >> 32) * n
                low = product & 0xFFFFFFFF
        return product >> 32


# --- numba twins ---------------------------------------------------------------------------

_U_GOLDEN = np.uint64(GOLDEN)
_U_MIX1 = np.uint64(MIX1)
_U_MIX2 = np.uint64(MIX2)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U17 = np.uint64(17)
_U5 = np.uint64(5)
_U9 = np.uint64(9)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@nb.njit(inline="always", cache=True)
def _mix_nb(value):
    z = value + _U_GOLDEN
    z = (z ^ (z >> _U30)) * _U_MIX1
    z = (z ^ (z >> _U27)) * _U_MIX2
    return z ^ (z >> _U31)


@nb.njit(inline="always", cache=True)
def _rotl_nb(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@nb.njit(inline="always", cache=True)
def round_hash_nb(seed, round_index):
    """The part of a stream's derivation shared by all streams of one round."""
    return _mix_nb(_mix_nb(np.uint64(seed)) ^ np.uint64(round_index))


@nb.njit(inline="always", cache=True)
def stream_init_hashed_nb(state, round_hash, stream_id, at=0):
    """``stream_init_nb`` from ``round_hash_nb(seed, round_index)``."""
    x = _mix_nb(round_hash ^ np.uint64(stream_id))
    for i in range(4):
        state[at + i] = _mix_nb(x)
        x = x + _U_GOLDEN


@nb.njit(inline="always", cache=True)
def stream_init_nb(state, seed, round_index, stream_id, at=0):
    """Fill ``state[at:at + 4]`` for stream ``(seed, round_index, stream_id)``.

    Every ``*_nb`` function takes the four state words at offset ``at`` of a flat uint64 array,
    so that a kernel can keep all its streams in one array and select one by offset: slicing
    out a row instead creates an array view, whose reference counting costs atomic operations.
    """
    stream_init_hashed_nb(state, round_hash_nb(seed, round_index), stream_id, at)


@nb.njit(inline="always", cache=True)
def _xoshiro_nb(s0, s1, s2, s3):
    """One xoshiro256** step: ``(word, s0, s1, s2, s3)`` with the state advanced."""
    result = _rotl_nb(s1 * _U5, 7) * _U9
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl_nb(s3, 45)
    return result, s0, s1, s2, s3


@nb.njit(inline="always", cache=True)
def next_u64_nb(state, at=0):
    result, state[at], state[at + 1], state[at + 2], state[at + 3] = _xoshiro_nb(
        state[at], state[at + 1], state[at + 2], state[at + 3])
    return result


@nb.njit(inline="always", cache=True)
def draw_below_nb(s0, s1, s2, s3, n):
    """``uniform_below`` on a state held in four words: ``(value, s0, s1, s2, s3)``.

    The one implementation of Lemire's method in the kernels (``uniform_below_nb`` and
    ``shuffle_prefix_nb`` call it).  For ``n >= 2`` the value and the advanced state are those of
    ``Stream.uniform_below(n)``.  For ``n`` of 0 or 1 the value is 0 but the state returned is
    still advanced: a caller may compute the draw unconditionally and keep the new state only
    when ``n >= 2`` (a select instead of a branch).
    """
    un = np.uint64(n)
    word, s0, s1, s2, s3 = _xoshiro_nb(s0, s1, s2, s3)
    product = (word >> _U32) * un
    if (product & _LOW32) < un:  # rare (probability n / 2**32): Lemire's rejection test
        threshold = (_TWO32 - un) % un
        while (product & _LOW32) < threshold:
            word, s0, s1, s2, s3 = _xoshiro_nb(s0, s1, s2, s3)
            product = (word >> _U32) * un
    return np.int64(product >> _U32), s0, s1, s2, s3


@nb.njit(inline="always", cache=True)
def uniform_below_nb(state, n, at=0):
    """Exactly uniform int in ``[0, n)``; consumes words exactly as ``Stream.uniform_below``."""
    if n == 1:
        return 0
    value, state[at], state[at + 1], state[at + 2], state[at + 3] = draw_below_nb(
        state[at], state[at + 1], state[at + 2], state[at + 3], n)
    return value


@nb.njit(inline="always", cache=True)
def shuffle_places_nb(state, ids, n, start, stop, at=0):
    """Fisher-Yates steps for places ``start .. stop - 1`` of ``ids[:n]``.

    Place ``i`` swaps with ``i + uniform_below_nb(state, n - i)``: the words consumed and the
    result are exactly those of such a loop.  Unlike that loop, which reloads the state from
    memory at every draw (the stores into ``ids`` might alias it), this keeps the generator state
    in registers for the whole range.  Places ``0 .. stop - 1`` are final after it: a caller may
    shuffle a prefix in stages, reading places as soon as their stage is done.
    """
    s0 = state[at]
    s1 = state[at + 1]
    s2 = state[at + 2]
    s3 = state[at + 3]
    for i in range(start, stop):
        if n - i == 1:
            break  # the last place: uniform_below(1) is 0 and draws nothing
        k, s0, s1, s2, s3 = draw_below_nb(s0, s1, s2, s3, n - i)
        j = i + k
        swap = ids[i]
        ids[i] = ids[j]
        ids[j] = swap
    state[at] = s0
    state[at + 1] = s1
    state[at + 2] = s2
    state[at + 3] = s3


@nb.njit(inline="always", cache=True)
def shuffle_prefix_nb(state, ids, n, positions, at=0):
    """Fill ``ids[:n]`` with ``0 .. n-1`` and Fisher-Yates shuffle its first ``positions`` places
    (``shuffle_places_nb`` from place 0)."""
    for i in range(n):
        ids[i] = i
    shuffle_places_nb(state, ids, n, 0, positions, at)
