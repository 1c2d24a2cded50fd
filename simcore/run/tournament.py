"""Tournaments: every pairing of a list of policies on the same deals, each deal once per seating.

A tournament is a folder of ordinary run datasets, one per pairing and seating, plus a
tournament manifest ``_tournament.json``::

    OUT/_tournament.json          the plan (rules, policies, deals, seed, seatings, runs) and timings
    OUT/.fudasim.lock             the tournament writer's lock
    OUT/pair-0-1-AB/              a run dataset (``_run.json``, shards): policy 0 in seat 0, 1 in seat 1
    OUT/pair-0-1-BA/              the same deals with the seats swapped
    ...

Every run has the tournament's seed and plays rounds ``0 .. deals - 1``, so deal ``d`` (its deck,
dealer and redeals come from the deal stream of ``(seed, d)``, guarantee 2 of docs/guarantees.md) is
the same in every pairing and seating: the comparisons are paired deal by deal.  Each run is made by
``simcore.run.runner.run`` (its lock, manifest, shards, threads and ``--resume``), so ``fudasim verify``
checks every run, and a resumed tournament resumes the unfinished runs and plays only what is
missing.

Seatings
--------
In a pairing of policies A (the one listed first) and B, a seating is a string of one letter per
seat.  For ``P`` players the seatings are the ``P`` cyclic rotations of ``A * ceil(P/2) + B *
floor(P/2)`` followed by the rotations of its complement (A and B swapped), without repeats:
2 players: AB, BA; 3 players: AAB, ABA, BAA, BBA, BAB, ABB (every assignment using both);
4 players: AABB, ABBA, BBAA, BAAB; 5 players: the 5 rotations of AAABB and the 5 of BBBAA.  Over
the seatings of a pairing each policy holds each seat equally often, and the two policies hold
the same number of seats in all.

Pairings
--------
``TournamentConfig.pairs`` may name the pairings to play (``fudasim skill`` plays the fair
policies' every pairing, then each omniscient configuration against the strongest of them
only); the manifest then lists them as ``pairs``. A tournament resumed with more pairings than
it holds plays the new ones; one resumed with fewer, or others, is refused.

Policy lists
------------
``--policies`` is one string of policies separated by commas; a policy's own parameters are
separated by commas too (``pimc:worlds=64,rollout=greedy``).  ``split_policies`` reads it
unambiguously: an item of the form ``key=value`` (an ``=`` with no ``:`` before it) continues the
policy before it; any other item starts a new policy.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import simcore
from simcore import dataset as ds
from simcore.errors import RunError
from simcore.games import game_of
from simcore.policies import check_engine, parse_policy
from simcore.rules import earlier_text, is_shipped, load_rules
from simcore.run.ahead import Target, compiling_behind
from simcore.storage import display, is_uri

__all__ = ["TOURNAMENT_FILE", "TournamentConfig", "TournamentResult", "split_policies", "seatings",
           "plan_tournament", "resume_conflict", "run_tournament", "is_tournament", "read_tournament", "verify_tournament",
           "run_name", "time_decisions", "DECISION_ROUNDS"]

TOURNAMENT_FILE = "_tournament.json"
DECISION_ROUNDS = 200  # rounds of each policy's first run timed decision by decision
TOURNAMENT_FORMAT = 1
_TEMPORARY_PREFIX = f".{TOURNAMENT_FILE}.tmp-"
# Fields of the plan that must agree for --resume (everything that changes rows or the runs).
_RESUME_KEYS = ("engine_version", "game", "rules_sha256", "options", "seed", "players", "deals", "policies",
                "seatings", "units_per_shard", "kind", "vary", "baseline", "summary", "pairs")


@dataclass
class TournamentConfig:
    """What ``fudasim tournament`` was asked for."""

    rules: str = "tensho-ise"
    options: dict[str, str] = field(default_factory=dict)
    policies: tuple[str, ...] = ()  # one policy spec each (see ``split_policies`` for the CLI's string)
    deals: int = 10_000
    seed: int = 0
    engine: str = "kernel"
    threads: int | None = None
    out: str | None = None
    resume: bool = False
    overwrite: bool = False
    units_per_shard: int | None = None
    progress: bool = False
    scheduler: str | None = None  # Dask: every run's shards as tasks on one cluster (docs/distributed.md)
    command: str = ""
    # the pairings to play, as (first, second) indices into ``policies`` (None: every pairing);
    # a tournament resumed with more pairings than it holds plays the new ones
    pairs: tuple[tuple[int, int], ...] | None = None


@dataclass
class TournamentResult:
    """What a tournament did: its folder, its manifest, and how many runs it played now."""

    out: Path
    manifest: dict[str, Any]
    runs_played: int = 0
    runs_resumed: int = 0
    runs_skipped: int = 0
    rounds_computed: int = 0
    seconds: float = 0.0


def split_policies(text: str) -> list[str]:
    """Split a ``--policies`` string into policy specs.

    Items are separated by commas (``;`` works as well); an item ``key=value`` with no ``:``
    before its ``=`` is a parameter of the policy before it, any other item starts a new policy:
    ``"random,pimc:worlds=64,rollout=greedy,greedy"`` gives ``["random",
    "pimc:worlds=64,rollout=greedy", "greedy"]``.
    """
    out: list[str] = []
    for item in text.replace(";", ",").split(","):
        item = item.strip()
        if not item:
            raise RunError(f"--policies {text!r}: an empty item (two commas in a row, or a comma at an end)")
        equals, colon = item.find("="), item.find(":")
        is_parameter = equals > 0 and (colon < 0 or colon > equals)
        if is_parameter:
            if not out:
                raise RunError(f"--policies {text!r}: {item!r} is a parameter with no policy before it")
            head = out[-1]
            out[-1] = f"{head},{item}" if ":" in head else f"{head}:{item}"
        else:
            out.append(item)
    return out


def seatings(players: int) -> list[str]:
    """The seatings of a pairing for ``players`` seats (module docstring), e.g. ``['AB', 'BA']``."""
    if players < 2:
        raise ValueError(f"a pairing needs at least 2 seats, got {players}")
    base = "A" * -(-players // 2) + "B" * (players // 2)
    complement = base.translate(str.maketrans("AB", "BA"))
    out: list[str] = []
    for pattern in (base, complement):
        for shift in range(players):
            seating = pattern[shift:] + pattern[:shift]
            if seating not in out:
                out.append(seating)
    return out


def run_name(first: int, second: int, seating: str) -> str:
    """The folder of the run of policies ``first`` (A) and ``second`` (B) in ``seating``."""
    return f"pair-{first}-{second}-{seating}"


def plan_tournament(config: TournamentConfig) -> dict[str, Any]:
    """Check a tournament's settings and lay out its runs; nothing is written.

    Raises ``RulesError``, ``PolicyError`` or ``RunError`` (one line each) on bad input.
    """
    if len(config.policies) < 2:
        raise RunError(f"--policies: a tournament needs at least two policies, got {len(config.policies)}")
    if config.deals < 1:
        raise RunError(f"--deals {config.deals}: must be at least 1")
    from simcore.run.runner import check_units

    check_units("--deals", config.deals)  # every run plays rounds 0 .. deals - 1
    if not 0 <= config.seed < 2**64:
        raise RunError(f"--seed {config.seed}: must be in 0 .. 2**64 - 1")
    if config.engine not in ("kernel", "reference"):
        raise RunError(f"--engine {config.engine!r}: expected kernel or reference")
    rules = load_rules(config.rules, config.options)
    game = game_of(rules)
    compiled = game.compile(rules)
    players = game.players(compiled)
    specs = [parse_policy(text, game.name) for text in config.policies]
    for spec in specs:
        check_engine(spec, game.name, config.engine)
    names = [str(spec) for spec in specs]
    for index, name in enumerate(names):
        if name in names[:index]:
            raise RunError(f"--policies: {name} is listed twice (as {config.policies[names.index(name)]!r} "
                           f"and {config.policies[index]!r})")
    seats = seatings(players)
    pairs = _pairs(config.pairs, len(names))
    runs = []
    for first, second in pairs or [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]:
        for seating in seats:
            runs.append({
                "name": run_name(first, second, seating),
                "pair": [first, second],
                "seating": seating,
                "policies": [names[first] if letter == "A" else names[second] for letter in seating],
            })
    plan = {
        "fudasim_tournament": TOURNAMENT_FORMAT,
        "fudasim_version": simcore.__version__,
        "engine_version": simcore.ENGINE_VERSION,
        "game": rules.game,
        "rules": config.rules,
        "rules_name": rules.name,
        "rules_source": rules.source,
        "rules_sha256": rules.sha256,
        "options": rules.options,
        "option_overrides": rules.overrides,
        "players": players,
        "seed": config.seed,
        "deals": config.deals,
        "policies": names,
        "seatings": seats,
        "units_per_shard": config.units_per_shard,
        "engine": config.engine,
        "runs": runs,
    }
    if pairs is not None:
        plan["pairs"] = [list(pair) for pair in pairs]
    return plan


def _pairs(pairs: tuple[tuple[int, int], ...] | None, count: int) -> list[tuple[int, int]] | None:
    """``TournamentConfig.pairs`` checked and in order (each pair as (lower, higher) index, the
    pairings ordered as a full tournament orders them); None: every pairing."""
    if pairs is None:
        return None
    out = set()
    for pair in pairs:
        if len(pair) != 2:
            raise RunError(f"pairs: {tuple(pair)!r} is not a pairing of two of the {count} policies")
        first, second = sorted(int(i) for i in pair)
        if first == second or first < 0 or second >= count:
            raise RunError(f"pairs: {tuple(pair)!r} is not a pairing of two of the {count} policies")
        out.add((first, second))
    if not out:
        raise RunError("pairs: no pairing to play")
    return sorted(out)


def is_tournament(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a tournament folder (it holds ``_tournament.json``)."""
    return (Path(path) / TOURNAMENT_FILE).is_file()


