"""The learned player (``--policy learned``): its model files, its table, and its choice in Python.

A game that offers the learned player has a module ``learned`` in its package (``Learning``
below): the names of its integer features and decision kinds, the *blocks* of weights a table
holds (Tensho: one per yaku set), the auxiliary tables its numba features read, and a policy
class for its reference engine. Its ``state_nb`` implements the round contract's
``learned_features_nb`` with the same numbers.

Model files
-----------
A model is one JSON file for one *case* of a game (``blocks``: e.g. Tensho's ``set1``,
Enshu-bana's ``w2``): its format, game, case and version, the feature and kind names it was
trained on, one row of integer weights per decision kind, the command that made it and its
training log. The shipped ones live in ``simcore/models/`` as ``GAME-CASE.vVERSION.json`` and
are never changed: a retrained model is a new version. A seat's policy records the version it
plays (``learned:version=N``, always named in a dataset's policy text), and the version of a case
is its newest shipped file at or below N, so a dataset replays and resumes with the models it
was made with whatever is shipped later. ``learned:model=PATH`` plays a model file instead (its
version must match the policy's).

The choice
----------
For every legal action the game computes F integer features from the deciding seat's
observation; action ``i`` scores ``sum_f weights[slot][f] * features[i][f]``; the highest score
wins, ties to the lowest index (``choose``). No float is on the decision path, so the kernel
(``simcore.kernels.learned_nb``) and the reference engine decide identically.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

import numpy as np

from simcore.errors import PolicyError
from simcore.kernels.learned_nb import (
    L_AUX,
    L_AUX_SIZE,
    L_FEATURES,
    L_MAGIC,
    L_SLOTS,
    L_WEIGHTS,
    MAGIC,
)
from simcore.kernels.policy_ids import POLICY_LEARNED
from simcore.kernels.policy_rows import P_POLICY, PolicyArrays, policy_rows
from simcore.registry import REGISTRY

__all__ = ["FORMAT", "MAX_WEIGHT", "MODELS_DIR", "Learning", "Model", "ModelFile", "choose", "learned_rows",
           "learned_table", "learning", "load_model", "model_path", "newest_version", "save_model",
           "shipped_models", "table_weights"]

FORMAT = 1
MODELS_DIR = Path(__file__).parent / "models"
MAX_WEIGHT = 1 << 20  # |weight| bound: with features below 2**31, no score of 64 terms overflows int64
MAX_FEATURE = (1 << 31) - 1  # a game clamps every feature to -MAX_FEATURE .. MAX_FEATURE
_NAME = re.compile(r"^(?P<game>[a-z0-9]+)-(?P<case>[a-z0-9]+)\.v(?P<version>[0-9]+)\.json$")


class Learning(Protocol):
    """What a game's ``learned`` module gives (the module docstring)."""

    FEATURES: tuple[str, ...]  # the names of its integer features, in order
    KINDS: tuple[str, ...]  # its decision kinds, in the order of their weight rows

    def blocks(self, compiled: Any) -> tuple[str | None, ...]:
        """The case of each block of weights a table of these rules holds (None: never used)."""
        ...

    def aux_table(self, compiled: Any) -> np.ndarray:
        """int64[:]: the tables its numba features read."""
        ...


def learning(game: str) -> Learning | None:
    """The game's ``learned`` module, or None when the game offers no learned player."""
    try:
        module: ModuleType = importlib.import_module(f"{REGISTRY[game]}.learned")
    except ModuleNotFoundError as error:
        if error.name != f"{REGISTRY[game]}.learned":
            raise
        return None
    found: Learning = module  # type: ignore[assignment]  # a module, checked by its attributes
    return found


@dataclass
class Model:
    """One case's trained weights and how they were made."""

    game: str
    case: str
    version: int
    features: tuple[str, ...]
    kinds: tuple[str, ...]
    weights: list[list[int]]  # [kind][feature]
    command: str = ""
    log: list[str] = field(default_factory=list)
    about: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The file's contents."""
        return {"format": FORMAT, "game": self.game, "case": self.case, "version": self.version,
                "features": list(self.features), "kinds": list(self.kinds), "weights": self.weights,
                "command": self.command, "log": self.log, "about": self.about}


@dataclass(frozen=True)
class ModelFile:
    """A shipped model file: its game, case and version."""

    game: str
    case: str
    version: int
    path: Path


def model_path(game: str, case: str, version: int, folder: Path = MODELS_DIR) -> Path:
    """Where the shipped model of ``game``'s ``case`` at ``version`` lives."""
    return folder / f"{game}-{case}.v{version}.json"


def shipped_models(game: str | None = None, folder: Path = MODELS_DIR) -> list[ModelFile]:
    """The shipped model files (of ``game``, or all), by game, case and version."""
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        match = _NAME.match(path.name)
        if match and (game is None or match["game"] == game):
            found.append(ModelFile(match["game"], match["case"], int(match["version"]), path))
    return sorted(found, key=lambda m: (m.game, m.case, m.version))


def newest_version(game: str, folder: Path = MODELS_DIR) -> int:
    """The newest version among ``game``'s shipped models (0: none)."""
    return max((m.version for m in shipped_models(game, folder)), default=0)


