"""The shipped Tensho rule files against docs/tensho.md, and rule-file validation errors.

The expected tables (card values, chaff sets, yaku, supersession, option choices and defaults)
are typed from docs/tensho.md in ``tensho_cards`` or below; the rule files are only ever the thing
under test.
"""

from __future__ import annotations

import pytest
from tensho_cards import (
    ALL_CARDS,
    CHAFF_A,
    CHAFF_B,
    COIN,
    CUP,
    RAIN_MAN,
    RAIN_MAN_BACK,
    RULES_CARD_TABLE,
    RULES_HANAFUDA_NAMES,
    SIX_OF_CLUBS,
    SUPERSESSION,
    SWALLOW,
    T1,
    T2,
    T3,
    TEN_NINE_TWELVE,
    YAKU_BY_KEY,
)

from simcore.cards import HANAFUDA48, ISE45, ISE_TO_HANAFUDA48, ids_of, mask_of
from simcore.games.tensho import enums as E
from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.options import OPTIONS
from simcore.rules import RulesError, load_rules

SHIPPED = ["tensho-ise", "tensho-hanafuda"]

# docs/tensho.md#options: choices and the default (Ise skin / hanafuda skin).
RULES_OPTIONS = {
    "tensho.skin": ("ise hanafuda", "ise", "hanafuda"),
    "tensho.card_values": ("T1_ise T2_alt T3_hanafuda", "T1_ise", "T3_hanafuda"),
    "tensho.chaff_set": ("A B C D E F", "B", "B"),
    "tensho.back_two_card": ("swallow rain_man", "swallow", "swallow"),
    "tensho.triple_match": ("all one", "all", "all"),
    "tensho.double_match": ("choose highest_value_first", "choose", "choose"),
    "tensho.capture_mandatory": ("true false", "true", "true"),
    "tensho.opening_claim_scope": ("each_triple one_triple", "each_triple", "each_triple"),
    "tensho.field_four_of_rank": ("redeal stuck opening_rule_applies", "redeal", "redeal"),
    "tensho.six_on_field": ("stuck dealer_captures", "stuck", "stuck"),
    "tensho.six_in_hand": ("play_as_turn bank_at_deal", "play_as_turn", "play_as_turn"),
    "tensho.instant_win_check": ("after_each_capture end_of_turn", "after_each_capture", "after_each_capture"),
    "tensho.supersession": ("none set_specific_subsets all_subsets young_old_only", "set_specific_subsets",
                            "set_specific_subsets"),
    "tensho.ten_horse_king": ("10_11_12 10_9_12", "10_11_12", "10_11_12"),
    "tensho.no_yaku_tiebreak": ("chaff_then_values values_only", "chaff_then_values", "chaff_then_values"),
    "tensho.final_tie": ("draw dealer_wins non_dealer_wins", "draw", "draw"),
    "tensho.yaku_set_choice": ("fixed_1 fixed_2 dealer_policy random alternate", "fixed_1", "fixed_1"),
    "tensho.match_scoring": ("round_wins yaku_points", "round_wins", "round_wins"),
    "tensho.match_tie": ("draw extra_round", "draw", "draw"),
    "tensho.deal_procedure": ("canonical_slices physical", "canonical_slices", "canonical_slices"),
}


@pytest.fixture(scope="module", params=SHIPPED)
def shipped(request):
    return load_rules(request.param)


# --- the deck ---------------------------------------------------------------------------------


def test_ise45_ids_codes_and_ranks_follow_rules_table():
    assert ISE45.size == 45
    assert [(c.code, c.rank) for c in ISE45.cards] == [(code, r) for code, r, *_ in RULES_CARD_TABLE]
    # rank 6 holds only the 6 of clubs
    assert [c.id for c in ISE45.cards if c.rank == 6] == [SIX_OF_CLUBS]


