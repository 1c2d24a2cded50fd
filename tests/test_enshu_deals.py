"""Hand-made Enshu-bana deals, each with its outcome worked out from docs/enshu.md in the comments.

Seat 0 deals unless said otherwise.  Card points (docs/enshu.md#cards-and-yaku): Bright 20 (W, S) or
30 (C), Animal 10 (the Rain Man too), Ribbon 5, Chaff 0.

Two deal shapes keep the play easy to follow:

* *five turns* (2 players, variant C or W): seat 0 captures a field card with every card it
  plays and turns, seat 1 only adds cards to the field; seat 0 completes Akatan (Poetry
  Ribbons) on turn 5, which stops the round;
* *paired turns*: every turn plays a card to the field and turns the card of the same month
  that takes it back, so each turn's two cards go to the player whose turn it is; the field
  holds three cards of two months whose fourth cards are never turned.
"""

from __future__ import annotations

import pytest
from enshu_cards import (
    CHERRY_CHAFF_1,
    CHERRY_CHAFF_2,
    CHERRY_CURTAIN,
    CHERRY_RIBBON,
    CHRYS_CHAFF_1,
    CHRYS_CHAFF_2,
    CHRYS_RIBBON,
    CHRYS_SAKE_CUP,
    CLOVER_BOAR,
    CLOVER_CHAFF_1,
    CLOVER_CHAFF_2,
    CLOVER_RIBBON,
    IRIS_BRIDGE,
    IRIS_CHAFF_1,
    IRIS_CHAFF_2,
    IRIS_RIBBON,
    MAPLE_CHAFF_1,
    MAPLE_CHAFF_2,
    MAPLE_DEER,
    MAPLE_RIBBON,
    PAULOWNIA_CHAFF_1,
    PAULOWNIA_CHAFF_2,
    PAULOWNIA_PHOENIX,
    PAULOWNIA_YELLOW,
    PEONY_BUTTERFLIES,
    PEONY_CHAFF_1,
    PEONY_CHAFF_2,
    PEONY_RIBBON,
    PINE_CHAFF_1,
    PINE_CHAFF_2,
    PINE_CRANE,
    PINE_RIBBON,
    PLUM_CHAFF_1,
    PLUM_CHAFF_2,
    PLUM_RIBBON,
    PLUM_WARBLER,
    SUSUKI_CHAFF_1,
    SUSUKI_CHAFF_2,
    SUSUKI_GEESE,
    SUSUKI_MOON,
    WILLOW_LIGHTNING,
    WILLOW_RAIN_MAN,
    WILLOW_RIBBON,
    WILLOW_SWALLOW,
    WISTERIA_CHAFF_1,
    WISTERIA_CHAFF_2,
    WISTERIA_CUCKOO,
    WISTERIA_RIBBON,
    build_deck,
    month_of,
)

from simcore.cards import ids_of, mask_of
from simcore.games.enshu import enums as E
from simcore.games.enshu.compile import compile_rules
from simcore.games.enshu.reference import DealError
from simcore.games.enshu.replay import DecisionError, replay_deck
from simcore.rules.loader import load_rules

NO, YES = "no", "yes"


def compiled(name: str, **options):
    return compile_rules(load_rules(name, {key.replace("__", "."): value for key, value in options.items()}))


def yaku_keys(c, bits: int) -> set[str]:
    return {c.rules.yaku[i].key for i in ids_of(bits)}


def teyaku_keys(c, bits: int) -> set[str]:
    return {c.rules.teyaku[i].key for i in ids_of(bits)}


def reason(result) -> str:
    return E.END_REASONS[result.end_reason]


# --- five turns -----------------------------------------------------------------------------------

# Idle cards (held, never played): Animals, Brights and Ribbons before chaff, so no junk teyaku.
IDLE_PREFERENCE = [
    PLUM_WARBLER, CHERRY_CURTAIN, WISTERIA_CUCKOO, IRIS_BRIDGE, PEONY_BUTTERFLIES, CLOVER_BOAR, SUSUKI_GEESE,
    CHRYS_SAKE_CUP, MAPLE_DEER, WILLOW_SWALLOW, PINE_CRANE, PAULOWNIA_PHOENIX, WILLOW_RAIN_MAN,
    SUSUKI_MOON, IRIS_RIBBON, CLOVER_RIBBON, WISTERIA_RIBBON, MAPLE_RIBBON, PEONY_RIBBON, CHRYS_RIBBON,
    PINE_RIBBON, PLUM_RIBBON, CHERRY_RIBBON, WILLOW_RIBBON,
]
IDLE_PREFERENCE += [c_ for c_ in range(48) if c_ not in IDLE_PREFERENCE]


def fill_hand(hand: list[int], size: int, taken: set[int]) -> list[int]:
    """``hand`` completed with idle cards, at most two of a month (so no teyaku)."""
    out = list(hand)
    for most in (1, 2):
        for card in IDLE_PREFERENCE:
            if len(out) == size:
                break
            if card not in taken and sum(month_of(x) == month_of(card) for x in out) < most:
                out.append(card)
                taken.add(card)
    assert len(out) == size
    return out


def five_turns(c, seat0_turns, discards, extra_field=(), decisions_before=(), choices=None):
    """Play the five-turn shape and return the result.

    ``seat0_turns`` = [(play, taken field card), (turned card, taken field card)] for turns 1,
    3 and 5; ``discards`` = seat 1's play and turned card on turns 2 and 4 (to the field).
    ``choices`` maps a turn's card to the field card it takes when it matches two.
    """
    field = [taken for _, taken in seat0_turns] + list(extra_field)
    plays0 = [seat0_turns[i][0] for i in (0, 2, 4)]
    draws0 = [seat0_turns[i][0] for i in (1, 3, 5)]
    plays1, draws1 = [discards[0], discards[2]], [discards[1], discards[3]]
    size = c.rules.deal_hand
    taken = set(field) | set(plays0) | set(draws0) | set(discards)
    hand0 = fill_hand(plays0, size, taken)
    hand1 = fill_hand(plays1, size, taken)
    draw_top = [draws0[0], draws1[0], draws0[1], draws1[1], draws0[2]]
    deck = build_deck(field, [hand0, hand1], draw_top)
    choices = choices or {}
    decisions = list(decisions_before)
    for play, turned in [(plays0[0], draws0[0]), (plays1[0], None), (plays0[1], draws0[1]), (plays1[1], None),
                         (plays0[2], draws0[2])]:
        decisions.append(play)
        for card in (play, turned):
            if card in choices:
                decisions.append(choices[card])
    return replay_deck(c, deck, decisions)


C2_RAISES = [NO, NO, NO, NO]  # mizu-kotsu for seats 0 and 1, then kotsu for seats 0 and 1
AKATAN_FIRST = (PINE_RIBBON, PINE_CHAFF_1)
AKATAN_SECOND = (PLUM_RIBBON, PLUM_CHAFF_1)
AKATAN_LAST = (CHERRY_RIBBON, CHERRY_CHAFF_1)
DEER_TAKES_MAPLE = (MAPLE_DEER, MAPLE_CHAFF_1)


