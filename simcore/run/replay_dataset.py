"""Replay a round of a dataset with that run's rules, options, policies and match settings.

``fudasim replay DATASET --round R`` needs nothing but the dataset: its run metadata names the
seed, the policies of every seat, the option overrides, the player count and the match settings,
and the rules text travels with the dataset.  The round is played again by the reference engine
(with its trace) and its record row is compared with the row the dataset holds for that round.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

import simcore
from simcore.dataset import DatasetError
from simcore.errors import DealError
from simcore.games import Game, game_of
from simcore.policies import PolicyError, PolicySpec, parse_policy
from simcore.rules import RulesError, load_rules
from simcore.storage import Location, read_table

__all__ = ["RunReplay", "open_run_replay", "record_row", "dataset_row", "row_differences"]


@dataclass
class RunReplay:
    """What replaying a round of a run needs, rebuilt from the run's metadata.

    Attributes
    ----------
    path : Path
        The dataset as given.
    compiled : a game's CompiledRules
        The run's rules (stored text, the run's option overrides), compiled.
    game : Game
    specs : list of PolicySpec
        One per seat, as the run played them.
    seed : int
    unit_kind : str
        ``"round"`` or ``"match"``.
    units : int
        Units the run planned.
    rounds_per_match : int or None
    stride : int
        Round-index stride of a unit (1 for independent rounds).
    """

    path: Path
    compiled: Any
    game: Game
    specs: list[PolicySpec]
    seed: int
    unit_kind: str
    units: int
    rounds_per_match: int | None
    stride: int

    def check_round(self, round_index: int) -> None:
        """Raise ``DealError`` unless the run's plan holds round ``round_index``."""
        if self.unit_kind == "round":
            if not 0 <= round_index < self.units:
                raise DealError(f"{self.path}: round {round_index} is not in the dataset "
                                f"(its rounds are 0..{self.units - 1})")
            return
        unit = round_index // self.stride
        if not 0 <= unit < self.units:
            raise DealError(f"{self.path}: round {round_index} is not in the dataset (its {self.units} matches "
                            f"hold round indices 0..{self.units * self.stride - 1})")

    def replay(self, round_index: int):
        """The round, traced by the reference engine (a match is replayed from its start)."""
        self.check_round(round_index)
        return self.game.replay().replay_from_run(self.compiled, self.specs, self.seed, round_index,
                                             self.rounds_per_match)


def _field(info: dict[str, Any], key: str, path: Path, kind: type) -> Any:
    value = info.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DatasetError(f"{path}: run metadata key {key!r} is missing or not a {kind.__name__} ({value!r})")
    return value


def open_run_replay(path: str | Path, run_info: dict[str, Any], rules_text: str | None) -> RunReplay:
    """Rebuild a run's rules, policies and plan from its metadata and stored rules text.

    Parameters
    ----------
    path : str or Path
        The dataset (named in error messages).
    run_info : dict
        The run metadata (``_run.json`` or a shard's ``fudasim.run``).
    rules_text : str or None
        The rules file text stored with the dataset.

    Raises
    ------
    DatasetError
        The metadata lacks what a replay needs, the stored rules text does not match the run's
        sha256, or the run was played by another engine version.
    """
    path = Path(path)
    engine_version = str(run_info.get("engine_version"))
    if engine_version != simcore.ENGINE_VERSION:
        raise DatasetError(f"{path}: written by engine version {engine_version}; this fudasim plays engine "
                           f"version {simcore.ENGINE_VERSION}, whose rounds differ, so it cannot replay them")
    if not rules_text:
        raise DatasetError(f"{path}: the dataset holds no rules text (fudasim.rules), so its rounds cannot be replayed")
    overrides = run_info.get("option_overrides") or {}
    if not isinstance(overrides, dict):
        raise DatasetError(f"{path}: run metadata key 'option_overrides' is not an object ({overrides!r})")
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", str(run_info.get("rules_name") or "rules")) or "rules"
    try:
        with tempfile.TemporaryDirectory(prefix="fudasim-replay-") as directory:
            rules_path = Path(directory) / f"{name}.toml"
            rules_path.write_text(rules_text, encoding="utf-8")
            rule_set = load_rules(str(rules_path), overrides=dict(overrides))
    except RulesError as error:
        raise DatasetError(f"{path}: the stored rules do not load: {error}") from None
    if run_info.get("rules_sha256") not in (None, rule_set.sha256):
        raise DatasetError(f"{path}: the stored rules text does not match the run's rules_sha256")
    game = game_of(rule_set)
    compiled = game.compile(rule_set)
    players = game.players(compiled)
    if run_info.get("players") not in (None, players):
        raise DatasetError(f"{path}: the run had {run_info.get('players')} players, its rules give {players}")
    policies = _field(run_info, "policies", path, list)
    if len(policies) != players:
        raise DatasetError(f"{path}: run metadata names {len(policies)} policies for {players} seats")
    try:
        # read as recorded: a parameter the text does not name is what it stood for when written
        specs = [parse_policy(str(text), game.name, recorded=True) for text in policies]
    except PolicyError as error:
        raise DatasetError(f"{path}: run metadata key 'policies': {error}") from None
    seed = _field(run_info, "seed", path, int)
    units = _field(run_info, "units", path, int)
    unit_kind = run_info.get("unit_kind", "round")
    if unit_kind not in ("round", "match"):
        raise DatasetError(f"{path}: run metadata key 'unit_kind' is {unit_kind!r}, not 'round' or 'match'")
    rounds_per_match = None if unit_kind == "round" else _field(run_info, "rounds_per_match", path, int)
    return RunReplay(path=path, compiled=compiled, game=game, specs=specs, seed=seed, unit_kind=unit_kind,
                     units=units, rounds_per_match=rounds_per_match,
                     stride=game.stride(compiled, rounds_per_match))


def _python(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def record_row(game: Game, compiled: Any, result: Any) -> dict[str, Any]:
    """The dataset row a round's result is written as: column name to value, in schema order.

    The row is built as the dataset writer builds a shard (``Game.table``), so its columns,
    their order and their values are those a reader of the dataset sees (``end_reason`` by name).
    """
    from simcore.record import output_matrices, played

    full_ints, full_masks = output_matrices(1, None, game.n_int, game.n_mask)
    ints, masks = played(full_ints, full_masks, 1)
    game.fill_row(ints, masks, 0, result)
    players = game.players(compiled)
    table = game.table(game.columns(ints, masks, players), {}, "", players)  # as the writer builds it
    return {name: values[0] for name, values in table.to_pydict().items()}


def dataset_row(files: list[Location], round_index: int) -> dict[str, Any] | None:
    """The dataset's row for ``round_index`` (None if no shard holds it)."""
    for file in files:
        try:
            table = read_table(file, filters=[("round", "==", round_index)])
        except (OSError, pa.ArrowException) as error:
            raise DatasetError(f"{file}: cannot read: {' '.join(str(error).split())}") from None
        if table.num_rows:
            return {name: _python(values[0]) for name, values in table.to_pydict().items()}
    return None


def row_differences(replayed: dict[str, Any], stored: dict[str, Any]) -> list[str]:
    """Columns whose values differ (or that only one of the rows has), in the replayed row's order."""
    names = list(replayed) + [name for name in stored if name not in replayed]
    return [name for name in names if replayed.get(name, "<absent>") != stored.get(name, "<absent>")]
