"""``fudasim compare`` and ``fudasim rescore`` on tournament and sweep folders (analysis.compare_folders)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from analysis.compare_folders import (
    RESCORE_CAVEAT,
    compare_folder_runs,
    compare_folders,
    compare_paths,
    paired_change,
    policy_values,
    rescore_folder,
)
from analysis.reader import AnalysisError
from analysis.render import render
from analysis.rescore import rescore_rounds, rescore_run
from cli.main import main
from simcore.dataset import read_dataset
from simcore.run.sweep import SweepConfig, run_sweep
from simcore.run.tournament import (
    TOURNAMENT_FILE,
    TournamentConfig,
    read_tournament,
    run_tournament,
)

DEALS = 160
SEED = 3
Z95 = 1.959963984540054


def _tournament(out: Path, policies=("random", "greedy"), deals=DEALS, seed=SEED, **options) -> Path:
    run_tournament(TournamentConfig(rules=options.pop("rules", "tensho-ise"), options=options, policies=policies,
                                    deals=deals, seed=seed, engine="reference", out=str(out)))
    return out


def _sweep(out: Path, vary, policies, rounds=DEALS, seed=SEED) -> Path:
    run_sweep(SweepConfig(vary=vary, policies=policies, rounds=rounds, seed=seed, engine="reference", out=str(out)))
    return out


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("folders")
    values = [("tensho.card_values", ["T1_ise", "T3_hanafuda"])]
    return {
        "t1": _tournament(root / "t1", **{"tensho.card_values": "T1_ise"}),
        "t3": _tournament(root / "t3", **{"tensho.card_values": "T3_hanafuda"}),
        # the same pairing, its policies listed the other way round
        "t3_swapped": _tournament(root / "t3_swapped", policies=("greedy", "random"),
                                  **{"tensho.card_values": "T3_hanafuda"}),
        "other_seed": _tournament(root / "other_seed", seed=SEED + 1, deals=20),
        "other_pairing": _tournament(root / "other_pairing", policies=("random", "greedy:yaku_set=2"), deals=20),
        "enshu": _tournament(root / "enshu", deals=8, rules="enshu-s", **{"enshu.players": "3"}),
        "s_greedy_random": _sweep(root / "s_greedy_random", values, {0: "greedy"}),
        "s_greedy_greedy": _sweep(root / "s_greedy_greedy", values, {0: "greedy", 1: "greedy"}),
        "s_sets": _sweep(root / "s_sets", [("tensho.yaku_set_choice", ["fixed_1", "fixed_2"])], {}, rounds=20),
    }


def invoke(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def refused(result, *words: str) -> None:
    """One line on stderr, exit status 2, no traceback, naming ``words``."""
    assert result.exit_code == 2, (result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fudasim: error: "), result.stderr
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0], (word, lines[0])


def per_deal(folder: Path, deals: int = DEALS) -> dict[tuple[str, str], np.ndarray]:
    """Independently of the module: each policy's per-deal win share and mean payoff, from the rows."""
    manifest = read_tournament(folder)
    out: dict[tuple[str, str], np.ndarray] = {}
    for entry in manifest["runs"]:
        rows = read_dataset(folder / entry["name"]).sort_values("round")
        rows = rows[rows["round"] < deals]
        k = sum(1 for e in manifest["runs"] if e["pair"] == entry["pair"])
        for name in set(entry["policies"]):
            seats = [s for s, p in enumerate(entry["policies"]) if p == name]
            won = rows["winner"].isin(seats).to_numpy(dtype=float)
            payoff = np.mean([rows[f"payoff_{s}"].to_numpy(dtype=float) for s in seats], axis=0)
            for measure, values in (("wins", won), ("payoff", payoff)):
                out[(name, measure)] = out.get((name, measure), 0) + values / k
    return out


