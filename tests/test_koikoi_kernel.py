"""The koi-koi kernel (the general kernel over ``state_nb``) against the reference engine, cell for
cell, under option values the shipped rule sets do not use (every exhausted-round rule, dealt
hands, rain, the other koi-koi bonuses and limits), with the built-in policies, in independent
rounds and in matches that end early. The shipped rule sets are in ``tests/test_every_game.py``."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.games import get_game
from simcore.games.koikoi import enums as E
from simcore.policies import parse_policy
from simcore.record import C_MATCH_END, C_VALID
from simcore.rules import load_rules

VARIANTS = [
    ("koikoi-kkj", {"koikoi.start_points": "3"}),
    ("koikoi", {"koikoi.exhausted": "highest_yaku", "koikoi.exhausted_dealer": "switch"}),
    ("koikoi", {"koikoi.exhausted": "dealer_points", "koikoi.dealer_priority": "6", "koikoi.scoring": "zero_sum"}),
    ("koikoi-kkj", {"koikoi.teshi": "score", "koikoi.kuttsuki": "score", "koikoi.field_four": "ignore"}),
    ("koikoi", {"koikoi.rain_off": "rain_man", "koikoi.tsukifuda": "4", "koikoi.viewing_raise": "after_own_koikoi"}),
    ("koikoi", {"koikoi.rain_off": "any_willow", "koikoi.koikoi_limit": "once_per_table",
                "koikoi.koikoi_trigger": "new_yaku"}),
    ("koikoi", {"koikoi.koikoi_limit": "once_per_seat", "koikoi.last_turn": "koikoi_allowed",
                "koikoi.koikoi_bonus": "calls_plus_one"}),
    ("koikoi-kkj", {"koikoi.koikoi_bonus": "own_double", "koikoi.bdb_extra": "per_animal"}),
    ("koikoi", {"koikoi.koikoi_bonus": "any_double", "koikoi.sake_cup_chaff": "false",
                "koikoi.ribbons_with_tan": "stacks", "koikoi.kuttsuki": "redeal", "koikoi.hanami": "0"}),
]


@pytest.mark.parametrize(("rules", "options"), VARIANTS, ids=[str(sorted(o.items())) for _, o in VARIANTS])
@pytest.mark.slow
def test_kernel_and_reference_write_the_same_rows(rules, options):
    game = get_game("koikoi")
    compiled = game.compile(load_rules(rules, options))
    for policies in (("random", "random"), ("heuristic", "greedy")):
        specs = [parse_policy(p, "koikoi") for p in policies]
        for rounds_per_match, units in ((None, 200), (8, 25)):
            kernel = game.play_units("kernel", compiled, specs, 9, 3, units, rounds_per_match)
            reference = game.play_units("reference", compiled, specs, 9, 3, units, rounds_per_match)
            for kernel_matrix, reference_matrix in zip(kernel, reference, strict=True):
                np.testing.assert_array_equal(kernel_matrix, reference_matrix)


def test_a_match_ends_when_a_seat_reaches_zero_in_the_kernel():
    game = get_game("koikoi")
    compiled = game.compile(load_rules("koikoi-kkj", {"koikoi.start_points": "2"}))
    specs = [parse_policy("random", "koikoi")] * 2
    ints, _ = game.play_units("kernel", compiled, specs, 5, 0, 40, 8)
    valid = ints[C_VALID].reshape(40, 8) == 1
    ends = ints[C_MATCH_END].reshape(40, 8) == 1
    points = ints[E.C_MATCH_POINTS:E.C_MATCH_POINTS + 2].reshape(2, 40, 8)
    assert (valid.sum(axis=1) < 8).any()  # some matches stopped early
    for match in range(40):
        played = int(valid[match].sum())
        assert valid[match, :played].all() and not valid[match, played:].any()
        assert ends[match, played - 1] and ends[match].sum() == 1
        last = points[:, match, played - 1]
        assert played == 8 or last.min() <= 0
        assert (points[:, match, :played - 1].min(axis=0) > 0).all()


# (Random seats alone are not here: the general kernel never plays them, and their fast-kernel rows are
# checked against the reference engine above and pinned in tests/test_golden_rows.py.)
FAST_SEATS = (("greedy", "greedy"), ("random", "greedy"), ("greedy", "random"))


@pytest.mark.parametrize(("rules", "options"), [("koikoi", {}), ("koikoi-kkj", {}), *VARIANTS],
                         ids=["koikoi", "koikoi-kkj", *(str(sorted(o.items())) for _, o in VARIANTS)])
def test_the_fast_kernel_writes_the_general_kernels_rows(rules, options):
    # random and greedy seats go to kernel_nb; the general kernel over state_nb is the reference
    # here (itself checked against the reference engine above), on many more rounds
    from simcore.games.koikoi.kernel import play_units, play_units_general

    compiled = get_game("koikoi").compile(load_rules(rules, options))
    for policies in FAST_SEATS:
        specs = [parse_policy(p, "koikoi") for p in policies]
        for rounds_per_match, units in ((None, 3000), (8, 300)):
            fast = play_units(compiled, specs, 11, 7, units, rounds_per_match)
            general = play_units_general(compiled, specs, 11, 7, units, rounds_per_match)
            for fast_matrix, general_matrix in zip(fast, general, strict=True):
                np.testing.assert_array_equal(fast_matrix, general_matrix)


def test_dealt_hands_counted_in_nibbles_agree_with_the_month_loop():
    from simcore.games.koikoi.kernel_nb import dealt_hand_fast_nb, months_in_nibbles
    from simcore.games.koikoi.state_nb import dealt_hand_nb as for_numba
    from simcore.games.koikoi.state_nb import rule_table
    from simcore.kernels.internal import python_entry

    dealt_hand_nb = python_entry(for_numba)

    compiled = get_game("koikoi").compile(load_rules("koikoi", {}))
    assert months_in_nibbles(compiled.month_mask)
    rt = rule_table(compiled)
    rng = np.random.default_rng(3)
    hands = [sum(1 << int(c) for c in rng.choice(48, 8, replace=False)) for _ in range(20_000)]
    hands += [0xF | 0xF0 << 8, 0x3 | 0x30 | 0x300 | 0x3000, 0x3 | 0x30 | 0x300 | 0x7000, 0x3 | 0x30 | 0x300]
    kinds = {E.Y_TESHI: 0, E.Y_KUTTSUKI: 0, -1: 0}
    for hand in hands:
        expected = dealt_hand_nb(np.int64(hand), rt)
        assert dealt_hand_fast_nb(np.int64(hand), True, rt) == expected
        assert dealt_hand_fast_nb(np.int64(hand), False, rt) == expected
        kinds[int(expected)] += 1
    assert min(kinds.values()) > 0  # every outcome was checked
