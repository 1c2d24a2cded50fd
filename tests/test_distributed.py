"""Runs on Dask distributed (guarantee 9 of docs/guarantees.md): a two-worker LocalCluster writes
the rows of a local run, also after a worker or the client is killed mid-run, and a retried or
duplicated task leaves exactly one shard."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import dask
import pandas as pd
import psutil
import pytest
from click.testing import CliRunner
from distributed import Client, LocalCluster

import fudasim
from cli.main import main
from simcore.dataset import file_digest, read_dataset, read_manifest, verify_dataset
from simcore.run import distributed
from simcore.run.runner import RunConfig, plan_run

ROOT = Path(__file__).resolve().parents[1]


def _alive(pids: list[int]) -> list[int]:
    """Those of ``pids`` still running, but for multiprocessing's resource tracker (one per
    parent process, shared by every process pool it starts, and ended with it)."""
    alive = []
    for pid in pids:
        try:
            process = psutil.Process(pid)
            if process.status() != psutil.STATUS_ZOMBIE and "resource_tracker" not in " ".join(process.cmdline()):
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


@pytest.fixture(scope="module")
def cluster():
    """Two single-threaded worker processes; every process it started is gone afterwards."""
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                      silence_logs=logging.ERROR) as local_cluster, Client(local_cluster) as client:
        yield local_cluster, client
    started = [child.pid for child in psutil.Process().children(recursive=True) if child.pid not in before]
    deadline = time.monotonic() + 30
    while _alive(started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(started), [psutil.Process(p).cmdline() for p in _alive(started)]


def _shards(out: Path) -> dict[str, str]:
    """Each shard file's sha256, by name, as the manifest lists it."""
    return {entry["file"]: entry["sha256"] for entry in read_manifest(out)["shard_files"]}


def _no_temporaries(out: Path) -> bool:
    return not [p for p in out.iterdir() if ".tmp-" in p.name]


@pytest.mark.parametrize(("rules", "size"), [
    ("tensho-ise", dict(rounds=20_000, shard_rounds=3_000, policies={1: "greedy"})),
    ("tensho-ise", dict(matches=300, rounds_per_match=6, shard_rounds=70,
                        options={"tensho.match_tie": "extra_round"})),
    ("enshu-c", dict(rounds=6_000, shard_rounds=1_000, players=4, policies={2: "greedy"})),
    ("tensho-hanafuda", dict(rounds=600, shard_rounds=250, engine="reference", policies={0: "greedy"})),
])
@pytest.mark.slow
def test_a_cluster_writes_the_shards_of_a_local_run_byte_for_byte(tmp_path, cluster, rules, size):
    local = fudasim.run(rules, seed=11, out=tmp_path / "local", threads=1, **size)
    remote = fudasim.run(rules, seed=11, out=tmp_path / "remote", scheduler=cluster[0].scheduler_address, **size)
    # the same API call gives the same metadata, so the shards are the same bytes
    assert _shards(tmp_path / "remote") == _shards(tmp_path / "local")
    assert len(_shards(tmp_path / "local")) == -(-int(size.get("rounds") or size["matches"]) // size["shard_rounds"])
    pd.testing.assert_frame_equal(read_dataset(tmp_path / "remote"), read_dataset(tmp_path / "local"))
    assert verify_dataset(tmp_path / "remote", deep=True) == []
    assert _no_temporaries(tmp_path / "remote")
    # the summary counts the same rounds, wins and yaku
    for name in ("rounds", "draws", "dealer_wins", "dealer_rounds"):
        assert getattr(remote.summary, name) == getattr(local.summary, name)
    assert (remote.summary.wins == local.summary.wins).all()
    assert (remote.summary.yaku_counts == local.summary.yaku_counts).all()
    assert remote.summary.task_seconds > 0 and remote.summary.shards_written == len(_shards(tmp_path / "local"))


@pytest.mark.slow
def test_the_workers_use_a_node_local_numba_cache(cluster, tmp_path):
    # in a fresh process (numba reads its cache folder once): $TMPDIR, unless NUMBA_CACHE_DIR is set
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(TMPDIR=str(tmp_path), PYTHONPATH=str(ROOT))
    code = ("import numba; from simcore.run.distributed import use_node_local_cache; "
            "print(use_node_local_cache()); print(numba.config.CACHE_DIR)")
    folders = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                             check=True).stdout.split()
    assert folders[0] == folders[1] and folders[0].startswith(str(tmp_path))
    # the plugin every run registers keeps a folder the worker's environment names
    _, client = cluster
    client.register_plugin(distributed.NumbaCachePlugin(), name=distributed.PLUGIN_NAME)
    expected = os.environ.get("NUMBA_CACHE_DIR") or distributed.node_local_cache_dir()
    assert set(client.run(lambda: os.environ.get("NUMBA_CACHE_DIR")).values()) == {expected}


