"""benchmarks.checksum_cost: its CSV, on a small dataset made with the reference engine."""

from __future__ import annotations

import csv
import io

import pytest

from benchmarks import checksum_cost
from simcore.dataset import read_manifest


def test_the_table_measures_hashing_reading_and_the_report_on_the_same_bytes(tmp_path, capsys):
    import fudasim

    out = tmp_path / "ds"
    fudasim.run("tensho-ise", rounds=600, shard_rounds=200, engine="reference", out=out, seed=2)
    assert checksum_cost.main(["--dir", str(out), "--repeat", "1"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [row["benchmark"] for row in rows] == ["sha256", "read_table", "report"]
    size = sum(entry["bytes"] for entry in read_manifest(out)["shard_files"])
    for row in rows:
        assert (int(row["rounds"]), int(row["shards"]), int(row["bytes"])) == (600, 3, size)
        seconds = float(row["seconds"])
        assert seconds > 0
        assert float(row["mb_per_s"]) == pytest.approx(size / seconds / 1e6, rel=0.02, abs=1)
    report = float(rows[2]["seconds"])
    assert float(rows[2]["share_of_report"]) == 1.0
    share = float(rows[0]["seconds"]) / report
    assert float(rows[0]["share_of_report"]) == pytest.approx(share, rel=0.02, abs=1e-3)
