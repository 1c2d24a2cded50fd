"""``fudasim compare``: runs side by side, and paired per-round differences when deals are shared.

Runs that share a seed deal identical cards round by round (guarantee 2 of docs/guarantees.md),
whatever their rules options, yaku set, card-value table or policies, as long as the deck is the
same. Their per-round outcomes can then be compared *paired*: each metric's per-round difference
``d_r = y_r - x_r`` has a far smaller variance than the two runs' variances added, because the deal
-- the largest source of variation -- cancels.  ``compare_runs`` reports

* what differs between the runs: every fact their metadata records (rules, each option, seed,
  the policy of each seat, engine version, unit kind and match settings, rounds) that is not the
  same in all of them;
* each run's estimates side by side (each over all of its rounds);
* for paired runs, per other run against the first (the baseline): the mean difference with its
  interval and a test of "no difference" (McNemar's test for rates, the paired z test for
  means), over the rounds both runs have;
* the variance reduction: the unpaired interval the same rounds would give if the runs were
  independent, and the ratio of variances, which is how many times more rounds two independent
  runs would need for the same precision;
* for runs with different seeds, unpaired differences (two-sample z intervals and tests), and
  a note saying so.

Everything is read batch by batch; the paired pass walks the runs in step by round index.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.intervals import (
    SMALL_SAMPLE_ROUNDS,
    holm_adjusted,
    mcnemar_test,
    moments_from_sums,
    small_rate_sample,
    two_sided_p_value,
    wilson_interval,
    z_value,
)
from analysis.reader import AnalysisError, RunDataset, open_run
from analysis.render import Figure, Report, hidden_notices
from analysis.tables import Table

__all__ = ["Metric", "compare_runs", "comparison_metrics", "aligned_batches", "MetricSums", "run_facts",
           "run_differences"]


@dataclass(frozen=True)
class Metric:
    """A per-round quantity compared across runs.

    ``kind`` is ``"rate"`` (a 0/1 indicator; its mean is a rate) or ``"mean"``; ``value`` maps a
    batch (dict of column arrays) of one run to int64 per-round values.  ``played``, when given,
    maps a batch to a bool array: the rounds the metric's seat (or the dealer) played; a per-seat
    metric is taken over those rounds only (and, paired, over the rounds it played in both runs).
    """

    name: str
    label: str
    kind: str
    columns: tuple[str, ...]
    value: Callable[[dict[str, np.ndarray], RunDataset], np.ndarray]
    headline: bool = False
    played: Callable[[dict[str, np.ndarray]], np.ndarray] | None = None

    def rows(self, batch: dict[str, np.ndarray]) -> np.ndarray | None:
        """Bool mask of the rounds this metric counts (None: every round)."""
        return None if self.played is None else self.played(batch)


def _reason_metric(reason: str) -> Metric:
    def value(batch: dict[str, np.ndarray], dataset: RunDataset) -> np.ndarray:
        if reason not in dataset.end_reason_names:
            return np.zeros(len(batch["winner"]), dtype=np.int64)
        return (batch["end_reason"] == dataset.end_reason_names.index(reason)).astype(np.int64)

    return Metric(f"end_{reason}", f"ends by {reason}", "rate", ("end_reason",), value)


def _yaku_metric(key: str, name: str, seats: int) -> Metric:
    def value(batch: dict[str, np.ndarray], dataset: RunDataset) -> np.ndarray:
        bits = {y.key: y.bit for y in dataset.yaku}
        out = np.zeros(len(batch["winner"]), dtype=np.int64)
        if key not in bits:
            return out
        bit = np.uint64(1 << bits[key])
        for seat in range(seats):
            out |= ((batch[f"yaku_{seat}"].astype(np.uint64) & bit) != 0).astype(np.int64)
        return out

    return Metric(f"yaku_{key}", f"yaku {name}", "rate", tuple(f"yaku_{s}" for s in range(seats)), value)


def _seat_wins(seat: int) -> Callable[[dict[str, np.ndarray], RunDataset], np.ndarray]:
    """A metric's values: 1 where ``seat`` won the round."""
    return lambda b, d: (b["winner"] == seat).astype(np.int64)