def read_tournament(path: str | os.PathLike) -> dict[str, Any]:
    """The tournament manifest of ``path``; ``DatasetError`` if it is not a tournament folder."""
    path = Path(path)
    manifest_path = path / TOURNAMENT_FILE
    if not manifest_path.is_file():
        raise ds.DatasetError(f"{path}: not a fudasim tournament (no {TOURNAMENT_FILE})")
    try:
        data = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ds.DatasetError(f"{manifest_path}: unreadable tournament manifest: {error}") from None
    if not isinstance(data, dict) or data.get("fudasim_tournament") != TOURNAMENT_FORMAT \
            or not isinstance(data.get("runs"), list):
        raise ds.DatasetError(f"{manifest_path}: not a fudasim tournament manifest")
    for entry in data["runs"]:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
            raise ds.DatasetError(f"{manifest_path}: a run entry without a proper folder name: {entry!r}")
    return data


def _difference(key: str, then: Any, now: Any) -> str:
    if isinstance(then, dict) and isinstance(now, dict):
        for sub in sorted(set(then) | set(now), key=str):
            if then.get(sub) != now.get(sub):
                return f"{sub}: {then.get(sub)!r} then, {now.get(sub)!r} now"
    return f"{key}: {then!r} then, {now!r} now"


def _remove_tournament(out: Path, stored: dict[str, Any]) -> None:
    """Delete a tournament's own files (``--overwrite``), refusing before deleting anything if the
    folder holds anything that is not its own."""
    listed = {entry["name"] for entry in stored["runs"]}
    runs = []
    temporaries: list[Path] = []
    for name in sorted(os.listdir(out)):
        path = out / name
        if name in (TOURNAMENT_FILE, ds.LOCK_FILE):
            continue
        if name.startswith(_TEMPORARY_PREFIX):
            temporaries.append(path)
            continue
        if name not in listed or path.is_symlink() or not path.is_dir():
            raise RunError(f"--overwrite: {out} holds {name}, which is not part of its tournament; "
                           f"refusing to delete anything")
        own, foreign = ds.own_files(path)
        if foreign is not None:
            raise RunError(f"--overwrite: {path} holds {foreign}, which is not part of its fudasim dataset; "
                           f"refusing to delete anything")
        holder = ds.lock_holder(path)
        if holder is not None:
            raise RunError(f"{path}: another fudasim process (pid {holder}) is writing this run")
        runs.append((path, own))
    for path, own in runs:
        for file in sorted(own, key=lambda p: (p.name == ds.RUN_FILE, p.name)):
            file.unlink()
        path.rmdir()
    for path in temporaries:
        path.unlink()
    (out / TOURNAMENT_FILE).unlink()


