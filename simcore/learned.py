"""The learned player (``--policy learned``): its model files, its table, and its choice in Python.

A game that offers the learned player has a module ``learned`` in its package (``Learning``
below): the names of its integer features and decision kinds, the *blocks* of weights a table
holds (Tensho: one per yaku set), the auxiliary tables its numba features read, and a policy
class for its reference engine. Its ``state_nb`` implements the round contract's
``learned_features_nb`` with the same numbers.

Models
------
``simcore.models`` reads and writes the model files (one per game and *case*, e.g. Tensho's
``set1``). A seat's policy records the version it plays (``learned:version=N``, always named
in a dataset's policy text); a case plays its newest shipped file at or below N, so a dataset
replays and resumes with the models it was made with whatever is shipped later.
``learned:model=PATH`` plays the model file PATH instead (its version must match the policy's),
or the files of the folder PATH, named and chosen as the shipped ones.

The choice
----------
For every legal action the game computes F integer features from the deciding seat's
observation; action ``i`` scores ``sum_f weights[slot][f] * features[i][f]``, plus the leaf it
reaches in each of the row's trees where the model has trees (``simcore.models.Tree``); the
highest score wins, ties to the lowest index (``choose``). No float is on the decision path, so the kernel
(``simcore.kernels.learned_nb``) and the reference engine decide identically.
"""

from __future__ import annotations

import hashlib
import importlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, Protocol

import numpy as np

from simcore.errors import PolicyError
from simcore.kernels.learned_nb import (
    L_AUX,
    L_AUX_SIZE,
    L_BIAS,
    L_FEATURES,
    L_MAGIC,
    L_SLOTS,
    L_TREES,
    L_UNIT,
    L_WEIGHTS,
    MAGIC,
    NODE_BITS,
    NODE_FIELD,
)
from simcore.kernels.policy_ids import POLICY_LEARNED
from simcore.kernels.policy_rows import P_POLICY, PolicyArrays, policy_kinds, policy_rows
from simcore.kernels.prepared import prepared
from simcore.models import (
    LEAF,
    MAX_FEATURE,
    MAX_WEIGHT,
    MODELS_DIR,
    Model,
    ModelFile,
    Tree,
    guide_models,
    load_model,
    model_from_bytes,
    played_guide_model,
    played_model,
    played_value_model,
    shipped_models,
    value_models,
)
from simcore.policies import PolicySpec, decision_kinds, parse_policy
from simcore.registry import REGISTRY

__all__ = ["MAX_FEATURE", "MAX_WEIGHT", "LearnedPlayer", "Learning", "best", "check_models", "choose", "guide_table",
           "guided", "learned_rows", "learned_table", "learning", "ranked", "table_bias", "table_trees",
           "table_weights", "value_table"]


class Learning(Protocol):
    """What a game's ``learned`` module gives (the module docstring)."""

    FEATURES: tuple[str, ...]  # the names of its integer features, in order
    KINDS: tuple[str, ...]  # its decision kinds, in the order of their weight rows
    FIXED: dict[str, int]  # feature -> its weight in every kind, which training does not fit

    def blocks(self, compiled: Any) -> tuple[str | None, ...]:
        """The case of each block of weights a table of these rules holds (None: never used)."""
        ...

    def aux_table(self, compiled: Any) -> np.ndarray:
        """int64[:]: the tables its numba features read."""
        ...

    def kernel_rules(self, compiled: Any) -> Any:
        """The rules namedtuple its numba state machine takes (``contract.context_nb``)."""
        ...


def learning(game: str) -> Learning | None:
    """The game's ``learned`` module, or None when the game offers no learned player."""
    try:
        module: ModuleType = importlib.import_module(f"{REGISTRY[game]}.learned")
    except ModuleNotFoundError as error:
        if error.name != f"{REGISTRY[game]}.learned":
            raise
        return None
    found: Learning = module  # a module: the protocol names the attributes it must have
    return found


