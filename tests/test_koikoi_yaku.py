"""Koi-koi's yaku and scores, worked out by hand on hand-built piles: every yaku, every stacking
rule and every multiplier of docs/koikoi.md#yaku and #scoring, under the Nintendo-style and the
KoiKoi-Japan rules and the options that change them."""

from __future__ import annotations

import pytest
from koikoi_cards import (
    BLUE_RIBBONS,
    BOAR_DEER_BUTTERFLY,
    CHAFF,
    CHERRY_CURTAIN,
    CHERRY_RIBBON,
    CHRYS_SAKE_CUP,
    DRY_BRIGHTS,
    IRIS_BRIDGE,
    OTHER_ANIMALS,
    PINE_CRANE,
    PLAIN_RIBBONS,
    PLUM_WARBLER,
    RED_RIBBONS,
    SUSUKI_MOON,
    WILLOW_LIGHTNING,
    WILLOW_RAIN_MAN,
    WILLOW_SWALLOW,
    WISTERIA_CUCKOO,
    compiled,
    mask,
    month_cards,
)

from simcore.games.koikoi import enums as E
from simcore.games.koikoi.scoring import dealt_hand, field_misdeal, pile_yaku, stop_score


def yaku(c, cards, calls: int = 0, month: int = 1) -> dict[str, int]:
    """The yaku of a pile of ``cards``, by key, with the points of each (summed, the pile's)."""
    bits, points = pile_yaku(c, mask(cards), calls, month)
    out = {c.rules.yaku[i].key: 0 for i in range(E.N_YAKU) if (bits >> i) & 1}
    out["points"] = points
    return out


NINTENDO = compiled("koikoi")
KKJ = compiled("koikoi-kkj")


@pytest.mark.parametrize("c", [NINTENDO, KKJ], ids=["koikoi", "koikoi-kkj"])
def test_the_brights_only_the_highest_counts(c):
    assert yaku(c, DRY_BRIGHTS + (WILLOW_RAIN_MAN,)) == {"goko": 0, "points": 10}
    assert yaku(c, DRY_BRIGHTS) == {"shiko": 0, "points": 8}
    assert yaku(c, DRY_BRIGHTS[:3] + (WILLOW_RAIN_MAN,)) == {"ame_shiko": 0, "points": 7}
    assert yaku(c, DRY_BRIGHTS[:3]) == {"sanko": 0, "points": 5}
    assert yaku(c, DRY_BRIGHTS[:2] + (WILLOW_RAIN_MAN,)) == {"points": 0}  # no three with the Rain Man


def test_bright_values_are_options():
    c = compiled("koikoi", five_brights=15, three_brights=6)
    assert yaku(c, DRY_BRIGHTS + (WILLOW_RAIN_MAN,))["points"] == 15
    assert yaku(c, DRY_BRIGHTS[:3])["points"] == 6
    assert yaku(compiled("koikoi", three_brights=0), DRY_BRIGHTS[:3]) == {"points": 0}  # 0: not played


def test_boar_deer_butterfly_and_tane():
    five_animals = BOAR_DEER_BUTTERFLY + OTHER_ANIMALS[:2]
    # Nintendo: 5 + 1 per animal beyond three, Tane void
    assert yaku(NINTENDO, BOAR_DEER_BUTTERFLY) == {"inoshikacho": 0, "points": 5}
    assert yaku(NINTENDO, five_animals) == {"inoshikacho": 0, "points": 7}
    # KKJ: 5, and Tane beside it
    assert yaku(KKJ, five_animals) == {"inoshikacho": 0, "tane": 0, "points": 6}
    assert yaku(KKJ, five_animals + OTHER_ANIMALS[2:3]) == {"inoshikacho": 0, "tane": 0, "points": 7}
    # the two options apart
    assert yaku(compiled("koikoi", bdb_extra="none"), five_animals) == {"inoshikacho": 0, "points": 5}
    assert yaku(compiled("koikoi", bdb_with_tane="stacks"), five_animals) == {
        "inoshikacho": 0, "tane": 0, "points": 8}
    assert yaku(compiled("koikoi", boar_deer_butterfly=6), BOAR_DEER_BUTTERFLY)["points"] == 6


@pytest.mark.parametrize("c", [NINTENDO, KKJ], ids=["koikoi", "koikoi-kkj"])
def test_tane_counts_every_animal_the_sake_cup_and_the_geese_included(c):
    assert yaku(c, OTHER_ANIMALS[:4]) == {"points": 0}
    assert yaku(c, OTHER_ANIMALS[:4] + (CHRYS_SAKE_CUP,)) == {"tane": 0, "points": 1}
    assert yaku(c, OTHER_ANIMALS + (CHRYS_SAKE_CUP,)) == {"tane": 0, "points": 2}  # 6 animals


