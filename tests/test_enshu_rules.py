"""Enshu-bana rule files: shipped defaults, player counts, validation errors, compiled arrays."""

from __future__ import annotations

import tomllib
from importlib import resources

import numpy as np
import pytest
from enshu_cards import ANIMALS, BRIGHTS, DEKIYAKU, RIBBONS, WILLOW, card_points

from simcore.games.enshu import enums as E
from simcore.games.enshu.compile import compile_rules
from simcore.games.enshu.options import OPTION_VARIANTS, OPTIONS
from simcore.rules import RulesError, load_rules, shipped_rules

# The Enshu-bana options of docs/enshu.md#options, typed in: option -> default (per variant where
# they differ).
RULES_DEFAULTS = {
    "enshu.deal_2p": "8_8", "enshu.w_misdeal": "field_four", "enshu.sokuyaku_stacking": "supersede",
    "enshu.uchikiri_check": "end_of_turn", "enshu.next_dealer": "round_winner", "enshu.rounds": 12,
    "enshu.capture_three": "all", "enshu.tie_order": "turn_order",
    "enshu.w.uchikiri_payment": "total_k", "enshu.w.multiple_stopping_teyaku": "highest_then_turn_order",
    "enshu.w.tie": "turn_order",
    "enshu.s.teyaku": "on", "enshu.s.multipliers": "3_2_2", "enshu.s.combination": "total_times_product",
    "enshu.s.match_scoring": "cumulative",
    "enshu.c.score_formula": "literal", "enshu.c.negative_score": "clamp_zero",
    "enshu.c.triplet_bonus_mode": "separate", "enshu.c.triplet_bonus_condition": "fourth_card_in_own_pile",
    "enshu.c.triplet_bonus_in_four_three": "true", "enshu.c.icp_four_check": "at_deal_all_hands",
    "enshu.c.junk_def": "lightning_excluded", "enshu.c.exposure": "all_composition_cards",
    "enshu.c.dropped_hands": "shuffle_into_draw", "enshu.c.dropout_repeat_pool": "joiners_only",
    "enshu.c.dropout_pass_cap": 20, "enshu.c.fuke_on_uchikiri": "false",
    "enshu.c.fuke_effect": "void_round_same_dealer", "enshu.c.uchikiri_combo": "product",
    "enshu.c.kotsu_small_games": "true",
}
BRIGHT_DEFAULT = {"W": "20", "S": "20", "C": "30"}
# Dekiyaku values per variant (docs/enshu.md#cards-and-yaku).
YAKU_VALUES = {
    "W": {"shiko": ("uchikiri", 3), "akatan": ("uchikiri", 2), "aotan": ("uchikiri", 2)},
    "S": {"shiko": ("multiplier", 3), "akatan": ("multiplier", 2), "aotan": ("multiplier", 2)},
    "C": {"shiko": ("uchikiri", 3), "akatan": ("uchikiri", 2), "aotan": ("uchikiri", 2)},
}
POINTS = {"tsukihoto": 50, "shishibo": 50, "shishichu": 50, "sokuyaku": 100, "negishi": 50, "kikushi": 50,
          "getashi": 50}
TEYAKU_VALUES = {
    "W": {"shisou": ("stop", 10), "teshi": ("stop", 2), "sanbon": ("points", 50)},
    "S": {"shisou": ("points", 50), "sanbon": ("points", 50)},
    "C": {"shisou": ("points", 150), "shihon": ("points", 100), "sanbon": ("points", 50), "soppe": ("points", 100),
          "toichi": ("points", 50), "tanichi": ("points", 50)},
}


def shipped_text(name: str) -> str:
    return (resources.files("simcore.rules") / f"{name}.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(("name", "variant", "counts"), [
    ("enshu-w", "W", (2, 3)), ("enshu-s", "S", (2, 3)), ("enshu-c", "C", (2, 3, 4, 5))])
