"""Deal-level frequencies of Enshu-bana against exact combinatorics (``math.comb``).

The simulated deals are the engine's own: ``shuffle_in_place`` from the deal stream, cut by
``deal_slots`` and judged by ``misdeal_at_deal``, redealt from the same stream until one stands
(``test_engine_deals_like_the_loop`` checks that ``play_round`` deals exactly so).  Tolerances
are five standard errors of the binomial (or multinomial) count.
"""

from __future__ import annotations

from functools import cache
from math import comb, factorial, sqrt

import pytest
from enshu_cards import ICP_MONTHS

from simcore.games.enshu.compile import compile_rules, teyaku_options
from simcore.games.enshu.reference import deal_slots, misdeal_at_deal, play_unit, shuffle_in_place
from simcore.policies import parse_policy
from simcore.rng import DEAL_STREAM, Stream
from simcore.rules.loader import load_rules

SEED = 424242
BRIGHT_MONTHS = (1, 3, 8, 12)


def first_deals(compiled, n_rounds: int):
    """The first deal of each round (before any redeal): (field mask, hands)."""
    for r in range(n_rounds):
        slots = shuffle_in_place(list(range(48)), Stream(SEED, r, DEAL_STREAM))
        field, hands, _ = deal_slots(compiled, slots, 0)
        yield field, hands


def standing_deals(compiled, n_rounds: int):
    """The deal that stands in each round and its number of redeals."""
    for r in range(n_rounds):
        stream = Stream(SEED, r, DEAL_STREAM)
        redeals = 0
        while True:
            slots = shuffle_in_place(list(range(48)), stream)
            field, hands, _ = deal_slots(compiled, slots, 0)
            if not misdeal_at_deal(compiled, field, hands):
                break
            redeals += 1
        yield field, hands, redeals


def assert_rate(count: int, trials: int, p: float, what: str) -> None:
    expected = trials * p
    sigma = sqrt(trials * p * (1 - p))
    assert abs(count - expected) <= 5 * sigma + 1, f"{what}: {count} of {trials}, expected {expected:.1f} +- {sigma:.1f}"


# --- exact probabilities ---------------------------------------------------------------------------


