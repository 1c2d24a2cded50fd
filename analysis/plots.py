"""Plots for the HTML report, drawn with matplotlib's object API into PNG bytes.

Only ``matplotlib.figure.Figure`` and the Agg canvas are used, never ``pyplot``: drawing a
report changes no global matplotlib state (a notebook's backend stays as it was).
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure as MatplotlibFigure

from analysis.render import RATE_KINDS, Figure
from analysis.summary import RunSummary
from analysis.tables import Table

__all__ = ["report_figures", "seat_label", "yaku_bars", "score_histograms", "seat_win_bars", "convergence_plot",
           "change_plot", "to_png"]

DPI = 110


def to_png(figure: MatplotlibFigure) -> bytes:
    """The PNG bytes of a matplotlib figure."""
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return buffer.getvalue()


def _errors(frame: pd.DataFrame, name: str, scale: float = 100.0) -> tuple[np.ndarray, np.ndarray]:
    rate = frame[f"{name}_rate"].to_numpy(dtype=float) * scale
    low = frame[f"{name}_low"].to_numpy(dtype=float) * scale
    high = frame[f"{name}_high"].to_numpy(dtype=float) * scale
    return rate, np.vstack([np.maximum(rate - low, 0), np.maximum(high - rate, 0)])


def seat_label(seat: int, policies: list[str] | None) -> str:
    """A legend entry naming the seat's policy, e.g. ``seat 0 (greedy)``."""
    if policies is None or seat >= len(policies):
        return f"seat {seat}"
    return f"seat {seat} ({policies[seat]})"


def yaku_bars(table: Table, seats: int, policies: list[str] | None = None) -> bytes:
    """Horizontal bars of each yaku's frequency per seat, with Wilson interval whiskers."""
    return to_png(yaku_bars_figure(table, seats, policies))


def yaku_bars_figure(table: Table, seats: int, policies: list[str] | None = None) -> MatplotlibFigure:
    """The matplotlib figure of ``yaku_bars``."""
    frame = table.frame
    labels = [f"{y} ({e})" for y, e in zip(frame["yaku"], frame["english"], strict=True)]
    figure = MatplotlibFigure(figsize=(8.5, 0.28 * len(frame) * max(1, seats) / 1.6 + 1.5))
    axes = figure.add_subplot()
    positions = np.arange(len(frame))
    height = 0.8 / seats
    for seat in range(seats):
        rate, error = _errors(frame, f"seat{seat}")
        axes.barh(positions + (seat - (seats - 1) / 2) * height, rate, height=height, xerr=error,
                  label=seat_label(seat, policies), capsize=1.5, error_kw={"elinewidth": 0.8})
    axes.set_yticks(positions, labels, fontsize=7)
    axes.invert_yaxis()
    axes.set_xlabel("rounds played in which the seat completed the yaku (%)")
    axes.legend(fontsize=8, loc="lower right")
    axes.grid(axis="x", alpha=0.3)
    return figure


def score_histograms(summary: RunSummary) -> bytes:
    """Score distribution of each seat (share of the rounds it played at each score)."""
    return to_png(score_histograms_figure(summary))


def score_histograms_figure(summary: RunSummary) -> MatplotlibFigure:
    """The matplotlib figure of ``score_histograms``."""
    figure = MatplotlibFigure(figsize=(8.5, 3.5))
    axes = figure.add_subplot()
    seats = len(summary.scores)
    for seat, histogram in enumerate(summary.scores):
        series = histogram.as_series()
        shares = series / max(series.sum(), 1) * 100.0
        values = series.index.to_numpy(dtype=float)
        span = np.diff(values).min() if len(values) > 1 else 1.0
        width = span * 0.8 / seats
        axes.bar(values + (seat - (seats - 1) / 2) * width, shares.to_numpy(), width=width,
                 label=seat_label(seat, summary.dataset.policies))
    axes.set_yscale("log")
    axes.set_xlabel("score")
    axes.set_ylabel("share of rounds played (%, log scale)")
    _legend_above(axes, seats)
    axes.grid(axis="y", alpha=0.3)
    return figure


def _legend_above(axes: Axes, columns: int) -> None:
    """The legend above the plot, in rows of ``columns``: it covers no data, and its place is
    fixed (matplotlib's "best" place is searched over the data, slowly on a large plot, and
    warns when it takes over a second)."""
    axes.legend(fontsize=8, ncols=columns, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)


def seat_win_bars(table: Table) -> bytes:
    """Win, loss and draw rate of each seat with Wilson intervals."""
    return to_png(seat_win_bars_figure(table))


def seat_win_bars_figure(table: Table) -> MatplotlibFigure:
    """The matplotlib figure of ``seat_win_bars``."""
    frame = table.frame
    figure = MatplotlibFigure(figsize=(6.5, 3.2))
    axes = figure.add_subplot()
    positions = np.arange(len(frame))
    for k, outcome in enumerate(("win", "loss", "draw")):
        rate, error = _errors(frame, outcome)
        axes.bar(positions + (k - 1) * 0.27, rate, width=0.27, yerr=error, capsize=3, label=outcome)
    axes.set_xticks(positions, [f"seat {s}\n{p}" for s, p in zip(frame["seat"], frame["policy"], strict=True)])
    axes.set_ylabel("share of rounds played (%)")
    axes.axhline(50, color="grey", lw=0.8, ls=":")
    _legend_above(axes, 3)  # inside the plot, the legend covered the last seat's bars
    return figure