@pytest.mark.slow
def test_a_worker_killed_mid_run_changes_no_row_and_leaves_one_shard_each(tmp_path, cluster):
    local_cluster, client = cluster
    size = dict(rounds=800_000, shard_rounds=4_000, seed=5)
    shards = 200
    local = fudasim.run(out=tmp_path / "local", **size)
    out = tmp_path / "remote"
    victim = sorted(client.run(os.getpid).values())[0]
    finished: list = []
    thread = threading.Thread(target=lambda: finished.append(
        fudasim.run(out=out, scheduler=local_cluster.scheduler_address, **size)))
    thread.start()
    deadline = time.monotonic() + 300
    while len(list(out.glob("part-*.parquet"))) < 20 and time.monotonic() < deadline and thread.is_alive():
        time.sleep(0.01)
    os.kill(victim, signal.SIGKILL)
    landed = len(list(out.glob("part-*.parquet")))
    thread.join(timeout=600)
    assert finished, "the run did not finish after a worker was killed"
    assert 20 <= landed < shards, "the worker was not killed part-way through the run"
    assert sorted(p.name for p in out.glob("part-*.parquet")) == [f"part-{k:06d}.parquet" for k in range(shards)]
    assert _no_temporaries(out)
    assert _shards(out) == _shards(tmp_path / "local")
    pd.testing.assert_frame_equal(read_dataset(out), read_dataset(tmp_path / "local"))
    assert verify_dataset(out) == []
    assert finished[0].rounds == local.rounds == 800_000
    client.wait_for_workers(2, timeout=120)  # the nanny restarted the killed worker
    assert victim not in client.run(os.getpid).values()


