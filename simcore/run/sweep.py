"""Sweeps: every combination of some rule options' values, played on the same deals.

``fudasim sweep RULES --vary OPTION=V1,V2 [--vary ...]`` lays out one run per combination of
the varied options' values (their product, in the order given: the last option varies fastest),
each with the same seed, rounds and seat policies, so round ``r`` is dealt the same cards in every
combination (guarantee 2 of docs/guarantees.md) and every comparison is paired round by round.

A sweep folder has the layout of a tournament folder (``simcore.run.tournament``): a manifest
``_tournament.json`` with ``"kind": "sweep"``, the varied options, the baseline combination and
one entry per run, each run an ordinary dataset in a folder of its own (``combo-000``, ...).
So the lock, ``--resume`` (only what is missing is played), ``--overwrite`` (only the sweep's own
files are deleted) and ``fudasim verify`` work as for tournaments; ``fudasim report`` reads it
as a sweep (``analysis.sweep``).

With ``summary`` every combination is a summary run: the baseline is played first, and every
other combination is paired with it (``--paired-with``), so the report's paired differences are
those of a sweep that keeps its rows.
"""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import simcore
from simcore.errors import RunError
from simcore.games import game_of
from simcore.policies import check_engine, parse_policy
from simcore.rules import load_rules
from simcore.run import tournament
from simcore.run.tournament import (
    TOURNAMENT_FORMAT,
    TournamentConfig,
    TournamentResult,
    run_tournament,
)

__all__ = ["SweepConfig", "combination_label", "is_sweep", "parse_vary", "plan_sweep", "resume_conflict", "run_sweep"]


@dataclass
class SweepConfig:
    """What ``fudasim sweep`` was asked for."""

    rules: str = "tensho-ise"
    options: dict[str, str] = field(default_factory=dict)  # held fixed in every combination
    vary: list[tuple[str, list[str]]] = field(default_factory=list)
    policies: dict[int, str] = field(default_factory=dict)  # per seat; seats not named play random
    rounds: int = 100_000
    seed: int = 0
    baseline: int = 0  # the combination the others are compared with
    engine: str = "kernel"
    threads: int | None = None
    out: str | None = None
    resume: bool = False
    overwrite: bool = False
    units_per_shard: int | None = None
    progress: bool = False
    command: str = ""
    scheduler: str | None = None  # Dask: every combination's shards as tasks on one cluster
    # Summary runs (docs/summary-runs.md): the baseline's counts, and each other combination's
    # counts with its per-round differences from the baseline (``--paired-with`` it).
    summary: bool = False


