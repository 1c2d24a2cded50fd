"""The hanafuda capture step every hanafuda fishing game shares (``simcore.hanafuda``), by hand
and against its numba twin."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.cards import HANAFUDA48
from simcore.hanafuda import (
    CAPTURE_ALL,
    CAPTURE_CHOOSE,
    CAPTURE_NONE,
    MONTHS,
    capture,
    month_arrays,
    month_mask,
    month_of,
)
from simcore.hanafuda.capture_nb import capture_nb

PINE_CRANE = HANAFUDA48.card_id("Pine Crane")
PINE_RIBBON = HANAFUDA48.card_id("Pine Poetry ribbon")
PINE_CHAFF_1 = HANAFUDA48.card_id("Pine Chaff 1")
PINE_CHAFF_2 = HANAFUDA48.card_id("Pine Chaff 2")
PLUM_WARBLER = HANAFUDA48.card_id("Plum Bush Warbler")
RAIN_MAN = HANAFUDA48.card_id("Willow Rain Man")


def test_months_of_the_deck():
    month, masks = month_arrays()
    for card in HANAFUDA48.cards:
        assert month_of(card.id) == card.rank == month[card.id]
    assert [bin(month_mask(m)).count("1") for m in MONTHS] == [4] * 12
    assert sum(month_mask(m) for m in MONTHS) == (1 << 48) - 1
    assert [int(masks[m]) for m in MONTHS] == [month_mask(m) for m in MONTHS] and masks[0] == 0
    assert month_of(RAIN_MAN) == 11


def test_no_card_of_the_month_leaves_the_card_on_the_field():
    assert capture(1 << PLUM_WARBLER, PINE_CRANE) == (CAPTURE_NONE, 0)


def test_one_card_of_the_month_is_taken():
    field = 1 << PINE_RIBBON | 1 << PLUM_WARBLER
    assert capture(field, PINE_CRANE) == (CAPTURE_ALL, 1 << PINE_RIBBON)


def test_two_cards_of_the_month_are_a_choice_in_id_order():
    field = 1 << PINE_RIBBON | 1 << PINE_CHAFF_2 | 1 << PLUM_WARBLER
    outcome = capture(field, PINE_CRANE)
    assert outcome.kind == CAPTURE_CHOOSE
    assert outcome.options == (1 << PINE_RIBBON, 1 << PINE_CHAFF_2)


def test_three_cards_of_the_month_are_taken_together_or_chosen_among():
    field = 1 << PINE_RIBBON | 1 << PINE_CHAFF_1 | 1 << PINE_CHAFF_2
    assert capture(field, PINE_CRANE) == (CAPTURE_ALL, field)
    one = capture(field, PINE_CRANE, take_three=False)
    assert one.kind == CAPTURE_CHOOSE and len(one.options) == 3


@settings(max_examples=300, deadline=None)
@given(field=st.integers(0, (1 << 48) - 1), card=st.integers(0, 47), take_three=st.booleans())
def test_the_numba_capture_step_is_the_python_one(field, card, take_three):
    field &= ~(1 << card)
    month, masks = month_arrays()
    kind, matches = capture_nb(np.uint64(field), np.int64(card), month, masks, take_three)
    assert (int(kind), int(matches)) == tuple(capture(field, card, take_three))