def _earlier_shipped_text(config: TournamentConfig, sha256: Any) -> bool:
    """Whether ``sha256`` is that of an earlier text of the shipped rule set ``config.rules``
    names (``simcore.rules.earlier_text``), whose rules are the same as today's."""
    return is_shipped(config.rules) and earlier_text(config.rules, str(sha256)) is not None


def _out(config: TournamentConfig, plan: dict[str, Any]) -> Path:
    """The tournament's folder: ``config.out``, by default ``fudasim-out/tournament-<rules>-seed<seed>``."""
    return Path(config.out) if config.out else Path("fudasim-out") / f"tournament-{plan['rules_name']}-seed{config.seed}"


def _stored_difference(config: TournamentConfig, stored: dict[str, Any], plan: dict[str, Any]) -> str | None:
    """The first field of ``plan`` that differs from the ``stored`` tournament's, as ``--resume``
    names it (None: none; a tournament begun with an earlier text of the shipped rule file
    counts as the same)."""
    from simcore.run.runner import recorded_policies

    for key in _RESUME_KEYS:
        then, now = stored.get(key), plan.get(key)
        if key == "policies":  # spelled as today, so an old tournament's policies compare
            then = recorded_policies(then, plan.get("game"))
        if key == "rules_sha256" and _earlier_shipped_text(config, then):
            continue  # begun with an earlier text of the shipped file: its runs play that text
        if key == "pairs" and _covers(now, then):
            continue  # the same pairings, or more: a resume plays the new ones
        if then != now:
            return _difference(key, then, now)
    return None


