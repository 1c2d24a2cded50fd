"""Rule correctness of the Tensho reference engine on hand-made deals with scripted decisions.

Every expected outcome below is worked out from docs/tensho.md (the rules and the Tensho options
of section 4) and written next to the assertion; none is copied from the engine.

Most deals are built with the *pair law* of ``tensho_cards.turns_deal``: in a turn whose
played and turned cards share a rank that is not on the field, the played card goes to the
field and the turned card takes it, so the active seat captures exactly that pair.  Seat 0 is
the dealer unless a test says otherwise, and plays turns 1, 3, ..., 11 (2, 4, ..., 12 after an
opening claim).  The last card of a hand is a forced play and takes no decision.
"""

from __future__ import annotations

from functools import cache

import pytest
from tensho_cards import (
    ALL_CARDS,
    EIGHT_OF_CLUBS,
    EIGHT_OF_COINS,
    EIGHT_OF_CUPS,
    EIGHT_OF_SWORDS,
    FIVE_OF_CLUBS,
    FIVE_OF_COINS,
    FIVE_OF_CUPS,
    FIVE_OF_SWORDS,
    FOUR_OF_CLUBS,
    FOUR_OF_COINS,
    FOUR_OF_CUPS,
    FOUR_OF_SWORDS,
    HORSE_OF_CLUBS,
    HORSE_OF_COINS,
    HORSE_OF_CUPS,
    HORSE_OF_SWORDS,
    KING_OF_CLUBS,
    KING_OF_COINS,
    KING_OF_CUPS,
    KING_OF_SWORDS,
    NINE_OF_CLUBS,
    NINE_OF_COINS,
    NINE_OF_CUPS,
    NINE_OF_SWORDS,
    ONE_OF_CLUBS,
    ONE_OF_COINS,
    ONE_OF_CUPS,
    ONE_OF_SWORDS,
    RAIN_MAN,
    RAIN_MAN_BACK,
    RULES_YAKU,
    SEVEN_OF_CLUBS,
    SEVEN_OF_COINS,
    SEVEN_OF_CUPS,
    SEVEN_OF_SWORDS,
    SIX_OF_CLUBS,
    SWALLOW,
    TEN_NINE_TWELVE,
    TEN_OF_CLUBS,
    TEN_OF_COINS,
    TEN_OF_CUPS,
    TEN_OF_SWORDS,
    THREE_OF_CLUBS,
    THREE_OF_COINS,
    THREE_OF_CUPS,
    THREE_OF_SWORDS,
    TWO_OF_CLUBS,
    TWO_OF_COINS,
    TWO_OF_CUPS,
    TWO_OF_SWORDS,
    YAKU_BY_KEY,
    build_deck,
    showcase_deal,
    turns_deal,
)

from simcore.cards import mask_of
from simcore.errors import DealError
from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.enums import END_REASONS
from simcore.games.tensho.replay import replay_deck
from simcore.policies import parse_policy
from simcore.reference.replay import DecisionError, parse_deck
from simcore.rules import load_rules

RANDOM = [parse_policy("random"), parse_policy("random")]
INSTANT_WIN_SCORE = 300  # tensho.instant_win_score default


@cache
def _compiled(rules: str, options: tuple[tuple[str, str], ...]):
    return compile_rules(load_rules(rules, dict(options)))


def compiled(rules: str = "tensho-ise", **options: str):
    return _compiled(rules, tuple(sorted((f"tensho.{k}", v) for k, v in options.items())))


def play(deck, decisions, *, rules: str = "tensho-ise", dealer: int = 0, **options: str):
    return replay_deck(compiled(rules, **options), deck, decisions, RANDOM, dealer=dealer)


def yaku_bits(keys, rules: str = "tensho-ise", **options: str) -> int:
    c = compiled(rules, **options)
    return sum(1 << c.rules.yaku_by_key(key).index for key in keys)


def reason(result) -> str:
    return END_REASONS[result.end_reason]


def events(result, kind: str) -> list[dict]:
    return [e for e in result.events if e["type"] == kind]


def final_field(deck: list[int], result) -> set[int]:
    """The cards left on the field: everything not captured, in hand, undrawn or dead."""
    turned = len(events(result, "draw"))
    used = {e["card"] for e in events(result, "play")} | {e["card"] for e in events(result, "bank_six")}
    hands_left = set(deck[9:21]) - used
    undrawn = set(deck[21 + turned:39])
    captured = set(_ids(result.captured[0])) | set(_ids(result.captured[1]))
    return set(ALL_CARDS) - captured - hands_left - undrawn - set(deck[39:45])


def _ids(mask: int) -> list[int]:
    return [c for c in ALL_CARDS if (mask >> c) & 1]


# Field of deals whose turns are pair-law turns of ranks 1-5, 7, 8: chaff of ranks 9-12 and the
# 6 of clubs, which nothing can ever take (no other rank-6 card; docs/tensho.md#cards).
QUIET_FIELD = [NINE_OF_COINS, NINE_OF_CUPS, TEN_OF_COINS, TEN_OF_CUPS, HORSE_OF_COINS,
               HORSE_OF_CUPS, KING_OF_COINS, KING_OF_CUPS, SIX_OF_CLUBS]


def interleave(seat0, seat1):
    return [t for pair in zip(seat0, seat1, strict=True) for t in pair]


# --- 1. every yaku of both sets ------------------------------------------------------------

POINT_YAKU = [(s, y.key) for s in (1, 2) for y in RULES_YAKU if isinstance(y.value(s), int)]


@pytest.mark.parametrize(("yaku_set", "key"), POINT_YAKU, ids=[f"set{s}-{k}" for s, k in POINT_YAKU])
def test_every_point_yaku_completes_and_scores_its_value(yaku_set, key):
    # Seat 0 captures exactly the yaku's cards (each paired with a card of its rank that belongs to
    # no yaku of this set together with the rest of his pile), seat 1 captures cards that complete
    # nothing.  So seat 0 holds only this yaku (a 4-card yaku also completes its three 3-card
    # subsets, which tensho.supersession = all_subsets cancels: docs/tensho.md#supersession), scores
    # its docs/tensho.md#yaku value for the set, and wins on yaku points after 12 turns.
    yaku = YAKU_BY_KEY[key]
    value = yaku.value(yaku_set)
    options = {"yaku_set_choice": f"fixed_{yaku_set}", "supersession": "all_subsets"}
    deal = showcase_deal(yaku.cards, yaku_set)
    result = play(deal.deck, deal.plays, **options)
    assert result.yaku_set == yaku_set
    assert result.captured == [mask_of(deal.piles[0]), mask_of(deal.piles[1])]
    assert result.yaku == [yaku_bits([key], **options), 0]
    assert result.yaku_points == [value, 0]
    assert result.score == [value, 0]
    assert (result.winner, reason(result), result.end_turn) == (0, "yaku", 12)
    assert result.payoff == [1, -1]


# --- 2. supersession (docs/tensho.md#supersession) -------------------------------------------

# Holder's total for each tensho.supersession value.  Front rows are the docs/tensho.md#supersession
# example. Back rows follow the same rule with Back values: Back Young-and-Old 150 + Back Nakazō 50
# + Back Young Woman 50 + Back Old Woman 50; Back Eight-Islands-King 150 + 3 x 50.
SUPERSESSION_TOTALS = {
    ("Y29", 2): {"none": 600, "set_specific_subsets": 400, "all_subsets": 300, "young_old_only": 400},
    ("Y21", 1): {"none": 600, "set_specific_subsets": 300, "all_subsets": 300, "young_old_only": 600},
    ("Y30", 2): {"none": 300, "set_specific_subsets": 200, "all_subsets": 150, "young_old_only": 200},
    ("Y22", 1): {"none": 300, "set_specific_subsets": 150, "all_subsets": 150, "young_old_only": 300},
}
# The yaku left after supersession (the 4-card yaku's 3-card subsets: YaO = Nakazō, Young
# Woman, Old Woman; EIK = Eight Islands, Four-Horse-King, Eight-Four-King).
SUPERSESSION_LEFT = {
    "Y29": {"none": {"Y29", "Y07", "Y25", "Y27"}, "set_specific_subsets": {"Y29", "Y07"},
            "all_subsets": {"Y29"}, "young_old_only": {"Y29", "Y07"}},
    "Y30": {"none": {"Y30", "Y08", "Y26", "Y28"}, "set_specific_subsets": {"Y30", "Y08"},
            "all_subsets": {"Y30"}, "young_old_only": {"Y30", "Y08"}},
    "Y21": {"none": {"Y21", "Y15", "Y17", "Y19"}, "set_specific_subsets": {"Y21"},
            "all_subsets": {"Y21"}, "young_old_only": {"Y21", "Y15", "Y17", "Y19"}},
    "Y22": {"none": {"Y22", "Y16", "Y18", "Y20"}, "set_specific_subsets": {"Y22"},
            "all_subsets": {"Y22"}, "young_old_only": {"Y22", "Y16", "Y18", "Y20"}},
}
SUPERSESSION_CASES = [(key, s, mode) for (key, s), totals in SUPERSESSION_TOTALS.items() for mode in totals]


