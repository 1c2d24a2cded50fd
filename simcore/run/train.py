"""``fudasim train``: a learned player's model from self-play positions labelled by search.

Each iteration (expert iteration: Anthony, Tian & Barber 2017; the search is the expert, the
model its apprentice):

1. **Positions.** Every seat plays the current player (the ``heuristic`` first, then the model of
   the iteration before), taking a random action with ``explore`` per mille; a share
   (``label`` per mille) of the decisions with two or more actions are kept, each action with its
   features from the deciding seat's view (``simcore.kernels.learned_nb.collect_nb``).
2. **Labels.** Each kept decision is searched as ``pimc`` does: ``worlds`` worlds the seat
   cannot tell apart, every action played in each and the round finished by the current player
   in every seat; an action's label is its mean objective (the game's ``TRAIN_OBJECTIVE``, else
   its ``pimc`` default: the sign of the payoff in Tensho, the payoff in Enshu-bana, the margin
   over the other seat in koi-koi).
3. **Fit.** For each decision kind, a ridge regression (scikit-learn) of the labels on the
   features, both centred within each decision, so that only the differences between a
   decision's actions count; the positions of every iteration so far are pooled. The weights
   are scaled so the largest is ``MAX_WEIGHT`` and rounded: the shipped, integer model. A kind
   with fewer than ``MIN_DECISIONS`` labelled decisions keeps the heuristic's choice.
   ``--fit trees`` fits gradient-boosted trees instead (scikit-learn's
   ``HistGradientBoostingRegressor``, ``--trees`` of at most ``--leaves`` leaves each, learning
   rate ``--rate``) to the
   centred labels, on the features and on their differences from the heuristic's action
   (``simcore.models.Tree``), with no weights but the game's fixed ones; thresholds become
   integers (every feature is one) and leaves are scaled and rounded so that the largest leaves
   of all a kind's trees sum to ``MAX_WEIGHT // 2``: a fixed weight of ``MAX_WEIGHT`` on a 0/1
   feature still outscores them.
4. **Strength.** The new model plays ``deals`` deals in every seat in turn against the
   heuristic in the others; the log gives its gain per round over the heuristic in the same
   seat on the same deals (a seat's payoff less the table's mean: ``_evaluate``), with a 95%
   interval paired by deal.

The model of the last iteration is written (``--out``), with the command, the library versions
and the log. Everything is seeded: the same command makes the same file.

``--value`` trains a *value model* instead (``simcore.models``; what the search players' ``depth``
reads): every iteration's positions come from the heuristic's self-play (the search players'
rollout policy), labelled by the search's objective unless ``--objective`` names another, and
the labels are fitted without centring (a ridge regression with an
intercept, or ``--fit trees``), so that an action's score estimates its mean objective itself;
weights, leaves and intercepts are multiplied by ``--unit`` and rounded. There is no strength
check: the log gives each kind's R2 on the pooled positions and on a fifth of the decisions held
out of the fit.
"""

from __future__ import annotations

import importlib
import math
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simcore.errors import RunError
from simcore.games import game_of
from simcore.kernels.policy_ids import OBJECTIVE_IDS, POLICY_HEURISTIC, POLICY_LEARNED
from simcore.kernels.threads import SLOW_SPANS_PER_THREAD, in_threads
from simcore.learned import learned_table, learning
from simcore.models import LEAF, MAX_LEAF, MAX_TREES, MAX_UNIT, MAX_WEIGHT, Model, Tree, save_model
from simcore.policies import parse_policy
from simcore.registry import REGISTRY
from simcore.rules import load_rules

__all__ = ["MIN_DECISIONS", "VALUE_UNITS", "TrainConfig", "fit_value", "fit_weights", "train", "training_objective"]

VALUE_UNITS = {"win": 1 << 12, "score": 1 << 6, "margin": 1 << 6}  # --value's default --unit by objective
MIN_DECISIONS = 200  # labelled decisions of a kind below which the kind keeps the heuristic's choice
ROWS_PER_ROUND = 512  # room for one round's labelled actions
CHUNK_ROUNDS = 64
_BLOCK_ROWS = 1 << 16  # rows of relative_features computed at a time
Z95 = 1.959963984540054
LABELS = ("sampled", "true")
FITS = ("ridge", "pairwise", "trees")
EVAL_ROUND = 0  # evaluation deals are rounds 0 .. deals - 1
TRAIN_ROUND = 1 << 40  # an iteration's positions start at (iteration + 1) * TRAIN_ROUND


