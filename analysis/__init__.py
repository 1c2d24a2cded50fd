"""fudasim's analysis layer: reports, comparisons and rescoring of Parquet datasets.

Every function takes a dataset path (or an opened ``RunDataset``), reads only the columns it
needs in bounded memory, and returns DataFrames (inside ``Report`` objects) for notebooks; the
CLI (``cli/analysis_commands.py``) only renders them.
"""

from analysis.reader import AnalysisError, RunDataset, open_run
from analysis.render import FORMATS, Report, render
from analysis.report import build_report
from analysis.summary import RunSummary
from analysis.summary_io import summarise_run

__all__ = [
    "AnalysisError",
    "FORMATS",
    "Report",
    "RunDataset",
    "RunSummary",
    "build_report",
    "open_run",
    "render",
    "summarise_run",
]