def _covers(now: Any, then: Any) -> bool:
    """Whether the pairings ``now`` (a plan's ``pairs``; None: every pairing) hold all of ``then``."""
    if now is None:
        return True
    return then is not None and {tuple(p) for p in then} <= {tuple(p) for p in now}


def resume_conflict(config: TournamentConfig, plan: dict[str, Any] | None = None) -> str | None:
    """Why the tournament in ``config.out`` (complete or not) is not the one ``config`` (or its
    ``plan``, made by ``plan_tournament`` or a sweep's ``plan_sweep``) asks for, in ``--resume``'s
    words (``<folder> was started with a different deals: 200 then, 300 now``), or None where it
    is; writes nothing."""
    plan = plan_tournament(config) if plan is None else plan
    out = _out(config, plan)
    difference = _stored_difference(config, read_tournament(out), plan)
    return None if difference is None else f"{out} was started with a different {difference}"


def _prepare(config: TournamentConfig, plan: dict[str, Any], out: Path) -> tuple[dict[str, Any], ds.DatasetLock]:
    """Check the folder against --resume/--overwrite, lock it, and write the manifest to follow."""
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out}: exists and is not a directory")
    if config.resume:
        if not (out / TOURNAMENT_FILE).is_file():
            raise RunError(f"--resume: {out} holds no tournament to resume (no {TOURNAMENT_FILE})")
        read_tournament(out)
        lock = ds.lock_dataset(out)
        try:
            stored = read_tournament(out)
            difference = _stored_difference(config, stored, plan)
            if difference is not None:
                raise RunError(f"--resume: {out} was started with a different {difference}")
            for name in os.listdir(out):
                if name.startswith(_TEMPORARY_PREFIX):
                    (out / name).unlink()  # an interrupted manifest write
            if stored.get("pairs") != plan.get("pairs"):  # more pairings: their runs join the plan
                stored["runs"] = plan["runs"]
                stored.pop("pairs", None)
                if "pairs" in plan:
                    stored["pairs"] = plan["pairs"]
            stored.setdefault("resumed_by", []).append(config.command)
            stored["complete"] = False
            ds.write_json_atomic(out / TOURNAMENT_FILE, stored)
        except BaseException:
            lock.release()
            raise
        return stored, lock
    out.mkdir(parents=True, exist_ok=True)
    lock = ds.lock_dataset(out)
    try:
        present = [name for name in os.listdir(out) if name != ds.LOCK_FILE]
        if present:
            if not config.overwrite:
                raise RunError(f"--out {out}: already exists and is not empty; use --resume to finish "
                               f"that tournament or --overwrite to replace it")
            if TOURNAMENT_FILE not in present:
                raise RunError(f"--overwrite: {out} is not a fudasim tournament (no {TOURNAMENT_FILE}); "
                               f"refusing to delete anything")
            _remove_tournament(out, read_tournament(out))
        manifest = dict(plan, command=config.command, complete=False, timing={})
        ds.write_json_atomic(out / TOURNAMENT_FILE, manifest)
    except BaseException:
        lock.release()
        raise
    return manifest, lock


