"""Small learned-player models for the tests: random integer weights, written as model files."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simcore.learned import learning
from simcore.models import Model, save_model


def write_models(folder: Path, game: str, cases, seed: int, version: int = 1) -> str:
    """Model files of small random weights for ``game``'s ``cases`` in ``folder`` (a feature the
    game fixes at its fixed weight); returns the policy text that plays them."""
    module = learning(game)
    assert module is not None, f"{game} offers no learned player (a module learned in its package)"
    rng = np.random.default_rng(seed)
    for case in cases:
        weights = rng.integers(-40, 41, size=(len(module.KINDS), len(module.FEATURES)))
        weights[:, 0] = rng.integers(0, 200, size=len(module.KINDS))  # the heuristic's choice counts most
        for name, w in module.FIXED.items():
            weights[:, module.FEATURES.index(name)] = w
        save_model(Model(game, case, version, tuple(module.FEATURES), tuple(module.KINDS), weights.tolist()),
                   folder / f"{game}-{case}.v{version}.json")
    return f"learned:model={folder},version={version}"
