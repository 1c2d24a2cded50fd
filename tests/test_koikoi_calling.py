"""The value of calling koi-koi (simcore.games.koikoi.calling): every koi-koi decision answered
both ways from the real position. A stop's payoff is what the round pays when the seat stops
there, a call's what it pays when the same policies play on: both are checked against the rounds
the reference engine plays itself, and the table's bands, means and intervals by hand."""

from __future__ import annotations

import math

import pytest

from simcore.games.koikoi import enums as E
from simcore.games.koikoi.calling import POINTS, TURNS, CallDecision, call_decisions, call_table
from simcore.games.koikoi.compile import compile_rules
from simcore.games.koikoi.reference import RoundSetup, play_round, seat_policies
from simcore.games.koikoi.scoring import stop_score
from simcore.policies import parse_policy
from simcore.rules import load_rules

SEED = 31


@pytest.mark.parametrize("rules_name", ["koikoi", "koikoi-kkj"])
@pytest.mark.parametrize("policy", ["heuristic", "greedy"])
def test_each_answer_is_what_the_round_pays_when_played_that_way(rules_name, policy):
    compiled = compile_rules(load_rules(rules_name))
    specs = [parse_policy(policy, "koikoi")] * 2
    rounds = 400
    decisions = call_decisions(compiled, specs, SEED, rounds)
    assert len(decisions) > 60
    start = compiled.param(E.P_START_POINTS)
    by_round: dict[int, list[CallDecision]] = {}
    for d in decisions:
        by_round.setdefault(d.round, []).append(d)
        # a stop pays the points held, multiplied as the rules say by the calls made so far
        assert d.stop == stop_score(compiled, d.points, d.own_calls, d.opponent_calls), d
        assert 1 <= d.turn <= 16 and d.points >= 1
    checked_stop = checked_call = 0
    for r, found in by_round.items():
        setup = RoundSetup(seed=SEED, round_index=r, match=r, dealer=r % 2, match_points=(start, start))
        result = play_round(compiled, setup, seat_policies(compiled, specs, SEED, r))
        last = found[-1]
        assert [d.turn for d in found] == sorted(d.turn for d in found)
        # the policies met these decisions in the round they played: the last one's own answer is
        # the round's end (a stop) or its continuation (a call), and pays what the round paid
        if not last.called:
            assert result.end_reason == E.END_STOP and result.winner == last.seat
            assert result.payoff[last.seat] == last.stop, (r, last, result)
            checked_stop += 1
        else:
            assert result.payoff[last.seat] == last.call, (r, last, result)
            checked_call += 1
        assert sum(d.called for d in found[:-1]) == len(found) - 1  # only a call lets the round go on
    assert checked_stop > 20
    if policy == "heuristic":
        assert checked_call > 3


def _d(points: int, turn: int, stop: int, call: int, own: int = 0, called: bool = False) -> CallDecision:
    return CallDecision(round=0, seat=0, dealer=True, turn=turn, points=points, own_calls=own, opponent_calls=0,
                        called=called, stop=stop, call=call)


def test_the_table_by_hand():
    decisions = [
        _d(5, 2, 5, 10, called=True), _d(6, 3, 6, 0), _d(5, 4, 5, 14, called=True),  # 5-6 points, turns 1-4
        _d(1, 14, 1, -3),  # 1-2 points, turns 13-16
        _d(12, 9, 12, 30, own=1),  # a second decision: left out of the first-decision table
    ]
    rows = call_table(decisions)
    assert [(r.points, r.turns, r.n) for r in rows] == [(POINTS[0], TURNS[3], 1), (POINTS[2], TURNS[0], 3)]
    row = rows[1]
    # gains 5, -6, 9: mean 8/3, sample variance ((7/3)^2 + (26/3)^2 + (19/3)^2) / 2 = 1086/18
    assert row.gain == pytest.approx(8 / 3)
    half = 1.959963984540054 * math.sqrt(1086 / 18 / 3)
    assert row.low == pytest.approx(8 / 3 - half) and row.high == pytest.approx(8 / 3 + half)
    assert (row.called, row.better, row.worse) == (2, 2, 1)
    single = rows[0]
    assert single.gain == -4 and math.isinf(single.high) and (single.better, single.worse) == (0, 1)
    every = call_table(decisions, first_only=False)
    assert [(r.points, r.turns, r.n, r.gain) for r in every][-1] == (POINTS[4], TURNS[2], 1, 18)


def test_rounds_played_in_several_processes_give_the_same_decisions_in_order():
    compiled = compile_rules(load_rules("koikoi"))
    specs = [parse_policy("heuristic", "koikoi")] * 2
    alone = call_decisions(compiled, specs, SEED, 41, first_round=3)
    assert alone and len({d.round for d in alone}) > 20
    assert call_decisions(compiled, specs, SEED, 41, first_round=3, workers=3) == alone
