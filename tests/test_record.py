"""``simcore.record``: the engines' output matrices, padded so a row's columns share no cache set."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simcore import record
from simcore.games import game_of
from simcore.policies import parse_policy
from simcore.rules import load_rules


@given(st.integers(min_value=0, max_value=10**9))
def test_padded_rows_is_an_odd_number_of_cache_lines_above_the_rows(rows):
    stride = record.padded_rows(rows)
    assert rows < stride <= rows + record.PADDING_ROWS
    assert stride % 8 == 0 and (stride // 8) % 2 == 1  # 64-byte lines, an odd count of them


def test_the_padded_stride_spreads_a_row_over_every_cache_set():
    """With the stride of 2**18 rows (a row shard), 64 columns of one row fall in 64 different
    64-byte sets of a 4 KiB page (the row stride itself would put them all in one)."""
    rows = 1 << 18
    offsets = {(column * record.padded_rows(rows) * 8) % 4096 // 64 for column in range(64)}
    assert len(offsets) == 64
    assert len({(column * rows * 8) % 4096 // 64 for column in range(64)}) == 1


@pytest.mark.parametrize("rules", ["tensho-ise", "enshu-w"])
@pytest.mark.parametrize("engine", ["kernel", "reference"])
def test_engines_return_views_of_the_rows_played_in_padded_buffers(rules, engine):
    """Both engines return int64[n_int, rows] and uint64[n_mask, rows] whose columns are
    contiguous and whose stride is the padded one, within reused buffers, and the same rows as
    into fresh matrices."""
    compiled_rules = load_rules(rules)
    game = game_of(compiled_rules)
    compiled = game.compile(compiled_rules)
    specs = [parse_policy("random", game.name)] * game.players(compiled)
    rows = 24
    buffers = game.output_buffers(rows)
    ints, masks = game.play_units(engine, compiled, specs, 3, 0, rows, None, out=buffers)
    assert ints.shape == (game.n_int, rows) and masks.shape == (game.n_mask, rows)
    assert ints.strides == (record.padded_rows(rows) * 8, 8) and masks.strides == (record.padded_rows(rows) * 8, 8)
    assert np.shares_memory(ints, buffers[0]) and np.shares_memory(masks, buffers[1])
    assert all(ints[k].flags.c_contiguous for k in range(game.n_int))
    fresh = game.play_units(engine, compiled, specs, 3, 0, rows, None)
    assert np.array_equal(ints, fresh[0]) and np.array_equal(masks, fresh[1])


def test_buffers_too_small_for_the_padded_rows_are_refused():
    ints, masks = record.output_buffers(10, 3, 2)
    record.output_matrices(10, (ints, masks), 3, 2)
    rows = 11 + record.PADDING_ROWS  # its padded stride is more than the buffers' 26 rows a column
    with pytest.raises(ValueError, match=f"fewer than {rows} rows"):
        record.output_matrices(rows, (ints, masks), 3, 2)


def test_whole_gives_the_c_contiguous_padded_matrix_behind_a_view():
    ints, masks = record.output_matrices(100, record.output_buffers(100, 3, 2), 3, 2)
    ints[:] = np.arange(ints.size).reshape(ints.shape)
    view, _ = record.played(ints, masks, 100)
    full = record.whole(view)
    assert full.flags.c_contiguous and full.shape == (3, record.padded_rows(100))
    assert np.shares_memory(full, ints) and np.array_equal(full[:, :100], view)
    assert record.whole(ints) is ints  # already C-contiguous
    with pytest.raises(ValueError, match="not a view of an engine's output matrix"):
        record.whole(ints[:, ::2])