# --- one folder's runs ------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_tournament_s_runs_are_compared_paired_and_named_by_their_seats(folders):
    report = compare_folder_runs(folders["t1"])
    runs = report.table("runs").frame
    assert list(runs["run"]) == ["random/greedy", "greedy/random"]
    assert report.metadata["paired"] is True
    folder = report.table("folder").frame.set_index("item")["value"]
    assert folder["run pair-0-1-AB"] == "random/greedy" and folder["kind"] == "tournament"
    paired = report.table("paired_greedy/random").frame.set_index("metric")
    ab = read_dataset(folders["t1"] / "pair-0-1-AB").sort_values("round")
    ba = read_dataset(folders["t1"] / "pair-0-1-BA").sort_values("round")
    expected = (ba["winner"].to_numpy() == 0).mean() - (ab["winner"].to_numpy() == 0).mean()
    assert paired.loc["seat 0 wins", "difference_diff"] == pytest.approx(expected)
    assert paired.loc["seat 0 wins", "paired_rounds"] == DEALS


def test_across_policies_two_runs_on_the_same_deals_are_paired(folders):
    """Runs whose seats hold different policies, on one seed: paired, and what differs is the policies."""
    report = compare_paths([folders["t1"] / "pair-0-1-AB", folders["t1"] / "pair-0-1-BA"])
    assert report.metadata["paired"] is True
    differences = report.table("differences").frame.set_index("what")
    assert differences.loc["policy of seat 0", "random/greedy"] == "random"
    assert differences.loc["policy of seat 0", "greedy/random"] == "greedy"
    assert report.table("winner_changes").frame["paired_rounds"].tolist() == [DEALS]
    # runs of two folders are named with their folder
    across = compare_paths([folders["t1"] / "pair-0-1-AB", folders["t3"] / "pair-0-1-AB"])
    assert list(across.table("runs").frame["run"]) == ["t1: random/greedy", "t3: random/greedy"]
    what = set(across.table("differences").frame["what"])
    assert "option tensho.card_values" in what and "policy of seat 0" not in what


def test_runs_are_picked_by_folder_name_or_label_in_the_order_given(folders):
    by_name = compare_folder_runs(folders["t1"], ["pair-0-1-BA", "pair-0-1-AB"])
    assert list(by_name.table("runs").frame["run"]) == ["greedy/random", "random/greedy"]
    by_label = compare_paths([folders["s_greedy_random"]], runs=["card_values=T3_hanafuda", "combo-000"])
    assert list(by_label.table("runs").frame["run"]) == ["card_values=T3_hanafuda", "card_values=T1_ise"]
    result = invoke("compare", folders["t1"], "--runs", "greedy/random,random/greedy")
    assert result.exit_code == 0, result.output
    assert "greedy/random vs random/greedy (paired)" in result.output


def test_a_sweep_s_runs_start_with_its_baseline(folders):
    report = compare_folder_runs(folders["s_greedy_random"])
    assert list(report.table("runs").frame["run"]) == ["card_values=T1_ise", "card_values=T3_hanafuda"]
    assert "paired_card_values=T3_hanafuda" in report.frames()


# --- two folders -------------------------------------------------------------------------------------


def test_two_tournaments_are_paired_deal_by_deal(folders):
    report = compare_folders(folders["t1"], folders["t3"])
    frame = report.table("pairings").frame.set_index(["policy", "measure"])
    x, y = per_deal(folders["t1"]), per_deal(folders["t3"])
    for name in ("random", "greedy"):
        for measure, key in (("win rate", "wins"), ("mean payoff", "payoff")):
            row = frame.loc[(name, measure)]
            change = y[(name, key)] - x[(name, key)]
            assert row["t1"] == pytest.approx(x[(name, key)].mean())
            assert row["t3"] == pytest.approx(y[(name, key)].mean())
            assert row["change_diff"] == pytest.approx(change.mean())
            half = Z95 * change.std(ddof=1) / math.sqrt(DEALS)
            assert row["change_high"] - row["change_diff"] == pytest.approx(half, rel=1e-6, abs=1e-12)
            assert row["deals"] == DEALS
    gap = frame.loc[("random - greedy", "payoff gap")]
    assert gap["change_diff"] == pytest.approx(
        ((y[("random", "payoff")] - y[("greedy", "payoff")]) - (x[("random", "payoff")] - x[("greedy", "payoff")])).mean())
    assert set(report.table("differences").frame["what"]) == {"option tensho.card_values"}
    setup = report.table("folders").frame.set_index("item")["value"]
    assert setup["rounds dealt the same cards"].startswith(f"{DEALS:,} of {DEALS:,}")
    leaders = report.table("leaders").frame
    assert set(leaders["by"]) == {"payoff", "win"} and "leader t1" in leaders and "leader t3" in leaders
    ratings = report.table("ratings").frame.set_index("policy")
    assert ratings["change_diff"].to_numpy() == pytest.approx((ratings["t3"] - ratings["t1"]).to_numpy())
    assert (ratings["t1_low"] <= ratings["t1"]).all() and (ratings["t1"] <= ratings["t1_high"]).all()