def convergence_plot(table: Table, policies: list[str] | None = None) -> bytes:
    """Running win-rate estimates with their Wilson bands, against rounds on a log axis."""
    return to_png(convergence_plot_figure(table, policies))


def convergence_plot_figure(table: Table, policies: list[str] | None = None) -> MatplotlibFigure:
    """The matplotlib figure of ``convergence_plot``."""
    frame = table.frame
    figure = MatplotlibFigure(figsize=(8.5, 3.5))
    axes = figure.add_subplot()
    rounds = frame["rounds"].to_numpy(dtype=float)
    for name, label in (("seat0_win", f"{seat_label(0, policies)} win rate"), ("dealer_win", "dealer win rate")):
        if f"{name}_rate" not in frame.columns:
            continue
        rate = frame[f"{name}_rate"].to_numpy(dtype=float) * 100
        line = axes.plot(rounds, rate, label=label)[0]
        axes.fill_between(rounds, frame[f"{name}_low"] * 100, frame[f"{name}_high"] * 100,
                          color=line.get_color(), alpha=0.2)
    axes.set_xscale("log")
    axes.set_xlabel("rounds accumulated")
    axes.set_ylabel("estimate (%)")
    _legend_above(axes, 2)
    axes.grid(alpha=0.3)
    return figure


def report_figures(summary: RunSummary, tables: dict[str, Table], confidence: float = 0.95) -> list[Figure]:
    """The plots of a run report, each tied to the table it sits under in the HTML report."""
    policies = summary.dataset.policies
    out = [Figure("seat_plot", f"Win, loss and draw rate by seat over the rounds it played, with "
                               f"{confidence:.0%} Wilson intervals",
                  seat_win_bars(tables["outcomes_by_seat"]), table="outcomes_by_seat")]
    if "yaku_frequencies" in tables and len(tables["yaku_frequencies"].frame):
        out.append(Figure("yaku_plot", f"Yaku frequency per seat, with {confidence:.0%} Wilson intervals",
                          yaku_bars(tables["yaku_frequencies"], len(summary.seats), policies),
                          table="yaku_frequencies"))
    out.append(Figure("score_plot", "Score distribution per seat", score_histograms(summary),
                      table="score_distribution"))
    out.append(Figure("convergence_plot", f"Running estimates as rounds accumulate (shaded: {confidence:.0%} "
                                          f"Wilson interval)",
                      convergence_plot(tables["convergence_full"], policies), table="convergence"))
    return out


def pairing_plot(frame: pd.DataFrame) -> bytes:
    """Forest plot of rate differences: paired interval (thick) over the unpaired one (thin)."""
    picked = frame[(frame["kind"] == "rate") & (frame["headline"] | frame["metric"].str.startswith("ends by"))]
    figure = MatplotlibFigure(figsize=(8.0, 0.4 * len(picked) + 1.2))
    axes = figure.add_subplot()
    positions = np.arange(len(picked))
    diff = picked["difference_diff"].to_numpy(dtype=float) * 100
    axes.hlines(positions, picked["unpaired_low"] * 100, picked["unpaired_high"] * 100, color="grey", lw=1,
                label="unpaired interval")
    axes.hlines(positions, picked["difference_low"] * 100, picked["difference_high"] * 100, color="C0", lw=5,
                label="paired interval")
    axes.plot(diff, positions, "k|", markersize=12)
    axes.axvline(0, color="black", lw=0.8, ls=":")
    axes.set_yticks(positions, picked["metric"].tolist(), fontsize=8)
    axes.invert_yaxis()
    axes.set_xlabel("difference (percent points)")
    _legend_above(axes, 2)
    return to_png(figure)


def change_plot(frame: pd.DataFrame, labels: pd.Series) -> bytes:
    """Forest plot of paired changes: each row of ``frame`` (``kind``, ``change_diff``,
    ``change_low``, ``change_high``) is a point and its interval, named by ``labels`` (aligned with
    ``frame``); rates and differences of rates in percent points on the left, means on the right."""
    rate = frame["kind"].isin(RATE_KINDS).to_numpy()
    panels = [(mask, axis, scale) for mask, axis, scale in ((rate, "change (percent points)", 100.0),
                                                           (~rate, "change of the mean", 1.0)) if mask.any()]
    rows = max((int(mask.sum()) for mask, _, _ in panels), default=1)
    figure = MatplotlibFigure(figsize=(4.5 * len(panels) + 2.5, 0.32 * rows + 1.2))
    for position, (mask, axis, scale) in enumerate(panels):
        axes = figure.add_subplot(1, len(panels), position + 1)
        part = frame[mask]
        heights = np.arange(len(part))
        axes.hlines(heights, part["change_low"].to_numpy(dtype=float) * scale,
                    part["change_high"].to_numpy(dtype=float) * scale, color="C0", lw=4)
        axes.plot(part["change_diff"].to_numpy(dtype=float) * scale, heights, "k|", markersize=12)
        axes.axvline(0, color="black", lw=0.8, ls=":")
        axes.set_yticks(heights, labels[mask].tolist(), fontsize=8)
        axes.invert_yaxis()
        axes.set_xlabel(axis)
    figure.tight_layout()
    return to_png(figure)