def _column_values(column: str) -> Callable[[dict[str, np.ndarray], RunDataset], np.ndarray]:
    """A metric's values: the column ``column`` as int64."""
    return lambda b, d: b[column].astype(np.int64)


def comparison_metrics(datasets: list[RunDataset]) -> list[Metric]:
    """The metrics every run can provide: outcomes, end reasons, yaku (either seat), scores, length."""
    seats = datasets[0].seats
    every = lambda *names: all(d.has_columns(*names) for d in datasets)  # noqa: E731
    # Seats that may sit a round out (Enshu-bana C, 4-5 players) are counted over the rounds they played.
    active = every(*(f"active_{s}" for s in range(seats)))
    active_columns = tuple(f"active_{s}" for s in range(seats)) if active else ()

    def seat_played(seat: int) -> Callable[[dict[str, np.ndarray]], np.ndarray] | None:
        if not active:
            return None
        return lambda b: b[f"active_{seat}"].astype(bool)

    def dealer_played(b: dict[str, np.ndarray]) -> np.ndarray:
        flags = np.stack([b[f"active_{s}"].astype(bool) for s in range(seats)], axis=1)
        return flags[np.arange(len(flags)), b["dealer"].astype(np.int64)]

    metrics = []
    for seat in range(seats):
        metrics.append(Metric(f"win_{seat}", f"seat {seat} wins", "rate", ("winner", *active_columns),
                              _seat_wins(seat), headline=True,
                              played=seat_played(seat)))
    metrics.append(Metric("draw", "drawn", "rate", ("winner",),
                          lambda b, d: (b["winner"] < 0).astype(np.int64), headline=True))
    if every("dealer"):
        metrics.append(Metric("dealer_win", "dealer wins", "rate", ("winner", "dealer", *active_columns),
                              lambda b, d: (b["winner"] == b["dealer"]).astype(np.int64), headline=True,
                              played=dealer_played if active else None))
    if every("end_reason"):
        reasons: list[str] = []
        for dataset in datasets:
            for reason in dataset.declared_end_reasons():
                if reason not in reasons:
                    reasons.append(reason)
        metrics += [_reason_metric(reason) for reason in reasons]
    if every(*(f"yaku_{s}" for s in range(seats))):
        seen: dict[str, str] = {}
        for dataset in datasets:
            for yaku in dataset.yaku:
                seen.setdefault(yaku.key, yaku.name)
        metrics += [_yaku_metric(key, name, seats) for key, name in seen.items()]
    for seat in range(seats):
        metrics.append(Metric(f"score_{seat}", f"seat {seat} score", "mean", (f"score_{seat}", *active_columns),
                              _column_values(f"score_{seat}"), headline=True,
                              played=seat_played(seat)))
    if every(*(f"payoff_{s}" for s in range(seats))):
        for seat in range(seats):
            metrics.append(Metric(f"payoff_{seat}", f"seat {seat} payoff", "mean",
                                  (f"payoff_{seat}", *active_columns),
                                  _column_values(f"payoff_{seat}"),
                                  played=seat_played(seat)))
    if every("end_turn"):
        metrics.append(Metric("end_turn", "turns begun", "mean", ("end_turn",),
                              lambda b, d: b["end_turn"].astype(np.int64)))
    return metrics


@dataclass
class MetricSums:
    """Exact integer sums for one metric: ``n``, ``sum x``, ``sum x^2``."""

    n: int = 0
    total: int = 0
    squares: int = 0

    def add(self, values: np.ndarray) -> None:
        """Add a metric's int64 per-round values to the sums."""
        self.n += len(values)
        self.total += int(values.sum())
        self.squares += int((values * values).sum())


def _exhausted(batch: dict[str, np.ndarray] | None) -> bool:
    """No batch read yet, or none of its rows left."""
    return batch is None or len(batch["round"]) == 0


