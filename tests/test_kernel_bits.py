"""The kernels' bit helpers: the k-th-card steps and their ``pdep`` form, and the field's rank
counts (four of a rank, the ranks an opening claim can take from) by loop and by nibbles, each
against plain Python where the compile target has a fast ``pdep``, and the choice between them."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from simcore.games.tensho import kernel_nb as T
from simcore.kernels import bits as B


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
    return B.kth_bit_steps(x, k, T.HAND_SIZE - 1), B.kth_id_steps(x, k)


@nb.njit(cache=False)
def _pdep(x, k):
    return B.kth_bit_pdep(x, k, T.HAND_SIZE - 1), B.kth_id_pdep(x, k)


@nb.njit(cache=False)
def _chosen(x, k):
    return B.kth_bit(x, k, T.HAND_SIZE - 1), B.kth_id(x, k)


def variants():
    out = [_steps]
    if B.FAST_PDEP:
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
    assert (B.kth_bit is B.kth_bit_pdep) == B.FAST_PDEP
    assert (B.kth_id is B.kth_id_pdep) == B.FAST_PDEP
    assert (T.rank_counts is T.rank_counts_pdep_nb) == B.FAST_PDEP
    mask = (1 << 40) | (1 << 7) | (1 << 3)
    assert tuple(int(v) for v in _chosen(np.uint64(mask), 1)) == (1 << 7, 7)


@nb.njit(cache=False)
def _rank_counts(variant_pdep, field, rank, rank_mask):
    tables = np.zeros(T.TABLES_SIZE, dtype=np.uint64)
    T.fill_card_tables_nb(rank, rank_mask, np.zeros(64, dtype=np.int32), np.zeros(1, dtype=np.uint64),
                       np.zeros((2, 1), dtype=np.int32), np.zeros(1, dtype=np.uint64),
                       np.zeros(2, dtype=np.uint64), tables)
    if variant_pdep:
        four, ranks = T.rank_counts_pdep_nb(field, rank_mask, tables)
    else:
        four, ranks = T.rank_counts_loop_nb(field, rank_mask, tables)
    return four, ranks, tables[T.RANK_NIBBLES_AT + 1]


def deck(ranks_in_id_order: list[int]) -> tuple[np.ndarray, np.ndarray]:
    rank = np.zeros(64, dtype=np.int8)
    rank[: len(ranks_in_id_order)] = ranks_in_id_order
    rank_mask = np.zeros(13, dtype=np.uint64)
    for card, r in enumerate(ranks_in_id_order):
        rank_mask[r] |= np.uint64(1 << card)
    return rank, rank_mask


def python_rank_counts(field: int, ranks_in_id_order: list[int]) -> tuple[bool, int]:
    counts = [0] * 13
    for card, r in enumerate(ranks_in_id_order):
        counts[r] += field >> card & 1
    return 4 in counts[1:], sum(1 << r for r in range(1, 13) if counts[r] >= 3)


# the Tensho deck (rank 6 a single card), and a made-up deck whose ids do not ascend by rank
TENSHO_RANKS = [r for r in range(1, 13) for _ in range(1 if r == 6 else 4)]
SHUFFLED_RANKS = [r for _ in range(4) for r in range(1, 13) if r != 6] + [6]


@pytest.mark.parametrize("ranks", [TENSHO_RANKS, SHUFFLED_RANKS], ids=["tensho", "unsorted"])
@pytest.mark.slow
def test_rank_counts_match_python(ranks):
    rank, rank_mask = deck(ranks)
    rng = np.random.default_rng(20261201)
    fields = [0, (1 << 45) - 1, 0b1111, 0b0111 << 4, (0b1111 << 21) | 0b1110]
    fields += [sum(1 << int(i) for i in rng.choice(45, size=n, replace=False))
               for n in (9, 9, 12, 20, 30) for _ in range(60)]
    variants = [False, True] if B.FAST_PDEP else [False]
    claims = fours = 0
    for field in fields:
        expected = python_rank_counts(field, ranks)
        for variant in variants:
            four, claim_ranks, spread = _rank_counts(variant, np.uint64(field), rank, rank_mask)
            assert (bool(four), int(claim_ranks)) == expected, (hex(field), variant)
        claims += expected[1] != 0
        fours += expected[0]
    assert claims > 50 and fours > 10
    # the nibble layout exists exactly for a deck whose card ids ascend by rank
    assert (int(spread) != 0) == (ranks is TENSHO_RANKS)


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
    assert B._target_has_fast_pdep() is fast
