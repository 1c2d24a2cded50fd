"""Small Tensho datasets for the analysis tests, made with the reference engine.

Not a pytest ``conftest.py``: the analysis test modules import ``analysis_datasets`` from here.
Datasets are built once per test session (a module-level cache keyed by their parameters) in
pytest's session temporary directory.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from simcore import ENGINE_VERSION
from simcore.dataset import RUN_FILE, write_shard
from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.record import LAYOUT
from simcore.games.tensho.reference import play_units
from simcore.policies import parse_policy
from simcore.rules import load_rules

SEED = 20240611
ROUNDS = 2000

# Expected values in the analysis tests are computed here, independently of ``analysis.intervals``:
# the textbook constant and formula, in plain floating point.
Z95 = 1.959963984540054  # the 0.975 quantile of the standard normal distribution


def wilson_by_hand(successes: int, trials: int, z: float = Z95) -> tuple[float, float, float]:
    """Wilson (1927) score interval, written out from the formula (Newcombe 1998, method 3).

    ``(p + z^2 / 2n -+ z sqrt(p (1 - p) / n + z^2 / 4n^2)) / (1 + z^2 / n)`` with ``p = k / n``.
    """
    k, n = float(successes), float(trials)
    p = k / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return p, max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def mcnemar_exact_by_hand(only_first: int, only_second: int) -> float:
    """Exact McNemar test: twice the smaller binomial(b + c, 1/2) tail, at most 1 (integer arithmetic)."""
    total = only_first + only_second
    if total == 0:
        return 1.0
    tail = sum(math.comb(total, k) for k in range(min(only_first, only_second) + 1))
    return min(1.0, 2 * tail / 2**total)


def holm_by_hand(p_values) -> list[float]:
    """Holm (1979) step-down adjusted p-values, straight from the definition (finite values only)."""
    p = [float(v) for v in p_values]
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for position, index in enumerate(order):
        out[index] = max(min(1.0, (m - j) * p[order[j]]) for j in range(position + 1))
    return out


def run_info_for(rules, policies: list[str], seed: int, units: int, rounds: int,
                 rounds_per_match: int | None) -> dict[str, Any]:
    """Run metadata in the shape ``fudasim run`` writes."""
    return {
        "game": rules.game,
        "rules_name": rules.name,
        "rules_sha256": rules.sha256,
        "options": dict(rules.options),
        "seed": seed,
        "policies": list(policies),
        "yaku": [{"bit": y.index, "key": y.key, "name": y.name, "english": y.english} for y in rules.yaku],
        "rounds_per_match": rounds_per_match,
        "engine": ENGINE_VERSION,
        "units": units,
        "rounds": rounds,
        "command": "tests/conftest_analysis.py",
    }


def make_dataset(directory: Path, *, rules_name: str = "tensho-ise", overrides: dict[str, str] | None = None,
                 policies: tuple[str, str] = ("random", "random"), seed: int = SEED, units: int = ROUNDS,
                 rounds_per_match: int | None = None, shards: int = 2) -> Path:
    """Play ``units`` units with the reference engine and write them as a dataset directory."""
    rules = load_rules(rules_name, overrides=overrides or {})
    compiled = compile_rules(rules)
    specs = [parse_policy(p) for p in policies]
    directory.mkdir(parents=True, exist_ok=True)
    per_shard = -(-units // shards)
    total_rounds = 0
    tables = []
    for index in range(shards):
        first = index * per_shard
        count = min(per_shard, units - first)
        if count <= 0:
            break
        ints, masks = play_units(compiled, specs, seed, first, count, rounds_per_match)
        columns = LAYOUT.columns(ints, masks, 2)
        total_rounds += len(columns["round"])
        tables.append(columns)
    info = run_info_for(rules, list(policies), seed, units, total_rounds, rounds_per_match)
    for index, columns in enumerate(tables):
        write_shard(directory, index, LAYOUT.table(columns, info, rules.text, 2))
    (directory / RUN_FILE).write_text(json.dumps(info, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return directory


class AnalysisDatasets:
    """Lazily built, session-wide datasets, keyed by name."""

    SPECS: dict[str, dict[str, Any]] = {
        "ise_t1": {},
        "ise_t3": {"overrides": {"tensho.card_values": "T3_hanafuda"}},
        "ise_t1_other_seed": {"seed": SEED + 1},
        "ise_set2": {"overrides": {"tensho.yaku_set_choice": "fixed_2"}},
        "ise_chaff_a": {"overrides": {"tensho.chaff_set": "A"}},
        "greedy": {"policies": ("greedy", "random"), "units": 800},
        "matches": {"rounds_per_match": 12, "units": 60,
                    "overrides": {"tensho.yaku_set_choice": "random"}},
        "hanafuda": {"rules_name": "tensho-hanafuda", "units": 600, "shards": 1},
    }

    def __init__(self, base: Path) -> None:
        self.base = base
        self.built: dict[str, Path] = {}

    def __getitem__(self, name: str) -> Path:
        if name not in self.built:
            self.built[name] = make_dataset(self.base / name, **self.SPECS[name])
        return self.built[name]


_CACHE: dict[str, AnalysisDatasets] = {}


@pytest.fixture(scope="session")
def analysis_datasets(tmp_path_factory) -> AnalysisDatasets:
    key = "datasets"
    if key not in _CACHE:
        _CACHE[key] = AnalysisDatasets(tmp_path_factory.mktemp("analysis-datasets"))
    return _CACHE[key]