@pytest.mark.parametrize(("key", "yaku_set", "mode"), SUPERSESSION_CASES,
                         ids=[f"{k}-{m}" for k, _, m in SUPERSESSION_CASES])
def test_supersession_totals(key, yaku_set, mode):
    options = {"yaku_set_choice": f"fixed_{yaku_set}", "supersession": mode}
    deal = showcase_deal(YAKU_BY_KEY[key].cards, yaku_set)
    result = play(deal.deck, deal.plays, **options)
    assert result.yaku[0] == yaku_bits(SUPERSESSION_LEFT[key][mode], **options)
    assert result.yaku_points == [SUPERSESSION_TOTALS[(key, yaku_set)][mode], 0]
    assert result.winner == 0


def test_supersession_stays_within_one_face():
    # Seat 0 holds Front Young-and-Old (7S 8S 9S 10S) and Back Young Woman (7C 8C 10C).  Under
    # set_specific_subsets the Front 4-card yaku cancels Front Young Woman and Front Old Woman only:
    # 300 + Front Nakazō 100 + Back Young Woman 50 = 450 (docs/tensho.md#supersession: within one
    # face).
    target = [SEVEN_OF_SWORDS, EIGHT_OF_SWORDS, NINE_OF_SWORDS, TEN_OF_SWORDS,
              SEVEN_OF_CLUBS, EIGHT_OF_CLUBS, TEN_OF_CLUBS]
    deal = showcase_deal(target, 2)
    result = play(deal.deck, deal.plays, yaku_set_choice="fixed_2")
    assert result.yaku[0] == yaku_bits({"Y29", "Y07", "Y26"}, yaku_set_choice="fixed_2")
    assert result.yaku_points[0] == 450


# --- 3. tie-breaks (docs/tensho.md#a-round, step 6) ------------------------------------------

# Seat 0: Back Three-Four-Five (3C 4C 5C) = 50 and 8 chaff (set B); seat 1: Front
# One-Two-Three (1S 2S 3S) = 100 and 5 chaff (1Co 1Cu 3Co 4Cu 2Cu; the 2 of coins is not chaff).
YAKU_DECIDES = turns_deal(QUIET_FIELD, interleave(
    [(THREE_OF_CUPS, THREE_OF_CLUBS), (FOUR_OF_COINS, FOUR_OF_CLUBS), (FIVE_OF_COINS, FIVE_OF_CLUBS),
     (SEVEN_OF_COINS, SEVEN_OF_CUPS), (EIGHT_OF_COINS, EIGHT_OF_CUPS), (FIVE_OF_CUPS, FIVE_OF_SWORDS)],
    [(ONE_OF_COINS, ONE_OF_SWORDS), (TWO_OF_CUPS, TWO_OF_SWORDS), (THREE_OF_COINS, THREE_OF_SWORDS),
     (ONE_OF_CUPS, ONE_OF_CLUBS), (TWO_OF_COINS, TWO_OF_CLUBS), (FOUR_OF_CUPS, FOUR_OF_SWORDS)]))


def test_higher_yaku_points_win_before_chaff():
    result = play(YAKU_DECIDES.deck, YAKU_DECIDES.plays)
    assert result.captured == [mask_of(YAKU_DECIDES.piles[0]), mask_of(YAKU_DECIDES.piles[1])]
    assert result.yaku == [yaku_bits({"Y06"}), yaku_bits({"Y01"})]
    assert result.yaku_points == [50, 100]
    assert result.chaff == [8, 5]
    # 100 > 50: seat 1 wins on yaku although seat 0 has more chaff.
    assert (result.winner, reason(result)) == (1, "yaku")
    assert result.score == [50, 100]
    assert result.payoff == [-1, 1]


def test_yaku_points_match_scoring_pays_the_score_difference():
    # tensho.match_scoring = yaku_points: the round's payoff is the score difference, 50 - 100.
    result = play(YAKU_DECIDES.deck, YAKU_DECIDES.plays, match_scoring="yaku_points")
    assert result.payoff == [-50, 50]


# Neither seat completes a yaku.  Seat 0: 2Cu 2S 1Co 1Cu 3Co 3Cu 4Co 4Cu 1C 1S 5C 5S; seat 1:
# 5Co 5Cu 7Co 7Cu 8Co 8Cu 2Co 2C 3C 3S 4C 4S.
# Chaff set B (coins and cups but 2Co): seat 0 7 (incl. 2Cu), seat 1 6.  Set A (B without 2Cu):
# 6 and 6.  Set C (all coins and cups): 7 and 7.
# T1 values: seat 0 = 8 x 1 + 1C 15 + 1S 5 + 5C 5 + 5S 1 = 34; seat 1 = 6 x 1 + 2Co 10 + 2C 10 +
# 3C 3 + 3S 1 + 4C 4 + 4S 1 = 35.  T2 moves 10 points from 2Co to 2S: seat 0 43, seat 1 26.
CHAFF_DECIDES = turns_deal(QUIET_FIELD, interleave(
    [(TWO_OF_CUPS, TWO_OF_SWORDS), (ONE_OF_COINS, ONE_OF_CUPS), (THREE_OF_COINS, THREE_OF_CUPS),
     (FOUR_OF_COINS, FOUR_OF_CUPS), (ONE_OF_CLUBS, ONE_OF_SWORDS), (FIVE_OF_CLUBS, FIVE_OF_SWORDS)],
    [(FIVE_OF_COINS, FIVE_OF_CUPS), (SEVEN_OF_COINS, SEVEN_OF_CUPS), (EIGHT_OF_COINS, EIGHT_OF_CUPS),
     (TWO_OF_COINS, TWO_OF_CLUBS), (THREE_OF_CLUBS, THREE_OF_SWORDS), (FOUR_OF_CLUBS, FOUR_OF_SWORDS)]))


@pytest.mark.parametrize(("options", "chaff", "card_points", "winner", "why"), [
    # default: equal yaku points (0), seat 0 has more chaff (set B) -> seat 0 on chaff
    ({}, [7, 6], [34, 35], 0, "chaff"),
    # set A: chaff tied 6-6, seat 1 has the higher T1 sum -> seat 1 on card values
    ({"chaff_set": "A"}, [6, 6], [34, 35], 1, "card_value"),
    # set C: 7-7, card values again
    ({"chaff_set": "C"}, [7, 7], [34, 35], 1, "card_value"),
    # set A with the T2 table: 43 against 26 -> seat 0 on card values
    ({"chaff_set": "A", "card_values": "T2_alt"}, [6, 6], [43, 26], 0, "card_value"),
    # no yaku on either side and values_only (IW): chaff is skipped -> seat 1 on card values
    ({"no_yaku_tiebreak": "values_only"}, [7, 6], [34, 35], 1, "card_value"),
], ids=["B", "A", "C", "A-T2", "values_only"])
def test_chaff_then_card_values(options, chaff, card_points, winner, why):
    result = play(CHAFF_DECIDES.deck, CHAFF_DECIDES.plays, **options)
    assert result.captured == [mask_of(CHAFF_DECIDES.piles[0]), mask_of(CHAFF_DECIDES.piles[1])]
    assert result.yaku_points == [0, 0]
    assert result.chaff == chaff
    assert result.card_points == card_points
    assert (result.winner, reason(result)) == (winner, why)
    assert result.payoff == ([1, -1] if winner == 0 else [-1, 1])