def test_a_pairing_listed_the_other_way_round_is_the_same_pairing(folders):
    straight = compare_folders(folders["t1"], folders["t3"])
    swapped = compare_folders(folders["t1"], folders["t3_swapped"])
    a = straight.table("pairings").frame
    b = swapped.table("pairings").frame.rename(columns=lambda c: c.replace("t3_swapped", "t3"))
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(straight.table("ratings").frame,
                                  swapped.table("ratings").frame.rename(columns=lambda c: c.replace("t3_swapped", "t3")))


def test_a_folder_against_itself_changes_nothing(folders, tmp_path):
    copy = tmp_path / "again"
    shutil.copytree(folders["t1"], copy)
    report = compare_folders(folders["t1"], copy)
    frame = report.table("pairings").frame
    assert (frame["change_diff"] == 0).all() and (frame["change_low"] == 0).all()
    assert not report.table("leaders").frame["changes"].any()
    assert list(report.table("differences").frame["what"]) == ["nothing"]


def test_two_sweeps_are_paired_combination_by_combination(folders):
    report = compare_folders(folders["s_greedy_random"], folders["s_greedy_greedy"])
    frame = report.table("combinations").frame
    assert list(dict.fromkeys(frame["combination"])) == ["card_values=T1_ise", "card_values=T3_hanafuda"]
    row = frame[(frame["combination"] == "card_values=T3_hanafuda") & (frame["metric"] == "seat 1 wins")].iloc[0]
    x = read_dataset(folders["s_greedy_random"] / "combo-001").sort_values("round")
    y = read_dataset(folders["s_greedy_greedy"] / "combo-001").sort_values("round")
    assert row["change_diff"] == pytest.approx((y["winner"].to_numpy() == 1).mean() - (x["winner"].to_numpy() == 1).mean())
    assert row["s_greedy_random"] == pytest.approx((x["winner"].to_numpy() == 1).mean())
    assert "policies" in set(report.table("differences").frame["what"])


def test_every_format_renders_a_folder_comparison_and_rescoring(folders):
    reports = [compare_folders(folders["t1"], folders["t3"]), compare_folders(folders["s_greedy_random"],
                                                                              folders["s_greedy_greedy"]),
               rescore_folder(folders["t1"], "T3_hanafuda"), rescore_folder(folders["s_greedy_random"], "T2_alt")]
    for report in reports:
        for output_format in ("text", "md", "html", "json", "csv"):
            assert render(report, output_format)
        json.loads(render(report, "json"))


@pytest.mark.slow
def test_the_html_of_two_folders_plots_the_changes_under_their_table(folders):
    import io

    from matplotlib.image import imread

    cases = ((("t1", "t3"), "pairings"), (("s_greedy_random", "s_greedy_greedy"), "combinations"))
    for (first, second), table in cases:
        assert not compare_folders(folders[first], folders[second]).figures  # text formats draw nothing
        report = compare_folders(folders[first], folders[second], figures=True)
        (figure,) = report.figures
        assert figure.table == table and figure.caption.startswith(f"{second} - {first}: ")
        image = imread(io.BytesIO(figure.png), format="png")
        assert image.shape[0] > 100 and image.shape[1] > 300 and image.std() > 0  # drawn, not blank
        page = render(report, "html")
        section = page.split(f'<h2 id="{table}">')[1].split("<h2")[0]
        assert section.index("</table>") < section.index(f'<figure id="{table}_plot">')
        assert page.count("data:image/png;base64,") == 1


