"""Hand-built koi-koi rounds through the reference engine: the koi-koi decision is the acting
seat's, where the rules stop a seat instead, every exhausted-round option, the dealt hands, the
koi-koi bonus over a whole round, and match play (the winner deals next, an early end)."""

from __future__ import annotations

import pytest
from koikoi_cards import (
    CHERRY_CURTAIN,
    CHRYS_CHAFF_1,
    CHRYS_SAKE_CUP,
    DRY_BRIGHTS,
    IRIS_CHAFF_1,
    MAPLE_CHAFF_1,
    OTHER_ANIMALS,
    PAULOWNIA_CHAFF_1,
    PINE_CRANE,
    PLAIN_DECK,
    PLAIN_RIBBONS,
    SUSUKI_CHAFF_1,
    SUSUKI_MOON,
    build_deck,
    compiled,
    month_cards,
    position,
)

from simcore.errors import DealError
from simcore.games.koikoi import enums as E
from simcore.games.koikoi.policies import make_policy
from simcore.games.koikoi.reference import RoundSetup, RoundState, next_dealer, play_unit
from simcore.games.koikoi.scoring import dealt_hand
from simcore.hanafuda import month_of
from simcore.policies import PolicySpec, parse_policy
from simcore.rng import Stream

RANDOM = [PolicySpec("random"), PolicySpec("random")]


def fillers(n: int, avoid: list[int]) -> list[int]:
    """``n`` cards of months none of ``avoid`` has (hand cards that match nothing on the field)."""
    months = {month_of(x) for x in avoid}
    return [x for x in range(48) if month_of(x) not in months][:n]


def sanko_turn(c, *, dealer: int = 0, turn: int = 1, calls=(0, 0), other_pile=()):
    """A position at ``turn`` where the acting seat holds two dry brights and takes the Moon with
    a Susuki chaff, then turns a card matching nothing: its yaku rise to Three Brights."""
    seat = dealer if turn % 2 else 1 - dealer
    left = 8 - (turn - 1) // 2
    other_left = 8 - turn // 2
    used = [PINE_CRANE, CHERRY_CURTAIN, SUSUKI_CHAFF_1, SUSUKI_MOON, PAULOWNIA_CHAFF_1, *other_pile]
    spare = fillers(left - 1 + other_left, used)
    hands = [[], []]
    hands[seat] = [SUSUKI_CHAFF_1] + spare[:left - 1]
    hands[1 - seat] = spare[left - 1:]
    piles = [[], []]
    piles[seat] = [PINE_CRANE, CHERRY_CURTAIN]
    piles[1 - seat] = list(other_pile)
    state = position(c, turn=turn, dealer=dealer, hands=hands, field=[SUSUKI_MOON], piles=piles,
                     draw_top=[PAULOWNIA_CHAFF_1], calls=calls)
    return state, seat


@pytest.mark.parametrize("dealer", [0, 1])
def test_the_koikoi_decision_is_the_acting_seats(dealer):
    state, seat = sanko_turn(compiled("koikoi"), dealer=dealer, turn=2)
    state.apply(SUSUKI_CHAFF_1)
    decision = state.decision()
    assert decision.kind == "koikoi" and decision.seat == seat == 1 - dealer
    assert decision.actions == (False, True)
    state.apply(False)
    result = state.result
    assert (result.winner, E.END_REASONS[result.end_reason], result.end_turn) == (seat, "stop", 2)
    assert result.score[seat] == 5 and result.payoff == [5 if s == seat else 0 for s in range(2)]
    assert result.yaku_points[seat] == 5 and result.yaku[seat] == 1 << E.Y_THREE_BRIGHTS


def test_a_koikoi_call_plays_on_and_is_recorded():
    state, seat = sanko_turn(compiled("koikoi"), turn=3)
    state.apply(SUSUKI_CHAFF_1)
    state.apply(True)
    assert state.calls == [1, 0] and state.last_caller == seat == 0
    decision = state.decision()
    assert decision.kind == "play" and decision.seat == 1 and state.turn == 4


def test_zero_sum_scoring_takes_the_points_from_the_loser():
    state, seat = sanko_turn(compiled("koikoi-kkj"))
    state.apply(SUSUKI_CHAFF_1)
    state.apply(False)
    assert state.result.payoff == [5, -5]


def test_the_last_turn_stops_the_round():
    state, seat = sanko_turn(compiled("koikoi"), turn=15)
    state.apply(SUSUKI_CHAFF_1)
    result = state.result
    assert state.decision() is None
    assert (result.winner, E.END_REASONS[result.end_reason], result.end_turn) == (0, "forced_stop", 15)
    state, _ = sanko_turn(compiled("koikoi", last_turn="koikoi_allowed"), turn=15)
    state.apply(SUSUKI_CHAFF_1)
    assert state.decision().kind == "koikoi"


