"""``fudasim replay DATASET --round R``: the run's own rules, options, policies and match settings.

The replayed round's record must equal the dataset's row in every column; the rows are read
here with pandas (``read_dataset``), not with the code the replay uses to find its row.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from dataset_edits import rewrite_run_metadata

from cli.main import main
from simcore.cards import ids_of
from simcore.dataset import file_digest, read_dataset


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def run(out: Path, *args: str) -> None:
    result = invoke("run", *args, "--engine", "reference", "--out", str(out))
    assert result.exit_code == 0, result.output


def plain(value):
    return value.item() if hasattr(value, "item") else str(value)


def check_round(out: Path, row, seats: int) -> dict:
    """Replay the row's round from the dataset; compare the trace with every column of the row."""
    round_index = int(row["round"])
    result = invoke("replay", str(out), "--round", str(round_index), "--json")
    assert result.exit_code == 0, result.output
    trace = json.loads(result.output)
    expected = {column: plain(value) for column, value in row.items()}
    assert list(trace["row"]) == list(expected)  # same columns, same order
    for column, value in expected.items():
        assert trace["row"][column] == value, (round_index, column)
    assert trace["row_in_dataset"] is True and trace["row_differences"] == []
    # The trace itself (not only the record built from it) tells the same story.
    assert trace["round"] == round_index and trace["winner"] == expected["winner"]
    assert trace["end_reason"] == expected["end_reason"] and trace["end_turn"] == expected["end_turn"]
    assert trace["dealer"] == expected["dealer"] and trace["match"] == expected["match"]
    assert trace["field_dealt"] == ids_of(expected["field_dealt"])
    for seat in range(seats):
        assert trace["seats"][seat]["captured"] == ids_of(expected[f"captured_{seat}"])
        assert trace["seats"][seat]["hand_dealt"] == ids_of(expected[f"hand_dealt_{seat}"])
        for column in ("score", "payoff", "yaku_points", "card_points"):
            assert trace["seats"][seat][column] == expected[f"{column}_{seat}"], (round_index, column, seat)
    return trace


@pytest.mark.slow
def test_tensho_greedy_against_random_with_an_option(tmp_path):
    out = tmp_path / "greedy"
    run(out, "tensho-ise", "--rounds", "60", "--seed", "7", "--policy", "0=greedy",
        "--option", "tensho.yaku_set_choice=fixed_2")
    frame = read_dataset(out)
    for index in (0, 12, 31, 59):
        trace = check_round(out, frame.iloc[index], 2)
        assert trace["yaku_set"] == 2  # the run's option, not the rules file's default
    # The issue this fixes: replaying by seed alone plays random against random on yaku set 1.
    # The dataset's rows are not those, so the check above could not pass by accident.
    by_seed = [json.loads(invoke("replay", "tensho-ise", "--seed", "7", "--round", str(r), "--json").output)
               for r in range(20)]
    assert any(t["winner"] != frame.iloc[r]["winner"] or t["yaku_set"] != 2 for r, t in enumerate(by_seed))
    text = invoke("replay", str(out), "--round", "12")
    assert text.exit_code == 0 and "Turn  1" in text.output
    assert f"agrees with {out}'s row for round 12 in every column" in text.output


@pytest.mark.slow
def test_tensho_match_play(tmp_path):
    out = tmp_path / "matches"
    run(out, "tensho-ise", "--matches", "5", "--rounds-per-match", "4", "--seed", "3",
        "--policy", "1=greedy:yaku_set=2", "--option", "tensho.match_tie=extra_round")
    frame = read_dataset(out)
    assert frame["match"].nunique() == 5 and frame["round_in_match"].max() >= 3
    for index in range(len(frame)):
        check_round(out, frame.iloc[index], 2)
    # Round indices are not dense (stride 8): an index in a match's unused extra-round room is
    # in no row and is refused in one line.
    played = set(frame["round"].tolist())
    missing = next(r for r in range(5 * 8) if r not in played)
    result = invoke("replay", str(out), "--round", str(missing))
    assert result.exit_code == 2 and f"round {missing} was not played" in result.output


@pytest.mark.slow
def test_enshu_c_with_four_players(tmp_path):
    out = tmp_path / "c4"
    run(out, "enshu-c", "--players", "4", "--rounds", "40", "--seed", "11", "--policy", "3=greedy",
        "--policy", "1=greedy")
    frame = read_dataset(out)
    assert {"active_3", "payoff_3"} <= set(frame.columns)
    for index in range(0, 40, 3):
        trace = check_round(out, frame.iloc[index], 4)
        assert trace["players"] == 4