def load_model(path: str | Path) -> Model:
    """The model in the file ``path``; ``PolicyError`` naming the file and what is wrong."""
    where = str(path)
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise PolicyError(f"policy learned: no model file {where}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise PolicyError(f"policy learned: {where} is not a model file ({error})") from None
    try:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format') if isinstance(data, dict) else None!r}, "
                             f"expected {FORMAT}")
        model = Model(str(data["game"]), str(data["case"]), int(data["version"]),
                      tuple(str(f) for f in data["features"]), tuple(str(k) for k in data["kinds"]),
                      [[int(w) for w in row] for row in data["weights"]], str(data.get("command", "")),
                      [str(line) for line in data.get("log", [])], dict(data.get("about", {})))
    except (KeyError, TypeError, ValueError) as error:
        raise PolicyError(f"policy learned: {where} is not a model file ({error})") from None
    if len(model.weights) != len(model.kinds) or any(len(row) != len(model.features) for row in model.weights):
        raise PolicyError(f"policy learned: {where}: weights are not one row of {len(model.features)} per kind")
    if any(abs(w) > MAX_WEIGHT for row in model.weights for w in row):
        raise PolicyError(f"policy learned: {where}: a weight is outside -{MAX_WEIGHT}..{MAX_WEIGHT}")
    return model


def save_model(model: Model, path: str | Path) -> None:
    """Write ``model`` to ``path`` (JSON, one weight row per line)."""
    text = json.dumps(model.to_json(), indent=1)
    Path(path).write_text(text + "\n")


def _model_for(game: str, case: str, spec: Any, module: Learning) -> Model:
    """The model a learned seat of ``spec`` plays for ``case``."""
    version = int(spec.params["version"])
    source = str(spec.params["model"])
    if source == "shipped":
        files = [m for m in shipped_models(game) if m.case == case and m.version <= version]
        if not files:
            cases = sorted({m.case for m in shipped_models(game)})
            raise PolicyError(f"policy learned: no shipped {game} model for {case} at version {version} "
                              f"(shipped: {', '.join(cases) or 'none'})")
        model = load_model(files[-1].path)
    else:
        model = load_model(source)
        if model.version != version:
            raise PolicyError(f"policy learned: {source} is version {model.version}; name it: "
                              f"learned:model={source},version={model.version}")
        if model.game != game or model.case != case:
            raise PolicyError(f"policy learned: {source} is a model of {model.game} {model.case}, "
                              f"these rules need {game} {case}")
    if model.features != tuple(module.FEATURES) or model.kinds != tuple(module.KINDS):
        raise PolicyError(f"policy learned: the {game} {case} model was trained on other features or "
                          f"decisions than this fudasim computes")
    return model


def learned_table(game: str, compiled: Any, spec: Any) -> np.ndarray:
    """int64[:]: the learned player's table (``simcore.kernels.learned_nb``) of a seat whose
    policy is ``spec`` (``learned:model=...,version=...``) in a game of ``compiled`` rules."""
    module = learning(game)
    if module is None:
        raise PolicyError(f"policy learned: not offered for {game}")
    n_features, n_kinds = len(module.FEATURES), len(module.KINDS)
    blocks = module.blocks(compiled)
    weights = np.zeros((len(blocks), n_kinds, n_features), dtype=np.int64)
    for b, case in enumerate(blocks):
        if case is not None:
            weights[b] = np.asarray(_model_for(game, case, spec, module).weights, dtype=np.int64)
    aux = np.asarray(module.aux_table(compiled), dtype=np.int64)
    table = np.zeros(L_WEIGHTS + weights.size + aux.size, dtype=np.int64)
    table[L_MAGIC] = MAGIC
    table[L_FEATURES] = n_features
    table[L_SLOTS] = len(blocks) * n_kinds
    table[L_AUX] = L_WEIGHTS + weights.size
    table[L_AUX_SIZE] = aux.size
    table[L_WEIGHTS:L_WEIGHTS + weights.size] = weights.ravel()
    table[L_WEIGHTS + weights.size:] = aux
    return table


def table_weights(table: np.ndarray) -> list[list[int]]:
    """The weight rows of a learned table as Python ints, by slot."""
    n_features, slots = int(table[L_FEATURES]), int(table[L_SLOTS])
    flat = [int(w) for w in table[L_WEIGHTS:L_WEIGHTS + slots * n_features]]
    return [flat[s * n_features:(s + 1) * n_features] for s in range(slots)]


def choose(weights: Sequence[Sequence[int]], features: Sequence[Sequence[int]], slot: int) -> int:
    """The index of the action the learned player takes: the highest score (ties: the lowest index)."""
    row = weights[slot]
    best, best_score = 0, None
    for i, values in enumerate(features):
        score = sum(w * x for w, x in zip(row, values, strict=True))
        if best_score is None or score > best_score:
            best, best_score = i, score
    return best


def learned_rows(specs: Sequence[Any], seats: int, basic_params: Mapping[str, str],
                 heuristic_tables: Callable[[Any], np.ndarray], rollout_spec: Callable[[str], Any],
                 game_title: str, table: Callable[[Any], np.ndarray]) -> PolicyArrays:
    """``policy_rows`` (``simcore.kernels.policy_rows``) with learned seats: each one's id and, in
    its row of the tables (widened as needed), its learned table (``table(spec)``)."""
    learned = {seat: table(spec) for seat, spec in enumerate(specs) if spec.policy_id == POLICY_LEARNED}
    if not learned:
        return policy_rows(specs, seats, basic_params, heuristic_tables, rollout_spec, game_title)
    stand_in = [rollout_spec("random") if seat in learned else spec for seat, spec in enumerate(specs)]
    params, floats, tables, logs = policy_rows(stand_in, seats, basic_params, heuristic_tables, rollout_spec,
                                               game_title)
    width = max(tables.shape[1], *(t.size for t in learned.values()))
    wide = np.zeros((tables.shape[0], width), dtype=np.int64)
    wide[:, :tables.shape[1]] = tables
    for seat, t in learned.items():
        params[seat, P_POLICY] = POLICY_LEARNED
        wide[seat, :] = 0
        wide[seat, :t.size] = t
    return params, floats, wide, logs
