"""Tensho's named rule options (docs/tensho.md#options): table ``[tensho]`` of a rule file, or
``--option tensho.NAME=VALUE``."""

from __future__ import annotations

from simcore.rules.schema import OptionSpec
from simcore.rules.schema import choice as _choice

__all__ = ["SKIN_DEFAULTS", "OPTIONS"]


OPTIONS: dict[str, OptionSpec] = {
    spec.name: spec
    for spec in [
        _choice("tensho.skin", "ise hanafuda", "ise", "card names; changes defaults of card_values"),
        _choice("tensho.card_values", "T1_ise T2_alt T3_hanafuda", "T1_ise",
                "card-value table of the last tie-break"),
        _choice("tensho.chaff_set", "A B C D E F", "B", "cards counted as Chaff in the first tie-break"),
        _choice("tensho.back_two_card", "swallow rain_man", "swallow",
                "the rank-2 card of Back One-Two-Three and Back One-Two-Ten (hanafuda skin)"),
        _choice("tensho.triple_match", "all one", "all", "a card matching three field cards takes all or one"),
        _choice("tensho.double_match", "choose highest_value_first", "choose",
                "a card matching two field cards: the player chooses, or the higher-valued is taken"),
        _choice("tensho.capture_mandatory", "true false", "true",
                "a played card that matches must capture (false: the player may leave it on the field)"),
        _choice("tensho.opening_claim_scope", "each_triple one_triple", "each_triple",
                "the dealer may claim from every field triple, or from one"),
        _choice("tensho.field_four_of_rank", "redeal stuck opening_rule_applies", "redeal",
                "four cards of one rank dealt to the field"),
        _choice("tensho.six_on_field", "stuck dealer_captures", "stuck", "the 6 of clubs dealt to the field"),
        _choice("tensho.six_in_hand", "play_as_turn bank_at_deal", "play_as_turn",
                "the 6 of clubs dealt to a hand"),
        _choice("tensho.instant_win_check", "after_each_capture end_of_turn", "after_each_capture",
                "when an instant-win yaku ends the round"),
        _choice("tensho.supersession", "none set_specific_subsets all_subsets young_old_only",
                "set_specific_subsets", "which subsets a 4-card yaku cancels"),
        _choice("tensho.ten_horse_king", "10_11_12 10_9_12", "10_11_12", "cards of Ten-Horse-King"),
        _choice("tensho.no_yaku_tiebreak", "chaff_then_values values_only", "chaff_then_values",
                "tie-break when neither player has a yaku"),
        _choice("tensho.final_tie", "draw dealer_wins non_dealer_wins", "draw",
                "a round tied after every tie-break"),
        _choice("tensho.yaku_set_choice", "fixed_1 fixed_2 dealer_policy random alternate", "fixed_1",
                "how the yaku set of a round is chosen"),
        OptionSpec("tensho.rounds", None, 12, "rounds in a match", minimum=1, maximum=1000),
        _choice("tensho.match_scoring", "round_wins yaku_points", "round_wins", "how a match is scored"),
        _choice("tensho.match_tie", "draw extra_round", "draw", "a match tied on points"),
        _choice("tensho.deal_procedure", "canonical_slices physical", "canonical_slices",
                "how the shuffled deck is cut into field, hands, draw pile and dead cards"),
        OptionSpec("tensho.instant_win_score", None, 300,
                   "the score an instant win counts for when match_scoring = yaku_points",
                   minimum=0, maximum=1_000_000),
    ]
}

# Options whose default depends on the skin (docs/tensho.md#options: tensho.card_values).
SKIN_DEFAULTS = {
    "ise": {"tensho.card_values": "T1_ise"},
    "hanafuda": {"tensho.card_values": "T3_hanafuda"},
}
