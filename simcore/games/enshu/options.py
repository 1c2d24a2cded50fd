"""Enshu-bana's rule options: every open point of the rules as a named option, and which variants
and player counts each applies to (docs/enshu.md lists them with their sources)."""

from __future__ import annotations

from simcore.games.enshu import enums as E
from simcore.rules.schema import OptionSpec
from simcore.rules.schema import choice as _choice

__all__ = ["OPTIONS", "OPTION_VARIANTS", "VARIANT_DEFAULTS", "VARIANT_PLAYERS"]


OPTIONS: dict[str, OptionSpec] = {
    spec.name: spec
    for spec in [
        OptionSpec("enshu.players", None, 3, "number of players (the file's [game] players lists the allowed counts)",
                   minimum=2, maximum=E.MAX_SEATS),
        _choice("enshu.deal_2p", "8_8 7_6", "8_8", "two-player deal: 8 each and 8 on the field, or 7 and 6"),
        _choice("enshu.w_misdeal", "field_four none as_variant_C", "field_four",
                "which deals are redealt (W and S)"),
        _choice("enshu.bright_value", "20 30", "20", "points of a Bright (variant C: 30)"),
        _choice("enshu.sokuyaku_stacking", "supersede additive", "supersede",
                "Sokuyaku cancels Shishibo and Shishichu, or all three count"),
        _choice("enshu.uchikiri_check", "end_of_turn after_each_capture", "end_of_turn",
                "when a round-stopping yaku stops the round"),
        _choice("enshu.next_dealer", "round_winner rotate", "round_winner",
                "who deals the next round (a voided round keeps its dealer)"),
        OptionSpec("enshu.rounds", None, 12, "rounds in a match", minimum=1, maximum=1000),
        _choice("enshu.capture_three", "all one", "all", "a card matching three field cards takes all or one"),
        _choice("enshu.tie_order", "turn_order dealer_then_left", "turn_order",
                "equal top scores: the dealer, then the nearest seat in turn order or in reverse"),
        _choice("enshu.w.uchikiri_payment", "total_k ante_plus_k", "total_k",
                "a stopping yaku worth k: each loser pays k stakes in all, or the ante plus k"),
        _choice("enshu.w.multiple_stopping_teyaku", "highest_then_turn_order", "highest_then_turn_order",
                "several stopping teyaku: the highest wins, equal values the earliest seat in turn order"),
        _choice("enshu.w.tie", "turn_order split", "turn_order",
                "equal top scores: the earliest seat in turn order takes the pot, or the pot is split"),
        _choice("enshu.w.triplet_declare", "policy always never", "policy",
                "who decides whether a Triplet teyaku is exposed"),
        OptionSpec("enshu.w.stake", None, 1, "matchsticks each player antes a round", minimum=1, maximum=1_000_000),
        _choice("enshu.w.uchikiri_combo", "sum max product", "sum",
                "two stopping yaku completed in one turn: their stakes add, the larger counts, or they multiply"),
        _choice("enshu.s.teyaku", "on off", "on", "play with teyaku"),
        _choice("enshu.s.multipliers", "3_2_2 5_3_3", "3_2_2", "multipliers of Shiko, Akatan and Aotan"),
        _choice("enshu.s.combination", "total_times_product cards_times_product_plus_yaku total_times_sum",
                "total_times_product", "how points and multipliers combine into the score"),
        _choice("enshu.s.match_scoring", "cumulative round_wins", "cumulative", "how a match is scored"),
        _choice("enshu.c.score_formula", "literal zero_sum", "literal",
                "score = (cards - opponents' yaku) x M x U, or with (n-1) x own yaku added"),
        _choice("enshu.c.negative_score", "clamp_zero literal", "clamp_zero",
                "a negative winning score: nobody pays, or the winner pays"),
        _choice("enshu.c.triplet_bonus_mode", "separate upgrade", "separate",
                "the I/C/P triplet bonus: a separate 100-point yaku, or the four-of-a-month yaku upgraded"),
        _choice("enshu.c.triplet_bonus_condition", "fourth_card_in_own_pile all_four_in_own_pile",
                "fourth_card_in_own_pile", "when the triplet bonus is earned"),
        _choice("enshu.c.triplet_bonus_in_four_three", "true false", "true",
                "the triplet inside a declared Four-Three earns the bonus too"),
        _choice("enshu.c.icp_four_check", "at_deal_all_hands at_teyaku_active_hands", "at_deal_all_hands",
                "when four I/C/P cards in a hand force a redeal"),
        _choice("enshu.c.junk_def", "lightning_excluded lightning_is_junk", "lightning_excluded",
                "whether the Willow Lightning counts as junk for group-B teyaku"),
        _choice("enshu.c.exposure", "all_composition_cards junk_only_for_group_B", "all_composition_cards",
                "which cards a declared teyaku exposes"),
        _choice("enshu.c.dropped_hands", "shuffle_into_draw set_aside", "shuffle_into_draw",
                "what becomes of the hands of players who drop out"),
        _choice("enshu.c.dropout_repeat_pool", "joiners_only all_not_dropped", "joiners_only",
                "who is asked again when four or more joined (identical in effect)"),
        OptionSpec("enshu.c.dropout_pass_cap", None, 20, "dropout passes before players are forced out",
                   minimum=1, maximum=1000),
        _choice("enshu.c.mizu_kotsu_order", "seat_order_first_three", "seat_order_first_three",
                "mizu-kotsu is asked in seat order from the dealer; the first three are accepted"),
        _choice("enshu.c.fuke_on_uchikiri", "false true", "false", "Fuke may void a round stopped by an uchikiri"),
        _choice("enshu.c.fuke_effect", "void_round_same_dealer", "void_round_same_dealer",
                "a Fuke voids every point and payment; the dealer deals again"),
        _choice("enshu.c.uchikiri_combo", "product max", "product",
                "two uchikiri yaku completed in one turn: multipliers multiply, or the larger counts"),
        _choice("enshu.c.kotsu_small_games", "true false", "true",
                "kotsu and mizu-kotsu are played with 2-3 players too"),
    ]
}

# Which variants each option applies to (an option of another variant is an error).
_COMMON = frozenset("WSC")
OPTION_VARIANTS: dict[str, frozenset[str]] = {}
for _name in OPTIONS:
    if _name.startswith("enshu.w."):
        OPTION_VARIANTS[_name] = frozenset("W")
    elif _name.startswith("enshu.s."):
        OPTION_VARIANTS[_name] = frozenset("S")
    elif _name.startswith("enshu.c."):
        OPTION_VARIANTS[_name] = frozenset("C")
    elif _name in ("enshu.deal_2p", "enshu.w_misdeal"):
        OPTION_VARIANTS[_name] = frozenset("WS")
    elif _name == "enshu.tie_order":
        OPTION_VARIANTS[_name] = frozenset("SC")
    else:
        OPTION_VARIANTS[_name] = _COMMON

VARIANT_PLAYERS = {"W": (2, 3), "S": (2, 3), "C": (2, 3, 4, 5)}
VARIANT_DEFAULTS = {"C": {"enshu.bright_value": "30"}}
