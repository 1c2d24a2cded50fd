"""``fudasim compare`` and ``fudasim rescore`` on tournament and sweep folders.

A tournament or sweep folder (``simcore.run.tournament``, ``simcore.run.sweep``) holds ordinary runs that
share one seed and the rounds ``0 .. deals - 1``, so every run was dealt the same cards round by
round (guarantee 2 of docs/guarantees.md).  This module reads such folders as a user names them:

* ``compare_folder_runs(FOLDER)``: the folder's runs (all, or a selection) compared like any runs
  (``analysis.compare.compare_runs``, paired), each named by its seating's policies
  (``greedy/random``: seat 0's policy first) or its sweep combination instead of its path;
* ``compare_folders(X, Y)``: two tournaments (or two sweeps) played on the same seed, e.g. the
  same policies under the card-value tables T1 and T3, paired run by run (same pairing and
  seating, or the same combination) and deal by deal: per pairing, each policy's mean payoff and
  win rate in X and in Y and the change ``Y - X``, with paired intervals, who leads in each, and
  the Bradley-Terry ratings side by side; per sweep combination, each seat's outcomes;
* ``rescore_folder(FOLDER, card_values, chaff_sets)``: every run decided again under another
  card-value table or chaff set (``analysis.rescore``), and how the tournament's results change
  (per pairing, each policy's win rate and mean payoff before and after, paired over deals, who
  leads, the ratings) or, for a sweep, how each combination's outcomes shift.

Paired intervals over deals
---------------------------
In a tournament, policy ``P``'s value on deal ``d`` is its mean over the pairing's seatings of the
mean over the seats ``P`` holds (payoff), or the share of the seatings a seat of ``P`` won (win
rate).  A change ``y_d - x_d`` (folder Y minus folder X, or rescored minus original) has the
normal interval ``mean +- z s / sqrt(n)`` over the ``n`` deals both have, and the paired z test's
p-value.  Rating changes are percentile intervals of the paired bootstrap: both sides are refitted
on the same resampled deals (``analysis.tournament.bootstrap_ratings`` with one seed).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis.intervals import mean_interval, two_sided_p_value, z_value
from analysis.reader import AnalysisError, RunDataset, open_folder_run, open_run
from analysis.render import Figure, Report, hidden_notices
from analysis.tables import Table
from analysis.tournament import (
    BOOTSTRAP_REPLICATES,
    ELO_SCALE,
    PairOutcomes,
    bootstrap_ratings,
    bradley_terry,
    deal_results,
    pair_wins,
)
from simcore.dataset import RUN_FILE, DatasetError
from simcore.run.tournament import TOURNAMENT_FILE, read_tournament
from simcore.storage import is_store

__all__ = ["Folder", "FolderRun", "folder_kind", "open_folder", "run_labels", "compare_paths",
           "compare_folder_runs", "compare_folders", "rescore_folder", "policy_values", "paired_change"]

RESCORE_CAVEAT = ("rescoring re-decides the final card piles only: every decision is kept as played, so a "
                  "policy that weighs card values or chaff (greedy, heuristic, the search players) might have "
                  "played differently under the other table; only random play rescores exactly")


@dataclass(frozen=True)
class FolderRun:
    """One run of a folder: its directory name, how tables name it, and its manifest entry."""

    name: str
    label: str
    entry: dict[str, Any]


@dataclass
class Folder:
    """A tournament or sweep folder read for comparison: its kind, manifest and runs in order."""

    path: Path
    kind: str  # "tournament" or "sweep"
    manifest: dict[str, Any]
    runs: list[FolderRun]

    @property
    def label(self) -> str:
        """The folder's name."""
        return self.path.resolve().name or str(self.path)

    def run_path(self, run: FolderRun) -> Path:
        """The directory of one of its runs."""
        return self.path / run.name


def folder_kind(path: str | os.PathLike) -> str | None:
    """``"tournament"`` or ``"sweep"`` for a folder holding a tournament manifest, else None
    (always None for an object store: tournaments and sweeps are written to local folders)."""
    if is_store(path):
        return None
    manifest = Path(path) / TOURNAMENT_FILE
    if not manifest.is_file():
        return None
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "tournament"  # unreadable: ``open_folder`` says what is wrong with it
    return "sweep" if isinstance(data, dict) and data.get("kind") == "sweep" else "tournament"


def _run_label(kind: str, entry: dict[str, Any]) -> str:
    if kind == "sweep":
        return str(entry.get("label") or entry["name"])
    return "/".join(str(p) for p in entry.get("policies") or []) or str(entry["name"])


def open_folder(path: str | os.PathLike, allow_incomplete: bool = False) -> Folder:
    """Read a tournament or sweep folder's manifest; ``AnalysisError`` (one line) if it is neither,
    unreadable, or unfinished (unless ``allow_incomplete``)."""
    path = Path(path)
    kind = folder_kind(path)
    if kind is None:
        raise AnalysisError(f"{path}: not a tournament or sweep folder (no {TOURNAMENT_FILE})")
    try:
        manifest = read_tournament(path)
    except DatasetError as error:
        raise AnalysisError(str(error)) from None
    if manifest.get("complete") is not True and not allow_incomplete:
        raise AnalysisError(f"{path}: the {kind} is not complete; finish it with `fudasim {kind} ... --resume` "
                            f"or read what is there with --allow-incomplete")
    runs: list[FolderRun] = []
    labels = [_run_label(kind, entry) for entry in manifest["runs"]]
    for entry, label in zip(manifest["runs"], labels, strict=True):
        if labels.count(label) > 1:
            label = f"{label} ({entry['name']})"
        runs.append(FolderRun(str(entry["name"]), label, entry))
    return Folder(path, kind, manifest, runs)


def _select(folder: Folder, chosen: list[str]) -> list[FolderRun]:
    """The runs named by folder name or label (in the order given), or every run."""
    if not chosen:
        return list(folder.runs)
    out: list[FolderRun] = []
    for name in chosen:
        found = [run for run in folder.runs if name in (run.name, run.label)]
        if not found:
            known = ", ".join(run.name for run in folder.runs)
            raise AnalysisError(f"--runs {name!r}: no such run in {folder.path} (its runs: {known})")
        if found[0] in out:
            raise AnalysisError(f"--runs {name!r}: named twice")
        out.append(found[0])
    return out


def _enclosing(path: Path) -> tuple[Folder, FolderRun] | None:
    """The folder that lists the run ``path`` among its runs, if any."""
    parent = path.resolve().parent
    if folder_kind(parent) is None:
        return None
    try:
        folder = open_folder(parent, allow_incomplete=True)
    except AnalysisError:
        return None
    for run in folder.runs:
        if run.name == path.resolve().name:
            return folder, run
    return None


