"""Open a fudasim dataset for analysis and stream its columns in bounded memory.

``open_run(path)`` checks that ``path`` is a fudasim dataset (a directory of ``part-*.parquet``
shards, or one shard), reads its run metadata and schema, and returns a ``RunDataset``.  A
directory with a manifest (``_run.json``) is checked against it first: the run is complete,
every listed shard is present with its listed size and checksum, no shard file is unlisted, and
every shard's footer metadata belongs to this run.  A directory of shards without its manifest
is refused (nothing says which shards are the run's, nor what their bytes were).
``RunDataset.iter_batches(columns)`` then yields the requested columns as NumPy arrays, one
Parquet batch at a time (at most ``BATCH_ROWS`` rows), shard after shard in shard order, which
is round order for datasets written by ``fudasim run``.  Nothing here holds more than one batch.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from simcore import storage
from simcore.dataset import (
    RUN_FILE,
    SHARD_FILES,
    DatasetError,
    check_dataset,
    claims_manifest,
    dataset_files,
    is_summary_manifest,
    read_run_info,
    run_difference,
)
from simcore.errors import FudasimError
from simcore.games import known_game_names
from simcore.storage import StorePath

__all__ = ["AnalysisError", "BATCH_ROWS", "RunDataset", "YakuInfo", "open_folder_run", "open_run"]

BATCH_ROWS = 1 << 18


class AnalysisError(FudasimError):
    """A user error in analysis input (bad dataset, missing column, unknown table).

    The message is one line naming the path or argument and the problem.
    """


@dataclass(frozen=True)
class YakuInfo:
    """One yaku of a run, as the dataset names it."""

    bit: int
    key: str
    name: str
    english: str


@dataclass
class RunDataset:
    """A fudasim dataset opened for reading.

    Attributes
    ----------
    path : Path or simcore.storage.StorePath
        The dataset directory (or shard file) as given; a ``StorePath`` in an object store.
    files : list of Path or StorePath
        Shards in shard order.
    run_info : dict
        The run metadata (``_run.json`` or the first shard's ``fudasim.run``).
    rules_text : str or None
        The rules file text stored in the first shard (``fudasim.rules``).
    schema : pyarrow.Schema
        Schema of the first shard.
    n_rows : int
        Rows in all shards, from the Parquet footers.
    incomplete : str or None
        Opened with ``allow_incomplete`` and some shards left out: a line saying how much is read.
    seats : int
        Number of seats, from the per-seat columns (``winner``-relative ``score_0``, ``score_1``, ...).
    """

    path: storage.Location
    files: list[storage.Location]
    run_info: dict[str, Any]
    rules_text: str | None
    schema: pa.Schema
    n_rows: int
    seats: int
    end_reason_names: list[str] = field(default_factory=list)
    incomplete: str | None = None  # set when opened with allow_incomplete and shards are left out
    summary: bool = False  # a summary run (fudasim run --summary): counts per shard, no rows
    _rules: Any = None

    # --- metadata, read defensively ---------------------------------------------------------

    @property
    def label(self) -> str:
        """Short name of the run for table headers: the directory name."""
        return self.path.name if self.path.name else str(self.path)

    @property
    def game(self) -> str:
        """The game that wrote the run (``unknown`` if its metadata does not say)."""
        return str(self.run_info.get("game") or "unknown")

    @property
    def seed(self) -> int | None:
        """The run's seed (None if its metadata does not give one)."""
        seed = self.run_info.get("seed")
        return int(seed) if isinstance(seed, int) and not isinstance(seed, bool) else None

    @property
    def rules_name(self) -> str:
        """The name of the rule set the run played."""
        return str(self.run_info.get("rules_name") or self.run_info.get("rules") or "unknown")

    @property
    def options(self) -> dict[str, Any]:
        """The option overrides the run was given."""
        options = self.run_info.get("options")
        return dict(options) if isinstance(options, dict) else {}

    @property
    def rounds_per_match(self) -> int | None:
        """Rounds per match in match play (None for a run of single rounds)."""
        value = self.run_info.get("rounds_per_match")
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
        return None

    @property
    def policies(self) -> list[str]:
        """Policy string of each seat (``"unknown"`` where the metadata does not say)."""
        raw = self.run_info.get("policies")
        out = ["unknown"] * self.seats
        if isinstance(raw, list):
            for seat, value in enumerate(raw[: self.seats]):
                out[seat] = _policy_text(value)
        elif isinstance(raw, dict):
            for seat in range(self.seats):
                if str(seat) in raw:
                    out[seat] = _policy_text(raw[str(seat)])
        return out

    @property
    def yaku(self) -> list[YakuInfo]:
        """The yaku table in bit order, from the run metadata or else from the rules text."""
        raw = self.run_info.get("yaku")
        if isinstance(raw, list) and raw:
            out = []
            for position, entry in enumerate(raw):
                if isinstance(entry, dict):
                    bit = entry.get("bit", position)
                    key = str(entry.get("key", f"bit{bit}"))
                    name = str(entry.get("name", key))
                    out.append(YakuInfo(int(bit), key, name, str(entry.get("english", name))))
                else:
                    out.append(YakuInfo(position, str(entry), str(entry), str(entry)))
            return sorted(out, key=lambda y: y.bit)
        rules = self.rules(required=False)
        if rules is not None:
            return [YakuInfo(y.index, y.key, y.name, y.english) for y in rules.yaku]
        return []

    def has_columns(self, *names: str) -> bool:
        """Whether the dataset has every column in ``names``."""
        return all(name in self.schema.names for name in names)

    def require(self, names: list[str] | tuple[str, ...], purpose: str) -> None:
        """Raise ``AnalysisError`` naming the first missing column."""
        for name in names:
            if name not in self.schema.names:
                raise AnalysisError(f"{self.path}: missing column {name!r} (needed for {purpose})")

    def require_game(self, games: tuple[str, ...], command: str) -> None:
        """``AnalysisError`` unless the dataset is of one of ``games`` (``command`` names the caller)."""
        if self.game not in games:
            raise AnalysisError(
                f"{self.path}: {command} needs a {' or '.join(games)} dataset, this one is game {self.game!r}"
            )

    def rules(self, required: bool = True):
        """The run's rule set, rebuilt from the stored rules text and resolved options.

        Returns None (or raises ``AnalysisError`` when ``required``) if the dataset carries no
        rules text or the text cannot be loaded.
        """
        if self._rules is not None:
            return self._rules
        if not self.rules_text:
            if required:
                raise AnalysisError(f"{self.path}: the dataset stores no rules text (shard metadata fudasim.rules)")
            return None
        try:
            self._rules = load_rules_text(self.rules_text, self.rules_name, self.options, self.game, str(self.path))
        except (ValueError, OSError) as error:
            if required:
                raise AnalysisError(f"{self.path}: the stored rules cannot be loaded: {error}") from None
            return None
        return self._rules

    # --- data ---------------------------------------------------------------------------------

    def require_rows(self, command: str) -> None:
        """``AnalysisError`` (one line) if this is a summary run, which keeps no rows for ``command``."""
        if self.summary:
            raise AnalysisError(f"{self.path}: a summary run (fudasim run --summary) keeps counts, not rows; "
                                f"{command} needs rows: run it again without --summary")

    def iter_batches(self, columns: list[str], batch_rows: int = BATCH_ROWS) -> Iterator[dict[str, np.ndarray]]:
        """Yield the named columns as NumPy arrays, one batch at a time, in shard order.

        ``end_reason`` (a dictionary column) is yielded as int16 codes into
        ``self.end_reason_names``, which grows as new strings appear, so codes are comparable
        across shards even when their dictionaries differ.  A summary run has no rows
        (``AnalysisError``).
        """
        self.require_rows("this analysis")
        columns = list(dict.fromkeys(columns))
        self.require(columns, "this analysis")
        for path in self.files:
            try:
                parquet = storage.parquet_file(path)
                missing = [c for c in columns if c not in parquet.schema_arrow.names]
                if missing:
                    raise AnalysisError(f"{path}: missing column {missing[0]!r}")
                for batch in parquet.iter_batches(batch_size=batch_rows, columns=columns, use_threads=True):
                    yield {name: self._numpy(name, batch.column(name)) for name in columns}
            except (OSError, pa.ArrowException) as error:
                raise AnalysisError(f"{path}: cannot read shard: {_one_line(error)}") from None

    def _numpy(self, name: str, column: pa.Array) -> np.ndarray:
        if pa.types.is_dictionary(column.type):
            names = column.dictionary.to_pylist()
            lookup = np.array([self._reason_code(str(n)) for n in names] or [0], dtype=np.int16)
            indices = column.indices.to_numpy(zero_copy_only=False)
            return lookup[indices]
        if name == "end_reason" and pa.types.is_string(column.type):
            values = column.to_numpy(zero_copy_only=False)
            names, inverse = np.unique(values.astype(str), return_inverse=True)
            lookup = np.array([self._reason_code(str(n)) for n in names] or [0], dtype=np.int16)
            return lookup[inverse]
        if column.null_count:
            raise AnalysisError(f"{self.path}: column {name!r} has missing values")
        return column.to_numpy(zero_copy_only=False)

    def _reason_code(self, reason: str) -> int:
        if reason not in self.end_reason_names:
            self.end_reason_names.append(reason)
        return self.end_reason_names.index(reason)

    def declared_end_reasons(self) -> list[str]:
        """End-reason strings in the first shard's dictionary (also those that never occur)."""
        if self.summary:
            return [str(r) for r in self.run_info.get("end_reasons") or []]
        try:
            field_type = self.schema.field("end_reason").type
        except KeyError:
            return []
        if not pa.types.is_dictionary(field_type):
            return []
        try:
            table = storage.parquet_file(self.files[0]).read_row_group(0, columns=["end_reason"])
        except (OSError, pa.ArrowException, IndexError):
            return []
        chunks = table.column("end_reason").chunks
        return [str(v) for v in chunks[0].dictionary.to_pylist()] if chunks else []


def _policy_text(value: Any) -> str:
    if isinstance(value, dict):
        name = str(value.get("name", "unknown"))
        params = value.get("params") or {}
        if params:
            return name + ":" + ",".join(f"{k}={v}" for k, v in sorted(params.items()))
        return name
    return str(value)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())


