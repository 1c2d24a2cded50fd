"""Deal-level probabilities of koi-koi, computed exactly by counting (math.comb), and the engine's
deal held to them.

* Four cards of a month somewhere in an 8-card hand (teshi): inclusion-exclusion over the months
  it holds whole, ``(12 C(44, 4) - C(12, 2)) / C(48, 8)`` = 0.4317 %.
* Exactly four pairs (kuttsuki: two cards of each of four months): ``C(12, 4) 6^4 / C(48, 8)``
  = 0.1700 %.
* The redeal rate of ``koikoi-kkj`` (four of a month in either hand or on the field): inclusion-
  exclusion over (block, month) pairs of the three 8-card blocks of one deal, each block holding
  at most two whole months: 1.2877 %.

Each simulated frequency must lie within 4.5 standard errors of the exact value.
"""

from __future__ import annotations

import math

import pytest
from koikoi_cards import compiled

from simcore.games.koikoi import enums as E
from simcore.games.koikoi.reference import RoundSetup, RoundState, shuffled_deck
from simcore.games.koikoi.scoring import dealt_hand
from simcore.rng import DEAL_STREAM, Stream

Z = 4.5
HANDS = math.comb(48, 8)


def teshi_probability() -> float:
    return (12 * math.comb(44, 4) - math.comb(12, 2)) / HANDS


def kuttsuki_probability() -> float:
    return math.comb(12, 4) * 6**4 / HANDS


def multinomial(n: int, parts: list[int]) -> int:
    out = math.factorial(n)
    for part in parts:
        out //= math.factorial(part)
    return out


def any_block_teshi_probability() -> float:
    """P(some month whole in one of the three 8-card blocks of a 48-card deal)."""
    deals = multinomial(48, [8, 8, 8, 24])
    total = 0
    for a in range(3):
        for b in range(3):
            for c in range(3):
                k = a + b + c
                if k == 0:
                    continue
                months = math.factorial(12) // (math.factorial(a) * math.factorial(b) * math.factorial(c)
                                                 * math.factorial(12 - k))
                total += (-1) ** (k + 1) * months * multinomial(48 - 4 * k, [8 - 4 * a, 8 - 4 * b, 8 - 4 * c, 24])
    return total / deals


def test_the_exact_values_of_the_issue():
    assert round(100 * teshi_probability(), 4) == 0.4317
    assert round(100 * kuttsuki_probability(), 4) == 0.1700
    assert round(100 * any_block_teshi_probability(), 4) == 1.2877
    # the union over three blocks is a little less than three times one block's
    assert any_block_teshi_probability() < 3 * teshi_probability()


def within(count: int, n: int, p: float) -> bool:
    return abs(count - n * p) <= Z * math.sqrt(n * p * (1 - p))


@pytest.mark.slow
def test_the_engines_shuffle_deals_hands_with_the_exact_frequencies():
    c = compiled("koikoi")
    n = 60_000
    teshi = kuttsuki = 0
    for round_index in range(n // 3):
        slots = shuffled_deck(Stream(11, round_index, DEAL_STREAM))
        for block in range(3):  # the dealer's hand, the other hand, the field
            kind = dealt_hand(c, sum(1 << x for x in slots[8 * block:8 * block + 8]))
            teshi += kind == E.Y_TESHI
            kuttsuki += kind == E.Y_KUTTSUKI
    assert within(teshi, n, teshi_probability()), teshi
    assert within(kuttsuki, n, kuttsuki_probability()), kuttsuki


@pytest.mark.slow
def test_koikoi_japan_redeals_at_the_exact_rate():
    c = compiled("koikoi-kkj")
    n = 30_000
    redealt = sum(RoundState(c, RoundSetup(seed=5, round_index=r, dealer=r % 2)).redeals > 0 for r in range(n))
    assert within(redealt, n, any_block_teshi_probability()), redealt