@pytest.mark.parametrize(("limit", "calls", "asked"), [
    ("unlimited", (1, 1), True),
    ("once_per_seat", (0, 1), True),
    ("once_per_seat", (1, 0), False),
    ("once_per_table", (0, 1), False),
    ("once_per_table", (0, 0), True),
])
def test_the_koikoi_limit(limit, calls, asked):
    state, seat = sanko_turn(compiled("koikoi", koikoi_limit=limit), turn=3, calls=calls)
    state.apply(SUSUKI_CHAFF_1)
    if asked:
        assert state.decision().kind == "koikoi"
    else:
        assert E.END_REASONS[state.result.end_reason] == "forced_stop" and state.result.winner == seat


def test_the_trigger_a_rise_in_points_or_a_new_yaku():
    # seat 0 holds five animals (Tane 1) and takes a sixth: its points rise, no new yaku
    animals = list(OTHER_ANIMALS[:4]) + [CHRYS_SAKE_CUP]
    sixth = OTHER_ANIMALS[4]
    mate = [x for x in month_cards(month_of(sixth)) if x != sixth][0]
    hands = [[mate] + fillers(7, animals + [sixth, mate, PAULOWNIA_CHAFF_1]),
             fillers(15, animals + [sixth, mate, PAULOWNIA_CHAFF_1])[7:]]
    for trigger, asked in (("points_rise", True), ("new_yaku", False)):
        state = position(compiled("koikoi", koikoi_trigger=trigger), turn=1, hands=hands, field=[sixth],
                         piles=[animals, []], draw_top=[PAULOWNIA_CHAFF_1])
        state.apply(mate)
        assert (state.decision() is not None and state.decision().kind == "koikoi") == asked
        if not asked:
            assert state.decision().kind == "play" and state.turn == 2


def exhausted_round(c, piles=((), ())):
    """The last turn (16, the non-dealer's) with nothing to take: the round is exhausted."""
    hands = [[], [IRIS_CHAFF_1]]
    state = position(c, turn=16, hands=hands, field=[MAPLE_CHAFF_1], piles=piles, draw_top=[CHRYS_CHAFF_1])
    state.apply(IRIS_CHAFF_1)
    return state.result


def test_an_exhausted_round_under_each_option():
    sanko = list(DRY_BRIGHTS[:3])
    result = exhausted_round(compiled("koikoi"), (sanko, []))
    assert (result.winner, result.exhausted, E.END_REASONS[result.end_reason]) == (-1, True, "exhausted")
    assert result.payoff == [0, 0] and result.end_turn == 16
    result = exhausted_round(compiled("koikoi-kkj"), ([], sanko))  # dealer +1, whatever the yaku
    assert (result.winner, result.exhausted, result.score, result.payoff) == (0, True, [1, 0], [1, -1])
    result = exhausted_round(compiled("koikoi", exhausted="dealer_points", dealer_priority=6))
    assert (result.winner, result.payoff) == (0, [6, 0])
    result = exhausted_round(compiled("koikoi", exhausted="highest_yaku"), ([], sanko))
    assert (result.winner, result.payoff) == (1, [0, 5])
    result = exhausted_round(compiled("koikoi", exhausted="highest_yaku"), (sanko[:2], [SUSUKI_MOON]))
    assert (result.winner, result.payoff) == (-1, [0, 0])


def test_who_deals_after_a_round_nobody_won():
    assert next_dealer(compiled("koikoi"), 0, -1) == 0
    assert next_dealer(compiled("koikoi", exhausted_dealer="switch"), 0, -1) == 1
    assert next_dealer(compiled("koikoi", exhausted_dealer="switch"), 0, 0) == 0
    assert next_dealer(compiled("koikoi"), 1, 0) == 0


TESHI = month_cards(1) + month_cards(2)[:1] + month_cards(3)[:1] + month_cards(4)[:1] + month_cards(5)[:1]
PAIRS = month_cards(1)[:2] + month_cards(2)[:2] + month_cards(3)[:2] + month_cards(4)[:2]


def dealt(c, dealer_hand, other_hand=None, field=None):
    """A round dealt by seat 1 with the given dealer's hand (and other hand, field), the rest
    from ``PLAIN_DECK``."""
    taken = list(dealer_hand) + list(field or [])
    other = other_hand or [x for x in PLAIN_DECK if x not in taken][:8]
    rest = [x for x in PLAIN_DECK if x not in taken and x not in other]
    deck = build_deck(dealer_hand, other, field or rest[:8])
    return RoundState(c, RoundSetup(seed=1, round_index=0, dealer=1), deck=deck)