def test_a_gap_between_two_win_rates_is_in_percentage_points(folders):
    text = render(compare_folders(folders["t1"], folders["t3"]), "text")
    # the pairing's rows (its name may move into the caption when it is the same on every row)
    rows = text.split("Each pairing in t1 and t3")[1].split("\n\n")[0].splitlines()
    gap = next(line for line in rows if line.startswith("random - greedy ") and " win gap " in line)
    rate = next(line for line in rows if line.startswith(("random ", "greedy ")) and " win rate " in line)
    # the gap in each folder and its change are differences of two rates: pp, never %
    assert gap.count(" pp") == 3 and "%" not in gap
    assert rate.count("%") == 2 and rate.count(" pp") == 1


# --- rescoring a folder --------------------------------------------------------------------------------


def test_rescoring_a_tournament_matches_rescoring_each_run(folders):
    report = rescore_folder(folders["t1"], ["T3_hanafuda"])
    frame = report.table("pairings").frame.set_index(["policy", "measure"])
    manifest = read_tournament(folders["t1"])
    wins = {"random": np.zeros(DEALS), "greedy": np.zeros(DEALS)}
    before = {"random": np.zeros(DEALS), "greedy": np.zeros(DEALS)}
    for entry in manifest["runs"]:
        rounds = rescore_rounds(folders["t1"] / entry["name"], "T3_hanafuda").sort_values("round")
        for name in wins:
            seats = [s for s, p in enumerate(entry["policies"]) if p == name]
            wins[name] += rounds["winner_rescored"].isin(seats).to_numpy(dtype=float) / 2
            before[name] += rounds["winner"].isin(seats).to_numpy(dtype=float) / 2
    for name in wins:
        row = frame.loc[(name, "win rate")]
        assert row["original"] == pytest.approx(before[name].mean())
        assert row["rescored"] == pytest.approx(wins[name].mean())
        assert row["change_diff"] == pytest.approx((wins[name] - before[name]).mean())
        # payoffs are +1/-1 by the winner under tensho.match_scoring = round_wins
        payoff = frame.loc[(name, "mean payoff")]
        assert payoff["rescored"] == pytest.approx((2 * wins[name] - 1 + (1 - wins["random"] - wins["greedy"])).mean())
    changes = report.table("winner_changes").frame
    assert list(changes["run"]) == ["random/greedy", "greedy/random"]
    single = rescore_run(folders["t1"] / "pair-0-1-AB", "T3_hanafuda").table("winner_changes").frame
    assert changes["changed_rate"].iloc[0] == pytest.approx(single["changed_rate"].iloc[0])
    setup = report.table("rescore_setup").frame.set_index("item")["value"]
    assert setup["stored outcomes reproduced"] == f"{2 * DEALS:,} of {2 * DEALS:,} rounds"
    assert report.warnings[0] == RESCORE_CAVEAT
    assert {"ratings", "leaders"} <= set(report.frames())


def test_rescoring_under_the_table_played_changes_nothing(folders):
    report = rescore_folder(folders["t1"], "T1_ise")
    frame = report.table("pairings").frame
    assert (frame["change_diff"] == 0).all()
    assert (report.table("winner_changes").frame["changed_rate"] == 0).all()
    assert not report.table("leaders").frame["changes"].any()


def test_rescoring_a_sweep_rescores_every_combination(folders):
    report = rescore_folder(folders["s_greedy_random"], ["T2_alt"], ["A"])
    shifts = report.table("win_rate_shift").frame
    assert list(dict.fromkeys(shifts["combination"])) == ["card_values=T1_ise", "card_values=T3_hanafuda"]
    alone = rescore_run(folders["s_greedy_random"] / "combo-001", ["T2_alt"], ["A"]).table("win_rate_shift").frame
    mine = shifts[shifts["combination"] == "card_values=T3_hanafuda"].drop(columns=["combination"])
    pd.testing.assert_frame_equal(mine.reset_index(drop=True), alone.reset_index(drop=True))
    assert RESCORE_CAVEAT in report.warnings


