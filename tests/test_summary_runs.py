"""Summary runs (``fudasim run --summary``): per shard the counts the reports need, not the rows.

Every table of ``fudasim report`` and of ``fudasim compare`` on a summary run equals the table on
the full dataset of the same seed; verify, resume, overwrite and --allow-incomplete work on it;
readers that need rows refuse it in one line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import fudasim
from analysis import tables as T
from analysis.compare import compare_runs
from analysis.reader import AnalysisError, open_run
from analysis.report import build_report
from analysis.rescore import rescore_run
from cli.main import main
from simcore import summary_layout, summary_nb
from simcore.dataset import DatasetError, read_dataset, read_manifest, verify_dataset
from simcore.errors import RunError
from simcore.run import summary_shard
from simcore.run.runner import RunConfig, run


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    """Chunks of a few hundred rounds: every shard is played and counted in several chunks."""
    monkeypatch.setattr(summary_shard, "BLOCK_ROWS", 512)


def invoke(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _own_tables(report) -> list:
    """The game's own tables (koi-koi's calls), counted from the rows only."""
    summary = report.summary
    return [] if summary.section is None else summary.section.tables(summary.section_counts, 0.95, T)


def _frames_equal(full, summary, skip=("run",)) -> None:
    # a summary run keeps no counts by seat order, nor the game's own tables (its Run table says
    # so): only the rows give those tables
    rows_only = {"outcomes_by_seat_order"} | {t.name for t in _own_tables(full)}
    assert not rows_only & {t.name for t in summary.tables}
    shown = [t for t in full.tables if t.name not in rows_only]
    assert [t.name for t in shown] == [t.name for t in summary.tables]
    for mine, theirs in zip(shown, summary.tables, strict=True):
        if mine.name in skip:
            continue
        pd.testing.assert_frame_equal(mine.frame, theirs.frame, check_exact=True, obj=mine.name)
        assert mine.note == theirs.note, mine.name


CASES = {
    "tensho-two-policies-threads": dict(rules="tensho-ise", rounds=9000, units_per_shard=2000,
                                        policies=("random", "greedy"), threads=2),
    "tensho-hanafuda-random-yaku-set": dict(rules="tensho-hanafuda", rounds=4000, units_per_shard=900,
                                            options={"tensho.yaku_set_choice": "random"}),
    "enshu-c-5p-dropouts": dict(rules="enshu-c", rounds=4000, units_per_shard=900, options={"enshu.players": "5"},
                                policies={2: "greedy"}),
    "enshu-w-3p": dict(rules="enshu-w", rounds=3000, units_per_shard=700, options={"enshu.players": "3"}),
    "tensho-matches": dict(rules="tensho-ise", matches=500, units_per_shard=90),
    "enshu-s-matches": dict(rules="enshu-s", matches=200, units_per_shard=45, options={"enshu.players": "3"}),
    "koikoi-heuristic": dict(rules="koikoi", rounds=4000, units_per_shard=900, policies=("heuristic", "random")),
    # matches that end early (a seat at 0 points): their rows are not all filled
    "koikoi-kkj-matches": dict(rules="koikoi-kkj", matches=300, units_per_shard=70,
                               options={"koikoi.start_points": "10"}),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.slow
def test_every_report_table_of_a_summary_run_equals_the_full_datasets(tmp_path, case):
    config = dict(CASES[case], seed=17)
    full = run(RunConfig(out=str(tmp_path / "full"), **config))
    summary = run(RunConfig(out=str(tmp_path / "summary"), summary=True, **config))
    assert read_manifest(tmp_path / "summary")["summary"] is True
    assert summary.shards_written == full.shards_written > 1
    # what `fudasim run` prints counts the same
    for name in ("rounds", "draws", "dealer_wins", "dealer_rounds"):
        assert getattr(summary, name) == getattr(full, name)
    assert (summary.wins == full.wins).all() and (summary.end_reasons == full.end_reasons).all()
    full_report, summary_report = build_report(tmp_path / "full"), build_report(tmp_path / "summary")
    # matches that may end early fill a varying number of rows: the summary's convergence table
    # then shows the running estimates at shard ends (docs/summary-runs.md), its last the full's
    varying = run_info_rounds(tmp_path / "summary") is None and "matches" in config
    _frames_equal(full_report, summary_report, skip=("run", "convergence") if varying else ("run",))
    own_warnings = [w for t in _own_tables(full_report) for w in t.warnings]
    assert [w for w in full_report.warnings if w not in own_warnings] == summary_report.warnings
    if config["rules"].startswith("koikoi"):
        own = {t.name for t in _own_tables(full_report)}
        assert own == {"koikoi_calls", "koikoi_after_call", "koikoi_stop_turn"}
        kept = summary_report.table("run").frame.set_index("item")["value"]["kept"]
        assert kept.endswith("no counts by seat order and none of Koi-koi's own tables")
    full_trace, summary_trace = T.convergence(full_report.summary).frame, T.convergence(summary_report.summary).frame
    if varying:
        pd.testing.assert_frame_equal(full_trace.tail(1).reset_index(drop=True),
                                      summary_trace.tail(1).reset_index(drop=True), check_exact=True)
    else:  # the convergence table at every checkpoint, not only the printed ones
        pd.testing.assert_frame_equal(full_trace, summary_trace, check_exact=True)
    # every shard file is small and holds no rows
    for entry in read_manifest(tmp_path / "summary")["shard_files"]:
        assert entry["bytes"] < 24_000
        assert pq.read_schema(tmp_path / "summary" / entry["file"]).names == ["key", "index", "value"]


def run_info_rounds(path: Path):
    """The run's planned row count (None: its units fill a varying number of rows)."""
    return read_manifest(path)["rounds"]