def _run_is_intact(path: Path) -> bool:
    """Whether the run in ``path`` is complete with every shard present and intact."""
    try:
        check = ds.check_dataset(path, checksums=True)
    except ds.DatasetError:
        return False
    return check.complete and not check.problems


def run_tournament(config: TournamentConfig, announce=None, plan: dict[str, Any] | None = None) -> TournamentResult:
    """Plan and play a tournament (or finish one, with ``resume``); returns what was done.

    Parameters
    ----------
    config : TournamentConfig
        The settings; ``config.policies`` holds one policy spec per policy.
    announce : callable, optional
        Called with one line of text before each run is played (progress for the command line).
    plan : dict, optional
        A plan made elsewhere in the same layout (``simcore.run.sweep.plan_sweep``): each run entry may
        carry its own ``options``, laid over ``config.options``.

    Raises ``RulesError``, ``PolicyError``, ``RunError`` or ``DatasetError`` on bad input or a
    folder that cannot be written.
    """

    plan = plan_tournament(config) if plan is None else plan
    if config.out and is_uri(config.out):  # its runs could go to a store; its own manifest and lock could not
        raise RunError(f"--out {display(config.out)}: a tournament, sweep or skill folder must be a local "
                       f"folder (object stores take the datasets of fudasim run)")
    out = _out(config, plan)
    if config.threads is not None:
        import numba

        if not 1 <= config.threads <= numba.config.NUMBA_NUM_THREADS:
            raise RunError(f"--threads {config.threads}: must be 1..{numba.config.NUMBA_NUM_THREADS}")
    if config.scheduler is None:
        return _play_runs(config, plan, out, announce, None)
    from simcore.run.distributed import session

    # one cluster for every run (local:N started once), connected before the folder is touched
    with session(config.scheduler) as address:
        return _play_runs(config, plan, out, announce, address)


def _play_runs(config: TournamentConfig, plan: dict[str, Any], out: Path, announce, address: str | None
               ) -> TournamentResult:
    """Lock and prepare the folder, then play every run not yet complete (``run_tournament``)."""
    manifest, lock = _prepare(config, plan, out)
    result = TournamentResult(out=out, manifest=manifest)
    try:
        began = time.perf_counter()
        runs = list(enumerate(manifest["runs"], start=1))
        baseline_path = None
        if manifest.get("summary"):
            # a summary sweep: the baseline first, then every other run paired with it
            baseline = int(manifest.get("baseline", 0))
            runs.insert(0, runs.pop(baseline))
            baseline_path = out / manifest["runs"][baseline]["name"]
        todo = [(number, entry) for number, entry in runs if not _run_is_intact(out / entry["name"])]
        result.runs_skipped = len(runs) - len(todo)
        with compiling_behind(_kernel_targets(config, manifest, todo) if config.engine == "kernel" and address is None
                              else []):
            _play(config, manifest, out, todo, announce, address, baseline_path, result)
        if config.engine == "kernel" and not manifest.get("kind"):
            timed = manifest.get("decision_time")
            played = {i for entry in manifest["runs"] for i in entry["pair"]}
            if not timed or any(timed[i] is None for i in played):
                manifest["decision_time"] = time_decisions(config, manifest, timed)
        result.seconds = time.perf_counter() - began
        manifest["complete"] = True
        ds.write_json_atomic(out / TOURNAMENT_FILE, manifest)
    finally:
        lock.release()
    return result


