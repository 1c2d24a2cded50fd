"""Runs on Dask distributed: shards as tasks; the client alone writes the manifest.

``fudasim run ... --scheduler ADDRESS`` (``RunConfig.scheduler``) plans, locks and resumes a run
exactly as a local run does (``simcore.run.runner``), then hands its missing shards to a Dask
cluster: an existing one (``tcp://HOST:8786``) or a ``LocalCluster`` of single-threaded worker
processes that the run starts and closes (``local:N``).

The contract (docs/distributed.md):

- A task computes a few consecutive shards one after the other (``task_groups``: up to
  ``MAX_SHARDS_PER_TASK``, one each toward the end of the run so the workers finish together),
  under a key made of the run's identity (seed, rules, options, policies, engine version, unit
  layout, output folder) and its shards: resubmitting it never starts a second, different
  computation.  Workers import this module and the engines by reference; no jitted function is
  ever pickled.
- For each of its shards a task computes the shard, writes it under a temporary name unique to
  the attempt, fsyncs it and renames it to its final name ``part-<k>.parquet``.  A shard's bytes
  depend only on the run and the shard index, so a retried or duplicated task renames identical
  bytes onto the same name: exactly one shard, whichever attempt wins.  In an object store
  (``s3://...``) there is no rename: the task uploads the shard under its final name in one PUT,
  unless an attempt's identical object is already there (one with other bytes is never
  replaced).  The task returns only each shard's manifest entry (rows, bytes, sha256, unit and
  round range) and the counts the run summary needs.
- The client lists each entry in ``_run.json`` as its task finishes, draws the progress bar,
  removes temporary files of attempts that died, and marks the run complete.  A client killed
  mid-run leaves complete shards, listed or not; ``--resume`` adopts or recomputes them.
- Each worker process gets a node-local numba cache (``NUMBA_CACHE_DIR``, under ``$TMPDIR``
  unless the worker's environment sets it) before it imports a kernel, and compiles or loads
  the run's kernels before the run's clock starts (one worker per host first, so a fresh node
  compiles once and its other workers load the cache).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import os
import re
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dask
import numpy as np
from distributed import Client, KilledWorker, LocalCluster, WorkerPlugin, as_completed

import simcore
from simcore import dataset as ds
from simcore import storage
from simcore.errors import FudasimError, RunError
from simcore.games import Game, get_game
from simcore.record import ColumnStore
from simcore.rules import load_rules_text
from simcore.run.shards import RunSummary, new_summary, shard_metadata

__all__ = ["MAX_SHARDS_PER_TASK", "Connection", "DistributedStats", "NumbaCachePlugin",
           "RunContext", "ShardResult", "compute_shard", "compute_shards", "connect", "execute",
           "iter_task_groups", "load_context", "node_local_cache_dir", "prepare_worker",
           "run_context", "run_id", "session", "task_groups", "use_node_local_cache",
           "warm_workers"]

LOCAL_SCHEDULER = re.compile(r"local(?::(\d+))?")
PLUGIN_NAME = "fudasim-numba-cache"
QUIET_PLUGIN_NAME = "fudasim-quiet-local-worker"
# Dask settings of the clusters ``local:N`` starts (docs/distributed.md).  Dask's statistical
# profiler samples every worker thread's stack each 10 ms and its event loops tick every 20 ms
# for their latency figures: diagnostics for the dashboard that, on a machine with no core to
# spare, take about 4% of the cores from the tasks.
LOCAL_CLUSTER_CONFIG: dict[str, Any] = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}

# A task computes up to this many consecutive shards: Dask's own cost per task (about 1-3 ms on a
# worker, plus the scheduler's and the client's work) is then shared by several shards.  Fewer
# toward the end of a run (``task_groups``), so that no worker is left computing a long task
# while the others are idle; a killed worker's task loses at most this many shards of work.
MAX_SHARDS_PER_TASK = 8
TASKS_PER_THREAD = 4  # a task takes at most 1/(4 T) of the shards left, T the cluster's threads
# Tasks submitted and not yet finished, per task thread of the cluster: enough that no worker
# waits for the client, few enough that the client's and the scheduler's memory stay small
# whatever the number of shards (more are submitted as these finish).
TASKS_IN_FLIGHT_PER_THREAD = 16


# --- worker set-up -------------------------------------------------------------------------------


def node_local_cache_dir() -> str:
    """The numba cache folder a worker uses when its environment names none: under ``$TMPDIR``
    (``tempfile.gettempdir()``), one per user, so never a folder shared over the network."""
    return os.path.join(tempfile.gettempdir(), f"fudasim-numba-{os.getuid()}")


def use_node_local_cache() -> str:
    """Point numba's cache at a node-local folder unless ``NUMBA_CACHE_DIR`` is already set.

    Must run before the kernels are imported (numba fixes a function's cache folder when the
    function is defined).  Returns the folder in use.
    """
    if not os.environ.get("NUMBA_CACHE_DIR"):
        os.environ["NUMBA_CACHE_DIR"] = node_local_cache_dir()
        if "numba" in sys.modules:
            from numba.core import config

            config.reload_config()
    return os.environ["NUMBA_CACHE_DIR"]


class NumbaCachePlugin(WorkerPlugin):
    """A worker plugin that gives each worker process a node-local numba cache at start-up.

    Registered by every ``--scheduler`` run, so workers started later (or restarted by their
    nanny after a crash) get it too.
    """

    def setup(self, worker: Any) -> None:
        """Set ``NUMBA_CACHE_DIR`` (see ``use_node_local_cache``) in the worker's process."""
        use_node_local_cache()


