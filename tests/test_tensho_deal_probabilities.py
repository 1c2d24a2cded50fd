"""Deal-level frequencies of the Tensho engine against exact combinatorics (math.comb).

The canonical deal (docs/tensho.md#a-round) is a uniform shuffle cut into field 9, hands 6 + 6, draw
18 and dead 6; with the default tensho.field_four_of_rank = redeal a field holding four cards of a
rank is dealt again, so the field that is played is a uniform 9-card field *conditioned* on no four
of a rank.  Every probability below is computed exactly by counting 9-card fields: each of the 11
four-card ranks contributes C(4, j) ways to put j of its cards on the field, and the 6 of clubs is
either on the field or not.

Each simulated frequency must lie within 4.5 standard errors of the exact value.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest
from tensho_cards import RANKS_OF_FOUR, SIX_OF_CLUBS, rank

from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.reference import (
    RoundSetup,
    ask_policy,
    new_state,
    seat_policies,
    shuffled_deck,
)
from simcore.policies import parse_policy
from simcore.rng import DEAL_STREAM, Stream
from simcore.rules import load_rules

SEED = 977
FOUR_CARD_RANKS = len(RANKS_OF_FOUR)  # 11
FIELDS = math.comb(45, 9)
Z = 4.5


def field_counts(allowed: set[int]) -> dict[int, int]:
    """For m = 8, 9: the number of ways to choose m field cards from the 44 cards of the 11
    four-card ranks with every rank's count in ``allowed`` ([x^m] of (sum C(4,j) x^j)^11)."""
    poly = [1]
    for _ in range(FOUR_CARD_RANKS):
        out = [0] * (len(poly) + 4)
        for i, a in enumerate(poly):
            for j in allowed:
                out[i + j] += a * math.comb(4, j)
        poly = out
    return {m: poly[m] for m in (8, 9)}


def triple_distribution() -> dict[int, int]:
    """Fields without four of a rank, counted by the number of ranks with exactly three cards."""
    # bivariate polynomial: key (cards, triples)
    poly = {(0, 0): 1}
    for _ in range(FOUR_CARD_RANKS):
        out: Counter = Counter()
        for (cards, triples), a in poly.items():
            for j in range(4):
                out[(cards + j, triples + (j == 3))] += a * math.comb(4, j)
        poly = out
    by_triples: Counter = Counter()
    for (cards, triples), a in poly.items():
        if cards in (8, 9):  # 8 cards plus the 6 of clubs, or 9 cards without it
            by_triples[triples] += a
    return dict(by_triples)


NO_FOUR = field_counts({0, 1, 2, 3})
P_NO_FOUR = (NO_FOUR[8] + NO_FOUR[9]) / FIELDS
P_REDEAL = 1 - P_NO_FOUR
# given a played (no four) field:
P_SIX_ON_FIELD = NO_FOUR[8] / (NO_FOUR[8] + NO_FOUR[9])
P_SIX_IN_A_HAND = (1 - P_SIX_ON_FIELD) * 6 / 36  # the six is uniform over the other 36 slots
NO_THREE_NO_FOUR = field_counts({0, 1, 2})
P_TRIPLE = 1 - (NO_THREE_NO_FOUR[8] + NO_THREE_NO_FOUR[9]) / (NO_FOUR[8] + NO_FOUR[9])
TRIPLES = triple_distribution()
P_TWO_TRIPLES = sum(v for t, v in TRIPLES.items() if t >= 2) / sum(TRIPLES.values())
# the uniform random policy declines each triple with probability 1/2 (docs/policies.md#random), so
# the non-dealer plays first unless every triple is declined
P_NON_DEALER_FIRST = sum(v * (1 - 0.5 ** t) for t, v in TRIPLES.items()) / sum(TRIPLES.values())
# no conditioning: four of a rank, or exactly three of a rank, among 9 uniform cards
P_FOUR_RAW = 1 - (NO_FOUR[8] + NO_FOUR[9]) / FIELDS
WITHOUT_EXACT_THREE = field_counts({0, 1, 2, 4})
P_EXACT_THREE_RAW = 1 - (WITHOUT_EXACT_THREE[8] + WITHOUT_EXACT_THREE[9]) / FIELDS


def assert_frequency(hits: int, n: int, p: float, what: str) -> None:
    standard_error = math.sqrt(p * (1 - p) / n)
    observed = hits / n
    assert abs(observed - p) <= Z * standard_error, (
        f"{what}: observed {observed:.5f} over {n}, exact {p:.5f} (se {standard_error:.5f})")


