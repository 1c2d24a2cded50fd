"""Two engines, one truth for Enshu-bana (guarantee 3 of docs/guarantees.md): kernel rows ==
reference rows.

Each combination plays the same units through the numba kernel (``simcore.games.enshu.kernel``) and
the pure-Python reference engine (``simcore.games.enshu.reference``) and compares every column of the
per-round record, for every variant, every player count it allows, mixes of the built-in
policies, every option that changes play, and match play.  ``FUDASIM_PARITY_ROUNDS`` scales the
number of rounds per combination (default 1,000 for the variant/player/policy grid; the option
and match combinations play a quarter of that).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from simcore.games.enshu import enums as E
from simcore.games.enshu.compile import compile_rules
from simcore.games.enshu.kernel import play_units as kernel_play_units
from simcore.games.enshu.kernel_nb import play_round_nb, play_units_nb
from simcore.games.enshu.record import LAYOUT
from simcore.games.enshu.reference import play_units as reference_play_units
from simcore.policies import parse_policy
from simcore.record import output_buffers
from simcore.rules.loader import load_rules

ROUNDS = int(os.environ.get("FUDASIM_PARITY_ROUNDS", "1000"))
OPTION_ROUNDS = max(200, ROUNDS // 4)

PLAYER_COUNTS = {"enshu-w": (2, 3), "enshu-s": (2, 3), "enshu-c": (2, 3, 4, 5)}


def compiled_for(rules: str, players: int, options: dict | None = None):
    return compile_rules(load_rules(rules, {"enshu.players": players, **(options or {})}))


def policy_mix(kind: str, players: int) -> list[str]:
    """``random``, ``greedy``, or alternating seats starting with ``greedy`` / ``random``."""
    if kind in ("random", "greedy"):
        return [kind] * players
    first, second = ("greedy", "random") if kind == "greedy-random" else ("random", "greedy")
    return [first if s % 2 == 0 else second for s in range(players)]


def assert_same_rows(rules: str, players: int, options: dict, policies: list[str], units: int,
                     rounds_per_match: int | None, seed: int) -> dict[str, np.ndarray]:
    compiled = compiled_for(rules, players, options)
    specs = [parse_policy(p) for p in policies]
    reference = LAYOUT.columns(*reference_play_units(compiled, specs, seed, 0, units, rounds_per_match),
                                      players)
    kernel = LAYOUT.columns(*kernel_play_units(compiled, specs, seed, 0, units, rounds_per_match), players)
    assert reference.keys() == kernel.keys()
    assert len(reference["round"]) == units * (rounds_per_match or 1)
    for name in reference:
        mismatch = np.flatnonzero(reference[name] != kernel[name])
        assert mismatch.size == 0, (
            f"{name} differs in {mismatch.size} rounds, first at round {reference['round'][mismatch[0]]}: "
            f"reference {reference[name][mismatch[0]]}, kernel {kernel[name][mismatch[0]]}"
        )
    return reference


GRID = [(rules, players) for rules, counts in PLAYER_COUNTS.items() for players in counts]
MIXES = ["random", "greedy", "greedy-random", "random-greedy"]


@pytest.mark.parametrize("mix", MIXES)
@pytest.mark.parametrize("rules, players", GRID, ids=[f"{r[6:]}-{n}p" for r, n in GRID])
@pytest.mark.slow
def test_kernel_equals_reference_for_each_variant_player_count_and_policy_mix(rules, players, mix):
    units = ROUNDS if mix == "random" else ROUNDS // 2
    rows = assert_same_rows(rules, players, {}, policy_mix(mix, players), units, None, seed=11)
    # the comparison covered real play: every seat dealt and won, rounds played out and stopped
    assert set(rows["dealer"].tolist()) == set(range(players))
    assert set(rows["winner"].tolist()) >= set(range(players))
    reasons = set(rows["end_reason"].tolist())
    assert E.END_SCORE in reasons
    if rules != "enshu-s":
        assert E.END_UCHIKIRI in reasons
    if rules == "enshu-c" and players >= 4:
        assert rows["dropout_passes"].min() >= 1


# Every option that changes play, on the variant(s) and player count where it matters.
PLAY_CHANGING_OPTIONS = [
    ("enshu-w", 2, {"enshu.deal_2p": "7_6"}),
    ("enshu-s", 2, {"enshu.deal_2p": "7_6"}),
    ("enshu-w", 3, {"enshu.w_misdeal": "none"}),
    ("enshu-w", 2, {"enshu.w_misdeal": "as_variant_C"}),
    ("enshu-s", 3, {"enshu.w_misdeal": "as_variant_C"}),
    ("enshu-w", 3, {"enshu.bright_value": "30"}),
    ("enshu-s", 3, {"enshu.bright_value": "30"}),
    ("enshu-w", 3, {"enshu.sokuyaku_stacking": "additive"}),
    ("enshu-s", 2, {"enshu.sokuyaku_stacking": "additive"}),
    ("enshu-c", 3, {"enshu.sokuyaku_stacking": "additive"}),
    ("enshu-w", 3, {"enshu.uchikiri_check": "after_each_capture"}),
    ("enshu-s", 3, {"enshu.uchikiri_check": "after_each_capture"}),
    ("enshu-c", 4, {"enshu.uchikiri_check": "after_each_capture"}),
    ("enshu-w", 3, {"enshu.capture_three": "one"}),
    ("enshu-s", 2, {"enshu.capture_three": "one"}),
    ("enshu-c", 5, {"enshu.capture_three": "one"}),
    ("enshu-s", 3, {"enshu.tie_order": "dealer_then_left"}),
    ("enshu-c", 3, {"enshu.tie_order": "dealer_then_left"}),
    ("enshu-c", 5, {"enshu.tie_order": "dealer_then_left"}),
    ("enshu-w", 3, {"enshu.w.uchikiri_payment": "ante_plus_k"}),
    ("enshu-w", 3, {"enshu.w.tie": "split"}),
    ("enshu-w", 2, {"enshu.w.tie": "split", "enshu.w.stake": 3}),
    ("enshu-w", 3, {"enshu.w.triplet_declare": "always"}),
    ("enshu-w", 3, {"enshu.w.triplet_declare": "never"}),
    ("enshu-w", 3, {"enshu.w.stake": 5}),
    ("enshu-w", 3, {"enshu.w.uchikiri_combo": "max"}),
    ("enshu-w", 2, {"enshu.w.uchikiri_combo": "product", "enshu.uchikiri_check": "after_each_capture"}),
    ("enshu-s", 3, {"enshu.s.teyaku": "off"}),
    ("enshu-s", 3, {"enshu.s.multipliers": "5_3_3"}),
    ("enshu-s", 3, {"enshu.s.combination": "cards_times_product_plus_yaku"}),
    ("enshu-s", 2, {"enshu.s.combination": "total_times_sum", "enshu.s.multipliers": "5_3_3"}),
    ("enshu-c", 3, {"enshu.c.score_formula": "zero_sum"}),
    ("enshu-c", 4, {"enshu.c.negative_score": "literal"}),
    ("enshu-c", 3, {"enshu.c.triplet_bonus_mode": "upgrade"}),
    ("enshu-c", 3, {"enshu.c.triplet_bonus_condition": "all_four_in_own_pile"}),
    ("enshu-c", 3, {"enshu.c.triplet_bonus_in_four_three": "false"}),
    ("enshu-c", 3, {"enshu.c.icp_four_check": "at_teyaku_active_hands"}),
    ("enshu-c", 5, {"enshu.c.icp_four_check": "at_teyaku_active_hands"}),
    ("enshu-c", 3, {"enshu.c.junk_def": "lightning_is_junk"}),
    ("enshu-c", 3, {"enshu.c.exposure": "junk_only_for_group_B"}),
    ("enshu-c", 4, {"enshu.c.dropped_hands": "set_aside"}),
    ("enshu-c", 5, {"enshu.c.dropped_hands": "set_aside"}),
    ("enshu-c", 5, {"enshu.c.dropout_repeat_pool": "all_not_dropped"}),
    ("enshu-c", 5, {"enshu.c.dropout_pass_cap": 1}),
    ("enshu-c", 4, {"enshu.c.dropout_pass_cap": 2}),
    ("enshu-c", 3, {"enshu.c.fuke_on_uchikiri": "true"}),
    ("enshu-c", 3, {"enshu.c.uchikiri_combo": "max"}),
    ("enshu-c", 2, {"enshu.c.kotsu_small_games": "false"}),
    ("enshu-c", 3, {"enshu.c.kotsu_small_games": "false"}),
]


def _option_id(case) -> str:
    rules, players, options = case
    return f"{rules[6:]}-{players}p-" + ",".join(f"{k[6:]}={v}" for k, v in options.items())


@pytest.mark.parametrize("mix", ["random", "greedy-random"])
@pytest.mark.parametrize("case", PLAY_CHANGING_OPTIONS, ids=_option_id)
@pytest.mark.slow
def test_kernel_equals_reference_under_each_option(case, mix):
    rules, players, options = case
    assert_same_rows(rules, players, options, policy_mix(mix, players), OPTION_ROUNDS, None, seed=23)


MATCHES = [
    ("enshu-w", 3, {}, 12),
    ("enshu-w", 2, {"enshu.next_dealer": "rotate"}, 5),
    ("enshu-s", 3, {}, 12),
    ("enshu-s", 2, {"enshu.s.match_scoring": "round_wins"}, 6),
    ("enshu-s", 3, {"enshu.s.match_scoring": "round_wins", "enshu.next_dealer": "rotate"}, 4),
    ("enshu-c", 3, {}, 12),
    ("enshu-c", 5, {}, 6),
    ("enshu-c", 4, {"enshu.next_dealer": "rotate"}, 3),
    ("enshu-c", 2, {"enshu.c.negative_score": "literal"}, 12),
]


@pytest.mark.parametrize("rules, players, options, rounds_per_match", MATCHES,
                         ids=[f"{r[6:]}-{n}p-{k}-" + ",".join(f"{a[6:]}={b}" for a, b in o.items())
                              for r, n, o, k in MATCHES])
@pytest.mark.slow
def test_kernel_equals_reference_in_match_play(rules, players, options, rounds_per_match):
    rows = assert_same_rows(rules, players, options, policy_mix("greedy-random", players),
                            max(10, OPTION_ROUNDS // rounds_per_match), rounds_per_match, seed=3)
    rotate = options.get("enshu.next_dealer") == "rotate"
    for previous in range(len(rows["round"]) - 1):
        if rows["match"][previous] != rows["match"][previous + 1]:
            assert rows["match_end"][previous]
            continue
        winner = rows["winner"][previous]
        expected = rows["dealer"][previous] if winner < 0 else (
            (rows["dealer"][previous] + 1) % players if rotate else winner)
        assert rows["dealer"][previous + 1] == expected


@pytest.mark.slow
def test_reused_uninitialised_buffers_are_overwritten_in_every_cell():
    """Rows of a 5-player C run, then of a 2-player W match, in one garbage-filled buffer."""
    buffers = output_buffers(600, E.N_INT_COLUMNS, E.N_MASK_COLUMNS)
    buffers[0].fill(-0x5A5A5A5A)
    buffers[1].fill(np.uint64(0xA5A5A5A5A5A5A5A5))
    cases = [
        ("enshu-c", 5, {}, 300, None, ["random", "greedy", "random", "random", "greedy"]),
        ("enshu-w", 2, {}, 40, 12, ["greedy", "random"]),
        ("enshu-c", 3, {"enshu.c.dropped_hands": "set_aside"}, 500, None, ["random", "random", "greedy"]),
    ]
    for rules, players, options, units, rounds_per_match, policies in cases:
        compiled = compiled_for(rules, players, options)
        specs = [parse_policy(p) for p in policies]
        ints, masks = kernel_play_units(compiled, specs, 7, 100, units, rounds_per_match, out=buffers)
        want_ints, want_masks = reference_play_units(compiled, specs, 7, 100, units, rounds_per_match)
        assert np.shares_memory(ints, buffers[0]) and np.shares_memory(masks, buffers[1])
        np.testing.assert_array_equal(ints, want_ints)
        np.testing.assert_array_equal(masks, want_masks)


def test_rows_do_not_depend_on_how_units_are_split():
    compiled = compiled_for("enshu-c", 4)
    specs = [parse_policy(p) for p in ("random", "greedy", "random", "greedy")]
    whole = kernel_play_units(compiled, specs, 99, 10, 300, None)
    parts = [kernel_play_units(compiled, specs, 99, 10, 37, None), kernel_play_units(compiled, specs, 99, 47, 263, None)]
    for k in range(2):
        np.testing.assert_array_equal(whole[k], np.concatenate([parts[0][k], parts[1][k]], axis=1))


def test_kernel_rejects_a_policy_list_of_the_wrong_length():
    with pytest.raises(ValueError, match="3 players need 3 policies"):
        kernel_play_units(compiled_for("enshu-w", 3), [parse_policy("random")] * 2, 1, 0, 1, None)


def test_the_kernel_compiles_one_signature():
    specs = [parse_policy("random"), parse_policy("greedy")]
    kernel_play_units(compiled_for("enshu-w", 2), specs, 1, 0, 10, None)
    kernel_play_units(compiled_for("enshu-s", 3), specs + specs[:1], 2**64 - 1, 7, 10, 12)
    kernel_play_units(compiled_for("enshu-c", 5, {"enshu.c.dropped_hands": "set_aside"}), specs * 2 + specs[:1],
                      5, 0, 10, 3)
    assert len(play_units_nb.signatures) == 1
    # numba inlines a call only below 30 arguments (CPython passes more as a star-args tuple)
    assert play_round_nb.py_func.__code__.co_argcount < 30