class QuietWorkerPlugin(WorkerPlugin):
    """Keep a ``local:N`` worker's Dask logs off the terminal the run prints to.

    A local worker writes to the run's own stderr, and one whose heartbeat meets the closing
    scheduler logs an ERROR with a traceback as the cluster shuts down.  Whatever goes wrong in
    a run reaches the client (a task's exception, ``KilledWorker``) and is reported from there.
    """

    def setup(self, worker: Any) -> None:
        """Raise the worker process's ``distributed`` logger to CRITICAL."""
        logging.getLogger("distributed").setLevel(logging.CRITICAL)


def dask_setup(worker: Any) -> None:
    """``dask worker --preload simcore.run.distributed``: the node-local numba cache from the start."""
    use_node_local_cache()


@dataclass
class Connection:
    """A Dask client, and the ``LocalCluster`` behind it when the run started one."""

    client: Any
    cluster: Any | None = None
    address: str = ""

    def close(self) -> None:
        """Close the client, then the cluster if this run started it (its workers end)."""
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def connect(address: str, timeout: float | None = None) -> Connection:
    """Connect to the scheduler at ``address``, or start a ``LocalCluster`` for ``local:N``.

    Parameters
    ----------
    address : str
        ``tcp://HOST:PORT`` (any address ``distributed.Client`` takes), or ``local:N``: N
        single-threaded worker processes on this machine (``local``: one per core).
    timeout : float, optional
        Seconds to wait for the scheduler (default: Dask's ``distributed.comm.timeouts.connect``).

    Raises
    ------
    RunError
        A malformed address, or no scheduler answering there (one line).
    """
    address = address.strip()
    local = LOCAL_SCHEDULER.fullmatch(address)
    if local is not None:
        workers = int(local.group(1)) if local.group(1) else (os.cpu_count() or 1)
        if workers < 1:
            raise RunError(f"--scheduler {address}: local:N needs at least one worker")
        try:
            with _workers_ignore_ctrl_c(), dask.config.set(LOCAL_CLUSTER_CONFIG):
                # CRITICAL: see QuietWorkerPlugin.
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL)
        except (OSError, RuntimeError, TimeoutError) as error:
            raise RunError(f"--scheduler {address}: the local cluster did not start ({_one_line(error)}); "
                           f"a Python script that starts one must guard its entry point with "
                           f"if __name__ == '__main__'") from None
        try:
            client = Client(cluster, set_as_default=False)
        except BaseException:
            cluster.close()
            raise
        connection = Connection(client, cluster, cluster.scheduler_address)
    else:
        if not address or any(c.isspace() for c in address) or address.startswith("local"):
            raise RunError(f"--scheduler {address!r}: expected a scheduler address (tcp://HOST:8786) "
                           f"or local:N")
        _check_address(address)
        try:
            client = Client(address, timeout=timeout if timeout is not None else _connect_timeout(),
                            set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise RunError(f"--scheduler {address}: cannot reach a Dask scheduler there "
                           f"({_one_line(error) or type(error).__name__})") from None
        connection = Connection(client, None, address)
    try:
        connection.client.register_plugin(NumbaCachePlugin(), name=PLUGIN_NAME)
        if connection.cluster is not None:
            connection.client.register_plugin(QuietWorkerPlugin(), name=QUIET_PLUGIN_NAME)
        _wait_for_a_worker(connection.client)  # before the run touches its folder
    except BaseException:
        connection.close()
        raise
    return connection


def _check_address(address: str) -> None:
    """Refuse an address Dask cannot parse before a ``Client`` is made of it: a ``Client`` that
    fails on its address is left half-built, and when it is collected (at exit) it waits twice the
    connect timeout and prints a traceback."""
    from distributed.comm import get_address_host_port

    try:
        _, port = get_address_host_port(address)
    except ValueError as error:
        raise RunError(f"--scheduler {address}: not a Dask scheduler address ({_one_line(error)}); "
                       f"expected tcp://HOST:8786 or local:N") from None
    if not 0 < port < 65536:
        raise RunError(f"--scheduler {address}: port {port} is outside 1..65535")


def _wait_for_a_worker(client: Any) -> None:
    """Return once the cluster has a worker (a scheduler just started may have none yet), or
    raise ``RunError`` after Dask's connect timeout."""
    try:
        client.wait_for_workers(1, timeout=_connect_timeout())
    except TimeoutError:
        address = client.scheduler.address
        raise RunError(f"--scheduler {address}: the cluster has no workers (start some with "
                       f"dask worker {address})") from None


@contextlib.contextmanager
def session(address: str) -> Iterator[str]:
    """Keep one cluster up across several runs (a tournament's pairings, a sweep of options).

    ``local:N`` starts its LocalCluster once and yields the cluster's ``tcp://`` address, which
    each run (``RunConfig.scheduler``) then connects to instead of starting a cluster of its
    own; the cluster closes when the block ends.  Any other address is checked (a scheduler with
    a worker must answer) and yielded as it is.

    Raises
    ------
    RunError
        As ``connect``.
    """
    connection = connect(address)
    try:
        if connection.cluster is None:
            connection.client.close()
        yield connection.address
    finally:
        connection.close()


@contextlib.contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """Start worker processes with SIGINT ignored (they inherit it): Ctrl-C in a terminal reaches
    the whole process group, and the client alone should handle it (it closes the cluster)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _connect_timeout() -> Any:
    import dask

    return dask.config.get("distributed.comm.timeouts.connect")


# --- what a task gets and returns ----------------------------------------------------------------


@dataclass(frozen=True)
class RunContext:
    """Everything a worker needs to compute any shard of one run (sent once per worker).

    ``info`` is the ``fudasim.run`` metadata every shard of the run carries, before its
    per-shard keys; ``threads`` the kernel threads per task.
    """

    run_id: str
    out: str
    game: str
    rules_name: str
    rules_source: str
    rules_text: str
    rules_sha256: str
    overrides: dict[str, str]
    specs: tuple[Any, ...]
    seed: int
    engine: str
    rounds_per_match: int | None
    players: int
    rows_per_shard: int
    info: dict[str, Any]
    end_reason_names: tuple[str, ...]
    yaku_names: tuple[str, ...]
    policies: tuple[str, ...]
    threads: int | None
    versions: tuple[str, str] = (simcore.__version__, simcore.ENGINE_VERSION)
    summary: Any = None  # a summary run's ``simcore.run.summary_shard.SummarySpec`` (None: rows)


@dataclass
class ShardResult:
    """What a shard's task returns: its manifest entry, and the counts of the run summary.

    ``summary`` is a ``simcore.run.shards.RunSummary`` of the shard's rows; ``seconds`` the time the
    task spent computing and writing (wall clock), ``cpu_seconds`` the CPU time its thread got
    meanwhile, ``worker`` where it ran.
    """

    shard: int
    n_units: int
    entry: dict[str, Any]
    summary: Any
    seconds: float
    worker: str = ""
    cpu_seconds: float = 0.0  # of the task's thread: below ``seconds`` when the cores are shared


def run_id(plan: dict[str, Any], engine: str, out: storage.Location) -> str:
    """The run's identity as a short hex digest: what makes its shards' bytes, and where they go.

    Two runs share it only when they would write the same shards to the same folder, so a task
    key built from it and a shard index names one computation and one file.
    """
    keys = ("engine_version", "game", "rules_sha256", "options", "seed", "policies", "units", "unit_kind",
            "rounds_per_match", "units_per_shard", "command", "summary", "paired_with")
    identity = {key: plan.get(key) for key in keys}
    identity.update(engine=engine, out=str(storage.location(out).resolve()))
    text = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def run_context(config: Any, plan: dict[str, Any], game: Game, compiled: Any, specs: list,
                out: storage.Location) -> RunContext:
    """The ``RunContext`` of a planned run (``simcore.run.runner``): its rules, policies and layout,
    and the metadata its shards carry, exactly as a local run writes them."""

    summary = new_summary(plan, out)
    rules = compiled.rules
    return RunContext(
        run_id=run_id(plan, config.engine, out), out=str(storage.location(out).resolve()), game=game.name,
        rules_name=rules.name, rules_source=rules.source, rules_text=rules.text, rules_sha256=rules.sha256,
        overrides=dict(config.options), specs=tuple(specs), seed=int(plan["seed"]), engine=config.engine,
        rounds_per_match=plan["rounds_per_match"], players=int(plan["players"]),
        rows_per_shard=int(plan["units_per_shard"]) * int(plan["round_stride"]),
        info=shard_metadata(plan, config.engine), end_reason_names=summary.end_reason_names,
        yaku_names=tuple(summary.yaku_names), policies=tuple(summary.policies), threads=config.threads,
        summary=_summary_spec(plan, game, compiled))


def _summary_spec(plan: dict[str, Any], game: Game, compiled: Any) -> Any:
    """A summary run's ``SummarySpec`` (its baseline's rules included), or None for a run of rows."""
    if not plan.get("summary"):
        return None
    from simcore.run import summary_shard as ss

    paired = plan.get("paired_with")
    baseline = ss.load_baseline(str(paired["path"]), plan) if paired else None
    return ss.summary_spec(plan, game, compiled, baseline)


# --- on the workers ------------------------------------------------------------------------------

_compiled_lock = threading.Lock()
_compiled_runs: dict[str, tuple[Game, Any]] = {}  # run_id -> (game, compiled rules); a few runs
_launch_lock = threading.Lock()
_thread_state = threading.local()


def _compiled(context: RunContext) -> tuple[Game, Any]:
    """The run's game and compiled rules, built once per worker process."""
    with _compiled_lock:
        found = _compiled_runs.get(context.run_id)
        if found is None:
            rules = load_rules_text(context.rules_text, context.rules_name, context.rules_source,
                                    dict(context.overrides))
            if rules.sha256 != context.rules_sha256:
                raise RunError(f"{context.rules_source}: the rules a worker loaded differ from the client's")
            game = get_game(context.game)
            found = (game, game.compile(rules))
            while len(_compiled_runs) >= 4:
                _compiled_runs.pop(next(iter(_compiled_runs)))
            _compiled_runs[context.run_id] = found
        return found


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except ValueError:  # not on a worker (a test calling the task directly)
        return ""