def test_hanafuda_mapping_is_the_verified_one():
    # docs/tensho.md#cards: the club/sword cards are the named hanafuda cards; every coin or cup but
    # the 2 of coins (Rain Man) is a chaff card of its month; the three Paulownia chaff are removed.
    for card in ISE45.cards:
        hanafuda = HANAFUDA48.cards[ISE_TO_HANAFUDA48[card.id]]
        assert card.hanafuda_name == hanafuda.name
        if card.code in RULES_HANAFUDA_NAMES:
            assert card.hanafuda_name == RULES_HANAFUDA_NAMES[card.code]
        else:
            assert hanafuda.kind == "chaff"
    removed = set(range(48)) - set(ISE_TO_HANAFUDA48)
    assert {HANAFUDA48.cards[i].name for i in removed} == {
        "Paulownia Chaff (yellow bottom)", "Paulownia Chaff 1", "Paulownia Chaff 2"}


# --- the shipped files --------------------------------------------------------------------------


def test_both_shipped_files_load_and_compile(shipped):
    compiled = compile_rules(shipped)
    assert len(compiled.yaku_mask) == 31
    assert shipped.deck is ISE45
    assert (shipped.deal_field, shipped.deal_hand, shipped.deal_draw, shipped.deal_dead) == (9, 6, 18, 6)


def test_set_sizes_and_instant_wins(shipped):
    # docs/tensho.md#yaku: Set 1 has 24 yaku (one instant win), Set 2 has 21 (two instant wins).
    assert sum(y.in_set(1) for y in shipped.yaku) == 24
    assert sum(y.in_set(2) for y in shipped.yaku) == 21
    assert sorted(y.key for y in shipped.yaku if y.is_instant(1)) == ["Y23"]
    assert sorted(y.key for y in shipped.yaku if y.is_instant(2)) == ["Y24", "Y31"]


def test_every_instant_win_yaku_contains_the_six_of_clubs(shipped):
    instants = [y for y in shipped.yaku if y.is_instant(1) or y.is_instant(2)]
    assert instants
    assert all(SIX_OF_CLUBS in y.cards for y in instants)


def test_yaku_cards_and_values_match_rules(shipped):
    assert sorted(y.key for y in shipped.yaku) == sorted(YAKU_BY_KEY)
    for yaku in shipped.yaku:
        expected = YAKU_BY_KEY[yaku.key]
        assert set(yaku.cards) == set(expected.cards), yaku.key
        assert yaku.values == (expected.set1, expected.set2), yaku.key


def test_ten_nine_twelve_option_changes_only_ten_horse_king():
    for name in SHIPPED:
        default = {y.key: set(y.cards) for y in load_rules(name).yaku}
        changed = {y.key: set(y.cards) for y in load_rules(name, {"tensho.ten_horse_king": "10_9_12"}).yaku}
        assert {k for k in default if default[k] != changed[k]} == {"Y09", "Y10"}
        assert {k: changed[k] for k in TEN_NINE_TWELVE} == {k: set(v) for k, v in TEN_NINE_TWELVE.items()}


def test_rain_man_option_changes_the_two_back_yaku_of_the_hanafuda_skin():
    default = {y.key: set(y.cards) for y in load_rules("tensho-hanafuda").yaku}
    changed = {y.key: set(y.cards) for y in load_rules("tensho-hanafuda", {"tensho.back_two_card": "rain_man"}).yaku}
    assert {k for k in default if default[k] != changed[k]} == {"Y02", "Y04"}
    assert {k: changed[k] for k in RAIN_MAN_BACK} == {k: set(v) for k, v in RAIN_MAN_BACK.items()}
    assert all(SWALLOW in default[k] and RAIN_MAN not in default[k] for k in RAIN_MAN_BACK)
    # In the Ise skin the option is meaningless (docs/tensho.md#yaku): the yaku keep the 2 of clubs.
    ise = {y.key: set(y.cards) for y in load_rules("tensho-ise", {"tensho.back_two_card": "rain_man"}).yaku}
    assert all(SWALLOW in ise[k] for k in RAIN_MAN_BACK)