# Each case: seat 0's turns 1, 3 and 5 (play, turned card), seat 1's four discards, seat 0's
# expected card points (Brights at 30) and yaku, and capture choices.
DEKIYAKU_CASES = {
    # Moon 30 + Cuckoo 10 + three poetry ribbons 15 + Deer 10 = 65; Tsukihoto 50.
    "tsukihoto": ([AKATAN_FIRST, (SUSUKI_MOON, SUSUKI_CHAFF_1), AKATAN_SECOND, (WISTERIA_CUCKOO, WISTERIA_CHAFF_1),
                   AKATAN_LAST, DEER_TAKES_MAPLE],
                  [IRIS_RIBBON, PEONY_CHAFF_1, CLOVER_CHAFF_1, CHRYS_CHAFF_1], 65, {"akatan", "tsukihoto"}, 50, {}),
    # Boar 10 + Butterflies 10 + ribbons 15 + Deer 10 = 45; Shishibo 50.
    "shishibo": ([AKATAN_FIRST, (CLOVER_BOAR, CLOVER_CHAFF_1), AKATAN_SECOND, (PEONY_BUTTERFLIES, PEONY_CHAFF_1),
                  AKATAN_LAST, DEER_TAKES_MAPLE],
                 [WISTERIA_RIBBON, SUSUKI_CHAFF_1, CHRYS_CHAFF_1, PAULOWNIA_CHAFF_1], 45, {"akatan", "shishibo"}, 50, {}),
    # Boar 10 + Rain Man 10 (an Animal) + ribbons 15 + Deer 10 = 45; Shishichu 50.
    "shishichu": ([AKATAN_FIRST, (CLOVER_BOAR, CLOVER_CHAFF_1), AKATAN_SECOND, (WILLOW_RAIN_MAN, WILLOW_LIGHTNING),
                   AKATAN_LAST, DEER_TAKES_MAPLE],
                  [WISTERIA_RIBBON, SUSUKI_CHAFF_1, CHRYS_CHAFF_1, PAULOWNIA_CHAFF_1], 45, {"akatan", "shishichu"}, 50, {}),
    # Boar, Butterflies, Rain Man 30 + ribbons 15 = 45 (Akatan completes on the turned card);
    # Sokuyaku 100 supersedes Shishibo and Shishichu (enshu.sokuyaku_stacking = supersede).
    "sokuyaku": ([AKATAN_FIRST, (CLOVER_BOAR, CLOVER_CHAFF_1), AKATAN_SECOND, (PEONY_BUTTERFLIES, PEONY_CHAFF_1),
                  (WILLOW_RAIN_MAN, WILLOW_LIGHTNING), AKATAN_LAST],
                 [WISTERIA_RIBBON, SUSUKI_CHAFF_1, CHRYS_CHAFF_1, PAULOWNIA_CHAFF_1], 45, {"akatan", "sokuyaku"}, 100, {}),
    # The turned Bridge matches two Iris on the field and takes the ribbon; the Iris chaff played
    # on turn 3 takes the other.  Bridge 10 + Iris ribbon 5 + ribbons 15 + Deer 10 = 40; Negishi 50.
    "negishi": ([AKATAN_FIRST, (IRIS_BRIDGE, IRIS_RIBBON), (IRIS_CHAFF_2, IRIS_CHAFF_1), AKATAN_SECOND,
                 AKATAN_LAST, DEER_TAKES_MAPLE],
                [WISTERIA_RIBBON, PEONY_CHAFF_1, CLOVER_CHAFF_1, SUSUKI_CHAFF_1], 40, {"akatan", "negishi"}, 50,
                {IRIS_BRIDGE: IRIS_RIBBON}),
    # Sake Cup 10 + blue ribbon 5 + ribbons 15 + Deer 10 = 40; Kikushi 50.
    "kikushi": ([AKATAN_FIRST, (CHRYS_SAKE_CUP, CHRYS_RIBBON), (CHRYS_CHAFF_2, CHRYS_CHAFF_1), AKATAN_SECOND,
                 AKATAN_LAST, DEER_TAKES_MAPLE],
                [WISTERIA_RIBBON, PEONY_CHAFF_1, CLOVER_CHAFF_1, SUSUKI_CHAFF_1], 40, {"akatan", "kikushi"}, 50,
                {CHRYS_SAKE_CUP: CHRYS_RIBBON}),
    # Phoenix 30 + ribbons 15 + Deer 10 = 55; Getashi 50.
    "getashi": ([AKATAN_FIRST, (PAULOWNIA_PHOENIX, PAULOWNIA_YELLOW), (PAULOWNIA_CHAFF_2, PAULOWNIA_CHAFF_1),
                 AKATAN_SECOND, AKATAN_LAST, DEER_TAKES_MAPLE],
                [WISTERIA_RIBBON, PEONY_CHAFF_1, CLOVER_CHAFF_1, SUSUKI_CHAFF_1], 55, {"akatan", "getashi"}, 50,
                {PAULOWNIA_PHOENIX: PAULOWNIA_YELLOW}),
}


@pytest.mark.parametrize("case", sorted(DEKIYAKU_CASES))
def test_every_points_dekiyaku_and_the_score_formula_of_variant_c(case):
    turns, discards, cards, yaku, points, choices = DEKIYAKU_CASES[case]
    c = compiled("enshu-c", enshu__players=2)
    result = five_turns(c, turns, discards, decisions_before=C2_RAISES, choices=choices)
    expected_pile = {card for pair in turns for card in pair}
    assert set(ids_of(result.captured[0])) == expected_pile
    assert result.captured[1] == 0
    assert yaku_keys(c, result.yaku[0]) == yaku
    assert result.card_points == [cards, 0]
    assert result.yaku_points == [points, 0]
    # Akatan stops the round at the end of turn 5 and doubles the maker's score (3.3 step 8);
    # M = 1 (no Bright on the field, no kotsu).  Score = (cards - opponents' yaku) x M x U.
    assert reason(result) == "uchikiri" and result.end_turn == 5 and result.winner == 0
    assert yaku_keys(c, result.stopping_yaku) == {"akatan"}
    assert result.multiplier == 1
    assert result.yaku_multiplier == [2, 1]
    assert result.score == [cards * 1 * 2, (0 - points) * 1]
    # Seat 1 pays the winner's score (3.3 step 12).
    assert result.payoff == [2 * cards, -2 * cards]


def test_sokuyaku_additive_counts_all_three_yaku():
    turns, discards, _, _, _, _ = DEKIYAKU_CASES["sokuyaku"]
    c = compiled("enshu-c", enshu__players=2, enshu__sokuyaku_stacking="additive")
    result = five_turns(c, turns, discards, decisions_before=C2_RAISES)
    assert yaku_keys(c, result.yaku[0]) == {"akatan", "sokuyaku", "shishibo", "shishichu"}
    assert result.yaku_points[0] == 200  # 100 + 50 + 50
    assert result.score[1] == -200


def test_aotan_stops_the_round_and_doubles():
    # Peony, Chrysanthemum and Maple blue ribbons; Geese 10, Wisteria ribbon 5, Crane 30 turned
    # on turn 5: 5 + 10 + 5 + 5 + 5 + 30 = 60, doubled: 120.
    turns = [(PEONY_RIBBON, PEONY_CHAFF_1), (SUSUKI_GEESE, SUSUKI_CHAFF_1), (CHRYS_RIBBON, CHRYS_CHAFF_1),
             (WISTERIA_RIBBON, WISTERIA_CHAFF_1), (MAPLE_RIBBON, MAPLE_CHAFF_1), (PINE_CRANE, PINE_CHAFF_1)]
    c = compiled("enshu-c", enshu__players=2)
    result = five_turns(c, turns, [PLUM_CHAFF_1, CHERRY_CHAFF_1, CLOVER_CHAFF_1, WILLOW_SWALLOW],
                        decisions_before=C2_RAISES)
    assert yaku_keys(c, result.stopping_yaku) == {"aotan"}
    assert result.card_points[0] == 60
    assert result.score == [120, 0]
    assert result.payoff == [120, -120]


def test_four_brights_stop_on_turn_three_and_triple():
    # Crane and Curtain on turn 1, Moon and Phoenix on turn 3: Shiko, x3; 4 x 30 = 120 -> 360.
    c = compiled("enshu-c", enshu__players=2)
    field = [PINE_CHAFF_1, CHERRY_CHAFF_1, SUSUKI_CHAFF_1, PAULOWNIA_CHAFF_1, IRIS_CHAFF_1, MAPLE_CHAFF_1]
    taken = set(field) | {PINE_CRANE, SUSUKI_MOON, CHERRY_CURTAIN, PAULOWNIA_PHOENIX, PLUM_CHAFF_1, WISTERIA_CHAFF_1}
    hand0 = fill_hand([PINE_CRANE, SUSUKI_MOON], 7, taken)
    hand1 = fill_hand([PLUM_CHAFF_1], 7, taken)
    deck = build_deck(field, [hand0, hand1], [CHERRY_CURTAIN, WISTERIA_CHAFF_1, PAULOWNIA_PHOENIX])
    result = replay_deck(c, deck, [*C2_RAISES, PINE_CRANE, PLUM_CHAFF_1, SUSUKI_MOON])
    assert result.end_turn == 3 and result.winner == 0
    assert yaku_keys(c, result.stopping_yaku) == {"shiko"}
    assert result.card_points[0] == 120
    assert result.score == [360, 0] and result.payoff == [360, -360]