def _count_seats(schema: pa.Schema, path: storage.Location) -> int:
    seats = 0
    while f"score_{seats}" in schema.names:
        seats += 1
    if seats == 0:
        raise AnalysisError(f"{path}: missing column 'score_0' (per-seat columns name the seats)")
    return seats


def _checked_files(path: storage.Location, allow_incomplete: bool, checksums: bool = True
                   ) -> tuple[list[storage.Location], dict[str, Any], str | None]:
    """The shards to read from a directory with a manifest, the manifest, and a note if incomplete."""
    try:
        check = check_dataset(path, checksums=checksums)
    except DatasetError as error:
        raise AnalysisError(_one_line(error)) from None
    # Temporary files and stray non-shard files do not change what is read.
    problems = [line for kind, line in check.problems if kind not in ("temporary", "stray")]
    good = check.good_shards()
    if problems and not allow_incomplete:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise AnalysisError(f"{path}: incomplete or damaged dataset: {problems[0]}{more}; see `fudasim verify "
                            f"{path}`, finish or repair it with `fudasim run ... --out {path} --resume`, or read "
                            f"its intact shards with --allow-incomplete")
    if not good:
        raise AnalysisError(f"{path}: no intact shard to read (see `fudasim verify {path}`)")
    manifest = {k: v for k, v in check.manifest.items() if k != SHARD_FILES}
    note = None
    if problems:
        kind = "matches" if manifest.get("unit_kind") == "match" else "rounds"
        units_read = sum(check.unit_range(shard.index)[1] for shard in good)
        others = ("the others are missing or damaged" if len(good) < check.expected_shards
                  else "the folder also holds files that are not this run's")
        note = (f"INCOMPLETE: {len(good):,} of {check.expected_shards:,} shards ({units_read:,} of "
                f"{int(manifest['units']):,} {kind}) read; {others} (see `fudasim verify {path}`)")
    return [shard.path for shard in good], manifest, note