def test_values_only_still_compares_chaff_when_yaku_points_tie_above_zero():
    # Seat 0: 11C 11Co 11Cu 11S 12C 12S 1Co 1Cu 3Co 3Cu 4C 4Co -> Back Four-Horse-King (4C 11C 12C)
    # = 50; chaff 7; T1 11+12+4 + 9 x 1 = 36.  Seat 1: 10C 10Co 12Co 12Cu 1C 1S 2C 2Co 2Cu 2S 4Cu 4S
    # -> Back One-Two-Ten (1C 2C 10C) = 50; chaff 5 (10Co 12Co 12Cu 2Cu 4Cu); T1 57. values_only
    # only applies when neither player has a yaku (docs/tensho.md#a-round, step 6;
    # tensho.no_yaku_tiebreak), so the 50-50 tie goes to chaff: seat 0 wins.
    field = [FIVE_OF_COINS, FIVE_OF_CUPS, SEVEN_OF_COINS, SEVEN_OF_CUPS, EIGHT_OF_COINS,
             EIGHT_OF_CUPS, NINE_OF_COINS, NINE_OF_CUPS, SIX_OF_CLUBS]
    deal = turns_deal(field, interleave(
        [(ONE_OF_COINS, ONE_OF_CUPS), (THREE_OF_COINS, THREE_OF_CUPS), (HORSE_OF_COINS, HORSE_OF_CUPS),
         (HORSE_OF_CLUBS, HORSE_OF_SWORDS), (KING_OF_CLUBS, KING_OF_SWORDS), (FOUR_OF_COINS, FOUR_OF_CLUBS)],
        [(ONE_OF_CLUBS, ONE_OF_SWORDS), (TWO_OF_COINS, TWO_OF_CUPS), (TWO_OF_CLUBS, TWO_OF_SWORDS),
         (TEN_OF_COINS, TEN_OF_CLUBS), (KING_OF_COINS, KING_OF_CUPS), (FOUR_OF_CUPS, FOUR_OF_SWORDS)]))
    for options in ({}, {"no_yaku_tiebreak": "values_only"}):
        result = play(deal.deck, deal.plays, **options)
        assert result.yaku == [yaku_bits({"Y18"}), yaku_bits({"Y04"})]
        assert result.yaku_points == [50, 50]
        assert result.chaff == [7, 5]
        assert result.card_points == [36, 57]
        assert (result.winner, reason(result)) == (0, "chaff")


# Seat 0 plays the 6 of clubs on turn 1 (straight to his pile) and turns 8Cu, which takes the
# lone 8Co of the field.  No yaku either side (the Elders need a 10, all unseen).
# Chaff B: seat 0 1Co 1Cu 3Co 3Cu 8Cu 8Co = 6; seat 1 4Co 4Cu 5Co 5Cu 7Co 7Cu = 6.
# T1: seat 0 = 1Co 1Cu 3Co 3Cu 2S 7S 5S 6C 8Cu 8Co (10 x 1) + 2C 10 + 7C 7 + 5C 5 = 32;
#     seat 1 = 6 chaff + 1C 15 + 1S 5 + 3C 3 + 3S 1 + 4C 4 + 4S 1 = 35.
# T3 is T1 with the 6 of clubs at 10: seat 0 41, seat 1 35.
SIX_FIELD = [NINE_OF_COINS, NINE_OF_CUPS, TEN_OF_COINS, TEN_OF_CUPS, HORSE_OF_COINS, HORSE_OF_CUPS,
             KING_OF_COINS, KING_OF_CUPS, EIGHT_OF_COINS]
SIX_PLAYED = turns_deal(SIX_FIELD, interleave(
    [(SIX_OF_CLUBS, EIGHT_OF_CUPS), (ONE_OF_COINS, ONE_OF_CUPS), (THREE_OF_COINS, THREE_OF_CUPS),
     (TWO_OF_CLUBS, TWO_OF_SWORDS), (SEVEN_OF_CLUBS, SEVEN_OF_SWORDS), (FIVE_OF_CLUBS, FIVE_OF_SWORDS)],
    [(FOUR_OF_COINS, FOUR_OF_CUPS), (FIVE_OF_COINS, FIVE_OF_CUPS), (SEVEN_OF_COINS, SEVEN_OF_CUPS),
     (ONE_OF_CLUBS, ONE_OF_SWORDS), (THREE_OF_CLUBS, THREE_OF_SWORDS), (FOUR_OF_CLUBS, FOUR_OF_SWORDS)]))
SIX_PLAYED_PILES = (
    {SIX_OF_CLUBS, EIGHT_OF_CUPS, EIGHT_OF_COINS, ONE_OF_COINS, ONE_OF_CUPS, THREE_OF_COINS,
     THREE_OF_CUPS, TWO_OF_CLUBS, TWO_OF_SWORDS, SEVEN_OF_CLUBS, SEVEN_OF_SWORDS, FIVE_OF_CLUBS,
     FIVE_OF_SWORDS},
    {FOUR_OF_COINS, FOUR_OF_CUPS, FIVE_OF_COINS, FIVE_OF_CUPS, SEVEN_OF_COINS, SEVEN_OF_CUPS,
     ONE_OF_CLUBS, ONE_OF_SWORDS, THREE_OF_CLUBS, THREE_OF_SWORDS, FOUR_OF_CLUBS, FOUR_OF_SWORDS},
)


@pytest.mark.parametrize(("rules", "options", "card_points", "winner"), [
    ("tensho-ise", {}, [32, 35], 1),  # Ise skin: T1 by default
    ("tensho-ise", {"card_values": "T3_hanafuda"}, [41, 35], 0),
    ("tensho-hanafuda", {}, [41, 35], 0),  # hanafuda skin: T3 by default
], ids=["ise-T1", "ise-T3", "hanafuda-T3"])
def test_card_value_tables_decide_after_equal_chaff(rules, options, card_points, winner):
    result = play(SIX_PLAYED.deck, SIX_PLAYED.plays, rules=rules, **options)
    assert result.captured == [mask_of(SIX_PLAYED_PILES[0]), mask_of(SIX_PLAYED_PILES[1])]
    assert result.yaku_points == [0, 0]
    assert result.chaff == [6, 6]
    assert result.card_points == card_points
    assert (result.winner, reason(result)) == (winner, "card_value")


# Equal on every count.  Seat 0: 1Co 1Cu 1C 1S 3Co 3Cu 3C 3S 5Co 5Cu 5C 5S; seat 1: 2Co 2Cu 2C 2S
# 4Co 4Cu 7Co 7Cu 7C 7S 8Cu 8S.  No yaku (e.g. 1S 3S lack 2S; 3C 5C lack 4C; 7S 8S lack 9S).
# Chaff B: 1Co 1Cu 3Co 3Cu 5Co 5Cu = 6 against 2Cu 4Co 4Cu 7Co 7Cu 8Cu = 6.
# T1: 15 + 5 + 3 + 5 + 8 x 1 = 36 against 10 + 10 + 7 + 9 x 1 = 36.
FULL_TIE = turns_deal(QUIET_FIELD, interleave(
    [(ONE_OF_COINS, ONE_OF_CUPS), (ONE_OF_CLUBS, ONE_OF_SWORDS), (THREE_OF_COINS, THREE_OF_CUPS),
     (THREE_OF_CLUBS, THREE_OF_SWORDS), (FIVE_OF_COINS, FIVE_OF_CUPS), (FIVE_OF_CLUBS, FIVE_OF_SWORDS)],
    [(TWO_OF_COINS, TWO_OF_CUPS), (TWO_OF_CLUBS, TWO_OF_SWORDS), (FOUR_OF_COINS, FOUR_OF_CUPS),
     (SEVEN_OF_COINS, SEVEN_OF_CUPS), (SEVEN_OF_CLUBS, SEVEN_OF_SWORDS), (EIGHT_OF_CUPS, EIGHT_OF_SWORDS)]))


@pytest.mark.parametrize(("final_tie", "dealer", "winner", "why", "payoff"), [
    ("draw", 0, -1, "draw", [0, 0]),
    ("dealer_wins", 0, 0, "final_tie_rule", [1, -1]),
    ("dealer_wins", 1, 1, "final_tie_rule", [-1, 1]),
    ("non_dealer_wins", 0, 1, "final_tie_rule", [-1, 1]),
    ("non_dealer_wins", 1, 0, "final_tie_rule", [1, -1]),
])
def test_final_tie(final_tie, dealer, winner, why, payoff):
    # With dealer = 1 the same deck gives seat 1 the dealer's hand (and the first turn), so the
    # two piles swap; they are equal on every count either way.
    result = play(FULL_TIE.deck, FULL_TIE.plays, dealer=dealer, final_tie=final_tie)
    assert result.dealer == dealer
    first, second = mask_of(FULL_TIE.piles[0]), mask_of(FULL_TIE.piles[1])
    assert result.captured == ([first, second] if dealer == 0 else [second, first])
    assert (result.yaku_points, result.chaff, result.card_points) == ([0, 0], [6, 6], [36, 36])
    assert (result.winner, reason(result), result.payoff) == (winner, why, payoff)


