"""``simcore.kernels.stack.roomy``: calls through a frame that reserves frame-stack room."""

import sys

import pytest

from simcore.kernels import stack


def test_roomy_returns_the_call_and_passes_arguments():
    assert stack.roomy(divmod, 17, 5) == (3, 2)


def test_roomy_raises_the_call_s_exception():
    def fail(message):
        raise ValueError(message)

    with pytest.raises(ValueError, match="no room"):
        stack.roomy(fail, "no room")


def test_reserved_frame_gets_a_chunk_of_512_kb_with_the_documented_room():
    # CPython 3.11's push_chunk: 16 KB doubled until it holds the frame plus 1,000 slots.
    framesize = stack._roomy_call.__code__.co_stacksize
    assert framesize == stack.RESERVED_SLOTS
    chunk = 16 * 1024
    while chunk < 8 * (framesize + 1000):
        chunk *= 2
    assert chunk == 512 * 1024
    assert stack.ROOM_SLOTS == chunk // 8 - framesize >= 30_000


def test_deep_recursion_inside_roomy_still_works():
    def depth(n):
        return 0 if n == 0 else 1 + depth(n - 1)

    limit = sys.getrecursionlimit()
    assert stack.roomy(depth, min(limit - 100, 900)) == min(limit - 100, 900)


def _caller_name():
    return sys._getframe(1).f_code.co_name


def test_a_nested_roomy_call_uses_the_outer_room():
    """Inside a roomy call, roomy calls straight through (no second reserve, no chunk mapped per
    call); outside, through the reserving frame; after an exception the next call reserves again."""
    assert stack.roomy(_caller_name) == "_call"  # the reserving frame's code
    assert stack.roomy(lambda: stack.roomy(_caller_name)) == "roomy"  # called by roomy itself

    def fail():
        raise ValueError("inner")

    with pytest.raises(ValueError):
        stack.roomy(lambda: stack.roomy(fail))
    assert stack.roomy(_caller_name) == "_call"


def test_roomy_room_is_per_thread():
    import threading

    seen = []

    def other_thread():
        seen.append(stack.roomy(_caller_name))

    def outer():
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()

    stack.roomy(outer)
    assert seen == ["_call"]
