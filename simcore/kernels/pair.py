"""Two uint64 lanes in one vector register, for the kernels' hot loops.

``U64x2`` is a numba type whose LLVM form is ``<2 x i64>``: a value of it lives in one SSE
register, not in two general-purpose ones.  The Tensho kernel keeps its two random seats'
xoshiro256** states in four of them during the turn loop (lane 0 the seat that moves first,
lane 1 the other), which leaves the general registers to the cards, and steps both generators
with one set of vector instructions.

Only what that loop needs is here: building a pair, reading and replacing one lane, the
xoshiro256** step on both lanes, and the 32 x 32-bit product of Lemire's bounded draw.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic, models, register_model

__all__ = ["U64x2", "u64x2", "pair", "lane", "with_lane", "xoshiro_pair", "bounded_products"]

_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_VEC = ir.VectorType(_I64, 2)


class U64x2(types.Type):
    """Two uint64 lanes in one ``<2 x i64>`` value."""

    def __init__(self) -> None:
        super().__init__(name="u64x2")


u64x2 = U64x2()


@register_model(U64x2)
class _U64x2Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _VEC)


def _splat(value: int) -> ir.Constant:
    return ir.Constant(_VEC, [ir.Constant(_I64, value), ir.Constant(_I64, value)])


def _rotl(builder, x, k: int):
    return builder.or_(builder.shl(x, _splat(k)), builder.lshr(x, _splat(64 - k)))


@intrinsic
def pair(typingctx, a, b):
    """The pair ``(a, b)`` of two uint64."""
    sig = u64x2(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        v = builder.insert_element(ir.Constant(_VEC, ir.Undefined), args[0], ir.Constant(_I32, 0))
        return builder.insert_element(v, args[1], ir.Constant(_I32, 1))

    return sig, codegen


@intrinsic
def lane(typingctx, v, index):
    """Lane ``index`` (0 or 1) of ``v``."""
    sig = types.uint64(u64x2, index)

    def codegen(context, builder, signature, args):
        return builder.extract_element(args[0], builder.trunc(args[1], _I32))

    return sig, codegen


@intrinsic
def with_lane(typingctx, v, index, x):
    """``v`` with lane ``index`` (0 or 1) replaced by ``x``."""
    sig = u64x2(u64x2, index, types.uint64)

    def codegen(context, builder, signature, args):
        return builder.insert_element(args[0], args[2], builder.trunc(args[1], _I32))

    return sig, codegen


@intrinsic
def xoshiro_pair(typingctx, s0, s1, s2, s3):
    """One xoshiro256** step in both lanes: ``(words, s0, s1, s2, s3)``, lane by lane equal to
    ``simcore.rng._xoshiro_nb``."""
    sig = types.UniTuple(u64x2, 5)(u64x2, u64x2, u64x2, u64x2)

    def codegen(context, builder, signature, args):
        s0, s1, s2, s3 = args
        five = builder.add(builder.shl(s1, _splat(2)), s1)
        rotated = _rotl(builder, five, 7)
        word = builder.add(builder.shl(rotated, _splat(3)), rotated)
        t = builder.shl(s1, _splat(17))
        s2 = builder.xor(s2, s0)
        s3 = builder.xor(s3, s1)
        s1 = builder.xor(s1, s2)
        s0 = builder.xor(s0, s3)
        s2 = builder.xor(s2, t)
        s3 = _rotl(builder, s3, 45)
        return context.make_tuple(builder, signature.return_type, [word, s0, s1, s2, s3])

    return sig, codegen


@intrinsic
def bounded_products(typingctx, words, bounds):
    """Lane by lane, the high 32 bits of ``words`` times the low 32 bits of ``bounds``: the
    64-bit product of Lemire's method (one ``pmuludq``)."""
    sig = u64x2(u64x2, u64x2)

    def codegen(context, builder, signature, args):
        high = builder.lshr(args[0], _splat(32))
        low = builder.and_(args[1], _splat(0xFFFFFFFF))
        return builder.mul(high, low)

    return sig, codegen