def run_labels(datasets: list[RunDataset]) -> list[str]:
    """How ``compare`` names runs: a run of a tournament or sweep folder by its seating's policies
    or its combination (prefixed with the folder's name when the runs come from several folders),
    any other run by its directory name."""
    found = [_enclosing(d.path) if isinstance(d.path, Path) else None for d in datasets]
    folders = {str(f[0].path.resolve()) for f in found if f is not None}
    labels = []
    for dataset, hit in zip(datasets, found, strict=True):
        if hit is None:
            labels.append(dataset.label)
        elif len(folders) == 1 and all(f is not None for f in found):
            labels.append(hit[1].label)
        else:
            labels.append(f"{hit[0].label}: {hit[1].label}")
    return labels


def _open_runs(folder: Folder, runs: list[FolderRun], allow_incomplete: bool,
               notes: list[str]) -> tuple[list[FolderRun], list[RunDataset]]:
    """The runs that can be read and their datasets (``open_folder_run``: with ``allow_incomplete``
    a missing or unreadable run is left out and ``notes`` says so)."""
    kept, datasets = [], []
    for run in runs:
        dataset = open_folder_run(folder.run_path(run), folder.path, folder.kind, allow_incomplete, notes, run.label)
        if dataset is not None:
            kept.append(run)
            datasets.append(dataset)
    return kept, datasets


def _incomplete_notes(report: Report, datasets: list[RunDataset], labels: list[str]) -> Report:
    notes = [f"{label}: {d.incomplete}" for d, label in zip(datasets, labels, strict=True) if d.incomplete]
    if notes:
        report.incomplete[:0] = notes
        report.warnings[:0] = notes
        report.metadata["incomplete"] = notes
    return report


def _folder_is_not_a_run(path: Path, kind: str, first_run: str | None) -> AnalysisError:
    example = f" ({path / first_run})" if first_run else ""
    return AnalysisError(f"{path}: a {kind} folder, not a run; compare it alone to compare its runs, name "
                         f"its runs{example}, or give two {kind} folders")


def compare_paths(paths: list[str | os.PathLike], *, runs: list[str] | tuple[str, ...] = (),
                  confidence: float = 0.95, figures: bool = False, allow_incomplete: bool = False) -> Report:
    """What ``fudasim compare PATH...`` does with its arguments.

    * one tournament or sweep folder: its runs, or those named in ``runs``, compared paired;
    * two tournament folders or two sweep folders: ``compare_folders``;
    * two or more runs: ``compare_runs``, each run named as ``run_labels`` names it.

    Raises ``AnalysisError`` (one line) for anything else: a folder among runs, a run alone, ``runs``
    without exactly one folder, more than two folders, folders that cannot be paired.
    """
    given = [Path(p) for p in paths]
    if not given:
        raise AnalysisError("compare needs at least two runs, or a tournament or sweep folder")
    kinds = [folder_kind(p) for p in given]
    if runs:
        if len(given) != 1 or kinds[0] is None:
            raise AnalysisError("--runs picks runs of one tournament or sweep folder; give that folder alone")
        return compare_folder_runs(given[0], list(runs), confidence=confidence, figures=figures,
                                   allow_incomplete=allow_incomplete)
    if len(given) == 1:
        if kinds[0] is None:
            try:
                open_run(given[0], allow_incomplete=allow_incomplete)
            except AnalysisError as error:
                if given[0].is_dir() and "not a fudasim dataset" in str(error):
                    raise AnalysisError(f"{given[0]}: not a run, tournament or sweep folder (no _run.json, "
                                        f"part-*.parquet or {TOURNAMENT_FILE})") from None
                raise
            raise AnalysisError(f"{given[0]}: one run; compare needs at least two datasets, or one tournament or sweep "
                                f"folder")
        return compare_folder_runs(given[0], confidence=confidence, figures=figures,
                                   allow_incomplete=allow_incomplete)
    if all(kind is not None for kind in kinds):
        if len(given) != 2:
            raise AnalysisError(f"compare pairs two tournament or sweep folders at a time, got {len(given)}")
        return compare_folders(given[0], given[1], confidence=confidence, allow_incomplete=allow_incomplete,
                               figures=figures)
    for path, kind in zip(given, kinds, strict=True):
        if kind is not None:
            try:
                first = read_tournament(path)["runs"][0]["name"]
            except (DatasetError, IndexError, KeyError):
                first = None
            raise _folder_is_not_a_run(path, kind, first)
    from analysis.compare import compare_runs

    datasets: list[Any] = [open_run(p, allow_incomplete=allow_incomplete) for p in given]
    labels = run_labels(datasets)
    report = compare_runs(datasets, confidence=confidence, figures=figures, labels=labels)
    return _incomplete_notes(report, datasets, labels)


def _folder_table(folder: Folder, runs: list[FolderRun]) -> Table:
    manifest = folder.manifest
    rows = [("folder", str(folder.path)), ("kind", folder.kind), ("rules", str(manifest.get("rules_name"))),
            ("seed", str(manifest.get("seed"))), ("rounds per run", f"{int(manifest['deals']):,}")]
    if folder.kind == "sweep":
        rows.append(("policies", " / ".join(manifest.get("policies") or [])))
    for run in runs:
        rows.append((f"run {run.name}", run.label))
    note = ("The runs share the seed and the rounds, so round r was dealt the same cards in every run: the "
            "comparison is paired. " + ("Runs are named by their seats' policies, seat 0 first."
                                        if folder.kind == "tournament" else "Runs are named by their combination."))
    return Table("folder", f"The {folder.kind}", pd.DataFrame(rows, columns=["item", "value"]), note)


def compare_folder_runs(path: str | os.PathLike, runs: list[str] | None = None, *, confidence: float = 0.95,
                        figures: bool = False, allow_incomplete: bool = False) -> Report:
    """Compare the runs of one tournament or sweep folder (all, or those ``runs`` names by folder
    name or label); the first is the baseline (a sweep's baseline combination when all are compared).

    Returns the ``compare_runs`` report with a ``folder`` table first.
    """
    from analysis.compare import compare_runs

    folder = open_folder(path, allow_incomplete=allow_incomplete)
    chosen = _select(folder, list(runs or []))
    if not runs and folder.kind == "sweep":
        base = int(folder.manifest.get("baseline", 0))
        if 0 <= base < len(chosen):
            chosen = [chosen[base]] + chosen[:base] + chosen[base + 1:]
    if len(chosen) < 2:
        raise AnalysisError(f"{folder.path}: compare needs at least two runs, got {len(chosen)}")
    notes: list[str] = []
    if folder.manifest.get("complete") is not True:
        notes.append(f"the {folder.kind} is not complete")
    chosen, datasets = _open_runs(folder, chosen, allow_incomplete, notes)
    if len(chosen) < 2:
        raise AnalysisError(f"{folder.path}: compare needs at least two runs that can be read ({'; '.join(notes)})")
    labels = [run.label for run in chosen]
    report = compare_runs(list(datasets), confidence=confidence, figures=figures, labels=labels)
    report.tables.insert(0, _folder_table(folder, chosen))
    report.title = f"fudasim compare: {folder.label} ({folder.kind}, {len(chosen)} runs): {report.title.split(': ', 1)[1]}"
    report.metadata["folder"] = str(folder.path)
    if notes:
        report.incomplete[:0] = notes
        report.warnings[:0] = notes
        report.metadata["incomplete"] = notes
    return report


