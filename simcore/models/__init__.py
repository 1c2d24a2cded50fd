"""The learned player's model files: the shipped ones in this folder, and reading and writing one.

A model is one JSON file for one *case* of a game (e.g. Tensho's ``set1``, Enshu-bana's ``w2``):
its format, game, case and version, the feature and kind names it was trained on, one row of
integer weights per decision kind, optionally a list of integer decision trees per kind (``Tree``:
an action's score is its weighted sum plus the leaf each tree reaches), the command that made it
and its training log. The shipped
ones are ``GAME-CASE.vVERSION.json`` here and are never changed: a retrained model ships as a
new version (``simcore.learned`` says how a seat's policy picks one).

A *value model* (``GAME-CASE.value.vVERSION.json``, ``fudasim train --value``) has the same
form and two more fields: ``bias``, one integer per kind, and ``unit``. Its highest action score
plus its kind's bias, divided by ``unit``, estimates what the position is worth to the deciding
seat in the objective its ``about["objective"]`` names (the search players' ``depth``,
``simcore.search``).

A *guide model* (``GAME-CASE.guide.vVERSION.json``) is a learned player's model kept apart from
the ones ``learned`` plays: ``pimc:guide=VERSION`` starts its search from its choice. Shipping one
changes neither what ``learned`` plays by default nor how fast it plays.

This module imports no numba: ``fudasim rules show`` lists the models through it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simcore.errors import PolicyError

__all__ = ["FORMAT", "MAX_FEATURE", "MAX_LEAF", "MAX_NODES", "MAX_TREES", "MAX_UNIT", "MAX_WEIGHT", "MODELS_DIR", "Model",
           "ModelFile", "Tree", "guide_models", "load_model", "model_from_bytes", "model_path", "newest_version",
           "played_guide_model", "played_model", "played_value_model", "save_model", "shipped_models", "value_models"]

FORMAT = 1
MODELS_DIR = Path(__file__).parent
MAX_WEIGHT = 1 << 20  # |weight| bound: with features below 2**31, no score of 64 terms overflows int64
MAX_FEATURE = (1 << 31) - 1  # a game clamps every feature to -MAX_FEATURE .. MAX_FEATURE
MAX_LEAF = 1 << 24  # |leaf value| bound
MAX_TREES = 4096  # trees per kind: with MAX_LEAF, no sum of leaves overflows int64
MAX_NODES = 1 << 16  # nodes per tree
MAX_UNIT = 1 << 20  # a value model's unit: at most this many score points an objective point
LEAF = -1  # a node whose feature is LEAF is a leaf; its threshold is its value


@dataclass(frozen=True)
class Tree:
    """One decision tree over an action's features: node ``i`` is ``(feature, threshold, left,
    right)``; an inner node sends the action to ``left`` when its feature is at most
    ``threshold``, else to ``right`` (both after ``i``); a leaf (``feature == LEAF``) adds its
    ``threshold`` to the action's score. Features ``0 .. F - 1`` are the game's; ``F + f`` is
    feature ``f`` *relative to the heuristic's action*: the action's ``x[f]`` less that of the
    decision's first action whose feature 0 (every game's "the heuristic takes it") is 1, or of
    its first action if none is."""

    nodes: tuple[tuple[int, int, int, int], ...]

    def leaf(self, value: Any) -> int:
        """The value of the leaf an action reaches; ``value(f)`` gives its feature ``f``."""
        i = 0
        while self.nodes[i][0] != LEAF:
            feature, threshold, left, right = self.nodes[i]
            i = left if value(feature) <= threshold else right
        return self.nodes[i][1]
_NAME = re.compile(r"^(?P<game>[a-z0-9]+)-(?P<case>[a-z0-9]+)\.v(?P<version>[0-9]+)\.json$")
_VALUE_NAME = re.compile(r"^(?P<game>[a-z0-9]+)-(?P<case>[a-z0-9]+)\.value\.v(?P<version>[0-9]+)\.json$")
_GUIDE_NAME = re.compile(r"^(?P<game>[a-z0-9]+)-(?P<case>[a-z0-9]+)\.guide\.v(?P<version>[0-9]+)\.json$")


@dataclass
class Model:
    """One case's trained weights and how they were made."""

    game: str
    case: str
    version: int
    features: tuple[str, ...]
    kinds: tuple[str, ...]
    weights: list[list[int]]  # [kind][feature]
    trees: list[list[Tree]] | None = None  # [kind][tree], added to the weighted sum
    command: str = ""
    log: list[str] = field(default_factory=list)
    about: dict[str, Any] = field(default_factory=dict)
    bias: list[int] | None = None  # a value model's: [kind], added to the best action's score
    unit: int | None = None  # a value model's: score points an objective point

    def to_json(self) -> dict[str, Any]:
        """The file's contents."""
        data: dict[str, Any] = {"format": FORMAT, "game": self.game, "case": self.case, "version": self.version,
                                "features": list(self.features), "kinds": list(self.kinds), "weights": self.weights}
        if self.bias is not None:
            data.update(bias=self.bias, unit=self.unit)
        if self.trees is not None:
            data["trees"] = [[[list(node) for node in tree.nodes] for tree in kind] for kind in self.trees]
        data.update(command=self.command, log=self.log, about=self.about)
        return data


