"""The kernels' k-th-card helpers: the branch-free steps and the ``pdep`` form (where the compile
target has a fast ``pdep``) both against plain Python, and the choice between them."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from simcore.kernels import tensho_nb as T


def python_kth(mask: int, k: int) -> int | None:
    """The k-th lowest set bit's index, or None when ``mask`` has k set bits or fewer."""
    ids = [i for i in range(64) if mask >> i & 1]
    return ids[k] if k < len(ids) else None


def masks() -> list[int]:
    rng = np.random.default_rng(20261130)
    out = [1, 1 << 44, (1 << 45) - 1, 0b1011010, (1 << 63) | 1]
    for n_bits in (2, 6, 9, 21):
        for _ in range(40):
            out.append(sum(1 << int(i) for i in rng.choice(45, size=n_bits, replace=False)))
    return out


@nb.njit(cache=False)
def _steps(x, k):
    return T.kth_bit_steps(x, k, T.HAND_SIZE - 1), T.kth_id_steps(x, k)


@nb.njit(cache=False)
def _pdep(x, k):
    return T.kth_bit_pdep(x, k, T.HAND_SIZE - 1), T.kth_id_pdep(x, k)


@nb.njit(cache=False)
def _chosen(x, k):
    return T.kth_bit(x, k, T.HAND_SIZE - 1), T.kth_id(x, k)


def variants():
    out = [_steps]
    if T.FAST_PDEP:
        out.append(_pdep)
    return out


@pytest.mark.parametrize("variant", variants(), ids=lambda f: f.__name__.strip("_"))
def test_kth_card_matches_python(variant):
    checked = 0
    for mask in masks():
        for k in range(min(T.HAND_SIZE, bin(mask).count("1") + 1)):
            expected = python_kth(mask, k)
            got_bit, got_id = variant(np.uint64(mask), k)
            if expected is None:  # k beyond the mask: no bit, and id 64
                assert (int(got_bit), int(got_id)) == (0, 64), (hex(mask), k)
            else:
                assert int(got_bit) == 1 << expected, (hex(mask), k)
                assert int(got_id) == expected, (hex(mask), k)
            checked += 1
    assert checked > 500


def test_the_kernels_use_pdep_exactly_where_the_target_has_it_fast():
    assert (T.kth_bit is T.kth_bit_pdep) == T.FAST_PDEP
    assert (T.kth_id is T.kth_id_pdep) == T.FAST_PDEP
    mask = (1 << 40) | (1 << 7) | (1 << 3)
    assert tuple(int(v) for v in _chosen(np.uint64(mask), 1)) == (1 << 7, 7)


@pytest.mark.parametrize(
    ("name", "features", "fast"),
    [
        ("znver3", "+64bit,+bmi,+bmi2,+popcnt", True),
        ("haswell", "+bmi2,+avx2", True),
        ("znver2", "+bmi,+bmi2", False),  # microcoded pdep
        ("znver1", "+bmi2", False),
        ("znver3", "+bmi,-bmi2", False),
        ("generic", "+bmi2", False),  # the real processor is unknown
        ("neoverse-n1", "+neon", False),
    ],
)
def test_fast_pdep_is_decided_from_numbas_target(monkeypatch, name, features, fast):
    from numba.core import config

    monkeypatch.setattr(config, "CPU_NAME", name)
    monkeypatch.setattr(config, "CPU_FEATURES", features)
    assert T._target_has_fast_pdep() is fast
