"""Counter-based random streams, shared bit for bit by the reference engine and the kernels.

A stream is identified by ``(seed, round, stream_id)`` (guarantees 1 and 2 of docs/guarantees.md):
its xoshiro256** state is derived by SplitMix64 hashing of the three numbers, so the numbers a round
draws never depend on any other round, on thread count or on chunking.

Stream ids:

* ``DEAL_STREAM`` (0): the shuffle (and every reshuffle of a redeal) of a round;
* ``RULES_STREAM`` (1): random choices that the rules themselves make (e.g. a random yaku set);
* ``seat_stream(seat)`` (16 + seat): every decision of the policy sitting in ``seat``.

Each stream yields 64-bit words (xoshiro256**). ``uniform_below(n)`` draws an exactly uniform
integer in ``[0, n)`` from the high 32 bits of one word (Lemire's multiply-shift with rejection,
so it is unbiased); the kernel twin consumes the words identically.

``shuffle_places`` (every shuffle of both games) takes its Fisher-Yates draws in batches: the
draws of consecutive places whose ranges multiply to at most ``BATCH_LIMIT`` come from one word,
digit by digit (multiply the word by a range; the high half of the 128-bit product is the draw,
the low half is multiplied by the next range).  That is Lemire's method applied once to the product of
the ranges, with the same rejection test, so every draw is exactly uniform and independent of the
others; a rejected word (probability below 2**-32) is replaced whole.  A batch's draws form one
short chain of multiplications, and a 45-card deal takes 7 words instead of 39.

Two implementations live here: ``Stream`` (pure Python, used by the reference engine) and the
``*_nb`` functions (numba, used by the kernels), which keep the state in a ``uint64[4]`` array.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from simcore.kernels.bits import lowest_id
from simcore.kernels.internal import internal_nb

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
    "shuffled_ids_nb",
    "BATCH_LIMIT",
    "batch_layout",
    "mul_wide_nb",
    "batch_steps_nb",
    "shuffle_places_nb",
]

DEAL_STREAM = 0
RULES_STREAM = 1
SEAT_STREAM_BASE = 16

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB


BATCH_LIMIT = 1 << 32  # the ranges of a batch of shuffle draws multiply to at most this


def seat_stream(seat: int) -> int:
    """The stream id of the policy sitting in ``seat``."""
    return SEAT_STREAM_BASE + seat


def batch_layout(n: int, start: int, stop: int) -> tuple[tuple[int, int, int], ...]:
    """The batches of ``shuffle_places(ids, start, stop)`` on ``n`` ids: ``(first, end,
    product)`` for places ``first .. end - 1``, whose ranges ``n - first .. n - end + 1`` multiply
    to ``product <= BATCH_LIMIT``; each batch is as long as that allows.  The last place of a
    deck (range 1) needs no draw and is left out."""
    batches = []
    place = start
    stop = min(stop, n - 1)
    while place < stop:
        product = 1
        end = place
        while end < stop and product * (n - end) <= BATCH_LIMIT:
            product *= n - end
            end += 1
        batches.append((place, end, product))
        place = end
    return tuple(batches)


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

    def copy(self) -> Stream:
        """An independent copy that goes on drawing the same numbers."""
        other = Stream.__new__(Stream)
        other.s = list(self.s)
        other.draws = self.draws
        return other

    def next_u64(self) -> int:
        """The stream's next 64-bit word (xoshiro256**), as a Python int."""
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

    def shuffle_places(self, ids: list[int], start: int, stop: int) -> None:
        """Fisher-Yates steps for places ``start .. stop - 1`` of ``ids`` in place: place ``i``
        swaps with ``i + d``, ``d`` uniform in ``[0, len(ids) - i)``, the draws taken in the
        batches of ``batch_layout`` (one word each; see the module docstring)."""
        n = len(ids)
        for first, end, product in batch_layout(n, start, stop):
            while True:
                low = self.next_u64()
                digits = []
                for i in range(first, end):
                    low *= n - i
                    digits.append(low >> 64)
                    low &= MASK64
                # Lemire's test on the whole product: reject when low < 2**64 mod product
                if low >= (1 << 64) % product:
                    break
            for i, digit in zip(range(first, end), digits, strict=True):
                j = i + digit
                ids[i], ids[j] = ids[j], ids[i]


# --- numba twins ---------------------------------------------------------------------------

_U32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _words(context, builder, signature, args):
    """An intrinsic's integer arguments converted to uint64 as ``np.uint64(x)`` converts them."""
    return [context.cast(builder, value, numba_type, types.uint64)
            for value, numba_type in zip(args, signature.args, strict=True)]


def _const(value: int) -> ir.Constant:
    """A uint64 constant as LLVM IR."""
    return ir.Constant(ir.IntType(64), _signed64(value & MASK64))


def _rotl_ir(builder, x, k: int):
    return builder.or_(builder.shl(x, _const(k)), builder.lshr(x, _const(64 - k)))