def aligned_batches(datasets: list[RunDataset], columns: list[str]) -> Iterator[list[dict[str, np.ndarray]]]:
    """Walk several runs in step: yield, per step, each run's rows for the same round indices.

    Each run must list its rounds in increasing order (``fudasim run`` writes them so).  Rounds
    present in only some runs are skipped.  Memory stays at about one batch per run.  A step is
    one ``{column: array}`` per run, every array of the same length, in the column's dtype
    (``round`` int64 always included).
    """
    columns = list(dict.fromkeys(["round", *columns]))
    iterators = [d.iter_batches(columns) for d in datasets]
    buffers: list[dict[str, np.ndarray] | None] = [None] * len(datasets)
    finished = [False] * len(datasets)
    last_seen = [-1] * len(datasets)
    while True:
        for i, dataset in enumerate(datasets):
            while not finished[i] and _exhausted(buffers[i]):
                try:
                    batch = next(iterators[i])
                except StopIteration:
                    finished[i] = True
                    break
                rounds = batch["round"]
                if len(rounds) and (rounds[0] <= last_seen[i] or np.any(np.diff(rounds) <= 0)):
                    raise AnalysisError(f"{dataset.path}: rounds are not in increasing order; a paired "
                                        f"comparison needs datasets written in round order")
                if len(rounds):
                    last_seen[i] = int(rounds[-1])
                buffers[i] = batch
        if any(_exhausted(b) for b in buffers):
            return
        ready = [b for b in buffers if b is not None]  # every one of them, after the test above
        limit = min(int(b["round"][-1]) for b in ready)
        heads: list[dict[str, np.ndarray]] = []
        rests: list[dict[str, np.ndarray] | None] = []
        for b in ready:
            cut = int(np.searchsorted(b["round"], limit, side="right"))
            heads.append({k: v[:cut] for k, v in b.items()})
            rests.append({k: v[cut:] for k, v in b.items()})
        common = heads[0]["round"]
        for head in heads[1:]:
            common = np.intersect1d(common, head["round"], assume_unique=True)
        if len(common):
            yield [{k: v[np.searchsorted(head["round"], common)] for k, v in head.items()} for head in heads]
        buffers = rests


def _labels(datasets: list[RunDataset], given: list[str] | None = None) -> list[str]:
    if given is not None and len(given) != len(datasets):
        raise ValueError(f"{len(given)} labels for {len(datasets)} runs")
    out: list[str] = []
    for k, dataset in enumerate(datasets):
        label = dataset.label if given is None else given[k]
        while label in out:
            label = f"{label}'"
        out.append(label)
    return out


def run_facts(dataset: RunDataset) -> dict[str, str]:
    """What a run's metadata says about how it was played, as ``{what: value}`` text.

    Every option is listed as ``option NAME``; the policy of each seat as ``policy of seat S``;
    ``rounds`` counts the rows in the dataset, ``units`` the rounds or matches the run planned.
    """
    info = dataset.run_info

    def text(value) -> str:
        return "-" if value is None else str(value)

    facts = {"game": dataset.game}
    if "variant" in info:
        facts["variant"] = text(info.get("variant"))
    facts["rules"] = dataset.rules_name
    facts["rules file sha256"] = text(info.get("rules_sha256"))[:16]
    for key, value in sorted(dataset.options.items()):
        facts[f"option {key}"] = text(value)
    facts["players"] = text(info.get("players", dataset.seats))
    facts["seed"] = text(dataset.seed)
    for seat, policy in enumerate(dataset.policies):
        facts[f"policy of seat {seat}"] = policy
    facts["engine version"] = text(info.get("engine_version"))
    facts["unit kind"] = text(info.get("unit_kind", "round" if dataset.rounds_per_match is None else "match"))
    facts["rounds per match"] = text(dataset.rounds_per_match)
    facts["units"] = text(info.get("units"))
    facts["rounds"] = f"{dataset.n_rows}"
    return facts


def run_differences(datasets: list[RunDataset], labels: list[str]) -> pd.DataFrame:
    """Everything the runs' metadata records that is not the same in every run.

    One row per difference (``what``: rules, each option, seed, the policy of each seat, engine
    version, unit kind and match settings, rounds, ...), one column per run with its value
    (``-`` where a run does not record it).
    """
    facts = [run_facts(d) for d in datasets]
    keys: list[str] = []
    for run in facts:
        keys += [key for key in run if key not in keys]
    rows = []
    for key in keys:
        values = [run.get(key, "-") for run in facts]
        if len(set(values)) > 1:
            rows.append({"what": key, **dict(zip(labels, values, strict=True))})
    return pd.DataFrame(rows, columns=["what", *labels])