def _kernel_targets(config: TournamentConfig, manifest: dict[str, Any], todo: list[tuple[int, dict[str, Any]]]
                    ) -> list[Target]:
    """One run of each set of policies among the runs ``todo``, in their order, as
    ``simcore.run.ahead`` targets: the runs whose kernels may differ (the seatings of a pairing,
    or a sweep's runs of one set of policies, play the same kernel)."""
    from simcore.run.runner import recorded_policies

    targets: dict[tuple[str, ...], Target] = {}
    for _, entry in todo:
        policies = [str(text) for text in recorded_policies(list(entry["policies"]), manifest.get("game"))]
        options = {**config.options, **entry.get("options", {})}
        targets.setdefault(tuple(sorted(policies)), Target(
            config.rules, tuple(enumerate(policies)), tuple(sorted((str(k), str(v)) for k, v in options.items())),
            str(manifest["rules_sha256"])))
    return list(targets.values())


def _play(config: TournamentConfig, manifest: dict[str, Any], out: Path, todo: list[tuple[int, dict[str, Any]]],
          announce, address: str | None, baseline_path: Path | None, result: TournamentResult) -> None:
    """Play (or finish) the runs ``todo`` of ``manifest`` into ``out``, in order (``_play_runs``)."""
    from simcore.run.runner import RunConfig, recorded_policies, run

    timing = manifest.setdefault("timing", {})
    for number, entry in todo:
        path = out / entry["name"]
        resume = path.is_dir() and (path / ds.RUN_FILE).is_file()
        if path.is_dir() and not resume and any(name != ds.LOCK_FILE for name in os.listdir(path)):
            raise RunError(f"{path}: holds files but no {ds.RUN_FILE}; move them away and resume")
        if announce is not None:
            verb = "finishing" if resume else "playing"
            announce(f"[{number}/{len(manifest['runs'])}] {verb} {entry['name']}: "
                     + " vs ".join(entry["policies"]))
        summary = run(RunConfig(
            rules=config.rules, options={**config.options, **entry.get("options", {})}, seed=config.seed,
            rounds=config.deals,
            # the stored texts read as recorded: a tournament begun before a default changed
            # finishes with the policies it began with
            policies=tuple(recorded_policies(list(entry["policies"]), manifest.get("game"))),
            engine=config.engine, threads=config.threads, out=str(path),
            resume=resume, units_per_shard=config.units_per_shard, progress=config.progress,
            command=config.command, scheduler=address, summary=bool(manifest.get("summary")),
            paired_with=str(baseline_path) if baseline_path is not None and path != baseline_path else None,
            rules_sha256=str(manifest["rules_sha256"]),  # the text the tournament began with
        ))
        computed = summary.rounds - summary.rounds_present
        spent = timing.get(entry["name"], {"rounds": 0, "seconds": 0.0})
        timing[entry["name"]] = {"rounds": int(spent["rounds"]) + computed,
                                 "seconds": float(spent["seconds"]) + summary.seconds,
                                 "engine": config.engine}
        result.rounds_computed += computed
        if resume:
            result.runs_resumed += 1
        else:
            result.runs_played += 1
        ds.write_json_atomic(out / TOURNAMENT_FILE, manifest)


