"""benchmarks/tune_search.py: an optuna study of a search player's parameters against heuristic
(here two tiny trials), its table of trials and the confirming replay of the best."""

from __future__ import annotations

import pytest

from benchmarks.tune_search import candidate, main, parse_space


def test_the_search_space_and_the_candidate_text():
    space = parse_space(["z=0:3", "worlds=4:32:int", "c=0.1:4:log"], ["rollout=greedy|heuristic"])
    assert space == {"z": ("float", 0.0, 3.0), "worlds": ("int", 4, 32), "c": ("log", 0.1, 4.0),
                     "rollout": ("choice", ("greedy", "heuristic"))}
    assert candidate("pimc", "rollout=heuristic", {"z": 1.23456, "worlds": 8}) == "pimc:rollout=heuristic,worlds=8,z=1.235"


@pytest.mark.slow
def test_a_small_study_runs_resumes_and_confirms_its_best(tmp_path, capsys):
    argv = ["--case", "tensho-set1", "--policy", "pimc", "--fixed", "worlds=2,confirm=2,rollout=heuristic",
            "--tune", "z=0:2", "--trials", "2", "--deals", "6", "--time", "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "`pimc:" in line]
    assert len(rows) == 2 and any(line.endswith("| yes |") for line in rows)
    assert "best: `pimc:confirm=2,rollout=heuristic,worlds=2,z=" not in out  # texts as given, not re-spelled
    assert "best: `pimc:worlds=2,confirm=2,rollout=heuristic,z=" in out and "on seed 12 (6 deals)" in out
    # a second run finds the study complete and plays no new trial
    assert main(argv) == 0
    assert sorted(line for line in capsys.readouterr().out.splitlines() if "`pimc:" in line and line.startswith("| ")) \
        == sorted(rows)
