"""Text tables too wide for the terminal: every block of a split table carries each row's labels.

Real wide reports (a sweep, a rescored run, two tournaments compared, a rescored tournament) are
rendered as text, parsed back into blocks of columns, and every row of every block must name
its labels in full (from the block's own columns, the heading of its group, or the caption's
"X = V on every row"), so that a p-value can be matched to its metric by reading one line.
P-values print one way in every report: ``<0.001`` or three decimals.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest
from click.testing import CliRunner

from analysis.compare_folders import compare_paths, rescore_folder
from analysis.render import TEXT_WIDTH, Report, display_frame, render, text_table
from analysis.report import build_report
from analysis.rescore import rescore_run
from analysis.sweep import build_sweep_report
from analysis.tables import Table
from cli.main import main

RULE = re.compile(r"-+(  -+)*")
CONSTANT = re.compile(r"([a-z][a-z _%]*?) = (.+?) on every row")

# The labels of each table the review found unreadable once split (display headers).
LABELS = {
    ("sweep", "sweep_differences"): ["combination", "metric"],
    ("rescore", "win_rate_shift"): ["alternative", "outcome"],
    ("compare", "pairings"): ["pairing", "policy", "measure"],
    ("tournament_rescore", "pairings"): ["pairing", "alternative", "policy", "measure"],
    ("sweep_rescore", "win_rate_shift"): ["combination", "alternative", "outcome"],
}


def _cli(*args: str) -> None:
    result = CliRunner().invoke(main, [*args, "--no-progress"])
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Report]:
    base = tmp_path_factory.mktemp("wide")
    _cli("sweep", "tensho-ise", "--vary", "tensho.card_values=T1_ise,T3_hanafuda", "--vary",
         "tensho.yaku_set_choice=fixed_1,fixed_2", "--policy", "0=greedy", "--rounds", "2000", "--seed", "1",
         "-o", str(base / "sweep"))
    _cli("run", "tensho-ise", "--rounds", "4000", "--seed", "7", "--policy", "0=greedy", "-o", str(base / "run"))
    for name, extra in (("t", []), ("t3", ["--option", "tensho.card_values=T3_hanafuda"])):
        _cli("tournament", "tensho-ise", "--policies", "random,greedy,heuristic", "--deals", "300", *extra,
             "-o", str(base / name))
    return {
        "sweep": build_sweep_report(base / "sweep"),
        "rescore": rescore_run(base / "run", ["T3_hanafuda"], []),
        "run": build_report(base / "run"),
        "compare": compare_paths([base / "t", base / "t3"]),
        "tournament_rescore": rescore_folder(base / "t", ["T3_hanafuda"], []),
        "sweep_rescore": rescore_folder(base / "sweep", ["T3_hanafuda"], []),
    }


def parse_table(text: str, headers: list[str]) -> list[list[dict[str, str]]]:
    """The blocks of one table's text: per block, per row, {header: cell}, with the labels its
    group heading and its caption give (``headers``: the table's display headers)."""
    lines = text.splitlines()
    note = " ".join(lines[2:next(i for i, line in enumerate(lines) if i + 1 < len(lines)
                                  and RULE.fullmatch(lines[i + 1]))])
    constants = {h: v for h, v in CONSTANT.findall(note) if h in headers}
    blocks: list[list[dict[str, str]]] = []
    group: dict[str, str] = {}
    for i in range(1, len(lines)):
        if not RULE.fullmatch(lines[i]):
            continue
        header_line = lines[i - 1]
        spans = [m.span() for m in re.finditer(r"-+", lines[i])]
        names = [header_line[a:b if k + 1 < len(spans) else None].strip() for k, (a, b) in enumerate(spans)]
        assert all(n in headers for n in names), (names, headers)
        above = i - 2
        while above > 0 and lines[above].startswith("  "):  # a wrapped group heading
            above -= 1
        heading = " ".join([lines[above], *(line.strip() for line in lines[above + 1:i - 1])])
        for h in headers:
            if h not in names and heading.startswith(f"{h}: "):
                group = {h: heading[len(h) + 2:]}
        rows = []
        for line in lines[i + 1:]:
            if not line.strip() or RULE.fullmatch(line):
                break
            cells = {n: line[a:(b if k + 1 < len(spans) else None)].strip()
                     for k, (n, (a, b)) in enumerate(zip(names, spans, strict=True))}
            if not cells[names[0]] and rows:  # a long last column wrapped onto a line of its own
                rows[-1][names[-1]] += " " + cells[names[-1]]
                continue
            rows.append({**constants, **group, **cells})
        blocks.append(rows)
    return blocks


def _reassembled(blocks: list[list[dict[str, str]]], labels: list[str]) -> dict[tuple, dict[str, str]]:
    """Every row's cells from every block, joined by the row's labels (each must be in full)."""
    rows: dict[tuple, dict[str, str]] = {}
    for block in blocks:
        for cells in block:
            assert all(label in cells for label in labels), (labels, cells)
            rows.setdefault(tuple(cells[label] for label in labels), {}).update(cells)
    return rows


@pytest.mark.parametrize(("report_name", "table_name"), sorted(LABELS))
def test_every_block_of_a_split_table_names_each_rows_labels(reports, report_name, table_name):
    table = reports[report_name].table(table_name)
    shown, _ = display_frame(table)
    text = text_table(table, TEXT_WIDTH)
    assert max(len(line) for line in text.splitlines()) <= TEXT_WIDTH
    labels = LABELS[(report_name, table_name)]
    blocks = parse_table(text, list(shown.columns))
    rows = _reassembled(blocks, labels)
    # one row per frame row, whatever block or group it was printed in, each cell as displayed
    expected = {tuple(row[label] for label in labels): row for row in shown.to_dict(orient="records")}
    assert len(expected) == len(shown), "the labels name each row once"
    assert rows == {key: {k: str(v) for k, v in row.items()} for key, row in expected.items()}


def _natural_width(shown: pd.DataFrame) -> int:
    return sum(max([len(h), *(len(c) for c in shown[h])]) for h in shown.columns) + 2 * (len(shown.columns) - 1)


def test_the_tables_read_above_are_too_wide_for_one_block(reports):
    for report_name, table_name in LABELS:
        shown, _ = display_frame(reports[report_name].table(table_name))
        assert _natural_width(shown) > TEXT_WIDTH, (report_name, table_name)


def test_every_block_of_every_table_holds_every_row_with_its_first_label(reports):
    for report in reports.values():
        for table in report.tables:
            shown, _ = display_frame(table)
            if not len(shown):
                continue
            text = text_table(table, TEXT_WIDTH)
            assert max(len(line) for line in text.splitlines()) <= TEXT_WIDTH, table.name
            blocks = parse_table(text, list(shown.columns))
            rows = [row for block in blocks for row in block]
            assert len(rows) % len(shown) == 0 and rows, table.name
            assert all(row.get(shown.columns[0]) for row in rows), table.name
            if _natural_width(shown) <= TEXT_WIDTH:
                assert len(rows) == len(shown), table.name  # what fits is one block


def test_p_values_print_one_way_in_every_report(reports):
    for name, report in reports.items():
        for table in report.tables:
            shown, _ = display_frame(table)
            for column in shown.columns:
                if column == "p" or column.startswith("p "):  # p, p value, p value holm
                    odd = [v for v in shown[column] if not re.fullmatch(r"<0\.001|[01]\.\d{3}|-", v)]
                    assert not odd, (name, table.name, column, odd[:3])


def test_a_label_the_same_on_every_row_moves_into_the_caption():
    frame = pd.DataFrame({"alternative": ["T3_hanafuda / chaff B"] * 2, "outcome": ["seat 0 wins", "drawn"],
                          "original": ["x" * 30] * 2, "rescored": ["y" * 30] * 2, "shift": ["1.0"] * 2,
                          "note": ["z" * 20] * 2})
    text = text_table(Table("t", "T", frame, keys=["alternative", "outcome"]), 100)
    assert "alternative = T3_hanafuda / chaff B on every row" in " ".join(text.splitlines())
    assert all(line.startswith(("seat 0 wins", "drawn")) for line in text.splitlines()[-2:])


def test_the_json_of_a_sweep_keeps_its_p_values_as_numbers(reports):
    import json

    data = json.loads(render(reports["sweep"], "json"))
    rows = next(t for t in data["tables"] if t["name"] == "sweep_differences")["rows"]
    assert rows and all(isinstance(r["p_value"], float) and 0 <= r["p_value"] <= 1 for r in rows)
    assert all(r["p_value_holm"] >= r["p_value"] for r in rows)


def test_given_labels_repeat_in_every_block_even_in_a_table_of_text():
    """``Table.keys`` names the labels where the leading text columns are not all labels (or all
    columns are text, as in "Who leads each pairing")."""
    policies = ["pimc:rollout=greedy,worlds=64", "ismcts:iterations=400,rollout=heuristic"]
    rows = [{"pairing": f"{a} vs {b}", "by": by, "leader first": a, "leader second": b,
             "leader third": f"{b} (rescored)", "changes": "yes"}
            for a, b in (policies, policies[::-1]) for by in ("payoff", "win")]
    table = Table("leaders", "Who leads", pd.DataFrame(rows), keys=["pairing", "by"])
    text = text_table(table, TEXT_WIDTH)
    headers = list(display_frame(table)[0].columns)
    blocks = parse_table(text, headers)
    assert len(blocks) == 4  # a section per pairing, each in two blocks
    assert _reassembled(blocks, ["pairing", "by"]) == {(r["pairing"], r["by"]): r for r in rows}


def test_a_rate_prints_its_bounds_never_plus_or_minus():
    """A proportion's Wilson interval is asymmetric and inside [0, 100]: its cell names both bounds,
    even where they look symmetric at the precision shown; a mean keeps ``±`` where it is symmetric."""
    from analysis.tables import add_mean, add_rate

    frame = pd.DataFrame({"what": ["half", "all", "none"]})
    add_rate(frame, "win", [5000, 2000, 0], [10_000, 2000, 2000], 0.95)
    add_mean(frame, "payoff", [10_000] * 3, [0, 100, -100], [10_000] * 3, 0.95)
    shown, _ = display_frame(Table("t", "T", frame))
    cells = [re.fullmatch(r"([\d.]+) \[([\d.]+), ([\d.]+)\]", cell) for cell in shown["win %"]]
    assert all(cells), shown["win %"].tolist()  # value [low, high], never value ±half
    (value, low, high), (_, _, top), (zero, bottom, _) = ([float(x) for x in c.groups()] for c in cells)
    assert low < value == 50 < high
    assert top == 100 and zero == bottom == 0  # 2,000 of 2,000 and 0 of 2,000 stay inside [0, 100]
    assert all("±" in cell for cell in shown["payoff"])
