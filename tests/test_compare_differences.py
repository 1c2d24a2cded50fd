"""``fudasim compare``'s "What differs": every difference the runs' metadata records, nothing else."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from dataset_edits import rewrite_run_metadata

from analysis.compare import compare_runs
from cli.main import main


def run(out: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["run", *args, "--engine", "reference", "--out", str(out)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return str(out)


def differences(report) -> dict[str, list[str]]:
    frame = report.table("differences").frame
    return {row["what"]: [row[c] for c in frame.columns[1:]] for _, row in frame.iterrows()}


def test_policies_options_rounds_and_engine_version_are_listed(tmp_path):
    base = run(tmp_path / "base", "tensho-ise", "--rounds", "50", "--seed", "7")
    other = run(tmp_path / "other", "tensho-ise", "--rounds", "60", "--seed", "7", "--policy", "1=greedy:yaku_set=2",
                "--option", "tensho.card_values=T3_hanafuda")
    rewrite_run_metadata(Path(other), engine_version="1")  # as if written by an older engine
    report = compare_runs([base, other])
    assert differences(report) == {
        "option tensho.card_values": ["T1_ise", "T3_hanafuda"],
        "policy of seat 1": ["random", "greedy:yaku_set=2"],
        "engine version": ["2", "1"],
        "units": ["50", "60"],
        "rounds": ["50", "60"],
    }
    note = report.table("runs").note
    for what in ("option tensho.card_values", "policy of seat 1", "engine version", "rounds"):
        assert what in note


def test_rules_seed_players_and_match_settings_are_listed(tmp_path):
    base = run(tmp_path / "c3", "enshu-c", "--players", "3", "--rounds", "12", "--seed", "1")
    other = run(tmp_path / "c3m", "enshu-c", "--players", "3", "--matches", "3", "--rounds-per-match", "4",
                "--seed", "2", "--policy", "0=greedy")
    third = run(tmp_path / "s3", "enshu-s", "--players", "3", "--rounds", "12", "--seed", "1")
    found = differences(compare_runs([base, other, third]))
    assert found["seed"] == ["1", "2", "1"]
    assert found["policy of seat 0"] == ["random", "greedy", "random"]
    assert found["unit kind"] == ["round", "match", "round"]
    assert found["rounds per match"] == ["-", "4", "-"]
    assert found["units"] == ["12", "3", "12"]
    assert found["rules"] == ["enshu-c", "enshu-c", "enshu-s"]
    assert found["variant"] == ["C", "C", "S"]
    assert "rules file sha256" in found
    assert "rounds" not in found  # 12 rows each
    assert "players" not in found and "policy of seat 1" not in found and "engine version" not in found
    # Options of one variant that the other does not have are differences too.
    assert any(what.startswith("option enshu.") for what in found)


def test_identical_settings_say_nothing_differs_and_the_text_report_shows_the_table(tmp_path):
    base = run(tmp_path / "a", "tensho-ise", "--rounds", "20", "--seed", "3")
    again = run(tmp_path / "b", "tensho-ise", "--rounds", "20", "--seed", "3")
    table = compare_runs([base, again]).table("differences")
    assert list(table.frame["what"]) == ["nothing"] and "no difference" in table.note
    result = CliRunner().invoke(main, ["compare", base, run(tmp_path / "c", "tensho-ise", "--rounds", "20",
                                                            "--seed", "3", "--policy", "0=greedy")],
                                catch_exceptions=False)
    assert result.exit_code == 0 and "What differs" in result.output and "policy of seat 0" in result.output