@dataclass(frozen=True)
class TrainConfig:
    """What ``fudasim train`` is asked for (the module docstring)."""

    rules: str
    options: dict[str, str] = field(default_factory=dict)
    seed: int = 0
    iterations: int = 2
    rounds: int = 2000  # self-play rounds per iteration
    worlds: int = 16
    label: int = 250  # per mille of decisions labelled
    explore: int = 50  # per mille of random actions
    deals: int = 2000  # evaluation deals per iteration
    alpha: float = 1.0  # the ridge penalty, on standardised features
    labels: str = "sampled"  # sampled: worlds the seat cannot tell apart; true: the real position
    objective: str | None = None  # win, score or margin (default: the game's TRAIN_OBJECTIVE, else its pimc objective)
    fit: str = "ridge"  # ridge: regression of the centred labels; pairwise: rank the best action first; trees
    trees: int = 100  # --fit trees: boosting iterations (trees per kind)
    leaves: int = 31  # --fit trees: leaves per tree at most
    rate: float = 0.1  # --fit trees: the boosting's learning rate (each tree's shrinkage)
    version: int | None = None  # the model's version (default: what ``--policy learned`` plays now)
    value: bool = False  # a value model (module docstring)
    unit: int | None = None  # --value: score points an objective point (default: VALUE_UNITS)
    out: str | None = None
    threads: int | None = None
    command: str = ""


def _check(config: TrainConfig) -> None:
    for name, value, low, high in (("--iterations", config.iterations, 1, 100),
                                   ("--rounds", config.rounds, 1, 10**8),
                                   ("--worlds", config.worlds, 1, 4096),
                                   ("--label", config.label, 1, 1000),
                                   ("--explore", config.explore, 0, 1000),
                                   ("--deals", config.deals, 1, 10**8),
                                   ("--trees", config.trees, 1, MAX_TREES),
                                   ("--leaves", config.leaves, 2, 4096)):
        if not low <= value <= high:
            raise RunError(f"{name} {value}: must be {low}..{high}")
    if not 0 <= config.seed < 2**64:
        raise RunError(f"--seed {config.seed}: must be in 0 .. 2**64 - 1")
    if not (config.alpha > 0 and math.isfinite(config.alpha)):
        raise RunError(f"--alpha {config.alpha}: must be a positive number")
    if not 0 < config.rate <= 1:
        raise RunError(f"--rate {config.rate}: must be above 0 and at most 1")
    if config.fit not in FITS:
        raise RunError(f"--fit {config.fit}: must be one of {', '.join(FITS)}")
    if config.labels not in LABELS:
        raise RunError(f"--labels {config.labels}: must be one of {', '.join(LABELS)}")
    if config.version is not None and config.version < 1:
        raise RunError(f"--version {config.version}: must be at least 1")
    if config.unit is not None and not (config.value and 1 <= config.unit <= MAX_UNIT):
        raise RunError(f"--unit {config.unit}: must be 1..{MAX_UNIT}, with --value")
    if config.value and config.fit == "pairwise":
        raise RunError("--fit pairwise ranks actions; a value model (--value) is fitted by ridge or trees")


def _sklearn() -> Any:
    try:
        from sklearn import linear_model
    except ImportError:
        raise RunError("fudasim train needs scikit-learn: pip install 'fudasim[learn]'") from None
    return linear_model


def _booster(n_trees: int, leaves: int, rate: float, seed: int) -> Any:
    """The gradient-boosted trees of ``--fit trees`` (unfitted): ``n_trees`` of at most
    ``leaves`` leaves, learning rate ``rate``, seeded."""
    try:
        from sklearn.ensemble import HistGradientBoostingRegressor
    except ImportError:
        raise RunError("fudasim train needs scikit-learn: pip install 'fudasim[learn]'") from None
    return HistGradientBoostingRegressor(max_iter=n_trees, max_leaf_nodes=leaves, learning_rate=rate,
                                         early_stopping=False, random_state=seed % 2**32)