def p_field_four(field_size: int) -> float:
    """P(some month has all four cards among ``field_size`` cards), by inclusion-exclusion."""
    total = comb(48, field_size)
    p = 0
    for k in range(1, field_size // 4 + 1):
        p += (-1) ** (k + 1) * comb(12, k) * comb(48 - 4 * k, field_size - 4 * k)
    return p / total


@cache
def field_table(field_size: int) -> dict[tuple[int, int], int]:
    """Variant C: the number of fields that pass the field misdeal checks (no month with four,
    no I/C/P month with three), by (Brights on the field, I/C/P months with no field card)."""
    states: dict[tuple[int, int, int], int] = {(0, 0, 0): 1}  # (cards, brights, empty I/C/P months)
    for month in range(1, 13):
        icp = month in ICP_MONTHS
        most = 2 if icp else 3
        bright = month in BRIGHT_MONTHS
        new: dict[tuple[int, int, int], int] = {}
        for (cards, brights, empty), ways in states.items():
            for k in range(0, most + 1):
                if cards + k > field_size:
                    break
                for b in (0, 1) if bright else (0,):
                    if b > k:
                        continue
                    w = comb(1, b) * comb(3, k - b) if bright else comb(4, k)
                    key = (cards + k, brights + b, empty + (icp and k == 0))
                    new[key] = new.get(key, 0) + ways * w
        states = new
    return {(b, z): w for (cards, b, z), w in states.items() if cards == field_size}


def p_no_hand_four(players: int, remaining: int, empty: int, hand: int = 7) -> float:
    """P(no hand of ``hand`` cards holds all four cards of one of ``empty`` months), the hands
    dealt from ``remaining`` cards that include all four cards of those months.

    A hand cannot hold two such fours (8 > 7), so the events of one month are disjoint across
    hands and a set of t months is placed injectively: n!/(n-t)! ways, each of probability
    (R-4t)! 7!^t / (R! 3!^t).
    """
    total = 0.0
    for t in range(0, min(empty, players) + 1):
        assignments = factorial(players) // factorial(players - t)
        one = factorial(remaining - 4 * t) * factorial(hand) ** t / (factorial(remaining) * factorial(hand - 4) ** t)
        total += (-1) ** t * comb(empty, t) * assignments * one
    return total


def c_valid_by_brights(players: int) -> dict[int, float]:
    """Variant C: P(a deal stands and has b Brights on the field), b = 0..4."""
    out = dict.fromkeys(range(5), 0.0)
    for (b, empty), ways in field_table(6).items():
        out[b] += ways / comb(48, 6) * p_no_hand_four(players, 42, empty)
    return out


def hand_probability(predicate, hand: int = 7) -> float:
    """P(a random ``hand``-card hand has month counts satisfying ``predicate(counts)``)."""
    states: dict[tuple[int, ...], int] = {(): 1}
    for _ in range(12):
        new: dict[tuple[int, ...], int] = {}
        for counts, ways in states.items():
            used = sum(counts)
            for k in range(0, min(4, hand - used) + 1):
                key = counts + (k,)
                new[key] = new.get(key, 0) + ways * comb(4, k)
        states = new
    good = sum(w for counts, w in states.items() if sum(counts) == hand and predicate(counts))
    return good / comb(48, hand)


def months(counts, wanted) -> list[int]:
    return [m for m in range(1, 13) if counts[m - 1] == wanted]


# --- misdeals ------------------------------------------------------------------------------------------


def test_exact_probabilities_are_consistent():
    # Total of the C field table: every 6-card field that passes the field checks.
    fields_ok = sum(field_table(6).values())
    assert 0 < fields_ok < comb(48, 6)
    # With no empty I/C/P month there is no hand check: the IE sum is 1.
    assert p_no_hand_four(3, 42, 0) == 1
    # One empty I/C/P month, one player holding 7 of 42 cards: P(all four) = C(38, 3) / C(42, 7).
    assert p_no_hand_four(1, 42, 1) == pytest.approx(1 - comb(38, 3) / comb(42, 7))
    # The month-count enumeration covers every hand once.
    assert hand_probability(lambda c: True, 6) == pytest.approx(1.0)
    assert hand_probability(lambda c: True, 7) == pytest.approx(1.0)


@pytest.mark.parametrize(("name", "players", "n_rounds"), [("enshu-w", 2, 20000), ("enshu-c", 3, 12000)])
@pytest.mark.slow
def test_misdeal_rate_of_a_deal(name, players, n_rounds):
    c = compile_rules(load_rules(name, {"enshu.players": players}))
    if name == "enshu-w":
        p = p_field_four(8)  # 2 players: 8 cards on the field (about 0.43 %)
    else:
        p = 1 - sum(c_valid_by_brights(players).values())  # about 1.5 % (1.4 % from the field alone)
    misdeals = sum(bool(misdeal_at_deal(c, field, hands)) for field, hands in first_deals(c, n_rounds))
    assert_rate(misdeals, n_rounds, p, f"{name} misdeals")


@pytest.mark.slow
def test_field_multiplier_distribution_of_standing_deals():
    # Variant C, 3 players: M = 1 + Brights on the field (before raises), conditioned on the deal
    # standing (field and hand misdeal checks of 3.3 step 3).
    c = compile_rules(load_rules("enshu-c"))
    joint = c_valid_by_brights(3)
    valid = sum(joint.values())
    p = {b: joint[b] / valid for b in range(5)}
    bright_mask = int(c.bright_mask)
    n = 12000
    counts = dict.fromkeys(range(5), 0)
    redeals = 0
    for field, _, r in standing_deals(c, n):
        counts[(field & bright_mask).bit_count()] += 1
        redeals += r
    # b = 3 and 4 are rare; pooled.
    for bins in ((0,), (1,), (2,), (3, 4)):
        assert_rate(sum(counts[b] for b in bins), n, sum(p[b] for b in bins), f"M - 1 in {bins}")
    # Redeals per round are geometric: mean q / (1 - q).
    q = 1 - valid
    mean = q / (1 - q)
    sd = sqrt(q) / (1 - q)
    assert abs(redeals / n - mean) <= 5 * sd / sqrt(n)


def test_engine_deals_like_the_loop():
    c = compile_rules(load_rules("enshu-c"))
    specs = [parse_policy("random")] * 3
    for r, (field, hands, redeals) in enumerate(standing_deals(c, 60)):
        [result] = play_unit(c, specs, SEED, r, None)
        dealer = r % 3
        # standing_deals cuts for dealer 0; rotate the hands to the round's dealer.
        if dealer:
            stream = Stream(SEED, r, DEAL_STREAM)
            while True:
                slots = shuffle_in_place(list(range(48)), stream)
                field, hands, _ = deal_slots(c, slots, dealer)
                if not misdeal_at_deal(c, field, hands):
                    break
        assert (result.field_dealt, result.hand_dealt, result.redeals) == (field, hands, redeals)


# --- teyaku in a dealt hand ------------------------------------------------------------------------------

W_TEYAKU = {
    # Four of a Kind: some month with all four cards.
    "teshi": lambda counts: bool(months(counts, 4)),
    # Triplet: exactly three cards of Iris, Chrysanthemum or Paulownia.
    "sanbon": lambda counts: any(m in ICP_MONTHS for m in months(counts, 3)),
}
C_TEYAKU = {
    # Four of a Kind of a month other than Iris, Chrysanthemum, Paulownia.
    "shihon": lambda counts: any(m not in ICP_MONTHS for m in months(counts, 4)),
    # Triplet: exactly three cards of any month.
    "sanbon": lambda counts: bool(months(counts, 3)),
}
# Group B in closed form: 23 junk cards (the 24 chaff without the Lightning), 10 Animals, 10 Ribbons.
C_JUNK = {
    "soppe": comb(23, 7) / comb(48, 7),
    "toichi": 10 * comb(23, 6) / comb(48, 7),
    "tanichi": 10 * comb(23, 6) / comb(48, 7),
}


@pytest.mark.parametrize(("name", "table"), [("enshu-w", W_TEYAKU), ("enshu-c", C_TEYAKU)])
@pytest.mark.slow
def test_teyaku_frequency_in_a_dealt_hand(name, table):
    c = compile_rules(load_rules(name))
    n_rounds = 8000
    expected = {key: hand_probability(predicate) for key, predicate in table.items()}
    if name == "enshu-c":
        expected.update(C_JUNK)
    counts = dict.fromkeys(expected, 0)
    hands_seen = 0
    for _, hands in first_deals(c, n_rounds):
        for hand in hands:
            hands_seen += 1
            for key in {option.key for option in teyaku_options(c, hand, None)} & set(counts):
                counts[key] += 1
    for key, p in expected.items():
        assert_rate(counts[key], hands_seen, p, f"{name} {key}")
