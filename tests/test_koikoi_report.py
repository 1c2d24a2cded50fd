"""Koi-koi's tables in ``fudasim report`` (``simcore/games/koikoi/report.py``): every number of a
hand-made set of rounds worked out by hand, and the tables of a small run in every output format,
checked against a direct pandas computation on its rows."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest_analysis import Z95, wilson_by_hand

from analysis import tables as analysis_tables
from cli.analysis_commands import report
from simcore.dataset import read_dataset
from simcore.games import get_game
from simcore.run.runner import RunConfig, run

SECTION = get_game("koikoi").report_section()

# Six rounds, zero-sum scoring (columns as docs/koikoi.md lists them):
#   A dealer 0; seat 0 stops on turn 3 at its first decision, 5 points.
#   B dealer 1; seat 1 calls once, then stops on turn 9, 7 points.
#   C dealer 0; seat 0 calls twice, seat 1 stops first on turn 10 (its first decision), 4 points.
#   D dealer 1; each seat calls once, seat 0's last card forces its stop on turn 16, 12 points.
#   E dealer 0; seat 1 calls once, nobody stops: exhausted, the dealer takes 1 point.
#   F dealer 1; seat 1's dealt hand scores 6 (turn 0).
ROUNDS = pd.DataFrame({
    "dealer":      [0, 1, 0, 1, 0, 1],
    "winner":      [0, 1, 1, 0, 0, 1],
    "end_reason":  ["stop", "stop", "stop", "forced_stop", "exhausted", "teyaku"],
    "end_turn":    [3, 9, 10, 16, 16, 0],
    "exhausted":   [False, False, False, False, True, False],
    "last_koikoi": [-1, 1, 0, 1, 1, -1],
    "koikoi_0":    [0, 0, 2, 1, 0, 0],
    "koikoi_1":    [0, 1, 0, 1, 1, 0],
    "score_0":     [5, 0, 0, 12, 1, 0],
    "score_1":     [0, 7, 4, 0, 0, 6],
    "payoff_0":    [5, -7, -4, 12, 1, -6],
    "payoff_1":    [-5, 7, 4, -12, -1, 6],
})
# The reader's codes need not follow the game's order of end reasons.
NAMES = ["teyaku", "exhausted", "stop", "forced_stop"]


def _batch(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    batch = {name: frame[name].to_numpy() for name in frame.columns}
    batch["end_reason"] = np.array([NAMES.index(r) for r in frame["end_reason"]], dtype=np.int16)
    return batch


@pytest.fixture(scope="module")
def tables() -> dict[str, pd.DataFrame]:
    counts = SECTION.new_counts(2, NAMES)
    counts.add(_batch(ROUNDS.iloc[:4]))  # two batches: the counts add up across them
    counts.add(_batch(ROUNDS.iloc[4:]))
    return {t.name: t.frame.set_index(t.frame.columns[0]) for t in SECTION.tables(counts, 0.95, analysis_tables)}


def _rate(row, name: str, successes: int, trials: int) -> None:
    rate, low, high = wilson_by_hand(successes, trials)
    shown = (row[f"{name}_rate"], row[f"{name}_low"], row[f"{name}_high"])
    assert shown == pytest.approx((rate, low, high))


def _mean(row, name: str, values: list[int]) -> None:
    n = len(values)
    mean = sum(values) / n
    assert row[f"{name}_mean"] == pytest.approx(mean)
    if n > 1:
        half = Z95 * math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
        shown = (row[f"{name}_low"], row[f"{name}_high"])
        assert shown == pytest.approx((mean - half, mean + half))


def test_the_section_reads_only_columns_every_koikoi_run_has():
    assert set(SECTION.columns(2)) <= set(get_game("koikoi").schema(2).names)
    assert get_game("tensho").report_section() is None


def test_calls_per_round_and_per_decision(tables):
    frame = tables["koikoi_calls"]
    assert list(frame.index) == ["dealer", "non-dealer", "seat 0", "seat 1"]
    assert (frame["rounds"] == 6).all()
    # calls per round (A..F) and the stops each chose: the dealer A and B, the non-dealer C,
    # seat 0 A, seat 1 B and C.
    for who, calls, stops in (("dealer", [0, 1, 2, 1, 0, 0], 2),
                              ("non-dealer", [0, 0, 0, 1, 1, 0], 1),
                              ("seat 0", [0, 0, 2, 1, 0, 0], 1),
                              ("seat 1", [0, 1, 0, 1, 1, 0], 2)):
        row = frame.loc[who]
        _rate(row, "called", sum(c > 0 for c in calls), 6)
        _mean(row, "calls", calls)
        assert row["decisions"] == sum(calls) + stops
        _rate(row, "call_per_decision", sum(calls), sum(calls) + stops)
    assert frame.loc["dealer", "call_per_decision_rate"] == pytest.approx(4 / 6)


def test_how_a_round_ends_after_a_call_and_what_it_brings(tables):
    frame = tables["koikoi_after_call"]
    # who: (rounds it called in, caller won, opponent won, exhausted), its payoffs, its points when
    # it won, its first-decision stops (A: seat 0, the dealer; C: seat 1, the non-dealer).
    expected = {
        "dealer": ((3, 1, 2, 0), [7, -4, -12], [7], [5]),  # B, C, D
        "non-dealer": ((2, 1, 0, 1), [12, -1], [12], [4]),  # D, E
        "seat 0": ((2, 1, 1, 0), [-4, 12], [12], [5]),  # C, D
        "seat 1": ((3, 1, 1, 1), [7, -12, -1], [7], [4]),  # B, D, E
    }
    for who, ((n, won, lost, exhausted), points, won_points, first) in expected.items():
        row = frame.loc[who]
        assert row["rounds"] == n
        _rate(row, "caller_wins", won, n)
        _rate(row, "opponent_wins", lost, n)
        _rate(row, "exhausted", exhausted, n)
        _mean(row, "points", points)
        _mean(row, "points_when_won", won_points)
        assert row["first_stops"] == len(first)
        _mean(row, "first_stop_points", first)
    assert frame.loc["dealer", "points_mean"] == pytest.approx(-3.0)


def test_points_by_the_turn_of_the_stop(tables):
    frame = tables["koikoi_stop_turn"]
    # Stops: A turn 3 (5 points, no call), B 9 (7, after a call), C 10 (4, after), D 16 (12, after);
    # E (exhausted) and F (a dealt hand) are left out.
    assert list(frame.index) == [3, 9, 10, 16]
    assert list(frame["stops"]) == [1, 1, 1, 1]
    assert list(frame["points_mean"]) == [5, 7, 4, 12]
    for turn, after in ((3, 0), (9, 1), (10, 1), (16, 1)):
        _rate(frame.loc[turn], "share", 1, 4)
        _rate(frame.loc[turn], "after_call", after, 1)


def test_the_note_counts_the_rounds_left_out():
    counts = SECTION.new_counts(2, NAMES)
    counts.add(_batch(ROUNDS))
    note = SECTION.tables(counts, 0.95, analysis_tables)[2].note
    assert "share of the 4 stops" in note
    assert "1 exhausted rounds and 1 ended by a dealt hand" in note


def _report(path, *args: str):
    return CliRunner().invoke(report, [str(path), *args], catch_exceptions=False)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("koikoi-report") / "run"
    run(RunConfig(rules="koikoi-kkj", rounds=400, seed=5, engine="reference", out=str(out)))
    return out, read_dataset(out)


def test_fudasim_report_prints_the_section(small_run):
    path, rounds = small_run
    result = _report(path)
    assert result.exit_code == 0, result.output
    text = result.output
    for title in ("Koi-koi calls", "After a koi-koi call", "Points by the turn of the stop"):
        assert f"\n{title}\n" in text
    assert text.index("Points by the turn of the stop") < text.index("How the estimates converge")
    dealer_calls = np.where(rounds.dealer == 0, rounds.koikoi_0, rounds.koikoi_1)
    called = int((dealer_calls > 0).sum())
    section = text[text.index("\nKoi-koi calls\n"):].splitlines()
    line = next(line for line in section if line.startswith("dealer "))
    assert f"{100 * called / len(rounds):.1f}" in line.split()[1]

    result = _report(path, "--format", "json", "-o", "-")
    out = json.loads(result.output)
    tables = {t["name"]: t for t in out["tables"]}
    calls = pd.DataFrame(tables["koikoi_calls"]["rows"]).set_index("who")
    assert calls.loc["dealer", "called_rate"] == pytest.approx(called / len(rounds))
    stops = rounds[rounds.end_reason.astype(str).isin(["stop", "forced_stop"])]
    turns = pd.DataFrame(tables["koikoi_stop_turn"]["rows"]).set_index("end_turn")
    by_turn = stops.groupby("end_turn").size()
    assert turns["stops"].to_dict() == {int(k): int(v) for k, v in by_turn.items()}
    winner_points = np.where(stops.winner == 0, stops.score_0, stops.score_1)
    means = pd.Series(winner_points, index=stops.end_turn.to_numpy()).groupby(level=0).mean()
    assert turns["points_mean"].to_dict() == pytest.approx({int(k): v for k, v in means.items()})
    ends = pd.DataFrame(tables["end_reasons"]["rows"]).set_index("end_reason")
    assert ends.loc["exhausted", "meaning"] == "both hands played out with nobody stopping"

    for fmt in ("md", "html"):
        result = _report(path, "--format", fmt, "-o", "-")
        assert result.exit_code == 0
        assert "After a koi-koi call" in result.output and "caller wins" in result.output


def test_a_tensho_report_has_no_koikoi_tables(tmp_path):
    out = tmp_path / "tensho"
    run(RunConfig(rules="tensho-ise", rounds=50, engine="reference", out=str(out)))
    result = _report(out, "--format", "json", "-o", "-")
    names = {t["name"] for t in json.loads(result.output)["tables"]}
    assert "outcomes_by_seat" in names and not any(n.startswith("koikoi") for n in names)