def test_shipped_rule_sets(name, variant, counts):
    assert name in shipped_rules()
    rules = load_rules(name)
    assert rules.game == "enshu" and rules.variant == variant and rules.deck.key == "hanafuda48"
    assert rules.allowed_players == counts and rules.players == 3
    own = {option for option, variants in OPTION_VARIANTS.items() if variant in variants}
    assert set(rules.options) == own
    for option in own:
        if option in RULES_DEFAULTS:
            assert rules.options[option] == RULES_DEFAULTS[option], option
    assert rules.options["enshu.bright_value"] == BRIGHT_DEFAULT[variant]
    # Every option of the variant is written in the file by name.
    data = tomllib.loads(shipped_text(name))
    written = {f"enshu.{k}" for k, v in data["enshu"].items() if not isinstance(v, dict)}
    written |= {f"enshu.{variant.lower()}.{k}" for k in data["enshu"].get(variant.lower(), {})}
    assert written == own
    # Card points of docs/enshu.md#cards-and-yaku (the Rain Man an Animal).
    bright = int(BRIGHT_DEFAULT[variant])
    assert rules.card_points == tuple(card_points(c, bright) for c in range(48))
    assert sum(rules.card_points) == (230 if bright == 20 else 270)
    # Dekiyaku cards and values, teyaku values.
    assert {y.key: frozenset(y.cards) for y in rules.yaku} == DEKIYAKU
    for yaku in rules.yaku:
        kind, value = YAKU_VALUES[variant].get(yaku.key, ("points", POINTS.get(yaku.key)))
        assert (yaku.kind, yaku.value) == (kind, value), yaku.key
    assert {t.key: (t.kind, t.value) for t in rules.teyaku} == TEYAKU_VALUES[variant]
    assert rules.supersession == {"sokuyaku": ("shishibo", "shishichu")}


@pytest.mark.parametrize(("name", "players", "hand", "field"), [
    ("enshu-w", 2, 8, 8), ("enshu-w", 3, 7, 6), ("enshu-s", 2, 8, 8), ("enshu-s", 3, 7, 6),
    ("enshu-c", 2, 7, 6), ("enshu-c", 3, 7, 6), ("enshu-c", 4, 7, 6), ("enshu-c", 5, 7, 6)])
def test_deal_sizes_by_player_count(name, players, hand, field):
    rules = load_rules(name, {"enshu.players": players})
    assert (rules.deal_hand, rules.deal_field) == (hand, field)
    assert rules.deal_draw == 48 - field - hand * players
    if name != "enshu-c" and players == 2:
        rules = load_rules(name, {"enshu.players": 2, "enshu.deal_2p": "7_6"})
        assert (rules.deal_hand, rules.deal_field, rules.deal_draw) == (7, 6, 28)


@pytest.mark.parametrize(("name", "overrides", "message"), [
    ("enshu-w", {"enshu.players": 4}, "--option enshu.players: this rule set is played by 2 or 3 players"),
    ("enshu-s", {"enshu.players": 5}, "--option enshu.players: this rule set is played by 2 or 3 players"),
    ("enshu-c", {"enshu.players": 6}, "--option enshu.players: 6 is above the maximum 5"),
    ("enshu-c", {"enshu.players": 1}, "--option enshu.players: 1 is below the minimum 2"),
    ("enshu-c", {"enshu.players": "four"}, "--option enshu.players: expected an integer"),
    ("enshu-w", {"enshu.c.score_formula": "zero_sum"}, "--option enshu.c.score_formula: does not apply to variant W"),
    ("enshu-c", {"enshu.deal_2p": "7_6"}, "--option enshu.deal_2p: does not apply to variant C"),
    ("enshu-w", {"enshu.nonsense": 1}, "--option enshu.nonsense: unknown option for variant W"),
    ("enshu-s", {"enshu.s.multipliers": "4_2_2"}, "--option enshu.s.multipliers: '4_2_2' is not one of"),
    ("enshu-c", {"enshu.bright_value": 20}, "enshu-c.toml: enshu.bright_value: variant C counts Brights at 30"),
])
def test_bad_overrides(name, overrides, message):
    with pytest.raises(RulesError) as error:
        load_rules(name, overrides)
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