def _finalise_ir(builder, z):
    """SplitMix64's finaliser on an LLVM i64."""
    z = builder.mul(builder.xor(z, builder.lshr(z, _const(30))), _const(MIX1))
    z = builder.mul(builder.xor(z, builder.lshr(z, _const(27))), _const(MIX2))
    return builder.xor(z, builder.lshr(z, _const(31)))


# The generators' steps are intrinsics, numba's way of writing a function's LLVM code directly:
# a call is typed in one step and emits the same instructions the numba code did, where an
# ``inline="always"`` function is translated from bytecode again at each of its call sites (the
# kernels have hundreds: a good part of a first compile's time).


@intrinsic
def _mix_nb(typingctx, value):
    """SplitMix64 on a uint64: ``value`` plus the golden gamma, then its finaliser."""
    if not isinstance(value, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        (z,) = _words(context, builder, signature, args)
        return _finalise_ir(builder, builder.add(z, _const(GOLDEN)))

    return types.uint64(types.unliteral(value)), codegen


@nb.njit(inline="always", cache=True)
def round_hash_nb(seed, round_index):
    """The part of a stream's derivation shared by all streams of one round."""
    return _mix_nb(_mix_nb(np.uint64(seed)) ^ np.uint64(round_index))


@intrinsic
def _mix_four_nb(typingctx, x):
    """``(_mix_nb(x), _mix_nb(x + G), _mix_nb(x + 2G), _mix_nb(x + 3G))``, G the golden gamma:
    a stream's four state words, computed in the four lanes of one vector.  AVX2 has no 64-bit
    multiply; LLVM builds each lane's from 32-bit ones, and all that still takes fewer
    instructions than the four words one after another."""
    sig = types.UniTuple(types.uint64, 4)(types.uint64)

    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        i64 = ir.IntType(64)
        vec = ir.VectorType(i64, 4)

        def lanes(*values):
            return ir.Constant(vec, [ir.Constant(i64, _signed64(v)) for v in values])

        def splat(value):
            return lanes(value, value, value, value)

        z = builder.insert_element(ir.Constant(vec, ir.Undefined), args[0], ir.Constant(i32, 0))
        z = builder.shuffle_vector(z, ir.Constant(vec, ir.Undefined),
                                   ir.Constant(ir.VectorType(i32, 4), [0] * 4))  # x in every lane
        z = builder.add(z, lanes(*((k * GOLDEN) & MASK64 for k in (1, 2, 3, 4))))
        z = builder.xor(z, builder.lshr(z, splat(30)))
        z = builder.mul(z, splat(MIX1))
        z = builder.xor(z, builder.lshr(z, splat(27)))
        z = builder.mul(z, splat(MIX2))
        z = builder.xor(z, builder.lshr(z, splat(31)))
        words = [builder.extract_element(z, ir.Constant(i32, k)) for k in range(4)]
        return context.make_tuple(builder, signature.return_type, words)

    return sig, codegen


@nb.njit(inline="always", cache=True)
def stream_init_hashed_nb(state, round_hash, stream_id, at=0):
    """``stream_init_nb`` from ``round_hash_nb(seed, round_index)``."""
    state[at], state[at + 1], state[at + 2], state[at + 3] = _mix_four_nb(
        _mix_nb(round_hash ^ np.uint64(stream_id)))


@nb.njit(inline="always", cache=True)
def stream_init_nb(state, seed, round_index, stream_id, at=0):
    """Fill ``state[at:at + 4]`` for stream ``(seed, round_index, stream_id)``.

    Every ``*_nb`` function takes the four state words at offset ``at`` of a flat uint64 array,
    so that a kernel can keep all its streams in one array and select one by offset: slicing
    out a row instead creates an array view, whose reference counting costs atomic operations.
    """
    stream_init_hashed_nb(state, round_hash_nb(seed, round_index), stream_id, at)


@intrinsic
def _xoshiro_nb(typingctx, s0, s1, s2, s3):
    """One xoshiro256** step: ``(word, s0, s1, s2, s3)`` with the state advanced."""
    if not all(isinstance(word, types.Integer) for word in (s0, s1, s2, s3)):
        return None

    def codegen(context, builder, signature, args):
        s0, s1, s2, s3 = _words(context, builder, signature, args)
        result = builder.mul(_rotl_ir(builder, builder.mul(s1, _const(5)), 7), _const(9))
        t = builder.shl(s1, _const(17))
        s2 = builder.xor(s2, s0)
        s3 = builder.xor(s3, s1)
        s1 = builder.xor(s1, s2)
        s0 = builder.xor(s0, s3)
        s2 = builder.xor(s2, t)
        s3 = _rotl_ir(builder, s3, 45)
        return context.make_tuple(builder, signature.return_type, (result, s0, s1, s2, s3))

    words = tuple(types.unliteral(word) for word in (s0, s1, s2, s3))
    return types.UniTuple(types.uint64, 5)(*words), codegen


@nb.njit(inline="always", cache=True)
def next_u64_nb(state, at=0):
    result, state[at], state[at + 1], state[at + 2], state[at + 3] = _xoshiro_nb(
        state[at], state[at + 1], state[at + 2], state[at + 3])
    return result


@nb.njit(inline="always", cache=True)
def draw_below_nb(s0, s1, s2, s3, n):
    """``uniform_below`` on a state held in four words: ``(value, s0, s1, s2, s3)``.

    The one implementation of Lemire's method for single draws in the kernels
    (``uniform_below_nb`` calls it; shuffles draw in batches).  For ``n >= 2`` the value and
    the advanced state are those of ``Stream.uniform_below(n)``.  For ``n`` of 0 or 1 the value
    is 0 but the state returned is still advanced: a caller may compute the draw unconditionally
    and keep the new state only when ``n >= 2`` (a select instead of a branch).
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


@intrinsic
def mul_wide_nb(typingctx, a, b):
    """The 128-bit product of two uint64 as ``(high, low)`` words (one MUL or MULX)."""
    sig = types.UniTuple(types.uint64, 2)(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        high = builder.trunc(builder.lshr(product, ir.Constant(i128, 64)), ir.IntType(64))
        low = builder.trunc(product, ir.IntType(64))
        return context.make_tuple(builder, signature.return_type, (high, low))

    return sig, codegen


@nb.njit(inline="always", cache=True)
def _batch_swaps_nb(word, ids, n, first, end, base):
    """Places ``first .. end - 1`` of the ``n`` ids at ``ids[base:]`` swapped with the digits of
    ``word``; returns the low word left after the last digit (what Lemire's test looks at)."""
    low = word
    for i in range(first, end):
        digit, low = mul_wide_nb(low, np.uint64(n - i))
        j = base + i + np.int64(digit)
        swap = ids[base + i]
        ids[base + i] = ids[j]
        ids[j] = swap
    return low


@nb.njit(inline="always", cache=True)
def batch_steps_nb(s0, s1, s2, s3, ids, n, first, end, product):
    """One batch of ``Stream.shuffle_places``, places ``first .. end - 1`` (ranges multiplying to
    ``product``), swapped as the digits come: ``(s0, s1, s2, s3, rejected)``.

    Without a branch on the rejection test: when ``rejected`` (probability below 2**-32) the
    swaps made are wrong, and the caller must shuffle again from the state before the batch
    (``shuffle_places_nb``).  With constant arguments each place is a multiplication, two loads
    and two stores."""
    word, s0, s1, s2, s3 = _xoshiro_nb(s0, s1, s2, s3)
    low = _batch_swaps_nb(word, ids, n, first, end, 0)
    uproduct = np.uint64(product)
    return s0, s1, s2, s3, low < (np.uint64(0) - uproduct) % uproduct


@nb.njit(inline="always", cache=True)
def shuffle_places_nb(s0, s1, s2, s3, ids, n, start, stop, base=0):
    """``Stream.shuffle_places`` on the ``n`` ids at ``ids[base:]`` from the state ``s0 .. s3``:
    returns the advanced state.  A call of ``_shuffle_places_nb``, compiled apart (the Tensho
    kernel inlines ``batch_steps_nb`` for its usual shuffles and calls this for the rare ones),
    with every count an int64: numba compiles a called function again for each new combination
    of constant arguments (``shuffle_places_nb(..., 45, 0, 39)`` and ``(..., 45, 39, 44)`` would
    be two compilations), and these casts make it one."""
    return _shuffle_places_nb(s0, s1, s2, s3, ids, np.int64(n), np.int64(start), np.int64(stop),
                              np.int64(base))


@nb.njit(inline="always", cache=True)
def shuffled_ids_nb(mask, ids, states, at):
    """The ids of the cards of ``mask`` written to ``ids`` in ascending order, then shuffled in
    place by ``Stream.shuffle_places`` over every place but the last from the stream at
    ``states[at:at + 4]`` (advanced): how a game's ``sample_hidden`` deals the unseen cards
    anew. Returns how many (int64)."""
    n = 0
    rest = np.uint64(mask)
    while rest:
        ids[n] = lowest_id(rest)
        rest &= rest - np.uint64(1)
        n += 1
    states[at], states[at + 1], states[at + 2], states[at + 3] = shuffle_places_nb(
        states[at], states[at + 1], states[at + 2], states[at + 3], ids, n, 0, max(n - 1, 0), 0)
    return n


@internal_nb(cache=True, _nrt=False)
def _shuffle_places_nb(s0, s1, s2, s3, ids, n, start, stop, base):
    """``shuffle_places_nb``'s work (one compilation per type of ``ids``)."""
    stop = min(stop, n - 1)
    first = start
    while first < stop:
        product = np.uint64(1)
        end = first
        while end < stop and product * np.uint64(n - end) <= np.uint64(BATCH_LIMIT):
            product *= np.uint64(n - end)
            end += 1
        threshold = (np.uint64(0) - product) % product
        while True:
            word, s0, s1, s2, s3 = _xoshiro_nb(s0, s1, s2, s3)
            low = word
            for i in range(first, end):
                digit, low = mul_wide_nb(low, np.uint64(n - i))
            if low >= threshold:
                break
        _batch_swaps_nb(word, ids, n, first, end, base)
        first = end
    return s0, s1, s2, s3