@pytest.mark.slow
def test_enshu_s_match_play(tmp_path):
    out = tmp_path / "s3"
    run(out, "enshu-s", "--players", "3", "--matches", "3", "--rounds-per-match", "3", "--seed", "2",
        "--policy", "0=greedy")
    frame = read_dataset(out)
    for index in range(len(frame)):
        check_round(out, frame.iloc[index], 3)


def test_a_round_outside_the_dataset_and_conflicting_flags_are_one_line_errors(tmp_path):
    out = tmp_path / "d"
    run(out, "tensho-ise", "--rounds", "10", "--seed", "1")
    (tmp_path / "empty").mkdir()
    cases = [
        (["replay", str(out), "--round", "10"], f"{out}: round 10 is not in the dataset (its rounds are 0..9)"),
        (["replay", str(out)], "give --round R"),
        (["replay", str(out), "--round", "1", "--seed", "1"], "--seed:"),
        (["replay", str(out), "--round", "1", "--policy", "0=greedy"], "--policy:"),
        (["replay", str(out), "--round", "1", "--option", "tensho.triple_match=one"], "--option:"),
        (["replay", str(out), "--round", "1", "--deck", "1,2"], "--deck:"),
        (["replay", str(out), "--round", "1", "--dealer", "1"], "--dealer:"),
        (["replay", str(tmp_path / "empty"), "--round", "1"], "not a fudasim dataset"),
        (["replay", str(out / "part-000000.parquet"), "--round", "10"], "round 10 is not in the dataset"),
    ]
    for args, message in cases:
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], (args, result.output)
    # A single shard works as a dataset too.
    assert invoke("replay", str(out / "part-000000.parquet"), "--round", "4").exit_code == 0


def test_a_changed_row_is_reported(tmp_path):
    """A dataset row that the replay does not reproduce is named, column by column (exit 1)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = tmp_path / "d"
    run(out, "tensho-ise", "--rounds", "6", "--seed", "4", "--shard-rounds", "3")
    shard = out / "part-000000.parquet"
    table = pq.read_table(shard)
    index = table.schema.get_field_index("end_turn")
    turns = table.column("end_turn").to_pylist()
    turns[2] = 13  # no round lasts 13 turns
    table = table.set_column(index, table.schema.field(index), pa.array(turns, type=pa.int8()))
    pq.write_table(table, shard)
    result = CliRunner().invoke(main, ["replay", str(out), "--round", "2"])
    # The manifest's size and checksum tell the shard was changed: the round is replayed, but not
    # checked against a row the dataset no longer vouches for.
    assert result.exit_code == 0 and "its shard is missing or damaged" in result.output
    # A dataset whose manifest agrees with the changed bytes (written by another build, say):
    # the replay names the columns its row does not reproduce.
    manifest = json.loads((out / "_run.json").read_text())
    size, sha256 = file_digest(shard)
    manifest["shard_files"][0].update(bytes=size, sha256=sha256)
    (out / "_run.json").write_text(json.dumps(manifest))
    result = CliRunner().invoke(main, ["replay", str(out), "--round", "2"])
    assert result.exit_code == 1
    assert "differs from" in result.output and "in end_turn;" in result.output
    assert invoke("replay", str(out), "--round", "3").exit_code == 0


@pytest.mark.parametrize("kind", ["engine", "sha"])
def test_a_dataset_that_cannot_be_replayed_says_why(tmp_path, kind):
    out = tmp_path / "d"
    run(out, "tensho-ise", "--rounds", "4", "--seed", "4")
    if kind == "engine":
        rewrite_run_metadata(out, engine_version="0")
        message = "engine version 0"
    else:
        rewrite_run_metadata(out, rules_sha256="0" * 64)
        message = "does not match the run's rules_sha256"
    result = invoke("replay", str(out), "--round", "1")
    assert result.exit_code == 2 and message in result.output and len(result.output.strip().splitlines()) == 1


def test_a_round_whose_shard_is_missing_is_replayed_and_says_so(tmp_path):
    out = tmp_path / "d"
    run(out, "tensho-ise", "--rounds", "10", "--seed", "6", "--shard-rounds", "5")
    (out / "part-000001.parquet").unlink()
    result = invoke("replay", str(out), "--round", "7")
    assert result.exit_code == 0
    assert f"{out} has no row for round 7 (its shard is missing or damaged" in result.output
    trace = json.loads(invoke("replay", str(out), "--round", "7", "--json").output)
    assert trace["row_in_dataset"] is False and trace["row"]["round"] == 7