# Models and tables already made, for the runs of one process (a tournament's runs load the same
# files again and again): a file's model by its path and contents, a model's widened form, a
# table by its models. The oldest go first beyond ``KEPT``.
KEPT = 32
_kept_lock = threading.Lock()
_loaded: OrderedDict[tuple[str, str], Model] = OrderedDict()
_widenings: OrderedDict[tuple[int, int], tuple[Model, Model]] = OrderedDict()
_tables: OrderedDict[tuple[Any, ...], tuple[np.ndarray, tuple[Model | None, ...]]] = OrderedDict()


def _keep(kept: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    with _kept_lock:
        kept[key] = value
        kept.move_to_end(key)
        while len(kept) > KEPT:
            kept.popitem(last=False)


def _load(path: str | Path) -> Model:
    """``load_model(path)``, parsed again only when the file's contents differ from the last
    time (the same object otherwise: callers do not change a model)."""
    try:
        text = Path(path).read_bytes()
    except OSError:
        return load_model(path)  # its error names the file and what is wrong
    key = (str(Path(path).resolve()), hashlib.blake2b(text, digest_size=16).hexdigest())
    with _kept_lock:
        found = _loaded.get(key)
    if found is None:
        found = model_from_bytes(text, str(path))
        _keep(_loaded, key, found)
    return found


def _model_for(game: str, case: str, spec: Any, module: Learning) -> Model:
    """The model a learned seat of ``spec`` plays for ``case``: the newest at or below its version
    among the shipped files, or those of the folder ``model`` names, or the file it names."""
    version = int(spec.params["version"])
    source = str(spec.params["model"])
    model = _case_model(game, case, version, source, "policy learned", "", played_model, shipped_models,
                        lambda v: f"learned:model={source},version={v}")
    return _fitted(model, module, f"policy learned: the {game} {case} model")


def _case_model(game: str, case: str, version: int, source: str, what: str, kind: str,
                played: Callable[..., ModelFile | None], listed: Callable[..., list[ModelFile]],
                name_it: Callable[[int], str]) -> Model:
    """The model of ``case`` at ``version`` a seat reads from ``source``: ``shipped`` or a folder
    (the newest at or below ``version`` of the files ``played`` finds there, ``listed`` naming the
    cases where there is none), or a model file of exactly that version (``name_it(version)``:
    how to name it at its own). Errors begin ``what``; ``kind`` names the kind of model
    ("guide ", or "" for the learned player's)."""
    if source == "shipped" or Path(source).is_dir():
        folder = MODELS_DIR if source == "shipped" else Path(source)
        found = played(game, case, version, folder)
        if found is None:
            where = "shipped" if source == "shipped" else f"in {source}"
            cases = sorted({m.case for m in listed(game, folder)})
            raise PolicyError(f"{what}: no {game} {kind}model for {case} at version {version} or below {where} "
                              f"(cases: {', '.join(cases) or 'none'})")
        model = _load(found.path)
        if (model.game, model.case, model.version) != (game, case, found.version):
            raise PolicyError(f"{what}: {found.path} holds {model.game} {model.case} version "
                              f"{model.version}, not what its name says")
        return model
    model = _load(source)
    if model.version != version:
        raise PolicyError(f"{what}: {source} is version {model.version}; name it: {name_it(model.version)}")
    if model.game != game or model.case != case:
        raise PolicyError(f"{what}: {source} is a model of {model.game} {model.case}, "
                          f"these rules need {game} {case}")
    return model


def _fitted(model: Model, module: Learning, what: str) -> Model:
    """``model`` over the game's features (``_widened``); ``PolicyError`` beginning ``what`` if it
    was trained on features or decision kinds this fudasim does not compute."""
    if tuple(module.FEATURES)[:len(model.features)] != model.features or model.kinds != tuple(module.KINDS):
        raise PolicyError(f"{what} was trained on other features or decisions than this fudasim computes")
    key = (id(model), len(module.FEATURES))
    with _kept_lock:
        found = _widenings.get(key)
    if found is not None and found[0] is model:
        return found[1]
    widened = _widened(model, len(module.FEATURES))
    _keep(_widenings, key, (model, widened))
    return widened


def _widened(model: Model, n_features: int) -> Model:
    """``model`` over the first of ``n_features`` features (a game that added features after
    it was trained computes its features first, in the same order): weight 0 on the new ones,
    its trees' relative features renumbered."""
    old = len(model.features)
    if old == n_features:
        return model
    shift = n_features - old
    weights = [list(row) + [0] * shift for row in model.weights]
    trees = None if model.trees is None else [
        [Tree(tuple((f + shift if f >= old else f, threshold, left, right) for f, threshold, left, right in tree.nodes))
         for tree in kind] for kind in model.trees]
    return Model(model.game, model.case, model.version, model.features, model.kinds, weights, trees, model.command,
                 model.log, model.about)


def learned_table(game: str, compiled: Any, spec: Any) -> np.ndarray:
    """int64[:]: the learned player's table (``simcore.kernels.learned_nb``) of a seat whose
    policy is ``spec`` (``learned:model=...,version=...``) in a game of ``compiled`` rules."""
    module = learning(game)
    if module is None:
        raise PolicyError(f"policy learned: not offered for {game}")
    return _table(module, compiled, lambda case: _model_for(game, case, spec, module))


def guide_table(game: str, compiled: Any, spec: Any) -> np.ndarray:
    """int64[:]: the learned table (``simcore.kernels.learned_nb``) of a pimc seat's guide
    (``guide`` > 0): each case's newest guide model at or below that version, shipped or in the
    folder ``guides`` names, or the model file it names; ``PolicyError`` naming the seat's policy
    where there is none for these rules."""
    version = int(spec.params["guide"])
    source = str(spec.params["guides"])
    what = f"policy {spec.name}: guide={version}"
    module = learning(game)
    if module is None:
        raise PolicyError(f"{what} needs a learned player, and {game} has none")

    def model_of(case: str) -> Model:
        model = _case_model(game, case, version, source, what, "guide ", played_guide_model, guide_models,
                            lambda v: f"guide={v}")
        return _fitted(model, module, f"{what}: the {game} {case} guide model")

    return _table(module, compiled, model_of)


def guided(spec: Any) -> bool:
    """Whether a seat of ``spec`` is a search guided by a learned player (``guide`` > 0)."""
    return int(spec.params.get("guide", 0) or 0) > 0


def check_models(game: str, compiled: Any, specs: Sequence[Any]) -> None:
    """``PolicyError`` if a seat's model file (a learned seat's, the value models of a search
    seat with ``depth``, a guided search's learned model) cannot be played under ``compiled``
    rules: checked before a run touches its folder."""
    for spec in specs:
        if spec.policy_id == POLICY_LEARNED:
            learned_table(game, compiled, spec)
        if int(spec.params.get("depth", 0) or 0) > 0:
            value_table(game, compiled, spec)
        if guided(spec):
            guide_table(game, compiled, spec)


def value_table(game: str, compiled: Any, spec: Any) -> np.ndarray:
    """int64[:]: the table of the value model a search seat of ``spec`` (``depth`` > 0) reads:
    a learned table (``simcore.kernels.learned_nb``) with each slot's bias and the unit, from each
    case's newest shipped value model at or below its ``value`` version."""
    what = f"policy {spec.name}: depth={spec.params['depth']}"
    if spec.params.get("tree") == "all":
        raise PolicyError(f"{what} needs tree=own (a value model scores the searching seat alone)")
    module = learning(game)
    if module is None:
        raise PolicyError(f"{what} needs a value model, and {game} has no learned player")
    version = int(spec.params["value"])
    objective = str(spec.params["objective"])
    source = str(spec.params.get("values", "shipped"))
    folder = MODELS_DIR if source == "shipped" else Path(source)
    if not folder.is_dir():
        raise PolicyError(f"{what}: values={source} is not a folder of value model files")

    def model_of(case: str) -> Model:
        found = played_value_model(game, case, version, folder)
        if found is None:
            cases = sorted({m.case for m in value_models(game, folder)})
            where = "shipped" if source == "shipped" else f"in {source}"
            raise PolicyError(f"{what} needs a value model of {game} {case} at version {version} or below "
                              f"{where} (cases: {', '.join(cases) or 'none'})")
        model = _load(found.path)
        if model.unit is None or (model.game, model.case, model.version) != (game, case, found.version):
            raise PolicyError(f"{what}: {found.path} is not the {game} {case} value model its name says")
        if model.about.get("objective") != objective:
            raise PolicyError(f"{what}: the {game} {case} value model estimates objective="
                              f"{model.about.get('objective')}, not objective={objective}")
        return _fitted(model, module, f"{what}: the {game} {case} value model")

    return _table(module, compiled, model_of)


def _table(module: Learning, compiled: Any, model_of: Callable[[str], Model]) -> np.ndarray:
    """A learned table (``simcore.kernels.learned_nb``) of the model ``model_of(case)`` of each
    of ``compiled``'s blocks; with the bias and unit of value models."""
    blocks = module.blocks(compiled)
    models = tuple(None if case is None else model_of(case) for case in blocks)
    aux = np.asarray(module.aux_table(compiled), dtype=np.int64)
    # the models are those ``_load`` keeps, so the same ids are the same files' models; the
    # entry keeps its models, so no id is reused while it stands (a game's module stays loaded)
    key = (id(module), tuple(None if m is None else id(m) for m in models), aux.tobytes())
    with _kept_lock:
        found = _tables.get(key)
    if found is None or not all(a is b for a, b in zip(found[1], models, strict=True)):
        found = (_build_table(module, models, aux), models)
        _keep(_tables, key, found)
    return found[0].copy()  # the kept one stays as built whatever a caller does with its copy


def _build_table(module: Learning, models: tuple[Model | None, ...], aux: np.ndarray) -> np.ndarray:
    """``_table``'s table of ``models`` (one per block, None where a block is never used) and the
    auxiliary table ``aux``."""
    n_features, n_kinds = len(module.FEATURES), len(module.KINDS)
    weights = np.zeros((len(models), n_kinds, n_features), dtype=np.int64)
    bias = np.zeros((len(models), n_kinds), dtype=np.int64)
    units: set[int] = set()
    trees: list[list[Tree]] = [[] for _ in range(len(models) * n_kinds)]
    for b, model in enumerate(models):
        if model is not None:
            weights[b] = np.asarray(model.weights, dtype=np.int64)
            for k, kind in enumerate(model.trees or []):
                trees[b * n_kinds + k] = list(kind)
            if model.bias is not None and model.unit is not None:
                bias[b] = model.bias
                units.add(model.unit)
    if len(units) > 1:
        raise PolicyError(f"the value models of one table must share their unit, not {sorted(units)}")
    at = L_WEIGHTS + weights.size + aux.size
    forest = _forest(trees, at) if any(trees) else np.zeros(0, dtype=np.int64)
    extra = bias.ravel() if units else np.zeros(0, dtype=np.int64)
    table = np.zeros(at + forest.size + extra.size, dtype=np.int64)
    table[L_MAGIC] = MAGIC
    table[L_FEATURES] = n_features
    table[L_SLOTS] = len(models) * n_kinds
    table[L_AUX] = L_WEIGHTS + weights.size
    table[L_AUX_SIZE] = aux.size
    table[L_TREES] = at if forest.size else 0
    table[L_BIAS] = at + forest.size if units else 0
    table[L_UNIT] = units.pop() if units else 0
    table[L_WEIGHTS:L_WEIGHTS + weights.size] = weights.ravel()
    table[L_WEIGHTS + weights.size:at] = aux
    table[at:at + forest.size] = forest
    table[at + forest.size:] = extra
    return table


def _forest(trees: list[list[Tree]], at: int) -> np.ndarray:
    """int64[:]: the trees of every weight row as a table holds them from index ``at``
    (``simcore.kernels.learned_nb``): a start and a count per row, then each tree's node count
    and its nodes, two integers a node (``_node``)."""
    index = np.zeros(2 * len(trees), dtype=np.int64)
    body: list[int] = []
    for slot, row in enumerate(trees):
        index[2 * slot] = at + index.size + len(body)
        index[2 * slot + 1] = len(row)
        for tree in row:
            body.append(len(tree.nodes))
            for node in tree.nodes:
                body.extend(_node(node))
    return np.concatenate([index, np.asarray(body, dtype=np.int64)])



def _node(node: tuple[int, int, int, int]) -> tuple[int, int]:
    """A node as a table holds it: its threshold (a leaf: its value), then its feature plus one
    (a leaf: 0), its left child and its right child in ``NODE_BITS`` bits each (a leaf's
    children are not kept)."""
    feature, threshold, left, right = node
    if feature == LEAF:
        return threshold, 0
    return threshold, (feature + 1) | (left << NODE_BITS) | (right << (2 * NODE_BITS))


def table_trees(table: np.ndarray) -> list[list[Tree]]:
    """The trees of a learned table (int64[:]) by slot (none: empty lists)."""
    slots = int(table[L_SLOTS])
    if not table[L_TREES]:
        return [[] for _ in range(slots)]
    out = []
    for slot in range(slots):
        at, count = int(table[table[L_TREES] + 2 * slot]), int(table[table[L_TREES] + 2 * slot + 1])
        row = []
        for _ in range(count):
            size = int(table[at])
            flat = [int(v) for v in table[at + 1:at + 1 + 2 * size]]
            nodes = []
            for i in range(size):
                threshold, packed = flat[2 * i], flat[2 * i + 1]
                feature = (packed & NODE_FIELD) - 1
                nodes.append((LEAF, threshold, 0, 0) if feature < 0 else
                             (feature, threshold, (packed >> NODE_BITS) & NODE_FIELD, packed >> (2 * NODE_BITS)))
            row.append(Tree(tuple(nodes)))
            at += 1 + 2 * size
        out.append(row)
    return out


def table_weights(table: np.ndarray) -> list[list[int]]:
    """The weight rows of a learned table (int64[:]) as Python ints, by slot."""
    n_features, slots = int(table[L_FEATURES]), int(table[L_SLOTS])
    flat = [int(w) for w in table[L_WEIGHTS:L_WEIGHTS + slots * n_features]]
    return [flat[s * n_features:(s + 1) * n_features] for s in range(slots)]


def table_bias(table: np.ndarray) -> tuple[list[int], int]:
    """A value table's (int64[:]) bias by slot and its unit (a learned player's: zeros and 0)."""
    slots = int(table[L_SLOTS])
    at = int(table[L_BIAS])
    return ([int(b) for b in table[at:at + slots]] if at else [0] * slots), int(table[L_UNIT])


def choose(weights: Sequence[Sequence[int]], features: Sequence[Sequence[int]], slot: int,
           trees: Sequence[Sequence[Tree]] = ()) -> int:
    """The index of the action the learned player takes: the highest score (ties: the lowest
    index); ``trees`` by slot, as ``table_trees`` gives them (none: the weights alone)."""
    return best(weights, features, slot, trees)[0]


def best(weights: Sequence[Sequence[int]], features: Sequence[Sequence[int]], slot: int,
         trees: Sequence[Sequence[Tree]] = ()) -> tuple[int, int]:
    """``choose``'s action and its score."""
    chosen, score, _ = ranked(weights, features, slot, trees)
    return chosen, score


def ranked(weights: Sequence[Sequence[int]], features: Sequence[Sequence[int]], slot: int,
           trees: Sequence[Sequence[Tree]] = ()) -> tuple[int, int, int]:
    """``choose``'s action, its score and how far it leads the best of the others (0 where an
    other scores as high; a single action: 0), as ``learned_nb.ranked_nb`` computes it."""
    row = weights[slot]
    forest = trees[slot] if trees else ()
    n_features = len(row)
    base = next((values for values in features if values[0] == 1), features[0])  # the heuristic's action
    chosen, best_score = 0, None
    scores: list[int] = []
    for i, values in enumerate(features):
        score = sum(w * x for w, x in zip(row, values, strict=True))

        def value(f: int, values: Sequence[int] = values) -> int:
            return values[f] if f < n_features else values[f - n_features] - base[f - n_features]

        score += sum(tree.leaf(value) for tree in forest)
        scores.append(score)
        if best_score is None or score > best_score:
            chosen, best_score = i, score
    assert best_score is not None
    others = [score for i, score in enumerate(scores) if i != chosen]
    return chosen, best_score, best_score - max(others) if others else 0


def learned_rows(specs: Sequence[Any], seats: int, basic_params: Mapping[str, str],
                 heuristic_tables: Callable[[Any], np.ndarray], rollout_spec: Callable[[str], Any],
                 game_title: str, table: Callable[[Any], np.ndarray],
                 value: Callable[[Any], np.ndarray] | None = None,
                 guide: Callable[[Any], np.ndarray] | None = None,
                 kinds: Mapping[str, int] | None = None) -> PolicyArrays:
    """``policy_rows`` (``simcore.kernels.policy_rows``) with learned seats: each one's id and, in
    its row of the tables (int64[seats + 1, T], widened as needed), its learned table
    (``table(spec)``, int64[:]); in the row of a search seat whose ``depth`` > 0 its value
    table (``value(spec)``), and in that of a pimc seat with ``guide`` > 0 its guide's learned
    table (``guide(spec)``; ``parse_policy`` refuses both on one seat); ``kinds``: ``policy_rows``'."""
    learned = {seat: table(spec) for seat, spec in enumerate(specs) if spec.policy_id == POLICY_LEARNED}
    values = {seat: _value_of(spec, value) for seat, spec in enumerate(specs)
              if int(spec.params.get("depth", 0) or 0) > 0}
    values.update({seat: _guide_of(spec, guide) for seat, spec in enumerate(specs) if guided(spec)})
    if not learned and not values:
        return policy_rows(specs, seats, basic_params, heuristic_tables, rollout_spec, game_title, kinds)
    stand_in = [rollout_spec("random") if seat in learned else spec for seat, spec in enumerate(specs)]
    params, floats, tables, logs, _ = policy_rows(stand_in, seats, basic_params, heuristic_tables, rollout_spec,
                                                  game_title, kinds)
    rows = {**learned, **values}
    width = max(tables.shape[1], *(t.size for t in rows.values()))
    wide = np.zeros((tables.shape[0], width), dtype=np.int64)
    wide[:, :tables.shape[1]] = tables
    for seat, t in rows.items():
        if seat in learned:
            params[seat, P_POLICY] = POLICY_LEARNED
        wide[seat, :] = 0
        wide[seat, :t.size] = t
    return params, floats, wide, logs, policy_kinds(params)


def _guide_of(spec: Any, guide: Callable[[Any], np.ndarray] | None) -> np.ndarray:
    if guide is None:
        raise PolicyError(f"policy {spec.name}: guide={spec.params['guide']} needs a learned player; this game has none")
    return guide(spec)


def _value_of(spec: Any, value: Callable[[Any], np.ndarray] | None) -> np.ndarray:
    if value is None:
        raise PolicyError(f"policy {spec.name}: depth={spec.params['depth']} needs a value model; this game has none")
    return value(spec)


def game_policy_rows(game: str, title: str, compiled: Any, specs: Sequence[Any], seats: int,
                     basic_params: Mapping[str, str], heuristic_tables: Callable[[Any, Any], np.ndarray]) -> PolicyArrays:
    """``learned_rows`` for the general kernel of ``game`` (``title`` in messages): its heuristic's
    tables (``heuristic_tables(compiled, spec)``, int64[:]), rollout policies parsed as recorded,
    its learned players' tables and its search players' value tables; the ``PolicyArrays`` of
    ``policy_rows`` (int64 rows, float64 constants, int64 tables and log table)."""
    return learned_rows(specs, seats, basic_params, lambda spec: heuristic_tables(compiled, spec),
                        lambda name: parse_policy(name, game, recorded=True), title,
                        lambda spec: learned_table(game, compiled, spec),
                        lambda spec: value_table(game, compiled, spec),
                        lambda spec: guide_table(game, compiled, spec), decision_kinds(game))


class LearnedPlayer:
    """The learned player in a game's reference engine, each decision from the seat's observation
    (the kernel's ``learned_features_nb`` computes the same features).

    A game subclasses it with ``GAME``, ``KINDS`` (its ``learned.KINDS``), ``HEURISTIC`` (its
    heuristic policy class, whose terms the features read) and ``FEATURES_OF`` (its features
    function: ``(heuristic, obs, kind, actions, *context) -> rows``), and writes its policy's
    decision methods with ``pick``; ``slot`` gives the weight row of a decision (by default its
    kind's).
    """

    name = "learned"
    GAME: ClassVar[str]
    KINDS: ClassVar[tuple[str, ...]]
    HEURISTIC: ClassVar[type[Any]]
    FEATURES_OF: ClassVar[Callable[..., list[list[int]]]]

    def __init__(self, spec: PolicySpec, compiled: Any, stream: Any = None) -> None:
        self.weights, self.trees, self.heuristic = prepared(type(self)._parts, compiled, [spec])
        self.bias = [0] * len(self.weights)
        self.value = 0  # the last decision's highest score plus its row's bias (``value_nb``)
        self.lead = 0  # how far the last decision's choice scored above the next (``ranked``)

    def use_value_model(self, compiled: Any, spec: PolicySpec) -> int:
        """Score with the value model a search seat of ``spec`` reads (``value_table``) instead;
        returns its unit."""
        table = value_table(self.GAME, compiled, spec)
        self.weights, self.trees = table_weights(table), table_trees(table)
        self.bias, unit = table_bias(table)
        return unit

    def use_guide_model(self, compiled: Any, spec: PolicySpec) -> None:
        """Play the guide model a pimc seat of ``spec`` (``guide`` > 0) reads (``guide_table``)
        instead."""
        table = guide_table(self.GAME, compiled, spec)
        self.weights, self.trees = table_weights(table), table_trees(table)

    @classmethod
    def _parts(cls, compiled: Any, specs: Sequence[PolicySpec]) -> tuple[list[list[int]], list[list[Tree]], Any]:
        """The weight rows and trees of a learned seat and the heuristic its features use (kept
        between rounds)."""
        table = learned_table(cls.GAME, compiled, specs[0])
        return table_weights(table), table_trees(table), cls.HEURISTIC(parse_policy("heuristic", cls.GAME), compiled)

    def slot(self, obs: Any, kind: str) -> int:
        """The weight row of a decision of ``kind``."""
        return self.KINDS.index(kind)

    def pick(self, obs: Any, kind: str, actions: list[Any], *context: Any) -> Any:
        """The action of ``actions`` the model takes (``context``: what the features function takes
        after the actions, e.g. the card played)."""
        rows = type(self).FEATURES_OF(self.heuristic, obs, kind, actions, *context)
        slot = self.slot(obs, kind)
        index, score, self.lead = ranked(self.weights, rows, slot, self.trees)
        self.value = score + self.bias[slot]
        return actions[index]
