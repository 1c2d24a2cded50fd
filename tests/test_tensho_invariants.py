"""An invariant harness over a few thousand random rounds of the Tensho reference engine.

The engine's round object is replaced by a subclass that checks, after the deal, the opening,
banking the six and every played or turned card, that the 45 cards are each in exactly one place,
and at the end of the round that the turn count, the unturned draw cards and the whole score (yaku
after supersession, chaff, card values, the tie-break chain, payoffs) agree with an independent
reading of docs/tensho.md (a round, yaku, supersession) (the tables of ``tensho_cards``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tensho_cards import (
    ALL_CARDS,
    CHAFF_A,
    CHAFF_B,
    COIN,
    CUP,
    FULL_MASK,
    RANKS,
    SIX_OF_CLUBS,
    T1,
    T2,
    T3,
    rank,
    rank_cards,
    scoring_yaku,
    yaku_points,
)

import simcore.games.tensho.reference as tensho
from simcore.cards import ids_of, mask_of
from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.enums import END_REASONS
from simcore.games.tensho.options import OPTIONS
from simcore.policies import parse_policy
from simcore.rules import load_rules

RANK_MASKS = {r: mask_of(rank_cards(r)) for r in RANKS}
CHAFF_SETS = {
    "A": CHAFF_A, "B": CHAFF_B, "C": frozenset(COIN.values()) | frozenset(CUP.values()),
    "D": frozenset(c for c in ALL_CARDS if T1[c] == 1), "E": frozenset(c for c in ALL_CARDS if T2[c] == 1),
    "F": frozenset(c for c in ALL_CARDS if T3[c] == 1),
}
tensho_rank = rank
VALUE_TABLES = {"T1_ise": T1, "T2_alt": T2, "T3_hanafuda": T3}


@dataclass
class Coverage:
    rounds: int = 0
    instant_wins: int = 0
    banked: int = 0
    claims: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    max_field_rank: int = 0
    doubles: int = 0
    triples: int = 0
    declined: int = 0


class CheckedRound(tensho.RoundState):
    """The engine's round with invariant checks after every step that moves a card."""

    coverage = Coverage()

    def deal(self, deck):
        redeals = super().deal(deck)
        self.field_dealt_mask = self.field
        self.hands_dealt = list(self.hands)
        self.banked_by = -1
        self.plays_by_seat = [0, 0]
        self.turned = 0
        opts = self.rules.options
        if opts["tensho.field_four_of_rank"] == "redeal":
            assert all((self.field & m).bit_count() < 4 for m in RANK_MASKS.values()), "four of a rank dealt"
        self.check("deal")
        return redeals

    def claim(self, rank, pair):
        super().claim(rank, pair)
        assert self.claimed & ~self.field_dealt_mask == 0
        assert all(tensho_rank(card) == rank for card in pair)
        type(self).coverage.claims += 1
        self.check("opening claim")

    def bank(self, seat):
        assert self.hands[seat] >> SIX_OF_CLUBS & 1
        super().bank(seat)
        self.banked_by = seat
        assert self.piles[seat] >> SIX_OF_CLUBS & 1
        self.check("bank")

    def place(self, seat, card, source, taken, choices, declined=False):
        if source == "play":
            self.plays_by_seat[seat] += 1
        else:
            self.turned += 1
        field_before, piles_before = self.field, list(self.piles)
        super().place(seat, card, source, taken, choices, declined)
        where = f"turn {self.turn} {source} of card {card}"
        self.check(where)
        self.check_capture(where, seat, card, source, field_before, piles_before)

    def apply(self, action):
        super().apply(action)
        if self.result is None:  # paused at a decision: every card still in exactly one place
            self.check(f"turn {self.turn}, before {self.decision().kind}")

    def check_capture(self, where, seat, card, source, field_before, piles_before) -> None:
        """docs/tensho.md#a-round, step 4, with tensho.triple_match, double_match and
        capture_mandatory."""
        opts = self.rules.options
        cov = type(self).coverage
        assert self.piles[1 - seat] == piles_before[1 - seat], where
        gained = self.piles[seat] & ~piles_before[seat]
        taken = field_before & ~self.field
        card_bit = 1 << card
        if card == SIX_OF_CLUBS:  # straight into the active player's pile
            assert (gained, self.field) == (card_bit, field_before), where
            return
        matches = field_before & RANK_MASKS[tensho_rank(card)]
        n = matches.bit_count()
        if n == 0 or (gained == 0 and self.field == field_before | card_bit):
            # nothing matches, or a played card left on the field (only if capture is optional)
            assert (gained, self.field) == (0, field_before | card_bit), where
            if n:
                assert source == "play" and opts["tensho.capture_mandatory"] == "false", where
                cov.declined += 1
            return
        assert gained == card_bit | taken and taken & ~matches == 0, where
        if n >= 3 and opts["tensho.triple_match"] == "all":
            assert taken == matches, where
            cov.triples += 1
        else:
            assert taken.bit_count() == 1, where
        if n == 2:
            cov.doubles += 1
            if opts["tensho.double_match"] == "highest_value_first":
                values = VALUE_TABLES[str(opts["tensho.card_values"])]
                best = max(values[c] for c in ids_of(matches))
                assert values[ids_of(taken)[0]] == best, where

    def check(self, where: str) -> None:
        parts = [self.hands[0], self.hands[1], self.field, self.piles[0], self.piles[1],
                 mask_of(self.draw), self.dead, self.in_play]
        assert sum(p.bit_count() for p in parts) == 45, f"{where}: a card is in two places"
        union = 0
        for p in parts:
            union |= p
        assert union == FULL_MASK, f"{where}: cards missing {ids_of(FULL_MASK & ~union)}"
        assert len(self.draw) == 18 - self.turned - (self.in_play != 0 and self.decision().info["source"] == "draw"), where
        assert self.dead.bit_count() == 6, where
        if self.rules.options["tensho.capture_mandatory"] == "true":
            # docs/tensho.md#a-round, step 4: two or more cards of a rank stay on the field only if
            # dealt there
            for rank_mask in RANK_MASKS.values():
                on_field = self.field & rank_mask
                if on_field.bit_count() >= 2:
                    assert on_field & ~self.field_dealt_mask == 0, f"{where}: {ids_of(on_field)} not dealt"
                    cov = type(self).coverage
                    cov.max_field_rank = max(cov.max_field_rank, on_field.bit_count())
        if not self.field_dealt_mask >> SIX_OF_CLUBS & 1:
            assert not self.field >> SIX_OF_CLUBS & 1, f"{where}: the 6 of clubs reached the field"

    def finish(self):
        super().finish()
        self.check_result(self.result)

    def check_result(self, result) -> None:
        opts = self.rules.options
        cov = type(self).coverage
        cov.rounds += 1
        why = END_REASONS[result.end_reason]
        cov.reasons[why] = cov.reasons.get(why, 0) + 1
        assert result.captured == self.piles
        assert result.field_dealt == self.field_dealt_mask
        assert result.hand_dealt == self.hands_dealt
        assert result.end_turn == self.turn
        banked = self.banked_by >= 0
        cov.banked += banked
        full_turns = 11 if banked else 12
        if why == "instant_win":
            cov.instant_wins += 1
            assert 1 <= self.turn <= full_turns
            # the active seat won; after_each_capture may stop before the turn's draw
            skipped_draw = self.turned == self.turn - 1
            assert self.turned == self.turn or (
                skipped_draw and opts["tensho.instant_win_check"] == "after_each_capture")
        else:
            # docs/tensho.md#a-round: each player takes 6 turns (5 after banking the six), 6 draw
            # cards (7 after banking) are never turned
            assert self.hands == [0, 0]
            assert self.turn == full_turns and self.turned == full_turns
            assert len(self.draw) == 18 - full_turns
            expected_plays = [6, 6]
            if banked:
                expected_plays[self.banked_by] = 5
            assert self.plays_by_seat == expected_plays
        # yaku after supersession, from docs/tensho.md#yaku and #supersession
        variants = {"ten_horse_king": opts["tensho.ten_horse_king"],
                    "back_two_card": (opts["tensho.back_two_card"] if self.rules.name == "tensho-hanafuda"
                                      else "swallow")}
        keys = [scoring_yaku(ids_of(p), result.yaku_set, str(opts["tensho.supersession"]), **variants)
                for p in self.piles]
        index = {y.key: y.index for y in self.rules.yaku}
        assert result.yaku == [sum(1 << index[k] for k in ks) for ks in keys]
        points = [yaku_points(ks, result.yaku_set) for ks in keys]
        assert result.yaku_points == points
        chaff_set = CHAFF_SETS[str(opts["tensho.chaff_set"])]
        chaff = [len(set(ids_of(p)) & chaff_set) for p in self.piles]
        assert result.chaff == chaff
        values = VALUE_TABLES[str(opts["tensho.card_values"])]
        card_points = [sum(values[c] for c in ids_of(p)) for p in self.piles]
        assert result.card_points == card_points
        # docs/tensho.md#a-round, step 6: the tie-break chain
        if why == "instant_win":
            assert result.score[result.winner] == opts["tensho.instant_win_score"]
            assert result.score[1 - result.winner] == 0
        else:
            winner, expect_why = self.expected_winner(points, chaff, card_points)
            assert (result.winner, why) == (winner, expect_why)
            assert result.score == points
        assert sum(result.payoff) == 0
        if opts["tensho.match_scoring"] == "round_wins":
            assert result.payoff == ([0, 0] if result.winner < 0 else
                                     [1 if s == result.winner else -1 for s in (0, 1)])
        else:
            assert result.payoff == [result.score[0] - result.score[1], result.score[1] - result.score[0]]

    def expected_winner(self, points, chaff, card_points):
        opts = self.rules.options
        if points[0] != points[1]:
            return (0 if points[0] > points[1] else 1), "yaku"
        skip_chaff = opts["tensho.no_yaku_tiebreak"] == "values_only" and points == [0, 0]
        if not skip_chaff and chaff[0] != chaff[1]:
            return (0 if chaff[0] > chaff[1] else 1), "chaff"
        if card_points[0] != card_points[1]:
            return (0 if card_points[0] > card_points[1] else 1), "card_value"
        tie = opts["tensho.final_tie"]
        if tie == "dealer_wins":
            return self.dealer, "final_tie_rule"
        if tie == "non_dealer_wins":
            return 1 - self.dealer, "final_tie_rule"
        return -1, "draw"