def _same_run(path: storage.Location, run_info: dict[str, Any], metadata: dict[bytes, bytes]) -> None:
    try:
        info = json.loads(metadata[b"fudasim.run"])
    except (KeyError, ValueError, UnicodeDecodeError):
        raise AnalysisError(f"{path}: Parquet file without fudasim run metadata (not a shard of this run)") from None
    difference = run_difference(run_info, info) if isinstance(info, dict) else "metadata not a JSON object"
    if difference is not None:
        raise AnalysisError(f"{path}: a shard of another run ({difference}); this directory mixes runs "
                            f"(see `fudasim verify`)")


def open_run(path: str | os.PathLike | StorePath, allow_incomplete: bool = False,
             checksums: bool = True) -> RunDataset:
    """Open a dataset directory (or a single shard) for analysis.

    Parameters
    ----------
    path : path or URI
        A directory written by ``fudasim run``, or one of its shard files; or the same in an
        object store (``s3://bucket/prefix``, see ``simcore.storage``).
    allow_incomplete : bool
        Read only the intact shards of an incomplete or damaged dataset instead of refusing it;
        ``RunDataset.incomplete`` then says how much is read.
    checksums : bool
        Also hash every shard and compare it with the manifest's checksum (the default: it adds
        a few percent to a report, docs/dataset.md).  False for a caller that reads one row and
        checks it otherwise (``fudasim replay``).

    Raises
    ------
    AnalysisError
        One line naming the path and the problem: not a dataset, incomplete, damaged or mixed
        (unless ``allow_incomplete``), unreadable, no run metadata, an unknown game, no per-seat
        columns, or a ``winner`` column missing.
    """
    try:
        path = storage.location(path)
        exists = path.exists()
    except DatasetError as error:
        raise AnalysisError(_one_line(error)) from None
    if not exists:
        raise AnalysisError(f"{path}: no such dataset (expected a directory written by fudasim run)")
    incomplete = None
    try:
        run_info = read_run_info(path)
    except DatasetError as error:
        raise AnalysisError(_one_line(error)) from None
    managed = path.is_dir() and (path / RUN_FILE).is_file() and claims_manifest(run_info)
    if managed:
        files, run_info, incomplete = _checked_files(path, allow_incomplete, checksums)
    else:
        # One shard, or a directory whose _run.json is run metadata of other tools rather than a
        # fudasim manifest (a directory with no _run.json at all is refused by read_run_info):
        # its shards must at least all belong to one run.
        try:
            files = dataset_files(path)
        except DatasetError as error:
            raise AnalysisError(_one_line(error)) from None
    if not isinstance(run_info, dict):
        raise AnalysisError(f"{path}: run metadata is not a JSON object")
    if is_summary_manifest(run_info) or (not managed and _summary_shard(files[0])):
        if not managed:
            raise AnalysisError(f"{path}: a shard of a summary run (fudasim run --summary); open its run's folder")
        return _open_summary_run(path, files, run_info, incomplete)
    try:
        first = storage.parquet_file(files[0])
        schema = first.schema_arrow
        metadata = schema.metadata or {}
        n_rows = first.metadata.num_rows
        for other in files[1:]:
            footer = storage.read_metadata(other)
            n_rows += footer.num_rows
            if not managed and isinstance(run_info, dict):
                _same_run(other, run_info, footer.metadata or {})
    except (OSError, pa.ArrowException) as error:
        raise AnalysisError(f"{path}: not a readable Parquet dataset: {_one_line(error)}") from None
    if b"fudasim.run" not in metadata:
        raise AnalysisError(f"{files[0]}: Parquet file without fudasim run metadata (not a fudasim dataset)")
    game = run_info.get("game")
    if game is None:
        try:
            game = json.loads(metadata[b"fudasim.run"]).get("game")
        except (ValueError, AttributeError):
            game = None
        if game is not None:
            run_info = {**run_info, "game": game}
    if game is not None and game not in known_game_names():
        raise AnalysisError(f"{path}: dataset of an unknown game {game!r} (known: {', '.join(known_game_names())})")
    rules_text = metadata.get(b"fudasim.rules")
    dataset = RunDataset(
        path=path,
        files=files,
        run_info=run_info,
        rules_text=rules_text.decode("utf-8") if rules_text else None,
        schema=schema,
        n_rows=int(n_rows),
        seats=_count_seats(schema, path),
        incomplete=incomplete,
    )
    dataset.require(["winner"], "every report")
    if game is not None:
        _require_documented_columns(dataset, game)
    return dataset