TWO_STOPPERS = [(CHERRY_CURTAIN, CHERRY_RIBBON), (SUSUKI_MOON, SUSUKI_CHAFF_1), (PAULOWNIA_PHOENIX, PAULOWNIA_CHAFF_1),
                (PLUM_RIBBON, PLUM_CHAFF_1), (PINE_CRANE, PINE_RIBBON), DEER_TAKES_MAPLE]
TWO_STOPPER_DISCARDS = [WISTERIA_CHAFF_1, IRIS_CHAFF_1, PEONY_CHAFF_1, CLOVER_CHAFF_1]


@pytest.mark.parametrize(("combo", "check", "cards", "u"), [
    # The Crane played on turn 5 takes the Pine ribbon: Shiko and Akatan at once.
    # 4 Brights 120 + 3 ribbons 15 + Deer 10 = 145.  product: 3 x 2 = 6; max: 3.
    ("product", "end_of_turn", 145, 6),
    ("max", "end_of_turn", 145, 3),
    # after_each_capture stops before the Deer is turned: 135.
    ("product", "after_each_capture", 135, 6),
])
def test_two_uchikiri_yaku_in_one_turn(combo, check, cards, u):
    c = compiled("enshu-c", enshu__players=2, enshu__c__uchikiri_combo=combo, enshu__uchikiri_check=check)
    result = five_turns(c, TWO_STOPPERS, TWO_STOPPER_DISCARDS, decisions_before=C2_RAISES)
    assert yaku_keys(c, result.stopping_yaku) == {"shiko", "akatan"}
    assert result.card_points[0] == cards
    assert result.yaku_multiplier[0] == u
    assert result.score[0] == cards * u
    assert result.payoff == [cards * u, -cards * u]


# --- variant W with the five-turn shape ---------------------------------------------------------------


def w_five_turns(c, turns, discards, decisions=()):
    # Two players hold 8 cards and the field 8 (docs/enshu.md#a-round): two idle field cards.
    return five_turns(c, turns, discards, extra_field=[WILLOW_SWALLOW, WILLOW_RAIN_MAN], decisions_before=decisions)


def test_w_uchikiri_settlement():
    # Akatan is worth 2 stakes in W; total_k: seat 1 pays 2 in all (3.1 step 5), points void.
    turns, discards, *_ = DEKIYAKU_CASES["tsukihoto"]
    for payment, loss in [("total_k", 2), ("ante_plus_k", 3)]:
        c = compiled("enshu-w", enshu__players=2, enshu__w__uchikiri_payment=payment)
        result = w_five_turns(c, turns, discards)
        assert reason(result) == "uchikiri" and result.winner == 0
        assert result.payoff == [loss, -loss]
        assert result.score == [0, 0]
        # Card points still recorded, Brights at 20: 20 + 10 + 15 + 10 = 55.
        assert result.card_points[0] == 55 and result.yaku_points[0] == 50


def test_w_two_stoppers_in_one_turn():
    # Shiko (3) and Akatan (2) on turn 5: sum 5 stakes (default), max 3, product 6.
    for combo, k in [("sum", 5), ("max", 3), ("product", 6)]:
        c = compiled("enshu-w", enshu__players=2, enshu__w__uchikiri_combo=combo)
        result = w_five_turns(c, TWO_STOPPERS, TWO_STOPPER_DISCARDS)
        assert result.payoff == [k, -k]


def test_w_triplet_upgrades_the_four_of_its_month():
    # Seat 0 holds three Iris and exposes the Triplet (50 points).  Turn 1 its Bridge takes the
    # Iris chaff on the field; turn 3 the Iris ribbon goes to the field; turn 5 the last Iris
    # takes it: Negishi, worth 100 for the declarer of an Iris triplet (3.1 step 6).
    c = compiled("enshu-w", enshu__players=2)
    field = [IRIS_CHAFF_1, PINE_CHAFF_1, PLUM_CHAFF_1, CHERRY_CHAFF_1, WILLOW_SWALLOW, WILLOW_RAIN_MAN,
             MAPLE_CHAFF_1, SUSUKI_CHAFF_2]
    taken = set(field) | {IRIS_BRIDGE, IRIS_RIBBON, IRIS_CHAFF_2, PINE_RIBBON, PLUM_RIBBON, CHERRY_RIBBON,
                          WISTERIA_CHAFF_1, PEONY_CHAFF_1, CLOVER_CHAFF_1, CHRYS_CHAFF_1}
    hand0 = fill_hand([IRIS_BRIDGE, IRIS_RIBBON, IRIS_CHAFF_2], 8, taken)
    hand1 = fill_hand([WISTERIA_CHAFF_1, CLOVER_CHAFF_1], 8, taken)
    deck = build_deck(field, [hand0, hand1], [PINE_RIBBON, PEONY_CHAFF_1, PLUM_RIBBON, CHRYS_CHAFF_1, CHERRY_RIBBON])
    decisions = ["sanbon:5", IRIS_BRIDGE, WISTERIA_CHAFF_1, IRIS_RIBBON, CLOVER_CHAFF_1, IRIS_CHAFF_2]
    result = replay_deck(c, deck, decisions)
    assert teyaku_keys(c, result.teyaku_declared[0]) == {"sanbon"}
    assert ids_of(result.exposed[0]) == sorted([IRIS_BRIDGE, IRIS_RIBBON, IRIS_CHAFF_2])
    assert yaku_keys(c, result.yaku[0]) == {"negishi", "akatan"}
    assert result.yaku_points[0] == 100
    assert result.teyaku_points[0] == 50
    assert reason(result) == "uchikiri" and result.payoff == [2, -2]


# --- variant W: stopping teyaku --------------------------------------------------------------------

FOUR_PINE = [PINE_CRANE, PINE_RIBBON, PINE_CHAFF_1, PINE_CHAFF_2]
THREE_PLUM = [PLUM_WARBLER, PLUM_RIBBON, PLUM_CHAFF_1]
FOUR_MAPLE = [MAPLE_DEER, MAPLE_RIBBON, MAPLE_CHAFF_1, MAPLE_CHAFF_2]


@pytest.mark.parametrize(("hands", "winner", "k", "stopper"), [
    # Seat 1 Four-Three (10 stakes) beats seat 2's Four of a Kind (2 stakes).
    ({1: FOUR_PINE + THREE_PLUM, 2: FOUR_MAPLE}, 1, 10, "shisou"),
    # Two Fours of a Kind: equal values, the earliest seat in turn order from the dealer.
    ({1: FOUR_PINE, 2: FOUR_MAPLE}, 1, 2, "teshi"),
    ({0: FOUR_MAPLE, 2: FOUR_PINE + THREE_PLUM}, 2, 10, "shisou"),
    ({0: FOUR_MAPLE, 1: FOUR_PINE}, 0, 2, "teshi"),
])
def test_w_stopping_teyaku(hands, winner, k, stopper):
    c = compiled("enshu-w", enshu__players=3)
    taken = {card for hand in hands.values() for card in hand}
    field = [IRIS_CHAFF_1, PEONY_CHAFF_1, CLOVER_CHAFF_1, SUSUKI_CHAFF_1, CHRYS_CHAFF_1, PAULOWNIA_CHAFF_1]
    taken |= set(field)
    full = [fill_hand(hands.get(seat, []), 7, taken) for seat in range(3)]
    result = replay_deck(c, build_deck(field, full), [])
    assert reason(result) == "teyaku_stop" and result.end_turn == 0
    assert result.winner == winner
    assert teyaku_keys(c, result.stopping_teyaku) == {stopper}
    # Every stopping teyaku is exposed; total_k: each other player pays k stakes in all.
    for seat, hand in hands.items():
        assert result.teyaku_declared[seat] != 0
        assert result.exposed[seat] == mask_of(hand)
    expected = [-k] * 3
    expected[winner] = 2 * k
    assert result.payoff == expected


# --- variant C, three players: the score formula, triplet bonus, teyaku, Fuke --------------------------