COMBINATIONS = [
    # (id, rules file, options, policies, units, rounds per match (None = independent rounds))
    ("ise-defaults", "tensho-ise", {}, ("random", "random"), 1500, None),
    ("capture-options", "tensho-ise",
     {"triple_match": "one", "double_match": "highest_value_first", "capture_mandatory": "false",
      "opening_claim_scope": "one_triple", "field_four_of_rank": "stuck", "six_on_field": "dealer_captures",
      "chaff_set": "A", "final_tie": "non_dealer_wins"},
     ("greedy", "random"), 800, None),
    ("bank-and-set-2", "tensho-ise",
     {"six_in_hand": "bank_at_deal", "field_four_of_rank": "opening_rule_applies", "yaku_set_choice": "fixed_2",
      "instant_win_check": "end_of_turn", "supersession": "none", "final_tie": "dealer_wins",
      "match_scoring": "yaku_points", "card_values": "T2_alt", "chaff_set": "D"},
     ("random", "greedy"), 800, None),
    ("hanafuda-match-play", "tensho-hanafuda",
     {"back_two_card": "rain_man", "ten_horse_king": "10_9_12", "yaku_set_choice": "dealer_policy",
      "supersession": "all_subsets", "no_yaku_tiebreak": "values_only", "deal_procedure": "physical",
      "match_tie": "extra_round", "six_in_hand": "bank_at_deal", "chaff_set": "C"},
     ("random", "random"), 150, 6),
    ("greedy-both", "tensho-ise",
     {"yaku_set_choice": "alternate", "supersession": "young_old_only", "chaff_set": "F",
      "card_values": "T3_hanafuda", "instant_win_check": "end_of_turn"},
     ("greedy", "greedy"), 300, None),
]


