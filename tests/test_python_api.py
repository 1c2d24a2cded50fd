"""The Python API (``fudasim.run``, ``fudasim.load``) and docs/python.md, whose code blocks run
here as written, in order, as one notebook session (with DuckDB and polars, test dependencies)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import fudasim
from simcore.dataset import read_dataset

DOC = Path(__file__).resolve().parents[1] / "docs" / "python.md"


@pytest.mark.slow
def test_the_python_page_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 5
    session: dict = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), session)  # noqa: S102 - the page's own code
    # what the page claims: the run exists, its frame is the dataset, the refusal left it alone
    assert session["run"].rounds == 20_000 and len(session["frame"]) == 20_000
    assert "runs/demo" in session["refusal"] and "\n" not in session["refusal"]
    assert len(read_dataset(tmp_path / "runs/demo")) == 20_000
    assert len(session["hands"].iloc[0]["hand_dealt_0"]) == 6


def test_run_gives_the_rows_of_the_cli(tmp_path):
    from click.testing import CliRunner

    from cli.main import main

    result = CliRunner().invoke(main, ["run", "enshu-c", "--players", "4", "--rounds", "500", "--seed", "3",
                                       "--policy", "2=greedy", "--option", "enshu.rounds=1", "-o", str(tmp_path / "cli")])
    assert result.exit_code == 0, result.output
    api = fudasim.run("enshu-c", players=4, rounds=500, seed=3, policies={2: "greedy"},
                      options={"enshu.rounds": 1}, out=tmp_path / "api")
    cli_rows, api_rows = read_dataset(tmp_path / "cli"), read_dataset(tmp_path / "api")
    assert cli_rows.equals(api_rows)
    assert api.rounds == 500


def test_named_yaku_and_cards_are_the_bits_and_masks(tmp_path):
    fudasim.run("tensho-hanafuda", rounds=400, seed=5, out=tmp_path / "d", threads=1)
    raw = fudasim.load(tmp_path / "d")
    named = fudasim.load(tmp_path / "d", yaku="names", cards=True)
    dataset = fudasim.open_dataset(tmp_path / "d")
    assert "yaku_0" not in named.columns
    for y in dataset.yaku:
        expected = (raw["yaku_1"].to_numpy() >> np.uint64(y.bit)) & np.uint64(1)
        assert (named[f"yaku_1:{y.name}"].to_numpy() == expected.astype(bool)).all()
    rules = dataset.rules()
    for row in range(0, 400, 37):
        names = named.iloc[row]["captured_0"]
        mask = int(raw.iloc[row]["captured_0"])
        assert len(names) == mask.bit_count()
        assert [rules.deck.card_id(n) for n in names] == [i for i in range(64) if mask >> i & 1]


@pytest.mark.parametrize(("call", "message"), [
    (lambda p: fudasim.run("no-such-rules", rounds=10, out=p), "no-such-rules"),
    (lambda p: fudasim.run("tensho-ise", rounds=10, policies={0: "nonsense"}, out=p), "nonsense"),
    (lambda p: fudasim.run("tensho-ise", rounds=10, players=3, out=p), "players"),
    (lambda p: fudasim.run("tensho-ise", rounds=10, policies="greedy", out=p), "policies"),
    (lambda p: fudasim.load(p), str),
    (lambda p: fudasim.run("tensho-ise", rounds=10, resume=True, overwrite=True, out=p), "contradict"),
])
def test_bad_input_raises_one_line_errors(tmp_path, call, message):
    with pytest.raises(fudasim.FudasimError) as caught:
        call(tmp_path / "x")
    text = str(caught.value)
    assert "\n" not in text
    if isinstance(message, str):
        assert message in text


def test_load_refuses_an_unknown_column_or_style(tmp_path):
    fudasim.run("tensho-ise", rounds=50, seed=1, out=tmp_path / "d", threads=1)
    with pytest.raises(fudasim.FudasimError, match="payof_0"):
        fudasim.load(tmp_path / "d", ["payof_0"])
    with pytest.raises(fudasim.FudasimError, match="yaku="):
        fudasim.load(tmp_path / "d", yaku="english")


@pytest.mark.slow
def test_a_summary_run_from_python_reports_what_the_full_run_reports(tmp_path):
    """``summary=True`` keeps counts: ``load`` refuses it, the report's tables equal the full run's,
    and ``paired_with`` makes ``compare`` paired."""
    from analysis.compare import compare_runs
    from analysis.report import build_report
    from simcore.errors import FudasimError

    full = fudasim.run(rounds=4000, seed=3, policies={0: "greedy"}, out=tmp_path / "full", shard_rounds=1500)
    counted = fudasim.run(rounds=4000, seed=3, policies={0: "greedy"}, out=tmp_path / "counted", shard_rounds=1500,
                          summary=True)
    with pytest.raises(FudasimError, match="summary run"):
        fudasim.load(counted.path)

    def tables(path):
        return {table.name: table.frame.to_dict() for table in build_report(path).tables if table.name != "run"}

    # a summary run keeps no counts by seat order (docs/summary-runs.md): that table is left out
    assert tables(counted.path) == {k: v for k, v in tables(full.path).items() if k != "outcomes_by_seat_order"}
    kept = build_report(counted.path).table("run").frame.set_index("item")["value"]
    assert kept["kept"].startswith("counts per shard") and "kept" not in set(build_report(full.path).table("run").frame["item"])
    paired = fudasim.run(rounds=4000, seed=3, out=tmp_path / "paired", shard_rounds=1500, summary=True,
                         paired_with=full.path)
    assert any(name.startswith("paired_") for name in compare_runs([full.path, paired.path]).frames())
    with pytest.raises(FudasimError, match="--paired-with"):
        fudasim.run(rounds=100, out=tmp_path / "x", paired_with=full.path)
