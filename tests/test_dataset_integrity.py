"""The dataset directory as a whole (guarantee 8 of docs/guarantees.md): one writer, a manifest with
checksums, ``--overwrite`` that deletes only its own files, ``fudasim verify``, readers that refuse
a damaged dataset, ``--resume`` that repairs one, and file-system errors that leave nothing
behind."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from cli.main import main
from simcore import dataset as ds
from simcore.dataset import DatasetError, check_dataset, read_dataset, verify_dataset
from simcore.run.runner import RunConfig, RunError, run

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))
BASE = dict(rounds=6000, seed=11, units_per_shard=1000, policies=("random", "greedy"))
COLUMNS = ["round", "winner", "end_reason", "captured_0", "captured_1", "yaku_0", "score_1"]


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def listing(directory: Path) -> dict[str, tuple[int, str]]:
    """Every file of a directory tree with its size and sha256 (to show nothing changed)."""
    out = {}
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            out[str(path.relative_to(directory))] = (len(data), hashlib.sha256(data).hexdigest())
        else:
            out[str(path.relative_to(directory))] = (-1, "directory")
    return out


def one_error_line(result) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("fudasim: error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    """An uninterrupted run: 6 shards of 1,000 rounds."""
    out = tmp_path_factory.mktemp("whole") / "ds"
    run(RunConfig(out=str(out), **BASE))
    return out


@pytest.fixture(scope="module")
def other_seed(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("other") / "ds"
    run(RunConfig(out=str(out), **dict(BASE, seed=12)))
    return out


def copy_of(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def manifest(out: Path) -> dict:
    return json.loads((out / ds.RUN_FILE).read_text())


def edit_manifest(out: Path, change) -> None:
    data = manifest(out)
    change(data)
    (out / ds.RUN_FILE).write_text(json.dumps(data))


def unlist(out: Path, *indices: int) -> None:
    """Drop shards' entries from the manifest (as if committed just before a kill)."""
    edit_manifest(out, lambda m: m.update(shard_files=[e for e in m["shard_files"] if e["shard"] not in indices]))


# --- the manifest -------------------------------------------------------------------------------


def test_the_manifest_lists_every_shard_with_its_rows_units_size_and_checksum(whole):
    data = manifest(whole)
    assert data["complete"] is True and data["seed"] == 11 and data["shards"] == 6
    entries = data["shard_files"]
    assert [e["shard"] for e in entries] == list(range(6))
    for entry in entries:
        path = whole / entry["file"]
        raw = path.read_bytes()
        assert entry["bytes"] == len(raw)
        assert entry["sha256"] == hashlib.sha256(raw).hexdigest()
        rounds = pq.read_table(path, columns=["round"])["round"].to_pylist()
        assert entry["rows"] == len(rounds) == 1000
        assert (entry["first_unit"], entry["n_units"]) == (1000 * entry["shard"], 1000)
        assert (entry["first_round"], entry["last_round"]) == (rounds[0], rounds[-1])
    # the shards' own metadata does not carry the manifest's entries
    info = json.loads(pq.read_schema(whole / "part-000000.parquet").metadata[b"fudasim.run"])
    assert "shard_files" not in info and info["shard"] == 0


# --- one writer -----------------------------------------------------------------------------------


HOLD_LOCK = textwrap.dedent("""
    import sys, time
    from simcore.dataset import lock_dataset
    lock = lock_dataset(sys.argv[1])
    print("locked", flush=True)
    time.sleep(120)
""")