# Seat 0 captures Pine, Plum and Cherry ribbons over turns 1 and 4 (Akatan stops the round on
# turn 4); seat 1 and seat 2 play on turns 2 and 3.  The Cherry Curtain lies on the field.
C3_FIELD = [PINE_CHAFF_1, PLUM_CHAFF_1, CHERRY_CURTAIN, SUSUKI_CHAFF_1, WISTERIA_CHAFF_1, MAPLE_CHAFF_1]
C3_SEAT0 = [PINE_RIBBON, CHERRY_RIBBON, IRIS_BRIDGE, CLOVER_RIBBON, MAPLE_DEER, WILLOW_RIBBON, PINE_CHAFF_2]
C3_SEAT1 = [SUSUKI_MOON, IRIS_RIBBON, CLOVER_CHAFF_1, CHRYS_RIBBON, WILLOW_SWALLOW, PEONY_BUTTERFLIES, MAPLE_CHAFF_2]
C3_SEAT2 = [PAULOWNIA_YELLOW, PAULOWNIA_CHAFF_1, PAULOWNIA_CHAFF_2, CLOVER_BOAR, PEONY_RIBBON, CHERRY_CHAFF_2,
            IRIS_CHAFF_1]


def c3_scenario(c, *, seat1_turned=WISTERIA_CUCKOO, seat2_teyaku="sanbon:12", raises=(YES, NO, NO, NO, YES, NO)):
    """Turn 1: seat 0's Pine ribbon takes the Pine chaff, the turned Plum ribbon the Plum chaff.
    Turn 2: seat 1's Moon takes the Susuki chaff, the turned card the Wisteria chaff.
    Turn 3: seat 2's Paulownia chaff goes to the field; the turned Phoenix takes it.
    Turn 4: seat 0's Cherry ribbon takes the Curtain (Akatan); the turned Iris chaff goes to the field.
    """
    deck = build_deck(C3_FIELD, [C3_SEAT0, C3_SEAT1, C3_SEAT2],
                      [PLUM_RIBBON, seat1_turned, PAULOWNIA_PHOENIX, IRIS_CHAFF_2])
    decisions = [*raises[:3], *raises[3:], seat2_teyaku, PINE_RIBBON, SUSUKI_MOON, PAULOWNIA_YELLOW, CHERRY_RIBBON]
    return replay_deck(c, deck, decisions)


def test_c_score_formula_with_triplet_bonus():
    # Seat 0 declares mizu-kotsu, seat 1 kotsu: M = 1 + 1 (Curtain on the field) + 1 + 1 = 4.
    # Piles: seat 0 Pine/Plum/Cherry ribbons 15 + Curtain 30 = 45, Akatan (x2);
    #        seat 1 Moon 30 + Cuckoo 10 = 40, Tsukihoto 50;
    #        seat 2 Phoenix 30 + yellow chaff 0 = 30; it declared the Paulownia Triplet (50) and
    #        captured the fourth Paulownia (the Phoenix): bonus 100 -> 150.
    # score 0 = (45 - (50 + 150)) x 4 x 2 = -1240; score 1 = (40 - (0 + 150)) x 4 = -440;
    # score 2 = (30 - (0 + 50)) x 4 = -80.  The Akatan maker wins; a negative score pays 0.
    c = compiled("enshu-c")
    result = c3_scenario(c)
    assert result.multiplier == 4 and result.field_brights == 1
    assert result.mizu_kotsu == [True, False, False] and result.kotsu == [False, True, False]
    assert result.card_points == [45, 40, 30]
    assert result.yaku_points == [0, 50, 0]
    assert result.teyaku_points == [0, 0, 150]
    assert teyaku_keys(c, result.teyaku_declared[2]) == {"sanbon"}
    assert result.exposed[2] == mask_of([PAULOWNIA_YELLOW, PAULOWNIA_CHAFF_1, PAULOWNIA_CHAFF_2])
    assert result.score == [-1240, -440, -80]
    assert result.winner == 0 and reason(result) == "uchikiri" and result.end_turn == 4
    assert result.payoff == [0, 0, 0]


@pytest.mark.parametrize(("options", "teyaku_2", "score", "payoff"), [
    # The winner's negative score is paid as it stands: each other player receives 1240.
    ({"enshu.c.negative_score": "literal"}, 150, [-1240, -440, -80], [-2480, 1240, 1240]),
    # zero_sum adds (n - 1) x own yaku: seat 1 (40 + 100 - 150) x 4 = -40, seat 2 (30 + 300 - 50) x 4.
    ({"enshu.c.score_formula": "zero_sum"}, 150, [-1240, -40, 1120], [0, 0, 0]),
    # Only the Phoenix and one triplet card are captured: no bonus with all_four_in_own_pile.
    ({"enshu.c.triplet_bonus_condition": "all_four_in_own_pile"}, 50, [-440, -40, -80], [0, 0, 0]),
    # upgrade mode: no separate bonus (and no Getashi to upgrade).
    ({"enshu.c.triplet_bonus_mode": "upgrade"}, 50, [-440, -40, -80], [0, 0, 0]),
])
def test_c_score_formula_options(options, teyaku_2, score, payoff):
    c = compile_rules(load_rules("enshu-c", options))
    result = c3_scenario(c)
    assert result.teyaku_points[2] == teyaku_2
    assert result.score == score
    assert result.payoff == payoff


def test_c_payments_to_the_winner():
    # Seat 1 turns the Wisteria ribbon (no Tsukihoto: 30 + 5 = 35) and seat 2 declines its triplet.
    # score 0 = 45 x 4 x 2 = 360, score 1 = 35 x 4 = 140, score 2 = 30 x 4 = 120.
    # Every other active player pays the winner's score: the winner receives 2 x 360.
    c = compiled("enshu-c")
    result = c3_scenario(c, seat1_turned=WISTERIA_RIBBON, seat2_teyaku=NO)
    assert result.teyaku_declared == [0, 0, 0] and result.teyaku_dealt[2] != 0
    assert result.score == [360, 140, 120]
    assert result.payoff == [720, -360, -360]


def test_fuke_on_uchikiri_option_and_willow_exclusion():
    # Seat 1 plays the Geese instead of the Moon and turns the Swallow onto the Lightning:
    # card points 10 + 10 = 20, but 10 without Willow cards, so seat 1 may declare Fuke (<= 15).
    # Seat 0 (45) and seat 2 (Phoenix 30) may not.  With fuke_on_uchikiri the Fuke voids the round.
    field = [PINE_CHAFF_1, PLUM_CHAFF_1, CHERRY_CURTAIN, SUSUKI_CHAFF_1, WILLOW_LIGHTNING, MAPLE_CHAFF_1]
    seat1 = [SUSUKI_GEESE, IRIS_RIBBON, CLOVER_CHAFF_1, CHRYS_RIBBON, WISTERIA_CUCKOO, PEONY_BUTTERFLIES,
             MAPLE_CHAFF_2]
    deck = build_deck(field, [C3_SEAT0, seat1, C3_SEAT2], [PLUM_RIBBON, WILLOW_SWALLOW, PAULOWNIA_PHOENIX,
                                                            IRIS_CHAFF_2])
    plays = [PINE_RIBBON, SUSUKI_GEESE, PAULOWNIA_YELLOW, CHERRY_RIBBON]
    raises = [NO] * 6
    c = compiled("enshu-c", enshu__c__fuke_on_uchikiri="true")
    result = replay_deck(c, deck, [*raises, NO, *plays, YES])
    assert result.card_points == [45, 20, 30]
    assert reason(result) == "fuke" and result.fuke == 1 and result.winner == -1
    assert result.payoff == [0, 0, 0] and result.score == [0, 0, 0]
    # By default a round stopped by an uchikiri offers no Fuke: M = 2, seat 0 wins 45 x 2 x 2.
    c = compiled("enshu-c")
    result = replay_deck(c, deck, [*raises, NO, *plays])
    assert reason(result) == "uchikiri" and result.fuke == -1
    assert result.score == [180, 40, 60] and result.payoff == [360, -180, -180]


