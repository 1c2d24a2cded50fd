"""The skill measures of ``analysis.skill`` on constructed cases whose answers are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.skill import critical_rounds, gap, relative_skill, rounds_to_lead, variance_shares


def test_relative_skill_is_zero_when_fair_play_cannot_matter():
    # the beginner and the best fair policy score alike on every deal; knowing the cards helps
    rng = np.random.default_rng(1)
    luck = rng.normal(0, 3, 4000)
    beginner = luck.copy()
    best = luck.copy()
    omniscient = luck + 0.8 + rng.normal(0, 1, 4000)
    rs, le, re = relative_skill(beginner, best, omniscient, draws=400)
    assert rs.value == 0.0 and rs.contains(0.0) and le.value == 0.0
    assert re.low > 0.7


def test_relative_skill_is_one_when_knowing_the_cards_adds_nothing():
    rng = np.random.default_rng(2)
    luck = rng.normal(0, 3, 3000)
    rs, le, re = relative_skill(luck - 0.5, luck, luck, draws=400)
    assert math.isclose(rs.value, 1.0) and rs.contains(1.0)


def test_relative_skill_recovers_a_known_split():
    # LE = 0.3, RE = 0.9 => RS = 0.25
    rng = np.random.default_rng(3)
    luck = rng.normal(0, 2, 20000)
    noise = rng.normal(0, 0.5, (3, 20000))
    rs, le, re = relative_skill(luck + noise[0], luck + 0.3 + noise[1], luck + 1.2 + noise[2], draws=300)
    assert rs.contains(0.25) and rs.high - rs.low < 0.05
    assert le.contains(0.3) and re.contains(0.9)


@pytest.mark.slow
def test_gap_interval_covers_the_true_difference_about_95_percent():
    rng = np.random.default_rng(4)
    covered = 0
    for k in range(200):
        a = rng.normal(0.2, 1, 300)
        b = rng.normal(0.0, 1, 300)
        covered += gap(a, b, draws=300, seed=k).contains(0.2)
    assert 180 <= covered <= 198  # 95% of 200 is 190; a 90% or 99% interval falls outside


def test_critical_rounds_formula_and_simulation_agree_for_normal_rounds():
    rng = np.random.default_rng(5)
    diff = rng.normal(0.1, 1.0, 200_000)
    formula = critical_rounds(diff)
    assert abs(formula - (1.6448536269514722 * 1.0 / 0.1) ** 2) / formula < 0.05  # about 270.6
    simulated = rounds_to_lead(diff, matches=4000, seed=1)
    assert simulated is not None and abs(simulated - formula) / formula < 0.15


def test_no_edge_means_no_number_of_rounds():
    diff = np.array([1.0, -1.0] * 50)
    assert critical_rounds(diff) == float("inf")
    assert rounds_to_lead(diff) is None


def test_variance_shares_of_pure_effects():
    deals = 400
    policy_of = np.array([[0, 1], [1, 0]])  # seatings AB and BA
    rng = np.random.default_rng(6)
    luck = rng.normal(0, 2, (deals, 2))  # what each seat's cards are worth, the same in both seatings
    deal_only = np.broadcast_to(luck[:, None, :], (deals, 2, 2))
    assert math.isclose(variance_shares(deal_only, policy_of)["deal"], 1.0)
    skill = np.array([-0.5, 0.5])  # policy B is better by 1 per round
    policy_only = np.broadcast_to(skill[policy_of][None], (deals, 2, 2))
    assert math.isclose(variance_shares(policy_only, policy_of)["policy"], 1.0)
    both = deal_only + policy_only
    shares = variance_shares(both, policy_of)
    # the two effects are orthogonal in the balanced layout: each explains its own variance
    assert math.isclose(shares["policy"], 0.25 / both.var(), rel_tol=1e-9)
    assert math.isclose(shares["deal"] + shares["policy"], 1.0) and abs(shares["rest"]) < 1e-12
    noisy = both + rng.normal(0, 1, both.shape)
    shares = variance_shares(noisy, policy_of)
    assert math.isclose(sum(shares.values()), 1.0) and shares["rest"] > 0.1


# ------------------------------------------------------------------------------------------------
# Known answers through the function `fudasim skill` calls (analysis.skill_report.build_skill_report),
# on a constructed two-player tournament: every round pays +1 to its winner and -1 to the loser.
# Each expected value below is worked out by hand from the counts of rounds won, not by the code.

DEALS = 20
HEURISTIC, GREEDY, RANDOM = "heuristic", "greedy", "random"
FICTIVE, WEAK_FICTIVE = "omniscient:worlds=1,rollout=heuristic", "omniscient:worlds=2,rollout=random"
# Listed strongest first: the best fair policy must come from measured strength, not from the order.
POLICIES = [HEURISTIC, GREEDY, RANDOM, FICTIVE, WEAK_FICTIVE]
# For each pairing (stronger, weaker): the rounds of 2 x DEALS the stronger wins (or the deals in which
# it wins both seatings and those in which it wins one).
WINS = {(HEURISTIC, GREEDY): 26,  # 65 %: head to head 2 (0.65 - 0.35) = 0.6; Dreef's LE = 0.3
        (HEURISTIC, RANDOM): 28,  # 70 %: head to head 0.8; Dreef's LE = 0.4
        (GREEDY, RANDOM): (10, 0),  # 50 %: both seatings of 10 deals and none of the others: no edge
        (FICTIVE, HEURISTIC): 38,  # 95 %: head to head 1.8; Dreef's RE = 0.9
        (WEAK_FICTIVE, HEURISTIC): 30,  # 75 %: head to head 1.0; Dreef's RE = 0.5
        (FICTIVE, GREEDY): 38, (FICTIVE, RANDOM): 38, (WEAK_FICTIVE, GREEDY): 30, (WEAK_FICTIVE, RANDOM): 30,
        (FICTIVE, WEAK_FICTIVE): 24}


def _tournament():
    """A TournamentData of POLICIES with WINS: in the first deals the stronger wins both seatings,
    then one of the two (each seating in turn), then none."""
    from pathlib import Path

    from analysis.tournament import PairOutcomes, TournamentData

    pairs = []
    for (strong, weak), wins in WINS.items():
        first, second = sorted((POLICIES.index(strong), POLICIES.index(weak)))
        both, one = wins if isinstance(wins, tuple) else (max(0, wins - DEALS), min(wins, 2 * DEALS - wins))
        strong_won = np.zeros((2, DEALS), dtype=bool)  # [seating AB / BA, deal]
        strong_won[:, :both] = True
        for k in range(one):
            strong_won[k % 2, both + k] = True
        a_is_strong = POLICIES[first] == strong
        a_won = strong_won if a_is_strong else ~strong_won
        seat_payoffs = np.zeros((2, DEALS, 2))
        seat_payoffs[0] = np.where(a_won[0][:, None], [1.0, -1.0], [-1.0, 1.0])  # AB: A in seat 0
        seat_payoffs[1] = np.where(a_won[1][:, None], [-1.0, 1.0], [1.0, -1.0])  # BA: A in seat 1
        a_wins = a_won.sum(axis=0)
        pairs.append(PairOutcomes(first, second, ["AB", "BA"], np.ones(DEALS, dtype=bool),
                                  (2.0 * a_wins - 2.0 * (2 - a_wins)) / 2, a_wins, 2 - a_wins,
                                  np.zeros(DEALS, dtype=np.int64), seat_payoffs))
    manifest = {"policies": POLICIES, "deals": DEALS, "players": 2, "game": "tensho", "rules_name": "constructed"}
    return TournamentData(Path("constructed"), manifest, pairs)


def _report_rows(name: str) -> list[dict]:
    import json

    from analysis.render import render
    from analysis.skill_report import build_skill_report

    report = json.loads(render(build_skill_report(_tournament(), draws=300), "json"))
    return next(t["rows"] for t in report["tables"] if t["name"] == name)


def _value(cell: str) -> float:
    return float(cell.split()[0])


def _bounds(cell: str) -> tuple[float, float]:
    low, high = cell.split("[")[1].rstrip("]").split(",")
    return float(low), float(high)


def test_the_skill_command_gives_rs_one_quarter_for_learning_0_3_and_random_effect_0_9():
    rows = {(r["beginner"], r["fictive"]): r for r in _report_rows("skill_relative")}
    row = rows[(GREEDY, FICTIVE)]
    assert row["scale"] == "Dreef"
    assert _value(row["LE"]) == pytest.approx(0.3) and _value(row["RE"]) == pytest.approx(0.9)
    assert _value(row["RS"]) == pytest.approx(0.25)  # 0.3 / (0.3 + 0.9)
    # head to head (stronger's seat minus weaker's) is twice Dreef's in a two-player zero-sum game
    assert _value(row["LE h2h"]) == pytest.approx(0.6) and _value(row["RE h2h"]) == pytest.approx(1.8)
    assert _value(row["RS h2h"]) == pytest.approx(0.25)
    low, high = _bounds(row["RS"])
    assert low < 0.25 < high and 0 <= low
    # random as the extreme beginner: 0.4 / (0.4 + 0.9); the weaker fictive player: 0.3 / (0.3 + 0.5)
    assert _value(rows[(RANDOM, FICTIVE)]["RS"]) == pytest.approx(0.4 / 1.3, abs=5e-4)  # printed to 3 decimals
    assert _value(rows[(GREEDY, WEAK_FICTIVE)]["RS"]) == pytest.approx(0.375)


def test_best_fair_policy_fictive_player_and_beginners_come_from_measured_strength():
    from analysis.skill_report import measure_skill

    measures = measure_skill(_tournament(), draws=200)
    # strength: heuristic (0.6 + 0.8) / 2 = 0.7; greedy (-0.6 + 0) / 2 = -0.3; random (-0.8 + 0) / 2 = -0.4
    assert [p for p, _ in measures.strength] == [RANDOM, GREEDY, HEURISTIC]
    assert [e.value for _, e in measures.strength] == pytest.approx([-0.4, -0.3, 0.7])
    assert measures.best == HEURISTIC  # listed first
    assert measures.fictive == FICTIVE and measures.beginners == [GREEDY, RANDOM]
    assert measures.rs_range(GREEDY) == pytest.approx((0.25, 0.375))
    assert measures.zero_sum


def test_head_to_head_of_any_two_policies_in_either_order():
    from analysis.skill_report import head_to_head

    # heuristic wins 65 % of greedy's seatings: +1 - (-1) a round, 2 (0.65 - 0.35) = 0.6; 30 points
    deals, payoff, wins = head_to_head(_tournament(), HEURISTIC, GREEDY, draws=200)
    assert deals == DEALS and payoff.value == pytest.approx(0.6) and wins.value == pytest.approx(0.3)
    assert payoff.low < 0.6 < payoff.high
    _, back, back_wins = head_to_head(_tournament(), GREEDY, HEURISTIC, draws=200)
    assert back.value == pytest.approx(-0.6) and back_wins.value == pytest.approx(-0.3)
    # not adjacent in the chain of strength (random, greedy, heuristic): 2 (0.7 - 0.3) = 0.8
    assert head_to_head(_tournament(), HEURISTIC, RANDOM, draws=200)[1].value == pytest.approx(0.8)
    with pytest.raises(KeyError, match="pimc is not one of the tournament's policies"):
        head_to_head(_tournament(), "pimc", GREEDY)


def test_the_effects_as_win_probabilities_and_match_odds():
    rows = {(r["beginner"], r["fictive"]): r for r in _report_rows("skill_win_probability")}
    assert _value(rows[(GREEDY, FICTIVE)]["best fair beats the beginner %"]) == pytest.approx(65.0)
    assert _value(rows[(GREEDY, FICTIVE)]["fictive beats the best fair %"]) == pytest.approx(95.0)
    assert _value(rows[(RANDOM, FICTIVE)]["best fair beats the beginner %"]) == pytest.approx(70.0)
    # a match of n rounds each won with probability p: the better player is ahead when it wins more
    # than n / 2 (a tie counts half)
    def by_hand(p: float, n: int) -> float:
        ahead = sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n // 2 + 1, n + 1))
        tie = math.comb(n, n // 2) * (p * (1 - p)) ** (n // 2) if n % 2 == 0 else 0.0
        return 100 * (ahead + tie / 2)

    odds = {r["weaker -> stronger"]: r for r in _report_rows("skill_matches")}
    for weaker, p in ((GREEDY, 0.65), (RANDOM, 0.70)):
        row = odds[f"{weaker} -> {HEURISTIC}"]
        for n in (1, 12, 100):
            cell = row[f"{n}-round match %"]
            assert abs(_value(cell) - by_hand(p, n)) < 1.5, (weaker, n, cell, by_hand(p, n))
            low, high = _bounds(cell)
            assert 0 <= low <= _value(cell) <= high <= 100


def test_rounds_to_lead_name_their_coefficient_and_say_unresolved():
    rows = {r["weaker -> stronger"]: r for r in _report_rows("skill_rounds_to_lead")}
    column = "n* (lambda = 1.645)"
    # random -> greedy: 20 of 40 rounds each, an edge of exactly 0 whose interval holds 0
    assert rows[f"{RANDOM} -> {GREEDY}"][column].startswith("unresolved (at least ")
    assert rows[f"{RANDOM} -> {GREEDY}"]["n (simulated)"] == "unresolved"
    # greedy -> heuristic: rounds of +2 (26) and -2 (14): edge 0.6, n* = (1.645 sd / 0.6)^2
    diffs = np.array([2.0] * 26 + [-2.0] * 14)
    expected = (1.6448536269514722 * diffs.std(ddof=1) / 0.6) ** 2
    cell = rows[f"{GREEDY} -> {HEURISTIC}"][column]
    assert float(cell.split()[0].replace(",", "")) == pytest.approx(expected, abs=0.5)
    low, high = (float(v.replace(",", "")) for v in cell.split("[")[1].rstrip("]").split(", "))
    assert low < expected < high


def test_the_departures_from_the_literature_are_stated_with_their_direction():
    rows = {r["part"]: r for r in _report_rows("skill_departures")}
    assert set(rows) >= {"beginner", "optimal player", "fictive player", "opponents", "n*"}
    assert "RS too low" in rows["optimal player"]["effect"]
    assert "lower bound" in rows["fictive player"]["effect"] and "RS too high" in rows["fictive player"]["effect"]
    assert "RS(random) too high" in rows["beginner"]["effect"]
    assert "lambda = 1.645" in rows["n*"]["here"]
    assert rows["opponents"]["effect"].startswith("none")  # two players, zero-sum: Dreef's scale


def test_three_players_measure_dreef_against_best_fair_players_in_every_other_seat():
    """With three players and zero-sum payoffs, LE and RE are measured in the seatings where the
    beginner (the fictive player) sits alone among best fair players (Dreef's fixed opponents),
    not as the head-to-head difference of the two policies' seats."""
    from pathlib import Path

    from analysis.skill_report import measure_skill
    from analysis.tournament import PairOutcomes, TournamentData

    seatings = ["AAB", "ABA", "BAA", "BBA", "BAB", "ABB"]
    deals = 12

    def pairing(first, second, a_alone, b_alone):
        """Payoffs: where A holds one seat it gets a_alone[0] and each B a_alone[1]; where B holds one
        seat it gets b_alone[0] and each A b_alone[1]."""
        payoffs = np.zeros((6, deals, 3))
        for k, seating in enumerate(seatings):
            alone = "A" if seating.count("A") == 1 else "B"
            mine, others = a_alone if alone == "A" else b_alone
            payoffs[k] = [mine if letter == alone else others for letter in seating]
        a = np.array([[letter == "A" for letter in s] for s in seatings])
        diff = np.mean([payoffs[k][:, a[k]].mean(axis=1) - payoffs[k][:, ~a[k]].mean(axis=1) for k in range(6)], axis=0)
        zeros = np.zeros(deals, dtype=np.int64)
        return PairOutcomes(first, second, seatings, np.ones(deals, dtype=bool), diff, zeros, zeros, zeros + 6, payoffs)

    policies = ["greedy", "heuristic", "omniscient:worlds=1,rollout=heuristic"]
    pairs = [pairing(0, 1, (-0.6, 0.3), (0.4, -0.2)),  # greedy (A) against heuristic (B)
             pairing(1, 2, (-0.8, 0.4), (1.0, -0.5))]  # heuristic (A) against omniscient (B)
    data = TournamentData(Path("three"), {"policies": policies, "deals": deals, "players": 3, "game": "enshu",
                                          "rules_name": "constructed"}, pairs)
    measures = measure_skill(data, draws=50)
    (rs,) = measures.relative
    assert measures.best == "heuristic" and rs.scale == "Dreef"
    # Dreef: LE = 0 - (-0.6), RE = 1.0 - 0; head to head: the means over all six seatings
    assert rs.le.value == pytest.approx(0.6) and rs.re.value == pytest.approx(1.0)
    assert rs.rs.value == pytest.approx(0.6 / 1.6)
    assert rs.le_h2h.value == pytest.approx((0.9 + 0.6) / 2) and rs.re_h2h.value == pytest.approx((1.5 + 1.2) / 2)
    assert rs.rs_h2h.value == pytest.approx(0.75 / 2.1)