def open_folder_run(path: Path, folder: Path, kind: str, allow_incomplete: bool, notes: list[str],
                    label: str | None = None) -> RunDataset | None:
    """One run of a tournament or sweep folder (``kind``), named ``label`` in ``notes``.

    A missing or unreadable run is an ``AnalysisError`` that says how to finish the folder or read
    the rest; with ``allow_incomplete`` it is left out instead (None, and a note says so), and a
    damaged run is read as ``open_run(path, allow_incomplete=True)`` reads it (a note says how much).
    """
    name = f"{path.name} ({label})" if label and label != path.name else path.name
    if not path.is_dir():
        if not allow_incomplete:
            raise AnalysisError(f"{path}: a run of the {kind} {folder} is missing; finish it with `fudasim {kind} "
                                f"... --out {folder} --resume`, or read the other runs with --allow-incomplete")
        notes.append(f"{name}: missing; left out")
        return None
    try:
        run = open_run(path, allow_incomplete=allow_incomplete)
    except AnalysisError as error:
        if not allow_incomplete:
            raise
        notes.append(f"{name}: cannot be read ({error}); left out")
        return None
    if run.incomplete:
        notes.append(f"{name}: {run.incomplete}")
    return run


def _summary_shard(path: storage.Location) -> bool:
    try:
        info = json.loads((storage.read_schema(path).metadata or {})[b"fudasim.run"])
    except (OSError, KeyError, ValueError, pa.ArrowException):
        return False
    return is_summary_manifest(info)


