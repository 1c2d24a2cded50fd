"""Interval methods: known values, coverage simulation studies, and the exact aggregates."""

from __future__ import annotations

import json
import math

import numpy as np
import pyarrow as pa
import pytest
from conftest_analysis import Z95, wilson_by_hand

from analysis.accumulate import BitCounter, IntegerHistogram
from analysis.intervals import (
    holm_adjusted,
    mcnemar_test,
    mean_interval,
    small_rate_sample,
    wilson_interval,
    z_value,
)
from analysis.rescore import sum_over_mask
from analysis.summary_io import summarise_run
from analysis.tables import outcomes_by_seat, score_distribution
from simcore.dataset import write_shard
from simcore.games.tensho.record import LAYOUT

CONFIDENCE = 0.95


# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table II, method 3
# (Wilson score, no continuity correction): published 95 % bounds to four decimals.
NEWCOMBE_CASES = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
]
# Two-sided standard normal quantiles from a printed table.
Z90, Z99 = 1.6448536269514722, 2.5758293035489004


@pytest.mark.parametrize(("successes", "trials", "low", "high"), NEWCOMBE_CASES)
def test_wilson_matches_the_textbook_values(successes, trials, low, high):
    rate, got_low, got_high = wilson_interval(successes, trials, 0.95)
    assert rate == pytest.approx(successes / trials)
    assert got_low == pytest.approx(low, abs=5e-5)
    assert got_high == pytest.approx(high, abs=5e-5)


@pytest.mark.parametrize(("confidence", "z"), [(0.95, Z95), (0.90, Z90), (0.99, Z99)])
def test_wilson_equals_the_formula_written_out(confidence, z):
    trials = np.array([1, 7, 30, 100, 263, 1000, 123457])
    for fraction in (0.0, 0.013, 0.31, 0.5, 0.87, 1.0):
        successes = np.round(trials * fraction).astype(np.int64)
        rate, low, high = wilson_interval(successes, trials, confidence)
        for k, n, r, lo, hi in zip(successes, trials, rate, low, high, strict=True):
            assert (r, lo, hi) == pytest.approx(wilson_by_hand(int(k), int(n), z), abs=1e-12)


def test_wilson_is_exact_at_the_ends_and_empty_gives_nan():
    _, low, high = wilson_interval(0, 50)
    assert low == 0.0 and 0 < high < 0.1
    _, low, high = wilson_interval(50, 50)
    assert high == 1.0 and 0.9 < low < 1
    rate, low, high = wilson_interval(0, 0)
    assert math.isnan(rate) and math.isnan(low) and math.isnan(high)


@pytest.mark.parametrize("true_rate", [0.5, 0.2, 0.05])
@pytest.mark.parametrize("trials", [100, 1000])
def test_wilson_coverage_simulation_study(true_rate, trials):
    """Many binomial samples with a known rate: the 95 % interval covers it about 95 % of the time."""
    generator = np.random.default_rng(12345)
    replications = 20_000
    successes = generator.binomial(trials, true_rate, size=replications)
    _, low, high = wilson_interval(successes, np.full(replications, trials), CONFIDENCE)
    coverage = np.mean((low <= true_rate) & (true_rate <= high))
    # Wilson's coverage oscillates around the nominal level with n and p; +-2 points is its known
    # range at these sizes, and the Monte Carlo error here is 0.15 points.
    assert 0.93 <= coverage <= 0.97, coverage


@pytest.mark.parametrize(("confidence", "z"), [(0.95, Z95), (0.90, Z90), (0.99, Z99)])
def test_mean_interval_equals_numpy(confidence, z):
    values = np.random.default_rng(11).integers(-300, 900, size=777)
    mean, low, high, sd = mean_interval(len(values), int(values.sum()), int((values**2).sum()), confidence)
    half = z * values.std(ddof=1) / math.sqrt(len(values))
    assert mean == pytest.approx(values.mean(), rel=1e-12)
    assert sd == pytest.approx(values.std(ddof=1), rel=1e-9)
    assert (low, high) == pytest.approx((values.mean() - half, values.mean() + half), rel=1e-9)


def test_mean_interval_coverage_simulation_study():
    generator = np.random.default_rng(7)
    replications, n = 5000, 400
    # A skewed integer score, like Tensho's: 0 most of the time, sometimes 50..300.
    support = np.array([0, 50, 100, 150, 300])
    weights = np.array([0.6, 0.15, 0.15, 0.05, 0.05])
    true_mean = float(support @ weights)
    samples = generator.choice(support, size=(replications, n), p=weights)
    mean, low, high, _ = mean_interval(np.full(replications, n), samples.sum(axis=1), (samples**2).sum(axis=1))
    coverage = np.mean((low <= true_mean) & (true_mean <= high))
    assert 0.935 <= coverage <= 0.965, coverage


def _synthetic_dataset(directory, winners: np.ndarray, scores: np.ndarray, seed: int):
    """A minimal schema-complete shard whose winner and score columns are given."""
    n = len(winners)
    columns = {f.name: np.zeros(n, dtype=np.uint64 if pa.types.is_unsigned_integer(f.type) else np.int64)
               for f in LAYOUT.schema(2)}
    columns["round"] = np.arange(n)
    columns["match"] = np.arange(n)
    columns["dealer"] = np.arange(n) % 2
    columns["winner"] = winners
    columns["end_reason"] = np.zeros(n, dtype=np.int64)
    columns["match_end"] = np.ones(n, dtype=bool)
    columns["score_0"] = scores
    columns["end_turn"] = np.full(n, 12)
    info = {"game": "tensho", "seed": seed, "policies": ["random", "random"], "rounds_per_match": None}
    directory.mkdir()
    write_shard(directory, 0, LAYOUT.table(columns, info, "", 2))
    (directory / "_run.json").write_text(json.dumps(info))
    return directory