def broken(tmp_path, name: str, old: str, new: str) -> str:
    text = shipped_text(name)
    assert old in text, old
    path = tmp_path / f"{name}-broken.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("name", "old", "new", "key", "problem"), [
    ("enshu-w", '[card_points]', '[cards]', "cards", "unknown key"),
    # a round-stopping teyaku's value goes into an int32 table (it once passed and broke compile)
    ("enshu-w", 'kind = "stop"\nvalue = 10', 'kind = "stop"\nvalue = 2147483648', "teyaku[shisou].value",
     "2147483648 is out of range 1..2147483647"),
    ("enshu-w", 'variant = "W"', 'variant = "X"', "game.variant", "unknown variant 'X'"),
    ("enshu-w", 'variant = "W"\n', '', "game.variant", "expected a string"),
    ("enshu-w", 'deck = "hanafuda48"', 'deck = "ise45"', "game.deck", "hanafuda48 deck"),
    ("enshu-w", 'players = [2, 3]', 'players = [2, 4]', "game.players[1]", "variant W is played by 2-3 players, not 4"),
    ("enshu-c", 'players = [2, 3, 4, 5]', 'players = [3, 3]', "game.players[1]", "3 is listed twice"),
    ("enshu-c", 'players = [2, 3, 4, 5]', 'players = 4', "game.players", "expected a list of player counts"),
    ("enshu-c", 'players = [2, 3, 4, 5]', 'players = [4, 5]', "enshu.players", "played by 4 or 5 players"),
    ("enshu-w", '[enshu.w]', '[enshu.c]', "enshu.c", "options of variant C do not apply to variant W"),
    ("enshu-w", 'capture_three = "all"', 'capture_three = "all"\nscore_formula = "literal"', "enshu.score_formula",
     "unknown option"),
    ("enshu-c", 'capture_three = "all"', 'capture_three = "all"\ndeal_2p = "8_8"', "enshu.deal_2p",
     "does not apply to variant C"),
    ("enshu-w", 'capture_three = "all"', 'capture_three = "some"', "enshu.capture_three", "'some' is not one of"),
    ("enshu-c", 'dropout_pass_cap = 20', 'dropout_pass_cap = 0', "enshu.c.dropout_pass_cap", "below the minimum 1"),
    ("enshu-c", 'bright_value = 30', 'bright_value = 20', "enshu.bright_value", "variant C counts Brights at 30"),
    ("enshu-w", 'animal = 10', 'animal = -10', "card_points.animal", "must be at least 0"),
    ("enshu-w", 'ribbon = 5\n', '', "card_points.ribbon", "expected an integer"),
    ("enshu-w", 'icp_months = [5, 9, 12]', 'icp_months = [5, 13]', "misdeal.icp_months[1]", "expected a month 1..12"),
    ("enshu-w", 'pattern = "four_three"', 'pattern = "five"', "teyaku[shisou].pattern", "'five' is not one of"),
    ("enshu-w", 'group = "A"', 'group = "C"', "teyaku[shisou].group", "'C' is not one of"),
    ("enshu-c", 'kind = "points"\nvalue = 150', 'kind = "stop"\nvalue = 150', "teyaku[shisou].kind",
     "only variant W has round-stopping teyaku"),
    ("enshu-w", 'months = [5, 9, 12]\nkind = "points"\nvalue = 50\n',
     'months = [5, 9, 12]\nkind = "points"\nvalue = 50\nbonus = 100\nbonus_months = [5]\n',
     "teyaku[sanbon].bonus", "the triplet bonus is a variant C rule"),
    ("enshu-c", 'pattern = "all_junk"', 'pattern = "all_junk"\nmonths = [1]', "teyaku[soppe].months",
     "pattern all_junk has no months"),
    ("enshu-w", 'value = 10', 'value = 0', "teyaku[shisou].value", "must be at least 1"),
    ("enshu-w", '"Pine Crane", "Cherry Curtain"', '"Pine Crane", "Cherry Cloud"', "yaku[shiko].cards[1]",
     "unknown card 'Cherry Cloud'"),
    ("enshu-w", '"Pine Crane", "Cherry Curtain"', '"Pine Crane", "Pine Crane"', "yaku[shiko].cards[1]",
     "listed twice"),
    ("enshu-w", 'kind = "uchikiri"\nvalue = 3', 'kind = "multiplier"\nvalue = 3', "yaku[shiko].kind",
     "variant W has points or uchikiri yaku, not multiplier"),
    ("enshu-s", '"enshu.s.multipliers=5_3_3" = 5', '"enshu.s.multiples=5_3_3" = 5',
     'yaku[shiko].value_if.enshu.s.multiples=5_3_3', "naming a known option"),
    ("enshu-s", 'kind = "multiplier"\nvalue = 3', 'kind = "multiplier"\nvalue = 1', "yaku[shiko].value",
     "must be at least 2"),
    ("enshu-w", 'value = 50\nupgraded = 100', 'value = 50\nupgraded = 0', "yaku[negishi].upgraded",
     "must be at least 1"),
    ("enshu-w", 'key = "tsukihoto"', 'key = "shiko"', "yaku[shiko]", "duplicate yaku key"),
    ("enshu-w", 'cards = ["Susuki Moon", "Wisteria Cuckoo"]', 'cards = ["Bush Clover Boar", "Peony Butterflies"]',
     "yaku[shishibo].cards", "same cards as yaku tsukihoto"),
    ("enshu-w", 'sokuyaku = ["shishibo", "shishichu"]', 'sokuyaku = ["shishibo", "tsukihoto"]',
     "supersession.supersede.sokuyaku", "tsukihoto is not a subset of sokuyaku"),
    ("enshu-w", 'sokuyaku = ["shishibo", "shishichu"]', 'sokuyaku = ["shishibo", "nothing"]',
     "supersession.supersede.sokuyaku", "unknown yaku key 'nothing'"),
    ("enshu-w", '[supersession.supersede]\nsokuyaku = ["shishibo", "shishichu"]', '',
     "enshu.sokuyaku_stacking", "'supersede' has no table"),
])
def test_broken_rule_files(tmp_path, name, old, new, key, problem):
    path = broken(tmp_path, name, old, new)
    with pytest.raises(RulesError) as error:
        load_rules(path)
    message = str(error.value)
    assert message.startswith(f"{path}: {key}: "), message
    assert problem in message, message
    assert "\n" not in message