def _differences_table(datasets: list[RunDataset], labels: list[str]) -> Table:
    frame = run_differences(datasets, labels)
    if len(frame):
        note = (f"Every difference the runs' metadata records ({len(frame)}); whatever is not listed "
                f"is the same in every run.")
    else:
        frame = pd.DataFrame([{"what": "nothing", **{label: "same" for label in labels}}])
        note = "The runs' metadata records no difference: the same rules, options, seed, policies and size."
    return Table("differences", "What differs", frame, note)


def _runs_table(datasets: list[RunDataset], labels: list[str], paired: bool) -> Table:
    options = [d.options for d in datasets]
    keys = sorted({k for o in options for k in o})
    differing = [k for k in keys if len({str(o.get(k, "-")) for o in options}) > 1]
    rows = []
    for label, dataset in zip(labels, datasets, strict=True):
        row = {"run": label, "rules": dataset.rules_name, "seed": dataset.seed if dataset.seed is not None else "?",
               "policies": " / ".join(dataset.policies), "rounds": dataset.n_rows}
        for key in differing:
            row[key.split(".", 1)[-1]] = str(dataset.options.get(key, "-"))
        rows.append(row)
    frame = pd.DataFrame(rows)
    shas = {str(d.run_info.get("rules_sha256", "")) for d in datasets}
    note = ("Paired: the runs share a seed, so round r was dealt the same cards in every run."
            if paired else "Unpaired: the runs do not share a seed, so their deals are independent.")
    what = list(run_differences(datasets, labels)["what"])
    if what:
        note += " What differs (table below): " + ", ".join(what) + "."
    if not differing and len(shas) > 1:
        note += " The runs' rules files differ (different sha256) but their resolved options agree."
    return Table("runs", "Runs compared", frame, note)


def _side_by_side(metrics: list[Metric], sums: list[dict[str, MetricSums]], labels: list[str],
                  confidence: float) -> Table:
    frame = pd.DataFrame({"metric": [m.label for m in metrics], "kind": [m.kind for m in metrics]})
    for label, run_sums in zip(labels, sums, strict=True):
        values, lows, highs, smalls = [], [], [], []
        for metric in metrics:
            s = run_sums[metric.name]
            rate, low, high = _estimate(metric.kind, s.n, s.total, s.squares, confidence)
            small = bool(small_rate_sample(s.total, s.n)) if metric.kind == "rate" else s.n < SMALL_SAMPLE_ROUNDS
            values.append(rate)
            lows.append(low)
            highs.append(high)
            smalls.append(small)
        frame[label] = values
        frame[f"{label}_low"] = lows
        frame[f"{label}_high"] = highs
        frame[f"{label}_small"] = smalls
        played = [run_sums[m.name].n for m in metrics]
        if len(set(played)) > 1:  # some seat sat rounds out: name each row's denominator
            frame[f"{label}_rounds_played"] = played
    note = (f"Each run over all its rounds (see Runs for n), per-seat and dealer metrics over the rounds "
            f"that seat (or the dealer) played: rates with {confidence:.0%} Wilson intervals, means with "
            f"normal intervals.")
    return Table("side_by_side", "Side by side", frame, note)


def _estimate(kind: str, n: int, total: int, squares: int, confidence: float) -> tuple[float, float, float]:
    """A run's rate with its Wilson interval (``kind`` "rate") or mean with its normal interval,
    from its count, sum and sum of squares over ``n`` rounds."""
    if kind == "rate":
        rate, low, high = wilson_interval(total, n, confidence)
        return float(rate), float(low), float(high)
    mean, sd = (float(v) for v in moments_from_sums(n, total, squares))
    half = z_value(confidence) * sd / np.sqrt(n) if n else float("nan")
    return mean, mean - half, mean + half


@dataclass
class _PairSums:
    n: int = 0
    x: int = 0
    xx: int = 0
    y: int = 0
    yy: int = 0
    d: int = 0
    dd: int = 0

    def add(self, x: np.ndarray, y: np.ndarray) -> None:
        d = y - x
        self.n += len(x)
        self.x += int(x.sum())
        self.xx += int((x * x).sum())
        self.y += int(y.sum())
        self.yy += int((y * y).sum())
        self.d += int(d.sum())
        self.dd += int((d * d).sum())


