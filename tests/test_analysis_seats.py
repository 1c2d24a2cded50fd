"""Per-seat and per-role numbers count only the rounds that seat (or role) played.

In Enshu-bana C with 4-5 players seats drop out of rounds (``active_s`` false), the dealer among
them.  A seat that sat a round out must not be in that round's denominator: the dealer's win rate
is over the rounds the dealer played.  The expected values here come from the rows themselves
(pandas on the dataset, or worked out by hand for a hand-built dataset), never from
``analysis.intervals``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest_analysis import Z95, wilson_by_hand
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis import build_report, render
from analysis.compare import compare_runs
from simcore.dataset import file_digest, read_dataset, shard_entry, write_shard
from simcore.games.enshu.record import LAYOUT
from simcore.run.runner import RunConfig, run

PLAYERS = 5
SEATS = range(PLAYERS)


# Every test here reads a five-seat run of the reference engine, built once for the module.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def enshu5(tmp_path_factory):
    """Enshu-bana C, five seats (two sit out each round), seat 0 greedy, from the reference engine."""
    out = tmp_path_factory.mktemp("enshu5") / "c5"
    run(RunConfig(rules="enshu-c", options={"enshu.players": str(PLAYERS)}, rounds=1500, seed=11,
                  engine="reference", policies=("greedy",), out=str(out)))
    rows = read_dataset(out)
    return out, rows, build_report(out, figures=True)


# Hand-built: (dealer, seats that played, winner); -1 = no winner (a voided round).
HAND_ROUNDS = [
    (0, (0, 1, 2), 0),   # dealer plays and wins
    (1, (0, 2, 3), 2),   # dealer sat out
    (2, (2, 3, 4), 3),   # dealer plays, a non-dealer wins
    (3, (0, 1, 4), 4),   # dealer sat out
    (4, (1, 3, 4), -1),  # dealer plays, voided
    (0, (0, 3, 4), 0),   # dealer plays and wins
    (1, (1, 2, 3), 3),   # dealer plays, a non-dealer wins
    (2, (0, 1, 3), 1),   # dealer sat out
]


def _write_rounds(directory, info: dict, rounds) -> None:
    """Write ``(dealer, seats that played, winner)`` rounds as a five-seat Enshu-bana dataset."""
    n = len(rounds)
    info = {**info, "rounds": n, "units": n, "units_per_shard": n, "shards": 1, "policies": ["random"] * PLAYERS,
            "first_unit": 0, "n_units": n, "first_round": 0, "last_round": n - 1, "complete": True}
    columns = {f.name: np.zeros(n, dtype=f.type.to_pandas_dtype()) for f in LAYOUT.schema(PLAYERS)
               if f.name != "end_reason"}
    columns["end_reason"] = np.zeros(n, dtype=np.int8)
    columns["round"] = np.arange(n)
    columns["match"] = np.arange(n)
    columns["players"] = np.full(n, PLAYERS)
    columns["match_end"] = np.ones(n, dtype=bool)
    columns["end_turn"] = np.full(n, 10)
    for row, (dealer, active, winner) in enumerate(rounds):
        columns["dealer"][row] = dealer
        columns["winner"][row] = winner
        columns["end_reason"][row] = 3 if winner < 0 else 0  # fuke / score
        for seat in active:
            columns[f"active_{seat}"][row] = True
            # Seat s scores 10 * (s + 1) in every round it plays, +100 if it wins; 0 when sat out.
            columns[f"score_{seat}"][row] = 10 * (seat + 1) + (100 if winner == seat else 0)
            columns[f"payoff_{seat}"][row] = 6 if winner == seat else -3
        if winner >= 0:
            columns[f"yaku_{winner}"][row] = 1  # the winner completed yaku bit 0
    directory.mkdir()
    path = write_shard(directory, 0, LAYOUT.table(columns, info, "", PLAYERS))
    size, sha256 = file_digest(path)  # a manifest listing the hand-written shard, as a run writes it
    info["shard_files"] = [shard_entry(0, info, n, size, sha256)]
    (directory / "_run.json").write_text(json.dumps(info), encoding="utf-8")


@pytest.fixture(scope="module")
def run_info(enshu5):
    """The metadata of a real Enshu-bana C five-seat run, for hand-written rows."""
    source, _, _ = enshu5
    return json.loads((source / "_run.json").read_text())


@pytest.fixture(scope="module")
def hand_built(tmp_path_factory, run_info):
    """Eight rounds written by hand."""
    directory = tmp_path_factory.mktemp("hand") / "hand"
    _write_rounds(directory, run_info, HAND_ROUNDS)
    return directory, build_report(directory)


def _assert_rate(row, prefix, successes, trials):
    expected = wilson_by_hand(successes, trials)
    assert row[f"{prefix}_rate"] == pytest.approx(successes / trials)
    assert (row[f"{prefix}_low"], row[f"{prefix}_high"]) == pytest.approx(expected[1:], abs=1e-9)


def test_hand_built_dealer_rate_is_over_the_rounds_the_dealer_played(hand_built):
    _, report = hand_built
    roles = report.table("outcomes_by_role").frame.set_index("role")
    # Worked out from HAND_ROUNDS: the dealer played rounds 0, 2, 4, 5, 6 and won 0 and 5.
    assert roles.loc["dealer", "rounds_played"] == 5
    _assert_rate(roles.loc["dealer"], "win", 2, 5)  # 40 %, not 2 of 8 = 25 %
    _assert_rate(roles.loc["dealer"], "draw", 1, 5)
    # Non-dealers: 2 per round the dealer played, 3 per round it sat out = 10 + 9 seat-rounds;
    # they won rounds 1, 2, 3, 6 and 7, and two of them saw round 4 voided.
    assert roles.loc["non-dealer", "rounds_played"] == 19
    _assert_rate(roles.loc["non-dealer"], "win", 5, 19)
    _assert_rate(roles.loc["non-dealer"], "draw", 2, 19)
    # Per round the dealer played: 1 - 0, 0 - 1/2, 0 - 0, 1 - 0, 0 - 1/2 -> mean 0.2.
    advantage = report.table("dealer_advantage").frame.iloc[0]
    per_round = np.array([1.0, -0.5, 0.0, 1.0, -0.5])
    assert advantage["n"] == 5
    assert advantage["advantage_diff"] == pytest.approx(0.2)
    half = Z95 * per_round.std(ddof=1) / np.sqrt(5)
    assert (advantage["advantage_low"], advantage["advantage_high"]) == pytest.approx((0.2 - half, 0.2 + half))


def test_hand_built_per_seat_tables(hand_built):
    _, report = hand_built
    by_seat = report.table("outcomes_by_seat").frame.set_index("seat")
    # (rounds played, wins, draws) per seat, counted from HAND_ROUNDS by hand.
    expected = {0: (5, 2, 0), 1: (5, 1, 1), 2: (4, 1, 0), 3: (6, 2, 1), 4: (4, 1, 1)}
    for seat, (played, wins, draws) in expected.items():
        row = by_seat.loc[seat]
        assert row["rounds_played"] == played
        _assert_rate(row, "win", wins, played)
        _assert_rate(row, "draw", draws, played)
        _assert_rate(row, "loss", played - wins - draws, played)
    policy = report.table("outcomes_by_policy").frame.iloc[0]
    assert policy["rounds_played"] == 24  # 8 rounds x 3 seats playing
    _assert_rate(policy, "win", 7, 24)
    scores = report.table("score_distribution").frame.set_index(["measure", "seat"])
    for seat, (played, wins, _) in expected.items():
        assert scores.loc[("score", seat), "rounds_played"] == played
        assert scores.loc[("score", seat), "value_mean"] == pytest.approx(10 * (seat + 1) + 100 * wins / played)
        assert scores.loc[("score", seat), "min"] == 10 * (seat + 1)  # a sat-out 0 is not counted
        assert scores.loc[("payoff", seat), "value_mean"] == pytest.approx((6 * wins - 3 * (played - wins)) / played)
    yaku = report.table("yaku_frequencies").frame.set_index("key").iloc[0]
    for seat, (played, wins, _) in expected.items():
        assert yaku[f"seat{seat}_rounds_played"] == played
        _assert_rate(yaku, f"seat{seat}", wins, played)
    _assert_rate(yaku, "any", 7, 8)
    convergence = report.table("convergence").frame.iloc[-1]
    assert convergence["rounds"] == 8 and convergence["seat0_rounds_played"] == 5
    _assert_rate(convergence, "seat0_win", 2, 5)
    _assert_rate(convergence, "dealer_win", 2, 5)


# By place in turn order from the dealer (seat (dealer + k) % 5), counted from HAND_ROUNDS by hand:
# rounds played, wins, draws, and the payoff (6 a win, -3 otherwise, 0 sat out) in each of the 8 rounds.
HAND_ORDERS = {
    0: (5, 2, 1, [6, 0, -3, 0, -3, 6, -3, 0]),
    1: (6, 3, 0, [-3, 6, 6, 6, 0, 0, -3, -3]),
    2: (6, 1, 1, [-3, -3, -3, -3, -3, 0, 6, 0]),
    3: (3, 0, 0, [0, 0, 0, -3, 0, -3, 0, -3]),
    4: (4, 1, 1, [0, -3, 0, 0, -3, -3, 0, 6]),
}


def _assert_mean(row, prefix, values):
    values = np.asarray(values, dtype=float)
    half = Z95 * values.std(ddof=1) / np.sqrt(len(values))
    assert row[f"{prefix}_mean"] == pytest.approx(values.mean())
    assert (row[f"{prefix}_low"], row[f"{prefix}_high"]) == pytest.approx((values.mean() - half, values.mean() + half))


def test_hand_built_outcomes_by_seat_order(hand_built):
    _, report = hand_built
    table = report.table("outcomes_by_seat_order")
    frame = table.frame.set_index("order")
    assert list(frame["who"]) == ["dealer", "dealer + 1", "dealer + 2", "dealer + 3", "dealer + 4"]
    for order, (played, wins, draws, payoffs) in HAND_ORDERS.items():
        row = frame.loc[order]
        assert row["rounds_played"] == played and row["rounds"] == 8
        _assert_rate(row, "played", played, 8)  # participation: the share of all rounds it played
        _assert_rate(row, "win", wins, played)  # over the rounds it played
        _assert_rate(row, "draw", draws, played)
        _assert_mean(row, "payoff", payoffs)  # per round of the run, a round sat out paying 0
        _assert_mean(row, "payoff_played", [p for p, k in zip(payoffs, _orders_played(order), strict=True) if k])
    # every format shows it: text and HTML as a table, JSON with every number
    assert "Outcomes by seat order" in render(report, "text") and "dealer + 4" in render(report, "text")
    assert "Outcomes by seat order" in render(report, "html")
    rows = next(t for t in json.loads(render(report, "json"))["tables"] if t["name"] == "outcomes_by_seat_order")
    assert rows["rows"][0]["payoff_mean"] == pytest.approx(3 / 8)


def _orders_played(order: int) -> list[bool]:
    return [(dealer + order) % PLAYERS in active for dealer, active, _ in HAND_ROUNDS]


def _active(rows: pd.DataFrame) -> np.ndarray:
    return np.stack([rows[f"active_{s}"].to_numpy(bool) for s in SEATS], axis=1)


def test_enshu_c5_dealer_rate_over_the_rounds_the_dealer_played(enshu5):
    _, rows, report = enshu5
    active = _active(rows)
    dealer = rows.dealer.to_numpy(np.int64)
    winner = rows.winner.to_numpy(np.int64)
    dealer_played = active[np.arange(len(rows)), dealer]
    assert 0.3 < dealer_played.mean() < 0.9  # the dealer really does sit rounds out
    assert (active.sum(axis=1) == 3).all()
    roles = report.table("outcomes_by_role").frame.set_index("role")
    dealer_wins = int((winner[dealer_played] == dealer[dealer_played]).sum())
    assert roles.loc["dealer", "rounds_played"] == dealer_played.sum()
    _assert_rate(roles.loc["dealer"], "win", dealer_wins, int(dealer_played.sum()))
    _assert_rate(roles.loc["dealer"], "draw", int((winner[dealer_played] < 0).sum()), int(dealer_played.sum()))
    others = active.sum(axis=1) - dealer_played
    other_won = (winner >= 0) & (winner != dealer)
    assert roles.loc["non-dealer", "rounds_played"] == others.sum()
    _assert_rate(roles.loc["non-dealer"], "win", int(other_won.sum()), int(others.sum()))
    per_round = (winner == dealer).astype(float) - other_won / others
    per_round = per_round[dealer_played]
    advantage = report.table("dealer_advantage").frame.iloc[0]
    assert advantage["n"] == dealer_played.sum()
    assert advantage["advantage_diff"] == pytest.approx(per_round.mean())
    half = Z95 * per_round.std(ddof=1) / np.sqrt(len(per_round))
    assert advantage["advantage_high"] - advantage["advantage_diff"] == pytest.approx(half, rel=1e-9)
    convergence = report.table("convergence").frame.iloc[-1]
    _assert_rate(convergence, "dealer_win", dealer_wins, int(dealer_played.sum()))
    text = render(report, "text")
    assert "rounds played" in text


def test_enshu_c5_every_per_seat_number_over_rounds_played(enshu5):
    _, rows, report = enshu5
    active = _active(rows)
    winner = rows.winner.to_numpy(np.int64)
    by_seat = report.table("outcomes_by_seat").frame.set_index("seat")
    scores = report.table("score_distribution").frame.set_index(["measure", "seat"])
    yaku = report.table("yaku_frequencies").frame.set_index("key")
    bits = {key: bit for bit, key in enumerate(yaku.index)}  # Enshu yaku are in bit order
    for seat in SEATS:
        played = active[:, seat]
        n = int(played.sum())
        assert by_seat.loc[seat, "rounds_played"] == n < len(rows)
        _assert_rate(by_seat.loc[seat], "win", int((winner == seat).sum()), n)
        _assert_rate(by_seat.loc[seat], "draw", int(((winner < 0) & played).sum()), n)
        for measure in ("score", "payoff"):
            values = rows[f"{measure}_{seat}"].to_numpy(np.int64)[played]
            row = scores.loc[(measure, seat)]
            assert row["rounds_played"] == n
            assert row["value_mean"] == pytest.approx(values.mean())
            assert row["value_sd"] == pytest.approx(values.std(ddof=1))
            assert row["median"] == np.quantile(values, 0.5, method="inverted_cdf")
        masks = rows[f"yaku_{seat}"].to_numpy(np.uint64)[played]
        for key, bit in bits.items():
            completed = int(((masks >> np.uint64(bit)) & np.uint64(1)).sum())
            assert yaku.loc[key, f"seat{seat}_rounds_played"] == n
            _assert_rate(yaku.loc[key], f"seat{seat}", completed, n)
    policy = report.table("outcomes_by_policy").frame.set_index("policy")
    assert policy.loc["random", "rounds_played"] == active[:, 1:].sum()


def test_enshu_c5_seat_order_from_the_rows(enshu5):
    """The dealer sits out most rounds of C with 5 players: its win rate is over the rounds it
    played, its participation and payoff per round from the rows."""
    _, rows, report = enshu5
    active = _active(rows)
    dealer = rows.dealer.to_numpy(np.int64)
    winner = rows.winner.to_numpy(np.int64)
    payoffs = np.stack([rows[f"payoff_{s}"].to_numpy(np.int64) for s in SEATS], axis=1)
    frame = report.table("outcomes_by_seat_order").frame.set_index("order")
    index = np.arange(len(rows))
    for order in SEATS:
        seat = (dealer + order) % PLAYERS
        played = active[index, seat]
        row = frame.loc[order]
        _assert_rate(row, "played", int(played.sum()), len(rows))
        _assert_rate(row, "win", int((winner == seat).sum()), int(played.sum()))
        _assert_mean(row, "payoff", payoffs[index, seat])
        _assert_mean(row, "payoff_played", payoffs[index, seat][played])
    assert frame.loc[0, "played_rate"] < 0.9


def test_enshu_c5_compare_counts_rounds_played(enshu5, tmp_path):
    path, rows, _ = enshu5
    other = tmp_path / "random"
    run(RunConfig(rules="enshu-c", options={"enshu.players": str(PLAYERS)}, rounds=1500, seed=11,
                  engine="reference", out=str(other)))
    other_rows = read_dataset(other)
    report = compare_runs([path, other])
    side = report.table("side_by_side").frame.set_index("metric")
    label_x, label_y = report.table("runs").frame["run"].tolist()
    for label, frame in ((label_x, rows), (label_y, other_rows)):
        active = _active(frame)
        dealer = frame.dealer.to_numpy(np.int64)
        dealer_played = active[np.arange(len(frame)), dealer]
        won = frame.winner.to_numpy(np.int64) == dealer
        assert side.loc["dealer wins", label] == pytest.approx(won[dealer_played].mean())
        assert side.loc["dealer wins", f"{label}_rounds_played"] == dealer_played.sum()
        assert side.loc["seat 2 score", label] == pytest.approx(frame.score_2[active[:, 2]].mean())
        assert side.loc["drawn", f"{label}_rounds_played"] == len(frame)
    # Paired: over the rounds seat 1 played in both runs.
    paired = report.table(f"paired_{label_y}").frame.set_index("metric")
    both = _active(rows)[:, 1] & _active(other_rows)[:, 1]
    x = (rows.winner.to_numpy() == 1)[both].astype(int)
    y = (other_rows.winner.to_numpy() == 1)[both].astype(int)
    assert paired.loc["seat 1 wins", "paired_rounds"] == both.sum()
    assert paired.loc["seat 1 wins", "difference_diff"] == pytest.approx((y - x).mean())
    # Each run's own rate over those paired rounds, beside the difference (not Side by side's).
    for label, wins in ((label_x, x), (label_y, y)):
        assert paired.loc["seat 1 wins", label] == pytest.approx(wins.mean())
        assert paired.loc["seat 1 wins", f"{label}_low"] < wins.mean() < paired.loc["seat 1 wins", f"{label}_high"]
    assert paired.loc["seat 1 wins", label_y] - paired.loc["seat 1 wins", label_x] == pytest.approx((y - x).mean())


def test_enshu_stopping_yaku_from_the_recorded_column(enshu5):
    """Uchikiri rounds by the yaku that stopped them (the ``stopping_yaku`` column), not every yaku held."""
    _, rows, report = enshu5
    stopped = rows[rows.end_reason.astype(str) == "uchikiri"]
    table = report.table("stopping_yaku")
    assert "not known" not in table.note
    frame = table.frame.set_index("key")
    masks = stopped.stopping_yaku.to_numpy(np.uint64)
    keys = list(report.table("yaku_frequencies").frame["key"])  # Enshu yaku in bit order
    for bit, key in enumerate(keys):
        count = int(((masks >> np.uint64(bit)) & np.uint64(1)).sum())
        assert (frame.loc[key, "count"] if key in frame.index else 0) == count
        if count:
            _assert_rate(frame.loc[key], "of_stopped", count, len(stopped))
            _assert_rate(frame.loc[key], "of_rounds", count, len(rows))


@st.composite
def enshu_rounds(draw):
    """Rounds of five seats, three of them playing, the dealer any seat, a winner among the players."""
    rounds = []
    for _ in range(draw(st.integers(1, 40))):
        dealer = draw(st.integers(0, PLAYERS - 1))
        active = tuple(sorted(draw(st.sets(st.integers(0, PLAYERS - 1), min_size=3, max_size=3))))
        winner = draw(st.sampled_from((-1, *active)))
        rounds.append((dealer, active, winner))
    return rounds


@settings(derandomize=True, max_examples=40, deadline=None)
@given(rounds=enshu_rounds())
def test_seat_and_role_counts_match_a_direct_count(run_info, rounds):
    """Any pattern of sat-out seats: the report's counts equal a count over the rows in plain Python."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "run"
        _write_rounds(path, run_info, rounds)
        report = build_report(path)
    by_seat = report.table("outcomes_by_seat").frame.set_index("seat")
    for seat in SEATS:
        played = [r for r in rounds if seat in r[1]]
        assert by_seat.loc[seat, "rounds_played"] == len(played)
        if played:
            _assert_rate(by_seat.loc[seat], "win", sum(r[2] == seat for r in played), len(played))
            _assert_rate(by_seat.loc[seat], "draw", sum(r[2] < 0 for r in played), len(played))
    dealer_rounds = [r for r in rounds if r[0] in r[1]]
    if not dealer_rounds:
        return
    roles = report.table("outcomes_by_role").frame.set_index("role")
    assert roles.loc["dealer", "rounds_played"] == len(dealer_rounds)
    _assert_rate(roles.loc["dealer"], "win", sum(r[2] == r[0] for r in dealer_rounds), len(dealer_rounds))
    _assert_rate(roles.loc["dealer"], "draw", sum(r[2] < 0 for r in dealer_rounds), len(dealer_rounds))
    _assert_rate(roles.loc["dealer"], "loss", sum(r[2] >= 0 and r[2] != r[0] for r in dealer_rounds),
                 len(dealer_rounds))
    non_dealer = sum(len(r[1]) - (r[0] in r[1]) for r in rounds)
    assert roles.loc["non-dealer", "rounds_played"] == non_dealer
    _assert_rate(roles.loc["non-dealer"], "win", sum(r[2] >= 0 and r[2] != r[0] for r in rounds), non_dealer)
    _assert_rate(roles.loc["non-dealer"], "draw", sum(len(r[1]) - (r[0] in r[1]) for r in rounds if r[2] < 0),
                 non_dealer)
    advantage = [(r[2] == r[0]) - (r[2] >= 0 and r[2] != r[0]) / 2 for r in dealer_rounds]
    row = report.table("dealer_advantage").frame.iloc[0]
    assert row["n"] == len(dealer_rounds)
    assert row["advantage_diff"] == pytest.approx(sum(advantage) / len(advantage))


def test_the_stored_rules_come_back_with_the_runs_player_count(enshu5):
    """The rule set a report rebuilds from the dataset is the run's: five players, not the
    file's default of three (the run's option overrides are applied again)."""
    from analysis.reader import open_run

    rules = open_run(enshu5[0]).rules()
    assert rules.players == PLAYERS and rules.options["enshu.players"] == PLAYERS
