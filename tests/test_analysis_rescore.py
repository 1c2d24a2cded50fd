"""Rescoring from stored capture masks equals re-running the reference engine under the other table."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_analysis import (  # noqa: F401  (analysis_datasets: session fixture)
    SEED,
    Z95,
    analysis_datasets,
    mcnemar_exact_by_hand,
    wilson_by_hand,
)

from analysis import AnalysisError
from analysis.rescore import rescore_rounds, rescore_run
from simcore.dataset import read_dataset
from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.reference import play_unit
from simcore.policies import parse_policy
from simcore.rules import load_rules


@pytest.mark.parametrize(("rerun_name", "card_values", "chaff_set"), [
    ("ise_t3", "T3_hanafuda", None),
    ("ise_chaff_a", None, "A"),
])
def test_rescored_rounds_equal_a_rerun(analysis_datasets, rerun_name, card_values, chaff_set):  # noqa: F811
    rescored = rescore_rounds(analysis_datasets["ise_t1"], card_values, chaff_set)
    rerun = read_dataset(analysis_datasets[rerun_name])
    assert len(rescored) == len(rerun)
    assert (rescored["round"].to_numpy() == rerun["round"].to_numpy()).all()
    assert (rescored["winner_rescored"].to_numpy() == rerun["winner"].to_numpy()).all()
    assert (rescored["end_reason_rescored"].to_numpy() == rerun["end_reason"].astype(str).to_numpy()).all()
    for seat in (0, 1):
        assert (rescored[f"card_points_{seat}"].to_numpy() == rerun[f"card_points_{seat}"].to_numpy()).all()
        assert (rescored[f"chaff_{seat}"].to_numpy() == rerun[f"chaff_{seat}"].to_numpy()).all()
    # The motivating case does change some winners.
    assert (rescored["winner_rescored"] != rescored["winner"]).sum() > 0


def test_rescored_t2_equals_the_reference_engine_round_by_round(analysis_datasets):  # noqa: F811
    rescored = rescore_rounds(analysis_datasets["ise_t1"], "T2_alt").set_index("round")
    compiled = compile_rules(load_rules("tensho-ise", {"tensho.card_values": "T2_alt"}))
    specs = [parse_policy("random"), parse_policy("random")]
    changed = rescored.index[rescored.winner_rescored != rescored.winner][:20].tolist()
    for round_index in changed + list(range(0, 2000, 97)):
        result = play_unit(compiled, specs, SEED, round_index, None)[0]
        assert rescored.loc[round_index, "winner_rescored"] == result.winner


def test_rescore_report_counts(analysis_datasets):  # noqa: F811
    base = read_dataset(analysis_datasets["ise_t1"])
    rerun = read_dataset(analysis_datasets["ise_t3"])
    report = rescore_run(analysis_datasets["ise_t1"], ["T3_hanafuda", "T2_alt"])
    setup = report.table("rescore_setup").frame.set_index("item")["value"]
    assert setup["stored outcomes reproduced"] == f"{len(base):,} of {len(base):,}"
    changes = report.table("winner_changes").frame.set_index("alternative")
    assert changes.loc["T3_hanafuda / chaff B", "changed_count"] == int((base.winner != rerun.winner).sum())
    shift = report.table("win_rate_shift").frame
    row = shift[(shift.alternative == "T3_hanafuda / chaff B") & (shift.outcome == "seat 0 wins")].iloc[0]
    assert row["original_rate"] == pytest.approx((base.winner == 0).mean())
    assert row["rescored_rate"] == pytest.approx((rerun.winner == 0).mean())
    assert row["shift_diff"] == pytest.approx((rerun.winner == 0).mean() - (base.winner == 0).mean())
    # Intervals and test from independent computations: Wilson by formula, the paired normal
    # interval with numpy, the exact McNemar test in integers.
    n = len(base)
    x, y = (base.winner == 0).to_numpy(int), (rerun.winner == 0).to_numpy(int)
    half = Z95 * (y - x).std(ddof=1) / np.sqrt(n)
    assert (row["shift_low"], row["shift_high"]) == pytest.approx((row["shift_diff"] - half, row["shift_diff"] + half))
    discordant = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
    assert row["p_value"] == pytest.approx(mcnemar_exact_by_hand(*discordant), rel=1e-9)
    assert (row["original_low"], row["original_high"]) == pytest.approx(wilson_by_hand(int(x.sum()), n)[1:], abs=1e-9)
    changed = int((base.winner != rerun.winner).sum())
    change = changes.loc["T3_hanafuda / chaff B"]
    assert (change["changed_low"], change["changed_high"]) == pytest.approx(wilson_by_hand(changed, n)[1:], abs=1e-9)
    instant = base.end_reason.astype(str) == "instant_win"
    assert (base.winner[instant] == rerun.winner[instant]).all()
    transitions = report.table("winner_transitions").frame
    t3 = transitions[transitions.alternative == "T3_hanafuda / chaff B"].set_index("original_winner")
    assert t3.loc["seat 0", "now seat 1"] == int(((base.winner == 0) & (rerun.winner == 1)).sum())
    # Random policies, independent rounds, every stored outcome reproduced: only sparse-cell notes.
    assert all("marked *" in w for w in report.warnings), report.warnings


def test_rescore_warns_about_value_sensitive_policies(analysis_datasets):  # noqa: F811
    report = rescore_run(analysis_datasets["greedy"], "T3_hanafuda")
    assert any("greedy" in w for w in report.warnings)


def test_rescore_rejects_unknown_tables(analysis_datasets):  # noqa: F811
    with pytest.raises(AnalysisError, match="unknown card-value table 'T9'.*T1_ise, T2_alt, T3_hanafuda"):
        rescore_run(analysis_datasets["ise_t1"], "T9")
    with pytest.raises(AnalysisError, match="unknown chaff set 'Z'"):
        rescore_run(analysis_datasets["ise_t1"], chaff_sets="Z")
    with pytest.raises(AnalysisError, match="needs --card-values"):
        rescore_run(analysis_datasets["ise_t1"])


def test_sum_over_mask_is_the_card_value_sum(analysis_datasets):  # noqa: F811
    from analysis.rescore import sum_over_mask

    rules = load_rules("tensho-ise")
    rounds = read_dataset(analysis_datasets["ise_t1"]).head(300)
    values = np.array(rules.card_value_tables["T1_ise"])
    assert (sum_over_mask(rounds.captured_0.to_numpy(np.uint64), values) == rounds.card_points_0).all()
