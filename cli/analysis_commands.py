"""``fudasim report``, ``compare`` and ``rescore``: thin click commands over ``analysis``.

Each command calls one analysis function and renders its ``Report``.  The text form goes to
the terminal; ``--format md|html|json|csv`` writes a file (``-o/--out FILE``, by default
``<dataset>-<command>.<ext>`` in the current directory; ``--out -`` writes to standard
output).  An existing file is never replaced without ``--overwrite``, and no output goes inside a
dataset directory.  An incomplete, damaged or mixed dataset is refused unless
``--allow-incomplete`` is given, which reads its intact shards and says so at the report's top.
Every user error (not
a dataset, another game's dataset, a missing column, an unknown table, an existing output) is
one line on stderr and exit status 2.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from cli.errors import UserError, reports_user_errors
from cli.paths import PathParam

__all__ = ["report", "compare", "rescore"]

EXTENSIONS = {"text": "txt", "md": "md", "html": "html", "json": "json", "csv": "csv"}


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def output_options(function):
    """``--format``, ``-o/--out`` (alias ``--output``), ``--overwrite``, ``--confidence``, spelled alike by every
    command (``run`` spells its output directory ``-o/--out`` too)."""
    function = click.option("--confidence", type=click.FloatRange(0.5, 0.9999), default=0.95, show_default=True,
                            help="Nominal coverage of every interval.")(function)
    function = click.option("--overwrite", is_flag=True, help="Replace an existing output file.")(function)
    function = click.option("-o", "--out", "--output", "output", type=PathParam(dir_okay=False, path_type=Path),
                            default=None,
                            help="Output file (default for md/html/json/csv: <dataset>-<command>.<ext> in the "
                                 "current directory; '-' for standard output). --output is accepted too.")(function)
    function = click.option("--format", "output_format", type=click.Choice(list(EXTENSIONS)), default="text",
                            show_default=True,
                            help="text: aligned tables on the terminal; md, html (self-contained, with plots), "
                                 "json, csv: a file.")(function)
    function = click.option("--allow-incomplete", is_flag=True,
                            help="Read only the intact shards of an incomplete or damaged dataset (the report "
                                 "says so at its top) instead of refusing it.")(function)
    return function


def _dataset_holding(target: Path, inputs: tuple[Path, ...]) -> Path | None:
    """The dataset directory (an input, or any directory with a manifest or shards) that ``target``
    would be written inside, or None."""
    from simcore.dataset import RUN_FILE, SHARD_NAME

    resolved = target.resolve()
    for source in inputs:
        source = source.resolve()
        if resolved == source or source in resolved.parents:
            return source
    for folder in resolved.parents:
        try:
            if (folder / RUN_FILE).is_file() or any(SHARD_NAME.fullmatch(p.name) for p in folder.iterdir()):
                return folder
        except OSError:
            continue
    return None


def _target(output_format: str, output: Path | None, overwrite: bool, default_stem: str,
            inputs: tuple[Path, ...] = ()) -> Path | None:
    """Where the report goes (None: standard output), checked before any work is done."""
    if output is None and output_format == "text":
        return None
    if output is not None and str(output) == "-":
        return None
    target = output if output is not None else Path(f"{default_stem}.{EXTENSIONS[output_format]}")
    inside = _dataset_holding(target, inputs)
    if inside is not None:
        raise UserError(f"{target}: is inside the dataset directory {inside}; write the report "
                                f"somewhere else")
    if target.exists() and not overwrite:
        raise UserError(f"{target}: already exists (use --overwrite to replace it)")
    if not target.parent.exists():
        raise UserError(f"{target.parent}: no such directory")
    return target


def _emit(report, output_format: str, target: Path | None) -> None:
    from analysis.render import render

    text = render(report, output_format)
    if target is None:
        click.echo(text, nl=False)
        return
    temporary = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
    finally:
        if temporary.exists():
            temporary.unlink()
    click.echo(f"wrote {target}")


def _open(path: Path, allow_incomplete: bool):
    from analysis.reader import open_run

    return open_run(path, allow_incomplete=allow_incomplete)


def _mark_incomplete(built, datasets) -> None:
    """Put each incomplete dataset's note at the top of the report (above the title, and first
    among the warnings)."""
    notes = [f"{d.label}: {d.incomplete}" if len(datasets) > 1 else d.incomplete
             for d in datasets if d.incomplete]
    if notes:
        built.incomplete[:0] = notes
        built.warnings[:0] = notes
        built.metadata["incomplete"] = notes


def _stem(dataset: Path, command: str) -> str:
    name = dataset.resolve().name or "dataset"
    if name.endswith(".parquet"):
        name = name[: -len(".parquet")]
    return f"{name}-{command}"


@click.command("report")
@click.argument("dataset", type=PathParam(path_type=Path))
@output_options
@reports_user_errors
def report(dataset: Path, output_format: str, output: Path | None, overwrite: bool, confidence: float,
           allow_incomplete: bool) -> None:
    """Tables of one run: outcomes by seat, role and policy, how rounds end, yaku frequencies,
    scores, round length and matches, every rate with its interval and sample size.

    DATASET is a directory written by `fudasim run` (or `run --summary`), a tournament folder
    written by `fudasim tournament` (its pairings, ratings, pairing matrix and throughput), or a
    sweep folder written by `fudasim sweep` (each combination, and each against the baseline,
    paired round by round; docs/sweep.md).
    """
    from analysis.report import build_report
    from simcore.run.tournament import is_tournament

    target = _target(output_format, output, overwrite, _stem(dataset, "report"), (dataset,))
    if is_tournament(dataset):
        from analysis.tournament import build_tournament_report

        _emit(build_tournament_report(dataset, confidence=confidence, figures=output_format == "html",
                                      allow_incomplete=allow_incomplete), output_format, target)
        return
    opened = _open(dataset, allow_incomplete)
    built = build_report(opened, confidence=confidence, figures=output_format == "html")
    _mark_incomplete(built, [opened])
    _emit(built, output_format, target)


@click.command("compare")
@click.argument("datasets", nargs=-1, required=True, type=PathParam(path_type=Path))
@click.option("--runs", "runs", multiple=True, metavar="RUN[,RUN...]",
              help="With one tournament or sweep folder: the runs to compare, by folder name (pair-0-1-AB, "
                   "combo-001) or label (greedy/random, card_values=T3_hanafuda); the first is the baseline.")
@output_options
@reports_user_errors
def compare(datasets: tuple[Path, ...], runs: tuple[str, ...], output_format: str, output: Path | None,
            overwrite: bool, confidence: float, allow_incomplete: bool) -> None:
    """Runs side by side; paired per-round differences when they share a seed.

    The first DATASET is the baseline.  Runs with one seed were dealt identical cards round by
    round, so their differences are paired (McNemar and paired z tests) and the report shows how
    much narrower pairing makes each interval; runs with different seeds are compared unpaired.

    One tournament or sweep folder compares its runs (or those --runs names); two tournament
    folders (or two sweep folders) on one seed are paired run by run: each policy's payoff and win
    rate in both, and the change, per pairing (docs/tournament.md, docs/sweep.md).
    """
    from analysis.compare import compare_runs
    from analysis.compare_folders import compare_paths, folder_kind
    from simcore.storage import is_uri

    local = [path for path in datasets if not is_uri(str(path))]
    for path in local:  # before any is taken for what it is not: name the one that is wrong
        if not path.exists():
            raise UserError(f"{path}: no such run, tournament or sweep folder")
    for k, path in enumerate(local):
        same = [other for other in local[:k] if other.resolve() == path.resolve()]
        if same:
            raise UserError(f"{same[0]} and {path} are the same folder; compare two different ones")
    if runs or len(datasets) < 2 or any(folder_kind(path) is not None for path in datasets):
        picked = [name.strip() for item in runs for name in item.split(",") if name.strip()]
        if runs and not picked:
            raise UserError(f"--runs {','.join(runs)!r}: names no run (give RUN,RUN,...)")
        target = _target(output_format, output, overwrite, _stem(datasets[0], "compare"), datasets)
        _emit(compare_paths(list(datasets), runs=picked, confidence=confidence, figures=output_format == "html",
                            allow_incomplete=allow_incomplete), output_format, target)
        return
    target = _target(output_format, output, overwrite, _stem(datasets[0], "compare"), datasets)
    opened = [_open(path, allow_incomplete) for path in datasets]
    from analysis.compare_folders import run_labels

    built = compare_runs(opened, confidence=confidence, figures=output_format == "html", labels=run_labels(opened))
    _mark_incomplete(built, opened)
    _emit(built, output_format, target)


@click.command("rescore")
@click.argument("dataset", type=PathParam(path_type=Path))
@click.option("--card-values", "card_values", multiple=True, metavar="TABLE",
              help="Card-value table of the run's rules file, e.g. T2_alt or T3_hanafuda (repeatable).")
@click.option("--chaff-set", "chaff_sets", multiple=True, metavar="SET",
              help="Chaff set of the run's rules file, A to F (repeatable).")
@output_options
@reports_user_errors
def rescore(dataset: Path, card_values: tuple[str, ...], chaff_sets: tuple[str, ...], output_format: str,
            output: Path | None, overwrite: bool, confidence: float, allow_incomplete: bool) -> None:
    """Decide every Tensho round again under another card-value table or chaff set.

    Uses the stored capture masks, without simulating again, and reports how many rounds change
    winner and how win rates shift.  DATASET may be a tournament folder (each pairing's payoffs,
    win rates, leader and ratings, original against rescored) or a sweep folder (every combination).
    The play is kept as it was: only the final card piles are decided again.
    """
    from analysis.compare_folders import folder_kind, rescore_folder
    from analysis.rescore import rescore_run

    target = _target(output_format, output, overwrite, _stem(dataset, "rescore"), (dataset,))
    if folder_kind(dataset) is not None:
        _emit(rescore_folder(dataset, list(card_values), list(chaff_sets), confidence=confidence,
                             allow_incomplete=allow_incomplete), output_format, target)
        return
    opened = _open(dataset, allow_incomplete)
    built = rescore_run(opened, list(card_values), list(chaff_sets), confidence=confidence)
    _mark_incomplete(built, [opened])
    _emit(built, output_format, target)