def time_decisions(config: TournamentConfig, manifest: dict[str, Any], known: list[Any] | None = None
                   ) -> list[dict[str, Any] | None]:
    """Each policy's time per decision: its first run's first ``DECISION_ROUNDS`` rounds played
    again by the general kernel on this thread, timing each decision with two or more options
    (``Game.time_decisions``); one entry per policy of the manifest: ``rounds``, ``decisions``
    and ``seconds`` (None without a cycle counter, ``simcore.kernels.clock``). A policy in no
    run has None; one whose entry is ``known`` (timed before) keeps it."""
    from simcore.kernels.clock import HAS_COUNTER, cycles_per_second
    from simcore.run.runner import recorded_policies

    rules = load_rules(config.rules, config.options)
    game = game_of(rules)
    compiled = game.compile(rules)
    rounds = min(int(manifest["deals"]), DECISION_ROUNDS)
    rate = cycles_per_second() if HAS_COUNTER else 0.0
    out: list[dict[str, Any] | None] = []
    for index in range(len(manifest["policies"])):
        if known and index < len(known) and known[index] is not None:
            out.append(known[index])
            continue
        entry = next((e for e in manifest["runs"] if index in e["pair"]), None)
        if entry is None:
            out.append(None)
            continue
        texts = recorded_policies(list(entry["policies"]), game.name)
        specs = [parse_policy(text, game.name) for text in texts]
        letter = "A" if entry["pair"][0] == index else "B"
        spent = game.time_decisions(compiled, specs, int(manifest["seed"]), 0, rounds, HAS_COUNTER)
        seats = [seat for seat, mine in enumerate(entry["seating"]) if mine == letter]
        decisions = int(spent[seats, 0].sum())
        seconds = float(spent[seats, 1].sum()) / rate if rate > 0 else None
        out.append({"rounds": rounds, "decisions": decisions, "seconds": seconds})
    return out


def verify_tournament(path: str | os.PathLike, deep: bool = False) -> tuple[list[str], list[str], int, int]:
    """Check every run of a tournament folder, and the folder itself, against the manifests.

    Returns
    -------
    (problems, notes, runs, rounds)
        One line per problem (each run's own problems prefixed with its folder name: missing run,
        extra entries, a run's missing, damaged or foreign shards, an unfinished tournament),
        notes, the number of runs and the rounds in their intact shards.

    Raises
    ------
    DatasetError
        ``path`` is not a tournament folder.
    """
    path = Path(path)
    manifest = read_tournament(path)
    problems: list[str] = []
    notes: list[str] = []
    rounds = 0
    listed = {entry["name"] for entry in manifest["runs"]}
    if manifest.get("complete") is not True:
        problems.append("the tournament is not complete (finish it with `fudasim tournament ... --resume`)")
    for name in sorted(os.listdir(path)):
        if name in (TOURNAMENT_FILE, ds.LOCK_FILE) or name in listed:
            continue
        if name.startswith(_TEMPORARY_PREFIX):
            problems.append(f"{name}: a temporary file left by an interrupted write (--resume removes it)")
            continue
        problems.append(f"{name}: extra entry (not a run of this tournament)")
    for entry in manifest["runs"]:
        run_path = path / entry["name"]
        if not (run_path / ds.RUN_FILE).is_file():
            problems.append(f"{entry['name']}: missing run")
            continue
        try:
            check = ds.check_dataset(run_path, checksums=True, deep=deep)
        except ds.DatasetError as error:
            problems.append(f"{entry['name']}: {error}")
            continue
        if check.manifest.get("policies") != entry["policies"] or check.manifest.get("seed") != manifest["seed"] \
                or check.manifest.get("units") != manifest["deals"] \
                or any(check.manifest.get("options", {}).get(k) != v for k, v in entry.get("resolved", {}).items()):
            problems.append(f"{entry['name']}: a run of other policies, options, seed or deals than the tournament "
                            f"lists")
        problems += [f"{entry['name']}/{line}" for _, line in check.problems]
        notes += [f"{entry['name']}: {note}" for note in check.notes]
        rounds += check.rounds(check.good_shards())
    return problems, notes, len(manifest["runs"]), rounds

