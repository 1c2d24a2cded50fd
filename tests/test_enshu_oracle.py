"""The reference engine against an independent implementation (``enshu_oracle``), round by round.

Both consume the documented streams in the documented order under the uniform random policy, so
every round must agree exactly: deals and redeals, multiplier, dropout, teyaku dealt and
declared, captured cards, yaku, points, scores, payments, winner, end reason, Fuke.
"""

from __future__ import annotations

import pytest
from enshu_oracle import Oracle

from simcore.cards import ids_of
from simcore.games.enshu import enums as E
from simcore.games.enshu.compile import compile_rules
from simcore.games.enshu.reference import play_unit
from simcore.policies import parse_policy
from simcore.rules.loader import load_rules

SEED = 90210

CONFIGS = [
    ("enshu-w", {"enshu.players": 2}, 250),
    ("enshu-w", {"enshu.players": 3}, 250),
    ("enshu-w", {"enshu.players": 2, "enshu.deal_2p": "7_6", "enshu.w_misdeal": "as_variant_C",
                 "enshu.w.tie": "split", "enshu.w.stake": 3}, 120),
    ("enshu-w", {"enshu.w.uchikiri_payment": "ante_plus_k", "enshu.w.uchikiri_combo": "product",
                 "enshu.uchikiri_check": "after_each_capture", "enshu.capture_three": "one",
                 "enshu.bright_value": 30, "enshu.w.triplet_declare": "always"}, 120),
    ("enshu-w", {"enshu.w.uchikiri_combo": "max", "enshu.w.triplet_declare": "never", "enshu.w_misdeal": "none",
                 "enshu.sokuyaku_stacking": "additive"}, 120),
    ("enshu-s", {"enshu.players": 2}, 200),
    ("enshu-s", {"enshu.players": 3}, 200),
    ("enshu-s", {"enshu.s.multipliers": "5_3_3", "enshu.s.combination": "cards_times_product_plus_yaku",
                 "enshu.tie_order": "dealer_then_left"}, 120),
    ("enshu-s", {"enshu.players": 2, "enshu.s.combination": "total_times_sum", "enshu.s.teyaku": "off",
                 "enshu.sokuyaku_stacking": "additive"}, 120),
    ("enshu-c", {"enshu.players": 2}, 200),
    ("enshu-c", {"enshu.players": 3}, 250),
    ("enshu-c", {"enshu.players": 4}, 250),
    ("enshu-c", {"enshu.players": 5}, 250),
    ("enshu-c", {"enshu.players": 3, "enshu.c.score_formula": "zero_sum", "enshu.c.negative_score": "literal",
                 "enshu.c.triplet_bonus_mode": "upgrade", "enshu.c.fuke_on_uchikiri": "true",
                 "enshu.tie_order": "dealer_then_left"}, 150),
    ("enshu-c", {"enshu.players": 4, "enshu.c.triplet_bonus_condition": "all_four_in_own_pile",
                 "enshu.c.triplet_bonus_in_four_three": "false", "enshu.c.icp_four_check": "at_teyaku_active_hands",
                 "enshu.c.junk_def": "lightning_is_junk", "enshu.c.exposure": "junk_only_for_group_B"}, 150),
    ("enshu-c", {"enshu.players": 5, "enshu.c.dropped_hands": "set_aside", "enshu.c.dropout_pass_cap": 1,
                 "enshu.c.uchikiri_combo": "max", "enshu.uchikiri_check": "after_each_capture"}, 150),
    ("enshu-c", {"enshu.players": 3, "enshu.c.kotsu_small_games": "false", "enshu.capture_three": "one"}, 120),
]


def engine_view(rules, result) -> dict:
    """The engine's result in the oracle's vocabulary."""
    n = result.players
    return {
        "redeals": result.redeals, "active": result.active, "mizu_kotsu": result.mizu_kotsu,
        "kotsu": result.kotsu, "multiplier": result.multiplier, "dropout_passes": result.dropout_passes,
        "first_player": result.first_player,
        "hand_dealt": [ids_of(result.hand_dealt[s]) for s in range(n)],
        "teyaku_dealt": [{rules.teyaku[i].key for i in ids_of(result.teyaku_dealt[s])} for s in range(n)],
        "teyaku_declared": [{rules.teyaku[i].key for i in ids_of(result.teyaku_declared[s])} for s in range(n)],
        "captured": [ids_of(result.captured[s]) for s in range(n)],
        "yaku": [{rules.yaku[i].key for i in ids_of(result.yaku[s])} for s in range(n)],
        "card_points": result.card_points, "yaku_points": result.yaku_points,
        "teyaku_points": result.teyaku_points, "yaku_multiplier": result.yaku_multiplier,
        "score": result.score, "payoff": result.payoff, "winner": result.winner,
        "end_reason": E.END_REASONS[result.end_reason], "end_turn": result.end_turn, "fuke": result.fuke,
    }


def _config_id(config) -> str:
    name, overrides, _ = config
    return "-".join([name] + [f"{key.split('.')[-1]}={value}" for key, value in overrides.items()])


@pytest.mark.parametrize(("name", "overrides", "rounds"), CONFIGS, ids=[_config_id(c) for c in CONFIGS])
@pytest.mark.slow
def test_engine_matches_independent_implementation(name, overrides, rounds):
    rules = load_rules(name, overrides)
    compiled = compile_rules(rules)
    n = rules.players
    specs = [parse_policy("random")] * n
    reasons = set()
    for r in range(rounds):
        [result] = play_unit(compiled, specs, SEED, r, None)
        expected = Oracle(rules.variant, n, rules.options, SEED, r, r % n).run()
        got = engine_view(rules, result)
        for key, value in expected.items():
            assert got[key] == value, f"round {r}, {key}: engine {got[key]!r}, oracle {value!r}"
        reasons.add(got["end_reason"])
    assert "score" in reasons