def _pairwise(linear_model: Any, x: np.ndarray, y: np.ndarray, groups: np.ndarray,
              alpha: float) -> tuple[np.ndarray, str]:
    """Weights that rank each decision's best-labelled action above its others: a logistic
    regression without intercept on the feature differences (best minus other, and its mirror),
    each pair weighted by the labels' difference; and the share of pairs ranked right."""
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    ends = np.r_[starts[1:], len(groups)]
    diffs, gaps = [], []
    for lo, hi in zip(starts, ends, strict=True):
        best = lo + int(np.argmax(y[lo:hi]))
        for i in range(lo, hi):
            if y[best] > y[i]:
                diffs.append(x[best] - x[i])
                gaps.append(y[best] - y[i])
    if not diffs:
        return np.zeros(x.shape[1]), "no pairs"
    d = np.asarray(diffs)
    g = np.asarray(gaps)
    model = linear_model.LogisticRegression(C=1.0 / alpha, fit_intercept=False, max_iter=1000)
    model.fit(np.vstack([d, -d]), np.r_[np.ones(len(d)), np.zeros(len(d))], sample_weight=np.r_[g, g])
    right = float(np.average(d @ model.coef_[0] > 0, weights=g))
    return model.coef_[0], f"{len(d):,} pairs, {100 * right:.1f}% ranked right"


