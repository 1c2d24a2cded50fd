"""Room on the interpreter's frame stack for numba's compiler: ``roomy(fn, *args)``.

CPython 3.11 and 3.12 keep Python frames in 16 KB chunks that are allocated with ``mmap`` when a
call does not fit in the current chunk and released with ``munmap`` as soon as that call returns
(CPython issue gh-142183, fixed in later 3.13 and 3.14 releases).  numba's compiler calls small
functions millions of times; when those calls sit at a chunk's edge, every call maps and unmaps
a chunk: a first Tensho run spent 7 of its 28 seconds in the kernel doing that (``strace -c``:
about 970,000 ``mmap``/``munmap`` pairs of 16 KB).

``roomy`` calls ``fn`` from a frame that reserves a large evaluation stack it never uses.  The
interpreter then places that frame at the start of a fresh chunk of 512 KB (it sizes a chunk for
the frame plus room for 1,000 more slots, rounded up to a power of two), and the compiler's
calls, nested inside, find ``ROOM_SLOTS`` free slots there: no chunk is mapped or unmapped while
it works.  The pages of the chunk that are never touched cost no memory.  On interpreters that
do not keep frames this way the reserve is only a large number in a code object.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["ROOM_SLOTS", "RESERVED_SLOTS", "roomy"]

T = TypeVar("T")

# (RESERVED_SLOTS + 1000) * 8 bytes is just over 256 KB, so the chunk is 512 KB: 65,536 slots,
# of which ROOM_SLOTS are left for the frames of the calls made inside (a numba compile nests a
# few hundred frames of at most a few dozen slots each).
RESERVED_SLOTS = 32_000
ROOM_SLOTS = 65_536 - RESERVED_SLOTS


def _call(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


_roomy_call = types.FunctionType(_call.__code__.replace(co_stacksize=RESERVED_SLOTS), _call.__globals__,
                                 "_roomy_call")


_inside = threading.local()


def roomy(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, called from a frame that leaves ``ROOM_SLOTS`` of frame stack free above it.

    Inside another ``roomy`` call of the same thread ``fn`` is called directly: the outer frame's
    room is above it already, and a second reserve would map a chunk of its own on every call
    (tens of microseconds: a loop that calls a kernel thousands of times runs inside one
    ``roomy`` call instead).
    """
    if getattr(_inside, "depth", 0):
        return fn(*args)
    _inside.depth = 1
    try:
        return _roomy_call(fn, *args)
    finally:
        _inside.depth = 0
