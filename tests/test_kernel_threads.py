"""The kernels' thread pool (``simcore.kernels.threads``): spans cover the units in order, each
exactly once, and rows do not depend on the number of threads or how the units are split."""

from __future__ import annotations

import time

import numba
import numpy as np
import pytest

from simcore.games import get_game
from simcore.kernels.threads import (
    MIN_SPAN_UNITS,
    SLOW_SPANS_PER_THREAD,
    SPANS_PER_THREAD,
    in_threads,
    spans,
)
from simcore.policies import parse_policy
from simcore.rules import load_rules


@pytest.mark.parametrize(("n_units", "threads"), [(1, 2), (63, 2), (64, 1), (1000, 2), (100_003, 2), (7, 8)])
@pytest.mark.parametrize(("min_span", "per_thread"), [(MIN_SPAN_UNITS, SPANS_PER_THREAD), (1, SLOW_SPANS_PER_THREAD)])
def test_spans_cover_every_unit_once_in_order(n_units, threads, min_span, per_thread):
    parts = spans(n_units, threads, min_span, per_thread)
    assert parts[0][0] == 0 and parts[-1][1] == n_units
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:], strict=False))
    assert all(hi > lo for lo, hi in parts)
    assert len(parts) == max(1, min(threads * per_thread, n_units // min_span))


def test_an_error_in_a_span_reaches_the_caller():
    def play(lo, hi):
        if lo > 0:
            raise ValueError(f"span {lo}")

    previous = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        with pytest.raises(ValueError, match="span"):
            in_threads(play, 10_000)
    finally:
        numba.set_num_threads(previous)


@pytest.mark.parametrize("rules", ["tensho-ise", "enshu-c"])
def test_one_and_two_threads_write_the_same_rows(rules):
    game = get_game(load_rules(rules).game)
    compiled = game.compile(load_rules(rules))
    specs = [parse_policy("greedy" if s == 1 else "random", game.name) for s in range(game.players(compiled))]
    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = game.play_units("kernel", compiled, specs, 11, 5, 3000, None)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = game.play_units("kernel", compiled, specs, 11, 5, 3000, None)
    finally:
        numba.set_num_threads(previous)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))


def test_the_head_span_is_played_alone_before_the_threads_share_the_rest():
    events = []

    def play(lo, hi):
        events.append(("start", lo, hi))
        time.sleep(0.01)
        events.append(("end", lo, hi))

    previous = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        in_threads(play, 10_000)
    finally:
        numba.set_num_threads(previous)
    assert events[:2] == [("start", 0, MIN_SPAN_UNITS), ("end", 0, MIN_SPAN_UNITS)]
    played = sorted((lo, hi) for kind, lo, hi in events if kind == "start")
    assert played[0] == (0, MIN_SPAN_UNITS) and played[-1][1] == 10_000
    assert all(a[1] == b[0] for a, b in zip(played, played[1:], strict=False))


def test_one_thread_plays_every_unit_in_one_call():
    calls = []
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        in_threads(lambda lo, hi: calls.append((lo, hi)), 10_000)
    finally:
        numba.set_num_threads(previous)
    assert calls == [(0, 10_000)]
