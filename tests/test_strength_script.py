"""benchmarks/strength.py: the table of docs/policies.md comes from it, so it must run and say
what it measured (here on a small case: greedy against random)."""

from __future__ import annotations

import dataclasses

from benchmarks.strength import CASES, main, markdown, strongest


def test_the_strength_table_of_a_small_case(tmp_path, capsys):
    assert main(["--cases", "tensho-set1", "--chain", "random,greedy", "--ismcts", "", "--deals", "400",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    (row,) = [line for line in out.splitlines() if "random → greedy" in line]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[0] == CASES["tensho-set1"].label and cells[2] == "400"
    gap, half = cells[3].split(" ± ")
    assert float(gap) > float(half) > 0  # greedy beats random clearly, even on 400 deals
    assert "python -m benchmarks.strength --cases tensho-set1" in out
    # a second run reuses the finished tournament folders and prints the same figures
    assert main(["--cases", "tensho-set1", "--chain", "random,greedy", "--ismcts", "", "--deals", "400",
                 "--out", str(tmp_path)]) == 0
    (again,) = [line for line in capsys.readouterr().out.splitlines() if "random → greedy" in line]
    assert again.split("|")[:-3] == row.split("|")[:-3]  # all but the times per decision and rounds/s


def test_a_gap_whose_interval_holds_zero_is_marked():
    rows = [{"case": "c", "weaker": "a", "stronger": "b", "deals": 10, "payoff": (0.01, 0.05),
             "wins": (0.5, 0.1), "share": 0.5, "rounds_per_s": 100.0, "us_weaker": 1.25, "us_stronger": 1234.0}]
    text = markdown(rows)
    assert "+0.010 ± 0.050 (n.s.)" in text and "+50.0 ± 10.0 |" in text and "| 1.2 / 1,234 |" in text


def _row(case, weaker, stronger, mean, half):
    return {"case": case, "weaker": weaker, "stronger": stronger, "payoff": (mean, half)}


def test_the_strongest_policy_of_a_case_is_ahead_of_every_policy_it_met():
    rows = [_row("t", "random", "greedy", 0.6, 0.1), _row("t", "greedy", "heuristic", 0.1, 0.05),
            _row("t", "heuristic", "pimc", 0.05, 0.03), _row("t", "heuristic", "ismcts", -0.02, 0.03),
            _row("t", "pimc", "ismcts", -0.08, 0.03),
            _row("w", "greedy", "heuristic", 0.1, 0.05), _row("w", "heuristic", "pimc", -0.01, 0.03),
            _row("w", "heuristic", "ismcts", 0.02, 0.03), _row("w", "pimc", "ismcts", 0.04, 0.03),
            _row("c", "heuristic", "pimc", 0.1, 0.2), _row("c", "pimc", "ismcts", 0.1, 0.2),
            _row("c", "heuristic", "ismcts", -0.1, 0.2)]
    assert strongest(rows) == [("t", "pimc", "clear"), ("w", "ismcts", "not resolved"), ("c", "none", "")]


def test_learned_is_played_only_where_a_model_ships(tmp_path, capsys, monkeypatch):
    # a model ships for Tensho's yaku set 1; the case of Enshu-bana S with 2 players names none here
    monkeypatch.setitem(CASES, "enshu-s2", dataclasses.replace(CASES["enshu-s2"], model=None))
    assert main(["--cases", "tensho-set1,enshu-s2", "--chain", "greedy,heuristic", "--versus", "learned",
                 "--deals", "40", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    learned = [line.split("|")[1].strip() for line in out.splitlines() if "heuristic → learned" in line]
    assert learned == [CASES["tensho-set1"].label]
    assert sum("greedy → heuristic" in line for line in out.splitlines()) == 2