def test_the_viewing_yaku():
    hanami = (CHERRY_CURTAIN, CHRYS_SAKE_CUP)
    tsukimi = (SUSUKI_MOON, CHRYS_SAKE_CUP)
    assert yaku(NINTENDO, hanami) == {"hanami": 0, "points": 5}
    assert yaku(NINTENDO, tsukimi) == {"tsukimi": 0, "points": 5}
    assert yaku(NINTENDO, hanami + (SUSUKI_MOON,)) == {"hanami": 0, "tsukimi": 0, "points": 10}
    # KKJ: 1 each, 3 once the holder has called koi-koi (KoiKoi-AI's example round: 3 + 3 + 1)
    assert yaku(KKJ, hanami + (SUSUKI_MOON,)) == {"hanami": 0, "tsukimi": 0, "points": 2}
    assert yaku(KKJ, hanami + (SUSUKI_MOON,), calls=1) == {"hanami": 0, "tsukimi": 0, "points": 6}
    assert stop_score(KKJ, 6, 1, 0) == 7
    assert yaku(compiled("koikoi", hanami=3), hanami)["points"] == 3
    assert yaku(compiled("koikoi", hanami=0), hanami) == {"points": 0}


def test_rain_rains_off_the_viewing_yaku():
    hanami = (CHERRY_CURTAIN, CHRYS_SAKE_CUP)
    rain_man = compiled("koikoi", rain_off="rain_man")
    assert yaku(rain_man, hanami + (WILLOW_RAIN_MAN,)) == {"points": 0}
    assert yaku(rain_man, hanami + (WILLOW_LIGHTNING,)) == {"points": 0}
    assert yaku(rain_man, hanami + (WILLOW_SWALLOW,)) == {"hanami": 0, "points": 5}
    any_willow = compiled("koikoi", rain_off="any_willow")
    assert yaku(any_willow, hanami + (WILLOW_SWALLOW,)) == {"points": 0}
    assert yaku(NINTENDO, hanami + (WILLOW_LIGHTNING,)) == {"hanami": 0, "points": 5}  # rain_off = none


def test_red_and_blue_ribbons_and_tan():
    red_plus_two = RED_RIBBONS + PLAIN_RIBBONS[:2]
    # Nintendo: 5 + 1 per ribbon beyond three, Tan void
    assert yaku(NINTENDO, RED_RIBBONS) == {"akatan": 0, "points": 5}
    assert yaku(NINTENDO, red_plus_two) == {"akatan": 0, "points": 7}
    assert yaku(NINTENDO, BLUE_RIBBONS + PLAIN_RIBBONS[:1]) == {"aotan": 0, "points": 6}
    # both: 10 + 1 per ribbon beyond six, replacing the red and the blue
    assert yaku(NINTENDO, RED_RIBBONS + BLUE_RIBBONS) == {"akatan_aotan": 0, "points": 10}
    assert yaku(NINTENDO, RED_RIBBONS + BLUE_RIBBONS + PLAIN_RIBBONS[:1]) == {"akatan_aotan": 0, "points": 11}
    # KKJ: everything stacks, no extra points: 10 + 5 + 5 + Tan
    assert yaku(KKJ, red_plus_two) == {"akatan": 0, "tan": 0, "points": 6}
    assert yaku(KKJ, RED_RIBBONS + BLUE_RIBBONS) == {"akatan": 0, "aotan": 0, "akatan_aotan": 0, "tan": 0,
                                                     "points": 22}
    assert yaku(KKJ, RED_RIBBONS + BLUE_RIBBONS + PLAIN_RIBBONS[:1])["points"] == 23
    # the options apart
    assert yaku(compiled("koikoi", red_and_blue_stacking="stacks"), RED_RIBBONS + BLUE_RIBBONS) == {
        "akatan": 0, "aotan": 0, "akatan_aotan": 0, "points": 10 + 8 + 8}
    assert yaku(compiled("koikoi", ribbons_with_tan="stacks"), red_plus_two) == {"akatan": 0, "tan": 0, "points": 8}
    assert yaku(compiled("koikoi", ribbon_extra="none"), red_plus_two) == {"akatan": 0, "points": 5}
    assert yaku(compiled("koikoi", red_and_blue=0), RED_RIBBONS + BLUE_RIBBONS) == {
        "akatan": 0, "aotan": 0, "points": 16}