def _paired_table(metrics: list[Metric], pairs: dict[str, _PairSums], base: str, other: str,
                  confidence: float) -> tuple[Table, pd.DataFrame]:
    z = z_value(confidence)
    rows = []
    for metric in metrics:
        s = pairs[metric.name]
        if s.n == 0:
            continue
        mean_x, sd_x = (float(v) for v in moments_from_sums(s.n, s.x, s.xx))
        mean_y, sd_y = (float(v) for v in moments_from_sums(s.n, s.y, s.yy))
        mean_d, sd_d = (float(v) for v in moments_from_sums(s.n, s.d, s.dd))
        paired_half = z * sd_d / np.sqrt(s.n)
        unpaired_half = z * np.sqrt((sd_x**2 + sd_y**2) / s.n)
        if metric.kind == "rate":
            # For 0/1 outcomes: sum d = c - b and sum d^2 = b + c (b, c the discordant counts).
            only_base = (s.dd - s.d) // 2
            only_other = (s.dd + s.d) // 2
            p_value = mcnemar_test(only_base, only_other)
            test = "McNemar"
        else:
            p_value = float(two_sided_p_value(mean_d / (sd_d / np.sqrt(s.n)))) if sd_d > 0 else (
                1.0 if mean_d == 0 else 0.0)
            test = "paired z"
        variance_ratio = (unpaired_half / paired_half) ** 2 if paired_half > 0 else float("inf")
        own: dict[str, float] = {}
        for label, total, squares in ((base, s.x, s.xx), (other, s.y, s.yy)):
            value, low, high = _estimate(metric.kind, s.n, total, squares, confidence)
            own |= {label: value, f"{label}_low": low, f"{label}_high": high}
        rows.append({
            "metric": metric.label, "kind": metric.kind, "paired_rounds": s.n, **own,
            "difference_diff": mean_d, "difference_low": mean_d - paired_half, "difference_high": mean_d + paired_half,
            "difference_small": s.n < SMALL_SAMPLE_ROUNDS,
            "p_value": p_value, "test": test,
            "unpaired_diff": mean_d, "unpaired_low": mean_d - unpaired_half, "unpaired_high": mean_d + unpaired_half,
            "paired_half_width": paired_half, "unpaired_half_width": unpaired_half,
            "variance_ratio": variance_ratio,
            "headline": metric.headline,
        })
    frame = pd.DataFrame(rows)
    if len(frame):
        frame.insert(list(frame.columns).index("p_value") + 1, "p_value_holm", holm_adjusted(frame["p_value"]))
    own_columns = [f"{label}{end}" for label in (base, other) for end in ("", "_low", "_high")]
    shown = frame[["metric", "kind", "paired_rounds", *own_columns, "difference_diff", "difference_low",
                   "difference_high", "difference_small", "p_value", "p_value_holm", "test"]].copy()
    note = (f"{other} minus {base}, round by round over the rounds both runs have (per-seat and dealer "
            f"metrics: the rounds that seat or the dealer played in both; paired rounds), with a {confidence:.0%} "
            f"normal interval; p-value of 'no difference' (McNemar's test for rates, paired z test for means). "
            f"{base} and {other}: each run's rate (Wilson interval) or mean over those same paired rounds, so "
            f"where seats sit out they can differ from Side by side, which takes each run's own rounds. "
            f"Differences of rates in percent points. {HOLM_NOTE.format(n=len(frame))}")
    return Table(f"paired_{other}", f"Paired differences: {other} - {base}", shown, note), frame