# Seat 2 holds each teyaku hand and plays its Bush Clover card to the field on turn 3.
TEYAKU_HANDS = {
    "shihon": ([WISTERIA_CUCKOO, WISTERIA_RIBBON, WISTERIA_CHAFF_1, WISTERIA_CHAFF_2, CLOVER_BOAR, SUSUKI_MOON,
                PEONY_BUTTERFLIES], CLOVER_BOAR, ["shihon:4"], "shihon:4", 100),
    "shisou": ([WISTERIA_CUCKOO, WISTERIA_RIBBON, WISTERIA_CHAFF_1, WISTERIA_CHAFF_2, CLOVER_BOAR, CLOVER_RIBBON,
                CLOVER_CHAFF_1], CLOVER_CHAFF_1, ["shisou:4:7", "shihon:4", "sanbon:7"], "shisou:4:7", 150),
    "sanbon": ([PEONY_BUTTERFLIES, PEONY_RIBBON, PEONY_CHAFF_1, CLOVER_BOAR, SUSUKI_GEESE, WISTERIA_CUCKOO,
                MAPLE_DEER], CLOVER_BOAR, ["sanbon:6"], "sanbon:6", 50),
    "soppe": ([WISTERIA_CHAFF_1, WISTERIA_CHAFF_2, PEONY_CHAFF_1, PEONY_CHAFF_2, CLOVER_CHAFF_1, SUSUKI_CHAFF_1,
               IRIS_CHAFF_1], CLOVER_CHAFF_1, ["soppe"], "soppe", 100),
    "toichi": ([SUSUKI_GEESE, WISTERIA_CHAFF_1, WISTERIA_CHAFF_2, PEONY_CHAFF_1, PEONY_CHAFF_2, CLOVER_CHAFF_1,
                IRIS_CHAFF_1], CLOVER_CHAFF_1, ["toichi"], "toichi", 50),
    "tanichi": ([WILLOW_RIBBON, WISTERIA_CHAFF_1, WISTERIA_CHAFF_2, PEONY_CHAFF_1, PEONY_CHAFF_2, CLOVER_CHAFF_1,
                 IRIS_CHAFF_1], CLOVER_CHAFF_1, ["tanichi"], "tanichi", 50),
}
# Seat 0 as in the scenario above; seat 1 puts Paulownia chaff and (turned) Maple chaff on the field;
# seat 2 its Bush Clover card and (turned) Chrysanthemum chaff; seat 0 turns an Iris chaff last.
TEYAKU_SEAT0 = [PINE_RIBBON, CHERRY_RIBBON, PLUM_WARBLER, MAPLE_DEER, CHRYS_SAKE_CUP, PAULOWNIA_PHOENIX, PINE_CHAFF_2]
TEYAKU_SEAT1 = [PAULOWNIA_CHAFF_1, PINE_CRANE, CHERRY_CHAFF_2, IRIS_BRIDGE, CHRYS_RIBBON, MAPLE_RIBBON, PLUM_CHAFF_2]
TEYAKU_FIELD = [PINE_CHAFF_1, PLUM_CHAFF_1, CHERRY_CURTAIN, WILLOW_RAIN_MAN, WILLOW_LIGHTNING, WILLOW_SWALLOW]


def teyaku_deal(hand: list[int]) -> list[int]:
    seat0 = [c_ for c_ in TEYAKU_SEAT0 if c_ not in hand]
    taken = set(TEYAKU_FIELD) | set(hand) | set(TEYAKU_SEAT1) | set(seat0) | set(TEYAKU_DRAWS)
    return build_deck(TEYAKU_FIELD, [fill_hand(seat0, 7, taken), TEYAKU_SEAT1, hand], TEYAKU_DRAWS)


TEYAKU_DRAWS = [PLUM_RIBBON, MAPLE_CHAFF_1, CHRYS_CHAFF_1, IRIS_CHAFF_2]


def teyaku_decisions(c, options: list[str], label: str | None, played: int) -> list:
    """No raises; seat 2 declares ``label`` in its group and declines the other group."""
    decisions: list = [NO] * 6
    for group in ("A", "B"):
        if any(c.rules.teyaku_by_key(o.split(":")[0]).group == group for o in options):
            declare = label is not None and c.rules.teyaku_by_key(label.split(":")[0]).group == group
            decisions.append(label if declare else NO)
    return decisions + [PINE_RIBBON, PAULOWNIA_CHAFF_1, played, CHERRY_RIBBON]


@pytest.mark.parametrize("teyaku", sorted(TEYAKU_HANDS))
def test_c_teyaku_declared_and_counted_against_the_opponents(teyaku):
    from simcore.games.enshu.compile import teyaku_options

    hand, played, options, label, value = TEYAKU_HANDS[teyaku]
    c = compiled("enshu-c")
    assert sorted(o.label() for o in teyaku_options(c, mask_of(hand), None)) == sorted(options)
    result = replay_deck(c, teyaku_deal(hand), teyaku_decisions(c, options, label, played))
    assert teyaku in teyaku_keys(c, result.teyaku_dealt[2])
    assert teyaku_keys(c, result.teyaku_declared[2]) == {teyaku}
    assert result.teyaku_points[2] == value
    # M = 1 + 1 (the Curtain); seat 0: 3 ribbons 15 + Curtain 30 = 45, Akatan x2; nobody else
    # captured.  score 0 = (45 - value) x 2 x 2 < 0, so the winner (seat 0) is paid nothing.
    assert result.multiplier == 2
    assert result.card_points == [45, 0, 0]
    assert result.score == [(45 - value) * 2 * 2, -value * 2, 0]
    assert result.payoff == [0, 0, 0]


def test_c_two_groups_declared_together():
    # Three Wisteria with the Cuckoo and four other junk: Triplet (A) and Lone Animal (B), 100.
    hand = [WISTERIA_CUCKOO, WISTERIA_CHAFF_1, WISTERIA_CHAFF_2, PEONY_CHAFF_1, PEONY_CHAFF_2, CLOVER_CHAFF_1,
            IRIS_CHAFF_1]
    c = compiled("enshu-c")
    deck = teyaku_deal(hand)
    result = replay_deck(c, deck, [NO] * 6 + ["sanbon:4", "toichi", PINE_RIBBON, PAULOWNIA_CHAFF_1, CLOVER_CHAFF_1,
                                           CHERRY_RIBBON])
    assert teyaku_keys(c, result.teyaku_declared[2]) == {"sanbon", "toichi"}
    assert result.teyaku_points[2] == 100
    # Group B exposes the whole hand (enshu.c.exposure = all_composition_cards) ...
    assert result.exposed[2] == mask_of(hand)
    # ... or only the junk with junk_only_for_group_B (the Cuckoo stays hidden).
    c = compiled("enshu-c", enshu__c__exposure="junk_only_for_group_B")
    decisions = [NO] * 6 + [NO, "toichi", PINE_RIBBON, PAULOWNIA_CHAFF_1, CLOVER_CHAFF_1, CHERRY_RIBBON]
    result = replay_deck(c, deck, decisions)
    assert teyaku_keys(c, result.teyaku_declared[2]) == {"toichi"}
    assert result.exposed[2] == mask_of(hand) & ~mask_of([WISTERIA_CUCKOO])


def test_fuke_is_refused_to_a_player_who_exposed_a_teyaku():
    # With fuke_on_uchikiri, seats 1 and 2 end with nothing captured (0 <= 15).  Seat 2 declared
    # All Junk, so only seat 1 is asked; had seat 2 declined, both would be (3.3 step 11).
    hand, played, options, label, _ = TEYAKU_HANDS["soppe"]
    c = compiled("enshu-c", enshu__c__fuke_on_uchikiri="true")
    deck = teyaku_deal(hand)
    result = replay_deck(c, deck, teyaku_decisions(c, options, label, played) + [NO])
    assert [e["seat"] for e in result.events if e["type"] == "fuke"] == [1]
    result = replay_deck(c, deck, teyaku_decisions(c, options, None, played) + [NO, YES])
    assert [e["seat"] for e in result.events if e["type"] == "fuke"] == [1, 2]
    assert result.fuke == 2 and reason(result) == "fuke" and result.payoff == [0, 0, 0]


# --- variant C with 4 and 5 players: the dropout phase ----------------------------------------------------

DROP_FIELD = [PINE_CHAFF_1, PLUM_CHAFF_1, CHERRY_CHAFF_1, SUSUKI_MOON, WILLOW_RAIN_MAN, WILLOW_SWALLOW]
DROP_DISCARDS = [WISTERIA_CHAFF_1, PEONY_CHAFF_1, CLOVER_CHAFF_1, CHRYS_CHAFF_1]