@pytest.mark.slow
def test_a_second_writer_is_refused_naming_the_holder_and_the_folder_is_untouched(whole, tmp_path):
    out = copy_of(whole, tmp_path / "ds")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(out)], env=ENV, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = listing(out)
        command = [sys.executable, "-m", "cli.main", "run", "--rounds", "6000", "--seed", "11", "--shard-rounds",
                   "1000", "--policy", "1=greedy", "--no-progress", "--out", str(out)]
        for extra in (["--overwrite"], ["--resume"], []):
            second = subprocess.run([*command, *extra], env=ENV, capture_output=True, text=True, cwd=tmp_path)
            assert second.returncode == 2, (extra, second.stderr)
            lines = second.stderr.strip().splitlines()
            assert len(lines) == 1 and f"pid {holder.pid}" in lines[0], (extra, second.stderr)
            assert listing(out) == before, extra
    finally:
        holder.kill()
        holder.communicate()
    # the lock died with its process: the folder can be written again
    result = invoke("run", "--rounds", "6000", "--seed", "11", "--shard-rounds", "1000", "--policy", "1=greedy",
                    "--no-progress", "--out", str(out), "--resume")
    assert result.exit_code == 0, result.output


@pytest.mark.slow
def test_a_running_writer_keeps_its_folder_and_finishes_with_the_uninterrupted_rows(tmp_path):
    # The reference engine is slow enough that the run is still going while the others try.
    out = tmp_path / "cw"
    rounds, per_shard = 24_000, 1200
    command = [sys.executable, "-m", "cli.main", "run", "--rounds", str(rounds), "--shard-rounds", str(per_shard),
               "--no-progress", "--out", str(out)]
    first = subprocess.Popen([*command, "--seed", "9", "--engine", "reference"], env=ENV, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(out.glob("part-*.parquet")) and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.05)
    assert first.poll() is None, "the first run ended before the others could try"
    others = [subprocess.Popen([*command, "--seed", "10", "--overwrite"], env=ENV, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True),
              subprocess.Popen([*command, "--seed", "9", "--engine", "reference", "--resume"], env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)]
    for other in others:
        _, stderr = other.communicate(timeout=120)
        assert other.returncode == 2, stderr
        assert f"pid {first.pid}" in stderr and len(stderr.strip().splitlines()) == 1, stderr
    checked = invoke("verify", str(out))  # verify reads without locking, and says who writes
    listed = manifest(out)["shard_files"]  # the manifest lists shards as they commit
    assert first.poll() is None, "the first run ended before the others were refused"
    assert listed and all(ds.file_digest(out / e["file"]) == (e["bytes"], e["sha256"]) for e in listed)
    assert checked.exit_code == 1 and f"a fudasim run (pid {first.pid}) is writing this dataset now" in checked.output
    stdout, stderr = first.communicate(timeout=600)
    assert first.returncode == 0, stderr
    assert verify_dataset(out) == []
    uninterrupted = tmp_path / "whole"
    run(RunConfig(out=str(uninterrupted), rounds=rounds, seed=9, units_per_shard=per_shard))
    pd.testing.assert_frame_equal(read_dataset(out, COLUMNS), read_dataset(uninterrupted, COLUMNS))


# --- --overwrite deletes only what the manifest owns -------------------------------------------------


def _user_pyarrow_dataset(out: Path) -> None:
    out.mkdir()
    pq.write_table(pa.table({"x": [1, 2, 3]}), out / "part-0.parquet")
    pq.write_table(pa.table({"x": [4, 5]}), out / "part-1.parquet")