# --- 4. the 6 of clubs (tensho.six_on_field, tensho.six_in_hand) -----------------------------


def test_six_played_from_hand_goes_straight_to_the_pile():
    result = play(SIX_PLAYED.deck, SIX_PLAYED.plays)
    first_play = events(result, "play")[0]
    assert (first_play["seat"], first_play["card"], first_play["captured"], first_play["to"]) == (
        0, SIX_OF_CLUBS, [SIX_OF_CLUBS], "pile")
    assert result.captured[0] >> SIX_OF_CLUBS & 1


def test_six_on_the_field_is_stuck():
    # CHAFF_DECIDES deals the 6 of clubs to the field: nobody ever takes it.
    result = play(CHAFF_DECIDES.deck, CHAFF_DECIDES.plays)
    assert not (result.captured[0] | result.captured[1]) >> SIX_OF_CLUBS & 1
    assert SIX_OF_CLUBS in final_field(CHAFF_DECIDES.deck, result)
    assert not events(result, "six_to_dealer")


@pytest.mark.parametrize("dealer", [0, 1])
def test_six_on_the_field_goes_to_the_dealer_with_dealer_captures(dealer):
    # tensho.six_on_field = dealer_captures (Hon-Bana): the dealer takes it before play; the
    # rest of the round is unchanged (the dealer's hand is the same deck slice either way).
    result = play(CHAFF_DECIDES.deck, CHAFF_DECIDES.plays, dealer=dealer, six_on_field="dealer_captures")
    dealer_pile, other_pile = mask_of(CHAFF_DECIDES.piles[0]), mask_of(CHAFF_DECIDES.piles[1])
    assert result.captured[dealer] == dealer_pile | 1 << SIX_OF_CLUBS
    assert result.captured[1 - dealer] == other_pile
    assert [e["seat"] for e in events(result, "six_to_dealer")] == [dealer]
    assert result.first_player == dealer  # taking the six is not an opening claim


# Dealer (seat 0) holds the 6 of clubs and 1Co 3Co 4Co 5Co 7Co; seat 1 holds 1C 2Co 2C 7C 5C 4C.
# Every turn is a pair-law turn; the 12th card of the draw pile (8Cu) is only turned if 12 turns
# are played and then takes the lone 8Co.
BANK_DECK = build_deck(
    SIX_FIELD,
    [SIX_OF_CLUBS, ONE_OF_COINS, THREE_OF_COINS, FOUR_OF_COINS, FIVE_OF_COINS, SEVEN_OF_COINS],
    [ONE_OF_CLUBS, TWO_OF_COINS, TWO_OF_CLUBS, SEVEN_OF_CLUBS, FIVE_OF_CLUBS, FOUR_OF_CLUBS],
    [ONE_OF_CUPS, ONE_OF_SWORDS, THREE_OF_CUPS, TWO_OF_CUPS, FOUR_OF_CUPS, TWO_OF_SWORDS, FIVE_OF_CUPS,
     SEVEN_OF_SWORDS, SEVEN_OF_CUPS, FIVE_OF_SWORDS, FOUR_OF_SWORDS, EIGHT_OF_CUPS])
BANK_PILE_0 = {SIX_OF_CLUBS, ONE_OF_COINS, ONE_OF_CUPS, THREE_OF_COINS, THREE_OF_CUPS, FOUR_OF_COINS,
               FOUR_OF_CUPS, FIVE_OF_COINS, FIVE_OF_CUPS, SEVEN_OF_COINS, SEVEN_OF_CUPS}
BANK_PILE_1 = {ONE_OF_CLUBS, ONE_OF_SWORDS, TWO_OF_COINS, TWO_OF_CUPS, TWO_OF_CLUBS, TWO_OF_SWORDS,
               SEVEN_OF_CLUBS, SEVEN_OF_SWORDS, FIVE_OF_CLUBS, FIVE_OF_SWORDS, FOUR_OF_CLUBS, FOUR_OF_SWORDS}


def test_bank_at_deal_gives_the_holder_five_turns():
    # Seat 0 banks the six before the first turn, so he has 5 cards: turns go 0 1 0 1 0 1 0 1 0 1
    # and then seat 1, whose 6th card is left, plays twice in a row (docs/tensho.md#options:
    # tensho.six_in_hand).  11 turns, 11 draw cards turned, 7 never turned (8Cu stays in the draw
    # pile, 8Co on the field). Decisions: "bank"; seat 0's 9th-turn card and seat 1's 11th-turn card
    # are forced.
    decisions = ["bank", ONE_OF_COINS, ONE_OF_CLUBS, THREE_OF_COINS, TWO_OF_COINS, FOUR_OF_COINS,
                 TWO_OF_CLUBS, FIVE_OF_COINS, SEVEN_OF_CLUBS, FIVE_OF_CLUBS]
    result = play(BANK_DECK, decisions, six_in_hand="bank_at_deal")
    assert [e["seat"] for e in events(result, "bank_six")] == [0]
    assert [e["seat"] for e in events(result, "play")] == [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1]
    assert result.end_turn == 11
    assert len(events(result, "draw")) == 11
    assert result.captured == [mask_of(BANK_PILE_0), mask_of(BANK_PILE_1)]
    assert final_field(BANK_DECK, result) == set(SIX_FIELD)
    # No yaku; chaff B 10 (seat 0's coins and cups) against 1 (2Cu): seat 0 wins on chaff.
    assert (result.chaff, result.winner, reason(result)) == ([10, 1], 0, "chaff")


def test_bank_at_deal_keep_plays_the_six_as_a_turn():
    # "keep": 12 alternating turns; seat 0's 6th card is the six (forced, turn 11), turned card
    # 4S goes to the field and seat 1's forced 4C takes it on turn 12, then turns 8Cu onto 8Co.
    decisions = ["keep", ONE_OF_COINS, ONE_OF_CLUBS, THREE_OF_COINS, TWO_OF_COINS, FOUR_OF_COINS,
                 TWO_OF_CLUBS, FIVE_OF_COINS, SEVEN_OF_CLUBS, SEVEN_OF_COINS, FIVE_OF_CLUBS]
    result = play(BANK_DECK, decisions, six_in_hand="bank_at_deal")
    assert [e["seat"] for e in events(result, "keep_six")] == [0]
    assert [e["seat"] for e in events(result, "play")] == [0, 1] * 6
    assert result.end_turn == 12
    assert result.captured == [mask_of(BANK_PILE_0), mask_of(BANK_PILE_1 | {EIGHT_OF_CUPS, EIGHT_OF_COINS})]


def test_without_bank_at_deal_the_holder_is_not_asked():
    # Default play_as_turn: the first decision is already a play, so "bank" is illegal there.
    with pytest.raises(DecisionError, match=r"decision 1 \(seat 0 plays a card, turn 1\)"):
        play(BANK_DECK, ["bank", ONE_OF_COINS])


# --- 5. opening claim (docs/tensho.md#a-round, step 3) ---------------------------------------

# Field: a rank-1 triple (1Co 1Cu 1S), 9Co 9Cu 10Co 10Cu, and lone 11Co and 12Co.
TRIPLE_FIELD = [ONE_OF_COINS, ONE_OF_CUPS, ONE_OF_SWORDS, NINE_OF_COINS, NINE_OF_CUPS, TEN_OF_COINS,
                TEN_OF_CUPS, HORSE_OF_COINS, KING_OF_COINS]
JUNK_TURNS = [(THREE_OF_COINS, THREE_OF_CUPS), (FOUR_OF_COINS, FOUR_OF_CUPS), (FIVE_OF_COINS, FIVE_OF_CUPS),
              (SEVEN_OF_COINS, SEVEN_OF_CUPS), (EIGHT_OF_COINS, EIGHT_OF_CUPS), (TWO_OF_COINS, TWO_OF_CUPS)]
FACE_TURNS = [(TWO_OF_CLUBS, TWO_OF_SWORDS), (FOUR_OF_CLUBS, FOUR_OF_SWORDS), (FIVE_OF_CLUBS, FIVE_OF_SWORDS),
              (SEVEN_OF_CLUBS, SEVEN_OF_SWORDS), (EIGHT_OF_CLUBS, EIGHT_OF_SWORDS)]
