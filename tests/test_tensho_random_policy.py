"""The uniform random policy as docs/policies.md#random defines it, observed through the engine.

Every decision is uniform over its legal options: the opening claim declines a field triple with
probability 1/2 and otherwise takes one of its three pairs (1/6 each); the hand card is uniform
over the hand; a card matching two field cards takes each with probability 1/2; the yaku set
(when the dealer chooses) is 1 or 2 with probability 1/2.  Options that add choices add legal
options: leaving a played card on the field (capture_mandatory = false), one of three
(triple_match = one), banking the six (bank_at_deal).

Fixed deals are replayed with many policy seeds; each frequency must lie within 4.5 standard
errors of its exact value.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import cache

import pytest
from tensho_cards import (
    EIGHT_OF_COINS,
    EIGHT_OF_CUPS,
    FIVE_OF_COINS,
    FIVE_OF_CUPS,
    FOUR_OF_COINS,
    FOUR_OF_CUPS,
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
    ONE_OF_CLUBS,
    ONE_OF_COINS,
    ONE_OF_CUPS,
    ONE_OF_SWORDS,
    SEVEN_OF_COINS,
    SEVEN_OF_CUPS,
    SIX_OF_CLUBS,
    TEN_OF_CLUBS,
    TEN_OF_COINS,
    TEN_OF_CUPS,
    TEN_OF_SWORDS,
    THREE_OF_COINS,
    THREE_OF_CUPS,
    TWO_OF_COINS,
    TWO_OF_CUPS,
    build_deck,
)

from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.enums import END_REASONS
from simcore.games.tensho.reference import play_unit
from simcore.games.tensho.replay import replay_deck
from simcore.policies import parse_policy
from simcore.rules import load_rules

RANDOM = [parse_policy("random"), parse_policy("random")]
Z = 4.5


@cache
def _compiled(options: tuple[tuple[str, str], ...]):
    return compile_rules(load_rules("tensho-ise", dict(options)))


def random_rounds(deck, n: int, **options: str):
    compiled = _compiled(tuple(sorted((f"tensho.{k}", v) for k, v in options.items())))
    return [replay_deck(compiled, deck, None, RANDOM, seed=seed) for seed in range(n)]


def events(result, kind: str) -> list[dict]:
    return [e for e in result.events if e["type"] == kind]


def assert_uniform(counts: Counter, options: list, n: int, what: str) -> None:
    """Each of ``options`` was seen n / len(options) times, within Z standard errors."""
    assert set(counts) <= set(options), f"{what}: illegal outcomes {set(counts) - set(options)}"
    p = 1 / len(options)
    standard_error = math.sqrt(n * p * (1 - p))
    for option in options:
        assert abs(counts[option] - n * p) <= Z * standard_error, (
            f"{what}: {option!r} seen {counts[option]} times in {n}, expected {n * p:.0f}")


# A rank-1 triple on the field (1Co 1Cu 1S); the dealer holds no rank-1 card and the first card
# of the draw pile is 1C, the fourth rank-1 card.
TRIPLE_DECK = build_deck(
    [ONE_OF_COINS, ONE_OF_CUPS, ONE_OF_SWORDS, NINE_OF_COINS, NINE_OF_CUPS, TEN_OF_COINS, TEN_OF_CUPS,
     HORSE_OF_COINS, KING_OF_COINS],
    [TWO_OF_COINS, THREE_OF_COINS, FOUR_OF_COINS, FIVE_OF_COINS, SEVEN_OF_COINS, EIGHT_OF_COINS],
    [TWO_OF_CUPS, THREE_OF_CUPS, FOUR_OF_CUPS, FIVE_OF_CUPS, SEVEN_OF_CUPS, EIGHT_OF_CUPS],
    [ONE_OF_CLUBS])
TRIPLE_PAIRS = [(ONE_OF_SWORDS, ONE_OF_COINS), (ONE_OF_SWORDS, ONE_OF_CUPS), (ONE_OF_COINS, ONE_OF_CUPS)]


@pytest.mark.slow
def test_opening_claim_and_first_play():
    n = 3000
    claims: Counter = Counter()
    first_plays = {0: Counter(), 1: Counter()}
    for result in random_rounds(TRIPLE_DECK, n):
        claim = events(result, "opening_claim")
        choice = tuple(sorted(claim[0]["cards"])) if claim else "decline"
        claims[choice] += 1
        # a claim makes the non-dealer play first (docs/tensho.md#a-round, step 3)
        assert result.first_player == (1 if claim else 0)
        first = events(result, "play")[0]
        assert first["seat"] == result.first_player
        first_plays[first["seat"]][first["card"]] += 1
    # decline 1/2, each pair 1/6: i.e. decline against "claim" uniform, and the pairs uniform
    assert_uniform(Counter({"decline": claims["decline"], "claim": n - claims["decline"]}),
                   ["decline", "claim"], n, "opening claim")
    pairs = Counter({k: v for k, v in claims.items() if k != "decline"})
    assert_uniform(pairs, [tuple(sorted(p)) for p in TRIPLE_PAIRS], sum(pairs.values()), "claimed pair")
    # the first card played is uniform over the first player's six cards
    assert_uniform(first_plays[0], TRIPLE_DECK[9:15], sum(first_plays[0].values()), "dealer's first card")
    assert_uniform(first_plays[1], TRIPLE_DECK[15:21], sum(first_plays[1].values()), "non-dealer's first card")


@pytest.mark.slow
def test_triple_match_one_picks_each_of_three():
    # Declined rounds only: the dealer plays a card of another rank, then turns 1C, which
    # matches the three rank-1 field cards: triple_match = one takes one of them, 1/3 each.
    taken: Counter = Counter()
    for result in random_rounds(TRIPLE_DECK, 3000, triple_match="one"):
        if events(result, "opening_decline"):
            draw = events(result, "draw")[0]
            assert draw["card"] == ONE_OF_CLUBS and len(draw["captured"]) == 2
            taken[draw["captured"][1]] += 1
    assert_uniform(taken, [ONE_OF_SWORDS, ONE_OF_COINS, ONE_OF_CUPS], sum(taken.values()), "one of three")


# Every dealer card matches two field cards (ranks 10, 11, 12); the first turned card 9Cu
# matches the two rank-9 field cards whatever the dealer played.
DOUBLE_DECK = build_deck(
    [NINE_OF_CLUBS, NINE_OF_COINS, TEN_OF_CLUBS, TEN_OF_COINS, HORSE_OF_CLUBS, HORSE_OF_COINS,
     KING_OF_CLUBS, KING_OF_COINS, ONE_OF_COINS],
    [TEN_OF_SWORDS, TEN_OF_CUPS, HORSE_OF_SWORDS, HORSE_OF_CUPS, KING_OF_SWORDS, KING_OF_CUPS],
    [TWO_OF_COINS, THREE_OF_COINS, FOUR_OF_COINS, FIVE_OF_COINS, SEVEN_OF_COINS, EIGHT_OF_COINS],
    [NINE_OF_CUPS])


@pytest.mark.slow
def test_two_matches_take_each_card_with_probability_one_half():
    n = 3000
    played_takes_club = turned_takes_club = 0
    for result in random_rounds(DOUBLE_DECK, n):
        play, draw = events(result, "play")[0], events(result, "draw")[0]
        assert len(play["captured"]) == 2 and len(draw["captured"]) == 2
        played_takes_club += play["captured"][1] in (TEN_OF_CLUBS, HORSE_OF_CLUBS, KING_OF_CLUBS)
        turned_takes_club += draw["captured"][1] == NINE_OF_CLUBS
    assert_uniform(Counter({"club": played_takes_club, "coin": n - played_takes_club}), ["club", "coin"], n,
                   "played card's choice")
    assert_uniform(Counter({"club": turned_takes_club, "coin": n - turned_takes_club}), ["club", "coin"], n,
                   "turned card's choice")


@pytest.mark.slow
def test_optional_capture_adds_one_option():
    # capture_mandatory = false: a played card matching one field card is captured or left on
    # the field with probability 1/2; matching two, each card or the field 1/3 each.
    n = 2000
    single_deck = build_deck(
        [ONE_OF_COINS, TWO_OF_COINS, THREE_OF_COINS, FOUR_OF_COINS, FIVE_OF_COINS, SEVEN_OF_COINS,
         EIGHT_OF_COINS, NINE_OF_COINS, TEN_OF_COINS],
        [ONE_OF_CUPS, TWO_OF_CUPS, THREE_OF_CUPS, FOUR_OF_CUPS, FIVE_OF_CUPS, SEVEN_OF_CUPS],
        [HORSE_OF_CUPS, KING_OF_CUPS, HORSE_OF_CLUBS, KING_OF_CLUBS, EIGHT_OF_CUPS, NINE_OF_CUPS])
    single: Counter = Counter()
    for result in random_rounds(single_deck, n, capture_mandatory="false"):
        single["left" if events(result, "play")[0]["to"] == "field" else "taken"] += 1
    assert_uniform(single, ["left", "taken"], n, "single match, capture optional")
    double: Counter = Counter()
    for result in random_rounds(DOUBLE_DECK, n, capture_mandatory="false"):
        play = events(result, "play")[0]
        double["left" if play["to"] == "field" else
               "club" if play["captured"][1] in (TEN_OF_CLUBS, HORSE_OF_CLUBS, KING_OF_CLUBS) else "coin"] += 1
    assert_uniform(double, ["left", "club", "coin"], n, "double match, capture optional")


@pytest.mark.slow
def test_bank_the_six_with_probability_one_half():
    deck = build_deck(
        [ONE_OF_COINS, ONE_OF_CUPS, NINE_OF_COINS, NINE_OF_CUPS, TEN_OF_COINS, TEN_OF_CUPS, HORSE_OF_COINS,
         HORSE_OF_CUPS, KING_OF_COINS],
        [SIX_OF_CLUBS], [])
    n = 3000
    banked = Counter()
    for result in random_rounds(deck, n, six_in_hand="bank_at_deal"):
        banked["bank" if events(result, "bank_six") else "keep"] += 1
        assert result.end_turn == (11 if events(result, "bank_six") else 12) or (
            END_REASONS[result.end_reason] == "instant_win")
    assert_uniform(banked, ["bank", "keep"], n, "bank the six")


@pytest.mark.slow
def test_dealer_chooses_each_yaku_set_with_probability_one_half():
    compiled = _compiled((("tensho.yaku_set_choice", "dealer_policy"),))
    n = 4000
    sets = Counter(play_unit(compiled, RANDOM, 5, unit, None)[0].yaku_set for unit in range(n))
    assert_uniform(sets, [1, 2], n, "yaku set")