def test_a_summary_run_on_one_thread_and_two_writes_the_same_bytes(tmp_path):
    config = dict(rules="tensho-ise", rounds=5000, units_per_shard=1200, seed=3, summary=True, command="same")
    run(RunConfig(out=str(tmp_path / "one"), threads=1, **config))
    run(RunConfig(out=str(tmp_path / "two"), threads=2, **config))
    assert read_manifest(tmp_path / "one")["shard_files"] == read_manifest(tmp_path / "two")["shard_files"]


@pytest.mark.slow
def test_a_summary_run_on_a_local_cluster_writes_the_bytes_of_a_local_run(tmp_path):
    config = dict(rules="tensho-ise", rounds=7000, units_per_shard=2000, seed=8, summary=True, command="same",
                  policies={1: "greedy"})
    run(RunConfig(out=str(tmp_path / "base"), rules="tensho-ise", rounds=7000, units_per_shard=3000, seed=8))
    for name, scheduler in (("local", None), ("cluster", "local:2")):
        run(RunConfig(out=str(tmp_path / name), scheduler=scheduler, paired_with=str(tmp_path / "base"), **config))
    assert read_manifest(tmp_path / "cluster")["shard_files"] == read_manifest(tmp_path / "local")["shard_files"]
    assert verify_dataset(tmp_path / "cluster", deep=True) == []


def _paired_tables(report) -> list:
    return [t for t in report.tables if t.name.startswith(("paired_", "pairing_gain_", "winner_changes", "side_by_side"))]


def _renamed(table, names: dict[str, str]) -> pd.DataFrame:
    frame = table.frame.copy()
    frame.columns = [next((b + column[len(a):] for a, b in names.items()
                           if column == a or column.startswith(f"{a}_")), column) for column in frame.columns]
    if "run" in frame:
        frame["run"] = frame["run"].replace(names)
    return frame


