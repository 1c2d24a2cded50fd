"""``fudasim skill`` end to end: a constructed case whose relative skill is known, the report of
an existing skill tournament, and bad input."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli.main import main
from simcore.policies import HiddenCardsWarning


def _rows(report: dict, name: str) -> list[dict]:
    return next(t["rows"] for t in report["tables"] if t["name"] == name)


@pytest.mark.slow
def test_two_policies_that_play_alike_have_no_skill_between_them(tmp_path):
    # greedy and greedy:yaku_set=2 play identically under tensho-ise (the yaku set is fixed), so
    # the learning effect from one to the other is exactly 0 on every deal: RS must be 0
    out = tmp_path / "sk"
    with pytest.warns(HiddenCardsWarning):
        result = CliRunner().invoke(main, [
            "skill", "tensho-ise", "--engine", "reference", "--deals", "30", "--seed", "4", "-o", str(out),
            "--policies", "greedy,greedy:yaku_set=2,omniscient:worlds=2,rollout=greedy", "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["notices"] and "omniscient" in report["notices"][0]
    (row,) = _rows(report, "skill_relative")
    setup = {r["item"]: r["value"] for r in _rows(report, "skill_setup")}
    # equally strong: the order of --policies breaks the tie, the later one counting as stronger
    assert row["beginner"] == "greedy" and setup["best fair policy"] == "greedy:yaku_set=2"
    assert row["LE"].startswith("0.000 [0.000, 0.000]") and row["scale"] == "Dreef"
    assert row["RS"].startswith("0.000")
    gaps = _rows(report, "skill_gaps")
    assert gaps[0]["payoff gap per round"].startswith("0.000")
    assert len(gaps) == 1  # between the fair policies; the omniscient one is the fictive player
    assert [r["policy"] for r in _rows(report, "skill_fictive")] == ["omniscient:rollout=greedy,worlds=2"]
    # the report of the finished folder is the same report
    again = CliRunner().invoke(main, ["skill", str(out), "--format", "json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["tables"] == report["tables"]


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    for args, needle in ([["--policies", "greedy"], "at least two"], [["--deals", "0"], "--deals"],
                         [["--policies", "greedy,nonsense"], "nonsense"]):
        result = CliRunner().invoke(main, ["skill", "tensho-ise", "--engine", "reference", "-o",
                                           str(tmp_path / "x"), *args])
        assert result.exit_code == 2, result.output
        assert needle in result.output and len(result.output.strip().splitlines()) == 1
