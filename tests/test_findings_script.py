"""benchmarks/findings.py writes docs/findings.md: on its quick setting it must produce every
section, with intervals, and say which command and commit made it; its comparisons (random
against the strongest policy, the page against a fresh seed) must decide as their rule says."""

from __future__ import annotations

import math
import re

import pytest

from benchmarks.findings import Findings, Number, _rate, agreement, differ, main, misleading_lines

Z95 = 1.959963984540054


def _findings(*numbers: Number) -> Findings:
    found = Findings()
    for number in numbers:
        found.put(number)
    return found


def test_agreement_is_the_combined_interval():
    # half-widths 0.3 and 0.4: the combined half-width is 0.5, so 0.49 apart agree and 0.51 do not
    page = [Number("S", "p", "close", 1.00, 0.3, "mean"), Number("S", "p", "far", 1.00, 0.3, "mean"),
            Number("S", "p", "no interval", 1.0, math.nan, "mean"), Number("S", "p", "not rerun", 1.0, 0.1, "mean")]
    fresh = _findings(Number("S", "p", "close", 1.49, 0.4, "mean"), Number("S", "p", "far", 0.49, 0.4, "mean"),
                      Number("S", "p", "no interval", 9.0, 0.1, "mean"))
    agree, disagree = agreement(page, fresh)
    assert [a.quantity for a, _ in agree] == ["close"]
    assert [a.quantity for a, _ in disagree] == ["far"]
    # the rule is |a - b| <= z sqrt(se_a^2 + se_b^2): a larger z lets "far" agree as well
    assert not differ(page[1], fresh.numbers[("S", "p", "far")], z=Z95 * 1.03)


def test_about_95_percent_of_fresh_numbers_agree():
    """Numbers drawn as the page's are (normal, with their true standard error) agree about 95% of the time."""
    import numpy as np

    rng = np.random.default_rng(1)
    page, fresh = [], Findings()
    for k in range(4000):
        se_a, se_b = rng.uniform(0.5, 2.0, 2)
        page.append(Number("S", "p", str(k), rng.normal(0, se_a), Z95 * se_a, "mean"))
        fresh.put(Number("S", "p", str(k), rng.normal(0, se_b), Z95 * se_b, "mean"))
    agree, disagree = agreement(page, fresh)
    assert len(agree) + len(disagree) == 4000
    assert 0.94 < len(agree) / 4000 < 0.96


def test_a_rate_of_zero_keeps_an_interval():
    zero = _rate("S", "p", "ends by fuke", 0, 3000)
    assert zero.value == 0 and 0 < zero.half < 0.002
    assert not differ(zero, _rate("S", "p", "ends by fuke", 1, 3000))  # one round in 3,000 is no difference
    half = _rate("S", "p", "dealer wins", 1500, 3000)
    assert half.half == pytest.approx(Z95 * math.sqrt(0.25 / 3000), rel=1e-3)


def test_misleading_says_which_numbers_differ_and_where_the_sign_flips():
    weak, strong = "random", "pimc"
    found = _findings(
        Number("S", weak, "dealer's edge", 0.020, 0.004, "mean"), Number("S", strong, "dealer's edge", -0.030, 0.010,
                                                                          "mean"),
        Number("S", weak, "ends by chaff", 0.38, 0.002), Number("S", strong, "ends by chaff", 0.34, 0.010),
        Number("S", weak, "yaku A", 0.050, 0.001), Number("S", strong, "yaku A", 0.040, 0.003),
        Number("S", weak, "yaku B", 0.045, 0.001), Number("S", strong, "yaku B", 0.060, 0.003),
        Number("S", weak, "T3 − T1: dealer wins", 0.001, 0.002, "points"),
        Number("S", strong, "T3 − T1: dealer wins", 0.002, 0.010, "points"),
        Number("Same", weak, "dealer wins", 0.50, 0.01), Number("Same", strong, "dealer wins", 0.505, 0.01))
    quantities = {"S": ["dealer's edge", "ends by chaff", "yaku A", "yaku B", "T3 − T1: dealer wins"],
                  "Same": ["dealer wins"]}
    text = "\n".join(misleading_lines(found, ["S", "Same"], quantities, weak, strong))
    assert "**S**: 4 of the 5 numbers reported under both differ beyond their intervals, 1 with the opposite sign" in text
    assert "Random play gets the sign of the dealer's edge wrong: +0.020 ± 0.004 under random, -0.030 ± 0.010" in text
    assert "Random play puts the share of rounds ending by chaff (%) too high: 38.00 ± 0.20 against 34.00 ± 1.00" in text
    assert "Random play puts the frequency of B (% of rounds) too low" in text
    assert ("The most frequent yaku is A under random play (5.00 ± 0.10 against B's 4.50 ± 0.10) but B under pimc "
            "play (6.00 ± 0.30 against 4.00 ± 0.30).") in text
    assert "T3" not in text  # within the intervals
    assert "**Same**: 0 of the 1 numbers" in text


