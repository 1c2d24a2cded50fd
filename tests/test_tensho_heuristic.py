"""Tensho's ``heuristic`` policy: the reference class and its numba twin decide alike at every
decision of many reference rounds, it never draws from its stream, and it takes the right action
on hand-built positions worked out by hand below.

Hand computations use the defaults of ``HEURISTIC_PARAMS`` (chances per mille, worths in tenths
of a point) and tensho-ise's tables (yaku set 1, card values T1, chaff set B).
"""

from __future__ import annotations

import numpy as np
import pytest
from tensho_cards import (
    CUP,
    COIN,
    EIGHT_OF_CLUBS,
    EIGHT_OF_SWORDS,
    FIVE_OF_SWORDS,
    HORSE_OF_CLUBS,
    NINE_OF_CLUBS,
    NINE_OF_SWORDS,
    SEVEN_OF_CLUBS,
    SEVEN_OF_SWORDS,
    SIX_OF_CLUBS,
    TEN_OF_SWORDS,
    THREE_OF_SWORDS,
)

from simcore.cards import mask_of
from simcore.games.tensho import heuristic_nb as H
from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.policies import HEURISTIC_PARAMS, HeuristicPolicy, TenshoObservation, make_policy
from simcore.games.tensho.reference import RoundSetup, ask_policy, new_state
from simcore.policies import parse_policy
from simcore.rng import Stream, seat_stream
from simcore.rules import load_rules

# Rule sets and options whose decisions differ: every shipped Tensho rule set, both yaku sets
# and the dealer's choice, optional captures, banking the 6 of clubs, both double- and triple-
# match rules, claims on a four of a rank, the 6 of clubs to the dealer, additive yaku.
VARIANTS = [
    ("tensho-ise", {}),
    ("tensho-ise", {"tensho.yaku_set_choice": "fixed_2"}),
    ("tensho-ise", {"tensho.yaku_set_choice": "dealer_policy"}),
    ("tensho-hanafuda", {"tensho.yaku_set_choice": "alternate"}),
    ("tensho-hanafuda", {"tensho.back_two_card": "rain_man", "tensho.yaku_set_choice": "fixed_2"}),
    ("tensho-ise", {"tensho.capture_mandatory": "false"}),
    ("tensho-ise", {"tensho.capture_mandatory": "false", "tensho.yaku_set_choice": "fixed_2"}),
    ("tensho-ise", {"tensho.six_in_hand": "bank_at_deal", "tensho.yaku_set_choice": "dealer_policy"}),
    ("tensho-ise", {"tensho.double_match": "highest_value_first"}),
    ("tensho-ise", {"tensho.triple_match": "one", "tensho.field_four_of_rank": "opening_rule_applies"}),
    ("tensho-ise", {"tensho.opening_claim_scope": "one_triple", "tensho.field_four_of_rank": "stuck"}),
    ("tensho-ise", {"tensho.six_on_field": "dealer_captures", "tensho.supersession": "none",
                    "tensho.ten_horse_king": "10_9_12"}),
]

MIXES = [("heuristic", "heuristic"), ("heuristic", "random"), ("random", "heuristic"),
         ("heuristic:yaku_set=2,claim=50,risk=500", "greedy")]


def decide_both(state, decision, policy, tables):
    """The reference policy's action at ``decision`` and the numba twin's, as action keys."""
    action = ask_policy(policy, state, decision)
    keys = np.array([H.tensho_action_key(decision, a) for a in decision.actions], dtype=np.int64)
    card = decision.info["card"] if decision.kind == "capture" else -1
    obs = H.pack_observation(state.observe(decision.seat), card)
    index = H.heuristic_choose_nb(H.kind_code(decision.kind), obs, keys, len(keys), tables)
    return H.tensho_action_key(decision, action), int(keys[index])


def play_checked(compiled, specs, seed, round_index, dealer):
    """Play one reference round; at every heuristic decision compare the two engines.
    Returns the number of decisions compared."""
    streams = [Stream(seed, round_index, seat_stream(s)) for s in range(2)]
    policies = [make_policy(specs[s], compiled, streams[s]) for s in range(2)]
    tables = [H.heuristic_tables(compiled, spec) if spec.name == "heuristic" else None for spec in specs]
    state = new_state(compiled, RoundSetup(seed=seed, round_index=round_index, dealer=dealer))
    compared = 0
    while (decision := state.decision()) is not None:
        seat = decision.seat
        if specs[seat].name == "heuristic":
            reference, twin = decide_both(state, decision, policies[seat], tables[seat])
            assert reference == twin, (round_index, decision.kind, decision.actions)
            compared += 1
            action = decision.actions[[H.tensho_action_key(decision, a) for a in decision.actions].index(reference)]
        else:
            action = ask_policy(policies[seat], state, decision)
        state.apply(action)
    return compared


@pytest.mark.parametrize("rules, options", VARIANTS)
def test_twin_decides_as_the_reference(rules, options):
    compiled = compile_rules(load_rules(rules, options))
    compared = 0
    for m, (a, b) in enumerate(MIXES):
        specs = [parse_policy(a, "tensho"), parse_policy(b, "tensho")]
        for r in range(60):
            compared += play_checked(compiled, specs, 11 + m, r, r % 2)
    assert compared > 1500