# --- paired per-deal statistics -------------------------------------------------------------------


def policy_values(seating: str, winners: np.ndarray, payoffs: np.ndarray) -> dict[str, np.ndarray]:
    """Per deal, each letter's mean payoff per seat and whether one of its seats won, in one seating.

    Parameters
    ----------
    seating : str
        One letter (A or B) per seat.
    winners : int array, shape (deals,)
    payoffs : int or float array, shape (deals, seats)

    Returns
    -------
    dict with float64 arrays of shape (deals,): ``payoff_A``, ``payoff_B``, ``wins_A``, ``wins_B``
    (0 or 1), ``draws``.
    """
    payoffs = np.asarray(payoffs, dtype=np.float64)
    winners = np.asarray(winners)
    out = {}
    for letter in "AB":
        seats = np.array([seat for seat, held in enumerate(seating) if held == letter])
        out[f"payoff_{letter}"] = payoffs[:, seats].mean(axis=1)
        out[f"wins_{letter}"] = np.isin(winners, seats).astype(np.float64)
    out["draws"] = (winners < 0).astype(np.float64)
    return out


def paired_change(first: np.ndarray, second: np.ndarray, confidence: float) -> dict[str, float]:
    """Means of two per-deal series and of their difference ``second - first``, with normal intervals
    over the deals and the paired z test's p-value (float64 arrays of equal length)."""
    out: dict[str, float] = {}
    for name, key, values in (("first", "first", first), ("second", "second", second),
                              ("change", "change_diff", second - first)):
        values = np.asarray(values, dtype=np.float64)
        mean, low, high, sd = mean_interval(len(values), float(values.sum()), float((values * values).sum()),
                                            confidence)
        out[key], out[f"{name}_low"], out[f"{name}_high"] = mean, low, high
        if name == "change":
            if len(values) > 1 and sd > 0:
                out["p_value"] = float(two_sided_p_value(mean / (sd / np.sqrt(len(values)))))
            else:
                out["p_value"] = 1.0 if mean == 0 else 0.0
    return out


@dataclass
class _PairDeals:
    """One pairing's per-deal values by policy name: ``values[(policy, measure)]`` float64 (deals,)
    with measure ``payoff`` or ``wins``, plus ``draws`` and the deals present."""

    names: tuple[str, str]
    seatings: list[str]
    present: np.ndarray
    values: dict[tuple[str, str], np.ndarray]
    draws: np.ndarray

    def outcomes(self, index_of: dict[str, int]) -> PairOutcomes:
        """As ``analysis.tournament.PairOutcomes`` (counts over seatings), policies numbered by ``index_of``."""
        k = len(self.seatings)
        a, b = self.names
        wins_a = np.rint(self.values[(a, "wins")] * k).astype(np.int64)
        wins_b = np.rint(self.values[(b, "wins")] * k).astype(np.int64)
        draws = np.rint(self.draws * k).astype(np.int64)
        diff = self.values[(a, "payoff")] - self.values[(b, "payoff")]
        return PairOutcomes(index_of[a], index_of[b], list(self.seatings), self.present, diff, wins_a, wins_b,
                            draws)


def _pairings(folder: Folder, deals: int, read, allow_incomplete: bool,
              notes: list[str]) -> dict[frozenset[str], list[_PairDeals]]:
    """Per pairing of a tournament (by its two policy names), one ``_PairDeals`` per side.

    ``read(path, entry)`` gives a run's sides: a list of ``(winners int64 (deals,), payoffs
    float64 (deals, seats))``, and a bool (deals,) of the rounds present; or None when the run is
    missing (``allow_incomplete``: its pairing keeps no deal).
    """
    policies = list(folder.manifest["policies"])
    by_pair: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for entry in folder.manifest["runs"]:
        by_pair.setdefault((int(entry["pair"][0]), int(entry["pair"][1])), []).append(entry)
    out = {}
    for (first, second), entries in by_pair.items():
        names = (policies[first], policies[second])
        k = len(entries)
        present = np.ones(deals, dtype=bool)
        sums: list[dict[str, np.ndarray]] | None = None
        for entry in entries:
            path = folder.path / entry["name"]
            if not (path / RUN_FILE).is_file():
                if not allow_incomplete:
                    raise AnalysisError(f"{path}: a run of the tournament {folder.path} is missing")
                notes.append(f"{entry['name']}: missing; its pairing is left out")
                present[:] = False
                continue
            sides, run_present = read(path, entry)
            present &= run_present
            parts = [policy_values(entry["seating"], winners, payoffs) for winners, payoffs in sides]
            if sums is None:
                sums = [{key: value / k for key, value in part.items()} for part in parts]
            else:
                for total, part in zip(sums, parts, strict=True):
                    for key, value in part.items():
                        total[key] += value / k
        if sums is None:
            continue
        seatings = [entry["seating"] for entry in entries]
        a, b = names
        out[frozenset(names)] = [
            _PairDeals(names, seatings, present, {(a, "payoff"): part["payoff_A"], (a, "wins"): part["wins_A"],
                                                  (b, "payoff"): part["payoff_B"], (b, "wins"): part["wins_B"]},
                       part["draws"])
            for part in sums]
    return out


def _plain_reader(deals: int, allow_incomplete: bool, notes: list[str]):
    """A ``_pairings`` reader of each run's stored winners and payoffs."""

    def read(path: Path, entry: dict[str, Any]) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
        run = open_run(path, allow_incomplete=allow_incomplete)
        if run.incomplete:
            notes.append(f"{entry['name']}: {run.incomplete}")
        seats = run.seats
        run.require(["round", "winner", *[f"payoff_{s}" for s in range(seats)]], "comparing tournaments")
        winners, payoffs, present = deal_results(run, deals, seats)
        return [(winners, payoffs)], present

    return read


