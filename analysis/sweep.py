"""The report of a sweep folder (``simcore.run.sweep``): every combination against the baseline.

Each combination's run is compared with the baseline's round by round (``analysis.compare``:
the runs share seed and rounds, so the differences are paired), on the outcomes a rule change
moves: the share of rounds whose winner changes, the dealer's win rate, each seat's win rate and
mean payoff, how rounds end, and the yaku whose frequency moved most. The p-values of every difference in the table are adjusted
together (Holm), so a difference marked significant stays so however many combinations and
outcomes the sweep holds.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis.compare import compare_runs
from analysis.intervals import holm_adjusted
from analysis.reader import AnalysisError, open_folder_run
from analysis.render import Figure, Report, Table, hidden_notices
from simcore.dataset import DatasetError
from simcore.run.tournament import read_tournament

__all__ = ["build_sweep_report"]


def _key_metric(metric: str) -> bool:
    return metric == "dealer wins" or metric.startswith("ends by ") or (
        metric.startswith("seat ") and (metric.endswith(" wins") or metric.endswith(" payoff")))


def build_sweep_report(path: str | os.PathLike, *, confidence: float = 0.95, figures: bool = False,
                       alpha: float = 0.05, allow_incomplete: bool = False) -> Report:
    """Every combination of a sweep folder against its baseline (module docstring).

    ``allow_incomplete`` reads an unfinished or damaged sweep: a missing or unreadable combination
    is left out, a damaged one read from its intact shards (the report's ``incomplete`` notes say
    what); the baseline must be there.
    """
    path = Path(path)
    try:
        manifest = read_tournament(path)
    except DatasetError as error:
        raise AnalysisError(str(error)) from None
    if manifest.get("kind") != "sweep":
        raise AnalysisError(f"{path}: not a sweep (a tournament: use fudasim report)")
    notes: list[str] = []
    if manifest.get("complete") is not True:
        if not allow_incomplete:
            raise AnalysisError(f"{path}: the sweep is not complete; finish it with `fudasim sweep ... --resume` "
                                f"or read what is there with --allow-incomplete")
        notes.append("the sweep is not complete")
    runs = manifest["runs"]
    base = int(manifest.get("baseline", 0))
    opened = {k: open_folder_run(path / runs[k]["name"], path, "sweep", allow_incomplete, notes, runs[k]["label"])
              for k in range(len(runs))}
    if opened[base] is None:
        raise AnalysisError(f"{path}: the baseline combination {runs[base]['label']} ({runs[base]['name']}) cannot "
                            f"be read, so nothing can be compared with it; finish the sweep with "
                            f"`fudasim sweep ... --out {path} --resume`")
    others = [k for k in range(len(runs)) if k != base and opened[k] is not None]
    if not others:
        raise AnalysisError(f"{path}: no combination besides the baseline can be read ({'; '.join(notes)})")
    datasets: list[Any] = [opened[k] for k in [base, *others]]
    compared = compare_runs(datasets, confidence=confidence)
    rows: list[dict[str, Any]] = []
    for j, k in enumerate(others, start=1):
        frame = compared.table(f"paired_{datasets[j].label}").frame
        keep = frame[frame["metric"].map(_key_metric)]
        yaku = frame[frame["metric"].str.startswith("yaku ")]
        if len(yaku):
            with np.errstate(divide="ignore", invalid="ignore"):
                strength = (yaku["difference_diff"].abs() / (yaku["difference_high"] - yaku["difference_low"])).fillna(0)
            keep = pd.concat([keep, yaku.loc[[strength.idxmax()]]])
        for _, r in keep.iterrows():
            rows.append({"combination": runs[k]["label"], "run": runs[k]["name"], "metric": r["metric"],
                         "kind": r["kind"], "difference": r["difference_diff"], "low": r["difference_low"],
                         "high": r["difference_high"], "p_value": r["p_value"]})
    table = pd.DataFrame(rows)
    if len(table):
        table["p_value_holm"] = holm_adjusted(table["p_value"].to_numpy())
        table["significant"] = table["p_value_holm"] < alpha
    side = compared.table("side_by_side").frame
    levels = _levels(side, datasets, runs, [base, *others])
    changes = _winner_changes(compared, datasets, runs, others)
    tables = [
        Table("sweep_setup", "Sweep", _setup(path, manifest), "Every combination plays the same rounds of the same "
              "seed: each row below is a paired, round-by-round difference from the baseline."),
        Table("sweep_levels", "Each combination", levels, "The key outcomes of every combination (rates in percent, "
              "per-seat rates over the rounds the seat played)."),
        *([changes] if changes is not None else []),
        Table("sweep_differences", f"Against the baseline ({runs[base]['label']})", _shown(table),
              f"Combination minus baseline, round by round; {confidence:.0%} normal intervals; p value: McNemar "
              f"(rates) or paired z (means); p value holm: Holm's adjustment over all {len(table)} differences of "
              f"this table, marked * below "
              f"{alpha}. The yaku row is the yaku whose frequency moved most (largest difference per interval width).",
              hidden=["kind", "estimate", "lower", "upper"]),
    ]
    report = Report(title=f"fudasim sweep: {path.name} ({manifest.get('game')}, {len(runs)} combinations, "
                          f"{int(manifest['deals']):,} rounds each)",
                    tables=tables, warnings=notes + list(compared.warnings), notices=hidden_notices(datasets[:1]),
                    metadata={"sweep": str(path), "confidence": confidence}, incomplete=list(notes))
    if notes:
        report.metadata["incomplete"] = notes
    if figures and len(table):
        report.figures = [Figure("sweep_plot", "Dealer's win rate and seat 0's mean payoff against the baseline, "
                                 "with intervals", _plot(table), table="sweep_differences")]
    return report


def _winner_changes(compared: Report, datasets: list[Any], runs: list[dict[str, Any]], others: list[int]) -> Table | None:
    """The share of rounds whose winner differs from the baseline's, per combination (None when
    the runs are not paired)."""
    try:
        frame = compared.table("winner_changes").frame.copy()
    except KeyError:
        return None
    label_of = {dataset.label: runs[k]["label"] for dataset, k in zip(datasets[1:], others, strict=True)}
    frame.insert(0, "combination", frame.pop("run").map(label_of))
    return Table("sweep_winner_changes", "Rounds whose winner changes", frame,
                 "Rounds (the same deals) whose winner differs from the baseline's: the share of games a player "
                 "would see end differently; same deal: rounds dealt the same cards in both; Wilson intervals.")


def _setup(path: Path, manifest: dict[str, Any]) -> pd.DataFrame:
    vary = "; ".join(f"{name} = {', '.join(values)}" for name, values in manifest["vary"])
    rows = [("sweep", str(path)), ("rules", str(manifest.get("rules_name"))), ("players", str(manifest.get("players"))),
            ("policies", " / ".join(manifest["policies"])), ("seed", str(manifest["seed"])),
            ("rounds per combination", f"{int(manifest['deals']):,}"), ("varied", vary),
            ("baseline", manifest["runs"][int(manifest.get("baseline", 0))]["label"])]
    if manifest.get("summary"):
        rows.append(("kept", "counts, not rows, paired with the baseline (docs/summary-runs.md)"))
    return pd.DataFrame(rows, columns=["item", "value"])


def _levels(side: pd.DataFrame, datasets: list[Any], runs: list[dict[str, Any]], order: list[int]) -> pd.DataFrame:
    metrics = [m for m in side["metric"] if _key_metric(m)]
    out = []
    for dataset, k in zip(datasets, order, strict=True):
        row: dict[str, Any] = {"combination": runs[k]["label"]}
        for metric in metrics:
            value = float(side.loc[side["metric"] == metric, dataset.label].iloc[0])
            kind = side.loc[side["metric"] == metric, "kind"].iloc[0]
            row[metric] = f"{100 * value:.2f}" if kind == "rate" else f"{value:.3f}"
        out.append(row)
    return pd.DataFrame(out)


def _shown(table: pd.DataFrame) -> pd.DataFrame:
    if not len(table):
        return pd.DataFrame(columns=["combination", "metric", "difference", "p_value", "p_value_holm", "kind",
                                     "estimate", "lower", "upper"])
    def cell(r: pd.Series) -> str:
        scale, digits = (100.0, 2) if r["kind"] == "rate" else (1.0, 3)
        return (f"{scale * r['difference']:+.{digits}f} [{scale * r['low']:+.{digits}f}, {scale * r['high']:+.{digits}f}]"
                + (" *" if r["significant"] else ""))
    # the p-values stay numbers: every report prints them alike (analysis.render)
    # the numbers behind the difference cell (kept in JSON and CSV, not shown in text)
    return pd.DataFrame({"combination": table["combination"], "metric": table["metric"],
                         "difference": table.apply(cell, axis=1), "p_value": table["p_value"],
                         "p_value_holm": table["p_value_holm"], "kind": table["kind"],
                         "estimate": table["difference"], "lower": table["low"], "upper": table["high"]})


def _plot(table: pd.DataFrame) -> bytes:
    from analysis.plots import to_png

    return to_png(sweep_plot_figure(table))


def sweep_plot_figure(table: pd.DataFrame) -> Any:
    """The sweep's plot (a matplotlib ``Figure``): the dealer's win rate and seat 0's mean payoff
    of each combination minus the baseline's, with intervals (``table``: the differences, one row
    per combination and metric, with ``difference``, ``low`` and ``high``)."""
    from matplotlib.figure import Figure as MatplotlibFigure
    from matplotlib.ticker import MaxNLocator

    panels = [("dealer wins", 100.0, "dealer's win rate (points)"), ("seat 0 payoff", 1.0, "seat 0 mean payoff")]
    combinations = list(dict.fromkeys(table["combination"]))
    # One option a line, and the labels once, on the left: long labels left the plots no room.
    labels = [label.replace(", ", ",\n") for label in combinations]
    lines = max(label.count("\n") + 1 for label in labels)
    figure = MatplotlibFigure(figsize=(10, 0.8 + 0.3 * lines * len(combinations)), layout="constrained")
    axes = figure.subplots(1, 2, sharey=True)
    for ax, (metric, scale, label) in zip(axes, panels, strict=True):
        part = table[table["metric"] == metric]
        y = np.array([combinations.index(c) for c in part["combination"]])
        ax.errorbar(scale * part["difference"], y, xerr=[scale * (part["difference"] - part["low"]),
                                                         scale * (part["high"] - part["difference"])],
                    fmt="o", capsize=3)
        ax.axvline(0, color="grey", lw=0.8)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5))  # few enough ticks that their labels never touch
        ax.set_xlabel(f"{label}, minus the baseline")
    axes[0].set_yticks(np.arange(len(combinations)), labels)
    axes[0].set_ylim(-0.5, len(combinations) - 0.5)
    return figure