FACE_CARDS = {c for t in FACE_TURNS for c in t}
JUNK_CARDS = {c for t in JUNK_TURNS for c in t}

# Claimed: seat 1 plays first; his turn 1 is 1C, which takes the 1S left on the field, then he
# turns 11Cu onto the lone 11Co; every other turn is a pair-law turn.
CLAIM = turns_deal(TRIPLE_FIELD, [(ONE_OF_CLUBS, HORSE_OF_CUPS)]
                   + interleave(JUNK_TURNS, FACE_TURNS + [None])[:-1], first=1)


def test_opening_claim_makes_the_non_dealer_play_first():
    decisions = [[ONE_OF_COINS, ONE_OF_CUPS], *CLAIM.plays]
    result = play(CLAIM.deck, decisions)
    assert result.first_player == 1
    assert result.opening_claim == mask_of([ONE_OF_COINS, ONE_OF_CUPS])
    assert [e["seat"] for e in events(result, "play")] == [1, 0] * 6
    # Dealer: the claimed pair + six junk pairs; seat 1: 1C 1S 11Cu 11Co + five face pairs (1C 1S
    # 2C 2S 4C 4S 5C 5S 7C 7S 8C 8S complete nothing: no 3, 9, 10, 11 or 12 of the same face).
    assert result.captured[0] == mask_of(JUNK_CARDS | {ONE_OF_COINS, ONE_OF_CUPS})
    assert result.captured[1] == mask_of(FACE_CARDS | {ONE_OF_CLUBS, ONE_OF_SWORDS, HORSE_OF_CUPS, HORSE_OF_COINS})
    # No yaku: chaff B 13 (2Co is not chaff) against 2 -> the dealer wins on chaff.
    assert (result.yaku_points, result.chaff) == ([0, 0], [13, 2])
    assert (result.winner, reason(result)) == (0, "chaff")


def test_opening_claim_takes_any_two_of_the_triple():
    # Claiming 1S and 1Co leaves 1Cu, which seat 1's 1C takes on turn 1.
    result = play(CLAIM.deck, [[ONE_OF_SWORDS, ONE_OF_COINS], *CLAIM.plays])
    assert result.opening_claim == mask_of([ONE_OF_SWORDS, ONE_OF_COINS])
    assert result.captured[0] == mask_of(JUNK_CARDS | {ONE_OF_SWORDS, ONE_OF_COINS})
    assert result.captured[1] == mask_of(FACE_CARDS | {ONE_OF_CLUBS, ONE_OF_CUPS, HORSE_OF_CUPS, HORSE_OF_COINS})


# Declined: the dealer plays first; his 1C matches all three rank-1 field cards.  Seat 0 then has
# five face pairs, seat 1 six junk pairs.
DECLINE = turns_deal(TRIPLE_FIELD, [(ONE_OF_CLUBS, HORSE_OF_CUPS)]
                     + interleave(JUNK_TURNS, FACE_TURNS + [None])[:-1], first=0)


def test_declined_triple_is_captured_whole_by_the_fourth_card():
    # triple_match = all (default): 1C takes 1Co 1Cu 1S, no decision (one option).
    result = play(DECLINE.deck, ["decline", *DECLINE.plays])
    assert (result.first_player, result.opening_claim) == (0, 0)
    turn1 = events(result, "play")[0]
    assert (turn1["card"], sorted(turn1["captured"])) == (
        ONE_OF_CLUBS, sorted([ONE_OF_CLUBS, ONE_OF_SWORDS, ONE_OF_COINS, ONE_OF_CUPS]))
    assert result.captured[0] == mask_of(
        FACE_CARDS | {ONE_OF_CLUBS, ONE_OF_SWORDS, ONE_OF_COINS, ONE_OF_CUPS, HORSE_OF_CUPS, HORSE_OF_COINS})
    assert result.captured[1] == mask_of(JUNK_CARDS)
    # chaff B: seat 0 1Co 1Cu 11Cu 11Co = 4, seat 1 11 -> seat 1 wins on chaff
    assert (result.chaff, result.winner, reason(result)) == ([4, 11], 1, "chaff")


def test_triple_match_one_takes_a_single_card_of_the_three():
    # triple_match = one: the player picks one of the three (here 1S); 1Co and 1Cu stay for good.
    result = play(DECLINE.deck, ["decline", ONE_OF_CLUBS, ONE_OF_SWORDS, *DECLINE.plays[1:]],
                  triple_match="one")
    assert result.captured[0] == mask_of(FACE_CARDS | {ONE_OF_CLUBS, ONE_OF_SWORDS, HORSE_OF_CUPS, HORSE_OF_COINS})
    assert {ONE_OF_COINS, ONE_OF_CUPS} <= final_field(DECLINE.deck, result)
    assert result.chaff == [2, 11]


def test_triple_match_one_rejects_a_card_outside_the_triple():
    with pytest.raises(DecisionError, match=r"decision 3 \(seat 0 chooses the field card taken with card "
                                            rf"{ONE_OF_CLUBS}, turn 1\).*not one of the matching field cards"):
        play(DECLINE.deck, ["decline", ONE_OF_CLUBS, NINE_OF_COINS], triple_match="one")


def test_triple_match_all_takes_no_decision():
    # With triple_match = all the capture of three is forced: a field card id given where the
    # script expects nothing is read as the next decision, seat 1's play, and is illegal there.
    with pytest.raises(DecisionError, match=r"decision 3 \(seat 1 plays a card, turn 2\)"):
        play(DECLINE.deck, ["decline", ONE_OF_CLUBS, ONE_OF_SWORDS, *DECLINE.plays[1:]])


# Two triples on the field (ranks 1 and 2); the fourth card of each is never seen.
TWO_TRIPLES_FIELD = [ONE_OF_COINS, ONE_OF_CUPS, ONE_OF_SWORDS, TWO_OF_COINS, TWO_OF_CUPS, TWO_OF_SWORDS,
                     NINE_OF_COINS, TEN_OF_COINS, HORSE_OF_COINS]
TWO_TRIPLES_SEAT0 = [(THREE_OF_COINS, THREE_OF_CUPS), (SEVEN_OF_COINS, SEVEN_OF_CUPS),
                     (KING_OF_COINS, KING_OF_CUPS), (FOUR_OF_CLUBS, FOUR_OF_SWORDS),
                     (FIVE_OF_CLUBS, FIVE_OF_SWORDS), (EIGHT_OF_CLUBS, EIGHT_OF_SWORDS)]
TWO_TRIPLES_SEAT1 = [(FOUR_OF_COINS, FOUR_OF_CUPS), (FIVE_OF_COINS, FIVE_OF_CUPS),
                     (EIGHT_OF_COINS, EIGHT_OF_CUPS), (THREE_OF_CLUBS, THREE_OF_SWORDS),
                     (SEVEN_OF_CLUBS, SEVEN_OF_SWORDS), (KING_OF_CLUBS, KING_OF_SWORDS)]


def two_triples(first: int):
    turns = interleave(TWO_TRIPLES_SEAT0, TWO_TRIPLES_SEAT1) if first == 0 else interleave(
        TWO_TRIPLES_SEAT1, TWO_TRIPLES_SEAT0)
    return turns_deal(TWO_TRIPLES_FIELD, turns, first=first)


def test_each_triple_scope_asks_for_every_triple():
    deal = two_triples(first=1)
    claims = [[ONE_OF_COINS, ONE_OF_CUPS], [TWO_OF_COINS, TWO_OF_CUPS]]
    result = play(deal.deck, claims + deal.plays)
    assert result.opening_claim == mask_of([ONE_OF_COINS, ONE_OF_CUPS, TWO_OF_COINS, TWO_OF_CUPS])
    assert result.first_player == 1
    assert final_field(deal.deck, result) == {ONE_OF_SWORDS, TWO_OF_SWORDS, NINE_OF_COINS, TEN_OF_COINS,
                                              HORSE_OF_COINS}


def test_one_triple_scope_stops_after_the_first_claim():
    # Claiming the rank-1 triple ends the opening: no question about rank 2, whose three cards
    # stay on the field for the whole round.
    deal = two_triples(first=1)
    result = play(deal.deck, [[ONE_OF_COINS, ONE_OF_CUPS]] + deal.plays, opening_claim_scope="one_triple")
    assert result.opening_claim == mask_of([ONE_OF_COINS, ONE_OF_CUPS])
    assert result.first_player == 1
    assert {TWO_OF_COINS, TWO_OF_CUPS, TWO_OF_SWORDS} <= final_field(deal.deck, result)