@dataclass(frozen=True)
class ModelFile:
    """A shipped model file: its game, case and version."""

    game: str
    case: str
    version: int
    path: Path


def model_path(game: str, case: str, version: int, folder: Path = MODELS_DIR, value: bool = False) -> Path:
    """Where the shipped model (``value``: value model) of ``game``'s ``case`` at ``version`` lives."""
    return folder / f"{game}-{case}.{'value.' if value else ''}v{version}.json"


def shipped_models(game: str | None = None, folder: Path = MODELS_DIR) -> list[ModelFile]:
    """The shipped model files (of ``game``, or all), by game, case and version."""
    return _files(_NAME, game, folder)


def value_models(game: str | None = None, folder: Path = MODELS_DIR) -> list[ModelFile]:
    """The shipped value model files (of ``game``, or all), by game, case and version."""
    return _files(_VALUE_NAME, game, folder)


def guide_models(game: str | None = None, folder: Path = MODELS_DIR) -> list[ModelFile]:
    """The shipped guide model files (of ``game``, or all), by game, case and version."""
    return _files(_GUIDE_NAME, game, folder)


def _files(name: re.Pattern[str], game: str | None, folder: Path) -> list[ModelFile]:
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        match = name.match(path.name)
        if match and (game is None or match["game"] == game):
            found.append(ModelFile(match["game"], match["case"], int(match["version"]), path))
    return sorted(found, key=lambda m: (m.game, m.case, m.version))


def played_model(game: str, case: str, version: int, folder: Path = MODELS_DIR) -> ModelFile | None:
    """The model file ``learned:version=version`` plays for ``case``: the case's newest at or
    below ``version`` (None: none)."""
    files = [m for m in shipped_models(game, folder) if m.case == case and m.version <= version]
    return files[-1] if files else None


def played_value_model(game: str, case: str, version: int, folder: Path = MODELS_DIR) -> ModelFile | None:
    """The value model file a search player's ``value=version`` reads for ``case``: the case's
    newest at or below ``version`` (None: none)."""
    files = [m for m in value_models(game, folder) if m.case == case and m.version <= version]
    return files[-1] if files else None


def played_guide_model(game: str, case: str, version: int, folder: Path = MODELS_DIR) -> ModelFile | None:
    """The guide model file a pimc seat's ``guide=version`` reads for ``case``: the case's newest
    at or below ``version`` (None: none)."""
    files = [m for m in guide_models(game, folder) if m.case == case and m.version <= version]
    return files[-1] if files else None


def newest_version(game: str, folder: Path = MODELS_DIR) -> int:
    """The newest version among ``game``'s shipped models (0: none)."""
    return max((m.version for m in shipped_models(game, folder)), default=0)


def load_model(path: str | Path) -> Model:
    """The model in the file ``path``; ``PolicyError`` naming the file and what is wrong."""
    try:
        text = Path(path).read_bytes()
    except FileNotFoundError:
        raise PolicyError(f"policy learned: no model file {path}") from None
    except OSError as error:
        raise PolicyError(f"policy learned: {path} is not a model file ({error})") from None
    return model_from_bytes(text, str(path))


