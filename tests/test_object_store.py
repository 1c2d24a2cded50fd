"""Datasets in an object store (docs/distributed.md, "Object stores"), against a local S3
endpoint: moto's S3 in server mode, reached the way a user reaches any endpoint (AWS_ENDPOINT_URL).
The server runs with what the ``[test]`` extra installs (``moto[s3]``, flask, flask-cors): the
modules only ``moto[server]`` would add (every other AWS service's) are hidden from it.

A run to s3:// writes the rows of a local run; report, verify, compare and the Python API read
it; a killed run resumes; a retried shard leaves one object; --overwrite deletes only the run's
own objects; a bad URI or an endpoint that does not answer is one line with exit status 2.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import itertools
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pyarrow.fs as pafs
import pytest
from click.testing import CliRunner

import fudasim
from cli.main import main
from simcore import storage
from simcore.dataset import DatasetError, read_dataset, read_manifest, verify_dataset
from simcore.run import distributed
from simcore.run.runner import RunConfig, plan_run

ROOT = Path(__file__).resolve().parents[1]
BUCKET = "fudasim-test"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
               "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}


_PREFIXES = itertools.count()


def _requirement_names(requirements: list[str], extra: str | None = None) -> set[str]:
    """The distribution names of ``requirements`` (those of ``extra`` only, when given)."""
    names = set()
    for requirement in requirements:
        if extra is not None and f'extra == "{extra}"' not in requirement:
            continue
        names.add(re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-"))
    return names


def _server_only_modules() -> list[str]:
    """The top-level modules of the packages moto's ``server`` extra adds to its ``s3`` extra,
    flask and flask-cors (the web server) aside."""
    requirements = importlib.metadata.distribution("moto").requires or []
    only = (_requirement_names(requirements, "server") - _requirement_names(requirements, "s3")
            - {"flask", "flask-cors"})
    return sorted(module for module, dists in importlib.metadata.packages_distributions().items()
                  if any(d.lower().replace("_", "-") in only for d in dists))


def test_the_test_extra_brings_moto_s3_not_the_whole_server_stack():
    """``[test]`` asks for moto's S3 backend and the web server it is served by; ``moto[server]``
    would bring every AWS service's dependencies (about 50 packages more) for no test."""
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"]["test"]
    moto = [requirement for requirement in extra if requirement.startswith("moto")]
    assert moto and all(requirement.startswith("moto[s3]") for requirement in moto), moto
    assert {"flask", "flask-cors"} <= _requirement_names(extra)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def endpoint():
    """A moto S3 server on a free local port, with one bucket; stopped afterwards."""
    port = _free_port()
    launch = ("import runpy, sys; sys.modules.update(dict.fromkeys(sys.argv[1].split(','))); "
              "sys.argv = ['moto.server', '-H', '127.0.0.1', '-p', sys.argv[2]]; "
              "runpy.run_module('moto.server', run_name='__main__')")
    server = subprocess.Popen([sys.executable, "-c", launch, ",".join(_server_only_modules()), str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the moto server did not start") from None
                time.sleep(0.1)
        store = pafs.S3FileSystem(endpoint_override=url, scheme="http", access_key="testing",
                                  secret_key="testing", region="us-east-1", allow_bucket_creation=True)
        store.create_dir(BUCKET)
        yield url, store
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture
def s3(endpoint, monkeypatch):
    """A fresh prefix's URI, with the endpoint and credentials in the environment."""
    url, _ = endpoint
    for name, value in CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_ENDPOINT_URL", url)
    return f"s3://{BUCKET}/run{next(_PREFIXES)}"


def _objects(endpoint, prefix: str) -> dict[str, bytes]:
    """Every object under ``prefix`` (a URI), by its name relative to the prefix, with its bytes."""
    _, store = endpoint
    key = prefix.removeprefix("s3://")
    infos = store.get_file_info(pafs.FileSelector(key, recursive=True, allow_not_found=True))
    out = {}
    for info in infos:
        if info.type == pafs.FileType.File:
            with store.open_input_stream(info.path) as handle:
                out[info.path[len(key) + 1:]] = bytes(handle.read())
    return out


def _names(endpoint, prefix: str) -> list[str]:
    """The names of the objects directly under ``prefix`` (a URI), without reading them."""
    key = prefix.removeprefix("s3://")
    infos = endpoint[1].get_file_info(pafs.FileSelector(key, allow_not_found=True))
    return sorted(info.base_name for info in infos if info.type == pafs.FileType.File)


def _put(endpoint, uri: str, data: bytes) -> None:
    with endpoint[1].open_output_stream(uri.removeprefix("s3://")) as handle:
        handle.write(data)


def _digests(dataset) -> dict[str, str]:
    """Each shard's sha256, by name, as the manifest lists it."""
    return {entry["file"]: entry["sha256"] for entry in read_manifest(dataset)["shard_files"]}


def _cli(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env)


def _one_error_line(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fudasim: error: "), result.output
    return lines[0]


@pytest.mark.slow
def test_a_run_to_s3_writes_the_rows_of_a_local_run_and_every_reader_reads_it(s3, tmp_path, endpoint):
    args = ["run", "--rounds", "9000", "--shard-rounds", "2500", "--seed", "5", "--policy", "1=greedy",
            "--no-progress"]
    result = _cli(*args, "-o", s3)
    assert result.exit_code == 0, result.output
    assert f"Wrote {s3}  (4 shards)" in result.output
    assert _cli(*args, "-o", str(tmp_path / "local")).exit_code == 0
    objects = _objects(endpoint, s3)
    # shards under their final names, the manifest, and no marker once the run is over
    assert sorted(objects) == ["_run.json", *[f"part-{k:06d}.parquet" for k in range(4)]]
    manifest = read_manifest(s3)
    assert manifest["complete"] is True and len(manifest["shard_files"]) == 4

    local = read_dataset(tmp_path / "local")
    pd.testing.assert_frame_equal(read_dataset(s3), local)
    pd.testing.assert_frame_equal(fudasim.load(s3), local)
    assert fudasim.open_dataset(s3).n_rows == 9000

    verified = _cli("verify", s3)
    assert verified.exit_code == 0 and verified.output.startswith(f"{s3}: OK, complete: 4 shards"), verified.output
    report = _cli("report", s3)
    assert report.exit_code == 0, report.output
    assert "9,000 rounds" in report.output and s3 in report.output
    local_report = _cli("report", str(tmp_path / "local"))
    # the same tables: every line after the header that names the dataset
    assert report.output.split("game", 1)[1] == local_report.output.split("game", 1)[1]
    compared = _cli("compare", s3, str(tmp_path / "local"))
    assert compared.exit_code == 0 and "paired" in compared.output, compared.output
    replayed = _cli("replay", s3, "--round", "4321")
    assert replayed.exit_code == 0 and "agrees with" in replayed.output, replayed.output


@pytest.mark.slow
def test_the_python_api_writes_to_s3_and_a_damaged_object_is_found(s3, tmp_path, endpoint):
    run = fudasim.run(rounds=3000, shard_rounds=1000, seed=9, out=s3)
    assert str(run.path) == s3 and run.rounds == 3000
    local = fudasim.run(rounds=3000, shard_rounds=1000, seed=9, out=tmp_path / "local")
    pd.testing.assert_frame_equal(run.frame(yaku="names"), local.frame(yaku="names"))
    assert _digests(s3) == _digests(tmp_path / "local")
    assert {name: hashlib.sha256(data).hexdigest() for name, data in _objects(endpoint, s3).items()
            if name.startswith("part-")} == _digests(s3)
    shard = f"{s3}/part-000001.parquet"
    data = _objects(endpoint, s3)["part-000001.parquet"]
    _put(endpoint, shard, data[:-10] + bytes(10))  # same size, other bytes
    assert verify_dataset(s3) == ["part-000001.parquet: checksum mismatch (the bytes changed since the run "
                                  "wrote them)"]
    _put(endpoint, shard, data[:100])
    with pytest.raises(fudasim.FudasimError, match="incomplete or damaged dataset: part-000001.parquet"):
        fudasim.load(s3)
    assert "part-000001.parquet" in _one_error_line(_cli("report", s3))


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_rows_of_an_uninterrupted_one(s3, tmp_path, endpoint):
    command = [sys.executable, "-m", "cli.main", "run", "tensho-ise", "--rounds", "600000", "--seed", "21",
               "--shard-rounds", "10000", "--threads", "1", "--no-progress", "--out", s3]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300

    def shards() -> list[str]:
        return [name for name in _names(endpoint, s3) if name.startswith("part-")]

    while len(shards()) < 3 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.1)
    process.send_signal(signal.SIGKILL)
    process.wait()
    left = _names(endpoint, s3)
    assert 3 <= len(shards()) < 60, "the run was not killed part-way"
    assert ".fudasim.lock" in left  # the killed run's marker stays
    assert read_manifest(s3)["complete"] is False

    # the marker of a run that may still be writing stops --overwrite ...
    refused = _one_error_line(_cli("run", "--rounds", "100", "-o", s3, "--overwrite"))
    assert ".fudasim.lock" in refused and "--resume" in refused
    assert _names(endpoint, s3) == left
    # ... and --resume takes over, finishes and removes it
    resumed = subprocess.run([*command, "--resume"], env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert "already present" in resumed.stdout and "taking over" in resumed.stderr
    assert ".fudasim.lock" not in _objects(endpoint, s3)
    assert read_manifest(s3)["complete"] is True and verify_dataset(s3) == []
    whole = tmp_path / "whole"
    fudasim.run("tensho-ise", rounds=600_000, seed=21, shard_rounds=10_000, out=whole)
    columns = ["round", "dealer", "winner", "end_reason", "captured_0", "captured_1", "yaku_0", "hand_dealt_1"]
    pd.testing.assert_frame_equal(read_dataset(s3, columns), read_dataset(whole, columns))


@pytest.mark.slow
def test_a_retried_shard_leaves_one_object_and_never_replaces_another(s3, endpoint):
    fudasim.run(rounds=6000, shard_rounds=2000, seed=4, out=s3)
    before = _objects(endpoint, s3)
    listed = {entry["file"]: entry["sha256"] for entry in read_manifest(s3)["shard_files"]}
    config = RunConfig(rounds=6000, units_per_shard=2000, seed=4, out=s3, command="fudasim.run('tensho-ise', seed=4)")
    _, game, compiled, specs = plan_run(config)
    context = distributed.run_context(config, read_manifest(s3), game, compiled, specs, storage.location(s3))
    results: list = []
    attempts = [threading.Thread(target=lambda: results.append(distributed.compute_shard(context, 1, 2000, 2000)))
                for _ in range(2)]  # two attempts at once, after the first attempt's object exists
    for attempt in attempts:
        attempt.start()
    for attempt in attempts:
        attempt.join()
    assert [r.entry["sha256"] for r in results] == [listed["part-000001.parquet"]] * 2
    assert _objects(endpoint, s3) == before  # one object per shard, the same bytes

    _put(endpoint, f"{s3}/part-000002.parquet", b"not this run's shard")
    with pytest.raises(DatasetError, match="part-000002.parquet: an object with other bytes already has"):
        distributed.compute_shard(context, 2, 4000, 2000)
    assert _objects(endpoint, s3)["part-000002.parquet"] == b"not this run's shard"


@pytest.mark.slow
def test_overwrite_deletes_only_the_runs_own_objects(s3, endpoint):
    args = ["run", "--rounds", "3000", "--shard-rounds", "1000", "--no-progress"]
    assert _cli(*args, "-o", s3).exit_code == 0
    _put(endpoint, f"{s3}2/part-000000.parquet", b"a neighbour's object")  # a sibling prefix: s3://.../name2
    assert "already exists and is not empty" in _one_error_line(_cli(*args, "--seed", "1", "-o", s3))

    _put(endpoint, f"{s3}/notes.txt", b"mine")
    refused = _one_error_line(_cli(*args, "--seed", "1", "-o", s3, "--overwrite"))
    assert "notes.txt" in refused and "refusing to delete anything" in refused
    assert len([name for name in _objects(endpoint, s3) if name.startswith("part-")]) == 3

    before = _objects(endpoint, s3)
    endpoint[1].delete_file(f"{s3}/notes.txt".removeprefix("s3://"))
    result = _cli(*args, "--seed", "1", "-o", s3, "--overwrite")
    assert result.exit_code == 0, result.output
    assert read_manifest(s3)["seed"] == 1 and verify_dataset(s3) == []
    assert _objects(endpoint, s3)["_run.json"] != before["_run.json"]
    assert _objects(endpoint, f"{s3}2") == {"part-000000.parquet": b"a neighbour's object"}


@pytest.mark.parametrize(("uri", "says"), [
    ("s3://", "name a bucket"),
    ("s3://no-such-bucket/x", "bucket 'no-such-bucket' does not exist"),
    ("nosuchscheme://bucket/x", "not a usable location"),
])
def test_a_bad_uri_is_one_line_and_writes_nothing(s3, endpoint, tmp_path, monkeypatch, uri, says):
    monkeypatch.chdir(tmp_path)
    line = _one_error_line(_cli("run", "--rounds", "100", "-o", uri))
    assert line.startswith("fudasim: error: --out ") and says in line
    assert not list(tmp_path.iterdir())  # no local folder named s3: or the like
    for command in ("report", "verify"):
        assert _cli(command, uri).exit_code == 2


def test_a_summary_run_is_refused_in_an_object_store_before_anything_is_written(s3, endpoint):
    """Summary shards are written through the local folder's commit; a store is refused in one line."""
    line = _one_error_line(_cli("run", "--rounds", "100", "--summary", "-o", s3))
    assert line.startswith(f"fudasim: error: --out {s3}: a summary run") and "object store" in line
    assert _objects(endpoint, s3) == {}


@pytest.mark.slow
def test_an_endpoint_that_does_not_answer_is_one_line(s3, tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{_free_port()}")
    for args in (["run", "--rounds", "100", "-o", s3], ["report", s3], ["verify", s3]):
        line = _one_error_line(_cli(*args))
        assert "cannot reach the object store" in line and s3 in line


@pytest.mark.slow
def test_a_two_worker_cluster_writes_the_local_rows_to_s3(s3, tmp_path, endpoint):
    size = dict(rounds=8000, shard_rounds=2000, seed=13, policies={0: "greedy"})
    remote = fudasim.run(**size, out=s3, scheduler="local:2")
    assert remote.summary.shards_written == 4
    local = fudasim.run(**size, out=tmp_path / "local")
    pd.testing.assert_frame_equal(read_dataset(s3), read_dataset(tmp_path / "local"))
    assert verify_dataset(s3) == []
    assert sorted(_objects(endpoint, s3)) == ["_run.json", *[f"part-{k:06d}.parquet" for k in range(4)]]
    assert local.summary.wins.tolist() == remote.summary.wins.tolist()
    # the same run metadata (fudasim.run's command line is the same): the same bytes
    assert _digests(s3) == _digests(tmp_path / "local")


@pytest.mark.slow
def test_a_worker_killed_mid_run_to_s3_leaves_one_object_per_shard(s3, tmp_path, endpoint):
    """Dask runs the killed worker's tasks again; a retried task finds its shard's object or
    uploads the same bytes, so the store ends with one object per shard, as a local run's."""
    import logging

    from distributed import Client, LocalCluster

    size = dict(rounds=400_000, shard_rounds=4_000, seed=6)
    shards = 100
    fudasim.run(out=tmp_path / "local", **size)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        victim = sorted(client.run(os.getpid).values())[0]
        finished: list = []
        thread = threading.Thread(target=lambda: finished.append(
            fudasim.run(out=s3, scheduler=cluster.scheduler_address, **size)))
        thread.start()
        deadline = time.monotonic() + 300
        while len(_names(endpoint, s3)) < 12 and time.monotonic() < deadline and thread.is_alive():
            time.sleep(0.02)
        os.kill(victim, signal.SIGKILL)
        landed = len(_names(endpoint, s3))
        thread.join(timeout=600)
    assert finished, "the run did not finish after a worker was killed"
    assert 12 <= landed < shards, "the worker was not killed part-way through the run"
    assert _names(endpoint, s3) == ["_run.json", *[f"part-{k:06d}.parquet" for k in range(shards)]]
    assert _digests(s3) == _digests(tmp_path / "local")
    assert verify_dataset(s3) == []