def _centred(x: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """``x`` (float64[rows] or [rows, F]) less the mean of its decision's rows (``groups``: rows of
    one decision are adjacent)."""
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    if not len(starts):
        return x
    sizes = np.diff(np.r_[starts, len(groups)])
    means = np.add.reduceat(x, starts, axis=0) / (sizes[:, None] if x.ndim == 2 else sizes)
    return x - np.repeat(means, sizes, axis=0)


def fit_weights(features: np.ndarray, labels: np.ndarray, groups: np.ndarray, slots: np.ndarray, n_slots: int,
                alpha: float, default: np.ndarray, fixed: dict[int, int],
                fit: str = "ridge") -> tuple[np.ndarray, list[str]]:
    """Integer weights int64[n_slots, F] and a note per slot (module docstring, step 3).

    ``features`` int64[rows, F], ``labels`` float64[rows] (an action's mean objective),
    ``groups`` int64[rows] (a decision's number: rows of one decision are adjacent), ``slots``
    int64[rows]; ``default`` int64[F] is the row of a slot with too few decisions; ``fixed``
    maps a feature to its weight in every row (not fitted); ``fit`` is ``ridge`` (regression of
    the centred labels) or ``pairwise`` (``_pairwise``).
    """
    linear_model = _sklearn()
    n_features = features.shape[1]
    weights = np.tile(default, (n_slots, 1)).astype(np.int64)
    notes = []
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    for slot in range(n_slots):
        rows = slots == slot
        decisions = int(np.count_nonzero(rows[starts])) if len(starts) else 0
        if decisions < MIN_DECISIONS:
            continue
        # one slot's rows at a time (a decision's rows share its slot): centred within each decision
        xs, ys = _centred(features[rows].astype(np.float64), groups[rows]), _centred(labels[rows], groups[rows])
        scale = xs.std(axis=0)
        used = scale > 0
        used[list(fixed)] = False
        if not used.any():
            continue
        if fit == "pairwise":
            w_used, quality = _pairwise(linear_model, xs[:, used] / scale[used], ys, groups[rows], alpha)
        else:
            model = linear_model.Ridge(alpha=alpha, fit_intercept=False)
            model.fit(xs[:, used] / scale[used], ys)
            w_used, quality = model.coef_, f"R2 {model.score(xs[:, used] / scale[used], ys):.3f}"
        w = np.zeros(n_features)
        w[used] = w_used / scale[used]
        top = np.abs(w).max()
        if top == 0:
            continue
        weights[slot] = np.rint(w * (MAX_WEIGHT / top)).astype(np.int64)
        notes.append(f"slot {slot}: {decisions:,} decisions, {quality}")
    for f, weight in fixed.items():
        weights[:, f] = weight
    return weights, notes


def fit_value(features: np.ndarray, labels: np.ndarray, groups: np.ndarray, slots: np.ndarray, n_slots: int,
              alpha: float, unit: int, fit: str, n_trees: int, leaves: int,
              seed: int, rate: float = 0.1) -> tuple[np.ndarray, np.ndarray, list[list[Tree]] | None, list[str]]:
    """``--value`` (module docstring): integer weights int64[n_slots, F], a bias per slot, the
    trees of each slot (``fit`` trees; else None) and a note per slot. A slot with fewer than
    ``MIN_DECISIONS`` decisions scores every position by the mean label of all positions."""
    linear_model = _sklearn()
    n_features = features.shape[1]
    weights = np.zeros((n_slots, n_features), dtype=np.int64)
    mean = float(labels.mean()) if len(labels) else 0.0
    bias = np.full(n_slots, int(np.rint(mean * unit)), dtype=np.int64)
    trees: list[list[Tree]] | None = [[] for _ in range(n_slots)] if fit == "trees" else None
    notes = []
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    # a fifth of the decisions held out, chosen by the decision's number (every action of one together)
    held = (np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(groups)])) % 5) == 4
    for slot in range(n_slots):
        rows = slots == slot
        decisions = int(np.count_nonzero(rows[starts])) if len(starts) else 0
        if decisions < MIN_DECISIONS:
            continue
        # one slot's rows at a time (a decision's rows share its slot), so memory holds one slot's
        x = (relative_features(features[rows], groups[rows], np.float64) if fit == "trees"
             else features[rows].astype(np.float64))
        y = labels[rows]
        train, test = ~held[rows], held[rows]
        if fit == "trees":
            model = _booster(n_trees, leaves, rate, seed)
            r2_test = model.fit(x[train], y[train]).score(x[test], y[test])
            r2 = model.fit(x, y).score(x, y)
            fitted = [predictors[0].nodes for predictors in model._predictors]
            assert trees is not None
            trees[slot] = [_predictor_tree(nodes, unit) for nodes in fitted]
            intercept = float(np.asarray(model._baseline_prediction).ravel()[0])
            if any(abs(node[1]) > MAX_LEAF for tree in trees[slot] for node in tree.nodes if node[0] == LEAF):
                raise RunError(f"--unit {unit}: a leaf of slot {slot} is beyond {MAX_LEAF}; use a smaller --unit")
        else:
            scale = x.std(axis=0)
            used = scale > 0
            xs = x[:, used] / scale[used]
            model = linear_model.Ridge(alpha=alpha)
            r2_test = model.fit(xs[train], y[train]).score(xs[test], y[test])
            r2 = model.fit(xs, y).score(xs, y)
            w = np.zeros(n_features)
            w[used] = model.coef_ / scale[used]
            if np.abs(w).max() * unit > MAX_WEIGHT:
                raise RunError(f"--unit {unit}: a weight of slot {slot} is beyond {MAX_WEIGHT}; use a smaller --unit")
            weights[slot] = np.rint(w * unit).astype(np.int64)
            intercept = float(model.intercept_)
        if abs(intercept * unit) > MAX_LEAF:
            raise RunError(f"--unit {unit}: the intercept of slot {slot} is beyond {MAX_LEAF}; use a smaller --unit")
        bias[slot] = int(np.rint(intercept * unit))
        notes.append(f"slot {slot}: {decisions:,} decisions, R2 {r2:.3f} "
                     f"(held-out fifth: {r2_test:.3f})")
    return weights, bias, trees, notes


def training_objective(game: str, module: Any) -> str:
    """What ``fudasim train`` labels by without ``--objective``: the game's ``learned`` module's
    ``TRAIN_OBJECTIVE`` where it names one (Enshu-bana: ``score``, as its shipped models were
    trained), else the game's ``pimc`` default."""
    return str(getattr(module, "TRAIN_OBJECTIVE", None) or parse_policy("pimc", game).params["objective"])