def _open_summary_run(path: storage.Location, files: list[storage.Location], run_info: dict[str, Any], incomplete: str | None) -> RunDataset:
    """A summary run as a ``RunDataset`` without rows: the game's row schema (what the rows would
    have been, so that analyses know which tables apply), the rounds its shards counted."""
    from simcore.games import get_game

    game = str(run_info.get("game"))
    if game not in known_game_names():
        raise AnalysisError(f"{path}: dataset of an unknown game {game!r} (known: {', '.join(known_game_names())})")
    players = run_info.get("players")
    if not isinstance(players, int) or isinstance(players, bool) or players < 1:
        raise AnalysisError(f"{path}: summary run without a player count in its manifest")
    n_rows = 0
    metadata: dict[bytes, bytes] = {}
    try:
        for position, file in enumerate(files):
            footer = storage.read_metadata(file).metadata or {}
            info = json.loads(footer[b"fudasim.run"])
            n_rows += int(info["rounds"])
            if position == 0:
                metadata = dict(footer)
    except (OSError, KeyError, ValueError, TypeError, pa.ArrowException) as error:
        raise AnalysisError(f"{path}: not a readable summary run: {_one_line(error)}") from None
    try:
        schema = get_game(game).schema(players).with_metadata(metadata)
    except ValueError:
        raise AnalysisError(f"{path}: a {game} run cannot have {players} seats") from None
    rules_text = metadata.get(b"fudasim.rules")
    return RunDataset(path=path, files=files, run_info=run_info,
                      rules_text=rules_text.decode("utf-8") if rules_text else None, schema=schema,
                      n_rows=n_rows, seats=_count_seats(schema, path), incomplete=incomplete, summary=True)


def _require_documented_columns(dataset: RunDataset, game: str) -> None:
    """Refuse a dataset that lacks a column its game's schema documents (docs/dataset.md): a
    report of it would silently leave out the tables that read the column."""
    from simcore.games import known_games

    try:
        expected = known_games()[game].schema(dataset.seats)
    except ValueError:
        raise AnalysisError(f"{dataset.path}: a {game} dataset cannot have {dataset.seats} seats") from None
    missing = [name for name in expected.names if name not in dataset.schema.names]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise AnalysisError(f"{dataset.path}: missing column {missing[0]!r}{more} of a {game} dataset "
                            f"(see docs/dataset.md); it was not written by this version of fudasim run")


def load_rules_text(text: str, name: str, options: dict[str, Any], game: str, source: str = "dataset"):
    """Load a rule set from its text (as stored in a dataset) with the run's resolved options.

    The run's resolved options are passed again as overrides, which is harmless for those the
    text already sets and puts the run's command-line overrides (the player count among them)
    in force; keys no game knows (metadata of a newer engine) are left out. Errors name
    ``source: fudasim.rules``.
    """
    from simcore.games import get_game, known_game_names
    from simcore.rules import load_rules_text as load_text

    known = get_game(game).options() if game in known_game_names() else {}
    overrides = {k: v for k, v in options.items() if k in known}
    return load_text(text, name, f"{source}: fudasim.rules", overrides)
