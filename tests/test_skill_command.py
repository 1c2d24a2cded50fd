"""``fudasim skill`` end to end: a constructed case whose relative skill is known, the report of
an existing skill tournament, and bad input."""

from __future__ import annotations

import dataclasses
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


def _measured(measures) -> str:
    """Every number of a SkillMeasures but its folder's name."""
    return repr([measures.strength, measures.fictive_strength, measures.best, measures.fictive, measures.gaps,
                 measures.relative, measures.leads, measures.matches, measures.shares])


@pytest.mark.slow
def test_a_skill_tournament_meets_the_omniscient_players_with_the_strongest_fair_policy_only(tmp_path):
    import pandas as pd

    from analysis.skill_report import measure_skill, play_skill, skill_complete, strongest_fair
    from simcore.dataset import read_dataset
    from simcore.errors import RunError
    from simcore.run.tournament import TournamentConfig, read_tournament, run_tournament

    policies = ("random", "greedy", "heuristic", "omniscient:worlds=1,rollout=greedy",
                "omniscient:worlds=2,rollout=random")
    config = TournamentConfig(rules="tensho-ise", policies=policies, deals=40, seed=6, threads=1)
    with pytest.warns(HiddenCardsWarning):
        skill = play_skill(dataclasses.replace(config, out=str(tmp_path / "skill")))
        full = run_tournament(dataclasses.replace(config, out=str(tmp_path / "full")))
    best = strongest_fair(full.out)
    assert policies[best] == measure_skill(full.out).best
    manifest = read_tournament(skill.out)
    wanted = [[0, 1], [0, 2], [1, 2], *sorted([min(h, best), max(h, best)] for h in (3, 4))]
    assert manifest["pairs"] == sorted(wanted) and manifest["complete"] is True
    assert sorted({tuple(e["pair"]) for e in manifest["runs"]}) == [tuple(p) for p in sorted(wanted)]
    assert skill.runs_played == 2 * len(wanted) and skill.runs_skipped == 0
    # every policy's decisions are timed, the omniscient ones in their one pairing too
    assert all(entry is not None for entry in manifest["decision_time"])
    # the same runs as the full tournament's, row for row, and the same measures
    for entry in manifest["runs"]:
        pd.testing.assert_frame_equal(read_dataset(skill.out / entry["name"]), read_dataset(full.out / entry["name"]))
    assert _measured(measure_skill(skill.out)) == _measured(measure_skill(full.out))
    assert skill_complete(skill.out) and skill_complete(full.out)
    # stopped after the fair pairings: not complete for skill; resuming plays the omniscient pairings only
    part = tmp_path / "part"
    run_tournament(dataclasses.replace(config, out=str(part), pairs=((0, 1), (0, 2), (1, 2))))
    assert not skill_complete(part)
    with pytest.warns(HiddenCardsWarning):
        resumed = play_skill(dataclasses.replace(config, out=str(part), resume=True))
    assert (resumed.runs_played, resumed.runs_skipped) == (4, 6)
    assert read_tournament(part)["pairs"] == sorted(wanted) and skill_complete(part)
    assert _measured(measure_skill(part)) == _measured(measure_skill(full.out))
    # a tournament resumed with fewer or other pairings is refused; bad pairings are named
    with pytest.raises(RunError, match="different pairs"):
        run_tournament(dataclasses.replace(config, out=str(part), resume=True, pairs=((0, 1),)))
    with pytest.raises(RunError, match="different pairs"):
        run_tournament(dataclasses.replace(config, out=str(skill.out), resume=True, pairs=((0, 1), (3, 4))))
    for pairs in (((1, 1),), ((0, 5),), ((0, 1, 2),), ()):
        with pytest.raises(RunError, match="pairs: "):
            run_tournament(dataclasses.replace(config, out=str(tmp_path / "bad"), pairs=pairs))
    assert not (tmp_path / "bad").exists()
