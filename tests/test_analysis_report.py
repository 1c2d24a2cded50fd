"""``build_report``: every number against a direct pandas computation on the same dataset."""

from __future__ import annotations

import base64
import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from conftest_analysis import Z95, analysis_datasets, wilson_by_hand  # noqa: F401  (session fixture)

from analysis import build_report, render
from analysis.reader import open_run
from simcore.dataset import read_dataset

WIDTH = 100


@pytest.fixture(scope="module")
def ise(analysis_datasets):  # noqa: F811
    path = analysis_datasets["ise_t1"]
    return path, read_dataset(path), build_report(path, figures=True)


@pytest.fixture(scope="module")
def matches(analysis_datasets):  # noqa: F811
    path = analysis_datasets["matches"]
    return path, read_dataset(path), build_report(path)


def _check_rate(row, prefix, successes, trials):
    """The table's rate and 95 % Wilson bounds against the formula worked out in the test module."""
    rate, low, high = wilson_by_hand(successes, trials)
    assert row[f"{prefix}_rate"] == pytest.approx(rate)
    assert row[f"{prefix}_low"] == pytest.approx(low, abs=1e-9)
    assert row[f"{prefix}_high"] == pytest.approx(high, abs=1e-9)


@pytest.mark.slow
def test_outcomes_by_seat_and_role(ise):
    _, rounds, report = ise
    n = len(rounds)
    table = report.table("outcomes_by_seat").frame
    for seat in (0, 1):
        row = table.iloc[seat]
        assert row["rounds_played"] == n  # Tensho: both seats play every round
        _check_rate(row, "win", int((rounds.winner == seat).sum()), n)
        _check_rate(row, "loss", int(((rounds.winner >= 0) & (rounds.winner != seat)).sum()), n)
        _check_rate(row, "draw", int((rounds.winner < 0).sum()), n)
    roles = report.table("outcomes_by_role").frame.set_index("role")
    assert roles.loc["dealer", "rounds_played"] == roles.loc["non-dealer", "rounds_played"] == n
    _check_rate(roles.loc["dealer"], "win", int((rounds.winner == rounds.dealer).sum()), n)
    non_dealer_wins = int(((rounds.winner >= 0) & (rounds.winner != rounds.dealer)).sum())
    _check_rate(roles.loc["non-dealer"], "win", non_dealer_wins, n)
    advantage = report.table("dealer_advantage").frame.iloc[0]
    per_round = (rounds.winner == rounds.dealer).astype(int) - ((rounds.winner >= 0) & (rounds.winner != rounds.dealer))
    assert advantage["advantage_diff"] == pytest.approx(per_round.mean())
    half = Z95 * per_round.std(ddof=1) / np.sqrt(n)
    assert advantage["advantage_high"] - advantage["advantage_diff"] == pytest.approx(half, rel=1e-9)
    assert advantage["advantage_diff"] - advantage["advantage_low"] == pytest.approx(half, rel=1e-9)


def test_outcomes_by_policy_pool_seats(analysis_datasets):  # noqa: F811
    path = analysis_datasets["greedy"]
    rounds = read_dataset(path)
    frame = build_report(path).table("outcomes_by_policy").frame.set_index("policy")
    assert set(frame.index) == {"greedy:yaku_set=1", "random"} or set(frame.index) == {"greedy", "random"}
    greedy = frame.loc[[i for i in frame.index if i.startswith("greedy")][0]]
    _check_rate(greedy, "win", int((rounds.winner == 0).sum()), len(rounds))


def test_end_reasons_and_tiebreak_depth(ise):
    _, rounds, report = ise
    counts = rounds.end_reason.astype(str).value_counts()
    frame = report.table("end_reasons").frame.set_index("end_reason")
    for reason, row in frame.iterrows():
        assert row["count"] == counts.get(reason, 0)
        _check_rate(row, "share", int(counts.get(reason, 0)), len(rounds))
    depth = report.table("tiebreak_depth").frame.set_index("depth")
    assert depth.loc[2, "count"] == counts.get("chaff", 0)
    assert depth.loc[3, "count"] == counts.get("card_value", 0)
    assert depth.loc[4, "count"] == counts.get("draw", 0) + counts.get("final_tie_rule", 0)