def _pairing_gain_table(frame: pd.DataFrame, base: str, other: str, confidence: float) -> Table:
    picked = frame[frame["headline"] | frame["metric"].str.startswith("ends by")]
    table = pd.DataFrame({
        "metric": picked["metric"].to_numpy(),
        "kind": picked["kind"].to_numpy(),
        "paired_rounds": picked["paired_rounds"].to_numpy(),
        "paired_diff": picked["difference_diff"].to_numpy(),
        "paired_low": picked["difference_low"].to_numpy(),
        "paired_high": picked["difference_high"].to_numpy(),
        "unpaired_diff": picked["unpaired_diff"].to_numpy(),
        "unpaired_low": picked["unpaired_low"].to_numpy(),
        "unpaired_high": picked["unpaired_high"].to_numpy(),
        "width_ratio": (picked["unpaired_half_width"] / picked["paired_half_width"]).to_numpy(),
        "variance_ratio": picked["variance_ratio"].to_numpy(),
    })
    note = (f"The same difference with the {confidence:.0%} interval two independent runs of this size would "
            f"give (unpaired) and with pairing. variance ratio = (unpaired width / paired width)^2: "
            f"the factor by which independent runs would need more rounds for the same precision.")
    return Table(f"pairing_gain_{other}", f"Variance reduction from pairing: {other} vs {base}", table, note)


def _winner_changes(changes: dict[str, tuple[int, ...]], base: str, confidence: float) -> Table:
    rows = []
    for other, (n, changed, same_deal) in changes.items():
        rows.append({"run": other, "paired_rounds": n, "changed": changed, "same_deal": same_deal})
    frame = pd.DataFrame(rows)
    from analysis.tables import add_rate

    add_rate(frame, "winner_changed", frame["changed"], frame["paired_rounds"], confidence)
    add_rate(frame, "same_deal", frame["same_deal"], frame["paired_rounds"], confidence)
    frame = frame.drop(columns=["same_deal"])
    note = (f"Rounds whose winner differs from {base}'s, and rounds dealt the same cards (field and hands) "
            f"in both runs.")
    return Table("winner_changes", f"Rounds that change winner against {base}", frame, note)


HOLM_NOTE = ("Many metrics are tested at once, so about 1 in 20 p-values falls below 0.05 by chance; "
             "p_value_holm is Holm's adjustment over the table's {n} tests: calling every difference with "
             "p_value_holm below 0.05 real keeps the chance of any false alarm among them under 5%, however "
             "the metrics are related.")


def _unpaired_table(metrics: list[Metric], sums: list[dict[str, MetricSums]], labels: list[str],
                    confidence: float) -> Table:
    z = z_value(confidence)
    rows = []
    base = labels[0]
    for label, run_sums in zip(labels[1:], sums[1:], strict=True):
        for metric in metrics:
            a, b = sums[0][metric.name], run_sums[metric.name]
            if not a.n or not b.n:
                continue
            mean_a, sd_a = (float(v) for v in moments_from_sums(a.n, a.total, a.squares))
            mean_b, sd_b = (float(v) for v in moments_from_sums(b.n, b.total, b.squares))
            se = float(np.sqrt(sd_a**2 / a.n + sd_b**2 / b.n))
            diff = mean_b - mean_a
            p_value = float(two_sided_p_value(diff / se)) if se > 0 else (1.0 if diff == 0 else 0.0)
            rows.append({"run": label, "metric": metric.label, "kind": metric.kind,
                         "difference_diff": diff, "difference_low": diff - z * se, "difference_high": diff + z * se,
                         "difference_small": min(a.n, b.n) < SMALL_SAMPLE_ROUNDS, "p_value": p_value})
    frame = pd.DataFrame(rows)
    if len(frame):
        frame["p_value_holm"] = frame.groupby("run", sort=False)["p_value"].transform(holm_adjusted)
    tested = int(frame["run"].value_counts().max()) if len(frame) else 0
    note = (f"Unpaired: each run minus {base}, with a {confidence:.0%} two-sample normal interval and z test "
            f"(the runs' deals are independent, so no variance cancels). Rates in percent points. "
            f"{HOLM_NOTE.format(n=tested)} (per run)")
    return Table("unpaired_differences", f"Differences against {base} (unpaired)", frame, note)