@pytest.mark.parametrize("case, foreign", [
    ("pyarrow", "part-0.parquet"),
    ("text_at_a_shard_name", "part-000099.parquet"),
    ("users_run_json", "_run.json"),
    ("sub_folder", "keep"),
    ("notes_next_to_a_dataset", "notes.txt"),
    ("shard_of_another_run", "part-000002.parquet"),
])
def test_overwrite_refuses_to_delete_anything_not_its_own(case, foreign, whole, other_seed, tmp_path):
    out = tmp_path / "ds"
    if case == "pyarrow":
        _user_pyarrow_dataset(out)
    elif case == "text_at_a_shard_name":
        out.mkdir()
        (out / "part-000099.parquet").write_text("my notes, not a shard")
    elif case == "users_run_json":
        out.mkdir()
        (out / "_run.json").write_text(json.dumps({"my": "settings"}))
    elif case == "sub_folder":
        copy_of(whole, out)
        (out / "keep").mkdir()
        (out / "keep" / "file.txt").write_text("mine")
    elif case == "notes_next_to_a_dataset":
        copy_of(whole, out)
        (out / "notes.txt").write_text("mine")
    else:  # a shard of seed 12 at a name the seed-11 manifest does not list
        copy_of(whole, out)
        unlist(out, 2)
        shutil.copy(other_seed / "part-000002.parquet", out / "part-000002.parquet")
    before = listing(out)
    with pytest.raises(RunError, match=foreign):
        run(RunConfig(out=str(out), rounds=100, seed=3, overwrite=True))
    assert listing(out) == before
    result = invoke("run", "--rounds", "100", "--seed", "3", "--out", str(out), "--overwrite")
    assert foreign in one_error_line(result)
    assert listing(out) == before


def test_overwrite_deletes_the_datasets_own_files_including_an_unlisted_shard_of_its_run(whole, tmp_path):
    out = copy_of(whole, tmp_path / "ds")
    unlist(out, 5)  # committed just before a kill: not yet listed, but its metadata is this run's
    (out / ".part-000003.parquet.tmp-4242").write_bytes(b"half a shard")
    (out / "._run.json.tmp-4242").write_text("{")
    run(RunConfig(out=str(out), rounds=500, seed=3, units_per_shard=500, overwrite=True))
    assert sorted(p.name for p in out.iterdir()) == [ds.LOCK_FILE, ds.RUN_FILE, "part-000000.parquet"]
    assert manifest(out)["seed"] == 3 and verify_dataset(out) == []


# --- verify, and readers that refuse what verify finds --------------------------------------------


def _damage(case: str, out: Path, other_seed: Path) -> str:
    """Damage a copy of the whole dataset; returns a fragment of the problem verify must print."""
    shard = out / "part-000002.parquet"
    if case == "truncated":
        shard.write_bytes(shard.read_bytes()[:5000])
        return "part-000002.parquet: 5,000 bytes, the manifest lists"
    if case == "missing":
        shard.unlink()
        return "part-000002.parquet: missing"
    if case == "extra":
        shutil.copy(out / "part-000001.parquet", out / "part-000007.parquet")
        return "part-000007.parquet: extra shard file"
    if case == "other_seed":
        unlist(out, 2)
        shutil.copy(other_seed / "part-000002.parquet", shard)
        return "part-000002.parquet: a shard of another run (seed 12, not 11)"
    if case == "duplicate":
        unlist(out, 2)
        shutil.copy(out / "part-000001.parquet", shard)
        return "part-000002.parquet: holds units 1000..1999"
    if case == "garbage":
        unlist(out, 2)
        shard.write_text("not parquet")
        return "part-000002.parquet: not a readable Parquet file"
    if case == "incomplete":
        edit_manifest(out, lambda m: m.update(complete=False))
        shard.unlink()
        return "the run is not complete: 5 of 6 shards"
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["truncated", "missing", "extra", "other_seed", "duplicate", "garbage",
                                  "incomplete"])
