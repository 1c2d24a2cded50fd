"""Run a simulation: plan, chunk into shards, call an engine, stream shards to writer threads.

The unit of work is a *unit*: one independent round, or one match (DESIGN.md invariant 1).
Units are grouped into shards of ``units_per_shard``; each shard is computed by the chosen
engine (the numba kernel by default, ``reference`` for the pure-Python engine) and written
atomically by writer threads while the next shard is computed, so memory stays bounded by a
few shards whatever the number of rounds.

A shard's rows depend only on the seed, the unit range and the rules/policies, never on thread
count or shard size, so ``--resume`` (which computes only the missing shards of the stored plan)
produces exactly the rows of an uninterrupted run.
"""

from __future__ import annotations

import queue
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import simcore
from simcore import dataset as ds
from simcore.games import Game, game_of
from simcore.policies import parse_policy
from simcore.rules import load_rules
from simcore.rules.bounds import MAX_MATCH_ROUNDS

__all__ = ["RunError", "RunConfig", "RunSummary", "run", "ENGINES"]

ENGINES = ("kernel", "reference")
DEFAULT_ROUNDS = 1_000_000
TARGET_ROWS_PER_SHARD = 1 << 18
WRITERS = 2


class RunError(ValueError):
    """A run cannot start or resume as asked (bad path, mismatched plan, ...)."""


@dataclass
class RunConfig:
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


@dataclass
class RunSummary:
    """Counts gathered while the shards stream past (the CLI prints them)."""

    out: Path
    end_reason_names: tuple[str, ...]
    yaku_names: list[str]
    policies: list[str]
    rounds: int = 0
    units: int = 0
    shards_written: int = 0
    shards_skipped: int = 0
    seconds: float = 0.0
    dealer_wins: int = 0
    draws: int = 0
    wins: np.ndarray = field(init=False)
    end_reasons: np.ndarray = field(init=False)
    yaku_counts: np.ndarray = field(init=False)  # [seat, bit]

    def __post_init__(self) -> None:
        self.wins = np.zeros(len(self.policies), dtype=np.int64)
        self.end_reasons = np.zeros(len(self.end_reason_names), dtype=np.int64)
        self.yaku_counts = np.zeros((len(self.policies), len(self.yaku_names)), dtype=np.int64)

    @property
    def seats(self) -> int:
        return len(self.policies)

    def add(self, columns: dict[str, np.ndarray]) -> None:
        winner = columns["winner"]
        self.rounds += len(winner)
        for seat in range(self.seats):
            self.wins[seat] += int(np.count_nonzero(winner == seat))
        self.draws += int(np.count_nonzero(winner < 0))
        self.dealer_wins += int(np.count_nonzero(winner == columns["dealer"]))
        n_reasons = len(self.end_reason_names)
        self.end_reasons += np.bincount(columns["end_reason"], minlength=n_reasons)[:n_reasons]
        for seat in range(self.seats):
            self.yaku_counts[seat] += bit_counts(columns[f"yaku_{seat}"], len(self.yaku_names))


