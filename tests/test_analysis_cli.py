"""The report, compare and rescore commands: output files, and one-line errors with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest_analysis import analysis_datasets  # noqa: F401  (session fixture)

from cli.analysis_commands import compare, report, rescore
from simcore.run.runner import RunConfig, run


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def _copy_with(source: Path, target: Path, *, game: str | None = None, drop: str | None = None) -> Path:
    """A copy of a dataset with another game in its metadata, or without one column."""
    target.mkdir()
    info = json.loads((source / "_run.json").read_text())
    if game is not None:
        info["game"] = game
    for shard in sorted(source.glob("part-*.parquet")):
        table = pq.read_table(shard)
        metadata = dict(table.schema.metadata)
        metadata[b"fudasim.run"] = json.dumps(info).encode()
        if drop is not None:
            table = table.drop_columns([drop])
        pq.write_table(table.replace_schema_metadata(metadata), target / shard.name)
    (target / "_run.json").write_text(json.dumps(info))
    return target


def _one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("fudasim: error: ")
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_help_for_every_command(runner):
    for command in (report, compare, rescore):
        result = runner.invoke(command, ["--help"])
        assert result.exit_code == 0
        assert "--format" in result.output and "--overwrite" in result.output


@pytest.mark.slow
def test_report_to_the_terminal_and_to_files(runner, analysis_datasets, tmp_path, monkeypatch):  # noqa: F811
    dataset = str(analysis_datasets["ise_t1"])
    result = runner.invoke(report, [dataset])
    assert result.exit_code == 0, result.output
    assert "Outcomes by seat" in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 100
    target = tmp_path / "report.html"
    result = runner.invoke(report, [dataset, "--format", "html", "--output", str(target)])
    assert result.exit_code == 0 and target.read_text().count("data:image/png;base64,") == 4
    result = runner.invoke(report, [dataset, "--format", "html", "--output", str(target)])
    _one_line_error(result, "already exists", "--overwrite")
    result = runner.invoke(report, [dataset, "--format", "json", "--output", str(target), "--overwrite"])
    assert result.exit_code == 0 and json.loads(target.read_text())["tables"]
    working = tmp_path / "cwd"
    working.mkdir()
    monkeypatch.chdir(working)
    result = runner.invoke(report, [dataset, "--format", "csv"])
    assert result.exit_code == 0 and (working / "ise_t1-report.csv").is_file()
    result = runner.invoke(report, [dataset, "--format", "md", "--output", "-"])
    assert result.exit_code == 0 and result.output.startswith("# fudasim report")


@pytest.mark.slow
def test_compare_and_rescore_commands(runner, analysis_datasets):  # noqa: F811
    base, other = str(analysis_datasets["ise_t1"]), str(analysis_datasets["ise_t3"])
    result = runner.invoke(compare, [base, other])
    assert result.exit_code == 0, result.output
    assert "Variance reduction from pairing" in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 100
    result = runner.invoke(rescore, [base, "--card-values", "T3_hanafuda", "--card-values", "T2_alt"])
    assert result.exit_code == 0, result.output
    assert "Rounds that change winner" in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 100


def test_not_a_dataset(runner, tmp_path):
    _one_line_error(runner.invoke(report, [str(tmp_path / "missing")]), "no such dataset")
    _one_line_error(runner.invoke(report, [str(tmp_path)]), "not a fudasim dataset")
    text_file = tmp_path / "notes.parquet"
    text_file.write_text("hello")
    _one_line_error(runner.invoke(report, [str(text_file)]), "not a Parquet file")


def test_parquet_without_fudasim_metadata(runner, analysis_datasets, tmp_path):  # noqa: F811
    shard = sorted(analysis_datasets["ise_t1"].glob("part-*.parquet"))[0]
    plain = tmp_path / "plain"
    plain.mkdir()
    pq.write_table(pq.read_table(shard).replace_schema_metadata({}), plain / "part-000000.parquet")
    _one_line_error(runner.invoke(report, [str(plain)]), "without fudasim run metadata")


@pytest.mark.slow
def test_dataset_of_another_game(runner, analysis_datasets, tmp_path):  # noqa: F811
    source = analysis_datasets["hanafuda"]
    unknown = _copy_with(source, tmp_path / "hana-awase", game="hana-awase")
    _one_line_error(runner.invoke(report, [str(unknown)]), "unknown game 'hana-awase'")
    enshu = tmp_path / "enshu"
    run(RunConfig(rules="enshu-s", options={"enshu.players": "2"}, rounds=200, out=str(enshu)))
    _one_line_error(runner.invoke(rescore, [str(enshu), "--card-values", "T1_ise"]), "rescore needs rounds decided by yaku points")
    _one_line_error(runner.invoke(compare, [str(source), str(enshu)]), "different games")


def test_a_dataset_missing_a_documented_column_is_refused(runner, analysis_datasets, tmp_path):  # noqa: F811
    """A writer that renamed ``payoff_0`` would leave the payoff tables out of every report:
    the report refuses such a dataset, naming the column, instead of reporting without it."""
    source = analysis_datasets["hanafuda"]
    renamed = _copy_with(source, tmp_path / "renamed", drop="payoff_0")
    _one_line_error(runner.invoke(report, [str(renamed)]), "missing column 'payoff_0'", "docs/dataset.md")


def test_missing_columns(runner, analysis_datasets, tmp_path):  # noqa: F811
    source = analysis_datasets["hanafuda"]
    no_winner = _copy_with(source, tmp_path / "no_winner", drop="winner")
    _one_line_error(runner.invoke(report, [str(no_winner)]), "missing column 'winner'")
    no_captures = _copy_with(source, tmp_path / "no_captures", drop="captured_1")
    _one_line_error(runner.invoke(rescore, [str(no_captures), "--card-values", "T1_ise"]),
                    "missing column 'captured_1'")
    no_scores = _copy_with(source, tmp_path / "no_scores", drop="score_0")
    _one_line_error(runner.invoke(report, [str(no_scores)]), "missing column 'score_0'")


def test_unknown_table_and_missing_choice(runner, analysis_datasets):  # noqa: F811
    dataset = str(analysis_datasets["hanafuda"])
    _one_line_error(runner.invoke(rescore, [dataset, "--card-values", "T9"]), "unknown card-value table 'T9'")
    _one_line_error(runner.invoke(rescore, [dataset, "--chaff-set", "Q"]), "unknown chaff set 'Q'")
    _one_line_error(runner.invoke(rescore, [dataset]), "needs --card-values")
    _one_line_error(runner.invoke(compare, [dataset]), "at least two datasets")