def test_one_triple_scope_after_a_decline_asks_for_the_next_triple():
    deal = two_triples(first=1)
    result = play(deal.deck, ["decline", [TWO_OF_SWORDS, TWO_OF_CUPS]] + deal.plays,
                  opening_claim_scope="one_triple")
    assert result.opening_claim == mask_of([TWO_OF_SWORDS, TWO_OF_CUPS])
    assert result.first_player == 1


def test_declining_every_triple_keeps_the_dealer_first():
    deal = two_triples(first=0)
    result = play(deal.deck, ["decline", "decline"] + deal.plays)
    assert (result.first_player, result.opening_claim) == (0, 0)
    assert [e["seat"] for e in events(result, "play")] == [0, 1] * 6


# Four rank-1 cards on the field.
FOUR_FIELD = [ONE_OF_CLUBS, ONE_OF_SWORDS, ONE_OF_COINS, ONE_OF_CUPS, NINE_OF_COINS, NINE_OF_CUPS,
              TEN_OF_COINS, TEN_OF_CUPS, HORSE_OF_COINS]
FOUR_SEAT0 = [(TWO_OF_COINS, TWO_OF_CUPS), (THREE_OF_COINS, THREE_OF_CUPS), (FOUR_OF_COINS, FOUR_OF_CUPS),
              (FIVE_OF_COINS, FIVE_OF_CUPS), (SEVEN_OF_COINS, SEVEN_OF_CUPS), (EIGHT_OF_COINS, EIGHT_OF_CUPS)]
FOUR_SEAT1 = [(KING_OF_COINS, KING_OF_CUPS), (TWO_OF_CLUBS, TWO_OF_SWORDS), (THREE_OF_CLUBS, THREE_OF_SWORDS),
              (FOUR_OF_CLUBS, FOUR_OF_SWORDS), (SEVEN_OF_CLUBS, SEVEN_OF_SWORDS), (EIGHT_OF_CLUBS, EIGHT_OF_SWORDS)]


def test_four_of_a_rank_on_the_field_redeals_by_default():
    deal = turns_deal(FOUR_FIELD, interleave(FOUR_SEAT0, FOUR_SEAT1))
    with pytest.raises(DealError, match="four cards of rank 1"):
        play(deal.deck, deal.plays)


def test_four_of_a_rank_with_opening_rule_applies():
    # The dealer may take any two of the four (six pairs); the other two stay for good.
    deal = turns_deal(FOUR_FIELD, interleave(FOUR_SEAT1, FOUR_SEAT0), first=1)
    result = play(deal.deck, [[ONE_OF_CLUBS, ONE_OF_CUPS]] + deal.plays,
                  field_four_of_rank="opening_rule_applies")
    assert (result.first_player, result.opening_claim) == (1, mask_of([ONE_OF_CLUBS, ONE_OF_CUPS]))
    assert result.captured[0] == mask_of({c for t in FOUR_SEAT0 for c in t} | {ONE_OF_CLUBS, ONE_OF_CUPS})
    assert {ONE_OF_SWORDS, ONE_OF_COINS} <= final_field(deal.deck, result)


def test_four_of_a_rank_stuck_asks_nothing_and_nobody_takes_them():
    deal = turns_deal(FOUR_FIELD, interleave(FOUR_SEAT0, FOUR_SEAT1))
    result = play(deal.deck, deal.plays, field_four_of_rank="stuck")
    assert (result.first_player, result.opening_claim) == (0, 0)
    assert result.captured == [mask_of(deal.piles[0]), mask_of(deal.piles[1])]
    assert {ONE_OF_CLUBS, ONE_OF_SWORDS, ONE_OF_COINS, ONE_OF_CUPS} <= final_field(deal.deck, result)


# --- 6. two-card matches (tensho.double_match) -----------------------------------------------

# Field: 9C 9Co, 10S 10Co (two of each rank), 11Co 11Cu, lone 12Co and 8Co, and the 6 of clubs.
# Turn 1: seat 0 plays 9Cu (two matches) and turns 8Cu onto 8Co.  Turn 2: seat 1 plays 12Cu
# onto 12Co and turns 10C (two matches).  Turns 3-12 are pair-law turns of ranks 1-5 and 7.
DOUBLE_FIELD = [NINE_OF_CLUBS, NINE_OF_COINS, TEN_OF_SWORDS, TEN_OF_COINS, HORSE_OF_COINS, HORSE_OF_CUPS,
                KING_OF_COINS, EIGHT_OF_COINS, SIX_OF_CLUBS]
DOUBLE_SEAT0 = [(ONE_OF_COINS, ONE_OF_CUPS), (TWO_OF_COINS, TWO_OF_CUPS), (THREE_OF_COINS, THREE_OF_CUPS),
                (FOUR_OF_COINS, FOUR_OF_CUPS), (FIVE_OF_COINS, FIVE_OF_CUPS)]
DOUBLE_SEAT1 = [(SEVEN_OF_COINS, SEVEN_OF_CUPS), (ONE_OF_CLUBS, ONE_OF_SWORDS), (THREE_OF_CLUBS, THREE_OF_SWORDS),
                (FOUR_OF_CLUBS, FOUR_OF_SWORDS), (SEVEN_OF_CLUBS, SEVEN_OF_SWORDS)]
DOUBLE = turns_deal(DOUBLE_FIELD, [(NINE_OF_CUPS, EIGHT_OF_CUPS), (KING_OF_CUPS, TEN_OF_CLUBS)]
                    + interleave(DOUBLE_SEAT0, DOUBLE_SEAT1))
DOUBLE_REST = ({c for t in DOUBLE_SEAT0 for c in t}, {c for t in DOUBLE_SEAT1 for c in t})


def test_two_matches_choose_for_played_and_turned_cards():
    # choose (default): seat 0 takes 9Co with 9Cu (9C stays); seat 1 takes 10Co with the turned
    # 10C (10S stays).  Each choice is a decision right after the card that needs it.
    decisions = [NINE_OF_CUPS, NINE_OF_COINS, KING_OF_CUPS, TEN_OF_COINS, *DOUBLE.plays[2:]]
    result = play(DOUBLE.deck, decisions)
    assert result.captured[0] == mask_of(DOUBLE_REST[0] | {NINE_OF_CUPS, NINE_OF_COINS, EIGHT_OF_CUPS, EIGHT_OF_COINS})
    assert result.captured[1] == mask_of(DOUBLE_REST[1] | {KING_OF_CUPS, KING_OF_COINS, TEN_OF_CLUBS, TEN_OF_COINS})
    assert final_field(DOUBLE.deck, result) == {NINE_OF_CLUBS, TEN_OF_SWORDS, HORSE_OF_COINS, HORSE_OF_CUPS,
                                                SIX_OF_CLUBS}


def test_two_matches_highest_value_first_takes_the_higher_card_without_asking():
    # highest_value_first: 9C (T1 9) over 9Co (1), 10S (10) over 10Co (1); no decisions.
    result = play(DOUBLE.deck, DOUBLE.plays, double_match="highest_value_first")
    assert result.captured[0] == mask_of(DOUBLE_REST[0] | {NINE_OF_CUPS, NINE_OF_CLUBS, EIGHT_OF_CUPS, EIGHT_OF_COINS})
    assert result.captured[1] == mask_of(DOUBLE_REST[1] | {KING_OF_CUPS, KING_OF_COINS, TEN_OF_CLUBS, TEN_OF_SWORDS})
    assert final_field(DOUBLE.deck, result) == {NINE_OF_COINS, TEN_OF_COINS, HORSE_OF_COINS, HORSE_OF_CUPS,
                                                SIX_OF_CLUBS}


def test_two_matches_choice_must_be_one_of_the_two():
    with pytest.raises(DecisionError, match=rf"decision 2 \(seat 0 chooses the field card taken with card "
                                            rf"{NINE_OF_CUPS}, turn 1\): {TEN_OF_COINS} is illegal"):
        play(DOUBLE.deck, [NINE_OF_CUPS, TEN_OF_COINS])


# --- 7. capture_mandatory = false ------------------------------------------------------------