def test_exact_values_agree_with_inclusion_exclusion():
    # Four of a rank: 11 ranks can be complete (the other 5 cards from 41), minus the fields
    # with two complete ranks (the 9th card from 37); three complete ranks need 12 cards.
    four = (11 * math.comb(41, 5) - math.comb(11, 2) * math.comb(37, 1)) / FIELDS
    assert P_FOUR_RAW == pytest.approx(four, rel=1e-12)
    assert 0.009 < P_REDEAL < 0.0095
    # The 6 of clubs: 9/45 before conditioning, C(44,8)/C(45,9) = 9/45 as a count.
    assert math.comb(44, 8) / FIELDS == pytest.approx(9 / 45)
    assert sum(TRIPLES.values()) == NO_FOUR[8] + NO_FOUR[9]


@pytest.mark.slow
def test_raw_shuffle_frequencies():
    # shuffled_deck is the uniform shuffle before any redeal: the 6 of clubs is uniform over the
    # 45 slots (field 9/45, each hand 6/45) and the field has no conditioning.
    n = 50_000
    six_slot = Counter()
    four = three = 0
    for r in range(n):
        deck = shuffled_deck(Stream(SEED, r, DEAL_STREAM))
        assert sorted(deck) == list(range(45))
        six_slot[deck.index(SIX_OF_CLUBS)] += 1
        counts = Counter(rank(c) for c in deck[:9])
        four += 4 in counts.values()
        three += 3 in counts.values()
    assert_frequency(sum(six_slot[i] for i in range(9)), n, 9 / 45, "6C on the field")
    assert_frequency(sum(six_slot[i] for i in range(9, 15)), n, 6 / 45, "6C in the dealer's hand")
    assert_frequency(sum(six_slot[i] for i in range(39, 45)), n, 6 / 45, "6C among the dead cards")
    assert_frequency(four, n, P_FOUR_RAW, "four of a rank in the first 9")
    assert_frequency(three, n, P_EXACT_THREE_RAW, "exactly three of a rank in the first 9")
    # every slot equally likely: chi-square with 44 degrees of freedom, mean 44, sd sqrt(88)
    expected = n / 45
    chi_square = sum((six_slot[i] - expected) ** 2 / expected for i in range(45))
    assert chi_square < 44 + Z * math.sqrt(88)


@pytest.mark.parametrize(("procedure", "n"), [("canonical_slices", 60_000), ("physical", 20_000)])
@pytest.mark.slow
def test_engine_deals_and_opening_claims(procedure, n):
    # The engine's own deal (with redeals) and the random dealer's opening claims.  The physical
    # deal procedure only permutes slots, so it gives the same distribution (docs/tensho.md#options:
    # tensho.deal_procedure).
    compiled = compile_rules(load_rules("tensho-ise", {"tensho.deal_procedure": procedure}))
    specs = [parse_policy("random"), parse_policy("random")]
    redealt = redeals_total = triple = two_triples = six_field = six_dealer = six_other = 0
    non_dealer_first = 0
    for r in range(n):
        dealer = r % 2
        setup = RoundSetup(seed=SEED, round_index=r, dealer=dealer)
        game = new_state(compiled, setup)  # dealt (and redealt), at its first decision
        redeals = game.redeals
        counts = Counter(rank(c) for c in range(45) if game.field_dealt >> c & 1)
        assert game.field_dealt.bit_count() == 9 and max(counts.values()) <= 3
        redealt += redeals > 0
        redeals_total += redeals
        triple += 3 in counts.values()
        two_triples += list(counts.values()).count(3) >= 2
        six_field += game.field_dealt >> SIX_OF_CLUBS & 1
        six_dealer += game.hand_dealt[dealer] >> SIX_OF_CLUBS & 1
        six_other += game.hand_dealt[1 - dealer] >> SIX_OF_CLUBS & 1
        policies = seat_policies(compiled, specs, SEED, r)
        while game.decision().kind == "opening_claim":  # the random dealer's claims, then the turns
            game.apply(ask_policy(policies[dealer], game, game.decision()))
        non_dealer_first += game.claimed != 0
    assert_frequency(redealt, n, P_REDEAL, "rounds with a redeal")
    # redeals are geometric: mean P / (1 - P)
    mean = P_REDEAL / (1 - P_REDEAL)
    sd = math.sqrt(P_REDEAL) / (1 - P_REDEAL)
    assert abs(redeals_total / n - mean) <= Z * sd / math.sqrt(n)
    assert_frequency(triple, n, P_TRIPLE, "a rank with three cards on the field")
    assert_frequency(two_triples, n, P_TWO_TRIPLES, "two ranks with three cards on the field")
    assert_frequency(six_field, n, P_SIX_ON_FIELD, "6C on the field")
    assert_frequency(six_dealer, n, P_SIX_IN_A_HAND, "6C in the dealer's hand")
    assert_frequency(six_other, n, P_SIX_IN_A_HAND, "6C in the non-dealer's hand")
    assert_frequency(non_dealer_first, n, P_NON_DEALER_FIRST, "an opening claim (non-dealer first)")
