"""Readers and damaged data: a changed byte that only the checksum shows, a folder without its
manifest, and rows whose stored outcome the rescoring does not reproduce.

Every reader (``report``, ``compare``, ``rescore``, ``fudasim.load``) checks sizes, footers and
the checksums of the shards it reads; ``verify --deep`` names a changed byte as a checksum
mismatch wherever it is; a folder of shards without its manifest is refused by every command
with the way to make the dataset again.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import fudasim
from analysis.reader import AnalysisError, open_run
from analysis.rescore import rescore_run
from cli.main import main
from simcore import dataset as ds
from simcore.dataset import DatasetError, check_dataset, read_dataset
from simcore.run.runner import RunConfig, run

COMMAND = ("fudasim run tensho-ise --rounds 6000 --seed 11 --shard-rounds 1000 --policy 1=greedy "
           "--out ds")
BASE = dict(rounds=6000, seed=11, units_per_shard=1000, policies=("random", "greedy"),
            command=COMMAND)
T3 = ["--card-values", "T3_hanafuda"]
CHECKSUM = "part-000004.parquet: checksum mismatch (the bytes changed since the run wrote them)"


def invoke(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def one_error_line(result) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("fudasim: error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


def listing(directory: Path) -> dict[str, str]:
    """Every file of a folder with the sha256 of its bytes (to show that nothing changed)."""
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(directory.iterdir())}


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    """An uninterrupted run: 6 shards of 1,000 rounds."""
    out = tmp_path_factory.mktemp("whole") / "ds"
    run(RunConfig(out=str(out), **BASE))
    return out


def flipped(source: Path, target: Path, fraction: float) -> Path:
    """A copy of ``source`` with one byte of shard 4, ``fraction`` of the way in, inverted."""
    shutil.copytree(source, target)
    shard = target / "part-000004.parquet"
    data = bytearray(shard.read_bytes())
    data[int(len(data) * fraction)] ^= 0xFF
    shard.write_bytes(bytes(data))
    return target


@pytest.mark.parametrize("fraction", [0.1, 0.3, 0.5, 0.7, 0.9])
def test_verify_deep_names_a_changed_byte_a_checksum_mismatch_wherever_it_is(whole, tmp_path,
                                                                              fraction):
    out = flipped(whole, tmp_path / "ds", fraction)
    shard = "part-000004.parquet"
    assert (out / shard).stat().st_size == (whole / shard).stat().st_size
    for deep in (False, True):
        assert check_dataset(out, deep=deep).problems == [("checksum", CHECKSUM)]
    result = invoke("verify", out, "--deep")
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[0] == CHECKSUM  # named first, as what it is
    assert not [line for line in result.output.splitlines() if shard in line and line != CHECKSUM]


def test_every_reader_refuses_a_changed_byte_that_only_the_checksum_shows(whole, tmp_path):
    out = flipped(whole, tmp_path / "ds", 0.3)
    assert check_dataset(out, checksums=False).problems == []  # sizes and footers cannot see it
    before = listing(out)
    for command in (["report", out], ["rescore", out, *T3], ["compare", whole, out]):
        line = one_error_line(invoke(*command))
        assert CHECKSUM in line and f"fudasim verify {out}" in line and "--resume" in line, line
    for reader in (fudasim.load, read_dataset, open_run):
        with pytest.raises((DatasetError, AnalysisError), match="checksum mismatch"):
            reader(out)
    # the intact shards can still be read, and the output says what was left out
    allowed = invoke("report", out, "--allow-incomplete")
    assert allowed.exit_code == 0, allowed.output
    assert allowed.output.startswith("INCOMPLETE: 5 of 6 shards"), allowed.output
    assert len(fudasim.load(out, ["round"], allow_incomplete=True)) == 5000
    assert listing(out) == before
    # --resume computes the damaged shard again
    run(RunConfig(out=str(out), resume=True, **BASE))
    assert listing(out)["part-000004.parquet"] == listing(whole)["part-000004.parquet"]
    assert invoke("report", out).exit_code == 0


def test_a_folder_without_its_manifest_is_refused_everywhere_with_the_way_to_recover(whole,
                                                                                     tmp_path):
    out = tmp_path / "ds"
    shutil.copytree(whole, out)
    (out / ds.RUN_FILE).unlink()
    before = listing(out)
    resume = ["run", "tensho-ise", "--rounds", 6000, "--seed", 11, "--shard-rounds", 1000,
              "--policy", "1=greedy", "--out", out, "--resume"]
    for command in (["report", out], ["rescore", out, *T3], ["compare", whole, out],
                    ["verify", out], resume):
        line = one_error_line(invoke(*command))
        assert f"{out}: its manifest _run.json is missing" in line, line
        assert f"run `{COMMAND}` again with another --out" in line, line
    for reader in (fudasim.load, read_dataset, open_run):
        with pytest.raises((DatasetError, AnalysisError), match="_run.json is missing"):
            reader(out)
    assert listing(out) == before
    # one shard on its own still opens (its footer is all there is to check)
    assert len(read_dataset(out / "part-000002.parquet")) == 1000


def rewrite_shard(out: Path, index: int, change) -> None:
    """Rewrite shard ``index`` as ``change(table)`` and list its new size and checksum: rows
    changed by someone who also updated the manifest, which no checksum can show."""
    shard = out / ds.SHARD_PATTERN.format(index)
    pq.write_table(change(pq.read_table(shard)), shard)
    size, sha256 = ds.file_digest(shard)
    manifest = json.loads((out / ds.RUN_FILE).read_text())
    for entry in manifest["shard_files"]:
        if entry["shard"] == index:
            entry.update(bytes=size, sha256=sha256)
    (out / ds.RUN_FILE).write_text(json.dumps(manifest))


def other_winner(table: pa.Table, rows: int = 5) -> pa.Table:
    """``table`` with the winner of its first ``rows`` rounds changed to the other seat."""
    winner = table["winner"].to_numpy().copy()
    winner[:rows] = np.where(winner[:rows] == 0, 1, 0)
    return table.set_column(table.schema.get_field_index("winner"), table.schema.field("winner"),
                            pa.array(winner, pa.int8()))


def test_rescore_says_first_that_stored_outcomes_are_not_reproduced_and_what_that_means(whole,
                                                                                        tmp_path):
    clean = rescore_run(whole, "T3_hanafuda")
    assert not [n for n in clean.notices if "NOT reproduced" in n]
    out = tmp_path / "ds"
    shutil.copytree(whole, out)
    rewrite_shard(out, 2, other_winner)
    report = rescore_run(out, "T3_hanafuda")
    notice = report.notices[0]
    assert notice.startswith("stored outcomes NOT reproduced: 5 of 6,000 rounds")
    assert f"damaged data: see `fudasim verify {out}`" in notice
    assert "another engine or other rules" in notice
    assert not [w for w in report.warnings if "reproduce" in w]
    text = invoke("rescore", out, *T3).output
    head = " ".join(text.split("\n\n")[1].split())  # the paragraph under the title, before tables
    assert head.startswith("NOTE: stored outcomes NOT reproduced: 5 of 6,000 rounds"), text


@pytest.mark.parametrize(("command", "run_folder", "expected"), [
    (["tournament", "tensho-ise", "--policies", "random,greedy", "--deals", 400], "pair-0-1-AB",
     "NOTE: stored outcomes NOT reproduced: 3 of 800 rounds"),
    (["sweep", "tensho-ise", "--vary", "tensho.chaff_set=A,B", "--rounds", 400], "combo-001",
     "NOTE: chaff_set=B: stored outcomes NOT reproduced: 3 of 400 rounds"),
])
def test_a_folder_rescore_says_first_that_stored_outcomes_are_not_reproduced(tmp_path, command,
                                                                              run_folder, expected):
    folder = tmp_path / "f"
    result = invoke(*command, "--out", folder)
    assert result.exit_code == 0, result.output
    assert "NOT reproduced" not in invoke("rescore", folder, *T3).output
    rewrite_shard(folder / run_folder, 0, lambda table: other_winner(table, 3))
    text = invoke("rescore", folder, *T3).output
    head = " ".join(text.split("\n\n")[1].split())  # the paragraph under the title, before tables
    assert head.startswith(expected), text
    assert "NOT reproduced" not in text.split("\n\n", 2)[2]  # said once, at the top
    as_json = json.loads(invoke("rescore", folder, *T3, "--format", "json", "-o", "-").output)
    assert "`fudasim verify " in as_json["notices"][0]
