"""Run a simulation: plan, chunk into shards, call an engine, stream shards to writer threads.

The unit of work is a *unit*: one independent round, or one match (guarantee 1 of docs/guarantees.md).
Units are grouped into shards of ``units_per_shard``; each shard is computed by the chosen
engine (the numba kernel by default, ``reference`` for the pure-Python engine) and written
atomically by writer threads while the next shard is computed, so memory stays bounded by a
few shards whatever the number of rounds.

A shard's rows depend only on the seed, the unit range and the rules/policies, never on thread
count or shard size, so ``--resume`` (which computes only the missing shards of the stored plan)
produces exactly the rows of an uninterrupted run.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

import simcore
from simcore import dataset as ds
from simcore import storage
from simcore.errors import FudasimError, PolicyError, RunError
from simcore.games import Game, game_of
from simcore.learned import check_models
from simcore.policies import (
    HiddenCardsWarning,
    check_engine,
    hidden_notice,
    parse_policy,
    recorded_text,
    sees_hidden,
)
from simcore.record import ColumnStore
from simcore.rules import load_rules
from simcore.rules.bounds import INT64_MAX, MAX_MATCH_ROUNDS
from simcore.run.shards import (
    ManifestWriter,
    Progress,
    RunSummary,
    new_summary,
    shard_metadata,
    shards_to_do,
    warm_up,
)

__all__ = ["RunError", "RunConfig", "RunSummary", "run", "ENGINES", "MAX_ROUNDS", "check_units",
           "plan_run", "resume_conflict", "shards_to_do"]

ENGINES = ("kernel", "reference")
DEFAULT_ROUNDS = 1_000_000
TARGET_ROWS_PER_SHARD = 1 << 18
WRITERS = 2
# The most rounds a run may have: round ``unit * stride + k`` is an int64 (the ``round`` column,
# the kernels' unit and round numbers) that keys the uint64 stream hashes (simcore/rng.py), and
# every count of rounds is an int64 too.  The manifest stores its numbers as JSON integers.
MAX_ROUNDS = INT64_MAX




@dataclass
class RunConfig:
    """What ``fudasim run`` was asked for: rules and options, seed, size, policies, engine, output."""

    rules: str = "tensho-ise"
    options: dict[str, str] = field(default_factory=dict)
    seed: int = 0
    rounds: int | None = None
    matches: int | None = None
    rounds_per_match: int | None = None
    policies: tuple[str, ...] | dict[int, str] = ()  # per seat; seats not named play `random`
    engine: str = "kernel"
    threads: int | None = None
    out: str | None = None
    resume: bool = False
    overwrite: bool = False
    units_per_shard: int | None = None
    progress: bool = False
    command: str = ""
    # None: this process.  ``tcp://HOST:8786``: the shards as tasks on that Dask cluster;
    # ``local:N``: on a LocalCluster of N single-threaded worker processes (simcore.run.distributed).
    scheduler: str | None = None
    # Keep per shard the counts the reports need instead of the rows (docs/summary-runs.md);
    # ``paired_with``: also the per-round differences from that run (a dataset folder).
    summary: bool = False
    paired_with: str | None = None
    # The sha256 of the rules text to play where ``rules`` names a shipped rule set whose file
    # changed since (``simcore.rules.earlier_text``): a tournament or sweep begun with the earlier
    # text plays it in every run.  A resumed run reads it from its own manifest.
    rules_sha256: str | None = None








def with_players(rules: str, options: dict[str, str], players: int | None, flag: str = "--players") -> dict[str, str]:
    """``options`` plus the game's player-count option set to ``players`` (unchanged when None);
    ``RunError`` naming ``flag`` when the rules do not allow that many players."""
    if players is None:
        return dict(options)
    rule_set = load_rules(rules, dict(options))
    game = game_of(rule_set)
    problem = game.players_problem(rule_set, players)
    if problem:
        raise RunError(f"{flag}{players}: {problem}" if flag.endswith("=") else f"{flag} {players}: {problem}")
    out = dict(options)
    if game.players_option is not None:
        given = out.get(game.players_option)
        if given is not None and str(given).strip() != str(players):
            named = f"{flag}{players}" if flag.endswith("=") else f"{flag} {players}"
            raise RunError(f"{named}: {game.players_option}={given} says otherwise; give the player count once")
        out[game.players_option] = str(players)
    return out


def plan_run(config: RunConfig) -> tuple[dict[str, Any], Game, Any, list]:
    """The plan of the run ``config`` asks for (what its manifest records), its game, compiled
    rules and one policy spec per seat, after every check made before a run touches its folder
    (``RunError``, ``RulesError``, ``PolicyError``)."""
    rules = load_rules(config.rules, config.options, config.rules_sha256)
    game = game_of(rules)
    compiled = game.compile(rules)
    if config.engine not in ENGINES:
        raise RunError(f"--engine {config.engine!r}: expected one of {', '.join(ENGINES)}")
    players = game.players(compiled)
    chosen = dict(config.policies) if isinstance(config.policies, dict) else dict(enumerate(config.policies))
    for seat in chosen:
        if not 0 <= seat < players:
            raise RunError(f"--policy {seat}=...: seat {seat} is outside 0..{players - 1} "
                           f"({rules.name} is played by {players} players here)")
    specs = [parse_policy(chosen.get(seat, "random"), game.name) for seat in range(players)]
    for spec in specs:
        check_engine(spec, game.name, config.engine)  # never play a policy as another
    check_models(game.name, compiled, specs)  # a missing model refused before the folder is touched
    if not 0 <= config.seed < 2**64:
        raise RunError(f"--seed {config.seed}: must be in 0 .. 2**64 - 1")
    if config.matches is not None:
        if config.rounds is not None:
            raise RunError("give --rounds (independent rounds) or --matches (match play), not both")
        if config.matches < 1:
            raise RunError(f"--matches {config.matches}: must be at least 1")
        rounds_per_match = config.rounds_per_match or int(rules.options[game.rounds_option])
        if not 1 <= rounds_per_match <= MAX_MATCH_ROUNDS:
            # the rules' numbers are bounded for matches of at most this many rounds
            raise RunError(f"--rounds-per-match {rounds_per_match}: must be 1..{MAX_MATCH_ROUNDS}")
        units = config.matches
    else:
        if config.rounds_per_match is not None:
            raise RunError("--rounds-per-match needs --matches")
        rounds_per_match = None
        units = DEFAULT_ROUNDS if config.rounds is None else config.rounds
        if units < 1:
            raise RunError(f"--rounds {units}: must be at least 1")
    stride = game.stride(compiled, rounds_per_match)
    check_units("--rounds" if rounds_per_match is None else "--matches", units, stride)
    # Whether every unit fills its rows: not when a match may stop before its last round.
    fixed_rows = rounds_per_match is None or (stride == rounds_per_match and not game.match_may_end_early(compiled))
    if config.paired_with is not None and not config.summary:
        raise RunError(f"--paired-with {config.paired_with}: only with --summary (a full run pairs in fudasim compare)")
    target = TARGET_ROWS_PER_SHARD
    if config.summary:
        from simcore.run.summary_shard import SUMMARY_ROWS_PER_SHARD as target
    units_per_shard = config.units_per_shard or max(1, target // stride)
    units_per_shard = min(units_per_shard, units)
    plan = {
        "fudasim_version": simcore.__version__,
        "engine_version": simcore.ENGINE_VERSION,
        "game": rules.game,
        "rules_name": rules.name,
        "rules_source": rules.source,
        "rules_sha256": rules.sha256,
        "options": rules.options,
        "option_overrides": rules.overrides,
        "seed": config.seed,
        "players": players,
        "policies": [str(s) for s in specs],
        "units": units,
        "unit_kind": "round" if rounds_per_match is None else "match",
        "rounds_per_match": rounds_per_match,
        "round_stride": stride,
        "rounds": units * stride if fixed_rows else None,
        "units_per_shard": units_per_shard,
        "shards": -(-units // units_per_shard),
        "end_reasons": list(game.end_reasons),
        **game.run_metadata(rules),  # the yaku table in bit order, and whatever else the game records
    }
    if config.summary:
        plan["summary"] = True  # only then: every other run's metadata stays as it was
        if config.paired_with is not None:
            from simcore.run.summary_shard import baseline_identity, load_baseline

            plan["paired_with"] = baseline_identity(load_baseline(config.paired_with, plan))
    hidden = [seat for seat, spec in enumerate(specs) if sees_hidden(spec)]
    if hidden:
        plan["sees_hidden"] = hidden  # only then: every other run's metadata stays as it was
    return plan, game, compiled, specs


def check_units(flag: str, units: int, stride: int = 1) -> None:
    """``RunError`` naming ``flag`` unless ``units`` units of ``stride`` round indices each fit
    the round index (at most ``MAX_ROUNDS`` rounds in all)."""
    most = MAX_ROUNDS // stride
    if not 1 <= units <= most:
        why = ("the round index is a 64-bit integer" if stride == 1 else
               f"matches of up to {stride:,} round indices each; the round index is a 64-bit "
               f"integer")
        raise RunError(f"{flag} {units}: must be 1..{most:,} ({why})")




# Fields of the plan that must agree for --resume (everything that changes rows or layout).
_RESUME_KEYS = ("engine_version", "game", "rules_sha256", "options", "seed", "policies", "units",
                "rounds_per_match", "units_per_shard", "summary", "paired_with")




def _default_out(config: RunConfig, plan: dict[str, Any]) -> Path:
    return Path("fudasim-out") / f"{plan['rules_name']}-seed{config.seed}"


def _difference(key: str, then: Any, now: Any) -> str:
    """The first place two plan values differ, e.g. ``tensho.card_values: 'T1_ise' then, 'T3' now``."""
    if isinstance(then, dict) and isinstance(now, dict):
        for sub in sorted(set(then) | set(now), key=str):
            if then.get(sub) != now.get(sub):
                return _difference(str(sub), then.get(sub), now.get(sub))
    if key == "policies" and isinstance(then, list) and isinstance(now, list) and len(then) == len(now):
        for seat, (a, b) in enumerate(zip(then, now, strict=True)):
            if a != b:
                return f"policy of seat {seat}: {a!r} then, {b!r} now"
    return f"{key}: {then!r} then, {now!r} now"


def recorded_policies(texts: Any, game: str | None) -> Any:
    """A stored list of policy texts as they would be recorded today (``recorded_text``), so a run
    made before a default changed compares equal to the same policies spelled out now; anything
    that does not parse is returned as it is (the comparison then fails, naming it)."""
    if not isinstance(texts, list):
        return texts
    try:
        return [recorded_text(str(text), game) for text in texts]
    except PolicyError:
        return texts


def _recorded_sha256(out: storage.Location) -> str | None:
    """The rules sha256 the manifest in ``out`` records, or None (no readable manifest: what
    resuming then does names the problem)."""
    try:
        value = ds.read_manifest(out).get("rules_sha256")
    except (ds.DatasetError, OSError, ValueError):
        return None
    return value if isinstance(value, str) else None


def _check_resume(out: storage.Location, stored: dict[str, Any], plan: dict[str, Any]) -> None:
    """``RunError`` naming the first field of the plan that differs from the stored run's."""
    for key in _RESUME_KEYS:
        then, now = stored.get(key), plan.get(key)
        if key == "policies":
            then = recorded_policies(then, plan.get("game"))
        if then != now:
            raise RunError(f"--resume: {out} was started with a different {_difference(key, then, now)}")


