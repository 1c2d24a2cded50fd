"""The Python entry points: ``run`` a simulation, ``load`` (or ``open_dataset``) a dataset.

``run`` takes what ``fudasim run`` takes, as Python values, and returns a ``Run`` (the dataset's
folder and the run's summary). ``load`` returns the rows as a pandas DataFrame with readable
columns: on request each yaku bitset becomes one boolean column per yaku, named after it, and
each card mask a list of card names. Both raise ``FudasimError`` subclasses with the CLI's
one-line messages.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simcore.errors import FudasimError, RunError
from simcore.storage import Location, StorePath

__all__ = ["Run", "load", "open_dataset", "run"]

YAKU_STYLES = ("bits", "names", "both")
CARD_MASKS = ("field_dealt", "opening_claim", "hand_dealt_", "captured_", "exposed_")  # names or prefixes


@dataclass(frozen=True)
class Run:
    """A finished run: its dataset folder and what ``fudasim run`` would have printed.

    ``summary`` is ``simcore.run.runner.RunSummary`` (rounds, seconds, wins by seat, ...);
    ``frame(...)`` loads the rows (see ``load``); ``dataset`` opens it for streaming analysis.
    """

    path: Location  # a folder, or a simcore.storage.StorePath in an object store
    summary: Any

    @property
    def rounds(self) -> int:
        """Rounds in the dataset."""
        return int(self.summary.rounds)

    def frame(self, columns: Sequence[str] | None = None, *, yaku: str = "bits", cards: bool = False) -> pd.DataFrame:
        """The rows as a DataFrame (``load`` with this run's folder)."""
        return load(self.path, columns, yaku=yaku, cards=cards)

    def dataset(self) -> Any:
        """The dataset opened for analysis (``open_dataset``)."""
        return open_dataset(self.path)


# --- the arguments, checked as the command line checks its flags --------------------------------


def _whole(name: str, value: Any, least: int, most: int | None = None, optional: bool = True) -> Any:
    """``value`` as an int (None stays None where ``optional``): a whole number, not a bool, in
    ``least..most``."""
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise RunError(f"{name}={value!r}: expected a whole number (int)")
    value = int(value)
    if most is not None and not least <= value <= most:
        raise RunError(f"{name}={value}: must be in {least} .. {'2**64 - 1' if most == 2**64 - 1 else most}")
    if value < least:
        raise RunError(f"{name}={value}: must be at least {least}")
    return value


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise FudasimError(f"{name}={value!r}: expected True or False")
    return bool(value)


def _path(name: str, value: Any, stores: bool = False, what: str = "a folder") -> Any:
    """A path argument as ``str`` (or a ``StorePath``, where ``stores``); an empty one is refused."""
    if stores and isinstance(value, StorePath):
        return value
    if not isinstance(value, (str, os.PathLike)) or isinstance(os.fspath(value), bytes):
        expected = "a path (str or pathlib.Path)" if what == "a folder" else what
        raise FudasimError(f"{name}={value!r}: expected {expected}")
    text = os.fspath(value)
    if not str(text).strip():
        raise FudasimError(f"{name}={value!r}: an empty path; name {what}")
    return str(text)


def _text(name: str, value: Any, choices: Sequence[str] | None = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RunError(f"{name}={value!r}: expected " + (f"one of {', '.join(choices)}" if choices else "a string"))
    if choices is not None and value not in choices:
        raise RunError(f"{name}={value!r}: expected one of {', '.join(choices)}")
    return value


def _options(options: Any) -> dict[str, str]:
    """``{name: value}`` rule options as the strings ``--option`` gives (booleans as true/false)."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise RunError(f"options={options!r}: give a mapping {{option name: value}}")
    out = {}
    for name, value in options.items():
        if not isinstance(name, str):
            raise RunError(f"options: {name!r} is not an option name")
        if isinstance(value, (bool, np.bool_)):
            out[name] = str(bool(value)).lower()
        elif isinstance(value, (str, numbers.Real)):
            out[name] = str(value)
        else:
            raise RunError(f"options[{name!r}]={value!r}: expected a string, number or True/False")
    return out


def _policies(players: Any) -> dict[int, str]:
    """``{seat: spec}`` from a mapping, a per-seat sequence, or None (every seat random)."""
    if players is None:
        return {}
    if isinstance(players, Mapping):
        pairs = list(players.items())
        for seat, _ in pairs:
            if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, numbers.Integral) or seat < 0:
                raise RunError(f"policies: seat {seat!r} is not a seat number")
    elif isinstance(players, Sequence) and not isinstance(players, (str, bytes)):
        pairs = list(enumerate(players))
    else:
        raise RunError(f"policies={players!r}: give a mapping {{seat: policy}} or one policy per seat")
    for seat, spec in pairs:
        if not isinstance(spec, str):
            raise RunError(f"policies[{seat!r}]={spec!r}: expected a policy such as 'greedy' or 'pimc:worlds=64'")
    return {int(seat): spec for seat, spec in pairs}


def run(rules: str = "tensho-ise", *, rounds: int | None = None, matches: int | None = None,
        rounds_per_match: int | None = None, seed: int = 0,
        policies: Mapping[int, str] | Sequence[str] | None = None, options: Mapping[str, Any] | None = None,
        players: int | None = None, out: str | os.PathLike | None = None, engine: str = "kernel",
        threads: int | None = None, resume: bool = False, overwrite: bool = False,
        shard_rounds: int | None = None, progress: bool = False, scheduler: str | None = None,
        summary: bool = False, paired_with: str | os.PathLike | None = None) -> Run:
    """Run a simulation, as ``fudasim run`` does, and return the finished ``Run``.

    Parameters
    ----------
    rules : a shipped rule set's name (``fudasim rules list``) or a rules file's path
    rounds, matches, rounds_per_match : the run's size (independent rounds, or matches)
    seed : the master seed; the same arguments and seed give the same rows
    policies : ``{seat: "NAME[:k=v,...]"}`` or one spec per seat; other seats play ``random``
    options : rule options, ``{"tensho.card_values": "T3_hanafuda", ...}`` (``-O``)
    players : the number of players, where the rules allow a choice (Enshu-bana)
    out : the dataset folder (default: ``fudasim-out/<rules>-seed<seed>``, as the CLI)
    engine : ``kernel`` or ``reference``
    threads : kernel threads (default: all cores; with ``scheduler``, per task, default 1)
    resume, overwrite : finish an interrupted run in ``out`` / replace the run in ``out``
    shard_rounds : rounds (units) per shard
    progress : show a progress bar on stderr
    scheduler : run the shards as tasks on Dask distributed: ``"tcp://HOST:8786"`` (a running
        scheduler; ``out`` on a file system every worker can write) or ``"local:N"`` (a
        LocalCluster of N worker processes, started and closed here); the same rows as a local run
    summary : keep per shard the exact counts the reports need instead of the rows (``--summary``,
        docs/summary-runs.md): ``report``/``compare`` read it, ``load`` refuses it
    paired_with : with ``summary``, a run of the same seed to keep paired differences against
        (``--paired-with``), so that ``compare(paired_with, out)`` is paired

    Raises
    ------
    FudasimError (``RulesError``, ``PolicyError``, ``RunError``, ``DatasetError``): bad input or
    a folder that cannot be written, with a one-line message.
    """
    from simcore.run.runner import ENGINES, RunConfig, with_players
    from simcore.run.runner import run as run_simulation

    rules = _path("rules", rules, what="a shipped rule set's name or a rule file's path")
    rounds, matches = _whole("rounds", rounds, 1), _whole("matches", matches, 1)
    rounds_per_match = _whole("rounds_per_match", rounds_per_match, 1)
    seed = _whole("seed", seed, 0, 2**64 - 1, optional=False)
    players, threads = _whole("players", players, 2), _whole("threads", threads, 1)
    shard_rounds = _whole("shard_rounds", shard_rounds, 1)
    engine = _text("engine", engine, ENGINES)
    resume, overwrite = _flag("resume", resume), _flag("overwrite", overwrite)
    progress, summary = _flag("progress", progress), _flag("summary", summary)
    if scheduler is not None:
        scheduler = _text("scheduler", scheduler)
    if resume and overwrite:
        raise RunError("resume and overwrite contradict each other; give one")
    overrides = with_players(rules, _options(options), players, flag="players=")
    config = RunConfig(rules=rules, options=overrides, seed=seed, rounds=rounds, matches=matches,
                       rounds_per_match=rounds_per_match, policies=_policies(policies), engine=engine,
                       threads=threads, out=None if out is None else str(_path("out", out, stores=True)), resume=resume,
                       overwrite=overwrite, units_per_shard=shard_rounds, progress=progress,
                       command=f"fudasim.run({rules!r}, seed={seed})", scheduler=scheduler, summary=summary,
                       paired_with=None if paired_with is None else _path("paired_with", paired_with))
    result = run_simulation(config)
    return Run(result.out, result)


def open_dataset(path: str | os.PathLike | Location, allow_incomplete: bool = False) -> Any:
    """The dataset at ``path`` opened for analysis (``analysis.reader.RunDataset``): its run
    metadata, yaku table and rules, and ``iter_batches`` to stream columns in bounded memory."""
    from analysis.reader import open_run

    return open_run(_path("path", path, stores=True), allow_incomplete=_flag("allow_incomplete", allow_incomplete))


def _card_names(mask: np.ndarray, labels: list[str]) -> list[list[str]]:
    """Each uint64 mask as the list of its cards' names, in id order."""
    bits = (mask[:, None] >> np.arange(len(labels), dtype=np.uint64)) & np.uint64(1)
    return [[labels[i] for i in np.flatnonzero(row)] for row in bits.astype(bool)]


def load(path: str | os.PathLike | Location, columns: Sequence[str] | None = None, *, yaku: str = "bits",
         cards: bool = False, allow_incomplete: bool = False) -> pd.DataFrame:
    """The rows of the dataset at ``path`` as a pandas DataFrame, after the checks every reader
    makes (a complete dataset of one run; ``allow_incomplete`` reads what is there).

    Parameters
    ----------
    columns : the stored columns to read (default: all; ``docs/dataset.md`` lists them)
    yaku : ``bits`` keeps each ``yaku_<seat>`` bitset; ``names`` replaces it with one boolean
        column per yaku, ``yaku_<seat>:<yaku name>``; ``both`` keeps the bitset and adds them
    cards : replace every card mask (``hand_dealt_<seat>``, ``captured_<seat>``,
        ``field_dealt``, ...) by the list of its cards' names, in id order
    """
    style: Any = yaku  # what a caller may pass, whatever the annotations say
    if not isinstance(style, str) or style not in YAKU_STYLES:
        raise FudasimError(f"yaku={yaku!r}: must be one of {', '.join(YAKU_STYLES)}")
    cards, allow_incomplete = _flag("cards", cards), _flag("allow_incomplete", allow_incomplete)
    names: Any = columns
    if names is not None and (isinstance(names, (str, bytes)) or not isinstance(names, Sequence)
                              or not all(isinstance(c, str) for c in names)):
        raise FudasimError(f"columns={columns!r}: give a list of column names, e.g. ['winner', 'payoff_0']")
    if names is not None and not len(names):
        raise FudasimError("columns=[]: names no column (columns=None reads them all)")
    from simcore.dataset import read_dataset

    path = _path("path", path, stores=True)
    dataset = open_dataset(path, allow_incomplete=allow_incomplete)
    wanted = None if columns is None else list(columns)
    if wanted is not None:
        missing = [c for c in wanted if c not in dataset.schema.names]
        if missing:
            raise FudasimError(f"{path}: no column {missing[0]!r} (columns: {', '.join(dataset.schema.names)})")
    frame = read_dataset(path, columns=wanted, allow_incomplete=allow_incomplete)
    if yaku != "bits":
        frame = _expand_yaku(frame, dataset, keep=yaku == "both")
    if cards:
        frame = _name_cards(frame, dataset)
    return frame


def _yaku_columns(frame: pd.DataFrame) -> list[str]:
    """The yaku bitset columns: ``yaku_<seat>`` and Enshu-bana's ``stopping_yaku``."""
    return [c for c in frame.columns if c.startswith("yaku_") and c[5:].isdigit() or c == "stopping_yaku"]


def _expand_yaku(frame: pd.DataFrame, dataset: Any, keep: bool) -> pd.DataFrame:
    """One boolean column per (seat, yaku) in place of (or after) each ``yaku_<seat>`` bitset."""
    table = dataset.yaku
    parts: list[pd.DataFrame | pd.Series] = []
    for name in frame.columns:
        if name not in _yaku_columns(frame):
            parts.append(frame[name])
            continue
        if keep:
            parts.append(frame[name])
        bits = frame[name].to_numpy(dtype=np.uint64)
        parts.append(pd.DataFrame({f"{name}:{y.name}": ((bits >> np.uint64(y.bit)) & np.uint64(1)).astype(bool)
                                   for y in table}, index=frame.index))
    return pd.concat(parts, axis=1)


def _name_cards(frame: pd.DataFrame, dataset: Any) -> pd.DataFrame:
    """Every uint64 card-mask column as lists of card names (the deck's labels in the run's skin)."""
    rules = dataset.rules()
    labels = [rules.card_label(i) for i in range(rules.deck.size)]
    out = frame.copy()
    for name in frame.columns:
        if name in CARD_MASKS or any(p.endswith("_") and name.startswith(p) and name[len(p):].isdigit()
                                     for p in CARD_MASKS):
            out[name] = _card_names(frame[name].to_numpy(), labels)
    return out