def test_point_payoffs_do_not_change_when_the_winner_does(tmp_path):
    """With tensho.match_scoring = yaku_points a round's payoff is its score difference, which
    rescoring does not change; win rates still shift."""
    folder = _tournament(tmp_path / "points", deals=120, **{"tensho.match_scoring": "yaku_points"})
    report = rescore_folder(folder, "T3_hanafuda", "F")
    frame = report.table("pairings").frame
    payoffs = frame[frame["measure"].str.contains("payoff")]
    assert len(payoffs) == 3 and (payoffs["change_diff"] == 0).all()
    assert (report.table("winner_changes").frame["changed_rate"] > 0).any()
    assert frame[frame["measure"] == "win rate"]["change_diff"].abs().sum() > 0


def test_folders_of_three_seats(folders, tmp_path):
    enshu = folders["enshu"]
    runs = compare_folder_runs(enshu)
    assert len(runs.table("runs").frame) == 6 and runs.metadata["paired"] is True
    copy = tmp_path / "enshu_again"
    shutil.copytree(enshu, copy)
    frame = compare_folders(enshu, copy).table("pairings").frame
    assert (frame["change_diff"] == 0).all() and set(frame["deals"]) == {8}
    x = per_deal(enshu, 8)
    row = frame.set_index(["policy", "measure"]).loc[("greedy", "win rate")]
    assert row["enshu"] == pytest.approx(x[("greedy", "wins")].mean())


def test_rescore_command_on_folders(folders):
    result = invoke("rescore", folders["t1"], "--card-values", "T3_hanafuda")
    assert result.exit_code == 0, result.output
    assert "Each pairing, original and rescored" in result.output and "the play is not replayed" in result.output
    result = invoke("rescore", folders["s_greedy_random"], "--chaff-set", "A")
    assert result.exit_code == 0, result.output
    assert "card_values=T3_hanafuda" in result.output


# --- statistics helpers ----------------------------------------------------------------------------------


def test_policy_values_and_paired_change():
    values = policy_values("BA", np.array([0, 1, -1]), np.array([[1, -1], [-1, 1], [0, 0]]))
    assert values["wins_B"].tolist() == [1, 0, 0] and values["wins_A"].tolist() == [0, 1, 0]
    assert values["payoff_A"].tolist() == [-1, 1, 0] and values["draws"].tolist() == [0, 0, 1]
    first = np.array([0.0, 1.0, 0.5, 1.0])
    second = np.array([1.0, 1.0, 1.0, 0.0])
    out = paired_change(first, second, 0.95)
    d = second - first
    assert out["change_diff"] == pytest.approx(d.mean())
    assert out["change_high"] - out["change_diff"] == pytest.approx(Z95 * d.std(ddof=1) / 2)
    assert out["p_value"] == pytest.approx(math.erfc(abs(d.mean() / (d.std(ddof=1) / 2)) / math.sqrt(2)))
    same = paired_change(first, first, 0.95)
    assert same["change_diff"] == 0 and same["p_value"] == 1.0


# --- bad input ----------------------------------------------------------------------------------------------


def test_bad_input_is_one_line_and_exit_2(folders, tmp_path):
    (tmp_path / "empty").mkdir()
    t1, t3 = folders["t1"], folders["t3"]
    refused(invoke("compare", tmp_path / "empty"), "empty", "not a run, tournament or sweep folder")
    refused(invoke("compare", tmp_path / "missing"), "missing", "no such run, tournament or sweep folder")
    refused(invoke("compare", t1 / "pair-0-1-AB"), "one run")
    refused(invoke("compare", t1, t1 / "pair-0-1-AB"), "a tournament folder, not a run", "pair-0-1-AB")
    refused(invoke("compare", t1 / "pair-0-1-AB", folders["s_greedy_random"]), "a sweep folder, not a run")
    refused(invoke("compare", t1, folders["s_greedy_random"]), "a tournament", "a sweep")
    refused(invoke("compare", t1, t3, folders["t3_swapped"]), "two tournament or sweep folders at a time")
    refused(invoke("compare", t1, "--runs", "nope"), "nope", "pair-0-1-AB, pair-0-1-BA")
    refused(invoke("compare", t1, "--runs", "pair-0-1-AB"), "at least two runs")
    refused(invoke("compare", t1, "--runs", "pair-0-1-AB,pair-0-1-AB"), "named twice")
    refused(invoke("compare", t1, t3, "--runs", "pair-0-1-AB"), "--runs", "one tournament or sweep folder")
    refused(invoke("compare", t1, folders["other_seed"]), "different seeds", f"{SEED} and {SEED + 1}")
    refused(invoke("compare", t1, folders["other_pairing"]), "no pairing of policies in common")
    refused(invoke("compare", folders["s_greedy_random"], folders["s_sets"]), "no combination in common")
    refused(invoke("compare", t1, folders["enshu"]), "different games")
    two = _tournament(tmp_path / "two", deals=4, rules="enshu-s", **{"enshu.players": "2"})
    refused(invoke("compare", folders["enshu"], two), "different player counts", "3 and 2")
    refused(invoke("rescore", tmp_path / "empty", "--card-values", "T3_hanafuda"), "empty")
    refused(invoke("rescore", t1, "--card-values", "T9"), "T9")
    refused(invoke("rescore", t1), "--card-values")
    refused(invoke("rescore", folders["enshu"], "--card-values", "T3_hanafuda"), "enshu")