def relative_features(features: np.ndarray, groups: np.ndarray, dtype: type = np.int64) -> np.ndarray:
    """``dtype``[rows, 2F] (int64 unless named): each action's features, then their differences
    from its decision's heuristic action (the first whose feature 0 is 1, else the first:
    ``simcore.models.Tree``). Written into one array a block of rows at a time, so that it takes
    little more memory than its result (float64 holds the integer features exactly)."""
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    sizes = np.diff(np.r_[starts, len(groups)])
    marked = features[:, 0] == 1
    first_marked = np.full(len(starts), -1)
    index = np.repeat(np.arange(len(starts)), sizes)
    rows = np.flatnonzero(marked)[::-1]  # the first marked row of a decision is written last
    first_marked[index[rows]] = rows
    base = np.repeat(np.where(first_marked >= 0, first_marked, starts), sizes)
    n, f = features.shape
    out = np.empty((n, 2 * f), dtype=dtype)
    out[:, :f] = features
    for lo in range(0, n, _BLOCK_ROWS):
        hi = min(lo + _BLOCK_ROWS, n)
        np.subtract(out[lo:hi, :f], out[base[lo:hi], :f], out=out[lo:hi, f:])
    return out


def _predictor_tree(nodes: np.ndarray, scale: float) -> Tree:
    """One fitted scikit-learn tree (``TreePredictor.nodes``) as an integer ``Tree``: an integer
    feature is at most a threshold t exactly when it is at most floor(t)."""
    out = []
    for node in nodes:
        if node["is_leaf"]:
            out.append((LEAF, int(np.rint(node["value"] * scale)), 0, 0))
        else:
            out.append((int(node["feature_idx"]), int(math.floor(node["num_threshold"])), int(node["left"]),
                        int(node["right"])))
    return Tree(tuple(out))


