"""What every hanafuda fishing game shares: the 48-card deck, month matching and the capture step.

A card is captured by a field card of its month (flower). The capture step every such game
plays (Enshu-bana, koi-koi, ...): a card played from the hand or turned from the draw pile is
set against the field cards of its month; with none it joins the field, with one it takes it,
with three it takes all three (or, where a game's rules say so, one of them), and with two (or
three that are not all taken) the seat chooses which to take. ``capture`` gives that step's
outcome; ``simcore.hanafuda.capture_nb`` is its numba twin.

Card ids are ``4 * (month - 1) + k`` (``simcore.cards.HANAFUDA48``); a set of cards is a uint64
bit mask, bit ``i`` card ``i``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore.cards import HANAFUDA48, Deck, ids_of

__all__ = ["CAPTURE_ALL", "CAPTURE_CHOOSE", "CAPTURE_NONE", "Capture", "DECK", "MONTHS", "capture",
           "month_arrays", "month_mask", "month_of"]

DECK: Deck = HANAFUDA48
MONTHS = tuple(range(1, 13))

CAPTURE_NONE = 0  # no field card of the month: the card joins the field
CAPTURE_ALL = 1  # the card takes every field card of its month (one, or three taken together)
CAPTURE_CHOOSE = 2  # the seat chooses one field card of the month to take


class Capture(NamedTuple):
    """The outcome of setting a card against the field: ``kind`` (``CAPTURE_*``) and the field
    cards of the card's month (``matches``; what is taken with ``CAPTURE_ALL``, the choice with
    ``CAPTURE_CHOOSE``: one card each, in id order, ``options``)."""

    kind: int
    matches: int

    @property
    def options(self) -> tuple[int, ...]:
        """The masks a seat chooses among (one field card each), in id order."""
        return tuple(1 << card for card in ids_of(self.matches))


def month_of(card: int) -> int:
    """The month (1..12) of a hanafuda card id."""
    return card // 4 + 1


def month_mask(month: int) -> int:
    """The mask of the four cards of ``month``."""
    return 0b1111 << (4 * (month - 1))


def month_arrays(deck: Deck = DECK) -> tuple[np.ndarray, np.ndarray]:
    """``(month int8[64], month_mask uint64[13])``: each card id's month (0 outside the deck) and
    each month's cards (row 0 empty), the tables ``capture_nb`` reads."""
    month = deck.rank_array()
    masks = np.zeros(13, dtype=np.uint64)
    for card in deck.cards:
        masks[card.rank] |= np.uint64(1 << card.id)
    return month, masks


def capture(field: int, card: int, take_three: bool = True) -> Capture:
    """The capture step of ``card`` against ``field``: with three field cards of its month,
    ``take_three`` takes them all, else the seat chooses one."""
    matches = field & month_mask(month_of(card))
    count = matches.bit_count()
    if count == 0:
        return Capture(CAPTURE_NONE, 0)
    if count == 1 or (count == 3 and take_three):
        return Capture(CAPTURE_ALL, matches)
    return Capture(CAPTURE_CHOOSE, matches)