def compare_runs(paths: list[str | os.PathLike | RunDataset], *, confidence: float = 0.95,
                 figures: bool = False, labels: list[str] | None = None) -> Report:
    """Compare two or more runs; the first is the baseline.

    Parameters
    ----------
    paths : list of dataset paths (or opened ``RunDataset``)
    confidence : float
    figures : bool
        Draw the paired-versus-unpaired interval plot for the HTML report.
    labels : list of str, optional
        How tables name the runs (default: each dataset's directory name); made unique.

    Returns
    -------
    Report
        Tables ``runs``, ``differences`` (every difference the runs' metadata records),
        ``side_by_side``, then for paired runs ``winner_changes`` and, per other
        run, ``paired_<run>`` and ``pairing_gain_<run>``; for unpaired runs ``unpaired_differences``.
    """
    if len(paths) < 2:
        raise AnalysisError("compare needs at least two datasets")
    datasets = [p if isinstance(p, RunDataset) else open_run(p) for p in paths]
    games = {d.game for d in datasets}
    if len(games) > 1:
        raise AnalysisError(f"cannot compare runs of different games: {', '.join(sorted(games))}")
    seats = {d.seats for d in datasets}
    if len(seats) > 1:
        raise AnalysisError(f"cannot compare runs with different numbers of seats: {sorted(seats)}")
    labels = _labels(datasets, labels)
    seeds = {d.seed for d in datasets}
    paired = len(seeds) == 1 and None not in seeds and all(d.has_columns("round") for d in datasets)
    metrics = comparison_metrics(datasets)
    columns = sorted({c for m in metrics for c in m.columns} | {"winner"})

    # Summary runs (fudasim run --summary) give their sums from their counts, and pair only with
    # the run they were paired with when they ran (--paired-with).
    problems = [_pairing_problem(datasets[0], other) for other in datasets[1:]] if paired else []
    if any(problem is not None for problem in problems):
        paired = False
    sums: list[dict[str, MetricSums]] = []
    for dataset in datasets:
        if dataset.summary:
            sums.append(_summary_sums(dataset, metrics))
            continue
        run_sums = {m.name: MetricSums() for m in metrics}
        for batch in dataset.iter_batches(columns):
            for metric in metrics:
                values = metric.value(batch, dataset)
                played = metric.rows(batch)
                run_sums[metric.name].add(values if played is None else values[played])
        sums.append(run_sums)

    # A yaku that no run ever completed (e.g. outside the yaku set played) is only noise here.
    metrics = [m for m in metrics if not m.name.startswith("yaku_") or any(s[m.name].total for s in sums)]
    tables = [_runs_table(datasets, labels, paired), _differences_table(datasets, labels),
              _side_by_side(metrics, sums, labels, confidence)]
    warnings: list[str] = []
    figures_out: list[Figure] = []
    if paired:
        deal_columns = [c for c in ["field_dealt"] + [f"hand_dealt_{s}" for s in range(datasets[0].seats)]
                        if all(d.has_columns(c) for d in datasets)]
        pair_sums = [{m.name: _PairSums() for m in metrics} for _ in datasets[1:]]
        changes = {label: [0, 0, 0] for label in labels[1:]}
        # Runs with rows pair round by round here; a summary run brought its sums with it.
        with_rows = [j for j in range(1, len(datasets)) if not datasets[j].summary]
        for j in range(1, len(datasets)):
            if datasets[j].summary:
                pair_sums[j - 1], changes[labels[j]] = _stored_pairs(datasets[j], metrics)
        walked = [datasets[0], *(datasets[j] for j in with_rows)] if with_rows else []
        for batches in aligned_batches(walked, columns + deal_columns) if walked else ():
            base_batch = batches[0]
            base_values = {m.name: m.value(base_batch, datasets[0]) for m in metrics}
            base_played = {m.name: m.rows(base_batch) for m in metrics}
            for position, batch in enumerate(batches[1:]):
                j = with_rows[position] - 1
                for metric in metrics:
                    x, y = base_values[metric.name], metric.value(batch, datasets[j + 1])
                    played = base_played[metric.name]
                    if played is not None:
                        # Paired over the rounds the seat (or dealer) played in both runs.
                        played = played & metric.rows(batch)
                        x, y = x[played], y[played]
                    pair_sums[j][metric.name].add(x, y)
                change = changes[labels[j + 1]]
                change[0] += len(batch["round"])
                change[1] += int((batch["winner"] != base_batch["winner"]).sum())
                if deal_columns:
                    same = np.ones(len(batch["round"]), dtype=bool)
                    if "field_dealt" in deal_columns:
                        same &= batch["field_dealt"] == base_batch["field_dealt"]
                    hands = [c for c in deal_columns if c.startswith("hand_dealt_")]
                    if hands:
                        # The same deal may reach the other seat when the dealer differs (match play).
                        mine = np.bitwise_or.reduce([batch[c] for c in hands])
                        theirs = np.bitwise_or.reduce([base_batch[c] for c in hands])
                        same &= mine == theirs
                    change[2] += int(same.sum())
        tables.append(_winner_changes({k: tuple(v) for k, v in changes.items()}, labels[0], confidence))
        for j, other in enumerate(labels[1:]):
            table, frame = _paired_table(metrics, pair_sums[j], labels[0], other, confidence)
            tables.append(table)
            if len(frame):
                tables.append(_pairing_gain_table(frame, labels[0], other, confidence))
                if figures:
                    from analysis.plots import pairing_plot

                    figures_out.append(Figure(f"pairing_{other}", f"{other} - {labels[0]}: paired (thick) and "
                                              f"unpaired (thin) {confidence:.0%} intervals", pairing_plot(frame),
                                              table=f"pairing_gain_{other}"))
            n_paired = changes[other][0]
            for dataset, label in ((datasets[0], labels[0]), (datasets[j + 1], other)):
                if dataset.n_rows > n_paired:
                    warnings.append(f"{label}: {dataset.n_rows - n_paired:,} rounds have no counterpart in "
                                    f"{other if label == labels[0] else labels[0]} and are left out of the paired tables")
            if n_paired and changes[other][2] < n_paired:
                warnings.append(f"{other}: {n_paired - changes[other][2]:,} of {n_paired:,} paired rounds were dealt "
                                f"differently from {labels[0]} (e.g. a redeal rule differs); they are still paired by round")
        if rounds_per_match_any(datasets):
            warnings.append("match play: rounds of one match are treated as independent; the dealer rotation "
                            "makes them slightly dependent, so intervals are a little optimistic")
    else:
        tables.append(_unpaired_table(metrics, sums, labels, confidence))
        found = [problem for problem in problems if problem is not None]
        if found:
            warnings += [f"cannot pair: {problem}" for problem in found]
        else:
            warnings.append("the runs do not share a seed: the comparison is unpaired (runs with one seed, "
                            "differing only in rules or policies, give much tighter differences)")
    for dataset in datasets:
        if dataset.n_rows < 1000:
            warnings.append(f"{dataset.label}: only {dataset.n_rows:,} rounds; differences of a few points "
                            f"cannot be resolved")
    report = Report(
        title=f"fudasim compare: {' vs '.join(labels)} ({'paired' if paired else 'unpaired'})",
        tables=tables,
        warnings=warnings,
        notices=hidden_notices(datasets),
        figures=figures_out,
        metadata={"datasets": [str(d.path) for d in datasets], "paired": paired, "confidence": confidence},
    )
    return report