@pytest.mark.parametrize(("base", "other"), [
    (dict(rules="tensho-ise", policies=("random", "greedy")),
     dict(rules="tensho-ise", policies=("random", "greedy"), options={"tensho.card_values": "T3_hanafuda"})),
    (dict(rules="enshu-c", options={"enshu.players": "4"}),
     dict(rules="enshu-c", options={"enshu.players": "4"}, policies={0: "greedy"})),
])
@pytest.mark.slow
def test_compare_of_a_paired_summary_run_gives_the_full_datasets_paired_tables(tmp_path, base, other):
    size = dict(rounds=5000, seed=23)
    run(RunConfig(out=str(tmp_path / "A"), units_per_shard=1000, **size, **base))
    run(RunConfig(out=str(tmp_path / "B"), units_per_shard=1000, **size, **other))
    # another shard size than the baseline's: the baseline's units are played again as needed
    run(RunConfig(out=str(tmp_path / "Bs"), units_per_shard=1700, summary=True, paired_with=str(tmp_path / "A"),
                  **size, **other))
    run(RunConfig(out=str(tmp_path / "As"), units_per_shard=1000, summary=True, **size, **base))
    run(RunConfig(out=str(tmp_path / "Bs2"), units_per_shard=1000, summary=True, paired_with=str(tmp_path / "As"),
                  **size, **other))
    full = compare_runs([tmp_path / "A", tmp_path / "B"])
    assert full.metadata["paired"] is True
    for baseline, summary in (("A", "Bs"), ("As", "Bs2")):
        report = compare_runs([tmp_path / baseline, tmp_path / summary])
        assert report.metadata["paired"] is True and report.warnings == full.warnings
        mine, theirs = _paired_tables(full), _paired_tables(report)
        assert [t.name for t in mine] == [t.name.replace(summary, "B") for t in theirs]
        assert len(mine) == 4
        for a, b in zip(mine, theirs, strict=True):
            pd.testing.assert_frame_equal(_renamed(a, {"A": "base", "B": "other"}),
                                          _renamed(b, {baseline: "base", summary: "other"}), check_exact=True,
                                          obj=a.name)
    # a summary run paired with another baseline, or with none, is compared unpaired, and says why
    report = compare_runs([tmp_path / "As", tmp_path / "Bs"])
    assert report.metadata["paired"] is False
    assert [t.name for t in report.tables][-1] == "unpaired_differences"
    (line,) = report.warnings[:1]
    assert line.startswith("cannot pair: Bs was paired with") and "not with As" in line
    report = compare_runs([tmp_path / "A", tmp_path / "As"])
    assert any("without per-round differences" in w and "--paired-with" in w for w in report.warnings)
    report = compare_runs([tmp_path / "Bs", tmp_path / "A"])
    assert report.metadata["paired"] is False
    assert any("Bs was paired with A: give the baseline first" in w for w in report.warnings)


def test_unpaired_compare_of_summary_runs_equals_the_full_datasets(tmp_path):
    config = dict(rules="tensho-ise", rounds=4000, units_per_shard=1000)
    for name, seed, summary in (("a", 1, False), ("b", 2, False), ("as", 1, True), ("bs", 2, True)):
        run(RunConfig(out=str(tmp_path / name), seed=seed, summary=summary, **config))
    full = compare_runs([tmp_path / "a", tmp_path / "b"])
    counted = compare_runs([tmp_path / "as", tmp_path / "bs"])
    assert full.metadata["paired"] is counted.metadata["paired"] is False
    for name in ("side_by_side", "unpaired_differences"):
        pd.testing.assert_frame_equal(_renamed(full.table(name), {"a": "x", "b": "y"}),
                                      _renamed(counted.table(name), {"as": "x", "bs": "y"}), check_exact=True)


def test_paired_with_needs_summary_and_a_baseline_of_the_same_deals(tmp_path):
    run(RunConfig(out=str(tmp_path / "base"), rules="tensho-ise", rounds=500, seed=1))
    with pytest.raises(RunError, match="only with --summary"):
        run(RunConfig(out=str(tmp_path / "x"), rounds=500, seed=1, paired_with=str(tmp_path / "base")))
    with pytest.raises(RunError, match=r"--paired-with .*: a different seed \(1 there, 2 here\)"):
        run(RunConfig(out=str(tmp_path / "x"), rounds=500, seed=2, summary=True, paired_with=str(tmp_path / "base")))
    result = invoke("run", "tensho-ise", "--rounds", "500", "--summary", "--paired-with", tmp_path / "nothing",
                    "-o", tmp_path / "y")
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


@pytest.fixture
def summary_run(tmp_path):
    out = tmp_path / "s"
    run(RunConfig(out=str(out), rules="tensho-ise", rounds=6000, units_per_shard=1000, seed=5, summary=True))
    return out


def test_verify_and_deep_verify_a_summary_run_and_find_a_changed_shard(summary_run):
    result = invoke("verify", summary_run, "--deep")
    assert result.exit_code == 0 and "6,000 summarised rounds" in result.output
    path = summary_run / "part-000002.parquet"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    problems = verify_dataset(summary_run)
    assert problems == ["part-000002.parquet: checksum mismatch (the bytes changed since the run wrote them)"]