# Turn 1: seat 0 plays 8Cu, which matches the lone 8Co; he may leave it on the field.  He then
# turns 8C, which matches the two rank-8 cards and takes the one he picks (8Co).
OPTIONAL_FIELD = [NINE_OF_COINS, NINE_OF_CUPS, TEN_OF_COINS, TEN_OF_CUPS, HORSE_OF_COINS, HORSE_OF_CUPS,
                  KING_OF_COINS, KING_OF_CUPS, EIGHT_OF_COINS]
OPTIONAL_SEAT0 = [(ONE_OF_COINS, ONE_OF_CUPS), (TWO_OF_COINS, TWO_OF_CUPS), (THREE_OF_COINS, THREE_OF_CUPS),
                  (FOUR_OF_COINS, FOUR_OF_CUPS), (FIVE_OF_COINS, FIVE_OF_CUPS)]
OPTIONAL_SEAT1 = [(SEVEN_OF_COINS, SEVEN_OF_CUPS), (ONE_OF_CLUBS, ONE_OF_SWORDS), (TWO_OF_CLUBS, TWO_OF_SWORDS),
                  (FOUR_OF_CLUBS, FOUR_OF_SWORDS), (FIVE_OF_CLUBS, FIVE_OF_SWORDS), (SEVEN_OF_CLUBS, SEVEN_OF_SWORDS)]
OPTIONAL = turns_deal(OPTIONAL_FIELD, interleave([(EIGHT_OF_CUPS, EIGHT_OF_CLUBS)] + OPTIONAL_SEAT0,
                                                 OPTIONAL_SEAT1))


def test_capture_optional_lets_a_played_card_stay_on_the_field():
    decisions = [EIGHT_OF_CUPS, "decline", EIGHT_OF_COINS, *OPTIONAL.plays[1:]]
    result = play(OPTIONAL.deck, decisions, capture_mandatory="false")
    turn1 = events(result, "play")[0]
    assert (turn1["to"], turn1.get("declined")) == ("field", True)
    draw1 = events(result, "draw")[0]
    assert sorted(draw1["captured"]) == sorted([EIGHT_OF_CLUBS, EIGHT_OF_COINS])
    assert result.captured[0] == mask_of({c for t in OPTIONAL_SEAT0 for c in t} | {EIGHT_OF_CLUBS, EIGHT_OF_COINS})
    # the declined 8Cu is still on the field at the end (8S is never seen)
    assert EIGHT_OF_CUPS in final_field(OPTIONAL.deck, result)


def test_capture_optional_capture_is_an_explicit_choice():
    # Taking the match is also a decision now (the field card id): 8Cu takes 8Co, and 8C turned
    # next finds no rank-8 card and goes to the field.
    decisions = [EIGHT_OF_CUPS, EIGHT_OF_COINS, *OPTIONAL.plays[1:]]
    result = play(OPTIONAL.deck, decisions, capture_mandatory="false")
    assert result.captured[0] == mask_of({c for t in OPTIONAL_SEAT0 for c in t} | {EIGHT_OF_CUPS, EIGHT_OF_COINS})
    assert EIGHT_OF_CLUBS in final_field(OPTIONAL.deck, result)


def test_decline_is_illegal_when_capture_is_mandatory():
    # A two-card match asks which card to take; "decline" is not an option by default.
    with pytest.raises(DecisionError, match=rf"decision 2 \(seat 0 chooses the field card taken with card "
                                            rf"{NINE_OF_CUPS}, turn 1\): 'decline' is illegal: capturing is mandatory"):
        play(DOUBLE.deck, [NINE_OF_CUPS, "decline"])
    # A single match asks nothing at all: "decline" is read as seat 1's play.
    with pytest.raises(DecisionError, match=r"decision 2 \(seat 1 plays a card, turn 2\)"):
        play(OPTIONAL.deck, [EIGHT_OF_CUPS, "decline"])


# --- 8. instant wins (docs/tensho.md#a-round, step 5) ----------------------------------------

INSTANT_FIELD = [SEVEN_OF_COINS, SEVEN_OF_CUPS, EIGHT_OF_COINS, EIGHT_OF_CUPS, NINE_OF_COINS,
                 NINE_OF_CUPS, HORSE_OF_COINS, HORSE_OF_CUPS, KING_OF_COINS]
# Set 1: seat 0 takes 5Co 5S (turn 1) and 10Co 10S (turn 3), then plays the 6 of clubs on turn
# 5: 5S 6C 10S is Front Elder, an instant win in Set 1.  His turned card would be 12Cu (onto 12Co).
FRONT_ELDER = turns_deal(INSTANT_FIELD, [
    (FIVE_OF_COINS, FIVE_OF_SWORDS), (ONE_OF_COINS, ONE_OF_CUPS), (TEN_OF_COINS, TEN_OF_SWORDS),
    (THREE_OF_COINS, THREE_OF_CUPS), (SIX_OF_CLUBS, KING_OF_CUPS)])
FRONT_ELDER_PILE = {FIVE_OF_COINS, FIVE_OF_SWORDS, TEN_OF_COINS, TEN_OF_SWORDS, SIX_OF_CLUBS}


def test_front_elder_wins_at_once_after_the_capture():
    # after_each_capture: the round stops on the play; 12Cu is never turned.
    result = play(FRONT_ELDER.deck, FRONT_ELDER.plays)
    assert (result.winner, reason(result), result.end_turn) == (0, "instant_win", 5)
    assert result.captured == [mask_of(FRONT_ELDER_PILE),
                               mask_of({ONE_OF_COINS, ONE_OF_CUPS, THREE_OF_COINS, THREE_OF_CUPS})]
    assert result.yaku[0] >> compiled().rules.yaku_by_key("Y23").index & 1
    assert len(events(result, "draw")) == 4
    assert result.score == [INSTANT_WIN_SCORE, 0]
    assert result.payoff == [1, -1]


def test_front_elder_with_end_of_turn_check_finishes_the_turn():
    # end_of_turn: the turn's draw is still resolved (12Cu takes 12Co), then seat 0 wins.
    result = play(FRONT_ELDER.deck, FRONT_ELDER.plays, instant_win_check="end_of_turn")
    assert (result.winner, reason(result), result.end_turn) == (0, "instant_win", 5)
    assert result.captured[0] == mask_of(FRONT_ELDER_PILE | {KING_OF_CUPS, KING_OF_COINS})
    assert len(events(result, "draw")) == 5


def test_instant_win_cuts_the_script_short():
    # Decisions beyond the instant win are left over, which is an error naming the first one.
    with pytest.raises(DecisionError, match=r"1 decision\(s\) left unused after the round ended "
                                            r"\(first unused: decision 6"):
        play(FRONT_ELDER.deck, [*FRONT_ELDER.plays, TWO_OF_COINS])


# Set 2: seat 0 takes 5Co 5C and 10Co 10C, then on turn 5 plays 12Cu onto 12Co and turns the 6 of
# clubs: 5C 6C 10C is Back Elder, an instant win in Set 2; both check options agree.
BACK_ELDER = turns_deal(INSTANT_FIELD, [
    (FIVE_OF_COINS, FIVE_OF_CLUBS), (ONE_OF_COINS, ONE_OF_CUPS), (TEN_OF_COINS, TEN_OF_CLUBS),
    (THREE_OF_COINS, THREE_OF_CUPS), (KING_OF_CUPS, SIX_OF_CLUBS)])


@pytest.mark.parametrize("check", ["after_each_capture", "end_of_turn"])
def test_back_elder_turned_six_wins_in_set_2(check):
    result = play(BACK_ELDER.deck, BACK_ELDER.plays, yaku_set_choice="fixed_2", instant_win_check=check)
    assert (result.winner, reason(result), result.end_turn) == (0, "instant_win", 5)
    last_draw = events(result, "draw")[-1]
    assert (last_draw["card"], last_draw["captured"], last_draw["to"]) == (SIX_OF_CLUBS, [SIX_OF_CLUBS], "pile")
    assert result.captured[0] == mask_of({FIVE_OF_COINS, FIVE_OF_CLUBS, TEN_OF_COINS, TEN_OF_CLUBS,
                                          KING_OF_CUPS, KING_OF_COINS, SIX_OF_CLUBS})
    assert result.score == [INSTANT_WIN_SCORE, 0]


# Set 2: seat 1 takes 4Co 4S and 1Co 1C, then plays the 6 of clubs on turn 6: 4S 6C 1C is Red Four.
RED_FOUR = turns_deal(INSTANT_FIELD, [
    (THREE_OF_COINS, THREE_OF_CUPS), (FOUR_OF_COINS, FOUR_OF_SWORDS), (FIVE_OF_COINS, FIVE_OF_CUPS),
    (ONE_OF_COINS, ONE_OF_CLUBS), (TEN_OF_COINS, TEN_OF_CUPS), (SIX_OF_CLUBS, KING_OF_CUPS)])
