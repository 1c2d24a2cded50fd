"""``fudasim report``: every table of one run, as a ``Report``.

>>> from analysis import build_report
>>> report = build_report("fudasim-out")           # doctest: +SKIP
>>> report.table("outcomes_by_seat").frame          # doctest: +SKIP
"""

from __future__ import annotations

import os
from pathlib import Path

from analysis import tables as T
from analysis.reader import RunDataset, open_run
from analysis.render import Report, hidden_notices
from analysis.summary import RunSummary
from analysis.summary_io import summarise_run

__all__ = ["build_report", "report_tables"]

CONVERGENCE_TEXT_ROWS = 14


def report_tables(summary: RunSummary, confidence: float = 0.95) -> list[T.Table]:
    """The report's tables, in reading order; sections whose columns are absent are left out."""
    builders = [
        T.run_overview(summary),
        T.outcomes_by_seat(summary, confidence),
        T.outcomes_by_role(summary, confidence),
        T.outcomes_by_seat_order(summary, confidence),
        T.dealer_advantage(summary, confidence),
        T.outcomes_by_policy(summary, confidence),
        T.match_outcomes(summary, confidence),
        T.end_reasons(summary, confidence),
        T.tiebreak_depth(summary, confidence),
        T.stopping_yaku(summary, confidence),
        T.yaku_frequencies(summary, confidence),
        T.score_distribution(summary, confidence),
        T.round_length(summary, confidence),
        T.round_length_distribution(summary, confidence),
    ]
    if summary.section is not None:  # the game's own tables (koi-koi: its calls)
        builders += summary.section.tables(summary.section_counts, confidence, T)
    builders.append(T.convergence(summary, confidence, rows=CONVERGENCE_TEXT_ROWS))
    return [table for table in builders if table is not None]


def build_report(dataset: RunDataset | str | os.PathLike, *, confidence: float = 0.95,
                 figures: bool = False) -> Report:
    """Aggregate a run (one bounded-memory pass) and assemble its report.

    Parameters
    ----------
    dataset : RunDataset or path
        A dataset directory written by ``fudasim run`` (or one shard); a tournament folder
        gives ``analysis.tournament.build_tournament_report``'s report.
    confidence : float
        Nominal coverage of every interval.
    figures : bool
        Also draw the plots (PNG) that the HTML report embeds.

    Returns
    -------
    Report
        ``report.table(name).frame`` is a DataFrame; ``report.summary`` holds the raw counts.
    """
    if not isinstance(dataset, RunDataset):
        from simcore.run.tournament import is_tournament

        if Path(dataset).is_dir() and is_tournament(dataset):
            from analysis.tournament import build_tournament_report

            return build_tournament_report(dataset, confidence=confidence, figures=figures)
        dataset = open_run(dataset)
    summary = summarise_run(dataset)
    tables = report_tables(summary, confidence)
    warnings = [w for table in tables for w in table.warnings]
    if summary.rounds < 1000:
        warnings.insert(0, f"only {summary.rounds:,} rounds: every interval is wide; rates differing by "
                           f"less than about {100 / summary.rounds ** 0.5:.0f} points cannot be told apart")
    report = Report(
        title=f"fudasim report: {dataset.label} ({dataset.game}, {summary.rounds:,} rounds)",
        tables=tables,
        warnings=warnings,
        metadata={"dataset": str(dataset.path), "confidence": confidence, "run": dataset.run_info},
        notices=hidden_notices([dataset]),
    )
    report.summary = summary
    if figures:
        from analysis.plots import report_figures

        by_name = {t.name: t for t in tables}
        by_name["convergence_full"] = T.convergence(summary, confidence)
        report.figures = report_figures(summary, by_name, confidence)
    return report
