"""Incremental aggregates: exact integer histograms and per-bit counts, merged batch by batch.

These hold a fixed amount of memory however many rounds flow through them, so a report on a
100-million-round dataset needs no more memory than one on a thousand rounds.
"""

from __future__ import annotations

import numpy as np

__all__ = ["IntegerHistogram", "BitCounter", "DENSE_RANGE_LIMIT"]

# A batch whose values span fewer than this many integers is counted with bincount; wider
# ranges (not expected for scores, turns or payoffs) fall back to a sort with np.unique.
DENSE_RANGE_LIMIT = 1 << 20


class IntegerHistogram:
    """Exact counts of integer values, from which means, deviations and quantiles follow."""

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}

    def add(self, values: np.ndarray) -> None:
        """Count every value of ``values`` (an array of integers of any dtype and shape)."""
        values = np.asarray(values)
        if values.size == 0:
            return
        values = values.astype(np.int64, copy=False)
        low, high = int(values.min()), int(values.max())
        if high - low < DENSE_RANGE_LIMIT:
            dense = np.bincount(values - low, minlength=high - low + 1)
            present = np.flatnonzero(dense)
            pairs = zip((present + low).tolist(), dense[present].tolist(), strict=True)
        else:
            unique, counts = np.unique(values, return_counts=True)
            pairs = zip(unique.tolist(), counts.tolist(), strict=True)
        for value, count in pairs:
            self.counts[value] = self.counts.get(value, 0) + count

    def merge(self, other: IntegerHistogram) -> None:
        """Add the counts of ``other`` to this histogram."""
        for value, count in other.counts.items():
            self.counts[value] = self.counts.get(value, 0) + count

    @property
    def n(self) -> int:
        """The number of values counted."""
        return sum(self.counts.values())

    def sums(self) -> tuple[int, int, int]:
        """``(n, sum x, sum x^2)`` as exact Python integers."""
        n = total = squares = 0
        for value, count in self.counts.items():
            n += count
            total += value * count
            squares += value * value * count
        return n, total, squares

    def quantiles(self, probabilities) -> list[float]:
        """Inverted-CDF quantiles: the smallest value with at least ``q * n`` observations at or below it.

        This equals ``numpy.quantile(x, q, method="inverted_cdf")`` on the raw values.
        """
        if not self.counts:
            return [float("nan")] * len(probabilities)
        values = np.array(sorted(self.counts), dtype=np.int64)
        cumulative = np.cumsum([self.counts[v] for v in values.tolist()])
        n = int(cumulative[-1])
        out = []
        for q in probabilities:
            # numpy's inverted_cdf: the first index whose cumulative count reaches q * n (q = 0: minimum).
            target = q * n
            index = int(np.searchsorted(cumulative, target, side="left")) if q > 0 else 0
            out.append(float(values[min(index, len(values) - 1)]))
        return out

    def as_series(self):
        """The counts as an int64 pandas Series indexed by value, in ascending order."""
        import pandas as pd

        return pd.Series(dict(sorted(self.counts.items())), dtype="int64")


class BitCounter:
    """How many masks have each of the 64 bits set.

    A uint64 mask is split into four 16-bit chunks, each counted with ``bincount`` into a
    65536-bin histogram; per-bit counts are read from the histograms at the end.  This costs
    four counting passes per batch instead of 64 bit tests.
    """

    CHUNKS = 4
    CHUNK_VALUES = 1 << 16

    def __init__(self) -> None:
        self.histograms = np.zeros((self.CHUNKS, self.CHUNK_VALUES), dtype=np.int64)
        self.n = 0

    def add(self, masks: np.ndarray) -> None:
        """Count, for each bit, the masks of ``masks`` (uint64, any shape) that have it set."""
        masks = np.ascontiguousarray(masks, dtype="<u8")
        if masks.size == 0:
            return
        chunks = masks.view("<u2").reshape(-1, self.CHUNKS)
        for k in range(self.CHUNKS):
            self.histograms[k] += np.bincount(chunks[:, k], minlength=self.CHUNK_VALUES)
        self.n += masks.size

    def bit_counts(self) -> np.ndarray:
        """int64[64]: the number of masks with bit ``b`` set."""
        out = np.zeros(64, dtype=np.int64)
        for k in range(self.CHUNKS):
            for bit in range(16):
                # Values with this bit set: the upper half of every block of 2**(bit + 1).
                blocks = self.histograms[k].reshape(-1, 2, 1 << bit)
                out[16 * k + bit] = blocks[:, 1, :].sum()
        return out