def _change_rows(pairing: str, a: str, b: str, first: _PairDeals, second: _PairDeals, present: np.ndarray,
                 confidence: float, extra: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of each policy's payoff and win rate, and the pairing's gaps, first against second."""
    rows = []
    n = int(present.sum())
    series = []
    for name in (a, b):
        series.append((name, "mean payoff", "mean", first.values[(name, "payoff")], second.values[(name, "payoff")]))
        series.append((name, "win rate", "rate", first.values[(name, "wins")], second.values[(name, "wins")]))
    series.append((f"{a} - {b}", "payoff gap", "mean", first.values[(a, "payoff")] - first.values[(b, "payoff")],
                   second.values[(a, "payoff")] - second.values[(b, "payoff")]))
    series.append((f"{a} - {b}", "win gap", "rate_diff", first.values[(a, "wins")] - first.values[(b, "wins")],
                   second.values[(a, "wins")] - second.values[(b, "wins")]))
    for policy, measure, kind, x, y in series:
        row = {"pairing": pairing, **extra, "policy": policy, "measure": measure, "kind": kind, "deals": n}
        row.update(paired_change(x[present], y[present], confidence))
        rows.append(row)
    return rows


def _leader(low: float, high: float, a: str, b: str) -> str:
    if low > 0:
        return a
    if high < 0:
        return b
    return "neither (interval spans 0)"


def _leaders(rows: pd.DataFrame, first: str, second: str, keys: list[str]) -> pd.DataFrame:
    """Who leads each pairing, by payoff and by wins, in the first and second column; whether it changes."""
    out = []
    gaps = rows[rows["measure"].isin(["payoff gap", "win gap"])]
    for _, r in gaps.iterrows():
        a, b = str(r["policy"]).split(" - ", 1)
        before = _leader(r["first_low"], r["first_high"], a, b)
        after = _leader(r["second_low"], r["second_high"], a, b)
        out.append({**{k: r[k] for k in keys}, "by": r["measure"].replace(" gap", ""),
                    f"leader {first}": before, f"leader {second}": after, "changes": before != after})
    return pd.DataFrame(out)


def _named(frame: pd.DataFrame, first: str, second: str) -> pd.DataFrame:
    """Rename the ``first``/``second`` interval columns after the two sides (when the names are usable)."""
    taken = set(frame.columns) - {c for c in frame.columns if c.startswith(("first", "second"))}
    if first == second or not first or not second or any(
            n in taken or f"{n}_low" in taken or n.endswith(("_low", "_high", "_small")) or n.startswith("change")
            for n in (first, second)):
        return frame
    mapping = {}
    for column in frame.columns:
        for side, name in (("first", first), ("second", second)):
            if column == side or column.startswith(f"{side}_"):
                mapping[column] = name + column[len(side):]
    return frame.rename(columns=mapping)


def _ratings_side_by_side(first_pairs: list[PairOutcomes], second_pairs: list[PairOutcomes], names: list[str],
                          seed: int, first: str, second: str, confidence: float,
                          replicates: int = BOOTSTRAP_REPLICATES) -> Table:
    """Bradley-Terry ratings of both sides on the same deals, and their paired bootstrap change."""
    m = len(names)
    rating_x = bradley_terry(pair_wins(first_pairs, m)[0]) * ELO_SCALE
    rating_y = bradley_terry(pair_wins(second_pairs, m)[0]) * ELO_SCALE
    samples_x = bootstrap_ratings(first_pairs, m, replicates, seed) * ELO_SCALE
    samples_y = bootstrap_ratings(second_pairs, m, replicates, seed) * ELO_SCALE
    tail = (1.0 - confidence) / 2.0 * 100.0

    def bounds(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not len(samples):
            return np.full(m, np.nan), np.full(m, np.nan)
        return np.percentile(samples, tail, axis=0), np.percentile(samples, 100.0 - tail, axis=0)

    frame = pd.DataFrame({"policy": names, "kind": "mean", "first": rating_x})
    frame["first_low"], frame["first_high"] = bounds(samples_x)
    frame["second"] = rating_y
    frame["second_low"], frame["second_high"] = bounds(samples_y)
    frame["change_diff"] = rating_y - rating_x
    frame["change_low"], frame["change_high"] = bounds(samples_y - samples_x)
    frame = frame.drop(columns=["kind"])
    note = (f"Bradley-Terry ratings (Elo scale, centred on 0 in each) fitted to the pairings both sides have, "
            f"with {confidence:.0%} percentile bootstrap intervals; change: {second} minus {first}, both refitted on "
            f"the same {replicates} resamples of the deals (paired). Ratings are relative: a change moves the "
            f"policies apart or together, not the level.")
    return Table("ratings", f"Ratings: {first} and {second}", _named(frame, first, second), note)


def _pairing_note(first: str, second: str, confidence: float, what: str) -> str:
    return (f"Per pairing, each policy's mean payoff and win rate (the share of rounds a seat of it won) in {first} "
            f"and {second}, and the change {second} - {first}{what}, over the deals both have: per deal, the mean over "
            f"the pairing's seatings, then a {confidence:.0%} normal interval over deals (paired: the same deals on "
            f"both sides) and the paired z test's p-value. payoff gap, win gap: the first policy minus the second.")


# --- two folders -----------------------------------------------------------------------------------


def _check_pairable(x: Folder, y: Folder) -> list[str]:
    """Refuse folders whose runs cannot be paired (saying why); warnings for what is left out."""
    if x.kind != y.kind:
        raise AnalysisError(f"cannot pair {x.path} (a {x.kind}) with {y.path} (a {y.kind}); compare two "
                            f"tournaments or two sweeps")
    mx, my = x.manifest, y.manifest
    if mx.get("game") != my.get("game"):
        raise AnalysisError(f"cannot pair {x.path} and {y.path}: different games ({mx.get('game')} and "
                            f"{my.get('game')})")
    if mx.get("players") != my.get("players"):
        raise AnalysisError(f"cannot pair {x.path} and {y.path}: different player counts ({mx.get('players')} and "
                            f"{my.get('players')}), so no seat matches")
    if mx.get("seed") != my.get("seed"):
        raise AnalysisError(f"cannot pair {x.path} and {y.path}: different seeds ({mx.get('seed')} and "
                            f"{my.get('seed')}), so their deals differ; play both with one --seed (or compare "
                            f"single runs unpaired by naming them)")
    warnings = []
    if mx.get("deals") != my.get("deals"):
        warnings.append(f"{x.label} has {int(mx['deals']):,} deals and {y.label} {int(my['deals']):,}: compared "
                        f"over the first {min(int(mx['deals']), int(my['deals'])):,}")
    if mx.get("engine_version") != my.get("engine_version"):
        warnings.append(f"different engine versions ({mx.get('engine_version')} and {my.get('engine_version')}): "
                        f"the deals are paired by round index; the same-deal share says how often they agree")
    return warnings


def _manifest_differences(x: Folder, y: Folder) -> pd.DataFrame:
    rows = []
    keys = ["rules_name", "rules_sha256", "engine_version", "engine", "deals", "policies"]
    for key in keys:
        a, b = x.manifest.get(key), y.manifest.get(key)
        if a != b:
            rows.append({"what": key.replace("_", " "), "first": _text(a), "second": _text(b)})
    ox, oy = x.manifest.get("options") or {}, y.manifest.get("options") or {}
    for key in sorted(set(ox) | set(oy)):
        if ox.get(key) != oy.get(key):
            rows.append({"what": f"option {key}", "first": _text(ox.get(key)), "second": _text(oy.get(key))})
    if x.kind == "sweep" and x.manifest.get("vary") != y.manifest.get("vary"):
        rows.append({"what": "varied", "first": _text(x.manifest.get("vary")), "second": _text(y.manifest.get("vary"))})
    if not rows:
        rows.append({"what": "nothing", "first": "same", "second": "same"})
    return pd.DataFrame(rows)


def _text(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    return str(value)


def _side_names(x: Folder, y: Folder) -> tuple[str, str]:
    first, second = x.label, y.label
    if first == second:
        return "first", "second"
    return first, second


def _same_deal_share(x: Path, y: Path, deals: int, seats: int) -> tuple[int, int]:
    """Rounds below ``deals`` in both runs, and those dealt the same cards (field and hands) in both."""
    columns = ["round", "field_dealt", *[f"hand_dealt_{s}" for s in range(seats)]]
    dealt = []
    for path in (x, y):
        run = open_run(path, allow_incomplete=True)
        if not run.has_columns(*columns):
            return 0, 0
        cards = np.zeros((deals, 2), dtype=np.uint64)
        present = np.zeros(deals, dtype=bool)
        for batch in run.iter_batches(columns):
            rounds = batch["round"].astype(np.int64)
            keep = (rounds >= 0) & (rounds < deals)
            hands = np.bitwise_or.reduce([batch[f"hand_dealt_{s}"].astype(np.uint64) for s in range(seats)])
            cards[rounds[keep], 0] = batch["field_dealt"].astype(np.uint64)[keep]
            cards[rounds[keep], 1] = hands[keep]
            present[rounds[keep]] = True
        dealt.append((cards, present))
    both = dealt[0][1] & dealt[1][1]
    same = both & (dealt[0][0] == dealt[1][0]).all(axis=1)
    return int(both.sum()), int(same.sum())


def compare_folders(first: str | os.PathLike, second: str | os.PathLike, *, confidence: float = 0.95,
                    allow_incomplete: bool = False, replicates: int = BOOTSTRAP_REPLICATES,
                    figures: bool = False) -> Report:
    """Two tournaments (or two sweeps) on the same seed, paired run by run and deal by deal.

    Tournaments: tables ``folders``, ``differences``, ``pairings`` (each matched pairing's
    policies: mean payoff and win rate in each folder and the change, paired over deals),
    ``leaders`` and ``ratings``.  Sweeps: ``folders``, ``differences``, ``combinations`` (each
    matched combination's seat and dealer outcomes in each folder and the change, paired round by
    round).  ``second`` minus ``first`` throughout.  With ``figures``, a plot of the changes
    and their intervals under the ``pairings`` (each pairing's gaps) or ``combinations`` table.
    """
    x = open_folder(first, allow_incomplete=allow_incomplete)
    y = open_folder(second, allow_incomplete=allow_incomplete)
    for folder in (x, y):
        if folder.manifest.get("summary"):
            raise AnalysisError(f"{folder.path}: a summary sweep keeps each combination's differences from its own "
                                f"baseline only, so it pairs with no other folder; compare its combinations with "
                                f"fudasim compare {folder.path}, or two sweeps that keep their rows")
    warnings = _check_pairable(x, y)
    z_value(confidence)
    names = _side_names(x, y)
    deals = min(int(x.manifest["deals"]), int(y.manifest["deals"]))
    differences = _manifest_differences(x, y).rename(columns={"first": names[0], "second": names[1]})
    if x.kind == "tournament":
        tables, more, matched = _compare_tournaments(x, y, names, deals, confidence, allow_incomplete, replicates)
    else:
        tables, more, matched = _compare_sweeps(x, y, names, confidence, allow_incomplete)
    warnings += more
    seats = int(x.manifest["players"])
    both = same = 0
    if matched:
        both, same = _same_deal_share(x.path / matched[0][0], y.path / matched[0][1], deals, seats)
        if both and same < both:
            warnings.append(f"{both - same:,} of {both:,} rounds were dealt differently in {names[0]} and {names[1]} "
                            f"(e.g. a redeal rule or the deck differs); they are still paired by round index")
    setup = pd.DataFrame([
        ("first", str(x.path)), ("second", str(y.path)), ("kind", x.kind),
        ("seed", str(x.manifest.get("seed"))), ("deals compared", f"{deals:,}"),
        ("paired runs", f"{len(matched)}"),
        ("rounds dealt the same cards", f"{same:,} of {both:,} (field and hands, in the first paired runs)"
         if both else "-"),
    ], columns=["item", "value"])
    intro = [Table("folders", f"{names[0]} and {names[1]}", setup,
                   f"Both {x.kind}s played rounds 0..{deals - 1} of one seed: runs with the same "
                   + ("pairing and seating" if x.kind == "tournament" else "combination")
                   + " are paired, deal by deal."),
             Table("differences", "What differs", differences,
                   "Every setting in which the two folders' manifests differ.")]
    policies = list(dict.fromkeys([*(x.manifest.get("policies") or []), *(y.manifest.get("policies") or [])]))
    notices = hidden_notices([_Named(f"{names[0]}/{names[1]}", policies)])
    plots = [_change_figure(x.kind, tables[0], names, confidence)] if figures else []
    return Report(title=f"fudasim compare: {names[0]} vs {names[1]} ({x.kind}s, paired over {deals:,} deals)",
                  tables=intro + tables, figures=plots, warnings=warnings, notices=notices,
                  metadata={"first": str(x.path), "second": str(y.path), "kind": x.kind, "confidence": confidence})


def _change_figure(kind: str, table: Table, names: tuple[str, str], confidence: float) -> Figure:
    """The plot of ``compare_folders``: each pairing's gaps, or each combination's measures, as
    changes with their intervals."""
    from analysis.plots import change_plot

    frame = table.frame
    if kind == "tournament":
        frame = frame[frame["measure"].isin(("payoff gap", "win gap"))]
        labels = frame["pairing"] + ": " + frame["measure"]
        what = "each pairing's payoff and win gaps"
    else:
        labels = frame["combination"] + ": " + frame["metric"]
        what = "each combination's measures"
    return Figure(f"{table.name}_plot", f"{names[1]} - {names[0]}: {what}, paired, with {confidence:.0%} intervals",
                  change_plot(frame, labels), table=table.name)


@dataclass(frozen=True)
class _Named:
    """Just enough of a dataset for ``hidden_notices``."""

    label: str
    policies: list[str]


def _compare_tournaments(x: Folder, y: Folder, names: tuple[str, str], deals: int, confidence: float,
                         allow_incomplete: bool, replicates: int
                         ) -> tuple[list[Table], list[str], list[tuple[str, str]]]:
    warnings: list[str] = []
    pairs_x = {key: sides[0] for key, sides in _pairings(x, deals, _plain_reader(deals, allow_incomplete, warnings),
                                                          allow_incomplete, warnings).items()}
    pairs_y = {key: sides[0] for key, sides in _pairings(y, deals, _plain_reader(deals, allow_incomplete, warnings),
                                                          allow_incomplete, warnings).items()}
    common = [key for key in pairs_x if key in pairs_y]
    for key, side in [(k, x) for k in pairs_x if k not in pairs_y] + [(k, y) for k in pairs_y if k not in pairs_x]:
        warnings.append(f"the pairing {' vs '.join(sorted(key))} is played only in {side.label}; left out")
    if not common:
        raise AnalysisError(f"cannot pair {x.path} and {y.path}: no pairing of policies in common ({x.label}: "
                            f"{', '.join(x.manifest['policies'])}; {y.label}: {', '.join(y.manifest['policies'])})")
    matched = [key for key in common if (pairs_x[key].present & pairs_y[key].present).any()]
    for key in common:
        if key not in matched:
            warnings.append(f"the pairing {' vs '.join(sorted(key))} has no deal played in every seating of both; "
                            f"left out")
    if not matched:
        raise AnalysisError(f"cannot pair {x.path} and {y.path}: no pairing has a deal played in every seating of "
                            f"both (runs missing or empty)")
    rows: list[dict[str, Any]] = []
    matched_runs: list[tuple[str, str]] = []
    involved: list[str] = []
    outcomes_x, outcomes_y = [], []
    for key in matched:
        px, py = pairs_x[key], pairs_y[key]
        a, b = px.names
        if sorted(px.seatings) != sorted(py.seatings):
            raise AnalysisError(f"cannot pair {x.path} and {y.path}: the pairing {a} vs {b} has seatings "
                                f"{', '.join(px.seatings)} in one and {', '.join(py.seatings)} in the other")
        seat_runs_x = {tuple(e["policies"]): e["name"] for e in x.manifest["runs"]}
        seat_runs_y = {tuple(e["policies"]): e["name"] for e in y.manifest["runs"]}
        for policies, name in seat_runs_x.items():
            if set(policies) == {a, b} and policies in seat_runs_y:
                matched_runs.append((name, seat_runs_y[policies]))
        present = px.present & py.present
        rows += _change_rows(f"{a} vs {b}", a, b, px, py, present, confidence, {})
        for name in (a, b):
            if name not in involved:
                involved.append(name)
        ox, oy = replace(px, present=present), replace(py, present=present)
        outcomes_x.append(ox)
        outcomes_y.append(oy)
    frame = pd.DataFrame(rows)
    leaders = _leaders(frame, names[0], names[1], ["pairing"])
    index_of = {name: k for k, name in enumerate(involved)}
    seed = int(x.manifest.get("seed", 0))
    tables = [
        Table("pairings", f"Each pairing in {names[0]} and {names[1]}", _named(frame, *names),
              _pairing_note(names[0], names[1], confidence, "")),
        Table("leaders", "Who leads each pairing", leaders,
              f"The policy whose payoff (or win) gap over the other has a {confidence:.0%} interval above 0, in each "
              f"folder; changes: the leader differs.", keys=["pairing", "by"]),
        _ratings_side_by_side([p.outcomes(index_of) for p in outcomes_x], [p.outcomes(index_of) for p in outcomes_y],
                              involved, seed, names[0], names[1], confidence, replicates),
    ]
    return tables, warnings, matched_runs


SWEEP_MEASURES = ("seat {s} wins", "seat {s} payoff", "dealer wins", "drawn")


def _compare_sweeps(x: Folder, y: Folder, names: tuple[str, str], confidence: float,
                    allow_incomplete: bool) -> tuple[list[Table], list[str], list[tuple[str, str]]]:
    from analysis.compare import compare_runs

    by_label = {run.label: run for run in y.runs}
    matched = [(run, by_label[run.label]) for run in x.runs if run.label in by_label]
    warnings = [f"the combination {run.label} is played only in {x.label}; left out"
                for run in x.runs if run.label not in by_label]
    warnings += [f"the combination {run.label} is played only in {y.label}; left out"
                 for run in y.runs if run.label not in {r.label for r in x.runs}]
    if not matched:
        raise AnalysisError(f"cannot pair {x.path} and {y.path}: no combination in common ({x.label}: "
                            f"{'; '.join(r.label for r in x.runs)}; {y.label}: {'; '.join(r.label for r in y.runs)})")
    seats = int(x.manifest["players"])
    wanted = [m.format(s=s) for m in SWEEP_MEASURES[:2] for s in range(seats)] + list(SWEEP_MEASURES[2:])
    rows = []
    read: list[tuple[FolderRun, FolderRun]] = []
    for run_x, run_y in matched:
        opened = []
        for folder, run in ((x, run_x), (y, run_y)):
            notes: list[str] = []
            opened.append(open_folder_run(folder.run_path(run), folder.path, "sweep", allow_incomplete, notes,
                                          run.label))
            warnings += [f"{folder.label}: {note}" for note in notes]
        if opened[0] is None or opened[1] is None:
            continue  # left out (allow_incomplete); the notes say which
        read.append((run_x, run_y))
        datasets: list[Any] = list(opened)
        compared = compare_runs(datasets, confidence=confidence, labels=["first", "second"])
        paired = compared.table("paired_second").frame
        levels = compared.table("side_by_side").frame
        for metric in wanted:
            found = paired[paired["metric"] == metric]
            if not len(found):
                continue
            r = found.iloc[0]
            values = levels[levels["metric"] == metric].iloc[0]
            row: dict[str, Any] = {"combination": run_x.label, "metric": metric, "kind": r["kind"],
                                   "paired_rounds": int(r["paired_rounds"])}
            for side in ("first", "second"):
                for suffix in ("", "_low", "_high", "_small"):
                    row[f"{side}{suffix}"] = values[f"{side}{suffix}"]
            row.update({"change_diff": r["difference_diff"], "change_low": r["difference_low"],
                        "change_high": r["difference_high"], "p_value": r["p_value"]})
            rows.append(row)
    if not read:
        raise AnalysisError(f"cannot pair {x.path} and {y.path}: no combination in common can be read in both "
                            f"({'; '.join(warnings)})")
    frame = pd.DataFrame(rows)
    table = Table("combinations", f"Each combination in {names[0]} and {names[1]}", _named(frame, *names),
                  f"Per combination, each seat's win rate and mean payoff, the dealer's and the draw rate in "
                  f"{names[0]} and {names[1]} (each over all its rounds), and the change {names[1]} - {names[0]} "
                  f"round by round with a {confidence:.0%} normal interval and McNemar's (rates) or the paired "
                  f"z test's (means) p-value. Rates in percent; changes of rates in percent points.")
    return [table], warnings, [(a.name, b.name) for a, b in read]


# --- rescoring a folder ----------------------------------------------------------------------------


def rescore_folder(path: str | os.PathLike, card_values: list[str] | str | None = None,
                   chaff_sets: list[str] | str | None = None, *, confidence: float = 0.95,
                   allow_incomplete: bool = False, replicates: int = BOOTSTRAP_REPLICATES) -> Report:
    """Rescore every run of a tournament or sweep folder and report how its results change.

    Tournament: tables ``rescore_setup``, ``winner_changes`` (per run), ``pairings`` (per pairing
    and alternative, each policy's win rate and mean payoff before and after, paired over deals),
    ``leaders`` and ``ratings`` (original and rescored).  Sweep: ``rescore_setup``,
    ``winner_changes`` and ``win_rate_shift`` with one block per combination.
    """
    folder = open_folder(path, allow_incomplete=allow_incomplete)
    z_value(confidence)
    if folder.kind == "sweep":
        return _rescore_sweep(folder, card_values, chaff_sets, confidence, allow_incomplete)
    return _rescore_tournament(folder, card_values, chaff_sets, confidence, allow_incomplete, replicates)


def _rescore_sweep(folder: Folder, card_values, chaff_sets, confidence: float, allow_incomplete: bool) -> Report:
    from analysis.rescore import NOT_REPRODUCED, rescore_run

    changes: list[pd.DataFrame] = []
    shifts: list[pd.DataFrame] = []
    warnings: list[str] = []
    notices: list[str] = []
    reproduced: list[tuple[str, str, str]] = []
    left_out: list[str] = []
    for run in folder.runs:
        notes: list[str] = []
        opened = open_folder_run(folder.run_path(run), folder.path, "sweep", allow_incomplete, notes, run.label)
        if opened is None:
            left_out += notes
            continue
        dataset = opened
        report = rescore_run(dataset, card_values, chaff_sets, confidence=confidence)
        for name, store in (("winner_changes", changes), ("win_rate_shift", shifts)):
            frame = report.table(name).frame.copy()
            frame.insert(0, "combination", run.label)
            store.append(frame)
        setup = report.table("rescore_setup").frame.set_index("item")["value"]
        reproduced.append((run.label, setup["original scoring"], setup["stored outcomes reproduced"]))
        warnings += [w for w in report.warnings if w not in warnings]
        notices += [f"{run.label}: {n}" for n in report.notices if n.startswith(NOT_REPRODUCED)]
        if dataset.incomplete:
            warnings.insert(0, f"{run.label}: {dataset.incomplete}")
    if not changes:
        raise AnalysisError(f"{folder.path}: no combination of the sweep can be read ({'; '.join(left_out)})")
    if folder.manifest.get("complete") is not True:
        left_out.insert(0, "the sweep is not complete")
    warnings[:0] = left_out
    rows = [("folder", str(folder.path)), ("kind", "sweep"), ("policies", " / ".join(folder.manifest["policies"])),
            ("what is rescored", "the final card piles as played (the play is not replayed)")]
    rows += [(f"{label}", f"{original}; stored outcomes reproduced {count}") for label, original, count in reproduced]
    tables = [
        Table("rescore_setup", "Rescoring every combination", pd.DataFrame(rows, columns=["item", "value"]),
              "Every round of every combination decided again from its stored capture masks; yaku points are "
              "unchanged."),
        Table("winner_changes", "Rounds that change winner", pd.concat(changes, ignore_index=True),
              f"Per combination and alternative, rounds whose winner differs after rescoring ({confidence:.0%} "
              f"Wilson interval)."),
        Table("win_rate_shift", "How win rates shift", pd.concat(shifts, ignore_index=True),
              f"Per combination: rates before and after on the same rounds; the shift is the paired per-round "
              f"difference ({confidence:.0%} normal interval) and its p-value McNemar's test."),
    ]
    if RESCORE_CAVEAT not in warnings:
        warnings.insert(0, RESCORE_CAVEAT)
    return Report(title=f"fudasim rescore: {folder.label} (sweep, {len(folder.runs)} combinations)", tables=tables,
                  warnings=warnings,
                  notices=notices + hidden_notices([_Named(folder.label,
                                                           folder.manifest["policies"])]),
                  metadata={"folder": str(folder.path), "kind": "sweep", "confidence": confidence},
                  incomplete=left_out)


def _payoff_rule(batch: dict[str, np.ndarray], seats: int) -> set[str]:
    """Which payoff rules every round of the batch fits: ``winner`` (+1 the winner, -1 each other
    seat, 0 on a draw) and ``score`` (own score minus the other's; two seats only)."""
    rules = set()
    winners = batch["winner"].astype(np.int64)
    payoffs = np.stack([batch[f"payoff_{s}"].astype(np.int64) for s in range(seats)], axis=1)
    expected = np.where(winners[:, None] == np.arange(seats)[None, :], 1, -1)
    expected[winners < 0] = 0
    if (payoffs == expected).all():
        rules.add("winner")
    if seats == 2 and all(f"score_{s}" in batch for s in range(2)):
        score = np.stack([batch["score_0"].astype(np.int64), batch["score_1"].astype(np.int64)], axis=1)
        if (payoffs[:, 0] == score[:, 0] - score[:, 1]).all() and (payoffs[:, 1] == -payoffs[:, 0]).all():
            rules.add("score")
    return rules


@dataclass
class _RescoredRun:
    winners: np.ndarray  # int64 (deals,)
    payoffs: np.ndarray  # float64 (deals, seats)
    alternatives: list[tuple[np.ndarray, np.ndarray]]  # rescored (winners, payoffs) per alternative
    present: np.ndarray
    rounds: int
    reproduced: int
    changed: list[int]
    payoff_rescored: bool


def _rescore_tournament_run(path: Path, deals: int, card_values, chaff_sets, allow_incomplete: bool
                            ) -> tuple[_RescoredRun, list[Any], RunDataset]:
    from analysis.rescore import (
        N_SEATS,
        RESCORE_COLUMNS,
        codes_to_reference,
        parse_alternatives,
        rescore_batch,
        rules_of,
    )

    dataset = open_run(path, allow_incomplete=allow_incomplete)
    rules = rules_of(dataset)
    alternatives = parse_alternatives(rules, card_values, chaff_sets)
    columns = [*RESCORE_COLUMNS, *[f"payoff_{s}" for s in range(N_SEATS)], *[f"score_{s}" for s in range(N_SEATS)]]
    dataset.require(columns, "rescoring a tournament")
    winners = np.full(deals, -1, dtype=np.int64)
    payoffs = np.zeros((deals, N_SEATS))
    present = np.zeros(deals, dtype=bool)
    rescored = [(np.full(deals, -1, dtype=np.int64), np.zeros((deals, N_SEATS))) for _ in alternatives]
    fits = {"winner", "score"}
    rounds = reproduced = 0
    changed = [0] * len(alternatives)
    for batch in dataset.iter_batches(columns):
        rows = batch["round"].astype(np.int64)
        keep = (rows >= 0) & (rows < deals)
        batch = {k: v[keep] for k, v in batch.items()}
        rows = rows[keep]
        batch = dict(batch, end_reason=codes_to_reference(batch, dataset))
        fits &= _payoff_rule(batch, N_SEATS)
        original = batch["winner"].astype(np.int64)
        again = rescore_batch(batch, rules.values[rules.original.card_values], rules.chaff[rules.original.chaff_set],
                              rules.values_only, rules.final_tie)
        reproduced += int((again["winner"] == original).sum())
        rounds += len(rows)
        present[rows] = True
        winners[rows] = original
        stored = np.stack([batch[f"payoff_{s}"] for s in range(N_SEATS)], axis=1).astype(np.float64)
        payoffs[rows] = stored
        for k, alternative in enumerate(alternatives):
            out = rescore_batch(batch, rules.values[alternative.card_values], rules.chaff[alternative.chaff_set],
                                rules.values_only, rules.final_tie)
            rescored[k][0][rows] = out["winner"]
            changed[k] += int((out["winner"] != original).sum())
            rescored[k][1][rows] = stored  # replaced below once the payoff rule is known
    payoff_rescored = "winner" in fits or "score" in fits
    if "winner" in fits:
        for new_winners, new_payoffs in rescored:
            expected = np.where(new_winners[:, None] == np.arange(N_SEATS)[None, :], 1.0, -1.0)
            expected[new_winners < 0] = 0.0
            new_payoffs[:] = expected
    # "score": payoffs are score differences, and scores (yaku points) do not change.
    return (_RescoredRun(winners, payoffs, rescored, present, rounds, reproduced, changed, payoff_rescored),
            alternatives, dataset)


def _rescore_tournament(folder: Folder, card_values, chaff_sets, confidence: float, allow_incomplete: bool,
                        replicates: int) -> Report:
    manifest = folder.manifest
    deals = int(manifest["deals"])
    policies = list(manifest["policies"])
    warnings: list[str] = []
    change_rows: list[dict[str, Any]] = []
    alternatives: list[Any] = []
    datasets: list[RunDataset] = []
    totals = {"rounds": 0, "reproduced": 0, "payoff": True}

    def read(path: Path, entry: dict[str, Any]) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
        nonlocal alternatives
        run, alternatives, dataset = _rescore_tournament_run(path, deals, card_values, chaff_sets, allow_incomplete)
        datasets.append(dataset)
        if dataset.incomplete:
            warnings.append(f"{entry['name']}: {dataset.incomplete}")
        totals["payoff"] = bool(totals["payoff"]) and run.payoff_rescored
        totals["rounds"] = int(totals["rounds"]) + run.rounds
        totals["reproduced"] = int(totals["reproduced"]) + run.reproduced
        for alternative, changed in zip(alternatives, run.changed, strict=True):
            change_rows.append({"run": "/".join(entry["policies"]), "alternative": alternative.label,
                                "rounds": run.rounds, "changed": changed})
        return [(run.winners, run.payoffs), *run.alternatives], run.present

    pairings = _pairings(folder, deals, read, allow_incomplete, warnings)
    if not pairings:
        raise AnalysisError(f"{folder.path}: no pairing with every run present to rescore")
    payoff_everywhere = bool(totals["payoff"])
    pair_rows: list[dict[str, Any]] = []
    original_pairs: list[PairOutcomes] = []
    rescored_pairs: list[list[PairOutcomes]] = [[] for _ in alternatives]
    index_of = {name: k for k, name in enumerate(policies)}
    for sides in pairings.values():
        original = sides[0]
        a, b = original.names
        if not original.present.any():
            warnings.append(f"the pairing {a} vs {b} has no deal played in every seating; left out")
            continue
        original_pairs.append(original.outcomes(index_of))
        for index, (alternative, side) in enumerate(zip(alternatives, sides[1:], strict=True)):
            rescored_pairs[index].append(side.outcomes(index_of))
            rows = _change_rows(f"{a} vs {b}", a, b, original, side, original.present, confidence,
                                {"alternative": alternative.label})
            pair_rows += [r for r in rows if payoff_everywhere or "payoff" not in r["measure"]]
    if not original_pairs:
        raise AnalysisError(f"{folder.path}: no pairing has a deal played in every seating (runs missing or empty)")
    changes = pd.DataFrame(change_rows)
    from analysis.tables import add_rate

    add_rate(changes, "changed", changes["changed"], changes["rounds"], confidence)
    changes = changes.drop(columns=["changed"])
    frame = pd.DataFrame(pair_rows)
    names = ("original", "rescored")
    leaders = _leaders(frame, *names, ["pairing", "alternative"])
    rounds, reproduced = int(totals["rounds"]), int(totals["reproduced"])
    setup = pd.DataFrame([
        ("tournament", str(folder.path)), ("policies", ", ".join(policies)),
        ("original scoring", "; ".join(sorted({_original_label(d) for d in datasets}))),
        ("alternatives", "; ".join(a.label for a in alternatives)),
        ("what is rescored", "the final card piles as played (the play is not replayed)"),
        ("payoffs", "rescored from the new winner" if payoff_everywhere else
         "not rescored (the stored payoffs follow no rule this rescoring knows): win rates only"),
        ("stored outcomes reproduced", f"{reproduced:,} of {rounds:,} rounds"),
    ], columns=["item", "value"])
    tables = [
        Table("rescore_setup", "Rescoring a tournament", setup,
              "Every round of every run decided again from its stored capture masks; yaku points are unchanged."),
        Table("winner_changes", "Rounds that change winner", changes,
              f"Per run (named by its seats' policies, seat 0 first) and alternative, rounds whose winner differs "
              f"after rescoring ({confidence:.0%} Wilson interval)."),
        Table("pairings", "Each pairing, original and rescored", _named(frame, *names),
              _pairing_note("original", "rescored", confidence, " (per alternative)")),
        Table("leaders", "Who leads each pairing", leaders,
              f"The policy whose payoff (or win) gap over the other has a {confidence:.0%} interval above 0, before "
              f"and after rescoring; changes: the leader differs.", keys=["pairing", "alternative", "by"]),
    ]
    seed = int(manifest.get("seed", 0))
    for alternative, pairs in zip(alternatives, rescored_pairs, strict=True):
        table = _ratings_side_by_side(original_pairs, pairs, policies, seed, *names, confidence, replicates)
        if len(alternatives) > 1:
            table = Table(f"ratings_{alternative.card_values}_{alternative.chaff_set}",
                          f"Ratings: original and {alternative.label}", table.frame, table.note)
        tables.append(table)
    notices = []
    if reproduced < rounds:
        from analysis.rescore import not_reproduced_notice

        notices.append(not_reproduced_notice(rounds - reproduced, rounds, "; ".join(
            sorted({_original_label(d) for d in datasets})), "winner", folder.path))
    if any(d.rounds_per_match is not None for d in datasets):
        warnings.append("match play: a changed round winner would deal the next round; rescoring keeps the "
                        "dealers as played")
    warnings.insert(0, RESCORE_CAVEAT)
    return Report(title=f"fudasim rescore: {folder.label} (tournament, {len(policies)} policies, {deals:,} deals)",
                  tables=tables, warnings=warnings,
                  notices=notices + hidden_notices([_Named(folder.label, policies)]),
                  metadata={"folder": str(folder.path), "kind": "tournament",
                            "alternatives": [a.label for a in alternatives], "confidence": confidence})


def _original_label(dataset: RunDataset) -> str:
    from analysis.rescore import rules_of

    return rules_of(dataset).original.label