def test_card_value_tables(shipped):
    tables = shipped.card_value_tables
    assert set(tables) == {"T1_ise", "T2_alt", "T3_hanafuda"}
    assert tables["T1_ise"] == tuple(T1[c] for c in ALL_CARDS)
    assert tables["T2_alt"] == tuple(T2[c] for c in ALL_CARDS)
    assert tables["T3_hanafuda"] == tuple(T3[c] for c in ALL_CARDS)
    # docs/tensho.md#cards: T1 totals 150, T2 and T3 159
    assert [sum(tables[k]) for k in ("T1_ise", "T2_alt", "T3_hanafuda")] == [150, 159, 159]


def test_chaff_sets(shipped):
    chaff = {key: set(ids_of(mask)) for key, mask in shipped.chaff_sets.items()}
    coins_and_cups = set(COIN.values()) | set(CUP.values())
    assert chaff["A"] == CHAFF_A and len(chaff["A"]) == 20
    assert chaff["B"] == CHAFF_B and len(chaff["B"]) == 21
    assert chaff["C"] == coins_and_cups and len(chaff["C"]) == 22
    assert chaff["D"] == {c for c in ALL_CARDS if T1[c] == 1} and len(chaff["D"]) == 31
    assert chaff["E"] == {c for c in ALL_CARDS if T2[c] == 1} and len(chaff["E"]) == 30
    assert chaff["F"] == {c for c in ALL_CARDS if T3[c] == 1} and len(chaff["F"]) == 30


def test_chaff_b_is_the_hanafuda_chaff_under_the_mapping(shipped):
    # docs/tensho.md#cards: set B equals the 21 hanafuda chaff of the 45-card deck (incl.
    # Lightning).
    hanafuda_chaff = {c for c in ALL_CARDS if HANAFUDA48.cards[ISE_TO_HANAFUDA48[c]].kind == "chaff"}
    assert set(ids_of(shipped.chaff_sets["B"])) == hanafuda_chaff
    assert len(hanafuda_chaff) == 21
    assert shipped.chaff_mask == shipped.chaff_sets["B"]  # B is the default


def test_supersession_tables(shipped):
    for mode, table in SUPERSESSION.items():
        got = shipped.supersession_tables.get(mode, {})
        assert {k: set(v) for k, v in got.items()} == table, mode


@pytest.mark.parametrize("name", SHIPPED)
def test_options_choices_and_defaults(name):
    rules = load_rules(name)
    skin_column = 1 if name == "tensho-ise" else 2
    for option, row in RULES_OPTIONS.items():
        spec = OPTIONS[option]
        assert spec.choices == tuple(row[0].split()), option
        assert rules.options[option] == row[skin_column], option
    # tensho.rounds: default 12 (docs/tensho.md#options)
    assert rules.options["tensho.rounds"] == 12


def test_a_copied_file_loads_from_its_path(tmp_path):
    path = tmp_path / "my-variant.toml"
    path.write_text(load_rules("tensho-ise").text, encoding="utf-8")
    rules = load_rules(str(path))
    assert rules.source == str(path)
    assert rules.name == "my-variant"


# --- broken copies --------------------------------------------------------------------------

Y01_BLOCK = 'cards = ["1S", "2S", "3S"]\nset1 = 100'

