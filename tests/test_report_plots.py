"""The HTML report's plots stay legible: the sweep's long combination labels leave the plots room
and its tick labels never touch; the seat chart's legend covers no bar."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg

from analysis.plots import seat_win_bars_figure
from analysis.sweep import sweep_plot_figure
from analysis.tables import Table


def _drawn(figure):
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas.get_renderer()


def _shown_ticks(axis, renderer):
    return [label.get_window_extent(renderer) for label in axis.get_ticklabels()
            if label.get_visible() and label.get_text()]


def test_the_sweep_plot_leaves_its_panels_room_and_its_tick_labels_apart():
    combinations = [f"card_values={table}, yaku_set_choice={choice}, triple_match={match}"
                    for table, choice, match in itertools.product(["T1_ise", "T2_alt", "T3_hanafuda"],
                                                                  ["fixed_1", "fixed_2"], ["one", "all"])][1:]
    rng = np.random.default_rng(3)
    rows = []
    for combination in combinations:
        for metric, size in (("dealer wins", 0.01), ("seat 0 payoff", 0.02)):
            centre = rng.normal(0, size)
            rows.append({"combination": combination, "metric": metric, "difference": centre,
                         "low": centre - size, "high": centre + size})
    figure = sweep_plot_figure(pd.DataFrame(rows))
    renderer = _drawn(figure)
    width = figure.bbox.width
    for axes in figure.axes:
        assert axes.get_window_extent(renderer).width > 0.25 * width  # the plot, not its labels, is wide
        ticks = _shown_ticks(axes.xaxis, renderer)
        assert len(ticks) >= 3
        assert not any(a.overlaps(b) for a, b in itertools.combinations(ticks, 2))
    # the combinations are named once, on the left
    assert len(_shown_ticks(figure.axes[0].yaxis, renderer)) == len(combinations)
    assert _shown_ticks(figure.axes[1].yaxis, renderer) == []


def test_the_seat_chart_legend_covers_no_bar():
    seats = 5
    frame = pd.DataFrame({"seat": range(seats), "policy": ["random"] * seats})
    for outcome, rate in (("win", 0.33), ("loss", 0.67), ("draw", 0.004)):
        frame[f"{outcome}_rate"] = rate
        frame[f"{outcome}_low"] = rate - 0.02
        frame[f"{outcome}_high"] = rate + 0.02
    figure = seat_win_bars_figure(Table("outcomes_by_seat", "Outcomes by seat", frame))
    renderer = _drawn(figure)
    axes = figure.axes[0]
    legend = axes.get_legend().get_window_extent(renderer)
    bars = [patch.get_window_extent(renderer) for patch in axes.patches]
    assert len(bars) == 3 * seats
    assert not any(legend.overlaps(bar) for bar in bars)
    assert figure.bbox.contains(*legend.p0) and figure.bbox.contains(*legend.p1)  # and is on the figure
