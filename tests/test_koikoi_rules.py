"""Koi-koi's rule files: the two shipped rule sets hold the values docs/koikoi.md gives (KoiKoi-Japan
exactly as KoiKoi-AI's engine plays it), every option is bounded and named with its sources, and
a bad file is refused in one line naming the key."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest
from koikoi_cards import (
    ANIMALS,
    BLUE_RIBBONS,
    BOAR_DEER_BUTTERFLY,
    BRIGHTS,
    CHAFF,
    CHERRY_CURTAIN,
    CHRYS_SAKE_CUP,
    RED_RIBBONS,
    RIBBONS,
    SUSUKI_MOON,
    WILLOW_LIGHTNING,
    WILLOW_RAIN_MAN,
    compiled,
    load,
    mask,
    month_cards,
)

from simcore.errors import RulesError
from simcore.games.koikoi import enums as E
from simcore.games.koikoi.options import OPTIONS, YAKU_VALUE_MAX
from simcore.games.koikoi.rules import YAKU_TABLE, build_rules

SOURCES = ("Nintendo", "KKJ", "FudaWiki", "OHA", "GKK", "KKS", "HJS", "every source")


def _build(text: str, overrides: dict | None = None):
    return build_rules("test", "test.toml", text, tomllib.loads(text), overrides or {})


def _edited(old: str, new: str, name: str = "koikoi") -> str:
    text = (resources.files("simcore.rules") / f"{name}.toml").read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


def test_koikoi_japan_is_the_rules_of_the_issue_and_of_koikoi_ai():
    options = load("koikoi-kkj").options
    expected = {
        "koikoi.rounds": 8, "koikoi.start_points": 30, "koikoi.scoring": "zero_sum", "koikoi.early_end": "at_zero",
        "koikoi.koikoi_bonus": "own_add_then_multiply", "koikoi.hanami": 1, "koikoi.tsukimi": 1,
        "koikoi.viewing_raise": "after_own_koikoi", "koikoi.viewing_raised": 3,
        "koikoi.red_and_blue_stacking": "stacks", "koikoi.ribbons_with_tan": "stacks", "koikoi.ribbon_extra": "none",
        "koikoi.bdb_with_tane": "stacks", "koikoi.bdb_extra": "none", "koikoi.seven_double": "false",
        "koikoi.teshi": "redeal", "koikoi.kuttsuki": "ignore", "koikoi.field_four": "redeal",
        "koikoi.field_pairs": "ignore", "koikoi.exhausted": "dealer_points", "koikoi.dealer_priority": 1,
        "koikoi.exhausted_dealer": "same", "koikoi.last_turn": "forced_stop", "koikoi.koikoi_limit": "unlimited",
        "koikoi.koikoi_trigger": "points_rise", "koikoi.sake_cup_chaff": "true", "koikoi.five_brights": 10,
        "koikoi.four_brights": 8, "koikoi.rainy_four_brights": 7, "koikoi.three_brights": 5,
        "koikoi.boar_deer_butterfly": 5, "koikoi.red_ribbons": 5, "koikoi.blue_ribbons": 5,
        "koikoi.red_and_blue": 10, "koikoi.tsukifuda": 0,
    }
    assert {name: options[name] for name in expected} == expected


def test_the_nintendo_style_rules():
    options = load("koikoi").options
    expected = {
        "koikoi.rounds": 12, "koikoi.start_points": 0, "koikoi.scoring": "winner_only",
        "koikoi.koikoi_bonus": "opponent_double", "koikoi.seven_double": "true", "koikoi.hanami": 5,
        "koikoi.tsukimi": 5, "koikoi.viewing_raise": "none", "koikoi.five_brights": 10, "koikoi.four_brights": 8,
        "koikoi.rainy_four_brights": 7, "koikoi.three_brights": 5, "koikoi.bdb_extra": "per_animal",
        "koikoi.bdb_with_tane": "replaces", "koikoi.ribbon_extra": "per_ribbon", "koikoi.ribbons_with_tan": "replaces",
        "koikoi.red_and_blue_stacking": "replaces", "koikoi.exhausted": "nothing", "koikoi.early_end": "none",
    }
    assert {name: options[name] for name in expected} == expected


@pytest.mark.parametrize("name", ["koikoi", "koikoi-kkj"])
def test_every_option_is_written_in_each_shipped_file(name):
    data = tomllib.loads(load(name).text)
    assert set(data["koikoi"]) == {option.split(".", 1)[1] for option in OPTIONS}


@pytest.mark.parametrize("name", ["koikoi", "koikoi-kkj"])
def test_the_card_classes_are_koikoi_ais(name):
    c = compiled(name)
    assert int(c.classes[E.K_BRIGHTS]) == mask(BRIGHTS)
    assert int(c.classes[E.K_ANIMALS]) == mask(ANIMALS)
    assert int(c.classes[E.K_RIBBONS]) == mask(RIBBONS)
    assert int(c.classes[E.K_CHAFF]) == mask(CHAFF)
    assert int(c.classes[E.K_RED_RIBBONS]) == mask(RED_RIBBONS)
    assert int(c.classes[E.K_BLUE_RIBBONS]) == mask(BLUE_RIBBONS)
    assert int(c.classes[E.K_BOAR_DEER_BUTTERFLY]) == mask(BOAR_DEER_BUTTERFLY)
    singles = {E.K_RAIN_MAN: WILLOW_RAIN_MAN, E.K_SAKE_CUP: CHRYS_SAKE_CUP, E.K_CURTAIN: CHERRY_CURTAIN,
               E.K_MOON: SUSUKI_MOON, E.K_LIGHTNING: WILLOW_LIGHTNING}
    assert {k: int(c.classes[k]) for k in singles} == {k: 1 << x for k, x in singles.items()}
    assert int(c.classes[E.K_WILLOW]) == mask(month_cards(11))
    # the Sake Cup counts as chaff in both shipped rule sets (25 chaff), and not when asked
    assert int(c.chaff_mask) == mask(CHAFF) | 1 << CHRYS_SAKE_CUP
    assert int(compiled(name, sake_cup_chaff="false").chaff_mask) == mask(CHAFF)


def test_the_yaku_table_is_in_bit_order_with_the_options_values():
    rules = load("koikoi", {"koikoi.five_brights": "15", "koikoi.hanami": "0"})
    assert [y.index for y in rules.yaku] == list(range(E.N_YAKU)) == [info.index for info in YAKU_TABLE]
    assert rules.yaku_by_key("goko").value == 15
    assert rules.yaku_by_key("hanami").value == 0
    assert rules.yaku_by_key("tane").counting and rules.yaku_by_key("tane").value == 1


def test_every_option_names_its_sources():
    for spec in OPTIONS.values():
        assert any(source in spec.help for source in SOURCES), spec.name


def test_every_integer_option_is_bounded():
    for spec in OPTIONS.values():
        if spec.choices is None:
            assert spec.minimum is not None and spec.maximum is not None, spec.name


@pytest.mark.parametrize(("overrides", "message"), [
    ({"koikoi.five_brights": str(YAKU_VALUE_MAX + 1)}, "koikoi.five_brights: 1001 is above the maximum 1000"),
    ({"koikoi.hanami": "-1"}, "koikoi.hanami: -1 is below the minimum 0"),
    ({"koikoi.rounds": "0"}, "koikoi.rounds: 0 is below the minimum 1"),
    ({"koikoi.rounds": "1001"}, "koikoi.rounds: 1001 is above the maximum 1000"),
    ({"koikoi.scoring": "both"}, "koikoi.scoring: 'both' is not one of winner_only, zero_sum"),
    ({"koikoi.no_such": "1"}, "--option koikoi.no_such: unknown option"),
])
def test_bad_option_values_are_refused_naming_the_option(overrides, message):
    with pytest.raises(RulesError, match=message.replace("(", r"\(")):
        load("koikoi", overrides)


@pytest.mark.parametrize(("old", "new", "message"), [
    ("five_brights = 10", "five_brights = 2000", "test.toml: koikoi.five_brights: 2000 is above the maximum 1000"),
    ("early_end = \"none\"", "early_end = \"never\"", "test.toml: koikoi.early_end: 'never' is not one of"),
    ("early_end = \"none\"", "early_end = \"none\"\ntypo = 1", "test.toml: koikoi.typo: unknown key"),
    ("players = 2", "players = 3", "test.toml: game.players: koi-koi is a two-player game, got 3"),
    ("deck = \"hanafuda48\"", "deck = \"ise45\"", "test.toml: game.deck: koi-koi is played with the hanafuda48"),
    ("hand = 8", "hand = 10", "test.toml: deal: koi-koi deals 8 cards to each hand and 8 to the field"),
    ("rain_man = \"Willow Rain Man\"", "rain_man = \"Willow Swallow\"",
     "test.toml: cards.rain_man: must be among cards.brights"),
    ("red_ribbons = [\"Pine Poetry ribbon\", ", "red_ribbons = [\"Pine Crane\", ",
     "test.toml: cards.red_ribbons: must be among cards.ribbons"),
    ("brights = [\"Pine Crane\", ", "brights = [\"Pine Crane\", \"Pine Chaff 1\", ",
     "test.toml: cards.chaff: 'Pine Chaff 1' is in two of brights, animals, ribbons and chaff"),
    ("brights = [\"Pine Crane\", ", "brights = [",
     "test.toml: cards: 'Pine Crane' is in none of brights, animals, ribbons and chaff"),
    ("moon = \"Susuki Moon\"", "moon = [\"Susuki Moon\"]", "test.toml: cards.moon: expected one card"),
    ("lightning = \"Willow Lightning\"", "", "test.toml: cards.lightning: missing card"),
    ("sake_cup = \"Chrysanthemum Sake Cup\"", "sake_cup = \"No Such Card\"",
     "test.toml: cards.sake_cup\\[0\\]: unknown card"),
])
def test_a_bad_rule_file_is_refused_in_one_line_naming_the_key(old, new, message):
    with pytest.raises(RulesError, match=message) as caught:
        _build(_edited(old, new))
    assert "\n" not in str(caught.value)


def test_overrides_are_recorded():
    rules = load("koikoi-kkj", {"koikoi.rounds": "6"})
    assert rules.options["koikoi.rounds"] == 6
    assert rules.overrides == {"koikoi.rounds": 6}
    assert compiled("koikoi-kkj", rounds=6).param(E.P_ROUNDS) == 6