def test_resume_finishes_a_summary_run_with_the_bytes_of_an_uninterrupted_one(summary_run, tmp_path):
    config = dict(rules="tensho-ise", rounds=6000, units_per_shard=1000, seed=5, summary=True)
    whole = read_manifest(summary_run)
    (summary_run / "part-000001.parquet").unlink()
    (summary_run / "part-000005.parquet").unlink()
    manifest = json.loads((summary_run / "_run.json").read_text())
    manifest["complete"] = False
    (summary_run / "_run.json").write_text(json.dumps(manifest))
    with pytest.raises(AnalysisError, match="incomplete or damaged dataset"):
        build_report(summary_run)
    partial = build_report(open_run(summary_run, allow_incomplete=True))
    assert partial.summary.rounds == 4000
    assert "INCOMPLETE: 4 of 6 shards (4,000 of 6,000 rounds)" in open_run(summary_run, allow_incomplete=True).incomplete
    result = run(RunConfig(out=str(summary_run), resume=True, **config))
    assert (result.shards_written, result.shards_skipped, result.rounds) == (2, 4, 6000)
    assert read_manifest(summary_run)["shard_files"] == whole["shard_files"]
    # resuming a summary run without --summary (or the reverse) is refused
    with pytest.raises(RunError, match="different summary"):
        run(RunConfig(out=str(summary_run), resume=True, **{**config, "summary": False}))