def resume_conflict(config: RunConfig) -> str | None:
    """Why ``--resume`` would refuse to finish the run in ``config``'s folder (``out``, a local
    folder holding a manifest) as ``config`` asks, in its words (``<folder> was started with a
    different seed: 3 then, 4 now``), or None: the folder holds (part of) this very run.  Raises
    what ``run`` raises on bad settings; writes nothing."""
    plan, _, _, _ = plan_run(config)
    out = Path(config.out) if config.out else _default_out(config, plan)
    recorded = _recorded_sha256(out)
    if config.rules_sha256 is None and recorded is not None and recorded != plan["rules_sha256"]:
        plan, _, _, _ = plan_run(replace(config, rules_sha256=recorded))  # as run() resumes an earlier text
    try:
        _check_resume(out, ds.read_manifest(out), plan)
    except RunError as error:
        return str(error).removeprefix("--resume: ")
    return None


def _resume_shards(out: storage.Location, stored: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Check the shards a resumed run finds; return the manifest entries of the good ones.

    A listed shard must have its listed size and checksum; an unlisted one (committed after the
    manifest's last update, or written by an older fudasim) is decoded and its metadata checked,
    then listed.  A shard that fails is deleted (one line on stderr) and computed again.
    """
    check = ds.check_dataset(out, checksums=True)
    present: dict[int, dict[str, Any]] = {}
    for index, shard in sorted(check.shards.items()):
        reason = shard.problem
        if shard.ok and shard.entry is not None:
            present[index] = shard.entry
            continue
        if shard.info is not None and shard.kind in (None, "unlisted"):
            reason = ds.decode_problem(shard.path, shard.info, shard.rows, stored)
            if reason is None:
                size, sha256 = ds.file_digest(shard.path)
                present[index] = ds.shard_entry(index, shard.info, shard.rows, size, sha256)
                continue
            reason = f"{shard.path.name}: {reason}"
        sys.stderr.write(f"fudasim: {reason}; computing it again\n")
        shard.path.unlink()
    return present


def _refuse_resume_without_manifest(out: storage.Location) -> None:
    """``RunError``: ``out`` has no manifest to resume (and how to recover, if it holds shards)."""
    try:
        ds.refuse_without_manifest(out)
    except ds.DatasetError as error:
        raise RunError(f"--resume: {error}") from None
    raise RunError(f"--resume: {out} holds no run to resume (no {ds.RUN_FILE})")


def _lock_existing(out: Path) -> ds.DatasetLock | None:
    """Take the lock now if a lock file exists (so a live writer is named before anything else)."""
    return ds.lock_dataset(out) if (out / ds.LOCK_FILE).exists() else None


def _prepare_out(config: RunConfig, plan: dict[str, Any],
                 out: storage.Location) -> tuple[dict[str, Any], ds.DatasetLock, dict[int, dict[str, Any]]]:
    """Check the output directory against --resume/--overwrite and lock it.

    Returns the plan to follow, the writer's lock (held until the caller releases it), and the
    manifest entries of the shards already present.  Nothing in the directory changes before the
    lock is held.
    """
    if isinstance(out, storage.StorePath):
        return _prepare_store_out(config, plan, out)
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out}: exists and is not a directory")
    lock: ds.DatasetLock | None
    if config.resume:
        if not (out / ds.RUN_FILE).is_file():
            _refuse_resume_without_manifest(out)
        ds.read_manifest(out)  # not a fudasim manifest: refused before the lock file is made
        lock = ds.lock_dataset(out)
        try:
            stored = ds.read_manifest(out)
            _check_resume(out, stored, plan)
            for name in os.listdir(out):
                if ds.TEMPORARY_NAME.fullmatch(name):
                    (out / name).unlink()  # an interrupted write; its shard is recomputed
            present = _resume_shards(out, stored)
            stored[ds.SHARD_FILES] = [present[k] for k in sorted(present)]
            stored.setdefault("resumed_by", []).append(config.command)
            ds.write_manifest(out, stored)
        except BaseException:
            lock.release()
            raise
        return stored, lock, present
    lock = None
    if out.is_dir():
        lock = _lock_existing(out)
        try:
            if [name for name in os.listdir(out) if name != ds.LOCK_FILE]:
                if not config.overwrite:
                    raise RunError(f"--out {out}: already exists and is not empty; use --resume to finish "
                                   f"that run or --overwrite to replace it")
                _, foreign = ds.own_files(out)
                if foreign is None and lock is None:
                    lock = ds.lock_dataset(out)
                    _, foreign = ds.own_files(out)  # again, now that no one else writes
                if foreign is not None:
                    raise RunError(f"--overwrite: {out} holds {foreign}, which is not part of its fudasim "
                                   f"dataset; refusing to delete anything")
                own, _ = ds.own_files(out)
                # Shards first and the manifest last: an overwrite cut short still lists what is left.
                for path in sorted(own, key=lambda p: (p.name == ds.RUN_FILE, p.name)):
                    if path.name != ds.LOCK_FILE:
                        path.unlink()
        except BaseException:
            if lock is not None:
                lock.release()
            raise
    else:
        out.mkdir(parents=True, exist_ok=True)
    if lock is None:
        lock = ds.lock_dataset(out)
        if not config.overwrite and [name for name in os.listdir(out) if name != ds.LOCK_FILE]:
            lock.release()  # another run filled the folder between our look and our lock
            raise RunError(f"--out {out}: already exists and is not empty; use --resume to finish "
                           f"that run or --overwrite to replace it")
    try:
        plan = dict(plan, command=config.command, complete=False)
        plan[ds.SHARD_FILES] = []
        ds.write_manifest(out, plan)
    except BaseException:
        lock.release()
        raise
    return plan, lock, {}


def _prepare_store_out(config: RunConfig, plan: dict[str, Any],
                       out: storage.StorePath) -> tuple[dict[str, Any], ds.DatasetLock, dict[int, dict[str, Any]]]:
    """``_prepare_out`` for a prefix in an object store, where no lock exists (docs/distributed.md).

    A marker object names the writer instead: ``--overwrite`` refuses while one is there (the
    writer may be live); ``--resume`` replaces it (a second writer of the same run writes the same
    bytes under the same names, so resuming next to a live one loses nothing).
    """
    try:
        storage.check_bucket(out)
    except ds.DatasetError as error:
        raise RunError(f"--out {error}") from None
    names = storage.listdir(out)
    holder = ds.marker_holder(out)
    if config.resume:
        if ds.RUN_FILE not in names:
            _refuse_resume_without_manifest(out)
        stored = ds.read_manifest(out)
        _check_resume(out, stored, plan)
        if holder is not None:
            sys.stderr.write(f"fudasim: {out}: taking over from the run its {ds.LOCK_FILE} names (pid {holder})\n")
        marker = ds.mark_writer(out)
        try:
            present = _resume_shards(out, stored)
            stored[ds.SHARD_FILES] = [present[k] for k in sorted(present)]
            stored.setdefault("resumed_by", []).append(config.command)
            ds.write_manifest(out, stored)
        except BaseException:
            marker.release()
            raise
        return stored, marker, present
    if names:
        if not config.overwrite:
            raise RunError(f"--out {out}: already exists and is not empty; use --resume to finish "
                           f"that run or --overwrite to replace it")
        if holder is not None:
            raise RunError(f"--overwrite: {out}: its {ds.LOCK_FILE} says a run (pid {holder}) is writing it; if "
                           f"that run was killed, finish it with --resume (which removes the marker) or "
                           f"delete {out / ds.LOCK_FILE}")
        own, foreign = ds.own_files(out)
        if foreign is not None:
            raise RunError(f"--overwrite: {out} holds {foreign}, which is not part of its fudasim "
                           f"dataset; refusing to delete anything")
        marker = ds.mark_writer(out)
        try:
            # Shards first and the manifest last: an overwrite cut short still lists what is left.
            for path in sorted(own, key=lambda p: (p.name == ds.RUN_FILE, p.name)):
                if path.name != ds.LOCK_FILE:
                    path.unlink(missing_ok=True)
        except BaseException:
            marker.release()
            raise
    else:
        marker = ds.mark_writer(out)
    try:
        plan = dict(plan, command=config.command, complete=False)
        plan[ds.SHARD_FILES] = []
        ds.write_manifest(out, plan)
    except BaseException:
        marker.release()
        raise
    return plan, marker, {}


def _add_present_shards(summary: RunSummary, out: storage.Location, present: dict[int, dict[str, Any]]) -> None:
    """Count the shards already present into the summary (the few columns it needs)."""
    if present and ds.is_summary_manifest(ds.read_manifest(out)):
        from simcore.run.summary_run import count_present

        assert isinstance(out, Path), "summary runs are refused in an object store (run())"
        return count_present(summary, out, present)
    codes = {name: code for code, name in enumerate(summary.end_reason_names)}
    columns = ["winner", "dealer", "end_reason", *[f"yaku_{seat}" for seat in range(summary.seats)]]
    for index in sorted(present):
        path = ds.shard_path(out, index)
        try:
            names = storage.read_schema(path).names
            columns += [f"active_{seat}" for seat in range(summary.seats)
                        if f"active_{seat}" in names and f"active_{seat}" not in columns]
            table = storage.read_table(path, columns=columns)
        except (OSError, ds.pa.ArrowException) as error:
            raise ds.DatasetError(f"{path}: cannot read shard: {error}") from None
        data = {name: table.column(name).to_numpy() for name in columns if name != "end_reason"}
        reasons = table.column("end_reason").combine_chunks()
        if ds.pa.types.is_dictionary(reasons.type):
            lookup = np.array([codes.get(str(n), 0) for n in reasons.dictionary.to_pylist()] or [0], dtype=np.int64)
            data["end_reason"] = lookup[reasons.indices.to_numpy(zero_copy_only=False)]
        else:
            data["end_reason"] = np.array([codes.get(str(n), 0) for n in reasons.to_pylist()], dtype=np.int64)
        summary.add(data)




def run(config: RunConfig) -> RunSummary:
    """Plan and execute a run; returns the summary.  Raises RulesError/RunError/PolicyError/DatasetError.

    The output directory is locked for the whole run (``simcore.dataset.lock_dataset``): a
    second writer is refused, naming this process.
    """
    plan, game, compiled, specs = plan_run(config)
    notice = hidden_notice(plan["policies"])
    if notice is not None:
        warnings.warn(notice, HiddenCardsWarning, stacklevel=2)
    out: storage.Location = _default_out(config, plan)
    if config.out:
        try:
            out = storage.location(config.out)  # a folder, or a URI: s3://bucket/prefix (docs/distributed.md)
        except ds.DatasetError as error:
            raise RunError(f"--out {error}") from None
    if config.resume and config.rules_sha256 is None:
        recorded = _recorded_sha256(out)
        if recorded is not None and recorded != plan["rules_sha256"]:
            # begun with an earlier text of a shipped file: resumed with that text, if it is kept
            # (else the check of the stored plan names the difference)
            config = replace(config, rules_sha256=recorded)
            plan, game, compiled, specs = plan_run(config)
    if config.summary and isinstance(out, storage.StorePath):
        raise RunError(f"--out {storage.display(out)}: a summary run is written to a local or shared folder, not an "
                       f"object store (its shards are a few MB in all: write them locally and copy them)")
    if config.scheduler is not None:
        # The cluster's workers run the kernels: --threads is their kernel threads per task.
        if config.threads is not None and config.threads < 1:
            raise RunError(f"--threads {config.threads}: must be at least 1")
        connection = _connect(config.scheduler)  # before the folder is touched: a bad address changes nothing
        try:
            plan, lock, present = _prepare_out(config, plan, out)
            try:
                return _execute_distributed(connection, config, plan, game, compiled, specs, out, present)
            finally:
                lock.release()
        finally:
            connection.close()
    if config.threads is not None:
        import numba

        if not 1 <= config.threads <= numba.config.NUMBA_NUM_THREADS:
            raise RunError(f"--threads {config.threads}: must be 1..{numba.config.NUMBA_NUM_THREADS}")
        numba.set_num_threads(config.threads)
    existed = isinstance(out, Path) and out.exists()
    fresh = isinstance(out, Path) and not (existed and any(out.iterdir()))
    plan, lock, present = _prepare_out(config, plan, out)
    refused = False
    try:
        return _execute(config, plan, game, compiled, specs, out, present)
    except FudasimError:
        refused = True
        raise
    finally:
        lock.release()
        if refused and fresh and isinstance(out, Path):
            _forget_unstarted(out, remove_folder=not existed)


def _forget_unstarted(out: Path, remove_folder: bool) -> None:
    """Remove what a run refused before its first shard (a policy's missing model, say) left in a
    folder that was new or empty: its manifest and lock file, and (``remove_folder``: the run
    made it) the folder, so that the corrected command is not told the folder is taken."""
    names = set(os.listdir(out)) if out.is_dir() else set()
    if not names <= {ds.RUN_FILE, ds.LOCK_FILE}:
        return
    if ds.RUN_FILE in names and ds.read_manifest(out).get(ds.SHARD_FILES):
        return
    for name in names:
        (out / name).unlink(missing_ok=True)
    if remove_folder:
        try:
            out.rmdir()
        except OSError:
            pass


def _connect(address: str) -> Any:
    """A ``simcore.run.distributed.Connection`` to the scheduler at ``address`` (or a new LocalCluster)."""
    try:
        from simcore.run import distributed
    except ImportError as error:
        raise RunError(f"--scheduler needs Dask distributed ({error}); install fudasim[distributed]") from None
    return distributed.connect(address)






def _execute_distributed(connection: Any, config: RunConfig, plan: dict[str, Any], game: Game, compiled,
                         specs: list, out: storage.Location, present: dict[int, dict[str, Any]]) -> RunSummary:
    """``_execute`` on a Dask cluster: the shards are tasks, this process keeps the manifest."""
    from simcore.run import distributed

    units = int(plan["units"])
    per_shard = int(plan["units_per_shard"])
    rounds_per_match = plan["rounds_per_match"]
    count, todo = shards_to_do(plan, present)
    summary = new_summary(plan, out)
    summary.shards_skipped = int(plan["shards"]) - count
    _add_present_shards(summary, out, present)
    summary.rounds_present = summary.rounds
    context = distributed.run_context(config, plan, game, compiled, specs, out)

    manifest = ManifestWriter(out, plan, present)

    progress = Progress(units, int(plan["round_stride"]) if rounds_per_match is None else rounds_per_match,
                         config.progress)
    clock = [time.perf_counter()]

    def started() -> None:
        clock[0] = progress.start = time.perf_counter()
        progress.update(sum(min(per_shard, units - k * per_shard) for k in present if k < int(plan["shards"])))

    def add(result: Any) -> None:
        summary.merge(result.summary)
        summary.shards_written += 1
        progress.update(result.n_units)

    stats = distributed.DistributedStats()
    try:
        distributed.execute(connection, context, plan, out, todo, manifest.commit, add, started,
                            stats, count=count)
    finally:
        manifest.write_if_unfinished()
    # Temporary files of attempts whose worker died; every task has finished, so none is live.
    for name in storage.listdir(out) if isinstance(out, Path) else ():
        if name.startswith(".part-") and ds.TEMPORARY_NAME.fullmatch(name):
            (out / name).unlink(missing_ok=True)
    progress.update(0, final=True)
    summary.seconds = time.perf_counter() - clock[0]
    summary.warmup_seconds = stats.warmup_seconds
    summary.task_seconds = float(sum(stats.task_seconds))
    summary.task_cpu_seconds = float(sum(stats.task_cpu_seconds))
    summary.tasks = stats.tasks
    summary.units = units
    manifest.finish()
    return summary


def _execute(config: RunConfig, plan: dict[str, Any], game: Game, compiled, specs: list, out: storage.Location,
             present: dict[int, dict[str, Any]]) -> RunSummary:
    if plan.get("summary"):
        from simcore.run import summary_run

        assert isinstance(out, Path), "summary runs are refused in an object store (run())"
        return summary_run.execute(config, plan, game, compiled, specs, out, present)
    units = int(plan["units"])
    per_shard = int(plan["units_per_shard"])
    rounds_per_match = plan["rounds_per_match"]
    count, todo = shards_to_do(plan, present)
    summary = new_summary(plan, out)
    players = int(plan["players"])
    summary.shards_skipped = int(plan["shards"]) - count
    _add_present_shards(summary, out, present)
    summary.rounds_present = summary.rounds
    shard_info = shard_metadata(plan, config.engine)
    rules_text = compiled.rules.text

    # A small pool of output buffers cycles between the engine and the writer: memory stays at
    # a few shards, and reused pages spare the cost of faulting in fresh memory for every shard.
    rows_per_shard = per_shard * int(plan["round_stride"])
    free_buffers: queue.Queue = queue.Queue()
    for _ in range(min(3, max(1, count))):
        free_buffers.put(game.output_buffers(rows_per_shard))
    work: queue.Queue = queue.Queue()
    errors: list[BaseException] = []

    summary_lock = threading.Lock()
    commits: queue.Queue = queue.Queue()
    manifest = ManifestWriter(out, plan, present)  # only the committer adds to its entries

    def committer() -> None:
        # fsync, hash and rename off the writers' path: a writer goes on to the next shard while the
        # last one reaches the disk (fsync waits on I/O, not on the CPU).  This thread alone writes
        # the manifest while the run goes on.
        while True:
            item = commits.get()
            if item is None:
                return
            temporary, final, shard_index, info, rows = item
            try:
                _, size, sha256 = ds.commit_shard_with_digest(temporary, final)
                manifest.commit(shard_index, ds.shard_entry(shard_index, info, rows, size, sha256))
            except BaseException as error:  # surfaced in the main thread
                errors.append(error)
                return

    def writer() -> None:
        store = ColumnStore()  # each writer reuses its own column arrays
        while True:
            item = work.get()
            if item is None:
                return
            shard_index, first_unit, n_units, buffers, ints, masks = item
            try:
                columns = game.columns(ints, masks, players, store)  # copies: the buffers go back
                free_buffers.put(buffers)
                rows = len(columns["round"])
                info = dict(shard_info, shard=shard_index, first_unit=first_unit, n_units=n_units,
                            first_round=int(columns["round"][0]) if rows else None,
                            last_round=int(columns["round"][-1]) if rows else None)
                temporary, final = ds.write_shard_file(out, shard_index,
                                                       game.table(columns, info, rules_text, players))
                commits.put((temporary, final, shard_index, info, rows))
                with summary_lock:
                    summary.add(columns)
                    summary.shards_written += 1
            except BaseException as error:  # surfaced in the main thread
                errors.append(error)
                return

    rows_per_unit = int(plan["round_stride"])
    if count and config.engine == "kernel":  # the reference engine has nothing to compile
        warm_buffers = game.output_buffers(rows_per_unit)
        summary.compile_seconds = warm_up(
            lambda: game.play_units(config.engine, compiled, specs, int(plan["seed"]), 0, 1, rounds_per_match,
                                    out=warm_buffers), bool(config.progress))
    progress = Progress(units, rows_per_unit if rounds_per_match is None else rounds_per_match,
                         config.progress)
    already_done = sum(min(per_shard, units - k * per_shard) for k in present if k < int(plan["shards"]))
    progress.update(already_done)
    # Writers encode and compress shards while the engine computes the next ones: two of them,
    # since Parquet encoding releases the GIL, so that the engine never waits long for a free
    # buffer; a committer thread then fsyncs, hashes and renames each written shard.
    writers = [threading.Thread(target=writer, name=f"fudasim-writer-{k}", daemon=True)
               for k in range(min(WRITERS, max(1, count)))]
    for thread in writers:
        thread.start()
    commit_thread = threading.Thread(target=committer, name="fudasim-commit", daemon=True)
    commit_thread.start()
    start = time.perf_counter()
    try:
        for shard_index in todo:
            if errors:
                break
            first_unit = shard_index * per_shard
            n_units = min(per_shard, units - first_unit)
            buffers = None
            while buffers is None and not errors:
                try:
                    buffers = free_buffers.get(timeout=0.5)
                except queue.Empty:
                    if not any(thread.is_alive() for thread in writers):
                        break
            if buffers is None:
                break
            ints, masks = game.play_units(config.engine, compiled, specs, int(plan["seed"]), first_unit,
                                          n_units, rounds_per_match, out=buffers)
            work.put((shard_index, first_unit, n_units, buffers, ints, masks))
            progress.update(n_units)
    finally:
        for _ in writers:
            work.put(None)
        for thread in writers:
            thread.join()
        commits.put(None)  # after the writers: every written shard is committed first
        commit_thread.join()
        manifest.write_if_unfinished(failed=bool(errors))
    if errors:
        raise errors[0]
    progress.update(0, final=True)
    summary.seconds = time.perf_counter() - start
    summary.units = units
    manifest.finish()
    return summary