def test_dealt_hands_score_redeal_or_are_ignored():
    state = dealt(compiled("koikoi"), TESHI)
    result = state.result
    assert (result.winner, E.END_REASONS[result.end_reason], result.end_turn) == (1, "teyaku", 0)
    assert result.score == [0, 6] and result.yaku[1] == 1 << E.Y_TESHI
    result = dealt(compiled("koikoi", kuttsuki_value=4), PAIRS).result
    assert (result.winner, result.score, result.yaku[1]) == (1, [0, 4], 1 << E.Y_KUTTSUKI)
    other = month_cards(6) + month_cards(7)[:1] + month_cards(8)[:1] + month_cards(9)[:1] + month_cards(10)[:1]
    result = dealt(compiled("koikoi"), TESHI, other).result
    assert (result.winner, E.END_REASONS[result.end_reason], result.payoff) == (-1, "teyaku_draw", [0, 0])
    assert dealt(compiled("koikoi", teshi="ignore"), TESHI).decision().kind == "play"
    assert dealt(compiled("koikoi-kkj"), PAIRS).decision().kind == "play"  # kuttsuki ignored
    with pytest.raises(DealError, match="four cards of a month in seat 1's hand"):
        dealt(compiled("koikoi-kkj"), TESHI)
    with pytest.raises(DealError, match="four pairs on the field"):
        dealt(compiled("koikoi"), [x for x in PLAIN_DECK if x not in PAIRS][:8], field=PAIRS)


def test_a_redealt_deal_is_shuffled_again_and_counted():
    c = compiled("koikoi-kkj")
    for round_index in range(2000):
        state = RoundState(c, RoundSetup(seed=3, round_index=round_index, dealer=0))
        if state.redeals:
            break
    else:
        pytest.fail("no redeal in 2000 deals (expected about 26)")
    assert all(dealt_ok(c, h) for h in state.hands) and dealt_ok(c, state.field)


def dealt_ok(c, cards: int) -> bool:
    return dealt_hand(c, cards) != E.Y_TESHI


def test_the_opponents_koikoi_doubles_the_winners_points():
    # seat 1 called koi-koi earlier; seat 0 then stops with Three Brights: 5 x 2
    state, seat = sanko_turn(compiled("koikoi"), turn=5, calls=(0, 1))
    state.apply(SUSUKI_CHAFF_1)
    state.apply(False)
    assert state.result.score == [10, 0] and state.result.koikoi == [0, 1]


def test_match_play_the_winner_deals_and_a_seat_at_zero_ends_the_match():
    c = compiled("koikoi-kkj", start_points=1)
    for unit in range(50):
        results = play_unit(c, RANDOM, 7, unit, 8)
        for before, after in zip(results, results[1:], strict=False):
            assert after.dealer == next_dealer(c, before.dealer, before.winner)
        assert results[0].dealer == unit % 2
        assert results[-1].match_end and not any(r.match_end for r in results[:-1])
        ended = min(results[-1].match_points) <= 0
        assert ended or len(results) == 8
        assert all(min(r.match_points) > 0 for r in results[:-1])
        points = [1, 1]
        for r in results:
            points = [points[s] + r.payoff[s] for s in range(2)]
            assert r.match_points == points
    assert any(len(play_unit(c, RANDOM, 7, unit, 8)) < 8 for unit in range(50))


# the heuristic with the thresholds this test reads its rule with (the defaults are smaller)
HEURISTIC = "heuristic:koikoi_below=10,min_cards=2,danger=6"


def heuristic_answer(state, spec: str = HEURISTIC) -> bool:
    """The heuristic's koi-koi answer at ``state``'s pending koi-koi decision."""
    policy = make_policy(parse_policy(spec, "koikoi"), state.c, Stream(0, 0, 16))
    return policy.koikoi(state.observe(state.decision().seat))


def test_the_heuristic_calls_koikoi_only_when_cheap_early_and_safe():
    # Three Brights (5 points) at turn 3 with six cards in hand, the opponent holding nothing: koi-koi
    state, _ = sanko_turn(compiled("koikoi"), turn=3)
    state.apply(SUSUKI_CHAFF_1)
    assert heuristic_answer(state) is True
    # the same at turn 13, one card left in hand: stop
    state, _ = sanko_turn(compiled("koikoi", last_turn="koikoi_allowed"), turn=13)
    state.apply(SUSUKI_CHAFF_1)
    assert heuristic_answer(state) is False
    # the opponent holds the four plain ribbons: each of the six red and blue ribbons, none in a
    # pile, would give it Tan (danger 6): stop
    state, _ = sanko_turn(compiled("koikoi"), turn=3, other_pile=PLAIN_RIBBONS)
    state.apply(SUSUKI_CHAFF_1)
    assert heuristic_answer(state) is False
    # a stop worth 10 or more (Three Brights doubled by the opponent's call): stop
    state, _ = sanko_turn(compiled("koikoi"), turn=3, calls=(0, 1))
    state.apply(SUSUKI_CHAFF_1)
    assert heuristic_answer(state) is False
    # with the defaults (koikoi_below 4), Three Brights' 5 points already stop
    state, _ = sanko_turn(compiled("koikoi"), turn=3)
    state.apply(SUSUKI_CHAFF_1)
    assert heuristic_answer(state, "heuristic") is False