def model_from_bytes(text: bytes, where: str) -> Model:
    """The model a file holding ``text`` holds (``load_model``); ``where`` names the file in the
    ``PolicyError`` that says what is wrong."""
    try:
        data = json.loads(text.decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise PolicyError(f"policy learned: {where} is not a model file ({error})") from None
    try:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format') if isinstance(data, dict) else None!r}, "
                             f"expected {FORMAT}")
        model = Model(str(data["game"]), str(data["case"]), int(data["version"]),
                      tuple(str(f) for f in data["features"]), tuple(str(k) for k in data["kinds"]),
                      [[int(w) for w in row] for row in data["weights"]], _trees(data.get("trees")),
                      str(data.get("command", "")), [str(line) for line in data.get("log", [])],
                      dict(data.get("about", {})),
                      None if data.get("bias") is None else [int(b) for b in data["bias"]],
                      None if data.get("unit") is None else int(data["unit"]))
    except (KeyError, TypeError, ValueError) as error:
        raise PolicyError(f"policy learned: {where} is not a model file ({error})") from None
    if model.trees is not None:
        _check_trees(model, where)
    if len(model.weights) != len(model.kinds) or any(len(row) != len(model.features) for row in model.weights):
        raise PolicyError(f"policy learned: {where}: weights are not one row of {len(model.features)} per kind")
    if any(abs(w) > MAX_WEIGHT for row in model.weights for w in row):
        raise PolicyError(f"policy learned: {where}: a weight is outside -{MAX_WEIGHT}..{MAX_WEIGHT}")
    if (model.bias is None) != (model.unit is None):
        raise PolicyError(f"policy learned: {where}: a value model needs both bias and unit")
    if model.bias is not None and model.unit is not None:
        if len(model.bias) != len(model.kinds) or any(abs(b) > MAX_LEAF for b in model.bias):
            raise PolicyError(f"policy learned: {where}: bias is not one integer within -{MAX_LEAF}..{MAX_LEAF} "
                              f"per kind")
        if not 1 <= model.unit <= MAX_UNIT:
            raise PolicyError(f"policy learned: {where}: unit {model.unit} is outside 1..{MAX_UNIT}")
    return model


def _trees(data: Any) -> list[list[Tree]] | None:
    """A file's ``trees`` (None: no trees); ``ValueError``/``TypeError`` on a wrong shape."""
    if data is None:
        return None
    trees = []
    for kind in data:
        row = []
        for nodes in kind:
            parsed = []
            for node in nodes:
                if len(node) != 4:
                    raise ValueError("a tree node is not [feature, threshold, left, right]")
                parsed.append((int(node[0]), int(node[1]), int(node[2]), int(node[3])))
            row.append(Tree(tuple(parsed)))
        trees.append(row)
    return trees


def _check_trees(model: Model, where: str) -> None:
    """``PolicyError`` unless every tree is one a choice can walk: one list of trees per kind,
    inner nodes on a feature (or a relative one) with both children after them, bounded leaves."""
    assert model.trees is not None
    if len(model.trees) != len(model.kinds):
        raise PolicyError(f"policy learned: {where}: trees are not one list per kind")
    n_features = len(model.features)
    for k, kind in enumerate(model.trees):
        if len(kind) > MAX_TREES:
            raise PolicyError(f"policy learned: {where}: kind {model.kinds[k]} has more than {MAX_TREES} trees")
        for t, tree in enumerate(kind):
            size = len(tree.nodes)
            if not 1 <= size <= MAX_NODES:
                raise PolicyError(f"policy learned: {where}: tree {t} of kind {model.kinds[k]} has {size} nodes "
                                  f"(1..{MAX_NODES})")
            for i, (feature, threshold, left, right) in enumerate(tree.nodes):
                if feature == LEAF:
                    ok = abs(threshold) <= MAX_LEAF
                else:
                    ok = 0 <= feature < 2 * n_features and i < left < size and i < right < size
                if not ok:
                    raise PolicyError(f"policy learned: {where}: node {i} of tree {t} of kind {model.kinds[k]} "
                                      f"is not a leaf within -{MAX_LEAF}..{MAX_LEAF} or a split on one of the "
                                      f"{2 * n_features} features with both children after it")


def save_model(model: Model, path: str | Path) -> None:
    """Write ``model`` to ``path`` (JSON, one weight per line, one tree per line)."""
    data = model.to_json()
    trees = data.pop("trees", None)
    text = json.dumps(data, indent=1)
    if trees is not None:
        kinds = ",\n".join("  [" + ",\n   ".join(json.dumps(tree, separators=(",", ":")) for tree in kind) + "]"
                           for kind in trees)
        text = text.replace('\n "command":', f'\n "trees": [\n{kinds}\n ],\n "command":', 1)
    Path(path).write_text(text + "\n")
