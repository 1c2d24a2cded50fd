"""benchmarks/strength.py: the table of docs/policies.md comes from it, so it must run and say
what it measured (here on a small case: greedy against random)."""

from __future__ import annotations

from benchmarks.strength import CASES, main, markdown


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
    assert again.split("|")[:-2] == row.split("|")[:-2]  # all but the rounds/s


def test_a_gap_whose_interval_holds_zero_is_marked():
    rows = [{"case": "c", "weaker": "a", "stronger": "b", "deals": 10, "payoff": (0.01, 0.05),
             "wins": (0.5, 0.1), "share": 0.5, "rounds_per_s": 100.0}]
    text = markdown(rows)
    assert "+0.010 ± 0.050 (n.s.)" in text and "+50.0 ± 10.0 |" in text