def _threading_layer() -> str | None:
    import numba

    try:
        return str(numba.threading_layer())
    except ValueError:  # no parallel kernel has run yet in this process
        return None


def _task_threads(context: RunContext) -> int:
    """A task's kernel threads: the run's ``--threads`` (one by default), at most numba's."""
    import numba

    return max(1, min(context.threads or 1, numba.config.NUMBA_NUM_THREADS))


def _play(game: Game, compiled: Any, context: RunContext, first_unit: int, n_units: int,
          buffers: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The engine's output matrices of ``n_units`` units, on this thread's kernel threads."""
    def play() -> tuple[np.ndarray, np.ndarray]:
        return game.play_units(context.engine, compiled, list(context.specs), context.seed, first_unit,
                               n_units, context.rounds_per_match, out=buffers)

    if context.engine != "kernel":
        return play()
    import numba

    # Thread-local in numba: each task thread sets its own.  One by default: Dask runs one task
    # per worker thread, and the worker threads already cover the cores.
    numba.set_num_threads(_task_threads(context))
    if _threading_layer() in (None, "workqueue"):
        # numba's workqueue layer cannot launch parallel kernels from two threads at once
        # (a worker with several threads); the first launch decides the layer.
        with _launch_lock:
            return play()
    return play()


def _buffers(game: Game, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """This thread's reusable output buffers for shards of ``rows`` rows."""
    key = (game.name, rows)
    if getattr(_thread_state, "buffers_key", None) != key:
        _thread_state.buffers = game.output_buffers(rows)
        _thread_state.buffers_key = key
        _thread_state.store = ColumnStore()
    return _thread_state.buffers


def compute_shard(context: RunContext, shard: int, first_unit: int, n_units: int) -> ShardResult:
    """A task: compute shard ``shard`` of the run, commit it, return its entry and counts.

    The shard is written under a temporary name unique to this attempt, fsynced and renamed to
    ``part-<shard>.parquet`` (``simcore.dataset``); its bytes depend only on the run and the
    shard, so another attempt of the same task renames identical bytes onto the same name.  In an
    object store it is uploaded under that name in one PUT, unless another attempt's identical
    object is already there.

    Raises
    ------
    DatasetError
        The shard cannot be written (the folder is not shared with this worker, a full disk...).
    """

    began, began_cpu = time.perf_counter(), time.thread_time()
    game, compiled = _compiled(context)
    if context.summary is not None:
        return _summary_shard(context, game, compiled, shard, first_unit, n_units, began, began_cpu)
    buffers = _buffers(game, context.rows_per_shard)
    ints, masks = _play(game, compiled, context, first_unit, n_units, buffers)
    columns = game.columns(ints, masks, context.players, _thread_state.store)
    rows = len(columns["round"])
    info = dict(context.info, shard=shard, first_unit=first_unit, n_units=n_units,
                first_round=int(columns["round"][0]) if rows else None,
                last_round=int(columns["round"][-1]) if rows else None)
    table = game.table(columns, info, compiled.rules.text, context.players)
    out = storage.location(context.out)
    temporary, final = ds.write_shard_file(out, shard, table, attempt=uuid.uuid4().hex[:12])
    _, size, sha256 = ds.commit_shard_with_digest(temporary, final)
    summary = RunSummary(out=out, end_reason_names=context.end_reason_names,
                         yaku_names=list(context.yaku_names), policies=list(context.policies))
    summary.add(columns)
    return ShardResult(shard, n_units, ds.shard_entry(shard, info, rows, size, sha256), summary,
                       time.perf_counter() - began, _worker_address(), time.thread_time() - began_cpu)


def _summary_aggregate(context: RunContext, game: Game, compiled: Any, first_unit: int, n_units: int) -> Any:
    """A summary run's counts of ``n_units`` units from ``first_unit`` (a ``ShardAggregate``)."""
    import dataclasses

    from simcore.run import summary_run, summary_shard

    spec = context.summary
    rows = spec.block_units * int(context.info.get("round_stride") or 1)
    # The task's kernel threads (``--threads``, one by default) count chunks side by side, each
    # playing with one kernel thread (simcore.run.summary_shard.ShardCounter).
    threads = _task_threads(context) if context.engine == "kernel" else 1

    def engine(game: Game, compiled: Any, context: RunContext) -> Any:
        buffers = game.output_buffers(rows)
        if threads == 1:
            return lambda unit, count: _play(game, compiled, context, unit, count, buffers)
        return summary_run.players_engine(game, compiled, list(context.specs), context.engine, context.seed,
                                          context.rounds_per_match, buffers)

    new_baseline_play = None
    if spec.baseline is not None:
        baseline = spec.baseline
        base_game, base_compiled, base_specs = summary_shard.baseline_engine(baseline, context.engine)
        base_context = dataclasses.replace(context, specs=tuple(base_specs), seed=baseline.seed)

        def new_baseline_play() -> Any:
            return summary_shard.baseline_units_only(engine(base_game, base_compiled, base_context), baseline)

    return summary_shard.compute_summary_shard(game, compiled, spec, context.players, first_unit, n_units,
                                               lambda: engine(game, compiled, context), new_baseline_play, threads)


def _summary_shard(context: RunContext, game: Game, compiled: Any, shard: int, first_unit: int, n_units: int,
                   began: float, began_cpu: float) -> ShardResult:
    """``compute_shard`` for a summary run: the shard's counts, written and committed."""
    from simcore.run import summary_run

    aggregate = _summary_aggregate(context, game, compiled, first_unit, n_units)
    entry, cells = summary_run.shard_file(Path(context.out), shard, first_unit, n_units, aggregate, context.summary,
                                          context.info, compiled.rules.text, attempt=uuid.uuid4().hex[:12])
    summary = RunSummary(out=Path(context.out), end_reason_names=context.end_reason_names,
                         yaku_names=list(context.yaku_names), policies=list(context.policies))
    summary_run.count_cells(summary, summary_run.as_cells(cells))
    return ShardResult(shard, n_units, entry, summary, time.perf_counter() - began, _worker_address(),
                       time.thread_time() - began_cpu)


def compute_shards(context: RunContext, shards: tuple[tuple[int, int, int], ...]) -> list[ShardResult]:
    """A task: ``compute_shard`` for each ``(shard, first_unit, n_units)`` of ``shards``, in turn.

    Each shard is committed as soon as it is computed, so a task cut short (its worker killed)
    leaves its first shards complete; another attempt writes the same bytes again.

    Raises
    ------
    FudasimError
        As ``compute_shard``; any other error of a shard is raised as a ``RunError`` naming it.
    """
    results = []
    for shard, first_unit, n_units in shards:
        try:
            results.append(compute_shard(context, shard, first_unit, n_units))
        except FudasimError:
            raise
        except Exception as error:
            raise RunError(f"shard {shard} failed on a worker: {type(error).__name__}: {_one_line(error)}") from None
    return results


def task_groups(todo: list[int], threads: int) -> list[list[int]]:
    """The shards ``todo`` cut into tasks, in order: guided self-scheduling.

    Each task takes ``1 / (TASKS_PER_THREAD * threads)`` of the shards still left, at least one
    and at most ``MAX_SHARDS_PER_TASK``: long tasks first, while there is work for everyone, and
    single shards at the end, so the ``threads`` task threads of the cluster finish together.
    """
    return list(iter_task_groups(iter(todo), len(todo), threads))


def iter_task_groups(todo: Iterator[int], count: int, threads: int) -> Iterator[list[int]]:
    """``task_groups`` of the ``count`` shards ``todo`` yields, one task at a time (a run may plan
    more shards than memory could list)."""
    left = count
    while left > 0:
        size = max(1, min(MAX_SHARDS_PER_TASK, -(-left // (TASKS_PER_THREAD * max(1, threads)))))
        group = list(itertools.islice(todo, size))
        if not group:
            return
        yield group
        left -= len(group)


def load_context(context: RunContext) -> RunContext:
    """A task: the run's context, checked on a worker (the rules load); every shard depends on it."""
    _compiled(context)
    return context


def prepare_worker(context: RunContext, dask_worker: Any = None) -> dict[str, Any]:
    """Run on every worker before the run's clock starts: check, compile or load, warm up.

    Checks that the worker runs the client's fudasim and engine version and sees the output
    folder; loads the rules; plays one unit on the kernel (and counts it, in a summary run) so
    that the kernels are compiled (or loaded from the node-local cache) now rather than inside
    the first task.

    Raises
    ------
    RunError
        The worker runs another fudasim or engine version, or cannot see the output folder.
    """
    address = getattr(dask_worker, "address", "") or "this worker"
    if context.versions != (simcore.__version__, simcore.ENGINE_VERSION):
        raise RunError(f"worker {address} runs fudasim {simcore.__version__} (engine version "
                       f"{simcore.ENGINE_VERSION}), the client {context.versions[0]} (engine version "
                       f"{context.versions[1]}): install the same fudasim everywhere")
    out = storage.location(context.out)
    if isinstance(out, storage.StorePath):
        if not (out / ds.RUN_FILE).is_file():
            raise RunError(f"--out {out}: worker {address} does not see the run's {ds.RUN_FILE} there; give every "
                           f"worker the same endpoint and credentials (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID...)")
    elif not (out / ds.RUN_FILE).is_file():
        raise RunError(f"--out {context.out}: worker {address} does not see the run's folder; the output "
                       f"folder must be on a file system every worker can write")
    began = time.perf_counter()
    game, compiled = _compiled(context)
    if context.engine == "kernel":
        if context.summary is not None:
            _summary_aggregate(context, game, compiled, 0, 1)  # the engine and the counting kernels
        else:
            stride = game.stride(compiled, context.rounds_per_match)
            buffers = game.output_buffers(stride)
            _play(game, compiled, context, 0, 1, buffers)
    return {"worker": address, "seconds": time.perf_counter() - began,
            "numba_cache": os.environ.get("NUMBA_CACHE_DIR", "")}


# --- on the client -------------------------------------------------------------------------------


def _raise_from_worker(what: str, error: BaseException) -> None:
    """Raise a worker's exception as one line: a FudasimError as itself, anything else as RunError."""
    if isinstance(error, FudasimError):
        raise type(error)(_one_line(error)) from None
    if isinstance(error, KilledWorker):
        raise RunError(f"{what}: the workers running it died repeatedly (Dask's allowed-failures); the "
                       f"shards committed so far are kept, finish with --resume") from None
    raise RunError(f"{what} failed on a worker: {type(error).__name__}: {_one_line(error)}") from None


def _workers_by_host(client: Any) -> list[list[str]]:
    """The workers' addresses, grouped by host (one list per host)."""
    hosts: dict[str, list[str]] = {}
    for address, worker in sorted(client.scheduler_info(n_workers=-1)["workers"].items()):
        hosts.setdefault(str(worker.get("host", address)), []).append(address)
    return list(hosts.values())


def _cluster_threads(client: Any) -> int:
    """The task threads of the cluster's workers, all together."""
    workers = client.scheduler_info(n_workers=-1)["workers"].values()
    return max(1, sum(int(worker.get("nthreads", 1)) for worker in workers))


def _shards_label(group: list[int]) -> str:
    if len(group) == 1:
        return f"shard {group[0]}"
    if group == list(range(group[0], group[-1] + 1)):
        return f"shards {group[0]}-{group[-1]}"
    return "shards " + ", ".join(map(str, group))


def warm_workers(client: Any, context: RunContext) -> list[dict[str, Any]]:
    """``prepare_worker`` on one worker per host, then on the others (which load that host's
    freshly written numba cache instead of compiling side by side)."""
    hosts = _workers_by_host(client)
    if not hosts:
        _wait_for_a_worker(client)
        hosts = _workers_by_host(client)
    reports: list[dict[str, Any]] = []
    for batch in ([group[0] for group in hosts], [a for group in hosts for a in group[1:]]):
        if batch:
            try:
                reports.extend(client.run(prepare_worker, context, workers=batch).values())
            except Exception as error:
                _raise_from_worker("preparing the workers", error)
    return reports


@dataclass
class DistributedStats:
    """What a distributed run measured: warm-up time, the tasks, and each shard's wall and CPU time."""

    warmup_seconds: float = 0.0
    workers: int = 0
    tasks: int = 0  # each of one or more shards (``task_groups``)
    task_seconds: list[float] = field(default_factory=list)
    task_cpu_seconds: list[float] = field(default_factory=list)


def execute(connection: Connection, context: RunContext, plan: dict[str, Any], out: storage.Location,
            todo: Iterable[int], commit: Callable[[int, dict[str, Any]], None],
            add: Callable[[ShardResult], None], started: Callable[[], None],
            stats: DistributedStats | None = None, count: int | None = None) -> None:
    """Compute the shards ``todo`` of a planned, locked run as tasks; the client's side.

    ``todo`` may be a generator of ``count`` shards: tasks are made and submitted as others
    finish, at most ``TASKS_IN_FLIGHT_PER_THREAD`` per task thread of the cluster at a time, so
    the client's memory does not grow with the run's length.  ``commit(index, entry)`` lists a
    finished shard in the manifest; ``add(result)`` counts it into the summary and the progress
    bar; ``started()`` is called once the workers are warm (the run's clock starts there).  On an
    error or an interrupt the remaining tasks are cancelled and the error is raised as one line.
    """
    client = connection.client
    began = time.perf_counter()
    reports = warm_workers(client, context)
    # The run's context as a task every shard depends on (so a lost copy is recomputed), on a
    # worker before the clock starts, like the warm-up.
    context_future = client.submit(load_context, context, key=f"fudasim-context-{context.run_id}", pure=False)
    pending = None
    try:
        try:
            context_future.result()
        except Exception as error:
            _raise_from_worker("loading the run's rules", error)
        if stats is not None:
            stats.warmup_seconds = time.perf_counter() - began
            stats.workers = len(reports)
        started()
        units = int(plan["units"])
        per_shard = int(plan["units_per_shard"])
        if count is None:
            todo = list(todo)
            count = len(todo)
        threads = _cluster_threads(client)
        groups = iter_task_groups(iter(todo), count, threads)
        window = TASKS_IN_FLIGHT_PER_THREAD * threads
        labels: dict[Any, str] = {}
        pending = as_completed([], loop=client.loop)  # not the default client's loop

        def submit(tasks: int) -> None:
            batch = list(itertools.islice(groups, tasks))
            if not batch:
                return
            shards = [tuple((shard, shard * per_shard, min(per_shard, units - shard * per_shard))
                            for shard in group) for group in batch]
            keys = [(f"fudasim-shards-{context.run_id}", group[0], len(group)) for group in batch]
            labels.update({key: _shards_label(group)
                           for key, group in zip(keys, batch, strict=True)})
            # One message for a batch of tasks (a submit each would be an update of the scheduler's
            # graph each).  as_completed holds the futures; a finished one is dropped below.
            assert pending is not None
            pending.update(client.map(compute_shards, [context_future] * len(shards), shards,
                                      key=keys, pure=False, retries=0))

        submit(window)
        for future in pending:
            try:
                results = future.result()
            except Exception as error:
                _raise_from_worker(labels[future.key], error)
            labels.pop(future.key, None)
            future.release()
            for result in results:
                commit(result.shard, result.entry)
                add(result)
                if stats is not None:
                    stats.task_seconds.append(result.seconds)
                    stats.task_cpu_seconds.append(result.cpu_seconds)
            if stats is not None:
                stats.tasks += 1
            if pending.count() <= window // 2:
                submit(window - pending.count())
    finally:
        left = [f for f in pending.futures] if pending is not None else []
        if left:
            client.cancel(left)
        context_future.release()