@pytest.mark.slow
def test_a_killed_summary_run_leaves_complete_shards_and_resume_completes_it_exactly(tmp_path):
    command = [sys.executable, "-m", "cli.main", "run", "tensho-ise", "--rounds", "4000000", "--seed", "77",
               "--shard-rounds", "50000", "--threads", "1", "--no-progress", "--summary"]
    out = tmp_path / "killed"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    process = subprocess.Popen([*command, "--out", str(out)], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while len(list(out.glob("part-*.parquet"))) < 3 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    written = sorted(out.glob("part-*.parquet"))
    assert 3 <= len(written) < 80, "the run was not interrupted part-way"
    for shard in written:  # every shard present is complete: its cells decode
        assert summary_shard.read_cells(shard)["scalar.rounds"] == {0: 50000}
    assert read_manifest(out)["complete"] is False
    resumed = subprocess.run([*command, "--out", str(out), "--resume"], env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert "already present" in resumed.stdout
    assert not [p for p in out.iterdir() if ".tmp-" in p.name]
    whole = subprocess.run([*command, "--out", str(tmp_path / "whole")], env=env, capture_output=True, text=True)
    assert whole.returncode == 0, whole.stderr
    _frames_equal(build_report(tmp_path / "whole"), build_report(out))


def test_overwrite_replaces_a_summary_run_and_a_plain_run_replaces_it_only_with_overwrite(summary_run):
    with pytest.raises(RunError, match="already exists"):
        run(RunConfig(out=str(summary_run), rules="tensho-ise", rounds=3000, seed=5))
    run(RunConfig(out=str(summary_run), rules="tensho-ise", rounds=3000, seed=5, overwrite=True))
    assert "summary" not in read_manifest(summary_run)
    assert len(read_dataset(summary_run)) == 3000


def test_readers_that_need_rows_refuse_a_summary_run_in_one_line(summary_run):
    for command in (("replay", summary_run, "--round", "3"), ("rescore", summary_run, "--card-values", "T3_hanafuda")):
        result = invoke(*command)
        assert result.exit_code == 2, result.output
        (line,) = result.output.strip().splitlines()
        assert "a summary run (fudasim run --summary) keeps counts, not rows" in line
    with pytest.raises(DatasetError, match="keeps counts, not rows"):
        read_dataset(summary_run)
    with pytest.raises(DatasetError, match="keeps counts, not rows"):
        fudasim.load(summary_run)
    with pytest.raises(AnalysisError, match="keeps counts, not rows"):
        rescore_run(summary_run, card_values=["T3_hanafuda"])
    with pytest.raises(AnalysisError, match="keeps counts, not rows"):
        next(open_run(summary_run).iter_batches(["winner"]))
    result = invoke("report", summary_run / "part-000000.parquet")
    assert result.exit_code == 2 and "open its run's folder" in result.output


def test_the_cli_runs_and_reports_a_summary_run(tmp_path):
    out = tmp_path / "cli"
    result = invoke("run", "enshu-w", "--rounds", "3000", "--seed", "4", "--summary", "--shard-rounds", "1000",
                    "-o", out, "--no-progress")
    assert result.exit_code == 0, result.output
    assert "Wrote" in result.output and "3,000 rounds" in result.output
    report = invoke("report", out)
    assert report.exit_code == 0 and "3,000 rounds" in report.output
    other = tmp_path / "cli-seed5"
    assert invoke("run", "enshu-w", "--rounds", "3000", "--seed", "5", "--summary", "-o", other,
                  "--no-progress").exit_code == 0
    assert invoke("compare", out, other).exit_code == 0


@pytest.mark.parametrize("spill_rows", [4096, 8])
def test_histogram_values_outside_the_kernels_window_are_counted_exactly(tmp_path, monkeypatch, spill_rows):
    """Scores beyond the numba pass's window (-4096..4095) are counted from the values it lists,
    and once its list is full (8 rows), from the columns again."""
    monkeypatch.setattr(summary_shard, "SPILL_ROWS", spill_rows)
    from simcore.run.runner import plan_run
    from simcore.run.summary_run import players_engine

    plan, game, compiled, specs = plan_run(RunConfig(rules="tensho-ise", rounds=2000, seed=9, summary=True))
    spec = summary_shard.summary_spec(plan, game, compiled)
    _, sources = summary_shard.column_sources(game, 2)
    score_row = sources["score_0"][1]
    played = []

    def new_play():
        engine = players_engine(game, compiled, specs, "kernel", 9, None, game.output_buffers(spec.block_units))

        def play(first_unit: int, n_units: int):
            ints, masks = engine(first_unit, n_units)
            ints[score_row] *= 10  # most scores now fall outside the window
            played.append(ints[score_row].copy())
            return ints, masks

        return play

    aggregate = summary_shard.compute_summary_shard(game, compiled, spec, 2, 0, 2000, new_play, threads=2)
    cells = dict(((key, index), value) for key, index, value in summary_shard.aggregate_cells(aggregate, spec)
                 if key == "score_0")
    values, counts = np.unique(np.concatenate(played), return_counts=True)
    assert cells == {("score_0", int(v)): int(c) for v, c in zip(values, counts, strict=True)}
    assert values.max() > summary_layout.HISTOGRAM_OFFSET


def test_a_yaku_several_seats_hold_is_counted_once_in_yaku_any(tmp_path):
    """``yaku_any`` counts rounds in which any seat holds a yaku: rows in which two seats hold
    the same yaku (made here by giving seat 1 seat 0's yaku too) count it once, as the full
    dataset's column-wise count does."""
    from simcore.run.runner import plan_run
    from simcore.run.summary_run import players_engine

    plan, game, compiled, specs = plan_run(RunConfig(rules="tensho-ise", rounds=3000, seed=4, summary=True))
    spec = summary_shard.summary_spec(plan, game, compiled)
    _, sources = summary_shard.column_sources(game, 2)
    rows = [sources[f"yaku_{seat}"][1] for seat in (0, 1)]
    played = []

    def new_play():
        engine = players_engine(game, compiled, specs, "kernel", 4, None, game.output_buffers(spec.block_units))

        def play(first_unit: int, n_units: int):
            ints, masks = engine(first_unit, n_units)
            masks[rows[1], ::2] |= masks[rows[0], ::2]
            played.append(masks[rows].copy())
            return ints, masks

        return play

    aggregate = summary_shard.compute_summary_shard(game, compiled, spec, 2, 0, 3000, new_play, threads=2)
    yaku = np.concatenate(played, axis=1)
    bits = np.arange(64, dtype=np.uint64)
    held = (yaku[:, :, None] >> bits) & np.uint64(1)  # seat, row, bit
    assert int((held[0] & held[1]).sum()) > 100  # rows in which both seats hold a yaku
    assert aggregate.arrays["yaku_any"][0].tolist() == (held[0] | held[1]).sum(axis=0).tolist()
    assert aggregate.arrays["yaku_seat"].tolist() == held.sum(axis=1).tolist()


@pytest.mark.parametrize("threads", [1, 2])
def test_an_error_on_a_counting_thread_reaches_the_caller(threads):
    """A chunk that fails (on one of the counting threads) raises its error from ``count``; the
    failed shard's counts are dropped, and the counter then still counts (its threads are
    alive) and closes."""
    from simcore.run.runner import plan_run
    from simcore.run.summary_run import players_engine

    plan, game, compiled, specs = plan_run(RunConfig(rules="tensho-ise", rounds=2000, seed=4, summary=True))
    spec = summary_shard.summary_spec(plan, game, compiled)
    fail = [True]

    def new_play():
        engine = players_engine(game, compiled, specs, "kernel", 4, None, game.output_buffers(spec.block_units))

        def play(first_unit: int, n_units: int):
            if fail[0] and first_unit > 0:
                raise ValueError(f"chunk at unit {first_unit} failed")
            return engine(first_unit, n_units)

        return play

    with summary_shard.ShardCounter(game, compiled, spec, 2, new_play, threads=threads) as counter:
        with pytest.raises(ValueError, match="chunk at unit .* failed"):
            counter.count(0, 2000)
        fail[0] = False
        assert counter.count(0, 2000).rounds == 2000
    assert not counter.pool


def test_the_counting_kernel_has_one_signature(summary_run):
    assert len(summary_nb.summarise_block_nb.signatures) == 1


@pytest.mark.slow
def test_matches_of_varying_length_converge_exactly_at_shard_ends(tmp_path):
    """With extra rounds on a tied match, a shard's first row is not known before the shards
    before it are played: the convergence table is then exact at shard ends, every other table
    as on the full dataset."""
    config = dict(rules="tensho-ise", matches=300, rounds_per_match=6, units_per_shard=70, seed=3,
                  options={"tensho.match_tie": "extra_round"})
    run(RunConfig(out=str(tmp_path / "full"), **config))
    run(RunConfig(out=str(tmp_path / "summary"), summary=True, **config))
    assert read_manifest(tmp_path / "summary")["rounds"] is None
    full, summary = build_report(tmp_path / "full"), build_report(tmp_path / "summary")
    _frames_equal(full, summary, skip=("run", "convergence"))
    rows = read_dataset(tmp_path / "full", ["winner", "dealer"])
    trace = summary.summary.convergence
    ends = np.cumsum([e["rounds"] for e in read_manifest(tmp_path / "summary")["shard_files"]])
    assert trace["rounds"].tolist() == ends.tolist()
    for position, end in enumerate(ends.tolist()):
        assert trace["seat0_wins"][position] == int((rows["winner"][:end] == 0).sum())
        assert trace["dealer_wins"][position] == int((rows["winner"][:end] == rows["dealer"][:end]).sum())


@pytest.mark.parametrize(("rules", "options", "players", "matches"), [
    ("tensho-ise", {}, 2, None), ("enshu-c", {}, 4, None), ("tensho-ise", {}, 2, 3)])
def test_counting_chunks_on_threads_gives_the_counts_of_one_pass(rules, options, players, matches):
    """Chunks played and counted on two threads, each into counts of its own, in whatever order
    the threads take them, give every count and every convergence total of one pass over the
    whole shard (many chunks, of a size that does not divide the shard)."""
    import dataclasses

    from simcore.run.runner import plan_run
    from simcore.run.summary_run import players_engine

    config = RunConfig(rules=rules, options=options, seed=21, summary=True,
                       **({"matches": 700, "rounds_per_match": matches} if matches else {"rounds": 2100}))
    if players != 2:
        config = dataclasses.replace(config, options={**options, "enshu.players": str(players)})
    plan, game, compiled, specs = plan_run(config)
    stride = int(plan["round_stride"])
    units = int(plan["units"])
    aggregates = []
    for block_units, threads in ((units, 1), (31, 2)):  # one pass; many chunks on two threads
        spec = dataclasses.replace(summary_shard.summary_spec(plan, game, compiled), block_units=block_units)

        def new_play(rows=block_units * stride):
            return players_engine(game, compiled, specs, "kernel", 21, matches, game.output_buffers(rows))

        aggregates.append(summary_shard.compute_summary_shard(game, compiled, spec, players, 0, units, new_play,
                                                              threads=threads))
    one, two = aggregates
    assert one.convergence and sorted(one.convergence) == sorted(two.convergence)
    for row in one.convergence:
        assert one.convergence[row].tolist() == two.convergence[row].tolist(), row
    for name in one.arrays:
        assert one.arrays[name].tolist() == two.arrays[name].tolist(), name
    assert one.rounds == two.rounds == units * stride