@pytest.mark.parametrize("c", [NINTENDO, KKJ], ids=["koikoi", "koikoi-kkj"])
def test_tan_without_a_ribbon_yaku(c):
    assert yaku(c, PLAIN_RIBBONS + (CHERRY_RIBBON,)) == {"tan": 0, "points": 1}
    assert yaku(c, PLAIN_RIBBONS) == {"points": 0}


def test_kasu_and_the_sake_cup():
    assert yaku(NINTENDO, CHAFF[:10]) == {"kasu": 0, "points": 1}
    assert yaku(NINTENDO, CHAFF[:12]) == {"kasu": 0, "points": 3}
    assert yaku(KKJ, CHAFF[:9] + (CHRYS_SAKE_CUP,)) == {"kasu": 0, "points": 1}  # the cup is chaff too
    assert yaku(compiled("koikoi", sake_cup_chaff="false"), CHAFF[:9] + (CHRYS_SAKE_CUP,)) == {"points": 0}
    # 9 chaff and the cup, with four more animals: Kasu and Tane both count the cup
    assert yaku(KKJ, CHAFF[:9] + (CHRYS_SAKE_CUP, PLUM_WARBLER, WISTERIA_CUCKOO, IRIS_BRIDGE,
                                  WILLOW_SWALLOW)) == {"kasu": 0, "tane": 0, "points": 2}


def test_tsukifuda_is_the_round_months_four_cards():
    c = compiled("koikoi", tsukifuda=4)
    march = month_cards(3)
    assert yaku(c, march, month=3) == {"tsukifuda": 0, "points": 4}
    assert yaku(c, march, month=2) == {"points": 0}
    assert yaku(NINTENDO, march, month=3) == {"points": 0}  # tsukifuda = 0: not played


def test_the_koikoi_bonus_and_the_seven_point_double():
    # Nintendo: x2 at 7 or more, x2 if the opponent called (however often): x4 with both (OHA)
    assert [stop_score(NINTENDO, p, 0, 0) for p in (6, 7)] == [6, 14]
    assert stop_score(NINTENDO, 5, 0, 1) == 10
    assert stop_score(NINTENDO, 5, 0, 3) == 10
    assert stop_score(NINTENDO, 5, 2, 0) == 5  # its own calls do not count
    assert stop_score(NINTENDO, 8, 0, 1) == 32
    # KKJ: its own calls add 1, 2, 3 points, then multiply by calls - 2; no double at seven
    assert [stop_score(KKJ, 5, n, 0) for n in range(8)] == [5, 6, 7, 8, 10, 15, 20, 25]
    assert stop_score(KKJ, 9, 0, 2) == 9
    # the other bonuses
    assert stop_score(compiled("koikoi", koikoi_bonus="calls_plus_one", seven_double="false"), 5, 1, 2) == 20
    assert stop_score(compiled("koikoi", koikoi_bonus="own_double", seven_double="false"), 5, 1, 0) == 10
    assert stop_score(compiled("koikoi", koikoi_bonus="own_double", seven_double="false"), 5, 0, 1) == 5
    assert stop_score(compiled("koikoi", koikoi_bonus="any_double", seven_double="false"), 5, 0, 1) == 10
    assert stop_score(compiled("koikoi", koikoi_bonus="none"), 5, 3, 3) == 5


def test_dealt_hands_and_misdealt_fields():
    teshi = month_cards(1) + [4, 8, 12, 16]
    pairs = month_cards(1)[:2] + month_cards(2)[:2] + month_cards(3)[:2] + month_cards(4)[:2]
    four_and_two_pairs = month_cards(1) + month_cards(2)[:2] + month_cards(3)[:2]
    assert dealt_hand(NINTENDO, mask(teshi)) == E.Y_TESHI
    assert dealt_hand(NINTENDO, mask(pairs)) == E.Y_KUTTSUKI
    assert dealt_hand(NINTENDO, mask(four_and_two_pairs)) == E.Y_TESHI
    assert dealt_hand(NINTENDO, mask(pairs[:7] + [PINE_CRANE + 20])) == -1
    assert "four cards of a month" in field_misdeal(NINTENDO, mask(teshi))
    assert "four pairs" in field_misdeal(NINTENDO, mask(pairs))
    assert field_misdeal(KKJ, mask(pairs)) is None  # KoiKoi-AI checks four of a month only
    assert "four cards of a month" in field_misdeal(KKJ, mask(teshi))