def dropout_deal(players: int, acting: int, others: list[int]):
    """A deal for the dropout tests, in dealing order from seat 0 (the dealer).

    The acting dealer holds the Pine and Cherry ribbons; the two other active seats ``others``
    (in turn order) play the Wisteria and Bush Clover chaff to the field; the dropped seats hold
    cards that are never played.  Returns (deck, the draw pile's top four after the dropout):
    the Plum ribbon for the acting dealer's first turn, the Peony and Chrysanthemum chaff for the
    two others, and an idle Iris chaff for the acting dealer's second turn.
    """
    top = [PLUM_RIBBON, DROP_DISCARDS[1], DROP_DISCARDS[3], IRIS_CHAFF_2]
    idle = [SUSUKI_GEESE, SUSUKI_CHAFF_1, SUSUKI_CHAFF_2, WILLOW_RIBBON, WILLOW_LIGHTNING]
    taken = set(DROP_FIELD) | set(top) | set(DROP_DISCARDS) | {PINE_RIBBON, CHERRY_RIBBON} | set(idle)
    hands: list[list[int] | None] = [None] * players
    hands[acting] = fill_hand([PINE_RIBBON, CHERRY_RIBBON], 7, taken)
    for seat, discard in zip(others, DROP_DISCARDS[0::2], strict=True):
        hands[seat] = fill_hand([discard], 7, taken)
    # The dropped hands: cards of the Susuki and Willow months (never played) and other idle cards.
    idle += [c_ for c_ in range(48) if c_ not in taken]
    for seat in range(players):
        if hands[seat] is None:
            hands[seat] = [idle.pop(0) for _ in range(7)]
    return build_deck(DROP_FIELD, hands), top


def redraw_after_dropout(deck: list[int], players: int, dropped: list[int], top: list[int]) -> list[int]:
    """The 21-card pile after the dropout (draw pile and dropped hands), ``top`` turned first."""
    pile = deck[6 + 7 * players:]
    for seat in dropped:
        pile += deck[6 + 7 * seat: 13 + 7 * seat]
    assert len(pile) == 21 and set(top) <= set(pile)
    return top + sorted(set(pile) - set(top))


def test_dropout_with_four_players():
    # Mizu-kotsu: seat 1.  The Moon lies on the field: M = 1 + 1 + 1 = 3; nobody declares kotsu.
    # Pass 1: the dealer (seat 0) drops; seat 1 joins without a decision (mizu-kotsu); three remain,
    # so seats 2 and 3 are in without a decision.  Seat 1 takes the dealer's rights (3.3 step 6).
    # The draw pile (14) and seat 0's hand (7) make the 21-card pile.
    # Turn 1 seat 1: Pine ribbon takes Pine chaff, the turned Plum ribbon takes Plum chaff;
    # turns 2 and 3: seats 2 and 3 put chaff on the field; turn 4 seat 1: Cherry ribbon takes the
    # Cherry chaff: Akatan.  Score 1 = 15 x M 3 x 2 = 90; seats 2 and 3 pay 90 each, seat 0 nothing.
    c = compiled("enshu-c", enshu__players=4)
    deck, top = dropout_deal(4, 1, [2, 3])
    decisions = [NO, YES, NO, NO] + [NO] * 4 + [NO]
    decisions += [PINE_RIBBON, DROP_DISCARDS[0], DROP_DISCARDS[2], CHERRY_RIBBON]
    result = replay_deck(c, deck, decisions, redraw=redraw_after_dropout(deck, 4, [0], top))
    assert result.active == [False, True, True, True]
    assert result.dealer == 0 and result.first_player == 1
    assert result.dropout_passes == 1 and result.multiplier == 3
    assert result.captured[0] == 0 and result.hand_dealt[0] == mask_of(deck[6:13])
    assert set(ids_of(result.captured[1])) == {PINE_RIBBON, PINE_CHAFF_1, PLUM_RIBBON, PLUM_CHAFF_1,
                                               CHERRY_RIBBON, CHERRY_CHAFF_1}
    assert result.winner == 1 and result.end_turn == 4 and reason(result) == "uchikiri"
    assert result.score == [0, 90, 0, 0]
    assert result.payoff == [0, 180, -90, -90]


def test_dropout_with_five_players_and_a_repeated_pass():
    # No mizu-kotsu; seat 2 declares kotsu: M = 1 + 1 (Moon) + 1 = 3.
    # Pass 1: seat 0 drops, seats 1-4 join: four joined, so M = 4 and the pass repeats among 1-4.
    # Pass 2: seat 1 joins, seat 2 drops: three remain, seats 3 and 4 are in without a decision.
    # Active 1, 3, 4; seat 1 acts as dealer.  Pile: draw 7 + seat 0's 7 + seat 2's 7 = 21.
    # Seat 1 completes Akatan on turn 4: 15 x 4 x 2 = 120, paid by seats 3 and 4.
    c = compiled("enshu-c", enshu__players=5)
    deck, top = dropout_deal(5, 1, [3, 4])
    decisions = [NO] * 5 + [NO, NO, YES, NO, NO] + [NO, YES, YES, YES, YES] + [YES, NO]
    decisions += [PINE_RIBBON, DROP_DISCARDS[0], DROP_DISCARDS[2], CHERRY_RIBBON]
    result = replay_deck(c, deck, decisions, redraw=redraw_after_dropout(deck, 5, [0, 2], top))
    assert result.active == [False, True, False, True, True]
    assert result.kotsu == [False, False, True, False, False]
    assert result.dropout_passes == 2 and result.multiplier == 4
    assert result.first_player == 1
    assert result.score == [0, 120, 0, 0, 0]
    assert result.payoff == [0, 240, 0, -120, -120]


class _Joiner:
    """Joins every pass; declares mizu-kotsu when told; plays like the random policy."""

    def __init__(self, random_policy, mizu: bool) -> None:
        self.random = random_policy
        self.mizu = mizu

    def mizu_kotsu(self, obs):
        return self.mizu

    def kotsu(self, obs):
        return False

    def join(self, obs):
        return True

    def fuke(self, obs):
        return False

    def declare_teyaku(self, obs, group, options):
        return None

    def play(self, obs):
        return self.random.play(obs)

    def choose_capture(self, obs, card, options):
        return self.random.choose_capture(obs, card, options)


def test_dropout_pass_cap_forces_players_out_in_reverse_order():
    # Cap 2: everyone joins twice; after the second pass the joiners who did not declare
    # mizu-kotsu are forced out from the last seat in turn order (seat 3 is mizu-kotsu and stays,
    # seat 2 goes).  M rises once, after the first pass only.
    from simcore.games.enshu.reference import RoundSetup, play_round, seat_policies
    from simcore.policies import parse_policy

    c = compiled("enshu-c", enshu__players=4, enshu__c__dropout_pass_cap=2)
    for round_index in range(5):
        randoms = seat_policies(c, [parse_policy("random")] * 4, 11, round_index)
        policies = [_Joiner(randoms[s], mizu=s == 3) for s in range(4)]
        result = play_round(c, RoundSetup(seed=11, round_index=round_index, dealer=0), policies)
        assert result.active == [True, True, False, True]
        assert result.dropout_passes == 2
        assert result.multiplier == 1 + result.field_brights + 1 + 1
        assert result.payoff[2] == 0 and sum(result.payoff) == 0


# --- misdeals ----------------------------------------------------------------------------------------------