BROKEN = [
    # (id, text to find in the shipped file, replacement, key named, problem named)
    ("unknown-top-level-key", "[deal]\n", "[scoring]\nbonus = 1\n\n[deal]\n", "scoring", "unknown key"),
    ("unknown-option", "[tensho]\n", '[tensho]\nhouse_rule = "yes"\n', "tensho.house_rule", "unknown key"),
    ("bad-option-value", 'triple_match = "all"', 'triple_match = "three"', "tensho.triple_match",
     "'three' is not one of all, one"),
    ("option-not-an-integer", "rounds = 12", 'rounds = "twelve"', "tensho.rounds", "expected an integer"),
    ("unknown-card-name", Y01_BLOCK, Y01_BLOCK.replace('"3S"', '"13S"'), "yaku[Y01].cards[2]",
     "unknown card '13S'"),
    ("duplicate-yaku-key", 'key = "Y02"', 'key = "Y01"', "yaku[Y01]", "duplicate yaku key"),
    ("card-listed-twice", Y01_BLOCK, Y01_BLOCK.replace('"3S"', '"1S"'), "yaku[Y01].cards[2]",
     "card '1S' is listed twice"),
    ("chaff-card-listed-twice", 'B = ["1Co", "1Cu",', 'B = ["1Co", "1Co",', "chaff_sets.B[1]",
     "listed twice"),
    ("card-id-outside-deck", Y01_BLOCK, Y01_BLOCK.replace('"3S"', "45"), "yaku[Y01].cards[2]",
     "card id 45 is outside 0..44"),
    ("value-of-wrong-type", Y01_BLOCK, Y01_BLOCK.replace("set1 = 100", 'set1 = "100"'), "yaku[Y01].set1",
     "expected positive points or \"instant\", got '100'"),
    ("unknown-card-in-value-table", '"1C" = 15, "12C" = 12', '"1X" = 15, "12C" = 12',
     "card_values.T1_ise.values.1X", "unknown card '1X'"),
    ("unknown-yaku-in-supersession", 'Y21 = ["Y15", "Y17", "Y19"]', 'Y21 = ["Y15", "Y17", "Y99"]',
     "supersession.set_specific_subsets.Y21", "unknown yaku key 'Y99'"),
    ("wrong-deal-size", "dead = 6", "dead = 5", "deal", "Tensho deals field 9, hands 6 and 6, draw 18, dead 6"),
    ("not-toml", "[deal]\n", "[deal\n", "", "not valid TOML"),
]


@pytest.mark.parametrize(("find", "replace", "key", "problem"), [b[1:] for b in BROKEN],
                         ids=[b[0] for b in BROKEN])
def test_broken_copy_is_rejected_naming_file_key_and_problem(tmp_path, find, replace, key, problem):
    text = load_rules("tensho-ise").text
    assert find in text
    path = tmp_path / "broken.toml"
    path.write_text(text.replace(find, replace, 1), encoding="utf-8")
    with pytest.raises(RulesError) as error:
        load_rules(str(path))
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: {key}") if key else message.startswith(f"{path}: ")
    assert problem in message


def test_bad_overrides_are_rejected():
    with pytest.raises(RulesError, match=r"--option tensho.triple_macth: unknown option"):
        load_rules("tensho-ise", {"tensho.triple_macth": "one"})
    with pytest.raises(RulesError, match=r"--option tensho.triple_match: 'three' is not one of all, one"):
        load_rules("tensho-ise", {"tensho.triple_match": "three"})


def test_overrides_are_applied_and_recorded():
    rules = load_rules("tensho-ise", {"tensho.triple_match": "one", "tensho.card_values": "T3_hanafuda"})
    assert rules.options["tensho.triple_match"] == "one"
    assert rules.overrides == {"tensho.triple_match": "one", "tensho.card_values": "T3_hanafuda"}
    assert rules.card_values == tuple(T3[c] for c in ALL_CARDS)
    assert mask_of(ALL_CARDS) == ISE45.full_mask


def test_only_canonical_slots_let_the_kernel_shuffle_a_deck_in_stages():
    # Staged: every card a round shows comes from the shuffled deck's places 0..32; the physical
    # procedure turns cards from places up to 38.
    canonical = compile_rules(load_rules("tensho-ise"))
    physical = compile_rules(load_rules("tensho-ise", {"tensho.deal_procedure": "physical"}))
    assert canonical.params[E.P_STAGED_DEAL] == 1
    assert physical.params[E.P_STAGED_DEAL] == 0
    # direct: moreover slot i is place i, so the kernel reads the deal from the places
    assert canonical.params[E.P_DIRECT_DEAL] == 1
    assert physical.params[E.P_DIRECT_DEAL] == 0
    assert max(physical.deal_order[: E.SEEN_SLOTS]) == 38
