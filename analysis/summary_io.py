"""Reading a summary run (``fudasim run --summary``): its shards' cells merged into the report's
``RunSummary``, the side-by-side sums ``fudasim compare`` needs, and its stored paired sums.

A summary shard holds exact integer counts (``simcore.run.summary_shard``); their sum over the
shards is what ``analysis.summary.summarise_rows`` counts from the rows of the same run, so
every table computed from it is the same.  The convergence table is exact at the checkpoints
the report uses when every unit fills the same number of rows (every run of single rounds, and
match play with fixed-length matches); otherwise it is exact at shard ends.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from analysis.accumulate import IntegerHistogram
from analysis.reader import AnalysisError, RunDataset, open_run
from analysis.summary import (
    CONVERGENCE_COLUMNS,
    STOPPING_REASONS,
    MatchCounts,
    RunSummary,
    SeatCounts,
    _columns_for,
    _instant_bits,
    advantage_sums,
    summarise_rows,
)
from simcore import storage
from simcore.dataset import DatasetError
from simcore.run.summary_shard import CONVERGENCE_FLAGS, PAIR_FIELDS, read_cells

__all__ = ["load_summary", "merged_cells", "metric_sums", "stored_pairs", "pairing_problem", "summarise_run"]


def _shard_cells(dataset: RunDataset) -> list[tuple[dict[str, Any], dict[str, dict[int, int]]]]:
    """``(fudasim.run, cells)`` of each shard read, in shard order."""
    import json


    out = []
    for path in dataset.files:
        try:
            info = json.loads((storage.read_schema(path).metadata or {})[b"fudasim.run"])
            out.append((info, read_cells(path)))
        except DatasetError as error:
            raise AnalysisError(str(error)) from None
        except (OSError, KeyError, ValueError) as error:
            raise AnalysisError(f"{path}: cannot read summary shard: {error}") from None
    return out


def merged_cells(shards: list[tuple[dict[str, Any], dict[str, dict[int, int]]]]) -> dict[str, dict[int, int]]:
    """The cells of several shards added up (convergence cells excepted: they are per shard)."""
    total: dict[str, dict[int, int]] = {}
    for _, cells in shards:
        for key, values in cells.items():
            if key.startswith("convergence_"):
                continue
            bucket = total.setdefault(key, {})
            for index, value in values.items():
                bucket[index] = bucket.get(index, 0) + value
    return total


def _histogram(values: dict[int, int]) -> IntegerHistogram:
    histogram = IntegerHistogram()
    histogram.counts = {int(k): int(v) for k, v in sorted(values.items()) if v}
    return histogram


def _bits(values: dict[int, int]) -> np.ndarray:
    out = np.zeros(64, dtype=np.int64)
    for bit, count in values.items():
        out[bit] = count
    return out


def _convergence(dataset: RunDataset, shards: list) -> Any:
    import pandas as pd

    stride = int(dataset.run_info.get("round_stride") or 1)
    fixed = dataset.run_info.get("rounds") is not None
    trace: dict[str, list[int]] = {key: [] for key in CONVERGENCE_COLUMNS}
    running = dict.fromkeys(CONVERGENCE_FLAGS, 0)
    rows_read = 0
    for info, cells in shards:
        first_row = int(info.get("first_unit", 0)) * stride
        rounds = cells.get("scalar.rounds", {}).get(0, 0)
        if fixed:
            points = sorted(cells.get(f"convergence_{CONVERGENCE_FLAGS[0]}", {}))
            for row in points:
                trace["rounds"].append(rows_read + row - first_row)
                for flag in CONVERGENCE_FLAGS:
                    trace[flag].append(running[flag] + cells[f"convergence_{flag}"][row])
        rows_read += rounds
        for flag in CONVERGENCE_FLAGS:
            running[flag] += cells.get(f"scalar.conv_{flag}", {}).get(0, 0)
        if not fixed and rounds:
            trace["rounds"].append(rows_read)
            for flag in CONVERGENCE_FLAGS:
                trace[flag].append(running[flag])
    return pd.DataFrame(trace, columns=list(CONVERGENCE_COLUMNS))


def load_summary(dataset: RunDataset) -> RunSummary:
    """The ``RunSummary`` of a summary run: its shards' counts added up.

    Raises
    ------
    AnalysisError
        A shard cannot be read, or the run has no rounds.
    """
    shards = _shard_cells(dataset)
    cells = merged_cells(shards)
    scalar = lambda name: int(cells.get(f"scalar.{name}", {}).get(0, 0))  # noqa: E731
    seats = dataset.seats
    wants = _columns_for(dataset)
    summary = RunSummary(dataset=dataset, rounds=scalar("rounds"))
    if summary.rounds == 0:
        raise AnalysisError(f"{dataset.path}: the dataset has no rounds")
    get = lambda key, index: int(cells.get(key, {}).get(index, 0))  # noqa: E731
    summary.seats = [SeatCounts(get("seat_rounds", s), get("seat_wins", s), get("seat_draws", s)) for s in range(seats)]
    if wants["dealer"]:
        summary.dealer = SeatCounts(scalar("dealer_rounds"), scalar("dealer_wins"), scalar("dealer_draws"))
        summary.non_dealer = SeatCounts(scalar("non_dealer_rounds"), scalar("non_dealer_wins"),
                                        scalar("non_dealer_draws"))
        summary.dealer_advantage_counts = {int(k): int(v) for k, v in sorted(cells.get("advantage", {}).items()) if v}
        summary.dealer_advantage_sums = advantage_sums(summary.dealer_advantage_counts)
    reasons = dataset.declared_end_reasons() if wants["end_reason"] else []
    if wants["end_reason"]:
        summary.end_reasons = {name: get("end_reason", code) for code, name in enumerate(reasons)}
    if wants["yaku"]:
        summary.yaku_seat = [_bits(cells.get(f"yaku_seat_{s}", {})) for s in range(seats)]
        summary.yaku_any = _bits(cells.get("yaku_any", {}))
        if wants["end_reason"]:
            summary.stopping_yaku = {reason: _bits(cells.get(f"stopping_{reason}", {}))
                                     for reason in STOPPING_REASONS if reason in summary.end_reasons}
    summary.stopping_bits_known = bool(_instant_bits(dataset)) or wants["stopping_yaku"]
    if wants["yaku_set"]:
        summary.yaku_set_rounds = {int(k): int(v) for k, v in sorted(cells.get("yaku_set", {}).items()) if v}
        summary.seat_yaku_set_rounds = [{int(k): int(v) for k, v in sorted(cells.get(f"seat_yaku_set_{s}", {}).items())
                                         if v} for s in range(seats)]
    else:
        summary.seat_yaku_set_rounds = [{} for _ in range(seats)]
    summary.scores = [_histogram(cells.get(f"score_{s}", {})) for s in range(seats)]
    summary.payoffs = [_histogram(cells.get(f"payoff_{s}", {})) for s in range(seats)] if wants["payoff"] else None
    summary.round_length = _histogram(cells.get("end_turn", {})) if wants["end_turn"] else None
    if wants["matches"]:
        summary.matches = MatchCounts(
            matches=scalar("matches"), seat_wins=[get("match_seat_wins", s) for s in range(seats)],
            draws=scalar("match_draws"), first_dealer_wins=scalar("first_dealer_wins"),
            first_dealer_draws=scalar("first_dealer_draws"), first_dealer_matches=scalar("first_dealer_matches"),
            rounds_per_match=_histogram(cells.get("rounds_per_match", {})), unpaired_ends=scalar("unpaired_ends"))
    summary.draws = scalar("conv_draws")
    summary.convergence = _convergence(dataset, shards)
    return summary


# --- fudasim compare ---------------------------------------------------------------------------


def metric_sums(summary: RunSummary, names: list[str]) -> dict[str, tuple[int, int, int]]:
    """``(n, sum x, sum x^2)`` of each of ``fudasim compare``'s metrics (by name) over a run's rounds.

    The same sums ``analysis.compare`` adds from the rows: per-seat and dealer metrics over the
    rounds that seat (or the dealer) played, rates as 0/1 values.
    """
    dataset = summary.dataset
    out: dict[str, tuple[int, int, int]] = {}
    yaku_bits = {y.key: y.bit for y in dataset.yaku}
    for name in names:
        if name.startswith("win_"):
            counts = summary.seats[int(name[4:])]
            out[name] = (counts.rounds, counts.wins, counts.wins)
        elif name == "draw":
            out[name] = (summary.rounds, summary.draws, summary.draws)
        elif name == "dealer_win":
            dealer = summary.dealer
            out[name] = (dealer.rounds, dealer.wins, dealer.wins)
        elif name == "end_turn":
            out[name] = summary.round_length.sums() if summary.round_length is not None else (0, 0, 0)
        elif name.startswith("end_"):
            count = summary.end_reasons.get(name[4:], 0)
            out[name] = (summary.rounds, count, count)
        elif name.startswith("yaku_"):
            bit = yaku_bits.get(name[5:])
            count = int(summary.yaku_any[bit]) if bit is not None and summary.yaku_any is not None else 0
            out[name] = (summary.rounds, count, count)
        elif name.startswith(("score_", "payoff_")):
            measure, seat = name.split("_")
            histograms = summary.scores if measure == "score" else summary.payoffs
            out[name] = histograms[int(seat)].sums() if histograms is not None else (0, 0, 0)
        else:
            raise AnalysisError(f"{dataset.path}: a summary run cannot give the metric {name!r}")
    return out


def pairing_problem(base: RunDataset, other: RunDataset) -> str | None:
    """None if ``other`` (a summary run) stores paired sums against ``base``, else why it cannot be paired."""
    from simcore.dataset import RUN_IDENTITY

    paired = other.run_info.get("paired_with") if other.summary else None
    reverse = base.run_info.get("paired_with") if base.summary else None
    if isinstance(reverse, dict) and all(reverse.get(k) == other.run_info.get(k) for k in (*RUN_IDENTITY, "units")):
        return (f"{base.label} was paired with {other.label}: give the baseline first "
                f"(fudasim compare {other.path} {base.path}); the comparison below is unpaired")
    if base.summary and not other.summary:
        return (f"{base.label} is a summary run and {other.label} is not: paired differences need the rows of "
                f"{other.label}'s partner (run {other.label} again with --summary --paired-with {base.path})")
    if not isinstance(paired, dict):
        return (f"{other.label} is a summary run without per-round differences: paired differences need "
                f"`fudasim run ... --summary --paired-with {base.path}`; the comparison below is unpaired")
    for key in (*RUN_IDENTITY, "units"):
        if paired.get(key) != base.run_info.get(key):
            return (f"{other.label} was paired with {paired.get('path')}, not with {base.label} (their {key} "
                    f"differs); the comparison below is unpaired")
    return None


def stored_pairs(other: RunDataset) -> tuple[dict[str, tuple[int, ...]], tuple[int, int, int]]:
    """A paired summary run's stored sums: per metric ``PAIR_FIELDS``, and (paired rounds,
    winner changed, same deal)."""
    cells = merged_cells(_shard_cells(other))
    pairs = {}
    for key, values in cells.items():
        if key.startswith("pair."):
            pairs[key[5:]] = tuple(int(values.get(i, 0)) for i in range(len(PAIR_FIELDS)))
    changes = cells.get("pair_changes", {})
    return pairs, (int(changes.get(0, 0)), int(changes.get(1, 0)), int(changes.get(2, 0)))


def summarise_run(dataset: RunDataset | str, *, instant_yaku_bits: dict[int, int] | None = None) -> RunSummary:
    """A run's ``RunSummary``: counted from its rows in one bounded-memory pass
    (``analysis.summary.summarise_rows``), or read from the counts of a summary run.

    Parameters
    ----------
    dataset : RunDataset or path
    instant_yaku_bits : dict yaku_set -> uint64 bitset, optional
        Which yaku are instant wins in each yaku set (rows only; see ``summarise_rows``).
    """
    if not isinstance(dataset, RunDataset):
        dataset = open_run(dataset)
    if dataset.summary:
        return load_summary(dataset)
    return summarise_rows(dataset, instant_yaku_bits=instant_yaku_bits)
