"""``compare_runs``: paired differences on shared deals, unpaired otherwise, and the gain from pairing."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest_analysis import (  # noqa: F401  (analysis_datasets: session fixture)
    Z95,
    analysis_datasets,
    holm_by_hand,
    mcnemar_exact_by_hand,
    wilson_by_hand,
)

from analysis import AnalysisError, render
from analysis.compare import compare_runs
from simcore.dataset import read_dataset


@pytest.fixture(scope="module")
def card_value_comparison(analysis_datasets):  # noqa: F811
    base, other = analysis_datasets["ise_t1"], analysis_datasets["ise_t3"]
    return read_dataset(base), read_dataset(other), compare_runs([base, other], figures=True)


def test_same_seed_runs_are_paired_and_say_so(card_value_comparison):
    _, _, report = card_value_comparison
    assert report.metadata["paired"] is True
    runs = report.table("runs")
    assert "Paired" in runs.note and "tensho.card_values" in runs.note
    assert list(runs.frame["card_values"]) == ["T1_ise", "T3_hanafuda"]


def test_paired_differences_match_pandas(card_value_comparison):
    base, other, report = card_value_comparison
    frame = report.table("paired_ise_t3").frame.set_index("metric")
    n = len(base)
    for seat in (0, 1):
        x = (base.winner == seat).astype(int).to_numpy()
        y = (other.winner == seat).astype(int).to_numpy()
        d = y - x
        row = frame.loc[f"seat {seat} wins"]
        assert row["paired_rounds"] == n
        assert row["difference_diff"] == pytest.approx(d.mean())
        half = Z95 * d.std(ddof=1) / np.sqrt(n)
        assert row["difference_high"] - row["difference_diff"] == pytest.approx(half, rel=1e-9)
        assert row["difference_diff"] - row["difference_low"] == pytest.approx(half, rel=1e-9)
        discordant = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
        assert sum(discordant) <= 2000  # the exact test applies
        assert row["p_value"] == pytest.approx(mcnemar_exact_by_hand(*discordant), rel=1e-9)
    # Holm's adjustment over the whole table, shown next to the raw p-values
    table = report.table("paired_ise_t3")
    assert list(table.frame["p_value_holm"]) == pytest.approx(holm_by_hand(table.frame["p_value"]))
    assert f"Holm's adjustment over the table's {len(table.frame)} tests" in table.note
    changes = report.table("winner_changes").frame.iloc[0]
    assert changes["changed"] == int((base.winner != other.winner).sum())
    assert changes["same_deal_rate"] == 1.0
    low, high = wilson_by_hand(changes["changed"], n)[1:]
    assert (changes["winner_changed_low"], changes["winner_changed_high"]) == pytest.approx((low, high), abs=1e-9)


def test_pairing_makes_the_interval_markedly_narrower(card_value_comparison):
    base, other, report = card_value_comparison
    gain = report.table("pairing_gain_ise_t3").frame.set_index("metric")
    row = gain.loc["seat 0 wins"]
    paired_width = row["paired_high"] - row["paired_low"]
    unpaired_width = row["unpaired_high"] - row["unpaired_low"]
    assert unpaired_width > 4 * paired_width
    assert row["variance_ratio"] > 16
    # The unpaired width is what two independent runs of this size give.
    p0, p1 = (base.winner == 0).mean(), (other.winner == 0).mean()
    n = len(base)
    # The same with sample variances (n - 1 denominators), as the table computes it.
    independent = 2 * Z95 * np.sqrt((p0 * (1 - p0) + p1 * (1 - p1)) / (n - 1))
    assert unpaired_width == pytest.approx(independent, rel=1e-9)


@pytest.mark.slow
def test_different_seeds_are_compared_unpaired(analysis_datasets):  # noqa: F811
    base, other = analysis_datasets["ise_t1"], analysis_datasets["ise_t1_other_seed"]
    report = compare_runs([base, other])
    assert report.metadata["paired"] is False
    assert "Unpaired" in report.table("runs").note
    assert any("unpaired" in w for w in report.warnings)
    frame = report.table("unpaired_differences").frame.set_index("metric")
    x, y = read_dataset(base), read_dataset(other)
    p0, p1 = (x.winner == 0).mean(), (y.winner == 0).mean()
    row = frame.loc["seat 0 wins"]
    assert row["difference_diff"] == pytest.approx(p1 - p0)
    half = Z95 * np.sqrt(x.winner.eq(0).var(ddof=1) / len(x) + y.winner.eq(0).var(ddof=1) / len(y))
    assert row["difference_high"] - row["difference_diff"] == pytest.approx(half, rel=1e-9)
    # Two-sample z test: p = erfc(|z| / sqrt 2).
    assert row["p_value"] == pytest.approx(math.erfc(abs(p1 - p0) / (half / Z95) / math.sqrt(2)), rel=1e-9)
    assert list(frame["p_value_holm"]) == pytest.approx(holm_by_hand(frame["p_value"]))


@pytest.mark.slow
def test_yaku_set_comparison_side_by_side(analysis_datasets):  # noqa: F811
    base, other = analysis_datasets["ise_t1"], analysis_datasets["ise_set2"]
    report = compare_runs([base, other])
    side = report.table("side_by_side").frame.set_index("metric")
    x, y = read_dataset(base), read_dataset(other)
    assert side.loc["seat 0 wins", "ise_t1"] == pytest.approx((x.winner == 0).mean())
    assert side.loc["seat 0 score", "ise_set2"] == pytest.approx(y.score_0.mean())
    # Red Four (Set 2 only) shows up: zero in Set 1, positive in Set 2.
    assert side.loc["yaku aka-shi", "ise_t1"] == 0 and side.loc["yaku aka-shi", "ise_set2"] > 0
    text = render(report, "text")
    assert max(len(line) for line in text.splitlines()) <= 100


def test_compare_html_has_the_pairing_plot(card_value_comparison):
    _, _, report = card_value_comparison
    page = render(report, "html")
    assert page.count("data:image/png;base64,") == 1
    # The plot sits directly under the variance-reduction table it illustrates.
    section = page.split('<h2 id="pairing_gain_ise_t3">')[1].split("<h2")[0]
    assert section.index("</table>") < section.index('<figure id="pairing_ise_t3">')
    assert 'id="plots"' not in page


def test_compare_refuses_different_games_and_single_runs(analysis_datasets, tmp_path):  # noqa: F811
    with pytest.raises(AnalysisError, match="at least two"):
        compare_runs([analysis_datasets["ise_t1"]])