@pytest.mark.slow
def test_a_killed_client_is_finished_by_resume_with_the_rows_of_a_local_run(tmp_path, cluster):
    address = cluster[0].scheduler_address
    command = [sys.executable, "-m", "cli.main", "run", "tensho-ise", "--rounds", "1000000", "--seed", "8",
               "--shard-rounds", "10000", "--no-progress", "--scheduler", address]
    out = tmp_path / "killed"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen([*command, "--out", str(out)], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while len(list(out.glob("part-*.parquet"))) < 5 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    landed = len(list(out.glob("part-*.parquet")))
    assert 5 <= landed < 100, "the client was not killed part-way through the run"
    assert read_manifest(out)["complete"] is False

    resumed = subprocess.run([*command, "--out", str(out), "--resume"], env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert "already present" in resumed.stdout and "1,000,000" in resumed.stdout
    assert read_manifest(out)["complete"] is True
    assert _no_temporaries(out)
    checked = subprocess.run([sys.executable, "-m", "cli.main", "verify", str(out)], env=env, capture_output=True,
                             text=True)
    assert checked.returncode == 0, checked.stdout
    whole = tmp_path / "whole"
    fudasim.run("tensho-ise", rounds=1_000_000, seed=8, shard_rounds=10_000, out=whole)
    pd.testing.assert_frame_equal(read_dataset(out), read_dataset(whole))


@pytest.mark.slow
def test_a_duplicated_task_leaves_one_shard_with_the_same_bytes(tmp_path, cluster):
    out = tmp_path / "d"
    fudasim.run(rounds=9_000, shard_rounds=3_000, seed=2, out=out, scheduler=cluster[0].scheduler_address)
    listed = _shards(out)
    config = RunConfig(rounds=9_000, units_per_shard=3_000, seed=2, out=str(out),
                       command="fudasim.run('tensho-ise', seed=2)")
    _, game, compiled, specs = plan_run(config)
    context = distributed.run_context(config, read_manifest(out), game, compiled, specs, out)
    results: list = []
    attempts = [threading.Thread(target=lambda: results.append(distributed.compute_shard(context, 1, 3_000, 3_000)))
                for _ in range(2)]
    for attempt in attempts:
        attempt.start()
    for attempt in attempts:
        attempt.join()
    assert [r.entry["sha256"] for r in results] == [listed["part-000001.parquet"]] * 2
    assert file_digest(out / "part-000001.parquet")[1] == listed["part-000001.parquet"]
    assert sorted(p.name for p in out.iterdir() if p.name.startswith("part-")) == sorted(listed)
    assert _no_temporaries(out)
    assert verify_dataset(out) == []


def test_a_workers_error_is_one_line_with_exit_status_2(tmp_path, cluster):
    out = tmp_path / "e"
    args = ["run", "--rounds", "6000", "--shard-rounds", "2000", "-o", str(out), "--no-progress",
            "--scheduler", cluster[0].scheduler_address]
    assert CliRunner().invoke(main, args).exit_code == 0
    # shard 2 is missing and a folder has taken its name: the worker cannot commit it
    manifest = read_manifest(out)
    manifest["shard_files"] = [e for e in manifest["shard_files"] if e["shard"] != 2]
    manifest["complete"] = False
    (out / "_run.json").write_text(json.dumps(manifest))
    (out / "part-000002.parquet").unlink()
    (out / "part-000002.parquet").mkdir()
    result = CliRunner().invoke(main, [*args, "--resume"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fudasim: error: ") and "part-000002.parquet" in lines[0]


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:1", "not an address", "local:0"])
def test_a_bad_scheduler_address_is_one_line_with_exit_status_2(tmp_path, address):
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        result = CliRunner().invoke(main, ["run", "--rounds", "100", "-o", str(tmp_path / "x"), "--scheduler", address])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fudasim: error: --scheduler"), result.output
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(("command", "address"), [
    (["run", "--rounds", "100"], "foo://bar"),
    (["run", "--rounds", "100"], "tcp://host:abc"),
    (["run", "--rounds", "100"], "tcp://"),
    (["tournament", "--policies", "random,greedy", "--deals", "10"], "foo://bar"),
])
def test_an_address_dask_cannot_parse_fails_at_once_without_a_traceback(tmp_path, command, address):
    """A Client made of such an address was left half-built: at exit it waited twice the connect
    timeout, then printed a traceback after the one-line error."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"}
    done = subprocess.run([sys.executable, "-m", "cli.main", *command, "-o", str(tmp_path / "x"), "--no-progress",
                           "--scheduler", address], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"fudasim: error: --scheduler {address}: not a Dask scheduler address")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_local_n_starts_a_cluster_and_closes_it(tmp_path):
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    local = fudasim.run(rounds=4_000, shard_rounds=1_000, seed=3, out=tmp_path / "local")
    remote = fudasim.run(rounds=4_000, shard_rounds=1_000, seed=3, out=tmp_path / "remote", scheduler="local:2")
    assert remote.summary.shards_written == 4
    assert _shards(tmp_path / "remote") == _shards(tmp_path / "local")
    assert local.rounds == remote.rounds
    started = [child.pid for child in psutil.Process().children(recursive=True) if child.pid not in before]
    deadline = time.monotonic() + 30
    while _alive(started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(started)


def test_a_worker_that_cannot_see_the_folder_or_runs_another_engine_is_refused(tmp_path):
    out = tmp_path / "r"
    fudasim.run(rounds=1_000, seed=1, out=out)
    config = RunConfig(rounds=1_000, seed=1, out=str(out))
    _, game, compiled, specs = plan_run(config)
    context = distributed.run_context(config, read_manifest(out), game, compiled, specs, out)
    assert distributed.prepare_worker(context)["seconds"] >= 0
    (out / "_run.json").rename(tmp_path / "elsewhere.json")
    with pytest.raises(distributed.RunError, match="does not see the run's folder"):
        distributed.prepare_worker(context)
    other = dataclasses.replace(context, versions=("0.0.1", "0"))
    with pytest.raises(distributed.RunError, match="install the same fudasim everywhere"):
        distributed.prepare_worker(other)


@pytest.mark.slow
def test_a_cluster_without_workers_is_one_line_and_the_folder_is_not_touched(tmp_path):
    with LocalCluster(n_workers=0, dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as empty, \
            dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        result = CliRunner().invoke(main, ["run", "--rounds", "100", "-o", str(tmp_path / "x"),
                                           "--scheduler", empty.scheduler_address])
    assert result.exit_code == 2
    assert result.output.strip() == (f"fudasim: error: --scheduler {empty.scheduler_address}: the cluster has no "
                                     f"workers (start some with dask worker {empty.scheduler_address})")
    assert not (tmp_path / "x").exists()


def test_tasks_carry_functions_by_reference_and_no_compiled_kernel(tmp_path):
    import pickle

    import cloudpickle

    for function in (distributed.compute_shard, distributed.compute_shards, distributed.load_context,
                     distributed.prepare_worker):
        pickled = cloudpickle.dumps(function)
        assert len(pickled) < 200 and b"simcore.run.distributed" in pickled  # a module and a name, no code
    config = RunConfig(rounds=1_000, seed=1, out=str(tmp_path / "c"))
    plan, game, compiled, specs = plan_run(config)
    context = distributed.run_context(config, plan, game, compiled, specs, tmp_path / "c")
    pickled = pickle.dumps(context)
    assert b"numba" not in pickled and len(pickled) < 100_000


@pytest.mark.slow
def test_a_session_keeps_one_local_cluster_for_several_runs(tmp_path):
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    profiling = dask.config.get("distributed.worker.profile.enabled")
    with distributed.session("local:1") as address:
        assert address.startswith("tcp://")
        workers = {child.pid for child in psutil.Process().children(recursive=True)} - before
        for seed in (1, 2):
            run = fudasim.run(rounds=2_000, shard_rounds=1_000, seed=seed, out=tmp_path / f"s{seed}", scheduler=address)
            assert run.rounds == 2_000 and verify_dataset(run.path) == []
        # both runs used the session's workers: no process was started for them
        assert {child.pid for child in psutil.Process().children(recursive=True)} - before == workers
        # its workers run without Dask's profiler and slow ticks (LOCAL_CLUSTER_CONFIG); this
        # process's own Dask settings are left as they were
        with Client(address) as client:
            settings = client.run(lambda: (dask.config.get("distributed.worker.profile.enabled"),
                                           dask.config.get("distributed.admin.tick.interval")))
            callbacks = client.run(lambda dask_worker: set(dask_worker.periodic_callbacks))
            # a local worker writes to this process's stderr: its Dask logs (a heartbeat that
            # meets the closing scheduler logs a traceback) are off; this process's are not
            levels = client.run(lambda: logging.getLogger("distributed").getEffectiveLevel())
        assert set(levels.values()) == {logging.CRITICAL}
        assert logging.getLogger("distributed").getEffectiveLevel() < logging.CRITICAL
        assert set(settings.values()) == {(False, "1s")}
        assert all("profile" not in names and "heartbeat" in names for names in callbacks.values())
        assert dask.config.get("distributed.worker.profile.enabled") == profiling
    deadline = time.monotonic() + 30
    while _alive(list(workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(list(workers))


@pytest.mark.slow
def test_a_tournament_and_a_sweep_on_the_cluster_write_the_local_rows(tmp_path, cluster):
    from simcore.run.sweep import SweepConfig, run_sweep
    from simcore.run.tournament import TournamentConfig, run_tournament

    address = cluster[0].scheduler_address
    for where, scheduler in (("local", None), ("remote", address)):
        run_tournament(TournamentConfig(rules="tensho-ise", policies=("random", "greedy"), deals=3_000, seed=5,
                                        units_per_shard=1_000, out=str(tmp_path / f"t-{where}"),
                                        scheduler=scheduler, threads=1 if scheduler is None else None))
        run_sweep(SweepConfig(rules="enshu-s", options={"enshu.players": "3"}, policies={0: "greedy"},
                              vary=[("enshu.next_dealer", ["round_winner", "rotate"])], rounds=2_000, seed=5,
                              units_per_shard=1_000, out=str(tmp_path / f"s-{where}"), scheduler=scheduler))
    for kind, names in (("t", ["pair-0-1-AB", "pair-0-1-BA"]), ("s", ["combo-000", "combo-001"])):
        for name in names:
            local, remote = tmp_path / f"{kind}-local" / name, tmp_path / f"{kind}-remote" / name
            assert _shards(remote) == _shards(local), name
            assert verify_dataset(remote, deep=True) == []



@pytest.mark.parametrize("threads", [1, 2, 3, 8, 64])
@pytest.mark.parametrize("shards", [0, 1, 7, 191, 1_000])
def test_tasks_cover_the_shards_in_order_longest_first_and_end_with_single_shards(shards, threads):
    todo = [k for k in range(shards + shards // 5) if k % 6 != 5][:shards]  # a resumed run has gaps
    groups = distributed.task_groups(todo, threads)
    assert [k for group in groups for k in group] == todo
    sizes = [len(group) for group in groups]
    assert all(1 <= size <= distributed.MAX_SHARDS_PER_TASK for size in sizes)
    assert sizes == sorted(sizes, reverse=True)
    # the last tasks, as many as the threads, are single shards: the workers finish together
    assert set(sizes[-threads:]) <= {1}
    if shards >= 4 * threads * distributed.MAX_SHARDS_PER_TASK:
        assert sizes[0] == distributed.MAX_SHARDS_PER_TASK
        assert len(groups) < shards / 3


class Stop(Exception):
    """Raised by a test in place of a Ctrl-C."""


def test_a_long_run_submits_its_tasks_as_others_finish(tmp_path, cluster, monkeypatch):
    # 20,000 shards of one round: submitted at once they would be about 2,500 tasks, and a run of
    # 10**14 shards would not fit in memory; a few more are submitted as others finish instead
    from simcore.run import runner

    submitted: list[int] = []
    client_map = Client.map

    def counting_map(self, function, *iterables, **kwargs):
        futures = client_map(self, function, *iterables, **kwargs)
        if function is distributed.compute_shards:
            submitted.append(len(futures))
        return futures

    committed: list[int] = []
    commit = runner.ManifestWriter.commit

    def stop_after_200(self, index, entry):
        commit(self, index, entry)
        committed.append(index)
        if len(committed) == 200:
            raise Stop

    monkeypatch.setattr(Client, "map", counting_map)
    monkeypatch.setattr(runner.ManifestWriter, "commit", stop_after_200)
    out = tmp_path / "long"
    with pytest.raises(Stop):
        fudasim.run(rounds=20_000, shard_rounds=1, engine="reference", out=out,
                    scheduler=cluster[0].scheduler_address)
    window = distributed.TASKS_IN_FLIGHT_PER_THREAD * 2  # two single-threaded workers
    assert len(submitted) >= 2 and sum(submitted) <= window + len(committed), submitted
    listed = read_manifest(out)["shard_files"]
    assert [entry["shard"] for entry in listed] == sorted(committed)


def test_a_task_of_several_shards_commits_each_and_names_the_one_that_failed(tmp_path, monkeypatch):
    out = tmp_path / "g"
    fudasim.run(rounds=12_000, shard_rounds=1_000, seed=4, out=out)
    listed = _shards(out)
    config = RunConfig(rounds=12_000, units_per_shard=1_000, seed=4, out=str(out),
                       command="fudasim.run('tensho-ise', seed=4)")
    _, game, compiled, specs = plan_run(config)
    context = distributed.run_context(config, read_manifest(out), game, compiled, specs, out)
    results = distributed.compute_shards(context, ((3, 3_000, 1_000), (4, 4_000, 1_000)))
    assert [(r.shard, r.entry["sha256"]) for r in results] == [(3, listed["part-000003.parquet"]),
                                                                (4, listed["part-000004.parquet"])]
    (out / "part-000006.parquet").unlink()
    (out / "part-000006.parquet").mkdir()
    with pytest.raises(distributed.FudasimError, match="part-000006.parquet"):
        distributed.compute_shards(context, ((5, 5_000, 1_000), (6, 6_000, 1_000)))
    assert file_digest(out / "part-000005.parquet")[1] == listed["part-000005.parquet"]

    def fails_on_shard_8(context, shard, first_unit, n_units):
        if shard == 8:
            raise ValueError("a bug\n  on two lines")
        return compute_shard(context, shard, first_unit, n_units)

    compute_shard = distributed.compute_shard
    monkeypatch.setattr(distributed, "compute_shard", fails_on_shard_8)
    with pytest.raises(distributed.RunError) as raised:
        distributed.compute_shards(context, ((7, 7_000, 1_000), (8, 8_000, 1_000)))
    assert str(raised.value) == "shard 8 failed on a worker: ValueError: a bug on two lines"


FIRST_TASK = """
import json, sys
from numba.core import event
from simcore.run import distributed
from simcore.dataset import read_manifest
from simcore.run.runner import RunConfig, plan_run

out, summary = sys.argv[1], sys.argv[2] == "summary"
config = RunConfig(rounds=4_000, units_per_shard=2_000, seed=6, out=out, summary=summary, policies={1: "greedy"},
                   command="fudasim.run('tensho-ise', seed=6)")
_, game, compiled, specs = plan_run(config)
context = distributed.run_context(config, read_manifest(out), game, compiled, specs, out)
with event.install_recorder("numba:compiler_lock") as warming:
    distributed.prepare_worker(context)
with event.install_recorder("numba:compiler_lock") as first_task:
    distributed.compute_shards(context, ((1, 2_000, 2_000),))
print(json.dumps([len(warming.buffer), len(first_task.buffer)]))
"""


@pytest.mark.parametrize("kind", ["rows", "summary"])
@pytest.mark.slow
def test_a_warmed_worker_compiles_or_loads_nothing_in_its_first_task(tmp_path, kind):
    # numba takes its compiler lock to compile a kernel or to load it from the cache: the warm-up
    # must do it for every kernel the run's tasks use, in a process that has loaded none yet
    out = tmp_path / kind
    fudasim.run("tensho-ise", rounds=4_000, shard_rounds=2_000, seed=6, out=out, summary=kind == "summary",
                policies={1: "greedy"})
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", FIRST_TASK, str(out), kind], env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    warming, first_task = json.loads(done.stdout.strip().splitlines()[-1])
    assert warming > 0 and first_task == 0
