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