def test_verify_finds_the_damage_and_report_refuses_it_unless_allowed(case, whole, other_seed, tmp_path):
    out = copy_of(whole, tmp_path / "ds")
    fragment = _damage(case, out, other_seed)
    problems = verify_dataset(out)
    assert any(fragment in p for p in problems), problems
    result = invoke("verify", str(out))
    assert result.exit_code == 1 and fragment in result.output
    assert "problem" in result.output.splitlines()[-1]

    before = listing(out)
    line = one_error_line(invoke("report", str(out)))
    assert "fudasim verify" in line and "--resume" in line and "--allow-incomplete" in line
    for command in (["compare", str(whole), str(out)], ["rescore", str(out), "--card-values", "T3_hanafuda"]):
        assert "fudasim verify" in one_error_line(invoke(*command))

    allowed = invoke("report", str(out), "--allow-incomplete")
    assert allowed.exit_code == 0, allowed.output
    if case == "extra":  # every shard of the run is intact: only the stray copy is left out
        assert "INCOMPLETE: 6 of 6 shards (6,000 of 6,000 rounds)" in allowed.output.splitlines()[0]
    else:
        assert allowed.output.startswith("INCOMPLETE: 5 of 6 shards (5,000 of 6,000 rounds) read")
        assert "(tensho, 5,000 rounds)" in allowed.output
    for command in (["compare", str(whole), str(out)], ["rescore", str(out), "--card-values", "T3_hanafuda"]):
        result = invoke(*command, "--allow-incomplete")
        assert result.exit_code == 0 and "INCOMPLETE: " in result.output.splitlines()[0], result.output
    with pytest.raises(DatasetError, match="fudasim verify"):
        read_dataset(out)
    assert len(read_dataset(out, ["round"], allow_incomplete=True)) == (6000 if case == "extra" else 5000)
    assert listing(out) == before  # readers change nothing


def test_verify_finds_a_changed_byte_that_the_cheap_checks_cannot(whole, tmp_path):
    out = copy_of(whole, tmp_path / "ds")
    shard = out / "part-000004.parquet"
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    assert verify_dataset(out) == ["part-000004.parquet: checksum mismatch (the bytes changed since the run "
                                   "wrote them)"]
    assert invoke("verify", str(out)).exit_code == 1


def test_verify_deep_decodes_every_shard(whole, tmp_path):
    out = copy_of(whole, tmp_path / "ds")
    shard = out / "part-000003.parquet"
    table = pq.read_table(shard)
    rounds = table["round"].to_numpy().copy()
    rounds[10] = rounds[11]  # a round twice, one missing: footer and metadata still agree
    table = table.set_column(table.schema.get_field_index("round"), table.schema.field("round"),
                             pa.array(rounds, pa.int64()))
    pq.write_table(table, shard)
    size, sha256 = ds.file_digest(shard)
    edit_manifest(out, lambda m: m["shard_files"][3].update(bytes=size, sha256=sha256))
    assert verify_dataset(out) == []
    problems = verify_dataset(out, deep=True)
    assert problems == ["part-000003.parquet: round column is not rounds 3,000..3,999"]
    assert invoke("verify", str(out), "--deep").exit_code == 1
    clean = invoke("verify", str(whole), "--deep")
    assert clean.exit_code == 0 and "OK, complete: 6 shards, 6,000 rounds" in clean.output


def test_verify_of_a_dataset_written_without_shard_entries_says_so(whole, tmp_path):
    out = copy_of(whole, tmp_path / "ds")
    edit_manifest(out, lambda m: m.pop("shard_files"))
    result = invoke("verify", str(out))
    assert result.exit_code == 0, result.output
    assert "lists no shard files (written by an older fudasim): sizes and checksums unavailable" in result.output
    (out / "part-000001.parquet").unlink()
    assert "part-000001.parquet: missing" in invoke("verify", str(out)).output


@pytest.mark.parametrize("make", ["nothing", "empty", "users_run_json", "file"])
def test_verify_of_something_that_is_not_a_dataset_exits_2(make, tmp_path):
    target = tmp_path / "x"
    if make == "empty":
        target.mkdir()
    elif make == "users_run_json":
        target.mkdir()
        (target / "_run.json").write_text("[1, 2]")
    elif make == "file":
        target.write_text("hello")
    assert str(target) in one_error_line(invoke("verify", str(target)))
    with pytest.raises(DatasetError):
        verify_dataset(target)


def test_a_single_shard_still_opens_directly(whole):
    result = invoke("report", str(whole / "part-000003.parquet"))
    assert result.exit_code == 0 and "1,000 rounds" in result.output