def test_an_unfinished_tournament_is_refused_unless_allowed(folders, tmp_path):
    copy = tmp_path / "unfinished"
    shutil.copytree(folders["t1"], copy)
    manifest = json.loads((copy / TOURNAMENT_FILE).read_text())
    manifest["complete"] = False
    (copy / TOURNAMENT_FILE).write_text(json.dumps(manifest))
    refused(invoke("compare", copy), "not complete", "--allow-incomplete")
    refused(invoke("compare", copy, folders["t3"]), "not complete")
    refused(invoke("rescore", copy, "--card-values", "T3_hanafuda"), "not complete")
    assert invoke("compare", copy, "--allow-incomplete").exit_code == 0
    shutil.rmtree(copy / "pair-0-1-BA")
    refused(invoke("compare", copy, folders["t3"], "--allow-incomplete"), "no pairing has a deal", "missing")
    with pytest.raises(AnalysisError, match="pair-0-1-BA"):
        compare_folder_runs(copy, allow_incomplete=True)
    refused(invoke("rescore", copy, "--card-values", "T3_hanafuda", "--allow-incomplete"), "no pairing has a deal")


def test_deals_compared_are_those_both_folders_have(folders, tmp_path):
    short = _tournament(tmp_path / "short", deals=40, **{"tensho.card_values": "T3_hanafuda"})
    report = compare_folders(folders["t1"], short)
    assert set(report.table("pairings").frame["deals"]) == {40}
    assert any("over the first 40" in w for w in report.warnings)
    x, y = per_deal(folders["t1"], 40), per_deal(short, 40)
    row = report.table("pairings").frame.set_index(["policy", "measure"]).loc[("greedy", "win rate")]
    assert row["change_diff"] == pytest.approx((y[("greedy", "wins")] - x[("greedy", "wins")]).mean())


TOKENS = ["t1", "t3", "s_greedy_random", "t1/pair-0-1-AB", "t3/pair-0-1-BA", "empty", "missing", "note.txt",
          "enshu", "other_seed"]


@given(command=st.sampled_from(["compare", "rescore"]), paths=st.lists(st.sampled_from(TOKENS), min_size=1, max_size=3),
       runs=st.one_of(st.none(), st.sampled_from(["pair-0-1-AB", "nope", ",", "greedy/random,pair-0-1-AB",
                                                  "combo-000,combo-001"])),
       table=st.one_of(st.none(), st.sampled_from(["T3_hanafuda", "T9", ""])))
@pytest.mark.slow
def test_any_arguments_give_a_report_or_one_line(folders, command, paths, runs, table):
    root = folders["t1"].parent
    (root / "empty").mkdir(exist_ok=True)
    (root / "note.txt").write_text("not a dataset")
    args = [command, *[str(root / p) for p in paths]]
    if runs is not None and command == "compare":
        args += ["--runs", runs]
    if table is not None and command == "rescore":
        args += ["--card-values", table]
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (0, 2), (args, result.output, result.exception)
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("fudasim: error: "), (args, result.stderr)
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), args