@pytest.mark.slow
def test_report_intervals_cover_a_known_answer(tmp_path):
    """End to end through datasets and report tables: known win rate and mean score.

    800 replications: the coverage estimate's standard error is 0.8 points, so the band
    [93 %, 97 %] holds a 95 % interval (2.6 standard errors each side) and rejects a 90 % one.
    """
    generator = np.random.default_rng(2024)
    true_win, rounds, replications = 0.3, 400, 800
    support, weights = np.array([0, 50, 100]), np.array([0.7, 0.2, 0.1])
    true_mean = float(support @ weights)
    covered_rate = covered_mean = 0
    for k in range(replications):
        winners = np.where(generator.random(rounds) < true_win, 0, 1)
        scores = generator.choice(support, size=rounds, p=weights)
        summary = summarise_run(_synthetic_dataset(tmp_path / f"run{k}", winners, scores, k))
        seat = outcomes_by_seat(summary, CONFIDENCE).frame.iloc[0]
        covered_rate += seat["win_low"] <= true_win <= seat["win_high"]
        score = score_distribution(summary, CONFIDENCE).frame.iloc[0]
        covered_mean += score["value_low"] <= true_mean <= score["value_high"]
    assert 0.93 <= covered_rate / replications <= 0.97, covered_rate / replications
    assert 0.93 <= covered_mean / replications <= 0.97, covered_mean / replications


def test_z_value_and_its_range():
    assert z_value(0.95) == pytest.approx(Z95, abs=1e-12)
    assert z_value(0.90) == pytest.approx(Z90, abs=1e-12)
    assert z_value(0.99) == pytest.approx(Z99, abs=1e-12)
    with pytest.raises(ValueError):
        z_value(1.0)


def test_mcnemar_exact_and_chi_square():
    assert mcnemar_test(0, 0) == 1.0
    # Exact: 1 versus 9 discordant rounds, P = 2 * P(X <= 1 | 10, 1/2) = 22/1024.
    assert mcnemar_test(1, 9) == pytest.approx(22 / 1024)
    assert mcnemar_test(9, 1) == pytest.approx(22 / 1024)
    # Large counts: chi-square with one degree of freedom.
    statistic = (1200 - 1000) ** 2 / 2200
    assert mcnemar_test(1200, 1000) == pytest.approx(math.erfc(math.sqrt(statistic / 2)))


def test_holm_adjustment_by_hand():
    # sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04 -> 0.06, running max)
    got = holm_adjusted([0.01, 0.04, 0.03, 0.005, float("nan")])
    assert got[:4] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert math.isnan(got[4])
    assert list(holm_adjusted([0.5, 0.9])) == [1.0, 1.0]  # capped at 1
    assert len(holm_adjusted([])) == 0


def test_holm_adjustment_matches_its_definition():
    rng = np.random.default_rng(7)
    for size in (1, 2, 5, 30):
        p = rng.uniform(0, 0.2, size) ** 2
        got = holm_adjusted(p)
        order = np.argsort(p, kind="stable")
        m = len(p)
        for position, index in enumerate(order):
            expected = max(min(1.0, (m - j) * p[order[j]]) for j in range(position + 1))
            assert got[index] == pytest.approx(expected)
        assert (got >= p).all() and (got <= 1).all()


def test_small_sample_flags():
    flags = small_rate_sample(np.array([0, 3, 10, 500, 997, 20]), np.array([1000, 1000, 1000, 1000, 1000, 20]))
    assert flags.tolist() == [False, True, False, False, True, True]


def test_integer_histogram_quantiles_match_numpy():
    generator = np.random.default_rng(3)
    values = generator.integers(-40, 400, size=5001)
    histogram = IntegerHistogram()
    for chunk in np.array_split(values, 7):
        histogram.add(chunk)
    probabilities = [0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0]
    expected = np.quantile(values, probabilities, method="inverted_cdf")
    assert histogram.quantiles(probabilities) == pytest.approx(expected.tolist())
    n, total, squares = histogram.sums()
    assert (n, total, squares) == (len(values), int(values.sum()), int((values.astype(np.int64) ** 2).sum()))


def test_bit_counter_and_mask_sums_match_direct_computation():
    generator = np.random.default_rng(5)
    masks = generator.integers(0, 2**63, size=3000, dtype=np.uint64) | (
        generator.integers(0, 2, size=3000, dtype=np.uint64) << np.uint64(63))
    counter = BitCounter()
    counter.add(masks[:1000])
    counter.add(masks[1000:])
    expected = [sum(1 for m in masks.tolist() if (m >> b) & 1) for b in range(64)]
    assert counter.bit_counts().tolist() == expected
    values = generator.integers(0, 20, size=64)
    direct = [sum(int(values[b]) for b in range(64) if (m >> b) & 1) for m in masks.tolist()]
    assert sum_over_mask(masks, values).tolist() == direct