def test_instant_wins_by_yaku(ise):
    path, rounds, report = ise
    yaku = {y.key: y.bit for y in open_run(path).yaku}
    instant = rounds[rounds.end_reason.astype(str) == "instant_win"]
    held = np.where(instant.winner == 0, instant.yaku_0, instant.yaku_1).astype(np.uint64)
    frame = report.table("stopping_yaku").frame.set_index("key")
    # Set 1's only instant-win yaku is the Front Elder (Y23).
    assert list(frame.index) == ["Y23"]
    expected = int(((held >> np.uint64(yaku["Y23"])) & np.uint64(1)).sum())
    assert frame.loc["Y23", "count"] == expected == len(instant)


def test_yaku_frequencies_per_seat_and_either(ise):
    path, rounds, report = ise
    frame = report.table("yaku_frequencies").frame.set_index("key")
    # Set 1 is played throughout: the Set-2-only yaku are left out.
    assert "Y25" not in frame.index and "Y31" not in frame.index and "Y21" in frame.index
    for yaku in open_run(path).yaku:
        if yaku.key not in frame.index:
            continue
        row = frame.loc[yaku.key]
        assert row["yaku"] == yaku.name and row["english"] == yaku.english
        bit = np.uint64(1 << yaku.bit)
        seat0 = (rounds.yaku_0.to_numpy(np.uint64) & bit) != 0
        seat1 = (rounds.yaku_1.to_numpy(np.uint64) & bit) != 0
        _check_rate(row, "seat0", int(seat0.sum()), len(rounds))
        _check_rate(row, "seat1", int(seat1.sum()), len(rounds))
        _check_rate(row, "any", int((seat0 | seat1).sum()), len(rounds))


def test_yaku_in_play_follows_the_yaku_set_of_each_round(matches):
    _, rounds, report = matches
    frame = report.table("yaku_frequencies").frame.set_index("key")
    set1 = int((rounds.yaku_set == 1).sum())
    set2 = int((rounds.yaku_set == 2).sum())
    assert frame.loc["Y01", "rounds"] == set1 + set2
    assert frame.loc["Y13", "rounds"] == set1
    assert frame.loc["Y31", "rounds"] == set2


def test_scores_payoffs_and_round_length(ise):
    _, rounds, report = ise
    frame = report.table("score_distribution").frame
    for _, row in frame.iterrows():
        values = rounds[f"{row['measure']}_{row['seat']}"].to_numpy()
        assert row["rounds_played"] == len(values)
        assert row["value_mean"] == pytest.approx(values.mean())
        assert row["value_sd"] == pytest.approx(values.std(ddof=1))
        half = Z95 * values.std(ddof=1) / np.sqrt(len(values))
        assert row["value_high"] - row["value_mean"] == pytest.approx(half, rel=1e-9)
        assert row["value_mean"] - row["value_low"] == pytest.approx(half, rel=1e-9)
        for name, q in (("min", 0), ("p05", 0.05), ("p25", 0.25), ("median", 0.5), ("p75", 0.75),
                        ("p95", 0.95), ("max", 1)):
            assert row[name] == np.quantile(values, q, method="inverted_cdf")
    length = report.table("round_length").frame.iloc[0]
    assert length["turns_mean"] == pytest.approx(rounds.end_turn.mean())
    half = Z95 * rounds.end_turn.std(ddof=1) / np.sqrt(len(rounds))
    assert length["turns_high"] - length["turns_mean"] == pytest.approx(half, rel=1e-9)
    assert length["median"] == np.quantile(rounds.end_turn, 0.5, method="inverted_cdf")
    by_turn = report.table("round_length_distribution").frame.set_index("end_turn")["count"]
    assert by_turn.to_dict() == rounds.end_turn.value_counts().sort_index().to_dict()