@pytest.mark.parametrize(("rules_name", "options", "policies", "units", "per_match"),
                         [c[1:] for c in COMBINATIONS], ids=[c[0] for c in COMBINATIONS])
@pytest.mark.slow
def test_invariants_hold_on_random_rounds(monkeypatch, rules_name, options, policies, units, per_match):
    compiled = compile_rules(load_rules(rules_name, {f"tensho.{k}": v for k, v in options.items()}))
    specs = [parse_policy(p) for p in policies]
    monkeypatch.setattr(tensho, "RoundState", CheckedRound)
    monkeypatch.setattr(CheckedRound, "coverage", Coverage())
    for unit in range(units):
        results = tensho.play_unit(compiled, specs, 20240601, unit, per_match)
        if per_match is not None:
            # the match: rounds_per_match rounds (more only while tied), winner deals next
            assert len(results) >= per_match
            for before, after in zip(results, results[1:], strict=False):
                assert after.dealer == (before.winner if before.winner >= 0 else before.dealer)
    coverage = CheckedRound.coverage
    assert coverage.rounds >= units
    # the harness must have seen the interesting paths of each combination
    assert coverage.claims > 0
    assert coverage.max_field_rank >= 2 or options.get("capture_mandatory") == "false"
    if options.get("six_in_hand") == "bank_at_deal":
        assert coverage.banked > 0
    if options.get("yaku_set_choice") in ("fixed_2", "dealer_policy", "alternate"):
        assert coverage.instant_wins > 0
    assert {"yaku", "chaff"} <= set(coverage.reasons)
    assert coverage.doubles > 0
    if options.get("capture_mandatory") == "false":
        assert coverage.declined > 0


CHOICE_OPTIONS = {name: spec.choices for name, spec in OPTIONS.items() if spec.choices}


@settings(max_examples=120, deadline=None, database=None)
@given(data=st.data(), rules_name=st.sampled_from(["tensho-ise", "tensho-hanafuda"]),
       seed=st.integers(0, 2**63 - 1), policies=st.tuples(*[st.sampled_from(["random", "greedy"])] * 2))
@pytest.mark.slow
def test_invariants_hold_for_any_option_combination(data, rules_name, seed, policies):
    options = {name: data.draw(st.sampled_from(choices), label=name) for name, choices in CHOICE_OPTIONS.items()}
    compiled = compile_rules(load_rules(rules_name, options))
    specs = [parse_policy(p) for p in policies]
    with mock.patch.object(tensho, "RoundState", CheckedRound), mock.patch.object(CheckedRound, "coverage", Coverage()):
        for unit in range(3):
            tensho.play_unit(compiled, specs, seed, unit, None)
        assert CheckedRound.coverage.rounds == 3
