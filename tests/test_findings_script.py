"""benchmarks/findings.py writes docs/findings.md: on its quick setting it must produce every
section, with intervals, and say which command and commit made it."""

from __future__ import annotations

import re

from benchmarks.findings import main


def test_the_findings_page_of_the_quick_setting(tmp_path, capsys):
    doc = tmp_path / "docs" / "findings.md"
    assert main(["--quick", "--policies", "random,greedy", "--chain", "random,greedy", "--deals", "40",
                 "--rounds", "2000", "--out", str(tmp_path / "runs"), "--doc", str(doc)]) == 0
    text = doc.read_text()
    for heading in ("# Findings", "## Tensho", "### Tensho (Ise), yaku set 1", "## Enshu-bana",
                    "### Enshu-bana C, 3 players", "## Where random play misleads", "## Skill against luck"):
        assert heading in text, heading
    assert "python -m benchmarks.findings --quick" in text and re.search(r"at commit \w+", text)
    assert len(re.findall(r"\d+\.\d+ ± \d+\.\d+", text)) > 20  # numbers come with their intervals
    assert (doc.parent / "findings-dealer-edge.png").read_bytes()[:4] == b"\x89PNG"
    # the page's greedy-vs-random gap in the skill table is positive: greedy beats random
    row = next(line for line in text.splitlines() if line.startswith("| Tensho (Ise), yaku set 1 |")
               and "random -> greedy" not in line and line.count("|") >= 6)
    assert float(row.split("|")[3].split()[0]) > 0
