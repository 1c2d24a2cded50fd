"""``fudasim sweep``: every combination on the same deals, resumable, reported against a baseline."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from analysis.intervals import holm_adjusted as holm
from analysis.sweep import build_sweep_report
from cli.main import main
from simcore.dataset import read_dataset
from simcore.run.runner import RunConfig, run

ROOT = Path(__file__).resolve().parents[1]
VARY = ["--vary", "tensho.card_values=T1_ise,T3_hanafuda", "--vary", "tensho.yaku_set_choice=fixed_1,fixed_2"]


def _sweep(tmp_path, *extra):
    return CliRunner().invoke(main, ["sweep", "tensho-ise", *VARY, "--policy", "0=greedy", "--rounds", "3000",
                                     "--seed", "9", "-o", str(tmp_path / "sw"), "--shard-rounds", "1000", *extra])


@pytest.mark.slow
def test_every_combination_is_the_plain_run_of_its_options(tmp_path):
    result = _sweep(tmp_path, "--format", "json")
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "sw" / "_tournament.json").read_text())
    assert manifest["kind"] == "sweep" and [r["label"] for r in manifest["runs"]] == [
        "card_values=T1_ise, yaku_set_choice=fixed_1", "card_values=T1_ise, yaku_set_choice=fixed_2",
        "card_values=T3_hanafuda, yaku_set_choice=fixed_1", "card_values=T3_hanafuda, yaku_set_choice=fixed_2"]
    plain = tmp_path / "plain"
    run(RunConfig(rules="tensho-ise", options={"tensho.card_values": "T3_hanafuda",
                                               "tensho.yaku_set_choice": "fixed_2"},
                  seed=9, rounds=3000, policies={0: "greedy"}, out=str(plain)))
    assert read_dataset(tmp_path / "sw" / "combo-003").equals(read_dataset(plain))
    # the same deals in every combination
    deals = [read_dataset(tmp_path / "sw" / r["name"], columns=["field_dealt", "hand_dealt_0"])
             for r in manifest["runs"]]
    assert all(d.equals(deals[0]) for d in deals)
    report = json.loads(result.stdout)
    differences = next(t for t in report["tables"] if t["name"] == "sweep_differences")["rows"]
    assert {r["combination"] for r in differences} == {r["label"] for r in manifest["runs"][1:]}
    # yaku set 2 holds more instant-win yaku: rounds end that way far more often, a difference
    # that stays significant after the adjustment for the table's many tests
    moved = [r for r in differences if r["metric"] == "ends by instant_win" and "fixed_2" in r["combination"]]
    assert moved and all(r["difference"].endswith("*") for r in moved)
    # the rounds whose winner changes, counted from the rows
    changes = {r["combination"]: r for r in next(t for t in report["tables"]
                                                  if t["name"] == "sweep_winner_changes")["rows"]}
    base_winner = read_dataset(tmp_path / "sw" / "combo-000", columns=["winner"])["winner"].to_numpy()
    for entry in manifest["runs"][1:]:
        winner = read_dataset(tmp_path / "sw" / entry["name"], columns=["winner"])["winner"].to_numpy()
        row = changes[entry["label"]]
        assert row["changed"] == int((winner != base_winner).sum()) and row["paired_rounds"] == 3000
        assert row["winner_changed_rate"] == pytest.approx((winner != base_winner).mean())
    # Holm's step-down over the table's p-values, by hand: the i-th smallest of m is multiplied by
    # m - i + 1 (i from 1), capped at 1, and made non-decreasing in that order
    frame = build_sweep_report(tmp_path / "sw").table("sweep_differences").frame
    p = frame["p_value"].to_numpy()
    m = len(p)
    order = np.argsort(p, kind="stable")
    by_hand = np.empty(m)
    running = 0.0
    for i, index in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[index]))
        by_hand[index] = running
    assert frame["p_value_holm"].to_numpy() == pytest.approx(by_hand, abs=1e-12)
    bonferroni = np.minimum(1.0, m * p)
    assert not np.allclose(by_hand, bonferroni)  # so Bonferroni in Holm's place fails this test


@pytest.mark.slow
def test_resume_plays_only_what_is_missing_and_gives_the_same_rows(tmp_path):
    assert _sweep(tmp_path).exit_code == 0
    before = read_dataset(tmp_path / "sw" / "combo-002")
    (tmp_path / "sw" / "combo-002" / "part-000001.parquet").unlink()
    again = _sweep(tmp_path, "--resume")
    assert again.exit_code == 0, again.output
    assert "1,000 rounds" in again.output
    assert read_dataset(tmp_path / "sw" / "combo-002").equals(before)
    verified = CliRunner().invoke(main, ["verify", str(tmp_path / "sw")])
    assert verified.exit_code == 0, verified.output
    reported = CliRunner().invoke(main, ["report", str(tmp_path / "sw"), "--format", "html",
                                         "-o", str(tmp_path / "r.html")])
    assert reported.exit_code == 0, reported.output
    html = (tmp_path / "r.html").read_text()
    assert "fudasim sweep" in html and "data:image/png;base64," in html


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    cases = [
        (["--vary", "tensho.no_such=1,2"], "tensho.no_such"),
        (["--vary", "tensho.card_values=T1_ise,T9_none"], "T9_none"),
        (["--vary", "tensho.card_values=T1_ise"], "two combinations"),
        (["--vary", "tensho.card_values"], "OPTION=VALUE1"),
        (["--vary", "tensho.card_values=T1_ise,T3_hanafuda", "--baseline", "5"], "--baseline 5"),
        (["--vary", "tensho.card_values=T1_ise,T3_hanafuda", "--option", "tensho.card_values=T2_alt"], "fixed"),
    ]
    for args, needle in cases:
        result = CliRunner().invoke(main, ["sweep", "tensho-ise", "--rounds", "10", "-o", str(tmp_path / "x"),
                                           *args])
        assert result.exit_code == 2, (args, result.output)
        assert needle in result.output and len(result.output.strip().splitlines()) == 1, result.output


def test_holm_adjustment():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> monotone 0.06
    assert np.allclose(holm(p), [0.03, 0.06, 0.06, 0.02])
    assert np.allclose(holm(np.array([0.5, 0.9])), [1.0, 1.0])


@pytest.mark.slow
def test_a_sweep_is_not_read_as_a_tournament(tmp_path):
    assert _sweep(tmp_path).exit_code == 0
    result = CliRunner().invoke(main, ["skill", str(tmp_path / "sw")])
    assert result.exit_code == 2 and "sweep" in result.output
    assert build_sweep_report(tmp_path / "sw").table("sweep_setup").frame.shape[0] >= 7


@pytest.mark.slow
def test_the_sweep_plot_leaves_a_notebooks_matplotlib_as_it_was(tmp_path):
    # drawing uses no pyplot and no matplotlib.use(): a notebook's backend stays as it was
    assert _sweep(tmp_path).exit_code == 0
    code = ("import sys, matplotlib; matplotlib.use('svg'); from analysis.sweep import build_sweep_report; "
            "report = build_sweep_report(sys.argv[1], figures=True); "
            "print(len(report.figures), matplotlib.get_backend(), 'matplotlib.pyplot' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "sw")], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "svg", "False"]


@pytest.mark.slow
def test_a_summary_sweep_reports_what_a_sweep_of_rows_reports(tmp_path):
    import pandas as pd

    from simcore.dataset import read_manifest

    def sweep(name, *extra):
        result = CliRunner().invoke(main, ["sweep", "tensho-ise", *VARY, "--policy", "0=greedy", "--rounds", "3000",
                                           "--seed", "9", "-o", str(tmp_path / name), "--shard-rounds", "1000",
                                           "--baseline", "2", *extra])
        assert result.exit_code == 0, result.output
        return build_sweep_report(tmp_path / name)

    rows, counts = sweep("rows"), sweep("counts", "--summary")
    for name in ("sweep_levels", "sweep_differences"):
        pd.testing.assert_frame_equal(counts.table(name).frame, rows.table(name).frame)
    assert "kept" in set(counts.table("sweep_setup").frame["item"])
    # the baseline is a summary run; every other combination is one paired with it
    manifests = {k: read_manifest(tmp_path / "counts" / f"combo-{k:03d}") for k in range(4)}
    assert all(m["summary"] is True for m in manifests.values())
    assert manifests[2].get("paired_with") is None
    assert all(manifests[k]["paired_with"]["path"] == str(tmp_path / "counts" / "combo-002") for k in (0, 1, 3))
    verified = CliRunner().invoke(main, ["verify", str(tmp_path / "counts")])
    assert verified.exit_code == 0 and "OK, complete sweep: 4 runs, 12,000 rounds" in verified.output, verified.output
    # a lost shard is played again by --resume, paired as before; resuming without --summary is refused
    (tmp_path / "counts" / "combo-003" / "part-000001.parquet").unlink()
    refused = CliRunner().invoke(main, ["sweep", "tensho-ise", *VARY, "--policy", "0=greedy", "--rounds", "3000",
                                        "--seed", "9", "-o", str(tmp_path / "counts"), "--shard-rounds", "1000",
                                        "--baseline", "2", "--resume"])
    assert refused.exit_code == 2 and "summary" in refused.output
    again = sweep("counts", "--summary", "--resume")
    pd.testing.assert_frame_equal(again.table("sweep_differences").frame, rows.table("sweep_differences").frame)
    # two folders pair round by round only when both keep their rows
    compared = CliRunner().invoke(main, ["compare", str(tmp_path / "rows"), str(tmp_path / "counts")])
    assert compared.exit_code == 2 and compared.output.count("\n") == 1 and "summary sweep" in compared.output


@pytest.mark.slow
def test_allow_incomplete_reads_a_sweep_with_a_combination_missing(tmp_path):
    """A deleted combination is refused with the ways on, and left out (and said to be) with
    --allow-incomplete by report, compare and rescore; a damaged one is read from its intact shards."""
    assert _sweep(tmp_path).exit_code == 0
    folder = tmp_path / "sw"
    manifest = json.loads((folder / "_tournament.json").read_text())
    gone = manifest["runs"][2]
    shutil.rmtree(folder / gone["name"])
    (folder / "combo-003" / "part-000002.parquet").unlink()
    refused = CliRunner().invoke(main, ["report", str(folder)])
    assert refused.exit_code == 2
    assert "is missing" in refused.output and "--resume" in refused.output and "--allow-incomplete" in refused.output
    for args in (["report"], ["compare"], ["rescore", "--card-values", "T2_alt"]):
        result = CliRunner().invoke(main, [*args, str(folder), "--allow-incomplete", "--format", "json", "-o", "-"])
        assert result.exit_code == 0, (args, result.output)
        report = json.loads(result.stdout)
        notes = " ".join(report["metadata"]["incomplete"] if "incomplete" in report["metadata"]
                         else report["warnings"])
        assert f"{gone['name']} ({gone['label']}): missing; left out" in notes, (args, notes)
        text = json.dumps(report["tables"])
        assert "card_values=T1_ise, yaku_set_choice=fixed_2" in text and gone["label"] not in text, args
    report = build_sweep_report(folder, allow_incomplete=True)
    assert any("combo-003" in note and "2 of 3 shards" in note for note in report.incomplete), report.incomplete
    # two sweeps: the combination missing in one is left out of the pairing
    assert _sweep(tmp_path / "other").exit_code == 0
    paired = CliRunner().invoke(main, ["compare", str(tmp_path / "other" / "sw"), str(folder), "--allow-incomplete",
                                       "--format", "json", "-o", "-"])
    assert paired.exit_code == 0, paired.output
    rows = next(t for t in json.loads(paired.stdout)["tables"] if t["name"] == "combinations")["rows"]
    assert gone["label"] not in {row["combination"] for row in rows} and len({r["combination"] for r in rows}) == 3
