"""Two engines, one truth (guarantee 3 of docs/guarantees.md): kernel rows == reference rows, round
by round.

Each combination plays the same units through the numba kernel and the pure-Python reference
engine and compares every column of the per-round record.  ``FUDASIM_PARITY_ROUNDS`` scales the
number of rounds per combination (default 4,000 for the policy/set grid).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from simcore.games.tensho import enums as E
from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.kernel import play_units as kernel_play_units
from simcore.games.tensho.kernel_nb import play_units_nb
from simcore.games.tensho.record import LAYOUT
from simcore.games.tensho.reference import play_units as reference_play_units
from simcore.policies import parse_policy
from simcore.rules import load_rules

ROUNDS = int(os.environ.get("FUDASIM_PARITY_ROUNDS", "4000"))
OPTION_ROUNDS = max(500, ROUNDS // 3)


def assert_same_rows(rules: str, options: dict, policies: list[str], units: int,
                     rounds_per_match: int | None, seed: int) -> dict[str, np.ndarray]:
    compiled = compile_rules(load_rules(rules, options))
    specs = [parse_policy(p) for p in policies]
    reference = LAYOUT.columns(*reference_play_units(compiled, specs, seed, 0, units, rounds_per_match), 2)
    kernel = LAYOUT.columns(*kernel_play_units(compiled, specs, seed, 0, units, rounds_per_match), 2)
    assert reference.keys() == kernel.keys()
    assert len(reference["round"]) >= units
    for name in reference:
        mismatch = np.flatnonzero(reference[name] != kernel[name])
        assert mismatch.size == 0, (
            f"{name} differs in {mismatch.size} rounds, first at round {reference['round'][mismatch[0]]}: "
            f"reference {reference[name][mismatch[0]]}, kernel {kernel[name][mismatch[0]]}"
        )
    return reference


POLICY_PAIRS = [("random", "random"), ("greedy", "random"), ("random", "greedy"), ("greedy", "greedy")]


@pytest.mark.parametrize("yaku_set", ["fixed_1", "fixed_2"])
@pytest.mark.parametrize("policies", POLICY_PAIRS, ids="-".join)
@pytest.mark.slow
def test_kernel_equals_reference_for_each_yaku_set_and_policy_pair(yaku_set, policies):
    rows = assert_same_rows("tensho-ise", {"tensho.yaku_set_choice": yaku_set}, list(policies),
                            ROUNDS if "greedy" not in policies else ROUNDS // 2, None, seed=11)
    # the comparison covered real play: several end reasons, both winners, instant wins in the
    # turns (the random turn loop plays a pass again when it ends in one), and deals after a
    # redeal (the kernel shuffles a deck in stages, and makes the rest of the draws before one)
    assert len(set(rows["end_reason"].tolist())) >= 4
    assert set(rows["winner"].tolist()) >= {0, 1}
    assert np.any((rows["end_reason"] == E.END_INSTANT_WIN) & (rows["end_turn"] > 0))
    assert np.any(rows["redeals"] > 0)


PLAY_CHANGING_OPTIONS = [
    {"tensho.triple_match": "one"},
    {"tensho.double_match": "highest_value_first"},
    {"tensho.capture_mandatory": "false"},
    {"tensho.opening_claim_scope": "one_triple"},
    {"tensho.field_four_of_rank": "stuck"},
    {"tensho.field_four_of_rank": "opening_rule_applies"},
    {"tensho.six_on_field": "dealer_captures"},
    {"tensho.six_in_hand": "bank_at_deal"},
    {"tensho.instant_win_check": "end_of_turn"},
    {"tensho.supersession": "none"},
    {"tensho.supersession": "all_subsets"},
    {"tensho.supersession": "young_old_only", "tensho.yaku_set_choice": "fixed_2"},
    {"tensho.ten_horse_king": "10_9_12"},
    {"tensho.no_yaku_tiebreak": "values_only"},
    {"tensho.final_tie": "dealer_wins"},
    {"tensho.final_tie": "non_dealer_wins"},
    {"tensho.yaku_set_choice": "random"},
    {"tensho.yaku_set_choice": "alternate"},
    {"tensho.yaku_set_choice": "dealer_policy"},
    {"tensho.card_values": "T2_alt", "tensho.chaff_set": "D"},
    {"tensho.deal_procedure": "physical"},
    {"tensho.match_scoring": "yaku_points"},
]


@pytest.mark.parametrize("options", PLAY_CHANGING_OPTIONS, ids=lambda o: ",".join(f"{k[7:]}={v}" for k, v in o.items()))
@pytest.mark.parametrize("policies", [("random", "random"), ("greedy", "random")], ids="-".join)
@pytest.mark.slow
def test_kernel_equals_reference_under_each_option(options, policies):
    assert_same_rows("tensho-ise", options, list(policies), OPTION_ROUNDS, None, seed=23)


@pytest.mark.parametrize("options", [{}, {"tensho.back_two_card": "rain_man"}], ids=["default", "rain_man"])
@pytest.mark.slow
def test_kernel_equals_reference_in_the_hanafuda_skin(options):
    assert_same_rows("tensho-hanafuda", options, ["random", "greedy"], OPTION_ROUNDS, None, seed=5)


@pytest.mark.parametrize(
    "options, rounds_per_match",
    [
        ({}, 3),
        ({}, 12),
        ({"tensho.match_tie": "extra_round"}, 6),
        ({"tensho.match_scoring": "yaku_points", "tensho.match_tie": "extra_round"}, 3),
        ({"tensho.yaku_set_choice": "dealer_policy"}, 12),
    ],
)
@pytest.mark.slow
def test_kernel_equals_reference_in_match_play(options, rounds_per_match):
    rows = assert_same_rows("tensho-ise", options, ["greedy:yaku_set=2", "random"],
                            max(20, OPTION_ROUNDS // rounds_per_match), rounds_per_match, seed=3)
    # the winner of each round deals the next round of its match
    for previous, current in zip(range(len(rows["round"]) - 1), range(1, len(rows["round"])), strict=True):
        if rows["match"][previous] == rows["match"][current] and rows["winner"][previous] >= 0:
            assert rows["dealer"][current] == rows["winner"][previous]


def test_the_kernel_compiles_one_signature():
    compiled = compile_rules(load_rules("tensho-ise"))
    specs = [parse_policy("random"), parse_policy("greedy")]
    kernel_play_units(compiled, specs, 1, 0, 10, None)
    kernel_play_units(compile_rules(load_rules("tensho-hanafuda")), specs, 2**63 + 5, 7, 10, 12)
    assert len(play_units_nb.signatures) == 1
