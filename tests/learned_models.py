"""Small learned-player models for the tests: random integer weights and, for every other decision
kind, a few random trees over the features and their values relative to the heuristic's action, written as model files."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from simcore.learned import learning
from simcore.models import LEAF, Model, Tree, save_model


def random_tree(rng: np.random.Generator, n_features: int, depth: int) -> Tree:
    """A full tree of ``depth`` splits on random features (raw or relative) at small thresholds,
    with leaves of -20,000..20,000 (as large as the weighted sums, so that they change choices)."""
    nodes: list[tuple[int, int, int, int]] = []

    def grow(level: int) -> int:
        at = len(nodes)
        nodes.append((LEAF, 0, 0, 0))
        if level == depth:
            nodes[at] = (LEAF, int(rng.integers(-20000, 20001)), 0, 0)
            return at
        feature, threshold = int(rng.integers(0, 2 * n_features)), int(rng.integers(-2, 3))
        left = grow(level + 1)
        nodes[at] = (feature, threshold, left, grow(level + 1))
        return at

    grow(0)
    return Tree(tuple(nodes))


def write_models(folder: Path, game: str, cases, seed: int, version: int = 1) -> str:
    """Model files of small random weights for ``game``'s ``cases`` in ``folder`` (a feature the
    game fixes at its fixed weight), with three random trees for every other kind; returns the
    policy text that plays them."""
    module = learning(game)
    assert module is not None, f"{game} offers no learned player (a module learned in its package)"
    rng = np.random.default_rng(seed)
    for case in cases:
        weights = rng.integers(-40, 41, size=(len(module.KINDS), len(module.FEATURES)))
        weights[:, 0] = rng.integers(0, 200, size=len(module.KINDS))  # the heuristic's choice counts most
        for name, w in module.FIXED.items():
            weights[:, module.FEATURES.index(name)] = w
        trees = [[random_tree(rng, len(module.FEATURES), 3) for _ in range(3)] if k % 2 else []
                 for k in range(len(module.KINDS))]
        save_model(Model(game, case, version, tuple(module.FEATURES), tuple(module.KINDS), weights.tolist(), trees),
                   folder / f"{game}-{case}.v{version}.json")
    return f"learned:model={folder},version={version}"


def digests(files: Iterable) -> dict[str, str]:
    """Each model file's name and the first 16 hex digits of its sha256 (``ModelFile``s)."""
    return {m.path.name: hashlib.sha256(m.path.read_bytes()).hexdigest()[:16] for m in files}
