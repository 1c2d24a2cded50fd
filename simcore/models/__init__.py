"""The learned player's model files: the shipped ones in this folder, and reading and writing one.

A model is one JSON file for one *case* of a game (e.g. Tensho's ``set1``, Enshu-bana's ``w2``):
its format, game, case and version, the feature and kind names it was trained on, one row of
integer weights per decision kind, the command that made it and its training log. The shipped
ones are ``GAME-CASE.vVERSION.json`` here and are never changed: a retrained model ships as a
new version (``simcore.learned`` says how a seat's policy picks one).

This module imports no numba: ``fudasim rules show`` lists the models through it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simcore.errors import PolicyError

__all__ = ["FORMAT", "MAX_FEATURE", "MAX_WEIGHT", "MODELS_DIR", "Model", "ModelFile", "load_model", "model_path",
           "newest_version", "save_model", "shipped_models"]

FORMAT = 1
MODELS_DIR = Path(__file__).parent
MAX_WEIGHT = 1 << 20  # |weight| bound: with features below 2**31, no score of 64 terms overflows int64
MAX_FEATURE = (1 << 31) - 1  # a game clamps every feature to -MAX_FEATURE .. MAX_FEATURE
_NAME = re.compile(r"^(?P<game>[a-z0-9]+)-(?P<case>[a-z0-9]+)\.v(?P<version>[0-9]+)\.json$")


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
