"""Confidence intervals and tests used by every report.

All functions are vectorised over NumPy arrays (or accept scalars) and use only the normal
distribution from the standard library, so the analysis layer needs no statistics package.

Methods
-------
Proportions
    Wilson score interval (Wilson 1927).  It stays inside [0, 1], is never empty at 0 or n
    successes and keeps close to its nominal coverage down to small samples, unlike the Wald
    interval ``p +- z sqrt(p (1 - p) / n)``.
Means
    Normal approximation: ``mean +- z * s / sqrt(n)`` with ``s`` the sample standard deviation
    (``n - 1`` denominator).  Round scores and lengths are bounded, so the central limit theorem
    applies quickly; below ``SMALL_SAMPLE_ROUNDS`` observations the interval is flagged.
Paired differences
    For two runs with identical deals, the per-round difference ``d_r = y_r - x_r`` has mean
    ``d`` and standard deviation ``s_d``; the interval is ``d +- z * s_d / sqrt(n)`` and the test
    of "no difference" is the paired z test (the t test at these sample sizes).  For a 0/1
    outcome the same statistic is McNemar's test (without continuity correction), which depends
    only on the discordant rounds; ``mcnemar_test`` gives its exact binomial form for small counts.
Unpaired differences
    ``d +- z * sqrt(s_x^2 / n_x + s_y^2 / n_y)`` and the two-sample z test.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

__all__ = [
    "SMALL_SAMPLE_ROUNDS",
    "SMALL_SAMPLE_EVENTS",
    "z_value",
    "wilson_interval",
    "mean_interval",
    "holm_adjusted",
    "moments_from_sums",
    "two_sided_p_value",
    "mcnemar_test",
    "small_rate_sample",
]

# Below these a rate's interval is flagged as resting on too little data (docs/analysis.md).
SMALL_SAMPLE_ROUNDS = 30
SMALL_SAMPLE_EVENTS = 5


def z_value(confidence: float) -> float:
    """Two-sided standard normal quantile, e.g. 1.95996 for ``confidence = 0.95``."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes, trials, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion.

    Parameters
    ----------
    successes, trials : int or array_like of int
        Counts; ``trials == 0`` gives NaN bounds.
    confidence : float
        Nominal coverage, e.g. 0.95.

    Returns
    -------
    rate, low, high : float64 arrays (or floats for scalar input)
    """
    z = z_value(confidence)
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = k / n
        z2 = z * z
        centre = (k + z2 / 2.0) / (n + z2)
        half = z / (n + z2) * np.sqrt(k * (n - k) / n + z2 / 4.0)
        low = np.clip(centre - half, 0.0, 1.0)
        high = np.clip(centre + half, 0.0, 1.0)
    # Exact ends: the Wilson bound at 0 or n successes is 0 or 1 only up to rounding.
    low = np.where(k <= 0, 0.0, low)
    high = np.where(k >= n, 1.0, high)
    empty = n <= 0
    rate, low, high = (np.where(empty, np.nan, a) for a in (rate, low, high))
    if np.ndim(successes) == 0 and np.ndim(trials) == 0:
        return float(rate), float(low), float(high)
    return rate, low, high


def moments_from_sums(count, total, total_of_squares):
    """Mean and sample standard deviation from ``n``, ``sum x`` and ``sum x^2``.

    Sums of integers are passed as Python ints or int64 so that they are exact; the variance is
    formed as ``(sum x^2 - (sum x)^2 / n) / (n - 1)`` in float64 from exact integer parts.
    """
    n = np.asarray(count, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.asarray(total, dtype=np.float64) / n
        centred = np.asarray(total_of_squares, dtype=np.float64) - np.asarray(total, dtype=np.float64) * mean
        variance = np.where(n > 1, np.maximum(centred, 0.0) / (n - 1), np.nan)
    return mean, np.sqrt(variance)


def mean_interval(count, total, total_of_squares, confidence: float = 0.95):
    """Normal-approximation interval of a mean from its sums.

    Returns
    -------
    mean, low, high, standard_deviation : float64 arrays (floats for scalar input)
    """
    z = z_value(confidence)
    mean, sd = moments_from_sums(count, total, total_of_squares)
    with np.errstate(divide="ignore", invalid="ignore"):
        half = z * sd / np.sqrt(np.asarray(count, dtype=np.float64))
    out = (mean, mean - half, mean + half, sd)
    if np.ndim(count) == 0:
        return tuple(float(a) for a in out)
    return out


def two_sided_p_value(z_statistic):
    """Two-sided p-value of a standard normal statistic (NaN stays NaN)."""
    z = np.abs(np.asarray(z_statistic, dtype=np.float64))
    out = np.vectorize(lambda v: math.erfc(v / math.sqrt(2.0)) if np.isfinite(v) else np.nan,
                       otypes=[np.float64])(z)
    return float(out) if np.ndim(z_statistic) == 0 else out


def holm_adjusted(p_values) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values, in their given order.

    The i-th smallest of ``m`` p-values becomes ``max over j <= i of min(1, (m - j + 1) p_(j))``.
    Rejecting where the adjusted value is below a level keeps the chance of any false rejection in
    the family at most that level, whatever the dependence between the tests (the metrics of a
    comparison are strongly correlated).  NaN values are left out of the family and stay NaN.
    Takes any sequence of numbers; returns float64 of the same shape.
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    present = np.flatnonzero(np.isfinite(p))
    m = len(present)
    order = present[np.argsort(p[present], kind="stable")]
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[index]))
        out[index] = running
    return out


def _binomial_two_sided(smaller: int, total: int) -> float:
    """Exact two-sided binomial test of ``p = 1/2`` (twice the smaller tail, at most 1)."""
    log_half = total * math.log(0.5)
    tail = 0.0
    for k in range(smaller + 1):
        tail += math.exp(math.lgamma(total + 1) - math.lgamma(k + 1) - math.lgamma(total - k + 1) + log_half)
    return min(1.0, 2.0 * tail)


EXACT_MCNEMAR_LIMIT = 2000


def mcnemar_test(only_first: int, only_second: int) -> float:
    """p-value of McNemar's test from the two discordant counts.

    ``only_first`` rounds have the event in the first run only, ``only_second`` in the second
    only.  Exact binomial test up to ``EXACT_MCNEMAR_LIMIT`` discordant rounds, chi-square with
    one degree of freedom (no continuity correction) beyond.
    """
    b, c = int(only_first), int(only_second)
    if b + c == 0:
        return 1.0
    if b + c <= EXACT_MCNEMAR_LIMIT:
        return _binomial_two_sided(min(b, c), b + c)
    statistic = (b - c) ** 2 / (b + c)
    return math.erfc(math.sqrt(statistic / 2.0))


def small_rate_sample(successes, trials):
    """True where a rate rests on too little data for its interval to mean much.

    Flagged when there are fewer than ``SMALL_SAMPLE_ROUNDS`` trials, or when only 1 to
    ``SMALL_SAMPLE_EVENTS - 1`` successes (or failures) were seen: the interval then spans
    an order of magnitude and even the size of the rate is uncertain.  No event at all is not
    flagged on a large sample: the upper bound is then the informative part.
    """
    k = np.asarray(successes)
    n = np.asarray(trials)
    few = ((k > 0) & (k < SMALL_SAMPLE_EVENTS)) | ((n - k > 0) & (n - k < SMALL_SAMPLE_EVENTS))
    return (n < SMALL_SAMPLE_ROUNDS) | few