RED_FOUR_PILE = {FOUR_OF_COINS, FOUR_OF_SWORDS, ONE_OF_COINS, ONE_OF_CLUBS, SIX_OF_CLUBS}


@pytest.mark.parametrize(("check", "extra", "draws"), [
    ("after_each_capture", set(), 5), ("end_of_turn", {KING_OF_CUPS, KING_OF_COINS}, 6)])
def test_red_four_wins_for_the_non_dealer_in_set_2(check, extra, draws):
    result = play(RED_FOUR.deck, RED_FOUR.plays, yaku_set_choice="fixed_2", instant_win_check=check)
    assert (result.winner, reason(result), result.end_turn) == (1, "instant_win", 6)
    assert result.captured[1] == mask_of(RED_FOUR_PILE | extra)
    assert len(events(result, "draw")) == draws
    assert result.score == [0, INSTANT_WIN_SCORE]
    assert result.payoff == [-1, 1]


def test_instant_win_score_option_sets_the_score():
    result = play(RED_FOUR.deck, RED_FOUR.plays, yaku_set_choice="fixed_2", instant_win_score="500",
                  match_scoring="yaku_points")
    assert result.score == [0, 500]
    assert result.payoff == [-500, 500]


def test_red_four_is_no_instant_win_in_set_1():
    # Set 1 has no Red Four: after seat 1's turn 6 play the round goes on, so the script (which
    # stops after turn 6's play) runs out at seat 0's turn-7 play.
    with pytest.raises(DecisionError, match=r"decision 7 \(seat 0 plays a card, turn 7\) is missing"):
        play(RED_FOUR.deck, RED_FOUR.plays)


# --- 9. yaku-card options: ten_horse_king and back_two_card ----------------------------------


@pytest.mark.parametrize("face", ["Y09", "Y10"])
def test_ten_nine_twelve_replaces_the_horse(face):
    # 10_9_12: 10-9-12 of the face scores Ten-Horse-King's value; under the default 10_11_12 the
    # same pile completes nothing (no other yaku is 10-9-12) and seat 0 has 0 yaku points.
    value = YAKU_BY_KEY[face].value(1)
    deal = showcase_deal(TEN_NINE_TWELVE[face], 1, ten_horse_king="10_9_12")
    result = play(deal.deck, deal.plays, ten_horse_king="10_9_12")
    assert result.yaku == [yaku_bits([face], ten_horse_king="10_9_12"), 0]
    assert result.yaku_points == [value, 0]
    default = play(deal.deck, deal.plays)
    assert default.yaku_points == [0, 0]
    # and the 10-11-12 cards are no yaku under 10_9_12
    deal = showcase_deal(YAKU_BY_KEY[face].cards, 1)
    assert play(deal.deck, deal.plays, ten_horse_king="10_9_12").yaku_points == [0, 0]


@pytest.mark.parametrize("key", ["Y02", "Y04"])
def test_rain_man_replaces_the_swallow_in_the_hanafuda_file(key):
    # back_two_card = rain_man: Back One-Two-Three / One-Two-Ten use the Rain Man (2Co) instead
    # of the Swallow (2C); worth 50 in Set 1.  With the default swallow the same pile scores 0.
    deal = showcase_deal(RAIN_MAN_BACK[key], 1, exclude=[SWALLOW], back_two_card="rain_man")
    assert RAIN_MAN in deal.piles[0] and SWALLOW not in deal.piles[0]
    result = play(deal.deck, deal.plays, rules="tensho-hanafuda", back_two_card="rain_man")
    assert result.yaku == [yaku_bits([key], "tensho-hanafuda", back_two_card="rain_man"), 0]
    assert result.yaku_points == [50, 0]
    assert play(deal.deck, deal.plays, rules="tensho-hanafuda").yaku_points == [0, 0]
    # the Swallow version scores under swallow only
    deal = showcase_deal(YAKU_BY_KEY[key].cards, 1, exclude=[RAIN_MAN])
    assert play(deal.deck, deal.plays, rules="tensho-hanafuda").yaku_points == [50, 0]
    assert play(deal.deck, deal.plays, rules="tensho-hanafuda", back_two_card="rain_man").yaku_points == [0, 0]


# --- 10. the yaku set chosen by the dealer (tensho.yaku_set_choice) --------------------------


def test_dealer_policy_yaku_set_is_the_first_decision():
    # yaku_set_choice = dealer_policy: the dealer names the set before the deal.  Red Four is an
    # instant win in Set 2 only.
    result = play(RED_FOUR.deck, [2, *RED_FOUR.plays], yaku_set_choice="dealer_policy")
    assert (result.yaku_set, reason(result)) == (2, "instant_win")
    with pytest.raises(DecisionError, match=r"decision 1 \(seat 0 chooses the yaku set\): 3 is illegal"):
        play(RED_FOUR.deck, [3, *RED_FOUR.plays], yaku_set_choice="dealer_policy")


# --- 11. bad decks and bad decisions ---------------------------------------------------------


def test_missing_decision_names_the_step():
    deal = YAKU_DECIDES
    with pytest.raises(DecisionError, match=r"decision 4 \(seat 1 plays a card, turn 4\) is missing"):
        play(deal.deck, deal.plays[:3])


def test_card_not_in_hand_names_the_step():
    deal = YAKU_DECIDES
    with pytest.raises(DecisionError, match=rf"decision 2 \(seat 1 plays a card, turn 2\): {THREE_OF_CUPS} "
                                            r"is illegal: not in the hand"):
        play(deal.deck, [deal.plays[0], THREE_OF_CUPS, *deal.plays[2:]])


def test_extra_decision_is_reported():
    deal = YAKU_DECIDES
    with pytest.raises(DecisionError, match=r"1 decision\(s\) left unused .*first unused: decision 11"):
        play(deal.deck, [*deal.plays, ONE_OF_COINS])


def test_forced_last_cards_take_no_decision():
    # Each seat's 6th play is forced, so a full round without a banked six has 10 play decisions;
    # a list that also writes out the two last cards is accepted and plays the same round, but
    # any other extra entry is left unused and rejected.
    assert len(YAKU_DECIDES.plays) == 10
    last_cards = [YAKU_DECIDES.turns[10][0], YAKU_DECIDES.turns[11][0]]
    short = play(YAKU_DECIDES.deck, list(YAKU_DECIDES.plays))
    spelled_out = play(YAKU_DECIDES.deck, [*YAKU_DECIDES.plays, *last_cards])
    assert spelled_out.captured == short.captured and spelled_out.winner == short.winner
    with pytest.raises(DecisionError, match=r"1 decision\(s\) left unused .*first unused: decision 13"):
        play(YAKU_DECIDES.deck, [*YAKU_DECIDES.plays, *last_cards, last_cards[0]])


def test_bad_opening_claim_names_the_triple():
    with pytest.raises(DecisionError, match=rf"decision 1 \(seat 0 opening claim on the rank-1 field cards "
                                            rf"\[{ONE_OF_SWORDS}, {ONE_OF_COINS}, {ONE_OF_CUPS}\]\): "
                                            rf"\[{ONE_OF_COINS}, {NINE_OF_COINS}\] is illegal"):
        play(CLAIM.deck, [[ONE_OF_COINS, NINE_OF_COINS], *CLAIM.plays])
    with pytest.raises(DecisionError, match=r"expected two card ids or \"decline\""):
        play(CLAIM.deck, ["take", *CLAIM.plays])


def test_bad_bank_decision():
    with pytest.raises(DecisionError, match=r"decision 1 \(seat 0 banks the 6 of clubs or keeps it\)"):
        play(BANK_DECK, ["yes"], six_in_hand="bank_at_deal")


def test_deck_strings_are_validated():
    text = ",".join(str(c) for c in YAKU_DECIDES.deck)
    assert parse_deck(text) == YAKU_DECIDES.deck
    duplicated = ",".join(str(c) for c in [*YAKU_DECIDES.deck[:44], YAKU_DECIDES.deck[0]])
    with pytest.raises(DealError, match="already at position 0"):
        parse_deck(duplicated)
    with pytest.raises(DealError, match="44 card ids"):
        parse_deck(",".join(str(c) for c in YAKU_DECIDES.deck[:44]))