def test_value_if_and_option_overrides_change_the_tables():
    rules = load_rules("enshu-s", {"enshu.s.multipliers": "5_3_3"})
    assert [rules.yaku_by_key(k).value for k in ("shiko", "akatan", "aotan")] == [5, 3, 3]
    rules = load_rules("enshu-w", {"enshu.bright_value": 30, "enshu.sokuyaku_stacking": "additive"})
    assert rules.card_points[0] == 30 and rules.supersession == {}
    assert rules.overrides == {"enshu.bright_value": "30", "enshu.sokuyaku_stacking": "additive"}


@pytest.mark.parametrize("name", ["enshu-w", "enshu-s", "enshu-c"])
def test_compiled_arrays(name):
    rules = load_rules(name, {"enshu.players": 2})
    c = compile_rules(rules)
    assert c.params.dtype == np.int32 and c.params.shape == (E.N_PARAMS,)
    assert c.params[E.P_VARIANT] == E.VARIANTS.index(rules.variant)
    assert (c.params[E.P_PLAYERS], c.params[E.P_HAND], c.params[E.P_FIELD]) == (2, rules.deal_hand, rules.deal_field)
    for array in (c.month_mask, c.yaku_mask, c.supersedes, c.teyaku_months, c.teyaku_three_months,
                  c.teyaku_bonus_months):
        assert array.dtype == np.uint64 and array.flags.c_contiguous
    for array in (c.card_points, c.yaku_kind, c.yaku_value, c.yaku_upgraded, c.yaku_month, c.greedy_weight,
                  c.teyaku_pattern, c.teyaku_group, c.teyaku_kind, c.teyaku_value, c.teyaku_bonus):
        assert array.dtype == np.int32
    assert int(c.bright_mask) == sum(1 << x for x in BRIGHTS)
    assert int(c.animal_mask) == sum(1 << x for x in ANIMALS)
    assert int(c.ribbon_mask) == sum(1 << x for x in RIBBONS)
    assert int(c.willow_mask) == sum(1 << x for x in WILLOW)
    assert bin(int(c.junk_mask)).count("1") == 23  # the 24 chaff without the Lightning
    assert bin(int(c.icp_mask)).count("1") == 12
    for yaku in rules.yaku:
        assert int(c.yaku_mask[yaku.index]) == yaku.mask
    args = c.kernel_args()
    assert all(isinstance(a, (np.ndarray, np.uint64)) for a in args)
    assert all(a.dtype == np.uint64 for a in args if isinstance(a, np.uint64))


def test_junk_definition_option():
    c = compile_rules(load_rules("enshu-c", {"enshu.c.junk_def": "lightning_is_junk"}))
    assert bin(int(c.junk_mask)).count("1") == 24


def test_every_option_has_help_and_a_valid_default():
    for name, spec in OPTIONS.items():
        assert spec.help and spec.parse(spec.default) == spec.default, name
        assert OPTION_VARIANTS[name] <= set("WSC")