def test_misdeal_explicit_decks_are_refused():
    from simcore.policies import parse_policy

    # W: four cards of one month on the field (3.1 step 2).
    c = compiled("enshu-w")
    deck = build_deck([PINE_CRANE, PINE_RIBBON, PINE_CHAFF_1, PINE_CHAFF_2, PLUM_CHAFF_1, CHERRY_CHAFF_1], [])
    with pytest.raises(DealError, match="four cards of month 1 on the field"):
        replay_deck(c, deck, [])
    # C: three Iris on the field (3.3 step 3).
    c = compiled("enshu-c")
    deck = build_deck([IRIS_BRIDGE, IRIS_RIBBON, IRIS_CHAFF_1, PLUM_CHAFF_1, CHERRY_CHAFF_1, PINE_CHAFF_1], [])
    with pytest.raises(DealError, match="three cards of month 5 on the field"):
        replay_deck(c, deck, [NO] * 3)
    # C: the four Paulownia in seat 2's hand.
    field = [PLUM_CHAFF_1, CHERRY_CHAFF_1, PINE_CHAFF_1, IRIS_CHAFF_1, MAPLE_CHAFF_1, SUSUKI_CHAFF_1]
    four = [PAULOWNIA_PHOENIX, PAULOWNIA_YELLOW, PAULOWNIA_CHAFF_1, PAULOWNIA_CHAFF_2]
    taken = set(field) | set(four)
    hands = [fill_hand([], 7, taken), fill_hand([], 7, taken), fill_hand(four, 7, taken)]
    deck = build_deck(field, hands)
    with pytest.raises(DealError, match="seat 2 holds the four cards of month 12"):
        replay_deck(c, deck, [NO] * 3)
    # With icp_four_check = at_teyaku_active_hands the check waits for the active hands: with 4
    # players and seat 2 dropping out, the deal stands.
    # W keeps the deal (its misdeal is four cards on the field) and seat 2's Four of a Kind stops it.
    result = replay_deck(compiled("enshu-w"), deck, [])
    assert reason(result) == "teyaku_stop" and result.winner == 2
    assert replay_deck(compiled("enshu-w"), deck, None, specs=[parse_policy("random")] * 3).winner == 2


def test_icp_four_at_teyaku_time_only_counts_active_hands():
    field = [PLUM_CHAFF_1, CHERRY_CHAFF_1, PINE_CHAFF_1, IRIS_CHAFF_1, MAPLE_CHAFF_1, SUSUKI_CHAFF_1]
    four = [PAULOWNIA_PHOENIX, PAULOWNIA_YELLOW, PAULOWNIA_CHAFF_1, PAULOWNIA_CHAFF_2]
    hands = [
        [PINE_CRANE, PLUM_WARBLER, CHERRY_CURTAIN, WISTERIA_CUCKOO, IRIS_BRIDGE, PEONY_BUTTERFLIES, CLOVER_BOAR],
        [SUSUKI_MOON, CHRYS_SAKE_CUP, MAPLE_DEER, WILLOW_RAIN_MAN, WILLOW_SWALLOW, PINE_RIBBON, PLUM_RIBBON],
        four + [CHERRY_RIBBON, WISTERIA_RIBBON, IRIS_RIBBON],
        [PEONY_RIBBON, CLOVER_RIBBON, SUSUKI_GEESE, CHRYS_RIBBON, MAPLE_RIBBON, WILLOW_RIBBON, PINE_CHAFF_2],
    ]
    deck = build_deck(field, hands)
    c = compiled("enshu-c", enshu__players=4, enshu__c__icp_four_check="at_teyaku_active_hands")
    raises = [NO] * 8
    # Seat 2 joins: its hand is active, so the deal is redealt (refused for an explicit deck).
    with pytest.raises(DealError, match="seat 2 holds the four cards of month 12"):
        replay_deck(c, deck, raises + [YES, YES, YES, NO])
    # Seat 2 drops: the deal stands (the decisions run out in the play, which is all we need).
    with pytest.raises(DecisionError, match="plays a card"):
        replay_deck(c, deck, raises + [YES, YES, NO])


@pytest.mark.slow
def test_redeals_from_a_seed_leave_valid_deals():
    from simcore.games.enshu.reference import misdeal_at_deal, play_unit
    from simcore.policies import parse_policy

    # W redeals about 0.09 % of deals (four of a month among 6 field cards), C about 1.5 %.
    for name in ("enshu-w", "enshu-c"):
        c = compiled(name)
        redealt = 0
        for r in range(300):
            [result] = play_unit(c, [parse_policy("random")] * 3, 5, r, None)
            assert misdeal_at_deal(c, result.field_dealt, result.hand_dealt) == ""
            redealt += result.redeals > 0
        assert redealt > 0 or name == "enshu-w"


# --- full rounds with paired turns ---------------------------------------------------------------------------


def paired_round(c, field, turns, undrawn, before=(), after=(), dealer=0):
    """Turn ``t`` plays ``turns[t][0]`` to the field and turns ``turns[t][1]``, which takes it back."""
    n = c.players
    hands = [[] for _ in range(n)]
    for t, (played, _) in enumerate(turns):
        hands[(dealer + t) % n].append(played)
    hands = hands[dealer:] + hands[:dealer]  # dealing order starts with the dealer
    deck = build_deck(field, hands, [drawn for _, drawn in turns], undrawn)
    decisions = list(before)
    last_turn = {(dealer + t) % n: t for t in range(len(turns))}
    for t, (played, _) in enumerate(turns):
        if t != last_turn[(dealer + t) % n]:  # a seat's last card is forced
            decisions.append(played)
    decisions += list(after)
    result = replay_deck(c, deck, decisions, dealer=dealer)
    # A list that also writes out each seat's forced last card replays identically.
    spelled = list(before) + [played for played, _ in turns] + list(after)
    assert replay_deck(c, deck, spelled, dealer=dealer).payoff == result.payoff
    piles = [set() for _ in range(n)]
    for t, pair in enumerate(turns):
        piles[(dealer + t) % n] |= set(pair)
    assert [set(ids_of(p)) for p in result.captured] == piles
    return result


# Field: three Willow and three Maple; the Willow ribbon and the last Maple chaff stay in the pile.
PAIRED_FIELD = [WILLOW_RAIN_MAN, WILLOW_SWALLOW, WILLOW_LIGHTNING, MAPLE_DEER, MAPLE_RIBBON, MAPLE_CHAFF_1]
PAIRED_UNDRAWN_EXTRA = [WILLOW_RIBBON, MAPLE_CHAFF_2]


def undrawn_for(turns):
    used = set(PAIRED_FIELD) | {c_ for pair in turns for c_ in pair}
    return PAIRED_UNDRAWN_EXTRA + sorted(set(range(48)) - used - set(PAIRED_UNDRAWN_EXTRA))


# Seat 0 (turns 1, 3, ...): Crane, Moon, Cuckoo, Boar, Butterflies, Cherry ribbon, Iris ribbon.
# Seat 1 (turns 2, 4, ...): Warbler, Pine ribbon, Plum ribbon, Geese, Sake Cup, Peony ribbon,
# Chrysanthemum ribbon.  Each takes the chaff of its month (or the second Iris card).
W_TURNS = [
    (PINE_CRANE, PINE_CHAFF_1), (PLUM_WARBLER, PLUM_CHAFF_1),
    (SUSUKI_MOON, SUSUKI_CHAFF_1), (PINE_RIBBON, PINE_CHAFF_2),
    (WISTERIA_CUCKOO, WISTERIA_CHAFF_1), (PLUM_RIBBON, PLUM_CHAFF_2),
    (CLOVER_BOAR, CLOVER_CHAFF_1), (SUSUKI_GEESE, SUSUKI_CHAFF_2),
    (PEONY_BUTTERFLIES, PEONY_CHAFF_1), (CHRYS_SAKE_CUP, CHRYS_CHAFF_1),
    (CHERRY_RIBBON, CHERRY_CHAFF_1), (PEONY_RIBBON, PEONY_CHAFF_2),
    (IRIS_RIBBON, IRIS_CHAFF_1), (CHRYS_RIBBON, CHRYS_CHAFF_2),
]


def test_w_full_round_the_top_score_takes_the_pot():
    # Seat 0: Crane 20 + Moon 20 + Cuckoo 10 + Boar 10 + Butterflies 10 + 2 ribbons 10 = 80,
    #         Tsukihoto 50 and Shishibo 50: 180.
    # Seat 1: Warbler 10 + Geese 10 + Sake Cup 10 + 4 ribbons 20 = 50 and all four
    #         Chrysanthemums, Kikushi 50: 100 (the Cherry ribbon is seat 0's, so no Akatan; the
    #         Maple ribbon never moves, so no Aotan).
    c = compiled("enshu-w", enshu__players=2, enshu__deal_2p="7_6", enshu__w__stake=5)
    result = paired_round(c, PAIRED_FIELD, W_TURNS, undrawn_for(W_TURNS))
    assert reason(result) == "score" and result.end_turn == 14
    assert result.card_points == [80, 50]
    assert yaku_keys(c, result.yaku[0]) == {"tsukihoto", "shishibo"}
    assert yaku_keys(c, result.yaku[1]) == {"kikushi"}
    assert result.score == [180, 100]
    assert result.winner == 0 and result.payoff == [5, -5]


