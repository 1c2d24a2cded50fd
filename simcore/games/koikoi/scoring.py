"""Koi-koi's yaku and scores in pure Python (docs/koikoi.md#yaku, #scoring): what a pile is worth,
what a stop scores, and the hands dealt. The reference engine, its policies and the replay of
game records read them; ``state_nb`` is their numba twin.

A pile's yaku, in bit order (``enums.Y_*``), each made only when its points are above 0:

* the brights, of which only the highest counts: five; four without the Rain Man, or rainy four
  with it; three without the Rain Man;
* Boar-Deer-Butterfly, plus one per further animal with ``bdb_extra = per_animal``;
* the viewing yaku (the Sake Cup with the Curtain, or the Moon), worth ``viewing_raised`` once
  their holder has called koi-koi with ``viewing_raise = after_own_koikoi``, and void when
  ``rain_off`` finds rain in the holder's pile;
* Tane: ``TANE_MIN`` animals 1, one more per further animal (void beside Boar-Deer-Butterfly
  with ``bdb_with_tane = replaces``);
* the Red and the Blue ribbons, and both together (which replace the two with
  ``red_and_blue_stacking = replaces``), each plus one per ribbon beyond its own with
  ``ribbon_extra = per_ribbon``;
* Tan: ``TAN_MIN`` ribbons 1, one more per further ribbon (void beside a ribbon yaku with
  ``ribbons_with_tan = replaces``);
* Kasu: ``KASU_MIN`` chaff 1, one more per further chaff (the Sake Cup counted with
  ``sake_cup_chaff = true``);
* Tsuki-fuda: the four cards of the round's month.

The score of a stop: the yaku points, doubled at 7 or more with ``seven_double``, then the
koi-koi bonus (``koikoi_bonus``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from simcore.games.koikoi import enums as E

if TYPE_CHECKING:
    from simcore.games.koikoi.compile import CompiledRules

__all__ = ["dealt_hand", "field_misdeal", "hand_months", "pile_yaku", "stop_score"]


def pile_yaku(c: CompiledRules, pile: int, own_calls: int, month: int) -> tuple[int, int]:
    """``(bits, points)``: the yaku of ``pile`` (bits ``Y_*``) and their points before any
    multiplier, for a seat that has called koi-koi ``own_calls`` times in a round of ``month``."""
    k = [int(x) for x in c.classes]
    v = [int(x) for x in c.yaku_value]
    p = c.param
    bits = 0
    points = 0

    def made(bit: int, worth: int) -> None:
        nonlocal bits, points
        bits |= 1 << bit
        points += worth

    brights = (pile & k[E.K_BRIGHTS]).bit_count()
    rain = pile & k[E.K_RAIN_MAN] != 0
    bright = -1
    if brights == 5:
        bright = E.Y_FIVE_BRIGHTS
    elif brights == 4:
        bright = E.Y_RAINY_FOUR_BRIGHTS if rain else E.Y_FOUR_BRIGHTS
    elif brights == 3 and not rain:
        bright = E.Y_THREE_BRIGHTS
    if bright >= 0 and v[bright] > 0:
        made(bright, v[bright])

    animals = (pile & k[E.K_ANIMALS]).bit_count()
    bdb = pile & k[E.K_BOAR_DEER_BUTTERFLY] == k[E.K_BOAR_DEER_BUTTERFLY] and v[E.Y_BOAR_DEER_BUTTERFLY] > 0
    if bdb:
        extra = animals - 3 if p(E.P_BDB_EXTRA) == E.BDB_EXTRA_PER_ANIMAL else 0
        made(E.Y_BOAR_DEER_BUTTERFLY, v[E.Y_BOAR_DEER_BUTTERFLY] + extra)
    if animals >= E.TANE_MIN and not (bdb and p(E.P_BDB_WITH_TANE) != E.STACKS):
        made(E.Y_TANE, animals - E.TANE_MIN + 1)

    rain_off = p(E.P_RAIN_OFF)
    rained = (rain_off == E.RAIN_OFF_RAIN_MAN and pile & (k[E.K_RAIN_MAN] | k[E.K_LIGHTNING]) != 0
              or rain_off == E.RAIN_OFF_ANY_WILLOW and pile & k[E.K_WILLOW] != 0)
    raised = p(E.P_VIEWING_RAISE) == E.VIEWING_RAISE_AFTER_OWN and own_calls > 0
    for bit, card in ((E.Y_HANAMI, E.K_CURTAIN), (E.Y_TSUKIMI, E.K_MOON)):
        cards = k[card] | k[E.K_SAKE_CUP]
        if v[bit] > 0 and not rained and pile & cards == cards:
            made(bit, p(E.P_VIEWING_RAISED) if raised else v[bit])

    ribbons = (pile & k[E.K_RIBBONS]).bit_count()
    per_ribbon = p(E.P_RIBBON_EXTRA) == 0
    red = pile & k[E.K_RED_RIBBONS] == k[E.K_RED_RIBBONS]
    blue = pile & k[E.K_BLUE_RIBBONS] == k[E.K_BLUE_RIBBONS]
    both = red and blue and v[E.Y_AKATAN_AOTAN] > 0
    ribbon_yaku = False
    if both:
        made(E.Y_AKATAN_AOTAN, v[E.Y_AKATAN_AOTAN] + (ribbons - 6 if per_ribbon else 0))
        ribbon_yaku = True
    alone = not both or p(E.P_RED_AND_BLUE) == E.STACKS
    for bit, full in ((E.Y_AKATAN, red), (E.Y_AOTAN, blue)):
        if full and alone and v[bit] > 0:
            made(bit, v[bit] + (ribbons - 3 if per_ribbon else 0))
            ribbon_yaku = True
    if ribbons >= E.TAN_MIN and not (ribbon_yaku and p(E.P_RIBBONS_WITH_TAN) != E.STACKS):
        made(E.Y_TAN, ribbons - E.TAN_MIN + 1)

    chaff = (pile & int(c.chaff_mask)).bit_count()
    if chaff >= E.KASU_MIN:
        made(E.Y_KASU, chaff - E.KASU_MIN + 1)

    month_cards = int(c.month_mask[month])
    if v[E.Y_TSUKIFUDA] > 0 and pile & month_cards == month_cards:
        made(E.Y_TSUKIFUDA, v[E.Y_TSUKIFUDA])
    return bits, points


def stop_score(c: CompiledRules, points: int, own_calls: int, other_calls: int) -> int:
    """The round's points of a seat that stops with yaku ``points`` after ``own_calls`` koi-koi
    calls of its own and ``other_calls`` of the other seat: doubled at 7 or more
    (``seven_double``), then the koi-koi bonus (``koikoi_bonus``)."""
    score = points
    if c.param(E.P_SEVEN_DOUBLE) == 0 and points >= 7:
        score *= 2
    bonus = c.param(E.P_KOIKOI_BONUS)
    if bonus == E.KOIKOI_BONUS_OPPONENT_DOUBLE:
        return score * 2 if other_calls > 0 else score
    if bonus == E.KOIKOI_BONUS_OWN_ADD_THEN_MULTIPLY:
        return score + own_calls if own_calls <= 3 else score * (own_calls - 2)
    if bonus == E.KOIKOI_BONUS_CALLS_PLUS_ONE:
        return score * (own_calls + other_calls + 1)
    if bonus == E.KOIKOI_BONUS_OWN_DOUBLE:
        return score * 2 if own_calls > 0 else score
    if bonus == E.KOIKOI_BONUS_ANY_DOUBLE:
        return score * 2 if own_calls + other_calls > 0 else score
    return score


def hand_months(c: CompiledRules, cards: int) -> list[int]:
    """How many cards of each month (index 1..12; index 0 unused) ``cards`` holds."""
    return [0] + [(cards & int(c.month_mask[m])).bit_count() for m in range(1, 13)]


def dealt_hand(c: CompiledRules, hand: int) -> int:
    """The dealt-hand yaku of an 8-card hand: ``Y_TESHI`` (four cards of a month), ``Y_KUTTSUKI``
    (exactly two cards of each of four months) or -1."""
    counts = hand_months(c, hand)
    if 4 in counts:
        return E.Y_TESHI
    if counts.count(2) == 4:
        return E.Y_KUTTSUKI
    return -1


def field_misdeal(c: CompiledRules, field: int) -> str | None:
    """Why the rules redeal a dealt field (four of a month, or four pairs, each by its option),
    or None."""
    kind = dealt_hand(c, field)
    if kind == E.Y_TESHI and c.param(E.P_FIELD_FOUR) == E.FIELD_REDEAL:
        return "four cards of a month on the field (koikoi.field_four = redeal)"
    if kind == E.Y_KUTTSUKI and c.param(E.P_FIELD_PAIRS) == E.FIELD_REDEAL:
        return "four pairs on the field (koikoi.field_pairs = redeal)"
    return None