def _pairing_problem(base: RunDataset, other: RunDataset) -> str | None:
    """Why ``other`` cannot be paired with ``base`` round by round (None: it can)."""
    if not base.summary and not other.summary:
        return None
    from analysis.summary_io import pairing_problem

    return pairing_problem(base, other)


def _summary_sums(dataset: RunDataset, metrics: list[Metric]) -> dict[str, MetricSums]:
    """A summary run's ``MetricSums`` of every metric, from its counts."""
    from analysis.summary_io import metric_sums, summarise_run

    sums = metric_sums(summarise_run(dataset), [m.name for m in metrics])
    return {name: MetricSums(*values) for name, values in sums.items()}


def _stored_pairs(dataset: RunDataset, metrics: list[Metric]) -> tuple[dict[str, _PairSums], list[int]]:
    """A paired summary run's per-metric ``_PairSums`` and winner changes, as it stored them.

    A metric it stored no sums for is one neither run can show (a yaku or end reason that
    neither has): zero on every paired round.
    """
    from analysis.summary_io import stored_pairs

    stored, changes = stored_pairs(dataset)
    out = {}
    for metric in metrics:
        values = stored.get(metric.name)
        out[metric.name] = _PairSums(*values) if values is not None else _PairSums(n=changes[0])
    return out, list(changes)


def rounds_per_match_any(datasets: list[RunDataset]) -> bool:
    """Whether any of the runs was played in matches."""
    return any(d.rounds_per_match is not None for d in datasets)