# Equal scores: each seat takes a Bright, two Animals, three ribbons and chaff (W Brights 20).
TIED_TURNS = [
    (PINE_CRANE, PINE_CHAFF_1), (CHERRY_CURTAIN, CHERRY_CHAFF_1),
    (PLUM_WARBLER, PLUM_CHAFF_1), (SUSUKI_GEESE, SUSUKI_CHAFF_1),
    (PINE_RIBBON, PINE_CHAFF_2), (CHERRY_RIBBON, CHERRY_CHAFF_2),
    (IRIS_BRIDGE, IRIS_CHAFF_1), (CHRYS_SAKE_CUP, CHRYS_CHAFF_1),
    (IRIS_RIBBON, IRIS_CHAFF_2), (CHRYS_RIBBON, CHRYS_CHAFF_2),
    (PEONY_CHAFF_1, PEONY_CHAFF_2), (CLOVER_CHAFF_1, CLOVER_CHAFF_2),
    (PLUM_RIBBON, PLUM_CHAFF_2), (WISTERIA_RIBBON, WISTERIA_CHAFF_1),
]


@pytest.mark.parametrize(("tie", "dealer", "winner", "payoff"), [
    # turn_order: the earliest seat in turn order from the dealer takes the pot (3.1 step 6).
    ("turn_order", 0, 0, [1, -1]),
    ("turn_order", 1, 1, [-1, 1]),
    # split: the tied seats share the losers' antes (none here); the earliest deals next.
    ("split", 0, 0, [0, 0]),
])
def test_w_tie(tie, dealer, winner, payoff):
    c = compiled("enshu-w", enshu__players=2, enshu__deal_2p="7_6", enshu__w__tie=tie)
    result = paired_round(c, PAIRED_FIELD, TIED_TURNS, undrawn_for(TIED_TURNS), dealer=dealer)
    # 20 + 10 + 5 + 10 + 5 + 0 + 5 = 55 each, and each seat holds the four cards of one month:
    # Negishi (the dealer, who plays turn 1) and Kikushi, 50 each: 105 and 105.
    assert result.card_points == [55, 55] and result.score == [105, 105]
    assert yaku_keys(c, result.yaku[dealer]) == {"negishi"} and yaku_keys(c, result.yaku[1 - dealer]) == {"kikushi"}
    assert result.winner == winner and result.payoff == payoff


def test_s_full_round_with_multipliers():
    # Seat 0 takes all four Brights (turns 1, 3, 5, 7) and the Cuckoo: Shiko x3, Tsukihoto 50.
    # Seat 1 takes the three poetry ribbons: Akatan x2.
    turns = [
        (PINE_CRANE, PINE_CHAFF_1), (PINE_RIBBON, PINE_CHAFF_2),
        (CHERRY_CURTAIN, CHERRY_CHAFF_1), (PLUM_RIBBON, PLUM_CHAFF_1),
        (SUSUKI_MOON, SUSUKI_CHAFF_1), (CHERRY_RIBBON, CHERRY_CHAFF_2),
        (PAULOWNIA_PHOENIX, PAULOWNIA_CHAFF_1), (SUSUKI_GEESE, SUSUKI_CHAFF_2),
        (WISTERIA_CUCKOO, WISTERIA_CHAFF_1), (PLUM_WARBLER, PLUM_CHAFF_2),
        (CLOVER_RIBBON, CLOVER_CHAFF_1), (IRIS_BRIDGE, IRIS_CHAFF_1),
        (PEONY_CHAFF_1, PEONY_CHAFF_2), (CHRYS_CHAFF_1, CHRYS_CHAFF_2),
    ]
    # Seat 0: 4 Brights 80 + Cuckoo 10 + Bush Clover ribbon 5 = 95; + Tsukihoto 50 = 145; x3 = 435.
    # Seat 1: 3 ribbons 15 + Geese 10 + Warbler 10 + Bridge 10 = 45; x2 = 90.
    for options, scores, mult in [
        ({}, [435, 90], [3, 2]),
        ({"enshu.s.multipliers": "5_3_3"}, [725, 135], [5, 3]),
        # cards x product + yaku: 95 x 3 + 50 = 335; 45 x 2 = 90.
        ({"enshu.s.combination": "cards_times_product_plus_yaku"}, [335, 90], [3, 2]),
        ({"enshu.s.combination": "total_times_sum"}, [435, 90], [3, 2]),
    ]:
        c = compile_rules(load_rules("enshu-s", {"enshu.players": 2, "enshu.deal_2p": "7_6", **options}))
        result = paired_round(c, PAIRED_FIELD, turns, undrawn_for(turns))
        assert reason(result) == "score" and result.end_turn == 14
        assert yaku_keys(c, result.yaku[0]) == {"shiko", "tsukihoto"}
        assert yaku_keys(c, result.yaku[1]) == {"akatan"}
        assert result.card_points == [95, 45]
        assert result.yaku_multiplier == mult
        assert result.score == scores
        assert result.winner == 0 and result.payoff == scores


# Field: three Maple and three Bush Clover; their fourth cards are never turned.
FUKE_FIELD = [MAPLE_DEER, MAPLE_RIBBON, MAPLE_CHAFF_1, CLOVER_BOAR, CLOVER_RIBBON, CLOVER_CHAFF_1]
FUKE_TURNS = [
    (PINE_CRANE, PINE_CHAFF_1), (WILLOW_RAIN_MAN, WILLOW_SWALLOW),
    (SUSUKI_MOON, SUSUKI_CHAFF_1), (PLUM_WARBLER, PLUM_CHAFF_1),
    (CHERRY_CURTAIN, CHERRY_CHAFF_1), (WILLOW_RIBBON, WILLOW_LIGHTNING),
    (WISTERIA_CUCKOO, WISTERIA_CHAFF_1), (IRIS_CHAFF_1, IRIS_CHAFF_2),
    (PEONY_BUTTERFLIES, PEONY_RIBBON), (PEONY_CHAFF_1, PEONY_CHAFF_2),
    (CHRYS_SAKE_CUP, CHRYS_RIBBON), (PAULOWNIA_CHAFF_1, PAULOWNIA_CHAFF_2),
    (SUSUKI_GEESE, SUSUKI_CHAFF_2), (CHRYS_CHAFF_1, CHRYS_CHAFF_2),
]
FUKE_UNDRAWN = [MAPLE_CHAFF_2, CLOVER_CHAFF_2] + sorted(
    set(range(48)) - set(FUKE_FIELD) - {c_ for pair in FUKE_TURNS for c_ in pair} - {MAPLE_CHAFF_2, CLOVER_CHAFF_2})


@pytest.mark.parametrize(("fuke", "reason_", "winner", "payoff"), [
    ("yes", "fuke", -1, [0, 0]),
    ("no", "score", 0, [140, -140]),
])
def test_c_full_round_fuke(fuke, reason_, winner, payoff):
    # Seat 0: Crane, Moon, Curtain 90 + Cuckoo, Butterflies, Sake Cup, Geese 40 + Peony and
    #         Chrysanthemum ribbons 10 = 140; Tsukihoto 50.
    # Seat 1: Rain Man 10 + Swallow 10 + Willow ribbon 5 + Lightning 0 + Warbler 10 = 35, but
    #         without the Willow cards only 10 <= 15: it may declare Fuke (3.3 step 11).
    # M = 1: score 0 = 140 x 1 = 140, score 1 = (35 - 50) x 1 = -15.  Seat 0 is not eligible
    # (140), so the only Fuke decision is seat 1's.
    c = compiled("enshu-c", enshu__players=2)
    result = paired_round(c, FUKE_FIELD, FUKE_TURNS, FUKE_UNDRAWN, before=[NO] * 4, after=[fuke])
    assert result.card_points == [140, 35]
    assert result.yaku_points == [50, 0]
    assert reason(result) == reason_ and result.winner == winner
    assert result.fuke == (1 if fuke == "yes" else -1)
    assert result.score == ([0, 0] if fuke == "yes" else [140, -15])
    assert result.payoff == payoff
    fuke_events = [e for e in result.events if e["type"] == "fuke"]
    assert [e["seat"] for e in fuke_events] == [1]