def is_sweep(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a sweep folder (a tournament-layout manifest of kind ``sweep``)."""
    from simcore.run.tournament import TOURNAMENT_FILE

    try:
        data = json.loads((Path(path) / TOURNAMENT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("kind") == "sweep"


def parse_vary(items: list[str] | tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """``OPTION=V1,V2,...`` items as (option, values); ``RunError`` naming a malformed item."""
    out: list[tuple[str, list[str]]] = []
    for item in items:
        name, sep, values = item.partition("=")
        name = name.strip()
        chosen = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not name or not chosen:
            raise RunError(f"--vary {item!r}: expected OPTION=VALUE1,VALUE2,...")
        if name in [n for n, _ in out]:
            raise RunError(f"--vary {name}: given twice; list all its values in one --vary")
        if len(set(chosen)) != len(chosen):
            raise RunError(f"--vary {item!r}: a value is listed twice")
        out.append((name, chosen))
    return out


def combination_label(assignment: dict[str, str]) -> str:
    """``card_values=T3_hanafuda, yaku_set_choice=fixed_2``: a combination's options without the
    game prefix."""
    return ", ".join(f"{name.partition('.')[2] or name}={value}" for name, value in assignment.items())


def plan_sweep(config: SweepConfig) -> dict[str, Any]:
    """Check a sweep's settings and lay out its runs (one per combination); nothing is written.

    Raises ``RulesError``, ``PolicyError`` or ``RunError`` (one line each) on bad input, e.g. a
    varied option the game does not have or a value it does not allow.
    """
    if not config.vary:
        raise RunError("--vary: a sweep needs at least one varied option (--vary OPTION=V1,V2)")
    if config.rounds < 1:
        raise RunError(f"--rounds {config.rounds}: must be at least 1")
    from simcore.run.runner import check_units

    check_units("--rounds", config.rounds)
    if not 0 <= config.seed < 2**64:
        raise RunError(f"--seed {config.seed}: must be in 0 .. 2**64 - 1")
    for name, _ in config.vary:
        if name in config.options:
            raise RunError(f"--vary {name}: also fixed with --option; give it in one place")
    base = load_rules(config.rules, config.options)
    game = game_of(base)
    for name, _ in config.vary:
        if name not in base.options:
            raise RunError(f"--vary {name}: not an option of {base.name} (fudasim rules show {config.rules} "
                           f"lists them)")
    combos = [dict(zip([n for n, _ in config.vary], values, strict=True))
              for values in itertools.product(*[v for _, v in config.vary])]
    if len(combos) < 2:
        raise RunError("--vary: a sweep needs at least two combinations (give an option two values)")
    if not 0 <= config.baseline < len(combos):
        raise RunError(f"--baseline {config.baseline}: must be 0..{len(combos) - 1} (the combinations in order)")
    players = None
    names: list[str] = []
    runs = []
    for k, assignment in enumerate(combos):
        rules = load_rules(config.rules, {**config.options, **assignment})
        compiled = game.compile(rules)
        seats = game.players(compiled)
        if players is None:
            players = seats
            for seat in config.policies:
                if not 0 <= seat < seats:
                    raise RunError(f"--policy {seat}=...: seat {seat} is outside 0..{seats - 1}")
            specs = [parse_policy(config.policies.get(seat, "random"), game.name) for seat in range(seats)]
            for spec in specs:
                check_engine(spec, game.name, config.engine)
            names = [str(spec) for spec in specs]
        elif seats != players:
            raise RunError(f"--vary: {combination_label(assignment)} is played by {seats} players, the first "
                           f"combination by {players}; vary the player count with separate sweeps")
        runs.append({"name": f"combo-{k:03d}", "label": combination_label(assignment), "options": assignment,
                     "resolved": {name: rules.options[name] for name in assignment}, "policies": names})
    plan = {
        "fudasim_tournament": TOURNAMENT_FORMAT,
        "kind": "sweep",
        "fudasim_version": simcore.__version__,
        "engine_version": simcore.ENGINE_VERSION,
        "game": base.game,
        "rules": config.rules,
        "rules_name": base.name,
        "rules_source": base.source,
        "rules_sha256": base.sha256,
        "options": base.options,
        "option_overrides": base.overrides,
        "vary": [[name, values] for name, values in config.vary],
        "baseline": config.baseline,
        "players": players,
        "seed": config.seed,
        "deals": config.rounds,
        "policies": names,
        "seatings": [],
        "units_per_shard": config.units_per_shard,
        "engine": config.engine,
        "runs": runs,
    }
    if config.summary:
        plan["summary"] = True  # only then: every other sweep's manifest stays as it was
    return plan


def _as_tournament(config: SweepConfig, plan: dict[str, Any]) -> TournamentConfig:
    """The tournament that plays the sweep ``plan`` (``plan_sweep``) of ``config``."""
    out = config.out or str(Path("fudasim-out") / f"sweep-{plan['rules_name']}-seed{config.seed}")
    return TournamentConfig(
        rules=config.rules, options=dict(config.options), policies=tuple(plan["policies"]), deals=config.rounds,
        seed=config.seed, engine=config.engine, threads=config.threads, out=out, resume=config.resume,
        overwrite=config.overwrite, units_per_shard=config.units_per_shard, progress=config.progress,
        command=config.command, scheduler=config.scheduler)


def run_sweep(config: SweepConfig, announce=None) -> TournamentResult:
    """Plan and play a sweep (or finish one, with ``resume``); returns what was done."""
    plan = plan_sweep(config)
    return run_tournament(_as_tournament(config, plan), announce=announce, plan=plan)


def resume_conflict(config: SweepConfig) -> str | None:
    """Why ``--resume`` would refuse to finish the sweep in ``config.out`` as ``config`` asks (its
    words: ``<folder> was started with a different deals: 200 then, 300 now``), or None: the folder
    holds this very sweep; writes nothing."""
    plan = plan_sweep(config)
    return tournament.resume_conflict(_as_tournament(config, plan), plan)