def test_match_outcomes_and_first_dealer(matches):
    _, rounds, report = matches
    last = rounds[rounds.match_end]
    first = rounds[rounds.round_in_match == 0].set_index("match")["dealer"]
    winner = np.where(last.match_points_0 > last.match_points_1, 0,
                      np.where(last.match_points_1 > last.match_points_0, 1, -1))
    frame = report.table("match_outcomes").frame.set_index("who")
    n = len(last)
    _check_rate(frame.loc["seat 0"], "win", int((winner == 0).sum()), n)
    _check_rate(frame.loc["seat 1"], "draw", int((winner < 0).sum()), n)
    first_dealer = first.loc[last.match.to_numpy()].to_numpy()
    _check_rate(frame.loc["first dealer"], "win", int((winner == first_dealer).sum()), n)


def test_convergence_ends_at_the_full_estimate(ise):
    _, rounds, report = ise
    frame = report.table("convergence").frame
    last = frame.iloc[-1]
    assert last["rounds"] == len(rounds)
    assert last["seat0_win_rate"] == pytest.approx((rounds.winner == 0).mean())
    _check_rate(last, "seat0_win", int((rounds.winner == 0).sum()), len(rounds))
    row = frame.set_index("rounds").loc[100]
    _check_rate(row, "seat0_win", int((rounds.winner.iloc[:100] == 0).sum()), 100)
    first = rounds.iloc[:100]
    _check_rate(row, "dealer_win", int((first.winner == first.dealer).sum()), 100)


def test_text_report_fits_100_columns_and_shows_sample_sizes(ise):
    _, rounds, report = ise
    text = render(report, "text")
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    assert "Outcomes by seat" in text and "omote ichi-ni-san" in text and "Front One-Two-Three" in text
    assert f"rounds = {len(rounds):,} on every row" in text
    assert re.search(r"\d+\.\d+ (±\d|\[\d)", text)


def test_a_long_last_text_column_wraps_in_text_and_loses_nothing():
    from analysis.render import text_table
    from analysis.tables import Table

    long = "tensho.card_values = T1_ise, T2_alt, T3_hanafuda; tensho.yaku_set_choice = fixed_1, fixed_2, per_round"
    frame = pd.DataFrame({"item": ["rules", "varied", "seed"], "value": ["tensho-ise", long, "9"]})
    lines = text_table(Table("setup", "Setup", frame), width=60).splitlines()
    assert max(len(line) for line in lines) <= 60 and "…" not in "\n".join(lines)
    start = next(k for k, line in enumerate(lines) if line.startswith("varied"))
    first, rest = lines[start], lines[start + 1:-1]  # the "seed" row comes last
    assert rest and all(line.startswith(" " * len("varied  ")) for line in rest)
    assert " ".join([first[len("varied  "):], *(line.strip() for line in rest)]) == long
    assert lines[-1].split() == ["seed", "9"]


def test_html_report_is_self_contained_with_plots(ise):
    _, _, report = ise
    page = render(report, "html")
    assert page.startswith("<!DOCTYPE html>")
    assert "http://" not in page and "https://" not in page and "<script" not in page
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 4
    for data in images:
        png = base64.b64decode(data)
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


def test_html_plots_sit_directly_under_their_tables(ise):
    _, _, report = ise
    page = render(report, "html")
    assert 'id="plots"' not in page  # no separate plot section: every plot has its table
    sections = re.split(r'(?=<h2 id=")', page)
    figures_in = {re.match(r'<h2 id="([^"]+)"', section).group(1): re.findall(r'<figure id="([^"]+)"', section)
                  for section in sections[1:]}
    expected = {"outcomes_by_seat": ["seat_plot"], "yaku_frequencies": ["yaku_plot"],
                "score_distribution": ["score_plot"], "convergence": ["convergence_plot"]}
    assert {name: found for name, found in figures_in.items() if found} == expected
    for name, (figure,) in expected.items():
        section = next(s for s in sections if s.startswith(f'<h2 id="{name}"'))
        assert section.index("</table>") < section.index(f'<figure id="{figure}"')  # under the table