def test_report_refuses_an_output_inside_a_dataset(whole, tmp_path):
    before = listing(whole)
    for target in (whole / "part-000001.parquet", whole / "report.csv"):
        line = one_error_line(invoke("report", str(whole), "--format", "csv", "--output", str(target),
                                     "--overwrite"))
        assert "inside the dataset directory" in line
    other = copy_of(whole, tmp_path / "other")
    second = copy_of(whole, tmp_path / "second")  # compare refuses a folder compared with itself
    line = one_error_line(invoke("compare", str(whole), str(second), "--format", "md", "-o", str(other / "c.md")))
    assert "inside the dataset directory" in line and "other" in line
    assert listing(whole) == before


# --- --resume checks what it finds ------------------------------------------------------------------


def test_resume_after_deleting_a_middle_and_the_last_shard_gives_the_uninterrupted_run(whole, tmp_path):
    out = copy_of(whole, tmp_path / "ds")
    (out / "part-000002.parquet").unlink()
    (out / "part-000005.parquet").unlink()
    edit_manifest(out, lambda m: m.update(complete=False))
    summary = run(RunConfig(out=str(out), resume=True, **BASE))
    assert (summary.shards_written, summary.shards_skipped) == (2, 4)
    assert summary.rounds == 6000 and summary.rounds_present == 4000  # the whole dataset
    frame = read_dataset(whole, ["winner", "dealer"])
    assert summary.wins.tolist() == [int((frame["winner"] == s).sum()) for s in (0, 1)]
    assert summary.dealer_wins == int((frame["winner"] == frame["dealer"]).sum())
    pd.testing.assert_frame_equal(read_dataset(out), read_dataset(whole))
    assert manifest(out)["complete"] is True and verify_dataset(out) == []
    assert manifest(out)["shard_files"] == manifest(whole)["shard_files"]


def test_resume_recomputes_truncated_garbage_and_foreign_shards_and_adopts_an_unlisted_good_one(
        whole, other_seed, tmp_path, capsys):
    out = copy_of(whole, tmp_path / "ds")
    edit_manifest(out, lambda m: m.update(complete=False))
    (out / "part-000001.parquet").write_bytes((out / "part-000001.parquet").read_bytes()[:3000])
    unlist(out, 3, 4, 5)
    (out / "part-000003.parquet").write_text("garbage")
    shutil.copy(other_seed / "part-000004.parquet", out / "part-000004.parquet")
    # part-000005 is this run's, committed but unlisted: checked and kept
    summary = run(RunConfig(out=str(out), resume=True, **BASE))
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.endswith("computing it again") for line in err), err
    assert "part-000001.parquet: 3,000 bytes" in err[0]
    assert "part-000003.parquet: not a readable Parquet file" in err[1]
    assert "part-000004.parquet: a shard of another run (seed 12, not 11)" in err[2]
    assert (summary.shards_written, summary.shards_skipped) == (3, 3)
    pd.testing.assert_frame_equal(read_dataset(out), read_dataset(whole))
    assert verify_dataset(out) == []


def test_a_run_started_by_the_older_code_resumes(whole, tmp_path):
    # The older plan: no shard entries, every other key as before.
    out = copy_of(whole, tmp_path / "ds")
    edit_manifest(out, lambda m: (m.pop("shard_files"), m.update(complete=False)))
    (out / ds.LOCK_FILE).unlink()
    (out / "part-000004.parquet").unlink()
    summary = run(RunConfig(out=str(out), resume=True, **BASE))
    assert (summary.shards_written, summary.shards_skipped) == (1, 5)
    pd.testing.assert_frame_equal(read_dataset(out), read_dataset(whole))
    assert manifest(out)["shard_files"] == manifest(whole)["shard_files"]
    assert manifest(out)["resumed_by"] and verify_dataset(out) == []


