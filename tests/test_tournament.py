"""``fudasim tournament``: seatings, common random numbers, resume, bad input, the statistics."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from analysis.report import build_report
from analysis.tournament import (
    ELO_SCALE,
    PairOutcomes,
    bootstrap_ratings,
    bradley_terry,
    build_tournament_report,
    open_tournament,
    pair_table,
    pair_wins,
    per_deal_outcomes,
)
from cli.main import main
from simcore.dataset import read_dataset
from simcore.errors import PolicyError, RunError
from simcore.run.tournament import (
    TOURNAMENT_FILE,
    TournamentConfig,
    read_tournament,
    run_tournament,
    seatings,
    split_policies,
    verify_tournament,
)


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def deal_columns(players: int) -> list[str]:
    return ["round", "dealer", "field_dealt", *[f"hand_dealt_{seat}" for seat in range(players)]]


def run_frames(out: Path) -> dict[str, pd.DataFrame]:
    return {entry["name"]: read_dataset(out / entry["name"]) for entry in read_tournament(out)["runs"]}


# --- the policy list and the seatings -------------------------------------------------------------


def test_split_policies_keeps_a_policy_s_parameters_together():
    assert split_policies("random,greedy,heuristic,pimc:worlds=64") == ["random", "greedy", "heuristic",
                                                                         "pimc:worlds=64"]
    assert split_policies("random,pimc:worlds=64,rollout=greedy,greedy") == [
        "random", "pimc:worlds=64,rollout=greedy", "greedy"]
    assert split_policies("greedy:yaku_set=2;random") == ["greedy:yaku_set=2", "random"]
    assert split_policies("ismcts:iterations=8,c=1.5,rollout=greedy, random") == [
        "ismcts:iterations=8,c=1.5,rollout=greedy", "random"]
    with pytest.raises(RunError, match="no policy before it"):
        split_policies("worlds=3,random")
    with pytest.raises(RunError, match="empty item"):
        split_policies("random,,greedy")


def test_seatings_are_as_documented_and_balanced():
    assert seatings(2) == ["AB", "BA"]
    assert sorted(seatings(3)) == sorted(["AAB", "ABA", "BAA", "ABB", "BAB", "BBA"])
    assert seatings(4) == ["AABB", "ABBA", "BBAA", "BAAB"]
    assert seatings(5) == ["AAABB", "AABBA", "ABBAA", "BBAAA", "BAAAB",
                           "BBBAA", "BBAAB", "BAABB", "AABBB", "ABBBA"]
    for players in range(2, 6):
        table = np.array([[letter == "A" for letter in seating] for seating in seatings(players)])
        assert len(set(seatings(players))) == len(table)
        # each policy holds each seat equally often, and both hold as many seats in all
        assert (table.sum(axis=0) * 2 == len(table)).all(), players
        assert table.sum() * 2 == table.size
        assert table.any(axis=1).all() and (~table).any(axis=1).all()  # both policies play every seating


# --- playing: common random numbers, seatings, resume ---------------------------------------------


@pytest.fixture(scope="module")
def tensho_tournament(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("t") / "tournament"
    result = invoke("tournament", "tensho-ise", "--policies", "random,greedy,greedy:yaku_set=2", "--deals", "300",
                    "--seed", "11", "-o", str(out), "--shard-rounds", "100", "--threads", "1", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "Bradley-Terry ratings" in result.output and "Pairings" in result.output
    return out


@pytest.mark.slow
def test_every_pairing_and_seating_plays_the_same_deals(tensho_tournament):
    manifest = read_tournament(tensho_tournament)
    assert manifest["policies"] == ["random", "greedy", "greedy:yaku_set=2"]
    assert manifest["seatings"] == ["AB", "BA"] and manifest["complete"] is True
    assert [entry["name"] for entry in manifest["runs"]] == [
        "pair-0-1-AB", "pair-0-1-BA", "pair-0-2-AB", "pair-0-2-BA", "pair-1-2-AB", "pair-1-2-BA"]
    frames = run_frames(tensho_tournament)
    first = next(iter(frames.values()))[deal_columns(2)]
    assert first["round"].tolist() == list(range(300))
    for name, frame in frames.items():
        entry = next(e for e in manifest["runs"] if e["name"] == name)
        run_manifest = json.loads((tensho_tournament / name / "_run.json").read_text())
        names = manifest["policies"]
        a, b = entry["pair"]
        assert run_manifest["policies"] == [names[a] if s == "A" else names[b] for s in entry["seating"]]
        assert run_manifest["seed"] == 11 and run_manifest["units"] == 300
        # the deck of deal d (hands, field, dealer) is the same in every pairing and seating
        pd.testing.assert_frame_equal(frame[deal_columns(2)], first)
    # ... while the play differs: random and greedy do not make the same captures
    assert not frames["pair-0-1-AB"]["captured_0"].equals(frames["pair-0-1-BA"]["captured_0"])


@pytest.mark.slow
def test_the_report_of_the_tournament_matches_its_runs(tensho_tournament):
    frames = run_frames(tensho_tournament)
    ab, ba = frames["pair-0-1-AB"], frames["pair-0-1-BA"]
    # random is A: seat 0 in AB, seat 1 in BA
    diff = ((ab["payoff_0"] - ab["payoff_1"]) + (ba["payoff_1"] - ba["payoff_0"])) / 2
    a_wins = ((ab["winner"] == 0).sum() + (ba["winner"] == 1).sum()) / 600
    report = build_tournament_report(tensho_tournament)
    row = report.table("pairs").frame.iloc[0]
    assert (row["policy_a"], row["policy_b"], row["deals"]) == ("random", "greedy", 300)
    assert row["payoff_a_minus_b_diff"] == pytest.approx(diff.mean())
    half = 1.959963984540054 * diff.std(ddof=1) / math.sqrt(300)
    assert row["payoff_a_minus_b_high"] - row["payoff_a_minus_b_diff"] == pytest.approx(half)
    assert row["a_wins_rate"] == pytest.approx(a_wins)
    assert row["payoff_a_minus_b_diff"] < 0  # greedy beats random clearly even on 300 deals
    ratings = report.table("ratings").frame
    assert ratings["policy"].iloc[-1] == "random"
    assert (ratings["rating_low"] <= ratings["rating"]).all() and (ratings["rating"] <= ratings["rating_high"]).all()
    throughput = report.table("throughput_policies").frame
    assert (throughput["rounds_timed"] == 1200).all() and (throughput["rounds_per_second"] > 0).all()


@pytest.mark.slow
def test_fudasim_report_and_verify_read_a_tournament_folder(tensho_tournament, tmp_path):
    text = invoke("report", str(tensho_tournament))
    assert text.exit_code == 0, text.output
    for title in ("Pairings", "Bradley-Terry ratings", "Pairing matrix", "Throughput per policy"):
        assert title in text.output
    page = tmp_path / "t.html"
    html = invoke("report", str(tensho_tournament), "--format", "html", "-o", str(page))
    assert html.exit_code == 0, html.output
    assert 'id="pairing_heatmap"' in page.read_text() and "data:image/png;base64," in page.read_text()
    md = invoke("report", str(tensho_tournament), "--format", "md", "-o", "-")
    assert md.exit_code == 0 and "## Bradley-Terry ratings" in md.output
    assert build_report(tensho_tournament).table("ratings") is not None
    verified = invoke("verify", str(tensho_tournament))
    assert verified.exit_code == 0, verified.output
    assert "OK, complete tournament: 6 runs, 1,800 rounds" in verified.output
    deep = invoke("verify", str(tensho_tournament), "--deep")
    assert deep.exit_code == 0 and "sizes, checksums and rows checked" in deep.output
    for output_format in ("json", "csv"):
        written = tmp_path / f"t.{output_format}"
        assert invoke("report", str(tensho_tournament), "--format", output_format, "-o", str(written)).exit_code == 0
        assert "ratings" in written.read_text()
    inside = CliRunner().invoke(main, ["report", str(tensho_tournament), "--format", "md", "-o",
                                       str(tensho_tournament / "r.md")])
    assert inside.exit_code == 2 and "inside the dataset directory" in inside.output


@pytest.mark.slow
def test_resume_after_deleting_shards_and_a_run_gives_identical_results(tmp_path):
    config = dict(rules="tensho-ise", policies=("random", "greedy"), deals=250, seed=5, units_per_shard=60,
                  threads=1)
    out = tmp_path / "t"
    run_tournament(TournamentConfig(out=str(out), **config))
    before = run_frames(out)
    report_before = build_tournament_report(out).table("pairs").frame
    (out / "pair-0-1-AB" / "part-000002.parquet").unlink()
    for path in (out / "pair-0-1-BA").iterdir():
        path.unlink()
    (out / "pair-0-1-BA").rmdir()
    problems, _, _, _ = verify_tournament(out)
    assert any("pair-0-1-BA: missing run" in p for p in problems)
    assert any("part-000002.parquet: missing" in p for p in problems)
    assert invoke("verify", str(out)).exit_code == 1
    with pytest.raises(RunError, match="already exists"):
        run_tournament(TournamentConfig(out=str(out), **config))
    with pytest.raises(RunError, match="different deals"):
        run_tournament(TournamentConfig(out=str(out), resume=True, **dict(config, deals=251)))
    result = run_tournament(TournamentConfig(out=str(out), resume=True, **config))
    assert (result.runs_resumed, result.runs_played, result.runs_skipped) == (1, 1, 0)
    assert result.rounds_computed == 60 + 250  # one shard again, and the whole deleted run
    after = run_frames(out)
    for name in before:
        pd.testing.assert_frame_equal(before[name], after[name])
    pd.testing.assert_frame_equal(report_before, build_tournament_report(out).table("pairs").frame)
    assert verify_tournament(out)[0] == []
    # a complete tournament resumes to nothing
    again = run_tournament(TournamentConfig(out=str(out), resume=True, **config))
    assert (again.runs_skipped, again.rounds_computed) == (2, 0)
    # --overwrite replaces it, and refuses a folder with a file that is not its own
    (out / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="notes.txt"):
        run_tournament(TournamentConfig(out=str(out), overwrite=True, **config))
    assert (out / "pair-0-1-AB" / "_run.json").is_file()
    (out / "notes.txt").unlink()
    run_tournament(TournamentConfig(out=str(out), overwrite=True, **dict(config, deals=120)))
    assert read_tournament(out)["deals"] == 120 and len(read_dataset(out / "pair-0-1-AB")) == 120


@pytest.mark.slow
def test_three_players_play_all_six_seatings_of_a_pairing_on_the_same_deals(tmp_path):
    out = tmp_path / "e"
    run_tournament(TournamentConfig(rules="enshu-s", options={"enshu.players": "3"}, policies=("random", "greedy"),
                                    deals=12, seed=2, engine="reference", out=str(out)))
    manifest = read_tournament(out)
    assert manifest["players"] == 3
    assert sorted(e["seating"] for e in manifest["runs"]) == sorted(["AAB", "ABA", "BAA", "ABB", "BAB", "BBA"])
    frames = run_frames(out)
    first = next(iter(frames.values()))[deal_columns(3)]
    for name, frame in frames.items():
        pd.testing.assert_frame_equal(frame[deal_columns(3)], first)
        seating = name.rsplit("-", 1)[1]
        policies = json.loads((out / name / "_run.json").read_text())["policies"]
        assert policies == ["random" if s == "A" else "greedy" for s in seating]
    data = open_tournament(out)
    assert len(data.pairs) == 1 and data.pairs[0].deals == 12
    pair = data.pairs[0]
    assert ((pair.a_wins + pair.b_wins + pair.draws) == 6).all()


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "message"), [
    (["--policies", "random,bogus"], "unknown policy 'bogus'"),
    (["--policies", "greedy"], "at least two policies"),
    (["--policies", "random,random"], "random is listed twice"),
    (["--policies", "random,greedy", "--deals", "0"], "--deals 0: must be at least 1"),
    (["--policies", "random,greedy", "--deals", "many"], "'many' is not a valid integer"),
    (["--policies", "random,greedy:yaku_set=7"], "yaku_set=7"),
    (["--policies", "random,greedy", "--resume", "--overwrite"], "contradict"),
    (["--deals", "5"], "Missing option '--policies'"),
])
def test_bad_input_is_one_line_and_exit_status_2(tmp_path, args, message):
    out = tmp_path / "never"
    result = CliRunner().invoke(main, ["tournament", "tensho-ise", *args, "-o", str(out)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fudasim: error:") and message in lines[0], result.output
    assert not out.exists()


def test_resume_of_nothing_and_a_report_of_an_unfinished_tournament_are_refused(tmp_path):
    result = CliRunner().invoke(main, ["tournament", "--policies", "random,greedy", "--deals", "5", "--resume",
                                       "-o", str(tmp_path / "none")])
    assert result.exit_code == 2 and "no tournament to resume" in result.output
    out = tmp_path / "t"
    run_tournament(TournamentConfig(policies=("random", "greedy"), deals=40, seed=1, out=str(out),
                                    engine="reference"))
    manifest = json.loads((out / TOURNAMENT_FILE).read_text())
    manifest["complete"] = False
    (out / TOURNAMENT_FILE).write_text(json.dumps(manifest))
    refused = CliRunner().invoke(main, ["report", str(out)])
    assert refused.exit_code == 2 and "not complete" in refused.output
    allowed = invoke("report", str(out), "--allow-incomplete")
    assert allowed.exit_code == 0 and "INCOMPLETE" in allowed.output


def test_a_policy_the_game_lacks_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(PolicyError):
        run_tournament(TournamentConfig(policies=("random", "greedy:nonsense=1"), deals=5, out=str(tmp_path / "x")))
    assert not (tmp_path / "x").exists()


# --- the statistics on constructed data -----------------------------------------------------------


def test_a_policy_that_always_wins():
    # two seatings, 4 deals: A wins every round and gains 3 per round, B loses 3
    winners = np.array([[0, 0, 0, 0], [1, 1, 1, 1]])
    payoffs = np.zeros((2, 4, 2))
    payoffs[0, :, 0], payoffs[0, :, 1] = 3, -3
    payoffs[1, :, 1], payoffs[1, :, 0] = 3, -3
    diff, a_wins, b_wins, draws = per_deal_outcomes(["AB", "BA"], winners, payoffs)
    assert diff.tolist() == [6.0] * 4 and a_wins.tolist() == [2] * 4 and not b_wins.any() and not draws.any()
    pair = PairOutcomes(0, 1, ["AB", "BA"], np.ones(4, dtype=bool), diff, a_wins, b_wins, draws)
    row = pair_table([pair], ["strong", "weak"]).frame.iloc[0]
    assert (row["payoff_a_minus_b_diff"], row["payoff_a_minus_b_low"], row["payoff_a_minus_b_high"]) == (6, 6, 6)
    assert (row["a_wins_rate"], row["a_wins_low"], row["a_wins_high"]) == (1, 1, 1)
    assert (row["b_wins_rate"], row["win_gap_rate"], row["p_value"]) == (0, 1, 0)
    wins, rounds = pair_wins([pair], 2)
    assert wins.tolist() == [[0, 8], [0, 0]] and rounds[0, 1] == 8
    strengths = bradley_terry(wins)  # the virtual draw keeps it finite: 8.5 wins to 0.5
    assert strengths[0] - strengths[1] == pytest.approx(math.log(8.5 / 0.5))


def test_paired_intervals_on_deals_with_a_computed_answer():
    # three-player seatings: per deal, payoff difference and win shares averaged over the seatings
    seats = ["AAB", "ABB"]
    winners = np.array([[2, 0, -1], [0, 1, 2]])
    payoffs = np.array([[[-1, -1, 2], [4, -2, -2], [0, 0, 0]],
                        [[2, -1, -1], [-1, 2, -1], [-2, -2, 4]]], dtype=float)
    diff, a_wins, b_wins, draws = per_deal_outcomes(seats, winners, payoffs)
    # deal 0: AAB: A mean -1, B 2 -> -3; ABB: A 2, B -1 -> 3; mean 0
    # deal 1: AAB: A 1, B -2 -> 3; ABB: A -1, B 0.5 -> -1.5; mean 0.75
    # deal 2: AAB: 0; ABB: A -2, B 1 -> -3; mean -1.5
    assert diff.tolist() == [0.0, 0.75, -1.5]
    assert a_wins.tolist() == [1, 1, 0] and b_wins.tolist() == [1, 1, 1] and draws.tolist() == [0, 0, 1]
    pair = PairOutcomes(0, 1, seats, np.ones(3, dtype=bool), diff, a_wins, b_wins, draws)
    row = pair_table([pair], ["a", "b"], confidence=0.95).frame.iloc[0]
    mean = -0.25
    sd = math.sqrt(((0.25) ** 2 + 1.0 ** 2 + 1.25 ** 2) / 2)
    assert row["payoff_a_minus_b_diff"] == pytest.approx(mean)
    assert row["payoff_a_minus_b_high"] == pytest.approx(mean + 1.959963984540054 * sd / math.sqrt(3))
    assert row["a_wins_rate"] == pytest.approx(1 / 3) and row["draws_rate"] == pytest.approx(1 / 6)


def test_bradley_terry_recovers_the_strengths_of_a_known_matrix():
    strengths = np.array([1.0, 2.0, 4.0, 8.0])
    games = 1000.0
    wins = games * strengths[:, None] / (strengths[:, None] + strengths[None, :])
    np.fill_diagonal(wins, 0.0)
    fitted = bradley_terry(wins, prior_draws=0.0)
    expected = np.log(strengths) - np.log(strengths).mean()
    np.testing.assert_allclose(fitted, expected, atol=1e-9)
    # in Elo points: a doubling of strength is 400 log10(2), about 120.4
    assert (fitted[1] - fitted[0]) * ELO_SCALE == pytest.approx(400 * math.log10(2))
    # a draw counts half to each: all-draw results mean equal strengths
    np.testing.assert_allclose(bradley_terry(np.full((3, 3), 50.0), prior_draws=0.0), 0.0, atol=1e-12)


def test_the_bootstrap_spread_of_a_rating_matches_the_delta_method():
    # two policies, 20,000 deals of two seatings each: A wins each round with probability 0.6
    rng = np.random.default_rng(3)
    deals = 20_000
    a_wins = rng.binomial(2, 0.6, deals)
    pair = PairOutcomes(0, 1, ["AB", "BA"], np.ones(deals, dtype=bool), np.zeros(deals), a_wins, 2 - a_wins,
                        np.zeros(deals, dtype=np.int64))
    samples = bootstrap_ratings([pair], 2, replicates=400, seed=1)
    gap = samples[:, 0] - samples[:, 1]  # log(W_A / W_B), up to the one virtual draw
    wins, rounds = a_wins.sum(), 2 * deals
    # d log(x / (n - x)) / dx = n / (x (n - x)); x is a sum over independent deals
    expected = rounds / (wins * (rounds - wins)) * math.sqrt(deals) * a_wins.std(ddof=1)
    assert gap.std(ddof=1) == pytest.approx(expected, rel=0.15)
    assert np.median(gap) == pytest.approx(math.log((wins + 0.5) / (rounds - wins + 0.5)), abs=0.01)


@pytest.mark.slow
def test_a_killed_tournament_resumes_to_the_rows_of_an_uninterrupted_one(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    args = ["tournament", "tensho-ise", "--policies", "random,greedy", "--deals", "200000", "--seed", "8",
            "--shard-rounds", "10000", "--threads", "1", "--no-progress"]
    out = tmp_path / "killed"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    process = subprocess.Popen([sys.executable, "-m", "cli.main", *args, "-o", str(out)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    second = out / "pair-0-1-BA"
    while len(list(second.glob("part-*.parquet"))) < 2 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert read_tournament(out)["complete"] is False
    assert 2 <= len(list(second.glob("part-*.parquet"))) < 20
    resumed = invoke(*args, "-o", str(out), "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "1 already complete" in resumed.output
    whole = tmp_path / "whole"
    assert invoke(*args, "-o", str(whole)).exit_code == 0
    for name in ("pair-0-1-AB", "pair-0-1-BA"):
        pd.testing.assert_frame_equal(read_dataset(out / name), read_dataset(whole / name))
    assert invoke("verify", str(out)).exit_code == 0