@pytest.mark.slow
def test_the_findings_page_of_the_quick_setting(tmp_path):
    doc = tmp_path / "docs" / "findings.md"
    assert main(["--quick", "--policies", "random,greedy", "--chain", "random,greedy,omniscient:worlds=1,rollout=greedy",
                 "--deals", "30", "--rounds", "2000", "--threads", "1", "--check", "7", "--check-rounds", "1500",
                 "--check-deals", "20", "--out", str(tmp_path / "runs"), "--doc", str(doc)]) == 0
    text = doc.read_text()
    for heading in ("# Findings", "## Tensho", "### Tensho (Ise), yaku set 1", "## Enshu-bana",
                    "### Enshu-bana C, 3 players", "## Where random play misleads", "## Skill against luck",
                    "## Agreement with a fresh run"):
        assert heading in text, heading
    assert "python -m benchmarks.findings --quick" in text and re.search(r"at commit \w+", text)
    assert len(re.findall(r"\d+\.\d+ ± \d+\.\d+", text)) > 60  # numbers come with their intervals
    assert (doc.parent / "findings-dealer-edge.png").read_bytes()[:4] == b"\x89PNG"
    assert (doc.parent / "findings-skill.png").read_bytes()[:4] == b"\x89PNG"
    assert "Skill counts most in " in text
    # random against greedy: every setting is compared, in sentences
    assert re.search(r"\*\*Tensho \(Ise\), yaku set 1\*\*: \d+ of the \d+ numbers reported under both", text)
    assert "**Enshu-bana C, 3 players**" in text.split("## Where random play misleads")[1]
    # the skill table: greedy beats random, and RS has its interval
    row = next(line for line in text.splitlines() if line.startswith("| Tensho (Ise), yaku set 1 |")
               and "[" in line and "->" not in line)
    assert re.search(r"\| \d\.\d{3} \[-?\d\.\d{3}, \d\.\d{3}\] \|", row)
    gap_row = [line for line in text.split("Payoff gap per round")[1].splitlines()
               if line.startswith("| Tensho (Ise), yaku set 1 |")][0]
    assert float(gap_row.split("|")[2].split()[0]) > 0
    # the check compared the page's numbers with seed 7's and says how many agree
    summary = re.search(r"\*\*(\d+) of (\d+) numbers agree \((\d+\.\d)%\)\*\*", text)
    assert summary and int(summary.group(2)) > 50 and int(summary.group(1)) >= 0.8 * int(summary.group(2))
    assert (tmp_path / "runs" / "check-seed7" / "numbers-seed7.json").is_file()
    # a second call reuses every folder and writes the same page
    first = text
    assert main(["--quick", "--policies", "random,greedy", "--chain", "random,greedy,omniscient:worlds=1,rollout=greedy",
                 "--deals", "30", "--rounds", "2000", "--threads", "1", "--check", "7", "--check-rounds", "1500",
                 "--check-deals", "20", "--out", str(tmp_path / "runs"), "--doc", str(doc)]) == 0
    assert doc.read_text() == first


def test_no_run_writes_the_page_from_what_is_there_and_names_the_rest(tmp_path):
    doc = tmp_path / "findings.md"
    assert main(["--quick", "--policies", "random", "--no-skill", "--no-run", "--out", str(tmp_path / "empty"),
                 "--doc", str(doc)]) == 0
    text = doc.read_text()
    assert ("**Not computed yet, so left out of this page:** Tensho (Ise), yaku set 1 / random; "
            "Enshu-bana C, 3 players / random.") in text
    assert not (tmp_path / "empty" / "sweep-tensho-ise-fixed_1-random").exists()  # nothing was run


def test_settings_dealt_alike_are_named_together():
    from benchmarks.findings import _shared_deals

    assert _shared_deals({"A": "x", "B": "y", "C": "x", "D": "z", "E": "z", "F": "z"}) == "*A* and *C*; *D*, *E* and *F*"
    assert _shared_deals({"A": "x", "B": "y"}) == ""


@pytest.mark.slow
def test_the_hanafuda_setting_plays_the_rounds_of_ise_set_1_with_t3(tmp_path):
    # what the page says of Tensho (hanafuda): the same rows as Tensho (Ise), yaku set 1, T3
    import pandas as pd

    import fudasim
    from simcore.dataset import read_dataset

    common = dict(rounds=5_000, seed=5, policies={0: "greedy"}, threads=1)
    fudasim.run("tensho-hanafuda", out=tmp_path / "hanafuda", **common)
    fudasim.run("tensho-ise", out=tmp_path / "ise", options={"tensho.yaku_set_choice": "fixed_1",
                                                             "tensho.card_values": "T3_hanafuda"}, **common)
    pd.testing.assert_frame_equal(read_dataset(tmp_path / "hanafuda"), read_dataset(tmp_path / "ise"))
