"""Bit helpers shared by every game's kernel: popcount, lowest set bit, the k-th card of a mask,
BMI2 ``pdep``/``pext`` where the target has a fast one, and the value of a set of cards.
``U0`` and ``U1`` are uint64 0 and 1, for the kernels' mask arithmetic.

Cards are bits (guarantee 5 of docs/guarantees.md): a set of cards is a uint64 mask, bit ``i`` card id ``i``.
Every helper compiles into its caller as if written there.  The one-instruction ones
(``popcount``, ``lowest_id``, ``bit``, ``slot``) are ``@intrinsic``: numba types a call by one
function call and emits the instruction, where an ``inline="always"`` function is translated
from bytecode again at each of its thousands of call sites (a good part of a first compile);
the others are ``inline="always"``.

numba's cache keys a kernel on its own file only: after editing this module, clear the kernels'
cache (``simcore/kernels/__pycache__`` and the games' ``__pycache__``, or ``NUMBA_CACHE_DIR``)
before measuring, or a cached kernel keeps the old helpers.
This module imports only numpy, numba and llvmlite.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = [
    "FAST_PDEP",
    "U0",
    "U1",
    "bit",
    "kth_bit",
    "kth_bit_pdep",
    "kth_bit_steps",
    "kth_id",
    "kth_id_pdep",
    "kth_id_steps",
    "lowest_id",
    "mask_value",
    "pop_lowest",
    "popcount",
    "slot",
    "table_sum",
]

U0 = np.uint64(0)
U1 = np.uint64(1)


def _integer(numba_type) -> bool:
    return isinstance(numba_type, (types.Integer, types.Boolean))


def _as_uint64(context, builder, signature, args):
    """The intrinsic's one argument converted to uint64 as ``np.uint64(x)`` converts it."""
    return context.cast(builder, args[0], signature.args[0], types.uint64)


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of an integer taken as uint64 (one POPCNT where the CPU has it)."""
    if not _integer(x):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(_as_uint64(context, builder, signature, args))

    return types.int64(types.unliteral(x)), codegen


@intrinsic
def lowest_id(typingctx, x):
    """Index of the lowest set bit of a mask (64 for zero): LLVM ``cttz``."""
    if not _integer(x):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(_as_uint64(context, builder, signature, args), ir.Constant(ir.IntType(1), 0))

    return types.int64(types.unliteral(x)), codegen


@intrinsic
def slot(typingctx, index):
    """A non-negative array index as unsigned: numba then omits its negative-index fix-up
    (three or four instructions per access with a signed index it cannot prove non-negative)."""
    if not _integer(index):
        return None
    return types.uint64(types.unliteral(index)), _as_uint64


@intrinsic
def bit(typingctx, card):
    """The mask of card ``card``: ``1 << card`` as uint64."""
    if not _integer(card):
        return None

    def codegen(context, builder, signature, args):
        return builder.shl(ir.Constant(ir.IntType(64), 1), _as_uint64(context, builder, signature, args))

    return types.uint64(types.unliteral(card)), codegen


KIND_SHIFT = 56  # an action's key, in every game: its decision kind << KIND_SHIFT | its payload
PAYLOAD_MASK = (1 << KIND_SHIFT) - 1


@nb.njit(inline="always", cache=True)
def key_of_nb(kind, payload):
    """The action key of ``payload`` in a decision of ``kind`` (int64)."""
    return (np.int64(kind) << KIND_SHIFT) | np.int64(payload)


@nb.njit(inline="always", cache=True)
def ubit_nb(card):
    """The mask of card ``card`` as an int64 (``bit``: as a uint64)."""
    return np.int64(1) << np.int64(card)


def _target_has_fast_pdep() -> bool:
    """Whether numba compiles for a CPU with a fast BMI2 ``pdep``: one instruction of three
    cycles on Intel since Haswell and on AMD since Zen 3, but microcode taking tens to hundreds of
    cycles on Zen 1 and 2.  Read from numba's own target (``NUMBA_CPU_NAME`` and
    ``NUMBA_CPU_FEATURES`` when set, else the host), which numba's cache also keys on, so a cached
    kernel never runs on a target it was not compiled for."""
    try:
        import llvmlite.binding as llvm
        from numba.core import config
        from numba.core.codegen import get_host_cpu_features

        name = config.CPU_NAME or llvm.get_host_cpu_name()
        features = config.CPU_FEATURES if config.CPU_FEATURES is not None else get_host_cpu_features()
    except Exception:  # an unexpected numba layout: take the portable path
        return False
    return "+bmi2" in features.split(",") and name not in ("znver1", "znver2", "generic", "")


FAST_PDEP = _target_has_fast_pdep()


def _bmi2(name: str):
    """The signature and code generator of BMI2 instruction ``name`` (``pdep`` or ``pext``) on
    two uint64, for an ``@intrinsic`` (only compiled where ``FAST_PDEP``)."""
    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i64]),
                                            f"llvm.x86.bmi.{name}.64")
        return builder.call(fn, args)

    return types.uint64(types.uint64, types.uint64), codegen


@intrinsic
def _pdep64(typingctx, source, mask):
    """BMI2 ``pdep``: the low bits of ``source`` deposited, in order, at the set bits of
    ``mask``."""
    return _bmi2("pdep")


@intrinsic
def _pext64(typingctx, source, mask):
    """BMI2 ``pext``: the bits of ``source`` at the set bits of ``mask``, packed, in order, into
    the low bits."""
    return _bmi2("pext")


@nb.njit(inline="always", cache=True)
def kth_bit_steps(x, k, steps):
    """The k-th (0-based) lowest set bit of ``x`` as a mask (0 if ``x`` has k bits or fewer),
    for ``k <= steps``: a fixed number of branch-free steps, ``steps`` a small constant."""
    for j in range(steps):
        x &= x - np.uint64(j < k)
    return x & (U0 - x)


@nb.njit(inline="always", cache=True)
def kth_bit_pdep(x, k, steps):
    """``kth_bit_steps`` in one ``pdep`` of bit ``k`` into ``x`` (only where ``FAST_PDEP``)."""
    return _pdep64(U1 << np.uint64(k), x)


@nb.njit(inline="always", cache=True)
def kth_id_steps(x, k):
    """The k-th (0-based) card id of a mask in ascending order (64 if it has k cards or fewer)."""
    for _ in range(k):
        x &= x - U1
    return lowest_id(x)


@nb.njit(inline="always", cache=True)
def kth_id_pdep(x, k):
    """``kth_id_steps`` in one ``pdep`` (only where ``FAST_PDEP``)."""
    return lowest_id(_pdep64(U1 << np.uint64(k), x))


# the k-th card of a hand or of a capture's matches: on the hot path of every random choice
kth_bit = kth_bit_pdep if FAST_PDEP else kth_bit_steps
kth_id = kth_id_pdep if FAST_PDEP else kth_id_steps


@nb.njit(inline="always", cache=True)
def pop_lowest(mask):
    """``(id, rest)``: the lowest card id of a nonempty uint64 ``mask``, and the mask without it."""
    return lowest_id(mask), mask & (mask - U1)


@nb.njit(inline="always", cache=True)
def mask_value(mask, card_value):
    total = 0
    while mask:
        i = lowest_id(mask)
        mask &= mask - U1
        total += card_value[i]
    return total


@nb.njit(inline="always", cache=True)
def table_sum(mask, table, base):
    """The sum of ``table[base + i]`` over the card ids ``i`` of ``mask`` (an int64 mask, as a
    state machine's tables hold them)."""
    total = np.int64(0)
    while mask:
        i = lowest_id(mask)
        mask &= mask - 1
        total += table[base + i]
    return total