def test_the_summary_after_a_resume_counts_shards_in_words():
    from cli.main import _summary_text
    from simcore.run.runner import RunSummary

    summary = RunSummary(out=Path("d"), end_reason_names=("yaku",), yaku_names=[], policies=["random", "random"])
    summary.shards_written, summary.shards_skipped = 1, 0
    assert _summary_text(summary).splitlines()[0] == "Wrote d  (1 shard)"
    summary.shards_written, summary.shards_skipped = 2, 1
    assert _summary_text(summary).splitlines()[0] == "Wrote d  (2 shards computed now, 1 already present)"


def test_a_refused_resume_names_the_option_that_differs(whole, tmp_path):
    out = copy_of(whole, tmp_path / "ds")
    before = listing(out)
    with pytest.raises(RunError, match="different tensho.card_values: 'T1_ise' then, 'T3_hanafuda' now$"):
        run(RunConfig(out=str(out), resume=True, options={"tensho.card_values": "T3_hanafuda"}, **BASE))
    with pytest.raises(RunError, match="different policy of seat 1: 'greedy' then, 'random' now$"):
        run(RunConfig(out=str(out), resume=True, **dict(BASE, policies=("random", "random"))))
    assert listing(out) == before


# --- file-system errors ---------------------------------------------------------------------------


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_while_writing_the_plan_leaves_no_temporary_file(tmp_path, monkeypatch):
    out = tmp_path / "ds"
    with monkeypatch.context() as patch:
        patch.setattr(ds.os, "fsync", _no_space)
        line = one_error_line(invoke("run", "--rounds", "500", "--out", str(out)))
    assert f"{out / ds.RUN_FILE}: cannot write: No space left on device" in line
    assert [p.name for p in out.iterdir()] == [ds.LOCK_FILE]
    result = invoke("run", "--rounds", "500", "--out", str(out))  # a plain rerun is not blocked
    assert result.exit_code == 0, result.output
    assert verify_dataset(out) == []


def test_a_full_disk_while_writing_a_shard_leaves_no_temporary_file_and_resume_finishes(whole, tmp_path,
                                                                                         monkeypatch):
    out = tmp_path / "ds"
    real_write = pq.write_table
    calls = []

    def fill_the_disk(table, where, **kwargs):
        calls.append(where)
        if len(calls) == 3:
            Path(where).write_bytes(b"PAR1 half written")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(table, where, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(ds.pq, "write_table", fill_the_disk)
        line = one_error_line(invoke("run", "--rounds", "6000", "--seed", "11", "--shard-rounds", "1000",
                                     "--policy", "1=greedy", "--threads", "1", "--out", str(out)))
    assert "cannot write shard: No space left on device" in line and str(out) in line
    assert not [p for p in out.iterdir() if ".tmp-" in p.name]
    result = invoke("run", "--rounds", "6000", "--seed", "11", "--shard-rounds", "1000", "--policy", "1=greedy",
                    "--out", str(out), "--resume")
    assert result.exit_code == 0, result.output
    pd.testing.assert_frame_equal(read_dataset(out), read_dataset(whole))
    assert verify_dataset(out) == []


def test_check_dataset_reports_every_kind_on_one_dataset(whole, other_seed, tmp_path):
    out = copy_of(whole, tmp_path / "ds")
    _damage("truncated", out, other_seed)
    (out / "part-000004.parquet").unlink()
    (out / ".part-000004.parquet.tmp-99").write_bytes(b"x")
    (out / "README.txt").write_text("notes")
    kinds = [kind for kind, _ in check_dataset(out).problems]
    assert sorted(kinds) == ["missing", "size", "stray", "temporary"]


def test_a_damaged_manifest_is_refused_by_readers_and_verify(whole, tmp_path):
    out = copy_of(whole, tmp_path / "ds")
    edit_manifest(out, lambda m: m.update(shards="six"))
    assert "_run.json: not a fudasim manifest" in one_error_line(invoke("verify", str(out)))
    assert "_run.json: not a fudasim manifest" in one_error_line(invoke("report", str(out)))
    with pytest.raises(DatasetError, match="not a fudasim manifest"):
        read_dataset(out)
