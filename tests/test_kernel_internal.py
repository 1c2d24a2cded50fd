"""``internal_nb`` (simcore/kernels/internal.py): a function only numba code calls is compiled
without the wrappers Python calls through, works from compiled callers, and refuses a Python
call in one clear error instead of crashing the process."""

import numba as nb
import numpy as np
import pytest

from simcore.kernels.internal import InternalDispatcher, internal_nb, python_entry


@internal_nb(_nrt=False)
def _sum_first(x, arrays):
    return x + arrays[0].sum() + arrays[1][0]


@nb.njit
def _caller(x, arrays):
    return 2 * _sum_first(x, arrays)


def test_a_compiled_caller_calls_it():
    arrays = (np.arange(4, dtype=np.int64), np.array([10], dtype=np.int64))
    assert _caller(1, arrays) == 2 * (1 + 6 + 10)


def test_python_cannot_call_it():
    arrays = (np.arange(4, dtype=np.int64), np.array([10], dtype=np.int64))
    with pytest.raises(TypeError, match=r"_sum_first is compiled for numba callers only"):
        _sum_first(1, arrays)


def test_the_state_machines_helpers_are_internal():
    from simcore.games.enshu import state_nb as enshu
    from simcore.games.koikoi import state_nb as koikoi
    from simcore.games.tensho import state_nb as tensho

    for function in (enshu.advance_nb, enshu.phase_score_nb, koikoi.start_nb, tensho.set_play_keys_nb):
        assert isinstance(function, InternalDispatcher), function


def test_python_entry_calls_it_from_python():
    arrays = (np.arange(4, dtype=np.int64), np.array([10], dtype=np.int64))
    assert python_entry(_sum_first)(1, arrays) == 1 + 6 + 10