_BYTE_BITS = (np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1  # [byte value, bit]


def bit_counts(masks: np.ndarray, n_bits: int) -> np.ndarray:
    """How many of ``masks`` (uint64) have each of bits ``0 .. n_bits - 1`` set.

    One histogram per byte of the masks instead of one pass per bit.
    """
    as_bytes = np.ascontiguousarray(masks, dtype=np.uint64).view(np.uint8).reshape(-1, 8)
    if sys.byteorder == "big":
        as_bytes = as_bytes[:, ::-1]
    counts = np.zeros(8 * -(-n_bits // 8), dtype=np.int64)
    for byte in range(len(counts) // 8):
        histogram = np.bincount(as_bytes[:, byte], minlength=256)
        counts[8 * byte: 8 * byte + 8] = histogram @ _BYTE_BITS
    return counts[:n_bits]


def _plan(config: RunConfig) -> tuple[dict[str, Any], Game, Any, list]:
    rules = load_rules(config.rules, config.options)
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
    units_per_shard = config.units_per_shard or max(1, TARGET_ROWS_PER_SHARD // stride)
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
        "rounds": units * stride if rounds_per_match is None or stride == rounds_per_match else None,
        "units_per_shard": units_per_shard,
        "shards": -(-units // units_per_shard),
        "yaku": game.yaku_table(rules),
        "end_reasons": list(game.end_reasons),
    }
    if rules.game == "enshu":
        plan["variant"] = rules.variant
        plan["teyaku"] = game.teyaku_table(rules)
    return plan, game, compiled, specs


# Fields of the plan that must agree for --resume (everything that changes rows or layout).
_RESUME_KEYS = ("engine_version", "game", "rules_sha256", "options", "seed", "policies", "units",
                "rounds_per_match", "units_per_shard")


def _default_out(config: RunConfig, plan: dict[str, Any]) -> Path:
    return Path("fudasim-out") / f"{plan['rules_name']}-seed{config.seed}"


def _is_fudasim_file(path: Path) -> bool:
    name = path.name
    return (name == ds.RUN_FILE or (name.startswith("part-") and name.endswith(".parquet"))
            or (name.startswith(".") and ".tmp-" in name))


def _prepare_out(config: RunConfig, plan: dict[str, Any], out: Path) -> dict[str, Any]:
    """Check the output directory against --resume/--overwrite; return the plan to follow."""
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out}: exists and is not a directory")
    entries = list(out.iterdir()) if out.is_dir() else []
    if config.resume:
        run_file = out / ds.RUN_FILE
        if not run_file.is_file():
            raise RunError(f"--resume: {out} holds no run to resume (no {ds.RUN_FILE})")
        stored = ds.read_run_info(out)
        for key in _RESUME_KEYS:
            if stored.get(key) != plan.get(key):
                raise RunError(f"--resume: {out} was started with a different {key} "
                               f"({stored.get(key)!r}, now {plan.get(key)!r})")
        for entry in entries:
            if entry.name.startswith(".") and ".tmp-" in entry.name:
                entry.unlink()  # an interrupted shard write; it is recomputed
        stored.setdefault("resumed_by", []).append(config.command)
        ds.write_json_atomic(run_file, stored)
        return stored
    if entries:
        if not config.overwrite:
            raise RunError(f"--out {out}: already exists and is not empty; use --resume to finish "
                           f"that run or --overwrite to replace it")
        foreign = [e.name for e in entries if not _is_fudasim_file(e)]
        if foreign:
            raise RunError(f"--overwrite: {out} holds files that are not part of a fudasim dataset "
                           f"(e.g. {foreign[0]}); refusing to delete them")
        for entry in entries:
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    out.mkdir(parents=True, exist_ok=True)
    plan = dict(plan, command=config.command, complete=False)
    ds.write_json_atomic(out / ds.RUN_FILE, plan)
    return plan


class _Progress:
    def __init__(self, total_units: int, rounds_per_unit: int, enabled: bool) -> None:
        self.total = total_units
        self.rounds_per_unit = rounds_per_unit
        self.enabled = enabled
        self.start = time.perf_counter()
        self.done = 0
        self.last = 0.0

    def update(self, units: int, final: bool = False) -> None:
        self.done += units
        now = time.perf_counter()
        if not self.enabled or (not final and now - self.last < 0.2):
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = self.done * self.rounds_per_unit / elapsed
        left = (self.total - self.done) * self.rounds_per_unit / rate if rate > 0 else 0.0
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        bar = "#" * filled + "-" * (width - filled)
        rounds = self.done * self.rounds_per_unit
        sys.stderr.write(f"\r[{bar}] {rounds:,} rounds  {rate:,.0f} rounds/s  {left:,.0f} s left ")
        if final:
            sys.stderr.write("\n")
        sys.stderr.flush()


def run(config: RunConfig) -> RunSummary:
    """Plan and execute a run; returns the summary.  Raises RulesError/RunError/PolicyError."""
    plan, game, compiled, specs = _plan(config)
    out = Path(config.out) if config.out else _default_out(config, plan)
    plan = _prepare_out(config, plan, out)
    units = int(plan["units"])
    per_shard = int(plan["units_per_shard"])
    rounds_per_match = plan["rounds_per_match"]
    existing = ds.existing_shards(out)
    todo = [k for k in range(int(plan["shards"])) if k not in existing]
    summary = RunSummary(out=out, end_reason_names=tuple(plan["end_reasons"]),
                         yaku_names=[f"{y['key']} {y['english']}" for y in plan["yaku"]],
                         policies=list(plan["policies"]))
    players = int(plan["players"])
    summary.shards_skipped = int(plan["shards"]) - len(todo)
    if config.threads is not None:
        import numba

        if not 1 <= config.threads <= numba.config.NUMBA_NUM_THREADS:
            raise RunError(f"--threads {config.threads}: must be 1..{numba.config.NUMBA_NUM_THREADS}")
        numba.set_num_threads(config.threads)
    shard_info = {k: v for k, v in plan.items() if k not in ("complete", "resumed_by")}
    shard_info["engine"] = config.engine
    rules_text = compiled.rules.text

    # A small pool of output buffers cycles between the engine and the writer: memory stays at
    # a few shards, and reused pages spare the cost of faulting in fresh memory for every shard.
    rows_per_shard = per_shard * int(plan["round_stride"])
    free_buffers: queue.Queue = queue.Queue()
    for _ in range(min(3, max(1, len(todo)))):
        free_buffers.put(game.output_buffers(rows_per_shard))
    work: queue.Queue = queue.Queue()
    errors: list[BaseException] = []

    summary_lock = threading.Lock()
    commits: queue.Queue = queue.Queue()

    def committer() -> None:
        # fsync and rename off the writers' path: a writer goes on to the next shard while the
        # last one reaches the disk (fsync waits on I/O, not on the CPU).
        while True:
            item = commits.get()
            if item is None:
                return
            try:
                ds.commit_shard(*item)
            except BaseException as error:  # surfaced in the main thread
                errors.append(error)
                return

    def writer() -> None:
        store = ds.ColumnStore()  # each writer reuses its own column arrays
        while True:
            item = work.get()
            if item is None:
                return
            shard_index, first_unit, n_units, buffers, ints, masks = item
            try:
                columns = game.columns(ints, masks, players, store)  # copies: the buffers go back
                free_buffers.put(buffers)
                info = dict(shard_info, shard=shard_index, first_unit=first_unit, n_units=n_units,
                            first_round=int(columns["round"][0]) if len(columns["round"]) else None,
                            last_round=int(columns["round"][-1]) if len(columns["round"]) else None)
                commits.put(ds.write_shard_file(out, shard_index, game.table(columns, info, rules_text, players)))
                with summary_lock:
                    summary.add(columns)
                    summary.shards_written += 1
            except BaseException as error:  # surfaced in the main thread
                errors.append(error)
                return

    rows_per_unit = int(plan["round_stride"])
    progress = _Progress(units, rows_per_unit if rounds_per_match is None else rounds_per_match,
                         config.progress)
    already_done = sum(min(per_shard, units - k * per_shard) for k in existing if k < int(plan["shards"]))
    progress.update(already_done)
    # Writers encode and compress shards while the engine computes the next ones: two of them,
    # since Parquet encoding releases the GIL, so that the engine never waits long for a free
    # buffer; a committer thread then fsyncs and renames each written shard.
    writers = [threading.Thread(target=writer, name=f"fudasim-writer-{k}", daemon=True)
               for k in range(min(WRITERS, max(1, len(todo))))]
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
    if errors:
        raise errors[0]
    progress.update(0, final=True)
    summary.seconds = time.perf_counter() - start
    summary.units = units
    plan["complete"] = True
    ds.write_json_atomic(out / ds.RUN_FILE, plan)
    return summary