def test_plot_legends_name_each_seats_policy(analysis_datasets):  # noqa: F811
    from analysis import plots
    from analysis.report import build_report as build
    from analysis.tables import convergence

    report = build(analysis_datasets["greedy"])
    summary, tables = report.summary, {t.name: t for t in report.tables}
    policies = summary.dataset.policies
    assert policies[0].startswith("greedy") and policies[1] == "random"
    wanted = [f"seat 0 ({policies[0]})", "seat 1 (random)"]

    def legend(figure):
        return [text.get_text() for text in figure.axes[0].get_legend().get_texts()]

    assert legend(plots.yaku_bars_figure(tables["yaku_frequencies"], 2, policies)) == wanted
    assert legend(plots.score_histograms_figure(summary)) == wanted
    assert legend(plots.convergence_plot_figure(convergence(summary), policies))[0] == f"{wanted[0]} win rate"
    ticks = [t.get_text() for t in plots.seat_win_bars_figure(tables["outcomes_by_seat"]).axes[0].get_xticklabels()]
    assert ticks == [f"seat 0\n{policies[0]}", "seat 1\nrandom"]


def test_json_csv_and_markdown(ise):
    _, rounds, report = ise
    data = json.loads(render(report, "json"))
    tables = {t["name"]: t for t in data["tables"]}
    seat0 = tables["outcomes_by_seat"]["rows"][0]
    assert seat0["win_rate"] == pytest.approx((rounds.winner == 0).mean())
    stacked = pd.read_csv(io.StringIO(render(report, "csv")))
    by_seat = stacked[stacked.table == "outcomes_by_seat"]
    assert by_seat["win_rate"].astype(float).iloc[1] == pytest.approx((rounds.winner == 1).mean())
    markdown = render(report, "md")
    assert "## Outcomes by seat" in markdown and "| seat |" in markdown


def test_hanafuda_dataset_reports(analysis_datasets):  # noqa: F811
    report = build_report(analysis_datasets["hanafuda"])
    assert report.table("run").frame.set_index("item").loc["tensho.card_values", "value"] == "T3_hanafuda"
    assert max(len(line) for line in render(report, "text").splitlines()) <= WIDTH


def test_small_dataset_warns(tmp_path, analysis_datasets):  # noqa: F811
    from conftest_analysis import make_dataset

    path = make_dataset(tmp_path / "tiny", units=40, shards=1)
    report = build_report(path)
    assert any("only 40 rounds" in w for w in report.warnings)
    assert "*" in render(report, "text")


def test_small_run_warning_is_where_the_docs_say(tmp_path):
    """docs/analysis.md says where a small run's warning is printed: the renderers agree."""
    from pathlib import Path

    from conftest_analysis import make_dataset

    report = build_report(make_dataset(tmp_path / "tiny", units=40, shards=1))
    last_table = report.tables[-1].title
    for form in ("text", "md"):
        shown = render(report, form)
        assert shown.index("only 40 rounds") > shown.rindex(last_table), form  # after every table
    shown = render(report, "html")
    assert shown.index("only 40 rounds") < shown.index(report.tables[0].title), "html"
    docs = (Path(__file__).resolve().parents[1] / "docs" / "analysis.md").read_text(encoding="utf-8")
    said = " ".join(docs[docs.index("A run of fewer than 1,000"):].split())
    assert said.startswith("A run of fewer than 1,000 rounds gets a warning too, the first of the "
                           "warnings: at the end of text and Markdown output, at the top of an HTML "
                           "report."), said[:200]