def fit_trees(features: np.ndarray, labels: np.ndarray, groups: np.ndarray, slots: np.ndarray, n_slots: int,
              default: np.ndarray, fixed: dict[int, int], n_trees: int, leaves: int,
              seed: int, rate: float = 0.1) -> tuple[np.ndarray, list[list[Tree]], list[str]]:
    """``--fit trees`` (module docstring, step 3): weights int64[n_slots, F] (``default`` where a
    slot has too few decisions, else 0 but the ``fixed`` ones), the trees of each slot and a
    note per slot."""
    _booster(n_trees, leaves, rate, seed)  # scikit-learn is there, before any work
    weights = np.tile(default, (n_slots, 1)).astype(np.int64)
    trees: list[list[Tree]] = [[] for _ in range(n_slots)]
    notes = []
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    centred = _centred(labels, groups)
    for slot in range(n_slots):
        rows = slots == slot
        decisions = int(np.count_nonzero(rows[starts])) if len(starts) else 0
        if decisions < MIN_DECISIONS:
            continue
        # one slot's rows at a time (a decision's rows share its slot), so memory holds one slot's
        x = relative_features(features[rows], groups[rows], np.float64)
        y = centred[rows]
        model = _booster(n_trees, leaves, rate, seed)
        model.fit(x, y)
        fitted = [predictors[0].nodes for predictors in model._predictors]
        top = sum(float(np.abs(nodes["value"][nodes["is_leaf"] == 1]).max()) for nodes in fitted)
        scale = min(MAX_WEIGHT // 2 / top, MAX_LEAF) if top > 0 else 0.0
        weights[slot] = 0
        for f, weight in fixed.items():
            weights[slot, f] = weight
        trees[slot] = [_predictor_tree(nodes, scale) for nodes in fitted]
        notes.append(f"slot {slot}: {decisions:,} decisions, {len(fitted)} trees, "
                     f"R2 {model.score(x, y):.3f}")
    return weights, trees, notes


def _import_state_machines() -> None:
    """Import every registered game's numba state machine before ``collect_nb`` compiles: numba
    reads the cached compilations of its callees for every game, and a game whose overloads of
    the round contract arrive in the middle of typing breaks it ("Cannot unify Function(...)")."""
    for package in REGISTRY.values():
        importlib.import_module(f"{package}.state_nb")


def _chunk(rules: Any, config: TrainConfig, start: int, n: int, behaviour: int, table: np.ndarray,
           heuristic: np.ndarray, objective: int, *out: np.ndarray) -> None:
    """``collect_nb`` over ``n`` rounds from ``start``: the first on this thread (the first call
    compiles the kernel, which numba's typing of the round contract's overloads does not survive
    in two threads at once), the others in threads."""
    from simcore.kernels.learned_nb import collect_nb
    from simcore.kernels.stack import roomy

    _import_state_machines()
    def play(lo: int, hi: int) -> None:
        collect_nb(rules, np.uint64(config.seed), np.int64(start), np.int64(lo), np.int64(hi), np.int64(behaviour),
                   np.int64(behaviour), table, heuristic, np.int64(config.worlds), config.labels == "true",
                   np.int64(objective),
                   np.int64(config.explore), np.int64(config.label), np.int64(ROWS_PER_ROUND), *out)

    roomy(play, 0, 1)
    if n > 1:
        in_threads(lambda lo, hi: play(lo + 1, hi + 1), n - 1, min_span=1, per_thread=SLOW_SPANS_PER_THREAD)


def _compact(features: np.ndarray) -> np.ndarray:
    """``features`` as int32 where every value fits (they are counts and card points), else as they are."""
    if features.size and (features.min() < np.iinfo(np.int32).min or features.max() > np.iinfo(np.int32).max):
        return features
    return features.astype(np.int32)


def available_memory() -> int | None:
    """Bytes of memory the system can give without swapping (``MemAvailable``), or None where it
    does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def training_bytes(actions: int, n_features: int, fit: str, value: bool = False) -> int:
    """About the most memory ``fudasim train`` holds for ``actions`` labelled actions: their
    features (int32) and labels, twice while an iteration's are pooled with the earlier ones, or
    once with what the fit of the largest decision kind reads (every action, at most): ``--fit
    trees`` float64 features and their differences from the heuristic's action, binned; ridge,
    pairwise and ``--value`` fits float64 copies of about four times the features."""
    pooled = n_features * 4 + 3 * 8
    fitted = n_features * (22 if fit == "trees" and not value else 32)
    return actions * max(2 * pooled, pooled + fitted)


def _check_memory(config: TrainConfig, n_features: int, actions: int, rounds: int) -> None:
    """Refuse a training whose labelled actions, extrapolated from its first ``rounds`` rounds
    (``actions`` of them), would not fit in the memory available now."""
    free = available_memory()
    if free is None or rounds <= 0:
        return
    total = config.iterations * config.rounds
    need = training_bytes(int(actions / rounds * total), n_features, config.fit, config.value)
    if need > free:
        raise RunError(f"--rounds {config.rounds} (x --iterations {config.iterations}) would hold about "
                       f"{need / 2**30:,.1f} GiB of labelled actions ({actions / rounds:,.0f} a round in the first "
                       f"{rounds}, --label {config.label}); {free / 2**30:,.1f} GiB is available: lower --rounds "
                       f"or --label")


def _collect(game_name: str, module: Any, compiled: Any, config: TrainConfig, table: np.ndarray,
             heuristic: np.ndarray, behaviour: int, objective: int, first_round: int,
             progress: Callable[[int], None], check: bool = False) -> tuple[np.ndarray, ...]:
    """Labelled positions of ``config.rounds`` self-play rounds from ``first_round``; with
    ``check``, the memory the whole training needs is checked after the first block of rounds
    (``_check_memory``)."""
    rules = module.kernel_rules(compiled)
    n_features = len(module.FEATURES)
    parts: list[tuple[np.ndarray, ...]] = []
    done = 0
    while done < config.rounds:
        n = min(CHUNK_ROUNDS, config.rounds - done)
        feats = np.zeros((n * ROWS_PER_ROUND, n_features), dtype=np.int64)
        q = np.zeros(n * ROWS_PER_ROUND, dtype=np.int64)
        slot = np.zeros(n * ROWS_PER_ROUND, dtype=np.int64)
        decision = np.zeros(n * ROWS_PER_ROUND, dtype=np.int64)
        count = np.zeros(n, dtype=np.int64)
        start = first_round + done
        _chunk(rules, config, start, n, behaviour, table, heuristic, objective, feats, q, slot, decision, count)
        keep = np.concatenate([np.arange(r * ROWS_PER_ROUND, r * ROWS_PER_ROUND + count[r]) for r in range(n)])
        rounds = np.repeat(np.arange(start, start + n, dtype=np.int64), count)
        parts.append((_compact(feats[keep]), q[keep], slot[keep], rounds * 4096 + decision[keep]))
        if check and not done:
            _check_memory(config, n_features, len(keep), n)
        done += n
        progress(n)
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))


def _evaluate(game: Any, compiled: Any, spec_text: str, deals: int, seed: int) -> tuple[float, float]:
    """The learned player's mean gain per round over the heuristic in the same seat on the same
    deals (every seat in turn), and the half-width of its 95% interval paired by deal. A seat's
    result is its payoff less the mean payoff of the table: its payoff where payoffs are
    zero-sum, and half its lead over the other seat under koi-koi's winner-only scoring (where
    a call that pays both seats more is no gain)."""
    players = game.players(compiled)
    heuristic = parse_policy("heuristic", game.name)
    learned = parse_policy(spec_text, game.name)

    def payoffs(specs: list[Any]) -> np.ndarray:
        ints, masks = game.play_units("kernel", compiled, specs, seed, EVAL_ROUND, deals, None)
        columns = game.columns(ints, masks, players)
        payoff = np.stack([columns[f"payoff_{s}"].astype(np.float64) for s in range(players)])
        return payoff - payoff.mean(axis=0)

    base = payoffs([heuristic] * players)
    gain = np.zeros(deals)
    for seat in range(players):
        specs = [learned if s == seat else heuristic for s in range(players)]
        gain += payoffs(specs)[seat] - base[seat]
    gain /= players
    half = Z95 * float(gain.std(ddof=1)) / math.sqrt(deals) if deals > 1 else math.nan
    return float(gain.mean()), half


class _Bar:
    """A progress bar on stderr over the self-play rounds of every iteration."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled, self.done = total, enabled, 0
        self.start = time.perf_counter()

    def __call__(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        rate = self.done / max(time.perf_counter() - self.start, 1e-9)
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        sys.stderr.write(f"\r[{'#' * filled}{'-' * (width - filled)}] {self.done:,}/{self.total:,} rounds "
                         f"labelled  {left:,.0f} s left ")
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def train(config: TrainConfig, log: Callable[[str], None] = print, progress: bool = False) -> tuple[Model, Path]:
    """Train a model as ``config`` asks (module docstring); returns it and where it was written."""
    import numba

    _check(config)
    _sklearn()
    rules = load_rules(config.rules, config.options)
    game = game_of(rules)
    module = learning(game.name)
    if module is None:
        raise RunError(f"{rules.name}: {game.title} has no learned player")
    compiled = game.compile(rules)
    cases = [c for c in module.blocks(compiled) if c is not None]
    if len(cases) != 1:
        raise RunError(f"{rules.name} plays the models of {' and '.join(cases)}; train one at a "
                       f"time (rules that play one model, e.g. a fixed yaku set)")
    case = cases[0]
    # by default the version ``--policy learned`` plays now; a model to ship as a new one names it
    if config.value:  # by default the version the search players' value models are read at now
        version = config.version if config.version is not None else int(parse_policy("pimc", game.name).params["value"])
    else:
        version = config.version if config.version is not None else int(parse_policy("learned", game.name).params["version"])
    out = Path(config.out) if config.out else Path(f"{game.name}-{case}.{'value.' if config.value else ''}v{version}.json")
    if out.is_dir():
        raise RunError(f"--out {out}: is a folder; give the model file's path")
    if not out.parent.exists():
        raise RunError(f"--out {out}: folder {out.parent} does not exist")
    # a value model estimates what the search plays for: by default its objective
    objective_name = config.objective or (str(parse_policy("pimc", game.name).params["objective"]) if config.value
                                          else training_objective(game.name, module))
    if objective_name not in OBJECTIVE_IDS:
        raise RunError(f"--objective {objective_name}: must be one of {', '.join(OBJECTIVE_IDS)}")
    objective = OBJECTIVE_IDS[objective_name]
    unit = config.unit if config.unit is not None else VALUE_UNITS[objective_name]
    if config.threads is not None:
        numba.set_num_threads(max(1, min(config.threads, numba.config.NUMBA_NUM_THREADS)))
    n_features, n_kinds = len(module.FEATURES), len(module.KINDS)
    n_slots = len(module.blocks(compiled)) * n_kinds
    default = np.zeros(n_features, dtype=np.int64)
    default[0] = 1  # follow the heuristic (every game's first feature is its choice)
    fixed = {module.FEATURES.index(name): int(w) for name, w in module.FIXED.items()}
    heuristic = np.asarray(module.aux_table(compiled), dtype=np.int64)
    model = Model(game.name, case, version, tuple(module.FEATURES), tuple(module.KINDS),
                  [[0] * n_features for _ in range(n_kinds)])
    import sklearn

    model.about = {"library": f"scikit-learn {sklearn.__version__}", "rules": rules.name,
                   "rules_sha256": rules.sha256, "options": dict(config.options), "seed": config.seed, "iterations": config.iterations,
                   "rounds": config.rounds, "worlds": config.worlds, "label": config.label,
                   "explore": config.explore, "deals": config.deals, "alpha": config.alpha,
                   "labels": config.labels, "objective": objective_name,
                   "fit": config.fit, **({"trees": config.trees, "leaves": config.leaves} if config.fit == "trees" else {}),
                   **({"rate": config.rate} if config.fit == "trees" and config.rate != TrainConfig.rate else {}),
                   **({"value": True, "unit": unit} if config.value else {})}
    model.command = config.command
    bar = _Bar(config.iterations * config.rounds, progress)
    pooled: list[tuple[np.ndarray, ...]] = []
    with tempfile.TemporaryDirectory(prefix="fudasim-train-") as scratch:
        candidate = Path(scratch) / "model.json"
        spec_text = f"learned:model={candidate},version={version}"
        for iteration in range(config.iterations):
            started = time.perf_counter()
            save_model(model, candidate)
            table = learned_table(game.name, compiled, parse_policy(spec_text, game.name))
            behaviour = POLICY_HEURISTIC if iteration == 0 or config.value else POLICY_LEARNED
            pooled.append(_collect(game.name, module, compiled, config, table, heuristic, behaviour, objective,
                                   (iteration + 1) * TRAIN_ROUND, bar, check=iteration == 0))
            if len(pooled) > 1:  # one copy of the positions so far, not two
                pooled = [tuple(np.concatenate([p[k] for p in pooled]) for k in range(4))]
            feats, q, slots, groups = pooled[0]
            block = module.blocks(compiled).index(case)
            if config.value:
                weights, bias, trees, notes = fit_value(feats, q / config.worlds, groups, slots, n_slots, config.alpha,
                                                        unit, config.fit, config.trees, config.leaves, config.seed,
                                                        config.rate)
                model.weights = [[int(w) for w in row] for row in weights[block * n_kinds:(block + 1) * n_kinds]]
                model.trees = None if trees is None else trees[block * n_kinds:(block + 1) * n_kinds]
                model.bias = [int(b) for b in bias[block * n_kinds:(block + 1) * n_kinds]]
                model.unit = unit
                line = (f"iteration {iteration + 1}/{config.iterations}: {len(np.unique(groups)):,} decisions "
                        f"({len(q):,} actions) labelled by {config.worlds} worlds each; a value model in "
                        f"{unit} points an objective point")
                model.log.append(line)
                model.log.extend(f"  {note}" for note in notes)
                log(f"{line}; {time.perf_counter() - started:,.0f} s")
                continue
            if config.fit == "trees":
                weights, trees, notes = fit_trees(feats, q / config.worlds, groups, slots, n_slots, default, fixed,
                                                  config.trees, config.leaves, config.seed, config.rate)
                model.trees = trees[block * n_kinds:(block + 1) * n_kinds]
            else:
                weights, notes = fit_weights(feats, q / config.worlds, groups, slots, n_slots, config.alpha, default,
                                             fixed, config.fit)
            model.weights = [[int(w) for w in row] for row in weights[block * n_kinds:(block + 1) * n_kinds]]
            save_model(model, candidate)
            gain, half = _evaluate(game, compiled, spec_text, config.deals, config.seed)
            line = (f"iteration {iteration + 1}/{config.iterations}: {len(np.unique(groups)):,} decisions "
                    f"({len(q):,} actions) labelled by {config.worlds} worlds each; gain over heuristic "
                    f"{gain:+.4f} ± {half:.4f} a round ({config.deals:,} deals, every seat)")
            model.log.append(line)  # no times: the same command makes the same file
            model.log.extend(f"  {note}" for note in notes)
            log(f"{line}; {time.perf_counter() - started:,.0f} s")
    save_model(model, out)
    return model, out

